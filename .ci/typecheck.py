"""The type check of CI: mypy on the package, strict on the public API, basic elsewhere (``[tool.mypy]``).

Usage: ``python .ci/typecheck.py [ROOT]`` (ROOT: a checkout, default the one holding this file).  Exits with
mypy's status (0: no error), 2 when ROOT is not a checkout.

mypy finds a module by its path, but the checkout maps its top folders into the package (``bounds/`` is
``mixbounds.bounds``, …; ``[tool.setuptools.package-dir]``), which no search path expresses.  So the package is
laid out as it is installed, in a temporary folder of symbolic links (``mixbounds/`` holding ``src/mixbounds``'s
entries and the five folders), and mypy checks ``-p mixbounds`` there with ROOT's ``pyproject.toml``.  The links
point into ROOT, so mypy reads ROOT's sources: a test plants an error in a copy and passes the copy.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

#: the folders the package maps below ``mixbounds`` (pyproject ``[tool.setuptools.package-dir]``)
FOLDERS = ("bounds", "instances", "solvers", "checks", "plots")


def lay_out(root: Path, into: Path) -> Path:
    """``into/mixbounds``: links to ``root/src/mixbounds``'s entries and to the mapped folders of ``root``."""
    pkg = into / "mixbounds"
    pkg.mkdir()
    for entry in (root / "src" / "mixbounds").iterdir():
        if entry.name != "__pycache__":
            os.symlink(entry.resolve(), pkg / entry.name)
    for folder in FOLDERS:
        os.symlink((root / folder).resolve(), pkg / folder)
    return pkg


def main(argv: list[str]) -> int:
    root = Path(argv[0] if argv else Path(__file__).resolve().parent.parent).resolve()
    if not (root / "pyproject.toml").is_file() or not (root / "src" / "mixbounds").is_dir():
        print(f"typecheck: {root} is not a checkout (no pyproject.toml or src/mixbounds)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="mixbounds-typecheck-") as tmp:
        lay_out(root, Path(tmp))
        cmd = [sys.executable, "-m", "mypy", "--config-file", str(root / "pyproject.toml"),
               "--cache-dir", str(Path(tmp) / ".mypy_cache"), "-p", "mixbounds"]
        env = dict(os.environ, MYPYPATH=tmp)
        return subprocess.run(cmd, cwd=tmp, env=env).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
