"""The paper's two methods on the generic problem ``min G(u) s.t. Bu = b`` (``prob:affine_constraints``), without
Chebyshev acceleration: the setting of ``thm:smooth_objectives_apapc_convergence`` and
``thm:upper_bound_nonsmooth_affine_constraints``, where the rates are stated in κ_B itself.

* :func:`affine_apapc`: Algorithm ``alg:apapc`` (:func:`mixbounds.solvers.apapc.apapc`) with the parameter rule
  :meth:`~mixbounds.solvers.apapc.APAPCParameters.rule` for ``L, μ`` of G and ``λ_max, λ_min+`` of ``BᵀB``
  (constants known to the method, read from the instance).  Rule's rate (module :mod:`mixbounds.solvers.apapc`):
  ``O((√(κ_G χ) + χ) log 1/ε)`` iterations with ``χ = λ_max/λ_min+ = κ_B``.
* :func:`affine_sliding`: Gradient Sliding (Algorithm ``alg:sliding``, Lan's reading, ``"book"`` rule) on
  ``H_r(u) = G(u) + (r/2)‖Bu − b‖²`` (``eq:affine_constraints_penal_prob``), ``r = 2R_dual²/ε``,
  ``R_dual = M/σ_min+(B)`` (``lem:boundness_of_penal_prob_dual``, ``lem:penalization``), so
  ``L = rσ_max²(B) = 2M²κ_B/ε`` as in the proof (``app:affine_constraint_nonsmooth``); ``"gs"`` for μ = 0
  (part 1), ``"restarted"`` for μ > 0 (part 2, the restarts of :mod:`mixbounds.solvers.sliding` with
  ``μ_H = μ``: G, hence ``H_r``, is μ-strongly convex), ``"homotopy"`` (the penalty homotopy of
  :mod:`mixbounds.solvers.homotopy_sliding`).  The runs are those of :func:`mixbounds.solvers.sliding.run_sliding`
  and :func:`~mixbounds.solvers.sliding.run_phases` on :class:`AffinePenalty`.

Counting: :class:`AffineOracles` counts each ``∇G`` (or subgradient) as one ``grad`` and each multiplication by
B or Bᵀ as one ``B``; the records of :class:`~mixbounds.solvers.result.SolveResult` are laid out by
:data:`mixbounds.solvers.oracles.ORACLES`, so B's count is reported in the ``A`` column (the constraint matrix of
the generic problem; ``C``, ``Ct`` and ``comm`` stay 0).

Stopping: APAPC stops at ``‖u − u*‖² <= ε ‖u⁰ − u*‖²`` (``settle`` as in :func:`mixbounds.solvers.apapc.apapc`);
GS at the first outer iterate that is an ``(ε, δ)``-solution (``G(u) − G(u*) <= ε`` and distance to
``{Bu = b}`` ``<= δ``, default ``δ = ε/M``), as the decentralized runs of :mod:`mixbounds.solvers.sliding`.
"""

from __future__ import annotations

import math

import numpy as np
from mixbounds.bounds.concepts import Oracle
from mixbounds.solvers.apapc import APAPCParameters, apapc
from mixbounds.solvers.chebyshev import Chebyshev
from mixbounds.solvers.homotopy_sliding import homotopy_plan
from mixbounds.solvers.oracles import ORACLES
from mixbounds.solvers.result import SolveResult
from mixbounds.solvers.sliding import (
    MAX_INNER,
    RESTART_C,
    SlidingRecorder,
    restart_plan,
    run_phases,
    run_sliding,
    sliding_result,
)
from mixbounds.solvers.subgradient import run_subgradient

SLIDING_METHODS = ("gs", "restarted", "homotopy", "subgradient")


class AffineOracles:
    """``grad`` (∇G or a subgradient of G) and multiplications by B and Bᵀ, each counted (module docstring)."""

    def __init__(self, problem):
        self.problem = problem
        self.counts = {Oracle.GRAD: 0, "B": 0}

    def grad(self, u: np.ndarray) -> np.ndarray:
        self.counts[Oracle.GRAD] += 1
        return self.problem.objective.grad(u)

    def B(self, u: np.ndarray) -> np.ndarray:
        self.counts["B"] += 1
        return self.problem.B @ u

    def Bt(self, v: np.ndarray) -> np.ndarray:
        self.counts["B"] += 1
        return self.problem.B.T @ v

    def normal(self, u: np.ndarray) -> np.ndarray:
        """``BᵀB u``: two multiplications."""
        return self.Bt(self.B(u))

    def snapshot(self) -> dict:
        """Cumulative counts in the :data:`ORACLES` layout (B in the ``A`` column)."""
        out = {k: 0 for k in ORACLES}
        out[Oracle.GRAD], out[Oracle.A] = self.counts[Oracle.GRAD], self.counts["B"]
        return out


