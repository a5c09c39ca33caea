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
3. **decades**: the realized parameter spans at least :data:`MIN_DECADES` of the tier;
4. **exponent**: with a closed form, its asymptotic exponent (:mod:`mixbounds.checks.lower.asymptotic`) must equal
   the claimed one within :data:`ASYMPTOTIC_TOL`; without one, the fitted slope within the tier's
   ``lower.slope_band`` (the 95% CI inside the band in the full tier).  Below the claim: a ``finding`` (the construction carries a weaker
   bound) or, for a control, ``fail``; above: ``fail`` (a lower bound above the matching upper bound);
5. **cross-check** (closed form): the fit of the per-accuracy counts against the realized parameter, within
   the tier's band of the claim (its CI inside the band in the full tier, the rule of issue 34); a cross-check
   that misses in the quick tier is recorded, not judged (its grids start at κ = 10, where the local slope of
   ``1/arccosh(1 + s/2)`` is still ~5% below ½).

The result records what the certificates need (docs/design.md, "Record fields"): ``method_class``,
``construction``, ``exact`` ``{formula, matched, points}``, ``decades``, the exponent and its source.
"""

from __future__ import annotations

import math

from mixbounds.checks.lower.asymptotic import asymptotic_exponent, has_model
from mixbounds.checks.lower.exact import WINDOW_DECADES, XSTAR_RTOL
from mixbounds.checks.run.result import CheckResult, Finding
from mixbounds.checks.sweeps import PARAM_REALIZED, fit_slope
from mixbounds.checks.tiers import Tier

#: ``|closed-form asymptotic exponent − claimed exponent|`` allowed: the exponent is read at κ = 1e12…1e13, where the
#: ``+1`` of ``h = n/3 + 1`` still adds 5e-5
ASYMPTOTIC_TOL = 1e-3


def _decades(xs: list) -> float:
    ok = [x for x in xs if x and x > 0 and math.isfinite(x)]
    return math.log10(max(ok) / min(ok)) if len(ok) >= 2 else 0.0


def _band_ok(fit: dict, theory: float, tier: Tier) -> bool:
    """The fit within the tier's band of the claim: its whole 95% CI where the tier judges the cross-check (the full
    tier, ``min_decades`` ≥ 2.9), else the slope."""
    band = tier.lower.slope_band
    if fit.get("constant"):
        return abs(theory) <= band
    if _judges_cross_check(tier):
        lo, hi = fit["ci"]
        return bool(theory - band <= lo and hi <= theory + band)
    return bool(abs(fit["slope"] - theory) <= band)


def _judges_cross_check(tier: Tier) -> bool:
    """The cross-check decides only where the grid is asymptotic: the tiers whose sweeps start at κ = 100."""
    return tier.lower.base is not None


def judge(tier: Tier, cell, param: str, key: str, pts: list, *, rid: str, construction: str, method_class: str,
          model: tuple | None, base: dict, instance: dict, control: bool = False, variant: str | None = None) -> CheckResult:
    """One sweep's verdict (module docstring).

    ``key``: the bound's key in the points (``"comm"``, ``"grad+conj"``, …); ``model``: ``(construction key,
    oracle, part)`` of :mod:`~mixbounds.checks.lower.asymptotic` (``None``: no closed form); ``base``: the
    non-swept targets; ``construction``: ``printed`` / ``cited:<what>`` / ``variant:<name>``.
    """
    theory = cell.exponent(param)
    common = dict(kind="lower", theory=theory, tolerance=tier.lower.slope_band, label=cell.lower_source or cell.source,
                  cell=cell.id, param=param, instance=instance, control=control, expected="fail" if control else None,
                  variant=variant)
    rows, errs = [], []
    for v, p in pts:
        b = (p.get("bounds") or {}).get(key) if "error" not in p else None
        if b is None:
            errs.append(f"{param}={v:g}: {p.get('error', f'no {key} bound')}")
            continue
        ex = b.get("exact")
        rows.append({"target": v, "realized": p["realized"].get(PARAM_REALIZED[param]), "per_accuracy": b["per_accuracy"],
                     "per_decade": None if b["per_accuracy"] is None else b["per_accuracy"] / WINDOW_DECADES,
                     "e0": b["e0"], "c1": b["c1"], "n": p["n"], "chain_length": p["chain_length"],
                     "variables": p["variables"], "rounds_total": b["rounds_total"],
                     "matched": None if ex is None else ex["matched"], "points": None if ex is None else ex["points"],
                     "boundary": None if ex is None else ex["boundary"], "vertex_mismatch": b.get("vertex_mismatch"),
                     "x_star_deviation": p.get("x_star_deviation"), "x_star_judged": p.get("x_star_judged"),
                     "reference_error": p.get("reference_error"), "rho": p.get("rho"), "seconds": p.get("seconds"),
                     "realized_all": p["realized"], "targets": p["targets"],
                     "counts": None if ex is None else [(r["level"], r["engine"], r["formula"]) for r in ex["rows"]]})
    fields = {"method_class": method_class, "construction": construction}
    if errs:
        return CheckResult(id=rid, status="fail" if control else "error", points=rows, detail="; ".join(errs),
                           extra=fields, **common)
    if any(r["per_accuracy"] is None for r in rows):
        why = ", ".join(f"{r['target']:g}" for r in rows if r["per_accuracy"] is None)
        return CheckResult(id=rid, status="fail" if control else "error", points=rows, extra=fields, **common,
                           detail=f"the engine did not reach the window's end at {param} = {why}")
    closed = model is not None and all(r["matched"] is not None for r in rows) and has_model(*model)
    xs = [r["realized"] for r in rows]
    dec = _decades(xs)
    per = [r["per_accuracy"] for r in rows]
    fit = fit_slope(xs, [max(q, 1e-12) for q in per]) if min(per) > 0 else {"slope": 0.0 if len(set(per)) == 1 else
                                                                                   float("nan"), "ci": (0.0, 0.0),
                                                                                   "constant": len(set(per)) == 1, "r2": None}
    if len(set(per)) == 1:
        fit = dict(fit, slope=0.0, ci=(0.0, 0.0), constant=True)
    fields.update(decades=dec, fit={"slope": fit["slope"], "ci": fit["ci"]},
                  realized_vs_target=[[r["target"], r["realized"]] for r in rows])
    findings: tuple = ()
    if closed:
        matched, total = sum(r["matched"] for r in rows), sum(r["points"] for r in rows)
        vm = sum(r["vertex_mismatch"] or 0 for r in rows)
        judged = [r["x_star_deviation"] for r in rows if r["x_star_judged"] and r["x_star_deviation"] is not None]
        dev = max(judged, default=float("inf"))
        asym = asymptotic_exponent(*model, param, base)
        fields.update(exact={"formula": instance.get("formula", ""), "matched": matched, "points": total,
                             "boundary": sorted({b for r in rows for b in (r["boundary"] or [])}),
                             "vertex_mismatch": vm, "x_star_deviation": dev, "x_star_points_judged": len(judged),
                             "x_star_deviation_all": [r["x_star_deviation"] for r in rows]}, asymptotic_exponent=asym,
                      exponent_source="closed form")
        cross = _band_ok(fit, theory, tier)
        fields["cross_check"] = "pass" if cross else "miss"
        measured = asym
        if matched < total or vm or dev > XSTAR_RTOL:
            status = "fail"
            detail = (f"engine and closed form disagree: {matched}/{total} counts equal, {vm} vertices first reached in "
                      f"another round, x* deviation from the KKT solution {dev:.1e} at the {len(judged)} points it "
                      "resolves")
        elif asym > theory + ASYMPTOTIC_TOL:
            status, detail = "fail", f"closed-form exponent {asym:.4f} above the claimed {theory:g} (above the upper bound)"
        elif asym < theory - ASYMPTOTIC_TOL:
            status = "fail" if control else "finding"
            detail = f"closed-form exponent {asym:.4f} below the claimed {theory:g}: the construction carries a weaker bound"
            if not control:
                findings = (_weaker(cell, rid, param, asym, instance, per, xs),)
        elif dec < tier.lower.min_decades:
            status = "fail"
            detail = f"the sweep spans {dec:.2f} decades of {param}, fewer than {tier.lower.min_decades}"
        elif _judges_cross_check(tier) and not cross:
            status = "fail"
            detail = (f"cross-check: fitted slope {fit['slope']:.4f} (CI {fit['ci'][0]:.4f}..{fit['ci'][1]:.4f}) outside "
                      f"±{tier.lower.slope_band}")
        else:
            status = "pass"
            detail = f"exact at {matched}/{total} counts; closed-form exponent {asym:.4f} (claim {theory:g})"
        detail += (f"; fit {fit['slope']:.3f} (95% CI {fit['ci'][0]:.3f}..{fit['ci'][1]:.3f}) over {dec:.2f} decades, "
                   f"cross-check {fields['cross_check']}; per-accuracy counts {per}; {method_class}, {construction}")
    else:
        fields.update(exact=None, asymptotic_exponent=None, exponent_source="fit (no closed form)")
        measured = fit["slope"]
        band_ok = _band_ok(fit, theory, tier)
        if min(per) <= 0 and theory > 0:
            status = "fail" if control else "finding"
            detail = f"per-accuracy counts {per} contain zeros: the construction needs no {cell.oracle} rounds there"
            if not control:
                findings = (_weaker(cell, rid, param, 0.0, instance, per, xs),)
        elif dec < tier.lower.min_decades:
            status = "fail"
            detail = f"the sweep spans {dec:.2f} decades of {param}, fewer than {tier.lower.min_decades}"
        elif band_ok:
            status, detail = "pass", f"fitted slope {fit['slope']:.3f} within ±{tier.lower.slope_band} of {theory:g}"
        elif fit["slope"] < theory:
            status = "fail" if control else "finding"
            detail = f"fitted slope {fit['slope']:.3f} below the claimed {theory:g}"
            if not control:
                findings = (_weaker(cell, rid, param, fit["slope"], instance, per, xs),)
        else:
            status, detail = "fail", f"fitted slope {fit['slope']:.3f} above the claimed {theory:g}"
        detail += f"; no closed form (slope rule); per-accuracy counts {per}; {method_class}, {construction}"
    return CheckResult(id=rid, status=status, measured=measured, ci=tuple(fit["ci"]), r2=fit.get("r2"), points=rows,
                       detail=detail, findings=findings, extra=fields, **common)


def _weaker(cell, rid: str, param: str, exponent: float, instance: dict, per: list, xs: list) -> Finding:
    theory = cell.exponent(param)
    return Finding(id=f"finding:{rid}", label=cell.lower_source or cell.source,
                   statement=f"{cell.id}: lower bound grows like {param}^{theory:g} (claimed tight)", printed=theory,
                   measured=round(exponent, 4),
                   detail=(f"The {instance.get('family')} construction ({instance.get('variant')}) gives exponent "
                           f"{exponent:.3f} in {param}: per-accuracy engine counts {per} at {param} = "
                           f"{[round(x, 3) for x in xs]}."),
                   source=rid)
