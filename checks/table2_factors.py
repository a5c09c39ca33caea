"""Table 2's accuracy count read as its two factors: the rate of the regularised run and the e-folds it needs.

The proof of ``thm:upper_bounds_mixed_smooth_nonstrongly_convex`` (``app:smooth_convex_results``) runs APAPC on the
regularised problem ``G^ν = G + (ν/2)‖u⁰ − u‖²``, ``ν = ε/R²``: a linear rate with ``O(√((L + ν)/ν)) =
O(√(L_fR²/ε))`` iterations per e-fold (``thm:smooth_objectives_apapc_convergence``), for ``O(log(1/δ))`` e-folds
(``lem:regularized_convergence``).  The count of oracle ``o`` is therefore

    calls of o per iteration  ×  iterations per e-fold  ×  e-folds.

The slope verdict of :mod:`mixbounds.checks.tables234.rules` judges the product against ``x^e · ln x`` (``x = L_fR²/ε``):
the log's constant is fixed at 0 there, and a run whose e-folds are ``a·ln x − b`` with ``b > 0`` climbs faster
than that target over any finite range although it obeys the bound (measured in the full tier: the log-cosh shared
series, slope 0.819 against 0.628 + 0.12, r·√x flat at 0.62 from x ≈ 1.4·10³; docs/records/full-tier.md).  Where
the runs converge linearly, each factor can be read from the run's own accuracy history instead:

* rate ``r``: the least-squares slope of ``−ln q_k`` over the rows after the settled row ``s`` (the run continues
  there by design, :data:`mixbounds.solvers.regularized.SETTLE_FRACTION`), ``q`` the run's accuracy ratio
  ``max(gap/ε, dist/δ)`` and its envelope from the end; the fit's R² says whether that tail is a straight line
  (:data:`LINEAR_R2`);
* per-e-fold cost of ``o``: its calls per row up to ``s`` divided by ``r``;
* e-folds ``E = s·r`` (the settled row in units of the rate) against those the criterion needs from the start,
  ``N = ln q_0``.

:func:`factor_reading` is consulted only for a Table 2 accuracy sweep whose count slope fails (as the dominance rule,
:mod:`mixbounds.checks.dominance`, only for a random family's).  On the points whose tail is linear (at least
:data:`MIN_POINTS`), it holds when the per-e-fold cost grows at most like ``x^(e + tol)`` (the cell's printed
exponent: the rate factor) **and** ``E`` grows at most ``1 + tol`` per e-fold of ``N`` (linear-regression slope:
every e-fold more that the criterion needs costs at most one e-fold at the run's own rate, which is the log factor
of linear convergence; a ``log²`` count has a slope that grows with ``N``).  The verdict then passes with the label
:data:`mixbounds.checks.verdict.FACTORED` and names the points and range it rests on; otherwise the fail stands, with
the reason.  Negative controls (``FACTOR_CONTROLS`` in :mod:`mixbounds.checks.tables234.table2_factor_controls`), on measured runs: a
per-e-fold cost that grows like ``x`` (an unaccelerated method), e-folds that grow like ``N³``, and a steeper count
whose factors hold from runs whose tails are not linear; each must fail.

Where no tail is linear (an accelerated run's accuracy ratio oscillates with a period of order √x rows, and a short tail
after the settled row is a staircase, R² 0.6–0.9), :func:`needed_reading` reads the count **per e-fold needed**: the
proof's log factor is ``log(1/δ)`` of the regularised run (``lem:regularized_convergence``), the e-folds from the start
to the criterion, which each run measures as ``N = ln q_0`` (``q_0`` the accuracy ratio at its own start).  The target
``x^e · ln x`` models ``N`` as ``ln x``; on the convex coupled + local family of the full tier ``N = ln x − 2.99`` at every
point (the start's accuracy ratio is ``x/20``), and the count of ``x^e · (ln x − 2.99)`` has a local slope above that of
``x^e · ln x`` by ``2.99 / (ln x · (ln x − 2.99))`` (0.19 at x = 300, the middle of the sweep 30 … 3000: more than the tolerance).  The reading
holds when ``count / N`` grows at most like ``x^(e + tol)`` on the points whose start needs at least
:data:`MIN_NEED` e-fold (at least :data:`MIN_POINTS`): a ``log²`` count (``count / N ∝ x^e·N``) fails it where ``N``
grows, as does an unaccelerated one.  Its negative control (``NEEDED_CONTROLS`` in
:mod:`mixbounds.checks.tables234.table2_factor_controls`) makes the measured counts ``log²``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mixbounds.checks.sweeps import fit_slope
from mixbounds.checks.verdict import upper_ok

#: the tail of a run is linear when the least-squares line through ``ln q`` over it has at least this R²
#: (measured on the shared log-cosh runs: 1.0000 at x >= 1.4·10³, 0.990 and 0.898 at 646 and 300 where the
#: settled row falls inside the oscillations of the gap)
LINEAR_R2 = 0.999
#: fewest rows after the settled row for a rate
MIN_TAIL_ROWS = 10
#: fewest points with a linear tail for a reading
MIN_POINTS = 3
#: fewest e-folds a point's start must need to enter the per-e-fold-needed reading (a start within one e-fold of the
#: criterion is counted by the run's first iterations, not by its rate: x = 30 on the coupled + local family needs 0.85)
MIN_NEED = 1.0


def tail_reading(history_error, settled_row: int | None) -> dict | None:
    """The rate, its R², the e-folds and the e-folds needed of one run (module docstring); ``None`` without a
    settled row.  ``rate`` is ``None`` when the tail is shorter than :data:`MIN_TAIL_ROWS` or not positive."""
    if settled_row is None:
        return None
    q = np.asarray(history_error, dtype=float)
    s = int(settled_row)
    tail = np.maximum.accumulate(q[s:][::-1])[::-1]
    need = float(np.log(q[0])) if q.size and q[0] > 0 else None
    out = {"rows": [s, int(q.size - 1)], "need": need, "rate": None, "r2": None, "efolds": None}
    if tail.size < MIN_TAIL_ROWS or not np.all(tail > 0) or need is None or not np.isfinite(need):
        return out
    k = np.arange(s, q.size, dtype=float)
    y = np.log(tail)
    slope, icpt = np.polyfit(k, y, 1)
    ss = float(np.sum((y - y.mean()) ** 2))
    r2 = 1.0 - float(np.sum((y - (slope * k + icpt)) ** 2)) / ss if ss > 0 else 0.0
    out.update(rate=float(-slope), r2=r2, efolds=float(s * -slope))
    return out


def linear(t: dict | None) -> bool:
    """Whether a point's tail gives a rate (linear to :data:`LINEAR_R2`, positive rate)."""
    return bool(t and t.get("rate") and t["rate"] > 0 and t.get("r2") is not None and t["r2"] >= LINEAR_R2)


