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

The result records what the certificates need (docs/design.md, "Record fields"): ``method_class``,
``construction``, ``exact`` ``{formula, matched, points}``, ``decades``, the exponent and its source.
"""

from __future__ import annotations

import math

from mixbounds.checks.lower.as_built import conformance, grid_band
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
    """A sweep without a closed form: the fit within the tier's band of the claim, its whole 95% CI in the tiers whose
    grids start in the asymptotic range (``lower.base`` set: the full tier, from κ = 100), else the slope."""
    band = tier.lower.slope_band
    if fit.get("constant"):
        return abs(theory) <= band
    if tier.lower.base is not None:
        lo, hi = fit["ci"]
        return bool(theory - band <= lo and hi <= theory + band)
    return bool(abs(fit["slope"] - theory) <= band)


def _rows(pts: list, key: str, param: str) -> tuple[list, list]:
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
                     "realized_all": p["realized"], "targets": p["targets"], "as_built": p.get("as_built"),
                     "counts": None if ex is None else [(r["level"], r["engine"], r["formula"]) for r in ex["rows"]]})
    return rows, errs


def _fit(xs: list, per: list) -> dict:
    if len(set(per)) == 1:
        return {"slope": 0.0, "ci": (0.0, 0.0), "constant": True, "r2": None}
    if min(per) > 0:
        return fit_slope(xs, per)
    return {"slope": float("nan"), "ci": (0.0, 0.0), "constant": False, "r2": None}


def judge(tier: Tier, cell, param: str, key: str, pts: list, *, rid: str, construction: str, method_class: str,
          model: tuple | None, base: dict, instance: dict, control: bool = False, variant: str | None = None,
          judge_as_built: bool = True) -> CheckResult:
    """One sweep's verdict (module docstring).

    ``key``: the bound's key in the points (``"comm"``, ``"grad+conj"``, …); ``model``: ``(construction key,
    oracle, part)`` of :mod:`~mixbounds.checks.lower.asymptotic` (``None``: no closed form); ``base``: the
    non-swept targets; ``construction``: ``printed`` / ``cited:<what>`` / ``variant:<name>``; ``judge_as_built``:
    ``False`` records rule 3 without judging it (the control that rule 6 alone catches a planted sizing defect).
    """
    theory = cell.exponent(param)
    common = dict(kind="lower", theory=theory, tolerance=tier.lower.slope_band, label=cell.lower_source or cell.source,
                  cell=cell.id, param=param, instance=instance, control=control, expected="fail" if control else None,
                  variant=variant)
    rows, errs = _rows(pts, key, param)
    fields = {"method_class": method_class, "construction": construction}
    if errs:
        return CheckResult(id=rid, status="fail" if control else "error", points=rows, detail="; ".join(errs),
                           extra=fields, **common)
    if any(r["per_accuracy"] is None for r in rows):
        why = ", ".join(f"{r['target']:g}" for r in rows if r["per_accuracy"] is None)
        return CheckResult(id=rid, status="fail" if control else "error", points=rows, extra=fields, **common,
                           detail=f"the engine did not reach the window's end at {param} = {why}")
    closed = model is not None and all(r["matched"] is not None for r in rows) and has_model(*model)
    xs, per = [r["realized"] for r in rows], [r["per_accuracy"] for r in rows]
    fit = _fit(xs, per)
    dec = _decades(xs)
    fields.update(decades=dec, fit={"slope": fit["slope"], "ci": fit["ci"]},
                  realized_vs_target=[[r["target"], r["realized"]] for r in rows])
    ctx = dict(tier=tier, cell=cell, param=param, rid=rid, rows=rows, xs=xs, per=per, fit=fit, dec=dec,
               instance=instance, control=control, fields=fields)
    if closed:
        status, detail, measured, findings = _closed(model=model, base=base, judge_as_built=judge_as_built, **ctx)
    else:
        status, detail, measured, findings = _slope_rule(**ctx)
    detail += f"; {method_class}, {construction}"
    return CheckResult(id=rid, status=status, measured=measured, ci=tuple(fit["ci"]), r2=fit.get("r2"), points=rows,
                       detail=detail, findings=findings, extra=fields, **common)


def _as_built(model: tuple, rows: list) -> dict:
    """Rules 3 and 6's inputs: the conformance of every point and the model's counts (:mod:`.as_built`)."""
    per_point = [conformance(model, {"targets": r["targets"], "as_built": r["as_built"]}, r["per_accuracy"],
                             WINDOW_DECADES) for r in rows]
    bad = [f"{r['target']:g}: {m}" for r, c in zip(rows, per_point) for m in c["mismatches"]]
    return {"mismatches": bad, "offsets": [c["offset"] for c in per_point],
            "model_counts": [c["model_count"] for c in per_point], "rounds": [c["rounds"] for c in per_point]}


def _closed(*, tier, cell, param, rid, rows, xs, per, fit, dec, instance, control, fields, model, base,
            judge_as_built) -> tuple:
    """Rules 2–6 with a closed form: ``(status, detail, measured exponent, findings)``."""
    theory = cell.exponent(param)
    matched, total = sum(r["matched"] for r in rows), sum(r["points"] for r in rows)
    vm = sum(r["vertex_mismatch"] or 0 for r in rows)
    judged = [r["x_star_deviation"] for r in rows if r["x_star_judged"] and r["x_star_deviation"] is not None]
    dev = max(judged, default=float("inf"))
    asym = asymptotic_exponent(*model, param, base)
    built = _as_built(model, rows)
    band = grid_band(xs, built["model_counts"], built["rounds"], asym) if all(
        m is not None for m in built["model_counts"]) else {"judged": False, "slope": None, "offset": None,
                                                              "lo": None, "hi": None}
    in_band = bool(band["judged"] and band["lo"] <= fit["slope"] <= band["hi"])
    fields.update(exact={"formula": instance.get("formula", ""), "matched": matched, "points": total,
                         "boundary": sorted({b for r in rows for b in (r["boundary"] or [])}),
                         "vertex_mismatch": vm, "x_star_deviation": dev, "x_star_points_judged": len(judged),
                         "x_star_deviation_all": [r["x_star_deviation"] for r in rows]}, asymptotic_exponent=asym,
                  exponent_source="closed form", as_built=built, grid_band=band,
                  cross_check="pass" if in_band else "miss")
    findings: tuple = ()
    if matched < total or vm or dev > XSTAR_RTOL:
        status = "fail"
        detail = (f"engine and closed form disagree: {matched}/{total} counts equal, {vm} vertices first reached in "
                  f"another round, x* deviation from the KKT solution {dev:.1e} at the {len(judged)} points it "
                  "resolves")
    elif built["mismatches"] and judge_as_built:
        status = "fail"
        detail = ("the construction as built is not the asymptotic model its exponent comes from: "
                  + "; ".join(built["mismatches"][:4]) + (" …" if len(built["mismatches"]) > 4 else ""))
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
    elif not in_band:
        status = "fail"
        detail = (f"fitted slope {fit['slope']:.4f} outside the closed form's band on this grid "
                  + ("(one chain index is a whole count: the grid cannot read an exponent)" if not band["judged"] else
                     f"[{band['lo']:.4f}, {band['hi']:.4f}] (exponent {asym:.4f}, pre-asymptotic offset "
                     f"{band['offset']:+.4f})"))
    else:
        status = "pass"
        built_txt = ("as built at every point" if not built["mismatches"] else
                     f"{len(built['mismatches'])} as-built mismatches, not judged")
        detail = f"exact at {matched}/{total} counts; {built_txt}; closed-form exponent {asym:.4f} (claim {theory:g})"
    grid_txt = "" if not band["judged"] else (f", band [{band['lo']:.3f}, {band['hi']:.3f}] = {asym:.3f} "
                                              f"{band['offset']:+.3f} (offset on this grid) ± one index")
    detail += (f"; fit {fit['slope']:.3f} (95% CI {fit['ci'][0]:.3f}..{fit['ci'][1]:.3f}) over {dec:.2f} decades"
               f"{grid_txt}; per-accuracy counts {per}, model's {[round(m, 1) for m in built['model_counts']]}")
    return status, detail, asym, findings


def _slope_rule(*, tier, cell, param, rid, rows, xs, per, fit, dec, instance, control, fields) -> tuple:
    """Rules 4–5 without a closed form: the fitted slope decides (``(status, detail, measured, findings)``)."""
    theory = cell.exponent(param)
    fields.update(exact=None, asymptotic_exponent=None, exponent_source="fit (no closed form)")
    findings: tuple = ()
    if min(per) <= 0 and theory > 0:
        status = "fail" if control else "finding"
        detail = f"per-accuracy counts {per} contain zeros: the construction needs no {cell.oracle} rounds there"
        if not control:
            findings = (_weaker(cell, rid, param, 0.0, instance, per, xs),)
    elif dec < tier.lower.min_decades:
        status = "fail"
        detail = f"the sweep spans {dec:.2f} decades of {param}, fewer than {tier.lower.min_decades}"
    elif _band_ok(fit, theory, tier):
        status, detail = "pass", f"fitted slope {fit['slope']:.3f} within ±{tier.lower.slope_band} of {theory:g}"
    elif fit["slope"] < theory:
        status = "fail" if control else "finding"
        detail = f"fitted slope {fit['slope']:.3f} below the claimed {theory:g}"
        if not control:
            findings = (_weaker(cell, rid, param, fit["slope"], instance, per, xs),)
    else:
        status, detail = "fail", f"fitted slope {fit['slope']:.3f} above the claimed {theory:g}"
    return status, detail + f"; no closed form (slope rule); per-accuracy counts {per}", fit["slope"], findings


def _weaker(cell, rid: str, param: str, exponent: float, instance: dict, per: list, xs: list) -> Finding:
    theory = cell.exponent(param)
    return Finding(id=f"finding:{rid}", label=cell.lower_source or cell.source,
                   statement=f"{cell.id}: lower bound grows like {param}^{theory:g} (claimed tight)", printed=theory,
                   measured=round(exponent, 4),
                   detail=(f"The {instance.get('family')} construction ({instance.get('variant')}) gives exponent "
                           f"{exponent:.3f} in {param}: per-accuracy engine counts {per} at {param} = "
                           f"{[round(x, 3) for x in xs]}."),
                   source=rid)
