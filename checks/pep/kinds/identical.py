"""The identical-``C̃`` classes: small instances whose reformulation the PEP certificates read.

With identical shared constraints ``C̃_i = C̃`` (``sub:ident_local``) the reformulation differs from the
non-identical one (:class:`~mixbounds.solvers.reformulation.shared.SharedIdenticalBlock`): the block on the node
copies ``X̃`` is ``B̃ = (I ⊗ C̃'; W' ⊗ I)`` with ``C̃' = P(C̃ᵀC̃)`` (an inner Chebyshev polynomial), ``γ = 1`` and **no
outer polynomial**, and its spectrum is bounded by ``lem:local_spectrum``: ``[min(μ_{C̃'}, μ_{W'}), L_{C̃'} + L_{W'}]``
(``thm:LI_upper_bound``; the identical case of ``app:upper_bound_coupled_plus_non_ident_local_constraints_prob``,
where ``K = diag(B₁', B̃)`` keeps the outer polynomial on the coupled + local block ``B₁``).  APAPC's lines are the
same; what differs is the operator it applies and the interval its parameters assume.

The class-level PEP (:mod:`mixbounds.checks.pep.kinds.classlevel`) quantifies over every symmetric ``P`` with
spectrum in ``{0} ∪ [lo, hi]``, and ``I ⊗ C̃'² + W'² ⊗ I`` (or its block-diagonal sum with ``P(B₁ᵀB₁)``) is one such
``P``: the certificate of these classes is that program at the constants the suite's reformulation gives an
identical-``C̃`` instance (``μ_G, L_G`` of ``lem:conv_smooth_c_and_l``, the interval above).  Two sizes:

* **constants** (``dt = 3``): ``x̃ ∈ R³``, ``C̃ ∈ R^{2×3}`` with singular values ``1`` and ``1/√κ_C̃`` (so ``C̃'`` is a
  polynomial of degree ``⌈√κ_C̃⌉``); ``mixed_ident`` adds ``x_i ∈ R²`` with the coupled and local blocks
  ``A_i, C_i ∈ R^{1×2}`` of :mod:`mixbounds.checks.pep.kinds.blocks` (``prob:opt_mixed_constraints_intro`` with every
  constraint type) and ``f_i`` one function of ``(x_i, x̃_i)``;
* **network** (``dt = 2``, for the fixed-network PEP, whose Gram matrix grows with the slots): ``C̃ = (1, ½)``
  (``κ_C̃ = 1``); ``mixed_ident`` with ``x_i ∈ R`` and ``A_i = 1 + i/n`` (no local block).

Each fixed-network point is compared with the class value at its own constants (``pep.class.containment``), so the
two sizes need not coincide.
"""

from __future__ import annotations

import numpy as np
from mixbounds.bounds.concepts import Oracle, ProblemClass
from mixbounds.checks.pep.kinds.blocks import block_A, block_C
from mixbounds.checks.pep.model import ClassData, LinearModel, model_of_problem
from mixbounds.checks.pep.networks import network
from mixbounds.instances.layout import Layout
from mixbounds.instances.objectives import QuadraticObjective
from mixbounds.instances.problem import MixedProblem
from mixbounds.instances.spectra import solver_facts
from mixbounds.solvers.reformulation.variables import Variables

#: the identical-C̃ classes (bounds.claims: "shared_ident" is thm:LI_upper_bound, "mixed_ident" the identical case
#: of thm:upper_bound_coupled_plus_non_ident_local_constraints_prob)
IDENT_CLASSES = (ProblemClass.SHARED_IDENT, ProblemClass.MIXED_IDENT)
#: x̃'s dimension: the constants' instances and the fixed-network ones (module docstring)
DT_CONSTANTS, DT_NETWORK = 3, 2
#: a fixed rotation of R³ (orthonormal rows), so that ker C̃ is not a coordinate axis
_ROT = np.linalg.qr(np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0], [1.0, 0.0, 1.0]]))[0].T


