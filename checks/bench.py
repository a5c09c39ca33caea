"""Benchmarks: the baselines (:mod:`mixbounds.solvers.baselines`) and the optimal method on the same points.

For every problem class, every parameter of its Table 1 row is swept alone (the others at
the base point) on the class's **worst-case construction** (as printed) and on its
**random family**; at every point each method that applies to the class runs through the
same counted oracles (the paper's APAPC + Chebyshev ``apapc`` for reference, every
baseline of :data:`mixbounds.solvers.baselines.BASELINES` for the class).  The measured quantity is
the rate-based per-accuracy cost between ``ε₁`` and ``ε₂`` of :func:`mixbounds.checks.rates.upper_point`:
the error envelope ``E_k = max_{j>=k} e_j`` is fitted log-linearly over ``[ε₂, ε₁]``, giving
iterations per window, times the mean per-iteration count of each oracle over that window
(constant for APAPC, variable for the methods with inner solvers).  Slopes are fitted in
log-log against the realized swept parameter (:func:`mixbounds.checks.sweeps.fit_slope`, 95% CI).

Results (kind ``bench``)
------------------------
``bench.<class>.<method>.<oracle>.<param>`` (worst-case family) and
``bench.<class>.<method>.<oracle>.<param>@<random family>``: the fitted slope, reported and
**not judged** against the optimal rate.  Status:

* ``pass`` — the method converged and was measured at >= 2 points of the sweep;
* ``skipped`` — fewer than 2 measured points because runs hit the tier's budget (iterations
  and calls of one oracle, ``BenchSweeps``); a budget is not a failure, it is reported with the
  iterations and calls reached;
* ``error`` — the method failed where its paper says it converges (``diverged``,
  ``non-finite``, an exception, or no per-accuracy window); the detail says which, so that a
  reader can tell a bug (exception) from a finding (a parameter rule outside the method's
  stability region).

``bench.<class>.consistency.<param>`` (worst-case sweeps): every method's first-hit count
of each oracle to each error level at which the engine recorded a bound
(:data:`mixbounds.checks.sweeps.ABS_LEVELS`; every run records its hits at :data:`HIT_LEVELS`, a superset)
must be >= the lower-bound engine's count at the same level on the same instance (the tasks of
:mod:`mixbounds.checks.lower.slopes`, shared); ``fail`` if any method goes below.

Tiers (points per sweep, κ range, accuracies, budget) are the tiers' :class:`~mixbounds.checks.tiers.BenchSweeps`;
the benchmarks have sweeps in the tiny and full tiers only (:data:`BENCH_TIERS`; the reason is at the quick tier).
They measure no claim of the paper: their checks are opt-in (``mixbounds verify`` runs them only when ``--claims``
names them, ``mixbounds bench`` without ``--method`` runs them alone), and a run that ends at its budget is kept as a
right-censored count (``extra["censored"]``, :func:`censored_counts`).
"""

from __future__ import annotations

import math

import numpy as np
from mixbounds.bounds.guards import SCALE_FLOOR
from mixbounds.checks.lower.slopes import solver_point_task as _lb_task
from mixbounds.checks.rate_measure import SETTLE
from mixbounds.checks.run.framework import Check, Task, instance_and_reference
from mixbounds.checks.run.result import CheckResult, with_variant
from mixbounds.checks.run.sweep_point import SweepPoint
from mixbounds.checks.sweeps import ABS_LEVELS, CLASS_FAMILIES, PARAM_KW, PARAM_REALIZED, Sweep, cells_of, geomspace
from mixbounds.checks.tiers import TIERS, Tier
from mixbounds.checks.verdict_engine import (
    Fit,
    Judgement,
    Selection,
    Stop,
    SweepRules,
    Unjudged,
    consistency,
    judge_sweep,
)
from mixbounds.instances.classes import CLASSES as PROBLEM_CLASSES
from mixbounds.instances.classes import WORST_FAMILY
from mixbounds.solvers import ORACLES, solve
from mixbounds.solvers.baselines import BASELINES, baselines_for

#: classes benchmarked (those with a worst-case construction) and their worst-case families (mixbounds.instances.classes)
WORST = WORST_FAMILY
CLASSES = tuple(WORST)
#: oracles each class uses
ORACLES_OF = {name: PROBLEM_CLASSES[name].oracles for name in CLASSES}

