"""Table 2's accuracy count read by its factors (mixbounds.checks.table2_factors): the rate and the e-folds of a
run, the reading over a sweep, and its place in the Table 2 verdict (consulted only when the count slope fails)."""

import math

import numpy as np
import pytest
from mixbounds.checks.sweeps import PARAM_KW
from mixbounds.checks.table2_factors import (
    LINEAR_R2,
    MIN_NEED,
    MIN_TAIL_ROWS,
    factor_reading,
    linear,
    needed_reading,
    tail_reading,
)
from mixbounds.checks.tables234.points import KAPPA_BASE, cells, class_params, point
from mixbounds.checks.tables234.rules import verdict
from mixbounds.checks.tables234.table2_factor_controls import (
    FACTOR_CONTROL_X,
    NEEDED_CONTROL_X,
    factor_control_verdict,
    log_squared_runs,
    offset_efold_runs,
)
from mixbounds.checks.tiers import TIERS
from mixbounds.checks.verdict import FACTORED, PER_EFOLD_NEEDED

#: a rate read from an exactly geometric tail must come back to this relative accuracy
RATE_RTOL = 1e-9
QUICK = next(t for t in TIERS if t.name == "quick")
FULL = next(t for t in TIERS if t.name == "full")


def _run(x: float, *, q0: float = None, c: float = 0.6, offset: float = 3.0, oscillate: float = 0.0):
    """Accuracy ratios of a run converging linearly at rate c/√x from q0 (default ∝ x), settling ``offset`` e-folds
    early, then continuing as the solver does (a tail of the same length); optional oscillation."""
    q0 = q0 or 50.0 * x
    r = c / math.sqrt(x)
    s = int(math.ceil((math.log(q0) - offset) / r))
    k = np.arange(2 * s + 1)
    q = np.exp(math.log(q0) - offset - r * k) * np.exp(offset * (k == 0))
    q[1:s] = np.maximum(q[1:s], 1.0 + 1e-9)  # the criterion is met first at s
    if oscillate:
        q *= 1.0 + oscillate * np.sin(0.9 * k) ** 2
        q[s:] = np.minimum(q[s:], 1.0)
    return q, s, r


def test_a_geometric_tail_gives_its_rate_and_efolds():
    q, s, r = _run(5000.0)
    t = tail_reading(q, s)
    assert t["rows"] == [s, q.size - 1]
    assert t["r2"] == pytest.approx(1.0, abs=1e-12)
    assert t["rate"] == pytest.approx(r, rel=RATE_RTOL)
    assert t["efolds"] == pytest.approx(s * r, rel=RATE_RTOL)
    assert t["need"] == pytest.approx(math.log(q[0]), rel=1e-12)


def test_an_oscillating_or_short_tail_gives_no_rate():
    q, s, _ = _run(5000.0, oscillate=3.0)
    t = tail_reading(q, s)
    assert t["r2"] < LINEAR_R2
    short = tail_reading(q[: s + MIN_TAIL_ROWS - 1], s)
    assert short["rate"] is None
    assert tail_reading(q, None) is None


def _sweep(xs, *, rate_power=0.5, efold_power=1.0, offset=3.0):
    """(x, tail, grad count = settled row) of runs whose per-e-fold cost grows like x^rate_power and whose e-folds
    grow like N^efold_power (N = ln q0), settling ``offset`` e-folds early."""
    out = []
    n0 = math.log(50.0 * xs[0])
    for x in xs:
        c = 0.6 * (x / xs[0]) ** (0.5 - rate_power)
        q, s, r = _run(x, c=c, offset=offset)
        t = tail_reading(q, s)
        if efold_power != 1.0:
            k = (t["need"] / n0) ** (efold_power - 1.0)
            t = dict(t, rows=[t["rows"][0] * k, t["rows"][1]], efolds=t["efolds"] * k)
        out.append((x, t, float(t["rows"][0])))
    return out


def test_the_reading_holds_for_sqrt_x_per_efold_and_efolds_like_the_log():
    fr = factor_reading(_sweep([1e3, 3e3, 1e4, 3e4]), 0.5, 0.12)
    assert fr.holds, fr.reason
    assert fr.cost_fit["slope"] == pytest.approx(0.5, abs=0.01)
    assert fr.efold_slope <= 1.0 + 1e-6


