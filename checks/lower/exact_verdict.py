"""The verdict of one lower-bound sweep: exact counts, decades, the closed form's exponent, the fit as cross-check.

A sweep varies one parameter of a construction (the others at the tier's base point) and each point carries the
engine's counts and, where the construction has a closed form, the closed-form counts
(:func:`mixbounds.checks.lower.exact.exact_point`).  Rules, in order:

1. every point was measured (an exception or an unreached accuracy: ``error``; a control: ``fail``);
2. **exact** (closed form): the engine's count equals the closed-form count at every level of every point
   (``±1`` only at a stated boundary, :data:`~mixbounds.checks.lower.exact.BOUNDARY_RTOL`), every mass-carrying
   vertex is first reached in the closed-form round, and the KKT solution is the closed form's to
   :data:`~mixbounds.checks.lower.exact.XSTAR_RTOL` at every point where it resolves the chain (at least one per
   sweep, :data:`~mixbounds.checks.lower.exact.XSTAR_RESOLVED`); otherwise ``fail`` (the engine, the instance or
   the formula is wrong);
3. **as built** (closed form): every point's instance is the asymptotic model's — path sizes, chain ratio, chain
   length, and the per-accuracy count within one chain index of the model's (:mod:`mixbounds.checks.lower.as_built`);
   otherwise ``fail``: the exponent below would be a model's, not the construction's;
4. **decades**: the realized parameter spans at least the tier's ``lower.min_decades``;
5. **exponent**: with a closed form, its asymptotic exponent (:mod:`mixbounds.checks.lower.asymptotic`) must equal
   the claimed one within :data:`ASYMPTOTIC_TOL`; without one, the fitted slope within the tier's
   ``lower.slope_band`` (the 95% CI inside the band in the full tier).  Below the claim: a ``finding`` (the construction carries a weaker
   bound) or, for a control, ``fail``; above: ``fail`` (a lower bound above the matching upper bound);
6. **fit** (closed form, every tier): the fit of the per-accuracy counts against the realized parameter lies in the
   closed form's band on this grid — the asymptotic exponent plus the grid's pre-asymptotic offset ``δ`` (the
   closed form's own slope over the sweep's targets), widened by what one chain index per point can move a fit
   (:func:`mixbounds.checks.lower.as_built.grid_band`); otherwise ``fail``.

The rules are those of the one verdict engine (:func:`mixbounds.checks.verdict_engine.judge_sweep`): rule 1 is its
screen and unjudged stages, the fit its fit stage, rules 2–6 named :class:`~mixbounds.checks.verdict_engine.Rule` s
of its judge stage (:data:`CLOSED_RULES`, :data:`SLOPE_RULES`), tried in order until one decides.

The result records what the certificates need (docs/design.md, "Record fields"): ``method_class``,
``construction``, ``exact`` ``{formula, matched, points}``, ``decades``, the exponent and its source.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

from mixbounds.checks.lower.as_built import conformance, grid_band
from mixbounds.checks.lower.asymptotic import asymptotic_exponent, has_model
from mixbounds.checks.lower.exact import WINDOW_DECADES, XSTAR_RTOL
from mixbounds.checks.run.result import CheckResult, Finding
from mixbounds.checks.sweeps import PARAM_REALIZED, fit_slope
from mixbounds.checks.tiers import Tier
from mixbounds.checks.verdict_engine import (
    Fit,
    Judgement,
    Rule,
    Stop,
    SweepRules,
    Unjudged,
    decide,
    default_unjudged,
    judge_sweep,
)

#: ``|closed-form asymptotic exponent − claimed exponent|`` allowed: the exponent is read at κ = 1e12…1e13, where the
#: ``+1`` of ``h = n/3 + 1`` still adds 5e-5
ASYMPTOTIC_TOL = 1e-3


@dataclass(frozen=True)
class ExactPoint:
    """One measured point of a lower-bound sweep as ``results.json`` writes it (the fields in this order)."""

    target: float
    realized: float | None
    per_accuracy: float | None
    per_decade: float | None
    e0: float | None
    c1: float | None
    n: int
    chain_length: int
    variables: int
    rounds_total: int | None
    matched: int | None  # counts equal to the closed form's (``None``: no closed form)
    points: int | None  # counts compared with the closed form
    boundary: list | None
    vertex_mismatch: int | None
    x_star_deviation: float | None
    x_star_judged: bool | None
    reference_error: float | None
    rho: float | None
    seconds: float | None
    realized_all: dict
    targets: dict
    as_built: dict | None
    counts: list | None  # ``(level, engine count, closed-form count)`` per level

    def to_dict(self) -> dict:
        """The point's fields by name, in order."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class ClosedForm:
    """Rules 2, 3 and 6's measurements on a sweep with a closed form: the counts compared with it, the KKT
    deviations judged, its asymptotic exponent, the as-built conformance (:func:`_as_built`) and its band on this
    grid (``in_band``: the fit lies in it)."""

    matched: int
    total: int
    vertex_mismatch: int
    judged: list
    deviation: float
    exponent: float
    built: dict
    band: dict
    in_band: bool
    judge_as_built: bool


