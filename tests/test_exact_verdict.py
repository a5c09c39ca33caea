"""The exact lower-bound verdict as rules of the one verdict engine (checks/lower/exact_verdict.py,
checks/verdict_engine.py): the rules decide in the order the module docstring states, and a rule taken out of the
judge stage changes a verdict (the rules are what decides, not a fixed chain beside them)."""

from __future__ import annotations

import pytest
from mixbounds.bounds.claims import get
from mixbounds.checks.lower.exact_verdict import CLOSED_RULES, SLOPE_RULES, judge
from mixbounds.checks.tiers import QUICK
from mixbounds.checks.verdict_engine import Judgement, Rule, decide

#: the Table 1 consensus communication cell: Ω(√κ_W) rounds (a cell with a positive exponent in kappa_W)
CELL = "T1.consensus.comm"


def _point(x: float, per: float) -> dict:
    """An engine point without a closed form (``exact`` absent): the slope rules judge it."""
    return {"bounds": {"comm": {"per_accuracy": per, "e0": 1.0, "c1": 1.0, "rounds_total": per}},
            "realized": {"kappa_W": x}, "targets": {"kappa_W": x}, "n": 3, "chain_length": 3, "variables": 3}


def _sweep(xs, slope: float) -> list:
    return [(x, _point(x, 10.0 * x ** slope)) for x in xs]


def _judge(pts, **kw):
    cell = get(CELL)
    return judge(QUICK, cell, "kappa_W", "comm", pts, rid="t", construction="printed", method_class="m", model=None,
                 base={}, instance={"family": "consensus", "variant": "printed"}, **kw)


def test_the_slope_rules_decide_in_order():
    theory = get(CELL).exponent("kappa_W")
    wide = [10.0 ** k for k in (1, 2, 3)]
    assert _judge(_sweep(wide, theory)).status == "pass"
    r = _judge(_sweep(wide, theory / 3))
    assert r.status == "finding" and r.findings and "below the claimed" in r.detail
    assert _judge(_sweep(wide, theory / 3), control=True).status == "fail"
    assert _judge(_sweep(wide, 3 * theory)).status == "fail"
    r = _judge([(x, dict(p, error="boom")) for x, p in _sweep(wide, theory)])
    assert r.status == "error" and "boom" in r.detail


def test_a_rule_removed_from_the_engine_changes_the_verdict():
    """Negative control: a sweep of 0.3 decades (below the quick tier's minimum) with the claimed slope fails by the
    decades rule; the same sweep judged without that rule passes."""
    theory = get(CELL).exponent("kappa_W")
    narrow = [100.0, 141.0, 200.0]
    r = _judge(_sweep(narrow, theory))
    assert r.status == "fail" and "decades" in r.detail
    without = tuple(rule for rule in SLOPE_RULES if rule.name != "decades")
    assert len(without) == len(SLOPE_RULES) - 1
    assert _judge(_sweep(narrow, theory), slope_rules=without).status == "pass"


def test_every_rule_has_a_name_and_the_last_decides():
    for rules in (CLOSED_RULES, SLOPE_RULES):
        names = [r.name for r in rules]
        assert len(set(names)) == len(names)
    with pytest.raises(ValueError, match="no rule"):
        decide((Rule("never", lambda case: None),), object())
    assert decide((Rule("never", lambda c: None), Rule("always", lambda c: Judgement("pass", "ok"))), 0).status == "pass"
