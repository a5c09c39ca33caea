"""Regression catalogue of issue 20: never overwrite what is not ours, lock the output, check every output
path before the work, validate what is read back.

One test per failure of the issue (numbered as there), each asserting the exit code, the one-line
message and that nothing pre-existing was written or destroyed.  ``verify`` runs use the self-test
checks (:mod:`mixbounds.checks.run._selftest`, microseconds per point); the concurrency and kill tests run it in
subprocesses with one phase slowed down by a monkeypatch (:data:`RUNNER`), synchronised on a marker
file the slow phase writes — no timing assertions.
"""

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import mixbounds.checks.run.framework as framework
import numpy as np
import pytest
from mixbounds.checks.run import _selftest

from mixbounds import outdir, verify
from mixbounds.cli.command import join_negative_numbers, main

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
#: how long a subprocess test waits for its child to reach the slowed phase (a hang guard, not a measurement)
WAIT_GUARD_S = 120.0


# ----------------------------------------------------------------------------- helpers
def fake_draw_all(doc, out_dir, formats=("png", "svg"), *, jobs=1):
    """Stand-in for :func:`mixbounds.plots.draw_all` (matplotlib takes seconds per figure): one small file per figure
    name the real one would write, its bytes derived from the document, and the same manifest shape."""
    from mixbounds.plots import sweep_groups

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = hashlib.md5(json.dumps(doc.get("claims"), sort_keys=True).encode()).hexdigest().encode()
    man = {"cells": {}, "classes": {}, "heatmap": [], "bench": {}, "errors": []}

    def draw(stem):
        paths = [out_dir / f"{stem}.{ext}" for ext in formats]
        for p in paths:
            p.write_bytes(b"\x89PNG fake " + stem.encode() + b" " + stamp)
        return paths

    for (cell, param) in sweep_groups(doc):
        man["cells"][f"{cell}|{param}"] = draw(f"cell_{cell}_{param}")
    if man["cells"]:
        man["heatmap"] = draw("heatmap")
    return man


@pytest.fixture
def suite(monkeypatch):
    import mixbounds.plots as plots

    monkeypatch.setattr(verify, "all_checks", lambda: _selftest.fake_checks())
    monkeypatch.setattr(framework, "code_version", lambda: "selftest-version")
    monkeypatch.setattr(plots, "draw_all", fake_draw_all)


def snap(d: Path) -> dict:
    """Every file under ``d`` (hidden ones included) → its hash: what "nothing touched" compares."""
    d = Path(d)
    if not d.exists():
        return {}
    return {str(p.relative_to(d)): hashlib.md5(p.read_bytes()).hexdigest() for p in sorted(d.rglob("*")) if p.is_file()}


def visible(d: Path) -> dict:
    """The output set: files under ``d`` with no hidden path component (cache, lock, manifest, staging excluded)."""
    return {k: v for k, v in snap(d).items() if not any(part.startswith(".") for part in Path(k).parts)}


def one_line_error(err: str, prefix: str, *needles: str) -> None:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith(prefix), lines[0]
    for n in needles:
        assert n in lines[0], (n, lines[0])
    assert "Traceback" not in err


def _verify(out, *extra):
    return main(["verify", "--tier", "tiny", "--jobs", "1", "--out", str(out), *extra])


def _foreign(d: Path, names) -> dict:
    d.mkdir(parents=True, exist_ok=True)
    for n in names:
        (d / n).parent.mkdir(parents=True, exist_ok=True)
        (d / n).write_text(f"a user's {n}\n")
    return snap(d)


# ----------------------------------------------------------------------------- 1. foreign output directories
@pytest.mark.parametrize("names", [["results.json"], ["report.md", "report.html", "results.csv"],
                                   ["plots/cell_mine.png", "plots/heatmap.svg", "plots/class_x.png"]])
def test_1_verify_refuses_a_foreign_out(suite, tmp_path, capsys, names):
    d = tmp_path / "mine"
    before = _foreign(d, names)
    assert _verify(d) == EXIT_USAGE
    one_line_error(capsys.readouterr().err, "mixbounds verify: error: --out", "not written by mixbounds",
                   outdir.MANIFEST)
    assert snap(d) == before