@dataclass(frozen=True)
class FactorReading:
    """The two factors over the linear points (module docstring); ``reason`` says why it does not hold."""

    holds: bool
    used: tuple
    excluded: tuple
    cost_fit: dict | None
    efold_slope: float | None
    reason: str | None = None

    def to_dict(self) -> dict:
        return {"holds": self.holds, "points": list(self.used), "excluded": list(self.excluded),
                "cost_slope": None if self.cost_fit is None else self.cost_fit["slope"],
                "cost_ci": None if self.cost_fit is None else list(self.cost_fit["ci"]),
                "efold_slope": self.efold_slope, "reason": self.reason}

    def sentence(self, exponent: float, tol: float) -> str:
        """The detail's clause."""
        if not self.used:
            return f"not read by its factors: {self.reason}"
        f = self.cost_fit
        head = (f"by its factors on x = {self.used[0]:g} … {self.used[-1]:g} ({len(self.used)} points with a linear "
                f"tail, R² >= {LINEAR_R2}"
                + (f"; left out {[round(x, 3) for x in self.excluded]}" if self.excluded else "") + "): "
                f"per-e-fold cost slope {f['slope']:.3f} (95% CI {f['ci'][0]:.3f}..{f['ci'][1]:.3f}; allowed <= "
                f"{exponent:g} + {tol}), e-folds per e-fold needed {self.efold_slope:.3f} (allowed <= 1 + {tol})")
        return head if self.holds else f"not read by its factors: {self.reason} ({head})"


