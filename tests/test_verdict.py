"""The slope judgements shared by every sweep verdict (checks/verdict.py)."""

import math

import pytest

from mixbounds.checks.verdict import band_ok, between_ok, fit_counts, upper_ok

#: a tolerance of the size the tiers use (checks.rates.TOL["quick"])
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
    from mixbounds.checks.result import CheckResult, reading

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
