"""The statement sweeps of mixbounds.checks.statements: the verdict rules on exact power laws (each rule's pass,
fail and finding), the target check, and the measured κ_B exponents of plain APAPC in both regimes."""

from __future__ import annotations

import math

import pytest
from mixbounds.bounds.statements import STATEMENTS, statement
from mixbounds.checks.statements.apapc_kappa_B import REGIMES, apapc_point
from mixbounds.checks.statements.homotopy import compare, judge, planted
from mixbounds.checks.statements.sweep import Rule, judge_statement, with_exponent
from mixbounds.checks.sweeps import fit_slope, geomspace
from mixbounds.checks.tiers import QUICK

TOL = 0.2
#: the κ_B slopes of APAPC on apapc_hard (quick grids) are within this of the rule's prediction: measured
#: 1.043 (χ-regime, κ_G = 2) and 0.498 (√-regime, κ_G = 300)
APAPC_SLOPE_TOL = 0.06


def _pts(param, xs, counts, oracle, extra_real=None):
    return [{"realized": {param: x, **(extra_real or {})}, "per_accuracy": {oracle: c}, "converged": True,
             "iterations": 100, "hit_row": 100} for x, c in zip(xs, counts)]


def _judge(sid, param, exp_law, rule, *, control=False, st=None, law=None):
    st = st or statement(sid)
    xs = geomspace(10.0, 100.0, 4)
    counts = [(law or (lambda x: x ** exp_law))(x) * 50 for x in xs]
    return judge_statement("t", st, param, xs, _pts(param, xs, counts, st.oracle), rule, tol=TOL, control=control)


def test_the_registry_is_well_formed():
    ids = [s.id for s in STATEMENTS]
    assert len(ids) == len(set(ids)) == 7
    assert statement("S.apapc.iterations").exponent("kappa_B") == 1.0
    assert statement("S.sliding.convex.grad").exponent("kappa_B") == 0.5  # N_B inside N_G'
    assert statement("S.consensus.nonsmooth.grad").exponent("MR_eps", derived=True) == 2.0
    with pytest.raises(KeyError, match="no statement"):
        statement("S.nothing")


def test_upper_rule_passes_at_and_fails_above_the_exponent():
    r = Rule("upper")
    assert _judge("S.sliding.convex.B", "kappa_B", 0.5, r).status == "pass"
    assert _judge("S.sliding.convex.B", "kappa_B", 0.2, r).status == "pass"
    assert _judge("S.sliding.convex.B", "kappa_B", 1.0, r).status == "fail"


def test_tight_rule_and_prediction():
    assert _judge("S.apapc.iterations", "kappa_B", 1.0, Rule("tight", predicted=1.0)).status == "pass"
    assert _judge("S.apapc.iterations", "kappa_B", 0.5, Rule("tight", predicted=1.0)).status == "fail"
    # an upper bound that holds but disagrees with the suite's own prediction fails
    assert _judge("S.apapc.iterations", "kappa_B", 0.5, Rule("upper", predicted=0.5)).status == "pass"
    assert _judge("S.apapc.iterations", "kappa_B", 0.9, Rule("upper", predicted=0.5)).status == "fail"


def test_derived_and_log_findings():
    derived = Rule("upper", finding="derived")
    assert _judge("S.consensus.nonsmooth.grad", "MR_eps", 2.0, derived).status == "finding"
    assert _judge("S.consensus.nonsmooth.grad", "MR_eps", 2.6, derived).status == "fail"
    assert _judge("S.consensus.nonsmooth.grad", "MR_eps", 2.0, derived, control=True).status == "fail"
    log = Rule("upper", finding="log")
    res = _judge("S.sliding.strong.B", "M_mu_eps", None, log, law=lambda x: x * math.log(x) ** 1.5)
    assert res.status == "finding" and res.findings[0].label == "thm:upper_bound_nonsmooth_affine_constraints"
    assert _judge("S.sliding.strong.B", "M_mu_eps", 2.0, log).status == "fail"


