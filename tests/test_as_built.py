"""The construction as built against its asymptotic model (checks/lower/as_built.py) and the planted sizing defect
that only it and the fit band can notice (checks/lower/plants.py)."""

import math

import numpy as np
import pytest
from mixbounds.checks.lower import plants
from mixbounds.checks.lower.as_built import INDEX_QUANTUM, admissible_nodes, conformance, grid_band
from mixbounds.checks.lower.asymptotic import paper_path_nodes
from mixbounds.checks.lower.constructions import CONSTRUCTIONS, cells, grid, judge_construction, point_params
from mixbounds.checks.lower.exact import WINDOW_DECADES, exact_point
from mixbounds.checks.lower.plants import planted, planted_point, power_path_nodes
from mixbounds.checks.tiers import QUICK
from mixbounds.instances.graphs import beta, path_size_for, tuned_path
from mixbounds.instances.worst_case import consensus

#: a fit computed from counts equal to the model's is the model's slope up to the OLS's rounding
FIT_RTOL = 1e-9


@pytest.mark.parametrize("kappa", [3.0, 4.0, 10.0, 13.9, 13.93, 100.0, 1e3, 2154.4, 1e4, 1e5, 1e6])
def test_the_paper_path_rule_written_from_beta_n_is_the_graph_builders(kappa):
    """Two codes for one rule (n = 3m, β_n <= κ < β_{n+3}): the model's from the continuous β_n = κ, the builder's by
    search; equal, so a builder that sizes otherwise is told apart."""
    n = paper_path_nodes(kappa)
    assert n in admissible_nodes(kappa) and path_size_for(kappa) in admissible_nodes(kappa)
    assert beta(n) <= kappa * (1 + 1e-9) < beta(n + 3)


def _cons():
    return next(c for c in CONSTRUCTIONS if c.family == "consensus")


def _sweep(plant=None):
    c = _cons()
    pts = []
    for v in grid(QUICK, "kappa_W", c):
        kw = point_params(QUICK, c, "kappa_W", v)
        pts.append((v, planted_point(plant, c.family, kw, sorted(c.oracles)) if plant else
                    exact_point(c.family, kw, sorted(c.oracles))))
    return c, pts


@pytest.fixture(scope="module")
def sweeps():
    return {"printed": _sweep(), "planted": _sweep("power-path")}


def _comm_cell(c):
    return next(cell for cell in cells(c) if cell.oracle == "comm")


def test_the_printed_consensus_sweep_is_the_models_and_passes(sweeps):
    c, pts = sweeps["printed"]
    r = judge_construction(QUICK, c, _comm_cell(c), "kappa_W", pts)
    assert r.status == "pass", r.detail
    assert r.extra["as_built"]["mismatches"] == []
    assert all(abs(o) <= INDEX_QUANTUM for o in r.extra["as_built"]["offsets"])
    band = r.extra["grid_band"]
    assert band["judged"] and band["lo"] <= r.extra["fit"]["slope"] <= band["hi"]


def test_a_path_planted_inside_the_builder_loses_the_certificate_by_the_as_built_rule(sweeps):
    """The plant keeps the instance's labels and exact counts: only the as-built rule sees n = 3·κ^0.4."""
    c, pts = sweeps["planted"]
    assert all(p["bounds"]["comm"]["exact"]["matched"] == p["bounds"]["comm"]["exact"]["points"] for _, p in pts)
    r = judge_construction(QUICK, c, _comm_cell(c), "kappa_W", pts)
    assert r.status == "fail" and "not the asymptotic model" in r.detail
    assert any("network path" in m for m in r.extra["as_built"]["mismatches"])


def test_the_fit_band_alone_catches_the_planted_path(sweeps):
    c, pts = sweeps["planted"]
    r = judge_construction(QUICK, c, _comm_cell(c), "kappa_W", pts, judge_as_built=False)
    assert r.status == "fail" and "outside the closed form's band" in r.detail
    assert r.extra["fit"]["slope"] < r.extra["grid_band"]["lo"]


def test_the_plant_realizes_kappa_W_and_is_undone_after_its_block():
    original = consensus.tuned_path
    with planted("power-path"):
        inst = consensus.build(kappa_W=1000.0, kappa_f=4.0, eps=1e-4)
    assert consensus.tuned_path is original
    assert inst.problem.n == power_path_nodes(1000.0) and inst.realized["kappa_W"] == pytest.approx(1000.0, rel=1e-6)
    assert consensus.build(kappa_W=1000.0, kappa_f=4.0, eps=1e-4).problem.n == paper_path_nodes(1000.0)
    for k in (10.0, 1e3, 1e5):
        n = power_path_nodes(k)
        assert tuned_path(k, n).n == n and beta(n) <= k
    with pytest.raises(ValueError, match="multiple of 3"):
        tuned_path(10.0, 30)
    with pytest.raises(ValueError, match="unknown plant"):
        with planted("nope"):
            pass
    assert set(plants.PLANTS) == {"power-path", "block-shortcut"}


def test_a_changed_weight_and_a_changed_chain_length_are_mismatches():
    """Rules 2 and 3 on one recorded point: ρ and K moved by a builder are named."""
    c = _cons()
    p = exact_point("consensus", point_params(QUICK, c, "kappa_f", 40.0), ["comm"])
    model = c.model("comm", "kappa_f")
    ok = conformance(model, p, p["bounds"]["comm"]["per_accuracy"], WINDOW_DECADES)
    assert ok["mismatches"] == []
    bad = dict(p, as_built=dict(p["as_built"], chains={"": dict(p["as_built"]["chains"][""], rho=0.7, K=12)}))
    got = conformance(model, bad, p["bounds"]["comm"]["per_accuracy"], WINDOW_DECADES)["mismatches"]
    assert any("ρ = 0.7" in m for m in got) and any("K = 12" in m for m in got)


def test_grid_band_contains_the_models_own_fit_and_its_width_is_one_index_per_point():
    xs, m, R = [10.0, 100.0, 1000.0], [10.0, 30.0, 90.0], [2.0, 6.0, 17.0]
    b = grid_band(xs, m, R, 0.5)
    assert b["judged"] and b["lo"] < b["slope"] < b["hi"]
    assert b["slope"] == pytest.approx(math.log(9) / math.log(100), rel=FIT_RTOL)
    # the extreme counts one index out, in the slope's direction: exactly the band's edges
    w = (np.log(xs) - np.mean(np.log(xs))) / np.sum((np.log(xs) - np.mean(np.log(xs))) ** 2)
    hi = b["slope"] + w[2] * math.log1p(R[2] / m[2]) + w[0] * math.log1p(-R[0] / m[0])
    assert b["hi"] == pytest.approx(hi, rel=FIT_RTOL)
    assert not grid_band(xs, [2.0, 30.0, 90.0], R, 0.5)["judged"]


def test_without_the_fit_band_rule_the_planted_path_passes(sweeps):
    """Negative control of the rules as the engine's: the fit-band rule taken out of the judge stage, the planted
    sizing defect (as-built rule not judged) is no longer caught."""
    from mixbounds.checks.lower.exact_verdict import CLOSED_RULES

    c, pts = sweeps["planted"]
    without = tuple(rule for rule in CLOSED_RULES if rule.name != "fit band")
    r = judge_construction(QUICK, c, _comm_cell(c), "kappa_W", pts, judge_as_built=False, closed_rules=without)
    assert r.status == "pass", r.detail
