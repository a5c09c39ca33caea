"""KKT solves whose Hessian has numerically singular node blocks: their near-null directions are deflated.

What: solves of ``[[H, Gᵀ], [G, 0]] (v, λ) = (r₁, r₂)`` for the interior point of
:mod:`mixbounds.instances.reference.lad_interior_point` on the large nonsmooth families (Tables 3 and 4), where ``H`` is block diagonal
over the nodes up to a border (``x̃``, the last ``border`` rows; arrow-shaped as in :mod:`mixbounds.instances.reference.hessian_factor`)
and ``G`` (the coupled rows ``Σ A_i x_i = b``) has few rows.

Why: with ``μ_f = 0`` a vertex of the absolute-deviation LP fits exactly (``Θ → ∞``) as many data rows as it has
free unknowns, less the coupled rows: a few nodes are left with fewer exactly fitted rows than block columns, and
their blocks ``F_iᵀΘ_iF_i`` become singular up to ~24 decades, while the KKT matrix stays regular (``G`` pins those
directions).  The block Cholesky of the Schur-complement path then refused a block; the primal regularisation that
followed (:data:`mixbounds.instances.reference.lad_interior_point.PRIMAL_REG`) perturbed every node block, and its refinement and GMRES
stalled: nonsmooth-coupled-local at 10⁶ variables ran 100 iterations to a dual residual of 2.3e-7 (tolerance 1e-10).

How: every node block ``B`` is inverted (its ∞-norm condition estimated from the inverse); a block that is not
positive definite or whose estimate exceeds ``1/DEFLATE_RTOL`` is eigendecomposed, ``B = U_r Λ_r U_rᵀ + Z Λ₀ Zᵀ``
with ``Λ₀`` the eigenvalues below ``DEFLATE_RTOL`` times its largest.  ``H_r⁺`` (the block inverses, the
pseudo-inverses ``U_r Λ_r⁻¹ U_rᵀ`` on the deflated blocks, zero on ``x̃``) is exact on the range; the columns of
``Y = [Z, e_x̃]`` (the deflated directions and the border coordinates) become unknowns ``c`` of a dense border
system together with ``λ``.  Writing ``v = v_r + Y c`` with ``v_r`` in the range of ``H_r``::

    v_r = H_r⁺ (r₁ − C e),      S e = (Yᵀr₁, r₂) − Cᵀ H_r⁺ r₁,      e = (c, λ),

    S = [[YᵀHY, YᵀGᵀ], [GY, 0]] − Cᵀ H_r⁺ C,      C = (H Y, Gᵀ) restricted to the node rows,

which is exact (the block rows of ``HZ`` are ``ZΛ₀``, orthogonal to the range, so only the border and ``Gᵀ`` columns
of ``C`` need solves).  ``S`` is symmetric and small (deflated directions + ``dt`` + rows of ``G``); its
pseudo-inverse comes from one eigendecomposition (redundant rows of ``G`` give zero eigenvalues).  Nothing is
regularised, so the interior point's refinement on the plain system converges.  Without deflated directions this is
the arrow/Schur elimination of :mod:`mixbounds.instances.reference.kkt` in one border system.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from mixbounds.instances.reference.hessian_factor import SOLVE_CHUNK_ENTRIES, BlockCholesky, block_solve

#: a node block's eigenvalues below this times its largest are deflated into the border system; only a block that is
#: not positive definite or whose ∞-norm condition estimate exceeds 1/DEFLATE_RTOL is eigendecomposed (the blocks
#: are Jacobi-scaled: unit diagonal)
DEFLATE_RTOL = 1e-10
#: largest border system (deflated directions + shared-variable dimension + rows of G) formed densely; above it
#: :class:`DeflatedKKT` refuses (:class:`BorderTooLarge`) and the interior point takes the Schur path instead
#: (regularising when that refuses a block)
BORDER_MAX = 3000


class BorderTooLarge(ValueError):
    """More deflated directions than :data:`BORDER_MAX` allows."""


class DeflatedKKT:
    """Refined-solve interface of :mod:`mixbounds.instances.reference.kkt` (``K0``, ``once``, ``name``) for the system of the
    module docstring.  ``parts``: index sets of the node blocks among the first ``nv − border`` rows (fixed pattern:
    the caller computes them once); ``K0``: the plain saddle-point operator (``[[H, Gᵀ], [G, 0]]``)."""

    name = "kkt-deflated (block eigen)"

    def __init__(self, H: sp.csr_matrix, G: sp.csr_matrix, border: int, parts: list[np.ndarray], K0):
        H = sp.csr_matrix(H)
        nv, nc = H.shape[0], G.shape[0]
        nx = nv - border
        self.nv, self.nx, self.K0 = nv, nx, K0
        Hxx = H[:nx][:, :nx] if border else H
        sizes = np.array([len(p) for p in parts])
        self.groups: list[tuple[np.ndarray, np.ndarray]] = []
        zrows, zcols, zvals = [], [], []  # the deflated eigenvectors, one column of Z each
        for size in np.unique(sizes):
            idx = np.stack([parts[j] for j in np.flatnonzero(sizes == size)])
            inv, null = _block_inverses(BlockCholesky._blocks(Hxx, idx))
            self.groups.append((idx, inv))
            for b, vecs in null:  # block b of this group: its deflated eigenvectors (columns)
                for j in range(vecs.shape[1]):
                    zrows.append(idx[b])
                    zcols.append(np.full(size, len(zvals)))
                    zvals.append(vecs[:, j])
        kz = len(zvals)
        self.nb = kz + border + nc
        if self.nb > BORDER_MAX:
            raise BorderTooLarge(f"deflated KKT: border system of {self.nb} rows ({kz} deflated directions, "
                                 f"shared variable {border}, {nc} constraints) exceeds BORDER_MAX = {BORDER_MAX}")
        Z = sp.csc_matrix((np.concatenate(zvals) if kz else np.zeros(0),
                           (np.concatenate(zrows) if kz else np.zeros(0, int),
                            np.concatenate(zcols) if kz else np.zeros(0, int))), shape=(nv, kz))
        Y = sp.hstack([Z, sp.csc_matrix((np.ones(border), (nx + np.arange(border), np.arange(border))),
                                        shape=(nv, border))], format="csc")
        self.Y, self.kz = Y, kz
        HY = sp.csc_matrix(H @ Y)
        # C = (H Y, Gᵀ) on the node rows; its deflated columns (Z Λ₀ there) are orthogonal to the range: left out
        C = sp.hstack([HY[:nx][:, kz:], sp.csc_matrix(G.T)[:nx]], format="csc")
        HC = np.empty(C.shape)
        step = max(1, SOLVE_CHUNK_ENTRIES // max(nx, 1))
        for j in range(0, C.shape[1], step):
            HC[:, j:j + step] = self._range_solve(C[:, j:j + step].toarray())
        S = np.zeros((self.nb, self.nb))
        ny = kz + border
        S[:ny, :ny] = (Y.T @ HY).toarray()
        if nc:
            GY = (G @ Y).toarray()
            S[ny:, :ny], S[:ny, ny:] = GY, GY.T
        S[kz:, kz:] -= C.T @ HC
        self.S, self.S_pinv = S, border_pinv(S)
        self.C, self.HC = sp.csr_matrix(C), HC
        self.name = f"kkt-deflated (block eigen, {kz} deflated direction{'s' if kz != 1 else ''})"

    def _range_solve(self, r: np.ndarray) -> np.ndarray:
        """``H_r⁺ r`` on the node rows (``r``: ``nx`` rows, one or several columns)."""
        return block_solve(self.groups, r)

    def once(self, rhs: np.ndarray) -> np.ndarray:
        """One solve of the module docstring's system (exact up to rounding; the caller refines)."""
        nv, nx, kz = self.nv, self.nx, self.kz
        r1, r2 = rhs[:nv], rhs[nv:]
        Hr = self._range_solve(r1[:nx])
        t = np.concatenate([self.Y.T @ r1, r2])
        t[kz:] -= self.C.T @ Hr
        VW, V = self.S_pinv
        e = VW @ (V.T @ t)
        v = np.zeros(nv)
        v[:nx] = Hr - self.HC @ e[kz:]
        v += self.Y @ e[: self.Y.shape[1]]
        return np.concatenate([v, e[self.Y.shape[1]:]])