def test_wrong_exponent_controls_fail_on_the_methods_points():
    st = with_exponent(statement("S.consensus.nonsmooth.comm"), "kappa_W", 0.0)
    assert st.exponent("kappa_W") == 0.0 and st.derived_terms is None
    assert _judge("", "kappa_W", 0.5, Rule("absent"), control=True, st=st).status == "fail"


def test_a_missed_target_fails_before_the_fit():
    st = statement("S.sliding.convex.B")
    xs = geomspace(10.0, 100.0, 4)
    pts = [{"realized": {"kappa_B": x * x}, "per_accuracy": {"B": x ** 0.5}, "converged": True} for x in xs]
    res = judge_statement("t", st, "kappa_B", xs, pts, Rule("upper"), tol=TOL)
    assert res.status == "fail" and "misses its target" in res.detail


def test_a_point_without_a_count_is_an_error():
    st = statement("S.sliding.convex.B")
    xs = geomspace(10.0, 100.0, 4)
    pts = _pts("kappa_B", xs, [1, 2, 3, 4], "B")
    pts[2] = {"converged": False, "reason": "budget", "iterations": 7}
    assert judge_statement("t", st, "kappa_B", xs, pts, Rule("upper"), tol=TOL).status == "error"
    assert judge_statement("t", st, "kappa_B", xs, pts, Rule("upper"), tol=TOL, control=True).status == "fail"


@pytest.mark.parametrize("regime", sorted(REGIMES))
def test_plain_apapc_kappa_B_exponent_per_regime(regime):
    """The measurement behind S.apapc.iterations.kappa_B.*: slope 1 where τ = 1, ½ where τ < 1 (the printed κ_B
    exponent 1 is attained only in the first)."""
    field, rule = REGIMES[regime]
    kG, (lo, hi) = getattr(QUICK.statements, field)
    xs = geomspace(lo, hi, QUICK.statements.points)
    pts = [apapc_point(x, kG) for x in xs]
    assert all(p["converged"] for p in pts)
    assert all((p["tau"] == 1.0) == (regime == "chi_regime") for p in pts)
    slope = fit_slope(xs, [p["per_accuracy"]["iterations"] for p in pts])["slope"]
    assert slope == pytest.approx(rule.predicted, abs=APAPC_SLOPE_TOL)


def _hom_points(xs, counts, phases):
    return [{"converged": True, "phases": ph, "per_accuracy": {"A": c}} for c, ph in zip(counts, phases)]


def test_the_homotopy_criterion_sees_a_planted_improvement_and_nothing_else():
    xs = geomspace(100.0, 1000.0, 5)
    phases = [3, 4, 5, 6, 7]
    paper, hom = planted(xs, _hom_points(xs, xs, phases), ("A",))
    rows = {"c": compare("T", xs, paper, hom, ("A",), TOL)}
    assert rows["c"]["T.A"]["improved"] and judge("r", rows, TOL, what="t").status == "finding"
    assert judge("r", rows, TOL, what="t", control=True).status == "fail"  # the control's claim is contradicted
    # the same slopes for both methods: no improvement
    same = {"c": compare("T", xs, hom, hom, ("A",), TOL)}
    assert judge("r", same, TOL, what="t").status == "pass"
    # fewer than MIN_POINTS points past REGIME_PHASES phases: not measured, no verdict
    early = {"c": compare("T", xs, paper, _hom_points(xs, xs, [1, 1, 2, 3, 4]), ("A",), TOL)}
    assert judge("r", early, TOL, what="t").status == "error"
    # a run that did not converge is no count
    bad = _hom_points(xs, xs, phases)
    bad[2] = {"converged": False, "error": "budget"}
    assert judge("r", {"c": compare("T", xs, paper, bad, ("A",), TOL)}, TOL, what="t").status == "error"
