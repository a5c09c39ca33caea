"""A simulated cluster: the wall time of a recorded ``mixbounds verify`` run on W workers (issue 38, item 4).

A run's sweep points are task groups (the tasks of one instance, run one after the other in one process:
:func:`mixbounds.checks.run.framework.task_groups`), independent of each other; everything else of the run is
serial: the set-up before the first point (selection, plan, cluster start, cache reading), the checks' verdicts
(``finalize``), the results document, the figures (drawn on the run's ``--jobs`` processes, not on the cluster)
and the report.  ``results.json`` records each task's measured seconds, the groups in the order they were
submitted, and the serial phases (``stats``: :func:`mixbounds.checks.run.framework.task_timing`).  This module
replays the groups on W identical workers by list scheduling, longest group first (LPT, Graham 1969: at most
``4/3 − 1/(3W)`` times the optimal schedule), and adds the serial parts::

    python -m mixbounds.checks.run.schedule RUN_DIR [--workers 2,8,16,64] [--markdown]

It prints, per W: the predicted wall, a lower bound ``serial + max(total/W, longest group)`` (no schedule of
these groups on W workers can be shorter), the points phase's efficiency ``total / (W × points phase)`` and the
speed-up over one worker, then the critical path (the serial parts and the longest group: the wall no number of
workers goes below) and the five groups on the last worker to finish at each W.  For the run's own worker count it
also replays the groups in their submitted order (what joblib and Dask do: the next group to the next free worker)
against the measured points phase: that is the model's check.  ``--markdown`` prints the same table as a record for
the docs (:func:`record_markdown`), with the task seconds by kind and the longest tasks, raw and in calibration units.

What the model leaves out: per-group dispatch and transfer costs, worker start-up beyond the measured set-up,
durations that change with the machine (the recorded ones were measured on the run's machine, under its load), and
the figures, which stay on the client.  Bad input: one line naming what is wrong, exit 2.
"""

from __future__ import annotations

import argparse
import heapq
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path

#: worker counts printed when ``--workers`` is not given
DEFAULT_WORKERS = (1, 2, 8, 16, 64)
#: how many groups of the last worker to finish are listed per worker count
BOTTLENECK_SHOWN = 5
#: the serial phases of a run, in the order they happen, as ``stats`` keys (``wall_time`` ends after ``figures``;
#: the report is rendered after it)
SERIAL_PHASES = (("set-up", "setup_seconds"), ("verdicts", "finalize_seconds"), ("document", "document_seconds"),
                 ("figures", "plot_seconds"), ("report", "report_seconds"))
#: two schedule lengths within this relative tolerance are the same (float sums in another order)
SAME_REL = 1e-9


class ScheduleError(ValueError):
    """A run directory or option the simulation cannot use (the message is the one-line reason)."""


@dataclass(frozen=True)
class Group:
    """One task group: what a worker receives.  ``tasks``: ``(label, seconds)`` in the order they ran."""

    tasks: tuple[tuple[str, float], ...]

    @property
    def seconds(self) -> float:
        return math.fsum(s for _, s in self.tasks)

    @property
    def label(self) -> str:
        """The label of the group's longest task, and how many more tasks share its instance."""
        if not self.tasks:
            return "(no tasks)"
        name = max(self.tasks, key=lambda t: t[1])[0]
        more = len(self.tasks) - 1
        return name + (f" (+{more} task{'s' if more > 1 else ''} on its instance)" if more else "")


@dataclass(frozen=True)
class RunTiming:
    """The recorded timing of one run.

    ``groups`` in submitted order; ``serial``: phase name → seconds (:data:`SERIAL_PHASES`, then ``other``: the
    rest of ``wall_time`` no phase covers); ``points_seconds``: the measured points phase; ``wall``: ``wall_time``
    plus the report; ``workers``: the run's own parallelism (``local:N``, or ``--jobs``; ``None`` on a remote
    cluster, whose size the document does not record); ``cached``: tasks whose seconds come from the cache (measured
    by the run that computed them).
    """

    groups: tuple[Group, ...]
    serial: dict
    points_seconds: float
    wall: float
    workers: int | None
    cached: int
    source: str

    @property
    def serial_seconds(self) -> float:
        return math.fsum(self.serial.values())

    @property
    def total(self) -> float:
        return math.fsum(g.seconds for g in self.groups)

    @property
    def longest(self) -> Group:
        """The longest group (an empty group for a run without tasks)."""
        return max(self.groups, key=lambda g: g.seconds, default=Group(()))


