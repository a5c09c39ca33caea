"""The engine at the solvers' sweep points, and the slope rule the solvers' checks compare it with.

The Table 1 rates (:mod:`mixbounds.checks.rates`) and the benchmarks (:mod:`mixbounds.checks.bench`,
:mod:`mixbounds.bench_method`) run the engine (:mod:`mixbounds.checks.lower.engine`) on the very instances the
solvers run on (:func:`solver_point_task`, :func:`lower_point`): no method may go below the engine's count to the
same accuracy (:func:`bound_comparisons`), and the solver-to-engine ratio per decade is the tightness of a certified
statement (:func:`mixbounds.checks.rates.tightness_extra`).  The measured quantity is the **per-accuracy** bound
``c₂ − c₁``: ``c₁`` the first round with error ``<= 10⁻⁴ e₀`` (``e₀``: the error reachable with zero rounds of the
oracle, everything else free), ``c₂`` the first round with error ``<= 10⁻⁴ e(c₁)`` (:data:`LB_WINDOW`).

The lower-bound *certificates* are decided elsewhere, by exact counts over decades on every construction
(:mod:`mixbounds.checks.lower.constructions`); :func:`slope_verdict` here is the slope rule a benchmark applies to the
engine's counts on its own sweep (``θ_f − tol <= slope <= max(θ_f, θ) + tol``; below: the weaker-bound finding).
"""

from __future__ import annotations

from mixbounds.bounds.concepts import Oracle, ProblemClass
from mixbounds.checks.lower.engine import Engine
from mixbounds.checks.run.framework import Task, instance_and_reference
from mixbounds.checks.run.result import CheckResult, Finding, with_variant
from mixbounds.checks.run.sweep_point import SweepPoint
from mixbounds.checks.sweeps import (
    ABS_LEVELS,
    PARAM_REALIZED,
    WORST_EPS,
    Sweep,
    cells_of,
    fit_slope,
    formula_slope,
)
from mixbounds.checks.tiers import Tier
from mixbounds.checks.verdict import between_ok
from mixbounds.checks.verdict_engine import Fit, Judgement, Selection, Stop, SweepRules, Unjudged, judge_sweep

#: the per-accuracy lower bound's window.  It starts at the first round ``c₁`` whose error is
#: ``<= EPS1_REL·e₀`` and ends at the first round ``c₂`` whose error is ``<= LB_WINDOW·e(c₁)``: four
#: decades of the *tail*, measured from the error actually reached at ``c₁``.  The first chain
#: components carry a "head" of mass that one or two rounds remove, and its share of e₀ grows with
#: the swept κ: on the coupled construction the A bound's error right after the head is 9.5·10⁻⁵ e₀
#: at κ̂_A = 100 but 4.0·10⁻⁵ e₀ (κ̂_A = 10³) and 1.35·10⁻⁶ e₀ (κ̂_A = 10⁴), reached in 2 rounds.
#: A window fixed at e₀·10⁻⁴ … e₀·10⁻⁸ therefore held 4, 4.4 and only 2.1 decades of tail at those
#: points, and the full-tier slope came out 0.363 instead of 0.5 (rounds per decade of tail:
#: 51, 163, 500, slope 0.50).  The head cut itself stays four decades below e₀ (a window inside
#: the head biases the slope low: 0.34 instead of 0.5 in a tiny-tier run).
EPS1_REL, LB_WINDOW = 1e-4, 1e-4
#: decades of error the window spans (the per-decade rate divides by it)
LB_DECADES = 4.0
#: instance accuracy used for the chain length (covers the window's end, see common.py)
EPS_INSTANCE = WORST_EPS

