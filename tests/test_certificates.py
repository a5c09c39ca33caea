"""Lower-bound certificates (checks/lower/certificates.py), the constructions they rest on and the def:foda class."""

import pytest
from mixbounds.bounds.claims import get
from mixbounds.checks.lower.certificates import certify, certify_param, statements
from mixbounds.checks.lower.slopes import lower_point
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


def _lower(cid, status, pts=None):
    return {"id": cid, "kind": "lower", "status": status, "detail": "d", "points": pts or []}


def test_certify_printed_variant_none_and_labels():
    cell = get("T1.coupled.A")
    pts = [{"target": t, "per_accuracy": 10 * t ** 0.5} for t in (30, 300)]
    up = {"id": "T1.coupled.A.kappa_A.tight", "kind": "tight", "status": "pass",
          "points": [{"target": t, "realized": t, "per_accuracy": 40 * t ** 0.5} for t in (30, 300)]}
    claims = [_lower("T1.coupled.A.kappa_A.lower", "pass", pts), up]
    assert certify_param(claims, cell, "kappa_A")["certificate"] == "printed"
    claims[0]["status"] = "finding"
    claims.append(_lower("T1.coupled.A.kappa_A.lower@shared-rows-incidence", "pass", pts))
    assert certify_param(claims, cell, "kappa_A")["certificate"] == "variant:shared-rows-incidence"
    claims[-1]["status"] = "finding"  # the negative control: the chain cut, no construction passes
    assert certify_param(claims, cell, "kappa_A")["certificate"] == "none"
    block = certify(claims, "quick")
    assert block["none"] >= 1 and up["verdict_label"] == "upper matches, lower not certified"
    claims[0]["status"] = "pass"
    block = certify(claims, "quick")
    assert up["verdict_label"] == "tight" and up["certificate"] == "printed"
    row = next(r for r in block["statements"] if r["statement"] == "T1.coupled.A")
    assert row["params"]["kappa_A"]["tightness"]["flat"] is True
