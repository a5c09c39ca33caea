"""The paper's reformulations + APAPC (:func:`mixbounds.solvers.solve`), class by class.

Convergence to the reference solution, oracle counts against an independent
count, per-iteration counts implied by the Chebyshev degrees, and the rates:
with Chebyshev acceleration the iteration count is flat in κ_W, κ_C, κ̃_AC (the
polynomial degrees absorb them) and grows like √κ_f; without it (the negative
control ``apapc-nocheb``) it grows with κ_W, κ_C, κ̃_AC.
"""

import dataclasses
import json

import numpy as np
import pytest
from helpers import random_problem, ring_laplacian, wrap_oracles
from mixbounds.instances import Layout, MixedProblem, QuadraticObjective
from mixbounds.instances.graphs import _weighted_path_kappa, beta, path_weights_laplacian
from mixbounds.instances.reference.kkt import reference_solution
from mixbounds.solvers import ORACLES, CountedOracles, Reformulation, solve
from mixbounds.solvers.apapc import APAPCParameters, apapc
from scipy.optimize import brentq

#: target relative squared error of the runs
EPS = 1e-8
#: sweeps use a looser target (cost), the same for every point of a sweep
SWEEP_EPS = 1e-6
#: "flat": iterations at 10× the condition number over iterations at the base value
FLAT_RATIO = 1.5
#: "grows": the control needs at least this factor more iterations (or hits its budget)
GROW_RATIO = 3.0
#: √κ_f: slope of the per-accuracy iteration count vs κ_f, and its tolerance
SQRT_SLOPE, SQRT_SLOPE_TOL = 0.5, 0.15
#: the reference solution is met to this relative squared distance (eps plus reference error)
X_STAR_RTOL = 10 * EPS
#: relative slack when comparing lemma bounds with exact spectra
SPECTRUM_RTOL = 1e-9

CLASSES = {
    "consensus": dict(d=0, dt=3, shared=False),
    "shared": dict(d=0, dt=3, pt=1),
    "coupled": dict(d=3, dt=0, local=False, m=2),
    "coupled_local": dict(d=3, dt=0, m=2, p=1),
    "mixed": dict(d=3, dt=2, m=2, p=1, pt=1),
    "mixed_no_C": dict(d=3, dt=2, m=2, local=False, pt=1),
    "mixed_no_A": dict(d=3, dt=2, coupled=False, p=1, pt=1),
}


# ---------------------------------------------------------------------- instances
def identical_shared(P):
    """The same problem with C̃_i = C̃_1, c̃_i = c̃_1 (feasible: the same x̃ solves all)."""
    return dataclasses.replace(P, Ct=[P.Ct[0]] * P.n, ct=[P.ct[0]] * P.n)


def small(name, seed=0):
    rng = np.random.default_rng(seed)
    if name in ("shared_identical", "mixed_identical"):
        base = "shared" if name == "shared_identical" else "mixed"
        return identical_shared(random_problem(rng, n=6, **CLASSES[base]))
    return random_problem(rng, n=6, **CLASSES[name])


def path_W(n, kappa_W):
    """Path Laplacian on a FIXED number of nodes, first edge weight tuned to κ_W (mixbounds.instances.graphs)."""
    assert kappa_W >= beta(n)
    a = brentq(lambda a: _weighted_path_kappa(n, a) / kappa_W - 1.0, 0.0, 1 - 1e-9, xtol=1e-15, rtol=1e-15)
    return path_weights_laplacian(n, a)


def orth(rng, k):
    return np.linalg.qr(rng.standard_normal((k, k)))[0]


