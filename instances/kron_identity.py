"""Products with a sparse matrix that is ``S ⊗ I_K``: the worst-case constructions' local blocks.

The printed constructions of ``thm:lower_coupled_local`` and ``thm:lower_mixed`` act on chains of length ``K``
(Nesterov's chain, one copy per path-graph vertex): ``C_i = diag(√W_C ⊗ I_K, √W_C ⊗ I_K)`` with a dense
``√W_C``, so ``C = diag(C_i)`` is ``S ⊗ I_K`` with ``S`` block diagonal.  As a CSR matrix every entry of ``S``
is stored ``K`` times and a product reads them all, with strided access to ``x``; as ``S ⊗ I_K`` the product is
``S @ X`` with ``X = x`` viewed as ``(columns of S) × K``, each entry of ``S`` read once and ``K`` contiguous
entries of ``X`` per entry.  On the coupled + local construction at ``κ_C = 316`` (33 048 variables) this is
about four times faster and gives the same floats: scipy's ``csr_matvec`` and ``csr_matvecs`` add the same
products in the same order (column order within a row) starting from zero.

:func:`kron_identity` recognises the structure from the CSR matrix alone and verifies it exactly (every stored
entry is one of the ``K`` copies of an entry of ``S``, with its value, and there are ``K`` times as many), so a
matrix that only looks like one (a random block, a perturbed copy) keeps the plain CSR product.  Nothing about an
instance's data changes: the counted oracles (:mod:`mixbounds.solvers.oracles`) use the factored form for their
products and count them as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from math import gcd

import numpy as np
import scipy.sparse as sp

try:  # scipy's multi-vector CSR kernel (see mixbounds.solvers.oracles)
    from scipy.sparse._sparsetools import csr_matvecs as _csr_matvecs
except ImportError:  # pragma: no cover - a future scipy without the private module
    _csr_matvecs = None

#: entries whose ``column − row`` offsets are probed first: a matrix with no structure (offset gcd 1) is rejected
#: after reading this many, not all of its entries
PROBE = 4096


@dataclass(frozen=True)
class KronIdentity:
    """``S ⊗ I_K`` for a CSR ``S`` (sorted indices, float64): :meth:`matvec` is the product with the whole matrix."""

    S: sp.csr_matrix
    K: int

    @property
    def shape(self) -> tuple[int, int]:
        return self.S.shape[0] * self.K, self.S.shape[1] * self.K

    @property
    def nnz(self) -> int:
        """Stored entries of the whole matrix (``K`` per entry of ``S``)."""
        return self.S.nnz * self.K

    def __matmul__(self, x: np.ndarray) -> np.ndarray:
        return self.matvec(np.asarray(x))

    def content_parts(self) -> tuple:
        """What the matrix is a function of, for content keys (:func:`mixbounds.bounds.spectra_memo.content_key`)."""
        return ("S⊗I_K", self.S, self.K)

    def matvec(self, x: np.ndarray) -> np.ndarray:
        """``(S ⊗ I_K) @ x`` for a 1-D ``x`` or a 2-D ``x`` whose rows are the matrix's columns."""
        r, c = self.S.shape
        x = np.ascontiguousarray(x, dtype=np.float64)
        cols = self.K * (x.shape[1] if x.ndim == 2 else 1)  # row b of X: the K (× columns of x) entries of block b
        y = np.zeros(r * cols)
        if _csr_matvecs is None:  # pragma: no cover
            y[:] = (self.S @ x.reshape(c, cols)).ravel()
        else:
            _csr_matvecs(r, c, cols, self.S.indptr, self.S.indices, self.S.data, x.ravel(), y)
        return y.reshape((r * self.K, x.shape[1])) if x.ndim == 2 else y

    @cached_property
    def _ST(self) -> sp.csr_matrix:
        """``Sᵀ`` as CSR with sorted indices (row ``b``: the entries of column ``b`` of ``S`` by ascending row)."""
        ST = sp.csr_matrix(self.S.T)
        ST.sort_indices()
        return ST

    def rmatvec_add(self, y: np.ndarray, out: np.ndarray) -> None:
        """``out += (S ⊗ I_K)ᵀ @ y`` in place (1-D ``y`` and ``out``), adding the terms of each entry of ``out`` one
        by one in ascending row order of the matrix, as scipy's product with the transpose of the CSR matrix does
        (so a transposed product of stacked blocks keeps its floats: :mod:`mixbounds.instances.reference.factored_rows`)."""
        ST = self._ST
        r, c = ST.shape
        y = np.ascontiguousarray(y, dtype=np.float64)
        if _csr_matvecs is None or not out.flags.c_contiguous:  # pragma: no cover
            out += (ST @ y.reshape(c, self.K)).ravel()
            return
        _csr_matvecs(r, c, self.K, ST.indptr, ST.indices, ST.data, y, out)


