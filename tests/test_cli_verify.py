"""``mixbounds verify`` and ``mixbounds plot``: exit codes, selection, cache, parallelism, atomic outputs.

The checks are the self-test fixture :mod:`mixbounds.checks.run._selftest` (exact power laws,
microseconds per point), patched in for :func:`mixbounds.checks.registry.all_checks`.
"""

import json
import subprocess
import sys

import mixbounds.checks.run.framework as framework
import pytest
from mixbounds.checks.run import _selftest, calibration

from mixbounds import verify
from mixbounds.cli.command import main

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
OUTPUTS = ("results.json", "results.csv", "report.md", "report.html")


@pytest.fixture
def suite(monkeypatch):
    """Patch the registered checks with the self-test suite; ``suite(**kw)`` changes it; a fixed code version."""
    state = {"kw": {}}
    monkeypatch.setattr(verify, "all_checks", lambda: _selftest.fake_checks(**state["kw"]))
    monkeypatch.setattr(framework, "code_version", lambda: "selftest-version")
    monkeypatch.setattr(verify, "code_version", lambda: "selftest-version")

    def set_kw(**kw):
        state["kw"] = kw

    return set_kw


def _verify(out, *extra):
    return main(["verify", "--tier", "tiny", "--out", str(out), *extra])


def _doc(out):
    return json.loads((out / "results.json").read_text())


def _strip_timings(x):
    if isinstance(x, dict):
        return {k: _strip_timings(v) for k, v in x.items() if k not in ("seconds",)}
    if isinstance(x, list):
        return [_strip_timings(v) for v in x]
    return x


# ----------------------------------------------------------------------------- exit codes
def test_all_pass_exit_0_and_outputs(suite, tmp_path, capsys):
    out = tmp_path / "res"
    assert _verify(out) == EXIT_OK
    cap = capsys.readouterr()
    for f in OUTPUTS:
        assert (out / f).stat().st_size > 0, f
    doc = _doc(out)
    for key in ("version", "tier", "claims", "findings", "controls", "stats", "seeds", "versions", "wall_time"):
        assert key in doc, key
    assert doc["tier"] == "tiny" and doc["complete"] is True
    for c in doc["claims"]:
        for key in ("id", "kind", "status", "theory", "measured", "ci", "tolerance", "points", "detail"):
            assert key in c
    assert {c["status"] for c in doc["claims"] if not c["control"]} == {"pass", "finding"}
    assert doc["controls"] == {**doc["controls"], "total": 1, "caught": 1, "not_caught": []}
    assert [f["label"] for f in doc["findings"]] == ["thm:selftest"]  # a finding does not fail the run
    assert set(doc["versions"]) >= {"python", "numpy", "scipy", "mixed-affine-bounds", "code_version"}
    assert doc["seeds"]  # the fake tasks pass seeds
    cal = doc["stats"]["calibration"]  # this machine's reference workload, measured in the run (issue 49)
    assert doc["stats"]["calibration_seconds"] == cal["seconds"] > 0 and cal["workload"] == calibration.WORKLOAD
    # terminal: table, findings line, controls, one summary line
    assert "T1.coupled.comm.kappa_W.tight" in cap.out
    assert "thm:selftest: T1.coupled.comm grows like kappa_A^0.5 — printed 0.5 vs measured" in cap.out
    assert "Negative controls: 1/1 caught" in cap.out
    last = cap.out.strip().splitlines()[-1]
    assert last.startswith("OK:") and "controls caught 1/1" in last and "tier tiny" in last and "selftest-version" in last
    # csv: one row per sweep point of every result with points
    rows = (out / "results.csv").read_text().splitlines()
    n_points = sum(len(c["points"]) for c in doc["claims"])
    assert len(rows) == 1 + n_points
    assert rows[0].startswith("id,kind,status,control,cell,param,point,x,y,") and "count1" in rows[0]


def test_failing_check_exit_1(suite, tmp_path, capsys):
    suite(failing=True)
    assert _verify(tmp_path / "o", "--no-plots") == EXIT_FAIL
    out = capsys.readouterr().out
    assert "FAIL T1.coupled.grad.kappa_f.tight" in out and out.strip().splitlines()[-1].startswith("FAILED")
    assert _doc(tmp_path / "o")["summary"]["failed"] == ["T1.coupled.grad.kappa_f.tight"]


def test_unexpected_finding_exit_1(suite, tmp_path, capsys):
    """A finding not listed in checks/expected.py is new: the run fails until it is understood and listed."""
    suite(unexpected_finding=True)
    assert _verify(tmp_path / "o", "--no-plots") == EXIT_FAIL
    out = capsys.readouterr().out
    assert "UNEXPECTED FINDING T1.coupled.comm.kappa_f.lower@unlisted" in out
    s = _doc(tmp_path / "o")["summary"]
    assert s["unexpected_findings"] == ["T1.coupled.comm.kappa_f.lower@unlisted"] and s["failed"] == []


