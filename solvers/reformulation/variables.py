"""The variables ``w = (x, Y, X̃)`` of the reformulations and their relation to the problem's u-layout.

``x`` is flat (``Σ d_i`` entries), ``Y`` of shape ``(n, m)`` the auxiliary variable of the coupled constraint
``A x + W'Y = b`` (``app:coupled_cons``; started at 0), ``X̃`` of shape ``(n, d̃)`` the node copies of the shared
variable (``prob:consensus_cons``).  Absent parts have length 0.  The original primal variables are ``(x, X̃)``, the
u-layout of :mod:`mixbounds.instances.layout`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mixbounds.solvers.chebyshev import dot


@dataclass(frozen=True)
class Variables:
    """Sizes and slices of ``w = (x, Y, X̃)``: ``n`` nodes, ``m`` rows of each ``A_i``, ``dx = Σ d_i``, ``dt = d̃``."""

    n: int
    m: int
    dx: int
    dt: int

    @property
    def sx(self) -> slice:
        """``x`` in ``w``."""
        return slice(0, self.dx)

    @property
    def sy(self) -> slice:
        """``Y`` (flattened, node-major) in ``w``."""
        return slice(self.dx, self.dx + self.n * self.m)

    @property
    def st(self) -> slice:
        """``X̃`` (flattened, node-major) in ``w``."""
        return slice(self.dx + self.n * self.m, self.size)

    @property
    def size(self) -> int:
        """Length of ``w``."""
        return self.dx + self.n * self.m + self.n * self.dt

    def to_u(self, w: np.ndarray) -> np.ndarray:
        """Original variables ``(x, X̃)`` in the u-layout."""
        return np.concatenate([w[self.sx], w[self.st]])

    def from_u(self, u: np.ndarray) -> np.ndarray:
        """Start ``w⁰ = (x⁰, Y = 0, X̃⁰)`` from a u-layout point."""
        u = np.asarray(u, dtype=float).ravel()
        size_u = self.dx + self.n * self.dt
        if u.shape != (size_u,):
            raise ValueError(f"from_u: expected a u-layout vector of length {size_u}, got shape {u.shape}")
        w = np.zeros(self.size)
        w[self.sx] = u[: self.dx]
        w[self.st] = u[self.dx:]
        return w

    def sq_distance(self, w: np.ndarray, u_star: np.ndarray, work: np.ndarray) -> float:
        """``‖(x, X̃)(w) − u*‖²`` without forming the u-layout vector (``work``: a buffer of the u-layout's length)."""
        dx = self.dx
        s = 0.0
        if dx:
            d = np.subtract(w[self.sx], u_star[:dx], out=work[:dx])
            s += dot(d, d)
        if self.dt:
            d = np.subtract(w[self.st], u_star[dx:], out=work[dx:])
            s += dot(d, d)
        return s
