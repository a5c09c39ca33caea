"""A user's method cannot hang or corrupt a run (issue 37, item 2): it runs in a process of its own
(:mod:`mixbounds.isolation`) with a wall-clock limit per point, and whatever it does becomes its own ``error``.

Root cause tested here: the method (and its module's import) ran in the suite's process, with the shared
instance reachable through ``oracles._orc``.  One test per way out of the contract, and one for the references:
APAPC's series and the lower-bound engine of the same run are the same with a hostile method as with an honest
one (the hostile method mutates ``W`` through everything it can reach; the method task runs first in its group).
"""

import gc
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from helpers import alive

from mixbounds.bench_method import RunOptions, measure_plans, plans
from mixbounds.cli.command import main
from mixbounds.isolation import call_isolated
from mixbounds.methods import MethodError, MethodOracles, probe

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))

from examples.apapc import apapc  # noqa: E402

EXIT_USAGE = 2
#: the per-point limit given to the hanging method, and to a module that hangs at import
TIMEOUT_S = 1.0
#: the limit for the hostile methods that end on their own (a hang guard only: they end in milliseconds)
GUARD_S = 120.0
#: how long the method's process may outlive its SIGKILLed parent (the kernel's PR_SET_PDEATHSIG acts at once; the
#: rest is slack for a loaded machine: a guard, not a measurement)
CHILD_END_GUARD_S = 30.0


# ----------------------------------------------------------------------------- hostile methods
def never_yields(problem, oracles):
    while True:
        time.sleep(0.01)
    yield np.zeros(problem.size)


def exits_0(problem, oracles):
    sys.exit(0)
    yield np.zeros(problem.size)


def raises_keyboard_interrupt(problem, oracles):
    raise KeyboardInterrupt
    yield np.zeros(problem.size)


def crashes(problem, oracles):
    os.kill(os.getpid(), signal.SIGSEGV)
    yield np.zeros(problem.size)


def mutates_w(problem, oracles):
    """Scale every n × n sparse matrix it can reach (W among them), then yield once and return."""
    for o in gc.get_objects():
        try:
            if sp.issparse(o) and o.shape == (problem.n, problem.n):
                o.data *= 3.0
        except Exception:  # noqa: BLE001 - anything it cannot touch
            pass
    yield np.zeros(problem.size)


HOSTILE = {never_yields: "no result within", exits_0: "called sys.exit(0)",
           raises_keyboard_interrupt: "raised KeyboardInterrupt", crashes: "killed by SIGSEGV",
           mutates_w: "changed the instance's data in place (W"}


@pytest.fixture(scope="module")
def reference_run():
    """The honest run: the example APAPC on the consensus κ_W sweep of the tiny tier."""
    plan = plans("tiny", ["consensus"], params=["kappa_W"], kinds=("worst",))
    results, _ = measure_plans(apapc, plan, "tiny", opts=RunOptions(timeout=60.0))
    return plan, results


@pytest.mark.parametrize("method", list(HOSTILE), ids=lambda f: f.__name__)
def test_hostile_method_is_its_own_error_and_leaves_the_references_unchanged(method, reference_run):
    plan, honest = reference_run
    opts = RunOptions(timeout=TIMEOUT_S if method is never_yields else GUARD_S)
    results, _ = measure_plans(method, plan, "tiny", opts=opts)
    assert [r["status"] for r in results] == ["error"] * len(results)
    for r in results:
        assert HOSTILE[method] in r["detail"], r["detail"]
        assert r["detail"].count("method error:") == len(plan[0].sweep.grid)  # every point, the run went on
    for r, h in zip(results, honest):
        assert r["apapc"] == h["apapc"] and r["apapc"]["y"]  # APAPC on the same instances: identical series
        assert r["lower"] == h["lower"]  # the engine's bound: identical


def slow_yields(problem, oracles):
    """Yields every 0.3 s (slower than the watchdog's beat, faster than its limit), ten times, then returns."""
    for _ in range(10):
        time.sleep(0.3)
        yield np.zeros(problem.size)


def test_yield_watchdog_stops_a_method_that_never_yields_and_spares_a_slow_one():
    """--yield-timeout (issue 44, item 6): a method silent for that long is stopped (seconds, not the point's
    limit) with the reason; a method that keeps yielding, however slowly, is not."""
    plan = plans("tiny", ["consensus"], params=["kappa_W"], kinds=("worst",))
    t0 = time.monotonic()
    results, _ = measure_plans(never_yields, plan, "tiny", apapc=False,
                               opts=RunOptions(timeout=GUARD_S, yield_timeout=TIMEOUT_S))
    assert time.monotonic() - t0 < GUARD_S
    for r in results:
        assert r["status"] == "error" and r["detail"].count("--yield-timeout") == len(plan[0].sweep.grid), r["detail"]
    results, _ = measure_plans(slow_yields, plan, "tiny", apapc=False,
                               opts=RunOptions(timeout=GUARD_S, yield_timeout=TIMEOUT_S))
    assert all("returned: the generator ended" in r["detail"] and "yield-timeout" not in r["detail"] for r in results)


