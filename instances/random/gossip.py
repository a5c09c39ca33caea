"""Graph and gossip matrix of a random family, with κ_W tuned (Assumption ``ass:W``).

On ``graph="path"`` with Laplacian gossip the path of ``app:example_graph``
(:func:`mixbounds.instances.graphs.tuned_path`; ``n`` is then forced by κ_W).  On any other graph (or
Metropolis gossip) the edges of a cut are weakened by a factor ``1 − a`` and ``a ∈ [0, 1)`` is found by
root finding: κ_W ranges over ``[κ_W(a=0), ∞)``; a target below the unweighted graph's κ_W is impossible
and raises ``ValueError``.

The cut (:func:`fiedler_cut`) is a function of the graph alone, the same on every machine: the Fiedler
vector is determined only up to sign, and not at all when ``λ₂`` is a multiple eigenvalue (ring, star,
complete graph, square grid: any vector of a 2- or more-dimensional eigenspace, whichever the eigensolver's
rounding returns).  So the Fiedler cut (nodes split at the median of the Fiedler vector, the nodes at the
median joining the side of the lowest-numbered node) is used only when ``λ₂`` is simple, with a gap to
``λ₃`` far above rounding (:data:`FIEDLER_GAP_RTOL`); otherwise the cut is the index halves
``{0, …, ⌊n/2⌋ − 1}`` and the rest (on a ring, a Fiedler cut up to rotation).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from mixbounds.bounds.spectral import DENSE_LIMIT, ZERO_RTOL
from mixbounds.instances.graphs import (
    complete_adjacency,
    erdos_renyi_adjacency,
    grid_adjacency,
    path_adjacency,
    ring_adjacency,
    star_adjacency,
    tuned_path,
)
from mixbounds.instances.random.common import ROOT_RTOL, check_int, rel_gap, seeded_rng
from scipy.optimize import brentq

GRAPHS = ("path", "ring", "grid", "star", "complete", "er")
GOSSIPS = ("laplacian", "metropolis")

#: ``λ₂`` counts as simple when ``λ₃ − λ₂`` exceeds this fraction of ``λ_max``: a multiple eigenvalue's computed
#: copies differ by rounding (≲ 1e-14 λ_max at these sizes), and above the gap the Fiedler vector's rounding is
#: at most ~ε/FIEDLER_GAP_RTOL ≈ 2e-10 of its norm, far below :data:`FIEDLER_TIE_RTOL`
FIEDLER_GAP_RTOL = 1e-6
#: Fiedler-vector entries within this fraction of its largest entry from the median are ties (exact ties come
#: from symmetries, e.g. the middle node of a path with an odd number of nodes, whose entry is 0)
FIEDLER_TIE_RTOL = 1e-8


@dataclass(frozen=True)
class Gossip:
    """A gossip matrix with its graph and how κ_W was obtained."""

    W: sp.csr_matrix
    adjacency: sp.csr_matrix
    n: int
    graph: str
    gossip: str
    info: dict = field(default_factory=dict)
    closed_forms: dict = field(default_factory=dict)


def _adjacency(graph: str, n: int, seed: int, er_p: float | None) -> tuple[sp.csr_matrix, dict]:
    if graph == "path":
        return path_adjacency(n), {}
    if graph == "ring":
        return ring_adjacency(n), {}
    if graph == "grid":
        rows = max(r for r in range(1, math.isqrt(n) + 1) if n % r == 0)
        if rows < 2:
            raise ValueError(f"graph 'grid' needs n = rows × cols with rows, cols >= 2; n = {n} has no such factorisation")
        return grid_adjacency(rows, n // rows), {"grid": [rows, n // rows]}
    if graph == "star":
        return star_adjacency(n), {}
    if graph == "complete":
        return complete_adjacency(n), {}
    if graph == "er":
        p = min(1.0, 2.0 * np.log(n) / n) if er_p is None else float(er_p)
        if not (0 < p <= 1):
            raise ValueError(f"graph 'er': edge probability er_p must be in (0, 1], got {er_p}")
        er_seed = int(seeded_rng(seed, "er-graph").integers(2**31))
        return erdos_renyi_adjacency(n, p, er_seed), {"er_p": p, "er_seed": er_seed}
    raise ValueError(f"unknown graph {graph!r} (known: {', '.join(GRAPHS)})")


def _base_weights(adj: sp.csr_matrix, gossip: str) -> sp.csr_matrix:
    """Symmetric edge weights: 1 (Laplacian) or Metropolis–Hastings ``1/(1+max(deg_i, deg_j))``."""
    A = sp.csr_matrix(adj, dtype=bool)
    i, j = A.nonzero()
    if gossip == "laplacian":
        w = np.ones(i.size)
    elif gossip == "metropolis":
        deg = np.asarray(A.sum(axis=1)).ravel()
        w = 1.0 / (1.0 + np.maximum(deg[i], deg[j]))
    else:
        raise ValueError(f"unknown gossip matrix {gossip!r} (known: {', '.join(GOSSIPS)})")
    return sp.csr_matrix((w, (i, j)), shape=A.shape)


def _weighted_laplacian(Wt: sp.csr_matrix) -> sp.csr_matrix:
    Wt = sp.csr_matrix(Wt)
    return sp.csr_matrix(sp.diags(np.asarray(Wt.sum(axis=1)).ravel()) - Wt)


def _kappa_dense(W) -> float:
    ev = np.linalg.eigvalsh(W.toarray() if sp.issparse(W) else W)
    lmax = ev[-1]
    return float(lmax / ev[ev > ZERO_RTOL * lmax].min())


def make_gossip(graph: str | None, n: int | None, *, default_n: int, kappa_W: float | None = None,
                gossip: str = "laplacian", seed: int = 0, er_p: float | None = None) -> Gossip:
    """Graph + gossip matrix, with κ_W tuned when ``kappa_W`` is given (module docstring).

    ``graph=None``: ``"path"`` if ``kappa_W`` is given, else ``"ring"``.  ``n=None``:
    ``default_n``, or the ``n`` that :func:`mixbounds.instances.graphs.tuned_path` forces.
    """
    if gossip not in GOSSIPS:
        raise ValueError(f"unknown gossip matrix {gossip!r} (known: {', '.join(GOSSIPS)})")
    if graph is None:
        graph = "path" if kappa_W is not None else "ring"
    if graph not in GRAPHS:
        raise ValueError(f"unknown graph {graph!r} (known: {', '.join(GRAPHS)})")
    if graph == "path" and kappa_W is not None and gossip == "laplacian":
        tp = tuned_path(kappa_W)
        if n is not None and n != tp.n:
            raise ValueError(
                f"graph 'path' with kappa_W = {kappa_W:g} needs n = {tp.n} nodes (app:example_graph: "
                f"β_n <= κ_W < β_(n+3)); got n = {n}: omit n or choose another graph"
            )
        info = {"graph": "path", "gossip": "laplacian", "tuning": "tuned_path (app:example_graph)",
                "first_edge_weight": 1.0 - tp.a, "a": tp.a, "beta_n": tp.beta_n, "beta_n3": tp.beta_n3}
        return Gossip(sp.csr_matrix(tp.W), sp.csr_matrix(tp.adjacency), tp.n, "path", "laplacian", info,
                      {f"tuned path: {k}": dict(v, label="app:example_graph") for k, v in tp.closed_forms().items()})
    n = default_n if n is None else n
    n = check_int("n", n, 2)
    adj, ginfo = _adjacency(graph, n, seed, er_p)
    w0 = _base_weights(adj, gossip)
    W0 = _weighted_laplacian(w0)
    info = {"graph": graph, "gossip": gossip, **ginfo}
    if kappa_W is None:
        info["tuning"] = "none"
        return Gossip(W0, adj, n, graph, gossip, info)
    if n > DENSE_LIMIT:
        raise ValueError(f"kappa_W tuning on graph {graph!r} needs n <= {DENSE_LIMIT} (dense eigenvalues); got n = {n}")
    k0 = _kappa_dense(W0)
    if kappa_W < k0 * (1 - ROOT_RTOL):
        raise ValueError(
            f"kappa_W = {kappa_W:g} is below {k0:.6g}, the κ_W of the unweighted graph {graph!r} with n = {n} "
            f"({gossip} gossip); weakening edges only increases it: choose a better connected graph or fewer nodes"
        )
    W, a, cut_edges, rule = _weaken_cut(w0, W0, k0, kappa_W, graph)
    info.update(tuning="Fiedler-cut weakening" if rule == "fiedler" else "index-halves-cut weakening (λ₂ multiple)",
                a=float(a), cut_edges=cut_edges, kappa_W_unweighted=k0)
    return Gossip(W, adj, n, graph, gossip, info)


def _weaken_cut(w0: sp.csr_matrix, W0: sp.csr_matrix, k0: float, kappa_W: float,
                graph: str) -> tuple[sp.csr_matrix, float, int, str]:
    """Laplacian of ``w0`` with the edges of :func:`fiedler_cut` scaled by ``1 − a``, ``a`` solving κ_W = target.

    Returns ``(W, a, number of cut edges, the cut's rule)``; ``k0`` is κ_W of ``W0`` (``a = 0``).
    """
    side, rule = fiedler_cut(W0)
    i, j = w0.nonzero()
    cut = side[i] != side[j]
    cut_mask = sp.csr_matrix((cut.astype(float), (i, j)), shape=w0.shape)

    def W_of(a: float) -> sp.csr_matrix:
        return _weighted_laplacian(w0 - a * w0.multiply(cut_mask))

    if rel_gap(k0, kappa_W) <= ROOT_RTOL:
        a = 0.0
    else:
        f = lambda a: np.log(_kappa_dense(W_of(a))) - np.log(kappa_W)  # noqa: E731
        hi = 0.9
        while f(hi) < 0:
            hi = 1.0 - (1.0 - hi) / 10
            if 1.0 - hi < 1e-14:
                raise ValueError(f"kappa_W = {kappa_W:g} not reached on graph {graph!r} by cut weakening")
        a = brentq(f, 0.0, hi, xtol=1e-16, rtol=4 * np.finfo(float).eps, maxiter=500)
    return W_of(a), a, int(cut.sum() // 2), rule


def fiedler_cut(W0: sp.spmatrix) -> tuple[np.ndarray, str]:
    """The side of the cut that :func:`make_gossip` weakens, decided by the graph alone (module docstring).

    Parameters
    ----------
    W0 : sparse matrix
        The unweighted graph's gossip matrix (symmetric PSD, kernel spanned by 1 for a connected graph).

    Returns
    -------
    side : ndarray of bool
        The nodes on one side; the cut is the set of edges with one end in ``side``.
    rule : str
        ``"fiedler"`` (``λ₂`` simple: the median split of the Fiedler vector, which does not depend on its sign)
        or ``"index halves"`` (``λ₂`` multiple: the Fiedler vector is not determined).
    """
    n = W0.shape[0]
    ev, V = np.linalg.eigh(W0.toarray())
    if n > 2 and ev[2] - ev[1] <= FIEDLER_GAP_RTOL * ev[-1]:
        return np.arange(n) < n // 2, "index halves"
    fied = V[:, 1]
    med, tol = np.median(fied), FIEDLER_TIE_RTOL * np.abs(fied).max()
    low, high = fied < med - tol, fied > med + tol
    ties = ~(low | high)
    # sign-free: the ties join the part holding the lowest-numbered node (the two parts swap under a sign flip)
    first = lambda part: int(np.argmax(part)) if part.any() else n  # noqa: E731
    side = (low if first(low) < first(high) else high) | ties
    if side.all():  # every node off the median lies on one side: the ties are the other side
        side = ~ties
    return side, "fiedler"
