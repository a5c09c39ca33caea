"""Lower-bound certificates (checks/lower/certificates.py), the constructions they rest on and the def:foda class."""

import pytest
from mixbounds.bounds.claims import get
from mixbounds.checks.lower.certificates import certify, certify_param, statements
from mixbounds.checks.lower.slopes import lower_point
from mixbounds.checks.tiers import QUICK
from mixbounds.instances.families import build

#: per-accuracy engine counts are integers; a √10-fold growth (exponent ½ over one decade) reads ≥ 2.5×
GROWTH_HALF_DECADE = 2.5
#: "does not grow": at most this factor over a decade (the additive O(√κ_C) term of shared-rows-incidence)
FLAT_FACTOR = 1.3
#: realized vs target κ's of the worst-case families (truncated chains: relative O(κ/K²), ≤ 1e-3 here)
REALIZED_RTOL = 5e-3


def _per(out, oracle):
    b = out["bounds"][oracle]
    return b["count2"] - b["count1"]


def test_twenty_two_optimality_statements():
    st = statements()
    assert len(st) == 22
    assert sum(1 for c in st if c.table == 1) == 17


def test_split_rows_makes_C_products_multiplicative_where_shared_rows_is_additive():
    base = dict(kappa_W=10, kappa_AC=10, kappa_f=4, eps=1e-6)
    sp_ = [_per(lower_point("coupled-local", dict(base, kappa_C=k, variant="split-rows"), ["C"]), "C") for k in (10, 100)]
    sr = [_per(lower_point("coupled-local", dict(base, kappa_C=k, variant="shared-rows-incidence"), ["C"]), "C")
          for k in (10, 100)]
    assert sp_[1] >= GROWTH_HALF_DECADE * sp_[0], sp_
    assert sr[1] <= FLAT_FACTOR * max(sr[0], 1), sr
    ac = [_per(lower_point("coupled-local", dict(base, kappa_C=10, kappa_AC=k, variant="split-rows"), ["C"]), "C")
          for k in (10, 100)]
    assert ac[1] >= GROWTH_HALF_DECADE * ac[0], ac


def test_split_rows_realizes_its_targets():
    a = build("coupled-local", kappa_W=10, kappa_AC=30, kappa_C=10, kappa_f=10, eps=1e-6, variant="split-rows")
    for k, v in (("kappa_f", 10), ("kappa_C", 10), ("kappa_AC", 30), ("kappa_W", 10)):
        assert a.realized[k] == pytest.approx(v, rel=REALIZED_RTOL), k


def test_conjugate_gradient_collapses_the_sum_trick_chain_but_not_the_consensus_split():
    p = dict(kappa_W=10, kappa_A=10, kappa_f=30, eps=1e-6)
    out = lower_point("coupled-grad", p, ["grad"])
    assert out["bounds"]["grad+conj"]["count2"] <= 1
    assert _per(out, "grad") >= 5
    cons = lower_point("consensus", dict(kappa_W=10, kappa_f=30, eps=1e-6), ["grad"])
    assert cons["bounds"]["grad+conj"]["count2"] >= 5


def test_identical_Ct_chain_bound_grows_and_a_cut_chain_loses_it():
    pts = [lower_point("shared-ident", dict(kappa_W=10, kappa_Ct=k, kappa_f=4, eps=1e-6), ["Ct"]) for k in (10, 100)]
    assert pts[0]["realized"]["kappa_Ct_id"] == pytest.approx(10, rel=2e-2)
    assert _per(pts[1], "Ct") >= GROWTH_HALF_DECADE * _per(pts[0], "Ct")
    cut = [lower_point("shared-ident", dict(kappa_W=10, kappa_Ct=k, kappa_f=4, eps=1e-6, cut=6), ["Ct"]) for k in (10, 100)]
    assert all(_per(c, "Ct") == 0 for c in cut)


