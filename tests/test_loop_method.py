"""Loop-style methods (issue 45, item 4): :func:`mixbounds.methods.from_loop` turns ``run(problem, oracles, callback)``
into the generator the suite consumes, with exact counts per iteration and a clear error when ``callback`` is never
called.  Root cause: a loop that logs each step and returns needed a hand-written worker thread and hand-off."""

import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from mixbounds.checks.run.framework import instance_and_reference

from mixbounds.methods import check_method, from_loop, run_method
from mixbounds.testing import measure

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))

from examples.apapc import apapc  # noqa: E402
from examples.diging import diging  # noqa: E402


def diging_loop(problem, oracles, callback, iterations=100_000):
    """The loop-style port of the DIGing baseline (examples/diging.py, its generator twin): same steps, one
    ``callback`` per iteration instead of a ``yield``, and a fixed number of iterations."""
    n, a = problem.n, 1.0 / (problem.kappa_W * problem.L_f)
    X = np.zeros((n, problem.dt))
    G = oracles.grad(X.ravel()).reshape(n, -1)
    Y = G.copy()
    for _ in range(iterations):
        XY = np.hstack([X, Y])
        XY = XY - oracles.comm(XY) / problem.lambda_max_W
        X_new = XY[:, :problem.dt] - a * Y
        G_new = oracles.grad(X_new.ravel()).reshape(n, -1)
        Y, X, G = XY[:, problem.dt:] + G_new - G, X_new, G_new
        callback(X.ravel())


diging_loop.classes = ("consensus",)


@pytest.fixture(scope="module")
def point():
    return instance_and_reference("consensus", {"kappa_f": 30.0, "kappa_W": 30.0, "eps": 1e-6})


def _run(method, point, **kw):
    inst, ref = point
    return run_method(method, inst.problem, ref.u, eps=1e-6, settle=1 / 3, settle_eps=1e-6, **kw)


def test_loop_port_makes_exactly_the_counts_of_its_generator_twin(point):
    loop = _run(from_loop(diging_loop), point, max_iter=20_000)
    gen = _run(diging, point, max_iter=20_000)
    assert loop.converged and gen.converged and loop.iterations == gen.iterations
    assert np.array_equal(loop.history_counts, gen.history_counts)  # every row: the counts after each iteration
    assert np.array_equal(loop.history_error, gen.history_error)


def test_from_loop_is_a_contract_method_and_keeps_classes_and_arguments(point):
    m = from_loop(diging_loop)
    assert check_method(m, "m") is m and m.classes == ("consensus",) and m.loop is diging_loop
    assert from_loop(diging_loop, classes=("coupled",)).classes == ("coupled",)
    short = _run(m, point, max_iter=10**6, method_kwargs={"iterations": 5})
    assert short.reason.startswith("returned") and short.iterations == 5  # the loop ended: the run says so


def test_a_loop_that_never_calls_back_is_a_clear_error(point):
    def silent(problem, oracles, callback):
        oracles.grad(np.zeros(problem.size))

    res = _run(from_loop(silent), point, max_iter=10)
    assert not res.converged and "returned without calling callback(x) once" in res.reason, res.reason


def test_an_exception_in_the_loop_is_the_methods_exception_with_its_place(point):
    def broken(problem, oracles, callback):
        callback(np.zeros(problem.size))
        raise RuntimeError("step size")

    res = _run(from_loop(broken), point, max_iter=10)
    assert res.reason.startswith("exception: RuntimeError: step size") and "test_loop_method.py" in res.reason


def test_a_stopped_loop_unwinds_even_through_except_exception(point):
    """When the suite stops reading (budget), the loop's thread ends: ``StopLoop`` is not an ``Exception``."""
    ended = threading.Event()

    def stubborn(problem, oracles, callback):
        try:
            while True:
                try:
                    callback(np.zeros(problem.size))
                except Exception:  # noqa: BLE001 - what a loop might do; it must not swallow the stop
                    pass
        finally:
            ended.set()

    res = _run(from_loop(stubborn), point, max_iter=3)
    assert res.reason == "budget" and res.iterations == 3
    assert ended.wait(5.0)


def test_measure_runs_a_loop_style_method_in_its_own_process():
    """The whole path (forked child, worker thread, the verdict): the example APAPC driven as a loop is measured as
    the generator is (tiny tier: its κ_f slope 0.49, CI 0.46..0.53, inside the band)."""
    def apapc_loop(problem, oracles, callback):
        for u in apapc(problem, oracles):
            callback(u)

    loop = measure(from_loop(apapc_loop), "consensus", oracle="comm", param="kappa_f", tier="tiny")
    gen = measure(apapc, "consensus", oracle="comm", param="kappa_f", tier="tiny")
    assert loop.verdict == gen.verdict == "optimal", loop.detail
    assert [p["per_accuracy"] for p in loop.points] == [p["per_accuracy"] for p in gen.points]
