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
from mixbounds.bounds.guards import SCALE_FLOOR
from mixbounds.bounds.spectral import smallest_eigenvalue, sym_extremes
from mixbounds.instances.layout import Layout

#: ``μ_f`` counts as positive (``f_i`` strongly convex) above this fraction of ``L_f``: a singular block's computed
#: smallest eigenvalue is rounding, ≲ 1e-15 L_f, and every strongly convex family has κ_f <= 1e8 (``μ_f/L_f >= 1e-8``),
#: so no machine's rounding moves an objective across the line
STRONG_CONVEXITY_RTOL = 1e-12
#: a logistic node's features have full column rank when σ_min(F_i) exceeds this fraction of σ_max(F_i) (the
#: families' Gaussian F_i with N_i >= 4 k_i rows have σ_min/σ_max ≳ 0.2; a repeated column gives ≲ 1e-15)
FULL_RANK_RTOL = 1e-8


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


#: nodes per chunk of the vectorised symmetry test of dense node blocks (bounds its temporary array)
SYMMETRY_CHUNK = 512


def dense_node_blocks(blocks: Sequence, k: int) -> np.ndarray | None:
    """The ``(n, k, k)`` array of ``k × k`` CSR blocks each stored densely (every entry, sorted column indices), or
    ``None`` when some block is not (then the per-block path applies)."""
    n = len(blocks)
    if n == 0 or not all(isinstance(B, sp.csr_matrix) and B.shape == (k, k) and B.nnz == k * k for B in blocks):
        return None
    indptr = np.concatenate([B.indptr for B in blocks]).reshape(n, k + 1)
    if not np.array_equal(indptr, np.broadcast_to(np.arange(k + 1) * k, (n, k + 1))):
        return None
    indices = np.concatenate([B.indices for B in blocks]).reshape(n * k, k)
    if not np.array_equal(indices, np.broadcast_to(np.arange(k), (n * k, k))):
        return None
    return np.concatenate([B.data for B in blocks]).reshape(n, k, k)


def _dense_blocks_valid(S: np.ndarray, q_blocks: Sequence) -> bool:
    """Every dense block finite and symmetric (to the per-block test's ``1e-10`` relative), every ``q_i`` finite."""
    if not all(np.all(np.isfinite(q)) for q in q_blocks):
        return False
    for a in range(0, S.shape[0], SYMMETRY_CHUNK):
        C = S[a:a + SYMMETRY_CHUNK]
        if not np.all(np.isfinite(C)):
            return False
        asym = np.abs(C - C.transpose(0, 2, 1)).max(axis=(1, 2))
        if np.any(asym > 1e-10 * np.maximum(np.abs(C).max(axis=(1, 2)), SCALE_FLOOR)):
            return False
    return True


