"""Communication graphs and gossip matrices (sparse throughout).

* :func:`tuned_path` — the path graph of ``app:example_graph`` (Scaman et al.
  2017): ``n`` divisible by 3, chosen so that ``β_n <= κ_W < β_{n+3}`` with
  ``β_n = (1 + cos(π/n)) / (1 − cos(π/n))``, and the weight of the first edge
  lowered to ``1 − a`` (root finding on ``a ∈ [0, 1)``) so that ``κ(W_a)`` equals
  the requested ``κ_W`` to relative ``1e-9``.
* ring, 2-D grid, star, complete and connected Erdős–Rényi graphs; Laplacian
  and Metropolis–Hastings gossip matrices.

A graph is its symmetric boolean adjacency matrix (no self loops).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from scipy.linalg import eigh_tridiagonal
from scipy.optimize import brentq

#: relative accuracy of the tuned κ_W
KAPPA_W_RTOL = 1e-9
#: Erdős–Rényi graphs up to this many nodes are drawn from a dense uniform n × n matrix (32 MB at 2000),
#: larger ones by the O(edges) sampler; the limit keeps every graph the checks use edge for edge
ER_DENSE_MAX = 2000


# ----------------------------------------------------------------- adjacencies
def path_adjacency(n: int) -> sp.csr_matrix:
    if n < 2:
        raise ValueError(f"path graph: need n >= 2 nodes, got {n}")
    return sp.diags([np.ones(n - 1), np.ones(n - 1)], [-1, 1], format="csr", dtype=bool)


def ring_adjacency(n: int) -> sp.csr_matrix:
    if n < 3:
        raise ValueError(f"ring: need n >= 3 nodes, got {n}")
    A = sp.lil_matrix((n, n), dtype=bool)
    for i in range(n):
        A[i, (i + 1) % n] = A[(i + 1) % n, i] = True
    return sp.csr_matrix(A)


def grid_adjacency(rows: int, cols: int) -> sp.csr_matrix:
    if rows < 1 or cols < 1 or rows * cols < 2:
        raise ValueError(f"grid: need at least 2 nodes, got {rows}x{cols}")
    P1 = path_adjacency(rows) if rows > 1 else sp.csr_matrix((1, 1), dtype=bool)
    P2 = path_adjacency(cols) if cols > 1 else sp.csr_matrix((1, 1), dtype=bool)
    A = sp.kron(P1, sp.eye(cols)) + sp.kron(sp.eye(rows), P2)
    return sp.csr_matrix(A, dtype=bool)


def star_adjacency(n: int) -> sp.csr_matrix:
    if n < 2:
        raise ValueError(f"star: need n >= 2 nodes, got {n}")
    A = sp.lil_matrix((n, n), dtype=bool)
    A[0, 1:] = True
    A[1:, 0] = True
    return sp.csr_matrix(A)


def complete_adjacency(n: int) -> sp.csr_matrix:
    if n < 2:
        raise ValueError(f"complete graph: need n >= 2 nodes, got {n}")
    return sp.csr_matrix(np.ones((n, n), dtype=bool) & ~np.eye(n, dtype=bool))


def erdos_renyi_adjacency(n: int, p: float | None = None, seed: int = 0, *, degree: float | None = None,
                          max_tries: int = 1000) -> sp.csr_matrix:
    """A connected G(n, p) graph: the first connected sample of a seeded stream.

    Give the edge probability ``p`` or the expected degree ``degree = p (n − 1)``.  Up to
    :data:`ER_DENSE_MAX` nodes the sample is drawn from a dense ``n × n`` uniform matrix (the
    graphs every existing check and test was measured on, kept edge for edge); above it by
    :func:`_sparse_gnp_edges`, in memory proportional to the number of edges.
    """
    if degree is not None:
        if p is not None:
            raise ValueError(f"Erdős–Rényi: give p or degree, not both (p={p}, degree={degree})")
        if n < 2 or not (0 < degree <= n - 1):
            raise ValueError(f"Erdős–Rényi: need n >= 2 and 0 < degree <= n − 1, got n={n}, degree={degree}")
        p = degree / (n - 1)
    if p is None or n < 2 or not (0 < p <= 1):
        raise ValueError(f"Erdős–Rényi: need n >= 2 and 0 < p <= 1, got n={n}, p={p}")
    rng = np.random.default_rng(seed)
    for _ in range(max_tries):
        if n <= ER_DENSE_MAX:
            U = np.triu(rng.random((n, n)) < p, k=1)
            A = sp.csr_matrix(U | U.T)
        else:
            i, j = _sparse_gnp_edges(n, p, rng)
            A = sp.csr_matrix((np.ones(2 * i.size, dtype=bool), (np.concatenate([i, j]), np.concatenate([j, i]))),
                              shape=(n, n))
        if csgraph.connected_components(A, directed=False)[0] == 1:
            return A
    raise ValueError(f"Erdős–Rényi: no connected sample in {max_tries} tries (n={n}, p={p}); increase p")


def _sparse_gnp_edges(n: int, p: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The edges ``i < j`` of one G(n, p) sample in O(edges) memory.

    The number of edges is Binomial(n(n−1)/2, p); given it, the edge set is a uniform subset of
    that size of the unordered pairs: uniform ordered pairs ``i ≠ j`` are drawn in batches, their
    distinct unordered keys kept, and a uniform subset of the right size taken from them.
    """
    pairs = n * (n - 1) // 2
    m = int(rng.binomial(pairs, p))
    keys = np.zeros(0, dtype=np.int64)
    while keys.size < m:
        k = int(1.1 * (m - keys.size)) + 16
        a, b = rng.integers(0, n, k, dtype=np.int64), rng.integers(0, n, k, dtype=np.int64)
        ok = a != b
        lo, hi = np.minimum(a[ok], b[ok]), np.maximum(a[ok], b[ok])
        keys = np.union1d(keys, lo * n + hi)
    keys = np.sort(rng.choice(keys, size=m, replace=False))
    return keys // n, keys % n


