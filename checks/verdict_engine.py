"""The one sweep verdict engine: Tables 1–4 (:mod:`mixbounds.checks.rates`, :mod:`mixbounds.checks.tables234`), the lower-bound slopes
(:mod:`mixbounds.checks.lower.slopes`) and the benchmarks (:mod:`mixbounds.checks.bench`) all judge a sweep with :func:`judge_sweep`.

A sweep verdict goes through the same stages everywhere (docs/design.md, "Measuring a rate"):

1. **collect** the task outputs in grid order; **screen** each one (an exception, the counter audit, the
   convergence guard, a solver that did not converge, no per-accuracy window, …): a screened point is an
   :class:`Unjudged` with its reason, the others become :class:`~mixbounds.checks.run.sweep_point.SweepPoint` s;
2. decide what the unjudged points mean (default: the verdict is ``error``, ``fail`` for a negative
   control; the benchmarks tell budgets from failures);
3. the **target check**: the realized swept parameter must be its target within ``target_rtol``;
4. **select** the points the fit uses (Tables 2–4 leave pre-asymptotic points out, and say so);
5. **fit** the log-log slope of the per-accuracy counts against the realized parameter, then the **fit
   integrity** (the fit used the whole sweep and has a finite interval);
6. **judge**: compare the slope with the table's rule (:mod:`mixbounds.checks.verdict`) and name its findings;
   a judge made of several named rules tried in order (the first that decides wins) is a tuple of :class:`Rule`
   passed to :func:`decide` (the exact lower bounds, :mod:`mixbounds.checks.lower.exact_verdict`).

What differs between the tables is passed in as small named functions (:class:`SweepRules`): the
screen and the point record, the fit, the rule of the last stage with its special cases (Table 2's log
tolerance, Table 4's log-factor finding, the derived-terms finding, the lower bounds' weaker-bound
finding, Table 1's tightness ratios).  A stage that ends the verdict returns a :class:`Stop`.

:func:`consistency` is the one "no method below the lower bound" check of the rates and the benchmarks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from mixbounds.checks.run.result import CheckResult
from mixbounds.checks.run.sweep_point import SweepPoint
from mixbounds.checks.verdict import fit_counts


@dataclass(frozen=True)
class Unjudged:
    """A sweep point that cannot be judged, and why.  ``kind``: ``error`` (the default: an exception, a solver
    that did not converge, …); the benchmarks also use ``instance`` (the instance could not be built) and
    ``budget`` (the run stopped at the tier's budget: not measured, not a failure)."""

    value: float
    why: str
    kind: str = "error"


@dataclass(frozen=True)
class Stop:
    """A verdict reached before the slope comparison (an unjudged point, a missed target, too few points, …)."""

    status: str
    detail: str
    points: list | None = None  # SweepPoints to report (default: the judged points)
    measured: float | None = None
    ci: tuple | None = None
    extra: dict = field(default_factory=dict)
    findings: tuple = ()


@dataclass(frozen=True)
class Fit:
    """A slope fit: ``slope``, its 95% ``ci`` and ``r2`` (:func:`mixbounds.checks.sweeps.fit_slope` keys), the raw dict."""

    slope: float
    ci: tuple
    r2: float
    raw: dict

    @classmethod
    def of(cls, f: dict) -> "Fit":
        return cls(f["slope"], tuple(f["ci"]), f["r2"], f)


@dataclass(frozen=True)
class Judgement:
    """The outcome of the last stage: status, detail, and what the result records besides the fit."""

    status: str
    detail: str
    extra: dict = field(default_factory=dict)
    findings: tuple = ()
    theory: object = None  # replaces the result's theory when set (Tables 2–4 report the target slope)
    label: str | None = None  # the result's verdict_label (an upper bound that holds but is not exercised)
    measured: float | None = None  # replaces the fit's slope as the result's measured value when set (a closed form's exponent)


@dataclass(frozen=True)
class Selection:
    """The points a fit uses and those left out for a stated reason (``excluded``)."""

    rows: list
    excluded: list = field(default_factory=list)


def _fit_counts(rows: list[SweepPoint]) -> Fit:
    return Fit.of(fit_counts([r.realized for r in rows], [r.per_accuracy for r in rows]))


@dataclass(frozen=True)
class SweepRules:
    """How one table judges a sweep (see the module docstring for the stages).

    ``screen(value, point) -> Unjudged | None``; ``row(value, point) -> SweepPoint``;
    ``unjudged(unjudged, rows) -> Stop | None`` (``None``: carry on with the judged points);
    ``target_rtol``: realized vs target (``None``: no target check);
    ``select(rows) -> Selection | Stop`` (default: every judged point);
    ``fit(rows) -> Fit | Stop`` (default :func:`mixbounds.checks.verdict.fit_counts` of the selected points);
    ``integrity(fit, selection, control) -> Stop | None`` (the fit is not a verdict; :func:`integrity_stop`);
    ``judge(fit, selection, unjudged) -> Judgement``.
    """

    screen: Callable
    row: Callable
    judge: Callable
    unjudged: Callable | None = None
    target_rtol: float | None = None
    select: Callable | None = None
    fit: Callable = _fit_counts
    integrity: Callable | None = None


def judge_sweep(rid: str, pts, rules: SweepRules, *, control: bool = False, extra: dict | None = None,
                **common) -> CheckResult:
    """The verdict of one sweep: ``pts`` are ``(grid value, task output)`` pairs in grid order; ``common`` the
    :class:`~mixbounds.checks.run.result.CheckResult` fields every outcome shares (kind, theory, tolerance, label, cell, param,
    instance, expected, variant, …); ``extra`` the part of ``extra`` every outcome shares (a stage adds its own)."""
    base = dict(extra or {})
    rows, unjudged = [], []
    for v, p in pts:
        u = rules.screen(v, p)
        if u is not None:
            unjudged.append(u)
        else:
            rows.append(rules.row(v, p))

    def stopped(s: Stop) -> CheckResult:
        return CheckResult(id=rid, control=control, status=s.status, detail=s.detail, measured=s.measured, ci=s.ci,
                           points=[r.to_dict() for r in (rows if s.points is None else s.points)],
                           extra={**base, **s.extra},
                           findings=s.findings, **common)

    s = (rules.unjudged or default_unjudged(control))(unjudged, rows)
    if s is not None:
        return stopped(s)
    if rules.target_rtol is not None:
        bad = [r for r in rows if r.target_rel_err is None or r.target_rel_err > rules.target_rtol]
        if bad:
            det = ", ".join(f"target {r.target:g} realized {r.realized}" for r in bad)
            return stopped(Stop("fail", f"realized {common.get('param')} misses its target by more than "
                                        f"{rules.target_rtol:g}: {det}"))
    sel = rules.select(rows) if rules.select else Selection(rows)
    if isinstance(sel, Stop):
        return stopped(sel)
    f = rules.fit(sel.rows)
    if isinstance(f, Stop):
        return stopped(replace_points(f, sel.rows))
    bad_fit = rules.integrity(f, sel, control) if rules.integrity else None
    if bad_fit is not None:
        return stopped(replace_points(bad_fit, sel.rows))
    j = rules.judge(f, sel, unjudged)
    if j.theory is not None:
        common = dict(common, theory=j.theory)
    return CheckResult(id=rid, control=control, status=j.status, measured=f.slope if j.measured is None else j.measured,
                       ci=f.ci, r2=f.r2,
                       points=[r.to_dict() for r in sel.rows], detail=j.detail, extra={**base, **j.extra},
                       findings=j.findings, verdict_label=j.label,
                       **common)


@dataclass(frozen=True)
class Rule:
    """One named rule of the judge stage: ``test(case) -> Judgement | None`` (``None``: the rule does not decide
    ``case``, the next one is tried)."""

    name: str
    test: Callable


def decide(rules: tuple[Rule, ...], case) -> Judgement:
    """The judgement of the first rule of ``rules`` that decides ``case``.

    Parameters
    ----------
    rules : tuple of Rule
        The rules in the order the verdict states them; the last one must decide every case that reaches it.
    case : object
        What the rules read (a frozen dataclass of the sweep's measurements).

    Returns
    -------
    Judgement
        The deciding rule's judgement.
    """
    for r in rules:
        j = r.test(case)
        if j is not None:
            return j
    raise ValueError(f"no rule of {[r.name for r in rules]} decided the case")


def replace_points(s: Stop, rows: list) -> Stop:
    """``s`` reporting ``rows`` unless it names its own points."""
    return s if s.points is not None else Stop(s.status, s.detail, rows, s.measured, s.ci, s.extra, s.findings)


def default_unjudged(control: bool) -> Callable:
    """Any unjudged point makes the verdict ``error`` (``fail`` for a negative control), the reasons joined."""

    def rule(unjudged: list[Unjudged], rows: list) -> Stop | None:
        if not unjudged:
            return None
        return Stop("fail" if control else "error", "; ".join(u.why for u in unjudged))

    return rule


def integrity_stop(check: Callable[[dict, int, int], str | None], grid_len: int) -> Callable:
    """The fit-integrity stage from :func:`mixbounds.checks.sweeps.fit_integrity`: a fit that did not use every point of the
    sweep (minus the stated exclusions) or has no finite interval is ``error`` (``fail`` for a control), with the
    slope it got."""

    def rule(f: Fit, sel: Selection, control: bool) -> Stop | None:
        if min(r.per_accuracy for r in sel.rows) <= 0:
            return None  # no fit was made (a zero count): nothing to check
        why = check(f.raw, grid_len, stopped=len(sel.excluded))
        if not why:
            return None
        return Stop("fail" if control else "error", f"fit integrity: {why}", measured=f.slope, ci=f.ci,
                    extra={"fit": {"used": int(f.raw["n"]), "of": grid_len, "reason": None}})

    return rule


# ----------------------------------------------------------------------------- solver vs lower bound
def bound_comparisons(lp: dict, count_at):
    """``(bound key, ε, solver count, lower bound)`` for every level ``ε`` at which the engine point ``lp``
    recorded a bound and ``count_at(oracle, level key)`` gives the solver's count to the same ε.  A bound
    on a part (key ``oracle@part``) is a bound for the whole: the part's error never exceeds the whole's."""
    for key, b in lp["bounds"].items():
        o = key.split("@")[0]
        for key_eps, lbc in (b.get("abs") or {}).items():
            sc = count_at(o, key_eps)
            if lbc is not None and sc is not None:
                yield key, float(key_eps), sc, lbc


def consistency(rid: str, param: str, series: dict, lb_pts, *, judged: Callable, count_at: Callable, what: str,
                named: bool, **common) -> CheckResult:
    """No method's count to an error level may be below the lower-bound engine's count to the same level on the
    same instance (``fail`` otherwise; ``error`` without a single comparison).

    ``series``: method → ``[(grid value, task output)]`` in the grid order of ``lb_pts`` (the engine's outputs);
    ``judged(up) -> bool``: whether a method's output can be compared; ``count_at(up, oracle, level key)``: its
    first-hit count to that level.  ``what`` names the comparisons in the detail (``point, oracle, ε``); ``named``:
    the points and messages name the method (the benchmarks; the rates run the paper's method only).
    """
    bad, rows, checked, errs = [], [], 0, []
    for i, (v, lp) in enumerate(lb_pts):
        if "error" in lp:
            errs.append(f"{param}={v:g}: lower bound failed: {lp['error']}")
            continue
        for method, pts in series.items():
            up = pts[i][1]
            if not judged(up):
                continue
            for key, eps, sc, lbc in bound_comparisons(lp, lambda o, k, up=up: count_at(up, o, k)):
                checked += 1
                rows.append({"target": v, **({"method": method} if named else {}), "oracle": key, "eps": eps,
                             "solver": sc, "lower_bound": lbc})
                if sc < lbc:
                    bad.append(f"{method} {param}={v:g} {key} ε={eps:g}: {sc} < bound {lbc}" if named else
                               f"{param}={v:g} {key.split('@')[0]} ε={eps:g}: solver {sc} < bound {lbc}")
    status = "fail" if bad else ("pass" if checked else "error")
    subject = "every method's count" if named else "every solver count"
    detail = (f"{checked} ({what}) comparisons; " + ("; ".join(bad) if bad else f"{subject} >= the engine's bound")
              if checked else "no comparable points" + (": " + "; ".join(errs) if errs else ""))
    return CheckResult(id=rid, kind="consistency", status=status, theory=">= lower bound", measured=len(bad),
                       points=rows, detail=detail, param=param, **common)