def test_uncaught_control_exit_1(suite, tmp_path, capsys):
    suite(uncaught_control=True)
    assert _verify(tmp_path / "o", "--no-plots") == EXIT_FAIL
    out = capsys.readouterr().out
    assert "Negative controls: 1/2 caught" in out and "NOT CAUGHT control.selftest.blind" in out
    assert _doc(tmp_path / "o")["controls"]["not_caught"] == ["control.selftest.blind"]


def test_finalize_exception_is_an_error_result_exit_1(suite, tmp_path):
    suite(finalize_raises=RuntimeError("boom"))
    assert _verify(tmp_path / "o", "--no-plots") == EXIT_FAIL
    bad = [c for c in _doc(tmp_path / "o")["claims"] if c["status"] == "error"]
    assert [c["id"] for c in bad] == ["T1.coupled.grad.kappa_W.absent"] and "boom" in bad[0]["detail"]


@pytest.mark.parametrize("argv, match", [
    (["--tier", "huge"], "unknown tier 'huge' (choose from tiny, quick, full)"),
    (["--jobs", "0"], "positive integer"),
    (["--jobs", "two"], "positive integer"),
])
def test_bad_usage_exit_2(suite, tmp_path, capsys, argv, match):
    with pytest.raises(SystemExit) as e:
        _verify(tmp_path / "o", *argv)
    assert e.value.code == EXIT_USAGE
    err = capsys.readouterr().err
    assert match in err and err.count("\n") == 1
    assert not (tmp_path / "o").exists()


def test_glob_matching_nothing_or_bad_out_exit_2(suite, tmp_path, capsys):
    assert _verify(tmp_path / "o", "--claims", "T3.*") == EXIT_USAGE
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no check in tier 'tiny'" in err and "registry claim(s) match" in err
    assert _verify(tmp_path / "o", "--claims", "nothing.*") == EXIT_USAGE
    (tmp_path / "file").write_text("x")
    assert _verify(tmp_path / "file") == EXIT_USAGE
    assert "not a directory" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


# ----------------------------------------------------------------------------- selection
def test_claims_filtering(suite, tmp_path):
    assert _verify(tmp_path / "a", "--claims", "T1.coupled.A", "--no-plots") == EXIT_OK  # prefix selects children
    ids = [c["id"] for c in _doc(tmp_path / "a")["claims"]]
    assert ids == ["T1.coupled.A.kappa_A.tight", "T1.coupled.A.kappa_W.absent"]
    assert _doc(tmp_path / "a")["stats"]["tasks"] == 8  # only the selected checks ran
    assert _verify(tmp_path / "b", "--claims", "*.lower*, control.*", "--no-plots") == EXIT_OK
    ids = sorted(c["id"] for c in _doc(tmp_path / "b")["claims"])
    assert ids == ["T1.coupled.comm.kappa_A.lower@selftest", "T1.coupled.comm.kappa_W.lower", "control.selftest.wrong-exponent"]


# ----------------------------------------------------------------------------- cache, parallelism
def test_cache_resume_and_no_cache(suite, tmp_path):
    out = tmp_path / "o"
    assert _verify(out, "--no-plots") == EXIT_OK
    first = _doc(out)
    n = first["stats"]["tasks"]
    assert first["stats"]["computed"] == n and first["stats"]["cached"] == 0
    assert len(list((out / ".cache" / "selftest-version").glob("*.json"))) == n
    assert _verify(out, "--no-plots") == EXIT_OK
    second = _doc(out)
    assert second["stats"]["computed"] == 0 and second["stats"]["cached"] == n  # nothing recomputed
    assert _strip_timings(second["claims"]) == _strip_timings(first["claims"])
    assert _verify(out, "--no-plots", "--no-cache") == EXIT_OK
    third = _doc(out)
    assert third["stats"]["computed"] == n and third["stats"]["cache"] is None
    fresh = tmp_path / "fresh"
    assert _verify(fresh, "--no-plots", "--no-cache") == EXIT_OK
    assert not (fresh / ".cache").exists()


def test_serial_and_parallel_runs_agree(suite, tmp_path):
    assert _verify(tmp_path / "s", "--no-plots", "--no-cache") == EXIT_OK
    assert _verify(tmp_path / "p", "--no-plots", "--no-cache", "--jobs", "2") == EXIT_OK
    s, p = _doc(tmp_path / "s"), _doc(tmp_path / "p")
    assert p["stats"]["jobs"] == 2
    assert _strip_timings(s["claims"]) == _strip_timings(p["claims"])
    assert s["findings"] == p["findings"] and s["controls"] == p["controls"]


# ----------------------------------------------------------------------------- atomic outputs
def test_interrupted_run_writes_nothing_then_resumes(suite, tmp_path, capsys):
    out = tmp_path / "o"
    suite(finalize_raises=KeyboardInterrupt())
    assert _verify(out) == EXIT_INTERRUPTED
    assert "interrupted; nothing written" in capsys.readouterr().err
    for f in OUTPUTS:
        assert not (out / f).exists(), f
    assert not (out / "plots").exists()
    cached = list((out / ".cache" / "selftest-version").glob("*.json"))
    assert cached  # the points computed before the interruption are kept
    suite()
    assert _verify(out, "--no-plots") == EXIT_OK
    assert _doc(out)["stats"]["computed"] == 0  # resumed entirely from the cache


