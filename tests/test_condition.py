"""Condition numbers: the paper's own examples and property tests."""

import numpy as np
import pytest
import scipy.sparse as sp
from helpers import path_laplacian
from hypothesis import given
from hypothesis import strategies as st
from mixbounds.bounds import (
    L_S,
    group_kappa,
    interaction_matrix,
    kappa_f,
    kappa_W,
    kernel_basis_is_complete,
    mixed_kappa,
    projected_kappa,
)

#: relative tolerance for comparisons against closed forms computed in floating point
CLOSED_FORM_RTOL = 1e-8


def test_kappa_f():
    assert kappa_f(10.0, 0.5) == 20.0
    with pytest.raises(ValueError, match="μ_f must be positive"):
        kappa_f(1.0, 0.0)
    with pytest.raises(ValueError, match="L_f >= μ_f"):
        kappa_f(1.0, 2.0)


def test_kappa_W_path_graph():
    for n in (3, 12, 60):
        beta = (1 + np.cos(np.pi / n)) / (1 - np.cos(np.pi / n))
        assert kappa_W(path_laplacian(n)) == pytest.approx(beta, rel=CLOSED_FORM_RTOL)


@pytest.mark.parametrize("n", [2, 5, 17])
def test_mixed_kappa_coordinate_vectors(n):
    """Remark after def:mixed_condition_number: B_i = e_i gives κ̂_B = n and κ̂_{Bᵀ} = 1."""
    blocks = [np.eye(n)[:, [i]] for i in range(n)]  # e_i as an n×1 matrix
    assert mixed_kappa(blocks) == pytest.approx(n, rel=CLOSED_FORM_RTOL)
    assert mixed_kappa(blocks, transpose=True) == pytest.approx(1.0, rel=CLOSED_FORM_RTOL)


@given(st.integers(1, 8), st.integers(1, 7), st.integers(1, 7), st.integers(0, 10_000))
def test_equal_blocks_reduce_to_kappa(n, r, c, seed):
    """Equal B_i: κ̂_B = κ̂_{Bᵀ} = κ_B (second remark after def:mixed_condition_number)."""
    B = np.random.default_rng(seed).standard_normal((r, c))
    s = np.linalg.svd(B, compute_uv=False)
    s = s[s > 1e-4 * s[0]]
    kB = (s[0] / s[-1]) ** 2
    if (s[0] / s[-1]) ** 2 > 1e7:  # too close to rank-deficient for a meaningful comparison
        return
    blocks = [B] * n
    assert mixed_kappa(blocks) == pytest.approx(kB, rel=1e-6)
    assert mixed_kappa(blocks, transpose=True) == pytest.approx(kB, rel=1e-6)
    assert group_kappa(blocks) == pytest.approx(kB, rel=1e-6)


def test_group_kappa_skips_zero_blocks():
    blocks = [np.diag([1.0, 2.0]), np.zeros((2, 2)), np.diag([3.0, 0.5])]
    assert group_kappa(blocks) == pytest.approx(9.0 / 0.25)


def test_interaction_matrix_and_L_S():
    rng = np.random.default_rng(3)
    blocks = [rng.standard_normal((4, k)) for k in (2, 3, 5)]
    S = interaction_matrix(blocks)
    assert np.allclose(S, sum(B @ B.T for B in blocks) / 3)
    Ap = np.hstack(blocks)
    assert L_S(blocks) == pytest.approx(np.linalg.norm(Ap, 2) ** 2 / 3, rel=1e-10)
    with pytest.raises(ValueError, match="share their row dimension"):
        interaction_matrix([np.ones((2, 2)), np.ones((3, 2))])


def _brute_projected(Bs, Ds):
    """μ̃ from the definition: (1/n) σ_min+²(B' P_ker D) with explicit projectors."""
    Ps = []
    for B, D in zip(Bs, Ds):
        d = B.shape[1]
        if D is None:
            Ps.append(np.eye(d))
        else:
            Ps.append(np.eye(d) - np.linalg.pinv(D) @ D)
    BP = np.hstack([B @ P for B, P in zip(Bs, Ps)])
    s = np.linalg.svd(BP, compute_uv=False)
    s = s[s > np.sqrt(1e-9) * s[0]] if s.size and s[0] > 0 else s[:0]
    return (s[-1] ** 2 / len(Bs)) if s.size else 0.0


@given(st.integers(1, 5), st.integers(1, 4), st.integers(1, 6), st.integers(0, 3), st.integers(0, 10_000))
def test_projected_kappa_matches_definition(n, m, d, p, seed):
    """Def. def:projected_condition_number computed two ways; equality κ̃ = κ̂ when D = 0 (Remark rem:projected_condition_number)."""
    rng = np.random.default_rng(seed)
    Bs = [rng.standard_normal((m, d)) for _ in range(n)]
    Ds = [rng.standard_normal((p, d)) if p else None for _ in range(n)]
    pr = projected_kappa(Bs, Ds)
    mu_ref = _brute_projected(Bs, Ds)
    if mu_ref == 0:
        assert pr.mu == 0 and pr.kappa == 1.0
    else:
        assert pr.mu == pytest.approx(mu_ref, rel=1e-6)
    pr0 = projected_kappa(Bs, None)
    assert pr0.kappa == pytest.approx(mixed_kappa(Bs), rel=1e-8)