def test_1_verify_refuses_foreign_figures_in_an_owned_out(suite, tmp_path, capsys):
    d = tmp_path / "o"
    assert _verify(d, "--no-plots") == EXIT_OK
    before = _foreign(d / "plots", ["cell_mine.png", "bench_x.svg"])
    before = snap(d)
    capsys.readouterr()
    assert _verify(d) == EXIT_USAGE
    one_line_error(capsys.readouterr().err, "mixbounds verify: error: --out", str(d / "plots"))
    assert snap(d) == before


def test_1_plot_refuses_a_foreign_figure_directory(suite, tmp_path, capsys):
    src = tmp_path / "o"
    assert _verify(src, "--no-plots") == EXIT_OK
    figs = tmp_path / "figs"
    before = _foreign(figs, ["cell_mine.png", "heatmap.png", "bench_x.svg"])
    capsys.readouterr()
    assert main(["plot", str(src / "results.json"), "--out", str(figs)]) == EXIT_USAGE
    one_line_error(capsys.readouterr().err, "mixbounds plot: error: --out", "not written by mixbounds")
    assert snap(figs) == before


def test_1_owned_out_deletes_only_what_its_manifest_lists(suite, tmp_path):
    d = tmp_path / "o"
    assert _verify(d) == EXIT_OK
    man = json.loads((d / "plots" / outdir.MANIFEST).read_text())["files"]
    assert man and all((d / "plots" / f).is_file() for f in man)
    (d / "notes.txt").write_text("mine")              # a user's file in an owned directory
    (d / "plots" / "cell_mine.png").write_text("mine")  # with the suite's naming, but not listed
    stale = d / "plots" / man[0]
    assert _verify(d) == EXIT_OK
    assert (d / "notes.txt").read_text() == "mine" and (d / "plots" / "cell_mine.png").read_text() == "mine"
    assert stale.is_file()  # redrawn (same results): listed again
    top = json.loads((d / outdir.MANIFEST).read_text())["files"]
    assert "notes.txt" not in top and set(top) == {"results.json", "results.csv", "report.md", "report.html", "plots"}


# ----------------------------------------------------------------------------- 2. the lock; kills at every phase
def test_2_second_run_on_a_held_out_is_refused_at_once(suite, tmp_path, capsys):
    d = tmp_path / "o"
    held = outdir.OutputDir(d, "verify", command="the first run").__enter__()
    try:
        before = snap(d)
        assert _verify(d) == EXIT_USAGE
        one_line_error(capsys.readouterr().err, "mixbounds verify: error: --out", "in use by another run",
                       f"pid {os.getpid()}", "the first run")
        assert snap(d) == before
    finally:
        held.__exit__(None, None, None)
    assert _verify(d) == EXIT_OK  # released: the next run proceeds


def test_2_stale_lock_of_a_dead_run_is_taken_over(suite, tmp_path, capsys):
    d = tmp_path / "o"
    assert _verify(d, "--no-plots") == EXIT_OK
    dead = subprocess.run([sys.executable, "-P", "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    (d / outdir.LOCK).write_text(json.dumps({"pid": int(dead.stdout), "started": "2026-01-01T00:00:00+00:00",
                                             "command": "a killed run"}))
    capsys.readouterr()
    assert _verify(d, "--no-plots") == EXIT_OK
    err = capsys.readouterr().err
    assert "taking over the lock" in err and f"pid {int(dead.stdout)}" in err and "a killed run" in err


RUNNER = r"""
import os, signal, sys, time
from pathlib import Path
sys.path.insert(0, os.environ["TESTS_DIR"])
from test_reliability import fake_draw_all
import mixbounds.checks.run.framework as framework
import mixbounds.outdir as od
import mixbounds.plots as plots
from mixbounds import verify
from mixbounds.checks.run import _selftest
from mixbounds.cli.command import main

verify.all_checks = lambda: _selftest.fake_checks()
framework.code_version = lambda: "selftest-version"
phase, marker = os.environ["SLOW_PHASE"], Path(os.environ["MARKER"])

def slow(name):
    if phase == name:
        marker.write_text(str(os.getpid()))
        time.sleep(300)

orig_run, orig_draw = verify.run_checks, fake_draw_all
def run_checks(*a, **k):
    slow("points")
    return orig_run(*a, **k)
def draw_all(*a, **k):
    m = orig_draw(*a, **k)
    slow("figures")
    return m
verify.run_checks, plots.draw_all = run_checks, draw_all
if phase == "install":  # die after the commit point, two files into the install
    def roll(self, journal):
        stage = self.path / journal["stage"]
        for rel in journal["moves"][:2]:
            (self.path / rel).parent.mkdir(parents=True, exist_ok=True)
            os.replace(stage / rel, self.path / rel)
        os.kill(os.getpid(), signal.SIGKILL)
    od.OutputDir._roll_forward = roll
sys.exit(main(sys.argv[1:]))
"""


