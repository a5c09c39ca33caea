"""The unnamed lemma of app:upper_bound_coupled_plus_non_ident_local_constraints_prob."""

from __future__ import annotations

import math

import scipy.sparse as sp
from mixbounds.checks.lemmas.base import (
    INEQ_RTOL,
    LemmaCheck,
    Result,
    SeededCases,
    approx_eq,
    approx_ge,
    approx_le,
    block_diag_dense,
    clear_note,
    compact_point,
    safe_ratio,
)
from mixbounds.checks.lemmas.cases import (
    describe,
    gossip_extremes,
    interaction_min_pos,
    materialize,
    sv2,
)
from mixbounds.checks.run.result import CheckResult, reading
from mixbounds.checks.tiers import Tier, per_tier

LABEL = "app:upper_bound_coupled_plus_non_ident_local_constraints_prob"


def point_identical_mixed(case: dict, _cost: float = 0.0) -> dict:
    """The unnamed lemma closing app:upper_bound_coupled_plus_non_ident_local_constraints_prob.

    ``B = diag(αB_1, B_2)``, ``B_1 = (A  βW⊗I_m)``, ``B_2ᵀ = (I⊗C̃ᵀ  γW⊗I_d̃)`` with
    ``α² = 2σ_min+²(C̃)/λ_min+(S_A)``, ``β² = (λ_min+(S_A) + σ_max²(A))/σ_min+²(W)``,
    ``γ² = σ_min+²(C̃)/σ_min+²(W)``.  Claims ``σ_min+²(B) >= σ_min+²(C̃)`` and the proof's explicit
    ``σ_max²(B) <= max(2σ_min+²(C̃)(κ̂_A + (κ̂_A + 1)κ_W²), σ_max²(C̃) + σ_min+²(C̃)κ_W²)``.
    """
    M = materialize(case)
    n, m, dt = M.n, M.m, M.dt
    Ct = M.Ct[0]
    A = block_diag_dense(M.A)
    L_A = sv2(A)["lmax"]
    _, lamS = interaction_min_pos(M.A)
    kA = L_A / lamS
    g = gossip_extremes(M.W)
    sC = sv2(Ct)
    a2 = 2 * sC["lmin_pos"] / lamS
    b2 = (lamS + L_A) / g["mu_W"]
    c2 = sC["lmin_pos"] / g["mu_W"]
    B1 = sp.hstack([sp.csr_matrix(A), math.sqrt(b2) * sp.kron(M.W, sp.identity(m))], format="csr")
    B2 = sp.vstack([sp.kron(sp.identity(n), sp.csr_matrix(Ct)), math.sqrt(c2) * sp.kron(M.W, sp.identity(dt))], format="csr")
    B = sp.block_diag([math.sqrt(a2) * B1, B2], format="csr")
    s, s1, s2 = sv2(B), sv2(B1), sv2(B2)
    kW = g["kappa_W"]
    max_expr = max(2 * sC["lmin_pos"] * (kA + (kA + 1) * kW ** 2), sC["lmax"] + sC["lmin_pos"] * kW ** 2)
    return {"case": describe(case), "n": n, "m": m, "dt": dt, "L_A": L_A, "lambda_min_pos_S_A": lamS, "kappa_hat_A": kA,
            "kappa_W": kW, "smax2_Ct": sC["lmax"], "smin2_Ct": sC["lmin_pos"], "alpha2": a2, "beta2": b2, "gamma2": c2,
            "smax2_B": s["lmax"], "smin2_B": s["lmin_pos"], "smax2_B1": s1["lmax"], "smin2_B1": s1["lmin_pos"],
            "smax2_B2": s2["lmax"], "smin2_B2": s2["lmin_pos"], "max_expr": max_expr,
            "kappa_B": s["lmax"] / s["lmin_pos"], "kappa_B_bound": max_expr / sC["lmin_pos"],
            "control_max": max(2 * sC["lmin_pos"] * (kA + (kA + 1) * kW), sC["lmax"] + sC["lmin_pos"] * kW),
            "ratio_min": safe_ratio(s["lmin_pos"], sC["lmin_pos"]), "ratio_max": safe_ratio(max_expr, s["lmax"]),
            "clear": bool(s["clear"] and g["clear"])}


#: the cases per tier (random-mixed-ident family points)
SETTINGS = per_tier(tiny=SeededCases(raw=2, families=0), quick=SeededCases(raw=14, families=2),
                    full=SeededCases(raw=70, families=6))


