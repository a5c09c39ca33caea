"""How checks run: tasks (sweep points), a cache, optional process parallelism.

A :class:`Check` turns into :class:`Task` s for a tier — each task is one pure
function call (a module-level function plus JSON-able keyword arguments) that
returns a JSON-able dict (a sweep point: realized κ's, counts, …).  Identical
tasks requested by several checks run once.  :func:`run_checks` executes the
tasks (serially, with joblib processes or on a Dask cluster through
:mod:`mixbounds.checks.run.executors`; counts never depend on scheduling),
caches each point on disk under the code version so an interrupted run
resumes, and hands every check its points to ``finalize`` into
:class:`~mixbounds.checks.run.result.CheckResult` s.

Tiers (:mod:`mixbounds.checks.tiers`): ``tiny`` (seconds; CLI tests), ``quick`` (the default; whole registry in
minutes), ``full`` (publication: ≥ 2 decades, ≥ 7 points per sweep).
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, Callable, Iterable, cast

from joblib import Parallel, delayed, parallel_config
from mixbounds.bounds.layers import up_to
from mixbounds.checks.run.cache_key import CacheKeyError, load_key, sign
from mixbounds.checks.run.parent_watch import watch_parent
from mixbounds.checks.run.result import CheckResult, json_clean
from mixbounds.checks.tiers import TIERS, Tier, as_tier
from mixbounds.instances.families import build
from mixbounds.instances.instance import Instance
from mixbounds.instances.json_file import JSONFileError, read_json
from mixbounds.instances.reference.kkt import Reference, reference_solution
from threadpoolctl import threadpool_limits

#: the folders whose sources sign a result (the layers a check can import)
_PACKAGES = up_to("checks")


@dataclass(frozen=True)
class Task:
    """One unit of work: ``func`` (a module-level function, so workers import it by name) called with ``kwargs``."""

    func: Callable[..., dict[str, Any]]
    kwargs: dict[str, Any]
    label: str = ""

    @property
    def name(self) -> str:
        """``"module:function"``: the cache key's name of ``func``, stable under re-imports."""
        return f"{self.func.__module__}:{self.func.__qualname__}"

    @property
    def key(self) -> str:
        blob = json.dumps({"f": self.name, "k": json_clean(self.kwargs)}, sort_keys=True)
        return hashlib.blake2b(blob.encode(), digest_size=12).hexdigest()


@dataclass(frozen=True)
class Check:
    """A family member: its result ids, its tasks per tier, and how points become verdicts.

    ``result_ids(tier)`` lists the ids of the results ``finalize`` will return, so a
    ``--claims`` glob can select checks before anything runs.  ``finalize(tier,
    points)`` receives ``{task.key: point}`` for its own tasks.  ``tier`` is a
    :class:`~mixbounds.checks.tiers.Tier`; ``tiers`` lists the tiers the check runs in.  An ``opt_in`` check
    measures no claim of the paper (the method benchmarks): ``mixbounds verify`` runs it only when a ``--claims``
    glob other than the default ``'*'`` selects it.
    """

    id: str
    family: str
    result_ids: Callable[[Tier], list[str]]
    tasks: Callable[[Tier], list[Task]]
    finalize: Callable[[Tier, dict[str, Any]], list[CheckResult]]
    description: str = ""
    tiers: tuple[Tier, ...] = TIERS
    opt_in: bool = False


def source_files() -> list[tuple[str, Path]]:
    """``[(name, path)]`` of every source file of :data:`_PACKAGES`, found where each package was imported from.

    ``name`` is the path below ``mixbounds/`` in the installed layout (``checks/run/framework.py``): the same in a
    wheel install and in an editable one (where ``mixbounds.checks`` is the checkout's ``checks/`` folder).

    Returns
    -------
    list of (str, pathlib.Path)
        The name and the file of every source, package by package, sorted.
    """
    out = []
    for pkg in _PACKAGES:
        base = Path(cast(str, importlib.import_module(f"mixbounds.{pkg}").__file__)).resolve().parent
        out += [(str(Path(pkg) / p.relative_to(base)), p) for p in sorted(base.rglob("*.py"))]
    return out


