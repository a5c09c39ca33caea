"""The import graph of the installed package: no circle, no upward import, imports at module top.

Layers from the bottom (docs/design.md, "Layers"): ``bounds``, ``instances``, ``solvers``, ``checks``, ``plots``,
then ``mixbounds`` itself (the CLI, the reports, the run orchestration and the public API).  A module imports only
from its own layer or below.  An import inside a function is allowed only with a measured reason written on its
line as ``# lazy: <reason>`` (a start-up cost the command line would otherwise pay).

The graph is read with :mod:`ast` from the sources of the imported package (editable or wheel install alike):
``import a.b``, ``from a import b`` (an edge to ``a.b`` when that is a module, else to ``a``) and relative
imports, at module level and inside functions.  :func:`problems` is tested on a synthetic module set first
(negative controls), then on the package.
"""

from __future__ import annotations

import ast
import importlib
from dataclasses import dataclass
from pathlib import Path

import pytest
from mixbounds.bounds.layers import LAYERS as DECLARED_LAYERS

#: the layers from the bottom; a module's layer is its top-level sub-package (``mixbounds.<layer>``), or
#: ``mixbounds`` for the modules of the top package and its own sub-packages (cli, report)
LAYERS = DECLARED_LAYERS
LAZY_MARK = "# lazy:"


@dataclass(frozen=True)
class Import:
    """One import statement's edge ``source → target`` (module names), at ``line``, inside a function or not."""

    source: str
    target: str
    line: int
    in_function: bool
    reason: str | None


def layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS[:-1] else "mixbounds"


def _parents(tree: ast.AST) -> dict:
    out = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            out[child] = node
    return out


def _in_function(node, parents) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return True
    return False


def module_imports(name: str, source: str, is_package: bool, known: set[str]) -> list[Import]:
    """The imports of module ``name`` (source text ``source``): an edge per imported module (the package's own
    modules are named as in ``known``; ``from P import x`` is an edge to ``P`` and, when ``P.x`` is a module of
    ``known``, to ``P.x`` as well)."""
    tree = ast.parse(source)
    lines = source.splitlines()
    parents = _parents(tree)
    package = name if is_package else name.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            # the statement runs ``mod`` (a package's __init__) and reads ``a.name`` from it, a submodule or not
            targets = [mod, *(f"{mod}.{a.name}" for a in node.names if f"{mod}.{a.name}" in known)]
        else:
            continue
        text = " ".join(lines[node.lineno - 1: node.end_lineno])
        reason = text.split(LAZY_MARK, 1)[1].strip() if LAZY_MARK in text else None
        for t in dict.fromkeys(targets):
            if t != name:
                out.append(Import(name, t, node.lineno, _in_function(node, parents), reason or None))
    return out


