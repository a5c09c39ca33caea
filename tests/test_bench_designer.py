"""The designer's loop (issue 45, item 6): cached references, filters, a cost estimate and an ETA, the method's output
in a log, method arguments, ``bench.json`` per-point records with the rebuild command, and ``mixbounds solve
--method MODULE:FUNCTION --trace FILE`` for one point.

Root cause tested here: every bench recomputed APAPC and the lower-bound engine on every point, narrowed only by
class, printed the method's output above the table, recorded no point's parameters and could not pass arguments;
``solve`` ran only the suite's own methods.
"""

import json
import shlex
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from mixbounds.instances.families import build
from mixbounds.instances.fingerprint import data_fingerprint
from mixbounds.instances.io import load_instance, save_instance

from mixbounds.bench_method import RunOptions, measure_plans, plans
from mixbounds.cli.command import main

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))

from examples.apapc import apapc  # noqa: E402

EXIT_USAGE = 2
#: the user's module of these tests (a name no other test uses: a module stays in sys.modules, and the method's
#: process is a fork of this one): the example APAPC with a keyword argument, printing on every point
USER_MODULE = textwrap.dedent(f"""
    import sys
    sys.path.append({str(ROOT)!r})
    from examples.apapc import apapc

    def chatty(problem, oracles, label="none"):
        print(f"hello from chatty ({{label}}), n = {{problem.n}}")
        yield from apapc(problem, oracles)

    chatty.classes = ("consensus",)
""")
#: one sweep of the smallest class, one oracle: the cheapest complete bench
NARROW = ["--classes", "consensus", "--tier", "tiny", "--params", "kappa_f", "--families", "worst", "--oracles",
          "comm", "--jobs", "1"]