def canonical_csr(M) -> sp.csr_matrix:
    """CSR with sorted indices, no duplicates and float64 data, ready for scipy's direct kernels (the form
    :func:`kron_identity` reads and :mod:`mixbounds.solvers.oracles` multiplies with)."""
    M = sp.csr_matrix(M, dtype=np.float64)
    M.sum_duplicates()
    M.sort_indices()
    return M


def normal_matrix(B):
    """``BᵀB``, as ``(SᵀS) ⊗ I_K`` when ``B = S ⊗ I_K`` (the same entries as the expanded product, ``K`` times
    fewer to compute: scipy forms both row by row with the same terms in the same order), else the sparse ``BᵀB``."""
    B = canonical_csr(B)
    kr = kron_identity(B)
    if kr is None:
        return (B.T @ B).tocsr()
    return KronIdentity((kr.S.T @ kr.S).tocsr(), kr.K)


def _offset_gcd(rows: np.ndarray, cols: np.ndarray, start: int) -> int:
    """gcd of ``start`` and every ``|column − row|`` (0 when all are 0)."""
    d = np.abs(cols.astype(np.int64) - rows)
    return gcd(start, int(np.gcd.reduce(d))) if d.size else start


def kron_identity(M: sp.csr_matrix, *, min_k: int = 2) -> KronIdentity | None:
    """``M`` as ``S ⊗ I_K`` with the largest such ``K >= min_k``, or ``None`` when ``M`` is not of that form.

    ``M``: a CSR matrix with sorted indices and no duplicates (as :func:`canonical_csr`
    returns).  ``K`` divides both dimensions and every ``column − row`` offset (an entry ``(aK + k, bK + k)`` of
    ``S ⊗ I_K`` has offset ``(b − a)K``); the candidate ``S`` is read off the rows ``aK`` and accepted only if every
    stored entry of ``M`` equals its entry of ``S`` and ``M`` stores exactly ``K`` copies of each (explicit zeros
    are dropped first).
    """
    if not sp.issparse(M) or M.format != "csr":
        return None
    M = M.copy()
    M.eliminate_zeros()
    r, c = M.shape
    if M.nnz == 0 or r == 0 or c == 0:
        return None
    rows = np.repeat(np.arange(r, dtype=np.int64), np.diff(M.indptr))
    cols = M.indices.astype(np.int64)
    K = _offset_gcd(rows[:PROBE], cols[:PROBE], gcd(r, c))
    if K < min_k:
        return None
    K = _offset_gcd(rows, cols, K)
    if K < min_k or np.any(rows % K != cols % K):
        return None
    lead = rows % K == 0
    S = sp.csr_matrix((M.data[lead], (rows[lead] // K, cols[lead] // K)), shape=(r // K, c // K))
    S.sum_duplicates()
    S.sort_indices()
    if S.nnz * K != M.nnz:
        return None
    # every entry of M must be the copy of a stored entry of S with the same value: look each one up in S's rows
    pos = np.searchsorted(np.repeat(np.arange(S.shape[0]), np.diff(S.indptr)) * (c // K) + S.indices,
                          (rows // K) * (c // K) + cols // K)
    pos = np.minimum(pos, S.nnz - 1)
    key_s = np.repeat(np.arange(S.shape[0]), np.diff(S.indptr))[pos] * (c // K) + S.indices[pos]
    if not (np.array_equal(key_s, (rows // K) * (c // K) + cols // K) and np.array_equal(S.data[pos], M.data)):
        return None
    return KronIdentity(S, K)