def border_pinv(S: np.ndarray, equilibrate: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """``(P, V)`` with ``S⁺ = P Vᵀ``: the pseudo-inverse of the symmetric border matrix from one eigendecomposition,
    eigenvalues below ``ε·size·max|w|`` dropped (redundant rows of ``G``).  ``equilibrate``: symmetrically scaled by
    its largest row entries first, so that a deflated direction that ``G`` does not pin, whose row holds only its
    small eigenvalue (4e-11 beside entries of 1e5 on a 2·10⁵-variable instance), is not dropped by the cut-off."""
    S = 0.5 * (S + S.T)
    rmax = np.abs(S).max(axis=1, initial=0.0) if equilibrate else np.ones(S.shape[0])
    dq = 1.0 / np.sqrt(np.where(rmax > 0, rmax, 1.0))
    w, V = np.linalg.eigh(S * np.outer(dq, dq))
    keep = np.abs(w) > np.finfo(float).eps * S.shape[0] * np.abs(w).max(initial=0.0)
    V = V[:, keep] * dq[:, None]
    return V / w[keep], V


def _block_inverses(blocks: np.ndarray) -> tuple[np.ndarray, list]:
    """Inverses of the symmetric ``(k, s, s)`` stack, pseudo-inverses on the deflated blocks, and for each deflated
    block ``(b, Z_b)`` (its index, its near-null eigenvectors as columns; their eigenvalues ``Λ₀`` reach the border
    system through ``YᵀHY``)."""
    k, s = blocks.shape[:2]
    inv = np.zeros_like(blocks)
    pd = np.ones(k, dtype=bool)
    try:
        np.linalg.cholesky(blocks)
    except np.linalg.LinAlgError:
        for b in range(k):
            try:
                np.linalg.cholesky(blocks[b])
            except np.linalg.LinAlgError:
                pd[b] = False
    if pd.any():
        inv[pd] = np.linalg.inv(blocks[pd])
        cond = np.abs(blocks[pd]).sum(axis=2).max(axis=1) * np.abs(inv[pd]).sum(axis=2).max(axis=1)
        pd[np.flatnonzero(pd)[~(cond <= 1.0 / DEFLATE_RTOL)]] = False
    null = []
    bad = np.flatnonzero(~pd)
    if bad.size:
        w, U = np.linalg.eigh(blocks[bad])
        top = np.abs(w).max(axis=1, initial=0.0)
        small = w <= DEFLATE_RTOL * top[:, None]
        winv = np.where(small, 0.0, 1.0 / np.where(small, 1.0, w))
        inv[bad] = (U * winv[:, None, :]) @ U.transpose(0, 2, 1)
        for j, b in enumerate(bad):
            null.append((b, U[j][:, small[j]]))
    return inv, null
