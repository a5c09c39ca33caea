"""A subset never replaces a set (issue 44, item 3): every command that writes a set refuses a directory holding the
set of another selection unless told ``--merge`` or ``--replace``; the report's Reproduce commands write elsewhere.

``verify`` runs use the self-test checks (:mod:`mixbounds.checks.run._selftest`, microseconds per point).
"""

import json
import os
import re
import shlex
from pathlib import Path

import mixbounds.plots as figures
import pytest
from mixbounds.checks.run import _selftest, framework
from mixbounds.checks.run.globs import union_globs
from mixbounds.checks.run.merge import MergeError, merge_documents
from test_reliability import fake_draw_all, one_line_error, snap, visible

from mixbounds import outdir, verify
from mixbounds.cli.command import main
from mixbounds.selection import bench_selection, describe, same, union, verify_selection

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
SUBSET = "T1.coupled.comm.kappa_W.tight"


@pytest.fixture
def suite(monkeypatch):
    """The self-test checks, a fixed code version, figures drawn as stand-ins; ``suite(**kw)`` changes the checks
    (``failing=True``: one check fails)."""
    kw: dict = {}
    monkeypatch.setattr(verify, "all_checks", lambda: _selftest.fake_checks(**kw))
    monkeypatch.setattr(framework, "code_version", lambda: "selftest-version")
    monkeypatch.setattr(verify, "code_version", lambda: "selftest-version")
    monkeypatch.setattr(figures, "draw_all", fake_draw_all)
    return lambda **k: kw.update(k)


def _verify(out, *extra, tier="tiny"):
    return main(["verify", "--tier", tier, "--jobs", "1", "--out", str(out), *extra])


def _ids(d: Path) -> list[str]:
    return [c["id"] for c in json.loads((d / "results.json").read_text())["claims"]]


def _reproduce_commands(report_md: str) -> list[str]:
    return re.findall(r"`(mixbounds verify --tier [^`]+)`", report_md)


# ----------------------------------------------------------------------------- the case
def test_the_reports_reproduce_command_leaves_the_set_intact(suite, tmp_path, capsys, monkeypatch):
    """Root cause: a verify into an existing set replaced it by whatever the new selection produced (306 figures to 3,
    report.md from 1.1 MB to 97 KB).  The Reproduce command writes into a new directory; pointed at the set, or run
    with the default --out where the set is, it is refused and the set is untouched."""
    monkeypatch.chdir(tmp_path)
    assert main(["verify", "--tier", "tiny", "--jobs", "1"]) == EXIT_OK  # the default --out: ./mixbounds-results
    the_set = tmp_path / outdir.VERIFY_OUT
    before = snap(the_set)
    cmd = next(c for c in _reproduce_commands((the_set / "report.md").read_text()) if f"'{SUBSET}'" in c)
    argv = shlex.split(cmd)
    assert argv[argv.index("--out") + 1] != outdir.VERIFY_OUT  # as printed: a new directory
    capsys.readouterr()
    assert main(argv[1:]) == EXIT_OK  # … which it writes
    assert _ids(tmp_path / argv[argv.index("--out") + 1]) == [SUBSET]
    for into in ([*argv[1:argv.index("--out")], "--out", str(the_set)],  # into the set
                 argv[1:argv.index("--out")]):  # with the default --out, from where the set is
        capsys.readouterr()
        assert main(into) == EXIT_USAGE
        one_line_error(capsys.readouterr().err, "mixbounds verify: error: --out", "holds the set of tier tiny",
                       f"--claims '{SUBSET}'", "--merge", "--replace")
        assert snap(the_set) == before


def test_negative_control_the_same_selection_rewrites_its_set(suite, tmp_path):
    d = tmp_path / "o"
    assert _verify(d) == EXIT_OK
    (d / "report.md").write_text("stale")
    assert _verify(d) == EXIT_OK  # the command that made the set may always rewrite it
    assert (d / "report.md").read_text() != "stale"


