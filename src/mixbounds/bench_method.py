"""``mixbounds bench``: a user's method (:mod:`mixbounds.methods`) against the paper's lower bounds.

For each chosen problem class, every parameter of its Table 1 row is swept alone over the sweeps of the
Table 1 checks (:func:`mixbounds.checks.sweeps.worst_sweeps` on the worst-case construction as printed,
:func:`mixbounds.checks.sweeps.random_sweeps` on the random family).  At every point three tasks run on one shared
instance (:mod:`mixbounds.checks.run.framework`): the user's method (:func:`method_point`), the paper's method APAPC with
Chebyshev acceleration (:func:`mixbounds.checks.rates.upper_point`, for the figures) and, on the worst-case
construction, the lower-bound engine (:func:`mixbounds.checks.lower.slopes.lower_point`, the tasks of the Table 1 checks).

The measured quantity is the rate-based per-accuracy cost between ``ε₁ = 1e-2`` and ``ε₂ = 1e-6``
(:func:`mixbounds.checks.bench.per_accuracy`, as for the suite's own solvers), fitted in log-log against the realized
swept parameter (:func:`mixbounds.checks.sweeps.fit_slope`, 95% CI).  Verdict per class × family × oracle × parameter
(:func:`judge`), with tolerance the tier's Table 1 slope tolerance (``Tier.table1.slope_tol``, as :mod:`mixbounds.checks.rates`):

* ``below-lower-bound``: at some point the method reached an error level ``ε`` (1e-2 or 1e-6) with fewer
  rounds of the oracle than the engine's bound for every method of the class (Definition ``def:foda``) on the
  same instance: impossible in the class — the method bypasses the counters or leaves the class;
* ``suboptimal``: slope > reference + tol (the method loses in that parameter; the measured exponent is given);
* ``optimal``: slope <= reference + tol;
* ``error``: a point failed (exception, wrong shape, non-finite, diverged, budget, no per-accuracy window).

The reference slope is the engine's lower-bound slope where the engine certifies the paper's exponent on
the printed construction (its Table 1 verdict ``pass``), otherwise the paper's exponent (the log-log slope of
the cell's formula along the realized points; on a random family the paper's bound is an upper bound only).
"""

from __future__ import annotations

import math
import os
import sys
from dataclasses import dataclass

from mixbounds.checks.bench import ORACLES_OF, per_accuracy
from mixbounds.checks.lower.slopes import LB_DECADES, _verdict, solver_point_task
from mixbounds.checks.rate_measure import MAX_ITER, SETTLE
from mixbounds.checks.rates import _task as apapc_task
from mixbounds.checks.run.framework import Check, Task, instance_and_reference, run_checks
from mixbounds.checks.sweeps import (
    ABS_LEVELS,
    PARAM_REALIZED,
    UB_EPS1,
    UB_EPS2,
    WORST_EPS,
    WORST_FAMILY,
    Sweep,
    cells_of,
    fit_slope,
    formula_slope,
    random_sweeps,
    worst_sweeps,
)
from mixbounds.checks.tiers import Tier, as_tier
from mixbounds.instances.fingerprint import changed_parts, data_fingerprint
from mixbounds.isolation import METHOD_TIMEOUT_S, call_isolated
from mixbounds.methods import METHOD_CLASSES, resolve, run_method

VERDICTS = ("optimal", "suboptimal", "below-lower-bound", "error")
#: what the counts of a bench result include (``counts_basis`` of every result; the report says it too)
COUNTS_BASIS = {
    "per_accuracy": "rounds between the errors 1e-2 and 1e-6 (a difference: set-up not included)",
    "abs": "rounds from the start to each error level (set-up included: everything the method did through its "
           "oracles, constants estimation too; the below-lower-bound test uses these)",
    "apapc_setup_counts": "rounds APAPC spent estimating constants, summed over the sweep (lemma constants: 0); "
                          "its right-hand side is in its counts",
}
#: methods passed as Python objects (``mixbounds.testing``) run in this process under a ``local:`` key
_LOCAL: dict[str, object] = {}


