"""The KKT reference's constraint matrix with its local rows as ``S ⊗ I_K``
(mixbounds.instances.reference.factored_rows): accepted only when the products keep their floats, the same floats
bit for bit, and a defect is refused when the operator is built."""

import numpy as np
import pytest
import scipy.sparse as sp
from mixbounds.instances.families import build
from mixbounds.instances.kron_identity import KronIdentity, canonical_csr
from mixbounds.instances.reference import kkt, saddle_point
from mixbounds.instances.reference.factored_rows import FactoredRows

pytestmark = pytest.mark.numerics


def _G(rng, *, head=True, tail=True, K=6, dt=5):
    """``[A 0; S ⊗ I_K 0; 0 C̃]`` as :func:`kkt.constraint_system` stacks it; ``(G, start, stop, dx)``."""
    S = sp.random(7, 7, density=0.5, random_state=rng.integers(1 << 30), format="csr") + sp.identity(7)
    C = sp.kron(S, sp.identity(K), format="csr")
    dx = C.shape[1]
    blocks = []
    if head:
        blocks.append(sp.hstack([sp.random(4, dx, density=0.3, random_state=1), sp.csr_matrix((4, dt))]))
    blocks.append(sp.hstack([C, sp.csr_matrix((C.shape[0], dt))]))
    if tail:
        blocks.append(sp.hstack([sp.csr_matrix((3, dx)), sp.random(3, dt, density=0.8, random_state=2)]))
    G = canonical_csr(sp.vstack(blocks))
    start = 4 if head else 0
    return G, start, start + C.shape[0], dx


@pytest.mark.parametrize("head,tail", [(True, True), (True, False), (False, True), (False, False)])
def test_the_products_are_the_csr_products_bit_for_bit(head, tail):
    rng = np.random.default_rng(7)
    G, start, stop, dx = _G(rng, head=head, tail=tail)
    rows = FactoredRows.of(G, start, stop, dx, min_nnz=0)
    assert rows is not None and rows.local.K % 6 == 0
    for _ in range(3):
        v, y = rng.standard_normal(G.shape[1]), rng.standard_normal(G.shape[0])
        assert np.array_equal(rows.matvec(v), G @ v)
        assert np.array_equal(rows.rmatvec(y), G.T @ y)
        assert np.array_equal(rows.rmatvec(y), sp.csr_matrix(G.T) @ y)


def test_rows_that_break_the_summation_order_keep_the_plain_products():
    """Negative controls: shared rows that also touch x, coupled rows that touch x̃, local rows that are no
    ``S ⊗ I_K`` (one value changed), a band below the size threshold."""
    rng = np.random.default_rng(8)
    G, start, stop, dx = _G(rng)
    assert FactoredRows.of(G, start, stop, dx, min_nnz=0) is not None
    bad_tail = G.tolil()
    bad_tail[G.shape[0] - 1, 0] = 1.0
    assert FactoredRows.of(canonical_csr(bad_tail), start, stop, dx, min_nnz=0) is None
    bad_head = G.tolil()
    bad_head[0, G.shape[1] - 1] = 1.0
    assert FactoredRows.of(canonical_csr(bad_head), start, stop, dx, min_nnz=0) is None
    changed = G.copy()
    changed.data[changed.indptr[start + 3]] *= 1.0 + 1e-14
    assert FactoredRows.of(changed, start, stop, dx, min_nnz=0) is None
    assert FactoredRows.of(G, start, stop, dx, min_nnz=G.nnz + 1) is None


def test_a_wrong_factored_product_is_refused_when_built(monkeypatch):
    rng = np.random.default_rng(9)
    G, start, stop, dx = _G(rng)

    def off_by_one_row(self, y, out):
        y = y.copy()
        y[0] = 0.0
        (KronIdentity.__dict__["_orig"])(self, y, out)

    monkeypatch.setattr(KronIdentity, "_orig", KronIdentity.rmatvec_add, raising=False)
    monkeypatch.setattr(KronIdentity, "rmatvec_add", off_by_one_row)
    with pytest.raises(RuntimeError, match="Gᵀ y differs from the CSR product"):
        FactoredRows.of(G, start, stop, dx, min_nnz=0)


def test_the_schur_reference_is_unchanged_bit_for_bit(monkeypatch):
    """The printed coupled + local construction through the Schur-complement path with MINRES (forced by the
    thresholds), with and without the factored rows: the same solution and multipliers, bit for bit."""
    monkeypatch.setattr(saddle_point, "KKT_DIRECT_MAX_NNZ", 0)
    monkeypatch.setattr(saddle_point, "KKT_DIRECT_BEFORE_MINRES_NNZ", 0)
    monkeypatch.setattr(saddle_point, "SCHUR_DENSE_MAX", 0)
    inst = build("coupled-local", kappa_f=10.0, kappa_AC=10.0, kappa_C=100.0, kappa_W=10.0, variant="printed",
                 eps=1e-2)
    P = inst.problem
    G, _ = kkt.constraint_system(P)
    start = P.m if P.A is not None else 0
    rows = FactoredRows.of(G, start, start + P.bC.shape[0], P.layout.dx, min_nnz=0)
    assert rows is not None
    seen = []
    real_of = FactoredRows.of

    def spy(*a, **k):
        k["min_nnz"] = 0
        out = real_of(*a, **k)
        seen.append(out)
        return out

    monkeypatch.setattr(FactoredRows, "of", spy)
    with_rows = kkt.reference_solution(P)
    assert seen and seen[0] is not None and with_rows.method.startswith("kkt-schur")
    monkeypatch.setattr(FactoredRows, "of", lambda *a, **k: None)
    plain = kkt.reference_solution(P)
    assert np.array_equal(with_rows.u, plain.u)
    assert np.array_equal(with_rows.multipliers, plain.multipliers)
    assert with_rows.kkt_residual == plain.kkt_residual
