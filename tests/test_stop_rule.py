"""The stopping rule shared by APAPC and the baselines (solvers/stop_rule.py)."""

import math

import pytest
from mixbounds.solvers.stop_rule import DIVERGENCE_RATIO, StopRule


def _run(rule: StopRule, errs, counts=(0, 0, 0, 0, 0)):
    """Feed errors after iterations 1, 2, …; return (iteration, reason) of the stop, or (None, None)."""
    for k, e in enumerate(errs, start=1):
        r = rule.after(k, e, counts)
        if r is not None:
            return k, r
    return None, None


def test_first_hit_without_settle():
    assert _run(StopRule(1e-3, 100, "t"), [1.0, 1e-2, 1e-4, 1e-5]) == (3, "tolerance")


def test_settle_waits_for_the_error_to_stay_below_the_level():
    # settle 0.5: at k the last 0.5·k errors must all be <= eps; a dip at k=3 then a rise does not stop the run
    errs = [1.0, 1e-2, 1e-4, 1e-2, 1e-4, 1e-4, 1e-4, 1e-4, 1e-4]
    assert _run(StopRule(1e-3, 100, "t", settle=0.5), errs) == (8, "tolerance")
    assert _run(StopRule(1e-3, 100, "t"), errs) == (3, "tolerance")  # control: without settle the dip stops it


def test_settle_level_above_eps_needs_one_hit_of_eps():
    rule = StopRule(1e-6, 100, "t", settle=0.5, settle_eps=1e-3)
    assert _run(rule, [1e-4] * 10 + [1e-7]) == (11, "tolerance")


@pytest.mark.parametrize("err,reason", [(math.nan, "non-finite"), (math.inf, "non-finite"),
                                        (DIVERGENCE_RATIO * 10, "diverged")])
def test_failure_reasons(err, reason):
    assert _run(StopRule(1e-3, 100, "t"), [1.0, err]) == (2, reason)


def test_budgets():
    assert _run(StopRule(1e-9, 3, "t"), [1.0] * 10) == (3, "budget")
    assert _run(StopRule(1e-9, 100, "t", max_calls=5), [1.0] * 10, counts=(5, 0, 0, 0, 0)) == (1, "budget")
    assert StopRule(1e-9, 0, "t").start(1.0) == "budget"
    assert StopRule(1e-9, 5, "t").start(1.0) is None
    assert StopRule(1e-3, 5, "t").start(1e-4) == "tolerance"


@pytest.mark.parametrize("kw,msg", [(dict(eps=0.0), "eps must be positive"), (dict(max_iter=-1), "max_iter"),
                                    (dict(settle=1.0), "settle must be"), (dict(settle_eps=1e-9), "settle_eps"),
                                    (dict(max_calls=0), "max_calls")])
def test_bad_arguments(kw, msg):
    args = dict(eps=1e-6, max_iter=10) | kw
    eps, max_iter = args.pop("eps"), args.pop("max_iter")
    with pytest.raises(ValueError, match=msg):
        StopRule(eps, max_iter, "t", **args)
