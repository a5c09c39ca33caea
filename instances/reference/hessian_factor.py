"""Solves with the Hessian ``H = Eᵀ∇²F E`` of a reference problem, exploiting its block structure.

In the original variables ``v = (x_1, …, x_n, x̃)`` of :mod:`mixbounds.instances.reference.kkt` the Hessian of
``Σ f_i(x_i, x̃)`` is

    H = [ Q_1              B_1 ]
        [      ⋱            ⋮  ]        Q_i = ∇²_{x_i x_i} f_i,  B_i = ∇²_{x_i x̃} f_i,
        [          Q_n     B_n ]        R = Σ_i ∇²_{x̃ x̃} f_i
        [ B_1ᵀ  …  B_nᵀ     R  ]

block diagonal without a shared variable (:class:`BlockCholesky`) and arrow-shaped with one
(:class:`ArrowCholesky`: the node blocks are eliminated and only the ``dt × dt`` Schur complement
``R − Σ B_iᵀ Q_i⁻¹ B_i`` is factored).  SuperLU of the whole ``H`` (32-bit indices) refused
10⁸ nonzeros and took 249 s for a random-mixed instance of 2·10⁵ variables; block by block the
factors take the space of the node blocks.  :func:`factor_hessian` picks the structure, or
``None`` when neither applies (the caller then uses ``splu``).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph

#: an H whose connected blocks (up to a permutation) all have at most this many rows is factored block by
#: block, a dense Cholesky each (:class:`BlockCholesky`), instead of by SuperLU
BLOCK_CHOL_MAX = 2000
#: largest shared-variable dimension dt whose dense dt × dt Schur complement :class:`ArrowCholesky` forms
ARROW_BORDER_MAX = 2000
#: H⁻¹-products with many right-hand sides (the border, Gᵀ) are formed this many float64 entries at a time
SOLVE_CHUNK_ENTRIES = 10_000_000


def _not_pd(what: str, exc: Exception) -> ValueError:
    return ValueError(f"reference solution: {what} is not positive definite ({exc}); is the objective strongly convex?")


class BlockCholesky:
    """Solves with a positive definite ``H`` that is block diagonal up to a permutation, block by block.

    The Hessian of a problem without a shared variable is ``diag(Q_1, …, Q_n)``.  :meth:`parts` finds
    the blocks (connected components of the pattern of ``H``); blocks of one size are stacked, checked
    positive definite by a batched Cholesky and inverted in one batched call, so a solve is one batched
    product per block size (a loop over 10⁶ singleton blocks, the diagonal ``X_i`` part of vertical-fl,
    would cost seconds per solve).  The refinement and the KKT-residual check of
    :mod:`mixbounds.instances.reference.kkt` stand behind the explicit inverses.
    """

    name = "block Cholesky"

    @staticmethod
    def parts(H: sp.spmatrix) -> list[np.ndarray] | None:
        """Index sets of the diagonal blocks of ``H``, or ``None`` if it has one block or one above BLOCK_CHOL_MAX."""
        ncomp, labels = csgraph.connected_components(H, directed=False)
        if ncomp < 2:
            return None
        order = np.argsort(labels, kind="stable")
        edges = np.searchsorted(labels[order], np.arange(ncomp + 1))
        if np.diff(edges).max() > BLOCK_CHOL_MAX:
            return None
        return [order[edges[k]:edges[k + 1]] for k in range(ncomp)]

    def __init__(self, H: sp.spmatrix, parts: list[np.ndarray]):
        Hc = sp.csr_matrix(H)
        sizes = np.array([len(p) for p in parts])
        self.groups: list[tuple[np.ndarray, np.ndarray]] = []
        for size in np.unique(sizes):
            idx = np.stack([parts[j] for j in np.flatnonzero(sizes == size)])
            blocks = self._blocks(Hc, idx)
            self._check_pd(blocks, idx)
            self.groups.append((idx, np.linalg.inv(blocks)))

    @staticmethod
    def _blocks(Hc: sp.csr_matrix, idx: np.ndarray) -> np.ndarray:
        """The ``k`` diagonal blocks ``H[idx_j, idx_j]`` of one size ``s`` as a dense ``(k, s, s)`` stack.

        When the blocks are consecutive rows stored densely in order (the node blocks the interior point of
        :mod:`mixbounds.instances.reference.lad_interior_point` writes), the CSR data already is that stack: it is read in place,
        after checking every column index (1.3 s of fancy indexing at 2·10⁷ entries otherwise, per factorisation)."""
        k, size = idx.shape
        r0 = int(idx[0, 0]) if idx.size else 0
        a = int(Hc.indptr[r0]) if idx.size else 0
        if (idx.size and np.array_equal(idx.ravel(), np.arange(r0, r0 + idx.size))
                and np.all(np.diff(Hc.indptr[r0:r0 + idx.size + 1]) == size)
                and (Hc.indices[a:a + idx.size * size].reshape(k, size, size)
                     == idx[:, None, :]).all()):
            return np.array(Hc.data[a:a + idx.size * size].reshape(k, size, size))
        sub = Hc[idx.ravel()][:, idx.ravel()].tocoo()
        blocks = np.zeros((k, size, size))
        blocks[sub.row // size, sub.row % size, sub.col % size] = sub.data
        return blocks

    @staticmethod
    def _check_pd(blocks: np.ndarray, idx: np.ndarray) -> None:
        try:
            np.linalg.cholesky(blocks)
        except np.linalg.LinAlgError:
            for j in range(len(blocks)):
                try:
                    np.linalg.cholesky(blocks[j])
                except np.linalg.LinAlgError as exc:
                    rows = np.sort(idx[j])
                    raise _not_pd(f"the Hessian block of rows {rows[0]}…{rows[-1]}", exc) from exc

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        return block_solve(self.groups, rhs)


def block_solve(groups: list[tuple[np.ndarray, np.ndarray]], rhs: np.ndarray) -> np.ndarray:
    """``rhs`` (one or several columns) multiplied block by block by the stacked inverses of ``groups``
    (``(index sets (k, s), inverses (k, s, s))`` per block size): one batched product per size."""
    out = np.empty(rhs.shape)
    for idx, inv in groups:
        r = rhs[idx]
        out[idx] = (inv @ r[..., None])[..., 0] if rhs.ndim == 1 else inv @ r
    return out


class ArrowCholesky:
    """Solves with the arrow-shaped positive definite ``H`` of the module docstring (border = the last ``dt`` rows).

    ``H = [[H_xx, H_xt], [H_tx, H_tt]]`` with ``H_xx`` block diagonal (:class:`BlockCholesky`).  The Schur
    complement ``S = H_tt − H_tx H_xx⁻¹ H_xt`` is positive definite when ``H`` is and is factored densely;
    a solve is one block elimination (two solves with ``H_xx`` and one with ``S``).
    """

    name = "arrow Cholesky"

    def __init__(self, Hxx: sp.csr_matrix, Hxt: sp.spmatrix, Htt: sp.spmatrix, parts: list[np.ndarray]):
        nx, border = Hxt.shape
        self.nx = nx
        self.inner = BlockCholesky(Hxx, parts)
        self.Hxt = sp.csc_matrix(Hxt)
        self.Htx = sp.csr_matrix(self.Hxt.T)
        S = np.asarray(Htt.toarray(), dtype=float)
        step = max(1, SOLVE_CHUNK_ENTRIES // max(nx, 1))
        for j in range(0, border, step):
            cols = self.Hxt[:, j:j + step].toarray()
            S[:, j:j + step] -= self.Htx @ self.inner.solve(cols)
        S = 0.5 * (S + S.T)
        try:
            self.schur = sla.cho_factor(S, lower=True, check_finite=False)
        except np.linalg.LinAlgError as exc:
            raise _not_pd("the Schur complement of the Hessian on the shared variable", exc) from exc

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        rx, rt = rhs[: self.nx], rhs[self.nx:]
        zt = sla.cho_solve(self.schur, rt - self.Htx @ self.inner.solve(rx), check_finite=False)
        return np.concatenate([self.inner.solve(rx - self.Hxt @ zt), zt])


def factor_hessian(H: sp.spmatrix, border: int = 0) -> BlockCholesky | ArrowCholesky | None:
    """The structured factorisation of ``H`` (``border``: the trailing shared-variable rows), or ``None``."""
    parts = BlockCholesky.parts(H)
    if parts is not None:
        return BlockCholesky(H, parts)
    nx = H.shape[0] - border
    if not 0 < border <= ARROW_BORDER_MAX or nx < 2:
        return None
    Hc = sp.csr_matrix(H)
    Hxx = Hc[:nx][:, :nx]
    parts = BlockCholesky.parts(Hxx)
    if parts is None:
        return None
    rest = Hc[:, nx:]
    return ArrowCholesky(Hxx, rest[:nx], rest[nx:], parts)
