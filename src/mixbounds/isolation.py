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

#: largest result read back from a child (a point of a sweep is a few kilobytes)
MAX_RESULT_BYTES = 64 << 20


@dataclass(frozen=True)
class Outcome:
    """What a call in a child process gave: ``ok`` and its ``value``, or ``ok=False`` and a one-line ``reason``."""

    ok: bool
    value: object = None
    reason: str = ""
    seconds: float = 0.0


def _child(func: Callable[[], object], w: int, parent: int) -> None:
    """The forked side: run ``func``, send ``("ok", value)`` or ``(kind, reason)`` through ``w``, exit."""
    payload = None
    try:
        die_with_parent(parent)
        os.setpgid(0, 0)
        faulthandler.disable()  # a crash is the caller's one line to report, not a dump on the shared stderr
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
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


def call_isolated(func: Callable[[], object], timeout: float, *, limit_name: str = "the time limit") -> Outcome:
    """Call ``func()`` in a forked child process and wait for it at most ``timeout`` seconds (module docstring).

    ``limit_name`` names the option that sets ``timeout`` in the reason of a child killed at the limit.
    A ``KeyboardInterrupt`` in the caller kills the child and is re-raised.
    """
    r, w = os.pipe()
    parent = os.getpid()
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child's side (it never returns)
        os.close(r)
        _child(func, w, parent)
    os.close(w)
    chunks, size, reason = [], 0, None
    try:
        while True:
            left = timeout - (time.monotonic() - t0)
            if left <= 0:
                reason = f"no result within {timeout:g} s ({limit_name})"
                break
            ready, _, _ = select.select([r], [], [], left)
            if not ready:
                continue
            data = os.read(r, 1 << 16)
            if not data:
                break
            chunks.append(data)
            size += len(data)
            if size > MAX_RESULT_BYTES:
                reason = f"its result exceeds {MAX_RESULT_BYTES} bytes"
                break
    except BaseException:
        _kill(pid)
        raise
    finally:
        os.close(r)
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