@pytest.mark.parametrize("kw,why", [({"rate_power": 1.0}, "per-e-fold cost"), ({"efold_power": 3.0}, "e-folds grow")])
def test_the_reading_refuses_an_unaccelerated_rate_and_a_log_cubed(kw, why):
    fr = factor_reading(_sweep([1e3, 3e3, 1e4, 3e4], **kw), 0.5, 0.12)
    assert not fr.holds and why in fr.reason


def test_too_few_linear_points_is_no_reading():
    pts = _sweep([1e3, 3e3, 1e4])
    pts[1] = (pts[1][0], dict(pts[1][1], r2=0.9), pts[1][2])
    fr = factor_reading(pts, 0.5, 0.12)
    assert not fr.holds and "linear tail" in fr.reason and fr.excluded == (3e3,)


def _points(sweep_pts):
    return [{"per_accuracy": {"grad": c}, "realized": {"LR2_eps": x}, "hit_row": t["rows"][0], "tail": t,
             "eps": 1.0, "iterations": t["rows"][1], "converged": True}
            for x, t, c in sweep_pts]


def test_the_verdict_consults_the_reading_only_when_the_count_slope_fails():
    cell = next(c for c in cells(2, "shared") if c.oracle == "grad")
    xs = [1e3, 2e3, 4e3, 8e3]
    # runs settling 9.5 e-folds early: counts ~ √x·(N − 9.5), a slope above the √x·ln x target over this range
    steep = _sweep(xs, offset=9.5)
    r = verdict(QUICK, 2, cell, "LR2_eps", xs, _points(steep))
    assert r.extra["log_factor"] and r.status == "pass" and r.verdict_label == FACTORED and r.extra["factors"]["holds"]
    # runs settling as linear convergence from the start would: the count slope passes, the reading is not consulted
    r = verdict(QUICK, 2, cell, "LR2_eps", xs, _points(_sweep(xs, offset=0.0)))
    assert r.status == "pass" and "factors" not in r.extra and r.verdict_label != FACTORED
    # the steep counts from runs that do not converge linearly stay a fail
    wobbly = [(x, dict(t, r2=0.95), c) for x, t, c in steep]
    r = verdict(QUICK, 2, cell, "LR2_eps", xs, _points(wobbly))
    assert r.status == "fail" and not r.extra["factors"]["holds"]


def test_the_linear_tail_control_differs_from_its_linear_twin_only_by_the_tails():
    """``control.T2.shared.grad.LR2_eps.factors.nonlinear`` on measured runs: the same steeper counts from linear
    tails pass by their factors, so the control's fail comes from the linear-tail requirement alone."""
    base = {PARAM_KW[p]: KAPPA_BASE[p] for p in class_params("shared")}
    got = [point(2, "convex-shared", dict(base, variant="logcosh"), x, "regularized")
           for x in FACTOR_CONTROL_X]
    twin = factor_control_verdict(QUICK, offset_efold_runs(got, r2=None), "twin", control=False)
    assert twin.status == "pass" and twin.verdict_label == FACTORED
    assert twin.measured > twin.theory + twin.tolerance  # the count slope alone fails
    ctl = factor_control_verdict(QUICK, offset_efold_runs(got), "ctl")
    assert ctl.status == "fail" and "linear tail" in ctl.extra["factors"]["reason"]


# ----------------------------------------------------------------------------- the count per e-fold needed
def _unread(xs, *, log_power=1.0, offset=3.0, c=4.5):
    """(x, tail, count) of runs without a linear tail (R² 0.8) whose starts need N = ln x − offset e-folds and whose
    count is c·√x·N^log_power (a regularised accelerated run: √x rows per e-fold, N e-folds)."""
    out = []
    for x in xs:
        n = math.log(x) - offset
        count = c * math.sqrt(x) * n ** log_power
        t = {"rows": [count, 2 * count], "need": n, "rate": 1.0 / math.sqrt(x), "r2": 0.8, "efolds": count / math.sqrt(x)}
        out.append((x, t, count))
    return out