@pytest.mark.parametrize("t", [1.0, 3.0, 10.0])
def test_remark_inequality_fails_on_a_two_variable_example(t):
    """Remark rem:projected_condition_number claims κ̃_BD <= κ̂_B whenever μ̃ > 0.

    With n = 1, B = (1, t), D = (0, 1): B P_ker D = (1, 0), so μ̃ = 1 while
    λ_min+(S_B) = 1 + t²; κ̃ = 1 + t² but κ̂ = 1.  The remark's identity
    ker^⊥(M P_L) = ker^⊥M ∩ L is false here (left: span(e1), right: {0}).
    This pins the counterexample the suite reports as a finding (lemma checks).
    """
    B = np.array([[1.0, t]])
    D = np.array([[0.0, 1.0]])
    pr = projected_kappa([B], [D])
    assert pr.mu == pytest.approx(1.0, rel=CLOSED_FORM_RTOL)
    assert pr.kappa == pytest.approx(1 + t ** 2, rel=CLOSED_FORM_RTOL)
    assert mixed_kappa([B]) == pytest.approx(1.0, rel=CLOSED_FORM_RTOL)
    assert pr.kappa > mixed_kappa([B])


def test_projected_kappa_with_sparse_kernel_basis():
    """Supplied kernel bases (large-instance path) give the same μ̃ as the dense SVD path."""
    rng = np.random.default_rng(11)
    l, k = 6, 4
    Lc = path_laplacian(l).toarray()
    w, V = np.linalg.eigh(Lc)
    sqrtW = (V * np.sqrt(np.clip(w, 0, None))) @ V.T
    D = np.kron(sqrtW, np.eye(k))  # kernel: consensus over the l blocks
    N = np.kron(np.ones((l, 1)) / np.sqrt(l), np.eye(k))
    assert kernel_basis_is_complete(D, N)
    assert not kernel_basis_is_complete(D, N[:, :-1])
    Bs = [rng.standard_normal((3, l * k)) for _ in range(4)]
    Ds = [D] * 4
    ref = projected_kappa(Bs, Ds)
    via = projected_kappa(Bs, Ds, D_kernels=[sp.csr_matrix(N)] * 4)
    assert via.mu == pytest.approx(ref.mu, rel=1e-8)
    with pytest.raises(ValueError, match="not in ker"):
        projected_kappa(Bs, Ds, D_kernels=[sp.csr_matrix(np.eye(l * k)[:, :2])] * 4)


def test_group_L_equals_group_spectrum_L_and_needs_no_kernel():
    """``group_L`` = ``group_spectrum(...).L`` on mixed dense/sparse/zero/repeated blocks; on the printed
    coupled + local construction at κ_C = 100 (a 6120x6120 Gram with a large kernel) it returns the exact
    σ_max²(C_i) = λ_max(W_C) (``C_i = diag(√W_C⊗I, √W_C⊗I)``), compared with a dense eigenvalue of the
    small l×l path Laplacian rebuilt independently from the same κ_C."""
    from mixbounds.bounds.condition import group_L, group_spectrum
    from mixbounds.checks.run.framework import instance_and_reference
    from mixbounds.instances.graphs import tuned_path

    rng = np.random.default_rng(5)
    D = rng.standard_normal((3, 5))
    blocks = [D, sp.csr_matrix(rng.standard_normal((4, 4))), None, np.zeros((2, 3)), D.copy()]
    assert group_L(blocks) == pytest.approx(group_spectrum(blocks).L, rel=1e-12)
    assert group_L([None, np.zeros((2, 2))]) == 0.0
    inst, _ = instance_and_reference("coupled-local", {"kappa_f": 10.0, "kappa_AC": 30.0, "kappa_C": 100.0,
                                                       "kappa_W": 10.0, "eps": 1e-8})
    C = inst.problem.C
    assert C[0].shape[0] > 6000
    W_C = tuned_path(100.0).W.toarray()
    assert W_C.shape[0] == inst.params["l"]
    exact = float(np.linalg.eigvalsh(W_C).max())
    assert group_L(C, name="C") == pytest.approx(exact, rel=LMAX_RTOL)


#: the iterative λ_max is computed to ARPACK tol 1e-8 (mixbounds.bounds.spectral.LMAX_TOL); 1e-6 leaves headroom.
LMAX_RTOL = 1e-6


def test_iterative_lmin_pos_gives_up_after_the_kernel_limit(monkeypatch):
    """The documented failure mode of the iterative λ_min+ (more than ``MAX_KERNEL_ITER`` zero eigenvalues,
    no kernel basis) provoked deterministically: the eigen-solver is replaced by one that reports only
    zeros, so the test checks our stepping (k = 4, 8, …, 64) and message, not ARPACK's convergence."""
    import mixbounds.bounds.spectral as spectral

    asked = []

    def only_zeros(M, k, **kw):
        asked.append(k)
        return np.zeros(k)

    monkeypatch.setattr(spectral.spla, "eigsh", only_zeros)
    M = sp.identity(500, format="csr")
    with pytest.raises(ValueError, match="more than 64 zero eigenvalues in a 500x500 matrix; pass a kernel basis"):
        spectral._iterative_lmin_pos(M, 1.0, spectral.ZERO_RTOL)
    assert asked == [4, 8, 16, 32, 64]
    assert spectral.MAX_KERNEL_ITER == asked[-1]
