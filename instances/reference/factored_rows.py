"""The constraint matrix ``G`` of the KKT reference with its local rows as ``S ⊗ I_K``: the same products, faster.

``G`` (:func:`mixbounds.instances.reference.kkt.constraint_system`) stacks the coupled rows ``[A' 0]``, the local
rows ``[C 0]`` and the shared rows ``[0 C̃_s]``.  On the printed coupled + local and mixed constructions
(``thm:lower_coupled_local``, ``thm:lower_mixed``) ``C`` is ``S ⊗ I_K`` (:mod:`mixbounds.instances.kron_identity`)
and holds almost every stored entry of ``G``: at ``κ_C = 3·10⁴`` 26 244 000 of 26 265 600.  The Schur-complement
solve of a large reference (:class:`mixbounds.instances.reference.kkt._SchurKKT`) multiplies by ``G`` and ``Gᵀ``
thousands of times inside MINRES; as plain CSR those products were 84 % of the full tier's longest task.

:class:`FactoredRows` gives the same floats as the CSR products, bit for bit, not merely close ones:

* ``G v``: each row of ``G`` is a sum over its stored entries in column order from zero, which is what scipy's
  ``csr_matvec`` does for the plain rows and ``csr_matvecs`` on ``S`` for the factored ones;
* ``Gᵀ y``: scipy's product with the transpose adds, into each entry of the result, the terms of ``G``'s rows
  one by one in ascending row order.  Here the coupled rows are added first (into zeros), then the local rows are
  added in place in the same row order (:meth:`~mixbounds.instances.kron_identity.KronIdentity.rmatvec_add`), then
  the shared rows, which touch only the columns of ``x̃`` that no earlier row touches (so adding their separate sum
  is adding to zero).  :meth:`FactoredRows.of` accepts a ``G`` only when that column condition holds, and checks
  both products against the CSR ones on a probe when it is built (``RuntimeError`` on a difference: a defect,
  never a property of the instance).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from mixbounds.bounds.guards import SCALE_FLOOR
from mixbounds.instances.kron_identity import KronIdentity, kron_identity

#: the factored products must equal the CSR products on a probe vector to this relative distance (they are equal
#: bit for bit on scipy's kernels; tests/test_factored_rows.py asserts that)
PROBE_RTOL = 1e-12
#: fewer stored entries in the local rows than this: the plain CSR products are kept (detection costs a pass over
#: the entries and pays only where products are many and large)
MIN_NNZ = 1_000_000


class FactoredRows:
    """``G = [head; [S ⊗ I_K, 0]; tail]`` with plain CSR ``head`` (rows before the local ones) and ``tail`` (after)."""

    def __init__(self, head: sp.csr_matrix, local: KronIdentity, tail: sp.csr_matrix):
        self.head, self.local, self.tail = head, local, tail
        self.start = head.shape[0]
        self.stop = self.start + local.shape[0]
        self.shape = (self.stop + tail.shape[0], head.shape[1])
        self.dx = local.shape[1]
        self.head_T = sp.csr_matrix(head.T)
        self.tail_T = sp.csr_matrix(tail.T)

    @classmethod
    def of(cls, G: sp.csr_matrix, start: int, stop: int, dx: int, *, min_nnz: int = MIN_NNZ) -> FactoredRows | None:
        """``G`` with its rows ``start:stop`` (the local constraints, columns ``:dx``) factored, or ``None`` when they
        are not ``S ⊗ I_K``, have fewer than ``min_nnz`` entries, or the column condition of the module docstring
        fails."""
        if not (sp.isspmatrix_csr(G) and G.has_sorted_indices) or stop <= start:
            return None
        band = G[start:stop]
        if band.nnz < min_nnz or (band.nnz and band.indices.max() >= dx):
            return None
        head, tail = G[:start], G[stop:]
        if (head.nnz and head.indices.max() >= dx) or (tail.nnz and tail.indices.min() < dx):
            return None
        # the band has no entry right of dx (checked above): the same arrays read as a band × dx matrix, no copy
        kr = kron_identity(sp.csr_matrix((band.data, band.indices, band.indptr), shape=(band.shape[0], dx)))
        if kr is None:
            return None
        out = cls(head, kr, tail)
        out._probe(G)
        return out

    def _probe(self, G: sp.csr_matrix) -> None:
        rng = np.random.default_rng(0)
        for name, mine, ref, n in (("G v", self.matvec, lambda v: G @ v, G.shape[1]),
                                   ("Gᵀ y", self.rmatvec, lambda y: G.T @ y, G.shape[0])):
            p = rng.standard_normal(n)
            a, b = mine(p), ref(p)
            dist = np.linalg.norm(a - b) / max(np.linalg.norm(b), SCALE_FLOOR)
            if not dist <= PROBE_RTOL:
                raise RuntimeError(f"factored constraint rows (S ⊗ I_{self.local.K}): {name} differs from the CSR product "
                                   f"of the {G.shape[0]}×{G.shape[1]} matrix G (relative distance {dist:.2e})")

    def matvec(self, v: np.ndarray) -> np.ndarray:
        """``G @ v``."""
        out = np.empty(self.shape[0])
        out[: self.start] = self.head @ v
        out[self.start: self.stop] = self.local.matvec(v[: self.dx])
        out[self.stop:] = self.tail @ v
        return out

    def rmatvec(self, y: np.ndarray) -> np.ndarray:
        """``Gᵀ @ y``, the terms of each entry added in ascending row order of ``G`` (module docstring)."""
        out = self.head_T @ y[: self.start]
        self.local.rmatvec_add(y[self.start: self.stop], out[: self.dx])
        if self.tail.shape[0]:
            out += self.tail_T @ y[self.stop:]
        return out


__all__ = ["FactoredRows"]
