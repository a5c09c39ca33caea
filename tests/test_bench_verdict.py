"""Verdicts that state their uncertainty (issue 45, items 1–3): a user's method is ``optimal`` only when its slope's
95% CI lies inside the band, ``suboptimal`` only when wholly above, ``inconclusive`` otherwise (with what would decide
it); a run that ends at the budget is a censored count (a lower bound), never an ``error``; the count to ε is where
the error stays.

Root cause tested here: the bench compared the slope's point estimate with ``reference + tol`` (a negative slope with
a CI ±3.4 wide was ``optimal``), counted first crossings, and made a budget-ended run an ``error``.
"""

import math
import sys
from pathlib import Path

import numpy as np
import pytest
from mixbounds.checks.tiers import QUICK, TINY
from mixbounds.checks.verdict import interval_verdict

from mixbounds.bench_method import plans
from mixbounds.bench_verdict import band, judge
from mixbounds.cli.command import main
from mixbounds.testing import assert_optimal, measure

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))

from examples.apapc import apapc  # noqa: E402
from examples.papc import papc  # noqa: E402

#: spread of the noisy-count control: each point's count multiplied by a factor log-uniform in [1, NOISE_MAX] (a
#: method doing random extra iterations); the CI of 4 such points over one decade is ~±0.5 wide, the quick band ±0.12
NOISE_MAX = 4.0
#: draws of the synthetic noisy-count control (seeded: the same draws on every machine)
NOISE_DRAWS = 200


def _points(counts, *, censored=(), tier=QUICK, left=()):
    """Method points of the consensus κ_f sweep with these per-accuracy counts of ``comm`` (module helper)."""
    plan = plans(tier, ["consensus"], params=["kappa_f"], kinds=("worst",))[0]
    xs = plan.sweep.grid
    out = []
    for i, (v, c) in enumerate(zip(xs, counts)):
        p = {"realized": {"kappa_f": v}, "converged": i not in censored, "iterations": 10,
             "abs": {"0.01": {"comm": 1}}, "count_to": {"0.01": {"left_again": i in left}}}
        if i in censored:
            p.update(reason="budget", final_error=1e-4, censored={"per_accuracy": {"comm": c, "grad": c}})
        else:
            p.update(per_accuracy={"comm": c, "grad": c}, per_iteration={"comm": 1.0, "grad": 1.0})
        out.append((v, p))
    return plan, {"method": out}


def _judge(counts, tier=QUICK, **kw):
    plan, pts = _points(counts, tier=tier, **kw)
    return judge(tier, plan, "comm", pts)


def _xs(tier=QUICK):
    return np.asarray(plans(tier, ["consensus"], params=["kappa_f"], kinds=("worst",))[0].sweep.grid)


# ----------------------------------------------------------------------------- the rule
@pytest.mark.parametrize("ci, want", [((0.45, 0.55), "inside"), ((0.7, 0.9), "above"), ((-0.2, 0.1), "below"),
                                      ((0.3, 0.7), "straddles"), ((-5.0, 1.73), "straddles"),
                                      ((math.nan, 1.0), "undefined"), (None, "undefined")])
def test_interval_verdict(ci, want):
    assert interval_verdict(ci, 0.38, 0.62) == want


def test_band_is_two_sided_on_the_worst_case_and_an_upper_bound_on_a_random_family():
    assert band("worst", 0.5, 0.12) == (pytest.approx(0.38), pytest.approx(0.62))
    assert band("random", 0.5, 0.12) == (-math.inf, pytest.approx(0.62))


def test_issue_45_wide_negative_slope_is_inconclusive_not_optimal():
    """A quick-tier series like the issue's: slope −1.6, CI ±3.4 — inconclusive with what would decide it."""
    xs = _xs()
    r = _judge(list(1000 * xs ** -1.6 * np.array([1.0, 6.0, 0.3, 2.5])))
    assert r["status"] == "inconclusive", r["detail"]
    assert "more points" in r["decide"] and r["ci"][1] - r["ci"][0] > 1.0
    assert {"r2", "range", "band", "flags"} <= set(r) and r["range"]["decades"] == pytest.approx(1.0)


def test_negative_control_noisy_counts_are_never_optimal():
    """Control: an optimal exponent (½) times a random factor per point (random extra iterations) is never
    ``optimal``; the same counts without the noise are (so the rule can say optimal at all)."""
    xs = _xs()
    rng = np.random.default_rng(45)
    verdicts = [_judge(list(300 * xs ** 0.5 * NOISE_MAX ** rng.uniform(0, 1, xs.size)))["status"]
                for _ in range(NOISE_DRAWS)]
    assert "optimal" not in verdicts and set(verdicts) <= {"inconclusive", "suboptimal"}
    assert verdicts.count("inconclusive") >= 0.9 * NOISE_DRAWS
    assert _judge(list(300 * xs ** 0.5))["status"] == "optimal"


