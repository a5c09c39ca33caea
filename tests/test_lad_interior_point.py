"""mixbounds.instances.reference.lad_interior_point: the sparse IPM against the dense reference path of mixbounds.instances.nonsmooth on
small instances of the 7 nonsmooth families (both variants), its Newton system, non-convergence as an error,
the Schur-complement path of kkt_solver (forced) and the switch in reference_nonsmooth."""

import numpy as np
import pytest
import scipy.sparse as sp
from mixbounds.instances import nonsmooth as ns
from mixbounds.instances.families import build
from mixbounds.instances.objectives import block_diag_u
from mixbounds.instances.reference import block_elimination as elim
from mixbounds.instances.reference import deflated_kkt, saddle_point
from mixbounds.instances.reference import kkt as reference
from mixbounds.instances.reference import lad_interior_point as lad
from mixbounds.instances.reference.kkt import constraint_system, copy_map

#: optimal values F* of the two paths (HiGHS / the dense QP IPM at 1e-11 vs the sparse IPM at 1e-10)
F_RTOL = 1e-8
#: solutions u* (LAD optima of these continuous random data are unique; measured ≤ 2e-8 for μ_f = 0)
U_RTOL = 1e-6
#: the reduced Newton solve against a dense solve of the full (unreduced) Newton system
NEWTON_RTOL = 1e-8

#: small sizes (a few hundred u-variables), every structure's size rules respected
SIZES = {"consensus": dict(n=12, dt=8), "coupled": dict(n=10, d=6, m=3), "shared": dict(n=6, dt=20, pt=2),
         "shared-ident": dict(n=8, dt=8, pt=3), "coupled-local": dict(n=10, d=6, m=3, p=2),
         "mixed": dict(n=8, d=5, dt=12, m=3, p=2, pt=1), "mixed-ident": dict(n=8, d=5, dt=6, m=3, p=2, pt=2)}


def _data(inst):
    P = inst.problem
    obj = P.objective
    return P, obj.features, obj.targets, obj.mu


def _agree(F, u_dense, u_sparse, mu):
    """Same optimum: F* to F_RTOL; for μ_f = 0 the points to U_RTOL.  For μ_f > 0 an interior point stopped at a
    duality gap δ is only accurate to √(2δ/μ) in u (the sparse one at its default LAD_TOL: 2.3e-6 relative on
    nonsmooth-coupled-local seed 1), so there the distance is checked against what strong convexity allows: with F* >= F_lo = min(F_d, F_s) − LAD_TOL·(1 + |F_s|)
    (the sparse method's duality gap), ‖u − u*‖ <= √(2(F(u) − F_lo)/μ) for both points."""
    Fd, Fs = F(u_dense), F(u_sparse)
    assert abs(Fs - Fd) <= F_RTOL * abs(Fd), (Fd, Fs)
    dist = np.linalg.norm(u_dense - u_sparse)
    scale = np.linalg.norm(u_dense)
    if mu == 0:
        assert dist <= U_RTOL * scale, dist / scale
    else:
        lo = min(Fd, Fs) - lad.LAD_TOL * (1 + abs(Fs))
        bound = np.sqrt(2 * (Fd - lo) / mu) + np.sqrt(2 * (Fs - lo) / mu)
        assert dist <= bound, (dist / scale, bound / scale)


@pytest.mark.parametrize("structure", list(ns.STRUCTURES))
@pytest.mark.parametrize("variant", ["default", "strongly-convex"])
@pytest.mark.parametrize("seed", [0, 1])
def test_sparse_ipm_matches_dense_path(structure, variant, seed):
    inst = build(f"nonsmooth-{structure}", variant=variant, seed=seed, **SIZES[structure])
    assert "sparse" not in inst.params["reference"]["method"]  # small: the dense path built it
    P, feats, ys, mu = _data(inst)
    out = lad.lad_interior_point(P, feats, ys, mu)
    info = out["info"]
    assert info["method"] == lad.METHOD and info["iterations"] < lad.LAD_MAX_ITER
    for k in ("primal_residual_data", "primal_residual_constraints", "dual_residual", "duality_gap",
              "complementarity"):
        assert info[k] <= lad.LAD_TOL, k
    G, h = constraint_system(P)
    assert np.linalg.norm(G @ out["v"] - h) <= 1e-9 * (1 + np.linalg.norm(h))
    assert np.allclose(copy_map(P) @ out["v"], out["u"])
    _agree(P.objective.value, inst.x_star, out["u"], mu)


