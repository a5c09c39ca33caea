"""Vector layouts of problem (P).

Two orderings of the primal unknowns ``x_1, …, x_n`` (``x_i ∈ R^{d_i}``) and the
node copies ``x̃_1, …, x̃_n`` of the shared variable (``x̃_i ∈ R^{d̃}``):

* **u-layout** (solvers, objectives): ``u = (x_1, …, x_n, x̃_1, …, x̃_n)``.  The
  ``x̃`` part reshapes to an ``(n, d̃)`` array whose first axis is the node axis,
  so ``W`` acts on it as ``W @ X̃`` (never ``kron(W, I)``).
* **z-layout** (files, docs/design.md): node blocks one after another,
  ``z = (x_1, x̃_1, x_2, x̃_2, …)``; ``x_star.npy`` uses it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np


@dataclass(frozen=True)
class Layout:
    """Sizes ``d = (d_1, …, d_n)`` of the local variables and ``dt = d̃`` of the shared one."""

    d: tuple[int, ...]
    dt: int

    def __post_init__(self):
        if any((not isinstance(k, (int, np.integer))) or k < 0 for k in self.d):
            raise ValueError(f"Layout: local dimensions must be non-negative integers, got {self.d}")
        if self.dt < 0:
            raise ValueError(f"Layout: shared dimension must be non-negative, got {self.dt}")
        object.__setattr__(self, "d", tuple(int(k) for k in self.d))
        object.__setattr__(self, "dt", int(self.dt))

    @property
    def n(self) -> int:
        return len(self.d)

    @cached_property
    def x_offsets(self) -> np.ndarray:
        """``x_i = x[x_offsets[i]:x_offsets[i+1]]`` in the flat ``x`` part."""
        return np.concatenate([[0], np.cumsum(self.d)]).astype(np.int64)

    @property
    def dx(self) -> int:
        """``Σ d_i``."""
        return int(self.x_offsets[-1])

    @property
    def dxt(self) -> int:
        """``n · d̃``."""
        return self.n * self.dt

    @property
    def size(self) -> int:
        return self.dx + self.dxt

    def split(self, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """u-layout → (flat ``x`` of length Σd_i, ``X̃`` of shape (n, d̃)) as views."""
        return u[: self.dx], u[self.dx :].reshape(self.n, self.dt)

    def join(self, x: np.ndarray, Xt: np.ndarray) -> np.ndarray:
        return np.concatenate([np.asarray(x, float).ravel(), np.asarray(Xt, float).ravel()])

    @cached_property
    def z_to_u(self) -> np.ndarray:
        """Index array: ``u = z[z_to_u]``."""
        idx_x, idx_t = [], []
        pos = 0
        for di in self.d:
            idx_x.append(np.arange(pos, pos + di))
            pos += di
            idx_t.append(np.arange(pos, pos + self.dt))
            pos += self.dt
        parts = idx_x + idx_t
        return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)

    @cached_property
    def u_to_z(self) -> np.ndarray:
        """Index array: ``z = u[u_to_z]``."""
        inv = np.empty_like(self.z_to_u)
        inv[self.z_to_u] = np.arange(self.z_to_u.size)
        return inv

    def to_z(self, u: np.ndarray) -> np.ndarray:
        return np.asarray(u)[self.u_to_z]

    def from_z(self, z: np.ndarray) -> np.ndarray:
        z = np.asarray(z, dtype=float)
        if z.shape != (self.size,):
            raise ValueError(f"Layout.from_z: expected a vector of length {self.size}, got shape {z.shape}")
        return z[self.z_to_u]

    @cached_property
    def node_of_u(self) -> np.ndarray:
        """Node index of every u-layout entry."""
        z_node = np.repeat(np.arange(self.n), [di + self.dt for di in self.d])
        return z_node[self.z_to_u]

    def node_u_indices(self, i: int) -> np.ndarray:
        """u-layout indices of ``z_i = (x_i, x̃_i)``."""
        lo, hi = self.x_offsets[i], self.x_offsets[i + 1]
        return np.concatenate([np.arange(lo, hi), self.dx + i * self.dt + np.arange(self.dt)]).astype(np.int64)
