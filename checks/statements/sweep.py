"""The sweep verdict of one rate statement outside the tables (:mod:`mixbounds.bounds.statements`): one oracle's
count against one swept parameter, through the engine every sweep uses
(:func:`mixbounds.checks.verdict_engine.judge_sweep`).

A task's point is a dict with ``realized`` (every swept constant, computed from the instance, and the accuracy
parameter ``x`` itself), ``per_accuracy`` (oracle → count), ``converged``, ``reason``, ``iterations`` and, where
they apply, ``eps``, ``R``, ``M``, ``phases`` and ``hit_row``.  A point with an exception or a run that did not
converge is no count: the verdict is ``error`` (``fail`` for a negative control).

Rules (:class:`Rule`), with θ the largest exponent of the swept parameter over the statement's monomials (the
local log-log slope of a positive sum of monomials never exceeds it, whatever the constants; the tables' sum cells
use the unit-constant formula slope instead, which assumes the constants: for ``N_G' = O(M²R²/ε² + N_B)`` swept in
κ_B it gave 0.11 where the measured 0.35 is the ``N_B`` term with its real constant):

* ``upper``: ``slope <= θ + tol`` — the printed bound holds on the sweep;
* ``tight``: ``|slope − θ| <= tol`` — the printed exponent is attained (exercised) on the sweep;
* ``absent``: ``|slope| <= tol``;
* before any of them, the realized swept parameter must be its target within :data:`TARGET_RTOL` (``fail``);
* ``predicted`` (optional, with any of them): ``|slope − predicted| <= tol`` as well — the suite's own reading of
  the method in that regime (e.g. the √(κχ) of the APAPC rule), so that a regime that does not behave as the
  suite says it does fails instead of passing quietly.

Findings (never for a control): ``derived`` — the printed bound fails but the statement's ``derived_terms`` (its
source) hold: ``finding``; ``log`` — the printed accuracy exponent fails but the log-including rate ``x^e ln x`` of
the statement's proof holds: ``finding`` (as Table 4, :func:`mixbounds.checks.tables234.rules.table4_log_factor_finding`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from mixbounds.bounds.statements import Statement
from mixbounds.checks.run.result import CheckResult, Finding
from mixbounds.checks.run.sweep_point import SweepPoint
from mixbounds.checks.sweeps import fit_integrity
from mixbounds.checks.tables234.rules import log_including_slope
from mixbounds.checks.verdict import band_ok, upper_ok
from mixbounds.checks.verdict_engine import Judgement, Selection, SweepRules, Unjudged, integrity_stop, judge_sweep

#: the fields a statement sweep point writes to results.json, in order
POINT_FIELDS = ("target", "realized", "per_accuracy", "iterations", "eps", "R", "M", "phases", "hit_row",
                "realized_all", "target_rel_err")
#: realized swept parameter vs its target (the generic instances set κ_B exactly from singular values, to rounding;
#: the consensus family tunes κ_W to 1e-6 or better): a point further off fails the sweep before any fit
TARGET_RTOL = 1e-6
#: accuracy parameters (their sweeps are judged on the point's own x)
ACCURACY = ("MR_eps", "M_mu_eps")


@dataclass(frozen=True)
class Rule:
    """How a sweep is judged (module docstring): ``kind`` (``upper``/``tight``/``absent``), an optional ``predicted``
    slope, and which finding a failed printed bound may be (``finding``: ``None``, ``"derived"`` or ``"log"``)."""

    kind: str
    predicted: float | None = None
    finding: str | None = None
    why_predicted: str = ""


def screen(param: str, oracle: str):
    """An exception, a run that did not converge or a point without the oracle's count is no count."""

    def rule(v: float, p: dict) -> Unjudged | None:
        if "error" in p:
            return Unjudged(v, f"{param}={v:g}: {p['error']}")
        if not p.get("converged") or not p.get("per_accuracy") or p["per_accuracy"].get(oracle) is None:
            return Unjudged(v, f"{param}={v:g}: no count of {oracle} ({p.get('reason')}, {p.get('iterations')} "
                               "iterations)")
        return None

    return rule


