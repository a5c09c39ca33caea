"""Seeded random instance families for upper-bound checks away from the worst case.

Every builder returns an :class:`instances.instance.Instance` whose ``realized``
condition numbers are computed from the matrices by
:func:`instances.realized.realized_kappas` (never copied from ``targets``), and
checks them against the targets before returning: a builder that cannot meet a
target to its stated tolerance raises ``ValueError`` instead of returning a
mis-tuned instance.

How each parameter is tuned (tolerances are relative, stored per target in
``params["tolerance"]``; :data:`TARGET_RTOL`, or :data:`TARGET_RTOL_LARGE` when a
matrix is large enough for the iterative eigen-solver path of ``bounds.spectral``):

* ``kappa_f`` (quadratic, Assumption ``ass:smooth_and_str_convex_of_f_i``):
  ``Q_i = U_i diag(λ_i) U_iᵀ`` with random orthogonal ``U_i`` and eigenvalues in
  ``[1, κ_f]``; node 0 holds both ends (``μ_f = 1``, ``L_f = κ_f``), so
  ``L_f/μ_f = κ_f`` up to rounding.  Logistic: ``L_f = max_i ‖F_i‖²/(4N_i) + λ``,
  ``μ_f = λ`` and ``λ = max_i ‖F_i‖²/(4N_i) / (κ_f − 1)`` (needs ``κ_f > 1``).
* ``kappa_W`` (Assumption ``ass:W``): on ``graph="path"`` with Laplacian gossip
  the path of ``app:example_graph`` (:func:`instances.graphs.tuned_path`; ``n`` is
  then forced by κ_W).  On any other graph (or Metropolis gossip) the edges of a
  Fiedler cut (the nodes split at the median of the Fiedler vector) are weakened
  by a factor ``1 − a`` and ``a ∈ [0, 1)`` is found by root finding: κ_W
  ranges over ``[κ_W(a=0), ∞)``; a target below the unweighted graph's κ_W is
  impossible and raises ``ValueError``.
* ``kappa_AC`` (κ̃_AC, Definition ``def:projected_condition_number``; equal to
  κ̂_A of Definition ``def:mixed_condition_number`` when there are no local
  constraints) and ``kappa_Ct`` (κ̂_{C̃ᵀ}, non-identical C̃): the blocks
  ``X_i`` (``A_i``, or ``C̃_iᵀ``) run through a two-stage one-parameter family.
  Stage 1 blends a *frame base* ``X⁰`` (orthonormal rows of one random
  orthogonal matrix dealt to the nodes cyclically: the smallest mixed condition
  number the sizes allow, 1 when every ``A_i P_{ker C_i}`` can have ``m``
  orthonormal rows) with Gaussian blocks ``Xᴳ``: ``X(h) = Wh · ((1−h)X⁰ + hXᴳ)``
  where ``Wh`` whitens the (projected) interaction matrix to the identity on its
  range.  Stage 2 (targets above the Gaussian value) scales one random
  direction ``u`` of that range: ``X(t) = (I − (1−t)uuᵀ) X(1)``, so
  ``λ_min+ = t²``.  ``h`` or ``log t`` is found by Brent's method, so the
  realized value matches the target to about 1e-12 in exact arithmetic.  A target
  below the frame base's value is impossible (for a rank-deficient group,
  ``κ̂ >= n·rank(S)/Σ_i rank(B_i)``) and raises ``ValueError`` naming the floor.
* ``kappa_C`` (κ_C of the group ``(C_1, …, C_n)``, paper Notation) and κ_C̃
  (identical C̃): singular values set directly in ``[1, √κ]`` with both ends
  present, so ``κ = σ_max²/σ_min+²`` exactly up to rounding.

Right-hand sides are generated from a random point (``b_i = A_i x⁰_i``,
``c_i = C_i x⁰_i``, ``c̃_i = C̃_i x̃⁰``), so every instance is feasible.  All
random draws come from streams ``default_rng([seed, crc32(name)])`` that are
independent per component (graph, objective, each matrix group), so changing
one target does not redraw the other components.

Families (``FAMILIES``; CLI name → builder, each documented below):
``random-consensus``, ``random-coupled``, ``random-shared``,
``random-shared-ident``, ``random-coupled-local``, ``random-mixed``,
``random-mixed-ident``, ``logistic-consensus``, ``vertical-fl``, ``local-global``.
Builders take keyword arguments only::

    f(*, n=None, seed=0, kappa_W=None, kappa_f=…, kappa_AC=None, kappa_C=None,
      kappa_Ct=None, eps=None, variant="default", graph=None, **kw) -> Instance

``graph=None`` means ``"ring"``, or ``"path"`` when ``kappa_W`` is given; ``n=None``
means the family default (or the ``n`` forced by the tuned path).  Extra keywords
(sizes such as ``d``, ``dt``, ``m``, ``p``, ``pt``; ``gossip``; ``er_p``;
``objective``; ``samples`` …) are listed in each family's docstring; unknown
keywords, unknown variants and impossible targets raise ``ValueError``.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np
import scipy.sparse as sp
from scipy.optimize import brentq

from mixbounds.bounds.spectral import DENSE_LIMIT, ZERO_RTOL

from .graphs import (
    complete_adjacency,
    erdos_renyi_adjacency,
    grid_adjacency,
    path_adjacency,
    ring_adjacency,
    star_adjacency,
    tuned_path,
)
from .instance import Instance
from .layout import Layout
from .objectives import LogisticObjective, QuadraticObjective
from .problem import MixedProblem
from .realized import realized_kappas

#: relative tolerance to which realized κ's match their targets (dense spectral path)
TARGET_RTOL = 1e-8
#: the same when some matrix is larger than ``bounds.spectral.DENSE_LIMIT`` (ARPACK path)
TARGET_RTOL_LARGE = 1e-6
#: largest target accepted: beyond it κ approaches the relative zero threshold
#: ``bounds.spectral.ZERO_RTOL`` = 1e-9 and λ_min+ could not be told from 0.
KAPPA_MAX = 1e8
#: relative accuracy demanded of the internal root finding
ROOT_RTOL = 1e-10

GRAPHS = ("path", "ring", "grid", "star", "complete", "er")
GOSSIPS = ("laplacian", "metropolis")
OBJECTIVES = ("quadratic", "logistic")

COMMON_KW = ("gossip", "er_p")


# ============================================================== small utilities
def _rng(seed: int, stream: str) -> np.random.Generator:
    return np.random.default_rng([int(seed), zlib.crc32(stream.encode())])


def _orthogonal(k: int, rng: np.random.Generator) -> np.ndarray:
    """A Haar-random ``k × k`` orthogonal matrix."""
    if k == 0:
        return np.zeros((0, 0))
    G = rng.standard_normal((k, k))
    Qm, R = np.linalg.qr(G)
    return Qm * np.sign(np.where(np.diag(R) == 0, 1.0, np.diag(R)))


def _check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def _check_kappa(name: str, value, *, allow_one: bool = True) -> float | None:
    if value is None:
        return None
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {value!r}") from None
    if not np.isfinite(v):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if v < 1.0 or (not allow_one and v <= 1.0):
        raise ValueError(f"{name} = {v:g} is impossible: condition numbers are >= 1" + ("" if allow_one else " (and this one must be > 1)"))
    if v > KAPPA_MAX:
        raise ValueError(f"{name} = {v:g} exceeds KAPPA_MAX = {KAPPA_MAX:g} (λ_min+ would fall below the zero threshold ZERO_RTOL = {ZERO_RTOL:g})")
    return v


def _check_int(name: str, value, lo: int, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if value < lo or (hi is not None and value > hi):
        rng_txt = f">= {lo}" if hi is None else f"in [{lo}, {hi}]"
        raise ValueError(f"{name} must be {rng_txt}, got {value}")
    return int(value)


def _reject_unknown(family: str, kw: dict, allowed: Sequence[str]) -> None:
    bad = sorted(k for k in kw if k not in allowed)
    if bad:
        raise ValueError(f"{family}: unknown parameter(s) {', '.join(bad)}; accepted extra parameters: {', '.join(sorted(allowed)) or 'none'}")


def _reject_targets(family: str, why: dict) -> None:
    """``why``: {param: (value, reason)}: any given value is an error."""
    for k, (v, reason) in why.items():
        if v is not None:
            raise ValueError(f"{family}: cannot target {k} = {v}: {reason}")


def _check_variant(family: str, variant: str, known: Sequence[str]) -> str:
    if variant not in known:
        raise ValueError(f"{family}: unknown variant {variant!r} (known: {', '.join(known)})")
    return variant


def _rel(a: float, b: float) -> float:
    return abs(a / b - 1.0)


# ============================================================== gossip matrices
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
        er_seed = int(_rng(seed, "er-graph").integers(2**31))
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
    ``default_n``, or the ``n`` that :func:`instances.graphs.tuned_path` forces.
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
    n = _check_int("n", n, 2)
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
    # Fiedler cut: nodes at or below the median of the Fiedler vector
    ev, V = np.linalg.eigh(W0.toarray())
    fied = V[:, 1]
    side = fied <= np.median(fied)
    if side.all() or not side.any():
        side = np.arange(n) < n // 2
    i, j = w0.nonzero()
    cut = side[i] != side[j]
    cut_mask = sp.csr_matrix((cut.astype(float), (i, j)), shape=w0.shape)

    def W_of(a: float) -> sp.csr_matrix:
        return _weighted_laplacian(w0 - a * w0.multiply(cut_mask))

    if _rel(k0, kappa_W) <= ROOT_RTOL:
        a = 0.0
    else:
        f = lambda a: np.log(_kappa_dense(W_of(a))) - np.log(kappa_W)  # noqa: E731
        hi = 0.9
        while f(hi) < 0:
            hi = 1.0 - (1.0 - hi) / 10
            if 1.0 - hi < 1e-14:
                raise ValueError(f"kappa_W = {kappa_W:g} not reached on graph {graph!r} by cut weakening")
        a = brentq(f, 0.0, hi, xtol=1e-16, rtol=4 * np.finfo(float).eps, maxiter=500)
    W = W_of(a)
    info.update(tuning="Fiedler-cut weakening", a=float(a), cut_edges=int(cut.sum() // 2), kappa_W_unweighted=k0)
    return Gossip(W, adj, n, graph, gossip, info)


# ============================================================== objectives
def quadratic_objective(layout: Layout, kappa_f: float, rng: np.random.Generator) -> tuple[QuadraticObjective, dict]:
    """``f_i(z) = ½ zᵀQ_i z − q_iᵀz`` with spectrum of every ``Q_i`` in ``[1, κ_f]``, both ends attained."""
    n = layout.n
    Qs, qs = [], []
    ends = {(0, "min"), (0 if layout.d[0] + layout.dt >= 2 else 1, "max")}
    for i in range(n):
        k = layout.d[i] + layout.dt
        ev = np.exp(rng.uniform(0.0, np.log(kappa_f), k)) if kappa_f > 1 else np.ones(k)
        if (i, "min") in ends:
            ev[0] = 1.0
        if (i, "max") in ends:
            ev[-1 if (i, "min") in ends else 0] = kappa_f
        U = _orthogonal(k, rng)
        Q = (U * ev) @ U.T
        Qs.append(0.5 * (Q + Q.T))
        qs.append(rng.standard_normal(k))
    obj = QuadraticObjective(Qs, qs, layout)
    return obj, {"type": "quadratic", "tuning": "eigenvalues of Q_i in [1, kappa_f], both ends at nodes 0/1"}


def logistic_objective(layout: Layout, kappa_f: float, rng: np.random.Generator, samples: int) -> tuple[LogisticObjective, dict]:
    """Regularised logistic regression with ``λ`` chosen so that ``L_f/μ_f = κ_f`` exactly."""
    if kappa_f <= 1.0:
        raise ValueError("logistic objective: kappa_f must be > 1 (L_f = L_loss + λ > λ = μ_f)")
    n = layout.n
    Fs, ys = [], []
    w_true = {}
    for i in range(n):
        k = layout.d[i] + layout.dt
        F = rng.standard_normal((samples, k)) / np.sqrt(max(k, 1))
        w = rng.standard_normal(k)
        y = np.sign(F @ w + 0.3 * rng.standard_normal(samples))
        y[y == 0] = 1.0
        Fs.append(F)
        ys.append(y)
        w_true[i] = w
    L_loss = max(float(np.linalg.norm(F, 2) ** 2) / (4 * F.shape[0]) for F in Fs)
    reg = L_loss / (kappa_f - 1.0)
    obj = LogisticObjective(Fs, ys, reg, layout)
    return obj, {"type": "logistic", "samples_per_node": samples, "reg": reg, "L_loss": L_loss,
                 "tuning": "reg = max_i ||F_i||^2/(4 N_i) / (kappa_f - 1)"}


# ============================================================== mixed / projected condition numbers
def _smax_sq(blocks: Sequence[np.ndarray]) -> float:
    shapes = {B.shape for B in blocks}
    if len(shapes) == 1:
        return float(np.max(np.linalg.norm(np.stack(blocks), 2, axis=(1, 2))) ** 2)
    return float(max(np.linalg.norm(B, 2) ** 2 for B in blocks if B.size))


def _proj_gram(blocks: Sequence[np.ndarray], projs: Sequence[np.ndarray] | None) -> np.ndarray:
    """``(1/n) Σ X_i P_i X_iᵀ`` (``P_i = I`` when ``projs`` is None)."""
    n = len(blocks)
    S = np.zeros((blocks[0].shape[0],) * 2)
    for i, X in enumerate(blocks):
        XP = X if projs is None else X @ projs[i]
        S += XP @ X.T if projs is None else XP @ XP.T
    return 0.5 * (S + S.T) / n


def _pos_eig(S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    ev, V = np.linalg.eigh(S)
    if ev[-1] <= 0:
        return ev[:0], V[:, :0]
    keep = ev > ZERO_RTOL * ev[-1]
    return ev[keep], V[:, keep]


def group_ratio(blocks: Sequence[np.ndarray], projs: Sequence[np.ndarray] | None = None) -> float:
    """``max_i σ_max²(X_i) / λ_min+((1/n) Σ X_i P_i X_iᵀ)``.

    With ``P_i = I``: κ̂_X of Definition ``def:mixed_condition_number``; with
    ``P_i`` the projector onto ``ker C_i``: κ̃_XC of Definition
    ``def:projected_condition_number`` (``μ̃ > 0`` case).
    """
    ev, _ = _pos_eig(_proj_gram(blocks, projs))
    if ev.size == 0:
        return float("inf")
    return _smax_sq(blocks) / float(ev.min())


def _whiten(blocks: list[np.ndarray], projs) -> list[np.ndarray]:
    ev, V = _pos_eig(_proj_gram(blocks, projs))
    Wm = (V / np.sqrt(ev)) @ V.T + (np.eye(V.shape[0]) - V @ V.T)
    return [Wm @ X for X in blocks]


def frame_base(m: int, ranks: Sequence[int], rng: np.random.Generator) -> list[np.ndarray]:
    """``B⁰_i`` (``m × r_i``): columns of one random orthogonal ``O`` dealt cyclically, times random ``R_i``.

    ``r_i >= m``: ``B⁰_i B⁰_iᵀ = I``; ``r_i < m``: a coordinate projection of rank ``r_i``,
    the ranks spread as evenly over the ``m`` directions as the sizes allow.
    """
    O = _orthogonal(m, rng)
    out, off = [], 0
    for r in ranks:
        R = _orthogonal(r, rng)
        if r >= m:
            B = np.hstack([O, np.zeros((m, r - m))]) @ R
        else:
            cols = (off + np.arange(r)) % m
            off += r
            B = O[:, cols] @ R
        out.append(B)
    return out


@dataclass
class _Tuned:
    blocks: list
    info: dict


def tune_group(X0: list[np.ndarray], XG: list[np.ndarray], projs, target: float | None, rng: np.random.Generator,
               *, label: str) -> _Tuned:
    """Blocks ``X_i`` with ``group_ratio(X, projs) = target`` (two-stage family of the module docstring).

    ``target=None``: the Gaussian blocks ``XG`` unchanged (untuned).
    """
    if target is None:
        return _Tuned([np.array(X) for X in XG], {"tuning": "none (Gaussian blocks)"})

    def blend(h: float) -> list[np.ndarray]:
        return _whiten([(1.0 - h) * a + h * g for a, g in zip(X0, XG)], projs)

    k0 = group_ratio(blend(0.0), projs)
    if target < k0 * (1 - ROOT_RTOL):
        raise ValueError(
            f"{label} = {target:g} is below {k0:.6g}, the smallest value this family reaches with these sizes "
            f"(frame base; in general κ̂ >= n·rank(S)/Σ_i rank(B_i)): increase the block ranks or lower the row dimension"
        )
    if _rel(k0, target) <= ROOT_RTOL:
        return _Tuned(blend(0.0), {"tuning": "frame base", "h": 0.0, "t": 1.0, "floor": k0})
    XG1 = blend(1.0)
    kG = group_ratio(XG1, projs)
    info = {"floor": k0, "kappa_gaussian": kG}
    if target <= kG:
        f = lambda h: np.log(group_ratio(blend(h), projs)) - np.log(target)  # noqa: E731
        h = brentq(f, 0.0, 1.0, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500)
        X = blend(h)
        info.update(tuning="stage 1: blend frame base -> Gaussian (Brent on h)", h=float(h), t=1.0)
    else:
        ev, V = _pos_eig(_proj_gram(XG1, projs))
        if V.shape[1] < 2:
            raise ValueError(f"{label} = {target:g}: the interaction matrix has rank {V.shape[1]} < 2, so no weak direction can be scaled; "
                             f"the reachable maximum is {kG:.6g}")
        g = V @ (V.T @ rng.standard_normal(V.shape[0]))
        u = g / np.linalg.norm(g)

        def scaled(s: float) -> list[np.ndarray]:
            t = np.exp(s)
            return [X - (1.0 - t) * np.outer(u, u @ X) for X in XG1]

        f = lambda s: np.log(group_ratio(scaled(s), projs)) - np.log(target)  # noqa: E731
        s_lo = -0.5 * np.log(target / kG) - 0.1
        while f(s_lo) < 0:
            s_lo -= 1.0
            if s_lo < -40:
                raise ValueError(f"{label} = {target:g} not reached by scaling a weak direction")
        s = brentq(f, s_lo, 0.0, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500)
        X = scaled(s)
        info.update(tuning="stage 2: Gaussian blocks, weak direction scaled by t (Brent on log t)", h=1.0, t=float(np.exp(s)))
    achieved = group_ratio(X, projs)
    if _rel(achieved, target) > ROOT_RTOL:
        raise ValueError(f"{label}: root finding reached {achieved:.12g}, target {target:.12g} (relative error {_rel(achieved, target):.1e})")
    info["internal_relative_error"] = _rel(achieved, target)
    return _Tuned(X, info)


def local_blocks(d: Sequence[int], p: Sequence[int], kappa_C: float | None, rng: np.random.Generator):
    """``C_i = U_i diag(s_i) V_iᵀ`` (``p_i × d_i``, full row rank) and orthonormal kernel bases ``N_i``.

    ``kappa_C`` given: ``s_i² ∈ [1, κ_C]`` with both ends attained (node 0, or nodes 0/1);
    else the singular values of a Gaussian ``p_i × d_i`` matrix scaled by ``1/√d_i``.
    """
    n = len(d)
    Cs, Ns = [], []
    for i in range(n):
        U = _orthogonal(p[i], rng)
        Q = _orthogonal(d[i], rng)
        V, N = Q[:, : p[i]], Q[:, p[i]:]
        if kappa_C is None:
            s = np.linalg.svd(rng.standard_normal((p[i], d[i])) / np.sqrt(d[i]), compute_uv=False)
        else:
            s = np.sqrt(np.exp(rng.uniform(0.0, np.log(kappa_C), p[i]))) if kappa_C > 1 else np.ones(p[i])
            if i == 0:
                s[0] = 1.0
                if p[0] >= 2:
                    s[-1] = np.sqrt(kappa_C)
            if i == 1 and p[0] < 2:
                s[0] = np.sqrt(kappa_C)
        Cs.append((U * s) @ V.T)
        Ns.append(N)
    return Cs, Ns


def identical_shared_block(dt: int, pt: int, kappa: float | None, rng: np.random.Generator) -> np.ndarray:
    """One ``C̃`` (``p̃ × d̃``) with ``σ_max²/σ_min+² = κ_C̃`` (both ends attained)."""
    U = _orthogonal(pt, rng)
    V = _orthogonal(dt, rng)[:, :pt]
    if kappa is None:
        s = np.linalg.svd(rng.standard_normal((pt, dt)) / np.sqrt(dt), compute_uv=False)
    else:
        s = np.sqrt(np.exp(rng.uniform(0.0, np.log(kappa), pt))) if kappa > 1 else np.ones(pt)
        s[0] = 1.0
        s[-1] = np.sqrt(kappa)
    return (U * s) @ V.T


# ============================================================== assembling and checking
def _tolerances(problem: MixedProblem, targets: dict) -> dict:
    big = problem.n > DENSE_LIMIT or problem.m > DENSE_LIMIT or problem.layout.dt > DENSE_LIMIT
    big = big or any(di > DENSE_LIMIT for di in problem.layout.d)
    tol = TARGET_RTOL_LARGE if big else TARGET_RTOL
    return {k: tol for k in targets}


def projected_remark_finding(kappa_A: float, kappa_AC: float) -> dict:
    """Finding: Remark ``rem:projected_condition_number`` claims κ̃_BD <= κ̂_B when μ̃_BD > 0."""
    return {
        "label": "rem:projected_condition_number",
        "statement": "if μ̃_BD > 0 then κ̃_BD <= κ̂_B (via ker^⊥(M P_L) = ker^⊥ M ∩ L)",
        "printed": "kappa_AC <= kappa_A",
        "measured": {"kappa_A": kappa_A, "kappa_AC": kappa_AC},
        "detail": "realized κ̃_AC exceeds κ̂_A on this instance. The row space of M P_L is P_L(ker^⊥ M), not "
                  "ker^⊥ M ∩ L, and projecting can shrink σ_min+: e.g. B = (1 1), D = (0 1) give κ̂_B = 1, κ̃_BD = 2.",
    }


def _finish(family: str, variant: str, problem: MixedProblem, targets: dict, *, seed: int, params: dict,
            notes: list, closed_forms: dict | None = None, findings: list | None = None) -> Instance:
    """Compute realized κ's, check them against ``targets``, return the Instance."""
    realized = realized_kappas(problem)
    tol = _tolerances(problem, targets)
    errors = {}
    for k, t in targets.items():
        if k not in realized:
            raise ValueError(f"{family}: target {k} has no realized value (structure missing)")
        err = _rel(realized[k], t)
        errors[k] = err
        if err > tol[k]:
            raise ValueError(
                f"{family}: realized {k} = {realized[k]:.10g} misses the target {t:.10g} "
                f"(relative error {err:.1e} > tolerance {tol[k]:.0e}); tuning failed"
            )
    params = dict(params, tolerance=tol, relative_error=errors)
    findings = list(findings or [])
    kA, kAC, muAC = realized.get("kappa_A"), realized.get("kappa_AC"), realized.get("mu_AC", 0.0)
    if kA is not None and kAC is not None and muAC > 0 and kAC > kA * (1 + 1e-9):
        findings.append(projected_remark_finding(kA, kAC))
    return Instance(problem=problem, family=family, variant=variant, targets=dict(targets), realized=realized,
                    closed_forms=dict(closed_forms or {}), findings=findings, params=params,
                    notes=list(notes), seed=seed)


