"""Upper-bound rate checks: every Table 1 cell × every parameter of its class.

For each problem class, each parameter of its Table 1 row is swept alone (the
others at the base point, :mod:`mixbounds.checks.sweeps`) on

* the class's **worst-case construction** (as printed) — verdict against the claim:
  ``tight``: ``|slope − θ| <= tol`` (θ = the cell's exponent, or for a sum of
  monomials the formula's log-log slope along the realized points);
  ``absent`` (θ = 0): ``|slope| <= tol``;
* one **random family** — ``upper``: ``slope <= θ + tol`` (an upper bound only); a pass whose 95% CI lies
  wholly below ``θ − tol`` is labelled ``upper holds, not exercised`` (``verdict_label``,
  :func:`mixbounds.checks.verdict.upper_label`): the family does not come near the bound there; a slope above
  ``θ + tol`` passes, labelled ``upper holds by dominance``, only when the class's worst-case construction, swept
  over the same parameter in the same run, passes against the same exponent and the family's count per unit of
  the formula stays at or below the construction's at every point (:mod:`mixbounds.checks.dominance`: a family
  approaching the bound from below, which a slope over a finite range reads as a violation);
* the **PEP worst cases** (``…@pep-worst``, the third series, :mod:`mixbounds.checks.pep.series`): at every
  point of the PEP sweeps (``Tier.pep``: consensus and coupled, the shared class in the full tier; κ_f and κ_W
  on a path of 3 nodes) the worst case of APAPC's one-step Lyapunov contraction over ``F(μ_f, L_f)`` — over
  quadratic ``f_i`` where the class's worst case is not quadratic (always for the shared class; each result
  says which) — built as an instance and judged as the random families are.  The sweep points are the
  certificates' own tasks (:func:`mixbounds.checks.pep.registry.certificate_task`: one SDP for both).  Not
  swept there: κ_A and κ̂_{C̃ᵀ} (the PEP's blocks are fixed scalars).

The measured quantity is the per-accuracy cost between ``ε₁`` and ``ε₂`` (rate-based,
see :func:`upper_point`) of the paper's optimal method (``mixbounds.solvers.solve``, APAPC with Chebyshev acceleration) for
the cell's oracle, fitted in log-log against the *realized* swept parameter.
A point whose solver did not converge is an ``error``, never a count.  Every
point also checks realized against target (the family's stated tolerance).

On the worst-case sweeps the same points run through the lower-bound engine
(the very tasks of :mod:`mixbounds.checks.lower.slopes`, shared), which gives two more records per
sweep: ``…consistency.<param>`` (no solver count may be below the engine's bound at
the same ε: ``fail`` otherwise) and, in each upper result's ``extra``, the
tightness ratio (solver / bound, per decade of accuracy) and its slope.
"""

from __future__ import annotations

import math
from dataclasses import replace

from mixbounds.bounds.claims import get
from mixbounds.bounds.concepts import ORACLES, ProblemClass
from mixbounds.bounds.result_id import cell_result_id
from mixbounds.checks.dominance import dominance
from mixbounds.checks.lower.slopes import LB_DECADES, best_bound
from mixbounds.checks.lower.slopes import solver_point_task as _lb_task
from mixbounds.checks.pep import registry as pep
from mixbounds.checks.pep.points import rate_key
from mixbounds.checks.rate_measure import MAX_ITER, rate_point
from mixbounds.checks.run.framework import Check, Task, instance_and_reference
from mixbounds.checks.run.result import CheckResult
from mixbounds.checks.run.sweep_point import SweepPoint
from mixbounds.checks.sweeps import (
    ABS_LEVELS,
    CLASS_FAMILIES,
    NONQUADRATIC,
    PARAM_REALIZED,
    UB_EPS1,
    UB_EPS2,
    Sweep,
    cells_of,
    fit_integrity,
    fit_slope,
    formula_slope,
    random_sweeps,
    series_name,
    worst_sweeps,
)
from mixbounds.checks.tiers import Tier
from mixbounds.checks.verdict import DOMINATED, NOT_EXERCISED, band_ok, finite, upper_label, upper_ok
from mixbounds.checks.verdict_engine import (
    Fit,
    Judgement,
    Selection,
    SweepRules,
    Unjudged,
    consistency,
    integrity_stop,
    judge_sweep,
)
from mixbounds.instances.classes import WORST_FAMILY
from mixbounds.instances.reference.kkt import KKT_RTOL

