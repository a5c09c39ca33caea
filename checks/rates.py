"""Upper-bound rate checks: every Table 1 cell × every parameter of its class.

For each problem class, each parameter of its Table 1 row is swept alone (the
others at the base point, :mod:`mixbounds.checks.sweeps`) on

* the class's **worst-case construction** (as printed) — verdict against the claim:
  ``tight``: ``|slope − θ| <= tol`` (θ = the cell's exponent, or for a sum of
  monomials the formula's log-log slope along the realized points);
  ``absent`` (θ = 0): ``|slope| <= tol``;
* one **random family** — ``upper``: ``slope <= θ + tol`` (an upper bound only).

The measured quantity is the per-accuracy cost between ``ε₁`` and ``ε₂`` (rate-based,
see :func:`upper_point`) of the paper's optimal method (``mixbounds.solvers.solve``, APAPC with Chebyshev acceleration) for
the cell's oracle, fitted in log-log against the *realized* swept parameter.
A point whose solver did not converge is an ``error``, never a count.  Every
point also checks realized against target (the family's stated tolerance).

On the worst-case sweeps the same points run through the lower-bound engine
(the very tasks of :mod:`mixbounds.checks.lower.slopes`, shared), which gives two more records per
sweep: ``…consistency.<param>`` (no solver count may be below the engine's bound at
the same ε: ``fail`` otherwise) and, in each upper result's ``extra``, the
tightness ratio (solver / bound, per decade of accuracy) and its slope.
"""

from __future__ import annotations

import math

import numpy as np
from mixbounds.checks.audits.audit_counters import closed_form_mismatch
from mixbounds.checks.lower.slopes import LB_DECADES, best_bound
from mixbounds.checks.lower.slopes import solver_point_task as _lb_task
from mixbounds.checks.run.framework import Check, Task, instance_and_reference
from mixbounds.checks.run.result import CheckResult, with_variant
from mixbounds.checks.run.sweep_point import SweepPoint
from mixbounds.checks.sweeps import (
    ABS_LEVELS,
    CLASS_FAMILIES,
    PARAM_REALIZED,
    UB_EPS1,
    UB_EPS2,
    Sweep,
    cells_of,
    fit_integrity,
    fit_slope,
    formula_slope,
    random_sweeps,
    worst_sweeps,
)
from mixbounds.checks.tiers import Tier
from mixbounds.checks.verdict import band_ok, finite, upper_ok
from mixbounds.checks.verdict_engine import (
    Fit,
    Judgement,
    Selection,
    SweepRules,
    Unjudged,
    consistency,
    integrity_stop,
    judge_sweep,
)
from mixbounds.instances.classes import WORST_FAMILY
from mixbounds.solvers import ORACLES, solve

#: realized vs target for a sweep parameter (the families tune to 1e-6 or better, the worst-case
#: κ̂/κ̃ to about 1e-3 because of the chain truncation)
TARGET_RTOL = 5e-3
#: iteration budget per solver run
MAX_ITER = 200_000
#: stop rule of the rate runs (``mixbounds.solvers.apapc.apapc``'s ``settle``): the run ends once the error has
#: stayed <= ε₂ for the last third of its iterations.  The error oscillates by up to ~3 decades and its zero
#: crossings dip 5 decades below the envelope, so a first-hit stop can end a run at a dip and make the
#: envelope of the cut history look cheaper than it is (README, "A stop at a dip").
SETTLE = 1.0 / 3.0
#: largest relative change of a per-accuracy count when the chain is doubled (truncation check)
TRUNC_RTOL = 0.02