# ============================================================== the generic random family
@dataclass(frozen=True)
class _Structure:
    x: bool          # local variables x_i
    t: bool          # shared variable x̃
    A: bool          # coupled constraint
    C: bool          # local constraints
    Ct: bool         # shared-variable constraints
    ident: bool      # identical C̃
    defaults: dict
    objective: str | None = None  # forced objective type (None: the `objective` keyword)


_RANDOM = {
    "random-consensus": _Structure(False, True, False, False, False, False, dict(n=8, dt=5)),
    "random-coupled": _Structure(True, False, True, False, False, False, dict(n=8, d=6, m=3)),
    # n·pt < dt: the stacked C̃ leaves free directions of x̃, so the objective matters there
    "random-shared": _Structure(False, True, False, False, True, False, dict(n=8, dt=12, pt=1)),
    "random-shared-ident": _Structure(False, True, False, False, True, True, dict(n=8, dt=6, pt=3)),
    "random-coupled-local": _Structure(True, False, True, True, False, False, dict(n=8, d=6, m=3, p=2)),
    "random-mixed": _Structure(True, True, True, True, True, False, dict(n=8, d=6, dt=10, m=3, p=2, pt=1)),
    "random-mixed-ident": _Structure(True, True, True, True, True, True, dict(n=8, d=6, dt=4, m=3, p=2, pt=2)),
    "logistic-consensus": _Structure(False, True, False, False, False, False, dict(n=8, dt=5, samples=20), objective="logistic"),
}


