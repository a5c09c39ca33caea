"""The content-keyed memo of the spectral functions (:mod:`mixbounds.bounds.spectra_memo`).

A hit must return exactly what the computation returns (bit for bit), and nothing that could take another path may
share a key: another content, another storage, another method, other module constants.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from mixbounds.bounds import spectra_memo, spectral
from mixbounds.bounds.condition import group_spectrum, mixed_kappa, projected_kappa
from mixbounds.bounds.spectral import smallest_eigenvalue, sym_extremes
from mixbounds.instances.graphs import laplacian, path_adjacency


def path_graph_laplacian(n: int):
    return laplacian(path_adjacency(n))


@pytest.fixture(autouse=True)
def fresh_memo():
    spectra_memo.clear()
    yield
    spectra_memo.clear()


def _blocks(rng, n=6, m=3, d=5):
    return [sp.csr_matrix(rng.standard_normal((m, d))) for _ in range(n)]


def test_hit_returns_the_computed_value_bit_for_bit(rng):
    L = sp.csr_matrix(path_graph_laplacian(40))
    first = sym_extremes(L)
    again = sym_extremes(L)
    with spectra_memo.disabled():
        fresh = sym_extremes(L)
    assert again is first
    assert (again.lmax, again.lmin_pos, again.method) == (fresh.lmax, fresh.lmin_pos, fresh.method)
    st = spectra_memo.stats()
    assert (st["hits"], st["misses"]) == (1, 1)


def test_equal_content_in_another_object_hits(rng):
    B = _blocks(rng)
    first = group_spectrum(B)
    copy = [b.copy() for b in B]
    assert group_spectrum(copy) is first
    assert mixed_kappa(copy) == mixed_kappa(B)


def test_other_content_storage_or_method_misses(rng):
    M = sp.csr_matrix(path_graph_laplacian(30))
    e = sym_extremes(M)
    M2 = M.copy()
    M2.data[0] *= 1 + 1e-15  # one ulp-scale change of one entry: another matrix
    assert sym_extremes(M2) is not e
    assert sym_extremes(M.tocsc()) is not e  # another storage may take another path
    assert sym_extremes(M.toarray()) is not e
    assert sym_extremes(M, method="iterative") is not e
    assert spectra_memo.stats()["hits"] == 0


def test_module_constants_are_part_of_the_key(monkeypatch):
    M = sp.csr_matrix(path_graph_laplacian(30))
    dense = sym_extremes(M)
    monkeypatch.setattr(spectral, "DENSE_LIMIT", 10)  # forces the iterative path on the same matrix
    other = sym_extremes(M)
    assert other is not dense
    assert other.method != dense.method


def test_errors_are_not_stored_and_keep_their_name():
    bad = sp.csr_matrix(np.array([[1.0, np.nan], [np.nan, 1.0]]))
    for name in ("first", "second"):
        with pytest.raises(ValueError, match=name):
            sym_extremes(bad, name=name)
    assert spectra_memo.stats()["entries"] == 0


def test_unkeyable_argument_is_computed(rng):
    class Blocks(list):
        pass

    B = _blocks(rng)
    assert group_spectrum(Blocks(B)) == group_spectrum(B)  # a list subclass is keyed as a list

    class Opaque:
        def __init__(self, blocks):
            self.blocks = blocks

        def __len__(self):
            return len(self.blocks)

        def __iter__(self):
            return iter(self.blocks)

        def __getitem__(self, i):
            return self.blocks[i]

    before = spectra_memo.stats()["unkeyed"]
    assert group_spectrum(Opaque(B)) == group_spectrum.uncached(B)
    assert spectra_memo.stats()["unkeyed"] == before + 1


def test_projected_and_smallest_agree_with_uncached(rng):
    B = [rng.standard_normal((3, 6)) for _ in range(5)]
    D = [rng.standard_normal((2, 6)) for _ in range(5)]
    for _ in range(2):
        assert projected_kappa(B, D) == projected_kappa.uncached(B, D)
    Q = sp.diags(np.linspace(1.0, 50.0, 2000)).tocsr()
    for _ in range(2):
        assert smallest_eigenvalue(Q) == smallest_eigenvalue.uncached(Q)


def test_bounded(monkeypatch):
    monkeypatch.setattr(spectra_memo, "MEMO_ENTRIES", 3)
    for k in range(6):
        smallest_eigenvalue(np.diag([1.0 + k, 2.0, 3.0]))
    assert spectra_memo.stats()["entries"] == 3