def ident_Ct(dt: int, kappa_Ct: float) -> np.ndarray:
    """``C̃``: ``(1, ½)`` for ``dt = 2`` (``κ_C̃ = 1``); for ``dt = 3`` the ``2 × 3`` matrix with singular values ``1``,
    ``1/√κ_C̃`` and right singular vectors the first two rows of a fixed rotation."""
    if dt == 2:
        if abs(kappa_Ct - 1.0) > 1e-12:
            raise ValueError(f"identical C̃ with dt = 2 is (1, 1/2), κ_C̃ = 1; got κ_C̃ = {kappa_Ct}")
        return np.array([[1.0, 0.5]])
    if dt == 3:
        if not kappa_Ct >= 1.0:
            raise ValueError(f"identical C̃: need κ_C̃ >= 1, got {kappa_Ct}")
        return np.diag([1.0, 1.0 / np.sqrt(kappa_Ct)]) @ _ROT[:2]
    raise ValueError(f"identical C̃: dt must be 2 or 3, got {dt}")


def ident_problem(cls: str, data: ClassData, dt: int, kappa_Ct: float = 1.0) -> tuple[MixedProblem, tuple]:
    """The identical-``C̃`` problem of ``cls`` (module docstring) with ``f_i = (L_f/2)‖·‖²`` on the node's slots, and
    the slots of every node (in the reformulation's ``w = (x, Y, X̃)``)."""
    if cls not in IDENT_CLASSES:
        raise ValueError(f"PEP identical C̃: unknown class {cls!r} (formulated: {IDENT_CLASSES})")
    n, L = data.network.n, data.L_f
    Ct = ident_Ct(dt, kappa_Ct)
    kw: dict = {Oracle.CT: [Ct] * n, "ct": [np.zeros(Ct.shape[0])] * n}
    if cls == ProblemClass.SHARED_IDENT:
        dx = 0
    elif dt == DT_CONSTANTS:
        dx = 2
        kw.update(A=[block_A(i, n) for i in range(n)], b=[np.zeros(1)] * n, C=[block_C(i, n) for i in range(n)],
                  c=[np.zeros(1)] * n)
    else:
        dx = 1
        kw.update(A=[np.array([[1.0 + i / n]]) for i in range(n)], b=[np.zeros(1)] * n)
    lay = Layout(d=(dx,) * n, dt=dt)
    obj = QuadraticObjective([L * np.eye(dx + dt)] * n, [np.zeros(dx + dt)] * n, lay, L=data.L_f, mu=data.mu_f)
    problem = MixedProblem(W=data.network.W, objective=obj, layout=lay, name=f"pep-{cls}", **kw)
    st = Variables(n, problem.m, lay.dx, dt).st.start  # w = (x, Y, X̃)
    slots = tuple(tuple(range(i * dx, (i + 1) * dx)) + tuple(st + i * dt + k for k in range(dt)) for i in range(n))
    return problem, slots


def ident_model(cls: str, kind: str, n: int, kappa_f: float, kappa_W: float, method: str = "apapc",
                kappa_Ct: float = 10.0, dt: int = DT_CONSTANTS, misstate: tuple | None = None) -> LinearModel:
    """The :class:`LinearModel` of :func:`ident_problem` on the tuned ``kind`` network (``L_f = κ_f``, ``μ_f = 1``).

    ``misstate = (fact, factor)``: the reformulation is built from the instance's facts
    (:func:`mixbounds.instances.spectra.solver_facts`) with ``fact`` multiplied by ``factor`` — a wrong constant
    handed to ``lem:local_spectrum`` (the control ``control.pep.ident_fact.<cls>``)."""
    data = ClassData(cls, network(kind, n, kappa_W), float(kappa_f), 1.0, (), method)
    problem, slots = ident_problem(cls, data, dt, kappa_Ct if dt == DT_CONSTANTS else 1.0)
    facts = None
    if misstate is not None:
        fact, factor = misstate
        facts = dict(solver_facts(problem)[0])
        if fact not in facts:
            raise ValueError(f"PEP identical C̃: no fact {fact!r} (facts: {sorted(facts)})")
        facts[fact] *= float(factor)
    return model_of_problem(data, problem, slots, facts=facts)
