"""Worst-case constructions: realized κ's, the closed forms their proofs use, and the findings.

Each construction is built as printed; a closed form that does not hold is a
*finding* (reported with both numbers), so these tests pin which ones hold and
which do not.  Small sizes (eps = 1e-5) keep the module fast.
"""

import numpy as np
import pytest
from mixbounds.instances.families import build, families
from mixbounds.instances.reference.kkt import KKT_RTOL, reference_solution
from mixbounds.instances.worst_case import consensus, coupled, coupled_local, shared
from mixbounds.instances.worst_case.common import CHAIN_FACTOR, CHAIN_PAD, chain_length, k_eps

#: realized κ vs target for constructions tuned exactly (κ_W, κ_f, κ_C)
EXACT_RTOL = 1e-8
#: realized κ̂ / κ̃ vs target (finite chain truncation)
TRUNC_RTOL = 1e-3
EPS = 1e-5


def _holds(closed: dict) -> dict:
    return {k: v["holds"] for k, v in closed.items()}


def test_all_families_registered():
    fam = families()
    for name in ("consensus", "coupled", "shared", "coupled-local", "mixed",
                 "coupled-grad", "shared-grad", "coupled-local-grad", "mixed-grad"):
        assert name in fam


def test_chain_rule():
    rho = 0.9
    assert chain_length(rho, 1e-8) == CHAIN_FACTOR * k_eps(rho, 1e-8) + CHAIN_PAD
    assert chain_length(rho, 1e-8, scale=2) == 2 * chain_length(rho, 1e-8)
    assert 0.9 ** (2 * k_eps(rho, 1e-8)) <= 1e-8 < 0.9 ** (2 * (k_eps(rho, 1e-8) - 1))


def test_consensus_closed_forms():
    I = consensus.build(kappa_W=60.0, kappa_f=40.0, eps=EPS)
    assert abs(I.realized["kappa_W"] / 60 - 1) < EXACT_RTOL and abs(I.realized["kappa_f"] / 40 - 1) < EXACT_RTOL
    assert all(_holds(I.closed_forms).values())
    r = reference_solution(I.problem)
    assert r.kkt_residual <= KKT_RTOL
    assert all(_holds(consensus.check_solution(I, r.u)).values())
    assert I.findings == []


def test_coupled_closed_forms():
    I = coupled.build(kappa_W=20.0, kappa_A=50.0, kappa_f=10.0, eps=EPS)
    assert abs(I.realized["kappa_A"] / 50 - 1) < TRUNC_RTOL
    assert all(_holds(I.closed_forms).values())
    r = reference_solution(I.problem)
    assert all(_holds(coupled.check_solution(I, r.u)).values())


def test_shared_as_printed_reports_its_findings():
    I = shared.build(kappa_W=20.0, kappa_Ct=30.0, kappa_f=20.0, eps=EPS)
    h = _holds(I.closed_forms)
    assert h["numerator max λ_max(C̃_iᵀC̃_i) = L_C"] and h["denominator λ_min+(S_C̃ᵀ) = μ_C"]
    assert abs(I.realized["kappa_Ct"] / 30 - 1) < TRUNC_RTOL
    assert abs(I.realized["kappa_f"] / 20 - 1) < EXACT_RTOL  # with L_f = κ_f μ_f / 2
    assert not h["eq:conj_fi (printed)"] and h["eq:conj_fi (corrected: ‖v‖²/(4L_f))"]
    assert not h["local constraints ⇔ C̃x = 0"] and I.closed_forms["local constraints ⇔ C̃x = 0"]["holds_after_p_to_minus_p"]
    labels = {f["label"] for f in I.findings}
    assert {"sec:local_cons_example_funcs", "eq:conj_fi", "sec:local_cons_example_mats"} <= labels
    r = reference_solution(I.problem)
    closed, findings = shared.check_solution(I, r.u)
    h = _holds(closed)
    assert h["ρ + 1/ρ = 2 + μ'μ_f/(2L'L_f) (derived)"] and not h["lem:nesterovs_worst_rho (printed)"]
    assert h["x*(z*): t*_1 (derived)"] and not h["x*(z*): t*_1 (printed)"]
    assert h["x*(z*): p*_k / t*_k"]
    assert {f["label"] for f in findings} == {"lem:nesterovs_worst_rho", "sub:bounding_accuracy"}
    m = next(f for f in findings if f["label"] == "lem:nesterovs_worst_rho")
    assert m["printed"] < m["measured"]  # the printed ρ is smaller than the instance's


