"""The PEPs of :mod:`mixbounds.checks.pep.performance` and :mod:`mixbounds.checks.pep.kinds.classlevel` written with
PEPit: the independent reference the suite's engine (:mod:`mixbounds.checks.pep.engine`) is tested against.

:func:`solve_pep` is the fixed-network PEP as the suite first built it (one PEPit function per node, the
reformulation's scalar matrices, the Lyapunov function with its dual terms); :func:`class_rho` is the class-level
PEP written with PEPit's ``BlockPartition`` (kernel and range of ``P``) and ``SymmetricLinearOperator`` (``P`` on its
range, spectrum in ``[lo, hi]``; ``P = Π₁MΠ₁``, a compression, so that no equality forces a Gram entry to
zero), with ``z − z* = P·w``.  Both are solved by cvxpy + Clarabel (SCS if Clarabel is
absent); ``ρ_PEP = (max V^K s.t. V⁰ <= 1)^{1/K}``.  Nothing in ``mixbounds verify`` depends on this module except
the agreement check ``pep.engine.pepit`` (:mod:`mixbounds.checks.pep.registry`).
"""

from __future__ import annotations

import math
import time

import numpy as np
from mixbounds.checks.pep.availability import solver_name
from mixbounds.checks.pep.lyapunov import WITH_DUAL, LyapunovWeights, lyapunov
from mixbounds.checks.pep.model import LinearModel
from mixbounds.checks.pep.performance import MEASURED, SOLVER_OPTIONS, PEPOutcome, whitened_bases
from mixbounds.checks.pep.step import apapc_step, apply
from mixbounds.solvers.apapc import APAPCParameters
from PEPit import PEP, Point
from PEPit.expression import null_expression
from PEPit.functions import SmoothStronglyConvexFunction, SmoothStronglyConvexQuadraticFunction
from PEPit.point import null_point
from PEPit.tools.dict_operations import prune_dict, symmetrize_dict

#: function classes of the f_i: the whole class F(μ, L) (the certificate) and its quadratics ½ xᵀQx
#: (Bousselmi, Hendrickx & Glineur 2023), used to ask whether the worst case is quadratic
FUNCTION_CLASSES = {"smooth_strongly_convex": SmoothStronglyConvexFunction,
                    "quadratic": SmoothStronglyConvexQuadraticFunction}


class _Trajectory:
    """The PEP's points: functions, solution, the state and K steps (kept for the worst-case extraction)."""

    def __init__(self, pep: PEP, model: LinearModel, weights: LyapunovWeights, K: int, step_params=None,
                 function_class: str = "smooth_strongly_convex"):
        data = model.data
        n = data.network.n
        self.model = model
        fclass = FUNCTION_CLASSES[function_class]
        self.fs = [pep.declare_function(fclass, mu=data.mu_f, L=data.L_f) for _ in range(n)]
        for f in self.fs:  # u* = 0, z* = 0: every f_i is minimised at 0 with f_i(0) = 0 (mixbounds.checks.pep.model)
            f.add_point((null_point, null_point, null_expression))
        Su, Sf, Rz = whitened_bases(model, weights)
        u = apply(Su, [Point() for _ in range(Su.shape[1])], null_point)
        if weights.a_f != 0.0:
            u_f = apply(Sf, [Point() for _ in range(Sf.shape[1])], null_point)
        else:  # τ = 1: u_g = u, u_f never enters the iteration (nor V)
            u_f = u
        z = apply(Rz, [Point() for _ in range(Rz.shape[1])], null_point)
        self.states = [(u, u_f, z)]
        self.V = [self._V(weights, u, u_f, z)]
        for _ in range(K):
            u, u_f, z, _ = apapc_step(step_params or model.params, model.P, self._grad_G, u, u_f, z, null_point)
            self.states.append((u, u_f, z))
            self.V.append(self._V(weights, u, u_f, z))

    def _grad_G(self, w: list) -> list:
        """``∇G(w)`` = node gradients of the f_i plus ``H w`` (the penalty's gradient, ``b = 0``)."""
        m = self.model
        out = apply(m.H, w, null_point)
        for i, s in enumerate(m.node_slot):
            out[s] = out[s] + self.fs[i].gradient(w[s])
        return out

    def _V(self, weights: LyapunovWeights, u, u_f, z):
        breg = 0.0
        if weights.a_f != 0.0:
            for i, (f, s) in enumerate(zip(self.fs, self.model.node_slot)):
                breg = breg + f.value(u_f[s])
        return lyapunov(weights, u, u_f, z, breg, self.model.H)



