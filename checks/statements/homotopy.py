"""Table 4 with a penalty homotopy: does restarting R-Sliding with the penalty doubled and ε halved remove the log?

Table 4 (``table:nonsmooth_strconv_optimization_constraints``) prints ``M_f/√(μ_f ε)`` for the matrix and
communication counts; the proof of ``thm:upper_bound_nonsmooth_affine_constraints`` part 2 fixes the penalty at
the target ε and gets ``√(L/μ) log(1/ε)``.  :mod:`mixbounds.solvers.homotopy_sliding` derives a homotopy whose cost
is ``O(√(L(ε)/μ))`` without the log.  This module measures both methods on the same instances, start,
``(ε, δ)``-criterion and accuracy grid (``x = M/√(μ ε)``: a slope 1 in x is ``ε^{-1/2}``):

* the Table 4 families (``Tier.statements.homotopy_classes``) on Table 4's own accuracy grid (``Tier.tables24``, the
  paper's points are the very tasks of the Table 4 sweeps, shared) cut at ``Tier.statements.homotopy_x_max`` (the
  homotopy's early phases cost ``O(x²)`` subgradient rounds): ``finding.T4.homotopy``;
* the generic problem of ``thm:upper_bound_nonsmooth_affine_constraints`` (:func:`mixbounds.instances.affine.sliding_hard`,
  μ = 1, cheap enough to go to x = 1000, where the paper's method has started to add restart phases):
  ``finding.S.sliding.strong.homotopy``.

Which points test the question.  The homotopy's cost is a geometric series over its phases only once it has raised
the penalty (a run that ends inside phase 0 is the fixed-penalty method with a smaller penalty, which the loose
multiplier bound ``R_dual`` lets reach ε early); the comparison therefore uses the points where the homotopy ran at
least :data:`REGIME_PHASES` phases (the penalty raised at least twice), both methods' counts fitted on the same
points, at least :data:`MIN_POINTS` of them per cell (a cell with fewer is listed as not measured).  The slopes on
the whole grid are readings too.

Verdict per experiment: ``finding`` (an improvement over the paper's proof, this suite's, as far as measured) when
on every measured cell the homotopy's slope is ``<= e + tol`` (e = 1, the printed exponent without the log) while the
paper's fixed penalty's is above it and the two 95% confidence intervals do not overlap (a difference of slopes
within the fits' noise is no rate); ``pass`` (no improvement measured: the proof's log stands) otherwise, with the
numbers; ``error`` when no cell has enough points.  Subgradient counts are readings (the gradient cell has no log in
the proof).

Negative controls (``….homotopy.planted``): exact series planted on the run's own grid and phases — ``x`` for the
homotopy (the derivation's rate) and ``x·ln²x`` for the fixed penalty — judged as the claim "no improvement": the
criterion must see the planted improvement, so the claim comes out ``fail`` (caught); a criterion that cannot report
an improvement leaves it ``pass`` (not caught).  With the measured outcome ``pass`` (no improvement), this is what
shows the experiment could have said otherwise.

Full tier only: the quick tier's grid (x <= 50) never takes the homotopy to its third phase on the Table 4 families
(measured phases 1, 1, 1, 1 on coupled, 1, 1, 1, 2 on shared), so it cannot answer the question; an earlier version
judged those points and reported slopes 0.69/0.79 against the fixed penalty's 1.43/1.49 — an artefact of the early
phase-0 hits that the full tier's grid did not confirm (the whole-grid slopes there: 1.01–1.32 against 1.34–1.38).
"""

from __future__ import annotations

import math

from mixbounds.bounds.concepts import Oracle
from mixbounds.checks.run.framework import Check
from mixbounds.checks.run.result import CheckResult, Finding, reading
from mixbounds.checks.statements.sliding_generic import sliding_task as generic_task
from mixbounds.checks.sweeps import fit_slope, geomspace
from mixbounds.checks.tables234.points import cells, sweep_task, sweeps
from mixbounds.checks.tiers import FULL, Tier
from mixbounds.checks.verdict import upper_ok

