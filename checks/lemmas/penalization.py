"""Lemma ``lem:penalization`` (Gorbunov et al.): penalty ``r = 2R²_dual/ε`` turns ε-solutions of the penalized
problem into ε-solutions with ``‖Bû − b‖ <= 2ε/R_dual``.

Instances of :mod:`mixbounds.checks.lemmas.max_affine` (``G`` max-affine, ``R_dual = M/σ_min+(B)`` as the lemma sets it).
Every ``û`` with ``H_r(û) − min H_r <= ε`` must satisfy ``G(û) − G* <= ε`` and ``‖Bû − b‖ <= 2ε/R_dual``; the check
does not sample ``û`` at random but takes, for several directions ``c ∈ range B`` (both signs of the singular vector
of ``σ_min+(B)``, of the optimal multiplier ``v*``, and random ones), the point of the ε-sublevel set of ``H_r`` that
maximises ``⟨c, Bû − b⟩`` — exactly, by :func:`mixbounds.checks.lemmas.max_affine.sublevel_extreme` (``min H_r`` and ``G*`` are exact too).
The direction of ``v*`` is the one the proof's bound ``‖Bû − b‖ <= (‖v*‖ + √(‖v*‖² + 2rε))/r`` is sharp in.

On a box ``U`` with an active bound (:func:`mixbounds.checks.lemmas.max_affine.box_instance`) the multiplier exceeds ``R_dual``
(``lem:boundness_of_penal_prob_dual``) and the feasibility bound fails once ``√(1 + t²) > 2`` (closed form: the
worst ``|Bû − b|`` is ``(ε/m)((1 + t²)/2 + √(1 + t²))``).  Verdict ``finding`` when every ``U = R^d`` case holds and a
box case fails.  Negative control: the penalty divided by 4 (``r = R²_dual/(2ε)``) on the same ``U = R^d`` cases
must break ``‖Bû − b‖ <= 2ε/R_dual`` (the 1-D linear case reaches ``4ε/R_dual``).
"""

from __future__ import annotations

import math

import numpy as np
from mixbounds.checks.lemmas.base import INEQ_RTOL, LemmaCheck, Point, Result
from mixbounds.checks.lemmas.cases import seeded_rng
from mixbounds.checks.lemmas.max_affine import (
    BoxCases,
    box_instance,
    constrained,
    penalized,
    random_instance,
    sublevel_extreme,
    tight_instance,
)
from mixbounds.checks.run.result import CheckResult, Finding, reading
from mixbounds.checks.tiers import Tier, per_tier

LABEL = "lem:penalization"
#: the ε-sublevel extreme is found by bisection to this relative accuracy of H − H* (60 halvings: rounding)
SUBLEVEL_RTOL = 1e-9


def point_penalization(case: dict, _cost: float = 0.0) -> dict:
    """Worst ``‖Bû − b‖`` and ``G(û) − G*`` over the ε-sublevel extremes of ``H_r`` (``r = factor·2R²_dual/ε``)."""
    rng = seeded_rng(int(case.get("seed", 0)), "penalization")
    if case["kind"] == "box":
        P = box_instance(float(case["t"]))
    elif case["kind"] == "tight":
        P = tight_instance(rng, int(case["d"]), int(case["s"]))
    else:
        P = random_instance(rng, int(case["d"]), int(case["s"]), int(case["K"]), rank=case.get("rank"))
    eps = float(case["eps"])
    R_dual = P.M / P.sigma_min_pos()
    r = float(case.get("factor", 1.0)) * 2.0 * R_dual ** 2 / eps
    con = constrained(P)
    Hs = penalized(P, r)
    U, sv, _ = np.linalg.svd(P.B, full_matrices=False)
    Ur = U[:, sv > 1e-10 * sv[0]]
    dirs = [Ur[:, -1], -Ur[:, -1]]
    if np.linalg.norm(con["v_range"]) > 0:
        vd = con["v_range"] / np.linalg.norm(con["v_range"])
        dirs += [vd, -vd]
    for _ in range(int(case.get("random_dirs", 2))):
        z = Ur @ rng.standard_normal(Ur.shape[1])
        dirs.append(z / np.linalg.norm(z))
    worst_feas, worst_gap, worst_H = 0.0, -math.inf, 0.0
    for c in dirs:
        ext = sublevel_extreme(P, r, Hs["H"], eps, c)
        u = ext["u"]
        worst_feas = max(worst_feas, float(np.linalg.norm(P.B @ u - P.b)))
        worst_gap = max(worst_gap, P.G(u) - con["G"])
        worst_H = max(worst_H, abs(ext["H_gap"] - eps) / eps)
    bound = 2.0 * eps / R_dual
    vn = float(np.linalg.norm(con["v_range"]))
    return {"case": str(case), "kind": case["kind"], "factor": float(case.get("factor", 1.0)), "eps": eps, "R_dual": R_dual,
            "r": r, "v_norm": vn, "G_star": con["G"], "H_star": Hs["H"], "directions": len(dirs),
            "worst_feasibility": worst_feas, "bound_feasibility": bound, "ratio_feasibility": bound / worst_feas,
            "worst_G_gap": worst_gap, "sublevel_accuracy": worst_H,
            "proof_bound": (vn + math.sqrt(vn ** 2 + 2 * r * eps)) / r,
            "t": float(case["t"]) if case["kind"] == "box" else None,
            "closed_form_box": (eps / P.M) * ((1 + float(case["t"]) ** 2) / 2 + math.sqrt(1 + float(case["t"]) ** 2))
            if case["kind"] == "box" else None}


