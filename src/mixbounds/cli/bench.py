"""``mixbounds bench --method MODULE:FUNCTION``: measure a user's method against the lower bounds; without
``--method``, the suite's own methods (:func:`run_suite`: APAPC and the baselines, ``bench.*``).

``MODULE:FUNCTION`` is imported with the current directory first on ``sys.path`` (as ``python -m`` does), so
``examples.apapc:apapc`` works from a checkout's root; a bare NAME is looked up in the entry-point group
``mixbounds.methods``.  Everything is validated before any work: the method (imports, callable, generator
function, supports the classes asked for), the classes, the output paths.  Exit 0 when every verdict is
``optimal`` or ``suboptimal`` (a measurement, not a failure), 1 when some result is ``error`` or
``below-lower-bound``, 2 on bad usage (one line naming what is wrong, nothing written), 130 interrupted
(nothing written).

The user's code never runs in this process: the module is resolved, and the method run on every sweep point,
in a child process of its own (:mod:`mixbounds.isolation`) with a wall-clock limit per point
(``--method-timeout``, default :data:`mixbounds.isolation.METHOD_TIMEOUT_S`).  A method that hangs, calls
``sys.exit``, raises ``KeyboardInterrupt``, crashes its process or changes the instance it was given gets
``error`` on that point with the reason, and the run goes on; APAPC and the lower-bound engine on the same
point see the instance as built.  A module that exits, crashes or hangs at import is a usage error (exit 2).

``--out DIR`` is an output directory of the suite (:mod:`mixbounds.outdir`, as for ``mixbounds verify``):
a manifest, a lock (a second run on DIR is refused), and ``bench.json``, the report and ``plots/`` drawn
into a staging directory and installed as one set, refused when DIR holds the bench of another method, tier or
classes unless ``--merge`` (this run's classes replace theirs, the others are kept:
:func:`mixbounds.checks.run.merge.merge_bench_documents`) or ``--replace``.  A disk that fills while the set is
written is one line, exit 1, the previous set unchanged.  ``--scheduler ADDRESS|local:N`` runs the sweep points
on a Dask cluster (:mod:`mixbounds.checks.run.executors`, as ``verify --scheduler``); the method's module must then be
importable on the workers (a ``local:N`` cluster runs in the current directory).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from mixbounds.bench_method import classes_for, measure_plans, plans, summarize, supported
from mixbounds.checks.bench import BENCH_TIERS
from mixbounds.checks.bench import CLASSES as SUITE_CLASSES
from mixbounds.checks.run.calibration import calibrate, calibration_stats
from mixbounds.checks.run.executors import SchedulerError, open_executor, parse_scheduler
from mixbounds.checks.run.merge import MergeError, merge_bench_documents
from mixbounds.checks.run.result import _clean
from mixbounds.instances.json_file import JSONFileError, read_json
from mixbounds.isolation import METHOD_TIMEOUT_MAX_S
from mixbounds.methods import METHOD_CLASSES, MethodError, probe
from mixbounds.outdir import (
    BENCH_OUT,
    SUITE_BENCH_OUT,
    OutputDir,
    OutputError,
    atomic_write_text,
    check_dir,
    check_file,
    relative_files,
)
from mixbounds.report.bench import print_table, write_report
from mixbounds.selection import bench_selection, union
from mixbounds.verify import Options
from mixbounds.verify import run as verify_run

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


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


def _validate(args):
    """``(classes, out, json_path, scheduler)`` or an error message (nothing touched yet).

    The method is resolved in a process of its own (:func:`mixbounds.methods.probe`): this process never runs the
    user's code, so an import that exits, crashes or hangs is a one-line error here.
    """
    if not (0 < args.method_timeout <= METHOD_TIMEOUT_MAX_S):
        return f"--method-timeout {args.method_timeout:g}: must be in (0, {METHOD_TIMEOUT_MAX_S:g}] seconds"
    requested = None
    if args.classes is not None:
        requested = [c.strip() for c in args.classes.split(",") if c.strip()]
        unknown = [c for c in requested if c not in METHOD_CLASSES]
        if unknown or not requested:
            return f"--classes {args.classes!r}: unknown class {unknown[0] if unknown else '(empty)'!r} " \
                   f"(choose from {', '.join(METHOD_CLASSES)})"
    try:
        out = check_dir(args.out, "--out", subdirs=("plots",), tool="bench")
        jp = None if args.json is None else check_file(args.json, "--json", ours=is_bench_document,
                                                         ours_desc="mixbounds bench document")
        scheduler = None if args.scheduler is None else parse_scheduler(args.scheduler)
    except (OutputError, SchedulerError) as exc:
        return str(exc)
    try:
        decl = probe(args.method, timeout=args.method_timeout)
    except MethodError as exc:
        return str(exc)
    classes = classes_for(decl, requested)
    missing = supported(decl, classes)
    if missing:
        return f"method {args.method!r} does not support class {missing[0]!r} (it declares classes={decl})"
    return classes, out, jp, scheduler


def run_suite(args) -> int:
    """``mixbounds bench`` without ``--method``: the suite's own methods (APAPC and every baseline, the results
    ``bench.*`` of :mod:`mixbounds.checks.bench`) on the tier's benchmark sweeps, run and written by
    :func:`mixbounds.verify.run` as ``mixbounds verify --claims 'bench.*'`` does (results.json, report, plots; a run
    stopped at the tier's budget is a censored count).  The quick tier has no benchmark sweeps (tiers.QUICK)."""
    if args.tier.bench is None:
        return _usage(f"the suite's method benchmarks run in tiers {', '.join(t.name for t in BENCH_TIERS)} (tier "
                      f"{args.tier} has no benchmark sweeps); give --tier full, or --method to measure a method")
    classes = None
    if args.classes is not None:
        classes = [c.strip() for c in args.classes.split(",") if c.strip()]
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
    if args.method is None:
        return run_suite(args)
    if args.out is None:
        args.out = BENCH_OUT
    v = _validate(args)
    if isinstance(v, str):
        return _usage(v)
    classes, out, jp, scheduler = v
    try:
        executor = open_executor(scheduler)
    except SchedulerError as exc:
        return _usage(str(exc))
    try:
        with OutputDir(out, "bench", command=" ".join(["mixbounds"] + list(getattr(args, "argv", []))),
                       subdirs=("plots",), selection=bench_selection(args.method, args.tier.name, classes),
                       mode=getattr(args, "mode", "refuse")) as od:
            old = _merge_base(od, args) if od.previous is not None and getattr(args, "mode", "") == "merge" else None
            return _run(args, classes, od, jp, executor, old)
    except OutputError as exc:
        return _usage(str(exc))
    except SchedulerError as exc:  # a task group failed on the cluster
        print(f"mixbounds bench: error: {exc}", file=sys.stderr)
        return EXIT_FAIL
    except KeyboardInterrupt:
        print(f"\nmixbounds bench: interrupted; nothing written (the previous set in {out}, if any, is unchanged)",
              file=sys.stderr)
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
    fields = {"id": str, "class": str, "family": str, "oracle": str, "param": str, "status": str, "exponent": (int, float)}
    if not (isinstance(doc, dict) and isinstance(doc.get("results"), list) and all(
            isinstance(r, dict) and all(isinstance(r.get(k), t) for k, t in fields.items()) for r in doc["results"])):
        raise OutputError(f"--merge: --out {od.path}: its bench.json is not a bench document (every result needs "
                          f"{', '.join(fields)}): --replace, or choose another --out")
    for key, mine in (("method", args.method), ("tier", args.tier.name)):
        if doc.get(key) != mine:
            raise OutputError(f"--merge: --out {od.path}: holds the bench of {key} {doc.get(key)}, this run's is "
                              f"{mine}: not one set (--replace, or choose another --out)")
    return doc


def _run(args, classes, od, jp, executor, old: dict | None = None) -> int:
    """Measure, then write ``bench.json``, the report and ``plots/`` as one set into the held directory ``od``."""
    pl = plans(args.tier, classes)
    where = f"jobs {args.jobs}" if executor is None else f"scheduler {executor.describe()}"
    print(f"mixbounds bench: {args.method} on {', '.join(classes)}, tier {args.tier}, {len(pl)} sweeps, "
          f"{where}", file=sys.stderr)
    t0 = time.perf_counter()

    tty = sys.stderr.isatty()

    def progress(done, total, task):  # one line per tenth of the points when not on a terminal
        if tty or done == total or done % max(1, total // 10) == 0:
            print(f"{chr(13) if tty else ''}  {done}/{total} points, {time.perf_counter() - t0:.0f} s  "
                  f"{task.label[:60]:<60}", end="" if tty else "\n", file=sys.stderr, flush=True)

    results, stats = measure_plans(args.method, pl, args.tier, jobs=args.jobs, progress=progress, executor=executor,
                                   timeout=args.method_timeout)
    if tty:
        print(file=sys.stderr)
    if executor is not None:
        stats["scheduler"] = str(executor.spec)
    stats.update(calibration_stats(calibrate()))  # this machine's seconds for the reference workload, now
    doc = _clean({"version": 1, "method": args.method, "tier": args.tier.name, "classes": classes, "results": results,
                  "summary": summarize(results), "stats": dict(stats, wall_time=time.perf_counter() - t0),
                  "command": " ".join(["mixbounds"] + list(getattr(args, "argv", [])))})
    if old is not None:  # --merge: this run's classes replace theirs in the set (mixbounds.checks.run.merge)
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
        text = json.dumps(doc, indent=1)
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
    print(f"Wrote {od.path}/bench.json, report.md, report.html, plots/; {time.perf_counter() - t0:.1f} s wall")
    return EXIT_FAIL if bad else EXIT_OK