#: the tiers that run the benchmarks (those with a :class:`~mixbounds.checks.tiers.BenchSweeps`; not the default
#: quick tier, see there).  Their sweeps: points, the range (lo, hi) of every κ, the base value of the others, the
#: accuracies (ε₁, ε₂) of the per-accuracy window, the stopping accuracy (<= min(ABS_LEVELS) so that the
#: lower-bound comparison covers every level), the iteration budget of every run and the call budget of the
#: baselines (a baseline's run stops once some oracle has been called that many times).  A point that hits a
#: budget is left out of its fit and listed (status ``skipped`` below two measured points): a baseline's slope is
#: measured where it converges.
BENCH_TIERS = tuple(t for t in TIERS if t.bench is not None)
#: the C&L and mixed worst-case constructions need κ̃_AC > 9, so the κ̃_AC base value is 30 (as in
#: mixbounds.checks.sweeps.WORST_BASE); their κ̃_AC sweeps start at 12 (``BenchSweeps.range_override``)
BASE_OVERRIDE = {"kappa_AC": 30.0}
#: error levels at which every run records its first-hit counts (the engine's levels are among them)
HIT_LEVELS = tuple(sorted(set(ABS_LEVELS) | {10.0 ** -k for k in range(1, 13)}, reverse=True))


def methods_for(cls: str) -> list[str]:
    """``"apapc"`` (reference) and every baseline that applies to ``cls``."""
    return ["apapc"] + baselines_for(cls)


def sweeps(tier: Tier, cls: str, kind: str) -> list[Sweep]:
    """One sweep per parameter of the class on the worst-case (``kind="worst"``) or random family."""
    t = tier.bench
    fam = WORST[cls] if kind == "worst" else CLASS_FAMILIES[cls][1]
    params = CLASS_FAMILIES[cls][2]
    over = dict(BASE_OVERRIDE, **(t.random_base_override if kind == "random" else {}))
    base = {PARAM_KW[p]: over.get(p, t.base) for p in params}
    extra = {"eps": t.eps[1]} if kind == "worst" else {"seed": 0}
    out = []
    for p in params:
        lo, hi = t.range_override.get(p, t.range)
        out.append(Sweep(cls, fam, p, base, tuple(geomspace(lo, hi, t.points)), eps=t.eps[1], extra=extra))
    return out


# ----------------------------------------------------------------------------- task
def bench_point(family: str, params: dict, method: str, eps1: float, eps2: float, stop: float, max_iter: int,
                max_calls: int | None = None) -> dict:
    """Build one instance, solve it exactly and with ``method``; counts and the per-accuracy cost.

    ``method``: ``"apapc"`` (:func:`mixbounds.solvers.solve`) or a key of :data:`mixbounds.solvers.baselines.BASELINES`.
    The run stops once the relative squared error has reached ``stop`` and has stayed ``<= eps2``
    for the last :data:`mixbounds.checks.rate_measure.SETTLE` of the iterations (the envelope of the recorded
    history above ``eps2`` is then that of the whole run) or at the budget (``max_iter`` iterations,
    ``max_calls`` calls of one oracle); first-hit counts at ``eps1``, ``eps2``
    and at every level of :data:`mixbounds.checks.sweeps.ABS_LEVELS` are recorded.
    """
    try:
        inst, ref = instance_and_reference(family, params)
    except ValueError as exc:  # the point itself is impossible: not the method's failure
        return {"instance_error": f"{family}{params}: {exc}"}
    P = inst.problem
    if method == "apapc":
        res = solve(P, method="apapc", eps=stop, x_star=ref.u, max_iter=max_iter, settle=SETTLE, settle_eps=eps2,
                    max_calls=max_calls)
    else:
        fn, classes, _ = BASELINES[method]
        if P.problem_class not in classes:
            raise ValueError(f"{method} does not apply to class {P.problem_class}")
        res = fn(P, eps=stop, x_star=ref.u, max_iter=max_iter, settle=SETTLE, settle_eps=eps2, max_calls=max_calls)
    out = {"realized": inst.realized, "targets": inst.targets, "n": P.n, "variables": P.layout.size,
           "method": method, "converged": bool(res.converged), "reason": res.reason, "iterations": int(res.iterations),
           "final_error": res.final_error(), "counts": res.counts,
           "counts1": res.counts_to(eps1), "counts2": res.counts_to(eps2),
           "abs": {f"{e:g}": res.counts_to(e) for e in HIT_LEVELS},
           "params": {k: v for k, v in res.params.items() if isinstance(v, (int, float, str)) or k == "inner"}}
    out.update(per_accuracy(res, eps1, eps2))
    return out


