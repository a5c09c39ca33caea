"""No problem-class or oracle name as a string literal outside the module that declares them.

The names live in :mod:`mixbounds.bounds.concepts` (:class:`~mixbounds.bounds.concepts.ProblemClass`,
:class:`~mixbounds.bounds.concepts.Oracle`); everywhere else a class or an oracle is spelled through a member, so
renaming or adding one is one edit and a typo is an ``AttributeError`` rather than a silent mismatch.  The walk reads
the syntax tree of every source file of the package (the mapped folders and ``src/mixbounds``,
:mod:`mixbounds.bounds.layers`); docstrings (a string expression statement) are exempt, tests are not walked.

The replacement is not finished: :data:`ALLOWED` lists, module by module, how many such literals remain, and the
test fails both when a module has more (a new literal) and when it has fewer (lower the allowance: the list only
shrinks).  What remains is not a class or an oracle spelled as a string but another concept that shares the spelling
(see the groups below); the worst-case families and the constraint matrices, the two largest such groups, are types
of their own (:class:`~mixbounds.bounds.concepts.WorstFamily`, :class:`~mixbounds.bounds.concepts.Matrix`).
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

#: literals that remain, per module (path from the checkout's root → count).  Must only shrink.
ALLOWED = {
    # the split chains' `where` (the part of the variables a chain sits in, named after the class whose constraint
    # carries it: "shared", "coupled"), a task keyword of the lower-bound engine's max-type sweeps
    "instances/worst_case/block_split.py": 7,
    # the nonsmooth families' structures, keyed by the class each is a member of (their CLI names are
    # "nonsmooth-<structure>")
    "instances/nonsmooth.py": 4,
    # the engine calibration's cases, one named after the coupled-constraint chain it runs on
    "checks/audits/calibration_engine.py": 5,
}


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


def problems(found: dict[str, list[tuple[int, str]]], allowed: dict[str, int]) -> list[str]:
    """What is wrong with ``found`` against the allowances: new literals, and allowances that are too high."""
    out = []
    for rel in sorted(set(found) | set(allowed)):
        have, may = found.get(rel, []), allowed.get(rel, 0)
        if len(have) > may:
            shown = ", ".join(f"{line}:{value!r}" for line, value in have[:8])
            out.append(f"{rel}: {len(have)} class/oracle literals, {may} allowed ({shown}); "
                       "use mixbounds.bounds.concepts.ProblemClass / Oracle")
        elif len(have) < may:
            out.append(f"{rel}: {len(have)} class/oracle literals left, {may} allowed: lower ALLOWED to {len(have)}")
    return out


def test_no_class_or_oracle_literal_outside_the_declaring_module():
    assert problems(scan(ROOT), ALLOWED) == []


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
    ("instances/nonsmooth.py", 'EXTRA = "shared_ident"\n', True),  # a module with an allowance, over it
    ("bounds/render.py", 'def f():\n    """Sort "coupled" before "mixed"."""\n', False),  # a docstring
    ("bounds/render.py", 'NOTE = "coupled constraints"\n', False),  # a name inside a longer string
])
def test_a_planted_literal_is_caught(copy, module, planted, caught):
    """Negative controls: a literal planted in a copy of the sources is reported (and only a real literal is)."""
    path = copy / module
    before = path.read_text(encoding="utf-8")
    try:
        path.write_text(before + "\n\n" + planted, encoding="utf-8")
        found = problems(scan(copy), ALLOWED)
        assert bool(found) is caught, found
        if caught:
            assert len(found) == 1 and found[0].startswith(f"{module}:")
    finally:
        path.write_text(before, encoding="utf-8")


def test_an_allowance_left_too_high_is_reported(copy):
    """The allowances only shrink: converting a literal without lowering the allowance fails."""
    assert problems(scan(copy), dict(ALLOWED, **{"instances/nonsmooth.py": ALLOWED["instances/nonsmooth.py"] + 1})) == [
        f"instances/nonsmooth.py: {ALLOWED['instances/nonsmooth.py']} class/oracle literals left, "
        f"{ALLOWED['instances/nonsmooth.py'] + 1} allowed: lower ALLOWED to {ALLOWED['instances/nonsmooth.py']}"]