#: the cases per tier
SETTINGS = per_tier(tiny=BoxCases(cases=2, seeds=1, box_t=(3.0,)),
                    quick=BoxCases(cases=5, seeds=2, box_t=(1.0, 3.0)),
                    full=BoxCases(cases=50, seeds=2, box_t=(0.5, 1.0, 1.5, 2.0, 3.0, 10.0)))


def _cases(tier: Tier) -> list[Point]:
    k = SETTINGS[tier.name].cases
    out = []
    for s in range(k):
        d = 2 + s % 3
        spec = {"kind": "random", "seed": 1200 + s, "d": d, "s": 1 + s % d, "K": d + 1 + s % 2, "eps": [1e-2, 1e-3, 1e-1][s % 3]}
        out.append(Point(point_penalization, spec, f"random #{s}"))
        if s < 2:
            out.append(Point(point_penalization, {**spec, "factor": 0.25}, f"control r/4 random #{s}"))
    for s in range(SETTINGS[tier.name].seeds):
        spec = {"kind": "tight", "seed": 1300 + s, "d": 2 + s, "s": 1 + s, "eps": 1e-2}
        out.append(Point(point_penalization, spec, f"tight #{s}"))
        out.append(Point(point_penalization, {**spec, "factor": 0.25}, f"control r/4 tight #{s}"))
    ts = SETTINGS[tier.name].box_t
    out += [Point(point_penalization, {"kind": "box", "t": t, "eps": 1e-2}, f"box t = {t:g}") for t in ts]
    return out


def _ratio_G(p: dict) -> float:
    """``ε/(G(û) − G*)`` over the extremes (``inf`` when no extreme has ``G(û) > G*``; computed here, not in the
    point, whose JSON has no infinities)."""
    return p["eps"] / p["worst_G_gap"] if p["worst_G_gap"] > 0 else float("inf")