def test_a_non_accelerated_series_is_suboptimal_and_a_slow_straddling_one_is_not():
    xs = _xs()
    assert _judge(list(50 * xs * np.array([1.0, 1.02, 0.98, 1.01])))["status"] == "suboptimal"
    r = _judge(list(50 * xs ** 0.66 * np.array([1.0, 1.03, 0.98, 1.01])))  # slope above the band, CI across its edge
    assert r["status"] == "inconclusive" and "straddles" in r["decide"], r["detail"]


def test_below_the_band_is_inconclusive_pre_asymptotic():
    r = _judge(list(500 * _xs() ** 0.1))
    assert r["status"] == "inconclusive" and "pre-asymptotic" in r["decide"]


def test_fewer_than_three_measured_points_is_inconclusive(tmp_path):
    r = _judge([100.0, 200.0, 400.0], tier=TINY, censored=(0, 1, 2))  # every point censored: none fits alone
    assert r["status"] in ("inconclusive", "suboptimal")
    plan, pts = _points([100.0, 200.0, 300.0, 400.0])
    for _, p in pts["method"][:2]:  # two budget runs without a bound (their error above ε₁ at the end)
        p.update(converged=False, reason="budget", final_error=0.5, censored={"why": "error above ε₁"})
        del p["per_accuracy"]
    r = judge(QUICK, plan, "comm", pts)
    assert r["status"] == "inconclusive" and "longer budget" in r["decide"] and len(r["dropped"]) == 2


# ----------------------------------------------------------------------------- budgets: censored counts
def test_budget_censored_top_points_growing_too_fast_are_suboptimal_never_error():
    """Counts ∝ κ_f with the two largest points ended at the budget (their counts lower bounds): suboptimal."""
    r = _judge(list(50 * _xs()), censored=(2, 3))
    assert r["status"] == "suboptimal" and r["censored"] == 2 and "budget-censored" in r["detail"]
    assert any("ended at the budget" in f for f in r["flags"])


def test_budget_censored_counts_never_make_optimal():
    """Control: an optimal-looking series with a censored point is inconclusive (its true count may be larger)."""
    r = _judge(list(300 * _xs() ** 0.5), censored=(3,))
    assert r["status"] == "inconclusive" and "longer budget" in r["decide"]
    assert _judge(list(300 * _xs() ** 0.5))["status"] == "optimal"


def test_budget_censored_point_below_the_middle_cannot_prove_growth():
    """A lower bound at the bottom of the range can only lower the slope if raised: it cannot decide suboptimal."""
    r = _judge(list(50 * _xs()), censored=(0,))
    assert r["status"] == "inconclusive" and "below the middle" in r["decide"]


# ----------------------------------------------------------------------------- flags
def test_flags_non_monotone_counts_and_errors_that_left_eps():
    r = _judge(list(300 * _xs() ** 0.5 * np.array([1.0, 1.6, 0.8, 1.0])), left=(1,))
    assert any(f.startswith("count series not monotone") for f in r["flags"])
    assert any("left ε again" in f for f in r["flags"]) and "flags:" in r["detail"]
    assert not _judge(list(300 * _xs() ** 0.5))["flags"]  # control: a clean series has none


# ----------------------------------------------------------------------------- end to end
def _noisy(problem, oracles):
    """The example APAPC doing random idle iterations (one comm round each, the estimate unchanged): the count per
    accuracy of a point is multiplied by a random factor (seeded by the point, so the test is deterministic)."""
    rng = np.random.default_rng(int(problem.kappa_f * 1000 + problem.size))
    p_idle = rng.uniform(0.0, 0.8)
    for u in apapc(problem, oracles):
        yield u
        while rng.uniform() < p_idle:
            oracles.comm(np.zeros(problem.n))
            yield u


_noisy.classes = ("consensus",)


def test_negative_control_a_method_with_random_extra_iterations_is_inconclusive():
    m = measure(_noisy, "consensus", oracle="comm", param="kappa_f", tier=TINY)
    assert m.verdict == "inconclusive", m.detail
    with pytest.raises(AssertionError, match="inconclusive, not optimal"):
        assert_optimal(_noisy, "consensus", oracle="comm", param="kappa_f", tier=TINY)


def test_a_budget_ended_run_is_censored_not_an_error():
    """PAPC on the tiny κ_f sweep with a budget below its largest point's need (measured: 882 iterations at κ_f = 30,
    ~2900 at 100): that point is a lower bound, the verdict still suboptimal, nothing is an error."""
    m = measure(papc, "consensus", oracle="comm", param="kappa_f", tier=TINY, max_iter=2000)
    assert m.censored == 1 and m.verdict == "suboptimal", m.detail
    assert m.points[-1]["censored"] and not m.points[0]["censored"]


def test_cli_max_iter_budget_is_not_an_error(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    rc = main(["bench", "--method", "examples.papc:papc", "--classes", "consensus", "--tier", "tiny", "--params",
               "kappa_f", "--families", "worst", "--oracles", "comm", "--budget", "2000", "--out", str(tmp_path / "o"),
               "--jobs", "1"])
    out = capsys.readouterr().out
    assert rc == 0 and "suboptimal" in out and "cens." in out