TABLE, PARAM = 4, "M_mu_eps"
MATRIX_ORACLES = (Oracle.A, Oracle.C, Oracle.CT, Oracle.COMM)
#: a point tests the homotopy once its run took at least this many phases (the penalty raised at least twice)
REGIME_PHASES = 3
#: points in that regime a cell needs to be measured
MIN_POINTS = 3
#: the printed exponent of the matrix and communication counts in x (Table 4 and the generic statement)
EXPONENT = 1.0
#: the generic experiment: μ of G and the statement it measures
GENERIC_MU = 1.0
LABEL = "thm:upper_bound_nonsmooth_affine_constraints"


def accuracy_points(tier: Tier, cls: str) -> list[tuple[dict, float]]:
    """``[(κ's, x)]`` of Table 4's accuracy sweep of ``cls`` with ``x <= homotopy_x_max`` (the same floats as the
    Table 4 sweep: shared tasks)."""
    pts = next(s for s in sweeps(tier, TABLE, cls) if s[0] == PARAM)[3]
    return [(q, x) for q, x in pts if x <= tier.statements.homotopy_x_max * (1 + 1e-12)]


def generic_grid(tier: Tier) -> list[float]:
    return geomspace(*tier.statements.homotopy_generic_x, tier.statements.points)


def compare(name: str, xs: list, paper: list, hom: list, oracles: tuple, tol: float) -> dict:
    """One cell per oracle: both methods' slopes on the whole grid and on the homotopy's regime points, and whether
    the homotopy meets the printed exponent where the fixed penalty does not (module docstring)."""
    bad = [f"x={x:g}: {'paper' if 'error' in p or not p.get('converged') else 'homotopy'} "
           f"{(p if 'error' in p or not p.get('converged') else h).get('error') or 'did not converge'}"
           for x, p, h in zip(xs, paper, hom) if any("error" in q or not q.get("converged") for q in (p, h))]
    if bad:
        return {"error": f"{name}: " + "; ".join(bad)}
    regime = [i for i, h in enumerate(hom) if (h.get("phases") or 0) >= REGIME_PHASES]
    out = {}
    for o in oracles:
        yp, yh = [p["per_accuracy"][o] for p in paper], [h["per_accuracy"][o] for h in hom]
        if min(yp + yh) <= 0:
            continue
        row = {"grid": xs, "paper_counts": yp, "homotopy_counts": yh, "phases": [h.get("phases") for h in hom],
               "paper_phases": [p.get("phases") for p in paper], "regime_x": [xs[i] for i in regime],
               "paper_slope_all": fit_slope(xs, yp)["slope"], "homotopy_slope_all": fit_slope(xs, yh)["slope"]}
        if len(regime) >= MIN_POINTS:
            fp = fit_slope([xs[i] for i in regime], [yp[i] for i in regime])
            fh = fit_slope([xs[i] for i in regime], [yh[i] for i in regime])
            separated = bool(fh["ci"][1] < fp["ci"][0])
            row.update(paper_slope=fp["slope"], paper_ci=fp["ci"], homotopy_slope=fh["slope"], homotopy_ci=fh["ci"],
                       separated=separated,
                       improved=bool(upper_ok(fh["slope"], EXPONENT, tol) and not upper_ok(fp["slope"], EXPONENT, tol)
                                     and separated))
        out[f"{name}.{o}"] = row
    return out


def _ci(ci) -> str:
    return f"{ci[0]:.2f}..{ci[1]:.2f}"


