"""APAPC with regularisation for smooth convex objectives (``μ_f = 0``, Table 2), and the
pieces every non-strongly-convex solver of this package shares.

Method (Theorem ``thm:smooth_objectives_apapc_convergence`` part 2, Lemma
``lem:regularized_convergence``, Appendix ``app:smooth_convex_results``)
--------------------------------------------------------------------------
APAPC (:func:`mixbounds.solvers.apapc.apapc`, parameters :meth:`APAPCParameters.rule`) on the paper's
reformulation of the problem's class (:class:`mixbounds.solvers.reformulations.Reformulation`, the
same blocks, scalings and Chebyshev preconditioning as the strongly convex case) with the
objective replaced by the regularised one::

    F^ν(u) = F(u) + (ν/2)‖u⁰ − u‖²,      ν = ε / R²,

``u = (x, X̃)`` the original variables (u-layout), ``R²`` a bound on ``‖u⁰ − u*‖²``
(default: the exact value from the reference solution, as the theorem assumes it known).
Reading of "G^ν(u) = G(u) + ν/2‖u⁰ − u‖²": the regularisation acts on the original
variables, where ``R`` and Lemma ``lem:regularized_convergence`` live (its ``u*`` is the
solution of (P)); the auxiliary variable ``Y`` of the coupled block gets its strong
convexity, as in the strongly convex case, from the reformulation's penalty
``(r/2)‖Ax + αW'Y − b‖²`` with ``r = ν/(2L_A)`` (Lemma ``lem:conv_smooth_c_and_l`` with
``μ_f → ν``): ``μ_G = ν/4``, ``L_G = 2(L_f + ν)κ_{W'}²`` with A, ``(ν, L_f + ν)`` without.
So ``κ_G = O(L_f R²/ε)`` and APAPC needs ``O(√(L_f R²/ε) log(1/δ))`` iterations, each one
``∇f`` round and one application of the preconditioned normal operator.

Stopping (as the theorem states): ``F(u) − F(u*) <= ε`` **and** ``‖Bu − b‖ <= δ`` on the
**original** problem, the residual measured as the distance of ``u`` to the feasible set
of (P) (its own constraints plus consensus of the copies ``x̃_i``), so that it is
independent of the reformulation and its scalings.  Default ``δ = min(ε/‖∇F(u*)‖,
√(2ε/L_f))``: then the projection of an ``(ε, δ)``-point onto the feasible set is
``≈ 2ε``-optimal (``∇F(u*)`` lies in the row space of the constraints).  The run records
the accuracy ratio ``max(gap/ε, dist/δ)`` after every iteration (``history_error``;
``<= 1`` means ``(ε, δ)``-accurate) and continues after the first hit for
:data:`SETTLE_FRACTION` times the iterations so far (at least :data:`SETTLE_MIN`), and then
until the criterion has held for the last :data:`SETTLE_MIN` rows; ``params["settled_row"]`` is the first row from
which the criterion held until the end of the run (APAPC is not monotone; rates use it),
``params["first_hit_row"]`` the first row where it held.

Shared pieces (used by :mod:`mixbounds.solvers.sliding` and :mod:`mixbounds.solvers.subgradient`)
-------------------------------------------------------------------------------------------------
* :class:`ProblemView` and :class:`DelegatingOracles`: the reformulation of a problem
  whose objective is replaced (regularised here, a placeholder for the nonsmooth
  methods, which use only the constraint side of the reformulation), with **every**
  oracle call counted in the caller's :class:`~mixbounds.solvers.oracles.CountedOracles` of the
  original problem.  (``Reformulation`` accepts only smooth strongly convex objectives;
  the view is the workaround, see the module ``reformulate``.)
* :class:`Accuracy`: the ``(ε, δ)`` measurement above (uncounted: it is the error
  measure, like ``‖x − x*‖`` for APAPC, not part of the method).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import scipy.linalg as sla
from mixbounds.bounds.guards import SCALE_FLOOR
from mixbounds.instances.objectives import Objective
from mixbounds.solvers.apapc import APAPCParameters, apapc
from mixbounds.solvers.oracles import ORACLES, CountedOracles
from mixbounds.solvers.reformulations import Reformulation
from mixbounds.solvers.result import SolveResult

#: after the first (ε, δ)-hit APAPC runs this fraction of the iterations so far (plus
#: :data:`SETTLE_MIN` iterations) more, to find the row from which the criterion holds.
SETTLE_FRACTION = 1.0
SETTLE_MIN = 20
#: default iteration budget
MAX_ITER = 200_000


# ============================================================================ views
class ProblemView:
    """A problem with its ``objective`` replaced; every other attribute is the original's."""

    def __init__(self, problem, objective):
        object.__setattr__(self, "_problem", problem)
        object.__setattr__(self, "objective", objective)

    def __getattr__(self, name):
        return getattr(self._problem, name)

    @property
    def original(self):
        return self._problem


