"""The numerics job of CI (``.ci/numerics``, run by ``.ci/run``) is wired, and fails when it tests nothing.

``.ci/run`` must run it after the README's test line and before the docs, in the same ``.venv``; the marker must be
registered and carried by the tests of the numerics the job is for.  The job's own logic runs against a stub
``python`` (``PYTHON``): it passes when both settings take effect and every run passes, and fails — the negative
controls — when OpenBLAS ignores the kernel it is given, when numpy keeps a feature it was told to disable, and when
a run fails.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
JOB = ROOT / ".ci" / "numerics"

#: test files whose every test is about numerics that must not depend on the machine (module-level marker)
MARKED_FILES = ("test_random_pinned.py", "test_random.py", "test_gossip_cut.py", "test_reference_paths.py",
                "test_min_norm_reference.py", "test_deflated_kkt.py", "test_factored_rows.py", "test_kron_identity.py",
                "test_objective_blocks.py")


def test_ci_run_calls_the_job_between_the_tests_and_the_docs():
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    code = [ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
    at = {key: next(i for i, ln in enumerate(code) if ln.startswith(key))
          for key in ('bash -c "set -e; $cmd"', 'bash -c "set -e; . .venv/bin/activate; bash .ci/numerics"',
                      'bash -c "set -e; . .venv/bin/activate; $docs"')}
    tests, job, docs = at.values()
    assert tests < job < docs
    assert any(re.search(r"\$nrc", ln) for ln in code[job:docs]), "the job's exit code must reach .ci/run's"
    assert os.access(JOB, os.X_OK) or JOB.read_text(encoding="utf-8").startswith("#!/usr/bin/env bash")


def test_the_marker_is_registered_and_carried():
    markers = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]["markers"]
    assert any(m.startswith("numerics:") for m in markers)
    for name in MARKED_FILES:
        text = (ROOT / "tests" / name).read_text(encoding="utf-8")
        assert re.search(r"^pytestmark = .*pytest\.mark\.numerics", text, re.M), name


STUB = r'''#!/usr/bin/env bash
# a python for .ci/numerics: OpenBLAS kernel = OPENBLAS_CORETYPE unless STUB_IGNORE_CORETYPE; numpy dispatches
# AVX512_SKX, disabled unless STUB_KEEP_FEATURE; pytest exits STUB_PYTEST_RC
if [ "$1" = "-m" ] && [ "$2" = "pytest" ]; then echo "pytest $*" >> "$STUB_LOG"; exit "${STUB_PYTEST_RC:-0}"; fi
case "$2" in
  *threadpool_info*) if [ -n "${OPENBLAS_CORETYPE:-}" ] && [ -z "${STUB_IGNORE_CORETYPE:-}" ]; then echo "$OPENBLAS_CORETYPE"; else echo SkylakeX; fi ;;
  *sys.argv*) if [ -n "${STUB_KEEP_FEATURE:-}" ] || [ -z "${NPY_DISABLE_CPU_FEATURES:-}" ]; then echo AVX512_SKX; fi ;;
  *__cpu_dispatch__*) echo AVX512_SKX ;;
  *) echo "stub: unexpected $*" >&2; exit 3 ;;
esac
'''


def _job(tmp_path: Path, **env) -> tuple[int, str, list[str]]:
    stub = tmp_path / "python"
    stub.write_text(STUB, encoding="utf-8")
    stub.chmod(stub.stat().st_mode | stat.S_IXUSR)
    log = tmp_path / "runs.log"
    log.write_text("", encoding="utf-8")
    run_env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "NPY_DISABLE_CPU_FEATURES")}
    proc = subprocess.run(["bash", str(JOB)], capture_output=True, text=True, timeout=60,
                          env=dict(run_env, PYTHON=str(stub), STUB_LOG=str(log), **env))
    return proc.returncode, proc.stdout + proc.stderr, log.read_text(encoding="utf-8").splitlines()


@pytest.mark.skipif(sys.platform == "win32", reason="bash job")
def test_the_job_runs_the_marked_tests_three_times(tmp_path):
    rc, out, runs = _job(tmp_path)
    assert rc == 0, out
    assert len(runs) == 3 and all("-m numerics and not slow and not mutants" in r for r in runs)
    assert "OPENBLAS_CORETYPE=Haswell" in out and "OPENBLAS_CORETYPE=Sandybridge" in out
    assert 'NPY_DISABLE_CPU_FEATURES="AVX512_SKX"' in out


@pytest.mark.skipif(sys.platform == "win32", reason="bash job")
@pytest.mark.parametrize("env,message", [({"STUB_IGNORE_CORETYPE": "1"}, "take effect"),
                                         ({"STUB_KEEP_FEATURE": "1"}, "did not disable AVX512_SKX"),
                                         ({"STUB_PYTEST_RC": "1"}, "FAILED with")])
def test_the_job_fails_when_it_would_test_nothing_or_a_run_fails(tmp_path, env, message):
    rc, out, _ = _job(tmp_path, **env)
    assert rc == 1 and message in out, out