def judge(rid: str, rows: dict, tol: float, *, what: str, control: bool = False) -> CheckResult:
    """The experiment's verdict from :func:`compare`'s rows (module docstring); a control expects no improvement."""
    errors = [r["error"] for r in rows.values() if "error" in r]
    cells_ = {k: v for r in rows.values() if "error" not in r for k, v in r.items()}
    measured = {k: v for k, v in cells_.items() if "homotopy_slope" in v}
    unmeasured = sorted(set(cells_) - set(measured))
    common = dict(id=rid, kind="finding", label=LABEL, control=control, expected="fail" if control else None,
                  tolerance=tol, extra={"cells": cells_, "regime_phases": REGIME_PHASES, "min_points": MIN_POINTS})
    if errors or not measured:
        why = "; ".join(errors) if errors else (f"no cell has {MIN_POINTS} points where the homotopy ran "
                                                f">= {REGIME_PHASES} phases")
        return CheckResult(status="fail" if control else "error", detail=f"{what}: {why}", **common)
    table = "; ".join(f"{k}: homotopy {v['homotopy_slope']:.3f} (CI {_ci(v['homotopy_ci'])}), fixed penalty "
                      f"{v['paper_slope']:.3f} (CI {_ci(v['paper_ci'])}"
                      f"{'' if v['separated'] else ', intervals overlap'}) on x = "
                      f"{[round(x, 1) for x in v['regime_x']]}" for k, v in measured.items())
    ratio = "; ".join(f"{k}: {min(h / p for h, p in zip(v['homotopy_counts'], v['paper_counts'])):.2f}–"
                      f"{max(h / p for h, p in zip(v['homotopy_counts'], v['paper_counts'])):.2f}"
                      for k, v in cells_.items())
    whole = "; ".join(f"{k}: {v['homotopy_slope_all']:.3f} vs {v['paper_slope_all']:.3f}" for k, v in cells_.items())
    improved = all(v["improved"] for v in measured.values())
    head = (f"{what}; slopes in x = M/sqrt(mu eps) of the matrix/communication counts on the points where the "
            f"homotopy ran >= {REGIME_PHASES} phases (printed exponent {EXPONENT:g}, tolerance {tol}): {table}. "
            f"On the whole grid (homotopy vs fixed penalty): {whole}. Homotopy count / fixed-penalty count per point: "
            f"{ratio}."
            + (f" Not measured (fewer than {MIN_POINTS} such points): {', '.join(unmeasured)}." if unmeasured else ""))
    if control:
        status = "fail" if improved else "pass"
        detail = ("planted series (homotopy x, fixed penalty x·ln²x, the run's grid and phases), judged as the claim "
                  "'no improvement': " + ("contradicted (the criterion sees the improvement)" if improved else
                                          "not contradicted: the criterion cannot see a planted improvement") + "; "
                  + head)
        return CheckResult(status=status, detail=detail, **common)
    if improved:
        status = "finding"
        detail = ("improvement over the proof of thm:upper_bound_nonsmooth_affine_constraints part 2 (this suite's "
                  "homotopy, mixbounds.solvers.homotopy_sliding): the homotopy meets the printed exponent where the "
                  "fixed penalty exceeds it — " + head)
    else:
        status = "pass"
        detail = ("no improvement measured (the proof's log(1/eps) stands as far as these points go): not on every "
                  "measured cell is the homotopy's slope within the printed exponent + tol while the fixed penalty's is "
                  "above it, with separated confidence intervals — " + head)
    fnd = Finding(id=rid, label="table:nonsmooth_strconv_optimization_constraints",
                  statement="thm:upper_bound_nonsmooth_affine_constraints part 2 (proof): N_s = O(sqrt(L/mu) log(1/eps)) "
                            "with the penalty fixed at the target eps",
                  printed="the proof's bound carries log(1/eps); Table 4 prints M_f/sqrt(mu_f eps) without it",
                  measured=measured, detail=detail, source=rid)
    worst = max(v["homotopy_slope"] for v in measured.values())
    return CheckResult(status=status, detail=detail, theory=f"homotopy slope <= {EXPONENT:g} + tol < fixed penalty's",
                       findings=(fnd,) if status == "finding" else (),
                       **reading("largest homotopy slope", {"largest homotopy slope": worst,
                                                            **{f"{k} homotopy": v["homotopy_slope"]
                                                               for k, v in measured.items()},
                                                            **{f"{k} fixed penalty": v["paper_slope"]
                                                               for k, v in measured.items()}}),
                       **common)


