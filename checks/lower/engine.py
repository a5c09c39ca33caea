"""The algorithm-independent lower-bound engine (docs/design.md, "The lower-bound engine").

For the class of Definition ``def:foda`` (and its coupled-constraint analogue of
Yarmoshik et al. 2024) every node's memory is a span of vectors; which
*coordinates* those vectors can have made nonzero is a property of the problem's
sparsity only.  The engine propagates, per node, boolean supports over three
spaces shared by all nodes — the local variables ``x`` (all ``d_i`` equal in the
worst-case instances), the shared variable ``x̃``, and the coupled-constraint space
``y ∈ R^m`` — under the allowed actions (the action, its effect on node ``i``'s supports, what it counts):

* ``grad``: ``∇f_i`` makes ``S_z ∪ N_{Q_i}(S_z) ∪ supp(q_i)`` with ``z = (x_i, x̃_i)``; one ∇f round;
* ``grad*``: ``∇f_i*`` reaches the connected components of ``Q_i``'s graph (free only);
* ``A``: ``S_y ∪ N_{A_i}(S_x) ∪ supp(b_i)`` and ``S_x ∪ N_{A_iᵀ}(S_y)``; one A/Aᵀ round;
* ``C``: ``S_x ∪ N_{C_iᵀC_i}(S_x) ∪ supp(C_iᵀc_i)``; one C_iᵀC_i round;
* ``Ct``: ``S_x̃ ∪ N_{C̃_iᵀC̃_i}(S_x̃) ∪ supp(C̃_iᵀc̃_i)``; one C̃_iᵀC̃_i round;
* ``comm``: every space, ``S(i) ∪ ⋃_{j ~ i} S(j)``; one W round.

To bound oracle ``o``, every *other* action is free: between two counted ``o``
steps the supports are closed under the free actions to a fixed point (repeated
``∇f``, ``∇f*``, ``AᵀA``, ``CᵀC`` reach whole connected components, so each closure
is one component-labelling step; free communication unites a connected graph).
After each step the smallest achievable error is the mass of ``x*`` outside the
supports, ``Σ_{k ∉ S} (x*_k)² / ‖x*‖²`` (start ``x⁰ = 0``; the relative squared
error the solvers stop on); the bound is the first count at which it is
``<= ε``.  For ``grad`` the dual oracle ``∇f*`` is not available at all (it
fills a Nesterov chain in one call): the gradient bound is for methods that
query primal gradients, which is the class Nesterov's (and the paper's
sum-trick) argument covers.  ``lower_bound("grad", …, conjugate=True)`` measures
the class as written (each round ``∇f_i`` and ``∇f_i*``), which the checks report
against ``def:foda``.

Counting conventions (so that every solver's counts can be compared): a solver's
``A`` count includes products by ``A`` and by ``Aᵀ``, one engine step allows both
at once; a solver's ``C`` count includes ``C`` and ``Cᵀ`` separately while the
engine's step is one ``C_iᵀC_i`` product (def:foda).  Either way the engine's
count is a lower bound on the solver's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from mixbounds.bounds.concepts import ORACLES, Oracle
from mixbounds.instances.problem import MixedProblem
from scipy.sparse.csgraph import connected_components, dijkstra


def tail_curve(rounds: np.ndarray, masses: np.ndarray, total: float) -> np.ndarray:
    """``tail[k] = Σ_{v : rounds_v > k or never} masses_v / total`` for ``k = 0 … max(rounds)`` (``rounds_v < 0``: never).

    The smallest relative squared error of any point whose supports are the vertices reached within ``k``
    rounds; summed from the far end (the smallest masses first), so that deep tails carry no cancellation.
    """
    top = int(rounds.max()) if rounds.size else 0
    never = float(masses[rounds < 0].sum())
    per = np.bincount(rounds[rounds >= 0], weights=masses[rounds >= 0], minlength=max(top, 0) + 1)
    tail = np.concatenate([np.cumsum(per[::-1])[::-1][1:], [0.0]]) + never
    return tail / total


def bfs_rounds(step: sp.csr_matrix, sources: np.ndarray, first: np.ndarray, *, bipartite: bool = False) -> np.ndarray:
    """The round at which each node is first reached (``-1``: never) by the breadth-first search of
    :meth:`Engine.reach`: ``sources`` at round 0, then each round adds the ``step`` neighbours of the last round's
    new nodes, and round 1 also adds ``first`` (the counted oracle's seeds).

    ``bipartite=False``: ``step`` is ``nodes × nodes`` (row → column edges).  ``bipartite=True``: ``step`` is the
    ``nodes × groups`` incidence, and a round goes node → its groups → every node of those groups (``first`` then
    names groups).  One shortest-path search in C on the graph with two virtual roots — ``z`` (edges to
    ``sources``; ``z`` → ``z'``) and ``z'`` (edges to ``first``) — gives every round at once: a node at distance
    ``d`` from ``z`` is reached in round ``d − 1`` (``(d − 1)/2`` when bipartite, where a round is two edges).  The
    distances of an unweighted graph are the rounds of the round-by-round closure exactly (both are breadth-first
    levels; ``tests/test_engine.py`` compares them with the literal closure).
    """
    n = step.shape[0]
    k = step.shape[1] if bipartite else 0  # group nodes n … n+k−1 when bipartite
    z, zp = n + k, n + k + 1
    coo = step.tocoo()
    rows, cols = [coo.row, ], [coo.col + n if bipartite else coo.col]
    if bipartite:  # group → node
        rows.append(coo.col + n)
        cols.append(coo.row)
    sources, first = np.asarray(sources, dtype=np.int64), np.asarray(first, dtype=np.int64)
    rows += [np.full(sources.size, z), [z], np.full(first.size, zp)]
    cols += [sources, [zp], first + n if bipartite else first]
    r, c = np.concatenate(rows).astype(np.int64), np.concatenate(cols).astype(np.int64)
    G = sp.csr_matrix((np.ones(r.size), (r, c)), shape=(zp + 1, zp + 1))
    d = dijkstra(G, directed=True, indices=z, unweighted=True)[:n]
    reached = np.isfinite(d)
    out = np.full(n, -1, dtype=np.int64)
    hops = d[reached].astype(np.int64) - 1
    out[reached] = hops // 2 if bipartite else hops
    return out


def _pattern(M) -> sp.coo_matrix:
    P = sp.coo_matrix(M, copy=True)
    keep = P.data != 0
    return sp.coo_matrix((np.ones(int(keep.sum())), (P.row[keep], P.col[keep])), shape=P.shape)


def _distinct(blocks):
    """``[(block, node indices)]`` over distinct blocks (same object, or equal values)."""
    groups: list[tuple[object, list[int]]] = []
    for i, B in enumerate(blocks):
        for rep, idx in groups:
            if rep is B or (rep.shape == B.shape and abs(sp.csr_matrix(rep) - sp.csr_matrix(B)).sum() == 0):
                idx.append(i)
                break
        else:
            groups.append((B, [i]))
    return [(B, np.array(idx)) for B, idx in groups]


@dataclass
class LowerBound:
    """Engine output for one oracle.

    ``errors[k]``: the smallest relative squared error reachable after ``k`` counted
    rounds (the other actions free); ``count``: first ``k`` with ``errors[k] <= eps``
    (``None`` if never reached); ``reason``: ``"reached"`` or why not.
    """

    oracle: str
    count: int | None
    reason: str
    errors: list = field(default_factory=list)

    def count_to(self, eps: float) -> int | None:
        hit = np.flatnonzero(np.asarray(self.errors) <= eps)
        return int(hit[0]) if hit.size else None


class Engine:
    """Support propagation on one problem (see module docstring).

    All supports live on one vertex set: ``(node, coordinate)`` for the ``x``, ``x̃``
    and ``y`` spaces.  Each action type is a symmetric sparse adjacency on those
    vertices plus a set of *seed* vertices (coordinates a constant term makes
    nonzero).  A counted round is one sparse product; the free actions' closure is
    a connected-components labelling of their union.
    """

    def __init__(self, problem: MixedProblem, x_star: np.ndarray):
        P = problem
        lay = P.layout
        if len(set(lay.d)) > 1:
            raise ValueError("lower-bound engine: all nodes must have the same local dimension d_i")
        if not hasattr(P.objective, "Q_blocks"):
            raise ValueError("lower-bound engine: needs a quadratic objective (Q_i, q_i)")
        self.P = P
        n, d, dt, m = P.n, (lay.d[0] if lay.d else 0), lay.dt, P.m
        self.n, self.d, self.dt, self.m = n, d, dt, m
        self.base_t, self.base_y = n * d, n * d + n * dt
        N = self.N = n * (d + dt + m)
        x, Xt = lay.split(np.asarray(x_star, dtype=float))
        w = np.zeros(N)
        w[: n * d] = x ** 2
        w[self.base_t: self.base_y] = (Xt ** 2).ravel()
        self.w = w
        self.total = float(w.sum())
        if self.total == 0:
            raise ValueError("lower-bound engine: x* = 0, every method is exact at the start")
        self.adj: dict[str, sp.csr_matrix] = {}
        self.seeds: dict[str, np.ndarray] = {}
        xi = lambda i, k: i * d + k  # noqa: E731
        ti = lambda i, k: self.base_t + i * dt + k  # noqa: E731
        yi = lambda i, k: self.base_y + i * m + k  # noqa: E731
        # objective: Q_i on z_i = (x_i, x̃_i)
        rows, cols, seed = [], [], np.zeros(N, bool)
        obj = P.objective
        for Q, idx in _distinct(list(obj.Q_blocks)):
            Pq = _pattern(Q)
            for i in idx:
                zmap = np.concatenate([xi(i, np.arange(d)), ti(i, np.arange(dt))]).astype(np.int64)
                rows.append(zmap[Pq.row])
                cols.append(zmap[Pq.col])
                seed[zmap[obj.q_blocks[i] != 0]] = True
        self._add(Oracle.GRAD, rows, cols, seed)
        if P.A is not None:
            rows, cols, seed = [], [], np.zeros(N, bool)
            for A, idx in _distinct(list(P.A)):
                Pa = _pattern(A)
                for i in idx:
                    rows.append(yi(i, Pa.row))
                    cols.append(xi(i, Pa.col))
                    seed[yi(i, np.flatnonzero(P.b[i] != 0))] = True
            self._add(Oracle.A, rows, cols, seed)
        for name, blocks, rhs, space in ((Oracle.C, P.C, P.c, xi), (Oracle.CT, P.Ct, P.ct, ti)):
            if blocks is None:
                continue
            rows, cols, seed = [], [], np.zeros(N, bool)
            for Cb, idx in _distinct(list(blocks)):
                Cs = sp.csr_matrix(Cb)
                Pg = _pattern(Cs.T @ Cs)
                for i in idx:
                    rows.append(space(i, Pg.row))
                    cols.append(space(i, Pg.col))
                    seed[space(i, np.flatnonzero(abs(Cs.T) @ np.abs(rhs[i])))] = True
            self._add(name, rows, cols, seed)
        if n > 1:
            E = sp.triu(sp.csr_matrix(P.W), k=1).tocoo()
            E = E.row[E.data != 0], E.col[E.data != 0]
            rows, cols = [], []
            for k in range(d):
                rows.append(xi(E[0], k)); cols.append(xi(E[1], k))  # noqa: E702
            for k in range(dt):
                rows.append(ti(E[0], k)); cols.append(ti(E[1], k))  # noqa: E702
            for k in range(m):
                rows.append(yi(E[0], k)); cols.append(yi(E[1], k))  # noqa: E702
            self._add(Oracle.COMM, rows, cols, np.zeros(N, bool))

    def _add(self, name, rows, cols, seed):
        r = np.concatenate(rows) if rows else np.zeros(0, np.int64)
        c = np.concatenate(cols) if cols else np.zeros(0, np.int64)
        A = sp.csr_matrix((np.ones(r.size), (r, c)), shape=(self.N, self.N))
        A = ((A + A.T) > 0).astype(np.float64)
        self.adj[name] = sp.csr_matrix(A)
        self.seeds[name] = seed

    def available(self) -> tuple[str, ...]:
        """Oracles the problem has."""
        return tuple(o for o in ORACLES if o in self.adj)

    def part(self, name: str) -> np.ndarray:
        """Vertex mask of a part of the unknowns: ``"all"``, ``"x"`` (local variables) or ``"xt"`` (shared)."""
        M = np.zeros(self.N, bool)
        if name in ("all", "x"):
            M[: self.base_t] = True
        if name in ("all", "xt"):
            M[self.base_t: self.base_y] = True
        if name not in ("all", "x", "xt"):
            raise ValueError(f"unknown part {name!r}")
        return M

    def error(self, S: np.ndarray, mask: np.ndarray | None = None) -> float:
        """Smallest relative squared error of a point with supports ``S``: mass of x* outside.

        With ``mask``, only the masked coordinates' error is counted (still divided by the
        total ‖x*‖²): the error of a part never exceeds the whole's, so a bound computed
        on a part is a valid (weaker) bound for the whole.
        """
        miss = ~S if mask is None else (~S & mask)
        return float(self.w[miss].sum()) / self.total

    def reach(self, oracle: str, *, free: tuple[str, ...] | None = None, conjugate: bool = False) -> np.ndarray:
        """First counted round of ``oracle`` after which each vertex is in the supports (``-1``: never).

        The supports after ``k`` rounds are exactly the vertices with ``0 <= reach <= k``: each round is
        monotone (``S ↦ close(S ∪ seeds ∪ N(S))``), so the whole history is one breadth-first search in which
        the free actions cost nothing (their connected components are contracted first) and a counted
        round costs one level.  Round ``0`` is the closure of the free actions' seeds, round ``1`` adds the
        counted oracle's seeds.  ``conjugate=True`` (``grad`` only): a counted round reaches the whole
        connected component of ``Q_i``'s graph (``∇f_i*`` beside ``∇f_i``).
        """
        if oracle not in self.adj:
            raise ValueError(f"lower-bound engine: the problem has no {oracle!r} oracle (has {self.available()})")
        if conjugate and oracle != Oracle.GRAD:
            raise ValueError(f"lower-bound engine: conjugate=True applies to 'grad' only, not {oracle!r}")
        if free is None:
            free = tuple(o for o in self.available() if o != oracle)
        if free:
            G = sum((self.adj[f] for f in free), sp.csr_matrix((self.N, self.N)))
            ncomp, labels = connected_components(G, directed=False)
            seed_free = np.logical_or.reduce([self.seeds[f] for f in free])
        else:
            ncomp, labels, seed_free = self.N, np.arange(self.N), np.zeros(self.N, bool)
        seed_step = self.seeds[oracle]
        sources = np.unique(labels[seed_free])
        if conjugate:  # a round: free component → its vertices' Q-graph components → every free component in those
            gcomp, glab = connected_components(self.adj[oracle], directed=False)
            inc = sp.csr_matrix((np.ones(self.N), (labels, glab)), shape=(ncomp, gcomp))
            dist = bfs_rounds(inc, sources, np.unique(glab[seed_step]), bipartite=True)
        else:  # a round: the counted oracle's edges between free components
            A = self.adj[oracle].tocoo()
            step = sp.csr_matrix((np.ones(A.nnz), (labels[A.row], labels[A.col])), shape=(ncomp, ncomp))
            dist = bfs_rounds(step, sources, labels[seed_step])
        return dist[labels]

    def error_curve(self, reach: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """``errors[k]``: the relative squared error of the supports after ``k`` rounds (``k = 0 … max reach``)."""
        return tail_curve(reach, self.w if mask is None else np.where(mask, self.w, 0.0), self.total)

    def lower_bound(self, oracle: str, eps: float, *, max_steps: int = 1_000_000,
                    free: tuple[str, ...] | None = None, part: str = "all", conjugate: bool = False) -> LowerBound:
        """Rounds of ``oracle`` needed before some point in memory has error ``<= eps`` (on ``part``).

        ``conjugate=True`` (``grad`` only): each counted round may also call ``∇f_i*``, as Definition
        ``def:foda`` admits; one round then fills the whole connected component of ``Q_i``'s graph.
        ``errors`` holds the curve up to the count (or up to the budget / the round the supports saturate).
        """
        mask = None if part == "all" else self.part(part)
        curve = self.error_curve(self.reach(oracle, free=free, conjugate=conjugate), mask)
        hit = np.flatnonzero(curve <= eps)
        if hit.size and hit[0] <= max_steps:
            k = int(hit[0])
            return LowerBound(oracle, k, "reached", [float(e) for e in curve[: k + 1]])
        if curve.size - 1 > max_steps:
            return LowerBound(oracle, None, f"budget of {max_steps} rounds exhausted",
                              [float(e) for e in curve[: max_steps + 1]])
        return LowerBound(oracle, None, f"stalled: supports saturate with error {curve[-1]:.3e} > ε",
                          [float(e) for e in curve])

    def all_bounds(self, eps: float, **kw) -> dict[str, LowerBound]:
        return {o: self.lower_bound(o, eps, **kw) for o in self.available()}
