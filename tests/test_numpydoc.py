"""The public API keeps the numpydoc promise of docs/contributing.md: every public function and method of the modules
docs/reference/api.rst lists as entry points (the strict block of ``[tool.mypy]``) documents each of its parameters
under ``Parameters`` and what it returns under ``Returns`` (or ``Yields``), in that order.

Read with :mod:`ast` from the sources.  Exempt: names with a leading underscore, properties (documented as
attributes), and ``Returns`` for a function annotated ``-> None``.  :func:`problems` is tried on synthetic sources
first (negative controls).
"""

from __future__ import annotations

import ast
import importlib.util
import re
import tomllib

import pytest
from helpers import ROOT

#: a section header of numpydoc: the name, then a line of dashes
SECTION = re.compile(r"^\s*(Parameters|Returns|Yields|Raises)\n\s*-{3,}\s*$", re.M)


def public_api() -> list[str]:
    """The modules of the strict block of ``[tool.mypy]`` (those with ``ignore_errors = false``)."""
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]["overrides"]
    return [m for o in cfg if o.get("ignore_errors") is False for m in o["module"]]


def _sections(doc: str) -> dict[str, str]:
    """Section name → its body (up to the next section)."""
    marks = list(SECTION.finditer(doc))
    return {m.group(1): doc[m.end():(marks[i + 1].start() if i + 1 < len(marks) else len(doc))]
            for i, m in enumerate(marks)}


def _documented(body: str) -> set[str]:
    """The names a Parameters section of a cleaned docstring documents (``name : type``, ``a, b : type``, ``**kw``)."""
    out: set[str] = set()
    for line in body.splitlines():
        m = re.match(r"^(\*{0,2}[A-Za-z_][\w, *]*?)\s*(?::|$)", line)  # items start the line, descriptions do not
        if m:
            out |= {n.strip().lstrip("*") for n in m.group(1).split(",")}
    return out


def _problems_of(fn: ast.FunctionDef, where: str) -> list[str]:
    if any(isinstance(d, ast.Name) and d.id == "property" for d in fn.decorator_list):
        return []
    doc = ast.get_docstring(fn) or ""
    sec = _sections(doc)
    a = fn.args
    params = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs if x.arg not in ("self", "cls")]
    params += [x.arg for x in (a.vararg, a.kwarg) if x is not None]
    out = []
    if params:
        missing = [p for p in params if p not in _documented(sec.get("Parameters", ""))]
        if missing:
            out.append(f"{where}: parameters not under Parameters: {missing}")
    returns_none = isinstance(fn.returns, ast.Constant) and fn.returns.value is None
    if not returns_none and "Returns" not in sec and "Yields" not in sec:
        out.append(f"{where}: no Returns section")
    names = [m.group(1) for m in SECTION.finditer(doc)]
    if "Parameters" in names and "Returns" in names and names.index("Parameters") > names.index("Returns"):
        out.append(f"{where}: Returns before Parameters")
    return out


def problems(source: str, module: str) -> list[str]:
    """Every public function or method of ``source`` whose docstring misses what the module docstring says."""
    out: list[str] = []

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for n in body:
            if isinstance(n, ast.FunctionDef) and not n.name.startswith("_"):
                out.extend(_problems_of(n, f"{module}.{prefix}{n.name}"))
            elif isinstance(n, ast.ClassDef) and not n.name.startswith("_"):
                visit(n.body, f"{prefix}{n.name}.")

    visit(ast.parse(source).body, "")
    return out


GOOD = '''
def f(x: int, *, y: float = 0.0, **kw) -> int:
    """Sum.

    Parameters
    ----------
    x : int
        One.
    y : float
        Two.
    **kw
        Others.

    Returns
    -------
    int
        The sum.
    """
'''


@pytest.mark.parametrize("source, expect", [
    (GOOD, None),
    (GOOD.replace("    y : float\n        Two.\n", ""), "parameters not under Parameters: ['y']"),
    (GOOD.replace("    Returns\n    -------\n    int\n        The sum.\n", ""), "no Returns section"),
    ('def g(a, b) -> None:\n    """Nothing documented."""\n', "parameters not under Parameters: ['a', 'b']"),
    ('class C:\n    def m(self) -> int:\n        """One line."""\n', "C.m: no Returns section"),
    ('class C:\n    @property\n    def p(self) -> int:\n        """An attribute."""\n', None),
    ('def _private(a):\n    pass\n', None),
    ('def h() -> int:\n    """H.\n\n    Returns\n    -------\n    int\n        One.\n\n    Parameters\n    ----------\n'
     '    x : int\n        X.\n    """\n', "Returns before Parameters"),
])
def test_the_rule_on_synthetic_sources(source, expect):
    got = problems(source, "m")
    if expect is None:
        assert got == []
    else:
        assert any(expect in p for p in got), got


def test_the_public_api_is_the_strict_block():
    mods = public_api()
    assert len(mods) >= 9 and "mixbounds.methods" in mods and "mixbounds.checks.run.framework" in mods


@pytest.mark.parametrize("module", public_api())
def test_every_public_function_of_the_api_has_numpydoc_sections(module):
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin, module
    with open(spec.origin, encoding="utf-8") as f:
        assert problems(f.read(), module) == []