@dataclass(frozen=True)
class Plan:
    """One sweep to measure: class, ``kind`` (``worst`` or ``random``) and the :class:`Sweep`."""

    cls: str
    kind: str
    sweep: Sweep


def plans(tier: Tier | str, classes, params=None, kinds=("worst", "random")) -> list[Plan]:
    """The Table 1 sweeps of ``classes`` in ``tier`` (a tier or its name; optionally only ``params`` and ``kinds``)."""
    tier = as_tier(tier)
    out = []
    for cls in classes:
        sws = ([("worst", s) for s in worst_sweeps(tier, cls)] if "worst" in kinds else [])
        sws += [("random", s) for s in random_sweeps(tier, cls)] if "random" in kinds else []
        out += [Plan(cls, k, s) for k, s in sws if params is None or s.param in params]
    return out


# ----------------------------------------------------------------------------- the method's task
def method_point(family: str, params: dict, method: str, eps1: float, eps2: float, max_iter: int,
                 path: str | None = None, timeout: float = METHOD_TIMEOUT_S) -> dict:
    """Build one instance and its exact solution; run the user's ``method`` (a spec) on it in a process of its own
    (:func:`mixbounds.isolation.call_isolated`, at most ``timeout`` seconds); counts and per-accuracy cost.

    The instance and its solution are the ones the group's other tasks (APAPC, the lower-bound engine) use: the
    method's process works on a copy, so nothing it does can change their references.  A method that fails in a
    way no exception shows — a hang, ``sys.exit``, an import-time exit, a crash, an instance changed in place —
    gives ``{"method_error": reason}``.
    """
    try:
        inst, ref = instance_and_reference(family, params)
    except ValueError as exc:
        return {"instance_error": f"{family}{params}: {exc}"}
    out = call_isolated(lambda: _run_in_child(method, path, inst.problem, ref.u, eps1, eps2, max_iter), timeout,
                        limit_name="wall-clock limit per point, --method-timeout")
    if not out.ok:
        return {"method_error": out.reason, "seconds_in_method": out.seconds}
    return {"realized": inst.realized, **out.value}


def _run_in_child(method: str, path: str | None, problem, u_star, eps1: float, eps2: float, max_iter: int) -> dict:
    """The method's side of :func:`method_point` (in the child process): resolve, run, measure."""
    if path and path not in sys.path:  # the module is resolved from the caller's directory
        sys.path.insert(0, path)
    fn = _LOCAL[method] if method.startswith("local:") else resolve(method, add_cwd=False)
    before = data_fingerprint(problem)
    res = run_method(fn, problem, u_star, eps=eps2, settle=SETTLE, settle_eps=eps2, max_iter=max_iter, name=method)
    changed = changed_parts(before, data_fingerprint(problem))
    if changed:
        return {"method_error": f"changed the instance's data in place ({', '.join(changed)}): its counts are not "
                                f"counts on this instance"}
    out = {"n": problem.n, "variables": problem.layout.size,
           "converged": bool(res.converged), "reason": res.reason, "iterations": int(res.iterations),
           "final_error": res.final_error(), "counts": res.counts, "setup_counts": res.setup_counts or None,
           "abs": {f"{e:g}": res.counts_to(e) for e in ABS_LEVELS}}
    if res.converged:
        out.update(per_accuracy(res, eps1, eps2))
    return out


def method_task(spec: str, sw: Sweep, value: float, max_iter: int = MAX_ITER,
                timeout: float = METHOD_TIMEOUT_S) -> Task:
    params = sw.point_params(value)
    if sw.family in WORST_FAMILY.values():
        params.setdefault("eps", WORST_EPS)  # the instance of the Table 1 sweep point (mixbounds.checks.rates.upper_point)
    kw = {"family": sw.family, "params": params, "method": spec, "eps1": UB_EPS1, "eps2": UB_EPS2,
          "max_iter": max_iter, "path": os.getcwd(), "timeout": timeout}
    return Task(method_point, kw, label=f"METHOD {sw.family} {sw.param}={value:g}")


