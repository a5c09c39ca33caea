"""The paper's reformulations of every problem class as ``min G(w) s.t. K w = b'``, for APAPC: the facade.

:class:`Reformulation` is what APAPC and the other solvers read (the gradient of ``G``, ``P(KᵀK)``, ``Kᵀb'``, the
constants and intervals).  It is built from the parts in :mod:`mixbounds.solvers.reformulation`, in the paper's
order: the facts, the inner polynomials ``W'``, ``C'``, ``C̃'``, the scalings ``α``, ``β``, ``γ``, ``r``, the blocks of
``K`` with their outer polynomials, the constants of ``G``, then the operators on the solve's oracles, materialised
where cheaper.  The blocks and their paper labels: :mod:`mixbounds.solvers.reformulation`.
"""

from __future__ import annotations

import numpy as np
from mixbounds.bounds.concepts import BlockKind
from mixbounds.instances.spectra import shared_kind
from mixbounds.solvers.oracles import ORACLES, CountedOracles
from mixbounds.solvers.reformulation import options
from mixbounds.solvers.reformulation.block import outer_polynomial
from mixbounds.solvers.reformulation.constants_modes import objective_constants
from mixbounds.solvers.reformulation.facts import reformulation_facts
from mixbounds.solvers.reformulation.inner import InnerOperators, bind, inner_polynomials
from mixbounds.solvers.reformulation.materialized import Materializer, materialized_record
from mixbounds.solvers.reformulation.normal import assemble, blocks, x_block
from mixbounds.solvers.reformulation.objective import PenalizedObjective
from mixbounds.solvers.reformulation.options import CONSTANTS, METHODS, SPECTRA, SUPPORTED_CLASSES
from mixbounds.solvers.reformulation.scalings import scalings
from mixbounds.solvers.reformulation.variables import Variables

__all__ = ["CONSTANTS", "METHODS", "Reformulation", "SPECTRA", "SUPPORTED_CLASSES"]


