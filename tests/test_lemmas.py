"""Lemma checks (checks/lemmas/): registry, verdicts, controls, worked examples and property tests.

The property tests draw random cases (sizes, ranks, scales 1e±3, graphs) with hypothesis and assert
each lemma's *checked* form on them: the printed statement where it holds, the corrected one where
the suite reports a finding.
"""

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mixbounds.checks import lemmas as L
from mixbounds.checks.lemmas import declared_results
from mixbounds.checks.lemmas.cases import (
    intersection,
    materialize,
    orth_range,
    subspace_equal,
)
from mixbounds.checks.registry import all_checks
from mixbounds.checks.run.framework import TIERS, run_checks, select
from mixbounds.checks.run.result import CheckResult
from mixbounds.checks.tiers import QUICK, TINY

#: a property holds up to dense-eigenvalue rounding (the module's own tolerance)
RTOL = L.INEQ_RTOL

#: expected verdicts of the non-control results (tiny and quick tiers), as the lemma declarations state them
EXPECTED = {r.id: r.expected_status for _, r in declared_results() if not r.control}


def _check_verdicts(results: list[CheckResult]):
    for r in results:
        assert r.id.startswith("lemma."), r.id
        if r.control:
            assert r.expected == "fail" and r.status == "fail", f"control {r.id} not caught: {r.status} {r.detail}"
        else:
            assert r.status == EXPECTED[r.id], f"{r.id}: {r.status} ({r.detail[:500]})"
            if r.status == "finding":
                assert r.findings, r.id
                for f in r.findings:
                    assert f.label and f.printed is not None and f.measured is not None and f.detail
        # measured is one number, and one of the named readings (results.json schema 2)
        assert r.measured is None or isinstance(r.measured, (int, float)), (r.id, r.measured)
        if r.readings:
            assert r.measured in r.readings.values() or math.isnan(r.measured), (r.id, r.readings)
        back = CheckResult.from_json(r.to_json())
        assert back.id == r.id and back.status == r.status and len(back.findings) == len(r.findings)
        assert back.readings == json.loads(json.dumps(r.to_json()["readings"]))


# ----------------------------------------------------------------------------- registry
def test_registered_with_controls_and_ids():
    checks = L.checks()
    assert {c.id for c in checks} <= {c.id for c in all_checks()}
    for tier in TIERS:
        for c in checks:
            ids = c.result_ids(tier)
            if tier not in c.tiers:
                continue
            assert ids, (c.id, tier)
            assert all(i.startswith("lemma.") for i in ids)
            assert any(i.endswith(".control") for i in ids), f"{c.id} ships no negative control"
        assert select(checks, "lemma.*", tier)


def test_declarations_feed_expected_findings():
    """Every declared finding is an expected one (with its reason); every lemma id is declared once."""
    from mixbounds.checks.expected import expected

    ids = [r.id for _, r in declared_results()]
    assert len(ids) == len(set(ids))
    for lem, r in declared_results():
        e = expected(r.id)
        if r.finding:
            assert e is not None and e.reason == r.finding and e.label == (r.label or lem.label), r.id
        else:
            assert e is None, r.id


def test_finalize_must_return_the_declared_ids():
    """A finalize that drops or renames a declared result is an error of the check, not a silent gap."""
    from mixbounds.checks.lemmas.base import LemmaCheck, Point, Result

    def finalize(tier, pts, ids):
        return [CheckResult(id="lemma.fake.renamed", kind="lemma", status="pass")]

    fake = LemmaCheck(id="lemma.fake", label="x", description="", results=(Result("lemma.fake"),),
                      cases=lambda tier: [Point(L.inv_T, {"K": 1, "kappa": 1.0})], finalize=finalize)
    task = fake.tasks(TINY)[0]
    assert task.name == "mixbounds.checks.lemmas.chebyshev_interval:inv_T"
    with pytest.raises(ValueError, match="declared"):
        fake.run_finalize(TINY, {task.key: {"value": 1.0}})
    # a failed point turns every declared result into an error
    out = fake.run_finalize(TINY, {task.key: {"error": "boom"}})
    assert [(r.id, r.status) for r in out] == [("lemma.fake", "error")]


def test_tolerances_are_named_constants():
    assert 0 < L.INEQ_RTOL <= 1e-6 and 0 < L.EQ_RTOL <= 1e-6 and L.EXACT_RTOL <= 1e-9
    assert L.SALIM_LO == pytest.approx(11 / 15) and L.SALIM_HI == pytest.approx(19 / 15)