def factor_reading(points: list[tuple[float, dict, float]], exponent: float, tol: float) -> FactorReading:
    """``points``: ``(x, tail_reading, count)`` of every judged point of one sweep and oracle (count = the oracle's
    calls up to the settled row).  The reading of the module docstring."""
    used = [(x, t, c) for x, t, c in points if linear(t)]
    excluded = tuple(x for x, t, _ in points if not linear(t))
    if len(used) < MIN_POINTS:
        return FactorReading(False, tuple(x for x, _, _ in used), excluded, None, None,
                             f"{len(used)} point(s) with a linear tail (R² >= {LINEAR_R2}), {MIN_POINTS} needed")
    xs = [x for x, _, _ in used]
    cost = [c / max(t["rows"][0], 1) / t["rate"] for _, t, c in used]
    f = fit_slope(xs, cost)
    need = np.array([t["need"] for _, t, _ in used])
    efolds = np.array([t["efolds"] for _, t, _ in used])
    es = float(np.polyfit(need, efolds, 1)[0]) if np.ptp(need) > 0 else float("inf")
    reasons = []
    if not upper_ok(f["slope"], exponent, tol):
        reasons.append(f"the per-e-fold cost grows faster than x^{exponent:g} (slope {f['slope']:.3f})")
    if not es <= 1.0 + tol:
        reasons.append(f"the e-folds grow faster than those needed (slope {es:.3f})")
    return FactorReading(not reasons, tuple(xs), excluded, f, es, "; ".join(reasons) or None)


@dataclass(frozen=True)
class NeededReading:
    """The count per e-fold needed over the points whose start needs at least :data:`MIN_NEED` (module docstring);
    ``reason`` says why it does not hold."""

    holds: bool
    used: tuple
    excluded: tuple
    fit: dict | None
    reason: str | None = None

    def to_dict(self) -> dict:
        return {"holds": self.holds, "points": list(self.used), "excluded": list(self.excluded),
                "slope": None if self.fit is None else self.fit["slope"],
                "ci": None if self.fit is None else list(self.fit["ci"]), "reason": self.reason}

    def sentence(self, exponent: float, tol: float) -> str:
        """The detail's clause."""
        if self.fit is None:
            return f"not read per e-fold needed: {self.reason}"
        f = self.fit
        head = (f"per e-fold needed (count / ln q_0) on x = {self.used[0]:g} … {self.used[-1]:g} ({len(self.used)} "
                f"points needing >= {MIN_NEED:g} e-fold"
                + (f"; left out {[round(x, 3) for x in self.excluded]}" if self.excluded else "") + "): "
                f"slope {f['slope']:.3f} (95% CI {f['ci'][0]:.3f}..{f['ci'][1]:.3f}; allowed <= {exponent:g} + {tol})")
        return head if self.holds else f"not read per e-fold needed: {self.reason} ({head})"


def needed_reading(points: list[tuple[float, dict, float]], exponent: float, tol: float) -> NeededReading:
    """``points``: ``(x, tail_reading, count)`` of every judged point (as :func:`factor_reading`).  The count divided by
    the e-folds its start needs, ``N = ln q_0``, fitted against ``x``: holds when the slope is at most ``exponent +
    tol`` (module docstring)."""
    used = [(x, t["need"], c) for x, t, c in points
            if t and t.get("need") is not None and np.isfinite(t["need"]) and t["need"] >= MIN_NEED]
    xs = tuple(x for x, _, _ in used)
    excluded = tuple(x for x, _, _ in points if x not in xs)
    if len(used) < MIN_POINTS:
        return NeededReading(False, xs, excluded, None,
                             f"{len(used)} point(s) whose start needs >= {MIN_NEED:g} e-fold, {MIN_POINTS} needed")
    f = fit_slope(list(xs), [c / n for _, n, c in used])
    ok = upper_ok(f["slope"], exponent, tol)
    return NeededReading(ok, xs, excluded, f,
                         None if ok else f"the count per e-fold needed grows faster than x^{exponent:g} "
                                         f"(slope {f['slope']:.3f})")


__all__ = ["FactorReading", "LINEAR_R2", "MIN_NEED", "MIN_POINTS", "MIN_TAIL_ROWS", "NeededReading", "factor_reading",
           "linear", "needed_reading", "tail_reading"]