#: tolerance of both interior points in the tight comparison of strongly convex optima
TIGHT_TOL = 1e-13


@pytest.mark.parametrize("structure", list(ns.STRUCTURES))
@pytest.mark.parametrize("seed", [0, 1])
def test_strongly_convex_optima_agree_at_tight_tolerance(structure, seed):
    """μ_f > 0: with both interior points run to 1e-13 (dense qp_interior_point on the lifted problem, the sparse
    one) the unique optimum agrees to U_RTOL (measured <= 4.4e-7, nonsmooth-coupled-local seed 1)."""
    inst = build(f"nonsmooth-{structure}", variant="strongly-convex", seed=seed, **SIZES[structure])
    P, feats, ys, mu = _data(inst)
    H, c, A, b, nonneg, E, nv = ns._lifted(P, (feats, ys, P.layout), mu)
    dense = ns.qp_interior_point(H, c, A, b, nonneg, tol=TIGHT_TOL)
    assert dense["converged"]
    u_dense = E @ dense["x"][:nv]
    u_sparse = lad.lad_interior_point(P, feats, ys, mu, tol=TIGHT_TOL)["u"]
    assert np.linalg.norm(u_sparse - u_dense) <= U_RTOL * np.linalg.norm(u_dense)


@pytest.mark.parametrize("structure", list(ns.STRUCTURES))
def test_family_strongly_convex_reference_is_accurate(structure):
    """The family's dense reference (run to mixbounds.instances.nonsmooth.QP_TOL) is the optimum to U_RTOL, against the sparse
    interior point at TIGHT_TOL.  At the solver's default 1e-11 the quick tier's nonsmooth-coupled reference was 6.9e-6
    off (F 2.6e-11 above the optimum), and this test fails on the mixed structure."""
    inst = build(f"nonsmooth-{structure}", variant="strongly-convex", **SIZES[structure])
    P, feats, ys, mu = _data(inst)
    u_sparse = lad.lad_interior_point(P, feats, ys, mu, tol=TIGHT_TOL)["u"]
    assert np.linalg.norm(inst.x_star - u_sparse) <= U_RTOL * np.linalg.norm(u_sparse)


@pytest.mark.parametrize("path", ["kkt-deflated", "kkt-schur"])
@pytest.mark.parametrize("eliminate", [True, False])
@pytest.mark.parametrize("structure,mu", [("coupled-local", 0.0), ("mixed", 0.0), ("mixed-ident", 1.0)])
def test_schur_path_of_the_kkt_solver(monkeypatch, structure, mu, eliminate, path):
    """The paths large instances take, forced: the deflated border system (mixbounds.instances.reference.deflated_kkt), and, when its
    border would be too large, the block / arrow Cholesky of H with a Schur complement on G; with the block rows
    eliminated and (the path of the G_SᵀG_S term) without."""
    variant = "strongly-convex" if mu else "default"
    inst = build(f"nonsmooth-{structure}", variant=variant, **SIZES[structure])
    monkeypatch.setattr(saddle_point, "KKT_DIRECT_MAX_NNZ", 0)
    monkeypatch.setattr(saddle_point, "KKT_DIRECT_BEFORE_MINRES_NNZ", 0)
    if path == "kkt-schur":
        monkeypatch.setattr(deflated_kkt, "BORDER_MAX", -1)
    P, feats, ys, mu = _data(inst)
    out = lad.lad_interior_point(P, feats, ys, mu, eliminate=eliminate)
    assert out["info"]["factor"].startswith(path)
    _agree(P.objective.value, inst.x_star, out["u"], mu)


