"""Progress of a run over its sweep points: a bar on a terminal, a line per ~10 % in a log, with a remaining time.

The remaining time is :class:`mixbounds.checks.run.eta.Eta`'s: every point still to run at its duration in the last
run written to the same directory (:func:`task_history`), scaled by this run's speed, or else at the measured
durations of this run's finished points of its kind; summed and divided by the worker processes.  Between two
finished points it counts down with the clock.  Its column reads ``eta ~0:18:26 (last run's times)`` or ``(by task
kind)`` so that it says what it rests on.
"""

from __future__ import annotations

import time
from pathlib import Path

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from mixbounds.checks.run.eta import Eta, format_eta
from mixbounds.instances.json_file import JSONFileError, read_json


def task_history(out) -> dict:
    """Task key → seconds, as the last run written to directory ``out`` recorded them (``stats.task_seconds`` of its
    ``results.json``); empty when there is none or it cannot be read."""
    try:
        doc = read_json(Path(out) / "results.json")
    except (OSError, JSONFileError):
        return {}
    secs = (doc.get("stats") or {}).get("task_seconds") if isinstance(doc, dict) else None
    return secs if isinstance(secs, dict) else {}


class EtaColumn(ProgressColumn):
    """The bar's remaining-time column, read from a :class:`ProgressReporter`."""

    def __init__(self, reporter: "ProgressReporter"):
        super().__init__()
        self.reporter = reporter

    def render(self, task) -> Text:
        return Text(f"eta ~{format_eta(self.reporter.remaining())} ({self.reporter.basis})", style="progress.remaining")


class ProgressReporter:
    """Progress over tasks: a rich bar on a terminal, otherwise one line per ~10 % (never spams a log).

    ``tasks`` are the tasks still to run (the cached ones are not), ``workers`` the processes running them,
    ``history`` the last run's durations (:func:`task_history`).
    """

    takes_seconds = True  # mixbounds.checks.run.framework.run_checks passes each point's measured seconds

    def __init__(self, console, total: int, cached: int, tasks=(), workers: int = 1, history: dict | None = None):
        self.console, self.total, self.cached = console, total, cached
        self.t0 = time.perf_counter()
        self.bar = None
        self.last_decile = -1
        self.live = console.is_terminal and total > cached
        self.eta = Eta(tasks, workers, history)
        known = len(self.eta.pending) - self.eta.unknown
        self.basis = ("last run's times" if self.eta.unknown == 0 else "last run's times and task kinds") if known \
            else "by task kind"
        self._left: float | None = None
        self._at = self.t0

    def remaining(self) -> float | None:
        """Seconds left: the estimate at the last finished point, minus the time since (never below 0)."""
        if self._left is None:
            return None
        return max(0.0, self._left - (time.perf_counter() - self._at))

    def __enter__(self):
        if self.live:
            self.bar = Progress(SpinnerColumn(), TextColumn("sweep points"), BarColumn(), MofNCompleteColumn(),
                                TimeElapsedColumn(), EtaColumn(self), TextColumn("[dim]{task.description}"),
                                console=self.console, transient=True)
            self.bar.__enter__()
            self.task = self.bar.add_task("", total=self.total, completed=self.cached)
        return self

    def __call__(self, done: int, total: int, task, seconds=None) -> None:
        self.eta.record(task, seconds)
        self._left, self._at = self.eta.remaining(), time.perf_counter()
        if self.bar is not None:
            self.bar.update(self.task, completed=done, total=total, description=(task.label or task.name)[:60])
            return
        decile = int(10 * done / max(total, 1))
        if decile > self.last_decile:
            self.last_decile = decile
            el = time.perf_counter() - self.t0
            eta = "" if done >= total else f"  eta ~{format_eta(self.remaining())} ({self.basis})"
            self.console.print(f"  {100 * done / max(total, 1):5.1f}%  {done}/{total} points  {el:7.1f} s{eta}  "
                               f"(last: {_short(task.label or task.name, 70)})", markup=False, highlight=False,
                               soft_wrap=True)

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.__exit__(*exc)
        return False


def _short(s: str, n: int) -> str:
    s = " ".join(str(s).split())
    return s if len(s) <= n else s[: n - 1] + "…"