def test_tiny_tier_verdicts_and_controls(tmp_path):
    results, stats = run_checks(L.checks(), TINY, jobs=1, cache_dir=tmp_path)
    ids = [r.id for r in results]
    assert len(ids) == len(set(ids))
    expected_ids = [i for c in L.checks() if TINY in c.tiers for i in c.result_ids(TINY)]
    assert sorted(ids) == sorted(expected_ids)
    _check_verdicts(results)
    # a second run is served from the cache and gives the same verdicts
    again, stats2 = run_checks(L.checks(), TINY, jobs=1, cache_dir=tmp_path)
    assert stats2["computed"] == 0
    assert [r.status for r in again] == [r.status for r in results]


@pytest.mark.slow
def test_quick_tier_verdicts():
    results, stats = run_checks(L.checks(), QUICK, jobs=2)
    assert {r.id for r in results} == set(EXPECTED) | {r.id for r in results if r.control}
    _check_verdicts(results)
    by = {r.id: r for r in results}
    # the order finding: κ_B grows like κ_W², not κ_W
    assert by["lemma.mixed_coupled_with_local_spectrum.order"].measured > 1.8


# ----------------------------------------------------------------------------- worked examples
@pytest.mark.parametrize("t", [0.5, 2.0, 10.0])
def test_remark_counterexample(t):
    p = L.point_projected_remark({"example_t": t})
    assert p["kappa_tilde"] == pytest.approx(1 + t * t, rel=1e-12)
    assert p["kappa_hat"] == pytest.approx(1.0, rel=1e-12)
    assert p["dim_row_MP"] == 1 and p["dim_printed"] == 0  # left span(e1), right {0}
    assert not p["identity_printed"] and p["identity_corrected"]


def test_remark_rank_drop_reverses_order():
    p = L.point_projected_remark({"example_drop": 0.1})
    assert p["kappa_tilde"] == pytest.approx(1.0) and p["kappa_hat"] == pytest.approx(100.0)
    assert p["rank_MP"] < p["rank_M"]


def test_remark_transpose_example():
    p = L.point_projected_remark({"unit_columns": 5})
    assert p["kappa_hat_suite"] == pytest.approx(5.0) and p["kappa_hat_T_suite"] == pytest.approx(1.0)


def test_local_spectrum_full_column_rank_gap():
    # ker C = 0, γ² = 0.1·σ_min+²(C)/σ_min+²(W): printed min is 0.1·σ_min+²(C), the truth σ_min+²(C)
    case = {"source": "raw", "seed": 3, "n": 4, "graph": "ring", "m": 0, "d": 0, "dt": 3, "pt": 4, "ident_Ct": True,
            "gamma_factor": 0.1, "objective": False}
    p = L.point_local_spectrum(case)
    assert p["dim_ker_C"] == 0
    assert p["smin2_B"] == pytest.approx(p["smin2_C"], rel=1e-9)
    assert p["printed_min"] == pytest.approx(0.1 * p["smin2_C"], rel=1e-9)
    assert p["smax2_B"] == pytest.approx(p["printed_max"], rel=1e-9)


def test_chebyshev_closed_values():
    # κ = 4, K = 2: θ = 5/3, T_2(θ) = 2θ² − 1 = 41/9
    assert L.inv_T(2, 4.0) == pytest.approx(9 / 41, rel=1e-14)
    assert L.inv_T(1, 1.0) == 0.0
    # K = √κ: 1/T_K increases to its supremum 1/cosh 2 < 4/15 (T_√κ(θ) = cosh(2√κ artanh(1/√κ)) ↓ cosh 2)
    vals = [L.inv_T(j, float(j * j)) for j in (2, 10, 100, 1000)]
    assert all(a < b for a, b in zip(vals, vals[1:]))
    assert vals[-1] == pytest.approx(1 / math.cosh(2), rel=1e-5) and vals[-1] < 1 / math.cosh(2) < 4 / 15


def test_trust_region_max_matches_brute_force():
    rng = np.random.default_rng(0)
    for _ in range(5):
        G = rng.standard_normal((6, 3))
        Q = G @ G.T
        g = rng.standard_normal(6)
        lam, V = np.linalg.eigh(Q)
        val, h = L.trust_region_max(np.clip(lam, 0, None), V, g, 0.7)
        assert np.linalg.norm(h) == pytest.approx(0.7)
        dirs = rng.standard_normal((20000, 6))
        dirs = 0.7 * dirs / np.linalg.norm(dirs, axis=1, keepdims=True)
        brute = np.max(dirs @ g + 0.5 * np.einsum("ij,jk,ik->i", dirs, Q, dirs))
        assert brute <= val + 1e-12 and val - brute < 5e-2 * abs(val)  # sampling in 6-D gets within a few %
        # global optimality (trust-region KKT): g + Qh = λh with λ >= λ_max(Q)
        r = g + Q @ h
        lam_h = float(r @ h) / 0.49
        assert np.linalg.norm(r - lam_h * h) <= 1e-8 * np.linalg.norm(r) and lam_h >= lam[-1] - 1e-10
    # hard case: g orthogonal to the top eigenvector
    Q = np.diag([3.0, 1.0, 0.0])
    val, h = L.trust_region_max(np.array([0.0, 1.0, 3.0]), np.eye(3)[:, ::-1], np.array([0.0, 0.1, 0.0]), 1.0)
    assert val >= 1.5 - 1e-12