def _tasks(spec: str, plan: Plan, *, apapc: bool, max_iter: int, timeout: float) -> dict:
    sw = plan.sweep
    out = {"method": [method_task(spec, sw, v, max_iter, timeout) for v in sw.grid]}
    if apapc:
        out["apapc"] = [apapc_task(sw, v) for v in sw.grid]
    if plan.kind == "worst":
        out["lower"] = [solver_point_task(sw, v) for v in sw.grid]
    return out


# ----------------------------------------------------------------------------- running
def measure_plans(spec, plan_list: list[Plan], tier: Tier | str, *, jobs: int = 1, apapc: bool = True,
                  max_iter: int = MAX_ITER, progress=None, executor=None,
                  timeout: float = METHOD_TIMEOUT_S) -> tuple[list[dict], dict]:
    """Run the tasks of every plan (``spec``: ``MODULE:FUNCTION``, an entry point name, or a callable) and judge.

    ``timeout``: wall-clock seconds the method may take per point (:func:`method_point`).

    ``executor``: as for :func:`mixbounds.checks.run.framework.run_checks` (e.g. :class:`mixbounds.checks.run.executors.DaskExecutor`); a
    callable ``spec`` lives in this process only, so it cannot be given one (``ValueError``).
    """
    tier = as_tier(tier)
    if callable(spec):
        if executor is not None:
            raise ValueError("measure_plans: a method passed as a Python object runs in this process; "
                             "give MODULE:FUNCTION to run it on a cluster")
        key = f"local:{id(spec)}"
        _LOCAL[key] = spec
        spec, jobs = key, 1  # a Python object cannot cross a process boundary by name
    per_plan = [_tasks(spec, p, apapc=apapc, max_iter=max_iter, timeout=timeout) for p in plan_list]
    every = [t for tp in per_plan for ts in tp.values() for t in ts]
    captured: dict = {}
    check = Check(id="bench.method", family="bench-method", result_ids=lambda t: [], tasks=lambda t: every,
                  finalize=lambda t, pts: captured.update(pts) or [])
    _, stats = run_checks([check], tier, jobs=jobs, cache_dir=None, progress=progress, executor=executor)
    results = []
    for plan, tp in zip(plan_list, per_plan):
        pts = {k: [(v, captured[t.key]) for v, t in zip(plan.sweep.grid, ts)] for k, ts in tp.items()}
        for oracle in ORACLES_OF[plan.cls]:
            results.append(judge(tier, plan, oracle, pts))
    return results, stats


def supported(decl: tuple | None, classes) -> list[str]:
    """Classes of ``classes`` a method declaring ``decl`` (:func:`mixbounds.methods.declared_classes`) does not
    support (empty when it declares none)."""
    return [] if decl is None else [c for c in classes if c not in decl]


# ----------------------------------------------------------------------------- verdicts
def _cell(cls: str, oracle: str):
    return next(c for c in cells_of(cls) if c.oracle == oracle)


def _point_failure(param: str, v: float, p: dict) -> str | None:
    if "error" in p:
        return f"{param}={v:g}: task failed: {p['error']}"
    if "instance_error" in p:
        return f"{param}={v:g}: instance could not be built: {p['instance_error']}"
    if "method_error" in p:
        return f"{param}={v:g}: method error: {p['method_error']}"
    if not p["converged"]:
        fe = p.get("final_error")
        fe = f"{fe:.2e}" if isinstance(fe, float) else str(fe)
        return f"{param}={v:g}: {p['reason']} after {p['iterations']} iterations (final error {fe})"
    if "per_accuracy" not in p:
        return f"{param}={v:g}: {p.get('window_error', 'no per-accuracy cost')}"
    return None


