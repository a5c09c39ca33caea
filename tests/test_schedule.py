"""The simulated cluster (:mod:`mixbounds.checks.run.schedule`): list scheduling on durations whose schedules are known
exactly, the recorded durations of a real (self-test) run, and the one-line errors on bad input."""

import itertools
import json

import mixbounds.checks.run.framework as framework
import pytest
from mixbounds.checks.run import _selftest
from mixbounds.checks.run.schedule import (
    ScheduleError,
    list_schedule,
    lower_bound,
    main,
    parse_workers,
    predict,
    read_run,
)

from mixbounds import verify
from mixbounds.cli.command import main as cli_main

#: the durations below are small integers and halves: every sum is exact in floating point
EXACT = 0.0
#: recorded phases are rounded by nothing, but ``other`` is the rest of a float difference
SUM_TOL = 1e-9


def _optimum(d, workers):
    """The optimal makespan by brute force over every assignment (small inputs only)."""
    best = float("inf")
    for assign in itertools.product(range(workers), repeat=len(d)):
        loads = [0.0] * workers
        for x, w in zip(d, assign):
            loads[w] += x
        best = min(best, max(loads))
    return best


def test_lpt_on_graham_example_is_10_where_the_optimum_is_9():
    """5,4,3,3,3 on 2 workers: LPT puts 5|4, then 3→4, 3→5, 3→7: loads 8 and 10; the optimum is 5+4 | 3+3+3 = 9.
    LPT is within Graham's 4/3 − 1/(3W) of it; here the lower bound max(18/2, 5) = 9 is the optimum."""
    d = [5, 4, 3, 3, 3]
    s = list_schedule(d, 2)
    assert s.makespan == pytest.approx(10.0, abs=EXACT)
    assert sorted(s.loads) == [8.0, 10.0]
    assert sorted(sorted(d[i] for i in job) for job in s.assignment) == [[3, 3, 4], [3, 5]]
    assert _optimum(d, 2) == 9.0
    assert lower_bound(d, 2) == pytest.approx(9.0, abs=EXACT)
    assert s.makespan <= (4 / 3 - 1 / 6) * _optimum(d, 2)


def test_a_single_long_task_bounds_every_worker_count():
    d = [100.0, 1.0, 1.0, 1.0, 1.0]
    for w in (2, 4, 64):
        assert list_schedule(d, w).makespan == pytest.approx(100.0, abs=EXACT)
        assert lower_bound(d, w) == pytest.approx(100.0, abs=EXACT)
    assert list_schedule(d, 1).makespan == pytest.approx(104.0, abs=EXACT)


def test_equal_tasks_divide_evenly_and_submitted_order_can_lose_to_lpt():
    assert list_schedule([1.5] * 8, 4).makespan == pytest.approx(3.0, abs=EXACT)
    # given order 1, 1, 2: both short jobs start first, the long one waits: 3; LPT: 2 | 1+1 = 2
    assert list_schedule([1, 1, 2], 2, longest_first=False).makespan == pytest.approx(3.0, abs=EXACT)
    assert list_schedule([1, 1, 2], 2).makespan == pytest.approx(2.0, abs=EXACT)


@pytest.mark.parametrize("bad", [0, -1, 2.0, True, "2"])
def test_worker_count_must_be_a_positive_integer(bad):
    with pytest.raises(ScheduleError, match="workers must be a positive integer"):
        list_schedule([1.0], bad)


def test_negative_or_nan_durations_refused():
    for d in ([1.0, -0.5], [float("nan")]):
        with pytest.raises(ScheduleError, match="finite and non-negative"):
            list_schedule(d, 2)


