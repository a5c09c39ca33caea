"""Non-scalar blocks and the mixed classes: fixed-network PEPs with several slots per node.

With one scalar slot per node the coupled class only has ``A_i = a_i I_D``, and the classes with local
constraints degenerate (a non-zero scalar ``C_i`` fixes ``x_i``).  Here a node's variable has several
coordinates, each a slot (a point of ``R^D`` in the PEP), and ``f_i`` is one function of the node's slots
(``F(μ_f, L_f)`` interpolation with ``Σ_s ⟨a_s, b_s⟩``, :class:`mixbounds.checks.pep.engine.problem.Function`):

* ``coupled``: ``x_i ∈ R²``, ``A_i ∈ R^{1×2}`` (``app:coupled_cons``);
* ``coupled_local``: the same and ``C_i x_i = 0`` with ``C_i ∈ R^{1×2}`` (``prob:coupled_with_local``,
  ``B = [[A, αW'], [βC', 0]]``, ``lem:mixed_coupled_with_local_spectrum``);
* ``mixed``: ``x_i ∈ R`` with ``A_i = a_i`` coupled, and the shared ``x̃ ∈ R`` under consensus, ``f_i(x_i, x̃_i)`` one
  function of the pair (``eq:mixed_constraints_reformulation``, ``K = diag(B, B̃)``).

Every map the method applies is then a fixed matrix acting as ``M ⊗ I_D`` on the slots (a block ``A_i`` acts on
the node's coordinates, not on ``R^D``), read off the suite's
:class:`~mixbounds.solvers.reformulations.Reformulation` by :func:`mixbounds.checks.pep.model.model_of_problem`:
the certificate covers these matrices and every ``f_i ∈ F(μ_f, L_f)`` in every dimension ``D``.  The same
instances give the class constants of ``coupled_local`` and ``mixed`` for the class-level PEP.
"""

from __future__ import annotations

import numpy as np
from mixbounds.bounds.concepts import Matrix, ProblemClass
from mixbounds.checks.pep.model import ClassData, LinearModel, model_of_problem
from mixbounds.checks.pep.networks import network
from mixbounds.instances.layout import Layout
from mixbounds.instances.objectives import QuadraticObjective
from mixbounds.instances.problem import MixedProblem
from mixbounds.solvers.reformulation.variables import Variables

#: classes with a non-scalar-block model
BLOCK_CLASSES = (ProblemClass.COUPLED, ProblemClass.COUPLED_LOCAL, ProblemClass.MIXED)


def block_A(i: int, n: int) -> np.ndarray:
    """``A_i = (1 + i/n, ½(−1)^i)``: rows of different directions, so ``A`` is not a multiple of the identity."""
    return np.array([[1.0 + i / n, 0.5 * (-1) ** i]])


def block_C(i: int, n: int) -> np.ndarray:
    """``C_i = (1, ½ + i/n)``: the kernel of ``C_i`` is a line ``A_i`` does not annihilate."""
    return np.array([[1.0, 0.5 + i / n]])


def _A_spread(kappa_A: float) -> np.ndarray:
    """``A_i ∈ R^{2×2}`` with singular values ``1`` and ``1/√κ_A`` (the same at every node, so that ``S_A = A_iA_iᵀ``
    and ``κ̂_A = L_A / λ_min+(S_A) = κ_A``): the interval of ``lem:coupled_spectrum`` grows with ``κ̂_A`` while
    ``κ_G`` (``lem:conv_smooth_c_and_l``) does not, which puts the class's points in ``χ > κ`` and ``τ = 1``."""
    if not kappa_A >= 1.0:
        raise ValueError(f"PEP blocks: need κ_A >= 1, got {kappa_A}")
    c, s = 0.8, 0.6
    return np.diag([1.0, 1.0 / np.sqrt(kappa_A)]) @ np.array([[c, -s], [s, c]])


def block_problem(cls: str, data: ClassData, kappa_A: float | None = None) -> tuple[MixedProblem, tuple]:
    """The problem of ``cls`` with several slots per node (module docstring) and the node slots; ``kappa_A``: the
    coupled blocks ``A_i ∈ R^{2×2}`` of :func:`_A_spread` instead of ``R^{1×2}`` (``R`` for mixed)."""
    n, L = data.network.n, data.L_f
    A = [block_A(i, n) for i in range(n)] if kappa_A is None else [_A_spread(kappa_A)] * n
    if cls in (ProblemClass.COUPLED, ProblemClass.COUPLED_LOCAL):
        lay = Layout(d=(2,) * n, dt=0)
        kw = {Matrix.A: A, "b": [np.zeros(A[0].shape[0])] * n}
        if cls == ProblemClass.COUPLED_LOCAL:
            kw.update(C=[block_C(i, n) for i in range(n)], c=[np.zeros(1)] * n)
    elif cls == ProblemClass.MIXED:
        dx = 1 if kappa_A is None else 2
        lay = Layout(d=(dx,) * n, dt=1)
        if kappa_A is None:
            A = [np.array([[1.0 + i / n]]) for i in range(n)]
        kw = {Matrix.A: A, "b": [np.zeros(A[0].shape[0])] * n}
    else:
        raise ValueError(f"PEP blocks: no non-scalar model for class {cls!r} (formulated: {BLOCK_CLASSES})")
    obj = QuadraticObjective([L * np.eye(lay.d[0] + lay.dt)] * n, [np.zeros(lay.d[0] + lay.dt)] * n, lay, L=data.L_f,
                             mu=data.mu_f)
    problem = MixedProblem(W=data.network.W, objective=obj, layout=lay, name=f"pep-blocks-{cls}", **kw)
    dx = lay.d[0]
    st = Variables(n, problem.m, lay.dx, lay.dt).st.start  # w = (x, Y, X̃)
    slots = tuple(tuple(range(dx * i, dx * (i + 1))) + ((st + i,) if lay.dt else ()) for i in range(n))
    return problem, slots


def block_model(cls: str, kind: str, n: int, kappa_f: float, kappa_W: float, method: str = "apapc",
                kappa_A: float | None = None) -> LinearModel:
    """The :class:`LinearModel` of :func:`block_problem` on the tuned ``kind`` network (``L_f = κ_f``, ``μ_f = 1``)."""
    data = ClassData(cls, network(kind, n, kappa_W), float(kappa_f), 1.0, (), method)
    problem, slots = block_problem(cls, data, kappa_A)
    return model_of_problem(data, problem, slots)
