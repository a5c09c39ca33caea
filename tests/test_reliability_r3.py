"""Regression catalogue of issue 37 (reliability, round 3): one test per root cause, each replaying the issue's
cases of that cause and asserting the exit code, the one-line message and that nothing was touched; a negative
control where a check was added.  The user's method is in tests/test_method_isolation.py, the subset
self-checks' planted defects in tests/test_mutants.py (marker ``mutants``).

``verify`` runs use the self-test checks (:mod:`mixbounds.checks.run._selftest`, microseconds per point) through
the ``suite`` fixture of tests/test_reliability.py.
"""

import dataclasses
import json
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import mixbounds.plots as figures
import numpy as np
import pytest
from helpers import alive
from mixbounds.checks.audits import guards
from mixbounds.checks.audits.calibration_tolerances import probe_all
from mixbounds.checks.registry import all_checks
from mixbounds.checks.run import _selftest, executors, framework
from mixbounds.checks.run._selftest import GRID, fake_checks, fake_document
from mixbounds.checks.tiers import QUICK, TINY
from mixbounds.instances.json_file import JSONFileError, read_json
from mixbounds.solvers.oracles import CountedOracles
from test_reliability import fake_draw_all, one_line_error, snap

from mixbounds import outdir, verify
from mixbounds.bench_method import classes_for
from mixbounds.cli.command import main
from mixbounds.cli.parsing import default_jobs
from mixbounds.report import verify as report
from mixbounds.verify import select_checks

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
ROOT = Path(__file__).resolve().parents[1]
#: how long a subprocess test waits for its child to reach the phase it interrupts (a hang guard, not a measurement)
WAIT_GUARD_S = 120.0


@pytest.fixture
def suite(monkeypatch):
    """The self-test checks in place of the registered ones, a fixed code version (in the framework, which keys the
    cache, and in verify, which checks the cache directory before the run), figures drawn as stand-ins."""
    monkeypatch.setattr(verify, "all_checks", lambda: fake_checks())
    monkeypatch.setattr(framework, "code_version", lambda: "selftest-version")
    monkeypatch.setattr(verify, "code_version", lambda: "selftest-version")
    monkeypatch.setattr(figures, "draw_all", fake_draw_all)


def _verify(out, *extra):
    return main(["verify", "--tier", "tiny", "--jobs", "1", "--out", str(out), *extra])


def _bench_dir(d: Path) -> None:
    """An output directory holding a `mixbounds bench` set: its manifest, a bench.json and a figure in plots/."""
    with outdir.OutputDir(d, "bench", subdirs=("plots",)) as od:
        stage = od.stage()
        (stage / "plots").mkdir()
        (stage / "plots" / "bench_x.png").write_bytes(b"png")
        (stage / "bench.json").write_text('{"method": "m:f", "results": [], "summary": {}}')
        od.install(stage, ["bench.json", "plots/bench_x.png"])


# ----------------------------------------------------------------------------- 1. ownership by tool
@pytest.mark.parametrize("case", ["plot-into-verify", "bench-into-verify", "verify-into-bench", "plot-into-bench-plots",
                                  "report-into-figures", "report-into-a-users-dir"])
def test_1_a_command_refuses_a_directory_another_command_owns(suite, tmp_path, capsys, monkeypatch, case):
    """Root cause: the manifest did not record which command wrote the directory nor the kind of set."""
    res = tmp_path / "res"
    assert _verify(res) == EXIT_OK
    target, argv, needle = res, None, "holds the result set of 'mixbounds verify'"
    if case == "plot-into-verify":
        argv = ["plot", str(res / "results.json"), "--out", str(res)]
    elif case == "bench-into-verify":
        monkeypatch.chdir(ROOT)
        argv = ["bench", "--method", "examples.apapc:apapc", "--classes", "consensus", "--tier", "tiny",
                "--out", str(res)]
    elif case in ("verify-into-bench", "plot-into-bench-plots"):
        target = tmp_path / "b"
        _bench_dir(target)
        if case == "verify-into-bench":
            argv, needle = ["verify", "--tier", "tiny", "--out", str(target)], "holds the result set of 'mixbounds bench'"
        else:
            target = target / "plots"
            argv = ["plot", str(res / "results.json"), "--out", str(target)]
            needle = "holds the figures of a 'mixbounds bench' result set"
    elif case == "report-into-figures":
        target = tmp_path / "figs"
        assert main(["plot", str(res / "results.json"), "--out", str(target)]) == EXIT_OK
        argv, needle = ["report", str(res), "--out", str(target)], "holds figures of 'mixbounds plot'"
    else:
        target = tmp_path / "mine"
        target.mkdir()
        (target / "report.md").write_text("my own report\n")
        argv, needle = ["report", str(res), "--out", str(target)], "not written by mixbounds"
    before, res_before = snap(target), snap(res)
    capsys.readouterr()
    assert main(argv) == EXIT_USAGE
    one_line_error(capsys.readouterr().err, f"mixbounds {argv[0]}: error:", needle)
    assert snap(target) == before and snap(res) == res_before


