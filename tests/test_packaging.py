"""The namespace install lists every sub-package: a folder with ``__init__.py`` missing from
``[tool.setuptools] packages`` would work in an editable install and be absent from a wheel."""

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from mixbounds.bounds.layers import FOLDERS, up_to
from mixbounds.bounds.layers import package_dir as layers_package_dir
from mixbounds.checks.run.framework import code_version, source_files

ROOT = Path(__file__).resolve().parent.parent
#: the top-level folders setuptools maps to mixbounds.<folder> (pyproject.toml, package-dir)
PACKAGE_FOLDERS = FOLDERS


def _declared() -> tuple[set, dict]:
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    return set(cfg["packages"]), cfg["package-dir"]


def _on_disk(package_dir: dict) -> set:
    found = set()
    for name, folder in package_dir.items():
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


def _layer_mismatch(package_dir: dict, packages: set) -> list[str]:
    """How ``pyproject.toml``'s ``package-dir`` and ``packages`` differ from the declared layers
    (:mod:`mixbounds.bounds.layers`): each mapped folder and the thin package mapped as declared and listed."""
    wanted = layers_package_dir()
    problems = [f"package-dir maps {k!r} to {package_dir.get(k)!r}, the layers say {v!r}"
                for k, v in wanted.items() if package_dir.get(k) != v]
    problems += [f"package-dir maps {k!r}, which is no layer" for k in package_dir if k not in wanted]
    problems += [f"packages lacks {k!r}" for k in wanted if k not in packages]
    return problems


def test_pyproject_agrees_with_the_declared_layers():
    declared, package_dir = _declared()
    assert _layer_mismatch(package_dir, declared) == []


def test_a_layer_missing_from_pyproject_is_noticed():
    """Negative controls: a folder dropped from package-dir, one dropped from packages, and an extra folder mapped
    that the layers do not declare each make the comparison fail."""
    declared, package_dir = _declared()
    dropped = {k: v for k, v in package_dir.items() if k != "mixbounds.plots"}
    assert _layer_mismatch(dropped, declared) == ["package-dir maps 'mixbounds.plots' to None, the layers say 'plots'"]
    assert _layer_mismatch(package_dir, declared - {"mixbounds.solvers"}) == ["packages lacks 'mixbounds.solvers'"]
    assert _layer_mismatch(dict(package_dir, **{"mixbounds.extra": "extra"}), declared) == [
        "package-dir maps 'mixbounds.extra', which is no layer"]


def _installed_copy(dst: Path) -> Path:
    """The installed (wheel) layout of the sources under ``dst``: ``mixbounds/`` with the folders inside it."""
    pkg = dst / "mixbounds"
    shutil.copytree(ROOT / "src" / "mixbounds", pkg, ignore=shutil.ignore_patterns("__pycache__"))
    for folder in PACKAGE_FOLDERS:
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
        str(p.relative_to(pkg)) for folder in up_to("checks")
        for p in (pkg / folder).rglob("*.py")}
    f = pkg / "checks" / "tolerances.py"
    f.write_text(f.read_text() + "\n")
    assert _version_in(tmp_path)[0] != version


# ----------------------------------------------------------------------------- no shadowing from the checkout's root
#: what a user runs from the repository root after the README's (non-editable) install: the cluster guide's command
#: and the method API's import
FROM_THE_ROOT = (["-m", "mixbounds.checks.run.schedule", "--help"],
                 ["-c", "import mixbounds.checks, mixbounds.testing, mixbounds; print(mixbounds.__file__)"])


def _wheel_venv(base: Path) -> Path:
    """A fresh virtual environment holding a non-editable install (a built wheel) of this checkout; the third-party
    packages come from the running environment's site-packages through a ``.pth`` line (no download, and the running
    environment's own editable finder is not loaded: ``.pth`` files are read only in site directories)."""
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next((venv / "lib").glob("python3*/site-packages"))
    deps = [p for p in sys.path if p.endswith("site-packages") and Path(p).is_dir()]
    (site / "_deps.pth").write_text("\n".join(deps) + "\n")
    # built from a copy of what the wheel is made of: setuptools writes build/ and *.egg-info beside the sources
    src = base / "source"
    for name in ("pyproject.toml", "README.md"):
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, src / name)
    for folder in ("src", *PACKAGE_FOLDERS):
        shutil.copytree(ROOT / folder, src / folder, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    wheels = base / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(src)],
                   check=True, capture_output=True, timeout=600)
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site),
                    *map(str, wheels.glob("*.whl"))], check=True, capture_output=True, timeout=600)
    return venv / "bin" / "python"


def test_the_installed_package_is_imported_from_the_repository_root(tmp_path):
    """After a non-editable install, ``python -m mixbounds…`` and ``import mixbounds.checks`` from the repository root
    find the installed package (the thin package lives in ``src/``, so the root has no ``mixbounds/`` to shadow it);
    negative control: a directory holding a bare ``mixbounds/`` folder (the old layout) does shadow it there."""
    python = _wheel_venv(tmp_path)
    assert not (ROOT / "mixbounds").exists(), "a mixbounds/ folder at the repository root shadows the installed package"
    for args in FROM_THE_ROOT:
        r = subprocess.run([str(python), *args], cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, (args, r.stderr[-2000:])
    where = r.stdout.strip().splitlines()[-1]
    assert Path(where).resolve().is_relative_to(tmp_path.resolve()), where
    old = tmp_path / "old-layout"
    shutil.copytree(ROOT / "src" / "mixbounds", old / "mixbounds", ignore=shutil.ignore_patterns("__pycache__"))
    r = subprocess.run([str(python), *FROM_THE_ROOT[0]], cwd=old, capture_output=True, text=True, timeout=300)
    assert r.returncode != 0 and "No module named 'mixbounds.checks'" in r.stderr, r.stderr[-2000:]