@pytest.mark.parametrize("first, second", [(["--tier", "tiny"], ["--tier", "quick"]),
                                           (["--claims", SUBSET], []),
                                           (["--claims", "T1.coupled.*"], ["--claims", "T1.coupled.A.*"])])
def test_any_other_selection_is_refused(suite, tmp_path, capsys, first, second):
    """A superset is refused as a subset is: a tier, a glob, anything that selects another set of results."""
    d = tmp_path / "o"
    assert main(["verify", "--jobs", "1", "--out", str(d), *(first if "--tier" in first else ["--tier", "tiny", *first])]) \
        == EXIT_OK
    before = snap(d)
    capsys.readouterr()
    assert main(["verify", "--jobs", "1", "--out", str(d),
                 *(second if "--tier" in second else ["--tier", "tiny", *second])]) == EXIT_USAGE
    one_line_error(capsys.readouterr().err, "mixbounds verify: error: --out")
    assert snap(d) == before


def test_a_set_written_before_selections_were_recorded_is_judged_by_its_results(suite, tmp_path, capsys):
    """A manifest without a selection (this version's predecessors): the selection is read from results.json."""
    d = tmp_path / "o"
    assert _verify(d) == EXIT_OK
    m = json.loads((d / outdir.MANIFEST).read_text())
    del m["selection"]
    (d / outdir.MANIFEST).write_text(json.dumps(m))
    assert _verify(d, "--claims", SUBSET) == EXIT_USAGE
    assert _verify(d) == EXIT_OK


# ----------------------------------------------------------------------------- --merge and --replace
def test_merge_updates_the_selected_results_and_keeps_the_others(suite, tmp_path, capsys):
    d = tmp_path / "o"
    assert _verify(d) == EXIT_OK
    full = json.loads((d / "results.json").read_text())
    files = set(visible(d))
    capsys.readouterr()
    assert _verify(d, "--claims", SUBSET, "--merge", "--no-cache") == EXIT_OK
    assert set(visible(d)) == files  # every figure of the set is still there (drawn again from the union)
    assert "This set merges the results of 2 runs" in (d / "report.md").read_text()  # the report says so too
    out = capsys.readouterr().out
    merged = json.loads((d / "results.json").read_text())
    assert [c["id"] for c in merged["claims"]] == [c["id"] for c in full["claims"]]  # the set's order, every result
    assert merged["claims_glob"] == "*"  # the subset is covered: the set's selection is unchanged …
    assert json.loads((d / outdir.MANIFEST).read_text())["selection"]["claims"] == ["*"]
    assert _verify(d) == EXIT_OK  # … so the command that made the set still rewrites it
    assert [p["results"] for p in merged["parts"]] == [len(full["claims"]) - 1, 1]
    assert merged["summary"]["results"] == full["summary"]["results"]
    lines = out.strip().splitlines()
    assert lines[-2].startswith("this run: OK: 1 results + 0 controls = 1")
    assert lines[-1].startswith("OK (the merged set): ")


def test_merge_exit_code_is_the_sets_verdict(suite, tmp_path, capsys):
    """A passing subset merged into a failing set: the set still fails (the report's verdict), and exit 1 says so;
    the console names both verdicts."""
    suite(failing=True)
    d = tmp_path / "o"
    assert _verify(d) == EXIT_FAIL
    capsys.readouterr()
    assert _verify(d, "--claims", SUBSET, "--merge") == EXIT_FAIL
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-2].startswith("this run: OK") and lines[-1].startswith("FAILED (the merged set)")
    assert json.loads((d / "results.json").read_text())["summary"]["failed"] == ["T1.coupled.grad.kappa_f.tight"]


