"""The slope judgements shared by every sweep verdict (checks/verdict.py)."""

import math

import pytest
from mixbounds.checks.verdict import band_ok, between_ok, fit_counts, upper_ok

#: a tolerance of the size the tiers use (QUICK.table1.slope_tol, mixbounds.checks.tiers)
TOL = 0.12


def test_upper_band_between():
    assert upper_ok(0.5, 0.5, TOL) and upper_ok(-3.0, 0.5, TOL) and not upper_ok(0.5 + 2 * TOL, 0.5, TOL)
    assert band_ok(0.5 - TOL / 2, 0.5, TOL) and not band_ok(0.5 - 2 * TOL, 0.5, TOL)
    assert between_ok(0.4, 0.318, 0.5, TOL) and not between_ok(0.1, 0.318, 0.5, TOL) and not between_ok(0.7, 0.318, 0.5, TOL)


@pytest.mark.parametrize("judge", [lambda s: upper_ok(s, 0.5, TOL), lambda s: band_ok(s, 0.5, TOL),
                                   lambda s: between_ok(s, 0.3, 0.5, TOL)])
def test_nan_slope_never_passes(judge):
    assert judge(float("nan")) is False


def test_measured_is_one_number():
    """results.json schema 2: ``measured`` is a number or None; several numbers go to ``readings`` with the one the
    verdict compares named (:func:`reading`); a dict in ``measured`` is refused."""
    from mixbounds.checks.run.result import CheckResult, reading

    r = CheckResult(id="lemma.x", kind="lemma", status="pass", **reading("worst", {"worst": 1.5, "cases violating": 0}))
    assert r.measured == 1.5 and r.readings == {"worst": 1.5, "cases violating": 0}
    assert CheckResult.from_json(r.to_json()) == r
    with pytest.raises(ValueError, match="measured must be a number"):
        CheckResult(id="lemma.x", kind="lemma", status="pass", measured={"worst": 1.5})
    with pytest.raises(ValueError, match="not a number"):
        reading("range", {"range": [1, 2]})
    # a schema-1 claim (a dict in measured) reads back with the dict in readings
    old = CheckResult.from_json({"id": "lemma.x", "kind": "lemma", "status": "pass", "measured": {"worst": 1.5}})
    assert old.measured is None and old.readings == {"worst": 1.5}


def test_fit_counts():
    xs = [10.0, 100.0, 1000.0]
    assert fit_counts(xs, [x ** 0.5 for x in xs])["slope"] == pytest.approx(0.5)
    assert fit_counts(xs, [0, 0, 0])["slope"] == 0.0  # the oracle is not needed anywhere on the sweep
    assert math.isnan(fit_counts(xs, [0, 3, 9])["slope"])  # a zero count among positive ones: no slope


# ----------------------------------------------------------------------------- the engine (checks/verdict_engine.py)
#: |measured slope − exact slope| on exact power-law counts (least squares in log-log: rounding only)
SLOPE_ATOL = 1e-9


def _rules(**kw):
    """Minimal rules: a point ``{"x", "y"}`` or ``{"error"}``; the judge passes a slope within TOL of 0.5."""
    from mixbounds.checks.run.sweep_point import SweepPoint
    from mixbounds.checks.verdict_engine import Judgement, SweepRules, Unjudged

    def screen(v, p):
        return Unjudged(v, f"x={v:g}: {p['error']}") if "error" in p else None

    def row(v, p):
        return SweepPoint(("target", "realized", "per_accuracy"), target=v, realized=p["x"], per_accuracy=p["y"],
                          target_rel_err=abs(p["x"] / v - 1))

    def judge(f, sel, unjudged):
        return Judgement("pass" if band_ok(f.slope, 0.5, TOL) else "fail", f"slope {f.slope:.3f}")

    return SweepRules(**dict(dict(screen=screen, row=row, judge=judge), **kw))


def _pts(slope=0.5, xs=(10.0, 100.0, 1000.0)):
    return [(x, {"x": x, "y": 3.0 * x ** slope}) for x in xs]


def test_engine_stages():
    """Each stage of judge_sweep can end the verdict: unjudged point (error; fail for a control), missed target,
    fit integrity; otherwise the rule decides, with the slope as measured and the points as their dicts."""
    from mixbounds.checks.sweeps import fit_integrity
    from mixbounds.checks.verdict_engine import integrity_stop, judge_sweep

    common = dict(kind="upper", param="kappa_W")
    ok = judge_sweep("r", _pts(), _rules(), **common)
    assert ok.status == "pass" and abs(ok.measured - 0.5) <= SLOPE_ATOL
    assert ok.points[0] == {"target": 10.0, "realized": 10.0, "per_accuracy": 3.0 * 10.0 ** 0.5}
    assert judge_sweep("r", _pts(slope=1.0), _rules(), **common).status == "fail"  # negative control of the rule
    bad = _pts()[:2] + [(1000.0, {"error": "boom"})]
    r = judge_sweep("r", bad, _rules(), **common)
    assert r.status == "error" and r.detail == "x=1000: boom" and len(r.points) == 2
    assert judge_sweep("r", bad, _rules(), control=True, **common).status == "fail"
    off = _pts()[:2] + [(1000.0, {"x": 1100.0, "y": 3.0 * 1100.0 ** 0.5})]
    r = judge_sweep("r", off, _rules(target_rtol=5e-3), **common)
    assert r.status == "fail" and "misses its target" in r.detail
    # a fit on fewer points than the sweep has is no verdict: error, with the slope it got
    r = judge_sweep("r", _pts(), _rules(integrity=integrity_stop(fit_integrity, 4)), **common)
    assert r.status == "error" and r.detail.startswith("fit integrity") and abs(r.measured - 0.5) <= SLOPE_ATOL


def test_sweep_point_layout():
    from mixbounds.checks.run.sweep_point import SweepPoint

    p = SweepPoint(("per_accuracy", "target"), target=1.0, per_accuracy=2.0, n=5)
    assert list(p.to_dict()) == ["per_accuracy", "target"] and p.to_dict() == {"per_accuracy": 2.0, "target": 1.0}
    with pytest.raises(ValueError, match="unknown fields"):
        SweepPoint(("target", "no_such_field"))


def test_consistency_one_engine_for_rates_and_bench():
    """A method below the engine's bound fails the check; nothing comparable is an error; the benchmarks'
    (named) points carry the method, the rates' do not."""
    from mixbounds.checks.verdict_engine import consistency

    lb = [(10.0, {"bounds": {"comm": {"abs": {"0.001": 50}}}})]

    def run(count, named):
        series = {"apapc": [(10.0, {"c": count})]}
        if named:
            series["extra"] = [(10.0, {"c": count})]
        return consistency("c", "kappa_W", series, lb, judged=lambda up: True,
                           count_at=lambda up, o, k: up["c"], what="point, oracle, ε", named=named)

    assert run(60, False).status == "pass" and "method" not in run(60, False).points[0]
    r = run(40, True)
    assert r.status == "fail" and r.measured == 2 and r.points[0]["method"] == "apapc"
    none = consistency("c", "kappa_W", {"apapc": [(10.0, {})]}, lb, judged=lambda up: False,
                       count_at=lambda up, o, k: None, what="point", named=False)
    assert none.status == "error" and none.detail == "no comparable points"