def test_unequal_sample_counts_use_the_node_loop():
    """F_i of different shapes: the per-node loop and Eᵀ(·)E instead of the batched blocks, same optimum."""
    inst = build("nonsmooth-mixed", **SIZES["mixed"])
    P, feats, ys, mu = _data(inst)
    feats = [F[: F.shape[0] - i % 3] for i, F in enumerate(feats)]
    ys = [y[: y.size - i % 3] for i, y in enumerate(ys)]
    dense = ns.reference_nonsmooth(P, feats, ys, 0.0)
    out = lad.lad_interior_point(P, feats, ys, 0.0)
    assert not lad._Nodes(feats, P.layout, copy_map(P)).stacked

    def F(u):
        lay = P.layout
        return sum(np.mean(np.abs(feats[i] @ u[lay.node_u_indices(i)] - ys[i])) for i in range(lay.n))

    _agree(F, dense["u"], out["u"], 0.0)


@pytest.mark.parametrize("structure", ["mixed", "coupled", "consensus"])
@pytest.mark.parametrize("mu,level", [(0.0, 0.0), (0.7, 0.0), (0.0, 1e-3), (0.7, 1e-3)])
@pytest.mark.parametrize("ragged", [False, True])
def test_hessian_is_Et_blockdiag_E(structure, mu, level, ragged):
    """The assembly of H (batched CSR path; node loop when the F_i differ in shape) equals
    Eᵀ·blockdiag_i(μI + F_iᵀΘ_iF_i + δ_iI)·E, Jacobi-scaled, with δ_i = max(level·(largest diagonal entry of the
    node block) − μ, 0), and its scaled diagonal is returned."""
    inst = build(f"nonsmooth-{structure}", **SIZES[structure])
    P, feats, _, _ = _data(inst)
    if ragged:
        feats = [F[: F.shape[0] - i % 2] for i, F in enumerate(feats)]
    E = copy_map(P)
    nodes = lad._Nodes(feats, P.layout, E)
    assert nodes.stacked != ragged
    theta = np.random.default_rng(0).uniform(0.01, 5.0, sum(F.shape[0] for F in feats))
    Hs, shift, s = nodes.hessian(theta, mu, level)
    rows = np.cumsum([0] + [F.shape[0] for F in feats])
    blocks, deltas = [], []
    for i, F in enumerate(feats):
        B = F.T @ (F * theta[rows[i]:rows[i + 1], None]) + mu * np.eye(F.shape[1])
        deltas.append(np.full(F.shape[1], max(level * B.diagonal().max() - mu, 0.0)))
        blocks.append(B + np.diag(deltas[-1]))
    H = (E.T @ block_diag_u(blocks, P.layout, square=True) @ E).toarray()
    assert np.allclose(s, 1 / np.sqrt(np.diag(H)))
    assert np.allclose(Hs.toarray(), H * np.outer(s, s), rtol=1e-12, atol=1e-14)
    delta_v = E.T @ np.concatenate(deltas)[P.layout.z_to_u]
    assert np.allclose(shift, delta_v * s * s, rtol=1e-12, atol=0)
    assert np.any(shift) == np.any(np.concatenate(deltas) > 0)


