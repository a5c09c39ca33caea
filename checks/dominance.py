"""Dominance by the worst-case construction: the upper verdict of a random family that climbs toward the bound.

Table 1's upper bounds (``thm:apapc`` and its class corollaries) hold for every instance of the class; the random
families test them on instances that are not the worst case.  Their verdict is a slope rule, ``slope <= θ + tol``
over the sweep's range.  That rule reads a family whose cost per unit of the formula *rises* over the range as a
violation, although a rising ratio that stays below the worst case's is what an instance far from the worst case
does while it approaches the bound from below (measured: the log-cosh consensus family, per-accuracy gradient
counts 34.5 … 476.6 over κ_f = 10²…10⁴, slope 0.598 against ½ + 0.08, at 0.38 → 0.52 of the worst-case
construction's counts, and local slopes 0.75, 0.58, 0.55 beyond the range).

The slope rule cannot tell the two apart; the worst-case construction measured in the same run can.  Its sweep of
the same parameter is judged against the **same** exponent (two-sided for a tight cell), so its constant — count
divided by the cell's formula at its realized constants — is shown to vary by at most ``x^tol`` over the range.
If the random family's constant stays at or below the construction's at every point of the range (log-log
interpolation between the construction's points; no point outside its range), the family's count is at most
``x^(θ + tol)`` times a constant there too: the upper bound holds on this range, by dominance.  The verdict is a
``pass`` with the label :data:`mixbounds.checks.verdict.DOMINATED` and says what it rests on; it is never
available when the construction's own verdict fails, so a wrong exponent still fails (the negative control
``control.rates.dominance.exponent-0.4…``: a series below the construction, claimed to grow like ``κ^0.1``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from mixbounds.checks.sweeps import PARAM_REALIZED, formula_value

#: a random point's realized parameter may lie this far (relative) outside the construction's range and still be
#: compared with its end point (the grids are the same targets; realized values differ by rounding)
RANGE_RTOL = 1e-6


@dataclass(frozen=True)
class Dominance:
    """Whether a random series is dominated by the worst-case series of the same sweep (module docstring).

    ``ratios``: the random series' constant over the construction's at each random point (``None`` where it cannot
    be compared); ``worst``: the construction's result id and status; ``reason``: why it does not hold.
    """

    holds: bool
    ratios: tuple
    worst_id: str
    worst_status: str
    reason: str | None = None

    def to_dict(self) -> dict:
        return {"holds": self.holds, "ratios": list(self.ratios), "worst": self.worst_id,
                "worst_status": self.worst_status, "reason": self.reason}

    def sentence(self) -> str:
        """The detail's clause."""
        if self.holds:
            worst = max(self.ratios)
            return (f"dominated: the count per unit of the formula is at most {worst:.2f} of the worst-case "
                    f"construction's ({self.worst_id}, {self.worst_status}) at every point, ratios "
                    f"{[round(r, 3) for r in self.ratios]}: the family approaches the bound from below over this range")
        return f"not dominated by the worst-case construction ({self.worst_id}, {self.worst_status}): {self.reason}"


def _constants(cell, points: list[dict]) -> list[tuple[float, float]]:
    """``(realized parameter, count / formula)`` of every point with a positive count."""
    out = []
    for p in points:
        realized_all = p.get("realized_all") or {}
        x = p.get("realized")
        y = p.get("per_accuracy")
        f = formula_value(cell, realized_all)
        if x is None or y is None or not (x > 0 and y > 0 and f > 0) or not math.isfinite(y):
            continue
        out.append((float(x), float(y) / f))
    return out


def dominance(cell, param: str, random_points: list[dict], worst) -> Dominance:
    """Is the random series (``random_points``: the judged points of its result, with ``realized``,
    ``per_accuracy`` and ``realized_all``) dominated by ``worst``, the worst-case construction's result for the same
    cell, parameter and exponent (a :class:`~mixbounds.checks.run.result.CheckResult`)?"""
    wid, wstatus = worst.id, worst.status
    if wstatus != "pass":
        return Dominance(False, (), wid, wstatus, "the construction's own slope does not pass against this exponent")
    if PARAM_REALIZED.get(param) is None:
        return Dominance(False, (), wid, wstatus, f"no realized value of {param}")
    w = sorted(_constants(cell, worst.points))
    r = _constants(cell, random_points)
    if len(w) < 2 or len(r) != len(random_points):
        return Dominance(False, (), wid, wstatus, "a count is missing or zero on one of the series")
    lx = np.log([x for x, _ in w])
    lc = np.log([c for _, c in w])
    ratios, outside = [], []
    for x, c in r:
        if not (w[0][0] * (1 - RANGE_RTOL) <= x <= w[-1][0] * (1 + RANGE_RTOL)):
            outside.append(x)
            continue
        ratios.append(c / math.exp(float(np.interp(math.log(x), lx, lc))))
    if outside:
        return Dominance(False, tuple(ratios), wid, wstatus,
                         f"{param} = {[round(x, 3) for x in outside]} outside the construction's range "
                         f"{w[0][0]:.4g}..{w[-1][0]:.4g}")
    above = [i for i, q in enumerate(ratios) if not q <= 1.0]
    if above:
        return Dominance(False, tuple(ratios), wid, wstatus,
                         f"the constant exceeds the construction's at {len(above)} point(s) (ratios "
                         f"{[round(q, 3) for q in ratios]})")
    return Dominance(True, tuple(ratios), wid, wstatus)