def solve_pep(model: LinearModel, K: int = 1, with_dual: bool = WITH_DUAL, solver: str | None = None,
              step_params: APAPCParameters | None = None, function_class: str = "smooth_strongly_convex") -> PEPOutcome:
    """``max V^K s.t. V⁰ <= 1`` for ``model`` (module docstring); the worst case is kept in ``worst``.

    ``V`` is always the Lyapunov function of ``model.params`` (the rule's); ``step_params`` (default
    ``model.params``) are the parameters the iteration runs with — a mis-set method (the controls) is
    measured with the theorem's function.  ``function_class``: a key of :data:`FUNCTION_CLASSES`.
    """
    if function_class not in FUNCTION_CLASSES:
        raise ValueError(f"PEP: unknown function class {function_class!r}; expected one of {tuple(FUNCTION_CLASSES)}")
    if K < 1:
        raise ValueError(f"PEP: need K >= 1 steps, got {K}")
    solver = solver or solver_name()
    weights = LyapunovWeights.of(model.params, model.P_pinv, with_dual)
    _forget_null_values()
    pep = PEP()
    traj = _Trajectory(pep, model, weights, K, step_params, function_class)
    pep.set_initial_condition(traj.V[0] <= 1)
    pep.set_performance_metric(traj.V[-1])
    t0 = time.perf_counter()
    try:
        dual = pep.solve(wrapper="cvxpy", solver=solver, verbose=0, **SOLVER_OPTIONS.get(solver, {}))
    except Exception as exc:  # the solver raised (e.g. numerical failure): a failed SDP, reported as such
        return PEPOutcome(status=f"solver error: {type(exc).__name__}: {exc}"[:200], solver=solver, K=K, value=None,
                          primal_value=None, seconds=time.perf_counter() - t0)
    secs = time.perf_counter() - t0
    prob = pep.wrapper.prob
    status = str(prob.status)
    if dual is None or status not in MEASURED:
        return PEPOutcome(status=status, solver=solver, K=K, value=None, primal_value=None, seconds=secs,
                          gram_size=Point.counter)
    primal = float(prob.value)
    out = PEPOutcome(status=status, solver=solver, K=K, value=float(dual), primal_value=primal,
                     duality_gap=abs(float(dual) - primal), seconds=secs, gram_size=Point.counter)
    out.primal_infeasibility, out.dual_infeasibility = _infeasibilities(pep)
    if not pep._list_of_psd_sent_to_wrapper:
        out.proof_residual = _proof_residual(pep)
    out.worst = _worst_case(traj)
    return out


def _forget_null_values() -> None:
    """Clear the values PEPit caches on its module-level ``null_point`` / ``null_expression``.

    ``Point.eval`` stores a combination's value on first use, and the null point is one object shared by every
    PEP of the process: after a PEP with a Gram of size 25 it keeps a zero vector of length 25, and the worst-case
    extraction of a later, smaller PEP (``_worst_case``) failed with "index can't contain negative values"
    (measured: coupled κ_f = 100 then shared, one process; a verify worker that runs a coupled PEP before a
    consensus one does the same).
    """
    null_point._value = None
    null_expression._value = None


def _infeasibilities(pep: PEP) -> tuple[float, float]:
    """Largest primal violation (constraints, ``−λ_min(G)``) and dual violation (``−λ_min`` of the slack, negative multipliers)."""
    cons = pep._list_of_prepared_constraints
    prim = [max(0.0, -float(np.linalg.eigvalsh(pep.G_value)[0]))]
    dual = [max(0.0, -float(np.linalg.eigvalsh(pep.residual)[0]))]
    for psd in pep._list_of_psd_sent_to_wrapper:  # LMIs of the quadratic class
        prim.append(max(0.0, -float(np.linalg.eigvalsh(psd.eval())[0])))
        dual.append(max(0.0, -float(np.linalg.eigvalsh(psd.eval_dual())[0])))
    for c in cons:
        v = float(c.eval())
        if c.equality_or_inequality == "inequality":
            prim.append(max(0.0, v))
            dual.append(max(0.0, -float(c.eval_dual())))
        else:
            prim.append(abs(v))
    return max(prim), max(dual)