def test_reduced_newton_step_solves_the_full_system():
    """Signs of the elimination: the direction from the reduced KKT solve (scaled, local rows augmented) solves the
    unreduced Newton system in (v, p, q, z, λ, s_p, s_q), checked by a dense solve."""
    inst = build("nonsmooth-mixed", variant="strongly-convex", **SIZES["mixed"])
    P, feats, ys, mu = _data(inst)
    lay = P.layout
    E = copy_map(P)
    G, h = constraint_system(P)
    G = sp.csr_matrix(G)
    assert np.linalg.matrix_rank(G.toarray()) == G.shape[0]
    D = (block_diag_u(feats, lay) @ E).toarray()
    nodes = lad._Nodes(feats, lay, E)
    y = np.concatenate(ys)
    w = np.concatenate([np.full(F.shape[0], 1.0 / F.shape[0]) for F in feats])
    nr, nv, ng = y.size, E.shape[1], G.shape[0]
    rng = np.random.default_rng(3)
    v, lam = rng.standard_normal(nv), rng.standard_normal(ng)
    p, q = rng.uniform(0.1, 2, nr), rng.uniform(0.1, 2, nr)
    z = w * rng.uniform(-0.9, 0.9, nr)
    s_p, s_q = (w + z) * rng.uniform(0.5, 1.5, nr), (w - z) * rng.uniform(0.5, 1.5, nr)
    Qd = np.concatenate([np.ones(lay.dx), np.full(lay.dt, float(lay.n))])
    res = {"r1": D @ v - p + q - y, "r2": G @ v - h, "rd": mu * Qd * v - D.T @ z - G.T @ lam,
           "rp": w + z - s_p, "rq": w - z - s_q}
    cp, cq = rng.standard_normal(nr), rng.standard_normal(nr)
    theta = 1 / (p / s_p + q / s_q)
    kkt = lad._Scaled(*nodes.hessian(theta, mu, 0.0), G, lay.dt, lad._local_rows(G, lay))
    d = lad._direction(nodes, lambda rhs: kkt.solve(rhs)[0], theta, (p, q, s_p, s_q), res, cp, cq)
    Z, I = np.zeros, np.eye(nr)
    # unknowns (dv, dp, dq, dz, dλ, ds_p, ds_q)
    K = np.block([
        [mu * np.diag(Qd), Z((nv, nr)), Z((nv, nr)), -D.T, -G.T.toarray(), Z((nv, nr)), Z((nv, nr))],
        [Z((nr, nv)), Z((nr, nr)), Z((nr, nr)), I, Z((nr, ng)), -I, Z((nr, nr))],
        [Z((nr, nv)), Z((nr, nr)), Z((nr, nr)), -I, Z((nr, ng)), Z((nr, nr)), -I],
        [D, -I, I, Z((nr, nr)), Z((nr, ng)), Z((nr, nr)), Z((nr, nr))],
        [G.toarray(), Z((ng, 3 * nr + ng + 2 * nr))],
        [Z((nr, nv)), np.diag(s_p), Z((nr, nr)), Z((nr, nr)), Z((nr, ng)), np.diag(p), Z((nr, nr))],
        [Z((nr, nv)), Z((nr, nr)), np.diag(s_q), Z((nr, nr)), Z((nr, ng)), Z((nr, nr)), np.diag(q)],
    ])
    rhs = np.concatenate([-res["rd"], -res["rp"], -res["rq"], -res["r1"], -res["r2"], cp, cq])
    full = np.linalg.solve(K, rhs)
    mine = np.concatenate([d["v"], d["p"], d["q"], d["z"], d["lam"], d["sp"], d["sq"]])
    assert np.linalg.norm(mine - full) <= NEWTON_RTOL * np.linalg.norm(full)


def test_not_converging_is_an_error():
    inst = build("nonsmooth-coupled", **SIZES["coupled"])
    P, feats, ys, mu = _data(inst)
    with pytest.raises(ValueError, match=r"did not converge in 3 iterations: relative residuals primal"):
        lad.lad_interior_point(P, feats, ys, mu, max_iter=3)


@pytest.mark.parametrize("structure,variant", [("mixed-ident", "default"), ("coupled", "strongly-convex")])
def test_family_build_switches_to_the_sparse_path(monkeypatch, structure, variant):
    kw = dict(variant=variant, kappa_W=12.0, **SIZES[structure])
    dense = build(f"nonsmooth-{structure}", **kw)
    assert "sparse" not in dense.params["reference"]["method"]
    assert ns.lifted_entries(dense.problem, dense.problem.objective.features) <= ns.DENSE_LIFTED_MAX
    monkeypatch.setattr(ns, "DENSE_LIFTED_MAX", 0)
    sparse = build(f"nonsmooth-{structure}", **kw)
    ref = sparse.params["reference"]
    assert ref["method"] == lad.METHOD and ref["primal_residual"] <= ns.REF_RTOL and ref["iterations"] > 0
    assert "trace" not in ref
    _agree(dense.problem.objective.value, dense.x_star, sparse.x_star, dense.problem.objective.mu)
    assert sparse.realized == dense.realized


@pytest.mark.parametrize("structure", ["mixed", "mixed-ident", "coupled-local", "shared"])
def test_local_rows_and_their_gram(structure):
    """The rows of G on one node or on x̃ alone (C_i, C̃_i; not the coupled A), and G_SᵀG_S with the x̃ rows formed
    densely."""
    inst = build(f"nonsmooth-{structure}", **SIZES[structure])
    P = inst.problem
    G = sp.csr_matrix(constraint_system(P)[0])
    local = lad._local_rows(G, P.layout)
    m = 0 if P.A is None else P.m
    assert np.array_equal(local, np.arange(m, G.shape[0]))
    GS = sp.csr_matrix(G[local])
    assert np.allclose(lad._gram(GS, P.layout.dt).toarray(), (GS.T @ GS).toarray(), rtol=1e-13, atol=1e-13)


