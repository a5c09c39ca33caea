"""Result ids are built and read by one module (:mod:`mixbounds.bounds.result_id`).

The reader must find what the guards and the figures used to find with their own regular expressions: the class
and oracle an id names wherever they sit, and the fields of a claim-cell result; ids that do not have that shape
(negative controls) must not be read as if they had.
"""

from __future__ import annotations

import pytest
from mixbounds.bounds.claims import REGISTRY
from mixbounds.bounds.concepts import Oracle, ProblemClass
from mixbounds.bounds.result_id import ResultId, cell_id, cell_result_id, parse, with_variant
from mixbounds.checks.audits.guards import uses
from mixbounds.checks.registry import all_checks
from mixbounds.checks.tiers import QUICK


@pytest.mark.parametrize("rid, fields", [
    ("T1.coupled.comm.kappa_W.tight", dict(table=1, cls="coupled", oracle="comm", cell="T1.coupled.comm",
                                           param="kappa_W", kind="tight")),
    ("T3.mixed.Ct.MR_eps.upper@random-mixed", dict(table=3, cls="mixed", oracle="Ct", cell="T3.mixed.Ct",
                                                   param="MR_eps", kind="upper", variant="random-mixed")),
    ("bench.mixed.apapc.Ct.kappa_W", dict(cls="mixed")),  # the method sits between class and oracle
    ("control.rates.nocheb.T1.shared_ident.comm.kappa_W", dict(table=1, cls="shared_ident", oracle="comm")),
    ("pep.coupled.comm.kappa_f", dict(cls="coupled", oracle="comm")),
    ("pep.class.coupled.grid", dict(cls="class")),  # a class-like word that is not a class: the readers filter
    # negative controls: nothing after the oracle (no oracle read), too short, not a table word, empty variant
    ("T1.coupled.comm", dict(table=1, cls="coupled")),
    ("T1.coupled", {}),
    ("xT1.coupled.A.kappa_A", {}),
    ("T12.coupled.A.kappa_A.tight", dict(cell="T12.coupled.A", param="kappa_A", kind="tight")),
    ("T1.coupled.A.kappa_A.tight@", dict(table=1, cls="coupled", oracle="A")),
    ("T1.coupled.A.kappa_A.tightness", dict(table=1, cls="coupled", oracle="A")),
])
def test_parse_reads_the_fields(rid, fields):
    assert parse(rid) == ResultId(**fields)


def test_build_and_parse_round_trip_on_every_claim():
    for cell in REGISTRY:
        assert cell.id == cell_id(int(cell.id[1]), cell.problem_class, cell.oracle)
        for kind in ("upper", "tight", "absent", "lower"):
            for variant in (None, "printed", "split-rows"):
                p = parse(cell_result_id(cell.id, "kappa_f", kind, variant))
                assert (p.cell, p.param, p.kind) == (cell.id, "kappa_f", kind)
                assert p.variant == (None if variant in (None, "printed") else variant)
                assert (p.cls, p.oracle) == (cell.problem_class, cell.oracle)


def test_with_variant_hides_the_printed_construction():
    assert with_variant("T1.coupled.A.kappa_A.lower", "printed") == "T1.coupled.A.kappa_A.lower"
    assert with_variant("T1.coupled.A.kappa_A.lower", "split-rows") == "T1.coupled.A.kappa_A.lower@split-rows"


def test_every_declared_id_naming_a_class_names_a_known_one():
    """Every result id the checks declare in the quick tier that starts with a ``T<t>``/``bench`` head names a class
    of :class:`ProblemClass` and, where it names an oracle, an :class:`Oracle` (a typo in a builder would show
    here; controls such as ``control.T4.homotopy.planted`` put their own words in the class position)."""
    known, oracles, seen = set(ProblemClass), set(Oracle), 0
    for check in all_checks():
        for rid in check.result_ids(QUICK) if QUICK in check.tiers else ():
            p = parse(rid)
            if rid.startswith(("T", "bench.")):
                seen += 1
                assert p.cls in known, rid
                assert p.oracle is None or p.oracle in oracles, rid
    assert seen > 100  # the ids were read at all


def test_guards_read_the_classes_of_a_selection():
    """The guards' reading of ids goes through :func:`parse`: the ``T1.coupled.*`` rate checks rest on the coupled
    counter audit and the coupled class's oracles; a lower-bound check on ``Ct`` cells on the ``Ct`` oracle."""
    rates = [c for c in all_checks() if c.family == "rates" and QUICK in c.tiers and c.result_ids(QUICK)
             and all(parse(r).cls == ProblemClass.COUPLED for r in c.result_ids(QUICK))]
    assert rates
    u = uses(rates[0], QUICK)
    assert u.classes == {ProblemClass.COUPLED}
    assert u.oracles <= set(ProblemClass.COUPLED.oracles) and u.oracles