def _lower_slope(tier: Tier, plan: Plan, cell, lpts) -> dict:
    """The engine's per-accuracy lower bound on this sweep: per point (per decade) and its slope/verdict."""
    if cell.oracle == "grad" or not lpts:  # gradient bounds need the sum-trick families (mixbounds.checks.lower.slopes): not run here
        return {"slope": None, "status": None, "per_decade": [None] * len(plan.sweep.grid), "part": None}
    r = _verdict(tier, cell, plan.sweep.param, plan.sweep, lpts)
    per = [None if p.get("per_accuracy") in (None, 0) else p["per_accuracy"] / LB_DECADES for p in r.points]
    slope = r.measured if isinstance(r.measured, float) and math.isfinite(r.measured) else None
    return {"slope": slope, "ci": r.ci, "status": r.status, "per_decade": per, "source": cell.lower_source,
            "part": sorted({p.get("part", "all") for p in r.points})}


def _below(plan: Plan, oracle: str, mpts, lpts) -> list[str]:
    """Points where the method reached an error level with fewer rounds than the engine's bound."""
    out = []
    for (v, mp), (_, lp) in zip(mpts, lpts):
        if "bounds" not in lp or "abs" not in mp:
            continue
        for key, b in lp["bounds"].items():
            if key.split("@")[0] != oracle:
                continue
            for eps_key, lbc in (b.get("abs") or {}).items():
                sc = (mp["abs"].get(eps_key) or {}).get(oracle)
                if lbc is not None and sc is not None and sc < lbc:
                    out.append(f"{plan.sweep.param}={v:g}: {sc} {oracle} rounds to ε={eps_key} < the engine's bound "
                               f"{lbc} ({key}) on the {plan.sweep.family} construction as printed")
    return out


def judge(tier: Tier, plan: Plan, oracle: str, pts: dict) -> dict:
    """The verdict of one class × family × oracle × parameter (module docstring)."""
    sw, cell = plan.sweep, _cell(plan.cls, oracle)
    param, tol = sw.param, tier.table1.slope_tol
    mpts, lpts, apts = pts["method"], pts.get("lower", []), pts.get("apapc", [])
    fails = [f for f in (_point_failure(param, v, p) for v, p in mpts) if f]
    rows = [{"target": v, "realized": p["realized"].get(PARAM_REALIZED[param]),
             "per_accuracy": p["per_accuracy"][oracle], "iterations": p["iterations"], "abs": p["abs"]}
            for v, p in mpts if "per_accuracy" in p]
    theory = cell.exponent(param)
    rid = f"bench.method.{plan.cls}.{oracle}.{param}" + ("" if plan.kind == "worst" else f"@{sw.family}")
    rec = {"id": rid, "class": plan.cls, "kind": plan.kind, "family": sw.family, "oracle": oracle, "param": param,
           "exponent": theory, "tolerance": tol, "cell": cell.id, "source": cell.source, "points": rows,
           "counts_basis": COUNTS_BASIS}
    lower = _lower_slope(tier, plan, cell, lpts) if plan.kind == "worst" else {"slope": None, "status": None}
    rec["lower"] = {k: v for k, v in lower.items() if k != "per_decade"}
    rec["apapc"] = _apapc_series(param, oracle, apts)
    below = _below(plan, oracle, mpts, lpts)  # first: a count below the bound is the strongest statement
    if below:
        src = lower.get("source") or cell.source
        return dict(rec, status="below-lower-bound", slope=None, ci=None,
                    detail=f"count below the lower bound of {src} (class def:foda), impossible in the class — the "
                           "method bypasses the counters or leaves the class: " + "; ".join(below))
    if fails:
        return dict(rec, status="error", slope=None, ci=None, detail="; ".join(fails))
    real = [r["realized_all"] for r in _realized_all(mpts)]
    paper = formula_slope(cell, param, real) if theory > 0 else 0.0
    for r, lb in zip(rows, lower.get("per_decade") or [None] * len(rows)):
        r["lower_per_decade"] = lb
        r["ratio"] = None if not lb else (r["per_accuracy"] / math.log10(UB_EPS1 / UB_EPS2)) / lb
    xs, ys = [r["realized"] for r in rows], [r["per_accuracy"] for r in rows]
    f = fit_slope(xs, ys) if min(ys) > 0 else {"slope": 0.0 if len(set(ys)) == 1 else math.nan, "ci": (math.nan,) * 2,
                                                 "r2": math.nan}
    use_engine = lower.get("status") == "pass" and lower.get("slope") is not None
    ref = lower["slope"] if use_engine else paper
    rec.update(slope=f["slope"], ci=tuple(f["ci"]), r2=f["r2"], paper_slope=paper, reference=ref,
               reference_kind="engine lower bound" if use_engine else
               ("paper's exponent (upper bound on this family)" if plan.kind == "random" else "paper's exponent"))
    fit = f"slope {f['slope']:.3f} (95% CI {f['ci'][0]:.3f}..{f['ci'][1]:.3f})"
    if not math.isfinite(f["slope"]):
        return dict(rec, status="error", detail=f"no slope: per-accuracy counts {ys}")
    if f["slope"] > ref + tol:
        return dict(rec, status="suboptimal", detail=f"loses in {param}: {oracle} {fit} > {ref:.3f} + {tol} "
                    f"({rec['reference_kind']}; paper's exponent {theory:g})")
    return dict(rec, status="optimal", detail=f"{oracle} {fit} <= {ref:.3f} + {tol} ({rec['reference_kind']}; "
                f"paper's exponent {theory:g})")