def tuned(cls, W, *, kappa_f=10.0, kappa_C=None, s_AC=None, d=3, dt=2, m=2, p=2, pt=1, seed=0):
    """Quadratic f with exactly κ_f, random A, C with group κ_C, or (s_AC) A, C with κ̃_AC ≈ const/s²."""
    rng = np.random.default_rng(seed)
    n = W.shape[0]
    has_x = cls in ("coupled", "coupled_local", "mixed")
    has_t = cls in ("consensus", "shared", "mixed")
    ds = tuple(d if has_x else 0 for _ in range(n))
    dtt = dt if has_t else 0
    lay = Layout(ds, dtt)
    Q, q = [], []
    for i in range(n):
        k = ds[i] + dtt
        U = orth(rng, k)
        Q.append((U * np.linspace(1.0, kappa_f, k)) @ U.T)
        q.append(rng.standard_normal(k) * np.sqrt(kappa_f))
    obj = QuadraticObjective(Q, q, lay, L=kappa_f, mu=1.0)
    kw = {}
    x0 = [rng.standard_normal(di) for di in ds]
    if has_x:
        if s_AC is not None:
            # A_i = A0 V_iᵀ, C_i = C0 V_iᵀ: ker C0 = span(e1, e2), A0 restricted to it = diag(1, s)
            A, C = [], []
            for _ in range(n):
                V = orth(rng, d)
                A0 = np.zeros((m, d))
                A0[0, 0], A0[1, 1] = 1.0, s_AC
                A0[:, 2:] = 0.5 * rng.standard_normal((m, d - 2))
                C0 = np.hstack([np.zeros((d - 2, 2)), np.eye(d - 2)])
                A.append(A0 @ V.T)
                C.append(C0 @ V.T)
            kw.update(A=A, b=[A[i] @ x0[i] for i in range(n)], C=C, c=[C[i] @ x0[i] for i in range(n)])
        else:
            A = [rng.standard_normal((m, d)) / np.sqrt(d) for _ in range(n)]
            kw.update(A=A, b=[A[i] @ x0[i] for i in range(n)])
            if cls in ("coupled_local", "mixed"):
                s = np.ones(p) if kappa_C is None else np.linspace(1.0, 1.0 / np.sqrt(kappa_C), p)
                C = [orth(rng, p) @ np.diag(s) @ orth(rng, d)[:, :p].T for _ in range(n)]
                kw.update(C=C, c=[C[i] @ x0[i] for i in range(n)])
    if cls in ("shared", "mixed"):
        xt0 = rng.standard_normal(dtt)
        Ct = [rng.standard_normal((pt, dtt)) for _ in range(n)]
        kw.update(Ct=Ct, ct=[Ci @ xt0 for Ci in Ct])
    return MixedProblem(W, obj, lay, **kw)


# ---------------------------------------------------------------------- counting proxies
def wrapped_oracles(P):
    """CountedOracles whose raw data count every product actually performed (as in test_oracles)."""
    orc = CountedOracles(P)
    return orc, wrap_oracles(orc)


def expected_per_iteration(params, method):
    """Oracle rounds of one APAPC iteration from the degrees (independent of the solver's own formula)."""
    d = params["degrees"]
    blocks = params["blocks"]
    cheb = method == "apapc"
    dW = d.get("W", 1)
    e = dict.fromkeys(ORACLES, 0)
    e["grad"] = 1
    kinds = {b["kind"] for b in blocks.values()}
    if kinds & {"coupled", "coupled_local"}:  # penalty gradient: A, Aᵀ and W' twice
        e["A"] += 2
        e["comm"] += 2 * dW
    for b in blocks.values():
        K = b["degree"]
        if b["kind"] in ("coupled", "coupled_local"):  # B and Bᵀ: A, Aᵀ, W' twice (+ C' twice)
            e["A"] += 2 * K
            e["comm"] += 2 * dW * K
            if b["kind"] == "coupled_local":
                e["C"] += K * (2 * 2 * d["C"] if cheb else 2)
        elif b["kind"] == "local":
            e["C"] += 2 * K
        elif b["kind"] == "consensus":
            e["comm"] += K
        elif b["kind"] == "shared":
            e["Ct"] += 2 * K
            e["comm"] += 2 * dW * K
        elif b["kind"] == "shared_identical":
            e["Ct"] += 2 * 2 * d["Ct"] if cheb else 2
            e["comm"] += 2 * dW
    return e


