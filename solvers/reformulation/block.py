"""A diagonal block of the reformulated constraint ``K = diag(B, B̃)`` and its outer Chebyshev polynomial.

``K`` is block-diagonal (``app:upper_bound_coupled_plus_non_ident_local_constraints_prob``): a block ``B`` on ``x``
(with ``Y`` when ``A`` is present) and a block ``B̃`` on ``X̃``.  A block knows its raw normal operator
``N = BᵀB`` and ``Bᵀb``, the lemma that bounds the positive spectrum of ``N``, the oracle rounds it costs an APAPC
iteration and what it reads (the memo key of its materialised operator).  Every block but the identical-``C̃`` one
is then Chebyshev-accelerated, ``B → P_B(BᵀB)`` of degree ``⌈√κ_B⌉`` on that interval (``thm:coupled_iclr``,
``app:nonind_upper``, ``sec:mixed_upper``).  The kinds live in :mod:`~mixbounds.solvers.reformulation.coupled`,
:mod:`~mixbounds.solvers.reformulation.local` and :mod:`~mixbounds.solvers.reformulation.shared`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Callable, ClassVar

import numpy as np
from mixbounds.solvers.chebyshev import Chebyshev, chebyshev_degree, chebyshev_interval
from mixbounds.solvers.reformulation.exact import dense_operator, extremes
from mixbounds.solvers.reformulation.inner import InnerOperators, pair
from mixbounds.solvers.reformulation.scalings import Scalings
from mixbounds.solvers.reformulation.variables import Variables


class Block(ABC):
    """One block ``B`` of ``K`` on the part ``slice`` of ``w``, applied to arrays of ``shape``.

    Parameters
    ----------
    var : Variables
        The layout of ``w``.
    problem : MixedProblem
        The problem (its right-hand sides).
    facts : dict
        The spectral facts of :func:`mixbounds.instances.spectra.solver_facts`.
    scal : Scalings
        The scalings ``α``, ``β``, ``γ``.
    """

    #: the block's name in reports (``"coupled"``, ``"shared_identical"``, …)
    kind: ClassVar[str]
    #: ``"x"`` (a block on ``x``, with ``Y`` when A is present) or ``"t"`` (on ``X̃``): its key in ``K``
    side: ClassVar[str]
    #: Chebyshev-accelerated by an outer polynomial ``P_B(BᵀB)`` when the method is
    preconditioned: ClassVar[bool] = True
    #: what the operator is a function of (the parts of :meth:`mixbounds.solvers.reformulation.materialized.
    #: Materializer.key`): ``"x"``/``"t"`` the dimensions, ``"W"``, ``"W'"``, ``"A"``, ``"C"``, ``"C̃"``, scalings
    operands: ClassVar[tuple[str, ...]]

    def __init__(self, var: Variables, problem, facts: dict, scal: Scalings):
        self.var, self.problem, self.facts, self.scal = var, problem, facts, scal
        self.slice, self.shape = self.place(var)
        self.polynomial: OuterPolynomial | None = None

    @staticmethod
    @abstractmethod
    def place(var: Variables) -> tuple[slice, tuple]:
        """The part of ``w`` the block acts on and the shape it is applied to."""

    @abstractmethod
    def raw_interval_lemma(self) -> tuple[float, float]:
        """Bounds on the positive spectrum of ``N = BᵀB`` (the block's lemma)."""

    @abstractmethod
    def normal(self, ops: InnerOperators, v: np.ndarray) -> np.ndarray:
        """``BᵀB v`` (before the outer polynomial), counted on ``ops.orc``."""

    @abstractmethod
    def rhs(self, ops: InnerOperators) -> np.ndarray:
        """``Bᵀb`` (counted: a decentralized method computes it too)."""

    @abstractmethod
    def rounds(self, K: int, degrees: dict, cheb: bool) -> dict[str, int]:
        """Oracle rounds of one APAPC iteration spent in this block (outer degree ``K``, inner ``degrees``)."""


@dataclass(frozen=True)
class OuterPolynomial:
    """The spectral set-up of a block: the interval of ``BᵀB`` and that of ``P_B(BᵀB)``.

    ``raw_interval`` bounds the positive spectrum of ``BᵀB`` (the lemma's, or ``raw_interval_exact``); with an outer
    polynomial of ``degree`` on it, ``interval`` is the range of ``P_B`` there (``interval_lemma``, or
    ``interval_exact`` from the operator), else ``degree`` is 1 and ``interval`` the raw one.
    """

    raw_interval_lemma: tuple[float, float]
    raw_interval: tuple[float, float]
    outer: bool
    degree: int
    interval: tuple[float, float]
    raw_interval_exact: tuple[float, float] | None = None
    interval_lemma: tuple[float, float] | None = None
    interval_exact: tuple[float, float] | None = None

    def as_dict(self) -> dict:
        """The record of a report, in the order the set-up computes it."""
        out: dict = {"raw_interval_lemma": list(self.raw_interval_lemma)}
        if self.raw_interval_exact is not None:
            out["raw_interval_exact"] = list(self.raw_interval_exact)
        out.update(raw_interval=list(self.raw_interval), outer=self.outer, degree=self.degree)
        if self.interval_lemma is not None:
            out["interval_lemma"] = list(self.interval_lemma)
        if self.interval_exact is not None:
            out["interval_exact"] = list(self.interval_exact)
        out["interval"] = list(self.interval)
        return out


def outer_polynomial(block: Block, *, cheb: bool, setup_ops: Callable[[], InnerOperators] | None) -> OuterPolynomial:
    """The outer polynomial of ``block``: its lemma's interval, or the operator's (``spectra="exact"``).

    Parameters
    ----------
    block : Block
        The block.
    cheb : bool
        Chebyshev-accelerated (``method="apapc"``); the identical-``C̃`` block never has an outer polynomial.
    setup_ops : callable, optional
        Returns inner operators counted as set-up, for the dense exact intervals; ``None``: the lemma's.

    Returns
    -------
    OuterPolynomial
    """
    kind, shape, size = block.kind, block.shape, int(np.prod(block.shape))
    lo, hi = block.raw_interval_lemma()
    raw_lemma, raw_exact = pair(lo, hi), None
    if setup_ops is not None:
        ops = setup_ops()
        lo, hi = extremes(dense_operator(lambda v: block.normal(ops, v), shape, size), f"BᵀB[{kind}]")
        raw_exact = pair(lo, hi)
    if not (cheb and block.preconditioned):
        return OuterPolynomial(raw_lemma, pair(lo, hi), False, 1, pair(lo, hi), raw_interval_exact=raw_exact)
    degree = chebyshev_degree(hi, lo)
    flo, fhi = chebyshev_interval(hi, lo, degree)
    lemma, exact = pair(flo, fhi), None
    if setup_ops is not None:
        ops = setup_ops()
        ch = Chebyshev(lambda v: block.normal(ops, v), hi, lo, degree)
        flo, fhi = extremes(dense_operator(ch.apply_P, shape, size), f"P(BᵀB)[{kind}]")
        exact = pair(flo, fhi)
    return OuterPolynomial(raw_lemma, pair(lo, hi), True, degree, pair(flo, fhi), raw_interval_exact=raw_exact,
                           interval_lemma=lemma, interval_exact=exact)
