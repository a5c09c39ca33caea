"""Lemma ``lem:boundness_of_penal_prob_dual`` (Lan et al.): an optimal multiplier with ``‖v*‖ <= M/σ_min+(B)``.

Problem ``min_{u∈U} G(u)`` s.t. ``Bu = b`` with ``‖∂G‖ <= M`` (:mod:`mixbounds.checks.lemmas.max_affine`: ``G`` max-affine,
exact LP).  The lemma says some optimal multiplier of eq:saddle_point_problem has ``‖v*‖ <= R_dual = M/σ_min+(B)``;
the app says it holds "for any B and b ∈ image B" (its proof: ``0 ∈ ∂G(u*) + Bᵀv*``, take ``v*`` in ``range B``).

* ``U = R^d`` (the setting of the cited proof): random instances (rank-deficient ``B``, ``s`` up to 4 rows) and an
  instance where the bound is attained (``‖v*‖σ_min+/M = 1``).  ``v*`` is the LP's multiplier projected on
  ``range B`` (still optimal), certified by the stationarity residual.
* ``U`` a box, as the paper uses the lemma for Table 4 (bounded ``X``, app:nonsmooth_strongly_convex_results):
  :func:`mixbounds.checks.lemmas.max_affine.box_instance` with one constraint row; the *smallest* ``|v|`` over every optimal multiplier
  (two LPs over the dual optimal face) is ``m`` while ``R_dual = m/√(1 + t²)``: the bound fails by ``√(1 + t²)``
  once a box constraint is active at ``u*`` (the normal cone of ``U`` enters the optimality condition).

Verdict: ``finding`` when the bound holds on every ``U = R^d`` case and fails on the box cases (both recorded);
``fail`` if a ``U = R^d`` case violates it.  Negative control: ``‖v*‖ <= R_dual/4`` (fails where the bound is tight).
"""

from __future__ import annotations

import math

import numpy as np
from mixbounds.checks.lemmas.base import INEQ_RTOL, LemmaCheck, Point, Result
from mixbounds.checks.lemmas.cases import seeded_rng
from mixbounds.checks.lemmas.max_affine import (
    KKT_TOL,
    BoxCases,
    box_instance,
    constrained,
    dual_range_1d,
    random_instance,
    tight_instance,
)
from mixbounds.checks.run.result import CheckResult, Finding, reading
from mixbounds.checks.tiers import Tier, per_tier

LABEL = "lem:boundness_of_penal_prob_dual"


def point_dual_bound(case: dict, _cost: float = 0.0) -> dict:
    """``‖v*‖`` (smallest optimal multiplier) against ``R_dual = M/σ_min+(B)`` on one instance."""
    rng = seeded_rng(int(case.get("seed", 0)), "penalization-dual")
    if case["kind"] == "box":
        P = box_instance(float(case["t"]))
    elif case["kind"] == "tight":
        P = tight_instance(rng, int(case["d"]), int(case["s"]))
    else:
        P = random_instance(rng, int(case["d"]), int(case["s"]), int(case["K"]), rank=case.get("rank"))
    sol = constrained(P)
    R_dual = P.M / P.sigma_min_pos()
    out = {"case": str(case), "kind": case["kind"], "M": P.M, "sigma_min_pos": P.sigma_min_pos(), "R_dual": R_dual,
           "G_star": sol["G"], "stationarity": sol["stationarity"], "lambda_sum": sol["lambda_sum"]}
    if case["kind"] == "box":
        vmin, vmax = dual_range_1d(P, sol["G"])
        norm = 0.0 if vmin <= 0.0 <= vmax else min(abs(vmin), abs(vmax))
        out.update(v_min=vmin, v_max=vmax, closed_form_ratio=math.sqrt(1 + float(case["t"]) ** 2))
    else:
        norm = float(np.linalg.norm(sol["v_range"]))
    out.update(v_norm=norm, ratio=R_dual / norm if norm > 0 else None,
               certified=bool(sol["stationarity"] <= 1e3 * KKT_TOL * max(1.0, P.M) and abs(sol["lambda_sum"] - 1) <= 1e-8))
    return out


#: the cases per tier
SETTINGS = per_tier(tiny=BoxCases(cases=3, seeds=1, box_t=(3.0,)),
                    quick=BoxCases(cases=8, seeds=2, box_t=(0.5, 3.0, 30.0)),
                    full=BoxCases(cases=80, seeds=2, box_t=(0.1, 0.5, 1.0, 3.0, 10.0, 30.0, 100.0)))


def _cases(tier: Tier) -> list[Point]:
    k = SETTINGS[tier.name].cases
    out = []
    for s in range(k):
        d = 2 + s % 4
        spec = {"kind": "random", "seed": 1000 + s, "d": d, "s": 1 + s % min(d, 4), "K": d + 1 + s % 3}
        if s % 3 == 2:
            spec["rank"] = max(1, spec["s"] - 1)
        out.append(Point(point_dual_bound, spec, f"random #{s}"))
    out += [Point(point_dual_bound, {"kind": "tight", "seed": 1100 + s, "d": 3 + s, "s": 2 + s}, f"tight #{s}")
            for s in range(SETTINGS[tier.name].seeds)]
    ts = SETTINGS[tier.name].box_t
    out += [Point(point_dual_bound, {"kind": "box", "t": t}, f"box t = {t:g}") for t in ts]
    return out