@dataclass(frozen=True)
class ExactSweep:
    """What the rules read: the sweep's points, their fit and decades, the claim (``theory``) and, with a closed
    form, its :class:`ClosedForm`."""

    tier: Tier
    cell: object
    param: str
    rid: str
    xs: list
    per: list
    fit: dict
    decades: float
    instance: dict
    control: bool
    theory: float
    closed: ClosedForm | None = None


def _decades(xs: list) -> float:
    ok = [x for x in xs if x and x > 0 and math.isfinite(x)]
    return math.log10(max(ok) / min(ok)) if len(ok) >= 2 else 0.0


def _band_ok(fit: dict, theory: float, tier: Tier) -> bool:
    """A sweep without a closed form: the fit within the tier's band of the claim, its whole 95% CI in the tiers whose
    grids start in the asymptotic range (``lower.base`` set: the full tier, from κ = 100), else the slope."""
    band = tier.lower.slope_band
    if fit.get("constant"):
        return abs(theory) <= band
    if tier.lower.base is not None:
        lo, hi = fit["ci"]
        return bool(theory - band <= lo and hi <= theory + band)
    return bool(abs(fit["slope"] - theory) <= band)


# ----------------------------------------------------------------------------- rule 1 and the fit
def _screen(key: str, param: str):
    """Rule 1's screen: a point without the bound (an exception, a missing oracle) is unjudged."""

    def screen(v: float, p: dict) -> Unjudged | None:
        if "error" not in p and (p.get("bounds") or {}).get(key) is not None:
            return None
        return Unjudged(v, f"{param}={v:g}: {p.get('error', f'no {key} bound')}")

    return screen


def _row(key: str, param: str):
    """A screened point's record (:class:`ExactPoint`)."""

    def row(v: float, p: dict) -> ExactPoint:
        b = p["bounds"][key]
        ex = b.get("exact")
        return ExactPoint(
            target=v, realized=p["realized"].get(PARAM_REALIZED[param]), per_accuracy=b["per_accuracy"],
            per_decade=None if b["per_accuracy"] is None else b["per_accuracy"] / WINDOW_DECADES,
            e0=b["e0"], c1=b["c1"], n=p["n"], chain_length=p["chain_length"], variables=p["variables"],
            rounds_total=b["rounds_total"], matched=None if ex is None else ex["matched"],
            points=None if ex is None else ex["points"], boundary=None if ex is None else ex["boundary"],
            vertex_mismatch=b.get("vertex_mismatch"), x_star_deviation=p.get("x_star_deviation"),
            x_star_judged=p.get("x_star_judged"), reference_error=p.get("reference_error"), rho=p.get("rho"),
            seconds=p.get("seconds"), realized_all=p["realized"], targets=p["targets"], as_built=p.get("as_built"),
            counts=None if ex is None else [(r["level"], r["engine"], r["formula"]) for r in ex["rows"]])

    return row


def _unjudged(param: str, control: bool):
    """Rule 1: an unjudged point, then a point whose engine run did not reach the window's end."""
    first = default_unjudged(control)

    def rule(unjudged: list, rows: list) -> Stop | None:
        s = first(unjudged, rows)
        if s is not None or all(r.per_accuracy is not None for r in rows):
            return s
        why = ", ".join(f"{r.target:g}" for r in rows if r.per_accuracy is None)
        return Stop("fail" if control else "error", f"the engine did not reach the window's end at {param} = {why}")

    return rule


