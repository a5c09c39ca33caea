"""Large-instance paths (issue 19): sparse Erdős–Rényi graphs, the consensus line deflated as a
rank-one operator, the Schur-complement reference solution, the cost model that decides whether
``W'`` is materialised, and ``constants="spectral"``.  Each large path is forced on a small
problem and compared with the exact small-size path it replaces."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from helpers import random_problem
from mixbounds.bounds import spectral
from mixbounds.bounds.condition import gossip_spectrum
from mixbounds.instances.graphs import ER_DENSE_MAX, erdos_renyi_adjacency, laplacian
from mixbounds.instances.reference import hessian_factor, saddle_point
from mixbounds.instances.reference import kkt as reference
from mixbounds.instances.reference.kkt import reference_solution
from mixbounds.solvers import Reformulation, solve
from mixbounds.solvers.materialize import nodes_dense_is_cheaper, sparse_is_cheaper

#: operator-deflated Lanczos vs dense eigenvalues (ARPACK tolerance 1e-12, relative; margin for rounding)
DEFLATION_RTOL = 1e-9
#: Schur-complement reference vs the direct KKT factorisation (both refined to a 1e-9 KKT residual or better)
SCHUR_RTOL = 1e-9
#: Lanczos constants vs the dense exact constants (LANCZOS_TOL = 1e-10)
CONSTANTS_RTOL = 1e-8
#: mean degree of a sparse G(n, p) sample vs its expectation (n = 3000, degree 12: std of the mean ≈ 0.09)
DEGREE_ATOL = 0.5


def test_sparse_erdos_renyi_has_the_expected_degree_and_is_a_simple_connected_graph():
    n, deg = ER_DENSE_MAX + 1000, 12.0
    A = erdos_renyi_adjacency(n, degree=deg, seed=4)
    assert A.shape == (n, n) and (A != A.T).nnz == 0 and A.diagonal().sum() == 0
    assert abs(A.nnz / n - deg) <= DEGREE_ATOL
    assert csgraph.connected_components(A, directed=False)[0] == 1
    B = erdos_renyi_adjacency(n, degree=deg, seed=4)
    assert (A != B).nnz == 0  # same seed, same edges


def test_small_erdos_renyi_keeps_the_dense_stream():
    """Below ER_DENSE_MAX the graph is the one the checks were measured on (seeded dense stream)."""
    n, p, seed = 40, 0.2, 3
    rng = np.random.default_rng(seed)
    while True:
        U = np.triu(rng.random((n, n)) < p, k=1)
        ref = sp.csr_matrix(U | U.T)
        if csgraph.connected_components(ref, directed=False)[0] == 1:
            break
    assert (erdos_renyi_adjacency(n, p, seed) != ref).nnz == 0


def test_erdos_renyi_rejects_p_and_degree_together():
    with pytest.raises(ValueError, match="not both"):
        erdos_renyi_adjacency(50, 0.1, 0, degree=5.0)


@pytest.mark.parametrize("graph", ["er", "ring"])
def test_operator_deflation_matches_dense(monkeypatch, graph):
    n = 400
    if graph == "er":
        W = laplacian(erdos_renyi_adjacency(n, degree=10.0, seed=1))
    else:
        i = np.arange(n)
        A = sp.csr_matrix((np.ones(2 * n), (np.r_[i, (i + 1) % n], np.r_[(i + 1) % n, i])), shape=(n, n))
        W = laplacian(A)
    ev = np.linalg.eigvalsh(W.toarray())
    monkeypatch.setattr(spectral, "EXPLICIT_DEFLATION_NNZ", 0)
    e = gossip_spectrum(W, method="iterative")
    assert e.method == "lanczos+kernel-operator"
    assert e.lmax == pytest.approx(ev[-1], rel=DEFLATION_RTOL)
    assert e.lmin_pos == pytest.approx(ev[1], rel=DEFLATION_RTOL)


def test_operator_deflation_with_a_wrong_kernel_finds_the_zero():
    """Negative control: deflating a vector that is not the kernel leaves the true zero eigenvalue,
    which the kernel check rejects before any eigenvalue is returned."""
    n = 400
    W = laplacian(erdos_renyi_adjacency(n, degree=10.0, seed=1))
    bad = np.zeros((n, 1))
    bad[0] = 1.0
    with pytest.raises(ValueError, match="not in the kernel"):
        spectral.sym_extremes(W, kernel=bad, method="iterative")


@pytest.mark.parametrize("block_cholesky", [True, False])
@pytest.mark.parametrize("dense_schur", [True, False])
@pytest.mark.parametrize("kind", ["coupled", "mixed"])
def test_schur_reference_matches_direct(monkeypatch, kind, dense_schur, block_cholesky):
    rng = np.random.default_rng(5)
    P = random_problem(rng, n=6, shared=kind == "mixed", local=kind == "mixed", dt=2 if kind == "mixed" else 0)
    direct = reference_solution(P)
    monkeypatch.setattr(saddle_point, "KKT_DIRECT_MAX_NNZ", 0)
    monkeypatch.setattr(saddle_point, "KKT_DIRECT_BEFORE_MINRES_NNZ", 0)
    if not dense_schur:
        monkeypatch.setattr(saddle_point, "SCHUR_DENSE_MAX", 0)
    if not block_cholesky:
        monkeypatch.setattr(hessian_factor, "BLOCK_CHOL_MAX", 0)
    schur = reference_solution(P)
    # without a shared variable H = diag(Q_i) splits into the node blocks; x̃ couples every node (an arrow)
    factor = ("block Cholesky" if kind == "coupled" else "arrow Cholesky") if block_cholesky else "splu"
    assert direct.method == "kkt-direct" and schur.method == f"kkt-schur ({factor})"
    assert schur.kkt_residual <= reference.KKT_RTOL
    assert np.linalg.norm(schur.u - direct.u) <= SCHUR_RTOL * np.linalg.norm(direct.u)


@pytest.mark.parametrize("superlu_fails", [False, True])
def test_kkt_too_large_for_a_dense_schur_complement_is_factored_whole_first(monkeypatch, superlu_fails):
    """Between KKT_DIRECT_MAX_NNZ and KKT_DIRECT_BEFORE_MINRES_NNZ a Schur complement that would go to MINRES
    is avoided: the whole KKT matrix is factored, and only SuperLU's MemoryError sends it to the Schur path."""
    rng = np.random.default_rng(5)
    P = random_problem(rng, n=6, shared=True, local=True, dt=2)
    direct = reference_solution(P)
    monkeypatch.setattr(saddle_point, "KKT_DIRECT_MAX_NNZ", 0)
    monkeypatch.setattr(saddle_point, "SCHUR_DENSE_MAX", 0)
    if superlu_fails:
        splu = saddle_point.spla.splu

        def refuse_saddle_point(A, *args, **kwargs):
            if A.shape[0] > P.layout.size:  # the KKT matrix, not H
                raise MemoryError("Not enough memory to perform factorization.")
            return splu(A, *args, **kwargs)

        monkeypatch.setattr(saddle_point.spla, "splu", refuse_saddle_point)
    ref = reference_solution(P)
    assert ref.method == ("kkt-schur (arrow Cholesky)" if superlu_fails else "kkt-direct")
    assert np.linalg.norm(ref.u - direct.u) <= SCHUR_RTOL * np.linalg.norm(direct.u)
    monkeypatch.setattr(saddle_point, "KKT_DIRECT_BEFORE_MINRES_NNZ", 0)  # above the cap: the Schur path at once
    assert reference_solution(P).method == "kkt-schur (arrow Cholesky)"