def _finalize(tier: Tier, pts: list[dict], ids: tuple) -> list[CheckResult]:
    free = [p for p in pts if p["kind"] != "box"]
    box = [p for p in pts if p["kind"] == "box"]
    uncert = [p for p in free if not p["certified"]]
    bad_free = [p for p in free if p["v_norm"] > p["R_dual"] * (1 + INEQ_RTOL)]
    bad_box = [p for p in box if p["v_norm"] > p["R_dual"] * (1 + INEQ_RTOL)]
    cf_err = max((abs(p["v_norm"] / p["R_dual"] / p["closed_form_ratio"] - 1) for p in box), default=0.0)
    worst_free = min(p["ratio"] for p in free if p["ratio"] is not None)
    worst_box = min((p["ratio"] for p in box if p["ratio"] is not None), default=float("inf"))
    tight = min(p["ratio"] for p in free if p["kind"] == "tight")
    findings = ()
    if bad_free or uncert or cf_err > 1e-8:
        status = "fail"
    elif bad_box:
        status = "finding"
        w = min(bad_box, key=lambda p: p["R_dual"] / p["v_norm"])
        findings = (Finding(
            id=f"finding:{ids[0]}", label=LABEL, statement="an optimal multiplier with ‖v*‖ <= M/σ_min+(B) exists",
            printed=f"R_dual = M/σ_min+(B) = {w['R_dual']:.6g}",
            measured=f"min ‖v*‖ over all optimal multipliers = {w['v_norm']:.6g} ({w['case']})",
            detail=("Holds on every U = R^d case (the setting of the cited proof: 0 ∈ ∂G(u*) + Bᵀv*). On a box U with a "
                    "bound active at u* the optimality condition gains the normal cone of U and the smallest multiplier "
                    "is m = √(1 + t²)·R_dual on G = max(m u_1, …), u_1 = t u_2, U = [−1, 1] × [0, 1] (exact LPs over "
                    "the dual optimal face). The paper applies the lemma on the bounded X of Table 4 "
                    "(app:nonsmooth_strongly_convex_results): there R_dual must bound the multipliers of the problem "
                    "on X, which M/σ_min+(B) does not when a bound of X is active at the solution."),
            source=ids[0]),)
    else:
        status = "pass"
    res = CheckResult(
        id=ids[0], kind="lemma", status=status, label=LABEL, findings=findings,
        theory="∃ optimal v* with ‖v*‖ <= M/σ_min+(B)",
        **reading("worst R_dual/‖v*‖ (U = R^d)", {
            "worst R_dual/‖v*‖ (U = R^d)": worst_free, "R_dual/‖v*‖ on the tight instance": tight,
            "worst R_dual/min‖v*‖ (U a box)": worst_box, "box cases violating": len(bad_box),
            "U = R^d cases violating": len(bad_free), "largest stationarity residual": max(p["stationarity"] for p in free)}),
        tolerance=INEQ_RTOL,
        points=[{k: p.get(k) for k in ("case", "M", "sigma_min_pos", "R_dual", "v_norm", "ratio", "stationarity")} for p in pts],
        detail=(f"{len(free)} instances with U = R^d (max-affine G, rank-deficient B; exact LP multipliers projected on "
                f"range B, stationarity residual <= {max(p['stationarity'] for p in free):.1g}): worst R_dual/‖v*‖ = "
                f"{worst_free:.6g}, attained with equality on the tight instance ({tight:.12g}). {len(box)} box instances: "
                f"R_dual/min‖v*‖ = {[round(p['ratio'], 6) for p in box]} (closed form 1/√(1 + t²), relative error "
                f"{cf_err:.1g})."))
    caught = [p for p in free if p["v_norm"] > p["R_dual"] / 4 * (1 + INEQ_RTOL)]
    ctrl = CheckResult(
        id=ids[1], kind="lemma", status="fail" if caught else "pass", label=LABEL, control=True, expected="fail",
        theory="‖v*‖ <= M/(4σ_min+(B)) (the lemma's constant divided by 4)",
        **reading("U = R^d cases violating", {"U = R^d cases violating": len(caught), "cases": len(free)}),
        tolerance=INEQ_RTOL, detail=f"the quartered bound fails on {len(caught)} of {len(free)} U = R^d cases.")
    return [res, ctrl]


ID = "lemma.boundness_of_penal_prob_dual"
LEMMA = LemmaCheck(
    id=ID, label=LABEL, description="Lemma lem:boundness_of_penal_prob_dual (bounded optimal multiplier)",
    results=(Result(ID, finding="holds for U = R^d; on a box U with a bound active at u* the smallest optimal multiplier "
                                "exceeds M/σ_min+(B) by √(1 + t²) (the paper uses the lemma on the bounded X of Table 4)"),
             Result(f"{ID}.control", control=True)),
    cases=_cases, finalize=_finalize)
