"""The bench check family: ids, statuses, and the lower-bound self-consistency verdict."""

import math

import pytest
from mixbounds.checks import bench
from mixbounds.checks.registry import all_checks
from mixbounds.checks.run.framework import run_checks
from mixbounds.checks.sweeps import ABS_LEVELS
from mixbounds.checks.tiers import FULL, TINY


def test_registered_and_ids_well_formed():
    ids = [c.id for c in all_checks()]
    assert {f"bench.{cls}.{k}" for cls in bench.CLASSES for k in ("worst", "random")} <= set(ids)
    for c in bench.checks():
        for rid in c.result_ids(FULL):
            parts = rid.split("@")[0].split(".")
            assert parts[0] == "bench" and parts[1] in bench.CLASSES
            assert len(parts) == 5 or parts[2] == "consistency", rid


def test_tiny_tier_consensus_worst_gives_expected_ids():
    check = next(c for c in bench.checks() if c.id == "bench.consensus.worst")
    results, stats = run_checks([check], TINY)
    got = {r.id: r for r in results}
    expected = set(check.result_ids(TINY))
    assert set(got) == expected
    for m in ("apapc", "extra", "diging", "msda", "apapc-nocheb"):
        for o in ("grad", "comm"):
            for p in ("kappa_f", "kappa_W"):
                assert f"bench.consensus.{m}.{o}.{p}" in got
    assert got["bench.consensus.consistency.kappa_f"].status == "pass"
    for r in results:
        assert r.kind in ("bench", "consistency")
        assert r.status in ("pass", "skipped"), (r.id, r.status, r.detail)
        if r.kind == "bench" and r.status == "pass":
            assert r.measured is not None and len(r.points) == 2
    # EXTRA's communication count equals its gradient count (one of each per iteration)
    e = got["bench.consensus.extra.comm.kappa_f"]
    g = got["bench.consensus.extra.grad.kappa_f"]
    assert [p["per_accuracy"] for p in e.points] == pytest.approx([p["per_accuracy"] for p in g.points])


def _point(converged=True, reason="tolerance", per=(100.0, 200.0), abs_counts=None, x=10.0):
    out = {"realized": {"kappa_f": x}, "converged": converged, "reason": reason, "iterations": 50,
           "final_error": 1e-9 if converged else 1e-3, "n": 3, "variables": 30,
           "counts1": {"grad": 1}, "counts2": {"grad": 5},
           "abs": abs_counts or {f"{e:g}": {"grad": 10, "comm": 10} for e in bench.HIT_LEVELS}}
    if converged:
        out.update(per_accuracy={"grad": per[0], "comm": per[1]}, per_iteration={"grad": 1.0, "comm": 2.0},
                   iterations_window=per[0])
    return out


def test_statuses_budget_divergence_and_exception():
    sw = bench.sweeps(TINY, "consensus", "worst")[0]
    pts_ok = [(4.0, _point(per=(100.0, 1.0), x=4.0)), (10.0, _point(per=(1000.0, 1.0), x=10.0))]
    r = bench._slope_result(TINY, "consensus", "extra", "grad", "kappa_f", sw, "worst", pts_ok)
    assert r.status == "pass" and r.measured == pytest.approx(math.log(10.0) / math.log(2.5))
    pts_budget = [(4.0, _point(False, "budget")), (10.0, _point(False, "budget"))]
    r = bench._slope_result(TINY, "consensus", "diging", "grad", "kappa_f", sw, "worst", pts_budget)
    assert r.status == "skipped" and "budget" in r.detail
    pts_div = [(4.0, _point()), (10.0, _point(False, "diverged"))]
    r = bench._slope_result(TINY, "consensus", "diging", "grad", "kappa_f", sw, "worst", pts_div)
    assert r.status == "error" and "diverged" in r.detail and "finding" in r.detail
    pts_exc = [(4.0, {"error": "RuntimeError: boom"}), (10.0, _point())]
    r = bench._slope_result(TINY, "consensus", "diging", "grad", "kappa_f", sw, "worst", pts_exc)
    assert r.status == "error" and "bug" in r.detail
    pts_inst = [(4.0, {"instance_error": "impossible"}), (10.0, _point())]
    r = bench._slope_result(TINY, "consensus", "diging", "grad", "kappa_f", sw, "worst", pts_inst)
    assert r.status == "error" and "not the method's failure" in r.detail


def test_consistency_fails_when_a_method_beats_the_lower_bound():
    sw = bench.sweeps(TINY, "consensus", "worst")[0]
    lb = [(4.0, {"bounds": {"comm": {"abs": {f"{e:g}": 20 for e in ABS_LEVELS}}}})]
    above = {"extra": [(4.0, _point(abs_counts={f"{e:g}": {"grad": 30, "comm": 30} for e in ABS_LEVELS}))]}
    below = {"extra": [(4.0, _point(abs_counts={f"{e:g}": {"grad": 30, "comm": 19} for e in ABS_LEVELS}))]}
    assert bench._consistency(TINY, "consensus", "kappa_f", sw, above, lb).status == "pass"
    r = bench._consistency(TINY, "consensus", "kappa_f", sw, below, lb)
    assert r.status == "fail" and "extra" in r.detail


def test_full_tier_budget_counts_calls_and_reaches_the_run():
    """The full tier gives every baseline the same call budget (``FULL.bench.calls``), passed to the
    run; a run stopped by it is a budget point listed with its calls, and the verdict names the budget."""
    sw = bench.sweeps(FULL, "coupled", "worst")[0]
    t = bench._task(FULL, sw, sw.grid[-1], "tracking-admm")
    assert t.kwargs["max_calls"] == FULL.bench.calls and t.kwargs["max_iter"] == FULL.bench.budget
    assert "max_calls" not in bench._task(TINY, bench.sweeps(TINY, "coupled", "worst")[0], 4.0, "dpmm").kwargs
    # the reference method has the iteration budget only (its Chebyshev iterations make hundreds of calls each)
    assert "max_calls" not in bench._task(FULL, sw, sw.grid[-1], "apapc").kwargs
    # a real run to a call budget: the point reports the budget, the calls it reached, no per-accuracy cost
    tiny = bench.sweeps(TINY, "coupled", "worst")[0]
    p = bench.bench_point(tiny.family, tiny.point_params(4.0), "tracking-admm", 1e-2, 1e-5, 1e-8, 10**6, max_calls=60)
    assert p["reason"] == "budget" and not p["converged"] and max(p["counts"].values()) >= 60
    pts = [(4.0, p), (10.0, dict(p))]
    r = bench._slope_result(FULL, "coupled", "tracking-admm", "grad", tiny.param, tiny, "worst", pts)
    assert r.status == "skipped" and "calls of one oracle" in r.detail and " A calls" in r.detail


@pytest.mark.parametrize("cls", ["shared", "mixed"])
def test_full_tier_random_kappa_W_sweep_can_be_built_at_its_largest_network(cls):
    """The random shared/mixed families bound κ̂_C̃ from below by the network size; the full tier's κ_W sweep
    (to 1000) must stay buildable at its base κ̂_C̃ (it was not at κ̂_C̃ = 10: 'below 15' at κ_W = 100)."""
    from mixbounds.instances.families import build

    sw = next(s for s in bench.sweeps(FULL, cls, "random") if s.param == "kappa_W")
    inst = build(sw.family, **sw.point_params(max(sw.grid)))
    assert inst.realized["kappa_W"] == pytest.approx(max(sw.grid), rel=0.05)
