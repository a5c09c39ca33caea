"""The check families ``mixbounds verify`` runs, in their order: every module that defines ``checks()``.

Each family module builds its :class:`~mixbounds.checks.run.framework.Check` s on the run machinery
(:mod:`mixbounds.checks.run.framework`); this registry sits above all of them, so the machinery never imports
a family.  A new family is one module with a ``checks()`` function, added to :data:`FAMILIES`.
"""

from __future__ import annotations

from mixbounds.checks import bench, controls, lemmas, rates, statements, tables234
from mixbounds.checks.audits import (
    audit_constants,
    audit_counters,
    audit_guards,
    audit_reference,
    calibration_engine,
    calibration_tolerances,
)
from mixbounds.checks.lower import constructions
from mixbounds.checks.pep import registry as pep
from mixbounds.checks.run.framework import Check

#: the family modules, in the order their results appear in ``results.json``
FAMILIES = (rates, constructions, lemmas, controls, tables234, statements, bench, audit_counters, calibration_engine,
            calibration_tolerances, audit_guards, audit_reference, audit_constants, pep)


def all_checks() -> list[Check]:
    """Every registered check of every family, in :data:`FAMILIES` order (``ValueError`` on a duplicate id).

    Returns
    -------
    list of Check
        The checks, family by family.

    Raises
    ------
    ValueError
        When two checks share an id.
    """
    out: list[Check] = [c for family in FAMILIES for c in family.checks()]
    ids = [c.id for c in out]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        raise ValueError(f"duplicate check ids: {sorted(dup)}")
    return out