def test_failure_while_rendering_leaves_no_results(suite, tmp_path, monkeypatch):
    from mixbounds.report import verify as report

    def broken(*a, **k):
        raise RuntimeError("renderer broke")

    monkeypatch.setattr(report, "render_html", broken)
    with pytest.raises(RuntimeError, match="renderer broke"):
        _verify(tmp_path / "o", "--no-plots")
    assert not any((tmp_path / "o" / f).exists() for f in OUTPUTS)
    assert not [p for p in (tmp_path / "o").iterdir() if p.name.startswith(".tmp")]


def test_json_option_writes_a_copy(suite, tmp_path):
    extra = tmp_path / "elsewhere" / "r.json"
    assert _verify(tmp_path / "o", "--no-plots", "--json", str(extra)) == EXIT_OK
    assert extra.read_text() == (tmp_path / "o" / "results.json").read_text()


def test_figures_are_png_unless_svg_is_asked_for(suite, tmp_path):
    """The run draws what its report shows (PNG); ``--svg`` adds a vector copy of every figure, and the report says
    which files are there."""
    assert _verify(tmp_path / "png") == EXIT_OK
    pngs = sorted(p.stem for p in (tmp_path / "png" / "plots").glob("*.png"))
    assert "heatmap" in pngs and not list((tmp_path / "png" / "plots").glob("*.svg"))
    assert "vector SVG copies: `mixbounds verify --svg`" in (tmp_path / "png" / "report.md").read_text()
    assert _verify(tmp_path / "both", "--svg") == EXIT_OK
    svgs = sorted(p.stem for p in (tmp_path / "both" / "plots").glob("*.svg"))
    assert svgs == sorted(p.stem for p in (tmp_path / "both" / "plots").glob("*.png")) == pngs
    assert "PNG and SVG of every figure are in `plots/`." in (tmp_path / "both" / "report.md").read_text()


def test_progress_on_a_log_does_not_spam(suite, tmp_path, capsys):
    assert _verify(tmp_path / "o", "--no-plots", "--no-cache") == EXIT_OK
    lines = [ln for ln in capsys.readouterr().err.splitlines() if "points" in ln and "%" in ln]
    assert 1 <= len(lines) <= 11 and lines[-1].strip().startswith("100.0%")


# ----------------------------------------------------------------------------- plot sub-command
def test_plot_redraws_from_results(suite, tmp_path, capsys):
    out = tmp_path / "o"
    assert _verify(out, "--no-plots") == EXIT_OK
    assert not (out / "plots").exists()
    assert main(["plot", str(out / "results.json"), "--out", str(tmp_path / "figs")]) == EXIT_OK
    assert "figures (PNG + SVG)" in capsys.readouterr().out
    pngs = sorted(p.name for p in (tmp_path / "figs").glob("*.png"))
    assert "heatmap.png" in pngs and "class_T1.coupled.png" in pngs
    assert "cell_T1.coupled.comm_kappa_W.png" in pngs
    assert len(pngs) == len(list((tmp_path / "figs").glob("*.svg")))


@pytest.mark.parametrize("content, match", [
    (None, "no such file"),
    ("{not json", "not valid JSON"),
    ("[1, 2]", "not a results document"),
    ('{"claims": []}', "no 'schema' field"),
    ('{"schema": 3, "claims": []}', "results schema 3 is not one this mixbounds reads"),
    ('{"schema": 2, "claims": [{"id": "x", "kind": "lemma", "status": "pass", "measured": {"a": 1}}]}',
     "'measured' = \"{'a': 1}\" is not a number (schema 2)"),
    ('{"schema": 1, "claims": 3}', "no 'claims' list"),
    ('{"schema": 1, "claims": [{"id": "x"}]}', "lacks kind, status"),
])
def test_plot_bad_results_exit_2(tmp_path, capsys, content, match):
    path = tmp_path / "results.json"
    if content is not None:
        path.write_text(content)
    assert main(["plot", str(path)]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert match in err and err.count("\n") == 1 and err.startswith("mixbounds plot: error:")
    assert not (tmp_path / "plots").exists()


def test_console_entry_point_usage_errors(tmp_path):
    r = subprocess.run([sys.executable, "-P", "-m", "mixbounds", "verify", "--claims", "no.such.claim*", "--out", str(tmp_path / "o")],
                       capture_output=True, text=True)
    assert r.returncode == EXIT_USAGE and r.stderr.count("\n") == 1
    r = subprocess.run([sys.executable, "-P", "-m", "mixbounds", "verify", "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "--no-cache" in r.stdout and "--json" in r.stdout
