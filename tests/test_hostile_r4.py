"""Hostile inputs, round 3's leftovers (issue 44, item 6): one test per case, each with its negative control.

* an install journal never deletes or replaces what the manifests do not list;
* a cache entry whose digest is right by the public formula but whose point is garbage is recomputed and counted
  (the digest is keyed by this user's secret: :mod:`mixbounds.checks.run.cache_key`);
* a refusal on a locked directory names the holder (command, pid, start time) even when its lock file is empty;
* nothing the suite did not write reaches report.md or report.html as raw HTML, and no id can end a quoted
  argument of a "Reproduce" command;
* one-line errors with the documented exit code for a name longer than ``NAME_MAX``, stdout on a full device, an
  ASCII-only stdout and a disk that fills while ``bench`` installs its set.

``verify`` runs use the self-test checks (the ``suite`` fixture of tests/test_reliability.py).
"""

import errno
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import mixbounds.plots as figures
import pytest
from mixbounds.checks.run import _selftest, framework
from mixbounds.checks.run._selftest import fake_document
from test_reliability import fake_draw_all, one_line_error, snap, visible

from mixbounds import outdir, verify
from mixbounds.cli import bench as bench_cli
from mixbounds.cli.command import main
from mixbounds.report import blocks
from mixbounds.report import verify as report
from mixbounds.report.index import reproduce_command

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
ROOT = Path(__file__).resolve().parents[1]
#: how long a test waits for a helper process to take its lock (a hang guard, not a measurement)
WAIT_GUARD_S = 60.0
LONG = "a" * 300  # one path component longer than NAME_MAX (255 bytes on every Linux file system)


@pytest.fixture
def suite(monkeypatch):
    """The self-test checks in place of the registered ones, a fixed code version, figures drawn as stand-ins."""
    monkeypatch.setattr(verify, "all_checks", lambda: _selftest.fake_checks())
    monkeypatch.setattr(framework, "code_version", lambda: "selftest-version")
    monkeypatch.setattr(verify, "code_version", lambda: "selftest-version")
    monkeypatch.setattr(figures, "draw_all", fake_draw_all)


def _verify(out, *extra):
    return main(["verify", "--tier", "tiny", "--jobs", "1", "--out", str(out), *extra])


# ----------------------------------------------------------------------------- the install journal
def _journal(d: Path, moves=(), removes=(), stage_files=None) -> None:
    stage = d / f"{outdir.STAGING_PREFIX}dead-1"
    stage.mkdir()
    for rel, text in (stage_files or {}).items():
        (stage / rel).parent.mkdir(parents=True, exist_ok=True)
        (stage / rel).write_text(text)
    (d / outdir.JOURNAL).write_text(json.dumps({"stage": stage.name, "moves": list(moves), "removes": list(removes)}))


@pytest.mark.parametrize("how", ["remove", "replace", "remove-in-plots", "through-a-symlink"])
def test_a_journal_never_touches_what_no_manifest_lists(suite, tmp_path, capsys, how):
    """Root cause: the roll-forward trusted the journal's paths; a journal naming a user's file removed it."""
    d = tmp_path / "o"
    assert _verify(d, "--no-cache") == EXIT_OK
    mine = d / ("plots" if how == "remove-in-plots" else "") / "mine.txt"
    mine.write_text("the user's own file")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "heatmap.png").write_text("a file outside the output directory")
    rel = str(mine.relative_to(d))
    if how == "replace":
        _journal(d, moves=[rel], stage_files={rel: "overwritten by the journal"})
    elif how == "through-a-symlink":  # plots/ replaced by a link out of the directory: no path may follow it
        os.rename(d / "plots", tmp_path / "plots-away")
        os.symlink(outside, d / "plots")
        _journal(d, removes=["plots/heatmap.png"])
    else:
        _journal(d, removes=[rel])
    capsys.readouterr()
    # (with plots/ a link, a run drawing figures refuses the directory before it reads the journal: --no-plots reads it)
    assert _verify(d, "--no-cache", *(["--no-plots"] if how == "through-a-symlink" else [])) == EXIT_OK
    if how == "through-a-symlink":
        assert (outside / "heatmap.png").read_text() == "a file outside the output directory"
    else:
        assert mine.read_text() == "the user's own file"
    assert not (d / outdir.JOURNAL).exists()


def test_negative_control_a_journal_still_removes_what_the_manifest_lists(suite, tmp_path):
    """A committed install whose removals the manifest lists is still carried out (roll-forward is not disabled)."""
    d = tmp_path / "o"
    assert _verify(d, "--no-cache") == EXIT_OK
    assert "results.csv" in json.loads((d / outdir.MANIFEST).read_text())["files"]
    _journal(d, removes=["results.csv"])
    with outdir.OutputDir(d, "verify", log=lambda m: None):
        pass
    assert not (d / "results.csv").exists()