def _build_random(family: str, *, n=None, seed=0, kappa_W=None, kappa_f=10.0, kappa_AC=None, kappa_C=None,
                  kappa_Ct=None, eps=None, variant="default", graph=None, **kw) -> Instance:
    st = _RANDOM[family]
    seed = _check_seed(seed)
    _check_variant(family, variant, ("default",))
    size_kw = [k for k in ("d", "dt", "m", "p", "pt") if k in st.defaults]
    allowed = list(COMMON_KW) + size_kw + (["objective"] if st.objective is None else []) + ["samples"]
    if st.A and not st.C:
        allowed.append("kappa_A")
    _reject_unknown(family, kw, allowed)
    if "kappa_A" in kw:
        ka = kw.pop("kappa_A")
        if kappa_AC is not None and ka is not None and float(ka) != float(kappa_AC):
            raise ValueError(f"{family}: kappa_A = {ka} and kappa_AC = {kappa_AC} disagree (kappa_A is an alias of kappa_AC here)")
        kappa_AC = ka if kappa_AC is None else kappa_AC
    objective = st.objective or kw.get("objective", "quadratic")
    if objective not in OBJECTIVES:
        raise ValueError(f"{family}: unknown objective {objective!r} (known: {', '.join(OBJECTIVES)})")
    _reject_targets(family, {
        "kappa_AC": (kappa_AC, "the problem has no coupled constraint Σ A_i x_i = Σ b_i") if not st.A else (None, ""),
        "kappa_C": (kappa_C, "the problem has no local constraints C_i x_i = c_i") if not st.C else (None, ""),
        "kappa_Ct": (kappa_Ct, "the problem has no shared-variable constraints C̃_i x̃ = c̃_i") if not st.Ct else (None, ""),
    })
    kappa_f = _check_kappa("kappa_f", kappa_f, allow_one=objective == "quadratic")
    if kappa_f is None:
        raise ValueError(f"{family}: kappa_f is required (a strongly convex objective needs a finite κ_f)")
    kappa_W = _check_kappa("kappa_W", kappa_W)
    kappa_AC = _check_kappa("kappa_AC", kappa_AC)
    kappa_C = _check_kappa("kappa_C", kappa_C)
    kappa_Ct = _check_kappa("kappa_Ct", kappa_Ct)

    gs = make_gossip(graph, None if n is None else _check_int("n", n, 2), default_n=st.defaults["n"], kappa_W=kappa_W,
                     gossip=kw.get("gossip", "laplacian"), seed=seed, er_p=kw.get("er_p"))
    n = gs.n
    d = _check_int("d", kw.get("d", st.defaults.get("d", 0)), 1) if st.x else 0
    dt = _check_int("dt", kw.get("dt", st.defaults.get("dt", 0)), 1) if st.t else 0
    m = _check_int("m", kw.get("m", st.defaults.get("m")), 2) if st.A else 0
    p = _check_int("p", kw.get("p", st.defaults.get("p")), 1, d - 1) if st.C else 0
    pt = _check_int("pt", kw.get("pt", st.defaults.get("pt")), 1, dt - 1) if st.Ct else 0
    samples = _check_int("samples", kw.get("samples", st.defaults.get("samples", 20)), 1)
    if st.ident and kappa_Ct is not None and kappa_Ct > 1 and pt < 2:
        raise ValueError(f"{family}: kappa_Ct = {kappa_Ct:g} > 1 needs pt >= 2 rows in C̃ (one row has κ_C̃ = 1)")
    if st.Ct and not st.ident and dt < 2 and kappa_Ct is not None:
        raise ValueError(f"{family}: tuning kappa_Ct needs dt >= 2")
    lay = Layout((d,) * n, dt)

    targets: dict[str, float] = {"kappa_f": kappa_f}
    if kappa_W is not None:
        targets["kappa_W"] = kappa_W
    notes = [f"{family}: random instance for upper-bound checks (instances/random.py)."]
    params: dict = {"n": n, "d": d, "dt": dt, "m": m, "p": p, "pt": pt, "eps": eps, "graph": gs.info,
                    "objective": objective, "tuning": {}}

    if objective == "quadratic":
        obj, oinfo = quadratic_objective(lay, kappa_f, _rng(seed, "objective"))
    else:
        params["samples"] = samples
        obj, oinfo = logistic_objective(lay, kappa_f, _rng(seed, "objective"), samples)
    params["tuning"]["kappa_f"] = oinfo

    rng_x = _rng(seed, "feasible-point")
    x0 = [rng_x.standard_normal(d) for _ in range(n)] if st.x else []
    xt0 = rng_x.standard_normal(dt) if st.t else None

    kw_p: dict = {}
    kernels = None
    if st.C:
        C, kernels = local_blocks([d] * n, [p] * n, kappa_C, _rng(seed, "local-C"))
        kw_p.update(C=C, c=[C[i] @ x0[i] for i in range(n)], C_kernels=kernels)
        if kappa_C is not None:
            targets["kappa_C"] = kappa_C
        params["tuning"]["kappa_C"] = "singular values in [1, sqrt(kappa_C)], both ends attained" if kappa_C else "none (Gaussian singular values)"
    if st.A:
        rA = _rng(seed, "coupled-A")
        ranks = [d - p] * n
        B0 = frame_base(m, ranks, rA)
        X0 = [B0[i] @ kernels[i].T for i in range(n)] if st.C else B0
        XG = [rA.standard_normal((m, d)) / np.sqrt(d) for _ in range(n)]
        projs = [N @ N.T for N in kernels] if st.C else None
        tuned = tune_group(X0, XG, projs, kappa_AC, rA, label="kappa_AC")
        A = tuned.blocks
        kw_p.update(A=A, b=[A[i] @ x0[i] for i in range(n)])
        if kappa_AC is not None:
            targets["kappa_AC"] = kappa_AC
            if not st.C:
                targets["kappa_A"] = kappa_AC
        params["tuning"]["kappa_AC"] = tuned.info
    if st.Ct:
        rC = _rng(seed, "shared-Ct")
        if st.ident:
            Ct0 = identical_shared_block(dt, pt, kappa_Ct, rC)
            Ct = [Ct0] * n
            ct0 = Ct0 @ xt0
            ct = [ct0] * n
            if kappa_Ct is not None:
                targets["kappa_Ct_id"] = kappa_Ct
                targets["kappa_Ct"] = kappa_Ct
            params["tuning"]["kappa_Ct"] = ("identical C̃: singular values in [1, sqrt(kappa_Ct)]; "
                                            "kappa_Ct targets κ_C̃ (= κ̂_{C̃ᵀ} for identical blocks)") if kappa_Ct else "none"
        else:
            B0 = frame_base(dt, [pt] * n, rC)
            XG = [rC.standard_normal((dt, pt)) / np.sqrt(pt) for _ in range(n)]
            tuned = tune_group(B0, XG, None, kappa_Ct, rC, label="kappa_Ct")
            Ct = [X.T.copy() for X in tuned.blocks]
            ct = [Ci @ xt0 for Ci in Ct]
            if kappa_Ct is not None:
                targets["kappa_Ct"] = kappa_Ct
            params["tuning"]["kappa_Ct"] = tuned.info
        kw_p.update(Ct=Ct, ct=ct)
    if kappa_W is not None:
        params["tuning"]["kappa_W"] = gs.info.get("tuning")

    problem = MixedProblem(gs.W, obj, lay, edges=gs.adjacency, name=f"{family}(n={n}, seed={seed})",
                           meta={"family": family, "seed": seed}, **kw_p)
    return _finish(family, variant, problem, targets, seed=seed, params=params, notes=notes, closed_forms=gs.closed_forms)