def planted(xs: list, hom: list, oracles: tuple) -> tuple[list, list]:
    """The controls' exact series on the run's grid and phases: ``(fixed penalty, homotopy)`` points with counts
    ``x·ln²x`` and ``x`` for every oracle (module docstring)."""
    def pt(count, h):
        return {"converged": True, "phases": h.get("phases"), "per_accuracy": {o: count for o in oracles}}

    return ([pt(x * math.log(x) ** 2, h) for x, h in zip(xs, hom)], [pt(x, h) for x, h in zip(xs, hom)])


# ----------------------------------------------------------------------------- the Table 4 families
T4_ID = "finding.T4.homotopy"


def _t4_tasks(tier: Tier) -> list:
    return [sweep_task(TABLE, cls, q, x, solver=solver, tier=tier) for cls in tier.statements.homotopy_classes
            for q, x in accuracy_points(tier, cls) for solver in (None, "homotopy")]


def _t4_rows(tier: Tier, points: dict, *, plant: bool) -> dict:
    rows = {}
    for cls in tier.statements.homotopy_classes:
        pts = accuracy_points(tier, cls)
        xs = [x for _, x in pts]
        paper = [points[sweep_task(TABLE, cls, q, x, tier=tier).key] for q, x in pts]
        hom = [points[sweep_task(TABLE, cls, q, x, solver="homotopy", tier=tier).key] for q, x in pts]
        oracles = tuple(c.oracle for c in cells(TABLE, cls) if c.oracle in MATRIX_ORACLES)
        if plant:
            paper, hom = planted(xs, hom, oracles)
        rows[cls] = compare(f"T4.{cls}", xs, paper, hom, oracles, tier.tables24.slope_tol)
    return rows


def _t4_check(control: bool) -> Check:
    rid = "control.T4.homotopy.planted" if control else T4_ID

    def finalize(tier, points):
        return [judge(rid, _t4_rows(tier, points, plant=control), tier.tables24.slope_tol, control=control,
                      what=f"Table 4 families {', '.join(tier.statements.homotopy_classes)}, x <= "
                           f"{tier.statements.homotopy_x_max:g}")]

    return Check(id=rid, family="statements", result_ids=lambda tier: [rid], tasks=_t4_tasks, finalize=finalize,
                 tiers=(FULL,), description="Table 4: the penalty homotopy against the paper's restarted sliding"
                                            + (" (planted improvement, must fail)" if control else ""))


# ----------------------------------------------------------------------------- the generic problem
GENERIC_ID = "finding.S.sliding.strong.homotopy"


def _generic_task(tier: Tier, x: float, method: str):
    """A generic-B run with the Tables 2–4 subgradient budget of the tier (x = 1000 needs ~5·10⁶ rounds)."""
    return generic_task(tier.statements.sliding_base["kappa_B"], GENERIC_MU, x, method, tier.tables24.max_inner)


def _generic_tasks(tier: Tier) -> list:
    return [_generic_task(tier, x, m) for x in generic_grid(tier) for m in ("restarted", "homotopy")]


def _generic_check(control: bool) -> Check:
    rid = "control.S.sliding.strong.homotopy.planted" if control else GENERIC_ID

    def finalize(tier, points):
        kB, xs = tier.statements.sliding_base["kappa_B"], generic_grid(tier)
        paper = [points[_generic_task(tier, x, "restarted").key] for x in xs]
        hom = [points[_generic_task(tier, x, "homotopy").key] for x in xs]
        if control:
            paper, hom = planted(xs, hom, ("B",))
        rows = {"generic": compare("S.sliding.strong", xs, paper, hom, ("B",), tier.statements.slope_tol)}
        return [judge(rid, rows, tier.statements.slope_tol, control=control,
                      what=f"generic B (sliding_hard, kappa_B = {kB:g}, mu = {GENERIC_MU:g})")]

    return Check(id=rid, family="statements", result_ids=lambda tier: [rid], tasks=_generic_tasks, finalize=finalize,
                 tiers=(FULL,), description="generic B: the penalty homotopy against restarted sliding"
                                            + (" (planted improvement, must fail)" if control else ""))


def checks() -> list[Check]:
    return [_t4_check(False), _t4_check(True), _generic_check(False), _generic_check(True)]