#: realized vs target for a sweep parameter (the families tune to 1e-6 or better, the worst-case
#: κ̂/κ̃ to about 1e-3 because of the chain truncation)
TARGET_RTOL = 5e-3
#: largest relative change of a per-accuracy count when the chain is doubled (truncation check)
TRUNC_RTOL = 0.02

# ----------------------------------------------------------------------------- task
def upper_point(family: str, params: dict, method: str = "apapc", eps1: float = UB_EPS1, eps2: float = UB_EPS2,
                max_iter: int = MAX_ITER) -> dict:
    """Build one instance, solve it exactly (:func:`mixbounds.instances.reference.kkt.reference_solution`: one KKT
    solve for a quadratic, equality-constrained Newton otherwise, relative KKT residual ``<= KKT_RTOL`` = 1e-9 or an
    error — recorded as ``reference``) and with ``method``; the per-accuracy cost between ``eps1`` and ``eps2``
    (:func:`mixbounds.checks.rate_measure.rate_point`, which says why the cost is rate-based)."""
    kw = dict(params)
    if family in WORST_FAMILY.values():
        kw.setdefault("eps", eps2)
    inst, ref = instance_and_reference(family, kw)
    out = rate_point(inst, ref.u, method=method, eps1=eps1, eps2=eps2, max_iter=max_iter)
    # the certified reference (a KKT solve independent of the method judged; its residual <= KKT_RTOL or no point)
    out["reference"] = {"method": ref.method, "kkt_residual": ref.kkt_residual, "kkt_rtol": KKT_RTOL,
                        "objective": inst.problem.objective.describe().get("type")}
    return out


def rate_task(sw: Sweep, value: float, method: str = "apapc", budget: int = MAX_ITER, chain_scale: float = 1.0) -> Task:
    """The upper-bound task of sweep ``sw`` at parameter value ``value``: ``method`` run with ``budget`` iterations on a chain scaled by ``chain_scale``."""
    params = sw.point_params(value)
    if chain_scale != 1.0:
        params["chain_scale"] = chain_scale
    kw = {"family": sw.family, "params": params, "method": method, "max_iter": budget}
    return Task(upper_point, kw, label=f"UB {sw.family}[{sw.variant or 'printed'}] {sw.param}={value:g} {method}")


# ----------------------------------------------------------------------------- verdicts
#: the fields of a Table 1 sweep point in results.json, in order (:class:`mixbounds.checks.run.sweep_point.SweepPoint`)
POINT_FIELDS = ("target", "realized", "per_accuracy", "count1", "count2", "per_iteration", "iterations_window",
                "iterations", "settle", "n", "chain_length", "variables", "degrees", "realized_all", "target_rel_err")


def screen(param: str):
    """Why a rate point cannot be judged: an exception, the counter audit, the convergence guard, a solver that did
    not converge, or no per-accuracy window (:func:`upper_point`)."""

    def rule(v: float, p: dict) -> Unjudged | None:
        if "error" in p:
            why = p["error"]
        elif "counter_audit_error" in p:
            why = f"counter audit: {p['counter_audit_error']}"
        elif "convergence_error" in p:
            why = f"convergence guard: {p['convergence_error']}"
        elif not p["converged"]:
            why = (f"solver did not converge ({p['reason']}, {p['iterations']} iterations, "
                   f"final error {p['final_error']:.2e})")
        elif "per_accuracy" not in p:
            why = p.get("window_error", "no per-accuracy cost")
        else:
            return None
        return Unjudged(v, f"{param}={v:g}: {why}")

    return rule


