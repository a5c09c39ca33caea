"""``mixbounds bench``: a user's method (:mod:`mixbounds.methods`) against the paper's lower bounds.

For each chosen problem class, every parameter of its Table 1 row is swept alone over the sweeps of the
Table 1 checks (:func:`mixbounds.checks.sweeps.worst_sweeps` on the worst-case construction as printed,
:func:`mixbounds.checks.sweeps.random_sweeps` on the random family).  At every point up to three tasks run on one
shared instance (:mod:`mixbounds.checks.run.framework`): the user's method (:func:`method_point`), the paper's method
APAPC with Chebyshev acceleration (:func:`mixbounds.checks.rates.upper_point`) and, on the worst-case construction,
the lower-bound engine (:func:`mixbounds.checks.lower.slopes.lower_point`, the tasks of the Table 1 checks).

The references (APAPC and the engine) are deterministic functions of the instance and the suite's code: they are
read from a point cache keyed by task and code version when it has them (``cache_dir``; the same keys as
``mixbounds verify``'s cache, so a verify's ``OUT/.cache`` serves a bench too) and written to it otherwise, so a
repeated bench runs only the user's method.  The method itself is never cached.

The verdicts are :mod:`mixbounds.bench_verdict`'s (the engine, a band, the 95% CI).
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import tempfile
from dataclasses import dataclass

from mixbounds.bench_verdict import judge
from mixbounds.checks.bench import ORACLES_OF, per_accuracy
from mixbounds.checks.lower.slopes import solver_point_task
from mixbounds.checks.rate_measure import SETTLE
from mixbounds.checks.rates import rate_task as apapc_task
from mixbounds.checks.rates import upper_point
from mixbounds.checks.run.framework import (
    Check,
    Task,
    code_version,
    instance_and_reference,
    read_cache_entry,
    run_checks,
)
from mixbounds.checks.sweeps import (
    ABS_LEVELS,
    UB_EPS1,
    UB_EPS2,
    WORST_EPS,
    WORST_FAMILY,
    Sweep,
    random_sweeps,
    worst_sweeps,
)
from mixbounds.checks.tiers import Tier, as_tier
from mixbounds.instances.fingerprint import changed_parts, data_fingerprint
from mixbounds.isolation import METHOD_MAX_ITER, METHOD_TIMEOUT_S, YIELD_TIMEOUT_S, beat, call_isolated
from mixbounds.methods import METHOD_CLASSES, resolve, run_method

#: bytes of a method's output (stdout and stderr) kept per point in the bench's log; beyond, its last part
MAX_OUTPUT_BYTES = 64 << 10
#: methods passed as Python objects (``mixbounds.testing``) run in this process under a ``local:`` key
_LOCAL: dict[str, object] = {}


@dataclass(frozen=True)
class Plan:
    """One sweep to measure: class, ``kind`` (``worst`` or ``random``) and the :class:`Sweep`."""

    cls: str
    kind: str
    sweep: Sweep


def plans(tier: Tier | str, classes, params=None, kinds=("worst", "random")) -> list[Plan]:
    """The Table 1 sweeps of ``classes`` in ``tier`` (a tier or its name; optionally only ``params`` and ``kinds``,
    where a kind is ``worst``, ``random`` or a family name)."""
    tier = as_tier(tier)
    out = []
    for cls in classes:
        sws = [("worst", s) for s in worst_sweeps(tier, cls)] + [("random", s) for s in random_sweeps(tier, cls)]
        out += [Plan(cls, k, s) for k, s in sws
                if (params is None or s.param in params) and (k in kinds or s.family in kinds)]
    return out


@dataclass(frozen=True)
class RunOptions:
    """How the method runs on every point: ``max_iter`` (the budget of yields), ``timeout`` (wall-clock seconds per
    point), ``yield_timeout`` (seconds without a yield), ``method_args`` (keyword arguments of the method)."""

    max_iter: int = METHOD_MAX_ITER
    timeout: float = METHOD_TIMEOUT_S
    yield_timeout: float = YIELD_TIMEOUT_S
    method_args: tuple = ()  # ((key, value), …): hashable, JSON-able

    @property
    def kwargs(self) -> dict:
        return dict(self.method_args)


# ----------------------------------------------------------------------------- the method's task
def rebuild_command(family: str, params: dict, out: str = "INSTANCE_DIR") -> str:
    """The ``mixbounds instance`` command that builds the instance of a point (then ``mixbounds solve OUT --method
    MODULE:FUNCTION --trace FILE`` runs one method on it)."""
    args = ["mixbounds", "instance", family] + [f"--param={k}={json.dumps(v)}" for k, v in sorted(params.items())]
    return shlex.join(args + ["--out", out])


def method_point(family: str, params: dict, method: str, eps1: float, eps2: float, max_iter: int,
                 path: str | None = None, timeout: float = METHOD_TIMEOUT_S, yield_timeout: float | None = None,
                 method_args: dict | None = None) -> dict:
    """Build one instance and its exact solution; run the user's ``method`` (a spec) on it in a process of its own
    (:func:`mixbounds.isolation.call_isolated`: at most ``timeout`` seconds, at most ``yield_timeout`` seconds
    without a yield); counts and per-accuracy cost.

    The instance and its solution are the ones the group's other tasks (APAPC, the lower-bound engine) use: the
    method's process works on a copy, so nothing it does can change their references.  A method that fails in a
    way no exception shows — a hang, ``sys.exit``, an import-time exit, a crash, an instance changed in place —
    gives ``{"method_error": reason}``.  The method's standard output and error are returned as ``output`` (its
    last :data:`MAX_OUTPUT_BYTES`), ``method_seconds`` is the wall time of its process.
    """
    common = {"params": {"family": family, **params}, "rebuild": rebuild_command(family, params)}
    try:
        inst, ref = instance_and_reference(family, params)
    except ValueError as exc:
        return {"instance_error": f"{family}{params}: {exc}", **common}
    fd, log = tempfile.mkstemp(prefix="mixbounds-method-", suffix=".log")
    os.close(fd)
    try:
        out = call_isolated(lambda: _run_in_child(method, path, inst.problem, ref.u, eps1, eps2, max_iter,
                                                  method_args or {}),
                            timeout, limit_name="wall-clock limit per point, --method-timeout",
                            idle_timeout=yield_timeout, idle_name="no yield from the method, --yield-timeout",
                            output=log)
        text = _tail(log)
    finally:
        os.unlink(log)
    common.update(output=text, method_seconds=out.seconds)
    if not out.ok:
        return {"method_error": out.reason, **common}
    return {"realized": inst.realized, **out.value, **common}


def _tail(path: str) -> str:
    with open(path, "rb") as fh:
        size = fh.seek(0, os.SEEK_END)
        fh.seek(max(0, size - MAX_OUTPUT_BYTES))
        data = fh.read()
    text = data.decode("utf-8", "replace")
    return text if size <= MAX_OUTPUT_BYTES else f"[… first {size - MAX_OUTPUT_BYTES} bytes left out]\n{text}"


def _run_in_child(method: str, path: str | None, problem, u_star, eps1: float, eps2: float, max_iter: int,
                  kwargs: dict) -> dict:
    """The method's side of :func:`method_point` (in the child process): resolve, run, measure."""
    if path and path not in sys.path:  # the module is resolved from the caller's directory
        sys.path.insert(0, path)
    fn = _LOCAL[method] if method.startswith("local:") else resolve(method, add_cwd=False)
    before = data_fingerprint(problem)
    beat(force=True)  # the method starts now: its first yield is due within the yield timeout
    res = run_method(fn, problem, u_star, eps=eps2, settle=SETTLE, settle_eps=eps2, max_iter=max_iter, name=method,
                     method_kwargs=kwargs, on_yield=beat)
    beat(force=True)
    changed = changed_parts(before, data_fingerprint(problem))
    if changed:
        return {"method_error": f"changed the instance's data in place ({', '.join(changed)}): its counts are not "
                                f"counts on this instance"}
    out = {"n": problem.n, "variables": problem.layout.size,
           "converged": bool(res.converged), "reason": res.reason, "iterations": int(res.iterations),
           "final_error": res.final_error(), "counts": res.counts, "setup_counts": res.setup_counts or None,
           "abs": {f"{e:g}": res.counts_to(e) for e in ABS_LEVELS},
           "count_to": {f"{e:g}": res.count_to(e).to_dict() for e in ABS_LEVELS}}
    if res.converged:
        out.update(per_accuracy(res, eps1, eps2))
    elif res.reason == "budget":
        out["censored"] = censored_count(res, eps1, eps2)
    return out


