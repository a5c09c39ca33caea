"""Extreme eigen/singular values: dense and iterative paths, kernels, relative thresholds."""

import numpy as np
import pytest
import scipy.sparse as sp
from helpers import path_laplacian
from hypothesis import given
from hypothesis import strategies as st
from mixbounds.bounds.spectral import (
    ZERO_RTOL,
    largest_eigenvalue,
    smallest_eigenvalue,
    sv_extremes,
    sv_max_sq,
    sym_extremes,
)

#: agreement required between the dense and the iterative path
PATH_AGREEMENT = 1e-7


def test_path_laplacian_closed_form():
    """λ_max = 2(1 + cos(π/n)), λ_min+ = 2(1 − cos(π/n)) for the unweighted path (app:example_graph)."""
    for n in (6, 30, 99):
        e = sym_extremes(path_laplacian(n).toarray())
        assert e.lmax == pytest.approx(2 * (1 + np.cos(np.pi / n)), rel=1e-12)
        assert e.lmin_pos == pytest.approx(2 * (1 - np.cos(np.pi / n)), rel=1e-9)


@pytest.mark.parametrize("n", [200, 500])
def test_dense_and_iterative_agree_on_overlap(n):
    L = path_laplacian(n)
    d = sym_extremes(L, method="dense")
    i = sym_extremes(L, method="iterative")
    k = sym_extremes(L, method="iterative", kernel=np.full((n, 1), n ** -0.5))
    for other in (i, k):
        assert other.lmax == pytest.approx(d.lmax, rel=PATH_AGREEMENT)
        assert other.lmin_pos == pytest.approx(d.lmin_pos, rel=PATH_AGREEMENT)


def test_large_sparse_path_is_banded_and_exact():
    n = 20000
    e = sym_extremes(path_laplacian(n))
    assert e.method == "banded"
    assert e.lmax == pytest.approx(2 * (1 + np.cos(np.pi / n)), rel=1e-12)
    assert e.lmin_pos == pytest.approx(2 * (1 - np.cos(np.pi / n)), rel=1e-6)


@pytest.mark.parametrize("n", [300, 1200])
def test_banded_agrees_with_dense_and_iterative(n):
    rng = np.random.default_rng(n)
    # a random symmetric PSD matrix with bandwidth 3 (Gram of a banded matrix), rows shuffled
    B = sp.diags([rng.standard_normal(n) for _ in range(3)], [0, 1, 2], shape=(n, n))
    M = sp.csr_matrix(B.T @ B)
    p = rng.permutation(n)
    M = sp.csr_matrix(M[p][:, p])
    d = sym_extremes(M, method="dense")
    b = sym_extremes(M, method="banded")
    i = sym_extremes(M, method="iterative")
    for other in (b, i):
        assert other.lmax == pytest.approx(d.lmax, rel=PATH_AGREEMENT)
        assert other.lmin_pos == pytest.approx(d.lmin_pos, rel=PATH_AGREEMENT)


def test_structural_zero_rows_are_removed_exactly():
    n = 2000
    L = sp.block_diag([path_laplacian(n), sp.csr_matrix((500, 500))], format="csr")
    e = sym_extremes(L, method="iterative")
    assert e.lmin_pos == pytest.approx(2 * (1 - np.cos(np.pi / n)), rel=1e-6)


def test_wrong_kernel_basis_is_rejected():
    L = path_laplacian(20)
    bad = np.zeros((20, 1))
    bad[0] = 1.0
    with pytest.raises(ValueError, match="not in the kernel"):
        sym_extremes(L, kernel=bad)


def test_too_large_kernel_without_basis_is_an_error():
    # 1000 disconnected pairs: a kernel of dimension 1000 > MAX_KERNEL_ITER
    blocks = [sp.csr_matrix(np.array([[1.0, -1.0], [-1.0, 1.0]]))] * 1000
    M = sp.block_diag(blocks, format="csr")
    with pytest.raises(ValueError, match="kernel basis"):
        sym_extremes(M, method="iterative")


@given(st.integers(2, 30), st.integers(1, 30), st.floats(1e-6, 1e6))
def test_threshold_is_relative(r, c, scale):
    rng = np.random.default_rng(r * 100 + c)
    B = rng.standard_normal((r, c))
    e1 = sv_extremes(B)
    e2 = sv_extremes(scale * B)
    assert e2.lmax == pytest.approx(scale ** 2 * e1.lmax, rel=1e-9)
    assert e2.lmin_pos == pytest.approx(scale ** 2 * e1.lmin_pos, rel=1e-6)


