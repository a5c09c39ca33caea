"""``thm:upper_bound_nonsmooth_affine_constraints`` with a generic B (no preconditioning): sweeps of κ_B and ε.

The tables use the theorem only after Chebyshev preconditioning (κ_K' = O(1)); here it is measured as stated,
on :func:`mixbounds.instances.affine.sliding_hard` (exact κ_B, box inactive at ``u*``) with the paper's method on
``H_r = G + (r/2)‖Bu − b‖²``, ``r = 2R_dual²/ε`` (:func:`mixbounds.solvers.affine.affine_sliding`):

* part 1 (μ = 0, Gradient Sliding): ``N_B = O(MR/ε √κ_B)``, ``N_G' = O(M²R²/ε² + N_B)``
  (``S.sliding.convex.B``, ``S.sliding.convex.grad``), accuracy parameter ``x = MR/ε``;
* part 2 (μ > 0, restarted GS): ``N_B = O(M/√(με) √κ_B)``, ``N_G' = O(M²/(με) + N_B)``
  (``S.sliding.strong.B``, ``S.sliding.strong.grad``), ``x = M/√(με)``.  The statement prints no log; the proof
  (``app:affine_constraint_nonsmooth``) has ``log(1/ε)``: an accuracy slope of ``N_B`` above 1 + tol that stays within
  the log-including rate is a ``finding`` (as Table 4).

Each sweep varies one parameter (κ_B at the base x, x at the base κ_B; ``Tier.statements``), from the same far
start ``u⁰`` (a random corner of the box, so that the start is far from an ``(ε, δ)``-solution), ``R = ‖u⁰ − u*‖``,
``M`` the objective's bound, ``ε`` derived from x.  The counts are to the first ``(ε, δ)``-solution (``δ = ε/M``).
Results ``S.sliding.<part>.<oracle>.<param>.upper`` (``slope <= θ + tol``, θ the formula's slope along the realized
points: ½ for ``N_B`` in κ_B, 1 in x; for ``N_G'`` the slope of ``x² + x√κ_B``).

Negative controls (``control.…subgradient``): the projected subgradient method on the same ``H_r`` (one ``BᵀB`` per
subgradient, step capped at ``1/L``; ``O(M²R²κ_B/ε²)`` iterations): its B count has slope 1 in κ_B and 2 in x,
its subgradient count slope 1 in κ_B — each fails the printed bound of the result it controls.  The ``N_G'``
accuracy results have no method that exceeds ``x²`` asymptotically (the subgradient method's ``x²`` passes; its
measured 2.5–3.2 on these short grids is pre-asymptotic, no control to rely on); their control
(``control.…grad.<x>.exponent``) judges the same points as if the count did not depend on the accuracy
(``|slope| <= tol``), and must fail: the sweep resolves the accuracy dependence.
"""

from __future__ import annotations

import functools

import numpy as np
from mixbounds.bounds.concepts import Oracle
from mixbounds.bounds.statements import statement
from mixbounds.checks.run.framework import Check, Task
from mixbounds.checks.statements.sweep import Rule, judge_statement, with_exponent
from mixbounds.checks.sweeps import geomspace
from mixbounds.checks.tiers import Tier
from mixbounds.instances.affine import sliding_hard
from mixbounds.solvers.affine import affine_sliding

#: part → (μ of G, accuracy parameter, the paper's method)
PARTS = {"convex": (0.0, "MR_eps", "gs"), "strong": (1.0, "M_mu_eps", "restarted")}
#: subgradient-round budget of one run
MAX_INNER = 5_000_000
#: the controls' accuracy sweeps cover half a decade from the grid's start (their counts grow like x²·…)
CONTROL_DECADES = 0.5
#: seed of the far start u⁰ (a random corner of the box), as the Tables 3-4 runs (mixbounds.checks.tables234.points)
START_SEED = 12345


@functools.lru_cache(maxsize=32)
def _problem(kappa_B: float, mu: float):
    return sliding_hard(kappa_B=kappa_B, mu=mu)