def sweep_point(param: str, oracle: str):
    """The :class:`SweepPoint` of one judged rate point for ``oracle`` along ``param``."""

    def row(v: float, p: dict) -> SweepPoint:
        real = p["realized"].get(PARAM_REALIZED[param])
        return SweepPoint(POINT_FIELDS, target=v, realized=real, per_accuracy=p["per_accuracy"][oracle],
                          count1=p["counts1"][oracle], count2=p["counts2"][oracle],
                          per_iteration=p["per_iteration"][oracle], iterations_window=p["iterations_window"],
                          iterations=p["iterations"], settle=p["settle"], n=p["n"], chain_length=p.get("chain_length"),
                          variables=p["variables"], degrees=p["solver"].get("degrees"), realized_all=p["realized"],
                          target_rel_err=abs(real / v - 1) if real else None)

    return row


def verdict(tier: Tier, cell, param: str, sw: Sweep, pts, *, random: bool, theory_shift: float = 0.0,
            control: bool = False, rid: str | None = None, lb_pts=None, worst=None) -> CheckResult:
    """The slope verdict of one (cell, parameter) sweep (see module docstring), by :func:`judge_sweep`: tight and
    absent cells ``|slope − target| <= tol``, upper-bound cells and random families ``slope <= target + tol``
    (target: the formula's slope along the realized points, plus ``theory_shift``); on the worst-case sweeps the
    tightness ratios against the engine's bound (:func:`tightness_extra`) join ``extra``.

    ``worst``: for a random family, ``(sweep, points)`` of the worst-case construction's sweep of the same parameter
    in the same run.  A slope above ``target + tol`` then passes, labelled :data:`DOMINATED`, when the construction's
    own verdict against the same exponent passes and the family's count per unit of the formula stays at or below
    the construction's at every point (:func:`mixbounds.checks.dominance.dominance`); ``extra["dominance"]`` says
    which, either way."""
    theory = cell.exponent(param) + theory_shift
    tol = tier.table1.slope_tol  # |slope − θ| (tight, absent) or slope − θ (upper) allowed
    # a worst-case sweep of a cell the paper calls tight is judged two-sided; the random families (and any cell the
    # paper does not call tight) one-sided, with the label NOT_EXERCISED when the slope lies far below the bound
    kind = "absent" if theory <= 0 and not random else ("tight" if cell.tight and not random else "upper")
    variant = series_name(sw.family, sw.extra.get("objective")) if random else \
        (None if sw.variant in (None, "printed") else sw.variant)
    if rid is None:
        rid = cell_result_id(cell.id, param, kind if not random else ('upper' if cell.exponent(param) > 0 else 'absent'),
                             variant)
    upper = kind == "upper" or random

    def judge(f: Fit, sel: Selection, _unjudged) -> Judgement:
        rows = sel.rows
        xs, ys = [r.realized for r in rows], [r.per_accuracy for r in rows]
        if min(ys) <= 0:
            fit = {"used": 0, "of": len(sw.grid),
                   "reason": f"no fit: per-accuracy {cell.oracle} counts {ys} contain zeros"}
        else:
            fit = {"used": int(f.raw["n"]), "of": len(sw.grid), "reason": None}
        fslope = theory_shift
        if cell.exponent(param) > 0:
            fslope += formula_slope(cell, param, [r.realized_all for r in rows])
        ok = finite(f.slope) and (upper_ok if upper else band_ok)(f.slope, fslope, tol)
        extra = {"formula_slope": fslope, "exponent": cell.exponent(param), "fit": fit}
        status = "pass" if ok else "fail"
        label = upper_label(status, f.ci, fslope, tol, control=control) if upper and fslope > 0 else None
        dom = None
        if not ok and random and worst is not None and fslope > 0 and finite(f.slope):
            wsw, wpts = worst
            dom = dominance(cell, param, [r.to_dict() for r in rows],
                            verdict(tier, cell, param, wsw, wpts, random=False, theory_shift=theory_shift))
            extra["dominance"] = dom.to_dict()
            if dom.holds:
                status, label = "pass", DOMINATED
        if upper and fslope > 0:
            extra["exercised"] = label != NOT_EXERCISED
            extra["exercise_threshold"] = fslope - tol
        if lb_pts is not None:
            extra.update(tightness_extra(cell, rows, lb_pts))
        shift = f" + {theory_shift:g}" if theory_shift else ""
        detail = (f"slope {f.slope:.3f} (95% CI {f.ci[0]:.3f}..{f.ci[1]:.3f}, R² {f.r2:.3f}) {'<=' if upper else '≈'} "
                  f"{fslope:.3f} ± {tol} [exponent {cell.exponent(param):g}{shift}]; "
                  f"per-accuracy {cell.oracle} counts {ys} at realized {param} {[round(x, 3) for x in xs]}; "
                  f"fit on {fit['used']} of {fit['of']} sweep points"
                  + (f" ({fit['reason']})" if fit["reason"] else "")
                  + (f"; {label}: the CI lies below {fslope - tol:.3f}" if label == NOT_EXERCISED else "")
                  + (f"; slope above {fslope + tol:.3f}, {dom.sentence()}" if dom is not None else ""))
        return Judgement(status, detail, extra, label=label)

    rules = SweepRules(screen=screen(param), row=sweep_point(param, cell.oracle), judge=judge, target_rtol=TARGET_RTOL,
                       integrity=integrity_stop(fit_integrity, len(sw.grid)))
    inst = {"family": sw.family, "variant": sw.variant or ("printed" if not random else "default"), "base": sw.base,
            "param": param, "eps": [UB_EPS1, UB_EPS2], "method": "apapc",
            "objective": sw.extra.get("objective", "quadratic")}
    return judge_sweep(rid, pts, rules, control=control, kind=kind, theory=theory, tolerance=tol, label=cell.source,
                       cell=cell.id, param=param, instance=inst, expected="fail" if control else None, variant=variant)