def test_an_install_never_replaces_a_file_the_manifest_does_not_list(tmp_path):
    """The same promise before the commit point: a file of the new set whose name a user's file already has."""
    d = tmp_path / "o"
    with outdir.OutputDir(d, "verify") as od:
        (d / "report.md").write_text("the user's own report")
        stage = od.stage()
        (stage / "report.md").write_text("new")
        with pytest.raises(outdir.OutputError, match="not listed in"):
            od.install(stage, ["report.md"])
    assert (d / "report.md").read_text() == "the user's own report" and not (d / outdir.JOURNAL).exists()


# ----------------------------------------------------------------------------- the point cache
def _public_digest(pt: dict) -> str:
    """The digest of format 2 (unkeyed BLAKE2b over the point's canonical JSON): anyone can compute it."""
    return hashlib.blake2b(json.dumps(pt, sort_keys=True, separators=(",", ":")).encode(), digest_size=16).hexdigest()


@pytest.mark.parametrize("garbage", ["empty", "zeros", "strings"])
def test_a_garbage_point_with_a_right_public_digest_is_recomputed_and_counted(suite, tmp_path, capsys, garbage):
    """Root cause: the digest could be computed by anyone, so a well-formed entry with a nonsense point (zeros where
    counts were: a control turns into a caught one) was read as the truth.  The digest is keyed now."""
    d = tmp_path / "o"
    assert _verify(d, "--no-plots") == EXIT_OK
    good = json.loads((d / "results.json").read_text())
    entries = sorted((d / ".cache" / "selftest-version").glob("*.json"))
    for e in entries:
        entry = json.loads(e.read_text())
        pt = entry["point"]
        pt = {"empty": {"seconds": 1.0},
              "zeros": {k: (0 if isinstance(v, int) and k != "seconds" else v) for k, v in pt.items()},
              "strings": {k: ("nonsense" if k != "seconds" else v) for k, v in pt.items()}}[garbage]
        entry.update(point=pt, digest=_public_digest(pt))
        e.write_text(json.dumps(entry))
    capsys.readouterr()
    assert _verify(d, "--no-plots") == EXIT_OK
    assert f"{len(entries)} damaged or unsigned cache entries to recompute" in capsys.readouterr().err
    doc = json.loads((d / "results.json").read_text())
    assert doc["stats"]["damaged"] == len(entries) and doc["stats"]["computed"] == len(entries)
    assert [(c["id"], c["status"], c["measured"]) for c in doc["claims"]] == \
        [(c["id"], c["status"], c["measured"]) for c in good["claims"]]


def test_negative_control_an_entry_signed_with_the_key_is_read(suite, tmp_path):
    """The same rewrite with the user's key (what the suite itself writes) is trusted: the keyed digest, not the
    rewrite, is what rejects the forged entries above."""
    d = tmp_path / "o"
    assert _verify(d, "--no-plots") == EXIT_OK
    for e in sorted((d / ".cache" / "selftest-version").glob("*.json")):
        entry = json.loads(e.read_text())
        entry["digest"] = framework.point_digest(entry["point"], entry["task"])
        e.write_text(json.dumps(entry))
    assert _verify(d, "--no-plots") == EXIT_OK
    doc = json.loads((d / "results.json").read_text())
    assert doc["stats"]["damaged"] == 0 and doc["stats"]["computed"] == 0


def test_no_cache_key_means_no_cache_not_a_crash(suite, tmp_path, capsys, monkeypatch):
    """A key that cannot be created (its directory is a file): the run goes on uncached and says why, once."""
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    monkeypatch.setenv("MIXBOUNDS_CACHE_KEY", str(blocker / "key"))
    assert _verify(tmp_path / "o", "--no-plots") == EXIT_OK
    err = capsys.readouterr().err
    assert "point cache off" in err and "cache off" in err
    doc = json.loads((tmp_path / "o" / "results.json").read_text())
    assert doc["stats"]["cached"] == 0


# ----------------------------------------------------------------------------- the lock's holder
HOLDER = """
import fcntl, os, sys, time
fd = os.open(sys.argv[2], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
if os.environ["HOLDER_CONTENT"]:
    os.write(fd, os.environ["HOLDER_CONTENT"].encode())
open(sys.argv[3], "w").close()
time.sleep(600)
"""