def row(param: str, oracle: str):
    def make(v: float, p: dict) -> SweepPoint:
        real = p["realized"][param]
        return SweepPoint(POINT_FIELDS, target=v, realized=real, per_accuracy=p["per_accuracy"][oracle],
                          iterations=p.get("iterations"), eps=p.get("eps"), R=p.get("R"), M=p.get("M"),
                          phases=p.get("phases"), hit_row=p.get("hit_row"), realized_all=p["realized"],
                          target_rel_err=abs(real / v - 1.0))

    return make


def _finding(st: Statement, rid: str, param: str, slope: float, ci, what: str, target: float) -> Finding:
    return Finding(id=f"finding.{rid}", label=st.label, statement=f"{st.label}: {st.printed}",
                   printed=f"{st.printed}: slope {st.exponent(param):g} in {param}",
                   measured={"slope": slope, "ci": ci, what: target},
                   detail=st.discrepancy or "", source=rid)


def with_exponent(st: Statement, param: str, value: float) -> Statement:
    """``st`` claiming exponent ``value`` for ``param`` in every monomial (a wrong claim: the negative controls that
    judge the method's own points), without derived terms."""
    terms = tuple(tuple(sorted({**dict(mono), param: float(value)}.items())) for mono in st.terms)
    return replace(st, terms=terms, derived_terms=None, discrepancy=None)


def judge_statement(rid: str, st: Statement, param: str, grid: list, pts: list, rule: Rule, *, tol: float,
                    control: bool = False, extra: dict | None = None, instance: dict | None = None,
                    variant: str | None = None) -> CheckResult:
    """The verdict of one statement sweep (module docstring): ``pts`` are the task outputs in ``grid`` order."""
    oracle = st.oracle
    e = st.exponent(param)

    def judge(f, sel: Selection, _unjudged) -> Judgement:
        rows = sel.rows
        target = 0.0 if rule.kind == "absent" else e
        ok = band_ok(f.slope, target, tol) if rule.kind in ("tight", "absent") else upper_ok(f.slope, target, tol)
        pred_ok = True if rule.predicted is None else band_ok(f.slope, rule.predicted, tol)
        ex = {"exponent": e, "rule": rule.kind, "predicted": rule.predicted}
        findings = ()
        if not ok and pred_ok and not control and rule.finding == "derived" and st.derived_terms is not None:
            dt = st.exponent(param, derived=True)
            ex["derived_target"] = dt
            if upper_ok(f.slope, dt, tol):
                findings = (_finding(st, rid, param, f.slope, f.ci, "derived_target", dt),)
        if not ok and pred_ok and not control and rule.finding == "log" and param in ACCURACY:
            lt = log_including_slope(e, [r.realized for r in rows])
            ex["log_including_target"] = lt
            if upper_ok(f.slope, lt, tol):
                findings = (_finding(st, rid, param, f.slope, f.ci, "log_including_target", lt),)
        status = "finding" if findings else ("pass" if ok and pred_ok else "fail")
        cmp = {"upper": "<=", "tight": "within tol of", "absent": "|.| <="}[rule.kind]
        detail = (f"slope {f.slope:.3f} (95% CI {f.ci[0]:.3f}..{f.ci[1]:.3f}, R² {f.r2:.3f}) {cmp} {target:.3f} ± {tol} "
                  f"[printed exponent {e:g}]")
        if rule.predicted is not None:
            detail += (f"; predicted {rule.predicted:g} ({rule.why_predicted}): "
                       + ("agrees" if pred_ok else "DISAGREES"))
        if findings:
            detail += f"; the printed bound fails, {'the source' if rule.finding == 'derived' else 'the log-including rate of the proof'} holds"
        detail += f"; {oracle} counts {[r.per_accuracy for r in rows]} at {param} {[round(r.realized, 3) for r in rows]}"
        return Judgement(status, detail, ex, findings)

    rules = SweepRules(screen=screen(param, oracle), row=row(param, oracle), judge=judge, target_rtol=TARGET_RTOL,
                       integrity=integrity_stop(fit_integrity, len(grid)))
    return judge_sweep(rid, list(zip(grid, pts)), rules, control=control, kind=rule.kind, theory=e, tolerance=tol,
                       label=st.label, cell=st.id, param=param, instance=instance or {}, extra=extra,
                       expected="fail" if control else None, variant=variant)


__all__ = ["ACCURACY", "POINT_FIELDS", "Rule", "TARGET_RTOL", "judge_statement", "with_exponent"]