def test_subspace_helpers():
    U = orth_range(np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]))
    V = orth_range(np.array([[1.0], [1.0], [1.0]]))
    assert intersection(U, V).shape[1] == 0
    W_ = orth_range(np.array([[1.0, 1.0], [0.0, 1.0], [0.0, 0.0]]))
    assert subspace_equal(U, W_)[0]
    X = intersection(U, orth_range(np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 1.0]])))
    assert X.shape[1] == 1 and abs(abs(X[0, 0]) - 1) < 1e-12


# ----------------------------------------------------------------------------- properties
_graphs = st.sampled_from(["ring", "path", "star", "complete", "er"])
_scale = st.sampled_from([1e-3, 1.0, 1e3])


@settings(max_examples=25)
@given(seed=st.integers(0, 10_000), n=st.integers(3, 7), m=st.integers(1, 4), graph=_graphs, sa=_scale, sw=_scale,
       rank1=st.booleans(), zero=st.integers(0, 1))
def test_property_coupled_spectrum(seed, n, m, graph, sa, sw, rank1, zero):
    case = {"source": "raw", "seed": seed, "n": n, "graph": graph, "m": m, "d": 3, "scale_A": sa, "scale_W": sw,
            "objective": False, "zero_A": zero, **({"rank_A": 1} if rank1 else {})}
    p = L.point_coupled_spectrum(case)
    assert p["smin2_B"] >= p["bound_min"] * (1 - RTOL)
    assert p["smax2_B"] <= p["bound_max"] * (1 + RTOL)
    assert p["smin2_B"] <= p["lambda_min_pos_S_A"] * (1 + RTOL)  # the bound is within a factor 2 of tight


@settings(max_examples=25)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 6), dt=st.integers(1, 4), extra=st.integers(-3, 2), graph=_graphs,
       f=st.sampled_from([0.01, 0.3, 1.0, 5.0]), sc=_scale)
def test_property_local_spectrum_corrected(seed, n, dt, extra, graph, f, sc):
    pt = max(1, dt + extra)
    case = {"source": "raw", "seed": seed, "n": max(n, 3) if graph in ("ring", "er") else n, "graph": graph, "m": 0, "d": 0,
            "dt": dt, "pt": pt, "ident_Ct": True, "gamma_factor": f, "scale_Ct": sc, "objective": False}
    p = L.point_local_spectrum(case)
    assert p["smax2_B"] == pytest.approx(p["printed_max"], rel=1e-8)
    assert p["smin2_B"] == pytest.approx(p["corrected_min"], rel=1e-8)
    assert p["smin2_B"] >= p["printed_min"] * (1 - RTOL)
    if p["dim_ker_C"] > 0:
        assert p["smin2_B"] == pytest.approx(p["printed_min"], rel=1e-8)


@settings(max_examples=20)
@given(seed=st.integers(0, 10_000), n=st.integers(3, 6), m=st.integers(1, 3), p=st.integers(1, 2), mu0=st.booleans(),
       graph=_graphs, sa=_scale, sc=_scale)
def test_property_mixed_coupled_with_local(seed, n, m, p, mu0, graph, sa, sc):
    case = {"source": "raw", "seed": seed, "n": n, "graph": graph, "m": m, "d": 4, "p": p, "mu0": mu0,
            "scale_A": sa, "scale_C": sc, "objective": False}
    q = L.point_mixed_cl_spectrum(case)
    assert (q["mu_tilde"] == 0) == mu0
    assert q["smin2_B"] >= q["lower_bound"] * (1 - RTOL)
    assert q["smax2_B"] <= q["L_B_bound"] * (1 + RTOL)
    assert q["kappa_B"] <= q["kappa_B_bound"] * (1 + RTOL)


@settings(max_examples=20)
@given(seed=st.integers(0, 10_000), n=st.integers(3, 6), m=st.integers(1, 3), dt=st.integers(2, 4), graph=_graphs,
       sa=_scale, sc=_scale)
def test_property_identical_mixed_tight_lower_bound(seed, n, m, dt, graph, sa, sc):
    case = {"source": "raw", "seed": seed, "n": n, "graph": graph, "m": m, "d": 3, "dt": dt, "pt": dt - 1, "ident_Ct": True,
            "scale_A": sa, "scale_Ct": sc, "objective": False}
    q = L.point_identical_mixed(case)
    assert q["smin2_B"] == pytest.approx(q["smin2_Ct"], rel=1e-8)  # σ_min+²(B) = σ_min+²(C̃): the bound is attained
    assert q["smax2_B"] <= q["max_expr"] * (1 + RTOL)