def tightness_extra(cell, rows: list[SweepPoint], lb_pts) -> dict:
    """Table 1's tightness rule: solver / lower bound, both per decade of accuracy, at each point, and its slope
    (the ``extra`` of a worst-case verdict; the certificates read it)."""
    ratios, xs = [], []
    for r, (v, lp) in zip(rows, lb_pts):
        b = None if "error" in lp else best_bound(lp["bounds"], cell.oracle)[1]
        if not b or b["count1"] is None or b["count2"] is None or b["count2"] - b["count1"] <= 0:
            ratios.append(None)
            continue
        ub = r.per_accuracy / math.log10(UB_EPS1 / UB_EPS2)
        lb = (b["count2"] - b["count1"]) / LB_DECADES
        ratios.append(ub / lb)
        xs.append(r.realized)
    ok = [q for q in ratios if q is not None]
    if len(ok) < 2:
        return {"tightness": ratios, "tightness_slope": None,
                "tightness_note": "no lower bound at (some) points: the construction gives none for this oracle"}
    f = fit_slope(xs, ok)
    return {"tightness": ratios, "tightness_slope": f["slope"], "tightness_ci": f["ci"]}


def truncation_check(tier, cls, param, sw, base_pt, long_pt) -> CheckResult:
    """Doubling the chain must not change the per-accuracy counts (common.py's chain rule)."""
    rid = f"T1.{cls}.truncation.{param}"
    common = dict(kind="truncation", theory=f"|Δ| <= {TRUNC_RTOL:g}", tolerance=TRUNC_RTOL, label="docs/design.md: chain dimensions",
                  cell=f"T1.{cls}", param=param, instance={"family": sw.family, "point": sw.grid[0]})
    for p in (base_pt, long_pt):
        if "error" in p or not p.get("converged") or "per_accuracy" not in p or _guarded(p):
            why = p.get("error") or _guarded(p) or p.get("window_error") or f"not converged ({p.get('reason')})"
            return CheckResult(id=rid, status="error", detail=why, **common)
    rows, worst = [], 0.0
    for o in ORACLES:
        a = base_pt["per_accuracy"][o]
        b = long_pt["per_accuracy"][o]
        if a == 0 and b == 0:
            continue
        d = abs(b - a) / max(abs(a), 1)
        worst = max(worst, d)
        rows.append({"oracle": o, "K": base_pt["chain_length"], "per_accuracy": a, "K2": long_pt["chain_length"], "per_accuracy_2K": b,
                     "rel_diff": d})
    status = "pass" if worst <= TRUNC_RTOL else "fail"
    return CheckResult(id=rid, status=status, measured=worst, points=rows,
                       detail=f"chain {base_pt['chain_length']} vs {long_pt['chain_length']}: largest relative change of a "
                              f"per-accuracy count {worst:.3%}", **common)


