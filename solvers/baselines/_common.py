"""Shared machinery of the baselines: history recording, stopping, constants, inner solver.

Every baseline reports through :class:`Run`, which applies the same stopping rule
as :func:`mixbounds.solvers.apapc.apapc` so that counts are comparable:

* the error is the relative squared distance ``‖u_k − u*‖² / ‖u_0 − u*‖²`` of the
  ORIGINAL variables ``u = (x, X̃)`` (u-layout), with ``u_0 = 0``;
* a row of ``history_counts`` / ``history_error`` is recorded after set-up (row 0,
  at ``u_0``) and after every outer iteration;
* ``reason``: ``"tolerance"`` (the only one with ``converged=True``), ``"budget"``
  (``max_iter`` outer iterations, or some oracle called ``max_calls`` times, checked after
  every outer iteration), ``"non-finite"``, ``"diverged"`` (error above
  :data:`mixbounds.solvers.apapc.DIVERGENCE_RATIO`).

Inner solver (:func:`inner_agd`), used by the methods that need a local argmin
(Tracking-ADMM, DPMM, the dual gradient method, MSDA's ``∇f*``): Nesterov's
accelerated gradient method for a ``μ``-strongly convex, ``L``-smooth separable
subproblem ``φ = Σ_i φ_i``, constant momentum ``(√κ − 1)/(√κ + 1)``, step ``1/L``,
warm-started at the caller's point.  Every inner step evaluates ``∇φ`` once,
through the counted oracles (so one inner step costs one ``grad`` round plus
whatever matrix products ``∇φ`` needs).  **Stopping rule, node by node** (a
decentralized node cannot see the others' residuals): node ``i`` stops when
``‖∇φ_i(y)‖ <= max(rel · ‖∇φ_i(y⁰)‖, INNER_ABS · s)`` with ``y⁰`` the warm start
(:data:`INNER_REL` = 1e-3 by default; ``s`` = the run's gradient scale, the largest per-node
subproblem gradient of its first inner solve, a constant of the run) and is frozen from then on; the loop runs while
any node is active, at most ``max_inner`` steps (:func:`inner_cap`).  A relative rule
makes the inner error proportional to the outer step, so it vanishes as the outer
method converges (no accuracy floor is imposed on the outer method).
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np
from mixbounds.bounds.concepts import Matrix
from mixbounds.bounds.condition import gossip_spectrum, group_spectrum, interaction_extremes
from mixbounds.instances.reference.kkt import reference_solution
from mixbounds.solvers.oracles import ORACLES, CountedOracles, OracleSurface
from mixbounds.solvers.result import SolveResult
from mixbounds.solvers.stop_rule import StopRule

#: default relative reduction of the per-node subproblem gradient (inner stopping rule)
INNER_REL = 1e-3
#: absolute floor of the inner stopping rule, relative to the problem's gradient scale (the largest per-node
#: subproblem gradient of the first inner solve of the run): a node whose residual is at rounding level stops
INNER_ABS = 1e-12


def reference_u(problem, x_star) -> np.ndarray:
    """``x_star`` as a flat u-layout vector (computed when ``None``)."""
    if x_star is None:
        x_star = reference_solution(problem).u
    u_star = np.asarray(x_star, dtype=float).ravel()
    if u_star.shape != (problem.layout.size,):
        raise ValueError(f"x_star must be a u-layout vector of length {problem.layout.size}, got shape {u_star.shape}")
    return u_star


def require(problem, classes: tuple, method: str) -> None:
    """``ValueError`` unless ``problem`` is of one of ``classes`` with a smooth, strongly convex objective."""
    cls = problem.problem_class
    if cls not in classes:
        raise ValueError(f"{method}: applies to problem classes {classes}, got {cls!r}")
    obj = problem.objective
    if not obj.smooth or not (obj.mu > 0):
        raise ValueError(f"{method}: needs a smooth, strongly convex objective (μ_f > 0), got μ_f={obj.mu}")
    if problem.n < 2:
        raise ValueError(f"{method}: needs n >= 2 nodes")


class Run:
    """History, stopping test and result record of one baseline run.

    ``settle``/``settle_eps`` are the stop rule of :func:`mixbounds.solvers.apapc.apapc`: ``0`` stops at the
    first error ``<= eps``, ``s > 0`` once the last ``s·k`` recorded errors are all ``<= settle_eps``
    (default ``eps``) and the error has reached ``eps``.
    """

    def __init__(self, problem, orc: CountedOracles, u_star: np.ndarray, eps: float, max_iter: int, method: str,
                 settle: float = 0.0, settle_eps: float | None = None, max_calls: int | None = None):
        self.rule = StopRule(eps, max_iter, method, settle=settle, settle_eps=settle_eps, max_calls=max_calls)
        self.problem, self.orc, self.eps, self.max_iter, self.method = problem, orc, float(eps), int(max_iter), method
        self.u_star = u_star
        self.den = float(u_star @ u_star)  # ‖u_0 − u*‖² with u_0 = 0
        self.counts_hist: list[list[int]] = []
        self.err_hist: list[float] = []
        self.reason = "budget"
        self.converged = False
        self.u_last = np.zeros_like(u_star)

    def error(self, u: np.ndarray) -> float:
        d = np.asarray(u, dtype=float).ravel() - self.u_star
        e = float(d @ d)
        return e / self.den if self.den > 0 else e

    def record(self, u: np.ndarray) -> bool:
        """Record a row at ``u``; ``True`` when the run must stop (reason set)."""
        snap = self.orc.snapshot()
        self.counts_hist.append([snap[k] for k in ORACLES])
        err = self.error(u)
        self.err_hist.append(err)
        self.u_last = np.asarray(u, dtype=float).ravel().copy()
        reason = self.rule.after(len(self.err_hist) - 1, err, self.counts_hist[-1])
        if reason is None:
            return False
        self.reason, self.converged = reason, reason == "tolerance"
        return True

    def result(self, params: dict) -> SolveResult:
        hc = np.asarray(self.counts_hist, dtype=np.int64).reshape(-1, len(ORACLES))
        return SolveResult(
            x=self.u_last, iterations=len(self.err_hist) - 1,
            counts={k: int(v) for k, v in zip(ORACLES, hc[-1])},
            history_counts=hc, history_error=np.asarray(self.err_hist, dtype=float),
            converged=self.converged, reason=self.reason, method=self.method, eps=self.eps, params=params,
        )


# ---------------------------------------------------------------------------- constants known to the methods
def gossip_facts(W) -> dict:
    """``λ_max(W)``, ``λ_min+(W)``, ``κ_W`` (set-up knowledge, as for APAPC; not an oracle call)."""
    g = gossip_spectrum(W)
    return {"lambda_max_W": float(g.lmax), "lambda_min_W": float(g.lmin_pos), "kappa_W": float(g.kappa)}


def coupled_facts(problem) -> dict:
    """``L_A = max_i σ_max²(A_i)``, ``λ_max(S_A)``, ``λ_min+(S_A)`` with ``S_A = (1/n)Σ A_iA_iᵀ``."""
    L_A = group_spectrum(problem.A, name=Matrix.A).L
    S = interaction_extremes(problem.A)
    if S.lmin_pos <= 0:
        raise ValueError("coupled constraint: S_A = (1/n)Σ A_iA_iᵀ is zero")
    return {"L_A": float(L_A), "L_S": float(S.lmax), "lambda_min_S_A": float(S.lmin_pos)}


def mixing_matrix_apply(orc: OracleSurface, lam_max: float) -> Callable[[np.ndarray], np.ndarray]:
    """``M Y = Y − W Y / λ_max(W)``: the symmetric doubly stochastic mixing matrix ``M = I − W/λ_max(W)``.

    One application is one ``comm``.  ``M1 = 1``, the eigenvalues of ``M`` lie in ``[0, 1]`` with
    ``1`` simple (Assumption ``ass:W``); for a Laplacian-type ``W`` (non-positive off-diagonal)
    its entries are non-negative because ``λ_max(W) >= max_i W_ii``.
    """
    inv = 1.0 / lam_max

    def apply(Y: np.ndarray) -> np.ndarray:
        WY = orc.comm(Y)
        return Y - inv * WY

    return apply


def x_node_index(layout) -> np.ndarray:
    """Node of every coordinate of the flat ``x`` part."""
    return np.repeat(np.arange(layout.n), np.diff(layout.x_offsets))


def inner_cap(L: float, mu: float, rel: float) -> int:
    """Inner step cap: 4× the AGD bound ``√κ ln(κ/rel²)`` plus 50 (never the binding limit in a healthy run)."""
    kappa = max(L / mu, 1.0)
    return int(4 * math.ceil(math.sqrt(kappa) * math.log(max(kappa, 2.0) / rel ** 2)) + 50)


class NodeNorms:
    """``‖v_i‖`` for every node ``i`` of a flat vector whose entry ``k`` belongs to node ``node[k]``.

    The u-layout puts a node's entries in a few contiguous runs (its ``x_i``, then its row of ``X̃``), so the
    squares are summed run by run (``np.add.reduceat``) and the runs' sums node by node: about ten times faster
    than ``np.bincount`` over every entry, which dominated the inner solver of the dual methods on instances of
    10⁴–10⁵ variables (sums in another order: equal up to rounding).
    """

    def __init__(self, node: np.ndarray, n: int):
        node = np.asarray(node).ravel()
        self.n = int(n)
        self.size = node.size
        self.starts = np.flatnonzero(np.r_[True, node[1:] != node[:-1]]) if node.size else np.zeros(0, dtype=np.intp)
        self.run_node = node[self.starts]

    def __call__(self, v: np.ndarray) -> np.ndarray:
        if v.size != self.size:
            raise ValueError(f"NodeNorms: vector of length {v.size}, node index of length {self.size}")
        if not self.size:
            return np.zeros(self.n)
        runs = np.add.reduceat(v * v, self.starts)
        return np.sqrt(np.bincount(self.run_node, weights=runs, minlength=self.n))


class InnerSolver:
    """:func:`inner_agd` with the run's gradient scale ``s`` (set by the first call) for the absolute floor."""

    def __init__(self, rel: float = INNER_REL):
        self.rel = rel
        self.scale: float | None = None
        self.steps: list[int] = []
        self._norms: tuple | None = None  # (node, n, NodeNorms): the runs of a run's node index, found once

    def __call__(self, grad_phi, y0, L, mu, node, n):
        if self._norms is None or self._norms[0] is not node or self._norms[1] != n:
            self._norms = (node, n, NodeNorms(node, n))
        y, k, s0 = inner_agd(grad_phi, y0, L, mu, node, n, rel=self.rel, scale=self.scale, node_norms=self._norms[2])
        if self.scale is None:
            self.scale = s0 if s0 > 0 else 1.0
        self.steps.append(k)
        return y

    def summary(self) -> dict:
        st = self.steps
        return {"total": int(sum(st)), "mean": float(np.mean(st)) if st else 0.0, "max": int(max(st)) if st else 0,
                "rel": self.rel, "abs_floor": INNER_ABS * (self.scale or 0.0)}


