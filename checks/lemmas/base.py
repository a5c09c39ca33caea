"""The shape of a lemma check, the tolerances that decide its verdicts, and small shared helpers.

A :class:`LemmaCheck` is declarative: its result ids (each written once, in :class:`Result`),
its cases per tier, the point function that computes both sides of the statement on one case,
and ``finalize``, which turns the points into verdicts.  The registry
(:mod:`mixbounds.checks.lemmas`), the tests and the expected findings (:mod:`mixbounds.checks.expected`) are all
derived from these objects.

Conventions: ``L_W = σ_max²(W) = λ_max(W)²`` and ``μ_W = σ_min+²(W) = λ_min+(W)²``
(eq:mat_Lmu; W is symmetric PSD), so ``L_W/μ_W = κ_W²`` with ``κ_W = λ_max/λ_min+``.
A function is ``μ``-strongly convex on a subspace iff its Hessian restricted to
that subspace has smallest eigenvalue ``>= μ`` (Bregman divergence ``>= μ/2‖h‖²``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import scipy.sparse as sp
from mixbounds.bounds.guards import SCALE_FLOOR
from mixbounds.checks.lemmas.cases import describe, orth_kernel, psd_spectrum
from mixbounds.checks.run.framework import Check, Task
from mixbounds.checks.run.result import CheckResult
from mixbounds.checks.tiers import TIERS, Tier

#: INEQ_RTOL (``a <= b`` holds if ``a <= b (1 + INEQ_RTOL)``) and PATH_ABS_TOL live in checks/tolerances.py
from mixbounds.checks.tolerances import INEQ_RTOL, PATH_ABS_TOL  # noqa: E402, F401

#: an equality of two spectral quantities holds to this relative accuracy (same reason).
EQ_RTOL = 1e-7
#: closed forms of exact constructions (exact 1/T_K, …): rounding only.
EXACT_RTOL = 1e-10
#: the order check of lem:mixed_coupled_with_local_spectrum: a log-log slope of κ_B in κ_W above
#: 1 + ORDER_SLOPE_TOL contradicts the printed O(κ̃κ_W); κ_W² predicts 2 (minus the κ_C term's drag).
ORDER_SLOPE_TOL = 0.5
#: κ_B/(κ̃κ_W² + κ̃κ_C) can not exceed 9 if the explicit bound holds (4κ̃ + (4κ̃+1)κ_W² + (4κ̃+2)κ_C <= 9(κ̃κ_W² + κ̃κ_C))
ORDER_CONST_MAX = 9.0
#: two computations of the same spectral number through different code paths (dense here vs mixbounds.bounds.condition)
SUITE_RTOL = 1e-6
#: identical formulas evaluated twice (κ̃ with D = 0 vs κ̂ in mixbounds.bounds.condition): rounding only
SAME_RTOL = 1e-9
#: two orthonormal bases span the same subspace when the sine of the largest principal angle is below this
#: (‖(I − UUᵀ)V‖₂ is accurate to ~1e-15; generic principal angles are O(1))
SUBSPACE_TOL = 1e-8
#: a restricted Hessian whose smallest eigenvalue is below NOT_SC_TOL·μ_f is "not strongly convex"
#: (true kernel directions give ~1e-15·λ_max)
NOT_SC_TOL = 1e-8
#: the proofs' intermediate matrix inequalities H ⪰ D hold when λ_min(H − D) >= −PSD_MARGIN·scale (rounding)
PSD_MARGIN = 1e-9
#: eigenvalues of ``P(M)`` (entries O(1)) vs the exact interval: rounding of a 40×40 eigendecomposition
CHEB_EIG_TOL = 1e-9
#: Algorithm alg:chebyshev (three-term recurrence, up to 1000 steps) vs the direct cos-form evaluation, relative
CHEB_ALG_RTOL = 1e-7
#: relative residual below which a computed u* / u*_ν counts as feasible (dense solves of size <= 30)
FEAS_RTOL = 1e-8
#: the constants Salim et al. (2022, §6.3.2) quote for the Chebyshev-preconditioned spectrum
SALIM_LO, SALIM_HI = 11.0 / 15.0, 19.0 / 15.0

FAMILY = "lemma"


# ============================================================================ the declarative check
@dataclass(frozen=True)
class SeededCases:
    """A lemma check's cases in one tier: ``raw`` seeded random matrices and the first ``families`` points of its
    random family (the per-tier settings of :func:`mixbounds.checks.tiers.per_tier`)."""

    raw: int
    families: int


@dataclass(frozen=True)
class Result:
    """One result a lemma check returns: its id, and what the suite expects of it.

    ``control``: a negative control (must come out ``fail``); ``finding``: the reason the
    result is an *expected* finding (it then appears in :mod:`mixbounds.checks.expected` with
    ``label``, default the check's label); ``tiers``: the tiers it is produced in.
    """

    id: str
    control: bool = False
    finding: str | None = None
    label: str | None = None
    tiers: tuple[Tier, ...] = TIERS

    @property
    def expected_status(self) -> str:
        """``fail`` for a control, ``finding`` for an expected finding, else ``pass``."""
        return "fail" if self.control else "finding" if self.finding else "pass"


@dataclass(frozen=True)
class Point:
    """A task of a lemma check that is not the check's default ``point(case)`` (another function,
    its own progress label, a scheduling cost)."""

    func: Callable
    case: dict
    label: str = ""
    cost: float = 0.0


@dataclass(frozen=True)
class LemmaCheck:
    """A lemma (or a group of closed forms) checked numerically.

    ``cases(tier)`` lists JSON-able case dicts (computed by ``point(case)``) or :class:`Point` s;
    ``finalize(tier, pts, ids)`` receives the points in case order (none of them an error: a
    failed point makes every result ``error`` here) and the tier's result ids in the order of
    ``results``, and returns one :class:`CheckResult` per id.
    """

    id: str
    label: str
    description: str
    results: tuple[Result, ...]
    cases: Callable[[str], list]
    finalize: Callable[[str, list, tuple], list[CheckResult]]
    point: Callable | None = None
    kind: str = "lemma"
    task_label: Callable[[dict], str] = describe
    tiers: tuple[Tier, ...] = TIERS

    def result_ids(self, tier: Tier) -> list[str]:
        return [r.id for r in self.results if tier in r.tiers] if tier in self.tiers else []

    def tasks(self, tier: Tier) -> list[Task]:
        out = []
        for c in self.cases(tier):
            p = c if isinstance(c, Point) else Point(self.point, c, self.task_label(c))
            kw = {"case": p.case}
            if p.cost:
                kw["_cost"] = float(p.cost)
            out.append(Task(func=p.func, kwargs=kw, label=p.label or describe(p.case)))
        return out

    def run_finalize(self, tier: Tier, points: dict) -> list[CheckResult]:
        """Points in case order, errors turned into ``error`` results, then ``finalize``."""
        ids = tuple(self.result_ids(tier))
        pts = [dict(points.get(t.key, {"error": "missing point"}), _task=t.label) for t in self.tasks(tier)]
        errs = [f"{p.get('_task', '?')}: {p['error']}" for p in pts if "error" in p]
        if errs:
            controls = {r.id for r in self.results if r.control}
            return [CheckResult(id=i, kind=self.kind, status="error", label=self.label, control=i in controls,
                                expected="fail" if i in controls else None,
                                detail=f"{len(errs)} point(s) failed: " + "; ".join(errs[:5])) for i in ids]
        res = self.finalize(tier, pts, ids)
        if [r.id for r in res] != list(ids):
            raise ValueError(f"{self.id}: finalize returned {[r.id for r in res]}, declared {list(ids)}")
        return res

    def check(self) -> Check:
        return Check(self.id, FAMILY, self.result_ids, self.tasks, self.run_finalize, self.description, tiers=self.tiers)


# ============================================================================ small helpers
def approx_le(a: float, b: float, rtol: float = INEQ_RTOL) -> bool:
    """``a <= b`` up to the relative rounding slack ``rtol·|b|`` (the lemma checks' inequality)."""
    return bool(a <= b + rtol * abs(b))


def approx_ge(a: float, b: float, rtol: float = INEQ_RTOL) -> bool:
    """``a >= b`` up to the relative rounding slack ``rtol·|b|`` (the lemma checks' inequality)."""
    return bool(a >= b - rtol * abs(b))


def approx_eq(a: float, b: float, rtol: float = EQ_RTOL) -> bool:
    """``a == b`` up to ``rtol`` relative to the larger magnitude (floored at ``SCALE_FLOOR``)."""
    return bool(abs(a - b) <= rtol * max(abs(a), abs(b), SCALE_FLOOR))


def block_diag_dense(blocks) -> np.ndarray:
    """Dense block-diagonal matrix of dense blocks."""
    return sp.block_diag([sp.csr_matrix(B) for B in blocks], format="csr").toarray()


def safe_ratio(a: float, b: float) -> float:
    """``a / b``, with ``b = 0`` read as ``inf`` for ``a > 0`` and as ``1`` otherwise."""
    return float(a / b) if b != 0 else (float("inf") if a > 0 else 1.0)


def compact_point(p: dict, keys: tuple) -> dict:
    """The ``case`` and ``keys`` entries of point ``p`` (those present), for a result's ``extra``."""
    return {k: p[k] for k in ("case",) + keys if k in p}


def _unclear(pts: list[dict]) -> list[str]:
    return [p.get("case", "?") for p in pts if not p.get("clear", True)]


def clear_note(pts: list[dict]) -> str:
    """A warning naming the cases whose zero/positive eigenvalue split was not clear-cut (empty when all were)."""
    u = _unclear(pts)
    return "" if not u else f" WARNING: the zero/positive eigenvalue split was not clear-cut on {len(u)} case(s): {u[:3]}."


def mu_tilde_dense(A: list, C: list | None, L_A: float) -> float:
    """``μ̃_AC = (1/n) σ_min+²(A' P_{ker C})`` (Definition def:projected_condition_number), dense.

    The zero threshold is relative to ``L_A`` (not to the matrix's own largest eigenvalue), so
    that ``A_i = R_i C_i`` (``A' P_ker C = 0`` up to rounding) gives ``μ̃ = 0`` exactly.
    """
    n = len(A)
    parts = []
    for i, Ai in enumerate(A):
        N = np.eye(Ai.shape[1]) if C is None else orth_kernel(C[i])
        parts.append(Ai @ N)
    F = np.hstack(parts)
    return psd_spectrum(F @ F.T / n, ref=L_A)["lmin_pos"]


def block_scaling(L_A: float, L_S: float, mu_t: float, mu_W: float, mu_C: float) -> tuple[float, float]:
    """``α², β²`` of eq:block_scaling."""
    if mu_t > 0:
        return (L_A + mu_t / 4.0) / mu_W, (L_S + mu_t / 2.0) / mu_C
    return 2.0 * L_A / mu_W, (L_S + 2.0 * L_A) / mu_C