@settings(max_examples=20)
@given(seed=st.integers(0, 10_000), n=st.integers(3, 6), m=st.integers(1, 3), local=st.booleans(), graph=_graphs,
       kf=st.sampled_from([1.5, 10.0, 100.0]), sf=_scale)
def test_property_conv_smooth(seed, n, m, local, graph, kf, sf):
    case = {"source": "raw", "seed": seed, "n": n, "graph": graph, "m": m, "d": 3, "kappa_f": kf, "scale_f": sf,
            **({"p": 1} if local else {})}
    q = L.point_conv_smooth(case)
    assert q["mu_G_true"] >= q["mu_f"] / 4 * (1 - RTOL)
    assert q["L_G_true"] <= q["L_G_claim"] * (1 + RTOL)
    if m >= 2:
        assert q["mu_G_printed_space"] <= 1e-8 * q["mu_f"]  # the printed 𝒴 contains ker(W ⊗ I_m) directions
    else:
        assert q["mu_G_printed_space"] == pytest.approx(q["mu_G_true"], rel=1e-8)


@settings(max_examples=15)
@given(seed=st.integers(0, 10_000), n=st.integers(3, 5), m=st.integers(1, 3), dt=st.integers(0, 2), local=st.booleans(),
       ef=st.sampled_from([1.0, 0.1]), sa=_scale)
def test_property_strong_conv_penal(seed, n, m, dt, local, ef, sa):
    case = {"source": "raw", "seed": seed, "n": n, "graph": "ring", "m": m, "d": 3, "dt": dt, "eps_factor": ef, "scale_A": sa,
            **({"p": 1} if local else {}), **({"pt": 1} if dt else {})}
    q = L.point_strong_conv_penal(case)
    assert q["modulus"] >= q["mu_f"] / 2 * (1 - RTOL)
    assert q["control_modulus"] < q["mu_f"] / 2


@settings(max_examples=25)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 5), m=st.integers(1, 5), p=st.integers(1, 3), sa=_scale)
def test_property_remark_corrected(seed, n, m, p, sa):
    case = {"source": "raw", "seed": seed, "n": max(n, 2), "graph": "path", "m": m, "d": 4, "p": p, "scale_A": sa,
            "objective": False}
    q = L.point_projected_remark(case)
    assert q["identity_corrected"]
    assert q["printed_subset_sin"] <= 1e-8
    if q["mu_tilde"] > 0 and q["rank_MP"] == q["rank_M"]:
        assert q["kappa_tilde"] >= q["kappa_hat"] * (1 - RTOL)
    assert q["kappa_tilde_D0_suite"] == pytest.approx(q["kappa_hat_suite"], rel=1e-9)


@settings(max_examples=20)
@given(seed=st.integers(0, 10_000), N=st.integers(8, 16), rq=st.integers(1, 7), rb=st.integers(1, 7),
       eps_rel=st.sampled_from([1e-1, 1e-3, 1e-5]), R_factor=st.sampled_from([1.0, 3.0]))
def test_property_regularized_convergence(seed, N, rq, rb, eps_rel, R_factor):
    case = {"seed": seed, "N": N, "rank_Q": rq, "p": rb + 1, "rank_B": rb, "eps_rel": eps_rel, "R_factor": R_factor,
            "samples": 100}
    q = L.point_regularized(case)
    assert q["exact_ge_sampled"]
    assert q["gap_max"] <= q["eps"] * (1 + RTOL)
    assert q["feas_max"] <= q["feas_bound"] * (1 + RTOL)
    assert q["T1_over_eps"] == pytest.approx(0.25, rel=1e-9)
    assert q["T2_over_eps"] <= 1 / 32 * (1 + RTOL)
    assert q["control_gap_over_eps"] > 1.0


@settings(max_examples=40)
@given(logk=st.floats(0.0, 6.0))
def test_property_chebyshev_interval(logk):
    kappa = 10.0 ** logk
    K = max(1, math.ceil(math.sqrt(kappa) * (1 - 1e-12)))
    e = L.inv_T(K, kappa)
    assert 1 - e >= L.SALIM_LO and 1 + e <= L.SALIM_HI
    assert e <= 1 / math.cosh(2) + 1e-12


def test_materialize_is_deterministic():
    case = {"source": "raw", "seed": 7, "n": 5, "graph": "er", "m": 2, "d": [3, 4, 3, 4, 3], "p": 1, "dt": 2, "pt": 1}
    a, b = materialize(case), materialize(case)
    assert all(np.array_equal(x, y) for x, y in zip(a.A, b.A))
    assert (abs(a.W - b.W)).sum() == 0
