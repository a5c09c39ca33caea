"""The namespace install lists every sub-package: a folder with ``__init__.py`` missing from
``[tool.setuptools] packages`` would work in an editable install and be absent from a wheel."""

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from mixbounds.checks.run.framework import code_version, source_files

ROOT = Path(__file__).resolve().parent.parent


def _declared() -> tuple[set, dict]:
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    return set(cfg["packages"]), cfg["package-dir"]


def _on_disk(package_dir: dict) -> set:
    found = set()
    for name, folder in {"mixbounds": "mixbounds", **package_dir}.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            found.add(".".join([name, *rel.parts]))
    return found


def test_every_subpackage_is_installed():
    declared, package_dir = _declared()
    assert _on_disk(package_dir) == declared


def test_a_missing_subpackage_is_noticed():
    """Negative control: dropping one declared sub-package makes the comparison fail."""
    declared, package_dir = _declared()
    assert _on_disk(package_dir) != declared - {"mixbounds.checks.lemmas"}


def _installed_copy(dst: Path) -> Path:
    """The installed (wheel) layout of the sources under ``dst``: ``mixbounds/`` with the folders inside it."""
    pkg = dst / "mixbounds"
    shutil.copytree(ROOT / "mixbounds", pkg, ignore=shutil.ignore_patterns("__pycache__"))
    for folder in ("bounds", "instances", "solvers", "checks", "plots"):
        shutil.copytree(ROOT / folder, pkg / folder, ignore=shutil.ignore_patterns("__pycache__"))
    return pkg


def _version_in(root: Path) -> tuple[str, str]:
    """``(code_version(), mixbounds.__file__)`` computed by a fresh interpreter importing ``mixbounds`` from ``root``."""
    prog = ("import mixbounds; from mixbounds.checks.run.framework import code_version; "
            "print(code_version(), mixbounds.__file__)")
    # -P: the current directory (the checkout in a test run) must not come first on sys.path
    out = subprocess.run([sys.executable, "-P", "-c", prog], env=dict(os.environ, PYTHONPATH=str(root)),
                         capture_output=True, text=True, check=True).stdout.split()
    return out[0], out[1]


def test_code_version_is_the_same_installed_and_from_the_checkout(tmp_path):
    """The cache key hashes the sources where they were imported from, under their installed names: a wheel
    layout of the same files gives the hash of the running install (editable or not); one changed byte changes it."""
    pkg = _installed_copy(tmp_path)
    version, where = _version_in(tmp_path)
    assert where.startswith(str(tmp_path)) and version == code_version()
    assert {name for name, _ in source_files()} == {
        str(p.relative_to(pkg)) for folder in ("bounds", "instances", "solvers", "checks")
        for p in (pkg / folder).rglob("*.py")}
    f = pkg / "checks" / "tolerances.py"
    f.write_text(f.read_text() + "\n")
    assert _version_in(tmp_path)[0] != version