def _finalize(tier: Tier, pts: list[dict], ids: tuple) -> list[CheckResult]:
    for p in pts:
        p["ratio_G"] = _ratio_G(p)
    main = [p for p in pts if p["factor"] == 1.0]
    free = [p for p in main if p["kind"] != "box"]
    box = [p for p in main if p["kind"] == "box"]
    ctrl = [p for p in pts if p["factor"] != 1.0]
    bad_free = [p for p in free if p["ratio_feasibility"] < 1 - INEQ_RTOL or p["ratio_G"] < 1 - INEQ_RTOL]
    bad_box = [p for p in box if p["ratio_feasibility"] < 1 - INEQ_RTOL]
    box_G = all(p["ratio_G"] >= 1 - INEQ_RTOL for p in box)
    inexact = [p for p in main if p["sublevel_accuracy"] > SUBLEVEL_RTOL]
    cf_err = max((abs(p["worst_feasibility"] / p["closed_form_box"] - 1) for p in box), default=0.0)
    proof_ok = all(p["worst_feasibility"] <= p["proof_bound"] * (1 + 1e-6) for p in free)
    findings = ()
    if bad_free or inexact or not box_G or cf_err > 1e-6:
        status = "fail"
    elif bad_box:
        status = "finding"
        w = min(bad_box, key=lambda p: p["ratio_feasibility"])
        findings = (Finding(
            id=f"finding:{ids[0]}", label=LABEL, statement="‖Bû − b‖ <= 2ε/R_dual for every ε-solution of H_r, r = 2R²_dual/ε",
            printed=f"2ε/R_dual = {w['bound_feasibility']:.6g}",
            measured=f"‖Bû − b‖ = {w['worst_feasibility']:.6g} ({w['case']})",
            detail=("Holds on every U = R^d case, and G(û) − G* <= ε holds everywhere (it needs no multiplier). On a box U "
                    "with a bound active at u* the smallest multiplier exceeds R_dual = M/σ_min+(B) "
                    "(lem:boundness_of_penal_prob_dual) and the penalty 2R²_dual/ε is too small: the worst infeasibility "
                    "is (ε/m)((1 + t²)/2 + √(1 + t²)) > 2ε/R_dual once √(1 + t²) > 2. The proof's bound "
                    "(‖v*‖ + √(‖v*‖² + 2rε))/r with the true ‖v*‖ holds there."),
            source=ids[0]),)
    else:
        status = "pass"
    res = CheckResult(
        id=ids[0], kind="lemma", status=status, label=LABEL, findings=findings,
        theory="H_r(û) − min H_r <= ε ⇒ G(û) − G* <= ε and ‖Bû − b‖ <= 2ε/R_dual (r = 2R²_dual/ε)",
        **reading("worst (2ε/R_dual)/‖Bû − b‖ (U = R^d)", {
            "worst (2ε/R_dual)/‖Bû − b‖ (U = R^d)": min(p["ratio_feasibility"] for p in free),
            "worst ε/(G(û) − G*) (U = R^d)": min(p["ratio_G"] for p in free),
            "worst (2ε/R_dual)/‖Bû − b‖ (U a box)": min((p["ratio_feasibility"] for p in box), default=float("inf")),
            "box cases violating": len(bad_box), "U = R^d cases violating": len(bad_free),
            "proof bound (‖v*‖ + √(‖v*‖² + 2rε))/r holds": proof_ok}),
        tolerance=INEQ_RTOL,
        points=[{k: p[k] for k in ("case", "eps", "R_dual", "r", "v_norm", "worst_feasibility", "bound_feasibility",
                                   "worst_G_gap", "directions")} for p in main],
        detail=(f"{len(free)} instances with U = R^d, the exact ε-sublevel extremes of H_r in {free[0]['directions']}+ "
                f"directions each (σ_min+ and v* directions, random): worst (2ε/R_dual)/‖Bû − b‖ = "
                f"{min(p['ratio_feasibility'] for p in free):.6g} ({[round(p['ratio_feasibility'], 6) for p in free if p['kind'] == 'tight']} "
                f"on the instances where ‖v*‖ = R_dual: ‖Bû − b‖ = 1.5ε/R_dual there), worst "
                f"ε/(G(û) − G*) = {min(p['ratio_G'] for p in free):.4g}. Box instances (t = "
                f"{[p['t'] for p in box]}): ratios {[round(p['ratio_feasibility'], 4) for p in box]}, matching the "
                f"closed form to {cf_err:.1g}."))
    caught = [p for p in ctrl if p["ratio_feasibility"] < 1 - INEQ_RTOL]
    cres = CheckResult(
        id=ids[1], kind="lemma", status="fail" if caught else "pass", label=LABEL, control=True, expected="fail",
        theory="the same guarantee with the penalty divided by 4 (r = R²_dual/(2ε))",
        **reading("cases violating ‖Bû − b‖ <= 2ε/R_dual", {
            "cases violating ‖Bû − b‖ <= 2ε/R_dual": len(caught), "cases": len(ctrl),
            "worst (2ε/R_dual)/‖Bû − b‖": min(p["ratio_feasibility"] for p in ctrl)}),
        tolerance=INEQ_RTOL, detail=f"the quartered penalty breaks the feasibility bound on {len(caught)} of {len(ctrl)} cases.")
    return [res, cres]


ID = "lemma.penalization"
LEMMA = LemmaCheck(
    id=ID, label=LABEL, description="Lemma lem:penalization (penalty 2R²_dual/ε)",
    results=(Result(ID, finding="holds for U = R^d; on a box U with an active bound the multiplier exceeds R_dual and "
                                "‖Bû − b‖ exceeds 2ε/R_dual once √(1 + t²) > 2"),
             Result(f"{ID}.control", control=True)),
    cases=_cases, finalize=_finalize)
