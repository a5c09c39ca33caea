"""The factored products of ``S ⊗ I_K`` matrices (mixbounds.instances.kron_identity) and the per-node norms of the
inner solver: recognised only when exact, and the same floats as the plain CSR products they replace."""

import numpy as np
import pytest
import scipy.sparse as sp
from mixbounds.instances.families import build
from mixbounds.instances.kron_identity import KronIdentity, kron_identity, normal_matrix
from mixbounds.instances.kron_identity import canonical_csr as _canonical
from mixbounds.solvers.baselines._common import NodeNorms
from mixbounds.solvers.chebyshev import Chebyshev
from mixbounds.solvers.oracles import CountedOracles, spmv

pytestmark = pytest.mark.numerics

#: relative agreement of two summation orders of the same squares (NodeNorms against np.bincount)
SUM_ORDER_RTOL = 1e-13


def _dense_block(rng, k):
    S = rng.standard_normal((k, k))
    return S @ S.T


def _kron_block_diag(rng, sizes, K):
    S = sp.block_diag([sp.csr_matrix(_dense_block(rng, k)) for k in sizes], format="csr")
    return S, _canonical(sp.kron(S, sp.identity(K), format="csr"))


@pytest.mark.parametrize("K", [2, 7, 204])
def test_a_kron_with_identity_is_recognised_and_multiplies_bit_for_bit(K):
    rng = np.random.default_rng(K)
    S, M = _kron_block_diag(rng, (5, 3, 5), K)
    kr = kron_identity(M)
    assert isinstance(kr, KronIdentity)
    assert kr.shape == M.shape and kr.nnz == M.nnz
    assert kr.K % K == 0  # the largest K: S itself may have more structure, never less
    x = rng.standard_normal(M.shape[1])
    assert np.array_equal(kr.matvec(x), spmv(M, x))
    X = rng.standard_normal((M.shape[1], 3))
    assert np.array_equal(kr.matvec(X), spmv(M, X))
    assert np.array_equal(kr @ x, spmv(M, x))


def test_a_rectangular_kron_is_recognised():
    rng = np.random.default_rng(1)
    S = sp.random(4, 6, density=0.6, random_state=2, format="csr")
    M = _canonical(sp.kron(S, sp.identity(9), format="csr"))
    kr = kron_identity(M)
    assert kr is not None and kr.shape == (36, 54)
    x = rng.standard_normal(54)
    assert np.array_equal(kr.matvec(x), spmv(M, x))