def test_1_negative_control_each_command_writes_its_own_kind(suite, tmp_path, capsys):
    """report rewrites a verify set's report and keeps the rest of the set; plot redraws its plots/; report
    --redraw installs figures without deleting a user's file (report --redraw pruned every cell_* before)."""
    res = tmp_path / "res"
    assert _verify(res) == EXIT_OK
    results = (res / "results.json").read_bytes()
    (res / "plots" / "cell_mine.png").write_bytes(b"a user's figure, not in the manifest")
    (res / "report.md").write_text("stale")
    assert main(["report", str(res), "--redraw"]) == EXIT_OK
    assert (res / "report.md").read_text() != "stale" and (res / "results.json").read_bytes() == results
    assert (res / "plots" / "cell_mine.png").read_bytes() == b"a user's figure, not in the manifest"
    top = json.loads((res / outdir.MANIFEST).read_text())
    assert top["kind"] == "verify" and {"results.json", "results.csv", "report.md", "report.html"} <= set(top["files"])
    assert main(["plot", str(res / "results.json")]) == EXIT_OK
    assert json.loads((res / "plots" / outdir.MANIFEST).read_text())["kind"] == "verify-figures"
    out = tmp_path / "rep"
    assert main(["report", str(res), "--out", str(out)]) == EXIT_OK
    assert json.loads((out / outdir.MANIFEST).read_text())["kind"] == "report"
    assert _verify(res) == EXIT_OK  # and verify takes its set back after report and plot wrote into it


@pytest.mark.parametrize("redraw", [False, True], ids=["report", "report-redraw"])
def test_1_report_goes_through_the_lock(suite, tmp_path, capsys, redraw):
    """report takes the lock of its directory before any work: while another run holds a verify set, neither
    the report nor (with --redraw) the figures in its plots/ are touched."""
    res = tmp_path / "res"
    assert _verify(res) == EXIT_OK
    before = snap(res)
    capsys.readouterr()
    with outdir.OutputDir(res, "verify", command="another verify run"):
        assert main(["report", str(res), *(["--redraw"] if redraw else [])]) == EXIT_USAGE
    one_line_error(capsys.readouterr().err, "mixbounds report: error:", "in use by another run", "another verify run")
    assert snap(res) == before


def test_1_a_manifest_of_a_version_before_kinds_gets_its_kind_from_its_tool(tmp_path):
    d = tmp_path / "old"
    d.mkdir()
    (d / outdir.MANIFEST).write_text(json.dumps({"format": "mixbounds-out", "tool": "bench", "files": []}))
    with pytest.raises(outdir.OutputError, match="holds the result set of 'mixbounds bench'"):
        outdir.check_dir(d, "--out", tool="verify")
    outdir.check_dir(d, "--out", tool="bench")  # control: its own tool writes it


# ----------------------------------------------------------------------------- 2. damaged state is never taken for good
def _entries(d):
    return sorted((d / ".cache" / "selftest-version").glob("*.json"))