def test_negative_control_merging_a_fix_of_the_failing_result_passes(suite, tmp_path):
    suite(failing=True)
    d = tmp_path / "o"
    assert _verify(d) == EXIT_FAIL
    suite(failing=False)  # the check fixed: its result is gone from the suite, and a rerun of its id drops it
    assert _verify(d, "--claims", "T1.coupled.grad.*", "--merge") == EXIT_USAGE  # nothing matches: usage
    assert _verify(d, "--replace") == EXIT_OK


def test_replace_replaces_and_merge_refuses_another_tier(suite, tmp_path, capsys):
    d = tmp_path / "o"
    assert _verify(d) == EXIT_OK
    before = snap(d)
    capsys.readouterr()
    assert _verify(d, "--merge", tier="quick") == EXIT_USAGE
    one_line_error(capsys.readouterr().err, "mixbounds verify: error: --merge: --out", "two tiers")
    assert snap(d) == before
    assert _verify(d, "--claims", SUBSET, "--replace") == EXIT_OK
    assert _ids(d) == [SUBSET]
    assert json.loads((d / outdir.MANIFEST).read_text())["selection"]["claims"] == [SUBSET]


def test_merge_documents_fields():
    """The union's fields (mixbounds.checks.run.merge): results, findings and summary recomputed, parts counted."""
    old = _selftest.fake_document()
    new = _selftest.fake_document(checks=[c for c in _selftest.fake_checks() if c.id.endswith(SUBSET)])
    new["claims_glob"] = SUBSET
    m = merge_documents(old, new)
    assert [c["id"] for c in m["claims"]] == [c["id"] for c in old["claims"]]
    assert m["summary"] == {**m["summary"], "results": old["summary"]["results"]}
    assert m["findings"] == old["findings"] and m["controls"]["total"] == old["controls"]["total"]
    assert [p["results"] for p in m["parts"]] == [len(old["claims"]) - 1, 1]
    with pytest.raises(MergeError, match="two tiers"):
        merge_documents(old, dict(new, tier="quick"))
    assert union_globs(["T1.*"], ["T1.coupled.*", "lemma.x"]) == ["T1.*", "lemma.x"]


def test_selections_compare_on_what_they_select():
    a = verify_selection("quick", ["b", "a"], given="a,b", results=3)
    assert same(a, verify_selection("quick", ["a", "b"])) and not same(a, verify_selection("full", ["a", "b"]))
    assert describe(a) == "tier quick, --claims 'a,b' (3 results)"


def test_a_bench_of_a_few_sweeps_is_another_selection():
    """``bench --params kappa_f`` into the set of every parameter, or with other ``--method-arg``: not the same set
    (it would replace the others' results); the same filters in another order are the same set (negative control)."""
    full = bench_selection("m:f", "quick", ["coupled"])
    few = bench_selection("m:f", "quick", ["coupled"], filters={"params": ["kappa_f"]})
    assert not same(full, few) and not same(full, bench_selection("m:f", "quick", ["coupled"], method_args={"k": 2}))
    assert same(few, bench_selection("m:f", "quick", ["coupled"], filters={"params": ["kappa_f"], "oracles": None}))
    assert same(bench_selection("m:f", "quick", ["coupled"], filters={"params": ["a", "b"]}),
                bench_selection("m:f", "quick", ["coupled"], filters={"params": ["b", "a"]}))
    assert "--params kappa_f" in describe(few)
    assert union(full, few)["filters"]["params"] is None  # the union of all and some is all
    assert union(few, bench_selection("m:f", "quick", ["coupled"], filters={"params": ["kappa_W"]}))["filters"][
        "params"] == ["kappa_W", "kappa_f"]


