"""Tolerance boundary controls: every probed tolerance of :mod:`mixbounds.checks.tolerances`, from both sides.

The negative controls of the check families are gross (factors 2–4) and fail at any tolerance,
so a tolerance loosened 100× goes unnoticed.  Here each tolerance with pinned probes gets

* ``tolerance.<module>.<NAME>.tolerates`` (ordinary result, must ``pass``): the comparison that
  uses the tolerance accepts the perturbation ``tolerate`` (just below the designed value);
* ``control.tolerance.<module>.<NAME>.detects`` (negative control, must ``fail``): it rejects the
  perturbation ``detect`` (≈ 10× for rounding tolerances, 2× for slope tolerances).

The probes go through the code that decides the verdicts where it is callable: the lemma
helpers ``approx_le``/``approx_ge`` (``INEQ_RTOL``) and ``approx_eq`` (``EQ_RTOL``); the suite's path Laplacian and
LAPACK's eigenvalues against ``2(1 ± cos(π/n))`` (``PATH_ABS_TOL``); :func:`mixbounds.checks.rates.verdict`
on a synthetic exact power-law sweep (``TOL`` per tier, ``TARGET_RTOL``),
:func:`mixbounds.checks.rates.truncation_check` (``TRUNC_RTOL``) and the lower-bound verdict
:func:`mixbounds.checks.lower.slopes.slope_verdict` on engine points of an exact power law (``lower:TOL`` per tier).  The other tolerances are compared inline in
their checks; their probe is the same comparison (``|a − b| <= tol·|b|``, ``|a − b| <= tol``,
``slope excess <= tol``) at the value in effect.
"""

from __future__ import annotations

import math

from mixbounds.bounds.claims import get
from mixbounds.bounds.concepts import ORACLES, Oracle, ProblemClass
from mixbounds.checks.lemmas import base as lemmas
from mixbounds.checks.lower.slopes import slope_verdict as lower_verdict
from mixbounds.checks.rates import truncation_check, verdict
from mixbounds.checks.run.framework import Check, Task
from mixbounds.checks.run.result import CheckResult
from mixbounds.checks.sweeps import Sweep, geomspace
from mixbounds.checks.tiers import QUICK, Tier, tier_by_name
from mixbounds.checks.tolerances import TOLERANCES, Tolerance
from mixbounds.instances.graphs import laplacian, path_adjacency
from scipy.linalg import eigvalsh_tridiagonal


def _rid(t: Tolerance) -> str:
    return t.where.replace(":", ".").replace("[", ".").replace("]", "")


# ----------------------------------------------------------------------------- probes: True = the check accepts
def _accepts_generic(t: Tolerance, delta: float) -> bool:
    tol = t.in_effect()
    if t.kind == "rel":
        b = 1.0
        return abs((b + delta * b) - b) <= tol * abs(b)
    return abs(delta) <= tol  # abs and slope: the excess itself


def _accepts_ineq(delta: float) -> bool:
    b = 3.0
    return bool(lemmas.approx_le(b * (1 + delta), b)) and bool(lemmas.approx_ge(b * (1 - delta), b))


def _accepts_eq(delta: float) -> bool:
    b = 3.0
    return bool(lemmas.approx_eq(b * (1 + delta), b))


def _accepts_path(delta: float) -> bool:
    n = 40
    Wp = laplacian(path_adjacency(n))
    ev = eigvalsh_tridiagonal(Wp.diagonal(), Wp.diagonal(1))
    c = math.cos(math.pi / n)
    tol = lemmas.PATH_ABS_TOL
    return bool(abs(ev[-1] + delta - 2 * (1 + c)) <= tol and abs(ev[1] + delta - 2 * (1 - c)) <= tol)


def synthetic_sweep(tier: Tier, slope_excess: float = 0.0, target_rel: float = 0.0):
    """A consensus κ_W sweep whose per-accuracy counts follow the formula slope + ``slope_excess`` exactly."""
    cell = get("T1.consensus.comm")
    grid = tuple(geomspace(30.0, 300.0, tier.table1.points))
    sw = Sweep(ProblemClass.CONSENSUS, ProblemClass.CONSENSUS, "kappa_W", {"kappa_f": 100.0, "kappa_W": 100.0}, grid, eps=1e-6)
    theta = cell.exponent("kappa_W")
    pts = []
    for i, v in enumerate(grid):
        real = v * (1 + target_rel) if i == len(grid) - 1 else v
        y = 50.0 * real ** (theta + slope_excess)
        per = {o: (y if o == Oracle.COMM else 0.0) for o in ORACLES}
        cnt = {o: int(round(per[o])) for o in per}
        pts.append((v, {"converged": True, "reason": "tolerance", "iterations": 100, "final_error": 5e-7,
                        "final_error_recomputed": 5e-7, "eps_asked": 1e-6,
                        "realized": {"kappa_W": real, "kappa_f": 100.0}, "counts1": cnt, "counts2": cnt,
                        "per_accuracy": per, "per_iteration": per, "iterations_window": 1.0, "settle": {}, "n": 10,
                        "variables": 10, "chain_length": 100, "solver": {"degrees": {}}}))
    return cell, sw, pts


def _accepts_slope(tier: Tier, delta: float) -> bool:
    cell, sw, pts = synthetic_sweep(tier, slope_excess=delta)
    return verdict(tier, cell, "kappa_W", sw, pts, random=False, rid="probe").status == "pass"