# ----------------------------------------------------------------------------- task
def upper_point(family: str, params: dict, method: str = "apapc", eps1: float = UB_EPS1, eps2: float = UB_EPS2,
                max_iter: int = MAX_ITER) -> dict:
    """Build one instance, solve it exactly and with ``method``; the per-accuracy cost between ``eps1`` and ``eps2``.

    The error ``‖x_k − x*‖²`` of APAPC is not monotone (it contracts a Lyapunov function of
    the primal-dual pair; measured oscillations of 1.5 decades with periods of ~√κ iterations),
    so first-hitting times mostly measure the oscillation's phase.  The per-accuracy cost is
    therefore rate-based: the *envelope* ``E_k = max_{j>=k} e_j`` is fitted (log-linear) over
    the window ``[eps2, eps1]``, giving iterations per window, times the exact per-iteration
    count of each oracle.  The run continues until the error has stayed below ``eps2`` for the
    last :data:`SETTLE` of its iterations, so that the envelope of the recorded history is the
    envelope of the whole run above ``eps2``.  First-hit counts are kept for the lower-bound
    comparison.
    """
    kw = dict(params)
    if family in WORST_FAMILY.values():
        kw.setdefault("eps", eps2)
    inst, ref = instance_and_reference(family, kw)
    res = solve(inst.problem, method=method, eps=eps2, x_star=ref.u, max_iter=max_iter, settle=SETTLE)
    out = {"realized": inst.realized, "targets": inst.targets, "n": inst.problem.n,
           "variables": inst.problem.layout.size, "chain_length": inst.params.get("chain_length"),
           "converged": bool(res.converged), "reason": res.reason, "iterations": int(res.iterations),
           "final_error": res.final_error(), "counts1": res.counts_to(eps1), "counts2": res.counts_to(eps2),
           "counts": res.counts, "solver": {k: res.params[k] for k in ("degrees", "tau", "L_G", "mu_G", "interval") if k in res.params}}
    # convergence guard: the error at the returned x, recomputed here from x and x* (not the solver's flag)
    out["final_error_recomputed"], why = convergence_guard(res, ref.u, eps2)
    out["eps_asked"] = eps2
    mismatch = closed_form_mismatch(res)
    if mismatch:
        out["counter_audit_error"] = mismatch
    if not res.converged:
        return out
    if why:
        out["convergence_error"] = why
        return out
    e = res.history_error
    env = np.maximum.accumulate(e[::-1])[::-1]
    win = np.flatnonzero((env <= eps1) & (env >= eps2))
    hc = res.history_counts
    per_iter = (hc[-1] - hc[0]) / max(res.iterations, 1)
    if win.size < 3:
        out["window_error"] = f"only {win.size} iterations with the envelope in [{eps2:g}, {eps1:g}]"
        return out
    slope = np.polyfit(win, np.log10(env[win]), 1)[0]  # decades per iteration (negative)
    iters_window = math.log10(eps1 / eps2) / abs(slope)
    out.update({
        "per_iteration": {o: float(v) for o, v in zip(ORACLES, per_iter)},
        "iterations_window": float(iters_window),
        "per_accuracy": {o: float(v) * iters_window for o, v in zip(ORACLES, per_iter)},
        "settle": {f"{eps:g}": (int(hit[0]) if (hit := np.flatnonzero(env <= eps)).size else None)
                   for eps in (eps1, eps2)},
    })
    return out


def convergence_guard(res, x_star, eps: float) -> tuple[float, str | None]:
    """The error at ``res.x`` recomputed from ``x*``, and why the run may not be judged when it exceeds ``eps``.

    A run is judged only when it reached the accuracy it was asked for, whatever its ``converged`` flag says.
    """
    err = recomputed_error(res.x, x_star)
    if err <= eps:
        return err, None
    return err, (f"the solver reports {res.reason!r} after {res.iterations} iterations, but the error recomputed "
                 f"from x and x* is {err:.3e} > ε = {eps:g}")


def recomputed_error(x, x_star) -> float:
    """``‖x − x*‖² / ‖x⁰ − x*‖²`` with ``x⁰ = 0`` (the solvers' start), from the returned point itself.

    The accuracy every rate run asks for (``mixbounds.solvers.solve``: relative squared distance on the original
    variables); ``‖x − x*‖²`` when ``x* = 0``.
    """
    x, xs = np.asarray(x, float).ravel(), np.asarray(x_star, float).ravel()
    den = float(xs @ xs)
    num = float((x - xs) @ (x - xs))
    return num / den if den > 0 else num


def _task(sw: Sweep, value: float, method: str = "apapc", budget: int = MAX_ITER, chain_scale: float = 1.0) -> Task:
    params = sw.point_params(value)
    if chain_scale != 1.0:
        params["chain_scale"] = chain_scale
    kw = {"family": sw.family, "params": params, "method": method, "max_iter": budget}
    return Task(upper_point, kw, label=f"UB {sw.family}[{sw.variant or 'printed'}] {sw.param}={value:g} {method}")


