"""House rules in the tooling: the tree passes ``ruff check`` with the rule set of ``pyproject.toml``."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _ruff() -> list[str] | None:
    exe = shutil.which("ruff") or (str(Path(sys.executable).parent / "ruff")
                                   if (Path(sys.executable).parent / "ruff").exists() else None)
    return [exe] if exe else None


@pytest.mark.skipif(_ruff() is None, reason="ruff is not installed (it is in the [test] extra)")
def test_ruff_check_passes():
    out = subprocess.run(_ruff() + ["check", "--no-cache", "--output-format", "concise", "."], cwd=ROOT,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-1000:]


@pytest.mark.skipif(_ruff() is None, reason="ruff is not installed (it is in the [test] extra)")
def test_ruff_check_catches_an_unused_import(tmp_path):
    """Negative control: the configured rule set does flag a violation."""
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n")
    out = subprocess.run(_ruff() + ["check", "--no-cache", "--config", str(ROOT / "pyproject.toml"), str(bad)],
                         capture_output=True, text=True)
    assert out.returncode == 1 and "F401" in out.stdout
