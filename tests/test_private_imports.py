"""No module of the package imports another module's underscore-private name, except the entries of an explicit
allowlist (``tests/private_imports_allowlist.txt``) that may only shrink.

A private name is a module's own business: importing it elsewhere couples two modules through something neither
declares.  The 146 imports of private names found when this test was written (issue 48) are listed one per line as
``importer <- module.name``; the test fails on an import that is not listed (make the name public, or do without
it) and on a listed import that no longer exists (delete its line: the list never hides a fixed entry).  Read
with :mod:`ast` from the installed package's sources (absolute and relative ``from … import``, at module level and
inside functions); :func:`private_imports` is tried on synthetic sources first (negative controls).
"""

from __future__ import annotations

import ast

from helpers import ROOT
from test_architecture import package_modules

ALLOWLIST = ROOT / "tests" / "private_imports_allowlist.txt"


def _resolve(node: ast.ImportFrom, name: str, is_package: bool) -> str:
    """The absolute module a ``from … import`` names (relative imports resolved against ``name``)."""
    if not node.level:
        return node.module or ""
    base = name if is_package else name.rpartition(".")[0]
    for _ in range(node.level - 1):
        base = base.rpartition(".")[0]
    return f"{base}.{node.module}" if node.module else base


def private_imports(name: str, source: str, is_package: bool = False) -> list[str]:
    """``importer <- module.name`` for every private name of the package that module ``name`` imports."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            mod = _resolve(node, name, is_package)
            if mod == "mixbounds" or mod.startswith("mixbounds."):
                out += [f"{name} <- {mod}.{a.name}" for a in node.names
                        if a.name.startswith("_") and not a.name.startswith("__")]
    return out


def test_private_imports_on_synthetic_sources():
    assert private_imports("mixbounds.checks.a", "from mixbounds.checks.b import _x, y\n") == \
        ["mixbounds.checks.a <- mixbounds.checks.b._x"]
    assert private_imports("mixbounds.checks.a", "def f():\n    from .b import _x  # lazy: r\n") == \
        ["mixbounds.checks.a <- mixbounds.checks.b._x"]
    assert private_imports("mixbounds.checks.a", "from ..instances import _y\n") == \
        ["mixbounds.checks.a <- mixbounds.instances._y"]
    assert private_imports("mixbounds.checks", "from .b import _z\n", is_package=True) == \
        ["mixbounds.checks <- mixbounds.checks.b._z"]
    assert private_imports("mixbounds.checks.a", "from mixbounds.checks.b import __version__\n") == []
    assert private_imports("mixbounds.checks.a", "from numpy.linalg import _umath_linalg\n") == []


def _allowed() -> set[str]:
    return {line.strip() for line in ALLOWLIST.read_text().splitlines() if line.strip()}


def test_no_new_private_import_and_the_allowlist_only_shrinks():
    found = {p for name, (src, is_pkg) in package_modules().items() for p in private_imports(name, src, is_pkg)}
    allowed = _allowed()
    new = sorted(found - allowed)
    gone = sorted(allowed - found)
    assert not new, f"imports of private names (make the name public instead): {new}"
    assert not gone, f"fixed, so delete from {ALLOWLIST.name}: {gone}"
    assert len(allowed) <= 146, "the allowlist may only shrink"