def _proof_residual(pep: PEP) -> float:
    """How far the dual multipliers are from a proof: ``Σ |coefficients|`` of ``objective − Σ multiplier·constraint
    − ⟨slack, Gram⟩`` other than its constant (zero for an exact dual certificate; PEPit's ``check_feasibility``)."""
    comb = -np.dot(Point.list_of_leaf_points, np.dot(pep.residual, Point.list_of_leaf_points))
    for c in pep._list_of_prepared_constraints:
        comb = comb + c.eval_dual() * c.expression
    left = prune_dict(symmetrize_dict((pep.objective - comb).decomposition_dict))
    return float(np.sum(np.abs([v for k, v in left.items() if k != 1])))


def _worst_case(traj: _Trajectory) -> dict:
    """Coordinates of the worst case: every f_i's (x, ∇f_i(x), f_i(x)) triplets, the solution and the states."""
    D = Point.counter

    def ev(p) -> np.ndarray:  # coordinates in R^D: the null point evaluates to the scalar 0, and points built
        v = np.asarray(p.eval(), dtype=float)  # before later leaves have shorter vectors (zero on those leaves)
        return np.zeros(D) if v.ndim == 0 else np.pad(v, (0, D - v.size))

    funcs = []
    for f in traj.fs:
        funcs.append([(ev(x), ev(g), float(fv.eval())) for x, g, fv in f.list_of_points])
    states = [tuple(np.array([ev(p) for p in part]) for part in st) for st in traj.states]
    return {"functions": funcs, "states": states,
            "V": [float(v.eval()) if not isinstance(v, float) else v for v in traj.V]}


def class_rho(spec, K: int = 1, solver: str | None = None) -> float:
    """``ρ`` of the class-level PEP of ``spec`` (a :class:`~mixbounds.checks.pep.kinds.classlevel.ClassSpec`) written
    with PEPit (module docstring); ``nan`` if the SDP did not solve."""
    from PEPit.operators import SymmetricLinearOperator  # lazy: only the reference uses PEPit's operator class

    solver = solver or solver_name()
    p = spec.rule()
    _forget_null_values()
    pep = PEP()
    part = pep.declare_block_partition(d=2)
    G = pep.declare_function(SmoothStronglyConvexFunction, mu=spec.mu, L=spec.L)
    G.add_point((null_point, null_point, null_expression))
    M = pep.declare_function(SymmetricLinearOperator, mu=spec.lo, L=spec.hi)

    def P(x):  # P = 0 ⊕ Π₁MΠ₁ on (ker, range): a compression of M to the range block, spectrum in [lo, hi] again
        return part.get_block(M.gradient(part.get_block(x, 1)), 1)

    a_u, a_f = 1.0 / p.eta, 2.0 * (1.0 - p.tau) / p.tau
    c = 1.0 / (1.0 + p.eta * p.alpha)
    u = Point() / math.sqrt(a_u)
    u_f = u if a_f == 0.0 else Point()
    w = part.get_block(Point(), 1)
    Pw = P(w)

    def V(u, u_f, w, Pw):
        out = a_u * u ** 2 + (w * Pw) / p.theta - c * p.eta * Pw ** 2
        return out + a_f * G.value(u_f) if a_f != 0.0 else out

    V0 = V(u, u_f, w, Pw)
    for _ in range(K):
        u_g = p.tau * u + (1 - p.tau) * u_f if p.tau != 1.0 else u
        d = G.gradient(u_g) - p.alpha * u_g
        u_half = c * (u - p.eta * (d + Pw))
        h1 = part.get_block(u_half, 1)
        w = w + p.theta * h1
        Pw = Pw + p.theta * P(u_half)
        u_new = c * (u - p.eta * (d + Pw))
        u_f = u_g + 2 * p.tau / (2 - p.tau) * (u_new - u)
        u = u_new
    pep.set_initial_condition(V0 <= 1)
    pep.set_performance_metric(V(u, u_f, w, Pw))
    try:
        val = pep.solve(wrapper="cvxpy", solver=solver, verbose=0, **SOLVER_OPTIONS.get(solver, {}))
    except Exception:  # noqa: BLE001 - a failed reference solve is reported as nan
        return math.nan
    return max(float(val), 0.0) ** (1.0 / K) if val is not None else math.nan