# ---------------------------------------------------------------------- convergence
ALL = list(CLASSES) + ["shared_identical", "mixed_identical"]


@pytest.mark.parametrize("method", ["apapc", "apapc-nocheb"])
@pytest.mark.parametrize("name", ALL)
def test_every_class_converges_to_reference(name, method):
    P = small(name)
    ref = reference_solution(P).u
    res = solve(P, method=method, eps=EPS, max_iter=50_000)
    assert res.converged and res.reason == "tolerance", (res.reason, res.iterations)
    assert res.final_error() <= EPS
    assert np.sum((res.x - ref) ** 2) <= X_STAR_RTOL * max(np.sum(ref ** 2), 1.0)
    assert res.method == method
    t = res.params["t_block"]
    if name.endswith("identical"):
        assert t == "shared_identical"
    if name == "mixed_no_A":
        assert res.params["x_block"] == "local"
    if name == "mixed_no_C":
        assert res.params["x_block"] == "coupled"
    for key in ("degrees", "interval", "L_G", "mu_G", "apapc", "tau", "eta", "theta", "blocks"):
        assert key in res.params
    json.dumps(res.params)  # reports and the CLI serialise it
    if method == "apapc-nocheb":
        assert all(v == 1 for v in res.params["degrees"].values())


@pytest.mark.parametrize("name", ["mixed", "coupled_local", "shared_identical", "mixed_no_A"])
@pytest.mark.parametrize("method", ["apapc", "apapc-nocheb"])
def test_counts_equal_independent_count(name, method):
    """Every oracle call goes through the wrapped raw matrices (no materialised operators),
    so the tally is an independent count; ``test_materialized_operators_same_counts`` carries
    the result over to the default (materialised) runs."""
    P = small(name, seed=3)
    orc, tally = wrapped_oracles(P)
    res = solve(P, method=method, eps=1e-6, oracles=orc, materialize=False)
    assert res.converged
    assert res.counts == tally
    assert all(res.counts[k] > 0 for k in ("grad", "comm"))


#: materialised and recurrence runs agree to this relative distance (rounding only)
MATERIALIZE_RTOL = 1e-8


@pytest.mark.parametrize("name", ALL)
def test_materialized_operators_same_counts(name):
    """Polynomial operators applied as matrices built from their counted recurrence give the
    same iterations and the same count after every iteration as the recurrence itself."""
    P = small(name, seed=2)
    ref = reference_solution(P).u
    a = solve(P, eps=EPS, x_star=ref, materialize=False)
    b = solve(P, eps=EPS, x_star=ref, materialize=True)
    assert a.converged and b.converged
    assert a.iterations == b.iterations
    assert np.array_equal(a.history_counts, b.history_counts)
    assert a.counts == b.counts
    assert np.sum((a.x - b.x) ** 2) <= MATERIALIZE_RTOL * max(np.sum(ref ** 2), 1.0)
    info = b.params.get("materialized")
    assert info is not None and (info["W'"] or info["C'"] or info["C̃'"] or info["outer"]), info


@pytest.mark.parametrize("family", ["coupled-local", "mixed"])
def test_sparse_materialized_local_polynomial_same_counts(family, monkeypatch):
    """Above MATERIALIZE_LIMIT unknowns C' = P_C(CᵀC) is a sparse matrix (the printed C&L
    construction keeps the pattern of CᵀC) where dense diagonal blocks are not preferred (forced here):
    same iterations and counts as the recurrence, values equal to rounding, and the independent tally
    of raw products agrees."""
    from mixbounds.instances.families import build
    from mixbounds.solvers import materialize
    from mixbounds.solvers.materialize import MATERIALIZE_LIMIT, MaterializedSparse

    monkeypatch.setattr(materialize, "BLAS_MADD_ADVANTAGE", 0.0)

    kw = dict(kappa_W=4.0, kappa_C=10.0, kappa_AC=12.0, kappa_f=4.0, eps=1e-3)
    if family == "mixed":
        kw["kappa_Ct"] = 30.0
    P = build(family, **kw).problem
    assert P.layout.dx > MATERIALIZE_LIMIT
    _same_run_as_the_recurrence(P)
    assert isinstance(Reformulation(P).main_operators.Cp, MaterializedSparse)