def censored_count(res, eps1: float, eps2: float) -> dict:
    """A lower bound on the per-accuracy count of a run that ended at its budget (:mod:`mixbounds.bench_verdict`):
    the rounds from the row where its error settled below ``eps1`` to where it settled below ``eps2``, or to its last
    row; ``{"why": …}`` when its error is above ``eps1`` at the end."""
    c1, c2 = res.count_to(eps1), res.count_to(eps2)
    if c1.row is None:
        return {"why": f"error {res.final_error():.2e} above ε₁ = {eps1:g} at the budget: no lower bound on the "
                       f"per-accuracy count"}
    end = c2.counts if c2.row is not None else res.counts
    return {"per_accuracy": {k: float(end[k] - c1.counts[k]) for k in end}, "from_row": c1.row,
            "to_row": c2.row if c2.row is not None else int(res.iterations)}


def method_task(spec: str, sw: Sweep, value: float, opts: RunOptions = RunOptions()) -> Task:
    params = sw.point_params(value)
    if sw.family in WORST_FAMILY.values():
        params.setdefault("eps", WORST_EPS)  # the instance of the Table 1 sweep point (mixbounds.checks.rates.upper_point)
    kw = {"family": sw.family, "params": params, "method": spec, "eps1": UB_EPS1, "eps2": UB_EPS2,
          "max_iter": opts.max_iter, "path": os.getcwd(), "timeout": opts.timeout,
          "yield_timeout": opts.yield_timeout, "method_args": opts.kwargs}
    return Task(method_point, kw, label=f"METHOD {sw.family} {sw.param}={value:g}")