def _fit(rows: list) -> Fit:
    """The fit of the per-accuracy counts against the realized parameter (a constant sweep: slope 0; a zero count:
    no fit)."""
    xs, per = [r.realized for r in rows], [r.per_accuracy for r in rows]
    if len(set(per)) == 1:
        return Fit.of({"slope": 0.0, "ci": (0.0, 0.0), "constant": True, "r2": None})
    if min(per) > 0:
        return Fit.of(fit_slope(xs, per))
    return Fit.of({"slope": float("nan"), "ci": (0.0, 0.0), "constant": False, "r2": None})


# ----------------------------------------------------------------------------- the verdict
def judge(tier: Tier, cell, param: str, key: str, pts: list, *, rid: str, construction: str, method_class: str,
          model: tuple | None, base: dict, instance: dict, control: bool = False, variant: str | None = None,
          judge_as_built: bool = True, closed_rules: tuple | None = None,
          slope_rules: tuple | None = None) -> CheckResult:
    """One sweep's verdict (module docstring).

    ``key``: the bound's key in the points (``"comm"``, ``"grad+conj"``, …); ``model``: ``(construction key,
    oracle, part)`` of :mod:`~mixbounds.checks.lower.asymptotic` (``None``: no closed form); ``base``: the
    non-swept targets; ``construction``: ``printed`` / ``cited:<what>`` / ``variant:<name>``; ``judge_as_built``:
    ``False`` records rule 3 without judging it (the control that rule 6 alone catches a planted sizing defect);
    ``closed_rules`` / ``slope_rules``: the judge stage's rules (default :data:`CLOSED_RULES`, :data:`SLOPE_RULES`).
    """
    theory = cell.exponent(param)
    common = dict(kind="lower", theory=theory, tolerance=tier.lower.slope_band, label=cell.lower_source or cell.source,
                  cell=cell.id, param=param, instance=instance, expected="fail" if control else None, variant=variant)

    def last_stage(f: Fit, sel, unjudged) -> Judgement:
        rows = sel.rows
        xs, per = [r.realized for r in rows], [r.per_accuracy for r in rows]
        closed = model is not None and all(r.matched is not None for r in rows) and has_model(*model)
        form = _closed_form(model, param, base, rows, xs, f.slope, judge_as_built) if closed else None
        case = ExactSweep(tier, cell, param, rid, xs, per, f.raw, _decades(xs), instance, control, theory, form)
        recorded = {"decades": case.decades, "fit": {"slope": f.slope, "ci": f.raw["ci"]},
                    "realized_vs_target": [[r.target, r.realized] for r in rows]}
        if form is not None:
            j = decide(CLOSED_RULES if closed_rules is None else closed_rules, case)
            recorded.update(_closed_fields(form, rows, instance))
            detail, measured = j.detail + _closed_suffix(case), form.exponent
        else:
            j = decide(SLOPE_RULES if slope_rules is None else slope_rules, case)
            recorded.update(exact=None, asymptotic_exponent=None, exponent_source="fit (no closed form)")
            detail, measured = j.detail + f"; no closed form (slope rule); per-accuracy counts {per}", f.slope
        return Judgement(j.status, detail + f"; {method_class}, {construction}", extra=recorded,
                         findings=j.findings, measured=measured)

    rules = SweepRules(screen=_screen(key, param), row=_row(key, param), judge=last_stage,
                       unjudged=_unjudged(param, control), fit=_fit)
    return judge_sweep(rid, pts, rules, control=control,
                       extra={"method_class": method_class, "construction": construction}, **common)


def _as_built(model: tuple, rows: list) -> dict:
    """Rules 3 and 6's inputs: the conformance of every point and the model's counts (:mod:`.as_built`)."""
    per_point = [conformance(model, {"targets": r.targets, "as_built": r.as_built}, r.per_accuracy,
                             WINDOW_DECADES) for r in rows]
    bad = [f"{r.target:g}: {m}" for r, c in zip(rows, per_point) for m in c["mismatches"]]
    return {"mismatches": bad, "offsets": [c["offset"] for c in per_point],
            "model_counts": [c["model_count"] for c in per_point], "rounds": [c["rounds"] for c in per_point]}