def _spectrum(problem) -> tuple[float, float]:
    s2 = problem.sigma2
    return float(s2[-1]), float(s2[0])


def affine_apapc(problem, *, eps: float = 1e-10, x0=None, max_iter: int = 1_000_000, settle: float = 0.0,
                 chebyshev: bool = False) -> SolveResult:
    """APAPC on ``problem`` (:class:`mixbounds.instances.affine.AffineProblem`, smooth strongly convex G).

    ``eps``: stop at relative squared error ``<= eps``; ``x0``: start (default 0); ``settle``: see
    :func:`mixbounds.solvers.apapc.apapc`.  ``chebyshev=False`` (the statement's method): the rule gets
    ``(λ_max, λ_min+)`` of ``BᵀB``.  ``chebyshev=True`` (``subsec:chebyshev_acc``, the negative control of the κ_B
    sweeps): ``BᵀB ← P(BᵀB)`` of degree ``⌈√κ_B⌉`` (:class:`mixbounds.solvers.chebyshev.Chebyshev`), the rule gets
    its exact interval, and the right-hand side is ``P(BᵀB)(BᵀB)⁺Bᵀb`` (all products counted).
    ``params["apapc"]`` holds the rule's parameters (``tau = 1`` marks the χ-dominated regime ``χ >= 4κ_G``).
    """
    G = problem.objective
    orc = AffineOracles(problem)
    lam_max, lam_min = _spectrum(problem)
    u0 = np.zeros(problem.B.shape[1]) if x0 is None else np.asarray(x0, dtype=float).copy()
    Btb = orc.Bt(problem.b)  # set-up: one multiplication, counted
    apply, extra = orc.normal, {"chebyshev": None}
    if chebyshev:
        cheb = Chebyshev(orc.normal, lam_max, lam_min, name="BtB")
        apply, Btb = cheb.apply_P, cheb.rhs(Btb)
        lam_min, lam_max = cheb.interval
        extra["chebyshev"] = cheb.describe()
    params = APAPCParameters.rule(G.L, G.mu, lam_max, lam_min)
    u_star = problem.u_star
    den = float((u0 - u_star) @ (u0 - u_star))
    if not den > 0:
        raise ValueError("affine_apapc: the start is the solution (relative error undefined)")
    return apapc(grad_G=orc.grad, apply_BtB=apply, Btb=Btb, w0=u0, params=params,
                 error=lambda u: float((u - u_star) @ (u - u_star)) / den, snapshot=orc.snapshot, eps=eps,
                 max_iter=max_iter, settle=settle, method="apapc-affine" + ("-cheb" if chebyshev else ""),
                 extra_params=extra)


class AffinePenalty:
    """``H_r(u) = G(u) + (r/2)‖Bu − b‖²`` on the box of G, with the interface GS uses (:mod:`mixbounds.solvers.sliding`)."""

    def __init__(self, problem, oracles: AffineOracles, *, eps: float, M: float | None = None):
        G = problem.objective
        self.problem, self.orc = problem, oracles
        self.M = float(G.M if M is None else M)
        if not (self.M > 0):
            raise ValueError(f"AffinePenalty: need a positive bound M on the subgradients, got {self.M}")
        self.lam_max, lam_min = _spectrum(problem)
        self.sigma_min = math.sqrt(lam_min)
        self.R_dual = self.M / self.sigma_min
        self.box = getattr(G, "box", None)
        self.size = problem.B.shape[1]
        self.set_accuracy(eps)

    def set_accuracy(self, eps: float) -> None:
        """``r = 2R_dual²/ε`` (``lem:penalization``), ``L = rσ_max²(B) = 2M²κ_B/ε``."""
        if not (eps > 0):
            raise ValueError(f"AffinePenalty: eps must be positive, got {eps}")
        self.eps = float(eps)
        self.r = 2.0 * self.R_dual ** 2 / self.eps
        self.L = self.r * self.lam_max

    def u_of(self, w: np.ndarray) -> np.ndarray:
        return w

    def subgrad(self, w: np.ndarray) -> np.ndarray:
        return self.orc.grad(w)

    def grad_penalty(self, w: np.ndarray) -> np.ndarray:
        """``rBᵀ(Bw − b)``: two multiplications."""
        v = self.orc.Bt(self.orc.B(w) - self.problem.b)
        v *= self.r
        return v

    def project(self, w: np.ndarray) -> np.ndarray:
        if self.box is not None:
            np.clip(w, self.box[0], self.box[1], out=w)
        return w

    def describe(self) -> dict:
        return {"r": self.r, "L_penalty": self.L, "M": self.M, "R_dual": self.R_dual, "sigma_min_B": self.sigma_min,
                "lambda_max_BtB": self.lam_max}