# ----------------------------------------------------------------------------- verdicts
#: the fields of a Table 1 sweep point in results.json, in order (:class:`mixbounds.checks.run.sweep_point.SweepPoint`)
POINT_FIELDS = ("target", "realized", "per_accuracy", "count1", "count2", "per_iteration", "iterations_window",
                "iterations", "settle", "n", "chain_length", "variables", "degrees", "realized_all", "target_rel_err")


def screen(param: str):
    """Why a rate point cannot be judged: an exception, the counter audit, the convergence guard, a solver that did
    not converge, or no per-accuracy window (:func:`upper_point`)."""

    def rule(v: float, p: dict) -> Unjudged | None:
        if "error" in p:
            why = p["error"]
        elif "counter_audit_error" in p:
            why = f"counter audit: {p['counter_audit_error']}"
        elif "convergence_error" in p:
            why = f"convergence guard: {p['convergence_error']}"
        elif not p["converged"]:
            why = (f"solver did not converge ({p['reason']}, {p['iterations']} iterations, "
                   f"final error {p['final_error']:.2e})")
        elif "per_accuracy" not in p:
            why = p.get("window_error", "no per-accuracy cost")
        else:
            return None
        return Unjudged(v, f"{param}={v:g}: {why}")

    return rule


def sweep_point(param: str, oracle: str):
    """The :class:`SweepPoint` of one judged rate point for ``oracle`` along ``param``."""

    def row(v: float, p: dict) -> SweepPoint:
        real = p["realized"].get(PARAM_REALIZED[param])
        return SweepPoint(POINT_FIELDS, target=v, realized=real, per_accuracy=p["per_accuracy"][oracle],
                          count1=p["counts1"][oracle], count2=p["counts2"][oracle],
                          per_iteration=p["per_iteration"][oracle], iterations_window=p["iterations_window"],
                          iterations=p["iterations"], settle=p["settle"], n=p["n"], chain_length=p.get("chain_length"),
                          variables=p["variables"], degrees=p["solver"].get("degrees"), realized_all=p["realized"],
                          target_rel_err=abs(real / v - 1) if real else None)

    return row


def verdict(tier: Tier, cell, param: str, sw: Sweep, pts, *, random: bool, theory_shift: float = 0.0,
            control: bool = False, rid: str | None = None, lb_pts=None) -> CheckResult:
    """The slope verdict of one (cell, parameter) sweep (see module docstring), by :func:`judge_sweep`: tight and
    absent cells ``|slope − target| <= tol``, upper-bound cells and random families ``slope <= target + tol``
    (target: the formula's slope along the realized points, plus ``theory_shift``); on the worst-case sweeps the
    tightness ratios against the engine's bound (:func:`tightness_extra`) join ``extra``."""
    theory = cell.exponent(param) + theory_shift
    tol = tier.table1.slope_tol  # |slope − θ| (tight, absent) or slope − θ (upper) allowed
    kind = "upper" if random else ("tight" if theory > 0 else "absent")
    variant = sw.family if random else (None if sw.variant in (None, "printed") else sw.variant)
    if rid is None:
        rid = with_variant(f"{cell.id}.{param}.{kind if not random else ('upper' if cell.exponent(param) > 0 else 'absent')}",
                           variant)
    upper = kind == "upper" or random

    def judge(f: Fit, sel: Selection, _unjudged) -> Judgement:
        rows = sel.rows
        xs, ys = [r.realized for r in rows], [r.per_accuracy for r in rows]
        if min(ys) <= 0:
            fit = {"used": 0, "of": len(sw.grid),
                   "reason": f"no fit: per-accuracy {cell.oracle} counts {ys} contain zeros"}
        else:
            fit = {"used": int(f.raw["n"]), "of": len(sw.grid), "reason": None}
        fslope = theory_shift
        if cell.exponent(param) > 0:
            fslope += formula_slope(cell, param, [r.realized_all for r in rows])
        ok = finite(f.slope) and (upper_ok if upper else band_ok)(f.slope, fslope, tol)
        extra = {"formula_slope": fslope, "exponent": cell.exponent(param), "fit": fit}
        if lb_pts is not None:
            extra.update(tightness_extra(cell, rows, lb_pts))
        shift = f" + {theory_shift:g}" if theory_shift else ""
        detail = (f"slope {f.slope:.3f} (95% CI {f.ci[0]:.3f}..{f.ci[1]:.3f}, R² {f.r2:.3f}) {'<=' if upper else '≈'} "
                  f"{fslope:.3f} ± {tol} [exponent {cell.exponent(param):g}{shift}]; "
                  f"per-accuracy {cell.oracle} counts {ys} at realized {param} {[round(x, 3) for x in xs]}; "
                  f"fit on {fit['used']} of {fit['of']} sweep points"
                  + (f" ({fit['reason']})" if fit["reason"] else ""))
        return Judgement("pass" if ok else "fail", detail, extra)

    rules = SweepRules(screen=screen(param), row=sweep_point(param, cell.oracle), judge=judge, target_rtol=TARGET_RTOL,
                       integrity=integrity_stop(fit_integrity, len(sw.grid)))
    inst = {"family": sw.family, "variant": sw.variant or ("printed" if not random else "default"), "base": sw.base,
            "param": param, "eps": [UB_EPS1, UB_EPS2], "method": "apapc"}
    return judge_sweep(rid, pts, rules, control=control, kind=kind, theory=theory, tolerance=tol, label=cell.source,
                       cell=cell.id, param=param, instance=inst, expected="fail" if control else None, variant=variant)