@pytest.mark.parametrize("damage", ["garbage-point", "digest-mismatch", "fields-finalize-reads", "fifo"])
def test_2_a_damaged_cache_entry_is_recomputed_and_counted(suite, tmp_path, capsys, damage):
    """Root cause: an entry with a valid wrapper was trusted down to its point.  Now a digest covers the point,
    finalize's reading is the last validation (a point it cannot read is recomputed), and a FIFO never blocks."""
    d = tmp_path / "o"
    assert _verify(d, "--no-plots") == EXIT_OK
    good = json.loads((d / "results.json").read_text())
    e = _entries(d)[0]
    entry = json.loads(e.read_text())
    if damage == "garbage-point":
        e.write_text(json.dumps({"cache": framework.CACHE_FORMAT, "task": entry["task"], "point": {"seconds": 1.0}}))
    elif damage == "digest-mismatch":
        entry["point"]["count1"] = 10 ** 9
        e.write_text(json.dumps(entry))
    elif damage == "fields-finalize-reads":  # signed with the user's key (a bug of the suite wrote it): finalize reads
        pt = {"seconds": 1.0, "realized": "oops"}
        e.write_text(json.dumps({"cache": framework.CACHE_FORMAT, "task": entry["task"],
                                 "digest": framework.point_digest(pt, entry["task"]), "point": pt}))
    else:
        e.unlink()
        os.mkfifo(e)
    capsys.readouterr()
    assert _verify(d, "--no-plots") == EXIT_OK
    doc = json.loads((d / "results.json").read_text())
    # a point finalize cannot read is not told apart from its check's other cached points: all of them are recomputed
    n = len(GRID) if damage == "fields-finalize-reads" else 1
    assert doc["stats"]["damaged"] == n and doc["stats"]["computed"] == n
    assert [(c["id"], c["status"], c["measured"]) for c in doc["claims"]] == \
        [(c["id"], c["status"], c["measured"]) for c in good["claims"]]


def test_2_negative_control_an_intact_cache_is_read_whole(suite, tmp_path):
    d = tmp_path / "o"
    assert _verify(d, "--no-plots") == EXIT_OK
    assert _verify(d, "--no-plots") == EXIT_OK
    doc = json.loads((d / "results.json").read_text())
    assert doc["stats"]["damaged"] == 0 and doc["stats"]["computed"] == 0 and doc["stats"]["cached"] > 0


@pytest.mark.parametrize("argv, needle", [
    (["random-consensus", "--param", "n=100000000"], "--param n=100000000: must be in [1, 10000]"),
    (["random-mixed", "--n", "100000000"], "--n 100000000: must be in [1, 10000]"),
    (["random-consensus", "--dt", "100000000"], "--dt 100000000: must be in [1, 50000]"),
    (["random-consensus", "--param", "dt=1e9"], "--param dt=1000000000.0: must be in [1, 50000]"),
    (["random-consensus", "--param", "n=true"], "must be an integer"),
    (["random-consensus", "--param", "n=" + "[" * 100 + "1" + "]" * 100], "must be an integer"),
])
def test_2_every_size_is_capped_options_and_param_alike(tmp_path, capsys, argv, needle):
    """Root cause: the --n cap was checked on the option only, before --param merged in."""
    assert main(["instance", *argv, "--out", str(tmp_path / "i")]) == EXIT_USAGE
    one_line_error(capsys.readouterr().err, "mixbounds instance: error:", needle)
    assert not (tmp_path / "i").exists()


def test_2_jobs_capped_at_the_cores_with_a_note(suite, tmp_path, capsys):
    cores = default_jobs()
    assert main(["verify", "--tier", "tiny", "--no-plots", "--jobs", str(cores + 10), "--out", str(tmp_path / "o")]) \
        == EXIT_OK
    err = capsys.readouterr().err
    assert f"--jobs {cores + 10} capped at the {cores} available core" in err and f"jobs {cores}" in err


def test_2_never_more_workers_than_task_groups(monkeypatch):
    """Root cause of '--jobs 12 starts 14 processes for a 2-point run': the pool was sized by --jobs alone.  Two
    task groups with 8 jobs asked for start a pool of 2 workers."""
    sizes = []

    class Recording(framework.Parallel):
        def __init__(self, n_jobs=None, **kw):
            sizes.append(n_jobs)
            super().__init__(n_jobs=n_jobs, **kw)

    monkeypatch.setattr(framework, "Parallel", Recording)
    tasks = [framework.Task(_selftest.power_point, {"kappa": k, "slope": 0.5}, label=str(k)) for k in GRID[:2]]
    got = {}
    framework._execute(tasks, "selftest-version", lambda t, pt: got.update({t.key: pt}), jobs=8, executor=None)
    assert sizes == [2] and sorted(got) == sorted(t.key for t in tasks)