def _hold(tmp_path, lock: Path, content: str = ""):
    ready = tmp_path / f"ready-{time.monotonic_ns()}"
    script = tmp_path / "holder.py"
    script.write_text(HOLDER)
    p = subprocess.Popen([sys.executable, str(script), "holder-marker-arg", str(lock), str(ready)],
                         env=dict(os.environ, HOLDER_CONTENT=content))
    t0 = time.monotonic()
    while not ready.exists():
        assert p.poll() is None and time.monotonic() - t0 < WAIT_GUARD_S, "the lock holder never took the lock"
        time.sleep(0.05)
    return p


@pytest.mark.parametrize("content", ["", "not json", json.dumps({"pid": 1, "command": "a lie", "host": "h"})])
def test_a_refusal_names_the_holder_whatever_its_lock_file_says(suite, tmp_path, capsys, content):
    """Root cause: the refusal named what the lock file said: nothing when the holder was not mixbounds or had not
    written it yet.  The kernel's /proc/locks names the holding process."""
    if not Path("/proc/locks").exists():
        pytest.skip("no /proc/locks: the holder is only what its lock file says")
    d = tmp_path / "o"
    d.mkdir()
    p = _hold(tmp_path, d / outdir.LOCK, content)
    try:
        before = snap(d)
        assert _verify(d) == EXIT_USAGE
        err = capsys.readouterr().err
        one_line_error(err, "mixbounds verify: error: --out", "in use by another run", f"pid {p.pid}",
                       "holder-marker-arg", "started 20")
        assert "a lie" not in err
        assert snap(d) == before
    finally:
        p.kill()
        p.wait()


def test_negative_control_a_holder_that_agrees_with_its_lock_file_is_named_in_its_words(tmp_path, capsys):
    """When the kernel's pid is the file's, the file's richer words (host, the command as mixbounds recorded it) stay."""
    d = tmp_path / "o"
    with outdir.OutputDir(d, "bench", command="mixbounds bench --method a:b"):
        with pytest.raises(outdir.OutputError, match=rf"pid {os.getpid()} on .*mixbounds bench --method a:b"):
            outdir.OutputDir(d, "bench").__enter__()


# ----------------------------------------------------------------------------- the report
EVIL = "<script>alert(1)</script>"


def _evil_document() -> dict:
    doc = json.loads(json.dumps(fake_document()))
    for i, c in enumerate(doc["claims"]):
        c["id"] = f"{c['id']}{EVIL}'; touch pwned; '" if i % 2 else c["id"]
        c["detail"], c["label"], c["theory"] = EVIL, f"thm:x {EVIL}", EVIL
        c["readings"] = {EVIL: EVIL} if i % 3 == 0 else c.get("readings")
        c["verdict_label"] = EVIL if c["status"] == "pass" else c.get("verdict_label")
    for f in doc["findings"]:
        f.update(id=f"f{EVIL}", statement=EVIL, printed=EVIL, measured=EVIL, label=EVIL)
    doc.update(command=EVIL, claims_glob=EVIL, started=EVIL)
    return doc


def _raw_html(text: str) -> list[str]:
    return re.findall(r"<\s*(?:script|img|iframe)\b", text, flags=re.I)


def test_no_raw_html_from_the_document_reaches_the_report():
    """Root cause: report.md escaped HTML outside code spans only; ids, commands and globs are shown as code."""
    doc = _evil_document()
    md = report.render_markdown(doc, None, base=Path("."))
    html_text = report.render_html(doc, None, base=Path("."))
    assert _raw_html(md) == []
    # the page's own two scripts (error hook, filter) are the only elements of the HTML that are not text
    assert len(_raw_html(html_text)) == 2 and "<script>alert" not in html_text
    assert "&#60;script&#62;" in md or "&lt;script&gt;" in md  # still shown, as text


def test_negative_control_the_detector_sees_raw_html_when_escaping_is_off(monkeypatch):
    """With the code-span escaping switched off, the same document puts <script> into report.md: the test above can
    fail."""
    monkeypatch.setattr(blocks, "_md_code", lambda p: p)
    assert _raw_html(report.render_markdown(_evil_document(), None, base=Path(".")))


def test_a_reproduce_command_keeps_an_id_one_argument():
    """An id is data: quotes in it cannot end the --claims argument (the copied command runs nothing else)."""
    rid = "T1.x'; touch pwned; echo '"
    argv = shlex.split(reproduce_command({"id": rid}, "quick"))
    assert argv[:4] == ["mixbounds", "verify", "--tier", "quick"] and argv[argv.index("--claims") + 1] == rid
    assert "pwned" not in argv[-1].split("_")[0] and len(argv) == 8