def random_consensus(**kw) -> Instance:
    """``random-consensus``: consensus optimization (``prob:consensus_cons``), only the shared x̃.

    ``f_i(x̃) = ½ x̃ᵀQ_i x̃ − q_iᵀx̃`` with random ``Q_i`` (or logistic with
    ``objective="logistic"``).  Targets: ``kappa_f`` (default 10), ``kappa_W``.
    Sizes: ``n`` (8), ``dt`` (5); ``samples`` (20, logistic only); ``gossip``, ``er_p``.
    Tolerance :data:`TARGET_RTOL` on every target.
    """
    return _build_random("random-consensus", **kw)


def random_coupled(**kw) -> Instance:
    """``random-coupled``: coupled constraints only (``eq:coupled_constraints_org``).

    Targets: ``kappa_f``, ``kappa_W``, ``kappa_AC`` (alias ``kappa_A``) = κ̂_A of
    Definition ``def:mixed_condition_number`` (tuned by the two-stage family;
    reachable: ``[1, KAPPA_MAX]`` when ``m <= d``).  Sizes ``n`` (8), ``d`` (6), ``m`` (3, >= 2).
    """
    return _build_random("random-coupled", **kw)


def random_shared(**kw) -> Instance:
    """``random-shared``: shared variable with non-identical constraints (``prob:shared_var_constraints``).

    Targets: ``kappa_f``, ``kappa_W``, ``kappa_Ct`` = κ̂_{C̃ᵀ} (two-stage family on
    ``X_i = C̃_iᵀ``).  Each node has ``pt < dt`` rows, so in general
    κ̂_{C̃ᵀ} >= dt/pt; the frame base reaches ``n/⌊n·pt/dt⌋`` when ``n·pt >= dt``
    (4 for the defaults n = 8, dt = 6, pt = 2), the floor of this family.
    Sizes ``n`` (8), ``dt`` (6), ``pt`` (2, < dt).
    """
    return _build_random("random-shared", **kw)


