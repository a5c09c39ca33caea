"""The house's size limits on the installed package (docs/contributing.md, issue 48): no module over
``MAX_FILE_LINES`` lines and no function or method over ``MAX_FUNCTION_LINES`` lines, its signature and docstring
included (``def`` line to last line, as :mod:`ast` reports them; nested functions count in their parent too).

Tests are exempt (they are not in the package).  Read with :mod:`ast` from the package's sources
(:func:`test_architecture.package_modules`); :func:`long_functions` and :func:`long_modules` are tried on synthetic
sources first (negative controls).
"""

from __future__ import annotations

import ast

from test_architecture import package_modules

#: the house limit on a function, its signature and docstring included (docs/contributing.md)
MAX_FUNCTION_LINES = 80
#: the house limit on a module (docs/contributing.md)
MAX_FILE_LINES = 800


def long_functions(name: str, source: str, limit: int = MAX_FUNCTION_LINES) -> list[str]:
    """``module::function (lines)`` for every function or method of ``source`` longer than ``limit`` lines."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            n = node.end_lineno - node.lineno + 1
            if n > limit:
                out.append(f"{name}::{node.name} ({n})")
    return out


def long_modules(sources: dict[str, str], limit: int = MAX_FILE_LINES) -> list[str]:
    """``module (lines)`` for every module of ``sources`` (name → text) longer than ``limit`` lines."""
    return [f"{name} ({len(src.splitlines())})" for name, src in sources.items() if len(src.splitlines()) > limit]


def test_limits_on_synthetic_sources():
    body = "".join(f"    x{i} = {i}\n" for i in range(79))
    assert long_functions("m", f"def f():\n{body}") == []  # 80 lines: at the limit
    assert long_functions("m", f"def f():\n{body}    x = 0\n") == ["m::f (81)"]
    method = "".join(f"        x{i} = {i}\n" for i in range(80))
    assert long_functions("m", f"class C:\n    def g(self):\n{method}") == ["m::g (81)"]
    assert long_functions("m", f"async def h():\n{body}    x = 0\n") == ["m::h (81)"]
    assert long_modules({"a": "x = 1\n" * 800, "b": "x = 1\n" * 801}) == ["b (801)"]


def test_no_long_function_and_no_long_module():
    mods = package_modules()
    long_fn = [f for name, (src, _) in mods.items() for f in long_functions(name, src)]
    assert not long_fn, f"functions over {MAX_FUNCTION_LINES} lines (split them into named steps): {long_fn}"
    long_mod = long_modules({name: src for name, (src, _) in mods.items()})
    assert not long_mod, f"modules over {MAX_FILE_LINES} lines (split them by role): {long_mod}"