def per_accuracy(res, eps1: float, eps2: float) -> dict:
    """The rate-based per-accuracy cost of a run between ``eps1`` and ``eps2`` (module docstring).

    Returns ``{"per_iteration", "iterations_window", "per_accuracy"}`` (per oracle), or ``{"window_error": why}``
    when the error envelope does not cover the window with >= 3 iterations or does not decrease over it.
    Shared by the benchmarks and the user's methods (:mod:`mixbounds.bench_method`).
    """
    e = res.history_error
    hc = res.history_counts
    env = np.maximum.accumulate(e[::-1])[::-1]
    win = np.flatnonzero((env <= eps1) & (env >= eps2))
    if win.size < 3:
        return {"window_error": (f"only {win.size} iterations with the error envelope in [{eps2:g}, {eps1:g}]"
                                 + ("" if res.converged else f" (run stopped: {res.reason})"))}
    slope = np.polyfit(win, np.log10(np.maximum(env[win], SCALE_FLOOR)), 1)[0]
    if not slope < 0:
        return {"window_error": f"error envelope not decreasing over the window (slope {slope:g} decades/iteration)"}
    iters_window = math.log10(eps1 / eps2) / abs(slope)
    a, b = int(win[0]), int(win[-1])
    per_iter = (hc[b] - hc[a]) / max(b - a, 1) if b > a else (hc[-1] - hc[0]) / max(res.iterations, 1)
    return {
        "per_iteration": {o: float(v) for o, v in zip(ORACLES, per_iter)},
        "iterations_window": float(iters_window),
        "per_accuracy": {o: float(v) * iters_window for o, v in zip(ORACLES, per_iter)},
    }


def _call_budget(tier: Tier, method: str) -> int | None:
    """The call budget of ``method``'s runs in ``tier`` (``BenchSweeps.calls``: baselines only, not the reference)."""
    return None if method == "apapc" else tier.bench.calls


def _task(tier: Tier, sw: Sweep, value: float, method: str) -> Task:
    t = tier.bench
    kw = {"family": sw.family, "params": sw.point_params(value), "method": method, "eps1": t.eps[0],
          "eps2": t.eps[1], "stop": min(t.stop, min(ABS_LEVELS)), "max_iter": t.budget}
    if _call_budget(tier, method) is not None:  # keyword only when set: tiny-tier task keys unchanged
        kw["max_calls"] = _call_budget(tier, method)
    return Task(bench_point, kw, label=f"BENCH {sw.family} {sw.param}={value:g} {method}")


# ----------------------------------------------------------------------------- verdicts
def _rid(cls: str, method: str, oracle: str, param: str, sw: Sweep, kind: str) -> str:
    return with_variant(f"bench.{cls}.{method}.{oracle}.{param}", _variant(sw, kind))


def _variant(sw: Sweep, kind: str) -> str | None:
    """The series of a benchmark result: the random family, or ``None`` on the worst-case construction."""
    return None if kind == "worst" else sw.family


def _optimal_exponent(cls: str, oracle: str, param: str):
    for c in cells_of(cls):
        if c.oracle == oracle:
            return c.exponent(param)
    return None


#: the fields of a benchmark sweep point in results.json, in order (:class:`mixbounds.checks.run.sweep_point.SweepPoint`)
POINT_FIELDS = ("target", "realized", "per_accuracy", "per_iteration", "iterations_window", "iterations", "count1",
                "count2", "n", "variables")