def tightness_extra(cell, rows: list[SweepPoint], lb_pts) -> dict:
    """Table 1's tightness rule: solver / lower bound, both per decade of accuracy, at each point, and its slope
    (the ``extra`` of a worst-case verdict; the certificates read it)."""
    ratios, xs = [], []
    for r, (v, lp) in zip(rows, lb_pts):
        b = None if "error" in lp else best_bound(lp["bounds"], cell.oracle)[1]
        if not b or b["count1"] is None or b["count2"] is None or b["count2"] - b["count1"] <= 0:
            ratios.append(None)
            continue
        ub = r.per_accuracy / math.log10(UB_EPS1 / UB_EPS2)
        lb = (b["count2"] - b["count1"]) / LB_DECADES
        ratios.append(ub / lb)
        xs.append(r.realized)
    ok = [q for q in ratios if q is not None]
    if len(ok) < 2:
        return {"tightness": ratios, "tightness_slope": None,
                "tightness_note": "no lower bound at (some) points: the construction gives none for this oracle"}
    f = fit_slope(xs, ok)
    return {"tightness": ratios, "tightness_slope": f["slope"], "tightness_ci": f["ci"]}


def _truncation(tier, cls, param, sw, base_pt, long_pt) -> CheckResult:
    """Doubling the chain must not change the per-accuracy counts (common.py's chain rule)."""
    rid = f"T1.{cls}.truncation.{param}"
    common = dict(kind="truncation", theory=f"|Δ| <= {TRUNC_RTOL:g}", tolerance=TRUNC_RTOL, label="docs/design.md: chain dimensions",
                  cell=f"T1.{cls}", param=param, instance={"family": sw.family, "point": sw.grid[0]})
    for p in (base_pt, long_pt):
        if "error" in p or not p.get("converged") or "per_accuracy" not in p or _guarded(p):
            why = p.get("error") or _guarded(p) or p.get("window_error") or f"not converged ({p.get('reason')})"
            return CheckResult(id=rid, status="error", detail=why, **common)
    rows, worst = [], 0.0
    for o in ("grad", "A", "C", "Ct", "comm"):
        a = base_pt["per_accuracy"][o]
        b = long_pt["per_accuracy"][o]
        if a == 0 and b == 0:
            continue
        d = abs(b - a) / max(abs(a), 1)
        worst = max(worst, d)
        rows.append({"oracle": o, "K": base_pt["chain_length"], "per_accuracy": a, "K2": long_pt["chain_length"], "per_accuracy_2K": b,
                     "rel_diff": d})
    status = "pass" if worst <= TRUNC_RTOL else "fail"
    return CheckResult(id=rid, status=status, measured=worst, points=rows,
                       detail=f"chain {base_pt['chain_length']} vs {long_pt['chain_length']}: largest relative change of a "
                              f"per-accuracy count {worst:.3%}", **common)