class DelegatingOracles:
    """The interface of :class:`CountedOracles` for a :class:`ProblemView`; every call is
    forwarded to (and counted by) ``base``, the counted oracles of the original problem.

    ``grad(u)`` is ``base.grad(u)`` (one round) followed by ``grad_transform(u, g)`` (local
    arithmetic, e.g. ``+ ν(u − u⁰)``), or raises if ``allow_grad`` is false (views used only
    for their constraint operators).
    """

    def __init__(self, view: ProblemView, base: CountedOracles, *, grad_transform=None, allow_grad: bool = True):
        if base.problem is not view.original:
            raise ValueError("DelegatingOracles: the base oracles belong to another problem")
        self.problem = view
        self.base = base
        self.n = base.n
        self._gt = grad_transform
        self._allow_grad = allow_grad

    @property
    def counts(self) -> dict:
        return self.base.counts

    def snapshot(self) -> dict:
        return self.base.snapshot()

    def grad(self, u):
        if not self._allow_grad:
            raise RuntimeError("DelegatingOracles: this view has a placeholder objective; its gradient is not defined")
        g = self.base.grad(u)
        return g if self._gt is None else self._gt(u, g)

    def A(self, x):
        return self.base.A(x)

    def AT(self, Y):
        return self.base.AT(Y)

    def C(self, x):
        return self.base.C(x)

    def CT(self, v):
        return self.base.CT(v)

    def Ct(self, Xt):
        return self.base.Ct(Xt)

    def CtT(self, v):
        return self.base.CtT(v)

    def comm(self, Y):
        return self.base.comm(Y)


class RegularizedObjective(Objective):
    """``F^ν(u) = F(u) + (ν/2)‖u − u⁰‖²`` (smooth: ``L = L_f + ν``, ``μ = μ_f + ν``)."""

    smooth = True

    def __init__(self, base: Objective, nu: float, u0: np.ndarray):
        if not base.smooth or base.L is None:
            raise ValueError("RegularizedObjective: the base objective must be smooth with a finite L_f")
        if not (np.isfinite(nu) and nu > 0):
            raise ValueError(f"RegularizedObjective: ν must be positive and finite, got {nu}")
        self.base, self.nu, self.u0 = base, float(nu), np.asarray(u0, dtype=float)
        self.layout = base.layout
        self.L = float(base.L) + self.nu
        self.mu = float(base.mu) + self.nu
        self.M = None

    def value(self, u):
        d = u - self.u0
        return self.base.value(u) + 0.5 * self.nu * float(d @ d)

    def node_values(self, u):
        d = u - self.u0
        return self.base.node_values(u) + 0.5 * self.nu * np.bincount(self.layout.node_of_u, weights=d * d,
                                                                          minlength=self.layout.n)

    def grad(self, u):
        return self.base.grad(u) + self.nu * (u - self.u0)

    def describe(self):
        return {"type": "regularized", "nu": self.nu, "base": self.base.describe()}


class PlaceholderObjective(Objective):
    """Stands in for a nonsmooth objective when only the constraint side of a
    :class:`Reformulation` is used: ``L = μ = 1`` feed only the reformulation's APAPC
    constants (``r``, ``L_G``, ``μ_G``), which the nonsmooth methods never read."""

    smooth = True
    L = 1.0
    mu = 1.0

    def __init__(self, layout):
        self.layout = layout

    def value(self, u):  # pragma: no cover - never called
        raise RuntimeError("placeholder objective")

    node_values = grad = value

    def describe(self):
        return {"type": "placeholder (constraint operators only)"}


def reformulate(problem, oracles: CountedOracles, objective, *, method: str = "apapc", spectra: str = "lemma",
                grad_transform=None, allow_grad: bool = True) -> Reformulation:
    """The :class:`Reformulation` of ``problem`` with ``objective`` in place of its own, all
    oracle calls counted in ``oracles`` (the original problem's).

    Workaround: ``Reformulation`` rejects objectives that are not smooth and strongly
    convex; a :class:`ProblemView` carrying a smooth strongly convex ``objective`` (the
    regularised one, or :class:`PlaceholderObjective`) passes its checks while all
    matrices, spectra and counts are the original problem's.
    """
    view = ProblemView(problem, objective)
    orc = DelegatingOracles(view, oracles, grad_transform=grad_transform, allow_grad=allow_grad)
    return Reformulation(view, orc, method=method, spectra=spectra, constants="lemma")