def _tasks(spec: str, plan: Plan, *, apapc: bool, opts: RunOptions) -> dict:
    sw = plan.sweep
    out = {"method": [method_task(spec, sw, v, opts) for v in sw.grid]}
    if apapc:
        out["apapc"] = [apapc_task(sw, v) for v in sw.grid]
    if plan.kind == "worst":
        out["lower"] = [solver_point_task(sw, v) for v in sw.grid]
    return out


def is_reference(task: Task) -> bool:
    """Whether a task is a deterministic reference (APAPC, the engine): cached; the user's method never is."""
    return task.func is not method_point


# ----------------------------------------------------------------------------- running
def measure_plans(spec, plan_list: list[Plan], tier: Tier | str, *, jobs: int = 1, apapc: bool = True,
                  opts: RunOptions = RunOptions(), progress=None, executor=None, cache_dir=None,
                  oracles=None) -> tuple[list[dict], dict]:
    """Run the tasks of every plan (``spec``: ``MODULE:FUNCTION``, an entry point name, or a callable) and judge.

    ``opts``: how the method runs (:class:`RunOptions`); ``cache_dir``: the references' point cache (``None``: none);
    ``oracles``: judge only these oracles (default: every oracle of the class).  ``executor``: as for
    :func:`mixbounds.checks.run.framework.run_checks` (e.g. :class:`mixbounds.checks.run.executors.DaskExecutor`); a
    callable ``spec`` lives in this process only, so it cannot be given one (``ValueError``).

    The stats gain ``method_outputs`` (task label → the method's output on that point, where it printed anything) and
    ``method_seconds`` (the wall time of the method's processes, summed over the method's tasks, each once).
    """
    tier = as_tier(tier)
    if callable(spec):
        if executor is not None:
            raise ValueError("measure_plans: a method passed as a Python object runs in this process; "
                             "give MODULE:FUNCTION to run it on a cluster")
        key = f"local:{id(spec)}"
        _LOCAL[key] = spec
        spec, jobs = key, 1  # a Python object cannot cross a process boundary by name
    per_plan = [_tasks(spec, p, apapc=apapc, opts=opts) for p in plan_list]
    every = [t for tp in per_plan for ts in tp.values() for t in ts]
    captured: dict = {}
    check = Check(id="bench.method", family="bench-method", result_ids=lambda t: [], tasks=lambda t: every,
                  finalize=lambda t, pts: captured.update(pts) or [])
    _, stats = run_checks([check], tier, jobs=jobs, cache_dir=cache_dir, progress=progress, executor=executor,
                          cacheable=is_reference)
    outputs, secs = {}, 0.0
    for t in {t.key: t for t in every}.values():  # each task once: sweeps share their base point
        p = captured[t.key]
        if t.func is method_point:
            text = p.pop("output", "")
            if text:
                outputs[t.label] = text
            secs += float(p.get("method_seconds") or 0.0)
    stats.update(method_outputs=outputs, method_seconds=secs)
    results = []
    for plan, tp in zip(plan_list, per_plan):
        pts = {k: [(v, captured[t.key]) for v, t in zip(plan.sweep.grid, ts)] for k, ts in tp.items()}
        for oracle in ORACLES_OF[plan.cls]:
            if oracles is None or oracle in oracles:
                results.append(judge(tier, plan, oracle, pts))
    return results, stats


def supported(decl: tuple | None, classes) -> list[str]:
    """Classes of ``classes`` a method declaring ``decl`` (:func:`mixbounds.methods.declared_classes`) does not
    support (empty when it declares none)."""
    return [] if decl is None else [c for c in classes if c not in decl]


def classes_for(decl: tuple | None, requested) -> list[str]:
    """Classes to run: ``requested`` (validated; each once) or the declared ones ``decl``, else all of
    :data:`METHOD_CLASSES`."""
    if requested is None:
        return list(decl or METHOD_CLASSES)
    return list(dict.fromkeys(requested))


def reference_estimate(plan_list: list[Plan], cache_dir, *, apapc: bool = True) -> dict:
    """Before a run: how many reference tasks the cache holds, and APAPC's measured seconds on each method point
    (from the cache; the cost estimate of a method that costs what APAPC costs)."""
    every = {t.key: t for p in plan_list for ts in _tasks("x:y", p, apapc=apapc, opts=RunOptions()).values()
             for t in ts}  # each task once: sweeps share their base point
    refs = [t for t in every.values() if is_reference(t)]
    cdir = None if cache_dir is None else cache_dir / code_version()
    cached, apapc_secs = 0, []
    for t in refs:
        pt = None if cdir is None else read_cache_entry(cdir / f"{t.key}.json", t.key)[0]
        cached += pt is not None
        if t.func is upper_point and pt is not None:
            apapc_secs.append(float(pt["seconds"]))
    return {"references": len(refs), "cached": cached, "apapc_seconds": apapc_secs,
            "method_points": len(every) - len(refs)}
