"""The performance-estimation problem of K APAPC steps on a fixed network over ``f_i ∈ F(μ_f, L_f)``.

``ρ_PEP = (max V^K s.t. V⁰ <= 1)^{1/K}`` over every state ``(u⁰, u_f⁰, z⁰)`` of the iterates' subspace, every
solution ``(u*, z*)`` of the reformulation (:class:`~mixbounds.checks.pep.model.LinearModel`) and every ``f_i``
in ``F(μ_f, L_f)`` (one function per node, on the node's slots: one slot for scalar blocks, several for
non-scalar ones; interpolation conditions of Taylor, Hendrickx & Glineur 2017: exact over the class, in every
dimension).  ``V`` is :mod:`mixbounds.checks.pep.lyapunov`'s (with or without the dual terms).

Built with the suite's engine (:mod:`mixbounds.checks.pep.engine`: exact forms, Clarabel, an exact check of
the dual certificate); :mod:`mixbounds.checks.pep.pepit_reference` is the same PEP written with PEPit, the
reference the engine is tested against.

Accuracy (what "solved" means here): :class:`PEPOutcome` records the solver status, the duality gap, the
primal and dual infeasibilities and the proof residual (:mod:`mixbounds.checks.pep.engine.conic`);
``accuracy`` is the largest.  A status other than ``optimal``/``optimal_inaccurate`` or an accuracy above
:data:`PEP_ACCURACY` is an SDP that did not solve to accuracy: the check reports ``error``, never a pass.
``exact`` is the exact check of the rounded dual certificate (:mod:`mixbounds.checks.pep.engine.exact`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from mixbounds.bounds.guards import SCALE_FLOOR
from mixbounds.checks.pep.engine import conic
from mixbounds.checks.pep.engine.exact import ExactResult, certify
from mixbounds.checks.pep.engine.forms import Form, Vec
from mixbounds.checks.pep.engine.problem import PEP
from mixbounds.checks.pep.engine.worst import WorstCase
from mixbounds.checks.pep.lyapunov import WITH_DUAL, LyapunovWeights, lyapunov
from mixbounds.checks.pep.model import LinearModel
from mixbounds.checks.pep.step import apapc_step, apply
from mixbounds.solvers.apapc import APAPCParameters

#: largest accepted SDP inaccuracy (duality gap, primal/dual infeasibility, proof residual; V⁰ is normalised to 1)
PEP_ACCURACY = 1e-6
#: solver statuses that mean the PEP's value is +∞ (no finite worst case)
UNBOUNDED = ("unbounded", "unbounded_inaccurate", "infeasible_or_unbounded")
#: function classes of the f_i: the whole class F(μ, L) (the certificate) and its quadratics ½ xᵀQx
#: (Bousselmi, Hendrickx & Glineur 2023), used to ask whether the worst case is quadratic
FUNCTION_CLASSES = ("smooth_strongly_convex", "quadratic")
#: cvxpy's Clarabel options for the PEPit reference (:mod:`mixbounds.checks.pep.pepit_reference`; Clarabel's
#: regularisation, as the engine's)
SOLVER_OPTIONS = {"CLARABEL": {"static_regularization_constant": 1e-7}}
#: statuses whose solution is measured (Clarabel's "AlmostSolved" stalls near 1e-8 on these PEPs: the measured
#: accuracy, not the status, decides)
MEASURED = ("optimal", "optimal_inaccurate")
SOLVER = "CLARABEL"


@dataclass
class PEPOutcome:
    """What one PEP solve returned (``value`` = ``max V^K``; ``None`` when unbounded or failed)."""

    status: str
    solver: str
    K: int
    value: float | None
    primal_value: float | None
    duality_gap: float = math.nan
    primal_infeasibility: float = math.nan
    dual_infeasibility: float = math.nan
    proof_residual: float = math.nan
    seconds: float = math.nan
    gram_size: int = 0
    worst: dict = field(default_factory=dict)
    exact: ExactResult | None = None
    analysis: dict = field(default_factory=dict)

    @property
    def accuracy(self) -> float:
        vals = [self.duality_gap, self.primal_infeasibility, self.dual_infeasibility, self.proof_residual]
        return max(vals) if all(np.isfinite(vals)) else math.nan

    @property
    def unbounded(self) -> bool:
        return self.status in UNBOUNDED

    @property
    def solved(self) -> bool:
        """A :data:`MEASURED` status and accuracy within :data:`PEP_ACCURACY`."""
        return self.status in MEASURED and self.value is not None and self.accuracy <= PEP_ACCURACY

    @property
    def rho(self) -> float:
        """``(max V^K)^{1/K}`` (``inf`` when unbounded, ``nan`` when not solved)."""
        if self.unbounded:
            return math.inf
        if self.value is None:
            return math.nan
        return max(self.value, 0.0) ** (1.0 / self.K)

    def record(self) -> dict:
        out = {"solver": self.solver, "solver_status": self.status, "K": self.K,
               "accuracy": self.accuracy, "duality_gap": self.duality_gap,
               "primal_infeasibility": self.primal_infeasibility, "dual_infeasibility": self.dual_infeasibility,
               "proof_residual": self.proof_residual,
               "sdp_seconds": self.seconds, "gram_size": self.gram_size,
               "pep_value": self.value, "pep_primal_value": self.primal_value}
        if self.exact is not None:
            out.update(self.exact.record(self.K))
        out.update(self.analysis)
        return out


def node_slots(model: LinearModel) -> list[tuple[int, ...]]:
    """The slots of every node's variable (one for scalar blocks, several for non-scalar ones)."""
    return [tuple(s) if isinstance(s, (tuple, list)) else (int(s),) for s in model.node_slot]