def dense_block_diag_u(S: np.ndarray, layout: Layout) -> sp.csr_matrix:
    """:func:`block_diag_u` (``square=True``) of the dense node blocks ``S`` (``(n, k, k)``, every ``d_i + d̃ = k``),
    built from index arithmetic: the same CSR arrays (row order, entry order within a row, index dtype) as the
    per-block construction, without its ~10 sparse objects per node."""
    n, k, _ = S.shape
    N = n * k
    z_to_u, u_to_z = layout.z_to_u, layout.u_to_z
    # z-layout row r of node i = r // k holds the columns i·k … i·k + k − 1 in order; the u-layout matrix has row
    # u ← z-row z_to_u[u], each column c mapped to u_to_z[c], the entries kept in z-column order
    cols = (np.arange(N) // k * k)[:, None] + np.arange(k)[None, :]
    data = S.reshape(N, k)
    identity = bool(np.array_equal(z_to_u, np.arange(N)))
    if not identity:
        data = data[z_to_u]
        cols = u_to_z[cols[z_to_u]]
    idx = np.int32 if N * k < np.iinfo(np.int32).max else np.int64
    indptr = (np.arange(N + 1, dtype=np.int64) * k).astype(idx)
    Q = sp.csr_matrix((np.ascontiguousarray(data).reshape(-1), cols.astype(idx).reshape(-1), indptr), shape=(N, N))
    return Q


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

    @property
    def strongly_convex(self) -> bool:
        """``μ_f > 0``, decided with the margin :data:`STRONG_CONVEXITY_RTOL` (a computed ``μ_f`` of a singular block is
        rounding): then ``∇²F`` is positive definite everywhere and (P) has one minimiser."""
        return self.L is not None and self.mu > STRONG_CONVEXITY_RTOL * self.L

    @property
    def strictly_convex(self) -> bool:
        """Every ``∇²F(u)`` is positive definite, so (P) has at most one minimiser and every Newton KKT system of
        :func:`mixbounds.instances.reference.kkt.reference_solution` is nonsingular in ``v``.  Implied by
        :attr:`strongly_convex`; objectives with ``μ_f = 0`` that have it say so from their data."""
        return self.strongly_convex


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
        # equal dense node blocks (the random families' Q_i): one vectorised test and index arithmetic for Q; any
        # failing test falls to the per-block loop, which names the first node at fault
        k = layout.d[0] + layout.dt if n and len(set(layout.d)) == 1 else None
        S = dense_node_blocks(self.Q_blocks, k) if k else None
        fast = S is not None and all(q.shape == (k,) for q in self.q_blocks) and _dense_blocks_valid(S, self.q_blocks)
        for i, (Q, q) in enumerate(zip(self.Q_blocks, self.q_blocks) if not fast else ()):
            k = layout.d[i] + layout.dt
            if Q.shape != (k, k):
                raise ValueError(f"node {i}: Q_{i} has shape {Q.shape}, expected ({k}, {k}) for z_i = (x_i, x̃)")
            if q.shape != (k,):
                raise ValueError(f"node {i}: q_{i} has length {q.size}, expected {k}")
            if not (np.all(np.isfinite(Q.data)) and np.all(np.isfinite(q))):
                raise ValueError(f"node {i}: Q_{i} or q_{i} has non-finite entries")
            asym = abs(Q - Q.T)
            if asym.nnz and asym.max() > 1e-10 * max(abs(Q).max(), SCALE_FLOOR):
                raise ValueError(f"node {i}: Q_{i} is not symmetric (f_i must be a convex quadratic)")
        self.Q = dense_block_diag_u(S, layout) if fast else block_diag_u(self.Q_blocks, layout, square=True)
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

    @property
    def strictly_convex(self) -> bool:
        """``reg > 0``, or every ``F_i`` of full column rank (:data:`FULL_RANK_RTOL`): ``∇²f_i = F_iᵀ D F_i / N_i``
        with ``D = σ(1 − σ) > 0`` at finite margins."""
        if self.reg > 0:
            return True
        for F in self.features:
            if F.shape[0] < F.shape[1]:
                return False
            sv = np.linalg.svd(F, compute_uv=False) if F.size else np.ones(1)
            if not sv[-1] > FULL_RANK_RTOL * sv[0]:
                return False
        return True

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


class LogCoshObjective(Objective):
    """A quadratic plus Huber-smoothed (log-cosh) terms along the eigenvectors of its matrix, with exact constants.

    ``f_i(z) = ½ zᵀQ_i z − q_iᵀz + Σ_j c_ij log cosh(u_ijᵀz − s_ij)`` with ``Q_i = U_i diag(λ_i) U_iᵀ`` (``U_i``
    orthogonal, columns ``u_ij``) and ``c_ij >= 0``.  ``log cosh`` is a smoothed Huber function: ``t²/2`` near 0,
    ``|t| − log 2`` far out, curvature ``sech² t ∈ (0, 1]`` with its maximum 1 at ``t = 0``.  The Hessian is
    ``U_i diag(λ_ij + c_ij sech²(u_ijᵀz − s_ij)) U_iᵀ``: along ``u_ij`` the curvature runs over
    ``(λ_ij, λ_ij + c_ij]`` (exactly ``λ_ij`` when ``c_ij = 0``), and the arguments ``u_ijᵀz − s_ij`` of different
    ``j`` can take any values together (``U_i`` is invertible).  Hence, exactly (Assumption
    ``ass:smooth_and_str_convex_of_f_i``):

    * ``L_i = max_j (λ_ij + c_ij)``, attained at ``z = U_i s_i``;
    * ``μ_i = min_j λ_ij``, attained (at every ``z``) when a minimising ``j`` has ``c_ij = 0``, else the infimum
      approached as ``|u_ijᵀz| → ∞``;

    and ``L = max_i L_i``, ``mu = min_i μ_i`` — closed forms, not estimates (:func:`curvature_witnesses` gives the
    points where they are attained, for the constants check of :mod:`mixbounds.checks.audits.audit_constants`).
    Blocks are passed per node: ``U[i]`` (``k_i × k_i``), ``lam[i]``, ``c[i]``, ``s[i]``, ``q[i]`` (length ``k_i``).
    ``L``, ``mu`` may be given to *state* other constants (the negative control of that check); by default they
    are the closed forms.
    """

    def __init__(self, U: Sequence, lam: Sequence, c: Sequence, s: Sequence, q: Sequence, layout: Layout, *,
                 L: float | None = None, mu: float | None = None):
        n = layout.n
        if not all(len(v) == n for v in (U, lam, c, s, q)):
            raise ValueError(f"LogCoshObjective: need {n} blocks U_i, lam_i, c_i, s_i and q_i")
        self.layout = layout
        Us, lams, cs, ss, qs = [], [], [], [], []
        for i in range(n):
            k = layout.d[i] + layout.dt
            Ui = np.asarray(U[i], dtype=float)
            li, ci, si, qi = (np.asarray(v[i], dtype=float).ravel() for v in (lam, c, s, q))
            if Ui.shape != (k, k) or any(v.shape != (k,) for v in (li, ci, si, qi)):
                raise ValueError(f"node {i}: U_{i} must be {k}×{k} and lam_{i}, c_{i}, s_{i}, q_{i} of length {k} "
                                 f"(z_i = (x_i, x̃) has {k} entries)")
            if not all(np.all(np.isfinite(v)) for v in (Ui, li, ci, si, qi)):
                raise ValueError(f"node {i}: non-finite entries in U_{i}, lam_{i}, c_{i}, s_{i} or q_{i}")
            if k and np.abs(Ui.T @ Ui - np.eye(k)).max() > 1e-10:
                raise ValueError(f"node {i}: U_{i} is not orthogonal (its columns are the curvature directions)")
            if k and (li.min() < 0 or ci.min() < 0):
                raise ValueError(f"node {i}: lam_{i} and c_{i} must be >= 0 (f_i must be convex)")
            Us.append(Ui), lams.append(li), cs.append(ci), ss.append(si), qs.append(qi)
        self.U_blocks, self.lam_blocks, self.c_blocks, self.s_blocks = tuple(Us), tuple(lams), tuple(cs), tuple(ss)
        # directions j of all nodes, in z order; Ub maps the u-layout to the stacked arguments u_ijᵀz
        self.Ub = block_diag_u([Ui.T for Ui in Us], layout)
        self.Q = block_diag_u([(Ui * li) @ Ui.T for Ui, li in zip(Us, lams)], layout, square=True)
        self.q = np.concatenate(qs)[layout.z_to_u] if layout.size else np.zeros(0)
        self.c = np.concatenate(cs) if cs else np.zeros(0)
        self.s = np.concatenate(ss) if ss else np.zeros(0)
        self._dir_node = np.repeat(np.arange(n), [len(li) for li in lams])
        self._u_node = layout.node_of_u
        Lc, muc = self.exact_constants()
        self.L = float(Lc if L is None else L)
        self.mu = float(muc if mu is None else mu)

    @property
    def strictly_convex(self) -> bool:
        """Exactly from the data: every direction has ``λ_ij > 0`` or ``c_ij > 0`` (curvature ``λ_ij + c_ij sech²`` > 0
        everywhere)."""
        return all(bool(np.all((li > 0) | (ci > 0))) for li, ci in zip(self.lam_blocks, self.c_blocks))

    def exact_constants(self) -> tuple[float, float]:
        """``(max_i max_j (λ_ij + c_ij), min_i min_j λ_ij)`` (class docstring)."""
        L = max((float((li + ci).max()) for li, ci in zip(self.lam_blocks, self.c_blocks) if li.size), default=0.0)
        mu = min((float(li.min()) for li in self.lam_blocks if li.size), default=0.0)
        return L, mu

    def _t(self, u):
        return self.Ub @ u - self.s

    def value(self, u):
        return float(0.5 * u @ (self.Q @ u) - self.q @ u + self.c @ _logcosh(self._t(u)))

    def node_values(self, u):
        quad = np.bincount(self._u_node, weights=0.5 * u * (self.Q @ u) - self.q * u, minlength=self.layout.n)
        return quad + np.bincount(self._dir_node, weights=self.c * _logcosh(self._t(u)), minlength=self.layout.n)

    def grad(self, u):
        return self.Q @ u - self.q + self.Ub.T @ (self.c * np.tanh(self._t(u)))

    def hessian(self, u):
        sech2 = 1.0 / np.cosh(self._t(u)) ** 2
        return sp.csr_matrix(self.Q + self.Ub.T @ sp.diags(self.c * sech2) @ self.Ub)

    def curvature_witnesses(self) -> dict:
        """For every node: a point where ``λ_max(∇²f_i) = L_i`` (``z = U_i s_i``: every ``sech²`` at its maximum 1) and
        the direction ``u_ij`` of ``μ_i`` with ``c_ij`` (0: attained everywhere), as u-layout points/indices."""
        out = {}
        for i, (Ui, li, ci, si) in enumerate(zip(self.U_blocks, self.lam_blocks, self.c_blocks, self.s_blocks)):
            if not li.size:
                continue
            j = int(np.argmin(li))
            out[i] = {"z_L": Ui @ si, "L_i": float((li + ci).max()), "mu_i": float(li[j]), "mu_direction": Ui[:, j],
                      "mu_c": float(ci[j])}
        return out

    def describe(self):
        return {"type": "logcosh", "form": "f_i(z) = 1/2 z^T Q_i z - q_i^T z + sum_j c_ij log cosh(u_ij^T z - s_ij), "
                "Q_i = U_i diag(lam_i) U_i^T", "L_f": self.L, "mu_f": self.mu,
                "constants": "exact: L_i = max_j (lam_ij + c_ij) (attained at z = U_i s_i), mu_i = min_j lam_ij"}


def _logcosh(t: np.ndarray) -> np.ndarray:
    """``log cosh t`` without overflow: ``|t| + log1p(exp(−2|t|)) − log 2``."""
    a = np.abs(t)
    return a + np.log1p(np.exp(-2.0 * a)) - np.log(2.0)
