"""The problem classes and the oracles are types (:mod:`mixbounds.bounds.concepts`), and they read as their names.

The members must be interchangeable with the bare strings they replace wherever a string reaches the outside
(JSON, f-strings, ``repr`` in messages, dictionary keys, numpy arrays), so that results and outputs do not change;
the table they carry must agree with the claims registry (the paper's Table 1 as data).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from mixbounds.bounds.claims import CLASS_LABELS, ORACLE_LABELS, REGISTRY
from mixbounds.bounds.concepts import METHOD_CLASSES, ORACLES, PROBLEM_CLASSES, Oracle, ProblemClass
from mixbounds.instances.classes import CLASSES
from mixbounds.solvers.oracles import ORACLES as SOLVER_ORACLES


def test_members_read_as_their_names():
    cls, orc = ProblemClass.COUPLED_LOCAL, Oracle.CT
    assert (cls, orc) == ("coupled_local", "Ct")
    assert (f"{cls}.{orc}", str(orc), repr(cls), "%s" % orc) == ("coupled_local.Ct", "Ct", "'coupled_local'", "Ct")
    assert json.dumps({orc: [cls]}) == '{"Ct": ["coupled_local"]}'
    assert {"Ct": 1}[orc] == 1 and {orc: 1}["Ct"] == 1
    assert np.asarray(ORACLES).tolist() == ["grad", "A", "C", "Ct", "comm"]
    assert ProblemClass("mixed") is ProblemClass.MIXED and Oracle("comm") is Oracle.COMM
    assert ProblemClass.named("mixed") is ProblemClass.MIXED
    with pytest.raises(ValueError, match="not a problem class"):
        ProblemClass.named("mixd")


def test_one_declaration_everywhere():
    assert SOLVER_ORACLES is ORACLES
    assert tuple(CLASSES) == PROBLEM_CLASSES
    assert set(METHOD_CLASSES) == {c for c, s in CLASSES.items() if s.worst_family}


def test_the_table_agrees_with_the_claims_registry():
    """Each class's oracles are exactly those of its Table 1 cells, its parameters those its cells depend on
    (κ_f included), and the labels are the ones the rendered tables print."""
    for cls in ProblemClass:
        cells = [c for c in REGISTRY if c.problem_class == cls and c.setting == "smooth_strongly_convex"]
        assert cells, cls
        assert {c.oracle for c in cells} <= set(cls.oracles), cls
        assert {p for c in cells for p in c.parameters()} <= set(cls.params), cls
        assert all((c.table is not None) == cls.in_table for c in cells), cls
        assert CLASS_LABELS[cls] == cls.label
        assert ORACLES[:1] == (Oracle.GRAD,) and cls.oracles[0] == Oracle.GRAD and cls.oracles[-1] == Oracle.COMM
    assert [ORACLE_LABELS[o] for o in ORACLES] == ["Grad.", "Mat. A", "Mat. C", "Mat. C̃", "Comm."]


def test_the_cited_theorem_is_the_source_of_the_communication_cell():
    """``ProblemClass.theorem`` is the upper bound Table 1 cites for the class: the source its communication cell
    (the cell every class has) records in the claims registry starts with it."""
    for cls in ProblemClass:
        comm = next(c for c in REGISTRY if c.id == f"T1.{cls}.{Oracle.COMM}")
        assert comm.source.startswith(cls.theorem), (cls, comm.source)
