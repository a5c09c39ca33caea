"""Result ids, built and read in one place.

A claim's cell is ``T<table>.<class>.<oracle>`` (a cell of Tables 1-4 of the paper, or an identical-``C̃``
statement, :mod:`mixbounds.bounds.claims`); a verdict on one of its parameters is
``<cell>.<param>.<kind>[@<variant>]`` (``kind``: ``upper``, ``tight``, ``absent``, ``lower``, …; ``variant``: the
construction when it is not the printed one). Other families prefix their own words (``bench.<class>.<method>.<oracle>
.<param>``, ``pep.<class>.…``, ``control.rates.nocheb.T1.<class>.…``); what every reader needs from any id is the
class and oracle it names, which :func:`parse` finds wherever they sit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mixbounds.bounds.concepts import ORACLES, Oracle, ProblemClass

#: the words after which an id names a class (``T<digit>`` of a table, a benchmark, a PEP result)
_CLASS_HEADS = ("bench", "pep")
_TABLE_WORD = re.compile(r"T(\d)")
#: a word that can be a class name (checked against :class:`ProblemClass` by the readers that need a class)
_CLASS_WORD = re.compile(r"[a-z_]+")
#: the verdict kinds of a claim-cell result (the last word before ``@variant``)
CELL_KINDS = ("upper", "tight", "absent", "lower")
_VARIANT_SEP = "@"


def cell_id(table: int, cls: ProblemClass | str, oracle: Oracle | str) -> str:
    """``T<table>.<class>.<oracle>``: the id of a claim cell."""
    return f"T{table}.{cls}.{oracle}"


def with_variant(base_id: str, variant: str | None) -> str:
    """``base_id`` plus ``@variant`` unless the variant is the printed construction (``None`` or ``"printed"``)."""
    return base_id if variant in (None, "printed") else f"{base_id}{_VARIANT_SEP}{variant}"


def cell_result_id(cell: str, param: str, kind: str, variant: str | None = None) -> str:
    """``<cell>.<param>.<kind>[@variant]``: the id of a verdict on one parameter of a claim cell."""
    return with_variant(f"{cell}.{param}.{kind}", variant)


@dataclass(frozen=True)
class ResultId:
    """What an id says. ``table`` (``None`` for ``bench``/``pep`` ids and ids naming no class), ``cls`` (the word
    in the class position, a class name or not: ``pep.class.…`` has ``"class"``), ``oracle`` (an
    :class:`Oracle` name right after the class, else ``None``); for a claim-cell result (``T…`` at the start):
    ``cell``, ``param``, ``kind``, ``variant``; ``None`` otherwise."""

    table: int | None = None
    cls: str | None = None
    oracle: str | None = None
    cell: str | None = None
    param: str | None = None
    kind: str | None = None
    variant: str | None = None


def parse(rid: str) -> ResultId:
    """The fields of ``rid``: the first ``T<digit>``, ``bench`` or ``pep`` word followed by a class-like word and at
    least one more word gives the table/class, and an oracle name there followed by one more word the oracle; an id
    ``T<table>.<class>.<oracle>.<param>.<kind>[@variant]`` is also read as a claim-cell result."""
    words = rid.split(".")
    found: dict = {}
    for i, w in enumerate(words[:-2]):
        table = _TABLE_WORD.fullmatch(w)
        if (table or w in _CLASS_HEADS) and _CLASS_WORD.fullmatch(words[i + 1]):
            found = {"table": int(table[1]) if table else None, "cls": words[i + 1],
                     "oracle": words[i + 2] if words[i + 2] in ORACLES and i + 3 < len(words) else None}
            break
    return ResultId(**found, **_cell_fields(rid))


def _cell_fields(rid: str) -> dict:
    """``cell``, ``param``, ``kind``, ``variant`` of a claim-cell result id (empty for any other id)."""
    base, sep, variant = rid.partition(_VARIANT_SEP)
    words = base.split(".")
    if (sep and not variant) or (len(words) != 5 or not re.fullmatch(r"T\d+", words[0]) or not all(words[1:4]) or words[4] not in CELL_KINDS):
        return {}
    return {"cell": ".".join(words[:3]), "param": words[3], "kind": words[4], "variant": variant or None}