def _results_with(tmp_path, mutate) -> Path:
    doc = json.loads(json.dumps(fake_document()))
    mutate(doc)
    p = tmp_path / "r" / "results.json"
    p.parent.mkdir(exist_ok=True)
    p.write_text(json.dumps(doc))
    return p


@pytest.mark.parametrize("field, mutate", [
    ("controls", lambda d: d.update(controls=1)),
    ("summary.status", lambda d: d["summary"].update(status=[])),
    ("claims[0].cell", lambda d: d["claims"][0].update(cell=1)),
    ("findings[0].source", lambda d: d["findings"][0].update(source=1)),
    ("nested 100000 levels deep", None),
])
def test_2_results_json_fields_are_typed_and_nesting_bounded(tmp_path, capsys, field, mutate):
    """Root cause: validation checked the claims' points only; the report read other fields as given (35
    tracebacks), and Python's parser recursed once per level."""
    if mutate is None:
        p = tmp_path / "r" / "results.json"
        p.parent.mkdir()
        p.write_text("[" * 100_000 + "]" * 100_000)
        field = "JSON nested 100000 levels deep"
    else:
        p = _results_with(tmp_path, mutate)
    for cmd in ("report", "plot"):
        before = snap(p.parent)
        assert main([cmd, str(p)]) == EXIT_USAGE
        one_line_error(capsys.readouterr().err, f"mixbounds {cmd}: error:", field)
        assert snap(p.parent) == before


def test_2_negative_control_the_unmodified_document_is_reported(tmp_path):
    p = _results_with(tmp_path, lambda d: None)
    assert main(["report", str(p)]) == EXIT_OK


def test_2_a_fifo_in_place_of_results_json_is_refused_at_once(tmp_path, capsys):
    os.mkfifo(tmp_path / "results.json")
    assert main(["plot", str(tmp_path / "results.json")]) == EXIT_USAGE
    one_line_error(capsys.readouterr().err, "mixbounds plot: error:", "not a regular file (a FIFO)")


@pytest.fixture(scope="module")
def npz_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("npz") / "logistic"
    assert main(["instance", "logistic-consensus", "--format", "npz", "--out", str(d)]) == EXIT_OK
    return d


@pytest.mark.parametrize("what, needle", [
    ("targets", "'targets' = '1' must be an object"), ("n", "'n' = '[]' must be an integer"),
    ("layout", "malformed 'layout'"), ("F-columns", "shape (20, 1000000000000)"),
    ("layout-size", "more than this machine's"), ("deep", "JSON nested"),
])
def test_2_instance_json_fields_and_declared_sizes_are_checked(npz_dir, tmp_path, capsys, what, needle):
    """Root cause: instance.json fields were converted without type checks, and a block's or layout's declared
    size was allocated before it was compared with the data (an F.npz declaring 10¹² columns: "out of memory")."""
    d = tmp_path / "inst"
    shutil.copytree(npz_dir, d)
    doc = json.loads((d / "instance.json").read_text())
    if what == "targets":
        doc["targets"] = 1
    elif what == "n":
        doc["n"] = []
    elif what == "layout":
        doc["layout"]["d"] = [1e300] * len(doc["layout"]["d"])
    elif what == "layout-size":
        doc["layout"]["dt"] = 10 ** 12
    elif what == "F-columns":
        z = dict(np.load(d / "F.npz"))
        z["shape"][0, 1] = 10 ** 12
        np.savez(d / "F.npz", **z)
    if what == "deep":
        (d / "instance.json").write_text('{"x": ' + "[" * 50_000 + "]" * 50_000 + "}")
    else:
        (d / "instance.json").write_text(json.dumps(doc))
    before = snap(d)
    assert main(["solve", str(d)]) == EXIT_USAGE
    one_line_error(capsys.readouterr().err, "mixbounds solve: error:", needle)
    assert snap(d) == before


