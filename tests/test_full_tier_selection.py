"""``verify`` measures the paper's claims; the method benchmarks are opt-in (issue 49, item 3).

``mixbounds verify`` (default ``--claims '*'``) selects no ``bench.*`` check in any tier; ``--claims 'bench.*'`` still
selects them where the tier has benchmark sweeps, and ``mixbounds bench`` without ``--method`` runs them.  The full
tier's plan is otherwise the same task for task: every non-benchmark check and every task a benchmark shares with
one (the lower-bound engine's points).  A run that ends at its budget is a right-censored count in the result.
"""

from __future__ import annotations

import dataclasses

import pytest
from mixbounds.checks import bench
from mixbounds.checks.registry import all_checks
from mixbounds.checks.tiers import FULL, QUICK, TIERS, TINY

import mixbounds.cli.bench as cli_bench
from mixbounds.cli.command import main
from mixbounds.outdir import SUITE_BENCH_OUT
from mixbounds.verify import select_checks


@pytest.fixture(scope="module")
def checks():
    return all_checks()


def _is_bench(c) -> bool:
    return c.family == "bench"


@pytest.mark.parametrize("tier", TIERS, ids=lambda t: t.name)
def test_the_default_selection_has_no_benchmark(checks, tier):
    chosen = select_checks(checks, ["*"], tier)
    assert chosen and not any(_is_bench(c) for c in chosen)
    assert [c for c in checks if tier in c.tiers and not _is_bench(c)] == chosen


@pytest.mark.parametrize("tier", [TINY, FULL], ids=lambda t: t.name)
def test_named_benchmarks_are_still_selected(checks, tier):
    every = [c for c in checks if _is_bench(c) and tier in c.tiers]
    assert every and select_checks(checks, ["bench.*"], tier) == every
    assert select_checks(checks, ["bench.coupled.*"], tier) == [c for c in every if c.id.startswith("bench.coupled.")]
    assert set(every) <= set(select_checks(checks, ["*", "bench.*"], tier))


def test_an_opt_in_flag_left_off_is_caught(checks):
    """Negative control: a benchmark check without ``opt_in`` is selected by the default glob again."""
    planted = [dataclasses.replace(c, opt_in=False) if _is_bench(c) else c for c in checks]
    assert any(_is_bench(c) for c in select_checks(planted, ["*"], FULL))


def test_the_full_plan_is_the_claims_plan(checks):
    """Every task of ``verify --tier full`` is a task of a non-benchmark check, and all of those are planned; no
    method run of the benchmarks is (a task they share with another check, none in this tier, would stay)."""
    claims = [c for c in checks if FULL in c.tiers and not _is_bench(c)]
    planned = [t for c in select_checks(checks, ["*"], FULL) for t in c.tasks(FULL)]
    assert {t.key for t in planned} == {t.key for c in claims for t in c.tasks(FULL)}
    bench_tasks = [t for c in checks if _is_bench(c) for t in c.tasks(FULL)]
    assert bench_tasks and not any(t.func is bench.bench_point for t in planned)


def test_a_budget_run_is_a_censored_count():
    done = {"converged": True, "reason": "tolerance", "iterations": 40, "counts": {"comm": 120},
            "counts2": {"comm": 100}, "realized": {"kappa_W": 10.0}, "final_error": 1e-11}
    cut = {"converged": False, "reason": "budget", "iterations": 3000, "counts": {"comm": 9000}, "counts2": {},
           "realized": {"kappa_W": 31.6}, "final_error": 1e-4}
    diverged = dict(cut, reason="diverged")
    got = bench.censored_counts("kappa_W", "comm", [(10.0, done), (31.6, cut), (100.0, diverged)])
    assert got == [{"target": 31.6, "realized": 31.6, "iterations": 3000, "calls_at_stop": 9000, "count2": None,
                    "final_error": 1e-4, "censored": "count to ε₂ >= calls_at_stop"}]


def test_bench_without_a_method_runs_the_suites_benchmarks(monkeypatch, tmp_path):
    seen = []
    monkeypatch.setattr(cli_bench, "verify_run", lambda opts: seen.append(opts) or 0)
    assert main(["bench", "--tier", "full", "--classes", "coupled,mixed", "--jobs", "1"]) == 0
    (opts,) = seen
    assert opts.tier is FULL and opts.claims == "bench.coupled.*,bench.mixed.*" and opts.out.name == SUITE_BENCH_OUT
    assert main(["bench", "--tier", "tiny", "--out", str(tmp_path / "b")]) == 0
    assert seen[1].claims == "bench.*" and seen[1].out == tmp_path / "b"


@pytest.mark.parametrize("argv, match", [(["bench"], "tier quick has no benchmark sweeps"),
                                         (["bench", "--tier", "full", "--classes", "nope"], "unknown class 'nope'")])
def test_bench_without_a_method_refuses_what_it_cannot_run(monkeypatch, capsys, argv, match):
    monkeypatch.setattr(cli_bench, "verify_run", lambda opts: pytest.fail("ran"))
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert match in err and err.count("\n") == 1
    assert QUICK.bench is None  # the reason of the first message