def _same_run_as_the_recurrence(P) -> None:
    """A run with the materialised C' equals the recurrence's: same iterations and counts, values to rounding, and the
    independent tally of raw C products is smaller (the matrix made them unnecessary; they are still counted)."""
    ref = reference_solution(P).u
    a = solve(P, eps=1e-5, x_star=ref, materialize=False)
    orc = CountedOracles(P)
    tally = wrap_oracles(orc)
    b = solve(P, eps=1e-5, x_star=ref, materialize=True, oracles=orc)
    assert a.converged and b.converged
    assert a.iterations == b.iterations
    assert np.array_equal(a.history_counts, b.history_counts)
    assert np.sum((a.x - b.x) ** 2) <= MATERIALIZE_RTOL * np.sum(ref ** 2)
    assert b.params["materialized"]["C'"]
    assert tally["C"] < b.counts["C"] and b.counts == a.counts


@pytest.mark.parametrize("family", ["coupled-local", "mixed"])
def test_block_materialized_local_polynomial_same_counts(family, monkeypatch):
    """Where the sparse P_C(CᵀC) fills past its limit (forced here: one entry per row), C' is the dense diagonal
    blocks of P_C(G) for CᵀC = G ⊗ I_K: same iterations and counts as the recurrence, values equal to rounding."""
    from mixbounds.instances.families import build
    from mixbounds.solvers import materialize
    from mixbounds.solvers.materialize import MaterializedBlocks

    monkeypatch.setattr(materialize, "SPARSE_FILL_PER_ROW", 1)
    kw = dict(kappa_W=4.0, kappa_C=30.0, kappa_AC=12.0, kappa_f=4.0, eps=1e-3)
    if family == "mixed":
        kw["kappa_Ct"] = 30.0
    P = build(family, **kw).problem
    _same_run_as_the_recurrence(P)
    assert isinstance(Reformulation(P).main_operators.Cp, MaterializedBlocks)


def test_dense_blocks_replace_a_sparse_polynomial_only_when_their_product_is_cheaper(monkeypatch):
    """The printed C&L construction's P_C(G) ⊗ I_K at κ_C = 30: G is six path blocks of 6 and the sparse P_C(G) is
    dense on them (216 entries either way): the blocks at the default BLAS advantage, the sparse matrix when the
    dense product has no advantage per multiply-add."""
    from mixbounds.instances.families import build
    from mixbounds.solvers import materialize
    from mixbounds.solvers.materialize import MaterializedBlocks, MaterializedSparse

    P = build("coupled-local", kappa_W=4.0, kappa_C=30.0, kappa_AC=12.0, kappa_f=4.0, eps=1e-3).problem
    assert isinstance(Reformulation(P).main_operators.Cp, MaterializedBlocks)
    with monkeypatch.context() as m:
        m.setattr(materialize, "BLOCKS_BUILD_MADDS", 0.0)  # too costly to build: the sparse matrix
        assert isinstance(Reformulation(P).main_operators.Cp, MaterializedSparse)
    monkeypatch.setattr(materialize, "BLAS_MADD_ADVANTAGE", 1.0)
    assert isinstance(Reformulation(P).main_operators.Cp, MaterializedSparse)


def test_block_materialization_that_does_not_reproduce_the_recurrence_is_refused(monkeypatch):
    """Negative control of the probe guard: diagonal blocks off by 10⁻⁶ are refused and the recurrence kept."""
    from mixbounds.instances.families import build
    from mixbounds.solvers import materialize
    from mixbounds.solvers.chebyshev import Chebyshev
    from mixbounds.solvers.materialize import MaterializedBlocks, MaterializedDense, MaterializedSparse

    monkeypatch.setattr(materialize, "SPARSE_FILL_PER_ROW", 1)
    P = build("coupled-local", kappa_W=4.0, kappa_C=30.0, kappa_AC=12.0, kappa_f=4.0, eps=1e-3).problem
    assert isinstance(Reformulation(P).main_operators.Cp, MaterializedBlocks)
    exact = Chebyshev.dense_P
    monkeypatch.setattr(Chebyshev, "dense_P", lambda self, M: exact(self, M) * (1.0 + 1e-6))
    Cp = Reformulation(P).main_operators.Cp
    assert not isinstance(Cp, (MaterializedBlocks, MaterializedSparse, MaterializedDense))  # the recurrence