def test_coupled_local_printed_has_no_chain():
    """eq:Ai_rear as printed: V1 and V3 write disjoint row blocks, x* has 2 chain components."""
    I = coupled_local.build(kappa_W=10.0, kappa_C=10.0, kappa_AC=20.0, kappa_f=10.0, eps=EPS, variant="printed")
    h = _holds(I.closed_forms)
    assert h["max λ_max(A_iA_iᵀ) = 2L'_A + μ'_A = L_A"] and h["μ̃_AC = μ'_A/9"] and h["kappa_AC (target)"]
    r = reference_solution(I.problem)
    closed, findings = coupled_local.check_solution(I, r.u)
    assert closed["support of x* along the chain"]["support"] == 2
    assert [f["label"] for f in findings] == ["app:mixed_coupled_with_local_lower (eq:Ai_rear)"]


@pytest.mark.parametrize("variant", ["shared-rows", "shared-rows-incidence"])
def test_coupled_local_shared_rows_presolves_to_coupled(variant):
    import scipy.sparse as sp
    from mixbounds.instances import Layout, MixedProblem, QuadraticObjective
    from mixbounds.instances.worst_case.coupled import coupled_blocks

    I = coupled_local.build(kappa_W=10.0, kappa_C=10.0, kappa_AC=20.0, kappa_f=10.0, eps=EPS, variant=variant)
    assert abs(I.realized["kappa_C"] / 10 - 1) < EXACT_RTOL
    assert abs(I.realized["kappa_AC"] / 20 - 1) < TRUNC_RTOL
    r = reference_solution(I.problem)
    pr = I.params
    K, n = pr["chain_length"], pr["n"]
    A1, A2 = coupled_blocks(K, pr["Lp"], pr["mup"])
    V = pr["groups"]
    A = [A1 if i <= V["V1"][1] else A2 if i >= V["V3"][0] else sp.csr_matrix(A1.shape) for i in range(n)]
    Qb = sp.diags(np.concatenate([np.full(K, pr["mu_f"]), np.full(K, pr["L_f"])]))
    qb = np.zeros(2 * K)
    qb[0] = -np.sqrt(pr["Lp"]) / 2
    lay = Layout((2 * K,) * n, 0)
    Pc = MixedProblem(I.problem.W, QuadraticObjective([Qb] * n, [qb] * n, lay), lay, A=A, b=[np.zeros(K)] * n)
    closed, findings = coupled_local.check_solution(I, r.u, reference_solution(Pc).u)
    assert all(_holds(closed).values()), closed
    assert findings == []


def test_mixed_and_sum_trick():
    I = build("mixed-grad", kappa_W=10.0, kappa_C=10.0, kappa_AC=20.0, kappa_Ct=10.0, kappa_f=10.0, eps=EPS,
              variant="shared-rows")
    assert I.problem.problem_class == "mixed"
    assert abs(I.realized["kappa_f"] / 10 - 1) < EXACT_RTOL
    assert I.closed_forms["sum-trick keeps κ_f"]["holds"]
    r = reference_solution(I.problem)
    assert r.kkt_residual <= KKT_RTOL
    # w*_k = ρ^k at every node
    gc = I.params["gradient_chain"]
    lay = I.problem.layout
    x = lay.split(r.u)[0]
    off = gc["offset"][0]
    w = x[off: off + gc["length"]]
    assert w[0] == pytest.approx(gc["scale"] * gc["rho"], rel=1e-8) and w[5] / w[4] == pytest.approx(gc["rho"], rel=1e-8)


def test_bad_targets():
    with pytest.raises(ValueError, match="κ̃_AC > 9"):
        coupled_local.build(kappa_W=10.0, kappa_C=10.0, kappa_AC=5.0, kappa_f=10.0, eps=EPS)
    with pytest.raises(ValueError, match="κ̂_C̃ must exceed 3"):
        shared.build(kappa_W=10.0, kappa_Ct=2.0, kappa_f=10.0, eps=EPS)
    with pytest.raises(ValueError, match="n is fixed by κ_W"):
        build("consensus", kappa_W=10.0, kappa_f=10.0, eps=EPS, n=7)
    with pytest.raises(ValueError, match="do not apply"):
        build("consensus", kappa_W=10.0, kappa_f=10.0, eps=EPS, kappa_C=3.0)
    with pytest.raises(ValueError, match="unknown variant"):
        build("coupled-local", kappa_W=10.0, kappa_C=10.0, kappa_AC=20.0, kappa_f=10.0, variant="nope")


def test_worst_case_round_trip(tmp_path):
    from mixbounds.instances.io import load_instance, save_instance

    I = build("coupled-local", kappa_W=10.0, kappa_C=10.0, kappa_AC=20.0, kappa_f=10.0, eps=EPS, variant="shared-rows")
    I = I.with_reference(reference_solution(I.problem).u)
    save_instance(I, tmp_path / "cl")
    J = load_instance(tmp_path / "cl")
    assert np.array_equal(J.x_star, I.x_star)
    assert (abs(J.problem.W - I.problem.W)).sum() == 0
    for a, b in zip(J.problem.C, I.problem.C):
        assert abs(a - b).sum() == 0
    assert J.realized == pytest.approx(I.realized)