def screen(param: str):
    """Why a benchmark point is not measured: an exception (``error``), an instance that could not be built
    (``instance``), a run stopped at the tier's budget (``budget``), a run that failed otherwise or has no
    per-accuracy window (``error``)."""

    def rule(v: float, p: dict) -> Unjudged | None:
        if "error" in p:
            return Unjudged(v, f"{param}={v:g}: exception {p['error']}")
        if "instance_error" in p:
            return Unjudged(v, f"{param}={v:g}: {p['instance_error']}", "instance")
        if not p["converged"]:
            most = max(p["counts"], key=p["counts"].get) if p.get("counts") else None
            calls = f", {p['counts'][most]} {most} calls" if most else ""
            msg = (f"{param}={v:g}: {p['reason']} after {p['iterations']} iterations{calls} "
                   f"(final error {p['final_error']:.2e})")
            # a budget-limited run is not measured even if its window was covered
            return Unjudged(v, msg, "budget" if p["reason"] == "budget" else "error")
        if "per_accuracy" not in p:
            return Unjudged(v, f"{param}={v:g}: {p.get('window_error', 'no per-accuracy cost')}")
        return None

    return rule


def sweep_point(param: str, oracle: str):
    """The :class:`SweepPoint` of one measured benchmark point for ``oracle`` along ``param``."""

    def row(v: float, p: dict) -> SweepPoint:
        return SweepPoint(POINT_FIELDS, target=v, realized=p["realized"].get(PARAM_REALIZED[param]),
                          per_accuracy=p["per_accuracy"][oracle], per_iteration=p["per_iteration"][oracle],
                          iterations_window=p["iterations_window"], iterations=p["iterations"],
                          count1=(p["counts1"] or {}).get(oracle), count2=(p["counts2"] or {}).get(oracle),
                          n=p["n"], variables=p["variables"])

    return row


def measured_or_skipped(tier: Tier, method: str, calls):
    """The benchmarks' rule for unmeasured points: an instance that could not be built, or a method that failed
    where its paper says it converges, is ``error`` (the detail tells a bug, an exception, from a finding); budget
    points are left out (listed in ``extra["budget_points"]``), and fewer than two measured points is ``skipped``
    (a budget is not a failure)."""
    t = tier.bench

    def rule(unjudged: list[Unjudged], rows: list) -> Stop | None:
        inst_errs = [u.why for u in unjudged if u.kind == "instance"]
        fails = [u.why for u in unjudged if u.kind == "error"]
        budget = [u.why for u in unjudged if u.kind == "budget"]
        extra = {"budget_points": budget}
        if inst_errs:
            return Stop("error", "instance could not be built (not the method's failure): " + "; ".join(inst_errs),
                        extra=extra)
        if fails:
            what = "bug" if any("exception" in f for f in fails) else "finding"
            return Stop("error", f"{method} failed where its paper says it converges ({what}): " + "; ".join(fails)
                        + ("; budget: " + "; ".join(budget) if budget else ""), extra=extra)
        if len(rows) < 2:
            return Stop("skipped", f"not measurable in tier {tier}: budget ({t.budget} iterations"
                                   + (f" or {calls} calls of one oracle" if calls else "") + ") exhausted — "
                                   + "; ".join(budget), extra=extra)
        return None

    return rule


def censored_counts(param: str, oracle: str, pts) -> list[dict]:
    """The points of a sweep whose run stopped at the tier's budget, as right-censored counts: the ``oracle`` calls
    and iterations reached when it stopped, which the count to ε₂ exceeds (``count2`` when the run got there)."""
    out = []
    for v, p in pts:
        if isinstance(p, dict) and p.get("reason") == "budget" and not p.get("converged", True):
            out.append({"target": v, "realized": (p.get("realized") or {}).get(PARAM_REALIZED[param]),
                        "iterations": p.get("iterations"), "calls_at_stop": (p.get("counts") or {}).get(oracle),
                        "count2": (p.get("counts2") or {}).get(oracle), "final_error": p.get("final_error"),
                        "censored": "count to ε₂ >= calls_at_stop"})
    return out