@pytest.mark.parametrize("method", ["apapc", "apapc-nocheb"])
@pytest.mark.parametrize("name", ALL)
def test_per_iteration_counts_follow_the_degrees(name, method):
    P = small(name, seed=1)
    res = solve(P, method=method, eps=1e-6)
    per = np.diff(res.history_counts, axis=0)
    e = expected_per_iteration(res.params, method)
    assert np.all(per == np.array([e[k] for k in ORACLES])), (per[0], e)


def test_comm_per_iteration_scales_with_deg_K_times_deg_W():
    """Paper: each iteration = O(deg P_B) products by B, each O(deg P_W) communications."""
    rows = []
    for kW in (40.0, 400.0):
        res = solve(tuned("coupled", path_W(9, kW)), eps=1e-3)
        d = res.params["degrees"]
        comm = np.diff(res.history_counts, axis=0)[0, ORACLES.index("comm")]
        rows.append((d["W"], d["K_x"], comm))
        assert comm == 2 * d["W"] * (d["K_x"] + 1)
        assert res.params["per_iteration_counts"]["comm"] == comm
    assert rows[1][0] > 2 * rows[0][0]  # deg_W ∝ √κ_W grew, so did comm per iteration


# ---------------------------------------------------------------------- rates
def iters(P, method="apapc", eps=SWEEP_EPS, max_iter=50_000):
    res = solve(P, method=method, eps=eps, max_iter=max_iter)
    return res.iterations, res


@pytest.mark.parametrize("cls", ["consensus", "shared", "coupled", "coupled_local", "mixed"])
def test_iterations_flat_in_kappa_W_with_chebyshev(cls):
    k1, r1 = iters(tuned(cls, path_W(9, 40.0)))
    k2, r2 = iters(tuned(cls, path_W(9, 400.0)))
    assert r1.converged and r2.converged
    assert k2 <= FLAT_RATIO * k1, (k1, k2)
    dk = "K_t" if cls in ("consensus",) else "W"
    assert r2.params["degrees"][dk] > r1.params["degrees"][dk]  # the polynomial absorbed κ_W


@pytest.mark.parametrize("cls,budget", [("consensus", 50_000), ("shared", 5_000)])
def test_iterations_grow_in_kappa_W_without_chebyshev(cls, budget):
    k1, r1 = iters(tuned(cls, path_W(6, 15.0)), "apapc-nocheb", eps=1e-4, max_iter=budget)
    k2, r2 = iters(tuned(cls, path_W(6, 150.0)), "apapc-nocheb", eps=1e-4, max_iter=budget)
    assert r1.converged
    assert (not r2.converged and r2.reason == "budget") or k2 >= GROW_RATIO * k1, (k1, k2, r2.reason)


def test_kappa_C_flat_with_chebyshev_grows_without():
    W = ring_laplacian(6)
    k1, r1 = iters(tuned("coupled_local", W, kappa_C=10.0))
    k2, r2 = iters(tuned("coupled_local", W, kappa_C=300.0))
    assert r1.converged and r2.converged and k2 <= FLAT_RATIO * k1, (k1, k2)
    assert r2.params["degrees"]["C"] > r1.params["degrees"]["C"]
    # C products per iteration ∝ deg_C · K (4 per outer step per degree)
    for r in (r1, r2):
        c = np.diff(r.history_counts, axis=0)[0, ORACLES.index("C")]
        assert c == 4 * r.params["degrees"]["C"] * r.params["degrees"]["K_x"]
    n1, _ = iters(tuned("coupled_local", W, kappa_C=10.0), "apapc-nocheb", eps=1e-4)
    n2, _ = iters(tuned("coupled_local", W, kappa_C=300.0), "apapc-nocheb", eps=1e-4)
    assert n2 >= GROW_RATIO * n1, (n1, n2)