def _accepts_lower(tier: Tier, delta: float) -> bool:
    """The lower-bound verdict (:func:`mixbounds.checks.lower.slopes.slope_verdict`) on engine points whose per-accuracy
    bounds follow the exponent + ``delta`` exactly (large counts: integer rounding is below 10⁻⁴ in the slope)."""
    cell, sw, pts = synthetic_sweep(tier, slope_excess=delta)
    engine = []
    for v, p in pts:
        per = int(round(100.0 * p["per_accuracy"][Oracle.COMM]))
        engine.append((v, {"realized": p["realized"], "n": 10, "chain_length": 100, "variables": 10,
                           "bounds": {Oracle.COMM: {"e0": 1.0, "count1": 10, "count2": 10 + per, "reason": "reached"}}}))
    return lower_verdict(tier, cell, "kappa_W", sw, engine).status == "pass"


def _accepts_target(delta: float) -> bool:
    cell, sw, pts = synthetic_sweep(QUICK, target_rel=delta)
    return verdict(QUICK, cell, "kappa_W", sw, pts, random=False, rid="probe").status == "pass"


def _accepts_trunc(delta: float) -> bool:
    cell, sw, pts = synthetic_sweep(QUICK)
    base = pts[0][1]
    long = dict(base, chain_length=200, per_accuracy={k: v * (1 + delta) for k, v in base["per_accuracy"].items()})
    return truncation_check(QUICK, ProblemClass.CONSENSUS, "kappa_W", sw, base, long).status == "pass"


def _accepts(t: Tolerance, delta: float) -> bool:
    special = {"lemmas:INEQ_RTOL": _accepts_ineq, "lemmas:EQ_RTOL": _accepts_eq, "lemmas:PATH_ABS_TOL": _accepts_path,
               "rates:TARGET_RTOL": _accepts_target, "rates:TRUNC_RTOL": _accepts_trunc}
    if t.where in special:
        return special[t.where](delta)
    if t.where.startswith("rates:TOL["):
        return _accepts_slope(tier_by_name(t.where[len("rates:TOL["):-1]), delta)
    if t.where.startswith("lower:TOL["):
        return _accepts_lower(tier_by_name(t.where[len("lower:TOL["):-1]), delta)
    return _accepts_generic(t, delta)


def probe_all() -> dict:
    """Every probed tolerance: value in effect and whether the check accepts each pinned perturbation."""
    out = {}
    for t in TOLERANCES:
        if t.tolerate is None:
            continue
        out[t.where] = {"in_effect": t.in_effect(), "design": t.design, "tolerate": t.tolerate, "detect": t.detect,
                        "accepts_tolerate": _accepts(t, t.tolerate), "accepts_detect": _accepts(t, t.detect)}
    return out


# ----------------------------------------------------------------------------- check
_TASK = Task(probe_all, {}, label="tolerance boundary probes")


def _probed() -> list[Tolerance]:
    return [t for t in TOLERANCES if t.tolerate is not None]


def _ids(tier) -> list[str]:
    return [f"tolerance.{_rid(t)}.tolerates" for t in _probed()]


def _control_ids(tier) -> list[str]:
    return [f"control.tolerance.{_rid(t)}.detects" for t in _probed()]


def _results(points: dict, control: bool) -> list[CheckResult]:
    p = points[_TASK.key]
    out = []
    for t in _probed():
        rid = f"control.tolerance.{_rid(t)}.detects" if control else f"tolerance.{_rid(t)}.tolerates"
        common = dict(kind="tolerance", tolerance=p.get(t.where, {}).get("in_effect"), label="checks/tolerances.py",
                      control=control, expected="fail" if control else None, instance={"tolerance": t.where})
        if "error" in p or t.where not in p:
            why = p.get("error", f"{t.where} not probed")
            out.append(CheckResult(id=rid, status="fail" if control else "error", detail=why, **common))
            continue
        q = p[t.where]
        if control:
            status = "pass" if q["accepts_detect"] else "fail"
            detail = (f"{t.where} = {q['in_effect']:g} (designed {t.design:g}) "
                      f"{'ACCEPTS' if q['accepts_detect'] else 'rejects'} a perturbation of {t.detect:g}")
            theory = f"rejects {t.detect:g}"
        else:
            status = "pass" if q["accepts_tolerate"] else "fail"
            detail = (f"{t.where} = {q['in_effect']:g} (designed {t.design:g}) "
                      f"{'accepts' if q['accepts_tolerate'] else 'REJECTS'} a perturbation of {t.tolerate:g}")
            theory = f"accepts {t.tolerate:g}"
        out.append(CheckResult(id=rid, status=status, theory=theory, measured=q["in_effect"], points=[q], detail=detail,
                               **common))
    return out


def checks() -> list[Check]:
    return [Check(id="calibration.tolerances", family="selfcheck", result_ids=_ids, tasks=lambda t: [_TASK],
                  finalize=lambda tier, pts: _results(pts, False),
                  description="each probed tolerance accepts a perturbation just below it (checks/tolerances.py)"),
            Check(id="control.calibration.tolerances", family="selfcheck", result_ids=_control_ids,
                  tasks=lambda t: [_TASK], finalize=lambda tier, pts: _results(pts, True),
                  description="each probed tolerance rejects a perturbation ≈10× above it")]
