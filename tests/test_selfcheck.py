"""The self-checks of issue 17: counter audit, engine calibration, tolerance probes, guards."""

import numpy as np
import pytest
from helpers import random_problem
from mixbounds.checks.audits import audit_counters as AC
from mixbounds.checks.audits import calibration_engine as CE
from mixbounds.checks.audits import calibration_tolerances as CT
from mixbounds.checks.rate_measure import convergence_guard, recomputed_error
from mixbounds.checks.sweeps import fit_integrity, fit_slope
from mixbounds.checks.tolerances import TOLERANCES
from mixbounds.solvers import CountedOracles, solve

#: a recomputed error and the solver's own agree to rounding (same formula, different summation order)
ERR_RTOL = 1e-9


@pytest.mark.parametrize("method", AC.AUDIT_METHODS)
@pytest.mark.parametrize("kw", [dict(coupled=True, local=True, shared=True),
                                dict(coupled=True, local=False, shared=False),
                                dict(coupled=False, local=False, shared=True)])
def test_closed_form_matches_every_iteration_and_the_tally(kw, method):
    P = random_problem(np.random.default_rng(3), **kw)
    orc = CountedOracles(P)
    tally = AC.wrap_raw(orc, P)
    res = solve(P, method=method, eps=1e-300, max_iter=3, materialize=False, oracles=orc)
    assert AC.closed_form_mismatch(res) is None
    assert tally == res.counts
    prm = res.params
    want = AC.closed_form_per_iteration(prm["x_block"], prm["t_block"], prm["degrees"], method == "apapc")
    assert want == res.params["per_iteration_counts"]  # the solver's own closed form agrees with the audit's


def test_audit_catches_a_skipping_counter():
    P = random_problem(np.random.default_rng(4), coupled=False, local=False, shared=True)
    orc = AC._SkippingOracles(P)
    tally = AC.wrap_raw(orc, P)
    res = solve(P, eps=1e-300, max_iter=2, materialize=False, oracles=orc)
    assert tally["comm"] > res.counts["comm"]
    assert AC.closed_form_mismatch(res) is not None


def test_wrap_refuses_a_missing_operator():
    P = random_problem(np.random.default_rng(5))
    orc = CountedOracles(P)
    del orc._bCt
    with pytest.raises(ValueError, match="_bCt"):
        AC.wrap_raw(orc, P)


@pytest.mark.parametrize("case,n", CE.CASES)
def test_engine_calibration_exact_and_two_hops_caught(case, n):
    p = CE.calibration_point(case, n)
    assert p["count"] == p["known"] and p["curve_rel_dev"] <= CE.CURVE_RTOL
    assert CE.calibration_verdict("x", p).status == "pass"
    q = CE.calibration_point(case, n, two_hops=True)
    assert q["count"] < p["known"]
    assert CE.calibration_verdict("c", q, control=True).status == "fail"


def test_path_needs_n_minus_1_rounds():
    for n in CE.PATH_NODES:
        assert CE.calibration_point("path", n)["count"] == n - 1


def test_every_probed_tolerance_accepts_below_and_rejects_above():
    p = CT.probe_all()
    probed = [t for t in TOLERANCES if t.tolerate is not None]
    assert len(p) == len(probed) >= 15
    for t in probed:
        assert t.tolerate < t.design < t.detect, t.where
        assert p[t.where]["accepts_tolerate"] and not p[t.where]["accepts_detect"], t.where


def test_fit_integrity():
    x, y = [1.0, 2.0, 4.0, 8.0], [1.0, 2.0, 4.0, 8.0]
    assert fit_integrity(fit_slope(x, y), 4) is None
    assert "2 of the sweep's 4" in fit_integrity(fit_slope(x[:2], y[:2]), 4)
    assert fit_integrity(fit_slope(x[:3], y[:3]), 4, stopped=1) is None  # a stated budget stop
    assert "not finite" in fit_integrity(fit_slope(x[:2], y[:2]), 2)
    assert fit_integrity(fit_slope(x, [5.0] * 4), 4) is None  # equal counts: slope exactly 0


def test_convergence_guard_recomputes_from_x():
    P = random_problem(np.random.default_rng(6), coupled=False, local=False, shared=True)
    res = solve(P, eps=1e-5)
    from mixbounds.instances.reference.kkt import reference_solution

    xs = reference_solution(P).u
    err, why = convergence_guard(res, xs, 1e-5)
    assert why is None and abs(err / res.final_error() - 1) <= ERR_RTOL
    err2, why2 = convergence_guard(res, xs, err / 10)
    assert why2 is not None and f"{err:.3e}" in why2
    assert recomputed_error(xs, xs) == 0.0