@pytest.mark.parametrize("argv, needle", [
    (["verify", "--tier", "tiny", "--json", "j/"], "--json j/: is a directory name"),
    (["verify", "--tier", "tiny", "--json", "/proc/mixbounds-x/r.json"], "cannot create files in /proc"),
])
def test_2_output_paths_proved_writable_before_the_work(suite, tmp_path, capsys, monkeypatch, argv, needle):
    """Root cause: os.access said yes (root; /proc) and Path() dropped the slash of "j/"."""
    monkeypatch.chdir(tmp_path)
    assert main([*argv, "--out", "o"]) == EXIT_USAGE
    one_line_error(capsys.readouterr().err, "mixbounds verify: error:", needle)
    assert sorted(p.name for p in tmp_path.iterdir()) == []


# ----------------------------------------------------------------------------- 3. wrong-kind lock and cache paths
@pytest.mark.parametrize("what", ["cache-is-a-file", "version-dir-is-a-file", "lock-is-a-directory", "lock-is-a-fifo",
                                  "lock-is-a-symlink"])
def test_3_wrong_kind_lock_and_cache_paths_are_one_line(suite, tmp_path, capsys, what):
    """Root cause: the suite's own files were opened without looking at what they are (tracebacks, a FIFO
    lock path accepted)."""
    d = tmp_path / "o"
    assert _verify(d, "--no-plots") == EXIT_OK
    cache = d / ".cache"
    if what == "cache-is-a-file":
        shutil.rmtree(cache)
        cache.write_text("x")
        needle = "point cache"
    elif what == "version-dir-is-a-file":
        shutil.rmtree(cache / "selftest-version")
        (cache / "selftest-version").write_text("x")
        needle = "selftest-version: exists and is not a directory"
    else:
        (d / outdir.LOCK).unlink()
        if what == "lock-is-a-directory":
            (d / outdir.LOCK).mkdir()
            needle = "is a directory"
        elif what == "lock-is-a-fifo":
            os.mkfifo(d / outdir.LOCK)
            needle = "is not a regular file"
        else:
            os.symlink(tmp_path / "elsewhere", d / outdir.LOCK)
            needle = "is a symbolic link"
    before = snap(d)
    capsys.readouterr()
    assert _verify(d, "--no-plots") == EXIT_USAGE
    one_line_error(capsys.readouterr().err, "mixbounds verify: error:", needle)
    assert snap(d) == before


# ----------------------------------------------------------------------------- 4. errors that say what happened
def _server(reply: bytes | None):
    """A TCP server on a free port that sends ``reply`` to every connection (``None``: sends nothing, waits)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    stop = threading.Event()

    def serve():
        srv.settimeout(0.2)
        conns = []
        while not stop.is_set():
            try:
                c, _ = srv.accept()
            except OSError:
                continue
            conns.append(c)
            if reply is not None:
                c.sendall(reply)
        for c in conns:
            c.close()
        srv.close()

    threading.Thread(target=serve, daemon=True).start()
    return srv.getsockname()[1], stop


@pytest.mark.parametrize("reply, needle", [(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n",
                                            "not a Dask scheduler (it answered 'HTTP/1.1 400"),
                                           (None, "sent no Dask handshake within 1 s: not a Dask scheduler")])
def test_4_a_scheduler_that_is_not_dask_is_one_line_exit_2(suite, tmp_path, capsys, monkeypatch, reply, needle):
    """Root cause: the address was handed to Dask, which read an HTTP reply as a 3 EiB frame ("out of memory")
    and waits forever on a silent server."""
    monkeypatch.setattr(executors, "CONNECT_TIMEOUT_S", 1.0)
    port, stop = _server(reply)
    try:
        assert _verify(tmp_path / "o", "--scheduler", f"tcp://127.0.0.1:{port}") == EXIT_USAGE
    finally:
        stop.set()
    one_line_error(capsys.readouterr().err, "mixbounds verify: error: --scheduler", needle)
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("content, needle", [("garbage{", "not valid JSON"), ('{"address": 5}', "no 'address'")])
def test_4_a_garbage_scheduler_file_is_one_line_exit_2(suite, tmp_path, capsys, content, needle):
    f = tmp_path / "sched.json"
    f.write_text(content)
    assert _verify(tmp_path / "o", "--scheduler", str(f)) == EXIT_USAGE
    one_line_error(capsys.readouterr().err, "mixbounds verify: error: --scheduler", "not a Dask scheduler file", needle)


INTERRUPT_RUNNER = r"""
import os, sys, time
from pathlib import Path
marker = Path(os.environ["MARKER"])