class _Trajectory:
    """The PEP's points: functions, solution, the state and K steps (kept for the worst-case extraction)."""

    def __init__(self, pep: PEP, model: LinearModel, weights: LyapunovWeights, K: int, step_params=None,
                 function_class: str = "smooth_strongly_convex", start: str = "any"):
        data = model.data
        self.model = model
        self.slots = node_slots(model)
        self.fs = [pep.function(data.mu_f, data.L_f, function_class, slots=len(s)) for s in self.slots]
        for f, s in zip(self.fs, self.slots):  # u* = 0, z* = 0: every f_i minimised at 0 with f_i(0) = 0 (model)
            f.add_point(tuple(Vec() for _ in s), tuple(Vec() for _ in s), Form())
        Su, Sf, Rz = whitened_bases(model, weights)
        zero = Vec()
        u = apply(Su, [pep.point() for _ in range(Su.shape[1])], zero)
        if start not in ("any", "algorithm"):
            raise ValueError(f"PEP: start must be 'any' or 'algorithm', got {start!r}")
        if weights.a_f != 0.0 and start == "any":
            u_f = apply(Sf, [pep.point() for _ in range(Sf.shape[1])], zero)
        else:  # τ = 1 (u_f never enters) or the algorithm's start u_f⁰ = u⁰
            u_f = u
        z = apply(Rz, [pep.point() for _ in range(Rz.shape[1])], zero)
        self.states = [(u, u_f, z)]
        self.V = [self._V(weights, u, u_f, z)]
        self.dual = [self._V(weights, [zero] * len(u), [zero] * len(u), z, dual_only=True)]
        for _ in range(K):
            u, u_f, z, _ = apapc_step(step_params or model.params, model.P, self._grad_G, u, u_f, z, zero)
            self.states.append((u, u_f, z))
            self.V.append(self._V(weights, u, u_f, z))
            self.dual.append(self._V(weights, [zero] * len(u), [zero] * len(u), z, dual_only=True))

    def _grad_G(self, w: list) -> list:
        """``∇G(w)`` = node gradients of the f_i plus ``H w`` (the penalty's gradient, ``b = 0``)."""
        out = apply(self.model.H, w, Vec())
        for f, s in zip(self.fs, self.slots):
            g = f.oracle(tuple(w[k] for k in s))[0]
            for k, gk in zip(s, g):
                out[k] = out[k] + gk
        return out

    def _V(self, weights: LyapunovWeights, u, u_f, z, dual_only: bool = False):
        if dual_only:
            w = LyapunovWeights(0.0, 0.0, weights.M_z)
            return lyapunov(w, u, u_f, z, 0.0, self.model.H) + Form()
        breg = Form()
        if weights.a_f != 0.0:
            for f, s in zip(self.fs, self.slots):
                breg = breg + f.value(tuple(u_f[k] for k in s))
        return lyapunov(weights, u, u_f, z, breg, self.model.H) + Form()