def inner_agd(grad_phi: Callable[[np.ndarray], np.ndarray], y0: np.ndarray, L: float, mu: float, node: np.ndarray,
              n: int, *, rel: float = INNER_REL, scale: float | None = None,
              max_inner: int | None = None, node_norms: NodeNorms | None = None) -> tuple[np.ndarray, int, float]:
    """Approximate ``argmin φ`` node by node (module docstring); returns ``(y, steps, s0)``.

    ``grad_phi(y)`` must return a new array (one call = one inner step's oracle rounds);
    ``node[k]`` is the node of coordinate ``k`` of ``y`` (flat); ``L``, ``μ``: constants of every
    ``φ_i``; ``scale``: the run's gradient scale (``None``: this call's largest initial per-node
    norm ``s0``, returned); ``node_norms``: :class:`NodeNorms` of ``node`` when the caller keeps one across calls.
    Returns the last point at which each node's stopping test held (or the cap point).
    """
    if max_inner is None:
        max_inner = inner_cap(L, mu, rel)
    y = np.array(y0, dtype=float, copy=True)
    shape = y.shape
    y = y.reshape(-1)
    kappa = max(L / mu, 1.0)
    beta = (math.sqrt(kappa) - 1.0) / (math.sqrt(kappa) + 1.0)
    step = 1.0 / L
    x_prev = y.copy()
    norm_of = NodeNorms(node, n) if node_norms is None else node_norms
    g = np.asarray(grad_phi(y.reshape(shape)), dtype=float).reshape(-1)
    steps = 1
    norms = norm_of(g)
    s0 = float(norms.max()) if norms.size else 0.0
    s = s0 if scale is None else scale
    tol = np.maximum(rel * norms, INNER_ABS * s)
    active = norms > tol
    while active.any() and steps < max_inner:
        x_new = y - step * g
        y_new = x_new + beta * (x_new - x_prev)
        if active.all():  # the common case: no node frozen yet, no selection needed
            x_prev, y = x_new, y_new
        else:  # frozen nodes keep their point
            mask = active[node]
            x_prev = np.where(mask, x_new, x_prev)
            y = np.where(mask, y_new, y)
        g = np.asarray(grad_phi(y.reshape(shape)), dtype=float).reshape(-1)
        steps += 1
        norms = norm_of(g)
        active &= norms > tol
    return y.reshape(shape), steps, s0
