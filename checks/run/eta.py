"""The time a run has left, estimated from measured task durations: this task's in the last run, else its kind's.

A run's tasks differ by orders of magnitude (an upper-bound sweep point of the quick tier takes 0.8 s on average and
up to 9 s, a Table 2 lower-bound point 0.09 s) and are handed out in an order that is not random (the task groups
with the largest cost hint first, the others in registry order).  A remaining time read from the recent rate of
completed tasks (``rich``'s ``TimeRemainingColumn``: the speed over the last completions) follows whichever kind is
finishing just now: a run of slow points then a run of fast ones made it jump from 1:29:01 to 0:18:26.

:class:`Eta` estimates instead the duration of every task still to run, and divides their sum by the workers:

* a task measured by the last run written to the same directory (its ``results.json`` keeps every task's
  ``seconds`` under its key, ``stats.task_seconds``; a task's key does not depend on the code version) is estimated
  at that duration times ``scale``, this run's speed relative to the last one (measured seconds over recorded
  seconds of the tasks finished so far, with :data:`PRIOR_SECONDS` of prior weight on 1: a busier machine scales
  every estimate at once);
* any other task from the tasks *of its kind* (the task function, ``module:function``) finished in this run, by its
  size (the ``_cost`` hint of its arguments where the check gives one, else 1)::

      rate(k) = (seconds_k + PRIOR · rate₀(k)) / (cost_k + PRIOR)

  with ``seconds_k``, ``cost_k`` the measured seconds and the costs of its finished tasks, and ``rate₀(k)`` the
  kind's rate in the last run times ``scale`` if the last run had it, else the average rate of this run's finished
  tasks (a kind not seen yet is estimated at the run's average until its own points come in).

No estimate is given before :data:`MIN_DONE` tasks have finished, unless the last run recorded every task still to
run.  The durations are the points' own ``seconds`` (measured in the worker), not the time between reports, so the
estimate does not depend on the order in which workers report.
"""

from __future__ import annotations

from collections import defaultdict

#: finished tasks needed before a remaining time is shown (when the last run does not know every task)
MIN_DONE = 3
#: weight, in tasks, of the prior of a kind's rate
PRIOR = 3.0
#: weight, in seconds, of the prior (1) of this run's speed relative to the last run's
PRIOR_SECONDS = 1.0


def task_kind(task) -> str:
    """The kind of a task: its function (``module:function``), whose durations are alike."""
    return getattr(task, "name", None) or str(task)


def task_cost(task) -> float:
    """A task's size relative to the others of its kind: its ``_cost`` hint, else 1."""
    kw = getattr(task, "kwargs", None) or {}
    try:
        c = float(kw.get("_cost", 1.0))
    except (TypeError, ValueError):
        return 1.0
    return c if c > 0 else 1.0


def _seconds(v) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 else None


class Eta:
    """Remaining-time estimate of a run (module docstring): built on the tasks still to run and, optionally, the
    ``history`` of a previous run (task key → seconds); fed each finished task's measured duration."""

    def __init__(self, tasks, workers: int = 1, history: dict | None = None):
        self.workers = max(1, int(workers))
        history = history or {}
        self.pending: dict[object, tuple[str, float, float | None]] = {}  # key → kind, cost, recorded seconds
        past: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])  # kind → recorded seconds, cost
        self.left_cost: dict[str, float] = defaultdict(float)  # kind → cost of its pending tasks not recorded
        self.left_recorded = 0.0  # recorded seconds of the pending tasks the last run recorded
        self.unknown = 0  # pending tasks the last run did not record
        for t in tasks:
            key, k, c = getattr(t, "key", id(t)), task_kind(t), task_cost(t)
            h = _seconds(history.get(key)) if isinstance(key, str) else None
            self.pending[key] = (k, c, h)
            if h is not None:
                past[k][0] += h
                past[k][1] += c
                self.left_recorded += h
            else:
                self.left_cost[k] += c
                self.unknown += 1
        self.past_rate = {k: s / c for k, (s, c) in past.items() if c > 0}
        self.seconds: dict[str, float] = defaultdict(float)
        self.cost: dict[str, float] = defaultdict(float)
        self.measured = self.recorded = 0.0  # finished tasks that the last run recorded: this run's and its seconds
        self.done = 0

    def record(self, task, seconds) -> None:
        """A task finished after ``seconds`` of work (its point's measured ``seconds``; ``None``: not measured)."""
        key = getattr(task, "key", id(task))
        if key in self.pending:
            k, c, h = self.pending.pop(key)
            if h is not None:
                self.left_recorded = max(0.0, self.left_recorded - h)
            else:
                self.left_cost[k] = max(0.0, self.left_cost[k] - c)
                self.unknown -= 1
        else:  # a task recomputed after the plan (a cached point its check could not read)
            k, c, h = task_kind(task), task_cost(task), None
        s = _seconds(seconds)
        if s is None:
            return
        self.seconds[k] += s
        self.cost[k] += c
        self.done += 1
        if h is not None:
            self.measured += s
            self.recorded += h

    @property
    def scale(self) -> float:
        """This run's speed relative to the last one's (1 before any evidence)."""
        return (self.measured + PRIOR_SECONDS) / (self.recorded + PRIOR_SECONDS)

    def rate(self, kind: str) -> float:
        """Estimated seconds per unit of cost of a task of ``kind`` that the last run did not record."""
        if kind in self.past_rate:
            prior = self.past_rate[kind] * self.scale
        else:
            total_c = sum(self.cost.values())
            prior = sum(self.seconds.values()) / total_c if total_c else 0.0
        return (self.seconds.get(kind, 0.0) + PRIOR * prior) / (self.cost.get(kind, 0.0) + PRIOR)

    def remaining(self) -> float | None:
        """Estimated seconds left (``None`` while there is too little to go on)."""
        if self.done < MIN_DONE and self.unknown > 0:
            return None
        work = self.left_recorded * self.scale + sum(c * self.rate(k) for k, c in self.left_cost.items() if c > 0)
        return work / self.workers


def format_eta(seconds: float | None) -> str:
    """``1:29:01``, ``0:18:26``; ``-:--:--`` while there is no estimate."""
    if seconds is None:
        return "-:--:--"
    s = int(round(seconds))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"