def _closed_form(model: tuple, param: str, base: dict, rows: list, xs: list, slope: float,
                 judge_as_built: bool) -> ClosedForm:
    """Rules 2–6's measurements on a sweep with a closed form."""
    judged = [r.x_star_deviation for r in rows if r.x_star_judged and r.x_star_deviation is not None]
    asym = asymptotic_exponent(*model, param, base)
    built = _as_built(model, rows)
    band = grid_band(xs, built["model_counts"], built["rounds"], asym) if all(
        m is not None for m in built["model_counts"]) else {"judged": False, "slope": None, "offset": None,
                                                              "lo": None, "hi": None}
    return ClosedForm(matched=sum(r.matched for r in rows), total=sum(r.points for r in rows),
                      vertex_mismatch=sum(r.vertex_mismatch or 0 for r in rows), judged=judged,
                      deviation=max(judged, default=float("inf")), exponent=asym, built=built, band=band,
                      in_band=bool(band["judged"] and band["lo"] <= slope <= band["hi"]),
                      judge_as_built=judge_as_built)


def _closed_fields(c: ClosedForm, rows: list, instance: dict) -> dict:
    """What a closed-form verdict records (docs/design.md, "Record fields")."""
    return dict(exact={"formula": instance.get("formula", ""), "matched": c.matched, "points": c.total,
                       "boundary": sorted({b for r in rows for b in (r.boundary or [])}),
                       "vertex_mismatch": c.vertex_mismatch, "x_star_deviation": c.deviation,
                       "x_star_points_judged": len(c.judged),
                       "x_star_deviation_all": [r.x_star_deviation for r in rows]},
                asymptotic_exponent=c.exponent, exponent_source="closed form", as_built=c.built, grid_band=c.band,
                cross_check="pass" if c.in_band else "miss")


def _closed_suffix(s: ExactSweep) -> str:
    c, fit = s.closed, s.fit
    band = c.band
    grid_txt = "" if not band["judged"] else (f", band [{band['lo']:.3f}, {band['hi']:.3f}] = {c.exponent:.3f} "
                                              f"{band['offset']:+.3f} (offset on this grid) ± one index")
    return (f"; fit {fit['slope']:.3f} (95% CI {fit['ci'][0]:.3f}..{fit['ci'][1]:.3f}) over {s.decades:.2f} decades"
            f"{grid_txt}; per-accuracy counts {s.per}, model's {[round(m, 1) for m in c.built['model_counts']]}")


# ----------------------------------------------------------------------------- rules 2–6 with a closed form
def _exact(s: ExactSweep) -> Judgement | None:
    c = s.closed
    if c.matched < c.total or c.vertex_mismatch or c.deviation > XSTAR_RTOL:
        return Judgement("fail", f"engine and closed form disagree: {c.matched}/{c.total} counts equal, "
                                 f"{c.vertex_mismatch} vertices first reached in another round, x* deviation from the "
                                 f"KKT solution {c.deviation:.1e} at the {len(c.judged)} points it resolves")
    return None


def _as_built_rule(s: ExactSweep) -> Judgement | None:
    bad = s.closed.built["mismatches"]
    if bad and s.closed.judge_as_built:
        return Judgement("fail", "the construction as built is not the asymptotic model its exponent comes from: "
                         + "; ".join(bad[:4]) + (" …" if len(bad) > 4 else ""))
    return None


def _closed_above(s: ExactSweep) -> Judgement | None:
    asym = s.closed.exponent
    if asym > s.theory + ASYMPTOTIC_TOL:
        return Judgement("fail", f"closed-form exponent {asym:.4f} above the claimed {s.theory:g} (above the upper bound)")
    return None


def _closed_below(s: ExactSweep) -> Judgement | None:
    asym = s.closed.exponent
    if asym < s.theory - ASYMPTOTIC_TOL:
        return _weaker_judgement(s, asym, f"closed-form exponent {asym:.4f} below the claimed {s.theory:g}: the "
                                          "construction carries a weaker bound")
    return None