def _doc(groups, *, wall=20.0, points=14.0, jobs=2, **stats):
    """A results document holding ``groups`` (lists of seconds) as recorded task durations."""
    secs, keys, labels = {}, [], {}
    for i, g in enumerate(groups):
        ks = [f"k{i}.{j}" for j in range(len(g))]
        keys.append(ks)
        secs.update(dict(zip(ks, g)))
        labels.update({k: f"task {k}" for k in ks})
    st = {"task_seconds": secs, "task_groups": keys, "task_labels": labels, "task_cached": [], "jobs": jobs,
          "points_seconds": points, "setup_seconds": 1.0, "finalize_seconds": 0.5, "document_seconds": 0.5,
          "plot_seconds": 3.0, "report_seconds": 0.25}
    st.update(stats)
    return {"schema": 2, "claims": [], "wall_time": wall, "stats": st}


def _write(tmp_path, doc):
    (tmp_path / "results.json").write_text(json.dumps(doc))
    return tmp_path


def test_prediction_of_a_recorded_run_is_serial_plus_lpt(tmp_path):
    """Groups 5, 4 (3+1: one instance, two tasks), 3, 3, 3 on 2 workers: LPT 10; serial = set-up 1 + verdicts 0.5 +
    document 0.5 + figures 3 + report 0.25 + other (wall 20 − points 14 − 5 = 1) = 6.25."""
    run = read_run(_write(tmp_path, _doc([[5.0], [3.0, 1.0], [3.0], [3.0], [3.0]])))
    assert [len(g.tasks) for g in run.groups] == [1, 2, 1, 1, 1]
    assert run.groups[1].seconds == pytest.approx(4.0, abs=EXACT)
    assert run.groups[1].label == "task k1.0 (+1 task on its instance)"
    assert run.serial["other"] == pytest.approx(1.0, abs=SUM_TOL)
    assert run.serial_seconds == pytest.approx(6.25, abs=SUM_TOL)
    assert run.wall == pytest.approx(20.25, abs=SUM_TOL) and run.workers == 2
    p = predict(run, 2)
    assert p.points == pytest.approx(10.0, abs=EXACT)
    assert p.wall == pytest.approx(16.25, abs=SUM_TOL)
    assert p.lower == pytest.approx(6.25 + 9.0, abs=SUM_TOL)  # max(18/2, 5)
    assert p.efficiency == pytest.approx(18.0 / 20.0, abs=SUM_TOL)
    assert p.speedup == pytest.approx((6.25 + 18.0) / 16.25, abs=SUM_TOL)
    assert not p.group_bound
    p64 = predict(run, 64)
    assert p64.points == pytest.approx(5.0, abs=EXACT) and p64.group_bound


def test_markdown_record_is_the_table_raw_and_in_calibration_units(tmp_path, capsys):
    """``--markdown``: the same predictions as the table, each time also divided by the run's calibration (0.5 s:
    the 2-worker wall 16.25 s is 32.5 u), the task kinds and the longest tasks; without a calibration, raw only."""
    _write(tmp_path, _doc([[5.0], [3.0, 1.0], [3.0], [3.0], [3.0]], calibration_seconds=0.5))
    assert main([str(tmp_path), "--workers", "2", "--markdown"]) == 0
    out = capsys.readouterr().out
    assert "| 2 | 16.2 s (32.5 u) | 15.2 s (30.5 u) | 10.0 s (20.0 u) | 0.90 |" in out
    assert "| task | 6 | 18.0 s (36.0 u) | 100.0% |" in out and "| task k0.0 | 5.00 s (10.0 u) |" in out
    _write(tmp_path, _doc([[5.0], [3.0]]))
    assert main([str(tmp_path), "--workers", "2", "--markdown"]) == 0
    out = capsys.readouterr().out
    assert "no machine calibration" in out and " u)" not in out


def test_cli_prints_the_table_and_the_check(tmp_path, capsys):
    _write(tmp_path, _doc([[5.0], [3.0, 1.0], [3.0], [3.0], [3.0]], scheduler="local:3"))
    assert main([str(tmp_path), "--workers", "64,2"]) == 0
    out = capsys.readouterr().out
    rows = [ln.split() for ln in out.splitlines() if ln.split()[:1] in (["2"], ["64"])]
    assert [r[:4] for r in rows] == [["2", "16.2", "15.2", "10.0"], ["64", "11.2", "11.2", "5.00"]]
    assert "check at this run's 3 worker(s)" in out  # local:3, not --jobs 2
    assert "critical path 11.2 s" in out