@pytest.fixture
def user_dir(tmp_path, monkeypatch):
    (tmp_path / "designer_usermod.py").write_text(USER_MODULE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_references_are_cached_the_method_never(tmp_path):
    """A second run with the same cache computes only the method's points; its verdicts are the first run's."""
    plan = plans("tiny", ["consensus"], params=["kappa_f"], kinds=("worst",))
    cache = tmp_path / "cache"
    first, s1 = measure_plans(apapc, plan, "tiny", cache_dir=cache, oracles=("comm",))
    second, s2 = measure_plans(apapc, plan, "tiny", cache_dir=cache, oracles=("comm",))
    points = len(plan[0].sweep.grid)
    assert s1["cached"] == 0 and s1["computed"] == 3 * points  # method, APAPC and the engine on every point
    assert s2["cached"] == 2 * points and s2["computed"] == points  # the method's points only
    strip = lambda r: {k: v for k, v in r.items() if k != "points"}  # noqa: E731 (the method's seconds differ)
    assert [strip(r) for r in first] == [strip(r) for r in second]
    _, s3 = measure_plans(apapc, plan, "tiny", cache_dir=None, oracles=("comm",))  # control: no cache, all computed
    assert s3["computed"] == 3 * points


def test_cli_designer_loop_end_to_end(user_dir, capsys):
    """Filters, --method-arg, the method's output in method.log (not on the console), the cost estimate and the
    ETA, and bench.json's per-point records; a second run reads the references from the cache."""
    out = user_dir / "o"
    argv = ["bench", "--method", "designer_usermod:chatty", "--method-arg", "label=\"L1\"", "--out", str(out), *NARROW]
    assert main(argv) == 0
    cap = capsys.readouterr()
    assert "hello from chatty" not in cap.out + cap.err
    assert "cost estimate: 3 points" in cap.err and "references: 0 of 6 cached" in cap.err and "ETA" in cap.err
    log = (out / "method.log").read_text()
    assert log.count("hello from chatty (L1)") == 3 and "=== METHOD consensus kappa_f=30" in log
    doc = json.loads((out / "bench.json").read_text())
    assert [(r["oracle"], r["param"], r["family"]) for r in doc["results"]] == [("comm", "kappa_f", "consensus")]
    assert doc["wall_seconds"] > 0 and doc["method_args"] == {"label": "L1"}
    for p in doc["results"][0]["points"]:
        assert p["method_seconds"] > 0 and p["params"]["family"] == "consensus" and "--param=kappa_f=" in p["rebuild"]
        assert isinstance(p["per_iteration"], float) and p["count_to"]["1e-06"]["row"] is not None
    assert main(argv) == 0
    assert "references: 6 of 6 cached, 0 to compute" in capsys.readouterr().err


@pytest.mark.parametrize("extra, match", [
    (["--params", "kappa_A"], "--params kappa_A: unknown 'kappa_A' for classes consensus"),
    (["--oracles", "C"], "--oracles C: unknown 'C'"),
    (["--families", "nosuch"], "--families nosuch: unknown 'nosuch'"),
    (["--method-arg", "nolabel"], "--method-arg 'nolabel': expected KEY=VALUE"),
    (["--method-arg", "colour=1"], "does not accept the method arguments (colour=1)"),
    (["--max-iter", "0"], "--max-iter 0: must be in [1,"),
    (["--yield-timeout", "0"], "--yield-timeout 0: must be in (0,"),
])
def test_cli_bad_filters_and_arguments_exit_2_nothing_written(user_dir, capsys, extra, match):
    out = user_dir / "o"
    assert main(["bench", "--method", "designer_usermod:chatty", "--classes", "consensus", "--tier", "tiny", "--out", str(out),
                 *extra]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert match in err and len(err.strip().splitlines()) == 1 and not out.exists()


def test_rebuild_command_rebuilds_the_points_instance(tmp_path):
    """The command bench.json records for a point builds the same instance (same data fingerprint)."""
    from mixbounds.bench_method import method_task

    sw = plans("tiny", ["consensus"], params=["kappa_f"], kinds=("worst",))[0].sweep
    kw = method_task("x:y", sw, sw.grid[1]).kwargs
    from mixbounds.bench_method import rebuild_command

    cmd = shlex.split(rebuild_command(kw["family"], kw["params"], str(tmp_path / "pt")))
    assert cmd[:2] == ["mixbounds", "instance"] and main(cmd[1:]) == 0
    save_instance(build(kw["family"], **kw["params"]), tmp_path / "direct")  # the point's instance, as the bench built it
    assert data_fingerprint(load_instance(tmp_path / "pt").problem) == \
        data_fingerprint(load_instance(tmp_path / "direct").problem)
    other = dict(kw["params"], kappa_f=kw["params"]["kappa_f"] * 2)  # control: another point differs
    save_instance(build(kw["family"], **other), tmp_path / "other")
    assert data_fingerprint(load_instance(tmp_path / "other").problem) != \
        data_fingerprint(load_instance(tmp_path / "pt").problem)


def test_solve_runs_a_users_method_and_writes_its_trace(user_dir, capsys):
    d = user_dir / "pt"
    assert main(["instance", "consensus", "--kappa-f", "30", "--kappa-W", "30", "--eps", "1e-6", "--out", str(d)]) == 0
    js, tr = user_dir / "s.json", user_dir / "t.csv"
    assert main(["solve", str(d), "--method", "designer_usermod:chatty", "--method-arg", "label=x", "--eps", "1e-6",
                 "--json", str(js), "--trace", str(tr)]) == 0
    doc = json.loads(js.read_text())
    rows = tr.read_text().splitlines()
    assert rows[0] == "iteration,error,grad,A,C,Ct,comm" and len(rows) == doc["iterations"] + 2
    data = np.array([[float(v) for v in r.split(",")] for r in rows[1:]])
    assert np.all(np.diff(data[:, 2:], axis=0) >= 0) and data[-1, 1] <= 1e-6  # cumulative counts; it converged
    ct = doc["count_to_eps"]
    assert ct["row"] is not None and np.all(data[ct["row"]:, 1] <= 1e-6) and data[ct["row"] - 1, 1] > 1e-6
    assert ct["counts"]["comm"] == int(data[ct["row"], 6]) and ct["observed"] + 1 >= doc["iterations"] / 3
    assert "count to eps (where the error stays" in capsys.readouterr().out
    # control: a foreign file as --trace is refused before any work
    foreign = user_dir / "notes.csv"
    foreign.write_text("my notes\n")
    assert main(["solve", str(d), "--method", "designer_usermod:chatty", "--trace", str(foreign)]) == EXIT_USAGE
    assert foreign.read_text() == "my notes\n"


def test_solve_rejects_a_bad_user_method_in_one_line(user_dir, capsys):
    d = user_dir / "pt2"
    assert main(["instance", "consensus", "--kappa-f", "30", "--kappa-W", "30", "--eps", "1e-6", "--out", str(d)]) == 0
    capsys.readouterr()
    assert main(["solve", str(d), "--method", "designer_usermod:nosuch"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "has no attribute 'nosuch'" in err and len(err.strip().splitlines()) == 1


def test_run_options_default_budget_is_the_suites_rate_budget():
    from mixbounds.checks.rate_measure import MAX_ITER

    from mixbounds.methods import METHOD_MAX_ITER

    assert RunOptions().max_iter == METHOD_MAX_ITER == MAX_ITER