def code_version() -> str:
    """Hash of the suite's source (cache key): any code change invalidates cached points.

    Returns
    -------
    str
        A hex digest of every source file's name and contents.
    """
    h = hashlib.blake2b(digest_size=10)
    for name, p in source_files():
        h.update(name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()


def call_task(func: Callable[..., dict[str, Any]], kwargs: dict[str, Any]) -> dict[str, Any]:
    """Run one task; exceptions become an ``{"error": …}`` point instead of killing the run.

    Parameters
    ----------
    func : callable
        The task's function (module-level).
    kwargs : dict
        Its keyword arguments.

    Returns
    -------
    dict
        The point, with its measured ``seconds``; ``{"error": …}`` when ``func`` raised.
    """
    t0 = time.perf_counter()
    try:
        out = func(**kwargs)
        out = json_clean(dict(out))
    except Exception as exc:  # noqa: BLE001 - a failed point is reported, not raised
        out = {"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc(limit=6)}
    out["seconds"] = time.perf_counter() - t0
    return out


#: per thread: instances (and their exact solutions) built by the tasks of the group running in it
#: (a Dask worker with several threads runs several groups in one process)
_GROUP = threading.local()


def instance_and_reference(family: str, params: dict[str, Any]) -> tuple[Instance, Reference]:
    """``(mixbounds.instances.families.build(family, **params), reference_solution(its problem))``.

    Inside a task group (:func:`run_group`: the tasks of one sweep point — upper bound,
    lower bound, benchmarks — run one after the other in one process) the pair is built
    once and shared; both are deterministic functions of ``(family, params)`` and no task
    modifies them, so a point's counts do not depend on the sharing.

    Parameters
    ----------
    family : str
        A named instance family (:func:`mixbounds.instances.families.families`).
    params : dict
        Its parameters.

    Returns
    -------
    tuple
        ``(instance, reference)``.
    """
    key = json.dumps({"family": family, "params": json_clean(params)}, sort_keys=True)
    shared = getattr(_GROUP, "instances", None)
    if shared is not None and key in shared:
        return cast("tuple[Instance, Reference]", shared[key])
    inst = build(family, **params)
    pair = (inst, reference_solution(inst.problem))
    if shared is not None:
        shared[key] = pair
    return pair


def _group_key(t: Task) -> str:
    """Tasks on the same instance (same family and parameters) form one group."""
    fam, params = t.kwargs.get("family"), t.kwargs.get("params")
    if fam is None or params is None:
        return t.key
    p = {k: v for k, v in params.items() if k != "eps"}
    return json.dumps({"family": fam, "params": json_clean(p)}, sort_keys=True)


def _run_group_in_worker(calls: list[tuple[str, Callable[..., Any], dict[str, Any]]], parent: int) -> list[tuple[str, dict[str, Any]]]:
    """:func:`run_group` in a joblib worker, which ends with ``parent`` (:mod:`mixbounds.checks.run.parent_watch`)."""
    watch_parent(parent)
    return run_group(calls)


def run_group(calls: list[tuple[str, Callable[..., Any], dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    """Run the tasks of one group in this process, sharing their instances (the same call on every executor).

    Parameters
    ----------
    calls : list of (str, callable, dict)
        ``(task key, task function, its keyword arguments)`` for each task of the group.

    Returns
    -------
    list of (str, dict)
        ``(task key, point)`` in the order of ``calls``.
    """
    _GROUP.instances = {}
    try:
        return [(key, call_task(func, kwargs)) for key, func, kwargs in calls]
    finally:
        _GROUP.instances = None


#: layout of a cache entry: ``{"cache": CACHE_FORMAT, "task": <task key>, "digest": <keyed digest>, "point": {…,
#: "seconds": s}}``; format 2 added the digest, format 3 keyed it (:mod:`mixbounds.checks.run.cache_key`; entries of
#: older formats live under older code versions, never read)
CACHE_FORMAT = "mixbounds-point-3"


def point_digest(point: dict[str, Any], task: str = "") -> str:
    """The keyed digest of a cache entry (:func:`mixbounds.checks.run.cache_key.sign`) over its task key and its point's
    canonical JSON: an entry damaged, changed or written without this user's key no longer matches it.

    Parameters
    ----------
    point : dict
        The point (JSON-safe).
    task : str
        The task key it belongs to.

    Returns
    -------
    str
        The digest.
    """
    blob = json.dumps(point, sort_keys=True, separators=(",", ":"))
    return sign(load_key(), task, blob)


def read_cache_entry(path: Path, key: str) -> tuple[dict[str, Any] | None, str | None]:
    """``(point, None)`` for a valid cache entry of task ``key``, ``(None, why)`` for a damaged one, ``(None, None)``
    if there is none.  Valid: a regular file holding JSON ``{"cache": CACHE_FORMAT, "task": key, "digest": d,
    "point": {…}}`` whose point is an object with a numeric ``seconds``, no ``error`` (failed points are never
    cached) and digest ``d`` (:func:`point_digest`, keyed by this user's key); anything else is recomputed (and
    counted).

    Parameters
    ----------
    path : pathlib.Path
        The entry's file.
    key : str
        The task key the entry must belong to.

    Returns
    -------
    tuple
        ``(point, None)``, ``(None, why)`` or ``(None, None)``.
    """
    try:
        entry = read_json(path, "cache entry")
    except FileNotFoundError:
        return None, None
    except JSONFileError as exc:
        return None, f"unreadable ({exc})"
    if not isinstance(entry, dict) or entry.get("cache") != CACHE_FORMAT:
        return None, f"not a cache entry of format {CACHE_FORMAT}"
    if entry.get("task") != key:
        return None, "entry of another task"
    pt = entry.get("point")
    secs = pt.get("seconds") if isinstance(pt, dict) else None
    if not isinstance(pt, dict) or isinstance(secs, bool) or not isinstance(secs, (int, float)) or "error" in pt:
        return None, "point of the wrong shape"
    if entry.get("digest") != point_digest(pt, key):
        return None, "point does not match its digest (damaged, or not written with this user's cache key)"
    return pt, None


def cache_census(cache_dir: Path, keys: Iterable[str]) -> dict[str, Any]:
    """``{"valid": n, "damaged": m, "keys": [the valid ones]}`` over the entries of ``keys`` in ``cache_dir`` (this
    code version).

    Parameters
    ----------
    cache_dir : pathlib.Path
        The point cache (the folder above the code versions).
    keys : iterable of str
        The task keys to look up.

    Returns
    -------
    dict
        ``valid`` and ``damaged`` counts and the valid ``keys``.
    """
    cdir = Path(cache_dir) / code_version()
    valid: list[str] = []
    damaged = 0
    for k in keys:
        pt, why = read_cache_entry(cdir / f"{k}.json", k)
        if pt is not None:
            valid.append(k)
        elif why is not None:
            damaged += 1
    return {"valid": len(valid), "damaged": damaged, "keys": valid}


def _atomic_write_json(path: Path, obj: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(json_clean(obj), f)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def select(checks: Iterable[Check], pattern: str, tier: Tier | str) -> list[Check]:
    """Checks with at least one result id matching the glob.

    Parameters
    ----------
    checks : iterable of Check
        The candidates.
    pattern : str
        A glob over result ids.
    tier : Tier or str
        The tier (a check not run in it is left out).

    Returns
    -------
    list of Check
        The selected checks, in order.
    """
    tier = as_tier(tier)
    return [c for c in checks if tier in c.tiers and any(fnmatchcase(r, pattern) for r in c.result_ids(tier))]


def run_checks(
    checks: list[Check],
    tier: Tier | str,
    *,
    jobs: int = 1,
    cache_dir: Path | None = None,
    progress: Callable[..., None] | None = None,
    pattern: str = "*",
    executor: Callable[[str, list[Any]], Iterable[list[Any]]] | None = None,
    cacheable: Callable[[Task], bool] | None = None,
) -> tuple[list[CheckResult], dict[str, Any]]:
    """Run ``checks`` in ``tier`` (a :class:`~mixbounds.checks.tiers.Tier` or its name); returns the results matching
    ``pattern`` and run statistics.

    ``progress(done, total, task)`` is called after every point; a callable with a true ``takes_seconds`` attribute
    also receives ``seconds=`` the point's measured duration.
    ``cacheable(task)``: whether a task's point may be read from and written to ``cache_dir`` (default: every task;
    ``mixbounds bench`` caches the deterministic references, never the user's method).

    ``executor(code_version, payloads)``, when given, runs the task groups instead of this process
    or joblib (e.g. :class:`mixbounds.checks.run.executors.DaskExecutor`): ``payloads`` is one
    ``[(key, func, kwargs)]`` list per group, and it yields each group's ``[(key, point)]``.

    Parameters
    ----------
    checks : list of Check
        The checks (those not run in ``tier`` are left out).
    tier : Tier or str
        The tier or its name.
    jobs : int
        Worker processes (1: this process).
    cache_dir : pathlib.Path, optional
        The point cache; ``None``: no cache.
    progress : callable, optional
        Called after every point (above).
    pattern : str
        A glob over result ids: the results returned.
    executor : callable, optional
        Runs the task groups instead of joblib (above).
    cacheable : callable, optional
        Whether a task's point may be cached (above).

    Returns
    -------
    tuple
        ``(results, stats)``: the :class:`~mixbounds.checks.run.result.CheckResult` s matching ``pattern``, and
        the run statistics (points computed and cached, timings, the task groups).
    """
    tier = as_tier(tier)  # ValueError for an unknown name
    checks = [c for c in checks if tier in c.tiers]
    tasks, per_check = _collect_tasks(checks, tier)
    version = code_version()
    cdir = _open_cache(cache_dir, version)
    points, todo, damaged = _read_cached(tasks, cdir, cacheable)
    cached_keys = sorted(points)
    t0 = time.perf_counter()
    record = _PointSink(points, cdir, cacheable, progress, total=len(tasks))
    _execute(todo, version, record, jobs=jobs, executor=executor)
    t1 = time.perf_counter()
    results, recomputed = _finalize_checks(checks, tier, tasks, per_check, record, version, jobs=jobs,
                                           executor=executor)
    damaged += len(recomputed)
    cached_keys = [k for k in cached_keys if k not in {t.key for t in recomputed}]
    out = [r for c in checks for r in results[c.id] if fnmatchcase(r.id, pattern)]
    t2 = time.perf_counter()
    n_computed = len(todo) + len(recomputed)
    stats = {"tasks": len(tasks), "computed": n_computed, "cached": len(tasks) - n_computed, "damaged": damaged,
             "seconds": t2 - t0, "points_seconds": t1 - t0, "finalize_seconds": t2 - t1, "code_version": version}
    stats.update(task_timing(tasks, points, cached_keys))
    return out, stats


def _open_cache(cache_dir: Path | None, version: str) -> Path | None:
    """The point cache of code version ``version`` below ``cache_dir``, or ``None``: no cache given, or a cache whose
    key cannot be read (said on stderr; the run goes on without it)."""
    cdir = None if cache_dir is None else Path(cache_dir) / version
    if cdir is not None:
        try:
            load_key()
        except CacheKeyError as exc:  # a cache that cannot tell its own entries from anyone else's is not read
            print(f"mixbounds: point cache {cdir}: {exc.strerror}; the run goes on without the cache", file=sys.stderr)
            cdir = None
    return cdir


class _PointSink:
    """Where :func:`run_checks`' computed points go: kept in ``points`` (no longer ``cached``), written to the cache
    when they may be (until a write fails), and counted for ``progress``."""

    def __init__(self, points: dict[str, dict[str, Any]], cdir: Path | None, cacheable: Callable[[Task], bool] | None,
                 progress: Callable[..., None] | None, total: int) -> None:
        self.points, self.cdir, self.cacheable, self.progress = points, cdir, cacheable, progress
        self.cached = set(points)  # the keys whose point was read from the cache (and not computed since)
        self.cache_ok = cdir is not None
        self.done, self.total = len(points), total

    def __call__(self, t: Task, out: dict[str, Any]) -> None:
        self.points[t.key] = out
        self.cached.discard(t.key)
        if (self.cache_ok and self.cdir is not None and "error" not in out
                and (self.cacheable is None or self.cacheable(t))):
            try:
                _atomic_write_json(self.cdir / f"{t.key}.json", {"cache": CACHE_FORMAT, "task": t.key,
                                                                 "digest": point_digest(json_clean(out), t.key),
                                                                 "point": out})
            except OSError as exc:  # a full disk or a cache made unwritable mid-run: the run goes on uncached
                self.cache_ok = False
                print(f"mixbounds: point cache {self.cdir}: cannot write ({exc.strerror}); the run goes on without "
                      f"caching", file=sys.stderr)
        self.done += 1
        if self.progress:
            if getattr(self.progress, "takes_seconds", False):  # e.g. the remaining-time estimate (checks.run.eta)
                self.progress(self.done, self.total, t, seconds=out.get("seconds"))
            else:
                self.progress(self.done, self.total, t)


def _finalize_checks(checks: list[Check], tier: Tier, tasks: dict[str, Task], per_check: dict[str, list[str]],
                     record: _PointSink, version: str, *, jobs: int,
                     executor: Callable[[str, list[Any]], Iterable[list[Any]]] | None,
                     ) -> tuple[dict[str, list[CheckResult]], list[Task]]:
    """Each check's results from its points; a check whose finalize could not read a cached point has those points
    recomputed and is finalized again.  Returns the results by check id and the recomputed tasks."""
    points, cached = record.points, record.cached
    results: dict[str, list[CheckResult]] = {}
    unreadable: list[Check] = []
    for c in checks:
        res, failed = _finalize(c, tier, {k: points[k] for k in per_check[c.id]})
        if failed and cached & set(per_check[c.id]):
            unreadable.append(c)  # finalize could not read a cached point: recompute them below and finalize again
        results[c.id] = res
    recomputed = [tasks[k] for k in dict.fromkeys(k for c in unreadable for k in per_check[c.id] if k in cached)]
    if recomputed:
        record.total += len(recomputed)
        _execute(recomputed, version, record, jobs=jobs, executor=executor)
        for c in unreadable:
            results[c.id] = _finalize(c, tier, {k: points[k] for k in per_check[c.id]})[0]
    return results, recomputed

def task_timing(tasks: dict[str, Task], points: dict[str, dict[str, Any]], cached_keys: list[str]) -> dict[str, Any]:
    """The run's measured task durations, for :mod:`mixbounds.checks.run.schedule` (a simulated cluster).

    ``task_seconds``: task key → the ``seconds`` of its point (measured when it was computed: in this run, or in the
    run that cached it, then its key is in ``task_cached``); ``task_labels``: key → label; ``task_groups``: the keys
    of every task group (tasks on one instance, run one after the other in one process: the unit a worker receives)
    in the order :func:`_execute` submits them.  Kept in ``results.json`` because the cache cannot give them: it is
    off under ``--no-cache``, holds no group structure and may hold other runs' tasks of the same code version.

    Parameters
    ----------
    tasks : dict
        Task key → task, every task of the run.
    points : dict
        Task key → its point.
    cached_keys : list of str
        The keys whose points came from the cache.

    Returns
    -------
    dict
        ``task_seconds``, ``task_cached``, ``task_labels`` and ``task_groups``.
    """
    secs = {k: float(points[k]["seconds"]) for k in tasks if isinstance(points.get(k, {}).get("seconds"), (int, float))}
    return {"task_seconds": secs, "task_labels": {k: t.label or t.name for k, t in tasks.items()},
            "task_groups": [[t.key for t in g] for g in task_groups(list(tasks.values()))],
            "task_cached": cached_keys}


def _collect_tasks(checks: list[Check], tier: Tier) -> tuple[dict[str, Task], dict[str, list[str]]]:
    """Every task of ``checks`` once (checks share points by key), and each check's task keys."""
    tasks: dict[str, Task] = {}
    per_check: dict[str, list[str]] = {}
    for c in checks:
        keys = []
        for t in c.tasks(tier):
            tasks.setdefault(t.key, t)
            keys.append(t.key)
        per_check[c.id] = keys
    return tasks, per_check


def _read_cached(tasks: dict[str, Task], cdir: Path | None,
                 cacheable: Callable[[Task], bool] | None = None) -> tuple[dict[str, dict[str, Any]], list[Task], int]:
    """The points found in the cache, the tasks still to run, and how many cache entries were damaged."""
    points: dict[str, dict[str, Any]] = {}
    todo = []
    damaged = 0
    for k, t in tasks.items():
        if cdir is not None and (cacheable is None or cacheable(t)):
            pt, why = read_cache_entry(cdir / f"{k}.json", k)
            if pt is not None:
                points[k] = pt
                continue
            damaged += why is not None  # a damaged cache entry is recomputed (and counted)
        todo.append(t)
    return points, todo, damaged


def task_groups(tasks: list[Task]) -> list[list[Task]]:
    """``tasks`` grouped by instance (:func:`_group_key`), the groups with the largest ``_cost`` hint first: the
    units and the order in which :func:`_execute` hands them to workers.

    Parameters
    ----------
    tasks : list of Task
        The tasks to run.

    Returns
    -------
    list of list of Task
        The groups, largest cost hint first.
    """
    groups: dict[str, list[Task]] = {}
    for t in tasks:
        groups.setdefault(_group_key(t), []).append(t)
    return sorted(groups.values(), key=lambda g: -max(float(t.kwargs.get("_cost", 0)) for t in g))


def _execute(todo: list[Task], version: str, record: Callable[[Task, dict[str, Any]], None], *, jobs: int,
             executor: Callable[[str, list[Any]], Iterable[list[Any]]] | None) -> None:
    """Run the tasks grouped by instance (one build and one exact solution per group), longest groups first (better
    load balance): on ``executor``, on ``jobs`` joblib workers, or here; ``record`` receives every point."""
    batches = task_groups(todo)
    by_key = {t.key: t for t in todo}
    payloads = [[(t.key, t.func, t.kwargs) for t in g] for g in batches]

    def record_all(group_outs: Iterable[list[Any]]) -> None:
        for group_out in group_outs:
            for key, out in group_out:
                record(by_key[key], out)

    if executor is not None and batches:
        record_all(executor(version, payloads))
    elif jobs > 1 and len(batches) > 1:
        # one BLAS thread per worker: the suite's work is many small products, and
        # oversubscribed BLAS threads on a 2-core machine made LAPACK calls 100× slower
        with parallel_config(backend="loky", inner_max_num_threads=1):
            par = Parallel(n_jobs=min(jobs, len(batches)), return_as="generator_unordered")
            record_all(par(delayed(_run_group_in_worker)(p, os.getpid()) for p in payloads))
    else:
        with threadpool_limits(limits=1):
            record_all(run_group(p) for p in payloads)


def _finalize(c: Check, tier: Tier, pts: dict[str, dict[str, Any]]) -> tuple[list[CheckResult], bool]:
    """The check's results from its points, and whether finalize failed: a finalize that raises gives an ``error``
    row per declared result (:func:`run_checks` first recomputes the points it read from the cache and retries:
    the fields finalize reads are the last validation of a cache entry)."""
    try:
        return c.finalize(tier, pts), False
    except Exception as exc:  # noqa: BLE001
        return [CheckResult(id=rid, kind="error", status="error", detail=f"finalize failed: {type(exc).__name__}: {exc}")
                for rid in c.result_ids(tier)], True
