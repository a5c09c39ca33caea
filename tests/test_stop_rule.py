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


# ----------------------------------------------------------------------------- the count to ε (one definition)
def _hist(errs):
    import numpy as np

    return np.asarray(errs, float), np.repeat(np.arange(len(errs))[:, None], 5, axis=1)


def test_count_to_is_where_the_error_stays_and_the_first_crossing_is_beside_it():
    """A dip to 2e-7 at row 2 that climbs back to 1.5e-2 (issue 45): counted where the error settles (row 4)."""
    from mixbounds.solvers.stop_rule import count_to

    e, C = _hist([1.0, 0.3, 2e-7, 1.5e-2, 5e-3, 1e-3, 1e-4])
    c = count_to(e, C, 1e-2)
    assert (c.row, c.first_row, c.left_again, c.observed) == (4, 2, True, 2)
    assert c.counts["comm"] == 4 and c.first_counts["comm"] == 2
    # control: a monotone curve has no difference between the two and no flag
    m = count_to(*_hist([1.0, 0.3, 5e-3, 1e-3, 1e-4]), 1e-2)
    assert (m.row, m.first_row, m.left_again) == (2, 2, False)


def test_count_to_never_settled_and_nan_is_above():
    from mixbounds.solvers.stop_rule import count_to

    c = count_to(*_hist([1.0, 1e-3, 0.5]), 1e-2)  # touched, then ended above
    assert c.row is None and c.counts is None and c.first_row == 1 and c.left_again
    n = count_to(*_hist([1.0, 1e-3, math.nan, 1e-3]), 1e-2)
    assert n.row == 3 and n.left_again


def test_count_to_row_is_the_envelopes_first_row_below_eps():
    """The definition equals the envelope E_k = max_{j>=k} e_j the per-accuracy costs are fitted on."""
    import numpy as np
    from mixbounds.solvers.stop_rule import settled_row

    rng = np.random.default_rng(3)
    for _ in range(200):
        e = 10.0 ** rng.uniform(-8, 0, size=rng.integers(1, 30))
        eps = 10.0 ** rng.uniform(-8, 0)
        env = np.maximum.accumulate(e[::-1])[::-1]
        hit = np.flatnonzero(env <= eps)
        assert settled_row(e, eps) == (int(hit[0]) if hit.size else None)