def _decades_rule(s: ExactSweep) -> Judgement | None:
    if s.decades < s.tier.lower.min_decades:
        return Judgement("fail", f"the sweep spans {s.decades:.2f} decades of {s.param}, fewer than "
                                 f"{s.tier.lower.min_decades}")
    return None


def _fit_band(s: ExactSweep) -> Judgement | None:
    c = s.closed
    if c.in_band:
        return None
    band = c.band
    return Judgement("fail", f"fitted slope {s.fit['slope']:.4f} outside the closed form's band on this grid "
                     + ("(one chain index is a whole count: the grid cannot read an exponent)" if not band["judged"] else
                        f"[{band['lo']:.4f}, {band['hi']:.4f}] (exponent {c.exponent:.4f}, pre-asymptotic offset "
                        f"{band['offset']:+.4f})"))


def _closed_pass(s: ExactSweep) -> Judgement:
    c = s.closed
    bad = c.built["mismatches"]
    built_txt = "as built at every point" if not bad else f"{len(bad)} as-built mismatches, not judged"
    return Judgement("pass", f"exact at {c.matched}/{c.total} counts; {built_txt}; closed-form exponent "
                             f"{c.exponent:.4f} (claim {s.theory:g})")


#: rules 2–6 with a closed form, in order (the first that decides is the verdict)
CLOSED_RULES = (Rule("exact", _exact), Rule("as built", _as_built_rule), Rule("exponent above", _closed_above),
                Rule("exponent below", _closed_below), Rule("decades", _decades_rule), Rule("fit band", _fit_band),
                Rule("pass", _closed_pass))


# ----------------------------------------------------------------------------- rules 4–5 without a closed form
def _zero_counts(s: ExactSweep) -> Judgement | None:
    if min(s.per) <= 0 and s.theory > 0:
        return _weaker_judgement(s, 0.0, f"per-accuracy counts {s.per} contain zeros: the construction needs no "
                                         f"{s.cell.oracle} rounds there")
    return None


def _slope_in_band(s: ExactSweep) -> Judgement | None:
    if _band_ok(s.fit, s.theory, s.tier):
        return Judgement("pass", f"fitted slope {s.fit['slope']:.3f} within ±{s.tier.lower.slope_band} of {s.theory:g}")
    return None


def _slope_below(s: ExactSweep) -> Judgement | None:
    if s.fit["slope"] < s.theory:
        return _weaker_judgement(s, s.fit["slope"], f"fitted slope {s.fit['slope']:.3f} below the claimed {s.theory:g}")
    return None


def _slope_above(s: ExactSweep) -> Judgement:
    return Judgement("fail", f"fitted slope {s.fit['slope']:.3f} above the claimed {s.theory:g}")


#: rules 4–5 without a closed form, in order
SLOPE_RULES = (Rule("zero counts", _zero_counts), Rule("decades", _decades_rule), Rule("slope in band", _slope_in_band),
               Rule("slope below", _slope_below), Rule("slope above", _slope_above))


def _weaker_judgement(s: ExactSweep, exponent: float, detail: str) -> Judgement:
    """Below the claim: a ``finding`` (the construction carries a weaker bound) or, for a control, ``fail``."""
    if s.control:
        return Judgement("fail", detail)
    return Judgement("finding", detail, findings=(_weaker(s.cell, s.rid, s.param, exponent, s.instance, s.per, s.xs),))


def _weaker(cell, rid: str, param: str, exponent: float, instance: dict, per: list, xs: list) -> Finding:
    theory = cell.exponent(param)
    return Finding(id=f"finding:{rid}", label=cell.lower_source or cell.source,
                   statement=f"{cell.id}: lower bound grows like {param}^{theory:g} (claimed tight)", printed=theory,
                   measured=round(exponent, 4),
                   detail=(f"The {instance.get('family')} construction ({instance.get('variant')}) gives exponent "
                           f"{exponent:.3f} in {param}: per-accuracy engine counts {per} at {param} = "
                           f"{[round(x, 3) for x in xs]}."),
                   source=rid)
