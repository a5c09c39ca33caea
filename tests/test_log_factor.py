"""Table 4's log(1/ε): necessary, removed or open (checks/statements/log_factor.py, issue 47 item 2)."""

import math

import pytest
from mixbounds.checks.statements import log_factor as lf
from mixbounds.checks.tiers import FULL, QUICK

#: the quick tier's Table 4 accuracy grid (x = 5 … 50) and the measured T4.coupled.A fixed-penalty counts there
XS = [5.0, 10.77, 23.21, 50.0]
FIXED_A = [511, 1695, 4927, 13791]
#: the max-split chain's measured R·h for the coupled A cell at the quick base (2 rounds per hop, 2 hops)
SPLIT = {"rounds_per_hop": 2, "hop": 2}


def test_the_max_split_lower_bound_carries_no_log_and_x_ln_x_does():
    assert lf.lower_log_power(lf.split_count(SPLIT)) == pytest.approx(0.0, abs=1e-2)
    assert lf.lower_log_power(lambda x: x * math.log(x)) == pytest.approx(1.0, abs=1e-9)
    assert lf.lower_log_power(lambda x: x * math.log(x) ** 2) == pytest.approx(2.0, abs=1e-9)


def test_the_measured_quick_counts_leave_the_log_open():
    d = lf.decide({"fixed penalty": (XS, FIXED_A)}, lf.split_count(SPLIT), QUICK.tables24.slope_tol)
    assert d["verdict"] == "open" and d["fits"]["fixed penalty"]["ci"][1] > 1 + QUICK.tables24.slope_tol


def test_an_upper_count_exactly_x_removes_the_log_and_a_lower_x_ln_x_makes_it_necessary():
    tol = QUICK.tables24.slope_tol
    assert lf.decide({"fixed penalty": (XS, [7.0 * x for x in XS])}, lf.split_count(SPLIT), tol)["verdict"] == "removed"
    assert lf.decide({"fixed penalty": (XS, FIXED_A)}, lambda x: x * math.log(x), tol)["verdict"] == "necessary"


def test_a_grid_that_cannot_tell_x_from_x_ln_x_removes_nothing():
    short = [20.0, 22.0, 24.0]  # x·ln x has slope ≈ 1.32 here: 1 + 0.35 does not tell it from x
    d = lf.decide({"m": (short, [3.0 * x for x in short])}, lf.split_count(SPLIT), 0.35)
    assert d["verdict"] == "open" and not d["fits"]["m"]["meets"]


def test_the_results_and_controls_are_declared_in_every_tier():
    for tier in (QUICK, FULL):
        ids = [r for c in lf.checks() for r in c.result_ids(tier)]
        assert "T4.coupled.log_factor.A" in ids and "T4.mixed.log_factor.Ct" in ids
        assert {"control.T4.log_factor.planted-removed", "control.T4.log_factor.planted-necessary"} <= set(ids)