def cycles(edges: list[Import]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    graph: dict[str, set] = {}
    for e in edges:
        graph.setdefault(e.source, set()).add(e.target)
        graph.setdefault(e.target, set())
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def problems(modules: dict[str, tuple[str, bool]]) -> list[str]:
    """Every circle, upward import and unexplained function-level import of ``modules``
    (``{name: (source, is_package)}``), one line each; empty when the graph is clean."""
    known = set(modules)
    imports = [e for name, (src, pkg) in sorted(modules.items()) for e in module_imports(name, src, pkg, known)]
    edges = [e for e in imports if e.target in known]
    out = [f"import circle: {' <-> '.join(c)}" for c in cycles(edges)]
    for e in edges:
        if LAYERS.index(layer(e.target)) > LAYERS.index(layer(e.source)):
            out.append(f"upward import: {e.source}:{e.line} imports {e.target} "
                       f"(layer {layer(e.source)} below {layer(e.target)})")
    for e in imports:
        if e.in_function and not e.reason:
            out.append(f"function-level import without '{LAZY_MARK} <reason>': {e.source}:{e.line} imports {e.target}")
    return out


def package_modules() -> dict[str, tuple[str, bool]]:
    """``{module name: (source, is_package)}`` of the installed package, read where each layer was imported from."""
    out = {}
    for top in ("mixbounds", *(f"mixbounds.{p}" for p in LAYERS[:-1])):
        base = Path(importlib.import_module(top).__file__).parent
        for f in sorted(base.rglob("*.py")):
            parts = list(f.relative_to(base).with_suffix("").parts)
            is_pkg = parts[-1] == "__init__"
            name = ".".join([top, *(parts[:-1] if is_pkg else parts)])
            out.setdefault(name, (f.read_text(encoding="utf-8"), is_pkg))
    return out


# ----------------------------------------------------------------------------- negative controls
SYNTHETIC = {
    "mixbounds": ("", True),
    "mixbounds.bounds": ("", True),
    "mixbounds.bounds.a": ("from mixbounds.bounds import b\n", False),
    "mixbounds.bounds.b": ("import mixbounds.bounds.a\n", False),
    "mixbounds.instances": ("", True),
    "mixbounds.instances.c": ("from mixbounds.bounds.a import X\n", False),
    "mixbounds.checks": ("", True),
    "mixbounds.checks.d": ("def f():\n    from mixbounds.instances import c\n", False),
    "mixbounds.checks.e": ("def f():\n    from mixbounds.instances.c import Y  # lazy: measured 0.3 s of start-up\n",
                           False),
    "mixbounds.plots": ("def g():\n    import matplotlib.pyplot as plt\n", True),
}


def test_the_synthetic_graph_has_exactly_its_planted_problems():
    assert problems(SYNTHETIC) == [
        "import circle: mixbounds.bounds.a <-> mixbounds.bounds.b",
        "function-level import without '# lazy: <reason>': mixbounds.checks.d:2 imports mixbounds.instances",
        "function-level import without '# lazy: <reason>': mixbounds.checks.d:2 imports mixbounds.instances.c",
        "function-level import without '# lazy: <reason>': mixbounds.plots:2 imports matplotlib.pyplot"]


def test_a_circle_is_reported():
    mods = dict(SYNTHETIC, **{"mixbounds.bounds.b": ("x = 1\n", False)})
    assert not any("circle" in p for p in problems(mods))
    mods["mixbounds.instances.c"] = ("from . import c2\n", False)
    mods["mixbounds.instances.c2"] = ("def g():\n    import mixbounds.instances.c  # lazy: reason\n", False)
    assert "import circle: mixbounds.instances.c <-> mixbounds.instances.c2" in problems(mods)


def test_an_upward_import_is_reported():
    mods = dict(SYNTHETIC, **{"mixbounds.bounds.b": ("from mixbounds.checks.d import f\n", False)})
    assert ("upward import: mixbounds.bounds.b:1 imports mixbounds.checks.d (layer bounds below checks)"
            in problems(mods))
    mods["mixbounds.cli"] = ("from mixbounds.checks.d import f\nfrom mixbounds.plots import p\n", True)
    mods["mixbounds.plots"] = ("", True)
    assert not any("mixbounds.cli" in p for p in problems(mods))  # the top layer may import every layer


def test_an_unexplained_lazy_import_is_reported():
    found = problems(SYNTHETIC)
    assert any("mixbounds.checks.d:2" in p and "without" in p for p in found)
    assert not any("mixbounds.checks.e" in p for p in found)  # its reason is on its line


# ----------------------------------------------------------------------------- the package
@pytest.fixture(scope="module")
def package():
    return package_modules()


def test_the_package_is_read(package):
    assert {"mixbounds.cli", "mixbounds.checks.run.framework", "mixbounds.bounds.claims"} <= set(package)
    assert len(package) > 100


def test_no_import_circle_no_upward_import_no_unexplained_lazy_import(package):
    found = problems(package)
    assert not found, "\n".join(found)
