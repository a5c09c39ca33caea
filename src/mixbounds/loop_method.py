"""A method written as a loop, turned into the generator the suite consumes (:func:`from_loop`).

Most research code runs ``N`` steps, logs each one and returns::

    def my_loop(problem, oracles, callback):
        x = np.zeros(problem.size)
        for k in range(100_000):
            x = x - oracles.grad(x) / problem.L_f
            callback(x)                      # once per iteration: the estimate after it

    my_method = from_loop(my_loop)           # a generator method of the contract (mixbounds.methods)

:func:`from_loop` runs the loop in a worker thread and hands every ``callback(x)`` to the suite as one ``yield``.
The two threads strictly alternate: while the suite records an estimate (error, counters), the loop is blocked inside
``callback``; while the loop computes, the suite waits for its next ``callback``.  So the counters read after each
``callback`` are exactly those of the iterations done so far — the same counts as the generator written by hand
(``tests/test_byom.py`` compares a loop-style port of a baseline with its generator twin, count for count).

When the suite stops reading (the error settled, the budget, a wrong shape), ``callback`` raises
:class:`StopLoop` inside the loop so that it unwinds; it derives from ``BaseException``, so an ``except Exception``
in the loop does not swallow it (a bare ``except:`` would — don't).  A loop that returns without calling ``callback``
once is an error that says so; one that returns after some calls ends the run (``returned``, as a generator that
ends); an exception in the loop is the method's exception, with its own traceback.
"""

from __future__ import annotations

import functools
import queue
import threading
from typing import Callable

#: how long a stopped loop gets to unwind after :class:`StopLoop` before the suite goes on without it (its thread is
#: a daemon: a loop that ignores the stop ends with the method's process)
UNWIND_S = 5.0


class StopLoop(BaseException):
    """Raised inside ``callback`` when the suite has stopped reading the loop's estimates (let it propagate)."""


class LoopContractError(RuntimeError):
    """A loop-style method that broke the adapter's contract (it never called ``callback``)."""


def from_loop(run: Callable, *, classes=None) -> Callable:
    """The generator method of a loop-style ``run(problem, oracles, callback, **kw)`` (module docstring).

    Parameters
    ----------
    run : Callable
        Calls ``callback(x)`` once per iteration with its estimate ``x`` (a u-layout vector of length
        ``problem.size``, as a generator method yields).
    classes : tuple of str, optional
        The classes the method supports (default: ``run.classes`` if it has one).

    Returns
    -------
    Callable
        A generator function ``method(problem, oracles, **kw)`` following :mod:`mixbounds.methods`; its ``loop``
        attribute is ``run``.

    Raises
    ------
    TypeError
        When ``run`` is not callable.
    """
    if not callable(run):
        raise TypeError(f"from_loop: {run!r} is not callable")
    name = getattr(run, "__name__", type(run).__name__)

    def method(problem, oracles, **kw):
        yield from _drive(run, name, problem, oracles, kw)

    functools.update_wrapper(method, run, assigned=("__module__", "__name__", "__qualname__", "__doc__"), updated=())
    method.loop = run
    decl = getattr(run, "classes", None) if classes is None else classes
    if decl is not None:
        method.classes = decl
    return method


def _drive(run: Callable, name: str, problem, oracles, kw: dict):
    """Run ``run`` in a worker thread and yield what it passes to ``callback``, one estimate per ``next()``."""
    to_suite: queue.Queue = queue.Queue(maxsize=1)  # ("x", estimate) | ("done", None) | ("raised", exception)
    to_loop: queue.Queue = queue.Queue(maxsize=1)  # "go" | "stop"
    calls = [0]

    def callback(x):
        calls[0] += 1
        to_suite.put(("x", x))
        if to_loop.get() == "stop":
            raise StopLoop

    def body():
        try:
            if to_loop.get() == "stop":
                return
            run(problem, oracles, callback, **kw)
            to_suite.put(("done", None))
        except StopLoop:
            pass
        except BaseException as exc:  # noqa: BLE001 - the loop's own failure, raised in the suite's thread
            to_suite.put(("raised", exc))

    worker = threading.Thread(target=body, name=f"from_loop:{name}", daemon=True)
    worker.start()
    try:
        while True:
            to_loop.put("go")
            kind, value = to_suite.get()
            if kind == "raised":
                raise value
            if kind == "done":
                if calls[0] == 0:
                    raise LoopContractError(f"from_loop: {name} returned without calling callback(x) once; call it "
                                            f"once per iteration with the estimate after that iteration")
                return
            yield value
    finally:
        if worker.is_alive():
            try:
                to_loop.put_nowait("stop")
            except queue.Full:
                pass
            worker.join(UNWIND_S)