def _guarded(p: dict) -> str | None:
    """Why a point may not be judged (convergence guard, counter audit), or ``None``."""
    return p.get("convergence_error") or p.get("counter_audit_error")


def _rate_count_at(up: dict, oracle: str, key_eps: str):
    """A rate run's first-hit count of ``oracle`` to a level of :data:`ABS_LEVELS` (it records ε₁ and ε₂)."""
    eps = float(key_eps)
    return up["counts1" if eps == UB_EPS1 else "counts2"].get(oracle) if eps in ABS_LEVELS else None


def _consistency(tier, cls, param, sw, ub_pts, lb_pts) -> CheckResult:
    """No solver count to ε may be below the engine's lower bound to the same ε (:func:`consistency`)."""
    return consistency(f"T1.{cls}.consistency.{param}", param, {"apapc": ub_pts}, lb_pts,
                       judged=lambda up: "error" not in up and bool(up.get("converged")) and not _guarded(up),
                       count_at=_rate_count_at, what="point, oracle, ε", named=False,
                       label="lower-bound engine vs solver",
                       cell=f"T1.{cls}", instance={"family": sw.family, "variant": sw.variant or "printed"})


# ----------------------------------------------------------------------------- checks
def _worst_check(cls: str) -> Check:
    cells = cells_of(cls)

    def result_ids(tier):
        out = []
        for sw in worst_sweeps(tier, cls):
            for c in cells:
                out.append(f"{c.id}.{sw.param}.{'tight' if c.exponent(sw.param) > 0 else 'absent'}")
            out.append(f"T1.{cls}.consistency.{sw.param}")
            out.append(f"T1.{cls}.truncation.{sw.param}")
        return out

    def tasks(tier):
        out = []
        for sw in worst_sweeps(tier, cls):
            for v in sw.grid:
                out += [_task(sw, v), _lb_task(sw, v)]
            out.append(_task(sw, sw.grid[0], chain_scale=2.0))
        return out

    def finalize(tier, points):
        out = []
        for sw in worst_sweeps(tier, cls):
            ub = [(v, points[_task(sw, v).key]) for v in sw.grid]
            lb = [(v, points[_lb_task(sw, v).key]) for v in sw.grid]
            for c in cells:
                out.append(verdict(tier, c, sw.param, sw, ub, random=False, lb_pts=lb))
            out.append(_consistency(tier, cls, sw.param, sw, ub, lb))
            out.append(_truncation(tier, cls, sw.param, sw, ub[0][1], points[_task(sw, sw.grid[0], chain_scale=2.0).key]))
        return out

    return Check(id=f"rates.{cls}.worst", family="rates", result_ids=result_ids, tasks=tasks, finalize=finalize,
                 description=f"APAPC+Chebyshev slopes on the {cls} worst-case construction")


def _random_check(cls: str) -> Check:
    cells = cells_of(cls)

    def result_ids(tier):
        return [f"{c.id}.{sw.param}.{'upper' if c.exponent(sw.param) > 0 else 'absent'}@{sw.family}"
                for sw in random_sweeps(tier, cls) for c in cells]

    def tasks(tier):
        return [_task(sw, v) for sw in random_sweeps(tier, cls) for v in sw.grid]

    def finalize(tier, points):
        out = []
        for sw in random_sweeps(tier, cls):
            ub = [(v, points[_task(sw, v).key]) for v in sw.grid]
            for c in cells:
                out.append(verdict(tier, c, sw.param, sw, ub, random=True))
        return out

    return Check(id=f"rates.{cls}.random", family="rates", result_ids=result_ids, tasks=tasks, finalize=finalize,
                 description=f"APAPC+Chebyshev slopes on the {CLASS_FAMILIES[cls][1]} family")


def checks() -> list[Check]:
    out = []
    for cls, (worst, rnd, _) in CLASS_FAMILIES.items():
        if worst is not None:
            out.append(_worst_check(cls))
        out.append(_random_check(cls))
    return out