def random_shared_ident(**kw) -> Instance:
    """``random-shared-ident``: identical shared-variable constraints (``sub:ident_local``).

    ``C̃_i = C̃``, ``c̃_i = c̃``; ``kappa_Ct`` targets κ_C̃ = σ_max²(C̃)/σ_min+²(C̃)
    (realized keys ``kappa_Ct_id`` and ``kappa_Ct``, equal for identical blocks).
    Sizes ``n`` (8), ``dt`` (6), ``pt`` (3, >= 2 for κ_C̃ > 1).
    """
    return _build_random("random-shared-ident", **kw)


def random_coupled_local(**kw) -> Instance:
    """``random-coupled-local``: coupled and local constraints (``prob:coupled_with_local``).

    Targets: ``kappa_f``, ``kappa_W``, ``kappa_C`` (group κ_C, exact by singular
    values), ``kappa_AC`` = κ̃_AC (Definition ``def:projected_condition_number``,
    two-stage family on the projected interaction matrix; reachable from 1 when
    ``m <= d − p``).  ``C_kernels`` (orthonormal bases of ker C_i) are attached.
    Sizes ``n`` (8), ``d`` (6), ``m`` (3), ``p`` (2).
    """
    return _build_random("random-coupled-local", **kw)


def random_mixed(**kw) -> Instance:
    """``random-mixed``: all constraint types (problem ``prob:opt_mixed_constraints_intro``).

    ``f_i(x_i, x̃)`` quadratic (or logistic) on ``z_i = (x_i, x̃)``; targets
    ``kappa_f``, ``kappa_W``, ``kappa_C``, ``kappa_AC`` (κ̃_AC), ``kappa_Ct`` (κ̂_{C̃ᵀ}).
    Sizes ``n`` (8), ``d`` (6), ``dt`` (4), ``m`` (3), ``p`` (2), ``pt`` (2).
    """
    return _build_random("random-mixed", **kw)


