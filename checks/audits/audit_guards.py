"""Negative controls of the two guards every rate verdict passes.

* **Convergence guard** (:func:`mixbounds.checks.rate_measure.convergence_guard`, applied at every rate sweep point):
  a point is judged only when the error at the returned ``x``, recomputed from ``x*``, is within the
  ``ε`` the run asked for.  Control ``control.guard.convergence.stops-a-decade-early``: a run asked
  for ``ε`` that stops at ``10ε`` (APAPC with the looser stopping accuracy) must be refused.
  Ordinary result ``audit.convergence.stop-rule``: the same instance solved to ``ε`` with the
  first-hit stop rule must end with a recomputed error ``<= ε`` (a solver that stops early fails it
  in every run, whether or not a rate sweep happens to run long enough to hide it).
* **Fit integrity** (:func:`mixbounds.checks.sweeps.fit_integrity`, applied by :func:`mixbounds.checks.rates.verdict`):
  a fit uses every point of its sweep and has a finite confidence interval.  Control
  ``control.guard.fit.first-two-points``: the verdict of an exact power-law sweep handed only its
  first two points must not pass.
"""

from __future__ import annotations

from mixbounds.checks.audits.audit_counters import audit_sample
from mixbounds.checks.audits.calibration_tolerances import synthetic_sweep
from mixbounds.checks.rate_measure import MAX_ITER, convergence_guard
from mixbounds.checks.rates import verdict
from mixbounds.checks.run.framework import Check, Task, instance_and_reference
from mixbounds.checks.run.result import CheckResult
from mixbounds.checks.sweeps import UB_EPS2
from mixbounds.solvers import solve

#: the control run stops at this multiple of the accuracy it is judged against (a decade early)
EARLY_FACTOR = 10.0


def early_stop_point(family: str, params: dict) -> dict:
    """APAPC asked for ``UB_EPS2`` and run to it (``honest``), and stopped at ``EARLY_FACTOR·UB_EPS2``
    (``early``, the control); the guard's answer on each."""
    inst, ref = instance_and_reference(family, dict(params))
    out = {}
    for name, eps in (("honest", UB_EPS2), ("early", EARLY_FACTOR * UB_EPS2)):
        res = solve(inst.problem, eps=eps, x_star=ref.u, max_iter=MAX_ITER)
        err, why = convergence_guard(res, ref.u, UB_EPS2)
        out[name] = {"stop_eps": eps, "converged": bool(res.converged), "reason": res.reason,
                     "iterations": int(res.iterations), "solver_final_error": res.final_error(), "recomputed": err,
                     "eps_asked": UB_EPS2, "refused": why}
    return out


def _sample(tier):
    _, fam, prm = audit_sample(tier)[0]
    return fam, prm


def _early_task(tier) -> Task:
    fam, prm = _sample(tier)
    return Task(early_stop_point, {"family": fam, "params": prm}, label="guard control: stops a decade early")


def _convergence_control(tier, points) -> CheckResult:
    rid = "control.guard.convergence.stops-a-decade-early"
    p = points[_early_task(tier).key]
    common = dict(kind="guard", control=True, expected="fail", label="checks/rates.py: convergence guard",
                  theory="refused: recomputed error > ε asked")
    if "error" in p:
        return CheckResult(id=rid, status="fail", detail=p["error"], **common)
    p = p["early"]
    st = "fail" if p["refused"] else "pass"
    detail = (f"run stopped at ε = {p['stop_eps']:g} ({p['reason']}, {p['iterations']} iterations), "
              f"recomputed error {p['recomputed']:.3e} vs ε asked {p['eps_asked']:g}: "
              + ("refused" if p["refused"] else "NOT refused"))
    return CheckResult(id=rid, status=st, measured=p["recomputed"], points=[p], detail=detail, **common)


def _stop_rule(tier, points) -> CheckResult:
    rid = "audit.convergence.stop-rule"
    p = points[_early_task(tier).key]
    common = dict(kind="audit", label="checks/rates.py: convergence guard", theory="recomputed error <= ε asked")
    if "error" in p:
        return CheckResult(id=rid, status="error", detail=p["error"], **common)
    p = p["honest"]
    ok = p["converged"] and not p["refused"]
    detail = (f"APAPC to ε = {p['eps_asked']:g}: {p['reason']} after {p['iterations']} iterations, error recomputed "
              f"from x and x* {p['recomputed']:.3e} (solver's {p['solver_final_error']:.3e})"
              + ("" if ok else f"; {p['refused']}"))
    return CheckResult(id=rid, status="pass" if ok else "error", measured=p["recomputed"], points=[p], detail=detail,
                       tolerance=p["eps_asked"], **common)


def _fit_control(tier) -> CheckResult:
    rid = "control.guard.fit.first-two-points"
    cell, sw, pts = synthetic_sweep(tier)
    r = verdict(tier, cell, "kappa_W", sw, pts[:2], random=False, rid=rid, control=True)
    full = verdict(tier, cell, "kappa_W", sw, pts, random=False, rid=rid)
    return CheckResult(id=rid, kind="guard", status="fail" if r.status != "pass" else "pass", control=True,
                       expected="fail", label="checks/sweeps.py: fit integrity",
                       theory="a fit on 2 of the sweep's points is not a verdict", measured=r.measured,
                       detail=f"on 2 of {len(sw.grid)} points: {r.status} ({r.detail[:200]}); on all {len(sw.grid)}: "
                              f"{full.status}")


def checks() -> list[Check]:
    ids = ["control.guard.convergence.stops-a-decade-early", "control.guard.fit.first-two-points"]
    return [Check(id="audit.convergence", family="selfcheck", result_ids=lambda t: ["audit.convergence.stop-rule"],
                  tasks=lambda t: [_early_task(t)], finalize=lambda tier, pts: [_stop_rule(tier, pts)],
                  description="a run asked for ε ends with an error <= ε, recomputed from x and x*"),
            Check(id="control.guard", family="selfcheck", result_ids=lambda t: ids, tasks=lambda t: [_early_task(t)],
                  finalize=lambda tier, pts: [_convergence_control(tier, pts), _fit_control(tier)],
                  description="the convergence guard and the fit-integrity rule must refuse what they exist to refuse")]