# ----------------------------------------------------------------------------- plot, report
def test_plot_and_report_refuse_a_set_of_another_selection(suite, tmp_path, capsys):
    the_set, sub = tmp_path / "set", tmp_path / "sub"
    assert _verify(the_set) == EXIT_OK
    assert _verify(sub, "--claims", SUBSET) == EXIT_OK
    before = snap(the_set)
    for argv in (["plot", str(sub / "results.json"), "--out", str(the_set / "plots")],
                 ["report", str(sub / "results.json"), "--out", str(the_set)],
                 ["report", str(sub / "results.json"), "--out", str(the_set), "--replace"]):
        capsys.readouterr()
        assert main(argv) == EXIT_USAGE, argv
        one_line_error(capsys.readouterr().err, f"mixbounds {argv[0]}: error:")
        assert snap(the_set) == before
    # each set's own figures and report are redrawn as before
    assert main(["plot", str(the_set / "results.json")]) == EXIT_OK
    assert main(["report", str(the_set)]) == EXIT_OK


def test_plot_merge_keeps_the_other_figures(suite, tmp_path):
    the_set, sub, figs = tmp_path / "set", tmp_path / "sub", tmp_path / "figs"
    assert _verify(the_set, "--no-plots") == EXIT_OK
    assert _verify(sub, "--claims", SUBSET, "--no-plots") == EXIT_OK
    assert main(["plot", str(the_set / "results.json"), "--out", str(figs)]) == EXIT_OK
    everything = set(os.listdir(figs))
    assert main(["plot", str(sub / "results.json"), "--out", str(figs)]) == EXIT_USAGE
    assert main(["plot", str(sub / "results.json"), "--out", str(figs), "--merge"]) == EXIT_OK
    assert set(os.listdir(figs)) == everything
    assert main(["plot", str(sub / "results.json"), "--out", str(figs), "--replace"]) == EXIT_OK
    assert set(os.listdir(figs)) < everything


# ----------------------------------------------------------------------------- bench
ROOT = Path(__file__).resolve().parents[1]


def test_bench_refuses_another_selection_and_merges_classes(tmp_path, capsys, monkeypatch):
    """A bench of one class into the set of others: refused, or merged (the other classes' results kept).  The set of
    two classes is made from a real one-class run by renaming a copy of its results (a second class's run takes
    minutes); the second run replays the first's measurement (what is tested is the set, not the measuring)."""
    from mixbounds.cli import bench as bench_cli

    monkeypatch.chdir(ROOT)
    out = tmp_path / "b"
    argv = ["bench", "--method", "examples.apapc:apapc", "--classes", "consensus", "--tier", "tiny", "--jobs", "1",
            "--out", str(out)]
    canned = []
    real = bench_cli.measure_plans

    def measure(*a, **kw):
        if not canned:
            canned.append(real(*a, **kw))
        return canned[0]

    monkeypatch.setattr(bench_cli, "measure_plans", measure)
    assert main(argv) in (EXIT_OK, EXIT_FAIL)
    doc = json.loads((out / "bench.json").read_text())
    other = [dict(r, id=r["id"].replace(".consensus.", ".other."), **{"class": "other"}) for r in doc["results"]]
    doc.update(results=doc["results"] + other, classes=["consensus", "other"])
    (out / "bench.json").write_text(json.dumps(doc))
    m = json.loads((out / outdir.MANIFEST).read_text())
    m["selection"]["classes"] = ["consensus", "other"]
    (out / outdir.MANIFEST).write_text(json.dumps(m))
    before = snap(out)
    capsys.readouterr()
    assert main(argv) == EXIT_USAGE
    one_line_error(capsys.readouterr().err, "mixbounds bench: error: --out", "classes consensus,other",
                   "classes consensus:")
    assert snap(out) == before
    assert main([*argv, "--merge"]) in (EXIT_OK, EXIT_FAIL)
    merged = json.loads((out / "bench.json").read_text())
    assert merged["classes"] == ["consensus", "other"]
    assert sorted(r["id"] for r in merged["results"]) == sorted(r["id"] for r in doc["results"])
    assert [p["classes"] for p in merged["parts"]] == [["other"], ["consensus"]]
    assert main([*argv, "--replace"]) in (EXIT_OK, EXIT_FAIL)
    assert json.loads((out / "bench.json").read_text())["classes"] == ["consensus"]