# ----------------------------------------------------------------------------- task
def lower_point(family: str, params: dict, oracles: list, chain: int | None = None, parts: tuple = ("all",)) -> dict:
    """Build one instance, solve it exactly, and run the engine for ``oracles`` on each part."""
    kw = dict(params)
    if chain is not None:
        kw["chain"] = chain
    inst, ref = instance_and_reference(family, kw)
    eng = Engine(inst.problem, ref.u)
    out = {"realized": inst.realized, "targets": inst.targets, "n": inst.problem.n,
           "chain_length": inst.params.get("chain_length"), "k_eps": inst.params.get("k_eps"),
           "variables": inst.problem.layout.size, "kkt_residual": ref.kkt_residual, "bounds": {}}
    for part in parts:
        for o in oracles:
            if o not in eng.available():
                continue
            key = o if part == "all" else f"{o}@{part}"
            e0 = eng.lower_bound(o, 0.0, max_steps=0, part=part).errors[0]
            if e0 <= 0:
                out["bounds"][key] = {"e0": 0.0, "count1": 0, "count2": 0, "reason": "x* reachable with zero rounds"}
                continue
            head = eng.lower_bound(o, e0 * EPS1_REL, part=part)
            c1 = head.count
            e1 = head.errors[c1] if c1 is not None else e0 * EPS1_REL
            lb = eng.lower_bound(o, min(e1 * LB_WINDOW, min(ABS_LEVELS)), part=part)
            if o == Oracle.GRAD:
                # Definition def:foda as written: ∇f_i* allowed in every counted round (engine.lower_bound)
                cj = eng.lower_bound(o, e1 * LB_WINDOW, part=part, conjugate=True)
                out["bounds"]["grad+conj" if part == "all" else f"grad+conj@{part}"] = {
                    "e0": e0, "count1": cj.count_to(e0 * EPS1_REL), "count2": cj.count, "reason": cj.reason}
            out["bounds"][key] = {"e0": e0, "e1": e1, "count1": c1, "count2": lb.count_to(e1 * LB_WINDOW),
                                  "reason": lb.reason,
                                  # counts at absolute relative-error levels: the solvers' counts to the
                                  # same ε must never be smaller (self-consistency, mixbounds.checks.rates)
                                  "abs": {f"{eps:g}": lb.count_to(eps) for eps in ABS_LEVELS}}
    return out


#: classes whose constructions are direct sums of an x part and an x̃ part (bounds are also run per part)
_SUM_CLASSES = (ProblemClass.MIXED, ProblemClass.MIXED_IDENT)


def best_bound(bounds: dict, oracle: str) -> tuple[str | None, dict | None, int | None]:
    """``(key, bound, per-accuracy count)`` of the largest per-accuracy bound for ``oracle`` over the whole
    instance and its parts (keys ``oracle``, ``oracle@x``, ``oracle@xt``).

    A direct sum's lower bound is the larger of its parts' ("combination of lower bounds", sec. Mixed
    Constraints): a method's error on a part never exceeds its error on the whole, so every part's per-accuracy
    count bounds the whole's.  The whole's own count can be smaller than a part's (its window is anchored at the
    whole's error, where the other part's mass may dominate), and reading one fixed part understates the bound
    (as the suite once did for the mixed κ_f and κ_W communication bounds: x part only, while the x̃ part grew).
    """
    best = (None, None, None)
    for key in (oracle, f"{oracle}@x", f"{oracle}@xt"):
        b = bounds.get(key)
        if b is None:
            continue
        per = None if (b["count1"] is None or b["count2"] is None) else b["count2"] - b["count1"]
        if best[0] is None or (per is not None and (best[2] is None or per > best[2])):
            best = (key, b, per)
    return best


def solver_point_task(sw: Sweep, value: float) -> Task:
    """The engine's task at a solver sweep point (same instance; the tight non-gradient oracles of the class's
    Table 1 cells): the rates and the benchmarks compare their counts with it."""
    oracles = sorted({c.oracle for c in cells_of(sw.cls) if c.tight and c.oracle != Oracle.GRAD})
    return _task(sw, value, oracles)


def _task(sw: Sweep, value: float, oracles, chain=None) -> Task:
    params = sw.point_params(value)
    params.setdefault("eps", EPS_INSTANCE)  # the instance of the solvers' sweep point (mixbounds.checks.rates.upper_point)
    kw = {"family": sw.family, "params": params, "oracles": sorted(oracles)}
    if sw.cls in _SUM_CLASSES and not sw.family.endswith("-grad"):
        kw["parts"] = ["all", "x", "xt"]
    if chain is not None:
        kw["chain"] = chain
    return Task(lower_point, kw, label=f"LB {sw.family}[{sw.variant or 'printed'}] {sw.param}={value:g}")