class AffineAccuracy:
    """``(ε, δ)``-accuracy of ``u``: ``gap = G(u) − G(u*)``, ``dist`` = distance to ``{Bu = b}`` (uncounted: the error
    measure, not the method's)."""

    def __init__(self, problem, eps: float, delta: float):
        if not (eps > 0 and delta > 0):
            raise ValueError(f"AffineAccuracy: ε and δ must be positive, got {eps}, {delta}")
        self.problem = problem
        self.F_star = float(problem.objective.value(problem.u_star))
        self.Bpinv = np.linalg.pinv(problem.B)
        self.eps, self.delta = float(eps), float(delta)

    def measure(self, u: np.ndarray) -> tuple[float, float, float]:
        g = float(self.problem.objective.value(u)) - self.F_star
        d = float(np.linalg.norm(self.Bpinv @ (self.problem.B @ u - self.problem.b)))
        return max(g / self.eps, d / self.delta), g, d


def affine_sliding(problem, *, eps: float, R: float, method: str = "gs", mu: float | None = None,
                   M: float | None = None, delta: float | None = None, x0=None, max_inner: int = MAX_INNER,
                   max_phases: int = 60) -> SolveResult:
    """Gradient Sliding on the penalised generic problem (module docstring).

    ``eps``: target gap; ``R``: bound on ``‖u⁰ − u*‖``; ``method``: ``"gs"`` (part 1), ``"restarted"`` (part 2) or
    ``"homotopy"`` (``"subgradient"``: the control of the module docstring); ``mu``: strong convexity of G (default: the objective's; needed > 0 by the last two); ``M``:
    subgradient bound (default the objective's); ``delta``: feasibility tolerance (default ``ε/M``); ``x0``: start
    (default 0, projected on the box); ``max_inner``/``max_phases``: budgets.  B's multiplications are counted in
    the ``A`` column.
    """
    if method not in SLIDING_METHODS:
        raise ValueError(f"affine_sliding: method must be one of {SLIDING_METHODS}, got {method!r}")
    if not (R > 0):
        raise ValueError(f"affine_sliding: R must be positive, got {R}")
    orc = AffineOracles(problem)
    pen = AffinePenalty(problem, orc, eps=eps, M=M)
    acc = AffineAccuracy(problem, eps, eps / pen.M if delta is None else delta)
    w0 = np.zeros(pen.size) if x0 is None else np.asarray(x0, dtype=float).copy()
    pen.project(w0)
    rec = SlidingRecorder(orc, acc, pen)
    extra = {"R": float(R), "method": method}
    if method == "gs":
        w, hit = run_sliding(pen, rec, w0, R=R, max_inner=max_inner)
    elif method == "subgradient":
        h = min(eps / (4.0 * pen.M ** 2), 1.0 / pen.L)
        w, hit, k, _ = run_subgradient(pen, rec, w0, h, max_iter=max_inner)
        extra.update(step=h, iterations_total=k)
    else:
        mu_H = float(problem.objective.mu if mu is None else mu)
        if not (mu_H > 0):
            raise ValueError(f"affine_sliding: method {method!r} needs μ > 0")
        if method == "restarted":
            N_s = int(math.ceil(math.sqrt(RESTART_C * pen.L / mu_H)))
            plan = restart_plan(R, N_s)
            extra["N_phase"] = N_s
        else:
            plan = homotopy_plan(eps, R, mu_H)
        w, hit, phases = run_phases(pen, rec, w0, plan, max_phases=max_phases, max_inner=max_inner)
        pen.set_accuracy(eps)
        extra.update(mu_H=mu_H, phases=phases)
    return sliding_result(rec, pen, w, hit, "tolerance" if hit else "budget", f"sliding-affine[{method}]", eps, extra)


__all__ = ["AffineAccuracy", "AffineOracles", "AffinePenalty", "SLIDING_METHODS", "affine_apapc", "affine_sliding"]
