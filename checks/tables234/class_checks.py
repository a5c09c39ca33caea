"""One check per table row: every cell of Table 2, 3 or 4 for one problem class, in the accuracy parameter and
every κ of the class's row (points: :mod:`mixbounds.checks.tables234.points`; verdicts:
:mod:`mixbounds.checks.tables234.rules`).
"""

from __future__ import annotations

from mixbounds.checks.run.framework import Check
from mixbounds.checks.run.result import with_variant
from mixbounds.checks.tables234.points import ACC, SOLVER, cells, nonquadratic_sweeps, series, sweep_task, sweeps
from mixbounds.checks.tables234.rules import verdict


def class_check(table: int, cls: str) -> Check:
    cs = cells(table, cls)

    def all_sweeps(tier):
        return sweeps(tier, table, cls) + nonquadratic_sweeps(tier, table, cls)

    def result_ids(tier):
        return [with_variant(f"{c.id}.{p}.{'upper' if c.exponent(p) > 0 else 'absent'}", series(table, cls, pts))
                for p, _, _, pts in all_sweeps(tier) for c in cs]

    def tasks(tier):
        return [sweep_task(table, cls, q, x, tier=tier) for _, _, _, pts in all_sweeps(tier) for q, x in pts]

    def finalize(tier, points):
        out = []
        for p, base, grid, pts in all_sweeps(tier):
            got = [points[sweep_task(table, cls, q, x, tier=tier).key] for q, x in pts]
            for c in cs:
                out.append(verdict(tier, table, c, p, grid, got, variant=series(table, cls, pts)))
        return out

    return Check(id=f"nonsmooth.T{table}.{cls}", family="nonsmooth", result_ids=result_ids, tasks=tasks, finalize=finalize,
                 description=f"Table {table} {cls}: {SOLVER[table]} slopes in {ACC[table]} and every κ")

