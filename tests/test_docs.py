"""The documentation's generated pages and the README: complete, traceable, and refusing bad input.

The Sphinx build itself runs in ``.ci/run`` (``sphinx-build -W``); these tests cover what the build cannot see:
that the command-line reference lists every option of every subcommand, that the results pages say where their
numbers come from and cover every certificate and finding of their snapshot, that the API walk picks up a new
module by itself, and that the README keeps its size and the lines ``.ci/run`` reads.
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mixbounds.cli.command import build_parser

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS / "_ext"))

import api_pages  # noqa: E402  (docs/_ext is not a package: on sys.path above)
import cli_reference  # noqa: E402
import results_pages  # noqa: E402

#: the README's size limit (issue 33)
README_MAX_LINES = 150


# ----------------------------------------------------------------------------- command-line reference
def sections(text: str) -> dict[str, str]:
    """Subcommand → its section of the generated reference."""
    parts = re.split(r"^## `mixbounds (\S+)`$", text, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def missing_options(parser: argparse.ArgumentParser, text: str) -> list[str]:
    """``subcommand option`` for every option string or positional of ``parser`` absent from its section."""
    secs = sections(text)
    out = []
    for name, sub in cli_reference.subcommands(parser).items():
        body = secs.get(name, "")
        for action in cli_reference.arguments(sub):
            out += [f"{name} {n}" for n in cli_reference.names(action) if f"`{n.replace('|', chr(92) + '|')}`"
                    not in body]
    return out


def test_cli_reference_lists_every_option_of_every_subcommand():
    parser = build_parser()
    text = cli_reference.render(parser)
    subs = cli_reference.subcommands(parser)
    assert set(sections(text)) == set(subs) and len(subs) >= 7
    assert missing_options(parser, text) == []
    n_options = sum(len(cli_reference.names(a)) for p in subs.values() for a in cli_reference.arguments(p))
    assert n_options >= 50  # the check above ran over the real parsers, not an empty list


def test_missing_option_is_detected():
    """Negative control: a section without one of its options is reported."""
    parser = build_parser()
    text = cli_reference.render(parser).replace("| `--no-cache` |", "| `--no-cache-REMOVED` |")
    assert missing_options(parser, text) == ["verify --no-cache", "bench --no-cache"]


def test_cli_reference_escapes_globs_and_pipes():
    text = cli_reference.render()
    verify = sections(text)["verify"]
    assert "'T1.coupled.\\*'" in verify  # a glob in help text is not read as emphasis
    assert "`ADDRESS\\|local:N`" in verify  # a pipe in a value name does not end the table cell


# ----------------------------------------------------------------------------- results pages
@pytest.fixture(scope="module")
def snapshots():
    return results_pages.load_snapshots(DOCS / "data")


def test_snapshots_are_committed_with_their_provenance(snapshots):
    assert set(snapshots) == set(results_pages.SNAPSHOTS)
    for s in snapshots.values():
        assert re.fullmatch(r"[0-9a-f]{40}", s.meta["commit"]) and s.meta["command"].startswith("mixbounds verify")
        assert s.doc["versions"]["code_version"] == s.code and s.doc.get("complete") is True


def test_results_pages_name_their_run_and_cover_the_snapshot(snapshots):
    pages = results_pages.render_pages(snapshots)
    assert set(pages) == {"index.md", "certificates.md", "upper-bounds.md", "findings.md", "benchmarks.md",
                          "timings.md"}
    q = snapshots["quick"]
    for name in ("certificates.md", "findings.md"):
        assert q.meta["commit"][:12] in pages[name] and q.code in pages[name]
    lbc = q.doc["summary"]["lower_bound_certificates"]
    cert = pages["certificates.md"]
    assert f"printed {lbc['printed']}, cited {lbc.get('cited', 0)}, variant {lbc['variant']}" in cert
    for st in lbc["statements"]:  # every parameter's exact-count tally, as the results document has it
        for v in st["params"].values():
            if v.get("exact"):
                assert f"{v['exact']['matched']}/{v['exact']['points']} exact" in cert, st["statement"]
    assert all(f"`{st['statement']}`" in cert for st in lbc["statements"])
    pep_points = [p for c in q.doc["claims"] if c["id"].startswith("pep.") and ".contraction." in c["id"]
                  for p in c.get("points") or [] if isinstance(p, dict) and "rho_pep" in p]
    assert ("ρ_PEP" in pages["upper-bounds.md"]) == bool(pep_points)
    sources = {f["source"] for f in q.doc["findings"]}
    assert sources and all(f"`{sid}`" in pages["findings.md"] for sid in sources)
    bench_ids = [c["id"] for c in snapshots["bench-tiny"].doc["claims"] if c["id"].startswith("bench.")]
    assert bench_ids and all(f"`{results_pages.code(i)[1:-1]}`" in pages["benchmarks.md"] for i in bench_ids)


def test_results_pages_say_when_the_code_moved_on(snapshots, monkeypatch):
    pages = results_pages.render_pages(snapshots)
    same = snapshots["quick"].code == results_pages.code_version()  # the certificates page is the quick snapshot's
    assert ("The source has changed since" in pages["certificates.md"]) is not same
    monkeypatch.setattr(results_pages, "code_version", lambda: "0" * 20)
    moved = results_pages.render_pages(snapshots)
    assert "code version now `00000000000000000000`" in moved["certificates.md"]
    assert "python docs/_ext/snapshot.py quick" in moved["certificates.md"]


def test_timed_benchmarks_page_shows_every_case_and_the_solve_phases():
    timed = results_pages.load_timed(DOCS / "data")
    assert timed is not None, "docs/data/pytest-benchmark.json is committed (sh benchmarks/run_benchmarks.sh)"
    page = results_pages.render_pages({}, timed)["timed-benchmarks.md"]
    assert all(f"`{b['name']}`" in page for b in timed["benchmarks"])
    by = {b["name"]: b["stats"]["median"] for b in timed["benchmarks"]}
    if "test_bench_setup[1e4-auto]" in by and "test_bench_iterations[1e4-auto]" in by:  # the ratio is computed
        ratio = by["test_bench_setup[1e4-auto]"] / by["test_bench_iterations[1e4-auto]"]
        assert f"| {ratio:.3f} |" in page
    assert str(timed["commit_info"]["id"])[:12] in page


def test_a_damaged_timed_benchmark_file_is_one_line_exit_2(tmp_path, capsys):
    data = tmp_path / "data"
    data.mkdir()
    (data / "pytest-benchmark.json").write_text('{"benchmarks": [{"name": "x", "stats": {}}], "machine_info": {}}')
    assert results_pages.main([str(data), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert "without stats.median" in err and len(err.splitlines()) == 1 and not (tmp_path / "out").exists()


@pytest.mark.parametrize("damage, message", [
    ("no-meta", "snapshot.json: unreadable"),
    ("meta-missing-commit", "missing commit"),
    ("bad-results", "results.json"),
    ("unknown-name", "unknown snapshot name"),
])
def test_bad_snapshot_is_one_line_exit_2_nothing_written(tmp_path, capsys, damage, message):
    data = tmp_path / "data"
    shutil.copytree(DOCS / "data" / "bench-tiny", data / "bench-tiny")
    meta = data / "bench-tiny" / "snapshot.json"
    if damage == "no-meta":
        meta.unlink()
    elif damage == "meta-missing-commit":
        m = json.loads(meta.read_text())
        del m["commit"]
        meta.write_text(json.dumps(m))
    elif damage == "bad-results":
        (data / "bench-tiny" / "results.json").write_text('{"schema": 2}')
    else:
        (data / "bench-tyni").mkdir()
    out = tmp_path / "out"
    assert results_pages.main([str(data), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1 and not out.exists()


def test_results_pages_command_writes_the_pages(tmp_path):
    out = tmp_path / "pages"
    assert results_pages.main([str(DOCS / "data"), "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == sorted(results_pages.render_pages(
        results_pages.load_snapshots(DOCS / "data"), results_pages.load_timed(DOCS / "data"), DOCS / "data"))
    assert {"timed-benchmarks.md", "where-the-time-goes.md"} <= {p.name for p in out.iterdir()}


def test_time_page_replays_every_snapshot_on_the_cluster_sizes(snapshots):
    """The page of task durations has, per snapshot with recorded durations, the cluster table at 2, 8, 16 and 64
    workers whose 1-worker bound is the run's task time; a snapshot without durations says so (negative control)."""
    page = results_pages.page_time(snapshots, DOCS / "data")
    for s in snapshots.values():
        st = s.doc["stats"]
        assert f"## `{s.name}`" in page
        total = sum(st["task_seconds"].values())
        assert f"{total:.1f} s" in page or f"{total:.2f} s" in page, s.name  # the task time, as recorded
    for w in results_pages.CLUSTER_WORKERS:
        assert f"\n| {w} | " in page


