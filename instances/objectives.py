"""Local objectives ``f_i(x_i, x̃)``, evaluated at all nodes at once.

An objective works on the u-layout vector of :mod:`mixbounds.instances.layout` and returns
the gradient of ``F(u) = Σ_i f_i(x_i, x̃_i)`` (each ``∇f_i`` lands in node ``i``'s
coordinates).  Constants refer to each ``f_i`` (Assumptions
``ass:smooth_and_str_convex_of_f_i`` and ``ass:nonsmooth_and_str_convex_of_f_i``):
``L`` = max_i smoothness, ``mu`` = min_i strong convexity, ``M`` = max_i bound
on subgradients (``None`` when unbounded / not applicable).
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from typing import Sequence

import numpy as np
import scipy.sparse as sp
from mixbounds.bounds.spectral import smallest_eigenvalue, sym_extremes
from mixbounds.instances.layout import Layout


def _to_sparse(M) -> sp.csr_matrix:
    return sp.csr_matrix(M, dtype=float)


def _block_key(Q, q) -> str:
    h = hashlib.blake2b(digest_size=16)
    Qc = _to_sparse(Q)
    Qc.sum_duplicates()
    for arr in (np.array(Qc.shape), Qc.indptr, Qc.indices, Qc.data):
        h.update(np.ascontiguousarray(arr).tobytes())
    return h.hexdigest()


def block_diag_u(blocks: Sequence, layout: Layout, *, square: bool = False) -> sp.csr_matrix:
    """Block-diagonal matrix acting on the u-layout.

    ``blocks[i]`` acts on ``z_i = (x_i, x̃_i)`` (``d_i + d̃`` columns); the result maps
    the u-layout vector to the stacked outputs ``(blocks[0] z_0, blocks[1] z_1, …)``.
    With ``square=True`` the rows are permuted to the u-layout as well (``P Z Pᵀ``),
    as for a Hessian.
    """
    Z = sp.block_diag([_to_sparse(B) for B in blocks], format="csr")
    if Z.shape[1] == 0:
        return sp.csr_matrix(Z)
    # u[k] = z[z_to_u[k]], so column k of the u-layout matrix is column z_to_u[k] of Z
    Z = sp.csr_matrix(Z[:, layout.z_to_u])
    if square:
        Z = sp.csr_matrix(Z[layout.z_to_u, :])
    return Z


class Objective(ABC):
    """``F(u) = Σ_i f_i(z_i)``.  Subclasses set ``layout``, ``L``, ``mu``, ``M``."""

    layout: Layout
    L: float | None
    mu: float
    M: float | None = None
    smooth: bool = True

    @abstractmethod
    def value(self, u: np.ndarray) -> float: ...

    @abstractmethod
    def node_values(self, u: np.ndarray) -> np.ndarray: ...

    @abstractmethod
    def grad(self, u: np.ndarray) -> np.ndarray:
        """Gradient (a subgradient for nonsmooth objectives) of ``F`` at ``u``."""

    @abstractmethod
    def describe(self) -> dict: ...

    def hessian(self, u: np.ndarray) -> sp.csr_matrix:
        """Sparse Hessian of ``F`` at ``u`` on the u-layout (smooth objectives only)."""
        raise NotImplementedError(f"{type(self).__name__} has no Hessian")

    @property
    def kappa(self) -> float:
        if self.L is None or self.mu <= 0:
            return float("inf")
        return self.L / self.mu


class QuadraticObjective(Objective):
    """``f_i(z) = ½ zᵀ Q_i z − q_iᵀ z`` with symmetric PSD ``Q_i`` (``z = (x_i, x̃_i)``).

    ``L = max_i λ_max(Q_i)``, ``mu = min_i λ_min(Q_i)`` are computed from the blocks
    (identical blocks once).  ``Q`` is stored as one sparse matrix on the u-layout.
    """

    def __init__(self, Q_blocks: Sequence, q_blocks: Sequence, layout: Layout, *, L: float | None = None, mu: float | None = None):
        n = layout.n
        if len(Q_blocks) != n or len(q_blocks) != n:
            raise ValueError(f"QuadraticObjective: need {n} blocks Q_i and q_i, got {len(Q_blocks)} and {len(q_blocks)}")
        self.layout = layout
        self.Q_blocks = tuple(_to_sparse(Q) for Q in Q_blocks)
        self.q_blocks = tuple(np.asarray(q, dtype=float).ravel() for q in q_blocks)
        for i, (Q, q) in enumerate(zip(self.Q_blocks, self.q_blocks)):
            k = layout.d[i] + layout.dt
            if Q.shape != (k, k):
                raise ValueError(f"node {i}: Q_{i} has shape {Q.shape}, expected ({k}, {k}) for z_i = (x_i, x̃)")
            if q.shape != (k,):
                raise ValueError(f"node {i}: q_{i} has length {q.size}, expected {k}")
            if not (np.all(np.isfinite(Q.data)) and np.all(np.isfinite(q))):
                raise ValueError(f"node {i}: Q_{i} or q_{i} has non-finite entries")
            asym = abs(Q - Q.T)
            if asym.nnz and asym.max() > 1e-10 * max(abs(Q).max(), 1e-300):
                raise ValueError(f"node {i}: Q_{i} is not symmetric (f_i must be a convex quadratic)")
        self.Q = block_diag_u(self.Q_blocks, layout, square=True)
        self.q = np.concatenate(self.q_blocks)[layout.z_to_u] if layout.size else np.zeros(0)
        self._row_node = layout.node_of_u
        if L is None or mu is None:
            Lc, muc = self._constants()
            L = Lc if L is None else L
            mu = muc if mu is None else mu
        if mu < -1e-12 * max(L, 1.0):
            raise ValueError(f"QuadraticObjective: some Q_i is not positive semidefinite (λ_min = {mu:.3e}); f_i must be convex")
        self.L = float(L)
        self.mu = float(max(mu, 0.0))
        if self.L <= 0:
            raise ValueError("QuadraticObjective: L_f must be positive (all Q_i are zero)")

    def _constants(self) -> tuple[float, float]:
        cache: dict[str, tuple[float, float]] = {}
        L, mu = 0.0, float("inf")
        for Q, q in zip(self.Q_blocks, self.q_blocks):
            if Q.shape[0] == 0:
                continue
            key = _block_key(Q, q)
            if key not in cache:
                lmax = sym_extremes(Q, name="Q_i").lmax
                lmin = smallest_eigenvalue(Q)
                cache[key] = (lmax, lmin)
            lmax, lmin = cache[key]
            L, mu = max(L, lmax), min(mu, lmin)
        return L, (0.0 if mu == float("inf") else mu)

    def value(self, u):
        return float(0.5 * u @ (self.Q @ u) - self.q @ u)

    def node_values(self, u):
        terms = 0.5 * u * (self.Q @ u) - self.q * u
        return np.bincount(self._row_node, weights=terms, minlength=self.layout.n)

    def grad(self, u):
        return self.Q @ u - self.q

    def hessian(self, u):
        return self.Q

    def describe(self):
        return {"type": "quadratic", "form": "f_i(z) = 1/2 z^T Q_i z - q_i^T z, z = (x_i, x~)", "L_f": self.L, "mu_f": self.mu}


class LogisticObjective(Objective):
    """Regularised logistic regression ``f_i(z) = (1/N_i) Σ_j log(1 + exp(−y_ij a_ijᵀ z)) + λ/2 ‖z‖²``.

    ``features[i]`` is ``N_i × (d_i + d̃)``, labels ``±1``.  ``L = max_i λ_max(F_iᵀF_i)/(4 N_i) + λ``,
    ``mu = λ``.
    """

    def __init__(self, features: Sequence, labels: Sequence, reg: float, layout: Layout):
        if reg < 0:
            raise ValueError(f"LogisticObjective: regularisation must be non-negative, got {reg}")
        n = layout.n
        if len(features) != n or len(labels) != n:
            raise ValueError(f"LogisticObjective: need {n} feature blocks and label vectors")
        self.layout = layout
        self.reg = float(reg)
        Fs, ys, w = [], [], []
        L = 0.0
        for i, (F, y) in enumerate(zip(features, labels)):
            F = np.asarray(F, dtype=float)
            y = np.asarray(y, dtype=float).ravel()
            k = layout.d[i] + layout.dt
            if F.ndim != 2 or F.shape[1] != k:
                raise ValueError(f"node {i}: features have shape {F.shape}, expected (N_i, {k})")
            if y.shape != (F.shape[0],) or not np.all(np.isin(y, (-1.0, 1.0))):
                raise ValueError(f"node {i}: labels must be ±1, one per feature row")
            if not np.all(np.isfinite(F)):
                raise ValueError(f"node {i}: features have non-finite entries")
            Ni = max(F.shape[0], 1)
            Fs.append(F)
            ys.append(y)
            w.append(np.full(F.shape[0], 1.0 / Ni))
            if F.size:
                L = max(L, float(np.linalg.norm(F, 2) ** 2) / (4 * Ni))
        self.F = block_diag_u(Fs, layout)
        self.y = np.concatenate(ys) if ys else np.zeros(0)
        self.w = np.concatenate(w) if w else np.zeros(0)
        self._row_node = np.repeat(np.arange(n), [F.shape[0] for F in Fs])
        self._u_node = layout.node_of_u
        self.L = L + self.reg
        self.mu = self.reg
        self.features = tuple(Fs)
        self.labels = tuple(ys)

    def _margins(self, u):
        return self.y * (self.F @ u)

    def value(self, u):
        return float(self.w @ np.logaddexp(0.0, -self._margins(u)) + 0.5 * self.reg * u @ u)

    def node_values(self, u):
        loss = np.bincount(self._row_node, weights=self.w * np.logaddexp(0.0, -self._margins(u)), minlength=self.layout.n)
        return loss + 0.5 * self.reg * np.bincount(self._u_node, weights=u * u, minlength=self.layout.n)

    def grad(self, u):
        s = -self.y * self.w * 0.5 * (1.0 - np.tanh(0.5 * self._margins(u)))  # −y σ(−m) w
        return self.F.T @ s + self.reg * u

    def hessian(self, u):
        sig = 0.5 * (1.0 - np.tanh(0.5 * self._margins(u)))
        D = sp.diags(self.w * sig * (1.0 - sig))
        return sp.csr_matrix(self.F.T @ D @ self.F + self.reg * sp.eye(self.layout.size))

    def describe(self):
        return {"type": "logistic", "form": "f_i(z) = mean_j log(1+exp(-y_ij a_ij^T z)) + reg/2 |z|^2",
                "reg": self.reg, "L_f": self.L, "mu_f": self.mu}
