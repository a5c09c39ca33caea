"""No module of the package imports another module's underscore-private name.

A private name is a module's own business: importing it elsewhere couples two modules through something neither
declares.  (146 such imports when this test was written, issue 48, each reported as ``importer <- module.name``;
all were made public or moved.)  The test fails on any such import: make the name public, or do without it.  Read with
:mod:`ast` from the installed package's sources (absolute and relative ``from … import``, at module level and inside
functions, and ``m._x`` where ``m`` is a package module the importer bound by ``from P import m`` or
``import P.m as m``); :func:`private_imports` is tried on synthetic sources first (negative controls).
"""

from __future__ import annotations

import ast

from test_architecture import package_modules


def _resolve(node: ast.ImportFrom, name: str, is_package: bool) -> str:
    """The absolute module a ``from … import`` names (relative imports resolved against ``name``)."""
    if not node.level:
        return node.module or ""
    base = name if is_package else name.rpartition(".")[0]
    for _ in range(node.level - 1):
        base = base.rpartition(".")[0]
    return f"{base}.{node.module}" if node.module else base


def private_imports(name: str, source: str, is_package: bool = False, modules: frozenset[str] = frozenset()) -> list[str]:
    """``importer <- module.name`` for every private name of the package that module ``name`` imports, or reads as
    an attribute of a package module it imports (``from P import m`` or ``import P.m as m``, then ``m._x``;
    ``modules``: the package's modules, which tell a module from a name)."""
    out = []
    aliases: dict[str, str] = {}  # local name → the package module it is bound to
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            mod = _resolve(node, name, is_package)
            if mod == "mixbounds" or mod.startswith("mixbounds."):
                out += [f"{name} <- {mod}.{a.name}" for a in node.names
                        if a.name.startswith("_") and not a.name.startswith("__")]
                aliases.update({a.asname or a.name: f"{mod}.{a.name}" for a in node.names
                                if f"{mod}.{a.name}" in modules})
        elif isinstance(node, ast.Import):
            aliases.update({a.asname: a.name for a in node.names if a.asname and a.name in modules})
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                and node.attr.startswith("_") and not node.attr.startswith("__")):
            out.append(f"{name} <- {aliases[node.value.id]}.{node.attr}")
    return list(dict.fromkeys(out))


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
    mods = frozenset({"mixbounds.checks.b", "mixbounds.checks"})
    assert private_imports("mixbounds.checks.a", "from mixbounds.checks import b as m\nm._x(m.y)\n", modules=mods) == \
        ["mixbounds.checks.a <- mixbounds.checks.b._x"]
    assert private_imports("mixbounds.checks.a", "import mixbounds.checks.b as m\nv = m._x\n", modules=mods) == \
        ["mixbounds.checks.a <- mixbounds.checks.b._x"]
    assert private_imports("mixbounds.checks.a", "from . import b\nb._x()\n", modules=mods) == \
        ["mixbounds.checks.a <- mixbounds.checks.b._x"]
    assert private_imports("mixbounds.checks.a", "from mixbounds.checks import b\nb.__doc__, b.y\n", modules=mods) == []
    assert private_imports("mixbounds.checks.a", "from mixbounds.checks.b import y\ny._z\n", modules=mods) == []


def test_no_module_imports_a_private_name_of_another():
    mods = package_modules()
    found = {p for name, (src, is_pkg) in mods.items() for p in private_imports(name, src, is_pkg, frozenset(mods))}
    assert not found, f"imports of private names (make the name public instead): {sorted(found)}"