# ----------------------------------------------------------------- gossip matrices
def laplacian(adjacency, weights=None) -> sp.csr_matrix:
    """``W = D − A`` with optional symmetric edge weights (same pattern as ``adjacency``)."""
    A = sp.csr_matrix(adjacency, dtype=float)
    if weights is not None:
        Wt = sp.csr_matrix(weights, dtype=float)
        A = A.multiply(Wt)
    A = sp.csr_matrix(A)
    return sp.csr_matrix(sp.diags(np.asarray(A.sum(axis=1)).ravel()) - A)


def metropolis(adjacency) -> sp.csr_matrix:
    """``W = I − M`` with Metropolis–Hastings weights ``M_ij = 1/(1 + max(deg_i, deg_j))``.

    ``M`` is doubly stochastic, so ``W`` is symmetric PSD with ``W·1 = 0``.
    """
    A = sp.csr_matrix(adjacency, dtype=bool)
    deg = np.asarray(A.sum(axis=1)).ravel()
    i, j = A.nonzero()
    w = 1.0 / (1.0 + np.maximum(deg[i], deg[j]))
    M = sp.csr_matrix((w, (i, j)), shape=A.shape)
    M = M + sp.diags(1.0 - np.asarray(M.sum(axis=1)).ravel())
    return sp.csr_matrix(sp.eye(A.shape[0]) - M)


# ----------------------------------------------------------------- tuned path graph
def beta(n: int) -> float:
    """``β_n = (1 + cos(π/n)) / (1 − cos(π/n))``: κ of the unweighted path Laplacian on n nodes."""
    c = np.cos(np.pi / n)
    return (1 + c) / (1 - c)


def _weighted_path_kappa(n: int, a: float) -> float:
    w = np.ones(n - 1)
    w[0] = 1.0 - a
    diag = np.zeros(n)
    diag[:-1] += w
    diag[1:] += w
    ev = eigh_tridiagonal(diag, -w, eigvals_only=True)
    return float(ev[-1] / ev[1])


def path_weights_laplacian(n: int, a: float) -> sp.csr_matrix:
    """Laplacian ``W_a`` of the path with ``w_{12} = 1 − a`` and all other weights 1."""
    w = np.ones(n - 1)
    w[0] = 1.0 - a
    main = np.zeros(n)
    main[:-1] += w
    main[1:] += w
    return sp.diags([main, -w, -w], [0, -1, 1], format="csr")


