"""A tightness ratio that is not flat is explained only when APAPC's iterations per accuracy fall while its
per-iteration count follows the bound (checks/lower/tightness.py, issue 47 item 4: T1.shared_ident.Ct in κ_C̃)."""

import math

import pytest
from mixbounds.bounds.claims import get
from mixbounds.checks.lower import tightness
from mixbounds.checks.rates import UB_EPS1, UB_EPS2
from mixbounds.checks.tiers import FULL

#: measured on the identical-C̃ chain at the full tier's κ_C̃ points up to 10⁴ (κ_f = 10, κ_W = 10; exact_point and
#: upper_point as the tightness check calls them): engine per-accuracy counts, APAPC's iterations in the window and
#: C̃ products per iteration (the round-3 record's ratio slope −0.106 is that of the first three points)
KAPPAS = [100.0, 464.16, 2154.4, 10000.0]
ENGINE = [109, 236, 507, 1093]
ITERS = [30.711721785630836, 27.699633117576127, 21.954229658728256, 14.461182454083788]
PER_IT = [40.0, 88.0, 188.0, 400.0]
#: the recorded slope, to the fit's rounding
RECORDED_SLOPE, SLOPE_ATOL = -0.106, 1e-3


def _points(iters, per_it, engine=ENGINE, kappas=KAPPAS):
    eng = [(k, {"realized": {"kappa_Ct_id": k}, "bounds": {"Ct": {"per_accuracy": e}}}) for k, e in zip(kappas, engine)]
    up = [(k, {"converged": True, "iterations": 50, "iterations_window": i, "per_iteration": {"Ct": p},
               "per_accuracy": {"Ct": i * p}}) for k, i, p in zip(kappas, iters, per_it)]
    return eng, up


def _judge(eng, up):
    return tightness.judge(FULL, get("T1.shared_ident.Ct"), "kappa_Ct_id", "Ct", eng, up, rid="t",
                           construction="variant:natural", variant="natural")


def test_the_measured_identical_chain_ratio_is_not_flat_and_explained_by_falling_iterations():
    first3 = _judge(*_points(ITERS[:3], PER_IT[:3], ENGINE[:3], KAPPAS[:3]))
    assert first3.measured == pytest.approx(RECORDED_SLOPE, abs=SLOPE_ATOL)
    r = _judge(*_points(ITERS, PER_IT))
    parts = r.extra["decomposition"]
    assert not r.extra["flat"] and r.extra["explained"], r.detail
    assert parts["iterations"] < 0 and abs(parts["per_iteration_vs_bound"]) <= FULL.table1.ratio_tol
    assert parts["iterations"] + parts["per_iteration_vs_bound"] == pytest.approx(r.measured, abs=1e-9)
    dec = math.log10(UB_EPS1 / UB_EPS2)
    assert r.points[0]["iterations_per_decade"] == pytest.approx(ITERS[0] / dec)


def test_growing_iterations_or_a_per_iteration_count_off_the_bound_are_not_explained():
    grow = _judge(*_points(list(reversed(ITERS)), PER_IT))  # iterations per accuracy growing: a rate, not a trend
    assert not grow.extra["flat"] and not grow.extra["explained"]
    off = _judge(*_points(ITERS, [40.0] * 4))  # per-iteration count flat while the bound grows like √κ
    assert not off.extra["flat"] and not off.extra["explained"]