def slow(*a, **k):
    marker.write_text(str(os.getpid()))
    time.sleep(300)

cmd = sys.argv[1]
if cmd == "instance":
    import mixbounds.cli.instance as m
    m.build = slow
elif cmd == "solve":
    import mixbounds.cli.solve as m
    m.solve = slow
elif cmd == "bench":
    import mixbounds.cli.bench as m
    m.measure_plans = slow
from mixbounds.cli.command import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.fixture(scope="module")
def small_instance(tmp_path_factory):
    d = tmp_path_factory.mktemp("small") / "consensus"
    assert main(["instance", "random-consensus", "--out", str(d)]) == EXIT_OK
    return d


@pytest.mark.parametrize("cmd", ["instance", "solve", "bench"])
def test_4_ctrl_c_exits_130_with_one_line_and_nothing_written(tmp_path, small_instance, cmd):
    """Root cause: KeyboardInterrupt reached the interpreter (traceback, exit 130 or 1 by chance)."""
    out = tmp_path / "out"
    argv = {"instance": ["instance", "random-consensus", "--out", str(out)],
            "solve": ["solve", str(small_instance), "--json", str(out / "s.json")],
            "bench": ["bench", "--method", "examples.apapc:apapc", "--classes", "consensus", "--tier", "tiny",
                      "--out", str(out)]}[cmd]
    if cmd == "solve":
        out.mkdir()
    marker = tmp_path / "marker"
    # cwd outside the checkout (nothing of it may come before the installed package in a fresh interpreter),
    # with the examples the bench case imports
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    p = subprocess.Popen([sys.executable, "-c", INTERRUPT_RUNNER, *argv], cwd=tmp_path, text=True,
                         env=dict(os.environ, MARKER=str(marker)), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    t0 = time.monotonic()
    while not marker.exists():
        assert p.poll() is None, p.communicate()
        assert time.monotonic() - t0 < WAIT_GUARD_S, "the child never reached the slowed phase"
        time.sleep(0.05)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=WAIT_GUARD_S)
    assert p.returncode == EXIT_INTERRUPTED, err
    assert "Traceback" not in err, err
    assert [ln for ln in err.splitlines() if "interrupted" in ln][0].startswith(f"mixbounds {cmd}: interrupted"), err
    written = [q.name for q in out.rglob("*") if not q.name.startswith(".")] if out.exists() else []
    assert written == []


def test_4_deleted_working_directory_is_one_line(tmp_path):
    gone = tmp_path / "gone"
    gone.mkdir()
    prog = f"import os, sys; os.chdir({str(gone)!r}); os.rmdir({str(gone)!r}); " \
           "from mixbounds.cli.command import main; sys.exit(main(['table']))"
    p = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, timeout=WAIT_GUARD_S, cwd=tmp_path)
    assert p.returncode == EXIT_USAGE
    one_line_error(p.stderr, "mixbounds: error:", "current directory no longer exists")