def test_recorded_by_a_real_run_and_read_back(tmp_path, monkeypatch):
    """A self-test ``mixbounds verify``: every task has its seconds and is in exactly one group; the phases and the
    points phase fit in the wall; a second run reads every point from the cache and says so."""
    monkeypatch.setattr(verify, "all_checks", lambda: _selftest.fake_checks())
    monkeypatch.setattr(framework, "code_version", lambda: "selftest-version")
    monkeypatch.setattr(verify, "code_version", lambda: "selftest-version")
    out = tmp_path / "run"
    assert cli_main(["verify", "--tier", "tiny", "--out", str(out), "--jobs", "1", "--no-plots"]) == 0
    st = json.loads((out / "results.json").read_text())["stats"]
    keys = [k for g in st["task_groups"] for k in g]
    assert len(keys) == len(set(keys)) == st["tasks"] == len(st["task_seconds"]) == len(st["task_labels"])
    assert st["task_cached"] == []
    run = read_run(out)
    assert run.serial["other"] >= 0 and run.workers == 1
    assert run.total <= run.points_seconds + SUM_TOL  # one process: the tasks' seconds lie inside the points phase
    assert cli_main(["verify", "--tier", "tiny", "--out", str(out), "--jobs", "1", "--no-plots"]) == 0
    again = json.loads((out / "results.json").read_text())["stats"]
    assert sorted(again["task_cached"]) == sorted(keys)
    assert again["task_seconds"] == st["task_seconds"]  # the cached points keep the seconds they were measured with


@pytest.mark.parametrize("make, needle", [
    (lambda p: p / "missing", "no such file"),
    (lambda p: (p / "results.json").write_text("{not json") and p, "unreadable (JSONDecodeError"),
    (lambda p: _write(p, {"schema": 2, "claims": []}), "not a mixbounds results document (no 'stats' object)"),
    (lambda p: _write(p, {"schema": 2, "stats": {"tasks": 3}, "wall_time": 1.0}), "no task durations"),
    (lambda p: _write(p, _doc([[1.0]], task_groups=[["k0.0", "nowhere"]])), "task 'nowhere' has no duration"),
    (lambda p: _write(p, _doc([[-1.0]])), "is not a non-negative number"),
    (lambda p: _write(p, _doc([[1.0]], task_groups=[[]])), "task_groups[0] is not a non-empty list"),
    (lambda p: _write(p, _doc([[1.0]], wall="soon")), "wall_time = 'soon' is not a non-negative number"),
])
def test_bad_run_is_one_line_and_exit_2(tmp_path, capsys, make, needle):
    target = make(tmp_path)
    before = sorted(tmp_path.rglob("*"))
    assert main([str(target)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("schedule: error: ") and needle in err and err.count("\n") == 1
    assert sorted(tmp_path.rglob("*")) == before  # nothing written


@pytest.mark.parametrize("spec", ["2,x", "0", "8,-1", ""])
def test_bad_workers_is_one_line_and_exit_2(tmp_path, capsys, spec):
    _write(tmp_path, _doc([[1.0]]))
    assert main([str(tmp_path), "--workers", spec]) == 2
    err = capsys.readouterr().err
    assert err.startswith("schedule: error: --workers") and err.count("\n") == 1


def test_run_without_tasks_is_its_serial_part(tmp_path, capsys):
    """Checks with no sweep points (closed forms only): every W gives the serial wall, and the report says so."""
    run = read_run(_write(tmp_path, _doc([], points=0.0, wall=6.0)))
    assert predict(run, 8).wall == pytest.approx(run.serial_seconds, abs=EXACT) and run.serial["other"] == 1.0
    assert main([str(tmp_path), "--workers", "8"]) == 0
    assert "the run has no tasks" in capsys.readouterr().out


def test_parse_workers_sorts_and_dedups():
    assert parse_workers("64, 2,8,2") == [2, 8, 64]