def test_block_cholesky_refuses_an_indefinite_block():
    """Negative control: a block that is not positive definite is an error naming its rows, not a solve."""
    H = sp.block_diag([np.eye(2), np.array([[1.0, 2.0], [2.0, 1.0]])], format="csr")
    parts = hessian_factor.BlockCholesky.parts(H)
    assert [list(p) for p in parts] == [[0, 1], [2, 3]]
    with pytest.raises(ValueError, match="rows 2…3 is not positive definite"):
        hessian_factor.BlockCholesky(H, parts)


def _arrow(rng, n=5, d=3, dt=2, shift=0.0):
    """An arrow-shaped H (n node blocks of size d, a border of dt rows), positive definite unless shifted."""
    M = np.zeros((n * d + dt, n * d + dt))
    for i in range(n):
        cols = np.r_[np.arange(i * d, (i + 1) * d), np.arange(n * d, n * d + dt)]
        Zi = rng.standard_normal((d + dt + 2, d + dt))
        M[np.ix_(cols, cols)] += Zi.T @ Zi
    M[n * d:, n * d:] -= shift * np.eye(dt)
    return sp.csr_matrix(M)


def test_arrow_cholesky_solves_like_a_dense_solve():
    """The shared variable's border is eliminated exactly: the same solution as a dense solve of H."""
    rng = np.random.default_rng(3)
    H = _arrow(rng)
    f = hessian_factor.factor_hessian(H, border=2)
    assert isinstance(f, hessian_factor.ArrowCholesky)
    rhs = rng.standard_normal((H.shape[0], 3))
    exact = np.linalg.solve(H.toarray(), rhs)
    assert np.linalg.norm(f.solve(rhs) - exact) <= SCHUR_RTOL * np.linalg.norm(exact)
    # without the border the node blocks are not separable: no structured factorisation
    assert hessian_factor.factor_hessian(H, border=0) is None