def sliding_point(kappa_B: float, mu: float, x: float, method: str, max_inner: int = MAX_INNER) -> dict:
    """One run of ``method`` on :func:`sliding_hard` (κ_B, μ) to an (ε, δ)-solution, ε derived from ``x``."""
    P = _problem(float(kappa_B), float(mu))
    rho = P.params["box_half_width"]
    u0 = rho * np.sign(np.random.default_rng(START_SEED).standard_normal(P.B.shape[1]))
    R = float(np.linalg.norm(u0 - P.u_star))
    M = P.objective.M
    acc = "MR_eps" if mu == 0 else "M_mu_eps"
    eps = M * R / x if mu == 0 else M * M / (mu * x * x)
    res = affine_sliding(P, eps=eps, R=R, method=method, x0=u0, max_inner=max_inner)
    out = {"realized": {**P.realized, acc: float(x)}, "targets": dict(P.targets), "converged": bool(res.converged),
           "reason": res.reason, "iterations": int(res.iterations), "eps": eps, "R": R, "M": M,
           "phases": len(res.params.get("phases", [])), "hit_row": int(res.iterations), "method": method,
           "mu_R2_over_eps": mu * R * R / eps}
    if res.converged:
        out["per_accuracy"] = {Oracle.GRAD: res.counts[Oracle.GRAD], "B": res.counts[Oracle.A]}
    return out


def sliding_task(kappa_B, mu, x, method, max_inner: int = MAX_INNER) -> Task:
    """The task of one sliding run on the generic ``B`` of condition number ``kappa_B`` (strong convexity ``mu``, ``x``)."""
    return Task(sliding_point, {"kappa_B": float(kappa_B), "mu": float(mu), "x": float(x), "method": method,
                                "max_inner": int(max_inner)},
                label=f"GS[{method}] generic B κ_B={kappa_B:g} μ={mu:g} x={x:g}")


def sweep(tier: Tier, part: str, param: str, control: bool = False) -> tuple[list[float], list[Task]]:
    """The grid of ``param`` and its tasks (the paper's method, or the subgradient control)."""
    g = tier.statements
    mu, acc, method = PARTS[part]
    if control:
        method = "subgradient"
    if param == "kappa_B":
        grid = geomspace(*g.sliding_kappa_B, g.points)
        x = g.sliding_base[acc] if not control else (g.sliding_x_convex if mu == 0 else g.sliding_x_strong)[0]
        return grid, [sliding_task(v, mu, x, method) for v in grid]
    lo, hi = g.sliding_x_convex if mu == 0 else g.sliding_x_strong
    kB = g.sliding_base["kappa_B"]
    if control:  # half a decade at the smallest κ_B: the subgradient method's iterations grow like κ_B x²
        hi, kB = lo * 10 ** CONTROL_DECADES, g.sliding_kappa_B[0]
    grid = geomspace(lo, hi, g.points)
    return grid, [sliding_task(kB, mu, v, method) for v in grid]


def _rule(part: str, oracle: str, param: str) -> Rule:
    return Rule("upper", finding="log" if (part == "strong" and oracle == "B" and param != "kappa_B") else None)


def _control(oracle: str, param: str):
    """The control of a result: ``"subgradient"``, or ``(exponent, rule kind)`` of the wrong claim the gradient
    accuracy results are judged against (the count does not depend on the accuracy)."""
    return (0.0, "absent") if oracle == Oracle.GRAD and param != "kappa_B" else "subgradient"


def _result_check(part: str, oracle: str, param: str, control: bool) -> Check:
    """One result of the module docstring, or its negative control."""
    st = statement(f"S.sliding.{part}.{oracle}")
    ctrl = _control(oracle, param) if control else None
    sub = ctrl == "subgradient"
    rid = f"{st.id}.{param}.upper" if not control else f"control.{st.id}.{param}.{'subgradient' if sub else 'exponent'}"

    def finalize(tier, points):
        grid, ts = sweep(tier, part, param, sub)
        pts = [points[t.key] for t in ts]
        judged, rule = st, _rule(part, oracle, param)
        if control and not sub:
            judged, rule = with_exponent(st, param, ctrl[0]), Rule(ctrl[1])
        method = "subgradient" if sub else PARTS[part][2]
        return [judge_statement(rid, judged, param, grid, pts, rule, tol=tier.statements.slope_tol, control=control,
                                instance={"family": "sliding-hard", "mu": PARTS[part][0], "method": method},
                                extra={"claimed": f"{ctrl[1]} {ctrl[0]:g}"} if control and not sub else None)]

    what = ("the paper's method" if not control else "projected subgradient (must fail)" if sub else
            "judged as if the count did not depend on the accuracy (must fail)")
    return Check(id=rid, family="statements", result_ids=lambda tier: [rid],
                 tasks=lambda tier: sweep(tier, part, param, sub)[1], finalize=finalize,
                 description=f"thm:upper_bound_nonsmooth_affine_constraints part {1 if part == 'convex' else 2}, generic "
                             f"B: {oracle} count vs {param}, {what}")


def checks() -> list[Check]:
    return [_result_check(part, oracle, param, control) for part, (_, acc, _) in PARTS.items()
            for oracle in ("B", Oracle.GRAD) for param in ("kappa_B", acc) for control in (False, True)]