@dataclass(frozen=True)
class Schedule:
    """``durations`` placed on ``workers`` identical workers: ``assignment[w]`` lists the indices worker ``w`` runs,
    ``loads[w]`` its busy time; ``makespan`` the largest load."""

    workers: int
    assignment: tuple[tuple[int, ...], ...]
    loads: tuple[float, ...]

    @property
    def makespan(self) -> float:
        return max(self.loads)

    @property
    def last_worker(self) -> int:
        return max(range(self.workers), key=lambda w: self.loads[w])


def _check_workers(workers) -> int:
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ScheduleError(f"workers must be a positive integer, got {workers!r}")
    return workers


def list_schedule(durations, workers: int, *, longest_first: bool = True) -> Schedule:
    """List scheduling: each job, in turn, to the worker that is free first (the lowest-numbered on a tie).

    Parameters
    ----------
    durations : sequence of float
        Job lengths (seconds), non-negative.
    workers : int
        Identical workers, ≥ 1.
    longest_first : bool
        ``True``: the jobs in decreasing length (LPT); ``False``: in the given order (the order a run submitted them,
        which joblib and Dask follow: the next job to the next free worker).

    Returns
    -------
    Schedule
        The assignment and every worker's load; ``makespan`` is the simulated length of the phase.
    """
    workers = _check_workers(workers)
    d = [float(x) for x in durations]
    if any(not math.isfinite(x) or x < 0 for x in d):
        raise ScheduleError("durations must be finite and non-negative")
    order = sorted(range(len(d)), key=lambda i: (-d[i], i)) if longest_first else list(range(len(d)))
    heap = [(0.0, w) for w in range(workers)]
    jobs: list[list[int]] = [[] for _ in range(workers)]
    loads = [0.0] * workers
    for i in order:
        load, w = heapq.heappop(heap)
        jobs[w].append(i)
        loads[w] = load + d[i]
        heapq.heappush(heap, (loads[w], w))
    return Schedule(workers, tuple(tuple(j) for j in jobs), tuple(loads))


def lower_bound(durations, workers: int) -> float:
    """``max(total / W, longest job)``: no schedule of ``durations`` on ``workers`` workers is shorter."""
    workers = _check_workers(workers)
    d = [float(x) for x in durations]
    return max(math.fsum(d) / workers, max(d, default=0.0))


@dataclass(frozen=True)
class Prediction:
    """The simulated run on ``workers`` workers (seconds); ``schedule`` places the run's groups by LPT, ``longest``
    is the longest group."""

    workers: int
    wall: float
    lower: float
    points: float
    efficiency: float
    speedup: float
    longest: float
    schedule: Schedule

    @property
    def group_bound(self) -> bool:
        """Whether the points phase is the longest group alone (more workers cannot shorten it)."""
        return self.points <= self.longest * (1 + SAME_REL)


def predict(run: RunTiming, workers: int) -> Prediction:
    """The wall of ``run`` on ``workers`` workers: its serial parts plus the LPT schedule of its groups."""
    d = [g.seconds for g in run.groups]
    sch = list_schedule(d, workers)
    one = run.serial_seconds + run.total
    wall = run.serial_seconds + sch.makespan
    eff = run.total / (workers * sch.makespan) if sch.makespan > 0 else 1.0
    return Prediction(workers=workers, wall=wall, lower=run.serial_seconds + lower_bound(d, workers),
                      points=sch.makespan, efficiency=eff, speedup=one / wall if wall > 0 else 1.0,
                      longest=max(d, default=0.0), schedule=sch)