def test_block_cholesky_stacks_blocks_of_mixed_sizes_in_any_order():
    """Blocks of sizes 1, 3 and 2, interleaved by a permutation, batched per size: the dense solve's answer."""
    rng = np.random.default_rng(4)
    blocks = []
    for size in (1, 3, 2, 3, 1):
        Z = rng.standard_normal((size + 1, size))
        blocks.append(Z.T @ Z + 0.1 * np.eye(size))
    perm = rng.permutation(10)
    H = sp.csr_matrix(sp.block_diag(blocks).toarray()[np.ix_(perm, perm)])
    f = hessian_factor.factor_hessian(H)
    assert isinstance(f, hessian_factor.BlockCholesky) and len(f.groups) == 3
    rhs = rng.standard_normal(10)
    exact = np.linalg.solve(H.toarray(), rhs)
    assert np.linalg.norm(f.solve(rhs) - exact) <= SCHUR_RTOL * np.linalg.norm(exact)


def test_block_extraction_in_place_and_by_indexing_agree():
    """``BlockCholesky._blocks`` reads consecutive, densely stored, sorted blocks straight from the CSR data; rows
    stored out of order, with an entry missing, or blocks not consecutive go through indexing: the same stack."""
    rng = np.random.default_rng(5)
    k, size = 6, 4
    B = rng.standard_normal((k, size, size))
    H = sp.csr_matrix(sp.block_diag(list(B)))
    idx = np.arange(k * size).reshape(k, size)
    assert np.array_equal(hessian_factor.BlockCholesky._blocks(H, idx), B)
    shuffled = H.copy()
    for r in range(H.shape[0]):  # every row's entries stored in reverse order
        a, b = shuffled.indptr[r], shuffled.indptr[r + 1]
        shuffled.indices[a:b], shuffled.data[a:b] = shuffled.indices[a:b][::-1].copy(), shuffled.data[a:b][::-1].copy()
    assert np.array_equal(hessian_factor.BlockCholesky._blocks(shuffled, idx), B)
    B2 = B.copy()
    B2[2, 1, 3] = 0.0
    sparse = sp.csr_matrix(sp.block_diag(list(B2)))  # one entry not stored
    assert np.array_equal(hessian_factor.BlockCholesky._blocks(sparse, idx), B2)
    assert np.array_equal(hessian_factor.BlockCholesky._blocks(H, idx[::-1].copy()), B[::-1])


