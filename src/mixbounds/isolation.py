"""A user's code in a process of its own: a wall-clock limit, and nothing it does reaches the caller.

``mixbounds bench`` runs code it did not write: the user's method, and before that the import of its module.
Run in the suite's own process, such code can hang the run (a loop that never yields), end it
(``sys.exit``, an import-time exit, ``os._exit``, a segmentation fault) or reach the objects the suite's own
references are computed from (the shared instance, whose ``W`` APAPC and the lower-bound engine then use).
:func:`call_isolated` runs a callable in a forked child instead:

* the child works on a copy-on-write copy of the caller's memory: whatever it changes, the caller's objects
  are untouched;
* the caller waits at most ``timeout`` seconds of wall-clock time, then kills the child;
* the child's result comes back pickled through a pipe; every way the child can end without one — an
  exception, ``SystemExit``, ``KeyboardInterrupt``, a signal (``SIGSEGV``), an exit code — becomes an
  :class:`Outcome` with a one-line ``reason``, never an exception in the caller;
* the child runs in a process group of its own (a Ctrl-C at the terminal interrupts the caller, which kills
  the child and goes on interrupting), and dies with the caller (``PR_SET_PDEATHSIG``, and a check of the
  parent's pid right after it is set).

* with ``idle_timeout``, a watchdog on the child's progress: the child calls :func:`beat` whenever it makes
  progress (``mixbounds bench``: after every ``yield`` of the method), and the caller kills it when no beat has
  come for ``idle_timeout`` seconds — a method that stops yielding is stopped in about that time, not at the
  wall-clock limit of the whole point;
* with ``output``, the child's descriptors 1 and 2 go to that file (the method's ``print`` and any C-level
  output), not to the caller's terminal.

A fork copies only the calling thread; the child replaces ``sys.stdout``/``sys.stderr`` by fresh objects on
the same descriptors, so a lock another thread of the caller held at the fork (a progress bar's) cannot
block it.
"""

from __future__ import annotations

import faulthandler
import io
import os
import pickle
import select
import signal
import sys
import time
import traceback
from dataclasses import dataclass
from typing import Callable

from mixbounds.checks.run.parent_watch import die_with_parent

#: wall-clock seconds a user's method may take on one sweep point (importing its module, setting up, running to the
#: accuracy or the iteration budget), ``mixbounds bench --method-timeout``: at a load average of 13-14 on the 2-core
#: machine the example APAPC's largest quick-tier points took 0.4-156 s each, instance build and reference included
#: (consensus and coupled classes, measured for issue 37); 600 s leaves a factor of ~4
METHOD_TIMEOUT_S = 600.0
#: largest --method-timeout accepted (a day: beyond that a point is not a measurement anyone waits for)
METHOD_TIMEOUT_MAX_S = 86400.0
#: seconds a method may go without yielding before its point is stopped as ``error`` (``--yield-timeout``): the
#: longest wait for a yield of the shipped examples on the largest quick-tier points (``benchmarks/yield_gaps.py``)
#: was 1.4 s in one run and 5.2 s in another on a busier machine (the example APAPC on the coupled κ̂_A = 300 and
#: κ_W = 300 constructions; PAPC 0.5 s, pdgd 0.1 s), both on the shared 2-core machine at load averages of 10–25;
#: 60 s leaves a factor above 10 for slower machines and heavier iterations, and stops a method that never yields in a
#: minute instead of the point's 600 s
YIELD_TIMEOUT_S = 60.0
#: largest --yield-timeout accepted (the point's wall-clock limit caps it anyway)
YIELD_TIMEOUT_MAX_S = 86400.0
#: budget of iterations (yields) of a user's method per point, ``mixbounds bench --max-iter``: the budget of the suite's
#: own rate runs (:data:`mixbounds.checks.rate_measure.MAX_ITER`, the same number: ``tests/test_byom.py``)
METHOD_MAX_ITER = 200_000

#: largest result read back from a child (a point of a sweep is a few kilobytes)
MAX_RESULT_BYTES = 64 << 20
#: a child sends at most one heartbeat per this many seconds (:func:`beat`): a method yielding every few
#: microseconds costs one clock read per yield, not one system call, and the caller wakes at most once a second
BEAT_EVERY_S = 1.0

#: the child's end of the heartbeat pipe and the time of its last beat (set in the child only)
_BEAT: dict = {"fd": None, "last": 0.0}


def beat(force: bool = False) -> None:
    """Tell the caller this child is making progress (no-op outside a child started with ``idle_timeout``).

    At most one byte per :data:`BEAT_EVERY_S` unless ``force``; a caller that has gone away is ignored."""
    fd = _BEAT["fd"]
    if fd is None:
        return
    now = time.monotonic()
    if force or now - _BEAT["last"] >= BEAT_EVERY_S:
        _BEAT["last"] = now
        try:
            os.write(fd, b".")
        except OSError:
            pass


@dataclass(frozen=True)
class Outcome:
    """What a call in a child process gave: ``ok`` and its ``value``, or ``ok=False`` and a one-line ``reason``."""

    ok: bool
    value: object = None
    reason: str = ""
    seconds: float = 0.0