# ----------------------------------------------------------------------------- the class bounded
def class_bounded(oracle: str) -> str:
    """The class of methods an engine bound on a printed construction holds for: the gradient bounds of the
    sum-trick families hold for def:foda without ∇f_i* (one call ∇(f_i + h_i)*(0) fills the chain,
    :func:`mixbounds.checks.lower.constructions.foda_result`); the matrix and communication bounds leave ∇f_i and
    ∇f_i* free, i.e. hold for def:foda as written."""
    if oracle == Oracle.GRAD:
        return "def:foda without ∇f_i* (primal gradients; ∇f_i* collapses the sum-trick chain)"
    return "def:foda (∇f_i and ∇f_i* free)"


# ----------------------------------------------------------------------------- verdicts
def _result_id(cell_id: str, param: str, variant: str | None) -> str:
    return with_variant(f"{cell_id}.{param}.lower", variant)


def weaker_bound_finding(cell, rid: str, param: str, sw: Sweep, slope: float, ci, target: float, tol: float, rows: list,
                         xs: list) -> tuple:
    """A lower bound that grows more slowly than the claimed tight rate (slope below the formula slope − tol) is
    a finding about the construction: it proves a weaker bound than the paper says."""
    theory = cell.exponent(param)
    if not slope < target - tol:
        return ()
    return (Finding(
        id=f"finding:{rid}", label=cell.lower_source or cell.source,
        statement=f"{cell.id}: lower bound grows like {param}^{theory:g} (claimed tight)",
        printed=theory, measured=round(slope, 4),
        detail=(f"Per-accuracy engine lower bound on the {sw.family} construction ({sw.variant or 'printed'}) grows with slope "
                f"{slope:.3f} (95% CI {ci[0]:.3f}..{ci[1]:.3f}) in realized {param}, not {target:.3f}; counts "
                f"{[r.per_accuracy for r in rows]} at {param} = {[round(x, 3) for x in xs]}."),
        source=rid),)


#: the fields of a lower-bound sweep point in results.json, in order (:class:`mixbounds.checks.run.sweep_point.SweepPoint`)
POINT_FIELDS = ("part", "target", "realized", "e0", "count1", "count2", "per_accuracy", "reason", "n", "chain_length",
                "realized_all")


def screen(param: str, oracle: str):
    """Why an engine point cannot be judged: an exception, or no bound for the oracle."""

    def rule(v: float, p: dict) -> Unjudged | None:
        if "error" in p:
            return Unjudged(v, f"{param}={v:g}: {p['error']}")
        if best_bound(p["bounds"], oracle)[1] is None:
            return Unjudged(v, f"{param}={v:g}: oracle {oracle} absent")
        return None

    return rule


def sweep_point(param: str, oracle: str):
    """The :class:`SweepPoint` of one engine point: the largest per-accuracy bound over the whole and its parts."""

    def row(v: float, p: dict) -> SweepPoint:
        key, b, per = best_bound(p["bounds"], oracle)
        return SweepPoint(POINT_FIELDS, part="all" if "@" not in key else key.split("@")[1], target=v,
                          realized=p["realized"].get(PARAM_REALIZED[param]), e0=b["e0"], count1=b["count1"],
                          count2=b["count2"], per_accuracy=per, reason=b["reason"], n=p["n"],
                          chain_length=p["chain_length"], realized_all=p["realized"])

    return row


def _unjudged_error(unjudged: list, rows: list) -> Stop | None:
    """An engine point that failed makes the verdict ``error`` (controls included: the engine itself failed)."""
    return Stop("error", "; ".join(u.why for u in unjudged)) if unjudged else None


def _reached(control: bool):
    """Every point must have reached the window's end; otherwise the construction gives no bound there."""

    def select(rows: list[SweepPoint]) -> Selection | Stop:
        if any(r.per_accuracy is None for r in rows):
            why = "; ".join(f"{r.target:g}: {r.reason}" for r in rows if r.per_accuracy is None)
            return Stop("fail" if control else "finding", f"engine did not reach ε at some points ({why})")
        return Selection(rows)

    return select