def _realized_all(mpts) -> list[dict]:
    return [{"realized_all": p["realized"]} for _, p in mpts if "per_accuracy" in p]


def _apapc_series(param: str, oracle: str, apts) -> dict:
    """The paper's method on the same points (for the figures): realized values, per-accuracy counts, slope."""
    ok = [(p["realized"].get(PARAM_REALIZED[param]), p["per_accuracy"][oracle]) for _, p in apts
          if "per_accuracy" in p]
    setup = sum(int((p.get("setup_counts") or {}).get(oracle, 0)) for _, p in apts)
    if len(ok) < 2:
        return {"x": [x for x, _ in ok], "y": [y for _, y in ok], "slope": None, "setup_counts": setup}
    xs, ys = zip(*ok)
    f = fit_slope(xs, ys) if min(ys) > 0 else {"slope": None}
    return {"x": list(xs), "y": list(ys), "slope": f["slope"], "setup_counts": setup}


def summarize(results: list[dict]) -> list[str]:
    """One line per class × family: where the method is optimal, where it loses (with the exponent)."""
    groups: dict = {}
    for r in results:
        groups.setdefault((r["class"], r["family"]), []).append(r)
    out = []
    for (cls, fam), rs in groups.items():
        bad = [r for r in rs if r["status"] != "optimal"]
        if not bad:
            out.append(f"{cls} [{fam}]: optimal in every oracle and parameter ({len(rs)} results)")
            continue
        parts = [f"{r['status']} in {r['param']} ({r['oracle']}"
                 + (f": slope {r['slope']:.2f} vs {r['reference']:.2f})" if r.get("reference") is not None
                    and r.get("slope") is not None else ")") for r in bad]
        out.append(f"{cls} [{fam}]: " + "; ".join(parts))
    return out


def classes_for(decl: tuple | None, requested) -> list[str]:
    """Classes to run: ``requested`` (validated; each once) or the declared ones ``decl``, else all of
    :data:`METHOD_CLASSES`."""
    if requested is None:
        return list(decl or METHOD_CLASSES)
    return list(dict.fromkeys(requested))
