"""Issue 35, item 4: an upper bound that holds far above the measured slope says so; tight cells stay two-sided."""

import math

import pytest
from mixbounds.checks.audits.calibration_tolerances import synthetic_sweep
from mixbounds.checks.rates import verdict
from mixbounds.checks.tiers import QUICK, TINY
from mixbounds.checks.verdict import NOT_EXERCISED, not_exercised, upper_label

from mixbounds.verify import verdict_text

#: the quick tier's Table 1 slope tolerance (mixbounds.checks.tiers.QUICK.table1.slope_tol)
TOL = QUICK.table1.slope_tol


def test_rule():
    """The whole CI below target − tol, and only then; no interval or a non-finite one: nothing is said."""
    assert not_exercised((0.1, 0.3), 0.5, TOL)                      # 0.3 < 0.38
    assert not not_exercised((0.1, 0.39), 0.5, TOL)                 # the CI reaches past 0.38
    assert not not_exercised((float("-inf"), float("inf")), 0.5, TOL)
    assert not not_exercised((float("nan"), float("nan")), 0.5, TOL)
    assert not not_exercised(None, 0.5, TOL)
    assert upper_label("pass", (0.1, 0.3), 0.5, TOL) == NOT_EXERCISED
    assert upper_label("fail", (0.1, 0.3), 0.5, TOL) is None       # only a pass carries the label
    assert upper_label("pass", (0.1, 0.3), 0.5, TOL, control=True) is None


@pytest.mark.parametrize("excess,label", [(-0.3, NOT_EXERCISED), (0.0, None), (-0.1, None)])
def test_random_family_upper_verdict(excess, label):
    """Exact power laws through the Table 1 verdict as a random family (one-sided): slope 0.2 against ½ is a pass
    labelled not exercised; 0.5 and 0.4 (within tol of ½) are bare passes; the record says which."""
    cell, sw, pts = synthetic_sweep(QUICK, slope_excess=excess)
    r = verdict(QUICK, cell, "kappa_W", sw, pts, random=True, rid="probe@random")
    assert r.status == "pass" and r.verdict_label == label
    assert r.extra["exercised"] is (label is None)
    assert r.extra["exercise_threshold"] == pytest.approx(0.5 - TOL, abs=1e-12)
    assert r.to_json()["verdict_label"] == label
    assert (NOT_EXERCISED in r.detail) is (label is not None)


@pytest.mark.parametrize("tier", [TINY, QUICK])
def test_tight_cell_far_below_fails(tier):
    """The worst-case (tight) verdict is two-sided: a slope far below the exponent fails and carries no label."""
    cell, sw, pts = synthetic_sweep(tier, slope_excess=-2 * tier.table1.slope_tol)
    r = verdict(tier, cell, "kappa_W", sw, pts, random=False, rid="probe")
    assert r.kind == "tight" and r.status == "fail" and r.verdict_label is None
    assert math.isclose(r.measured, 0.5 - 2 * tier.table1.slope_tol, abs_tol=1e-9)


def test_terminal_shows_the_label():
    """The verdict column of the terminal table names the label of a pass (and only of a pass)."""
    assert verdict_text({"status": "pass", "verdict_label": NOT_EXERCISED}) == f"pass ({NOT_EXERCISED})"
    assert verdict_text({"status": "pass", "verdict_label": None}) == "pass"
    assert verdict_text({"status": "pass", "verdict_label": "tight"}) == "pass"
    assert verdict_text({"status": "pass", "verdict_label": "upper matches, lower not certified"}) == \
        "pass (lower not certified)"
    assert verdict_text({"status": "fail", "verdict_label": NOT_EXERCISED}) == "fail"


def _control_points(check, tier, slope: float) -> dict:
    """Synthetic converged rate points for every task of ``check``: grad and comm counts ``∝ κ_f^slope``."""
    pts = {}
    for t in check.tasks(tier):
        v = t.kwargs["params"]["kappa_f"]
        y = 20.0 * v ** slope
        per = {"grad": y, "A": 0.0, "C": 0.0, "Ct": 0.0, "comm": 5 * y}
        cnt = {o: int(round(c)) for o, c in per.items()}
        pts[t.key] = {"converged": True, "reason": "tolerance", "iterations": 100, "final_error": 5e-7,
                      "final_error_recomputed": 5e-7, "eps_asked": 1e-6, "realized": {"kappa_f": v, "kappa_W": 30.0},
                      "targets": {"kappa_f": v}, "counts1": cnt, "counts2": cnt, "per_accuracy": per,
                      "per_iteration": per, "iterations_window": 1.0, "settle": {}, "n": 8, "variables": 40,
                      "solver": {"degrees": {}}}
    return pts


@pytest.mark.parametrize("slope,caught", [(0.45, True), (0.95, False)])
def test_not_exercised_control(slope, caught):
    """control.rates.not_exercised: against exponent 1 a slope of 0.45 must be labelled (caught, status fail); a
    sweep that does exercise the perturbed bound (0.95) leaves the control uncaught (status pass)."""
    from mixbounds.checks.controls import checks as control_checks

    ch = next(c for c in control_checks() if c.id == "control.rates.not_exercised")
    (r,) = ch.finalize(TINY, _control_points(ch, TINY, slope))
    assert r.control and r.caught is caught and r.status == ("fail" if caught else "pass")
    assert r.verdict_label is None


def test_label_in_results_csv():
    """results.csv carries the label on every point of the labelled result."""
    import csv
    import io

    from mixbounds.checks.run.document import csv_text

    cell, sw, pts = synthetic_sweep(QUICK, slope_excess=-0.3)
    r = verdict(QUICK, cell, "kappa_W", sw, pts, random=True, rid="probe@random")
    rows = list(csv.DictReader(io.StringIO(csv_text({"claims": [r.to_json()]}))))
    assert rows and all(row["verdict_label"] == NOT_EXERCISED for row in rows)