def _guarded(p: dict) -> str | None:
    """Why a point may not be judged (convergence guard, counter audit), or ``None``."""
    return p.get("convergence_error") or p.get("counter_audit_error")


def _rate_count_at(up: dict, oracle: str, key_eps: str):
    """A rate run's first-hit count of ``oracle`` to a level of :data:`ABS_LEVELS` (it records ε₁ and ε₂)."""
    eps = float(key_eps)
    return up["counts1" if eps == UB_EPS1 else "counts2"].get(oracle) if eps in ABS_LEVELS else None


def _consistency(tier, cls, param, sw, ub_pts, lb_pts) -> CheckResult:
    """No solver count to ε may be below the engine's lower bound to the same ε (:func:`consistency`)."""
    return consistency(f"T1.{cls}.consistency.{param}", param, {"apapc": ub_pts}, lb_pts,
                       judged=lambda up: "error" not in up and bool(up.get("converged")) and not _guarded(up),
                       count_at=_rate_count_at, what="point, oracle, ε", named=False,
                       label="lower-bound engine vs solver",
                       cell=f"T1.{cls}", instance={"family": sw.family, "variant": sw.variant or "printed"})


# ----------------------------------------------------------------------------- checks
def _worst_check(cls: str) -> Check:
    cells = cells_of(cls)

    def result_ids(tier):
        out = []
        for sw in worst_sweeps(tier, cls):
            for c in cells:
                out.append(cell_result_id(c.id, sw.param, 'tight' if c.exponent(sw.param) > 0 else 'absent'))
            out.append(f"T1.{cls}.consistency.{sw.param}")
            out.append(f"T1.{cls}.truncation.{sw.param}")
        return out

    def tasks(tier):
        out = []
        for sw in worst_sweeps(tier, cls):
            for v in sw.grid:
                out += [rate_task(sw, v), _lb_task(sw, v)]
            out.append(rate_task(sw, sw.grid[0], chain_scale=2.0))
        return out

    def finalize(tier, points):
        out = []
        for sw in worst_sweeps(tier, cls):
            ub = [(v, points[rate_task(sw, v).key]) for v in sw.grid]
            lb = [(v, points[_lb_task(sw, v).key]) for v in sw.grid]
            for c in cells:
                out.append(verdict(tier, c, sw.param, sw, ub, random=False, lb_pts=lb))
            out.append(_consistency(tier, cls, sw.param, sw, ub, lb))
            out.append(truncation_check(tier, cls, sw.param, sw, ub[0][1], points[rate_task(sw, sw.grid[0], chain_scale=2.0).key]))
        return out

    return Check(id=f"rates.{cls}.worst", family="rates", result_ids=result_ids, tasks=tasks, finalize=finalize,
                 description=f"APAPC+Chebyshev slopes on the {cls} worst-case construction")


def worst_of(tier: Tier, cls: str, param: str) -> Sweep | None:
    """The worst-case construction's sweep of ``param`` (as printed) that a random sweep of ``cls`` is compared with
    (:func:`mixbounds.checks.dominance.dominance`), or ``None`` when the class has none for it."""
    if cls not in WORST_FAMILY:  # the identical-C̃ classes have random families only
        return None
    return next((w for w in worst_sweeps(tier, cls) if w.param == param), None)