# ----------------------------------------------------------------------------- reading a run
def _number(v, what: str, where: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
        raise ScheduleError(f"{where}: {what} = {v!r} is not a non-negative number")
    return float(v)


def _run_workers(stats: dict) -> int | None:
    sched = stats.get("scheduler")
    if isinstance(sched, str):
        return int(sched[len("local:"):]) if sched.startswith("local:") and sched[6:].isdigit() else None
    jobs = stats.get("jobs")
    return jobs if isinstance(jobs, int) and not isinstance(jobs, bool) and jobs >= 1 else None


def read_run(path) -> RunTiming:
    """The recorded timing of the run whose output directory (or ``results.json``) is ``path``.

    ``ScheduleError`` with a one-line reason when the file is missing, unreadable, not a results document, or
    written before task durations were recorded (``stats.task_seconds``).
    """
    p = Path(path)
    f = p / "results.json" if p.is_dir() else p
    where = str(f)
    try:
        doc = json.loads(f.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ScheduleError(f"{where}: no such file (give a 'mixbounds verify --out' directory or its results.json)"
                            ) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ScheduleError(f"{where}: unreadable ({type(exc).__name__}: {' '.join(str(exc).split())})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("stats"), dict):
        raise ScheduleError(f"{where}: not a mixbounds results document (no 'stats' object)")
    st = doc["stats"]
    secs, groups, labels = st.get("task_seconds"), st.get("task_groups"), st.get("task_labels") or {}
    if secs is None or groups is None:
        raise ScheduleError(f"{where}: no task durations (stats.task_seconds, stats.task_groups): written by a mixbounds "
                            f"that did not record them; rerun 'mixbounds verify'")
    if not isinstance(secs, dict) or not isinstance(groups, list) or not isinstance(labels, dict):
        raise ScheduleError(f"{where}: stats.task_seconds must be an object, stats.task_groups a list")
    out, seen = [], set()
    for i, g in enumerate(groups):
        if not isinstance(g, list) or not g:
            raise ScheduleError(f"{where}: stats.task_groups[{i}] is not a non-empty list of task keys")
        tasks = []
        for k in g:
            if not isinstance(k, str) or k not in secs:
                raise ScheduleError(f"{where}: stats.task_groups[{i}]: task {k!r} has no duration in stats.task_seconds")
            if k in seen:
                raise ScheduleError(f"{where}: task {k} is in two groups")
            seen.add(k)
            tasks.append((str(labels.get(k) or k), _number(secs[k], f"stats.task_seconds[{k!r}]", where)))
        out.append(Group(tuple(tasks)))
    wall = _number(doc.get("wall_time"), "wall_time", where)
    points = _number(st.get("points_seconds"), "stats.points_seconds", where)
    serial = {name: _number(st.get(key, 0.0), f"stats.{key}", where) for name, key in SERIAL_PHASES}
    covered = math.fsum(v for k, v in serial.items() if k != "report") + points
    serial["other"] = max(wall - covered, 0.0)
    cached = st.get("task_cached") or []
    return RunTiming(groups=tuple(out), serial=serial, points_seconds=points, wall=wall + serial["report"],
                     workers=_run_workers(st), cached=len(cached) if isinstance(cached, list) else 0, source=where)


# ----------------------------------------------------------------------------- the report
def parse_workers(spec: str) -> list[int]:
    """``"2,8,16,64"`` → ``[2, 8, 16, 64]``; ``ScheduleError`` for anything but positive integers."""
    out = []
    for part in str(spec).split(","):
        s = part.strip()
        if not s.isdigit() or int(s) < 1:
            raise ScheduleError(f"--workers {spec!r}: {s!r} is not a positive integer (e.g. --workers 2,8,16,64)")
        out.append(int(s))
    return sorted(set(out))


def _s(x: float) -> str:
    return f"{x:.1f}" if x >= 10 else f"{x:.2f}"


def report(run: RunTiming, workers: list[int]) -> list[str]:
    """The printed simulation: the table, the model's check at the run's own worker count, the critical path and the
    groups that bound each row."""
    d = [g.seconds for g in run.groups]
    ntasks = sum(len(g.tasks) for g in run.groups)
    lines = [f"{run.source}: {ntasks} tasks in {len(run.groups)} groups, {_s(run.total)} s of task time"
             + (f" ({run.cached} tasks' seconds from the cache, measured by an earlier run)" if run.cached else "")
             + f"; serial {_s(run.serial_seconds)} s ("
             + ", ".join(f"{k} {_s(v)}" for k, v in run.serial.items()) + ")"]
    preds = [predict(run, w) for w in workers]
    head = ("workers", "predicted wall s", "lower bound s", "points phase s", "efficiency", "speed-up", "bounded by")
    rows = [(str(p.workers), _s(p.wall), _s(p.lower), _s(p.points), f"{p.efficiency:.2f}", f"{p.speedup:.2f}",
             "longest group" if p.group_bound else "load") for p in preds]
    width = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    lines += ["", "  ".join(h.rjust(w) for h, w in zip(head, width))]
    lines += ["  ".join(c.rjust(w) for c, w in zip(r, width)) for r in rows]
    if run.workers is not None:
        w = run.workers
        lpt = list_schedule(d, w).makespan
        sub = list_schedule(d, w, longest_first=False).makespan
        lines += ["", f"check at this run's {w} worker(s): points phase measured {_s(run.points_seconds)} s, simulated "
                      f"{_s(lpt)} s (LPT) / {_s(sub)} s (submitted order); wall measured {_s(run.wall)} s, simulated "
                      f"{_s(run.serial_seconds + sub)} s (submitted order)"]
    lg = run.longest
    lines += ["", f"critical path {_s(run.serial_seconds + lg.seconds)} s: serial {_s(run.serial_seconds)} s + the longest "
                  f"group {_s(lg.seconds)} s: {lg.label if lg.tasks else 'the run has no tasks'}"]
    for p in preds:
        sch = p.schedule
        last = sorted(sch.assignment[sch.last_worker], key=lambda i: -d[i])
        shown = "; ".join(f"{_s(d[i])} s {run.groups[i].label}" for i in last[:BOTTLENECK_SHOWN])
        more = f"; … {len(last) - BOTTLENECK_SHOWN} more" if len(last) > BOTTLENECK_SHOWN else ""
        lines.append(f"  W={p.workers}: last worker {_s(sch.makespan)} s, {len(last)} group{'s' if len(last) != 1 else ''}: {shown}{more}")
    return lines


#: tasks listed by duration in the Markdown record
RECORD_TOP = 25


def _md_row(cells) -> str:
    return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"


def _md_table(head, rows) -> list[str]:
    return [_md_row(head), _md_row(["---"] * len(head)), *(_md_row(r) for r in rows)]


def record_markdown(run: RunTiming, workers: list[int], doc: dict) -> list[str]:
    """A record of the run for the docs (``--markdown``): its provenance and calibration, the simulated cluster
    table, the task seconds by kind (a label's first word) and the longest tasks, every duration raw and in
    calibration units (``u``, :mod:`mixbounds.checks.run.calibration`) when the run has a calibration."""
    st = doc.get("stats") or {}
    cal = st.get("calibration_seconds")
    cal = float(cal) if isinstance(cal, (int, float)) and not isinstance(cal, bool) and cal > 0 else None

    def t(x: float) -> str:
        return f"{_s(x)} s" + (f" ({x / cal:.1f} u)" if cal else "")

    ntasks = sum(len(g.tasks) for g in run.groups)
    out = [f"Generated by `python -m mixbounds.checks.run.schedule {run.source} --markdown` from the run "
           f"`{doc.get('command', '?')}` (tier {doc.get('tier', '?')}, code {st.get('code_version', '?')}, started "
           f"{doc.get('started', '?')}): wall {t(run.wall)}, {ntasks} tasks in {len(run.groups)} groups, "
           f"{t(run.total)} of task time, serial {t(run.serial_seconds)}. "
           + (f"Machine calibration of the run: {cal:.3f} s for the reference workload; `u` = seconds / calibration."
              if cal else "The run has no machine calibration: times are raw only."), ""]
    preds = [predict(run, w) for w in workers]
    out += _md_table(["workers", "predicted wall", "lower bound", "points phase", "efficiency", "speed-up",
                      "bounded by"],
                     [[p.workers, t(p.wall), t(p.lower), t(p.points), f"{p.efficiency:.2f}", f"{p.speedup:.2f}",
                       "longest group" if p.group_bound else "load"] for p in preds])
    lg = run.longest
    out += ["", f"Critical path {t(run.serial_seconds + lg.seconds)}: the serial phases and the longest group "
                f"({lg.label}).", ""]
    kinds: dict[str, list[float]] = {}
    tasks = [(label, sec) for g in run.groups for label, sec in g.tasks]
    for label, sec in tasks:
        kinds.setdefault(label.split()[0] if label.split() else "?", []).append(sec)
    out += _md_table(["task kind (label's first word)", "tasks", "seconds", "share of task time"],
                     [[k, len(v), t(math.fsum(v)), f"{math.fsum(v) / run.total:.1%}" if run.total else "—"]
                      for k, v in sorted(kinds.items(), key=lambda kv: -math.fsum(kv[1]))])
    out += ["", f"The {min(RECORD_TOP, len(tasks))} longest tasks:", ""]
    out += _md_table(["task", "seconds"], [[label, t(sec)] for label, sec in sorted(tasks, key=lambda x: -x[1])[:RECORD_TOP]])
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m mixbounds.checks.run.schedule RUN_DIR [--workers LIST] [--markdown]``: 0, or 2 on bad input (one
    line)."""
    ap = argparse.ArgumentParser(prog="python -m mixbounds.checks.run.schedule",
                                 description="Predict the wall time of a recorded mixbounds verify run on W workers "
                                             "(list scheduling, longest task group first).")
    ap.add_argument("run", metavar="RUN_DIR", help="a 'mixbounds verify --out' directory, or its results.json")
    ap.add_argument("--workers", default=",".join(map(str, DEFAULT_WORKERS)), metavar="LIST",
                    help="comma-separated worker counts (default %(default)s)")
    ap.add_argument("--markdown", action="store_true",
                    help="print a record for the docs instead: provenance, calibration, the cluster table, the task "
                         "seconds by kind and the longest tasks, raw and in calibration units")
    args = ap.parse_args(argv)
    try:
        workers = parse_workers(args.workers)
        run = read_run(args.run)
    except ScheduleError as exc:
        print(f"schedule: error: {exc}", file=sys.stderr)
        return 2
    if args.markdown:
        doc = json.loads(Path(run.source).read_text(encoding="utf-8"))  # read_run has checked it
        print("\n".join(record_markdown(run, workers, doc)))
    else:
        print("\n".join(report(run, workers)))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