def random_mixed_ident(**kw) -> Instance:
    """``random-mixed-ident``: as ``random-mixed`` with identical ``C̃_i`` (second case of
    ``thm:upper_bound_coupled_plus_non_ident_local_constraints_prob``); ``kappa_Ct`` targets κ_C̃.
    """
    return _build_random("random-mixed-ident", **kw)


def logistic_consensus(**kw) -> Instance:
    """``logistic-consensus``: horizontal federated learning (introduction, ``prob:consensus_cons``).

    Each node holds ``samples`` (20) rows of synthetic data ``F_i ∈ R^{N×dt}``
    with labels ``±1`` from a noisy random linear model; ``f_i`` is regularised
    logistic regression with ``λ = max_i ‖F_i‖²/(4N_i)/(κ_f − 1)`` so ``L_f/μ_f = κ_f``
    exactly (``L_f`` is the bound used by :class:`LogisticObjective`, not the
    Hessian's actual maximum).  Targets ``kappa_f`` (> 1), ``kappa_W``.
    """
    return _build_random("logistic-consensus", **kw)


# ============================================================== vertical federated learning
def vertical_fl(*, n=None, seed=0, kappa_W=None, kappa_f=10.0, kappa_AC=None, kappa_C=None, kappa_Ct=None, eps=None,
                variant="default", graph=None, **kw) -> Instance:
    """``vertical-fl``: the decentralized VFL reformulation of the introduction (coupled + consensus).

    Data: ``N = n·samples`` samples split into ``n`` sample blocks of ``samples``
    rows; party ``i`` owns ``features`` columns ``F_i ∈ R^{N×features}`` (its
    vertical slice), row blocks ``F_{i,j}``.  Node ``i`` is party ``i`` *and* the
    holder of sample block ``i`` (the paper's "p" in ``H_i = col(F_{i,1}X_i, …,
    F_{i,p}X_i)`` is read as ``n``).  Variables at node ``i``:
    ``x_i = (vec X_i, vec Z_i)`` with ``X_i ∈ R^{features×c}`` (row-major vec) and
    ``Z_i ∈ R^{samples×c}`` (``c = out_dim``, default 1); shared ``x̃ ∈ R^c``
    (top model, consensus ``X̃_1 = … = X̃_n``).  Coupled constraint
    ``Σ_i F_{i,j} X_i = Z_j`` for every ``j``, i.e. ``Σ_i A_i x_i = 0`` with
    ``A_i = [F_i ⊗ I_c, −E_i ⊗ I_c]`` (``E_i`` places block ``i``), ``b_i = 0``.

    Top model: the paper's ``g(Z, X̃)`` is generic; a bilinear ``Z X̃`` would
    make ``f_i`` nonconvex, so ``g(Z, x̃) = Z + 1 x̃ᵀ`` (identity head with a
    shared learned offset) keeps the problem convex.  Variants:

    * ``default`` (squared loss): ``f_i = ½‖Z_i + 1x̃ᵀ − Y_i‖² + ρ/2 (‖X_i‖² + ‖Z_i‖² + ‖x̃‖²)``;
      the spectrum of ``Q_i`` is ``{ρ, 1+ρ, samples+1+ρ}``, so ``ρ = (samples+1)/(κ_f − 1)``
      gives ``κ_f`` exactly.  ``ρ/2‖x̃‖²`` per node is the paper's ``(1/n) r(X̃_i)`` with
      ``r = nρ/2‖·‖²``; the ridge on ``Z_i`` is added (not in the paper) so that ``f_i``
      is strongly convex.
    * ``logistic`` (``c = 1``): labels ``±1``, ``f_i`` = mean logistic loss of the margin
      ``y_s (Z_i[s] + x̃)`` plus ``λ/2‖z_i‖²`` with ``λ`` set from ``κ_f`` exactly.

    κ̂_A is fixed by the data and reported (``realized``), not tunable.
    Keywords: ``samples`` (5), ``features`` (4), ``out_dim`` (1), ``noise`` (0.1), ``gossip``, ``er_p``.
    """
    family = "vertical-fl"
    seed = _check_seed(seed)
    _check_variant(family, variant, ("default", "logistic"))
    _reject_unknown(family, kw, list(COMMON_KW) + ["samples", "features", "out_dim", "noise", "kappa_A"])
    _reject_targets(family, {
        "kappa_AC": (kappa_AC if kappa_AC is not None else kw.get("kappa_A"),
                     "κ̂_A of the VFL constraint is fixed by the features and the −I blocks of Z; it is reported, not tuned"),
        "kappa_C": (kappa_C, "the VFL problem has no local constraints"),
        "kappa_Ct": (kappa_Ct, "the VFL problem has no shared-variable constraints (only consensus)"),
    })
    kappa_f = _check_kappa("kappa_f", kappa_f, allow_one=False)
    kappa_W = _check_kappa("kappa_W", kappa_W)
    samples = _check_int("samples", kw.get("samples", 5), 1)
    features = _check_int("features", kw.get("features", 4), 1)
    c = _check_int("out_dim", kw.get("out_dim", 1), 1)
    noise = float(kw.get("noise", 0.1))
    if variant == "logistic" and c != 1:
        raise ValueError(f"{family}: variant 'logistic' needs out_dim = 1, got {c}")
    gs = make_gossip(graph, None if n is None else _check_int("n", n, 2), default_n=6, kappa_W=kappa_W,
                     gossip=kw.get("gossip", "laplacian"), seed=seed, er_p=kw.get("er_p"))
    n = gs.n
    rng = _rng(seed, "vfl-data")
    N = n * samples
    F = [rng.standard_normal((N, features)) / np.sqrt(features) for _ in range(n)]
    Wtrue = [rng.standard_normal((features, c)) for _ in range(n)]
    bias = rng.standard_normal(c)
    score = sum(F[i] @ Wtrue[i] for i in range(n)) + bias
    if variant == "default":
        Y = score + noise * rng.standard_normal((N, c))
    else:
        Y = np.sign(score + noise * rng.standard_normal((N, c)))
        Y[Y == 0] = 1.0
    Ic = sp.identity(c, format="csr")
    A = []
    for i in range(n):
        E = sp.csr_matrix((np.ones(samples), (np.arange(i * samples, (i + 1) * samples), np.arange(samples))), shape=(N, samples))
        A.append(sp.hstack([sp.kron(sp.csr_matrix(F[i]), Ic), -sp.kron(E, Ic)], format="csr"))
    d_i = (features + samples) * c
    lay = Layout((d_i,) * n, c)
    blocks = [slice(i * samples, (i + 1) * samples) for i in range(n)]
    if variant == "default":
        rho = (samples + 1.0) / (kappa_f - 1.0)
        Qs, qs = [], []
        ones = np.ones((samples, 1))
        for i in range(n):
            Yi = Y[blocks[i]]
            H = np.block([[np.eye(samples), ones], [ones.T, samples * np.eye(1)]])
            Hc = np.kron(H, np.eye(c))  # (Z row-major (samples × c), x̃) ordering
            Q = sp.block_diag([rho * sp.identity(features * c), sp.csr_matrix(Hc) + rho * sp.identity((samples + 1) * c)], format="csr")
            q = np.concatenate([np.zeros(features * c), Yi.ravel(), Yi.sum(axis=0)])
            Qs.append(Q)
            qs.append(q)
        obj = QuadraticObjective(Qs, qs, lay)
        oinfo = {"type": "quadratic", "rho": rho, "tuning": "rho = (samples + 1)/(kappa_f - 1): spectrum {rho, 1+rho, samples+1+rho}"}
        closed = {"Q_i spectrum {ρ, 1+ρ, samples+1+ρ} ⇒ κ_f": {
            "printed": (samples + 1 + rho) / rho, "computed": obj.L / obj.mu,
            "holds": bool(_rel(obj.L / obj.mu, (samples + 1 + rho) / rho) <= 1e-10), "label": "ass:smooth_and_str_convex_of_f_i"}}
    else:
        feats, labs = [], []
        for i in range(n):
            Fl = np.hstack([np.zeros((samples, features)), np.eye(samples), np.ones((samples, 1))])
            feats.append(Fl)
            labs.append(Y[blocks[i], 0])
        L_loss = max(float(np.linalg.norm(Fl, 2) ** 2) / (4 * samples) for Fl in feats)
        reg = L_loss / (kappa_f - 1.0)
        obj = LogisticObjective(feats, labs, reg, lay)
        oinfo = {"type": "logistic", "reg": reg, "L_loss": L_loss, "tuning": "reg = L_loss/(kappa_f - 1)"}
        closed = {}
    targets = {"kappa_f": kappa_f}
    if kappa_W is not None:
        targets["kappa_W"] = kappa_W
    problem = MixedProblem(gs.W, obj, lay, A=A, b=[np.zeros(N * c) for _ in range(n)], edges=gs.adjacency,
                           name=f"{family}(n={n}, seed={seed})", meta={"family": family, "seed": seed})
    params = {"n": n, "samples_per_block": samples, "features_per_party": features, "out_dim": c, "N": N,
              "m": N * c, "d": d_i, "dt": c, "eps": eps, "graph": gs.info, "objective": oinfo["type"],
              "tuning": {"kappa_f": oinfo, "kappa_W": gs.info.get("tuning"), "kappa_A": "not tunable (data)"}}
    notes = [
        "vertical-fl: decentralized VFL of the introduction; node i = party i = holder of sample block i "
        "(the paper's 'p' sample blocks read as n).",
        "top model g(Z, x~) = Z + 1 x~^T (the bilinear Z X~ would be nonconvex); ridge on Z_i added for strong convexity.",
        "x_i = (vec X_i row-major (features x out_dim), vec Z_i row-major (samples x out_dim)).",
    ]
    closed.update(gs.closed_forms)
    return _finish(family, variant, problem, targets, seed=seed, params=params, notes=notes, closed_forms=closed)