@dataclass(frozen=True)
class TunedPath:
    """A tuned path graph: ``W`` its weighted Laplacian, ``a`` the first-edge reduction."""

    W: sp.csr_matrix
    adjacency: sp.csr_matrix
    n: int
    a: float
    kappa_W: float
    target: float
    beta_n: float
    beta_n3: float

    @property
    def groups(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``V1, V2, V3``: the three thirds of the nodes (0-based)."""
        k = self.n // 3
        return np.arange(0, k), np.arange(k, 2 * k), np.arange(2 * k, self.n)

    def closed_forms(self) -> dict:
        """The facts ``app:example_graph`` uses, with the numbers they compare."""
        ev = np.linalg.eigvalsh(laplacian(path_adjacency(self.n)).toarray()) if self.n <= 2000 else None
        out = {
            "beta_n <= kappa_W < beta_{n+3}": {"beta_n": self.beta_n, "kappa_W": self.target, "beta_n3": self.beta_n3,
                                               "holds": bool(self.beta_n <= self.target * (1 + KAPPA_W_RTOL) and self.target < self.beta_n3)},
            "eq:n_chi_relation sqrt(kappa_W) <= 4 sqrt(2) n": {"lhs": float(np.sqrt(self.kappa_W)), "rhs": float(4 * np.sqrt(2) * self.n),
                                                              "holds": bool(np.sqrt(self.kappa_W) <= 4 * np.sqrt(2) * self.n)},
        }
        if ev is not None:
            out["unweighted path eigenvalues 2(1 ± cos(π/n))"] = {
                "lambda_max": float(ev[-1]), "closed_max": float(2 * (1 + np.cos(np.pi / self.n))),
                "lambda_min+": float(ev[1]), "closed_min+": float(2 * (1 - np.cos(np.pi / self.n))),
                "holds": bool(np.isclose(ev[-1], 2 * (1 + np.cos(np.pi / self.n)), rtol=1e-10)
                              and np.isclose(ev[1], 2 * (1 - np.cos(np.pi / self.n)), rtol=1e-8)),
            }
        return out


#: largest κ_W of a tuned path: n ≈ π√κ_W/2 nodes (1571 at 1e6), each tuning step solves the n-node
#: tridiagonal eigenproblem, and the constructions built on it have n × chain-length variables
PATH_KAPPA_W_MAX = 1e6


def path_size_for(kappa_W: float) -> int:
    """The ``n = 3m`` of ``app:example_graph``: ``β_n <= κ_W < β_{n+3}`` (κ_W <= :data:`PATH_KAPPA_W_MAX`)."""
    if not np.isfinite(kappa_W) or kappa_W < beta(3) * (1 - KAPPA_W_RTOL):
        raise ValueError(f"tuned path: κ_W must be finite and >= β_3 = {beta(3):.3f} (n >= 3 nodes), got {kappa_W}")
    if kappa_W > PATH_KAPPA_W_MAX:
        raise ValueError(f"tuned path: κ_W = {kappa_W:g} exceeds the bound {PATH_KAPPA_W_MAX:g} (the path of "
                         f"app:example_graph would have n ≈ π√κ_W/2 = {np.pi * np.sqrt(kappa_W) / 2:.3g} nodes)")
    n = 3
    while beta(n + 3) <= kappa_W * (1 + KAPPA_W_RTOL):
        n += 3
    return n


def tuned_path(kappa_W: float, n: int | None = None) -> TunedPath:
    """Path graph of ``app:example_graph`` with ``κ(W_a) = κ_W`` to relative :data:`KAPPA_W_RTOL`.

    ``n``: the number of nodes (default: the paper's ``n = 3m`` with ``β_n <= κ_W < β_{n+3}``); another ``n`` (a
    multiple of 3 with ``β_n <= κ_W``) gives a path of that length whose weak first edge is tuned to the same
    ``κ_W`` (the negative control of the lower-bound checks: a hop distance that grows like ``κ_W^0.4``).
    """
    if n is None:
        n = path_size_for(kappa_W)
    elif n < 3 or n % 3 or beta(n) > kappa_W * (1 + KAPPA_W_RTOL):
        raise ValueError(f"tuned path: n = {n} must be a multiple of 3 with β_n = {beta(n) if n >= 2 else float('nan'):.4g} "
                         f"<= κ_W = {kappa_W:g} (the weak edge can only raise κ)")
    bn = beta(n)
    if abs(kappa_W - bn) <= KAPPA_W_RTOL * bn:
        a = 0.0
    else:
        f = lambda a: _weighted_path_kappa(n, a) / kappa_W - 1.0  # noqa: E731
        hi = 1.0 - 1e-3
        while f(hi) < 0:  # κ(W_a) → ∞ as a → 1
            hi = 1.0 - (1.0 - hi) / 10
            if 1.0 - hi < 1e-15:
                raise ValueError(f"tuned path: cannot reach κ_W = {kappa_W} with n = {n}")
        a = brentq(f, 0.0, hi, xtol=1e-15, rtol=1e-15, maxiter=500)
    W = path_weights_laplacian(n, a)
    realized = _weighted_path_kappa(n, a)
    if abs(realized / kappa_W - 1) > KAPPA_W_RTOL:
        raise ValueError(f"tuned path: realized κ_W = {realized} misses the target {kappa_W} by more than {KAPPA_W_RTOL:.0e}")
    return TunedPath(W, path_adjacency(n), n, float(a), realized, float(kappa_W), bn, beta(n + 3))
