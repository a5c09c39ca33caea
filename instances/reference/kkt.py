"""Exact reference solutions ``x*`` of problem (P): one point defined by the problem, on any machine.

:func:`reference_solution` never returns whichever point the factorisation of a singular matrix happens to give:
which path a problem takes is decided by its objective's structure, not by pivots
(:attr:`~mixbounds.instances.objectives.Objective.strongly_convex`,
:attr:`~mixbounds.instances.objectives.Objective.strictly_convex`).

* Strongly convex objective (``μ_f > 0``, Assumption ``ass:smooth_and_str_convex_of_f_i``): ``H = Eᵀ∇²F E`` is
  positive definite, the minimiser is unique; one refined KKT solve for a quadratic, equality-constrained Newton
  steps otherwise (:mod:`mixbounds.instances.reference.saddle_point`).
* Quadratic objective with ``μ_f = 0`` (Table 2's convex families): the minimisers form an affine set
  ``v₀ + ker H ∩ ker G`` and the KKT matrix is singular when that kernel is not ``{0}``; the reference is the
  minimiser nearest to 0 in the u-layout norm
  (:func:`~mixbounds.instances.reference.min_norm.min_norm_quadratic_solution`), the ``x*`` the convex families
  record.
* Other objectives with ``μ_f = 0``: Newton steps when the objective is strictly convex (every Hessian positive
  definite: the minimiser is unique and every Newton KKT system nonsingular in ``v``), else ``ValueError``.

The result carries its relative KKT residual; anything above ``tol`` is an error, never a silently returned point.
With redundant constraints the multipliers are one solution among many (the point is unique).

The helpers of :mod:`~mixbounds.instances.reference.saddle_point` that callers import from here (``KKT_RTOL``,
``constraint_system``, ``copy_map``, ``copy_weights``, ``layout_copy_map``) are importable from this module; the
solvers and their size limits are read and patched where they live.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from mixbounds.instances.objectives import QuadraticObjective
from mixbounds.instances.problem import MixedProblem
from mixbounds.instances.reference.min_norm import min_norm_quadratic_solution
from mixbounds.instances.reference.saddle_point import (
    KKT_RTOL,
    constraint_system,
    copy_map,
    factored_constraints,
    kkt_solver,
    relative_kkt_residual,
)
from mixbounds.instances.reference.saddle_point import copy_weights as copy_weights  # re-exported
from mixbounds.instances.reference.saddle_point import layout_copy_map as layout_copy_map  # re-exported


@dataclass(frozen=True)
class Reference:
    """``u``: solution in the u-layout (x̃ copied to every node); ``x``, ``xt``: original variables."""

    u: np.ndarray
    x: np.ndarray
    xt: np.ndarray
    kkt_residual: float
    method: str
    multipliers: np.ndarray

    def z(self, problem: MixedProblem) -> np.ndarray:
        """The solution in the z-layout of ``x_star.npy``."""
        return problem.layout.to_z(self.u)


def reference_solution(problem: MixedProblem, *, tol: float = KKT_RTOL, max_newton: int = 60) -> Reference:
    """Solve (P) to a relative KKT residual ``<= tol`` (module docstring).

    Parameters
    ----------
    problem : MixedProblem
        With a smooth objective.
    tol : float
        Required relative KKT residual (:func:`~mixbounds.instances.reference.saddle_point.relative_kkt_residual`).
    max_newton : int
        Newton steps at most (non-quadratic objectives).

    Returns
    -------
    Reference
        The unique minimiser, or for a quadratic with ``μ_f = 0`` the minimiser nearest to 0.  ``ValueError`` for a
        nonsmooth objective, a non-quadratic objective that is not strictly convex, or a residual above ``tol``.
    """
    obj = problem.objective
    if not obj.smooth:
        raise ValueError("reference solution: the KKT solve needs a smooth objective")
    quadratic = isinstance(obj, QuadraticObjective)
    if not quadratic and not obj.strictly_convex:
        raise ValueError(f"reference solution: the {type(obj).__name__} objective is not strictly convex (μ_f = 0): "
                         f"its minimiser need not be unique and its KKT matrix may be singular")
    E = copy_map(problem)
    G, h = constraint_system(problem)
    system = (E, G, h)
    if quadratic and not obj.strongly_convex:
        ref = min_norm_quadratic_solution(problem)
        return _checked(problem, system, ref["v"], ref["multipliers"],
                        f"minimum-norm minimiser (μ_f = 0): {ref['method']}", tol)
    rows = factored_constraints(problem, G)
    nv = E.shape[1]
    if quadratic:
        H = sp.csr_matrix(E.T @ obj.Q @ E)
        kkt = kkt_solver(H, G, problem.layout.dt, rows)
        sol = kkt.solve(np.concatenate([E.T @ obj.q, h]))
        return _checked(problem, system, sol[:nv], sol[nv:], kkt.name, tol)
    v, lam, steps = _newton(problem, system, rows, max_newton)
    return _checked(problem, system, v, lam, f"newton-kkt ({steps} steps)", tol)


def _newton(problem: MixedProblem, system: tuple, rows, max_newton: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Equality-constrained Newton steps from the feasible minimum-norm point: ``(v, multipliers, steps)``;
    ``system`` is ``(E, G, h)``."""
    obj, lay = problem.objective, problem.layout
    E, G, h = system
    nv, nc = E.shape[1], G.shape[0]

    def grad_v(v):
        return E.T @ obj.grad(E @ v)

    kkt0 = kkt_solver(sp.eye(nv, format="csr"), G, 0, rows)
    v = kkt0.solve(np.concatenate([np.zeros(nv), h]))[:nv]
    for it in range(max_newton):
        g = grad_v(v)
        H = sp.csr_matrix(E.T @ obj.hessian(E @ v) @ E)
        kkt = kkt_solver(H, G, lay.dt, rows)
        sol = kkt.solve(np.concatenate([-g, np.zeros(nc)]))
        dv = sol[:nv]
        t, f0 = 1.0, obj.value(E @ v)
        slope = g @ dv
        # Near the optimum the predicted decrease falls below the rounding of f; the full
        # Newton step is then right and a value-based line search would stall.
        if abs(slope) > 1e-12 * max(1.0, abs(f0)):
            while obj.value(E @ (v + t * dv)) > f0 + 1e-4 * t * slope and t > 1e-12:
                t *= 0.5
        v = v + t * dv
        if np.linalg.norm(dv) * t <= 1e-14 * max(np.linalg.norm(v), 1.0):
            break
    # multipliers at the final point
    g = grad_v(v)
    H = sp.csr_matrix(E.T @ obj.hessian(E @ v) @ E)
    lam = kkt_solver(H, G, lay.dt, rows).solve(np.concatenate([-g, np.zeros(nc)]))[nv:]
    return v, lam, it + 1


def _checked(problem: MixedProblem, system: tuple, v: np.ndarray, lam: np.ndarray, method: str,
             tol: float) -> Reference:
    """The :class:`Reference` of ``v`` after the relative KKT residual check (``ValueError`` above ``tol``);
    ``system`` is ``(E, G, h)``."""
    obj, lay = problem.objective, problem.layout
    E, G, h = system
    nv = E.shape[1]
    res = relative_kkt_residual(E.T @ obj.grad(E @ v), E.T @ obj.grad(E @ np.zeros(nv)), G, lam, v, h)
    if not np.isfinite(res) or res > tol:
        raise ValueError(f"reference solution: relative KKT residual {res:.2e} exceeds {tol:.0e} ({method})")
    return Reference(u=E @ v, x=v[: lay.dx], xt=v[lay.dx:], kkt_residual=res, method=method, multipliers=lam)
