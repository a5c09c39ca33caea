"""Small fixed networks for the performance-estimation certificates (N = 3–5 nodes).

A PEP of a decentralized method is exact over the function class for ONE fixed gossip
matrix ``W`` (its Gram matrix grows with the number of nodes, so N stays small).  To reach
``κ_W = 10 … 10⁴`` on a few nodes, some edge weights of a path, ring or star are lowered to
``w ∈ (0, 1]`` (all other weights 1) and ``w`` is found by root finding so that the
Laplacian ``W = D − A_w`` has ``κ_W = λ_max(W)/λ_min+(W)`` equal to the target to relative
:data:`KAPPA_W_RTOL` (``brentq`` on ``log κ``; ``κ(w)`` grows to ``∞`` as ``w → 0`` because the
lowered edges disconnect the graph: the first edge of a path or star, two opposite edges of a
ring).  Two nodes give ``κ_W = 1`` for every weight, so ``N >= 3``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

KINDS = ("path", "ring", "star")
#: relative accuracy of the tuned κ_W
KAPPA_W_RTOL = 1e-10


def _edges(kind: str, n: int) -> tuple[list[tuple[int, int]], list[int]]:
    """Edge list of the graph and the indices of the edges whose weight is tuned."""
    if kind == "path":
        return [(i, i + 1) for i in range(n - 1)], [0]
    if kind == "ring":
        return [(i, (i + 1) % n) for i in range(n)], [0, n // 2]
    if kind == "star":
        return [(0, i) for i in range(1, n)], [0]
    raise ValueError(f"PEP network: unknown kind {kind!r}; expected one of {KINDS}")


def weighted_laplacian(kind: str, n: int, w: float) -> np.ndarray:
    """Dense Laplacian of ``kind`` on ``n`` nodes with the tuned edges at weight ``w`` (others 1)."""
    edges, tuned = _edges(kind, n)
    W = np.zeros((n, n))
    for e, (i, j) in enumerate(edges):
        a = w if e in tuned else 1.0
        W[i, j] -= a
        W[j, i] -= a
        W[i, i] += a
        W[j, j] += a
    return W


def _kappa(W: np.ndarray) -> float:
    ev = np.linalg.eigvalsh(W)
    return float(ev[-1] / ev[1])


@dataclass(frozen=True)
class Network:
    """A tuned network: ``W`` (dense, n × n), its kind, the tuned weight and the realized κ_W."""

    kind: str
    n: int
    weight: float
    kappa_W: float
    W: np.ndarray

    def describe(self) -> dict:
        return {"kind": self.kind, "n": self.n, "weight": self.weight, "kappa_W": self.kappa_W,
                "W": np.round(self.W, 15).tolist()}


def network(kind: str, n: int, kappa_W: float) -> Network:
    """The ``kind`` graph on ``n`` nodes with ``κ_W`` tuned to ``kappa_W`` (module docstring).

    Raises ``ValueError`` when ``n < 3`` or the target is below the graph's unweighted κ_W
    (lowering weights only raises κ_W).
    """
    if not (3 <= n <= 8):
        raise ValueError(f"PEP network: need 3 <= n <= 8 nodes (the SDP grows with n), got n={n}")
    if not (np.isfinite(kappa_W) and kappa_W >= 1):
        raise ValueError(f"PEP network: κ_W must be finite and >= 1, got {kappa_W}")
    base = _kappa(weighted_laplacian(kind, n, 1.0))
    if kappa_W < base * (1 - KAPPA_W_RTOL):
        raise ValueError(f"PEP network: the {kind} on {n} nodes has κ_W = {base:.4g} unweighted; "
                         f"a target {kappa_W:g} below it cannot be reached by lowering weights")
    if kappa_W <= base * (1 + KAPPA_W_RTOL):
        w = 1.0
    else:
        f = lambda w: np.log(_kappa(weighted_laplacian(kind, n, w)) / kappa_W)  # noqa: E731
        lo = 1e-3
        while f(lo) < 0:
            lo /= 100
        w = brentq(f, lo, 1.0, xtol=1e-300, rtol=1e-15, maxiter=500)
    W = weighted_laplacian(kind, n, w)
    got = _kappa(W)
    if abs(got / kappa_W - 1) > KAPPA_W_RTOL * 10:
        raise ValueError(f"PEP network: tuning {kind} n={n} to κ_W={kappa_W:g} reached only {got:.12g}")
    return Network(kind, n, float(w), got, W)