# ============================================================================ accuracy
def feasible_set_basis(problem) -> np.ndarray:
    """Orthonormal basis ``Q`` of the row space of the original constraints in the u-layout.

    Rows: the coupled constraint ``Σ_i A_i x_i`` (one block), ``C_i x_i``, ``C̃_i x̃_i`` and the
    consensus differences ``x̃_i − x̃_{i+1}``.  ``dist(u, feasible set) = ‖Qᵀ(u − u_feas)‖``.
    """
    lay = problem.layout
    n, dx, dt = lay.n, lay.dx, lay.dt
    rows = []
    if problem.A is not None:
        R = np.zeros((problem.m, lay.size))
        R[:, :dx] = np.hstack([Ai.toarray() for Ai in problem.A])
        rows.append(R)
    if problem.C is not None:
        R = np.zeros((problem.bC.shape[0], lay.size))
        R[:, :dx] = problem.bC.toarray()
        rows.append(R)
    if dt:
        if problem.Ct is not None:
            R = np.zeros((problem.bCt.shape[0], lay.size))
            R[:, dx:] = problem.bCt.toarray()
            rows.append(R)
        if n > 1:
            D = np.zeros(((n - 1) * dt, lay.size))
            I = np.eye(dt)
            for i in range(n - 1):
                D[i * dt:(i + 1) * dt, dx + i * dt: dx + (i + 1) * dt] = I
                D[i * dt:(i + 1) * dt, dx + (i + 1) * dt: dx + (i + 2) * dt] = -I
            rows.append(D)
    if not rows:
        return np.zeros((lay.size, 0))
    return sla.orth(np.vstack(rows).T)


class Accuracy:
    """``(ε, δ)``-accuracy of a u-layout point for the original problem (module docstring).

    ``gap(u) = F(u) − F(u*)`` (each node evaluates ``f_i`` at its own copy ``x̃_i``),
    ``dist(u)`` = distance to the feasible set of (P); ``ratio(u) = max(gap/ε, dist/δ)``.
    Evaluations read the problem's data directly: they are the error measure, not oracle
    calls of the method, and are not counted.
    """

    def __init__(self, problem, u_star: np.ndarray, eps: float, delta: float):
        if not (eps > 0 and delta > 0):
            raise ValueError(f"Accuracy: ε and δ must be positive, got {eps}, {delta}")
        self.problem = problem
        self.obj = problem.objective
        self.u_star = np.asarray(u_star, dtype=float)
        self.F_star = float(self.obj.value(self.u_star))
        self.Q = feasible_set_basis(problem)
        self.eps, self.delta = float(eps), float(delta)

    def gap(self, u) -> float:
        return float(self.obj.value(u)) - self.F_star

    def dist(self, u) -> float:
        return float(np.linalg.norm(self.Q.T @ (u - self.u_star))) if self.Q.shape[1] else 0.0

    def measure(self, u) -> tuple[float, float, float]:
        g, d = self.gap(u), self.dist(u)
        return max(g / self.eps, d / self.delta), g, d


def default_delta_smooth(problem, u_star, eps: float) -> float:
    """``δ = min(ε/‖∇F(u*)‖, √(2ε/L_f))`` (module docstring)."""
    g = float(np.linalg.norm(problem.objective.grad(u_star)))
    cand = [math.sqrt(2.0 * eps / problem.objective.L)]
    if g > 0:
        cand.append(eps / g)
    return min(cand)


def settled_row(ratios: np.ndarray) -> int | None:
    """First row from which ``ratio <= 1`` holds until the end (``None`` if the last row fails)."""
    r = np.asarray(ratios, dtype=float)
    if r.size == 0 or not (r[-1] <= 1.0):
        return None
    bad = np.flatnonzero(~(r <= 1.0))
    return int(bad[-1] + 1) if bad.size else 0


