"""Checks own their tier settings (issue 48, item 3): ``checks/tiers.py`` keeps what every check shares, a check
declares its own per-tier settings next to its code (:func:`mixbounds.checks.tiers.per_tier`), and no check module
branches on a tier (``tier is FULL``, ``tier.name == "quick"``, …)."""

from __future__ import annotations

import ast
import dataclasses
from importlib import import_module
from pathlib import Path

import mixbounds.checks as checks_pkg
import pytest
from mixbounds.checks import lemmas
from mixbounds.checks.lemmas.base import LemmaCheck, Result
from mixbounds.checks.tiers import FULL, QUICK, TIER_NAMES, TIERS, TINY, Tier, per_tier

#: the names of the tier instances a branch would compare against
TIER_CONSTANTS = {"TINY", "QUICK", "FULL"}
CHECKS_DIR = Path(checks_pkg.__file__).parent


def _names(node: ast.AST) -> set[str]:
    """Every bare name and attribute name inside ``node`` (``FULL.name`` gives ``FULL`` and ``name``)."""
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Attribute):
            out.add(n.attr)
    return out


def _is_tier_constant(node: ast.AST) -> bool:
    """``FULL``, ``tiers.FULL`` or ``FULL.name``."""
    if isinstance(node, ast.Name):
        return node.id in TIER_CONSTANTS
    if isinstance(node, ast.Attribute):
        return node.attr in TIER_CONSTANTS or (node.attr == "name" and _is_tier_constant(node.value))
    return False


def tier_branches(source: str, filename: str = "<string>") -> list[str]:
    """Every comparison ``is``/``is not``/``==``/``!=`` of something with a tier constant or a tier's name
    (``"tiny"``, ``"quick"``, ``"full"``): ``file:line`` each."""
    out = []
    for node in ast.walk(ast.parse(source, filename)):
        if not isinstance(node, ast.Compare):
            continue
        if not any(isinstance(op, (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)) for op in node.ops):
            continue
        sides = [node.left, *node.comparators]
        by_constant = any(_is_tier_constant(s) for s in sides)
        by_name = any(isinstance(s, ast.Constant) and s.value in TIER_NAMES for s in sides) and any(
            "tier" in _names(s) or "name" in _names(s) for s in sides)
        if by_constant or by_name:
            out.append(f"{filename}:{node.lineno}")
    return out


def _check_modules() -> list[Path]:
    return sorted(p for p in CHECKS_DIR.rglob("*.py") if p.name != "tiers.py")


def test_no_check_module_branches_on_a_tier():
    found = [b for p in _check_modules() for b in tier_branches(p.read_text(), str(p.relative_to(CHECKS_DIR)))]
    assert found == []


@pytest.mark.parametrize("planted", [
    "if tier is FULL:\n    k = 3\n",
    "k = 2 if tier is QUICK else 6\n",
    "if tier is not TINY:\n    pass\n",
    "if tier.name == FULL.name:\n    pass\n",
    "if tier.name == 'full':\n    pass\n",
    "x = [c for c in cs if t != tiers.TINY]\n",
])
def test_a_planted_tier_branch_is_caught(planted):
    """Negative controls: each spelling of a tier branch is reported, at its line."""
    assert tier_branches("k = 1\n" + planted, "planted.py") == ["planted.py:2"]


def test_a_membership_test_and_the_registry_declarations_are_not_branches():
    assert tier_branches("ok = tier in r.tiers\nR = Result('x', tiers=(QUICK, FULL))\nn = tier.name\n"
                         "ok = verdict(QUICK, cell).status == 'pass'\n") == []


def test_the_tier_declares_no_lemma():
    """tiers.py has no field per lemma: no group of the tier is the lemmas', and no field of any group is named
    after a lemma module (adding a lemma does not edit tiers.py)."""
    fields = {f.name for f in dataclasses.fields(Tier)}
    assert "lemmas" not in fields
    groups = [getattr(t, f.name) for t in TIERS for f in dataclasses.fields(Tier)]
    group_fields = {gf.name for g in groups if dataclasses.is_dataclass(g) for gf in dataclasses.fields(g)}
    assert group_fields  # the groups were read
    assert not group_fields & set(lemmas.MODULES)


def test_every_lemma_module_with_settings_declares_them_for_every_tier():
    declared = {m: import_module(f"mixbounds.checks.lemmas.{m}").__dict__.get("SETTINGS") for m in lemmas.MODULES}
    with_settings = {m: s for m, s in declared.items() if s is not None}
    assert len(with_settings) >= 15  # the 15 modules whose cases the tier used to hold, plus closed_form_worst
    for m, s in with_settings.items():
        assert tuple(s) == TIER_NAMES, m


def test_a_new_lemma_with_its_own_settings_needs_no_tier_field():
    """A lemma check written the way the recipe says (its settings in its module) runs in every tier; the tier
    module is not touched (the settings object is all it reads)."""

    @dataclasses.dataclass(frozen=True)
    class Cases:
        count: int

    settings = per_tier(tiny=Cases(1), quick=Cases(2), full=Cases(5))
    lem = LemmaCheck(id="lemma.planted", label="lem:planted", description="planted", results=(Result("lemma.planted"),),
                     cases=lambda tier: [{"seed": s} for s in range(settings[tier.name].count)],
                     point=lambda case: case, finalize=lambda tier, pts, ids: [])
    assert [len(lem.cases(t)) for t in (TINY, QUICK, FULL)] == [1, 2, 5]


def test_per_tier_refuses_a_missing_or_unknown_tier():
    with pytest.raises(ValueError, match="missing \\['full'\\]"):
        per_tier(tiny=1, quick=2)
    with pytest.raises(ValueError, match="unknown \\['huge'\\]"):
        per_tier(tiny=1, quick=2, full=3, huge=4)
    s = per_tier(tiny=1, quick=2, full=3)
    with pytest.raises(TypeError):
        s["tiny"] = 5  # read-only
