"""The slope judgements every sweep verdict uses (Tables 1–4, the lower-bound engine, the benchmarks).

A sweep verdict fits the log-log slope of a per-accuracy count against the realized swept
parameter (:func:`fit_counts`) and compares it with a target slope (the cell's formula slope
along the realized points) under a tolerance ``tol``:

* :func:`upper_ok`  — an upper bound holds: ``slope <= target + tol`` (upper-bound-only cells,
  random families, Tables 2–4);
* :func:`band_ok`   — a tight or absent parameter: ``|slope − target| <= tol``;
* :func:`between_ok` — a lower bound whose unit-constant formula slope and claimed exponent differ
  (a sum of monomials): ``lo − tol <= slope <= hi + tol``;
* :func:`interval_verdict` — a verdict that states its uncertainty (a user's method, :mod:`mixbounds.bench_verdict`):
  where the slope's whole 95% CI lies relative to a band ``[lo, hi]`` (inside, above, below, straddling it).

An upper-bound check that passes far below its target does not show that the instances come near the bound
(issue 35, item 4): :func:`not_exercised` — the slope's whole 95% confidence interval lies below
``target − tol`` — gives such a pass the label :data:`NOT_EXERCISED` (the status stays ``pass``).  A tight or
absent parameter is judged two-sided by :func:`band_ok`, so a slope far below a tight target is a ``fail``.
A random family whose slope exceeds the bound over its range while it stays below the worst-case construction
(judged against the same exponent) passes with the label :data:`DOMINATED` (:mod:`mixbounds.checks.dominance`); a
Table 2 accuracy result whose rate and e-folds obey their factors of the bound, with :data:`FACTORED`
(:mod:`mixbounds.checks.table2_factors`), or, where no run's tail is linear, whose count per e-fold needed obeys the
rate, with :data:`PER_EFOLD_NEEDED`.

The stages around them (screens, target check, fit integrity, …) are the engine's
(:func:`mixbounds.checks.verdict_engine.judge_sweep`); each table's special rule is a small named function in
the module of its checks, passed to the engine (:func:`mixbounds.checks.tables234.rules.table2_log_tolerance`,
:func:`mixbounds.checks.tables234.rules.table4_log_factor_finding`, :func:`mixbounds.checks.tables234.rules.derived_terms_finding`,
:func:`mixbounds.checks.lower.slopes.weaker_bound_finding`, :func:`mixbounds.checks.rates.tightness_extra`).
"""

from __future__ import annotations

import math

from mixbounds.checks.sweeps import fit_slope


def fit_counts(xs, ys) -> dict:
    """:func:`mixbounds.checks.sweeps.fit_slope` of counts ``ys`` against ``xs``; a sweep with a zero count has no slope
    (``nan``), unless every count is the same (slope 0: the oracle is not needed anywhere on the sweep)."""
    if min(ys) <= 0:
        return {"slope": 0.0 if len(set(ys)) == 1 else float("nan"), "ci": (float("nan"),) * 2, "r2": float("nan")}
    return fit_slope(xs, ys)


def upper_ok(slope: float, target: float, tol: float) -> bool:
    """The measured slope does not exceed the claimed one by more than ``tol`` (``False`` for ``nan``)."""
    return bool(slope <= target + tol)


def band_ok(slope: float, target: float, tol: float) -> bool:
    """The measured slope is the claimed one within ``tol`` (``False`` for ``nan``)."""
    return bool(abs(slope - target) <= tol)


def between_ok(slope: float, lo: float, hi: float, tol: float) -> bool:
    """The measured slope lies in ``[lo − tol, hi + tol]`` (``False`` for ``nan``)."""
    return bool(lo - tol <= slope <= hi + tol)


def interval_verdict(ci, lo: float, hi: float) -> str:
    """Where the 95% CI ``ci = (a, b)`` lies relative to the band ``[lo, hi]`` (``lo`` may be ``-inf``):
    ``"inside"`` (``lo <= a`` and ``b <= hi``), ``"above"`` (``a > hi``), ``"below"`` (``b < lo``), ``"straddles"``
    (it crosses an edge: the data cannot decide) or ``"undefined"`` (no finite interval)."""
    if ci is None or len(ci) != 2 or not all(isinstance(c, (int, float)) and math.isfinite(c) for c in ci):
        return "undefined"
    a, b = ci
    if a > hi:
        return "above"
    if b < lo:
        return "below"
    if lo <= a and b <= hi:
        return "inside"
    return "straddles"


#: verdict label of a passing upper-bound check whose slope lies far below the bound (:func:`not_exercised`)
NOT_EXERCISED = "upper holds, not exercised"
#: verdict label of a random family's upper result whose slope exceeds the bound's over its range while its cost per
#: unit of the formula stays below the worst-case construction's (:mod:`mixbounds.checks.dominance`)
DOMINATED = "upper holds by dominance"
#: verdict label of a Table 2 accuracy result whose count slope exceeds the log-including target while the rate and
#: the e-folds of its linearly converging runs each obey their factor of the bound (:mod:`mixbounds.checks.table2_factors`)
FACTORED = "upper holds by its factors"
#: verdict label of a Table 2 accuracy result whose count slope exceeds the log-including target, no reading by its
#: factors being possible, while its count per e-fold its start needs grows at most like the bound's rate
#: (:func:`mixbounds.checks.table2_factors.needed_reading`)
PER_EFOLD_NEEDED = "upper holds per e-fold needed"


def not_exercised(ci, target: float, tol: float) -> bool:
    """The slope's 95% CI ``ci = (lo, hi)`` lies wholly below ``target − tol``: the bound holds but the sweep does not
    come near it (``False`` when the interval or the target is not finite: nothing can be said)."""
    if ci is None or len(ci) != 2:
        return False
    hi = ci[1]
    return bool(math.isfinite(hi) and math.isfinite(target) and hi < target - tol)


def upper_label(status: str, ci, target: float, tol: float, *, control: bool = False) -> str | None:
    """The verdict label of an upper-bound check: :data:`NOT_EXERCISED` for a pass with :func:`not_exercised`,
    else ``None`` (negative controls carry none: their verdict is whether they were caught)."""
    if control or status != "pass":
        return None
    return NOT_EXERCISED if not_exercised(ci, target, tol) else None


def finite(slope: float) -> bool:
    return math.isfinite(slope)
