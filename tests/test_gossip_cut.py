"""The cut that κ_W tuning weakens (:func:`mixbounds.instances.random.gossip.fiedler_cut`) is a function of the graph.

An eigensolver returns any orthonormal basis of a multiple eigenvalue's eigenspace and either sign of a simple
one's eigenvector, whichever its rounding gives (a ring's Fiedler vector differed between OpenBLAS's SkylakeX and
Haswell kernels, and so did four pinned instances).  The tests below hand :func:`fiedler_cut` such other bases —
every eigenspace rotated by a random orthogonal matrix, every vector's sign flipped at random — and require the
same cut; the previous rule (the nodes at or below the median of the returned Fiedler vector), given the same
bases, changes its cut: the negative control.
"""

from __future__ import annotations

import numpy as np
import pytest
from mixbounds.instances.random import gossip
from mixbounds.instances.random.gossip import fiedler_cut

pytestmark = pytest.mark.numerics

#: eigenvalues closer than this (relative to λ_max) belong to one eigenspace when the test rotates bases: exact
#: multiplicities come out within ~1e-15, the distinct eigenvalues of these graphs lie ≥ 1e-2 apart
CLUSTER_RTOL = 1e-9
#: bases tried per graph
TRIES = 12

GRAPHS = [(g, n, w) for g in ("ring", "star", "complete", "grid", "er", "path") for n in (5, 6, 8, 9)
          for w in ("laplacian", "metropolis") if not (g == "grid" and n == 5)]  # 5 nodes: no grid


def _gossip0(graph: str, n: int, weights: str):
    adj, _ = gossip._adjacency(graph, n, 0, None)
    return gossip._weighted_laplacian(gossip._base_weights(adj, weights))


def _other_basis(rng: np.random.Generator):
    """``np.linalg.eigh`` returning, for each cluster of equal eigenvalues, a random orthonormal basis of its
    eigenspace with random signs: another answer a correct eigensolver may give."""
    eigh = np.linalg.eigh

    def fake(A):
        ev, V = eigh(A)
        V = V.copy()
        start = 0
        while start < ev.size:
            stop = start + 1
            while stop < ev.size and ev[stop] - ev[start] <= CLUSTER_RTOL * max(abs(ev[-1]), 1.0):
                stop += 1
            k = stop - start
            Q, _ = np.linalg.qr(rng.standard_normal((k, k)))
            V[:, start:stop] = V[:, start:stop] @ (Q * rng.choice([-1.0, 1.0], k))
            start = stop
        return ev, V

    return fake


def _median_rule(W0) -> np.ndarray:
    """The rule before the fix: the nodes at or below the median of the eigensolver's second eigenvector."""
    _, V = np.linalg.eigh(W0.toarray())
    return V[:, 1] <= np.median(V[:, 1])


def _cut(W0, side: np.ndarray) -> frozenset:
    i, j = W0.nonzero()
    return frozenset((a, b) for a, b in zip(i, j) if a < b and side[a] != side[b])


@pytest.mark.parametrize("graph,n,weights", GRAPHS, ids=[f"{g}-{n}-{w}" for g, n, w in GRAPHS])
def test_the_cut_does_not_depend_on_the_eigensolvers_basis(graph, n, weights, monkeypatch):
    W0 = _gossip0(graph, n, weights)
    side, rule = fiedler_cut(W0)
    assert 0 < side.sum() < n
    rng = np.random.default_rng(n)
    monkeypatch.setattr(np.linalg, "eigh", _other_basis(rng))
    for _ in range(TRIES):
        again, rule_again = fiedler_cut(W0)
        assert rule_again == rule and _cut(W0, again) == _cut(W0, side)


@pytest.mark.parametrize("graph,n", [("ring", 8), ("star", 6), ("path", 5)])
def test_the_median_of_the_returned_vector_was_not_a_function_of_the_graph(graph, n, monkeypatch):
    """Negative control: the previous rule gives several cuts for the same graph under the same bases (ring, star:
    λ₂ multiple; path with 5 nodes: the middle node's entry is 0, its side is the vector's sign)."""
    W0 = _gossip0(graph, n, "laplacian")
    monkeypatch.setattr(np.linalg, "eigh", _other_basis(np.random.default_rng(n)))
    assert len({_cut(W0, _median_rule(W0)) for _ in range(TRIES)}) > 1


def test_which_rule_applies():
    """λ₂ multiple (ring, star, complete, square grid): index halves; simple: the Fiedler median split, whose ties
    (the middle column of a 2 × 3 grid, entry 0) join the side of node 0."""
    for graph, n in (("ring", 6), ("star", 6), ("complete", 5), ("grid", 9)):
        side, rule = fiedler_cut(_gossip0(graph, n, "laplacian"))
        assert rule == "index halves" and list(np.flatnonzero(side)) == list(range(n // 2)), graph
    side, rule = fiedler_cut(_gossip0("grid", 6, "laplacian"))  # 2 rows × 3 columns, nodes row by row
    assert rule == "fiedler" and list(np.flatnonzero(side)) == [0, 1, 3, 4]
    side, rule = fiedler_cut(_gossip0("path", 5, "laplacian"))
    assert rule == "fiedler" and list(np.flatnonzero(side)) == [0, 1, 2]