def _child(func: Callable[[], object], w: int, parent: int, hb: int | None, output: str | None) -> None:
    """The forked side: run ``func``, send ``("ok", value)`` or ``(kind, reason)`` through ``w``, exit."""
    payload = None
    try:
        die_with_parent(parent)
        os.setpgid(0, 0)
        faulthandler.disable()  # a crash is the caller's one line to report, not a dump on the shared stderr
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        _BEAT.update(fd=hb, last=time.monotonic())
        if output is not None:
            fd = os.open(output, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            os.close(fd)
        sys.stdout = io.TextIOWrapper(io.FileIO(os.dup(1), "w"), line_buffering=True)
        sys.stderr = io.TextIOWrapper(io.FileIO(os.dup(2), "w"), line_buffering=True)
        try:
            payload = ("ok", func())
        except SystemExit as exc:
            payload = ("error", f"called sys.exit({exc.code!r})" + _where(exc))
        except KeyboardInterrupt as exc:
            payload = ("error", "raised KeyboardInterrupt" + _where(exc))
        except BaseException as exc:  # noqa: BLE001 - everything the code raises is its own failure
            payload = ("error", f"{type(exc).__name__}: {' '.join(str(exc).split())}" + _where(exc))
        try:
            data = pickle.dumps(payload)
        except Exception as exc:  # noqa: BLE001
            data = pickle.dumps(("error", f"its result cannot be sent back ({type(exc).__name__}: {exc})"))
        with os.fdopen(w, "wb") as fh:
            fh.write(data)
    finally:
        os._exit(0)


def _where(exc: BaseException) -> str:
    tb = traceback.extract_tb(exc.__traceback__)
    return f" ({tb[-1].filename}:{tb[-1].lineno})" if tb else ""


def call_isolated(func: Callable[[], object], timeout: float, *, limit_name: str = "the time limit",
                  idle_timeout: float | None = None, idle_name: str = "the idle limit",
                  output: str | None = None) -> Outcome:
    """Call ``func()`` in a forked child process and wait for it at most ``timeout`` seconds (module docstring).

    Parameters
    ----------
    func : Callable
        Called without arguments in the child; its result must pickle.
    timeout : float
        Wall-clock seconds the child may take.
    limit_name : str
        The option that sets ``timeout``, named in the reason of a child killed at the limit.
    idle_timeout : float, optional
        Seconds the child may go without progress (:func:`beat`; counted from the fork, then from each beat, plus the
        :data:`BEAT_EVERY_S` a beat may lag its progress); ``None``: no watchdog.
    idle_name : str
        The option that sets ``idle_timeout``, named in the reason.
    output : str, optional
        A file the child's standard output and error are appended to.

    Returns
    -------
    Outcome
        Never raises for what the child does; a ``KeyboardInterrupt`` in the caller kills the child and is re-raised.
    """
    r, w = os.pipe()
    hr, hw = os.pipe() if idle_timeout is not None else (None, None)
    parent = os.getpid()
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child's side (it never returns)
        os.close(r)
        if hr is not None:
            os.close(hr)
        _child(func, w, parent, hw, output)
    os.close(w)
    if hw is not None:
        os.close(hw)
    try:
        chunks, reason = _wait(r, hr, pid, t0, timeout, limit_name, idle_timeout, idle_name)
    finally:
        os.close(r)
        if hr is not None:
            os.close(hr)
    if reason is not None:
        _kill(pid)
        return Outcome(False, reason=reason, seconds=time.monotonic() - t0)
    _, status = os.waitpid(pid, 0)
    seconds = time.monotonic() - t0
    if chunks:
        try:
            kind, value = pickle.loads(b"".join(chunks))
        except Exception:  # noqa: BLE001 - a truncated result: the child died while writing it
            kind, value = "error", None
        if kind == "ok":
            return Outcome(True, value, seconds=seconds)
        if value is not None:
            return Outcome(False, reason=str(value), seconds=seconds)
    return Outcome(False, reason=_ended(status), seconds=seconds)


def _wait(r: int, hr: int | None, pid: int, t0: float, timeout: float, limit_name: str, idle_timeout: float | None,
          idle_name: str) -> tuple[list, str | None]:
    """Read the child's result from ``r`` (and its beats from ``hr``) until it ends, the wall-clock limit passes or
    it has been silent for ``idle_timeout``: ``(chunks, None)`` or ``(chunks, reason to kill it)``."""
    chunks, size = [], 0
    last = t0
    try:
        while True:
            now = time.monotonic()
            left = timeout - (now - t0)
            if left <= 0:
                return chunks, f"no result within {timeout:g} s ({limit_name})"
            if idle_timeout is not None:
                quiet = idle_timeout + BEAT_EVERY_S - (now - last)  # a progress since the last beat sends none
                if quiet <= 0:
                    return chunks, f"no progress for {idle_timeout:g} s ({idle_name})"
                left = min(left, quiet)
            ready, _, _ = select.select([r] if hr is None else [r, hr], [], [], left)
            if hr is not None and hr in ready:
                if os.read(hr, 1 << 12):
                    last = time.monotonic()
                else:  # the child closed it (it is ending): only the result pipe is left to read
                    hr = None
            if r not in ready:
                continue
            data = os.read(r, 1 << 16)
            if not data:
                return chunks, None
            chunks.append(data)
            size += len(data)
            if size > MAX_RESULT_BYTES:
                return chunks, f"its result exceeds {MAX_RESULT_BYTES} bytes"
    except BaseException:
        _kill(pid)
        raise


def _ended(status: int) -> str:
    """How a child that sent no result ended."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        return f"its process was killed by {name}" + (" (a crash)" if sig in (signal.SIGSEGV, signal.SIGBUS,
                                                                               signal.SIGILL, signal.SIGFPE,
                                                                               signal.SIGABRT) else "")
    return f"its process exited with code {os.WEXITSTATUS(status)} without a result"


def _kill(pid: int) -> None:
    """Kill the child and its process group (whatever it started), then reap it."""
    for kill in (os.killpg, os.kill):  # the group exists once the child has called setpgid
        try:
            kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