def _cases_identical(tier: Tier) -> list[dict]:
    graphs = ["ring", "path", "er", "star", "complete"]
    scales = [(1.0, 1.0, 1.0), (1e-3, 1.0, 1.0), (1.0, 1e3, 1.0), (1.0, 1.0, 1e3), (1e3, 1e-3, 1e-3)]
    cases = SETTINGS[tier.name]
    k = cases.raw
    out = []
    for s in range(k):
        n = 3 + (s * 2) % 7
        sa, sc, sw = scales[s % len(scales)]
        dt = 2 + s % 4
        spec = {"source": "raw", "seed": 300 + s, "n": n, "graph": graphs[s % len(graphs)], "weights": ["random", "unit"][s % 2],
                "m": 1 + s % 4, "d": [2 + (s + i) % 4 for i in range(n)], "dt": dt, "pt": max(1, dt - 1 + (s % 3) - 1),
                "ident_Ct": True, "scale_A": sa, "scale_Ct": sc, "scale_W": sw, "objective": False}
        if s % 4 == 1:
            spec["rank_A"] = 1
        if s % 5 == 2:
            spec["zero_A"] = 1
        out.append(spec)
    for s in range(cases.families):
        out.append({"source": "family", "family": "random-mixed-ident", "seed": s,
                    "kw": {"kappa_W": 10.0 * (1 + s), "graph": "ring", **({"kappa_Ct": 30.0} if s % 2 else {})}})
    return out



def _finalize_identical(tier: Tier, pts: list[dict], ids: tuple) -> list[CheckResult]:
    label = LABEL
    bad_min = [p for p in pts if not approx_ge(p["smin2_B"], p["smin2_Ct"])]
    bad_max = [p for p in pts if not approx_le(p["smax2_B"], p["max_expr"])]
    blockdiag_ok = all(approx_eq(p["smax2_B"], max(p["alpha2"] * p["smax2_B1"], p["smax2_B2"]))
                       and approx_eq(p["smin2_B"], min(p["alpha2"] * p["smin2_B1"], p["smin2_B2"])) for p in pts)
    tight = max(p["ratio_min"] for p in pts)
    keys = ("kappa_hat_A", "kappa_W", "smax2_Ct", "smin2_Ct", "smax2_B", "smin2_B", "max_expr", "kappa_B", "kappa_B_bound",
            "ratio_min", "ratio_max")
    main = CheckResult(
        id=ids[0], kind="lemma", status="pass" if not bad_min and not bad_max and blockdiag_ok else "fail", label=label,
        theory="σ_min+²(B) >= σ_min+²(C̃);  σ_max²(B) <= max(2σ_min+²(C̃)(κ̂_A + (κ̂_A+1)κ_W²), σ_max²(C̃) + σ_min+²(C̃)κ_W²)",
        **reading("worst σ_min+²(B)/σ_min+²(C̃)", {"worst σ_min+²(B)/σ_min+²(C̃)": min(p["ratio_min"] for p in pts),
                  "worst max(…)/σ_max²(B)": min(p["ratio_max"] for p in pts),
                  "worst κ_B bound/κ_B": min(p["kappa_B_bound"] / p["kappa_B"] for p in pts)}),
        tolerance=INEQ_RTOL, points=[compact_point(p, keys) for p in pts], instance={"cases": len(pts)},
        detail=(f"{len(pts)} cases (raw: scales 1e±3, rank-1 and zero A blocks, ker C̃ = 0 and ≠ 0; random-mixed-ident family with "
                f"its A and C̃, C dropped: the lemma is for C = 0). The lower bound is attained: max σ_min+²(B)/σ_min+²(C̃) = "
                f"{tight:.6g} (B_2 always has the eigenvalue σ_min+²(C̃) of BᵀB, from the pair (σ_min+²(C̃), λ(W) = 0)). "
                f"σ's of diag(αB_1, B_2) = extremes of the blocks: {blockdiag_ok}." + clear_note(pts)))
    caught = [p for p in pts if not approx_ge(p["smin2_B"], 1.5 * p["smin2_Ct"])]
    caught2 = [p for p in pts if not approx_le(p["smax2_B"], p["control_max"])]
    ctrl = CheckResult(
        id=ids[1], kind="lemma", status="fail" if caught and caught2 else "pass", label=label, control=True, expected="fail",
        theory="σ_min+²(B) >= 1.5σ_min+²(C̃), and the max(…) bound with κ_W in place of κ_W²", tolerance=INEQ_RTOL,
        # the control is caught only when both perturbations are violated somewhere: the smaller count decides
        **reading("cases violating (both)", {
            "cases violating (min)": len(caught), "cases violating (max, κ_W)": len(caught2),
                                             "cases violating (both)": min(len(caught), len(caught2))}),
        instance={"cases": len(pts)},
        detail=f"both perturbations must be violated somewhere: {len(caught)} and {len(caught2)} of {len(pts)} cases.")
    return [main, ctrl]


ID = "lemma.identical_mixed_spectrum"
LEMMA = LemmaCheck(
    id=ID, label=LABEL, description="unnamed lemma of app:upper_bound_coupled_plus_non_ident_local_constraints_prob",
    results=(Result(ID), Result(f"{ID}.control", control=True)),
    cases=_cases_identical, point=point_identical_mixed, finalize=_finalize_identical)