# ============================================================================ the method
def regularized_apapc(problem, *, eps: float, x_star, R: float | None = None, method: str = "apapc",
                      spectra: str = "lemma", delta: float | None = None, max_iter: int = MAX_ITER, x0=None,
                      oracles: CountedOracles | None = None, settle: float = SETTLE_FRACTION) -> SolveResult:
    """Regularised APAPC (module docstring) to an ``(ε, δ)``-solution of a smooth convex problem.

    Parameters
    ----------
    problem : :class:`~mixbounds.instances.problem.MixedProblem` with a smooth objective (``μ_f`` may be 0).
    eps : target function gap ε (units of F).
    x_star : a solution in the u-layout (gap and distance are measured against it); the
        families of :mod:`mixbounds.instances.convex` give the one nearest to ``x0``.
    R : bound on ``‖x0 − x*‖`` (default: that distance); ``ν = ε/R²``.
    method : ``"apapc"`` or ``"apapc-nocheb"`` (control: no Chebyshev polynomials).
    delta : residual tolerance (default :func:`default_delta_smooth`).
    x0 : start (u-layout, default 0); ``oracles``: counted oracles of ``problem``.
    """
    obj = problem.objective
    if not obj.smooth or obj.L is None:
        raise ValueError("regularized_apapc: needs a smooth objective with a finite L_f")
    if not (eps > 0):
        raise ValueError(f"regularized_apapc: eps must be positive, got {eps}")
    base = oracles if oracles is not None else CountedOracles(problem)
    u_star = np.asarray(x_star, dtype=float).ravel()
    lay = problem.layout
    u0 = np.zeros(lay.size) if x0 is None else np.asarray(x0, dtype=float).ravel()
    R2 = float(np.sum((u0 - u_star) ** 2)) if R is None else float(R) ** 2
    if not (R2 > 0):
        raise ValueError("regularized_apapc: R must be positive (the start is the solution)")
    nu = eps / R2
    if delta is None:
        delta = default_delta_smooth(problem, u_star, eps)
    acc = Accuracy(problem, u_star, eps, delta)
    reg = RegularizedObjective(obj, nu, u0)
    ref = reformulate(problem, base, reg, method=method, spectra=spectra,
                      grad_transform=lambda u, g: g + nu * (u - u0))
    lo, hi = ref.interval
    params = APAPCParameters.rule(ref.L_G, ref.mu_G, hi, lo)
    w0 = ref.from_u(u0)

    ratios, gaps, dists = [], [], []
    state = {"hit": None, "stop_at": None}

    def error(w):
        k = len(ratios)
        r, g, d = acc.measure(ref.to_u(w))
        ratios.append(r)
        gaps.append(g)
        dists.append(d)
        if state["hit"] is None and r <= 1.0:
            state["hit"] = k
            state["stop_at"] = k + max(SETTLE_MIN, int(math.ceil(settle * k)))
        if (state["stop_at"] is not None and k >= state["stop_at"]
                and all(q <= 1.0 for q in ratios[-SETTLE_MIN:])):
            return 0.0  # ends the run; the recorded history is the true ratio
        return max(r, SCALE_FLOOR) if np.isfinite(r) else r

    res = apapc(grad_G=ref.grad_G, apply_BtB=ref.apply_normal, Btb=ref.normal_rhs, w0=w0, params=params,
                error=error, snapshot=ref.orc.snapshot, output=ref.to_u, eps=1e-300, max_iter=max_iter,
                method=f"regularized-{method}", extra_params=ref.describe())
    hist = np.asarray(ratios[: res.iterations + 1], dtype=float)
    srow = settled_row(hist)
    converged = srow is not None and state["hit"] is not None
    reason = "tolerance" if converged else ("budget" if res.reason in ("budget", "tolerance") else res.reason)
    info = dict(res.params)
    info.update(nu=nu, R=math.sqrt(R2), eps=eps, delta=delta, F_star=acc.F_star, first_hit_row=state["hit"],
                settled_row=srow, history_gap=gaps[: res.iterations + 1], history_dist=dists[: res.iterations + 1])
    return dataclasses.replace(res, history_error=hist, converged=converged, reason=reason, eps=float(eps),
                               error_kind="max(gap/eps, dist/delta): gap = F(u) - F(u*), dist = distance of u to the "
                                          "feasible set of (P); <= 1 means (eps, delta)-accurate",
                               params=info)


def counts_at(res: SolveResult, row: int | None) -> dict | None:
    """Cumulative counts at a history row (``None`` passes through)."""
    if row is None:
        return None
    return {k: int(v) for k, v in zip(ORACLES, res.history_counts[row])}


__all__ = ["Accuracy", "DelegatingOracles", "PlaceholderObjective", "ProblemView", "RegularizedObjective",
           "counts_at", "default_delta_smooth", "feasible_set_basis", "reformulate", "regularized_apapc", "settled_row"]
