"""The reformulated problem of one class on a fixed network as fixed scalar matrices.

A performance-estimation problem (PEP) is exact over ``f_i ∈ F(μ_f, L_f)`` only when every
other map the method applies is fixed.  With one scalar slot per node variable (``d_i = 1``
or ``d̃ = 1``, ``m = 1``, scalar ``A_i``, ``C̃_i``), every linear map of the paper's
reformulation (``solvers/reformulations.py``) is a fixed scalar matrix ``M`` acting on node
vectors as ``M ⊗ I_D`` — in a PEP the slot values are points of an arbitrary ``R^D``, so the
certificate holds for ``x_i ∈ R^D`` of every dimension ``D``, with ``A_i = a_i I_D``.

Nothing here re-derives the reformulation: :func:`linear_model` builds a small
:class:`~mixbounds.instances.problem.MixedProblem` with a placeholder quadratic objective
``f_i(s) = (c/2) s²`` (its constants passed as ``L_f``, ``μ_f``, so the reformulation's
constants are the class's), builds the suite's :class:`~mixbounds.solvers.reformulations.Reformulation`
(``spectra="lemma"``, ``constants="lemma"``: what the method knows) and reads off, column by
column on unit vectors,

* ``P`` — the normal operator APAPC applies (``apply_normal``: ``P(BᵀB)`` after Chebyshev);
* ``H`` — the Hessian of ``G − F`` (the penalty ``(r/2)‖Ax + αW'Y − b‖²`` of the coupled
  class; zero otherwise), from ``grad_G`` minus the placeholder's gradient;
* the parameters :meth:`~mixbounds.solvers.apapc.APAPCParameters.rule` gives for the reformulation's
  ``L_G, μ_G`` and spectral interval (as :func:`mixbounds.solvers.solve.solve` does).

The right-hand sides are zero (``b = 0``, ``c̃ = 0``): APAPC is translation-equivariant
(``z`` sees ``B u − b = B(u − ū)`` for any ``Bū = b``) and the class ``F(μ, L)`` is
translation invariant, so this loses no instance.

Subspaces (what the PEP quantifies over):

* ``S`` — the subspace the iterates live in: the original variables plus
  ``range(P) + range(H)`` (for the coupled class the auxiliary ``Y`` stays in ``1^⊥``: the
  paper's remark after ``eq:coupled_constraints_reg_form``; ``G`` is strongly convex only
  there, ``lem:conv_smooth_c_and_l``);
* ``R`` — an orthonormal basis of ``range(P)``, where ``z − z*`` lives (``z⁰ = 0``, ``z* = −∇G(u*)``);
* the solution is ``u* = 0``, ``z* = 0``, every ``f_i`` with ``∇f_i(0) = 0``, ``f_i(0) = 0``, WLOG:
  for any solution ``(u*, z*)`` (``Bu* = 0``, ``z* = −∇G(u*) ∈ range P``) the functions
  ``f̃_i(s) = f_i(s + x_i*) − f_i(x_i*) + ⟨z*_i, s⟩`` are again in ``F(μ_f, L_f)`` (a shift and a
  linear term change neither μ nor L), ``G̃(w) = G(w + u*) − G(u*) + ⟨z*, w⟩`` keeps its penalty
  (``B(w + u*) = Bw``), and APAPC's iterates ``(u − u*, u_f − u*, z − z*)`` on ``G`` are its
  iterates on ``G̃``: lines ``x:2``/``x:3`` only see ``∇G(u_g) + z = ∇G̃(u_g − u*) + (z − z*)``.
  So the PEP quantifies over the state ``(u, u_f, z)`` with ``u, u_f ∈ S``, ``z ∈ range P`` and
  over ``f_i`` minimised at 0.  The nodes' heterogeneity is then entirely in ``z − z*``
  (bounded by the dual terms of ``V``).  Fixing ``u*`` and ``z*`` also removes directions in which
  the SDP is degenerate (with them free, Clarabel stalled one to two decades less accurate).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.linalg as sla
from mixbounds.bounds.concepts import Oracle, ProblemClass
from mixbounds.checks.pep.networks import Network
from mixbounds.instances.layout import Layout
from mixbounds.instances.objectives import QuadraticObjective
from mixbounds.instances.problem import MixedProblem
from mixbounds.solvers.apapc import APAPCParameters
from mixbounds.solvers.materialize import operator_matrix
from mixbounds.solvers.reformulations import Reformulation

#: classes a PEP is formulated for (module docstring of :mod:`mixbounds.checks.pep`: what is not, and why)
PEP_CLASSES = (ProblemClass.CONSENSUS, ProblemClass.COUPLED, ProblemClass.SHARED)
#: singular values below this fraction of the largest count as zero (subspace bases)
RANK_RTOL = 1e-10


@dataclass(frozen=True)
class ClassData:
    """The fixed data of one class on a network: the scalar blocks ``a_i`` (coupled) or ``c̃_i`` (shared)."""

    cls: str
    network: Network
    L_f: float
    mu_f: float
    blocks: tuple[float, ...] = ()
    #: ``"apapc"`` (Chebyshev-accelerated, the paper's method) or ``"apapc-nocheb"`` (the operators themselves)
    method: str = "apapc"

    def describe(self) -> dict:
        d = {"class": self.cls, "L_f": self.L_f, "mu_f": self.mu_f, "network": self.network.describe(),
             "method": self.method}
        if self.blocks:
            d["A_i" if self.cls == ProblemClass.COUPLED else "C~_i"] = list(self.blocks)
        return d


def default_blocks(cls: str, n: int) -> tuple[float, ...]:
    """Fixed scalar blocks: ``a_i = 1 + i/n`` (coupled), ``c̃_i = 1`` at node 0 else 0.5 (shared)."""
    if cls == ProblemClass.COUPLED:
        return tuple(1.0 + i / n for i in range(n))
    if cls == ProblemClass.SHARED:
        return tuple(1.0 if i == 0 else 0.5 for i in range(n))
    return ()


def class_problem(data: ClassData, scale: float | None = None) -> MixedProblem:
    """The suite's :class:`MixedProblem` of ``data`` with ``f_i(s) = (scale/2) s²`` (default ``L_f``).

    One scalar slot per node, zero right-hand sides; ``L_f``, ``μ_f`` are passed as the class's
    constants (not computed from the placeholder).
    """
    n = data.network.n
    c = data.L_f if scale is None else scale
    lay = Layout(d=(1,) * n if data.cls == ProblemClass.COUPLED else (0,) * n, dt=0 if data.cls == ProblemClass.COUPLED else 1)
    obj = QuadraticObjective([np.array([[c]])] * n, [np.zeros(1)] * n, lay, L=data.L_f, mu=data.mu_f)
    kw: dict = {}
    if data.cls == ProblemClass.COUPLED:
        kw = {Oracle.A: [np.array([[a]]) for a in data.blocks], "b": [np.zeros(1)] * n}
    elif data.cls == ProblemClass.SHARED:
        kw = {Oracle.CT: [np.array([[a]]) for a in data.blocks], "ct": [np.zeros(1)] * n}
    elif data.cls != ProblemClass.CONSENSUS:
        raise ValueError(f"PEP: no PEP model for class {data.cls!r} (formulated: {PEP_CLASSES})")
    return MixedProblem(W=data.network.W, objective=obj, layout=lay, name=f"pep-{data.cls}", **kw)


def _orth(M: np.ndarray) -> np.ndarray:
    if M.size == 0:
        return np.zeros((M.shape[0], 0))
    return sla.orth(M, rcond=RANK_RTOL)


def _null(M: np.ndarray) -> np.ndarray:
    return sla.null_space(M, rcond=RANK_RTOL)


@dataclass(frozen=True)
class LinearModel:
    """The reformulation of :func:`linear_model` as scalar matrices (module docstring).

    ``node_slot[i]``: the slot of node ``i``'s variable (where ``f_i`` acts);
    ``params``: APAPC's parameters (``rule``); ``describe``: the reformulation's degrees,
    scalings and intervals (``Reformulation.describe``).
    """

    data: ClassData
    size: int
    node_slot: tuple[int, ...]
    P: np.ndarray
    H: np.ndarray
    S: np.ndarray
    R: np.ndarray
    params: APAPCParameters
    degree: int
    reform: dict = field(default_factory=dict)

    @property
    def P_pinv(self) -> np.ndarray:
        """``P⁺`` (the dual metric of the Lyapunov function)."""
        return np.linalg.pinv(self.P, rcond=RANK_RTOL, hermitian=True)


def linear_model(data: ClassData, params: APAPCParameters | None = None) -> LinearModel:
    """Read the scalar matrices of ``data``'s reformulation off the suite's code (module docstring).

    ``params`` overrides APAPC's parameters (the negative controls); default: the rule.
    """
    problem = class_problem(data)
    n = data.network.n
    slots = tuple(range(n)) if problem.layout.dx else None
    return model_of_problem(data, problem, slots, params)


def model_of_problem(data: ClassData, problem: MixedProblem, node_slot: tuple | None = None,
                     params: APAPCParameters | None = None, facts: dict | None = None) -> LinearModel:
    """The :class:`LinearModel` of any small problem whose objective is the placeholder ``(L_f/2)‖s‖²`` on every node
    slot: ``node_slot[i]`` the slot (or tuple of slots) of node ``i``'s variable; ``None``: the shared variable's.
    ``facts``: the spectral facts the reformulation is built from (default: computed from the matrices; a control
    hands it a wrong one)."""
    ref = Reformulation(problem, method=data.method, spectra="lemma", constants="lemma", materialize=False,
                        facts=facts)
    size = ref.size
    P = operator_matrix(ref.apply_normal, size)
    P = 0.5 * (P + P.T)
    if node_slot is None:
        node_slot = tuple(ref.st.start + i for i in range(data.network.n))
    flat = [k for s in node_slot for k in ((s,) if isinstance(s, int) else s)]
    # G − F: grad_G minus the placeholder's gradient L_f·s on the node slots
    Fh = np.zeros((size, size))
    Fh[flat, flat] = data.L_f
    H = operator_matrix(ref.grad_G, size) - Fh
    H = 0.5 * (H + H.T)
    S = _orth(np.hstack([np.eye(size)[:, flat], P, H]))
    R = _orth(P)
    lo, hi = ref.interval
    if params is None:
        params = APAPCParameters.rule(ref.L_G, ref.mu_G, hi, lo)
    return LinearModel(data, size, tuple(node_slot), P, H, S, R, params, _degree(ref), ref.describe())


def _degree(ref: Reformulation) -> int:
    """Communication rounds of one application of the normal operator (the Chebyshev degree on W)."""
    return int(ref.per_iteration_counts()[Oracle.COMM])
