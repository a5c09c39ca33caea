"""The dominance rule of the random families' upper verdicts (mixbounds.checks.dominance): a family that climbs toward
the bound from below passes, labelled; a family above the construction, a construction that fails the same exponent,
or a point outside its range does not."""

from dataclasses import replace
from types import SimpleNamespace

import pytest
from mixbounds.checks.audits.calibration_tolerances import synthetic_sweep
from mixbounds.checks.controls import DOMINANCE_ABOVE_POWER, DOMINANCE_BELOW_FACTOR, DOMINANCE_SHIFT, _scaled_points
from mixbounds.checks.dominance import dominance
from mixbounds.checks.rates import verdict
from mixbounds.checks.tiers import QUICK
from mixbounds.checks.verdict import DOMINATED

from mixbounds.report.upper import dominance_section
from mixbounds.verify import verdict_text

#: the quick tier's Table 1 slope tolerance
TOL = QUICK.table1.slope_tol


def _series(factor):
    """The synthetic consensus κ_W sweep (comm counts 50·κ_W^½, exactly the formula) with counts × ``factor(i)``."""
    cell, sw, pts = synthetic_sweep(QUICK)
    out = []
    for i, (v, p) in enumerate(pts):
        q = dict(p)
        q["per_accuracy"] = {k: x * factor(i, len(pts)) for k, x in p["per_accuracy"].items()}
        out.append((v, q))
    return cell, sw, pts, out


def _climbing(i, n):
    """0.2 at the first point to 0.9 at the last: a slope about 0.65 above ½ over the sweep's decade, below 1."""
    return 0.2 * (0.9 / 0.2) ** (i / (n - 1))


def test_a_family_climbing_below_the_construction_passes_by_dominance():
    cell, sw, wpts, rpts = _series(_climbing)
    bare = verdict(QUICK, cell, "kappa_W", sw, rpts, random=True, rid="probe@random")
    assert bare.status == "fail" and bare.measured > 0.5 + TOL  # the slope rule alone reads a violation
    r = verdict(QUICK, cell, "kappa_W", sw, rpts, random=True, rid="probe@random", worst=(sw, wpts))
    assert r.status == "pass" and r.verdict_label == DOMINATED
    dom = r.extra["dominance"]
    assert dom["holds"] and dom["worst_status"] == "pass"
    assert dom["ratios"] == pytest.approx([_climbing(i, len(wpts)) for i in range(len(wpts))], rel=1e-3)
    assert r.extra["exercised"] is True
    assert "dominated" in r.detail and "approaches the bound from below" in r.detail
    assert verdict_text(r.to_json()) == f"pass ({DOMINATED})"


def test_a_family_above_the_construction_fails():
    """The verify control's planted family: the construction's counts × (x/x₀)^0.3."""
    cell, sw, wpts = synthetic_sweep(QUICK)
    r = verdict(QUICK, cell, "kappa_W", sw, _scaled_points(wpts, DOMINANCE_ABOVE_POWER), random=True,
                rid="probe@random", worst=(sw, wpts))
    assert r.status == "fail" and r.verdict_label is None
    assert not r.extra["dominance"]["holds"] and "exceeds" in r.extra["dominance"]["reason"]


def test_dominance_does_not_rescue_a_wrong_exponent():
    """A series below the construction claimed to grow like κ^0.1: its slope exceeds that, the construction fails the
    same claim two-sided, so dominance is consulted and refused (the verify control's construction)."""
    cell, sw, wpts = synthetic_sweep(QUICK)
    r = verdict(QUICK, cell, "kappa_W", sw, _scaled_points(wpts, 0.0, DOMINANCE_BELOW_FACTOR), random=True,
                rid="probe@random", worst=(sw, wpts), theory_shift=DOMINANCE_SHIFT)
    assert r.status == "fail"
    assert r.extra["dominance"]["worst_status"] == "fail"
    assert "does not pass against this exponent" in r.extra["dominance"]["reason"]


def test_a_passing_slope_is_not_judged_by_dominance():
    cell, sw, wpts, rpts = _series(lambda i, n: 0.5)
    r = verdict(QUICK, cell, "kappa_W", sw, rpts, random=True, rid="probe@random", worst=(sw, wpts))
    assert r.status == "pass" and r.verdict_label is None and "dominance" not in r.extra


def test_points_outside_the_construction_range_are_not_compared():
    cell, sw, wpts, rpts = _series(_climbing)
    worst = verdict(QUICK, cell, "kappa_W", sw, wpts, random=False, rid="probe")
    assert worst.status == "pass"
    narrow = replace(worst, points=worst.points[:-2])  # the construction's range ends two points earlier
    random_rows = verdict(QUICK, cell, "kappa_W", sw, rpts, random=True, rid="probe@random").points
    d = dominance(cell, "kappa_W", random_rows, narrow)
    assert not d.holds and "outside the construction's range" in d.reason
    d = dominance(cell, "kappa_W", random_rows, worst)
    assert d.holds


def test_a_missing_count_is_not_dominated():
    cell, sw, wpts, rpts = _series(_climbing)
    worst = verdict(QUICK, cell, "kappa_W", sw, wpts, random=False, rid="probe")
    rows = verdict(QUICK, cell, "kappa_W", sw, rpts, random=True, rid="probe@random").points
    rows[2] = dict(rows[2], per_accuracy=0.0)
    assert not dominance(cell, "kappa_W", rows, worst).holds
    assert not dominance(cell, "kappa_W", rows[:1] + rows[1:], SimpleNamespace(id="w", status="fail", points=[])).holds


def test_the_report_lists_what_dominance_decided():
    cell, sw, wpts, rpts = _series(_climbing)
    held = verdict(QUICK, cell, "kappa_W", sw, rpts, random=True, rid="held@random", worst=(sw, wpts)).to_json()
    above = verdict(QUICK, cell, "kappa_W", sw, _scaled_points(wpts, DOMINANCE_ABOVE_POWER), random=True,
                    rid="above@random", worst=(sw, wpts)).to_json()
    text = repr(dominance_section({"claims": [held, above]}))
    assert "Upper bounds held by dominance (1 of 2)" in text
    assert "exceeds the construction" in text
    assert "No random-family slope exceeded" in repr(dominance_section({"claims": []}))