# ============================================================== mixture of local and global models
def _lg_blocks(h: float, lam: float, sig: float) -> tuple[np.ndarray, np.ndarray]:
    """Per-eigen-direction blocks of ``Q_i`` (``i >= 1``: 2×2) and ``Q_0`` (3×3) for an eigenvalue ``h`` of ``H_i``."""
    Q2 = np.array([[h + lam, -lam], [-lam, lam]])
    Q3 = np.array([[h + lam, 0.0, -lam], [0.0, sig, -sig], [-lam, -sig, lam + sig]])
    return Q2, Q3


def _lg_kappa(h_min: float, lam: float, sig: float) -> float:
    a2, a3 = _lg_blocks(h_min, lam, sig)
    b2, b3 = _lg_blocks(1.0, lam, sig)
    mu = min(np.linalg.eigvalsh(a2)[0], np.linalg.eigvalsh(a3)[0])
    L = max(np.linalg.eigvalsh(b2)[-1], np.linalg.eigvalsh(b3)[-1])
    return float(L / mu)


def local_global(*, n=None, seed=0, kappa_W=None, kappa_f=100.0, kappa_AC=None, kappa_C=None, kappa_Ct=None, eps=None,
                 variant="default", graph=None, **kw) -> Instance:
    """``local-global``: mixture of local and global models (``app:problem_formulations``).

    Printed problem: ``min Σ_i f_i(x_i) + λ/2‖x_i − z‖²`` s.t. ``x_1 + … + x_n = n z``,
    "z stored at the first node, … a problem with coupled constraints".  As printed
    the penalty ``λ/2‖x_i − z‖²`` couples node ``i``'s ``x_i`` with node 1's ``z``, so
    the objective is not a sum of node-local ``f_i`` (recorded in ``findings``).
    This family builds an exactly equivalent instance of (P):

    * node 0 (the paper's node 1) holds ``(x_0, z)`` (``d_0 = 2d``), the other nodes ``x_i``;
    * the printed coupled constraint ``Σ_i x_i − n z = 0``: ``A_0 = [I, −nI]``, ``A_i = I``, ``b_i = 0``;
    * a shared (consensus) copy ``x̃`` of the global model carries the penalties:
      ``f_i(x_i, x̃) = g_i(x_i) + λ/2‖x_i − x̃‖²`` and
      ``f_0(x_0, z, x̃) = g_0(x_0) + λ/2‖x_0 − x̃‖² + σ/2‖z − x̃‖²`` (``σ = λ``).

    Equivalence: for any feasible point the objective is >= ``Σ g_i(x_i) + λ/2 Σ‖x_i − x̄‖²``
    (the mean minimises the penalty), which is the printed objective at ``z = x̄``;
    equality holds at ``x̃ = z = x̄``.  The builder solves both problems and reports
    the agreement in ``closed_forms``.  ``g_i(x) = ½xᵀH_ix − h_iᵀx`` with the spectrum of
    ``H_i`` in ``[h_min, 1]`` (both ends at nodes 0 and 1); ``h_min`` is found by
    Brent's method so that ``κ_f`` (of the ``f_i`` above, jointly in ``(x_i, x̃)``)
    equals the target.  Reachable: ``κ_f >= κ_f(h_min = 1)`` (≈ 13.9 for λ = 0.5).
    κ̂_A = (1 + n²)/(n + 1) in closed form (reported).
    Keywords: ``d`` (4), ``lam`` (0.5), ``gossip``, ``er_p``.
    """
    family = "local-global"
    seed = _check_seed(seed)
    _check_variant(family, variant, ("default",))
    _reject_unknown(family, kw, list(COMMON_KW) + ["d", "lam", "kappa_A"])
    _reject_targets(family, {
        "kappa_AC": (kappa_AC if kappa_AC is not None else kw.get("kappa_A"), "κ̂_A = (1 + n²)/(n + 1) is fixed by the printed constraint"),
        "kappa_C": (kappa_C, "the problem has no local constraints"),
        "kappa_Ct": (kappa_Ct, "the problem has no shared-variable constraints"),
    })
    kappa_f = _check_kappa("kappa_f", kappa_f)
    kappa_W = _check_kappa("kappa_W", kappa_W)
    d = _check_int("d", kw.get("d", 4), 2)
    lam = float(kw.get("lam", 0.5))
    if not (np.isfinite(lam) and lam > 0):
        raise ValueError(f"{family}: lam must be positive and finite, got {kw.get('lam')}")
    sig = lam
    floor = _lg_kappa(1.0, lam, sig)
    if kappa_f < floor * (1 - ROOT_RTOL):
        raise ValueError(f"{family}: kappa_f = {kappa_f:g} is below {floor:.6g}, the smallest κ_f of this family with lam = {lam:g} "
                         "(all H_i = I); the penalty blocks alone have this condition number")
    if _rel(floor, kappa_f) <= ROOT_RTOL:
        h_min = 1.0
    else:
        f = lambda s: np.log(_lg_kappa(np.exp(s), lam, sig)) - np.log(kappa_f)  # noqa: E731
        s_lo = -1.0
        while f(s_lo) < 0:
            s_lo *= 2
            if s_lo < -80:
                raise ValueError(f"{family}: kappa_f = {kappa_f:g} not reached")
        h_min = float(np.exp(brentq(f, s_lo, 0.0, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500)))
    gs = make_gossip(graph, None if n is None else _check_int("n", n, 2), default_n=8, kappa_W=kappa_W,
                     gossip=kw.get("gossip", "laplacian"), seed=seed, er_p=kw.get("er_p"))
    n = gs.n
    rng = _rng(seed, "local-global")
    I = np.eye(d)
    Hs, hs = [], []
    for i in range(n):
        ev = np.exp(rng.uniform(np.log(h_min), 0.0, d)) if h_min < 1 else np.ones(d)
        if i in (0, 1):  # both ends at node 0 (3×3 blocks) and node 1 (2×2 blocks)
            ev[0], ev[-1] = h_min, 1.0
        U = _orthogonal(d, rng)
        H = (U * ev) @ U.T
        Hs.append(0.5 * (H + H.T))
        hs.append(rng.standard_normal(d))
    Qs, qs = [], []
    for i in range(n):
        if i == 0:
            Q = np.block([[Hs[0] + lam * I, 0 * I, -lam * I], [0 * I, sig * I, -sig * I], [-lam * I, -sig * I, (lam + sig) * I]])
            q = np.concatenate([hs[0], np.zeros(2 * d)])
        else:
            Q = np.block([[Hs[i] + lam * I, -lam * I], [-lam * I, lam * I]])
            q = np.concatenate([hs[i], np.zeros(d)])
        Qs.append(0.5 * (Q + Q.T))
        qs.append(q)
    lay = Layout((2 * d,) + (d,) * (n - 1), d)
    obj = QuadraticObjective(Qs, qs, lay)
    A = [np.hstack([I, -n * I])] + [I.copy() for _ in range(n - 1)]
    problem = MixedProblem(gs.W, obj, lay, A=A, b=[np.zeros(d) for _ in range(n)], edges=gs.adjacency,
                           name=f"{family}(n={n}, seed={seed})", meta={"family": family, "seed": seed})
    closed = dict(gs.closed_forms)
    kA = (1.0 + n * n) / (n + 1.0)
    closed["kappa_A = (1 + n^2)/(n + 1)"] = {"printed": kA, "computed": None, "holds": None, "label": "def:mixed_condition_number"}
    # equivalence with the printed (non-separable) problem, solved centrally
    closed["printed problem ≡ reformulation (x*, z*)"] = _lg_equivalence(problem, Hs, hs, lam, n, d)
    findings = [{
        "label": "app:problem_formulations",
        "statement": "Mixture of local and global models: 'The variable z is stored at the first node, and we come to a problem with coupled constraints.'",
        "printed": "min Σ_i f_i(x_i) + λ/2 ||x_i − z||^2  s.t.  x_1 + … + x_n = n z",
        "measured": {"cross-node Hessian block ∂²/∂x_i∂z (i ≠ 1)": -lam},
        "detail": "The penalty λ/2||x_i − z||² involves x_i (node i) and z (node 1), so the objective is not a sum of node-local "
                  "functions and the problem is not of the form (P) as printed. Built instead: an exact reformulation with a "
                  "shared consensus copy x̃ of z carrying the penalties and the printed coupled constraint kept (see docstring).",
    }]
    targets = {"kappa_f": kappa_f}
    if kappa_W is not None:
        targets["kappa_W"] = kappa_W
    params = {"n": n, "d": d, "lam": lam, "sigma": sig, "h_min": h_min, "eps": eps, "graph": gs.info,
              "objective": "quadratic", "z_node": 0,
              "tuning": {"kappa_f": f"h_min of H_i found by Brent's method (floor {floor:.6g} at h_min = 1)",
                         "kappa_W": gs.info.get("tuning"), "kappa_A": "closed form (1 + n^2)/(n + 1), not tunable"}}
    notes = ["local-global: node 0 holds (x_0, z); shared x~ is the consensus copy of z used in the penalties (exact reformulation)."]
    inst = _finish(family, variant, problem, targets, seed=seed, params=params, notes=notes, closed_forms=closed, findings=findings)
    cf = inst.closed_forms["kappa_A = (1 + n^2)/(n + 1)"]
    cf["computed"] = inst.realized.get("kappa_A")
    cf["holds"] = bool(cf["computed"] is not None and _rel(cf["computed"], kA) <= 1e-9)
    return inst


