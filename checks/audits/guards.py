"""Self-checks guard every subset: which self-checks a selection of checks rests on.

The self-checks (the counter audit, :mod:`mixbounds.checks.audits.audit_counters`; the engine calibration,
:mod:`mixbounds.checks.audits.calibration_engine`; the tolerance probes,
:mod:`mixbounds.checks.audits.calibration_tolerances`; the convergence guard,
:mod:`mixbounds.checks.audits.audit_guards`; the reference audit of Tables 2-4,
:mod:`mixbounds.checks.audits.audit_reference`) are what makes a broken suite fail ``mixbounds verify``: a
counter that undercounts or an engine that steps two hops per round moves no slope.  Run only with
``--claims '*'``, they left every subset unguarded (``--claims 'T1.consensus.*'`` exited 0 with the comm
counter undercounting).  :func:`guard_globs` returns, for the checks a ``--claims`` selection picked, the
result ids of the self-checks their results rest on, with the negative controls that show each self-check
can fail; ``mixbounds verify`` adds them to the run.

What a check rests on is read from its family and its result ids (:func:`uses`):

* ``rates``, ``controls``, ``nonsmooth``, ``bench``, ``statements`` (solver counts): the counter audit of every
  class the ids name (``T1.<class>.…``, ``bench.<class>.…``; every class for ids that name none, as the statements'
  own instances), the engine calibration of those classes' oracles where the
  family compares solver counts with the engine (``rates``, ``bench``), the tolerance probes of the family's
  slope rules, and the convergence guard; ``nonsmooth`` also the reference audit of each table × class; their
  non-quadratic series (``…+logcosh``) the audit of the stated ``L_f``, ``μ_f`` of each table × class
  (:mod:`mixbounds.checks.audits.audit_constants`);
* ``lower`` (the engine): the calibration of every oracle the ids bound, and the probes of ``lower:TOL``;
* ``lemma``: the probes of the lemma tolerances;
* ``pep``: the probes of ``rates:TOL`` (its slopes are judged with it) and the counter audit of the classes whose
  worst case the suite's APAPC runs;
* ``selfcheck``: the engine calibration also rests on ``calibration_engine:CURVE_RTOL``;
* ids that name no class (no oracle for ``lower``): every class (every oracle);
* a family this table does not know: every class, every oracle, every tolerance and the convergence guard — a
  new family is guarded by everything until it is described here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mixbounds.bounds.concepts import ORACLES
from mixbounds.bounds.concepts import PROBLEM_CLASSES as PROBLEM_CLASS_NAMES
from mixbounds.bounds.result_id import parse
from mixbounds.checks.audits.calibration_engine import CASE_OF_ORACLE
from mixbounds.checks.tolerances import TOLERANCES
from mixbounds.instances.classes import CLASSES as PROBLEM_CLASSES

#: the audited classes (those with a counter audit, :func:`mixbounds.checks.audits.audit_counters.audit_sample`)
AUDITED = PROBLEM_CLASS_NAMES
#: the tolerances of each family's verdict rules (``{tier}``: the run's tier)
FAMILY_TOLERANCES = {
    "rates": ("rates:TOL[{tier}]", "rates:TARGET_RTOL", "rates:TRUNC_RTOL"),
    "controls": ("rates:TOL[{tier}]",),
    "bench": ("rates:TOL[{tier}]",),
    "nonsmooth": ("nonsmooth:TOL[{tier}]",),
    "lower": ("lower:TOL[{tier}]",),
    "lemma": tuple(t.where for t in TOLERANCES if t.where.startswith("lemmas:")),
    "pep": ("rates:TOL[{tier}]",),
    "statements": ("statements:TOL[{tier}]",),
}
#: families whose results compare solver counts with the lower-bound engine (consistency checks)
USES_ENGINE_AND_COUNTS = ("rates", "bench")
SOLVER_FAMILIES = ("rates", "controls", "nonsmooth", "bench", "statements")


@dataclass(frozen=True)
class Uses:
    """What the results of one check rest on."""

    classes: frozenset = field(default_factory=frozenset)
    oracles: frozenset = field(default_factory=frozenset)
    tolerances: frozenset = field(default_factory=frozenset)
    converged: bool = False
    references: frozenset = field(default_factory=frozenset)  # (table, class) of Tables 2-4
    constants: frozenset = field(default_factory=frozenset)  # (table, class) of the non-quadratic (+logcosh) series


EVERYTHING = Uses(frozenset(AUDITED), frozenset(ORACLES), frozenset(t.where for t in TOLERANCES), True)


def uses(check, tier: str) -> Uses:
    """What ``check`` (a :class:`mixbounds.checks.run.framework.Check`) rests on in ``tier`` (module docstring)."""
    fam = check.family
    ids = check.result_ids(tier)
    # a problem class and an oracle in a result id: ``T1.coupled.comm.kappa_W.tight``, ``bench.mixed.apapc.Ct.…``,
    # ``control.rates.nocheb.T1.shared_ident.comm.kappa_W`` (:func:`mixbounds.bounds.result_id.parse`)
    parsed = [parse(r) for r in ids]
    found = [p for p in parsed if p.cls is not None]
    classes = frozenset(m.cls for m in found if m.cls in AUDITED)
    if fam == "selfcheck":
        own = {"calibration.engine.": ("calibration_engine:CURVE_RTOL",),
               "audit.constants": ("audit_constants:CONST_RTOL", "audit_constants:FD_RTOL")}
        return Uses(tolerances=frozenset(t for prefix, ts in own.items() if check.id.startswith(prefix) for t in ts))
    if fam == "lemma":
        return Uses(tolerances=frozenset(FAMILY_TOLERANCES["lemma"]))
    if fam == "pep":  # slopes judged with the Table 1 tolerance; the worst case run by the suite's APAPC
        return Uses(classes=classes, tolerances=_tolerances(fam, tier))
    if fam == "lower":
        oracles = frozenset(m.oracle for m in found if m.oracle) or frozenset(ORACLES)
        return Uses(oracles=oracles, tolerances=_tolerances(fam, tier))
    if fam in SOLVER_FAMILIES:
        classes = classes or frozenset(AUDITED)
        oracles = frozenset(o for c in classes for o in PROBLEM_CLASSES[c].oracles) \
            if fam in USES_ENGINE_AND_COUNTS else frozenset()
        refs = frozenset((m.table, m.cls) for m in found if fam == "nonsmooth" and m.table in (2, 3, 4))
        consts = frozenset((m.table, m.cls) for r, m in zip(ids, parsed) if m.table and "+logcosh" in r)
        return Uses(classes=classes, oracles=oracles, tolerances=_tolerances(fam, tier), converged=True,
                    references=refs, constants=consts)
    return EVERYTHING


def _tolerances(family: str, tier: str) -> frozenset:
    return frozenset(t.format(tier=tier) for t in FAMILY_TOLERANCES.get(family, ()))


def _tolerance_rid(where: str) -> str:
    return where.replace(":", ".").replace("[", ".").replace("]", "")


def guard_globs(checks, tier: str) -> list[str]:
    """The result-id globs of the self-checks (and their negative controls) that guard ``checks`` in ``tier``."""
    u = [uses(c, tier) for c in checks]
    classes = set().union(*(x.classes for x in u)) if u else set()
    oracles = set().union(*(x.oracles for x in u)) if u else set()
    tols = set().union(*(x.tolerances for x in u)) if u else set()
    refs = set().union(*(x.references for x in u)) if u else set()
    consts = set().union(*(x.constants for x in u)) if u else set()
    probed = {t.where for t in TOLERANCES if t.tolerate is not None}
    out = [f"audit.counters.{c}.*" for c in sorted(classes)]
    out += ["control.audit.counters.*"] if classes else []
    cases = sorted({CASE_OF_ORACLE[o] for o in oracles})
    out += [f"calibration.engine.{case}" for case in cases]
    out += ["control.calibration.engine.*"] if cases else []
    if cases:
        tols.add("calibration_engine:CURVE_RTOL")
    if consts:
        tols |= {"audit_constants:CONST_RTOL", "audit_constants:FD_RTOL"}
    for where in sorted(tols & probed):
        rid = _tolerance_rid(where)
        out += [f"tolerance.{rid}.tolerates", f"control.tolerance.{rid}.detects"]
    if any(x.converged for x in u):
        out += ["audit.convergence.*", "control.guard.*"]
    out += [f"audit.reference.T{t}.{c}" for t, c in sorted(refs)]
    out += [f"control.reference.T{t}.*" for t in sorted({t for t, _ in refs})]
    out += [f"audit.constants.T{t}.{c}.*" for t, c in sorted(consts)] + (["control.constants.*"] if consts else [])
    return out