def test_time_page_says_when_a_run_recorded_no_durations(snapshots, tmp_path):
    """Negative control: a snapshot whose results.json has no task durations gets a one-line reason, no table."""
    s = snapshots["bench-tiny"]
    doc = {**s.doc, "stats": {k: v for k, v in s.doc["stats"].items() if k not in ("task_seconds", "task_groups")}}
    (tmp_path / s.name).mkdir()
    (tmp_path / s.name / "results.json").write_text(json.dumps(doc), encoding="utf-8")
    page = results_pages.page_time({s.name: results_pages.Snapshot(s.name, doc, s.meta)}, tmp_path)
    assert "No task durations:" in page and "| workers |" not in page


# ----------------------------------------------------------------------------- API pages
def test_api_walk_finds_a_new_module_by_itself(tmp_path, monkeypatch):
    pkg = tmp_path / "docwalkpkg"
    (pkg / "sub").mkdir(parents=True)
    for f in ("__init__.py", "a.py", "_private.py", "sub/__init__.py"):
        (pkg / f).write_text('"""A module."""\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    assert api_pages.walk(("docwalkpkg",)) == ["docwalkpkg", "docwalkpkg.a", "docwalkpkg.sub"]
    (pkg / "sub" / "new.py").write_text('"""Added later."""\n')
    assert "docwalkpkg.sub.new" in api_pages.walk(("docwalkpkg",))
    assert "   docwalkpkg.sub.new" in api_pages.page("docwalkpkg.sub")


def test_api_pages_cover_the_public_api():
    pages = api_pages.render()
    for mod in ("mixbounds.methods", "mixbounds.testing", "mixbounds.solvers.solve", "mixbounds.instances.families",
                "mixbounds.checks.run.result", "mixbounds.checks.lower.engine", "mixbounds.plots.scaling"):
        assert f".. automodule:: {mod}\n" in pages[f"{mod}.rst"]
    assert not any(name.split(".")[-2].startswith("_") for name in pages)  # no private module pages
    # every page but the top is in exactly one parent's toctree
    listed = [line.strip() for text in pages.values() for line in text.splitlines() if line.startswith("   mixbounds")]
    assert sorted(listed) == sorted(n[:-4] for n in pages if n != "mixbounds.rst")


# ----------------------------------------------------------------------------- README and .ci/run
def _ci_readme_line(marker: str) -> str:
    """What ``.ci/run``'s ``readme_line`` extracts from the README (its awk program, run as .ci/run runs it)."""
    script = (ROOT / ".ci" / "run").read_text()
    func = re.search(r"^readme_line\(\) \{\n.*?\n\}\n", script, flags=re.M | re.S).group(0)
    return subprocess.run(["bash", "-c", f"{func}\nreadme_line {marker}"], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout.strip()


def test_readme_is_short_and_keeps_the_lines_ci_reads():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= README_MAX_LINES
    assert _ci_readme_line("test") == ('python3 -m venv .venv && . .venv/bin/activate && pip install ".[test]" '
                                       '&& pytest')
    assert _ci_readme_line("main") == ('python3 -m venv .venv && . .venv/bin/activate && pip install ".[pep]" '
                                       '&& mixbounds verify')
    docs = _ci_readme_line("docs")
    assert "sphinx-build -W --keep-going" in docs and '".[docs]"' in docs


def test_readme_links_resolve():
    readme = (ROOT / "README.md").read_text()
    links = re.findall(r"\]\(([^)#]+)\)", readme)
    assert links and [u for u in links if not (ROOT / u).exists()] == []


def test_records_name_the_commit_of_every_block():
    """Every block of a record page ends with the commit it was last written at (``*(recorded at `sha`)*``, or for the
    records moved out of the README ``*(recorded in the README at `sha`)*``), and that commit exists."""
    git = shutil.which("git") and (ROOT / ".git").exists()
    for page in sorted((DOCS / "records").glob("*.md")):
        if page.name == "index.md":
            continue
        shas = re.findall(r"\*\(recorded (?:in the README )?at `([0-9a-f]{7})`\)\*", page.read_text())
        assert shas, page.name
        if git:
            for sha in set(shas):
                assert subprocess.run(["git", "cat-file", "-e", f"{sha}^{{commit}}"], cwd=ROOT).returncode == 0, sha


# ----------------------------------------------------------------------------- cross-references of the pages
def _documented_at(name: str) -> bool:
    """``name`` is where the API reference documents the object: a module, or a function/class/constant under
    the module that defines it (autodoc documents an object once, in its defining module: a re-export's name
    gives no link)."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        if i == len(parts) or not hasattr(obj, "__module__") or not hasattr(obj, "__qualname__"):
            return True  # a module, or a constant (documented where it is assigned)
        return f"{obj.__module__}.{obj.__qualname__}" == name
    return False


def hand_written_refs() -> list[tuple[str, str]]:
    """``(page, target)`` of every ``{mod}``/``{func}``/``{class}`` role in the hand-written pages."""
    out = []
    pages = [p for p in DOCS.rglob("*.md") if not {"_build", "results"} & set(p.relative_to(DOCS).parts)
             and p.relative_to(DOCS).as_posix() != "reference/cli.md"] + [DOCS / "reference" / "api.rst"]
    for p in pages:
        for target in re.findall(r"[{:](?:mod|func|class|data)[}:]`~?([\w.]+)`", p.read_text()):
            out.append((p.relative_to(DOCS).as_posix(), target))
    return out


def test_cross_references_of_the_pages_name_real_objects():
    """Sphinx does not warn about an unresolved Python role (not nitpicky): a moved or re-exported name is caught
    here."""
    refs = hand_written_refs()
    assert len(refs) >= 20
    assert [r for r in refs if not _documented_at(r[1])] == []
    assert not _documented_at("mixbounds.checks.no_such_module")  # the check can fail: a missing module,
    assert not _documented_at("mixbounds.solvers.solve.Reformulation")  # and a name that is only imported there


# ----------------------------------------------------------------------------- the README's durations
import readme_durations  # noqa: E402  (docs/_ext, on sys.path above)


def test_the_readmes_durations_are_the_recorded_ones():
    """The README states the commands' durations only as rendered from docs/data/readme-durations.json (measured
    by the lead on an idle machine with its calibration): no hand-written number, and none without the data."""
    readme = (ROOT / "README.md").read_text()
    block = readme_durations.block_of(readme)
    if not readme_durations.DATA.exists():
        assert block is None, "durations in the README without a recorded measurement"
        return
    data = json.loads(readme_durations.DATA.read_text())
    assert block == readme_durations.render(data)


def test_recording_durations_puts_them_after_the_test_command(tmp_path):
    """The mechanism on a copy of the README: inserted once after the test command, then replaced in place."""
    data = {"verify_seconds": [70, 85], "pytest_seconds": [540, 720], "calibration_seconds": 1.02,
            "machine": "2-core test machine", "commit": "abc1234"}
    readme = (ROOT / "README.md").read_text()
    recorded = readme_durations.block_of(readme)
    if recorded is not None:  # the README holds its recorded block: the first insertion is tested on it without
        readme = readme.replace(recorded, "")
    once = readme_durations.put(readme, readme_durations.render(data))
    assert once.index(readme_durations.START) > once.index("<!-- setup:test -->")
    assert "the main job 70 s – 85 s, the tests 9 min – 12 min" in once and "calibration 1.02 s" in once
    twice = readme_durations.put(once, readme_durations.render(dict(data, commit="def5678")))
    assert twice.count(readme_durations.START) == 1 and "def5678" in twice and "abc1234" not in twice
    assert readme_durations.put(readme, "x") != readme and readme_durations.block_of(readme) is None
