"""The worst case of a solved PEP: coordinates of its points, its numerical rank, what carries its Lyapunov value.

The Gram blocks of the primal solution factor as ``G_b = X_bᵀX_b`` (eigen-decomposition, negative rounding
clipped); a leaf of block ``b`` gets the coordinates of its column of ``X_b`` in that block's segment of
``R^D`` (``D`` = number of leaves), so every point of the PEP is a vector of ``R^D`` and every form a number.

Rank: the number of eigenvalues of the Gram blocks above :data:`RANK_RTOL` times the largest.  A rank-1 worst
case is one-dimensional: every point is a multiple of one vector.  The *dual share* of a Lyapunov value is
its dual part over the whole (``V = primal + dual``); the *network share* (fixed networks) is the part of
``‖u⁰ − u*‖²`` in ``range P``, the directions the network acts on (:mod:`mixbounds.checks.pep.performance`).
"""

from __future__ import annotations

import numpy as np
from mixbounds.checks.pep.engine.conic import Solution
from mixbounds.checks.pep.engine.forms import Form, Vec
from mixbounds.checks.pep.engine.problem import PEP

#: eigenvalues of the worst-case Gram matrix above this fraction of the largest count for its rank: the SDP is
#: solved to 1e-6 (PEP_ACCURACY) in its entries and the interior-point iterate keeps eigenvalues of that order
#: in the directions it should not use; 1e-4 lies two decades above them
RANK_RTOL = 1e-4


class WorstCase:
    """Coordinates of the leaves of ``pep`` at the primal solution ``sol``."""

    def __init__(self, pep: PEP, sol: Solution):
        self.pep, self.sol = pep, sol
        D = len(pep.block_of)
        self.D = D
        self.X = np.zeros((D, D))
        self.eigs = []
        seg = 0
        lay = sol.layout
        for bl, ids in enumerate(lay.blocks):
            m = len(ids)
            if not m:
                continue
            lam, U = np.linalg.eigh(0.5 * (sol.gram[bl] + sol.gram[bl].T))
            self.eigs.extend(lam.tolist())
            F = U * np.sqrt(np.clip(lam, 0.0, None))  # rows: leaves, columns: coordinates of the block
            for a, leaf in enumerate(ids):
                self.X[leaf, seg:seg + m] = F[a]
            seg += m

    def coords(self, v: Vec) -> np.ndarray:
        out = np.zeros(self.D)
        for k, c in v.c.items():
            out += float(c) * self.X[k]
        return out

    def value(self, f) -> float:
        if not isinstance(f, Form):
            return float(f)
        s = float(f.c)
        for (i, j), c in f.q.items():
            s += float(c) * float(self.X[i] @ self.X[j])
        vals = self.sol.values
        for k, c in f.l.items():
            s += float(c) * float(vals[k])
        return s

    def rank(self) -> int:
        ev = np.asarray(self.eigs)
        top = float(ev.max(initial=0.0))
        return int(np.sum(ev > RANK_RTOL * top)) if top > 0 else 0

    def analysis(self, V: list, dual: list, network_share: float | None = None) -> dict:
        """``rank``, the leading normalised eigenvalues, dual shares of ``V⁰`` and ``V^K``, network share."""
        ev = np.sort(np.asarray(self.eigs))[::-1]
        top = float(ev[0]) if ev.size and ev[0] > 0 else 1.0
        v0, vk = self.value(V[0]), self.value(V[-1])
        d0, dk = self.value(dual[0]), self.value(dual[-1])
        out = {"rank": self.rank(), "rank_rtol": RANK_RTOL, "gram_eigs": [float(e / top) for e in ev[:4]],
               "dual_share_V0": d0 / v0 if v0 > 0 else float("nan"),
               "dual_share_VK": dk / vk if vk > 0 else float("nan")}
        if network_share is not None:
            out["network_share_u0"] = network_share
        return out
