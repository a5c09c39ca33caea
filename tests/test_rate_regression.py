"""Rate regression: the Table 1 sweeps of ``mixbounds verify``, run once, judged per registry cell.

Every Table 1 cell of the registry (:mod:`mixbounds.bounds.claims`) × swept parameter must come out
``pass`` — or ``finding`` where :mod:`mixbounds.checks.expected` records why — for the solver slope
(upper/tight/absent), the lower-bound engine and the cell's truncation/consistency checks;
every rate and lower-bound negative control must be caught.  A change that breaks a rate,
a construction or the engine turns this red.

The sweeps run once per session (module fixture) through the same framework as the CLI,
with two worker processes.  Tier: :data:`TIER` (``MIXBOUNDS_REGRESSION_TIER`` overrides it;
``mixbounds verify --tier quick|full`` runs the larger sweeps from the command line).
"""

from __future__ import annotations

import os
from fnmatch import fnmatchcase

import pytest
from mixbounds.bounds.claims import cells
from mixbounds.checks.expected import expected
from mixbounds.checks.registry import all_checks
from mixbounds.checks.run.framework import run_checks
from mixbounds.checks.tiers import tier_by_name

#: tier of the regression sweeps (see module docstring)
TIER = tier_by_name(os.environ.get("MIXBOUNDS_REGRESSION_TIER", "tiny"))
#: worker processes of the one sweep run (the CI machine has 2 cores)
JOBS = int(os.environ.get("MIXBOUNDS_REGRESSION_JOBS", "2"))
#: result ids run here: Table 1 sweeps and their controls
PATTERNS = ("T1.*", "control.rates.*", "control.lower.*")

T1_CELLS = [c for c in cells("T1.*")]


@pytest.fixture(scope="module")
def results():
    chosen = [c for c in all_checks() if TIER in c.tiers
              and any(fnmatchcase(r, p) for r in c.result_ids(TIER) for p in PATTERNS)]
    out, stats = run_checks(chosen, TIER, jobs=JOBS)
    by_id = {r.id: r for r in out}
    assert by_id, "the regression run produced no results"
    return by_id


def _under(results, cell_id: str, param: str | None = None):
    pre = f"{cell_id}." if param is None else f"{cell_id}.{param}."
    return {k: r for k, r in results.items() if k.startswith(pre)}


def _bad(rs) -> list[str]:
    """Results neither ``pass`` nor an expected finding (with their details)."""
    out = []
    for k, r in rs.items():
        if r.status == "pass" or (r.status == "finding" and expected(k) is not None):
            continue
        out.append(f"{k}: {r.status} — measured {r.measured}, theory {r.theory}: {r.detail}")
    return out


@pytest.mark.parametrize("cell", T1_CELLS, ids=[c.id for c in T1_CELLS])
def test_table1_cell(results, cell):
    """Each parameter of the cell has a solver slope and a lower-bound result; all pass or are expected findings."""
    rs = _under(results, cell.id)
    assert rs, f"{cell.id}: no result in the {TIER} run"
    assert not _bad(rs), "\n".join(_bad(rs))
    for p in cell.parameters():
        mine = _under(results, cell.id, p)
        kinds = {r.kind for r in mine.values()}
        assert kinds & {"tight", "upper"}, f"{cell.id}.{p}: no solver slope check ({sorted(mine)})"
        if cell.tight and not cell.id.startswith("T1.shared_ident") and not cell.id.startswith("T1.mixed_ident"):
            assert "lower" in kinds, f"{cell.id}.{p}: no lower-bound engine result ({sorted(mine)})"


def test_every_result_of_the_run_is_accounted_for(results):
    """Class-level checks (chain truncation, upper/lower self-consistency) pass too, and every T1 result
    belongs to a registry cell or to one of these class-level checks."""
    ids = {c.id for c in T1_CELLS}
    classes = {c.problem_class for c in T1_CELLS}
    class_level = {k: r for k, r in results.items() if k.startswith("T1.") and k.split(".")[2] in ("truncation", "consistency")}
    assert {k.split(".")[1] for k in class_level} >= {"consensus", "coupled", "shared", "coupled_local", "mixed"}
    stray = [k for k in results if k.startswith("T1.") and k not in class_level
             and (".".join(k.split(".")[:3]) not in ids or k.split(".")[1] not in classes)]
    assert not stray, stray
    assert not _bad(class_level), "\n".join(_bad(class_level))


def test_controls_are_caught(results):
    """Every rate/lower control fails (it is built to), so these checks can fail."""
    ctl = {k: r for k, r in results.items() if k.startswith("control.")}
    assert len(ctl) >= 4, sorted(ctl)
    missed = [f"{k}: {r.status} ({r.detail})" for k, r in ctl.items() if r.status != "fail"]
    assert not missed, missed