def _slope_result(tier, cls, method, oracle, param, sw, kind, pts) -> CheckResult:
    """A method's slope on one sweep, reported and not judged (``pass`` once measured), by :func:`judge_sweep`;
    the points that ended at the budget are in ``extra["censored"]`` (:func:`censored_counts`)."""
    t = tier.bench
    opt = _optimal_exponent(cls, oracle, param)

    def judge(f: Fit, sel: Selection, unjudged) -> Judgement:
        xs, ys = [r.realized for r in sel.rows], [r.per_accuracy for r in sel.rows]
        budget = [u.why for u in unjudged if u.kind == "budget"]
        note = f" ({len(budget)} budget point(s) left out: {'; '.join(budget)})" if budget else ""
        detail = (f"{method}: {oracle} per-accuracy slope {f.slope:.3f} (95% CI {f.ci[0]:.3f}..{f.ci[1]:.3f}, "
                  f"R² {f.r2:.3f}) in realized {param} over {len(sel.rows)} points; optimal method's exponent "
                  f"{opt if opt is not None else 'n/a'} (not judged); counts {[round(y, 1) for y in ys]} at "
                  f"{[round(x, 3) for x in xs]}{note}")
        return Judgement("pass", detail, {"budget_points": budget})

    inst = {"family": sw.family, "kind": kind, "base": sw.base, "param": param, "eps": list(t.eps),
            "stop": t.stop, "budget": t.budget, "calls": _call_budget(tier, method), "method": method}
    rules = SweepRules(screen=screen(param), row=sweep_point(param, oracle), judge=judge,
                       unjudged=measured_or_skipped(tier, method, inst["calls"]))
    censored = censored_counts(param, oracle, pts)
    return judge_sweep(_rid(cls, method, oracle, param, sw, kind), pts, rules, kind="bench", theory=None,
                       extra={"method": method, "optimal_exponent": opt, **({"censored": censored} if censored else {})},
                       label="Table 1 (reference only, not judged)", cell=f"T1.{cls}.{oracle}", param=param,
                       instance=inst, variant=_variant(sw, kind))


def _consistency(tier, cls, param, sw, method_pts: dict, lb_pts) -> CheckResult:
    """No method's count to ε may be below the engine's lower bound to the same ε (:func:`consistency`)."""
    return consistency(f"bench.{cls}.consistency.{param}", param, method_pts, lb_pts,
                       judged=lambda up: "error" not in up and "instance_error" not in up,
                       count_at=lambda up, o, key_eps: ((up.get("abs") or {}).get(key_eps) or {}).get(o),
                       what="method, point, oracle, ε", named=True,
                       label="lower-bound engine vs every benchmarked method", cell=f"T1.{cls}",
                       instance={"family": sw.family, "methods": sorted(method_pts)})


# ----------------------------------------------------------------------------- checks
def _check(cls: str, kind: str) -> Check:
    def result_ids(tier):
        out = []
        for sw in sweeps(tier, cls, kind):
            for m in methods_for(cls):
                for o in ORACLES_OF[cls]:
                    out.append(_rid(cls, m, o, sw.param, sw, kind))
            if kind == "worst":
                out.append(f"bench.{cls}.consistency.{sw.param}")
        return out

    def tasks(tier):
        out = []
        for sw in sweeps(tier, cls, kind):
            for v in sw.grid:
                out += [_task(tier, sw, v, m) for m in methods_for(cls)]
                if kind == "worst":
                    out.append(_lb_task(sw, v))
        return out

    def finalize(tier, points):
        out = []
        for sw in sweeps(tier, cls, kind):
            per_method = {m: [(v, points[_task(tier, sw, v, m).key]) for v in sw.grid] for m in methods_for(cls)}
            for m, pts in per_method.items():
                for o in ORACLES_OF[cls]:
                    out.append(_slope_result(tier, cls, m, o, sw.param, sw, kind, pts))
            if kind == "worst":
                lb = [(v, points[_lb_task(sw, v).key]) for v in sw.grid]
                out.append(_consistency(tier, cls, sw.param, sw, per_method, lb))
        return out

    fam = WORST[cls] if kind == "worst" else CLASS_FAMILIES[cls][1]
    return Check(id=f"bench.{cls}.{kind}", family="bench", result_ids=result_ids, tasks=tasks, finalize=finalize,
                 description=f"baselines vs APAPC on the {fam} family ({cls})", tiers=BENCH_TIERS, opt_in=True)


def checks() -> list[Check]:
    return [_check(cls, kind) for cls in CLASSES for kind in ("worst", "random")]