#: slope of c·√x·N against x over 64 … 3000 divided by N: exactly 0.5 (the fit of a power law is exact to rounding)
SLOPE_ATOL = 1e-9
XS_NEEDED = [64.6, 139.2, 300.0, 646.3, 1392.5, 3000.0]


def test_the_count_per_efold_needed_of_sqrt_x_times_n_has_slope_one_half():
    nr = needed_reading(_unread(XS_NEEDED), 0.5, 0.12)
    assert nr.holds and nr.fit["slope"] == pytest.approx(0.5, abs=SLOPE_ATOL)
    assert nr.used == tuple(XS_NEEDED) and nr.excluded == ()


def test_the_count_per_efold_needed_refuses_a_log_squared_and_an_unaccelerated_count():
    nr = needed_reading(_unread(XS_NEEDED, log_power=2.0), 0.5, 0.12)
    assert not nr.holds and "faster than x^0.5" in nr.reason and nr.fit["slope"] > 0.62
    unacc = [(x, t, c * math.sqrt(x)) for x, t, c in _unread(XS_NEEDED)]
    assert not needed_reading(unacc, 0.5, 0.12).holds


def test_starts_needing_less_than_one_efold_are_left_out_and_three_points_are_needed():
    pts = _unread([21.0, 30.0, 300.0, 3000.0])  # N = 0.04, 0.40, 2.7, 5.0
    nr = needed_reading(pts, 0.5, 0.12)
    assert not nr.holds and nr.fit is None and nr.excluded == (21.0, 30.0) and "2 point(s)" in nr.reason
    assert all(t["need"] < MIN_NEED for x, t, _ in pts if x in nr.excluded)


def test_the_verdict_reads_per_efold_needed_only_when_no_factor_reading_was_made():
    cell = next(c for c in cells(2, "coupled_local") if c.oracle == "grad")
    # √x·(ln x − 3): the count slope exceeds the x^½·ln x target by more than tol over 64 … 3000
    r = verdict(FULL, 2, cell, "LR2_eps", XS_NEEDED, _points(_unread(XS_NEEDED)))
    assert r.measured > r.theory + r.tolerance
    assert r.status == "pass" and r.verdict_label == PER_EFOLD_NEEDED
    assert r.extra["factors"]["per_efold_needed"]["holds"] and "per e-fold needed" in r.detail
    # a log² count stays a fail, with the reason
    r = verdict(FULL, 2, cell, "LR2_eps", XS_NEEDED, _points(_unread(XS_NEEDED, log_power=2.0)))
    assert r.status == "fail" and not r.extra["factors"]["per_efold_needed"]["holds"]
    # a factor reading that was made and failed is not overridden: linear tails whose e-folds grow like N³
    xs = [1e3, 3e3, 1e4, 3e4]
    r = verdict(FULL, 2, cell, "LR2_eps", xs, _points(_sweep(xs, efold_power=3.0)))
    assert r.status == "fail" and "per_efold_needed" not in r.extra["factors"]


def test_the_log_squared_control_fails_by_the_reading_its_measured_twin_passes():
    """``control.T2.coupled_local.grad.LR2_eps.needed.log-squared`` on measured runs: the runs as measured pass (their
    count per e-fold needed grows like √x), the same runs with a log² count fail because the reading refuses them."""
    base = {PARAM_KW[p]: KAPPA_BASE[p] for p in class_params("coupled_local")}
    got = [point(2, "convex-coupled-local", dict(base, variant="default"), x, "regularized") for x in NEEDED_CONTROL_X]
    assert not any(linear(p["tail"]) for p in got)  # the family this reading is for
    twin = factor_control_verdict(FULL, got, "twin", control=False, cls="coupled_local", xs=NEEDED_CONTROL_X)
    assert twin.status == "pass"
    ctl = factor_control_verdict(FULL, log_squared_runs(got), "ctl", cls="coupled_local", xs=NEEDED_CONTROL_X)
    assert ctl.status == "fail" and ctl.extra["factors"]["per_efold_needed"]["reason"]