def test_negative_control_the_honest_method_is_measured(reference_run):
    _, honest = reference_run
    assert {r["status"] for r in honest} <= {"optimal", "suboptimal", "inconclusive"}  # measured, not an error


def test_the_oracles_expose_only_the_operators():
    assert not hasattr(MethodOracles, "_orc") and MethodOracles.__slots__ == ("__weakref__",)


def _module(tmp_path, name, body):
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(body))
    return f"{name}:m"


@pytest.mark.parametrize("body, needle", [
    ("import sys\nsys.exit(3)\n", "called sys.exit(3)"),
    ("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n", "killed by SIGSEGV"),
    ("import time\nwhile True:\n    time.sleep(0.01)\n", "no result within"),
    ("raise KeyboardInterrupt\n", "raised KeyboardInterrupt"),
])
def test_a_module_that_exits_crashes_or_hangs_at_import_is_one_line_exit_2(tmp_path, capsys, monkeypatch, body,
                                                                          needle):
    name = f"bad_import_{abs(hash(body)) % 10 ** 6}"
    spec = _module(tmp_path, name, body + "def m(problem, oracles):\n    yield 0\n")
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    assert main(["bench", "--method", spec, "--classes", "consensus", "--tier", "tiny", "--out", str(out),
                 "--method-timeout", str(TIMEOUT_S if "while True" in body else GUARD_S)]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err and err.startswith("mixbounds bench: error: method"), err
    assert not out.exists() and name not in sys.modules  # never imported by this process


def test_negative_control_a_good_module_resolves_without_being_imported_here(tmp_path, monkeypatch):
    spec = _module(tmp_path, "good_method_mod", "def m(problem, oracles):\n    yield 0\nm.classes = ('consensus',)\n")
    monkeypatch.chdir(tmp_path)
    assert probe(spec, timeout=60.0) == ("consensus",)
    assert "good_method_mod" not in sys.modules


def test_wrong_typed_classes_declaration_is_a_method_error(tmp_path, monkeypatch):
    spec = _module(tmp_path, "classes_five", "def m(problem, oracles):\n    yield 0\nm.classes = 5\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(MethodError, match="classes = 5"):
        probe(spec, timeout=60.0)


def test_call_isolated_reports_every_way_out():
    assert call_isolated(lambda: 41 + 1, 30.0).value == 42
    assert "called sys.exit(4)" in call_isolated(lambda: sys.exit(4), 30.0).reason
    assert "exited with code 5 without a result" in call_isolated(lambda: os._exit(5), 30.0).reason
    out = call_isolated(lambda: time.sleep(60), 0.5, limit_name="the test's limit")
    assert not out.ok and out.reason == "no result within 0.5 s (the test's limit)"


def test_call_isolated_idle_watchdog_and_output_file(tmp_path):
    """A child silent for idle_timeout is killed with the reason (well before its wall-clock limit); one that beats
    is not; its stdout and stderr (Python and descriptor level) go to the output file, not the caller's."""
    from mixbounds.isolation import BEAT_EVERY_S, beat

    t0 = time.monotonic()
    out = call_isolated(lambda: time.sleep(60), GUARD_S, idle_timeout=TIMEOUT_S, idle_name="the test's idle limit")
    assert out.reason == f"no progress for {TIMEOUT_S:g} s (the test's idle limit)"
    assert time.monotonic() - t0 < TIMEOUT_S + BEAT_EVERY_S + CHILD_END_GUARD_S

    def busy():
        for _ in range(8):
            time.sleep(0.3)
            beat()
        print("to stdout")
        os.write(2, b"to fd 2\n")
        return "done"

    log = tmp_path / "child.log"
    assert call_isolated(busy, GUARD_S, idle_timeout=TIMEOUT_S, output=str(log)).value == "done"
    assert log.read_text() == "to stdout\nto fd 2\n"


def test_a_killed_parent_takes_its_method_process_with_it(tmp_path):
    """The method's process dies with the process that started it (PR_SET_PDEATHSIG), never lingers."""
    marker = tmp_path / "child.pid"
    prog = textwrap.dedent(f"""
        import os, time
        from mixbounds.isolation import call_isolated
        def child():
            open({str(marker)!r}, "w").write(str(os.getpid()))
            time.sleep(300)
        call_isolated(child, 300)
    """)
    # cwd outside the checkout: a fresh interpreter puts its cwd first on sys.path, and nothing of the checkout may
    # come before the installed package
    p = subprocess.Popen([sys.executable, "-c", prog], cwd=tmp_path)
    t0 = time.monotonic()
    while not marker.exists() or not marker.read_text():
        assert time.monotonic() - t0 < GUARD_S, "the child never started"
        time.sleep(0.05)
    child = int(marker.read_text())
    p.kill()
    p.wait()
    t0 = time.monotonic()
    try:
        while alive(child):
            assert time.monotonic() - t0 < CHILD_END_GUARD_S, "the method's process outlived its parent"
            time.sleep(0.1)
    finally:  # a failing run does not leave its 300-s child behind
        if alive(child):
            os.kill(child, signal.SIGKILL)