def test_arrow_cholesky_refuses_an_indefinite_schur_complement():
    """Negative control: node blocks positive definite, H not (the border shifted down): an error, not a solve."""
    rng = np.random.default_rng(3)
    H = _arrow(rng, shift=1e4)
    with pytest.raises(ValueError, match="Schur complement .* not positive definite"):
        hessian_factor.factor_hessian(H, border=2)


def test_schur_reference_that_did_not_converge_is_an_error(monkeypatch):
    """Negative control: one MINRES step and no refinement cannot reach the KKT tolerance."""
    rng = np.random.default_rng(5)
    P = random_problem(rng, n=6, dt=2)
    monkeypatch.setattr(saddle_point, "KKT_DIRECT_MAX_NNZ", 0)
    monkeypatch.setattr(saddle_point, "KKT_DIRECT_BEFORE_MINRES_NNZ", 0)
    monkeypatch.setattr(saddle_point, "SCHUR_DENSE_MAX", 0)
    monkeypatch.setattr(saddle_point, "SCHUR_MAXITER", 1)
    monkeypatch.setattr(saddle_point, "REFINE_STEPS", 0)
    with pytest.raises(ValueError, match="KKT residual"):
        reference_solution(P)


def test_cost_model_keeps_paths_dense_and_sparse_graphs_recurrent():
    # a 30-node path polynomial of degree 18 (κ_W ≈ 300): dense is cheaper
    assert nodes_dense_is_cheaper(30, 88, 18, 3)
    # 1000 nodes, ≈ 16 neighbours, degree 3, m = 5 columns: the recurrence is cheaper
    assert not nodes_dense_is_cheaper(1000, 17_000, 3, 5)


def test_sparse_polynomial_is_materialised_only_where_cheaper():
    """C' = P_C(CᵀC) as a sparse matrix: kept on the printed C&L construction (its P keeps the sparse pattern of
    CᵀC: ``test_reformulations.test_sparse_materialized_local_polynomial_same_counts``), refused for Gaussian
    C_i with few rows (a dense C_iᵀC_i block per node), where it made the mixed 10⁵-variable loop 2× slower."""
    # the C&L worst case at κ_C = 10: 2 C products per step through dense √W_C blocks, P with the pattern of CᵀC
    assert sparse_is_cheaper(nnz_P=20_000, products=8, factor_nnz=40_000, size=2_000)
    # 1000 nodes, C_i Gaussian 2 × 80: P has 80 entries per row (6.4·10⁶), 4 products by 1.6·10⁵ entries
    assert not sparse_is_cheaper(nnz_P=6_400_000, products=4, factor_nnz=160_000, size=80_000)


def test_gaussian_local_constraints_keep_the_recurrence():
    from mixbounds.instances.families import build
    from mixbounds.solvers.materialize import MATERIALIZE_LIMIT

    P = build("random-coupled-local", n=8, d=80, p=2, m=3, seed=0).problem
    assert P.layout.dx > MATERIALIZE_LIMIT
    R = Reformulation(P)
    assert "C" in R.inner and R.info["materialized"]["C'"] is False


@pytest.mark.parametrize("name", ["coupled", "coupled_local", "mixed"])
def test_spectral_constants_equal_exact_ones(name):
    from test_reformulations import small

    P = small(name, seed=2)
    a = Reformulation(P, constants="exact")
    b = Reformulation(P, constants="spectral")
    assert b.mu_G == pytest.approx(a.mu_G, rel=CONSTANTS_RTOL)
    assert b.L_G == pytest.approx(a.L_G, rel=CONSTANTS_RTOL)
    assert b.info["constants_G"]["mu_G_lemma"] <= b.mu_G and b.L_G <= b.info["constants_G"]["L_G_lemma"]


def test_spectral_constants_converge_faster_than_lemma_ones():
    from test_reformulations import small

    P = small("coupled", seed=2)
    lem = solve(P, eps=1e-8, constants="lemma")
    spe = solve(P, eps=1e-8, constants="spectral")
    assert lem.converged and spe.converged
    assert spe.iterations < lem.iterations