# ----------------------------------------------------------------------------- I/O errors
@pytest.mark.parametrize("argv", [
    ["verify", "--tier", "tiny", "--out", f"/tmp/{LONG}"],
    ["verify", "--tier", "tiny", "--json", f"/tmp/{LONG}"],
    ["plot", "RES", "--out", f"/tmp/{LONG}/plots"],
    ["report", "RES", "--out", f"/tmp/{LONG}"],
    ["report", f"/tmp/{LONG}/results.json"],
    ["instance", "coupled", "--out", f"/tmp/{LONG}"],
    ["solve", f"/tmp/{LONG}"],
    ["bench", "--method", "examples.apapc:apapc", "--out", f"/tmp/{LONG}"],
])
def test_a_name_longer_than_name_max_is_one_line_exit_2(suite, tmp_path, capsys, monkeypatch, argv):
    """Root cause: Path.exists() raises ENAMETOOLONG (it answers only 'no such file' quietly)."""
    monkeypatch.chdir(ROOT)
    res = tmp_path / "res"
    if "RES" in argv:
        assert _verify(res, "--no-cache") == EXIT_OK
        argv = [str(res) if a == "RES" else a for a in argv]
    capsys.readouterr()
    assert main(argv) == EXIT_USAGE
    one_line_error(capsys.readouterr().err, f"mixbounds {argv[0]}: error:")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
def test_stdout_on_a_full_device_is_one_line_exit_1(tmp_path):
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-m", "mixbounds", "table"], stdout=full, stderr=subprocess.PIPE,
                           text=True, cwd=tmp_path)
    assert r.returncode == EXIT_FAIL
    one_line_error(r.stderr, "mixbounds table: error: standard output cannot be written", "No space left")


def test_negative_control_stdout_that_works_exits_0(tmp_path):
    r = subprocess.run([sys.executable, "-m", "mixbounds", "table"], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == EXIT_OK and "Table 1 — " in r.stdout and r.stderr == ""


def test_an_ascii_stdout_gets_escapes_not_a_traceback(tmp_path):
    """Root cause: print() raised UnicodeEncodeError on '—'.  Now every character the encoding lacks is an escape."""
    env = dict(os.environ, PYTHONIOENCODING="ascii")
    r = subprocess.run([sys.executable, "-m", "mixbounds", "table"], capture_output=True, env=env, cwd=tmp_path)
    assert r.returncode == EXIT_OK, r.stderr
    out = r.stdout.decode("ascii")  # pure ASCII
    assert "Table 1 \\u2014 " in out and "\\u221a\\u03ba_f" in out
    one_line_error(r.stderr.decode("ascii"), "mixbounds: note: stdout (ascii)", "escapes")


@pytest.mark.parametrize("where", ["stage", "journal"])
def test_a_full_disk_while_bench_installs_is_one_line_exit_1(tmp_path, capsys, monkeypatch, where):
    """Root cause: an OSError of the install escaped as a traceback.  The previous set stays (nothing committed)."""
    monkeypatch.chdir(ROOT)
    out = tmp_path / "b"
    argv = ["bench", "--method", "examples.apapc:apapc", "--classes", "consensus", "--tier", "tiny", "--jobs", "1",
            "--out", str(out)]
    canned = []

    def measure(*a, **kw):  # the measurement is not what is tested: the first run's, replayed
        if not canned:
            canned.append(real_measure(*a, **kw))
        return canned[0]

    real_measure = bench_cli.measure_plans
    monkeypatch.setattr(bench_cli, "measure_plans", measure)
    assert main(argv) in (EXIT_OK, EXIT_FAIL)
    before = visible(out)
    real_write = outdir.atomic_write_text

    def full(path, text):
        if (where == "stage" and Path(path).name == "bench.json") or (where == "journal" and
                                                                        Path(path).name == outdir.JOURNAL):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(path, text)

    monkeypatch.setattr(bench_cli, "atomic_write_text", full)
    monkeypatch.setattr(outdir, "atomic_write_text", full)
    capsys.readouterr()
    assert main(argv) == EXIT_FAIL
    err = capsys.readouterr().err  # the progress lines, then one error line
    assert "Traceback" not in err
    errors = [ln for ln in err.splitlines() if "error" in ln]
    assert len(errors) == 1 and errors[0].startswith("mixbounds bench: error: could not write outputs"), err
    assert "No space left" in errors[0] and "unchanged" in errors[0]
    assert visible(out) == before
    assert not [p for p in out.iterdir() if p.name.startswith(outdir.STAGING_PREFIX)]


def test_ctrl_c_before_a_commands_own_handler_is_one_line_exit_130(capsys, monkeypatch):
    """Root cause: a Ctrl-C while a command imported its machinery (seconds for verify under load) escaped main() as
    a KeyboardInterrupt traceback (the catalogue's interrupted verify)."""
    from mixbounds.bounds import render

    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(render, "render_text", interrupted)
    assert main(["table"]) == 130
    one_line_error(capsys.readouterr().err, "mixbounds table: interrupted")