def test_mixed_cited_is_coupled_plus_shared_and_rejects_kappa_C():
    inst = build("mixed", kappa_W=10, kappa_AC=10, kappa_Ct=10, kappa_f=4, eps=1e-6, variant="cited")
    assert inst.problem.C is None and inst.realized["kappa_AC"] == pytest.approx(inst.realized["kappa_A"])
    with pytest.raises(ValueError, match="κ_C"):
        build("mixed", kappa_W=10, kappa_AC=30, kappa_Ct=30, kappa_f=10, kappa_C=10, variant="cited")


def _lower(cid, status, construction="printed", method_class="def:foda", matched=21):
    return {"id": cid, "kind": "lower", "status": status, "detail": "d", "measured": 0.5, "ci": [0.47, 0.53],
            "extra": {"construction": construction, "method_class": method_class, "decades": 3.0,
                      "exact": {"formula": "N(ε) = …", "matched": matched, "points": 21}, "exponent_source": "closed form"}}


def test_certify_names_class_construction_exact_and_every_constructions_verdict():
    cell = get("T1.coupled.grad")
    claims = [_lower("T1.coupled.grad.kappa_f.lower", "pass", "printed", "primal-gradient"),
              _lower("T1.coupled.grad.kappa_f.lower@split-gradient", "pass", "variant:split-gradient")]
    cert = certify_param(claims, cell, "kappa_f")
    # def:foda before primal-gradient, even over a printed construction
    assert cert["construction"] == "variant:split-gradient" and cert["method_class"] == "def:foda"
    assert cert["exact"] == {"formula": "N(ε) = …", "matched": 21, "points": 21, "boundary": []}
    assert {t["construction"]: t["verdict"] for t in cert["constructions"]} == {
        "printed": "certified", "variant:split-gradient": "certified"}
    claims[1]["status"] = "fail"  # the split chain's exact counts broke: only primal-gradient is left
    cert = certify_param(claims, cell, "kappa_f")
    assert cert["construction"] == "printed" and cert["method_class"] == "primal-gradient"


def test_certify_prefers_printed_then_cited_then_variant_and_shows_refuted_constructions():
    cell = get("T1.coupled_local.A")
    claims = [_lower("T1.coupled_local.A.kappa_AC.lower", "finding"),
              _lower("T1.coupled_local.A.kappa_AC.lower@shared-rows-incidence", "pass", "variant:shared-rows-incidence"),
              {"id": "T1.coupled_local.A.kappa_AC.lower.refutation", "kind": "refutation", "status": "finding",
               "detail": "engine bounded, dual-gradient falls", "extra": {"verdict": "refuted", "construction": "printed"}}]
    cert = certify_param(claims, cell, "kappa_AC")
    assert cert["construction"] == "variant:shared-rows-incidence"
    assert {t["construction"]: t["verdict"] for t in cert["constructions"]} == {
        "printed": "refuted", "variant:shared-rows-incidence": "certified"}
    claims[1]["status"] = "finding"  # the negative control: no construction passes
    assert certify_param(claims, cell, "kappa_AC")["certificate"] == "none"
    block = certify(claims, QUICK)
    row = next(r for r in block["statements"] if r["statement"] == "T1.coupled_local.A")
    assert row["kind"] == "none" and block["constructions_refuted"] == ["T1.coupled_local.A.kappa_AC:printed"]


def test_certify_counts_by_class_and_labels_tight_results():
    claims = [_lower("T1.coupled.A.kappa_f.lower", "pass"), _lower("T1.coupled.A.kappa_A.lower", "pass"),
              {"id": "T1.coupled.A.kappa_A.tight", "kind": "tight", "status": "pass",
               "extra": {"tightness": [40.0, 41.0], "tightness_slope": 0.01}}]
    block = certify(claims, QUICK)
    row = next(r for r in block["statements"] if r["statement"] == "T1.coupled.A")
    assert row["certificate"] == "printed" and row["method_class"] == "def:foda"
    assert block["by_class"]["def:foda"] == 1 and block["printed"] == 1
    assert claims[2]["verdict_label"] == "tight" and row["params"]["kappa_A"]["tightness"]["flat"] is True