def test_kappa_tilde_AC_flat_with_chebyshev_grows_without():
    from mixbounds.bounds import projected_kappa

    W = ring_laplacian(6)
    P1, P2 = tuned("coupled_local", W, s_AC=1.0, d=4), tuned("coupled_local", W, s_AC=0.1, d=4)
    kt1, kt2 = projected_kappa(P1.A, P1.C).kappa, projected_kappa(P2.A, P2.C).kappa
    assert kt2 >= 50 * kt1  # the sweep really moves κ̃_AC
    k1, r1 = iters(P1)
    k2, r2 = iters(P2)
    assert r1.converged and r2.converged and k2 <= FLAT_RATIO * k1, (k1, k2)
    assert r2.params["degrees"]["K_x"] >= 5 * r1.params["degrees"]["K_x"]  # K ∝ √κ̃_AC
    n1, _ = iters(P1, "apapc-nocheb", eps=1e-4)
    n2, _ = iters(P2, "apapc-nocheb", eps=1e-4)
    assert n2 >= GROW_RATIO * n1, (n1, n2)


def test_iterations_grow_like_sqrt_kappa_f():
    """χ = O(1) after Chebyshev: per-accuracy iterations ∝ √κ_f (docs/design.md, "Measuring a rate": fit counts ε₁ → ε₂)."""
    W = ring_laplacian(6)
    kfs = np.array([10.0, 100.0, 1000.0])
    cost = []
    for kf in kfs:
        res = solve(tuned("coupled", W, kappa_f=kf, d=6), eps=1e-8)
        assert res.converged
        h = res.history_error
        cost.append(res.iterations - int(np.argmax(h <= 1e-3)))
    slope = np.polyfit(np.log(kfs), np.log(cost), 1)[0]
    assert abs(slope - SQRT_SLOPE) <= SQRT_SLOPE_TOL, (cost, slope)


# ---------------------------------------------------------------------- lemmas, constants, errors
@pytest.mark.parametrize("name", ["shared", "coupled", "coupled_local", "mixed", "shared_identical"])
@pytest.mark.parametrize("method", ["apapc", "apapc-nocheb"])
def test_lemma_bounds_contain_exact_spectra(name, method):
    """lem:coupled_spectrum, lem:mixed_coupled_with_local_spectrum, lem:local_spectrum on random data."""
    for seed in range(3):
        R = Reformulation(small(name, seed=seed), method=method, spectra="exact")
        for b in R.info["blocks"].values():
            (llo, lhi), (elo, ehi) = b["raw_interval_lemma"], b["raw_interval_exact"]
            assert llo <= elo * (1 + SPECTRUM_RTOL) and ehi <= lhi * (1 + SPECTRUM_RTOL), (b["kind"], b)
            if b["outer"]:  # P(BᵀB) lands in the Chebyshev interval of the lemma bounds
                (clo, chi), (xlo, xhi) = b["interval_lemma"], b["interval_exact"]
                assert clo <= xlo * (1 + SPECTRUM_RTOL) and xhi <= chi * (1 + SPECTRUM_RTOL)


@pytest.mark.parametrize("m", [1, 2])
def test_penalty_constants_lemma_vs_exact(m):
    """lem:conv_smooth_c_and_l: μ_G = μ_f/4, L_G = 2L_fκ_{W'}² hold on R^d × L_m^⊥; on the printed
    subspace 𝒴 = {⟨y, 1⟩ = 0} strong convexity fails as soon as m >= 2 (consensus directions of y)."""
    rng = np.random.default_rng(7)
    P = random_problem(rng, n=5, d=3, dt=0, m=m, local=False)
    R = Reformulation(P, constants="exact")
    c = R.info["constants_G"]
    assert c["mu_G_exact"] >= c["mu_G_lemma"] * (1 - SPECTRUM_RTOL)
    assert c["L_G_exact"] <= c["L_G_lemma"] * (1 + SPECTRUM_RTOL)
    if m == 1:
        assert c["mu_G_printed_subspace"] == pytest.approx(c["mu_G_exact"], rel=1e-8)
    else:
        assert abs(c["mu_G_printed_subspace"]) <= 1e-10 * c["L_G_exact"]
    # both constant choices converge; the exact ones need fewer iterations
    r_l = solve(P, eps=EPS, constants="lemma")
    r_e = solve(P, eps=EPS, constants="exact")
    assert r_l.converged and r_e.converged and r_e.iterations <= r_l.iterations