def _random_check(cls: str) -> Check:
    """The random family of ``cls``: its quadratic series (every parameter) and its non-quadratic one (log-cosh
    objectives with exact constants, the parameters ``Tier.table1.nonquadratic`` selects).  Each reads the worst-case
    construction's sweep of its parameter too (the same tasks as :func:`_worst_check`'s, computed once), for the
    dominance rule of :func:`verdict`."""
    cells = cells_of(cls)

    def sweeps(tier):
        return random_sweeps(tier, cls) + random_sweeps(tier, cls, NONQUADRATIC)

    def result_ids(tier):
        return [cell_result_id(c.id, sw.param, 'upper' if c.exponent(sw.param) > 0 else 'absent',
                               series_name(sw.family, sw.extra.get("objective")))
                for sw in sweeps(tier) for c in cells]

    def tasks(tier):
        own = [rate_task(sw, v) for sw in sweeps(tier) for v in sw.grid]
        worst = {w.param: w for sw in sweeps(tier) if (w := worst_of(tier, cls, sw.param)) is not None}
        return own + [rate_task(w, v) for w in worst.values() for v in w.grid]

    def finalize(tier, points):
        out = []
        for sw in sweeps(tier):
            ub = [(v, points[rate_task(sw, v).key]) for v in sw.grid]
            w = worst_of(tier, cls, sw.param)
            worst = None if w is None else (w, [(v, points[rate_task(w, v).key]) for v in w.grid])
            for c in cells:
                out.append(verdict(tier, c, sw.param, sw, ub, random=True, worst=worst))
        return out

    return Check(id=f"rates.{cls}.random", family="rates", result_ids=result_ids, tasks=tasks, finalize=finalize,
                 description=f"APAPC+Chebyshev slopes on the {CLASS_FAMILIES[cls][1]} family (quadratic and log-cosh)")


# ----------------------------------------------------------------------------- the PEP worst cases (third series)
#: the id suffix and family of the third series (:mod:`mixbounds.checks.pep.series`)
PEP_FAMILY = "pep-worst"
#: the series' negative control: its consensus κ_f sweep judged against the exponent lowered by ½ (κ_f absent from the
#: gradient count): the series measures a κ_f dependence, so that claim must fail.  APAPC without Chebyshev is no
#: control here (:data:`mixbounds.checks.pep.registry.RATE_METHODS`)
PEP_CONTROL_SHIFT = -0.5
PEP_CONTROL_ID = f"control.rates.exponent{PEP_CONTROL_SHIFT:+g}.T1.consensus.grad.kappa_f@pep-worst"


def pep_sweeps(tier: Tier) -> list[Sweep]:
    """The PEP sweeps of the tier's classes (``Tier.pep``) as Table 1 sweeps of family ``pep-worst``."""
    base = {"kappa_f": pep.FIXED_F, "kappa_W": pep.FIXED_W}
    return [Sweep(cls, PEP_FAMILY, p, base, tuple(pep.grid(tier, p)), eps=UB_EPS2)
            for cls in tier.pep.classes for p in ("kappa_f", "kappa_W")]


def _pep_points(sw: Sweep, points: dict) -> list[tuple[float, dict]]:
    return [(v, points[pep.certificate_task(sw.cls, sw.param, v).key]) for v in sw.grid]


def _series_summary(sw: Sweep, raw: list[tuple[float, dict]], method: str) -> tuple[str, list]:
    """What the instances of a PEP sweep are (the detail's preamble) and, per point, their provenance."""
    rows = []
    for v, p in raw:
        q = p.get(rate_key(method)) or {}
        rows.append({"target": v, **{k: q.get(k) for k in ("source", "rho_pep", "rho_pep_quadratic", "rho_instance",
                                                           "V1_difference", "residual", "D", "x_star_rel_diff")}})
    quad = sum(r["source"] == "quadratics" for r in rows)
    kind, n = pep.NETWORK
    src = ("the worst case over F(μ_f, L_f), quadratic" if quad == 0 else
           "the worst case over quadratic f_i (over F(μ_f, L_f) it is not quadratic)" if quad == len(rows) else
           f"the worst case over F(μ_f, L_f) (quadratic) at {len(rows) - quad} points and over quadratic f_i at "
           f"{quad} (there the class's worst case is not quadratic)")
    return (f"{method} on the one-step PEP worst cases of APAPC on the {kind} of {n} nodes, {src}; "), rows


