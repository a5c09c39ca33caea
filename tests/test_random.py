"""Random instance families (instances/random/): targets met, validation, reference solutions, errors."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from mixbounds.bounds import mixed_kappa, projected_kappa
from mixbounds.instances.families import build, families
from mixbounds.instances.random import (
    GRAPHS,
    KAPPA_MAX,
    TARGET_RTOL,
    frame_base,
    group_ratio,
    make_gossip,
    tune_group,
)
from mixbounds.instances.realized import realized_kappas
from mixbounds.instances.reference.kkt import KKT_RTOL, reference_solution

pytestmark = pytest.mark.numerics

#: the random families: those of families() whose builder lives in instances/random/ (discovered there)
FAMILIES = {k: v for k, v in families().items() if v.__module__.startswith("mixbounds.instances.random.")}

#: the largest tolerance any family may state for realized vs target
STATED_RTOL_MAX = 1e-6
#: feasibility of x* relative to the right-hand sides
FEAS_RTOL = 1e-9
#: agreement of the local-global reformulation with the printed problem
EQUIV_RTOL = 1e-8

#: (family, parameters): every family with every target it supports, on several graphs
CASES = [
    ("random-consensus", dict(kappa_f=30.0, kappa_W=50.0)),
    ("random-consensus", dict(kappa_f=1.0, graph="complete", n=6)),
    ("random-consensus", dict(kappa_f=20.0, objective="logistic", kappa_W=40.0, graph="ring", gossip="metropolis")),
    ("random-coupled", dict(kappa_f=10.0, kappa_AC=200.0, graph="er", seed=3)),
    ("random-coupled", dict(kappa_f=5.0, kappa_A=2.5, graph="star", kappa_W=30.0)),
    ("random-coupled", dict(kappa_AC=1.0, n=6)),
    ("random-shared", dict(kappa_Ct=50.0, kappa_W=20.0, graph="ring")),
    ("random-shared", dict(kappa_Ct=12.0, graph="grid", n=9, seed=1)),
    ("random-shared-ident", dict(kappa_Ct=40.0, kappa_f=100.0)),
    ("random-coupled-local", dict(kappa_C=20.0, kappa_AC=3.0, graph="grid", n=9)),
    ("random-coupled-local", dict(kappa_C=1.0, kappa_AC=5000.0, kappa_W=12.0)),
    ("random-mixed", dict(kappa_C=20.0, kappa_AC=1000.0, kappa_Ct=9.0, kappa_W=40.0, graph="star", gossip="metropolis")),
    ("random-mixed", dict(kappa_AC=30.0, kappa_Ct=25.0, objective="logistic", n=5)),
    ("random-mixed-ident", dict(kappa_C=5.0, kappa_AC=2.0, kappa_Ct=9.0, graph="er", seed=7)),
    ("logistic-consensus", dict(kappa_f=100.0, kappa_W=12.0)),
    ("vertical-fl", dict(kappa_f=50.0, kappa_W=25.0, graph="ring")),
    ("vertical-fl", dict(kappa_f=20.0, variant="logistic", n=4)),
    ("vertical-fl", dict(kappa_f=8.0, out_dim=2, samples=3, features=2, n=5)),
    ("local-global", dict(kappa_f=100.0, kappa_W=30.0, graph="ring")),
    ("local-global", dict(kappa_f=1e3, n=5, d=3, lam=1.0)),
]


def _feasibility(P, ref):
    lay = P.layout
    if P.A is not None:
        s = sum(P.A[i] @ ref.x[lay.x_offsets[i]:lay.x_offsets[i + 1]] - P.b[i] for i in range(P.n))
        assert np.linalg.norm(s) <= FEAS_RTOL * (1 + np.linalg.norm(np.sum(P.b, axis=0)) + sum(abs(Ai).sum() for Ai in P.A))
    if P.C is not None:
        for i in range(P.n):
            xi = ref.x[lay.x_offsets[i]:lay.x_offsets[i + 1]]
            assert np.linalg.norm(P.C[i] @ xi - P.c[i]) <= FEAS_RTOL * (1 + np.linalg.norm(P.c[i]))
    if P.Ct is not None:
        for Ci, ci in zip(P.Ct, P.ct):
            assert np.linalg.norm(Ci @ ref.xt - ci) <= FEAS_RTOL * (1 + np.linalg.norm(ci))


@pytest.mark.parametrize("family,params", CASES, ids=[f"{f}-{i}" for i, (f, _) in enumerate(CASES)])
def test_family_meets_targets_and_solves(family, params):
    inst = build(family, **params)
    P = inst.problem
    assert inst.family == family
    # every target is realized within the family's stated tolerance, and that tolerance is stated
    assert inst.targets, "a family always tunes something"
    for k, t in inst.targets.items():
        tol = inst.params["tolerance"][k]
        assert 0 < tol <= STATED_RTOL_MAX
        assert abs(inst.realized[k] / t - 1) <= tol, (k, inst.realized[k], t)
    # realized comes from the matrices
    again = realized_kappas(P)
    for k, v in inst.realized.items():
        assert again[k] == pytest.approx(v, rel=1e-12, abs=1e-300)
    # requested parameters are the targets
    for k in ("kappa_f", "kappa_W", "kappa_C"):
        if k in params:
            assert inst.targets[k] == params[k]
    ref = reference_solution(P)
    assert ref.kkt_residual <= KKT_RTOL
    _feasibility(P, ref)


def test_every_registered_random_family_is_covered():
    assert set(FAMILIES) == {f for f, _ in CASES}
    assert {"random-consensus", "random-coupled", "random-shared", "random-shared-ident", "random-coupled-local",
            "random-mixed", "random-mixed-ident", "logistic-consensus", "vertical-fl", "local-global"} <= set(FAMILIES)


def test_problem_classes_and_structure():
    cls = {f: build(f).problem.problem_class for f in FAMILIES}
    assert cls["random-consensus"] == cls["logistic-consensus"] == "consensus"
    assert cls["random-coupled"] == "coupled"
    assert cls["random-shared"] == cls["random-shared-ident"] == "shared"
    assert cls["random-coupled-local"] == "coupled_local"
    assert cls["random-mixed"] == cls["random-mixed-ident"] == cls["vertical-fl"] == cls["local-global"] == "mixed"
    assert build("random-shared-ident").problem.identical_shared
    assert build("random-mixed-ident").problem.identical_shared
    assert not build("random-shared").problem.identical_shared
    # the objective type
    assert build("logistic-consensus").problem.objective.describe()["type"] == "logistic"
    assert build("random-mixed", objective="logistic").problem.objective.describe()["type"] == "logistic"


def test_seeded_and_deterministic():
    a = build("random-mixed", seed=5, kappa_AC=50.0, kappa_Ct=10.0, kappa_C=4.0, graph="er")
    b = build("random-mixed", seed=5, kappa_AC=50.0, kappa_Ct=10.0, kappa_C=4.0, graph="er")
    c = build("random-mixed", seed=6, kappa_AC=50.0, kappa_Ct=10.0, kappa_C=4.0, graph="er")
    for g in ("A", "C", "Ct"):
        assert all(abs(x - y).max() == 0 for x, y in zip(getattr(a.problem, g), getattr(b.problem, g)))
        assert any(abs(x - y).max() > 0 for x, y in zip(getattr(a.problem, g), getattr(c.problem, g)))
    assert abs(a.problem.W - b.problem.W).max() == 0
    assert a.realized == b.realized
    # changing one target does not redraw the other components
    d = build("random-mixed", seed=5, kappa_AC=50.0, kappa_Ct=10.0, kappa_C=4.0, graph="er", kappa_f=99.0)
    assert all(abs(x - y).max() == 0 for x, y in zip(a.problem.Ct, d.problem.Ct))


@pytest.mark.parametrize("graph", GRAPHS)
@pytest.mark.parametrize("gossip", ["laplacian", "metropolis"])
def test_gossip_tuning_on_every_graph(graph, gossip):
    n = 9
    base = make_gossip(graph, None if graph == "path" else n, default_n=n, gossip=gossip, seed=2)
    k0 = realized_kappas_W(base.W)
    target = 3.0 * k0
    g = make_gossip(graph, None if (graph == "path" and gossip == "laplacian") else n, default_n=n,
                    kappa_W=target, gossip=gossip, seed=2)
    assert realized_kappas_W(g.W) == pytest.approx(target, rel=TARGET_RTOL)
    # the sparsity pattern is the graph's (Assumption ass:W item 2)
    off = sp.csr_matrix(g.W - sp.diags(g.W.diagonal()))
    off.eliminate_zeros()
    assert (off.astype(bool) != sp.csr_matrix(g.adjacency, dtype=bool)).nnz == 0
    if not (graph == "path" and gossip == "laplacian") and k0 > 1 + 1e-6:
        # weakening edges only increases κ_W: below the unweighted graph's value is impossible
        with pytest.raises(ValueError, match="below"):
            make_gossip(graph, n, default_n=n, kappa_W=1.0 + 0.5 * (k0 - 1), gossip=gossip, seed=2)


def realized_kappas_W(W):
    from mixbounds.bounds import kappa_W

    return kappa_W(W)


def test_tuned_path_forces_n():
    inst = build("random-consensus", kappa_W=100.0)
    assert inst.problem.n % 3 == 0 and inst.params["graph"]["tuning"].startswith("tuned_path")
    with pytest.raises(ValueError, match="needs n = 15"):
        build("random-consensus", kappa_W=100.0, n=7)
    # any n on another graph
    assert build("random-consensus", kappa_W=100.0, n=7, graph="ring").problem.n == 7


def test_tune_group_both_stages_and_floor():
    rng = np.random.default_rng(0)
    n, m, d = 6, 3, 5
    X0 = frame_base(m, [d] * n, rng)
    XG = [rng.standard_normal((m, d)) for _ in range(n)]
    assert group_ratio(X0) == pytest.approx(1.0, rel=1e-12)
    t1 = tune_group(X0, XG, None, 1.7, rng, label="k")
    t2 = tune_group(X0, XG, None, 1e4, rng, label="k")
    assert t1.info["tuning"].startswith("stage 1") and t2.info["tuning"].startswith("stage 2")
    for t, target in ((t1, 1.7), (t2, 1e4)):
        assert group_ratio(t.blocks) == pytest.approx(target, rel=1e-10)
        assert mixed_kappa(t.blocks) == pytest.approx(target, rel=1e-10)  # the paper's κ̂ (mixbounds.bounds.condition)
    # rank-deficient frame: r_i < m has a floor n/⌊n r/m⌋ > 1
    Xs = frame_base(5, [2] * n, rng)
    assert group_ratio(Xs) == pytest.approx(n / ((n * 2) // 5), rel=1e-12)
    with pytest.raises(ValueError, match="below"):
        tune_group(Xs, [rng.standard_normal((5, 2)) for _ in range(n)], None, 1.5, rng, label="kappa_Ct")


@pytest.mark.parametrize("family,params,match", [
    ("random-coupled", dict(kappa_AC=0.5), "impossible"),
    ("random-coupled", dict(kappa_f=float("inf")), "finite"),
    ("random-coupled", dict(kappa_AC=10 * KAPPA_MAX), "KAPPA_MAX"),
    ("random-coupled", dict(kappa_A=3.0, kappa_AC=4.0), "disagree"),
    ("random-consensus", dict(kappa_AC=3.0), "no coupled constraint"),
    ("random-coupled", dict(kappa_C=3.0), "no local constraints"),
    ("random-coupled", dict(kappa_Ct=3.0), "no shared-variable constraints"),
    ("random-coupled-local", dict(kappa_A=3.0), "unknown parameter"),
    ("random-mixed", dict(bogus=1), "unknown parameter"),
    ("random-mixed", dict(variant="printed"), "unknown variant"),
    ("random-mixed", dict(graph="hypercube"), "unknown graph"),
    ("random-mixed", dict(gossip="uniform"), "unknown gossip"),
    ("random-mixed", dict(objective="hinge"), "unknown objective"),
    ("random-mixed", dict(m=1), "m must be"),
    ("random-mixed", dict(p=6), "p must be"),
    ("random-shared", dict(pt=12), "pt must be"),
    ("random-shared", dict(kappa_Ct=2.0), "below"),
    ("random-shared-ident", dict(kappa_Ct=3.0, pt=1), "pt >= 2"),
    ("random-consensus", dict(n=1), "n must be"),
    ("random-consensus", dict(seed=-1), "seed"),
    ("random-consensus", dict(graph="grid", n=7), "grid"),
    ("random-consensus", dict(graph="ring", kappa_W=1.5), "below"),
    ("random-consensus", dict(kappa_W=2.0), "β_3"),
    ("logistic-consensus", dict(kappa_f=1.0), "> 1"),
    ("logistic-consensus", dict(objective="quadratic"), "unknown parameter"),
    ("vertical-fl", dict(kappa_AC=5.0), "fixed by the features"),
    ("vertical-fl", dict(variant="logistic", out_dim=2), "out_dim = 1"),
    ("local-global", dict(kappa_f=5.0), "below"),
    ("local-global", dict(d=1), "d must be"),
    ("local-global", dict(kappa_Ct=4.0), "no shared-variable"),
])
def test_impossible_parameters_raise(family, params, match):
    with pytest.raises(ValueError, match=match):
        build(family, **params)


def test_unknown_family():
    with pytest.raises(ValueError, match="unknown instance family"):
        build("random-nothing")


def test_local_global_is_the_printed_problem():
    inst = build("local-global", kappa_f=200.0, n=6, d=3)
    cf = inst.closed_forms["printed problem ≡ reformulation (x*, z*)"]
    assert cf["holds"] and cf["computed"] <= EQUIV_RTOL
    kA = inst.closed_forms["kappa_A = (1 + n^2)/(n + 1)"]
    assert kA["holds"] and inst.realized["kappa_A"] == pytest.approx(37 / 7, rel=1e-10)
    assert [f["label"] for f in inst.findings] == ["app:problem_formulations"]
    # the printed constraint: A_0 = [I, −nI], A_i = I, b = 0
    P = inst.problem
    assert np.array_equal(P.A[0].toarray(), np.hstack([np.eye(3), -6 * np.eye(3)]))
    assert all(np.array_equal(P.A[i].toarray(), np.eye(3)) for i in range(1, 6))


@pytest.mark.parametrize("variant", ["default", "logistic"])
def test_vertical_fl_constraint_is_sum_FX_equals_Z(variant):
    n, s, f = 4, 3, 2
    inst = build("vertical-fl", n=n, samples=s, features=f, variant=variant, kappa_f=30.0)
    P = inst.problem
    ref = reference_solution(P)
    lay = P.layout
    X = [ref.x[lay.x_offsets[i]:lay.x_offsets[i] + f] for i in range(n)]
    Z = [ref.x[lay.x_offsets[i] + f:lay.x_offsets[i + 1]] for i in range(n)]
    # F_i is the first block of A_i; Σ_i F_{i,j} X_i = Z_j for every sample block j
    F = [P.A[i].toarray()[:, :f] for i in range(n)]
    agg = sum(F[i] @ X[i] for i in range(n))
    assert np.allclose(agg, np.concatenate(Z), atol=1e-10 * (1 + np.abs(agg).max()))


def test_projected_remark_counterexample_is_a_finding():
    """Remark rem:projected_condition_number claims κ̃_BD <= κ̂_B; B = (1 1), D = (0 1) violates it."""
    B = [np.array([[1.0, 1.0]])] * 2
    D = [np.array([[0.0, 1.0]])] * 2
    assert mixed_kappa(B) == pytest.approx(1.0) and projected_kappa(B, D).kappa == pytest.approx(2.0)
    inst = build("random-mixed", kappa_AC=1000.0, kappa_C=20.0)
    assert inst.realized["kappa_AC"] > inst.realized["kappa_A"]
    assert "rem:projected_condition_number" in [f["label"] for f in inst.findings]


@settings(max_examples=12)
@given(family=st.sampled_from(["random-coupled", "random-shared", "random-coupled-local", "random-mixed", "random-mixed-ident"]),
       seed=st.integers(0, 10_000), n=st.integers(3, 12), log_kappa=st.floats(0.0, 4.0))
def test_property_random_families_hit_any_reachable_target(family, seed, n, log_kappa):
    key = "kappa_Ct" if family == "random-shared" else "kappa_AC"
    target = 10.0 ** log_kappa
    params = {key: target}
    if family == "random-shared":
        params.update(dt=4, pt=2)  # frame floor n/⌊2n/4⌋ = 2 (n even) or n/⌊n/2⌋ ≤ 3
        floor = n / ((2 * n) // 4)
        if target < floor:
            with pytest.raises(ValueError, match="below"):
                build(family, seed=seed, n=n, **params)
            return
    inst = build(family, seed=seed, n=n, **params)
    assert abs(inst.realized[key] / target - 1) <= inst.params["tolerance"][key]
    assert reference_solution(inst.problem).kkt_residual <= KKT_RTOL