def _lg_equivalence(problem: MixedProblem, Hs, hs, lam: float, n: int, d: int) -> dict:
    """Solve the printed problem (dense KKT, z = mean x) and the reformulation; compare x* and z*."""
    from .reference import reference_solution

    size = n * d + d
    if size > 3000:
        return {"printed": "not checked (size > 3000)", "computed": None, "holds": None, "label": "app:problem_formulations"}
    # printed: variables (x_1..x_n, z); objective Σ ½xᵀHx − hᵀx + λ/2‖x_i − z‖²; constraint Σ x_i − n z = 0
    I = np.eye(d)
    H = np.zeros((size, size))
    g = np.zeros(size)
    for i in range(n):
        s = slice(i * d, (i + 1) * d)
        H[s, s] += Hs[i] + lam * I
        H[s, -d:] -= lam * I
        H[-d:, s] -= lam * I
        H[-d:, -d:] += lam * I
        g[s] = hs[i]
    G = np.hstack([np.tile(I, n), -n * I])
    K = np.block([[H, G.T], [G, np.zeros((d, d))]])
    sol = np.linalg.solve(K, np.concatenate([g, np.zeros(d)]))
    x_pr, z_pr = sol[: n * d], sol[n * d: size]
    ref = reference_solution(problem)
    lay = problem.layout
    xs = [ref.x[lay.x_offsets[i]: lay.x_offsets[i + 1]] for i in range(n)]
    x_rf = np.concatenate([xs[0][:d]] + xs[1:])
    z_rf = xs[0][d:]
    err = float(max(np.abs(x_rf - x_pr).max(), np.abs(z_rf - z_pr).max(), np.abs(ref.xt - z_pr).max())
                / max(np.abs(sol[:size]).max(), 1e-300))
    return {"printed": 0.0, "computed": err, "holds": bool(err <= 1e-8), "label": "app:problem_formulations",
            "detail": "max |reformulated − printed| over x*, z* (and x̃* vs z*), relative to max |printed solution|"}


FAMILIES: dict[str, Callable[..., Instance]] = {
    "random-consensus": random_consensus,
    "random-coupled": random_coupled,
    "random-shared": random_shared,
    "random-shared-ident": random_shared_ident,
    "random-coupled-local": random_coupled_local,
    "random-mixed": random_mixed,
    "random-mixed-ident": random_mixed_ident,
    "logistic-consensus": logistic_consensus,
    "vertical-fl": vertical_fl,
    "local-global": local_global,
}