def _pep_worst_verdict(tier: Tier, cell, sw: Sweep, points: dict, *, method: str = "apapc", control: bool = False,
                       theory_shift: float = 0.0, rid: str | None = None) -> CheckResult:
    raw = _pep_points(sw, points)
    skip = next((p["skipped"] for _, p in raw if "skipped" in p), None)
    rid = rid or cell_result_id(cell.id, sw.param, 'upper' if cell.exponent(sw.param) > 0 else 'absent', PEP_FAMILY)
    if skip:
        return CheckResult(id=rid, kind="upper", status="skipped", detail=skip, label=cell.source, cell=cell.id,
                           param=sw.param, control=control, variant=PEP_FAMILY)
    pts = [(v, p.get(rate_key(method)) or {"error": "no worst-case series point recorded"}) for v, p in raw]
    r = verdict(tier, cell, sw.param, sw, pts, random=True, control=control, theory_shift=theory_shift, rid=rid)
    pre, rows = _series_summary(sw, raw, method)
    return replace(r, detail=pre + r.detail, extra={**r.extra, "pep_worst": rows},
                   instance={**r.instance, "method": method, "network": list(pep.NETWORK)})


def _pep_worst_check() -> Check:
    """Table 1's third series: the PEP's worst cases as instances (:mod:`mixbounds.checks.pep.series`), judged as the
    random families are (an upper bound; ``upper holds, not exercised`` when far below), on the classes and κ
    ranges of ``Tier.pep``; the sweep points are the PEP certificates' own tasks (one SDP each)."""

    def result_ids(tier):
        return [cell_result_id(c.id, sw.param, 'upper' if c.exponent(sw.param) > 0 else 'absent', PEP_FAMILY)
                for sw in pep_sweeps(tier) for c in cells_of(sw.cls)]

    def tasks(tier):
        return [pep.certificate_task(sw.cls, sw.param, v) for sw in pep_sweeps(tier) for v in sw.grid]

    def finalize(tier, points):
        return [_pep_worst_verdict(tier, c, sw, points) for sw in pep_sweeps(tier) for c in cells_of(sw.cls)]

    return Check(id="rates.pep_worst", family="rates", result_ids=result_ids, tasks=tasks, finalize=finalize,
                 description="APAPC+Chebyshev slopes on the PEP worst cases (third series)")


def _pep_worst_control() -> Check:
    def sw_of(tier):
        return next(sw for sw in pep_sweeps(tier) if (sw.cls, sw.param) == (ProblemClass.CONSENSUS, "kappa_f"))

    def finalize(tier, points):
        return [_pep_worst_verdict(tier, get("T1.consensus.grad"), sw_of(tier), points, control=True,
                                   theory_shift=PEP_CONTROL_SHIFT, rid=PEP_CONTROL_ID)]

    return Check(id="control.rates.exponent.pep_worst", family="controls", result_ids=lambda t: [PEP_CONTROL_ID],
                 tasks=lambda t: [pep.certificate_task(ProblemClass.CONSENSUS, "kappa_f", v) for v in sw_of(t).grid],
                 finalize=finalize,
                 description="the PEP worst cases' κ_f slope must fail against an exponent lowered by ½")


def checks() -> list[Check]:
    out = []
    for cls, (worst, rnd, _) in CLASS_FAMILIES.items():
        if worst is not None:
            out.append(_worst_check(cls))
        out.append(_random_check(cls))
    out.append(_pep_worst_check())
    out.append(_pep_worst_control())
    return out