class Reformulation:
    """Reformulation of a :class:`~mixbounds.instances.problem.MixedProblem` for APAPC.

    Parameters
    ----------
    problem : MixedProblem
        The problem; its :attr:`problem_class` picks the blocks.
    oracles : CountedOracles, optional
        Counted oracles of ``problem`` (default: a new :class:`~mixbounds.solvers.oracles.CountedOracles`).
    method : {"apapc", "apapc-nocheb"}
        Chebyshev-accelerated, or without acceleration (the negative control).
    spectra : {"lemma", "exact"}
        Where the spectral intervals come from (:mod:`mixbounds.solvers.reformulation`).
    constants : {"lemma", "exact", "spectral", "bounds", "auto"}
        Where the constants μ_G, L_G come from (:mod:`~mixbounds.solvers.reformulation.constants_modes`).
    materialize : bool
        Apply fixed polynomial operators (``P_W(W)``; small inner and outer polynomials) as matrices built from
        their counted recurrence, adding the recurrence's exact counts per application
        (:mod:`~mixbounds.solvers.reformulation.materialized`); ``False`` evaluates every recurrence step through
        the oracles.
    eps : float
        The run's target accuracy, for the cost model of ``constants="auto"`` (default 1e-8).
    facts : dict, optional
        The facts of :func:`mixbounds.instances.spectra.solver_facts` when already known (an instance directory's
        stored spectra, checked by :func:`mixbounds.instances.spectra.trusted_facts`); computed when ``None``.

    Notes
    -----
    APAPC reads :meth:`grad_G`, :meth:`apply_normal`, :attr:`normal_rhs`, :attr:`L_G`, :attr:`mu_G`,
    :attr:`interval` (bounds on the positive spectrum of the normal operator), :meth:`to_u`, :meth:`from_u`;
    :meth:`describe` gives every degree, scaling and interval.  :attr:`inner`, :attr:`scalings` (:attr:`scal` by
    name), :attr:`blocks` and :attr:`facts` are the set-up; :attr:`setup_counts` the rounds spent estimating
    constants on :attr:`setup_orc`, apart from the solve's :attr:`orc`.
    """

    def __init__(self, problem, oracles: CountedOracles | None = None, *, method: str = "apapc",
                 spectra: str = "lemma", constants: str = "lemma", materialize: bool = True,
                 eps: float = 1e-8, facts: dict | None = None):
        options.check(problem, method, spectra, constants)
        self.problem = problem
        self.orc = oracles if oracles is not None else CountedOracles(problem)
        if self.orc.problem is not problem:
            raise ValueError("Reformulation: the oracles belong to another problem")
        self.method, self.spectra, self.constants = method, spectra, constants
        self.materialize, self.cheb, self.eps = bool(materialize), method == "apapc", float(eps)
        self.problem_class = problem.problem_class
        var = self.variables = Variables(problem.n, problem.m, problem.layout.dx, problem.layout.dt)
        self.n, self.m, self.dx, self.dt = var.n, var.m, var.dx, var.dt
        self.sx, self.sy, self.st, self.size = var.sx, var.sy, var.st, var.size
        self.has_A, self.has_C = problem.A is not None, problem.C is not None
        self.x_kind, self.t_kind = x_block(var.dx, self.has_A, self.has_C), shared_kind(problem)
        self._setup_orc: CountedOracles | None = None
        self._work = None  # the buffer of sq_distance
        self.info: dict = {"class": self.problem_class, "method": method, "spectra": spectra, "constants": constants,
                           "x_block": self.x_kind, "t_block": self.t_kind}
        self.facts, self.facts_source = reformulation_facts(problem, facts, self.t_kind)
        self.info["facts"] = dict(self.facts)
        self._set_up_polynomials()
        self.L_G, self.mu_G, self.info["constants_G"] = objective_constants(self)
        self._bind()

    def _set_up_polynomials(self) -> None:
        """Inner polynomials, scalings, blocks and their outer polynomials (lemma's or exact intervals)."""
        P, f, exact, t_kind = self.problem, self.facts, self.spectra == "exact", self.t_kind
        self.inner = inner_polynomials(P, f, uses_W_prime=self.has_A or t_kind in (BlockKind.SHARED, BlockKind.SHARED_IDENTICAL),
                                       uses_C_prime=self.x_kind == BlockKind.COUPLED_LOCAL,
                                       uses_Ct_prime=t_kind == BlockKind.SHARED_IDENTICAL, cheb=self.cheb, exact=exact)
        self.info["inner"] = {k: p.as_dict() for k, p in self.inner.items()}
        self.scalings = scalings(P, f, self.inner, self.x_kind, t_kind)
        self.scal = self.scalings.as_dict()
        self.info["scalings"] = dict(self.scal)
        self.blocks = blocks(self.variables, self.x_kind, t_kind, P, f, self.scalings)
        setup_ops = (lambda: self.operators(self.setup_orc)) if exact else None
        for b in self.blocks.values():
            b.polynomial = outer_polynomial(b, cheb=self.cheb, setup_ops=setup_ops)
        lo = min(b.polynomial.interval[0] for b in self.blocks.values())
        hi = max(b.polynomial.interval[1] for b in self.blocks.values())
        self.interval = (lo, hi)
        self.info["blocks"] = {k: {"kind": b.kind, **b.polynomial.as_dict()} for k, b in self.blocks.items()}
        self.info["interval"] = [float(lo), float(hi)]
        self.info["degrees"] = self.degrees()

    def _bind(self) -> None:
        """The operators on the solve's oracles: ``W'``, ``C'``, ``C̃'``, ``P(KᵀK)``, ``Kᵀb'`` and ``∇G``."""
        ops = self.operators(self.orc)
        mat = Materializer(self.problem, self.inner, self.scalings, self.variables, self.operators) \
            if self.materialize and self.cheb else None
        outer: list[str] = []
        if mat is not None:
            ops = mat.inner_operators(ops, self.t_kind)

        def materialized(block):
            M = None if mat is None else mat.outer(block, self.orc)
            if M is not None:
                outer.append(block.kind)
            return M

        self.main_operators = ops
        zero = [self.sx] if self.x_kind == BlockKind.FREE else []
        self.normal_operator, self.normal_rhs = assemble(self.blocks, ops, self.size, zero, materialized)
        self.info["materialized"] = materialized_record(ops, outer)
        self.objective = PenalizedObjective(self.variables, self.problem, self.orc, self.scalings, ops.Wp)

    def operators(self, orc: CountedOracles) -> InnerOperators:
        """``W'``, ``C'``, ``C̃'`` as recurrences counted on ``orc`` (the solve's, the set-up's or a scratch one)."""
        return bind(self.inner, orc, self.problem, self.cheb)

    #: :meth:`operators` under the name :mod:`mixbounds.solvers.spectral_estimates` calls (``R._ops(R.setup_orc)``)
    _ops = operators

    @property
    def setup_orc(self) -> CountedOracles:
        """The counted oracles of constants estimation (:attr:`setup_counts`), apart from the solve's :attr:`orc`."""
        if self._setup_orc is None:
            self._setup_orc = CountedOracles(self.problem)
        return self._setup_orc

    @property
    def setup_counts(self) -> dict:
        """Oracle rounds spent estimating constants (all zero for ``"lemma"`` and ``"bounds"``)."""
        return self._setup_orc.snapshot() if self._setup_orc is not None else {k: 0 for k in ORACLES}

    def degrees(self) -> dict:
        """Degree of every Chebyshev polynomial (1 = no polynomial): ``W``, ``C``, ``Ct``, ``K_x``, ``K_t``."""
        d = {k: p.degree for k, p in self.inner.items()}
        d.update({f"K_{key}": b.polynomial.degree for key, b in self.blocks.items()})
        return d

    # ------------------------------------------------------------------ what APAPC uses
    def apply_normal(self, w):
        """``P(KᵀK) w`` (or ``KᵀK w`` without Chebyshev), block by block; a new array."""
        return self.normal_operator(w)

    def grad_G(self, w):
        """``∇G(w)``: one ``grad`` round, plus (with A) two ``A`` and two ``W'`` applications."""
        return self.objective.grad(w)

    def to_u(self, w):
        """Original variables ``(x, X̃)`` in the u-layout."""
        return self.variables.to_u(w)

    def from_u(self, u):
        """Start ``w⁰ = (x⁰, Y = 0, X̃⁰)`` from a u-layout point."""
        return self.variables.from_u(u)

    def sq_distance(self, w, u_star) -> float:
        """``‖(x, X̃)(w) − u*‖²`` without forming the u-layout vector."""
        if self._work is None:
            self._work = np.empty(self.dx + self.n * self.dt)
        return self.variables.sq_distance(w, u_star, self._work)

    def per_iteration_counts(self) -> dict:
        """Oracle rounds of one APAPC iteration implied by the degrees (for reports; tests recompute it)."""
        d = self.degrees()
        c = dict.fromkeys(ORACLES, 0)
        parts = [PenalizedObjective.rounds(self.has_A, d)]
        parts += [b.rounds(b.polynomial.degree, d, self.cheb) for b in self.blocks.values()]
        for part in parts:
            for k, v in part.items():
                c[k] += v
        return c

    def describe(self) -> dict:
        """Everything a report needs: degrees, α, β, γ, r, L_G, μ_G, spectral intervals."""
        info = dict(self.info)
        info["per_iteration_counts"] = self.per_iteration_counts()
        info["L_G"], info["mu_G"] = self.L_G, self.mu_G
        info.update({k: self.scal[k] for k in ("alpha", "beta", "gamma", "r") if k in self.scal})
        return info
