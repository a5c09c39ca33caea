"""The block-local constraints of the LAD reference problem, eliminated through their null spaces.

What: the lifted problem of :mod:`mixbounds.instances.reference.lad_interior_point` in the original variables ``v = (x, x̃)``
(Tables 3 and 4; the constraints of problem (P): coupled ``Σ A_i x_i = Σ b_i``, local ``C_i x_i = c_i``,
shared-variable ``C̃_i x̃ = c̃_i``) with every row of ``G v = h`` that acts on one ``x_i`` alone (the ``C_i``) or on
``x̃`` alone (the ``C̃_i``) replaced by a parametrisation of its solution set::

    x_i = x_i⁰ + N_i z_i,        x̃ = x̃⁰ + Ñ z̃,

``N_i``, ``Ñ`` orthonormal bases of the null spaces of the stacked rows of each block (ranks decided by the SVD),
``x_i⁰``, ``x̃⁰`` the minimum-norm solutions.  Those lie in the row spaces, orthogonal to ``N_i`` and ``Ñ``, so
``(μ/2)‖E v‖² = (μ/2)‖E v⁰‖² + (μ/2)‖Ê ẑ‖²`` (``Ê`` the copy map of the reduced layout).  Node ``i``'s data rows
``F_i (x_i, x̃) − y_i`` become ``F̂_i ẑ_i − ŷ_i`` with ``F̂_i = [F_i^x N_i, F_i^t Ñ]``,
``ŷ_i = y_i − F_i^x x_i⁰ − F_i^t x̃⁰``, and the remaining rows ``G_g`` (those across nodes: the coupled ``A_i``)
become ``G_g N``, ``h_g − G_g v⁰``.  It is the same problem: the same feasible set and the same objective up to
the constant ``(μ/2)‖E v⁰‖²``; a block whose rows are inconsistent is an error, never a silently projected point.

Why: the interior point's KKT system ``[[H, Gᵀ], [G, 0]]`` goes to a Schur complement on ``G`` above
:data:`mixbounds.instances.reference.saddle_point.KKT_DIRECT_MAX_NNZ`, and with more than :data:`mixbounds.instances.reference.saddle_point.SCHUR_DENSE_MAX` rows
that complement is applied by MINRES, inside every solve of every iteration.  ``nonsmooth-coupled-local`` at 10⁶
variables (n = 10⁴, d = 100, p = 2, m = 5) has 2·10⁴ local rows: its build was stopped after 7289 s.  After the
elimination only the m coupled rows remain (a dense 5 × 5 Schur complement); the identical ``C̃_i`` of the
``-ident`` families (``n·p̃`` rows of rank ``p̃``) become ``d̃ − p̃`` free directions of ``x̃``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from mixbounds.instances.layout import Layout

#: a block's rows must be satisfied by its minimum-norm solution to this relative residual (else inconsistent)
CONSISTENCY_RTOL = 1e-10


@dataclass(frozen=True)
class Reduction:
    """The reduced problem and the map back.  ``bases[g]`` / ``v0[g]``: null-space basis and particular solution of
    block ``g`` (``g < n``: ``x_g``; ``g = n``: ``x̃``), ``None`` for a block without rows of its own."""

    layout: Layout
    G: sp.csr_matrix
    h: np.ndarray
    feats: list
    ys: list
    bases: list
    v0: np.ndarray
    offsets: np.ndarray
    stats: dict

    def lift(self, z: np.ndarray) -> np.ndarray:
        """``v = v⁰ + N ẑ`` in the original variables."""
        v = self.v0.copy()
        pos = 0
        for g, N in enumerate(self.bases):
            a, b = self.offsets[g], self.offsets[g + 1]
            k = (b - a) if N is None else N.shape[1]
            v[a:b] += z[pos:pos + k] if N is None else N @ z[pos:pos + k]
            pos += k
        return v


def _groups(layout: Layout) -> np.ndarray:
    """Block of every column of ``v``: node ``i`` on ``x_i``, ``n`` on ``x̃``."""
    return np.concatenate([np.repeat(np.arange(layout.n), layout.d), np.full(layout.dt, layout.n)])


def row_blocks(G: sp.csr_matrix, layout: Layout) -> np.ndarray:
    """Block of every row of ``G`` when all its entries lie in one block, else −1 (rows across blocks, empty rows)."""
    group = _groups(layout)
    nnz = np.diff(G.indptr)
    out = np.full(G.shape[0], -1)
    on = nnz > 0
    if on.any():
        g = group[G.indices]
        starts = G.indptr[:-1][on]
        lo, hi = np.minimum.reduceat(g, starts), np.maximum.reduceat(g, starts)
        out[np.flatnonzero(on)[lo == hi]] = lo[lo == hi]
    return out


def _null_space(B: np.ndarray, c: np.ndarray, where: str) -> tuple[np.ndarray, np.ndarray, int]:
    """``(N, x⁰, rank)`` of ``B x = c``: orthonormal null-space basis, minimum-norm solution (checked)."""
    U, s, Vt = np.linalg.svd(B, full_matrices=B.shape[0] < B.shape[1])  # Vt square either way, U never n·p̃ squared
    rank = int(np.sum(s > max(B.shape) * np.finfo(float).eps * s[0])) if s.size and s[0] > 0 else 0
    x0 = Vt[:rank].T @ ((U[:, :rank].T @ c) / s[:rank])
    res = float(np.linalg.norm(B @ x0 - c))
    if res > CONSISTENCY_RTOL * (1.0 + float(np.linalg.norm(c))):
        raise ValueError(f"{where}: its constraint rows are inconsistent (minimum-norm residual {res:.1e} of "
                         f"|c| = {np.linalg.norm(c):.1e}, rank {rank} of {B.shape[0]} rows)")
    return np.ascontiguousarray(Vt[rank:].T), x0, rank


def eliminate(layout: Layout, G: sp.csr_matrix, h: np.ndarray, feats, ys) -> Reduction | None:
    """The reduction of the module docstring, or ``None`` when no row of ``G`` lies in a single block."""
    G = sp.csr_matrix(G)
    blk = row_blocks(G, layout)
    own = np.flatnonzero(blk >= 0)
    if own.size == 0:
        return None
    n, dt = layout.n, layout.dt
    offsets = np.concatenate([layout.x_offsets, [layout.dx + dt]])
    order = own[np.argsort(blk[own], kind="stable")]
    GL = sp.csr_matrix(G[order])
    cuts = np.searchsorted(blk[order], np.arange(n + 2))
    bases, v0 = [None] * (n + 1), np.zeros(layout.dx + dt)
    ranks = np.zeros(n + 1, dtype=int)
    for g in np.unique(blk[order]):
        a, b = offsets[g], offsets[g + 1]
        rows = GL[cuts[g]:cuts[g + 1]]
        where = "x̃ (shared-variable constraints)" if g == n else f"node {g} (local constraints)"
        bases[g], v0[a:b], ranks[g] = _null_space(rows[:, a:b].toarray(), h[order[cuts[g]:cuts[g + 1]]], where)
    widths = [int(offsets[g + 1] - offsets[g]) if N is None else N.shape[1] for g, N in enumerate(bases)]

    feats_r, ys_r = [], []
    Nt = bases[n]
    for i in range(n):
        F = np.asarray(feats[i], dtype=float)
        Fx, Ft = F[:, : layout.d[i]], F[:, layout.d[i]:]
        ys_r.append(np.asarray(ys[i], dtype=float).ravel() - Fx @ v0[offsets[i]:offsets[i + 1]] - Ft @ v0[offsets[n]:])
        feats_r.append(np.hstack([Fx if bases[i] is None else Fx @ bases[i], Ft if Nt is None else Ft @ Nt]))

    rest = np.flatnonzero(blk < 0)
    Grest = G[rest]
    Gr = sp.csr_matrix((0, sum(widths)))
    if rest.size:  # the rows across blocks (the coupled A_i), block by block times the bases
        Gg = sp.csc_matrix(Grest)
        parts = []
        for g, N in enumerate(bases):
            cols = Gg[:, offsets[g]:offsets[g + 1]]
            parts.append(cols if N is None else sp.csc_matrix(cols @ N) if cols.nnz
                         else sp.csc_matrix((rest.size, widths[g])))
        Gr = sp.csr_matrix(sp.hstack(parts))
    hr = h[rest] - Grest @ v0
    stats = {"eliminated_rows": int(own.size), "eliminated_rank": int(ranks.sum()), "kept_rows": int(rest.size),
             "variables": int(layout.dx + dt), "reduced_variables": int(sum(widths))}
    return Reduction(Layout(tuple(widths[:n]), widths[n]), Gr, hr, feats_r, ys_r, bases, v0, offsets, stats)