def _child(tmp_path, out, phase, *extra):
    marker = tmp_path / f"marker-{phase}-{time.monotonic_ns()}"
    env = dict(os.environ, SLOW_PHASE=phase, MARKER=str(marker), TESTS_DIR=str(Path(__file__).parent))
    p = subprocess.Popen([sys.executable, "-P", "-c", RUNNER, "verify", "--tier", "tiny", "--jobs", "1", "--out", str(out),
                          *extra], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         # a background job of a non-interactive shell (CI) starts with SIGINT ignored
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    return p, marker


def _wait_marker(p, marker):
    t0 = time.monotonic()
    while not marker.exists():
        assert p.poll() is None, p.communicate()
        assert time.monotonic() - t0 < WAIT_GUARD_S, "the child never reached the slowed phase"
        time.sleep(0.05)


def _first_set(suite_dir):
    """A complete previous output set, made recognisable (the self-test results are deterministic)."""
    assert _verify(suite_dir) == EXIT_OK
    (suite_dir / "report.md").write_text((suite_dir / "report.md").read_text() + "\n<!-- the previous set -->\n")
    s = visible(suite_dir)
    assert {"results.json", "report.md", "plots/heatmap.png"} <= set(s)
    return s


def test_2_two_concurrent_verify_runs_second_refused_at_once(suite, tmp_path, capsys):
    d = tmp_path / "o"
    p1, marker = _child(tmp_path, d, "points")
    try:
        _wait_marker(p1, marker)
        before = snap(d)
        assert _verify(d) == EXIT_USAGE  # the second run, in this process
        assert p1.poll() is None  # it returned while the first still holds the directory
        one_line_error(capsys.readouterr().err, "mixbounds verify: error: --out", "in use by another run",
                       f"pid {p1.pid}", "mixbounds verify --tier tiny")
        assert snap(d) == before
    finally:
        p1.kill()
        p1.communicate()


@pytest.mark.parametrize("phase, sig", [("points", signal.SIGKILL), ("figures", signal.SIGINT)])
def test_2_killed_run_leaves_the_previous_set_intact(suite, tmp_path, phase, sig):
    d = tmp_path / "o"
    first = _first_set(d)
    p, marker = _child(tmp_path, d, phase, "--no-cache")
    _wait_marker(p, marker)
    p.send_signal(sig)
    _, err = p.communicate(timeout=WAIT_GUARD_S)
    assert p.returncode == (EXIT_INTERRUPTED if sig == signal.SIGINT else -signal.SIGKILL), err
    assert "Traceback" not in err
    assert visible(d) == first  # the previous complete set, byte for byte
    # the next run cleans up after the dead one and installs a complete new set
    assert _verify(d) == EXIT_OK
    assert not [p for p in d.iterdir() if p.name.startswith(outdir.STAGING_PREFIX)]
    assert visible(d) != first


def test_2_run_killed_after_the_commit_point_is_rolled_forward(suite, tmp_path, capsys):
    d = tmp_path / "o"
    _first_set(d)
    (d / "report.md").write_text("the previous report\n")  # distinguishable from the next set
    (d / "plots" / "heatmap.png").write_bytes(b"previous")
    p, marker = _child(tmp_path, d, "install", "--no-cache")
    p.communicate(timeout=WAIT_GUARD_S)
    assert p.returncode == -signal.SIGKILL
    assert (d / outdir.JOURNAL).exists()  # committed, half installed
    with outdir.OutputDir(d, "verify"):  # the next holder of the directory finishes the install
        pass
    assert "completing the install" in capsys.readouterr().err
    assert not (d / outdir.JOURNAL).exists()
    assert (d / "report.md").read_text() != "the previous report\n"
    assert (d / "plots" / "heatmap.png").read_bytes() != b"previous"
    for link in re.findall(r"\((plots/[^)]+)\)", (d / "report.md").read_text()):
        assert (d / link).is_file(), link  # the report's figures are the ones installed with it
    listed = json.loads((d / "plots" / outdir.MANIFEST).read_text())["files"]
    assert sorted(p.name for p in (d / "plots").iterdir() if not p.name.startswith(".")) == sorted(listed)


# ----------------------------------------------------------------------------- 3. solve's outputs
@pytest.fixture(scope="module")
def inst_dir(tmp_path_factory):
    from mixbounds.instances.families import build
    from mixbounds.instances.io import save_instance
    from mixbounds.instances.reference.kkt import reference_solution

    d = tmp_path_factory.mktemp("inst") / "mixed"
    inst = build("random-mixed", seed=3)
    save_instance(inst.with_reference(reference_solution(inst.problem).u), d)
    return d


def _solve_refused(inst_dir, tmp_path, capsys, argv, *needles, watch=None):
    watch = watch or tmp_path
    before, inst_before = snap(watch), snap(inst_dir)
    assert main(["solve", str(inst_dir), *argv]) == EXIT_USAGE
    one_line_error(capsys.readouterr().err, "mixbounds solve: error:", *needles)
    assert snap(watch) == before and snap(inst_dir) == inst_before


def test_3_solve_json_under_a_file(inst_dir, tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    _solve_refused(inst_dir, tmp_path, capsys, ["--json", str(tmp_path / "file" / "s.json")], "is not a directory")


def test_3_solve_json_is_a_directory(inst_dir, tmp_path, capsys):
    (tmp_path / "jdir").mkdir()
    _solve_refused(inst_dir, tmp_path, capsys, ["--json", str(tmp_path / "jdir")], "is a directory")


def test_3_solve_json_under_a_dangling_link(inst_dir, tmp_path, capsys):
    os.symlink(tmp_path / "nowhere", tmp_path / "link")
    _solve_refused(inst_dir, tmp_path, capsys, ["--json", str(tmp_path / "link" / "s.json")], "dangling symbolic link")


def test_3_solve_json_in_an_unwritable_directory(inst_dir, tmp_path, capsys, monkeypatch):
    """Writability is proved by creating a file there (issue 37: os.access said yes to root); the refusal names
    the directory and the system's reason."""
    ro = tmp_path / "ro"
    ro.mkdir()
    real = outdir.tempfile.mkstemp

    def mkstemp(*a, dir=None, **k):
        if Path(dir) == ro:
            raise PermissionError(13, "Permission denied")
        return real(*a, dir=dir, **k)

    monkeypatch.setattr(outdir.tempfile, "mkstemp", mkstemp)
    _solve_refused(inst_dir, tmp_path, capsys, ["--json", str(ro / "s.json")], f"cannot create files in {ro}",
                   "Permission denied")


def test_3_solve_json_under_proc_is_refused_before_the_work(inst_dir, tmp_path, capsys):
    """/proc exists and os.access(W_OK) holds for root, but no file can be created there (issue 37)."""
    _solve_refused(inst_dir, tmp_path, capsys, ["--json", "/proc/mixbounds-x/s.json"], "cannot create files in /proc")


def test_3_solve_refuses_a_foreign_json_and_x(inst_dir, tmp_path, capsys):
    (tmp_path / "notes.json").write_text('{"my": "notes"}')
    _solve_refused(inst_dir, tmp_path, capsys, ["--json", str(tmp_path / "notes.json")],
                   "not a mixbounds solve summary")
    np.save(tmp_path / "s.x.npy", np.arange(3.0))
    _solve_refused(inst_dir, tmp_path, capsys, ["--json", str(tmp_path / "s.json")], "s.x.npy", "refusing to overwrite")


def test_3_solve_overwrites_its_own_outputs_and_never_the_instance(inst_dir, tmp_path, capsys):
    inst_before = snap(inst_dir)
    assert main(["solve", str(inst_dir), "--eps", "1e-6"]) == EXIT_OK  # no --json / --x: nothing written
    assert "x not written" in capsys.readouterr().out
    j = tmp_path / "s.json"
    for _ in range(2):  # the second run replaces the summary and the x it names
        assert main(["solve", str(inst_dir), "--eps", "1e-6", "--json", str(j)]) == EXIT_OK
    assert json.loads(j.read_text())["x"] == str(tmp_path / "s.x.npy") and (tmp_path / "s.x.npy").is_file()
    assert snap(inst_dir) == inst_before


# ----------------------------------------------------------------------------- 4. bounds of the printed families
@pytest.mark.parametrize("family, params, needle", [
    ("coupled", ["--kappa-W", "30", "--kappa-AC", "30", "--kappa-f", "1e30"], "κ_f = 1e+30 exceeds the bound 1e+08"),
    ("coupled-local", ["--kappa-W", "30", "--kappa-C", "10", "--kappa-f", "30", "--kappa-AC", "1e30"], "κ̃_AC = 1e+30"),
    ("shared", ["--kappa-W", "30", "--kappa-f", "30", "--kappa-Ct", "1e30"], "κ̂_C̃ = 1e+30"),
    ("consensus", ["--kappa-f", "30", "--kappa-W", "1e30"], "κ_W = 1e+30 exceeds the bound 1e+06"),
    ("coupled-local", ["--kappa-W", "30", "--kappa-AC", "30", "--kappa-f", "30", "--kappa-C", "1e30"], "κ_C = 1e+30"),
    ("consensus", ["--kappa-f", "30", "--kappa-W", "1e8"], "κ_W = 1e+08 exceeds the bound 1e+06"),
    ("random-mixed", ["--n", "100000000"], "--n 100000000: must be in [1, 10000] for random-mixed (measured: random-mixed n"),
    ("nonsmooth-mixed", ["--n", "2001"], "--n 2001: must be in [1, 2000] for nonsmooth-mixed (measured: not measured beyond"),
    ("random-coupled", ["--n", "10001"], "--n 10001: must be in [1, 10000] for random-coupled (measured: random-coupled n"),
    ("nonsmooth-shared-ident", ["--n", "10001"],
     "--n 10001: must be in [1, 10000] for nonsmooth-shared-ident (measured: nonsmooth-shared-ident n"),
    ("nonsmooth-coupled-local", ["--n", "10001"],
     "--n 10001: must be in [1, 10000] for nonsmooth-coupled-local (measured: nonsmooth-coupled-local n"),
    ("nonsmooth-coupled", ["--n", "10001"],
     "--n 10001: must be in [1, 10000] for nonsmooth-coupled (measured: nonsmooth-coupled n"),
    ("nonsmooth-mixed-ident", ["--n", "10001"],
     "--n 10001: must be in [1, 10000] for nonsmooth-mixed-ident (measured: nonsmooth-mixed-ident n"),
])
def test_4_kappa_and_size_bounds(tmp_path, capsys, family, params, needle):
    assert main(["instance", family, *params, "--out", str(tmp_path / "i")]) == EXIT_USAGE
    one_line_error(capsys.readouterr().err, "mixbounds instance: error:", needle)
    assert not (tmp_path / "i").exists()


def test_4_chain_helpers_refuse_a_ratio_of_one():
    from mixbounds.instances.graphs import path_size_for
    from mixbounds.instances.worst_case.common import k_eps

    with pytest.raises(ValueError, match="not in \\(0, 1\\) in double precision"):
        k_eps(1.0, 1e-6)
    with pytest.raises(ValueError, match="exceeds the bound"):
        path_size_for(1e30)
    assert k_eps(0.5, 1e-6) == 10  # control: an ordinary ratio still works (log(1e6)/(2 log 2) = 9.97)


def test_4_progress_line_for_a_slow_build(capsys):
    from mixbounds.cli.instance import _progress

    with _progress("building x", every=0.01):
        time.sleep(0.2)
    assert "mixbounds instance: building x …" in capsys.readouterr().err
    with _progress("building y", every=60.0):  # control: a quick build prints nothing
        pass
    assert capsys.readouterr().err == ""


# ----------------------------------------------------------------------------- 5. verify --json
def test_5_verify_json_checked_before_the_run(suite, tmp_path, capsys):
    d = tmp_path / "o"
    assert _verify(d) == EXIT_OK
    before = snap(d)
    (tmp_path / "file").write_text("x")
    (tmp_path / "notes.json").write_text('{"mine": 1}')
    capsys.readouterr()
    for target, needle in ((tmp_path / "file" / "r.json", "is not a directory"), (tmp_path / "jd", "is a directory"),
                           (tmp_path / "notes.json", "not a mixbounds results document")):
        if target.name == "jd":
            target.mkdir()
        assert _verify(d, "--json", str(target)) == EXIT_USAGE
        one_line_error(capsys.readouterr().err, "mixbounds verify: error: --json", needle)
        assert snap(d) == before
    assert (tmp_path / "notes.json").read_text() == '{"mine": 1}'


# ----------------------------------------------------------------------------- 6. plot validates what it reads
def _mutate(doc, kind):
    if kind == "schema":
        doc["schema"] = 99
    for c in doc["claims"]:
        if kind == "renamed":
            c["points"] = [{("x" if k == "realized" else "y" if k == "per_accuracy" else k): v for k, v in p.items()}
                           for p in c.get("points") or []]
        elif kind == "strings":
            c["points"] = [json.dumps(p) for p in c.get("points") or []]
        elif kind == "values":
            c["points"] = [dict(p, realized="abc") for p in c.get("points") or []]
    return doc


@pytest.mark.parametrize("kind, needle", [("schema", "results schema 99 is not one this mixbounds reads"),
                                          ("renamed", "no point has the fields 'realized' and 'per_accuracy'"),
                                          ("strings", "points[0] is a str, expected an object"),
                                          ("values", "points[0].realized = 'abc' is not a number")])
def test_6_plot_refuses_a_malformed_results_document(suite, tmp_path, capsys, kind, needle):
    d = tmp_path / "o"
    assert _verify(d, "--no-plots") == EXIT_OK
    src = tmp_path / "r" / "results.json"
    src.parent.mkdir()
    src.write_text(json.dumps(_mutate(json.loads((d / "results.json").read_text()), kind)))
    capsys.readouterr()
    assert main(["plot", str(src)]) == EXIT_USAGE
    one_line_error(capsys.readouterr().err, "mixbounds plot: error:", needle)
    assert not (src.parent / "plots").exists()


def test_6_control_the_unmodified_document_is_drawn(suite, tmp_path, capsys):
    d = tmp_path / "o"
    assert _verify(d, "--no-plots") == EXIT_OK
    assert main(["plot", str(d / "results.json")]) == EXIT_OK
    assert "figures (PNG + SVG)" in capsys.readouterr().out and (d / "plots" / "heatmap.png").is_file()


# ----------------------------------------------------------------------------- 7. solve checks x* and the constraints
def _copy(inst_dir, tmp_path):
    d = tmp_path / "inst"
    shutil.copytree(inst_dir, d)
    return d


def test_7_wrong_x_star_is_named(inst_dir, tmp_path, capsys):
    d = _copy(inst_dir, tmp_path)
    np.save(d / "x_star.npy", np.load(d / "x_star.npy") + 1.0)
    _solve_refused(d, tmp_path / "w", capsys, ["--json", str(tmp_path / "w" / "s.json")],
                   f"{d / 'x_star.npy'} is not the solution", "violates the constraints")
    np.save(d / "x_star.npy", np.full_like(np.load(inst_dir / "x_star.npy"), np.nan))
    _solve_refused(d, tmp_path / "w", capsys, [], "x_star.npy is not the solution", "not finite")


def test_7_feasible_but_not_stationary_x_star(inst_dir):
    import scipy.linalg as sla
    from mixbounds.instances.io import load_instance
    from mixbounds.instances.reference.kkt import constraint_system, copy_map

    from mixbounds.cli.solve import XSTAR_RTOL, xstar_residual

    inst = load_instance(inst_dir)
    P = inst.problem
    res0, _ = xstar_residual(P, inst.x_star)
    assert res0 <= XSTAR_RTOL  # control: the saved solution passes
    G, _ = constraint_system(P)
    N = sla.null_space(G.toarray())  # small test instance: dense is fine here
    assert N.shape[1] > 0
    u = inst.x_star + copy_map(P) @ (0.1 * N[:, 0])  # stays feasible and consistent across nodes
    res, why = xstar_residual(P, u)
    assert res > XSTAR_RTOL and "not stationary" in why


def _contradicting_shared_groups_are_named(inst_dir, tmp_path, capsys):
    """The saved instance is consistent (control); node 1 given node 0's C̃ with another right-hand side is not."""
    from mixbounds.instances.io import load_instance

    from mixbounds.cli.solve import constraint_consistency

    assert constraint_consistency(load_instance(inst_dir).problem) is None  # control
    d = _copy(inst_dir, tmp_path)
    shutil.copy(d / "Ct_0.mtx", d / "Ct_1.mtx")
    np.save(d / "ct_1.npy", np.load(d / "ct_0.npy") + 1.0)
    (d / "x_star.npy").unlink()
    _solve_refused(d, tmp_path / "w", capsys, [], "shared constraints", "(C̃)", "contradict each other")


def test_7_jointly_infeasible_groups_are_named(inst_dir, tmp_path, capsys):
    _contradicting_shared_groups_are_named(inst_dir, tmp_path, capsys)
    # one node's own block infeasible: a repeated row with another right-hand side
    d2 = _copy(inst_dir, tmp_path / "b")
    import scipy.io as sio
    import scipy.sparse as sp

    C0 = sp.csr_matrix(sio.mmread(str(d2 / "C_0.mtx")))
    sio.mmwrite(str(d2 / "C_0.mtx"), sp.vstack([C0, C0[0]]))
    c0 = np.load(d2 / "c_0.npy")
    np.save(d2 / "c_0.npy", np.append(c0, c0[0] + 1.0))
    (d2 / "x_star.npy").unlink()
    _solve_refused(d2, tmp_path / "w2", capsys, [], "node 0", "infeasible")  # found by the loader already


def test_7_consistency_check_on_the_schur_path(inst_dir, tmp_path, capsys, monkeypatch):
    """Above KKT_DIRECT_MAX_NNZ the check goes through the Schur complement (the whole KKT matrix of a
    10⁶-variable vertical-fl instance ran SuperLU out of memory): same answers, both ways."""
    from mixbounds.instances.reference import saddle_point as reference

    monkeypatch.setattr(reference, "KKT_DIRECT_MAX_NNZ", 0)
    monkeypatch.setattr(reference, "KKT_DIRECT_BEFORE_MINRES_NNZ", 0)
    _contradicting_shared_groups_are_named(inst_dir, tmp_path, capsys)


def test_7_summary_is_strict_json(inst_dir, tmp_path):
    from mixbounds.cli.solve import strict

    assert strict({"a": float("nan"), "b": [float("inf"), -float("inf")], "c": np.float64(1.5)}) == \
        {"a": "nan", "b": ["inf", "-inf"], "c": 1.5}
    j = tmp_path / "s.json"
    assert main(["solve", str(inst_dir), "--max-iter", "2", "--json", str(j)]) == EXIT_FAIL  # budget: not converged
    doc = json.loads(j.read_text(), parse_constant=lambda c: pytest.fail(f"non-strict JSON constant {c}"))
    assert doc["converged"] is False and doc["reason"] == "budget"


# ----------------------------------------------------------------------------- 8. damaged cache entries
@pytest.mark.parametrize("damage", ['{"realized": "oops"}', "[1, 2]", '"text"', "{not json"])
def test_8_damaged_cache_entries_are_recomputed_and_counted(suite, tmp_path, capsys, damage):
    d = tmp_path / "o"
    assert _verify(d, "--no-plots") == EXIT_OK
    good = json.loads((d / "results.json").read_text())
    entries = list((d / ".cache" / "selftest-version").glob("*.json"))
    assert entries
    for e in entries:
        e.write_text(damage)
    capsys.readouterr()
    assert _verify(d, "--no-plots") == EXIT_OK
    err = capsys.readouterr().err
    assert f"(0 cached, {len(entries)} damaged or unsigned cache entries to recompute)" in err
    doc = json.loads((d / "results.json").read_text())
    assert doc["stats"]["damaged"] == len(entries) and doc["stats"]["computed"] == len(entries)
    assert [(c["id"], c["status"], c["measured"]) for c in doc["claims"]] == \
        [(c["id"], c["status"], c["measured"]) for c in good["claims"]]
    capsys.readouterr()
    assert _verify(d, "--no-plots") == EXIT_OK  # rewritten valid: all cached now
    assert f"({len(entries)} cached)" in capsys.readouterr().err


# ----------------------------------------------------------------------------- 9. negative option values
def test_9_negative_numbers_for_numeric_options(inst_dir, tmp_path, capsys):
    assert join_negative_numbers(["solve", "d", "--eps", "-1e-3", "--json", "x"]) == \
        ["solve", "d", "--eps=-1e-3", "--json", "x"]
    assert join_negative_numbers(["--out", "-x"]) == ["--out", "-x"]  # control: not a number, left to argparse
    for argv in (["--eps", "-1e-3"], ["--eps=-1e-3"]):
        _solve_refused(inst_dir, tmp_path, capsys, argv, "--eps must be in (0, 1), got -0.001")
    _solve_refused(inst_dir, tmp_path, capsys, ["--max-iter", "-5"], "--max-iter must be a positive integer")


# ----------------------------------------------------------------------------- 10. layout inferred
def test_10_layout_inferred_from_the_blocks(inst_dir, tmp_path, capsys):
    from mixbounds.instances.io import load_instance

    d = _copy(inst_dir, tmp_path)
    meta = json.loads((d / "instance.json").read_text())
    meta.pop("layout")
    (d / "instance.json").write_text(json.dumps(meta))
    assert load_instance(d).problem.layout == load_instance(inst_dir).problem.layout
    assert main(["solve", str(d), "--eps", "1e-6"]) == EXIT_OK
    # same validation as a given layout: a block of the wrong width is named
    import scipy.io as sio
    import scipy.sparse as sp

    A1 = sp.csr_matrix(sio.mmread(str(d / "A_1.mtx")))
    sio.mmwrite(str(d / "A_1.mtx"), sp.hstack([A1, sp.csr_matrix((A1.shape[0], 1))]))
    capsys.readouterr()
    _solve_refused(d, tmp_path / "w", capsys, [], "node 1", "d_1 columns")


def test_10_layout_ambiguous_without_constraint_blocks(tmp_path, capsys):
    from mixbounds.instances.families import build
    from mixbounds.instances.io import save_instance

    d = tmp_path / "c"
    save_instance(build("random-consensus", seed=0), d)
    meta = json.loads((d / "instance.json").read_text())
    meta.pop("layout")
    (d / "instance.json").write_text(json.dumps(meta))
    _solve_refused(d, tmp_path / "w", capsys, [], "no 'layout'", "cannot be inferred")


def test_1_output_directory_of_an_earlier_version_is_adopted(suite, tmp_path):
    d = tmp_path / "o"
    assert _verify(d) == EXIT_OK
    for f in (d / outdir.MANIFEST, d / "plots" / outdir.MANIFEST, d / outdir.LOCK):  # as written before manifests
        f.unlink()
    first = visible(d)
    assert _verify(d) == EXIT_OK
    assert set(visible(d)) == set(first)
    figures = sorted(n.split("/", 1)[1] for n in first if n.startswith("plots/"))
    assert json.loads((d / "plots" / outdir.MANIFEST).read_text())["files"] == figures
    # control: the same directory with one foreign file is refused, and the file kept
    (d / outdir.MANIFEST).unlink()
    (d / "mine.txt").write_text("mine")
    assert _verify(d) == EXIT_USAGE and (d / "mine.txt").read_text() == "mine"


def test_7_homogeneous_constraints_accept_their_solution_and_refuse_a_wrong_one(tmp_path, capsys):
    """Every printed worst case has b = 0: the feasibility residual must be relative to the terms (|G||v|), not to
    ‖Gv‖, which is itself rounding there (the ratio was 1.0 for the exact solution and solve refused it)."""
    from mixbounds.instances.io import load_instance

    from mixbounds.cli.command import main
    from mixbounds.cli.solve import XSTAR_RTOL, xstar_residual

    d = tmp_path / "coupled"
    assert main(["instance", "coupled", "--kappa-W", "10", "--kappa-A", "10", "--kappa-f", "10", "--out", str(d)]) == 0
    inst = load_instance(d)
    assert not np.any(inst.problem.b_stacked)
    res, why = xstar_residual(inst.problem, inst.x_star)
    assert res <= XSTAR_RTOL, why
    capsys.readouterr()
    assert main(["solve", str(d)]) == 0
    np.save(d / "x_star.npy", np.load(d / "x_star.npy") + 1.0)  # control: an infeasible x_star is still refused
    _solve_refused(d, tmp_path / "w", capsys, [], "x_star.npy is not the solution", "violates the constraints")