@pytest.mark.parametrize("band", [0, 256])
def test_large_W_checks_without_dense_eigenvalues(monkeypatch, band):
    """Assumption ass:W on a "large" W (DENSE_LIMIT forced down): Lanczos off the consensus line (band 0) or
    the banded solver (narrow band) accept a valid W and name an indefinite one and one with a 2-dimensional kernel."""
    from mixbounds.instances import problem as problem_mod
    from mixbounds.instances.layout import Layout
    from mixbounds.instances.objectives import QuadraticObjective

    monkeypatch.setattr(problem_mod, "DENSE_LIMIT", 4)
    monkeypatch.setattr(spectral, "BANDED_LIMIT", band)
    n = 30
    obj = QuadraticObjective([np.eye(2)] * n, [np.ones(2)] * n, Layout((0,) * n, 2))

    def make(W):
        return problem_mod.MixedProblem(W, obj, obj.layout)

    make(laplacian(erdos_renyi_adjacency(n, 0.3, seed=3)))  # valid: accepted
    w = np.ones(n - 1)
    w[n // 2] = -5.0  # one negative edge weight on a path: W·1 = 0, connected, indefinite
    Wneg = sp.diags([np.r_[w, 0] + np.r_[0, w], -w, -w], [0, 1, -1], format="csr")
    with pytest.raises(ValueError, match="not positive semidefinite"):
        make(Wneg)
    u = np.r_[np.ones(n // 2), -np.ones(n - n // 2)]
    u -= u.mean()
    u /= np.linalg.norm(u)
    W2 = np.eye(n) - np.ones((n, n)) / n - np.outer(u, u)  # PSD, W·1 = 0, kernel span(1, u)
    with pytest.raises(ValueError, match="kernel has dimension > 1"):
        make(sp.csr_matrix(W2))


def _ring(n):
    i = np.arange(n)
    return laplacian(sp.csr_matrix((np.ones(2 * n), (np.r_[i, (i + 1) % n], np.r_[(i + 1) % n, i])), shape=(n, n)))


#: a ring Laplacian's λ_min+ by shift-invert against its closed form 2 − 2cos(2π/n) (measured 1.2e-10 at n = 6000,
#: 7.4e-10 at n = 10⁴: the LU of W − σI has condition ~ λ_max/|σ| = 10⁷)
RING_RTOL = 1e-8


@pytest.mark.parametrize("n,patch", [(400, True), (6000, False)])
def test_narrow_singular_band_uses_shift_invert(monkeypatch, n, patch):
    """A ring (bandwidth 2 after RCM, singular) too large for LAPACK's selective banded solver: shift-invert, not
    Lanczos (484 s on a 10⁴-node ring).  n = 400 with the size limits patched; n = 6000 for real (n² > the
    explicit-deflation limit)."""
    if patch:
        monkeypatch.setattr(spectral, "EXPLICIT_DEFLATION_NNZ", 0)
        monkeypatch.setattr(spectral, "DENSE_LIMIT", 100)
        monkeypatch.setattr(spectral, "BANDED_SINGULAR_DENSE", 100)
    e = gossip_spectrum(_ring(n))
    assert e.method == "shift-invert (narrow band)"
    assert e.lmax == pytest.approx(4.0, rel=1e-8)
    assert e.lmin_pos == pytest.approx(2 - 2 * np.cos(2 * np.pi / n), rel=RING_RTOL)


@pytest.mark.parametrize("graph", ["ring", "er"])
def test_gossip_validation_extremes_of_a_large_W(graph):
    """Assumption ass:W's eigenvalue checks above the dense limit: banded (ring, λ_max included) or Lanczos (ER)."""
    from mixbounds.instances.problem import _extremes_large

    n = 1600
    W = _ring(n) if graph == "ring" else laplacian(erdos_renyi_adjacency(n, degree=10.0, seed=1))
    ev = np.linalg.eigvalsh(W.toarray())
    l1, l2, lmax = _extremes_large(sp.csr_matrix(W))
    assert abs(l1) <= 1e-12 * ev[-1]
    assert l2 == pytest.approx(ev[1], rel=DEFLATION_RTOL)
    assert lmax == pytest.approx(ev[-1], rel=1e-8)