def test_y_iterates_stay_in_L_m_perp():
    P = small("coupled_local", seed=2)
    R = Reformulation(P)
    lo, hi = R.interval
    res = apapc(grad_G=R.grad_G, apply_BtB=R.apply_normal, Btb=R.normal_rhs, w0=R.from_u(np.zeros(P.layout.size)),
                params=APAPCParameters.rule(R.L_G, R.mu_G, hi, lo), error=lambda w: 1.0,
                snapshot=R.orc.snapshot, max_iter=50)
    Y = res.x[R.sy].reshape(P.n, P.m)
    assert np.abs(Y.sum(axis=0)).max() <= 1e-10 * max(np.abs(Y).max(), 1.0)
    assert np.abs(Y).max() > 0


def test_budget_and_errors():
    P = small("coupled")
    res = solve(P, max_iter=3)
    assert not res.converged and res.reason == "budget" and res.iterations == 3
    with pytest.raises(ValueError, match="no method"):
        solve(random_problem(np.random.default_rng(0), n=4, d=3, dt=0, coupled=False, p=1))  # class local
    with pytest.raises(ValueError, match="unknown method"):
        solve(P, method="gd")
    with pytest.raises(ValueError):
        Reformulation(P, spectra="measured")
    with pytest.raises(ValueError):
        solve(P, x_star=np.zeros(3))


def test_x0_and_given_x_star():
    P = small("shared")
    ref = reference_solution(P).u
    res = solve(P, x_star=ref, x0=ref + 1e-3)
    assert res.converged and res.history_error[0] == pytest.approx(1.0)
    res0 = solve(P, x_star=ref, x0=ref)
    assert res0.converged and res0.iterations == 0


@pytest.mark.parametrize("method", ["apapc", "apapc-nocheb"])
def test_mixed_with_unconstrained_x(method):
    P = random_problem(np.random.default_rng(4), n=5, d=3, dt=2, coupled=False, local=False, pt=1)
    res = solve(P, method=method, eps=EPS)
    ref = reference_solution(P).u
    assert res.params["x_block"] == "free" and res.converged
    assert np.sum((res.x - ref) ** 2) <= X_STAR_RTOL * np.sum(ref ** 2)


@pytest.mark.parametrize("cls", ["consensus", "coupled"])
def test_logistic_objective(cls):
    from mixbounds.instances import LogisticObjective

    rng = np.random.default_rng(5)
    n = 6
    d, dt = (0, 3) if cls == "consensus" else (3, 0)
    lay = Layout((d,) * n, dt)
    obj = LogisticObjective([rng.standard_normal((20, d + dt)) for _ in range(n)],
                            [np.sign(rng.standard_normal(20)) for _ in range(n)], 0.1, lay)
    kw = {}
    if cls == "coupled":
        A = [rng.standard_normal((2, d)) for _ in range(n)]
        kw = dict(A=A, b=[A[i] @ rng.standard_normal(d) for i in range(n)])
    P = MixedProblem(ring_laplacian(n), obj, lay, **kw)
    res = solve(P, eps=1e-10)
    ref = reference_solution(P).u
    assert res.converged and np.sum((res.x - ref) ** 2) <= 1e-9 * np.sum(ref ** 2)
    with pytest.raises(ValueError, match="quadratic"):
        Reformulation(P, constants="exact")  # a Hessian that varies has no single exact constant