# ------------------------------------------------------------------ mixbounds.instances.reference.block_elimination
#: exactness of the parametrisation x_i = x_i⁰ + N_i z_i (block rows, data residuals, the μ-norm)
ELIM_ATOL = 1e-12


@pytest.mark.parametrize("structure", ["shared", "shared-ident", "coupled-local", "mixed", "mixed-ident"])
def test_elimination_parametrises_the_block_solution_sets(structure):
    """For any ẑ, v = v⁰ + N ẑ satisfies every row of G on one block, the reduced data rows equal the original ones,
    ‖E v‖² = ‖E v⁰‖² + ‖Ê ẑ‖², and the kept rows are the coupled ones with G_g N ẑ − ĥ = G_g v − h_g."""
    inst = build(f"nonsmooth-{structure}", **SIZES[structure])
    P, feats, ys, _ = _data(inst)
    lay = P.layout
    G, h = constraint_system(P)
    red = elim.eliminate(lay, G, h, feats, ys)
    m = 0 if P.A is None else P.m
    rank_t = 0 if P.Ct is None else np.linalg.matrix_rank(sp.vstack(P.Ct).toarray())
    assert red.stats["kept_rows"] == m and red.stats["eliminated_rows"] == G.shape[0] - m
    assert red.stats["eliminated_rank"] == (0 if P.C is None else lay.n * inst.params["p"]) + rank_t
    assert red.layout.dt == lay.dt - rank_t
    z = np.random.default_rng(3).standard_normal(red.stats["reduced_variables"])
    v = red.lift(z)
    r = G @ v - h
    assert np.abs(r[m:]).max() <= ELIM_ATOL * (1 + np.abs(h).max())
    assert np.allclose(red.G @ z - red.h, r[:m], rtol=0, atol=ELIM_ATOL * (1 + np.abs(h).max()))
    u, zu = copy_map(P) @ v, reference.layout_copy_map(red.layout) @ z
    for i in range(lay.n):
        zi = zu[red.layout.node_u_indices(i)]
        assert np.allclose(red.feats[i] @ zi - red.ys[i], feats[i] @ u[lay.node_u_indices(i)] - ys[i], rtol=0,
                           atol=ELIM_ATOL * (1 + np.abs(ys[i]).max()))
    w = reference.copy_weights(lay)
    assert v @ (w * v) == pytest.approx(red.v0 @ (w * red.v0) + zu @ zu, rel=ELIM_ATOL)


@pytest.mark.parametrize("structure", ["coupled-local", "mixed-ident"])
@pytest.mark.parametrize("variant", ["default", "strongly-convex"])
def test_elimination_gives_the_same_optimum(structure, variant):
    """The interior point on the reduced problem and on the original one: the same optimum and objective."""
    inst = build(f"nonsmooth-{structure}", variant=variant, **SIZES[structure])
    P, feats, ys, mu = _data(inst)
    a = lad.lad_interior_point(P, feats, ys, mu)
    b = lad.lad_interior_point(P, feats, ys, mu, eliminate=False)
    assert a["info"]["elimination"]["kept_rows"] == P.m and b["info"]["elimination"] is None
    assert a["info"]["objective"] == pytest.approx(b["info"]["objective"], rel=F_RTOL)
    _agree(P.objective.value, b["u"], a["u"], mu)


def test_inconsistent_block_rows_are_an_error():
    """Negative control: one node's copy of the identical C̃ given another right-hand side (the n·p̃ rows of rank p̃
    then have no common solution): an error naming x̃, never a projected point."""
    inst = build("nonsmooth-mixed-ident", **SIZES["mixed-ident"])
    P, feats, ys, _ = _data(inst)
    G, h = constraint_system(P)
    h = h.copy()
    h[-1] += 1e-3
    with pytest.raises(ValueError, match=r"x̃ \(shared-variable constraints\): its constraint rows are inconsistent"):
        elim.eliminate(P.layout, G, h, feats, ys)