@given(st.integers(3, 25), st.integers(1, 6))
def test_rank_deficient_singular_values(k, rank):
    rng = np.random.default_rng(k * 7 + rank)
    rank = min(rank, k)
    U = rng.standard_normal((k, rank))
    V = rng.standard_normal((rank, k + 3))
    B = U @ V
    e = sv_extremes(B)
    s = np.linalg.svd(B, compute_uv=False)
    s = s[s > np.sqrt(ZERO_RTOL) * s[0]]
    assert e.lmax == pytest.approx(s[0] ** 2, rel=1e-9)
    assert e.lmin_pos == pytest.approx(s[-1] ** 2, rel=1e-6)


def test_smallest_eigenvalue_sparse_and_dense():
    L = path_laplacian(2500)
    assert abs(smallest_eigenvalue(L)) < 1e-9
    M = L + 0.25 * sp.eye(2500)
    assert smallest_eigenvalue(M) == pytest.approx(0.25, rel=1e-8)


def test_smallest_eigenvalue_of_a_diagonal_block_is_its_smallest_entry_exactly():
    """The printed coupled worst case's Q_i = diag(μ_f·1_K, L_f·1_K): ARPACK's shift-invert gave μ_f
    to the last bit only, and which last bit depended on earlier allocations in the process."""
    K = 12068
    Q = sp.diags(np.concatenate([np.full(K, 1.0), np.full(K, 1e4)]), format="csr")
    assert smallest_eigenvalue(Q) == 1.0
    Z = sp.diags(np.concatenate([np.zeros(3), np.full(2000, 2.0)]), format="csr")
    assert smallest_eigenvalue(Z) == 0.0


#: agreement of LAPACK's tridiagonal bisection with the dense eigen-solver (both exact up to rounding)
TRIDIAG_REL = 1e-12


def test_smallest_eigenvalue_tridiagonal_matches_dense_after_a_permutation():
    rng = np.random.default_rng(5)
    n = 1700
    T = path_laplacian(n) + sp.diags(rng.uniform(0.1, 2.0, n))
    perm = rng.permutation(n)  # RCM must recover the band
    Tp = sp.csr_matrix(T)[perm][:, perm]
    dense = smallest_eigenvalue(Tp, method="dense")
    assert smallest_eigenvalue(Tp) == pytest.approx(dense, rel=TRIDIAG_REL)


def test_smallest_eigenvalue_wider_band_still_uses_shift_invert():
    L = path_laplacian(1700)
    D = sp.diags(np.random.default_rng(6).uniform(0.1, 2.0, 1700))
    M = sp.csr_matrix(L @ L + D)  # bandwidth 2: not tridiagonal
    assert smallest_eigenvalue(M) == pytest.approx(smallest_eigenvalue(M, method="dense"), rel=PATH_AGREEMENT)


#: relative accuracy of the Lanczos λ_max (mixbounds.bounds.spectral.LMAX_TOL is 1e-8 on the residual)
LMAX_REL = 1e-7


def test_largest_eigenvalue_alone_where_lambda_min_pos_needs_a_kernel():
    """A 1600x1600 PSD matrix with an 800-dimensional kernel and no zero row: ``λ_max`` alone is found
    (dense and Lanczos agree with the closed form 2·(1 + 0.5)), while ``sym_extremes`` (λ_min+ too)
    must give up without a kernel basis."""
    blk = sp.csr_matrix(np.array([[1.0, 1.0], [1.0, 1.0]]))
    M = sp.kron(sp.identity(800), blk, format="csr")
    M = M + 0.5 * sp.kron(sp.diags(np.r_[np.zeros(799), 1.0]), blk, format="csr")  # one larger block
    assert largest_eigenvalue(M, method="dense") == pytest.approx(3.0, rel=1e-12)
    assert largest_eigenvalue(M, method="iterative") == pytest.approx(3.0, rel=LMAX_REL)
    assert largest_eigenvalue(M) == pytest.approx(3.0, rel=LMAX_REL)
    with pytest.raises(ValueError, match="zero eigenvalues"):
        sym_extremes(M, method="iterative")
    B = sp.random(40, 90, density=0.2, random_state=3, format="csr")
    assert sv_max_sq(B) == pytest.approx(np.linalg.svd(B.toarray(), compute_uv=False)[0] ** 2, rel=1e-12)
    with pytest.raises(ValueError, match="unknown method"):
        largest_eigenvalue(M, method="banded")