def test_matrices_that_only_look_like_one_keep_the_csr_product():
    """Negative controls: one changed value, one missing copy, an extra entry off the pattern, a random matrix."""
    rng = np.random.default_rng(3)
    _, M = _kron_block_diag(rng, (4, 4), 6)
    assert kron_identity(M) is not None
    changed = M.copy()
    changed.data[len(changed.data) // 2] *= 1.0 + 1e-15 * 8
    assert kron_identity(changed) is None
    missing = M.tolil()
    r, c = M.nonzero()
    missing[r[5], c[5]] = 0.0
    assert kron_identity(_canonical(missing.tocsr())) is None  # explicit zero dropped: one copy short
    extra = M.tolil()
    extra[0, 1] = 1.0  # offset 1: breaks the stride
    assert kron_identity(_canonical(extra.tocsr())) is None
    assert kron_identity(_canonical(sp.random(60, 60, density=0.1, random_state=4))) is None
    assert kron_identity(sp.identity(12, format="csr").tocsc()) is None  # only CSR is read


def test_normal_matrix_and_sparse_polynomial_equal_the_expanded_ones_bit_for_bit():
    rng = np.random.default_rng(5)
    _, B = _kron_block_diag(rng, (6, 6), 11)
    G = normal_matrix(B)
    assert isinstance(G, KronIdentity)
    full = _canonical(B.T @ B)
    expanded = _canonical(sp.kron(G.S, sp.identity(G.K), format="csr"))
    assert np.array_equal(full.indptr, expanded.indptr) and np.array_equal(full.indices, expanded.indices)
    assert np.array_equal(full.data, expanded.data)
    ev = np.linalg.eigvalsh(G.S.toarray())
    ch = Chebyshev(lambda v: full @ v, ev.max(), ev[ev > 1e-9 * ev.max()].min(), 6, name="BᵀB")
    P_full = ch.sparse_P(full, 10 ** 7)
    P_kron = ch.sparse_P(G, 10 ** 7)
    assert isinstance(P_kron, KronIdentity)
    P_exp = _canonical(sp.kron(P_kron.S, sp.identity(P_kron.K), format="csr"))
    assert np.array_equal(P_full.indices, P_exp.indices) and np.array_equal(P_full.data, P_exp.data)
    # the fill-in limit means the same on both: abandoned together
    small_limit = P_full.nnz - 1
    assert ch.sparse_P(full, small_limit) is None and ch.sparse_P(G, small_limit) is None
    assert ch.sparse_P(G, P_full.nnz) is not None


def test_a_matrix_without_the_structure_gets_the_plain_normal_matrix():
    B = _canonical(sp.random(30, 20, density=0.2, random_state=6))
    G = normal_matrix(B)
    assert sp.issparse(G) and abs(G - B.T @ B).max() == 0.0


def test_the_printed_coupled_local_construction_uses_the_factored_products():
    """The construction this exists for: C of ``thm:lower_coupled_local`` is √W_C ⊗ I_K blocks; a change that loses
    the recognition would go unseen by every count (the products are the same) but cost the full tier hours."""
    inst = build("coupled-local", kappa_f=10.0, kappa_AC=30.0, kappa_C=30.0, kappa_W=10.0)
    orc = CountedOracles(inst.problem)
    assert isinstance(orc._bC, KronIdentity) and isinstance(orc._bCT, KronIdentity)
    x = np.random.default_rng(7).standard_normal(inst.problem.layout.dx)
    assert np.array_equal(orc.C(x), spmv(_canonical(inst.problem.bC), x))
    assert orc.counts["C"] == 1


def test_node_norms_equal_bincount_over_the_u_layout():
    rng = np.random.default_rng(8)
    node = np.r_[np.repeat(np.arange(4), [3, 5, 2, 4]), np.repeat(np.arange(4), 3)]  # x blocks, then X̃ rows
    v = rng.standard_normal(node.size)
    ref = np.sqrt(np.bincount(node, weights=v * v, minlength=5))
    got = NodeNorms(node, 5)(v)
    assert got.shape == (5,) and got[4] == 0.0
    np.testing.assert_allclose(got, ref, rtol=SUM_ORDER_RTOL, atol=0)
    with pytest.raises(ValueError, match="length"):
        NodeNorms(node, 5)(v[:-1])


def test_a_wrong_factored_product_is_refused_when_the_oracles_are_built(monkeypatch):
    """The oracles check the factored product against the CSR one on a probe: a defect in it (here one row of the
    output zeroed) is a RuntimeError at once, not a run that never converges."""
    inst = build("coupled-local", kappa_f=10.0, kappa_AC=30.0, kappa_C=30.0, kappa_W=10.0)
    good = KronIdentity.matvec

    def broken(self, x):
        y = good(self, x)
        y[0] = 0.0
        return y

    monkeypatch.setattr(KronIdentity, "matvec", broken)
    with pytest.raises(RuntimeError, match="differs from its CSR product"):
        CountedOracles(inst.problem)


def test_equal_diagonal_blocks_are_found_and_nothing_else():
    """The block size of a block-diagonal matrix with equal contiguous blocks; ``None`` for one block, unequal
    blocks, or blocks whose indices interleave (the batched product reads contiguous blocks)."""
    from mixbounds.solvers.materialize import equal_diagonal_blocks

    path = sp.diags([np.ones(4), -np.ones(3), -np.ones(3)], [0, 1, -1], format="csr")
    assert equal_diagonal_blocks(sp.block_diag([path] * 3, format="csr")) == 4
    assert equal_diagonal_blocks(path) is None  # one block
    assert equal_diagonal_blocks(sp.block_diag([path, path[:3, :3]], format="csr")) is None  # unequal
    perm = np.arange(8).reshape(2, 4).T.ravel()  # the two blocks' indices interleaved
    mixed = sp.block_diag([path, path], format="csr")[perm][:, perm]
    assert equal_diagonal_blocks(mixed.tocsr()) is None


#: the dense and the sparse evaluation of the same recurrence add the same terms in different orders
DENSE_P_RTOL = 1e-12


def test_dense_polynomial_equals_the_sparse_one():
    rng = np.random.default_rng(7)
    S = sp.random(12, 12, density=0.3, random_state=8) + sp.identity(12)
    G = (S.T @ S).tocsr()
    ev = np.linalg.eigvalsh(G.toarray())
    ch = Chebyshev(lambda v: G @ v, ev.max(), ev.min(), 9, name="G")
    dense, sparse = ch.dense_P(G.toarray()), ch.sparse_P(G, 10 ** 6).toarray()
    assert np.linalg.norm(dense - sparse) <= DENSE_P_RTOL * np.linalg.norm(sparse)
    v = rng.standard_normal(12)
    assert np.linalg.norm(dense @ v - ch.apply_P(v)) <= DENSE_P_RTOL * np.linalg.norm(v) * np.linalg.norm(dense)
