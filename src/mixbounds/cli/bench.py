"""``mixbounds bench --method MODULE:FUNCTION``: measure a user's method against the lower bounds; without
``--method``, the suite's own methods (:func:`run_suite`: APAPC and the baselines, ``bench.*``).

``MODULE:FUNCTION`` is imported with the current directory first on ``sys.path`` (as ``python -m`` does), so
``examples.apapc:apapc`` works from a checkout's root; a bare NAME is looked up in the entry-point group
``mixbounds.methods``.  Everything is validated before any work: the method (imports, callable, generator
function, supports the classes asked for), the classes, the output paths.  Exit 0 when every verdict is
``optimal``, ``suboptimal`` or ``inconclusive`` (a measurement, not a failure), 1 when some result is ``error`` or
``below-lower-bound``, 2 on bad usage (one line naming what is wrong, nothing written), 130 interrupted
(nothing written).

The user's code never runs in this process: the module is resolved, and the method run on every sweep point,
in a child process of its own (:mod:`mixbounds.isolation`) with a wall-clock limit per point
(``--method-timeout``, default :data:`mixbounds.isolation.METHOD_TIMEOUT_S`) and a watchdog on its yields
(``--yield-timeout``, default :data:`mixbounds.isolation.YIELD_TIMEOUT_S`).  A method that hangs, calls
``sys.exit``, raises ``KeyboardInterrupt``, crashes its process or changes the instance it was given gets
``error`` on that point with the reason, and the run goes on; APAPC and the lower-bound engine on the same
point see the instance as built.  A module that exits, crashes or hangs at import is a usage error (exit 2).

``--out DIR`` is an output directory of the suite (:mod:`mixbounds.outdir`, as for ``mixbounds verify``):
a manifest, a lock (a second run on DIR is refused), and ``bench.json``, the report, ``plots/`` and ``method.log``
(whatever the method printed, point by point: never the table) drawn into a staging directory and installed as one
set.  The references (APAPC and the lower-bound engine on every point) are cached in ``DIR/.cache`` (or
``--cache-dir``, e.g. a verify's ``mixbounds-results/.cache``: the same tasks) by task and code version, so a second
bench runs only the method.  The set is refused when DIR holds the bench of another method, method arguments,
tier, classes or filters unless ``--merge`` (this run's results replace theirs, the others are kept:
:func:`mixbounds.checks.run.merge.merge_bench_documents`) or ``--replace``; a disk that fills while the set is
written is one line, exit 1, the previous set unchanged.  Before running, the command prints its plan and a cost estimate; while running, a
progress line with an ETA.  ``--scheduler ADDRESS|local:N`` runs the sweep points
on a Dask cluster (:mod:`mixbounds.checks.run.executors`, as ``verify --scheduler``); the method's module must then be
importable on the workers (a ``local:N`` cluster runs in the current directory).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from mixbounds.bench_method import (
    RunOptions,
    classes_for,
    measure_plans,
    plans,
    reference_estimate,
    supported,
)
from mixbounds.bench_verdict import summarize
from mixbounds.checks.bench import BENCH_TIERS, ORACLES_OF
from mixbounds.checks.bench import CLASSES as SUITE_CLASSES
from mixbounds.checks.run.calibration import calibrate, calibration_stats
from mixbounds.checks.run.executors import SchedulerError, open_executor, parse_scheduler
from mixbounds.checks.run.merge import MergeError, merge_bench_documents
from mixbounds.checks.run.result import json_clean
from mixbounds.checks.sweeps import CLASS_FAMILIES, WORST_FAMILY
from mixbounds.instances.json_file import JSONFileError, read_json
from mixbounds.isolation import METHOD_TIMEOUT_MAX_S, YIELD_TIMEOUT_MAX_S
from mixbounds.methods import METHOD_CLASSES, MethodError, parse_method_args, probe
from mixbounds.outdir import (
    BENCH_OUT,
    SUITE_BENCH_OUT,
    OutputDir,
    OutputError,
    atomic_write_text,
    check_cache_dir,
    check_dir,
    check_file,
    relative_files,
)
from mixbounds.report.bench import print_table, write_report
from mixbounds.selection import bench_selection, union
from mixbounds.verify import Options
from mixbounds.verify import run as verify_run

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
#: largest --max-iter accepted (10⁸ yields: days for any method at the suite's sizes)
MAX_ITER_MAX = 100_000_000
#: seconds per method point assumed by the cost estimate where the reference cache has no APAPC time for the point
#: (a first run: the estimate says so): the median of APAPC's 20 quick-tier coupled tasks, 4.3 s (0.3–54.7 s, instance
#: and reference included, under a load average of 10–17 on the 2-core machine)
GUESS_POINT_S = 4.0


def _usage(msg: str) -> int:
    print(f"mixbounds bench: error: {msg}", file=sys.stderr)
    return EXIT_USAGE


def is_bench_document(path: Path) -> bool:
    """Whether ``path`` holds a ``bench.json`` of this command (so ``--json`` may replace it)."""
    try:
        doc = read_json(path)
    except (OSError, JSONFileError):
        return False
    return isinstance(doc, dict) and isinstance(doc.get("method"), str) and isinstance(doc.get("results"), list)


def _csv(value: str | None) -> list[str] | None:
    return None if value is None else [c.strip() for c in value.split(",") if c.strip()]


def _filters(args, classes) -> tuple | str:
    """``(params, kinds, oracles)`` of ``--params``, ``--families``, ``--oracles`` checked against ``classes``."""
    params, fams, oracles = _csv(args.params), _csv(args.families), _csv(args.oracles)
    known_p = sorted({p for c in classes for p in CLASS_FAMILIES[c][2]})
    known_f = ["worst", "random"] + sorted({WORST_FAMILY[c] for c in classes} | {CLASS_FAMILIES[c][1] for c in classes})
    known_o = sorted({o for c in classes for o in ORACLES_OF[c]})
    for opt, given, known in (("--params", params, known_p), ("--families", fams, known_f),
                              ("--oracles", oracles, known_o)):
        if given is not None:
            bad = [g for g in given if g not in known] or ([] if given else ["(empty)"])
            if bad:
                return f"{opt} {','.join(given) or repr('')}: unknown {bad[0]!r} for classes {', '.join(classes)} " \
                       f"(choose from {', '.join(known)})"
    return params, tuple(fams) if fams is not None else ("worst", "random"), oracles


def _validate(args):
    """``(classes, out, json_path, scheduler, plans, oracles, opts, cache)`` or an error message (nothing touched yet).

    The method is resolved in a process of its own (:func:`mixbounds.methods.probe`): this process never runs the
    user's code, so an import that exits, crashes or hangs is a one-line error here.
    """
    if not (0 < args.method_timeout <= METHOD_TIMEOUT_MAX_S):
        return f"--method-timeout {args.method_timeout:g}: must be in (0, {METHOD_TIMEOUT_MAX_S:g}] seconds"
    if not (0 < args.yield_timeout <= YIELD_TIMEOUT_MAX_S):
        return f"--yield-timeout {args.yield_timeout:g}: must be in (0, {YIELD_TIMEOUT_MAX_S:g}] seconds"
    if not (1 <= args.max_iter <= MAX_ITER_MAX):
        return f"--max-iter {args.max_iter}: must be in [1, {MAX_ITER_MAX}] iterations"
    try:
        kwargs = parse_method_args(args.method_arg)
    except MethodError as exc:
        return str(exc)
    requested = _csv(args.classes)
    if requested is not None:
        unknown = [c for c in requested if c not in METHOD_CLASSES]
        if unknown or not requested:
            return f"--classes {args.classes!r}: unknown class {unknown[0] if unknown else '(empty)'!r} " \
                   f"(choose from {', '.join(METHOD_CLASSES)})"
    try:
        out = check_dir(args.out, "--out", subdirs=("plots",), tool="bench")
        jp = None if args.json is None else check_file(args.json, "--json", ours=is_bench_document,
                                                         ours_desc="mixbounds bench document")
        cache = None if args.no_cache else check_cache_dir(Path(args.cache_dir) if args.cache_dir else out / ".cache",
                                                           "--cache-dir" if args.cache_dir else "reference cache")
        scheduler = None if args.scheduler is None else parse_scheduler(args.scheduler)
    except (OutputError, SchedulerError) as exc:
        return str(exc)
    try:
        decl = probe(args.method, timeout=args.method_timeout, kwargs=kwargs)
    except MethodError as exc:
        return str(exc)
    classes = classes_for(decl, requested)
    missing = supported(decl, classes)
    if missing:
        return f"method {args.method!r} does not support class {missing[0]!r} (it declares classes={decl})"
    f = _filters(args, classes)
    if isinstance(f, str):
        return f
    params, kinds, oracles = f
    pl = plans(args.tier, classes, params=params, kinds=kinds)
    if not pl:
        return (f"no sweep left: --params {args.params or '(all)'} and --families {args.families or '(all)'} select "
                f"none of the sweeps of {', '.join(classes)}")
    opts = RunOptions(max_iter=args.max_iter, timeout=args.method_timeout, yield_timeout=args.yield_timeout,
                      method_args=tuple(sorted(kwargs.items())))
    return classes, out, jp, scheduler, pl, oracles, opts, cache


def run_suite(args) -> int:
    """``mixbounds bench`` without ``--method``: the suite's own methods (APAPC and every baseline, the results
    ``bench.*`` of :mod:`mixbounds.checks.bench`) on the tier's benchmark sweeps, run and written by
    :func:`mixbounds.verify.run` as ``mixbounds verify --claims 'bench.*'`` does (results.json, report, plots; a run
    stopped at the tier's budget is a censored count).  The quick tier has no benchmark sweeps (tiers.QUICK).  The
    options of a user's method (``--method-arg``, ``--params`` …) do not apply and are refused."""
    if args.tier.bench is None:
        return _usage(f"the suite's method benchmarks run in tiers {', '.join(t.name for t in BENCH_TIERS)} (tier "
                      f"{args.tier} has no benchmark sweeps); give --tier full, or --method to measure a method")
    given = [opt for opt, val in (("--method-arg", args.method_arg), ("--params", args.params),
                                  ("--families", args.families), ("--oracles", args.oracles),
                                  ("--cache-dir", args.cache_dir)) if val]
    if given:
        return _usage(f"{given[0]} applies to a user's method (--method MODULE:FUNCTION), not to the suite's own "
                      f"benchmarks")
    classes = None
    if args.classes is not None:
        classes = _csv(args.classes) or []
        unknown = [c for c in classes if c not in SUITE_CLASSES]
        if unknown or not classes:
            return _usage(f"--classes {args.classes!r}: unknown class {unknown[0] if unknown else '(empty)'!r} "
                          f"(choose from {', '.join(SUITE_CLASSES)})")
    claims = ",".join(f"bench.{c}.*" for c in classes) if classes else "bench.*"
    out = Path(args.out if args.out is not None else SUITE_BENCH_OUT)
    command = " ".join(["mixbounds"] + list(getattr(args, "argv", [])))
    return verify_run(Options(tier=args.tier, claims=claims, jobs=args.jobs, out=out,
                              json=None if args.json is None else Path(args.json), command=command,
                              scheduler=args.scheduler, mode=getattr(args, "mode", "refuse")))


def run_bench(args) -> int:
    """The command on parsed arguments (the parser: :func:`mixbounds.cli.command.build_parser`)."""
    args.t_start = time.perf_counter()
    if args.method is None:
        return run_suite(args)
    if args.out is None:
        args.out = BENCH_OUT
    v = _validate(args)
    if isinstance(v, str):
        return _usage(v)
    classes, out, jp, scheduler, pl, oracles, opts, cache = v
    try:
        executor = open_executor(scheduler)
    except SchedulerError as exc:
        return _usage(str(exc))
    try:
        selection = bench_selection(args.method, args.tier.name, classes, method_args=dict(opts.method_args),
                                    filters={"params": _csv(args.params), "families": _csv(args.families),
                                             "oracles": _csv(args.oracles)})
        with OutputDir(out, "bench", command=" ".join(["mixbounds"] + list(getattr(args, "argv", []))),
                       subdirs=("plots",), selection=selection, mode=getattr(args, "mode", "refuse")) as od:
            old = _merge_base(od, args) if od.previous is not None and getattr(args, "mode", "") == "merge" else None
            return _run(args, classes, od, jp, executor, pl, oracles, opts, cache, old)
    except OutputError as exc:
        return _usage(str(exc))
    except SchedulerError as exc:  # a task group failed on the cluster
        print(f"mixbounds bench: error: {exc}", file=sys.stderr)
        return EXIT_FAIL
    except KeyboardInterrupt:
        print(f"\nmixbounds bench: interrupted; nothing written (the previous set in {out}, if any, is unchanged; "
              f"cached references are kept)", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        if executor is not None:
            executor.close()


def _merge_base(od, args) -> dict:
    """``bench --merge``: the set's ``bench.json``, read and checked before any work (:class:`OutputError` if it
    cannot be read, or holds another method or tier: :func:`mixbounds.checks.run.merge.merge_bench_documents`)."""
    try:
        doc = read_json(od.path / "bench.json")
    except (OSError, JSONFileError) as exc:
        raise OutputError(f"--merge: --out {od.path}: cannot read its bench.json ({exc})") from None
    fields = {"id": str, "class": str, "family": str, "oracle": str, "param": str, "status": str}
    if not (isinstance(doc, dict) and isinstance(doc.get("results"), list) and all(
            isinstance(r, dict) and all(isinstance(r.get(k), t) for k, t in fields.items()) for r in doc["results"])):
        raise OutputError(f"--merge: --out {od.path}: its bench.json is not a bench document (every result needs "
                          f"{', '.join(fields)}): --replace, or choose another --out")
    for key, mine in (("method", args.method), ("tier", args.tier.name)):
        if doc.get(key) != mine:
            raise OutputError(f"--merge: --out {od.path}: holds the bench of {key} {doc.get(key)}, this run's is "
                              f"{mine}: not one set (--replace, or choose another --out)")
    return doc


def _estimate(pl, cache, jobs: int) -> str:
    """The plan and its cost, before any work: points × expected seconds (:func:`reference_estimate`)."""
    est = reference_estimate(pl, cache)
    n, known = est["method_points"], est["apapc_seconds"]
    secs = sum(known) + GUESS_POINT_S * max(0, n - len(known))
    basis = (f"APAPC's measured seconds on {len(known)} of the {n} points (reference cache)"
             + (f", {GUESS_POINT_S:g} s for the others" if len(known) < n else "") if known else
             f"{GUESS_POINT_S:g} s per point (no APAPC times cached yet)")
    return (f"  {n} method points; references: {est['cached']} of {est['references']} cached, "
            f"{est['references'] - est['cached']} to compute\n"
            f"  cost estimate: {n} points × ~{secs / max(n, 1):.1f} s = ~{secs:.0f} s of method time, ~"
            f"{secs / max(jobs, 1):.0f} s wall with {jobs} job(s), for a method that costs what APAPC costs ({basis})")


def _progress(t0: float):
    """The progress callback: a line per tenth of the points (or a live line on a terminal) with an ETA from the
    measured rate of the points computed so far."""
    tty = sys.stderr.isatty()
    first: dict = {}

    def progress(done, total, task):
        now = time.perf_counter()
        first.setdefault("done", done - 1)
        first.setdefault("t", t0)
        computed = done - first["done"]
        rate = (now - first["t"]) / max(computed, 1)
        eta = rate * (total - done)
        if tty or done == total or done % max(1, total // 10) == 0:
            print(f"{chr(13) if tty else ''}  {done}/{total} points, {now - t0:.0f} s, ETA {eta:.0f} s  "
                  f"{task.label[:56]:<56}", end="" if tty else "\n", file=sys.stderr, flush=True)

    return progress


def _run(args, classes, od, jp, executor, pl, oracles, opts, cache, old: dict | None = None) -> int:
    """Measure, then write ``bench.json``, the report, ``plots/`` and ``method.log`` as one set into ``od``."""
    where = f"jobs {args.jobs}" if executor is None else f"scheduler {executor.describe()}"
    print(f"mixbounds bench: {args.method} on {', '.join(classes)}, tier {args.tier}, {len(pl)} sweeps, {where}; "
          f"budget {opts.max_iter} iterations, --yield-timeout {opts.yield_timeout:g} s, --method-timeout "
          f"{opts.timeout:g} s", file=sys.stderr)
    print(_estimate(pl, cache, args.jobs), file=sys.stderr)
    t0 = time.perf_counter()
    results, stats = measure_plans(args.method, pl, args.tier, jobs=args.jobs, progress=_progress(t0),
                                   executor=executor, opts=opts, cache_dir=cache, oracles=oracles)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    wall = time.perf_counter() - t0
    outputs = stats.pop("method_outputs", {})
    if executor is not None:
        stats["scheduler"] = str(executor.spec)
    stats.update(calibration_stats(calibrate()))  # this machine's seconds for the reference workload, now
    doc = json_clean({"version": 2, "method": args.method, "method_args": dict(opts.method_args), "tier": args.tier.name,
                  "classes": classes, "results": results, "summary": summarize(results),
                  "options": {"max_iter": opts.max_iter, "method_timeout": opts.timeout,
                              "yield_timeout": opts.yield_timeout, "params": args.params, "families": args.families,
                              "oracles": args.oracles, "cache": None if cache is None else str(cache)},
                  "stats": dict(stats, wall_time=wall),
                  "command": " ".join(["mixbounds"] + list(getattr(args, "argv", [])))})
    if old is not None:  # --merge: this run's results replace theirs in the set (mixbounds.checks.run.merge)
        try:
            doc = merge_bench_documents(old, doc, summarize)
        except MergeError as exc:
            print(f"mixbounds bench: error: --merge: --out {od.path}: {exc} (nothing written)", file=sys.stderr)
            return EXIT_USAGE
        od.selection = union(od.previous, od.selection)
        results = doc["results"]
    try:
        stage = od.stage()
        write_report(doc, stage)
        # the command's wall time up to here (validation and the method's probe, the points, the figures):
        # bench.json's wall_seconds, beside the method's own seconds per point (results[].points[].method_seconds)
        doc["wall_seconds"] = time.perf_counter() - getattr(args, "t_start", t0)
        text = json.dumps(doc, indent=1)
        atomic_write_text(stage / "method.log", "".join(f"=== {label}\n{out.rstrip()}\n" for label, out
                                                         in sorted(outputs.items())) or "(the method printed nothing)\n")
        atomic_write_text(stage / "bench.json", text)
        if jp is not None:
            atomic_write_text(jp, text)
        od.install(stage, relative_files(stage), last="bench.json")
    except (OSError, OutputError) as exc:  # a full disk: the staged set is dropped, the previous one stays
        print(f"mixbounds bench: error: could not write outputs ({exc.strerror if isinstance(exc, OSError) else exc}); "
              f"the previous set in {od.path}, if any, is unchanged", file=sys.stderr)
        return EXIT_FAIL
    print_table(doc)
    bad = [r for r in results if r["status"] in ("error", "below-lower-bound")]
    print(f"Wrote {od.path}/bench.json, report.md, report.html, plots/, method.log"
          f"{f' ({len(outputs)} points printed output)' if outputs else ''}; {doc['wall_seconds']:.1f} s wall "
          f"({stats.get('method_seconds', 0.0):.1f} s in the method's processes)")
    return EXIT_FAIL if bad else EXIT_OK