def test_4_a_closed_output_pipe_is_one_line(tmp_path):
    prog = "from mixbounds.cli.command import main; import sys; sys.exit(main(['table']))"
    r, w = os.pipe()
    os.close(r)  # the reader is gone before the child starts (as `| head -1` once it has its line): no race
    p = subprocess.Popen([sys.executable, "-c", prog], stdout=w, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    os.close(w)
    err = p.stderr.read()
    p.wait(timeout=WAIT_GUARD_S)
    assert p.returncode == EXIT_FAIL and "Traceback" not in err, err
    one_line_error(err, "mixbounds table: error:", "broken pipe")


WORKERS_RUNNER = r"""
import os, sys
sys.path.insert(0, os.environ["TESTS_DIR"])
from mixbounds.checks.run import _selftest, framework
from mixbounds.checks.run.framework import Check, Task
from mixbounds.cli.command import main
import mixbounds.verify as verify

def slow_checks():
    def tasks(tier):
        return [Task(_selftest.power_point, {"kappa": float(k), "slope": 0.5, "delay": 300.0,
                                             "marker_dir": os.environ["MARKERS"]}, label=str(k))
                for k in (100, 200, 300, 400)]
    return [Check(id="selftest.slow", family="selftest", result_ids=lambda t: ["T1.coupled.comm.kappa_W.tight"],
                  tasks=tasks, finalize=lambda t, p: [])]
verify.all_checks = slow_checks
framework.code_version = lambda: "selftest-version"
sys.exit(main(sys.argv[1:]))
"""


#: how long a worker may outlive its SIGKILLed parent: the watcher polls every parent_watch.POLL_S (1 s); the rest is
#: slack for a loaded machine (a guard, not a measurement)
WORKER_END_GUARD_S = 30.0


def test_4_worker_processes_end_with_their_parent(tmp_path):
    """Root cause: joblib's workers knew nothing of their parent (they lingered minutes after a SIGKILL)."""
    markers = tmp_path / "markers"
    markers.mkdir()
    p = subprocess.Popen([sys.executable, "-c", WORKERS_RUNNER, "verify", "--tier", "tiny", "--jobs", "2",
                          "--no-plots", "--no-cache", "--out", str(tmp_path / "o")],
                         env=dict(os.environ, TESTS_DIR=str(Path(__file__).parent), MARKERS=str(markers)),
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path)
    t0 = time.monotonic()
    while len(workers := [int(f.name) for f in markers.iterdir()]) < 2:  # two workers inside a point
        assert p.poll() is None and time.monotonic() - t0 < WAIT_GUARD_S, "no worker started a point"
        time.sleep(0.2)
    assert set(workers) <= set(_loky_workers(p.pid))
    p.kill()
    p.wait()
    t0 = time.monotonic()
    try:
        while any(alive(w) for w in workers):
            assert time.monotonic() - t0 < WORKER_END_GUARD_S, "a worker outlived its parent"
            time.sleep(0.2)
    finally:  # a failing run does not leave its 300-s points holding the cores
        for w in workers:
            if alive(w):
                os.kill(w, signal.SIGKILL)


def _loky_workers(parent: int) -> list[int]:
    """The joblib (loky) worker processes ``parent`` started, found by their parent pid and their command line (not
    loky's resource tracker: it holds no point and ends by itself once the workers are gone)."""
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmd = (d / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        if ppid == parent and b"popen_loky_posix" in cmd:
            out.append(int(d.name))
    return out


# ----------------------------------------------------------------------------- 5. safe reports
def test_5_links_only_to_anchors_and_http_and_no_raw_html_in_report_md():
    """Root cause: text fields were rendered as Markdown links whatever their target, and report.md passed HTML."""
    doc = json.loads(json.dumps(fake_document()))
    evil = "see [click](javascript:alert(1)) <script>alert(2)</script> <img src=x onerror=alert(3)>"
    for c in doc["claims"]:
        c["detail"] = evil + " and [fine](#how-rules) and [site](https://example.org)"
    for f in doc["findings"]:
        f["statement"] = evil
    html_text = report.render_html(doc, None, base=Path("."))
    md = report.render_markdown(doc, None, base=Path("."))
    assert not [h for h in re.findall(r'href="([^"]*)"', html_text) if not h.startswith(("#", "https://", "http://"))
                and ":" in h.split("/")[0]]
    assert "<script>alert" not in html_text and "<img src=x" not in html_text
    assert "<script>alert" not in md and "<img src=x" not in md and not re.search(r"(?<!\\)\]\(javascript:", md)
    assert '<a href="#how-rules">fine</a>' in html_text and '<a href="https://example.org">site</a>' in html_text


# ----------------------------------------------------------------------------- 6. self-checks guard every subset
@pytest.mark.parametrize("claims, tier, must", [
    ("T1.consensus.*", QUICK, ["audit.counters.consensus.*", "calibration.engine.path", "calibration.engine.nesterov",
                               "tolerance.rates.TOL.quick.tolerates", "control.tolerance.lower.TOL.quick.detects",
                               "audit.convergence.*", "control.guard.*", "control.audit.counters.*"]),
    ("T1.coupled.A.kappa_A.lower", QUICK, ["calibration.engine.coupled", "tolerance.lower.TOL.quick.tolerates"]),
    ("lemma.coupled_spectrum", QUICK, ["tolerance.lemmas.INEQ_RTOL.tolerates",
                                       "control.tolerance.lemmas.INEQ_RTOL.detects"]),
    ("T3.coupled.*", QUICK, ["audit.counters.coupled.*", "audit.reference.T3.coupled",
                             "tolerance.nonsmooth.TOL.quick.tolerates"]),
    ("bench.shared.*", TINY, ["audit.counters.shared.*", "calibration.engine.coupled"]),
])
def test_6_a_subset_names_the_self_checks_it_rests_on(claims, tier, must):
    """Root cause: the self-checks ran only when --claims was '*'."""
    got = guards.guard_globs(select_checks(all_checks(), [claims], tier), tier)
    assert set(must) <= set(got), (claims, got)
    assert "audit.counters.mixed.*" not in got  # scoped: the classes the subset measures


def test_6_every_registered_check_is_described():
    """No registered check falls back to 'everything' (a family guards.uses does not know)."""
    loose = [c.id for c in all_checks() for t in c.tiers[:1] if guards.uses(c, t) == guards.EVERYTHING]
    assert loose == []


def test_6_a_broken_counter_fails_a_subset_that_measures_with_it(tmp_path, capsys, monkeypatch):
    """In process (the mutation harness does it on a copy of the package): a comm counter missing every second
    round fails `--claims 'T1.consensus.comm.kappa_W.tight'`, through the consensus counter audit."""
    real = CountedOracles.comm

    def undercount(self, Y):
        before = self.counts["comm"]
        out = real(self, Y)
        self._skip = not getattr(self, "_skip", False)
        if self._skip:
            self.counts["comm"] = before
        return out

    monkeypatch.setattr(CountedOracles, "comm", undercount)
    args = ["verify", "--tier", "tiny", "--jobs", "1", "--no-plots", "--no-cache", "--claims",
            "T1.consensus.comm.kappa_W.tight"]
    assert main([*args, "--out", str(tmp_path / "o")]) == EXIT_FAIL
    doc = json.loads((tmp_path / "o" / "results.json").read_text())
    assert any(i.startswith("audit.counters.consensus.") for i in doc["summary"]["failed"]), doc["summary"]
    monkeypatch.setattr(CountedOracles, "comm", real)  # control: the same subset passes with the real counter
    assert main([*args, "--out", str(tmp_path / "o2")]) == EXIT_OK


def test_6_the_lower_bound_tolerance_has_its_boundary_probe():
    """lower:TOL was listed but not probed: now its probes go through the lower-bound verdict, and a loosened
    tolerance accepts the perturbation it must reject."""
    q = probe_all()["lower:TOL[quick]"]
    assert q["accepts_tolerate"] and not q["accepts_detect"]
    orig = QUICK.table1
    object.__setattr__(QUICK, "table1", dataclasses.replace(orig, lower_slope_tol=0.3))  # the tiers are frozen
    try:
        assert probe_all()["lower:TOL[quick]"]["accepts_detect"]  # the control would now come out not caught
    finally:
        object.__setattr__(QUICK, "table1", orig)


# ----------------------------------------------------------------------------- 7. smaller
def test_7_instance_directories_are_ordinary_directories(tmp_path):
    old = os.umask(0o022)
    try:
        assert main(["instance", "random-consensus", "--no-reference", "--out", str(tmp_path / "i")]) == EXIT_OK
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "i").stat().st_mode) == 0o755


def test_7_duplicated_classes_run_once():
    assert classes_for(None, ["consensus", "coupled", "consensus"]) == ["consensus", "coupled"]
    assert classes_for(("coupled",), None) == ["coupled"]  # control: the declared classes when none is asked for


def test_7_read_json_refuses_what_is_not_a_regular_file(tmp_path):
    os.mkfifo(tmp_path / "f.json")
    with pytest.raises(JSONFileError, match="not a regular file"):
        read_json(tmp_path / "f.json")
    (tmp_path / "ok.json").write_text(textwrap.dedent('{"a": [1, {"b": 2}]}'))
    assert read_json(tmp_path / "ok.json") == {"a": [1, {"b": 2}]}
