"""No problem-class or oracle name as a string literal outside the module that declares them.

The names live in :mod:`mixbounds.bounds.concepts` (:class:`~mixbounds.bounds.concepts.ProblemClass`,
:class:`~mixbounds.bounds.concepts.Oracle`); everywhere else a class or an oracle is spelled through a member, so
renaming or adding one is one edit and a typo is an ``AttributeError`` rather than a silent mismatch.  The walk reads
the syntax tree of every source file of the package (the mapped folders and ``src/mixbounds``,
:mod:`mixbounds.bounds.layers`); docstrings (a string expression statement) are exempt, tests are not walked.

None is left: the other concepts that share a spelling with a class or an oracle are types of their own
(:class:`~mixbounds.bounds.concepts.WorstFamily`, :class:`~mixbounds.bounds.concepts.Matrix`,
:class:`~mixbounds.bounds.concepts.Structure`, :class:`~mixbounds.bounds.concepts.BlockKind`).
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest
from mixbounds.bounds.concepts import Oracle, ProblemClass
from mixbounds.bounds.layers import FOLDERS, TOP_SOURCE

ROOT = Path(__file__).resolve().parent.parent
NAMES = frozenset(ProblemClass) | frozenset(Oracle)
#: the module that declares the names
DECLARING = "bounds/concepts.py"


def _docstrings(tree: ast.AST) -> set[int]:
    """The ``id`` of every string constant that is a whole expression statement (docstrings, attribute docs)."""
    return {id(n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)}


#: a literal equal to a name is written with one of these quotes around it (prefix letters and triple quotes included)
_QUOTED = tuple(f"{q}{name}{q}" for name in NAMES for q in ('"', "'"))


def literals(source: str) -> list[tuple[int, str]]:
    """``(line, value)`` of each string literal in ``source`` that is a class or oracle name (docstrings exempt)."""
    if not any(q in source for q in _QUOTED):  # no quoted name at all: no such literal (skips the parse)
        return []
    tree = ast.parse(source)
    docs = _docstrings(tree)
    return sorted((n.lineno, n.value) for n in ast.walk(tree)
                  if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in NAMES
                  and id(n) not in docs)


def scan(root: Path) -> dict[str, list[tuple[int, str]]]:
    """Module path (relative to ``root``) → its class/oracle literals, over the package's source folders."""
    out = {}
    for folder in (TOP_SOURCE, *FOLDERS):
        for path in sorted((root / folder).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            found = literals(path.read_text(encoding="utf-8"))
            if found and rel != DECLARING:
                out[rel] = found
    return out


def problems(found: dict[str, list[tuple[int, str]]]) -> list[str]:
    """One line per module holding class/oracle literals."""
    return [f"{rel}: {len(have)} class/oracle literal(s) "
            f"({', '.join(f'{line}:{value!r}' for line, value in have[:8])}); "
            "use mixbounds.bounds.concepts.ProblemClass / Oracle (or the type of the concept it names)"
            for rel, have in sorted(found.items())]


def test_no_class_or_oracle_literal_outside_the_declaring_module():
    assert problems(scan(ROOT)) == []


def test_the_declaring_module_declares_every_name():
    """The declaring module holds each name as a literal (the walk would otherwise exempt a module that is not it)."""
    assert {v for _, v in literals((ROOT / DECLARING).read_text(encoding="utf-8"))} == set(NAMES)


@pytest.fixture(scope="module")
def copy(tmp_path_factory) -> Path:
    """The package's Python sources copied (same folders), for the planted literals."""
    dst = tmp_path_factory.mktemp("src")
    for folder in (TOP_SOURCE, *FOLDERS):
        shutil.copytree(ROOT / folder, dst / folder, ignore=_not_python)
    return dst


def _not_python(folder: str, names: list[str]) -> list[str]:
    """What the copy leaves out: caches and every file but Python sources."""
    return [n for n in names if n == "__pycache__" or (not n.endswith(".py") and not (Path(folder) / n).is_dir())]


@pytest.mark.parametrize("module, planted, caught", [
    ("bounds/render.py", 'ORDER = ("coupled", "mixed")\n', True),  # a clean module: a new literal
    ("solvers/oracles.py", 'def f(c):\n    return c.counts["Ct"]\n', True),  # an oracle key
    ("instances/nonsmooth.py", 'EXTRA = "shared_ident"\n', True),  # a class that only theorems state
    ("bounds/render.py", 'def f():\n    """Sort "coupled" before "mixed"."""\n', False),  # a docstring
    ("bounds/render.py", 'NOTE = "coupled constraints"\n', False),  # a name inside a longer string
])
def test_a_planted_literal_is_caught(copy, module, planted, caught):
    """Negative controls: a literal planted in a copy of the sources is reported (and only a real literal is)."""
    path = copy / module
    before = path.read_text(encoding="utf-8")
    try:
        path.write_text(before + "\n\n" + planted, encoding="utf-8")
        found = problems(scan(copy))
        assert bool(found) is caught, found
        if caught:
            assert len(found) == 1 and found[0].startswith(f"{module}:")
    finally:
        path.write_text(before, encoding="utf-8")