def _bound_fit(cell, param: str, sw: Sweep, rid: str, control: bool):
    """The slope of the per-accuracy bounds: 0 when they are all equal; a zero bound at some point (no lower bound
    there) has no slope and is a finding about the construction (``fail`` for an absent parameter or a control)."""
    theory = cell.exponent(param)

    def fit(rows: list[SweepPoint]) -> Fit | Stop:
        per = [r.per_accuracy for r in rows]
        xs = [r.realized for r in rows]
        if all(p == per[0] for p in per):
            return Fit(0.0, (0.0, 0.0), float("nan"), {})
        if min(per) <= 0:
            st = "fail" if (control or theory == 0) else "finding"
            fnd = () if st == "fail" else (Finding(
                id=f"finding:{rid}", label=cell.lower_source or cell.source,
                statement=f"{cell.id}: lower bound grows like {param}^{theory:g} (claimed tight)", printed=theory,
                measured=f"per-accuracy counts {per}",
                detail=(f"The {sw.family} construction ({sw.variant or 'printed'}) needs no {cell.oracle} rounds at "
                        f"some sweep points: per-accuracy engine counts {per} at {param} = "
                        f"{[round(x, 3) for x in xs]}."),
                source=rid),)
            return Stop(st, f"per-accuracy counts {per} contain zeros: no slope", findings=fnd)
        return Fit.of(fit_slope(xs, [max(p, 1e-12) for p in per]))

    return fit


def slope_verdict(tier: Tier, cell, param, sw, pts, *, control=False, rid=None) -> CheckResult:
    """The lower-bound slope verdict of one sweep, by :func:`judge_sweep` (module docstring): within
    ``[formula slope − tol, claimed exponent + tol]`` passes, below is the weaker-bound finding, above fails."""
    theory = cell.exponent(param)
    # the engine is exact: the slack covers integer counts and the staircase n(κ_W) = 3m of the tuned path graph
    tol = tier.table1.lower_slope_tol
    rid = rid or _result_id(cell.id, param, sw.variant)

    def judge(f: Fit, sel: Selection, _unjudged) -> Judgement:
        rows = sel.rows
        fslope = formula_slope(cell, param, [r.realized_all for r in rows]) if theory > 0 else 0.0
        target = fslope if theory > 0 else 0.0
        # The formula slope weights the printed sum's terms with unit constants.  The constants are not
        # printed: with any positive constants the local slope of a sum of monomials lies between the
        # exponents of its terms, so a bound may grow up to the claimed exponent `theory` (e.g. a
        # construction that isolates the √κ̂_C̃ term of T1.mixed.comm: engine slope 0.520 where the
        # unit-constant formula gives 0.318 over the quick grid).  Below the formula slope is a finding
        # (a weaker bound than claimed), above `theory` a failure.
        findings: tuple = ()
        if between_ok(f.slope, target, max(target, theory), tol):
            status = "pass"
        elif control:
            status = "fail"
        else:
            findings = weaker_bound_finding(cell, rid, param, sw, f.slope, f.ci, target, tol, rows,
                                            [r.realized for r in rows])
            status = "finding" if findings else "fail"
        detail = (f"slope {f.slope:.3f} vs claimed {theory:g} (formula slope over the grid {fslope:.3f}), tol {tol}; "
                  f"per-accuracy counts {[r.per_accuracy for r in rows]}; bounds every method of "
                  f"{class_bounded(cell.oracle)}")
        return Judgement(status, detail, {"formula_slope": fslope}, findings)

    rules = SweepRules(screen=screen(param, cell.oracle), row=sweep_point(param, cell.oracle), judge=judge,
                       unjudged=_unjudged_error, select=_reached(control),
                       fit=_bound_fit(cell, param, sw, rid, control))
    inst = {"family": sw.family, "variant": sw.variant or "printed", "base": sw.base, "param": param,
            "class": class_bounded(cell.oracle),
            "eps_levels": {"head_cut": EPS1_REL, "window": LB_WINDOW},
            "part": "max(whole, x part, x̃ part)" if sw.cls in _SUM_CLASSES and not sw.family.endswith("-grad") else "all"}
    return judge_sweep(rid, pts, rules, control=control, kind="lower", theory=theory, tolerance=tol,
                       label=cell.lower_source, cell=cell.id, param=param, instance=inst,
                       expected="fail" if control else None,
                       variant=None if sw.variant in (None, "printed") else sw.variant)