def whitened_bases(model: LinearModel, weights: LyapunovWeights) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bases of ``u``, ``u_f`` (``S``) and ``z`` (``range P``) scaled so that each term of ``V⁰`` is about a sum of
    squares of the new coordinates: the same PEP (a change of variables), Gram entries of order 1.

    Without it Clarabel stalled with errors up to 1e-3 at κ = 10³ (entries from ``η`` to ``1/η``).
    """
    Su = model.S / math.sqrt(weights.a_u)
    p = model.params
    Sf = model.S / math.sqrt(max(weights.a_f, SCALE_FLOOR) * 0.5 * math.sqrt(p.mu * p.L))
    R = model.R
    Mz = R.T @ weights.M_z @ R
    lam, Q = np.linalg.eigh(0.5 * (Mz + Mz.T))
    if lam.size and lam[0] > 0:
        R = R @ Q / np.sqrt(lam)
    return Su, Sf, R


def outcome_of(pep: PEP, K: int, target: float | None, exact: bool = True) -> tuple[PEPOutcome, conic.Solution]:
    """Solve ``pep`` and wrap the solution as a :class:`PEPOutcome`; with ``exact``, the exact check of the
    dual certificate against ``target`` (``ρ_thm^K``, or ``None``)."""
    sol = conic.solve(pep)
    out = PEPOutcome(status=sol.status, solver=SOLVER, K=K, value=sol.value, primal_value=sol.primal_value,
                     duality_gap=sol.duality_gap, primal_infeasibility=sol.primal_infeasibility,
                     dual_infeasibility=sol.dual_infeasibility, proof_residual=sol.proof_residual,
                     seconds=sol.seconds, gram_size=len(pep.block_of))
    if exact and out.solved:
        out.exact = certify(pep, sol.duals, sol.value, target)
    return out, sol


def solve_pep(model: LinearModel, K: int = 1, with_dual: bool = WITH_DUAL, solver: str | None = None,
              step_params: APAPCParameters | None = None, function_class: str = "smooth_strongly_convex",
              start: str = "any", exact_target: float | None = None, exact: bool = True,
              excess: float | None = None) -> PEPOutcome:
    """``max V^K s.t. V⁰ <= 1`` for ``model`` (module docstring); the worst case is kept in ``worst``.

    ``V`` is always the Lyapunov function of ``model.params`` (the rule's); ``step_params`` (default
    ``model.params``) are the parameters the iteration runs with — a mis-set method (the controls) is
    measured with the theorem's function.  ``function_class``: one of :data:`FUNCTION_CLASSES`.
    ``start``: ``"any"`` state, or the algorithm's (``u_f⁰ = u⁰``).  ``solver``: only ``"CLARABEL"``.
    ``excess`` (a factor ``r``): instead, ``max V'^K − r^K V'⁰ s.t. V⁰ <= 1`` with ``V'`` the Lyapunov function
    without its dual terms (bounded: the full ``V⁰`` bounds the state; the control ``no_dual``).
    """
    if function_class not in FUNCTION_CLASSES:
        raise ValueError(f"PEP: unknown function class {function_class!r}; expected one of {FUNCTION_CLASSES}")
    if K < 1:
        raise ValueError(f"PEP: need K >= 1 steps, got {K}")
    if solver not in (None, SOLVER):
        raise ValueError(f"PEP: the engine solves with {SOLVER}, got solver={solver!r}")
    weights = LyapunovWeights.of(model.params, model.P_pinv, with_dual)
    pep = PEP()
    traj = _Trajectory(pep, model, weights, K, step_params, function_class, start)
    pep.initial = traj.V[0]
    pep.objective = traj.V[-1] if excess is None else excess_form(traj.V, traj.dual, excess)
    out, sol = outcome_of(pep, K, exact_target, exact=exact and function_class == "smooth_strongly_convex")
    if out.status in MEASURED and out.value is not None:
        wc = WorstCase(pep, sol)
        out.worst = _worst_case(traj, wc)
        out.analysis = wc.analysis(traj.V, traj.dual, _network_share(model, traj, wc))
    return out


def excess_form(V: list, dual: list, r: float) -> Form:
    """``V'^K − r^K V'⁰`` with ``V' = V − dual`` (the Lyapunov function without its dual terms)."""
    return (V[-1] - dual[-1]) - (V[0] - dual[0]).scale(float(r) ** (len(V) - 1))


def _network_share(model: LinearModel, traj: _Trajectory, wc: WorstCase) -> float:
    """Share of ``‖u⁰ − u*‖²`` in ``range P`` (the directions the network acts on) at the worst case."""
    U = np.array([wc.coords(v) for v in traj.states[0][0]])
    tot = float(np.sum(U * U))
    if tot <= 0:
        return 0.0
    Rn = model.R
    proj = Rn @ (Rn.T @ U)
    return float(np.sum(proj * proj)) / tot


def _worst_case(traj: _Trajectory, wc: WorstCase) -> dict:
    """Coordinates of the worst case: every f_i's (x, ∇f_i(x), f_i(x)) triplets, the solution and the states."""
    funcs = []
    for f in traj.fs:
        funcs.append([(np.concatenate([wc.coords(v) for v in x]), np.concatenate([wc.coords(v) for v in g]),
                       wc.value(fv)) for x, g, fv in f.points])
    states = [tuple(np.array([wc.coords(v) for v in part]) for part in st) for st in traj.states]
    return {"functions": funcs, "states": states, "V": [wc.value(v) for v in traj.V]}
