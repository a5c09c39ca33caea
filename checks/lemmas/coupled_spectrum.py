"""Lemma ``lem:coupled_spectrum``."""

from __future__ import annotations

import math
from dataclasses import dataclass

import scipy.sparse as sp
from mixbounds.bounds.concepts import WorstFamily
from mixbounds.checks.lemmas.base import (
    INEQ_RTOL,
    LemmaCheck,
    Result,
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
    group_extremes,
    interaction_min_pos,
    materialize,
    sv2,
)
from mixbounds.checks.run.result import CheckResult, reading
from mixbounds.checks.tiers import Tier, per_tier

LABEL = "lem:coupled_spectrum"


def point_coupled_spectrum(case: dict, _cost: float = 0.0) -> dict:
    """Both sides of Lemma ``lem:coupled_spectrum`` for ``B = (A  βW⊗I_m)``.

    ``β² = (λ_min+(S_A) + σ_max²(A))/σ_min+²(W)``; claims ``σ_max²(B) <= σ_max²(A) +
    (σ_max²(A) + λ_min+(S_A))κ_W²`` and ``σ_min+²(B) >= λ_min+(S_A)/2``.  ``B`` is built
    explicitly (sparse), its spectrum computed densely.
    """
    M = materialize(case)
    n, m = M.n, M.m
    A = block_diag_dense(M.A)
    sA = sv2(A)
    L_A = sA["lmax"]
    L_A_blocks, _ = group_extremes(M.A)
    _, lamS = interaction_min_pos(M.A)
    g = gossip_extremes(M.W)
    beta2 = (lamS + L_A) / g["mu_W"]
    B = sp.hstack([sp.csr_matrix(A), math.sqrt(beta2) * sp.kron(M.W, sp.identity(m))], format="csr")
    s = sv2(B)
    bound_max = L_A + (L_A + lamS) * g["kappa_W"] ** 2
    bound_min = lamS / 2.0
    return {"case": describe(case), "n": n, "m": m, "L_A": L_A, "L_A_blocks": L_A_blocks, "lambda_min_pos_S_A": lamS,
            "kappa_W": g["kappa_W"], "beta2": beta2, "smax2_B": s["lmax"], "smin2_B": s["lmin_pos"],
            "bound_max": bound_max, "bound_min": bound_min,
            "ratio_min": safe_ratio(s["lmin_pos"], bound_min), "ratio_max": safe_ratio(bound_max, s["lmax"]),
            "smin2_over_lamS": safe_ratio(s["lmin_pos"], lamS), "clear": bool(s["clear"] and g["clear"])}


@dataclass(frozen=True)
class CoupledCases:
    """The cases of one tier: ``raw`` seeded random matrices, the first ``families`` of the random-coupled family
    points below, the chain length of the worst-case construction's point (``None``: none) and ``ring_sweep``
    random-coupled rings over decades of κ_A and κ_W."""

    raw: int
    families: int
    worst_chain: int | None
    ring_sweep: int


#: the cases per tier
SETTINGS = per_tier(tiny=CoupledCases(raw=3, families=0, worst_chain=None, ring_sweep=0),
                    quick=CoupledCases(raw=18, families=2, worst_chain=24, ring_sweep=0),
                    full=CoupledCases(raw=90, families=3, worst_chain=60, ring_sweep=8))


def _cases_coupled(tier: Tier) -> list[dict]:
    graphs = ["ring", "path", "er", "star", "complete", "grid"]
    weights = ["random", "unit", "metropolis"]
    scales = [(1.0, 1.0), (1e-3, 1.0), (1e3, 1.0), (1.0, 1e3), (1.0, 1e-3), (1e3, 1e-3)]
    cases = SETTINGS[tier.name]
    k = cases.raw
    out = []
    for s in range(k):
        sa, sw = scales[s % len(scales)]
        n = 3 + (s * 5) % 8
        spec = {"source": "raw", "seed": s, "n": n, "graph": graphs[s % len(graphs)], "weights": weights[s % 3],
                "m": 1 + s % 4, "d": [2 + (s + i) % 5 for i in range(n)], "scale_A": sa, "scale_W": sw,
                "objective": False}
        if s % 4 == 1:
            spec["rank_A"] = 1  # rank-deficient blocks
        if s % 5 == 2:
            spec["zero_A"] = 1 + n // 3  # nodes without constraints (as V2 of the worst cases)
        if s % 7 == 3:
            spec["m"] = 6  # m > rank of every block: S_A may be singular
            spec["rank_A"] = 2
        if spec["graph"] == "grid" and n < 4:
            spec["graph"] = "ring"
        out.append(spec)
    out += [{"source": "family", "family": "random-coupled", "seed": s, "kw": kw}
            for s, kw in enumerate([{}, {"kappa_A": 50.0, "kappa_W": 30.0, "graph": "ring"},
                                    {"kappa_A": 300.0, "graph": "er"}][: cases.families])]
    if cases.worst_chain is not None:
        out.append({"source": "worst", "family": WorstFamily.COUPLED,
                    "kw": {"kappa_W": 20.0, "kappa_A": 30.0, "kappa_f": 10.0, "chain": cases.worst_chain}})
    out += [{"source": "family", "family": "random-coupled", "seed": 10 + s,
             "kw": {"kappa_A": 10.0 ** (1 + s % 3), "kappa_W": 10.0 ** (1.5 + 0.5 * (s % 2)), "graph": "ring", "n": 6 + s}}
            for s in range(cases.ring_sweep)]
    return out


def _finalize_coupled(tier: Tier, pts: list[dict], ids: tuple) -> list[CheckResult]:
    label = LABEL
    bad_min = [p for p in pts if not approx_ge(p["smin2_B"], p["bound_min"])]
    bad_max = [p for p in pts if not approx_le(p["smax2_B"], p["bound_max"])]
    wmin = min(p["ratio_min"] for p in pts)
    wmax = min(p["ratio_max"] for p in pts)
    sand = max(p["smin2_over_lamS"] for p in pts)
    status = "pass" if not bad_min and not bad_max else "fail"
    keys = ("L_A", "lambda_min_pos_S_A", "kappa_W", "beta2", "smax2_B", "smin2_B", "bound_max", "bound_min", "ratio_min", "ratio_max")
    main = CheckResult(
        id=ids[0], kind="lemma", status=status, label=label,
        theory="σ_max²(B) <= σ_max²(A) + (σ_max²(A) + λ_min+(S_A))κ_W²;  σ_min+²(B) >= λ_min+(S_A)/2",
        **reading("worst σ_min+²(B)/(λ_min+(S_A)/2)", {
            "worst σ_min+²(B)/(λ_min+(S_A)/2)": wmin, "worst bound/σ_max²(B)": wmax}),
        tolerance=INEQ_RTOL, points=[compact_point(p, keys) for p in pts],
        instance={"cases": len(pts)},
        detail=(f"{len(pts)} cases (raw Gaussian with scales 1e±3, rank-deficient and zero blocks, m > rank; random-coupled "
                f"family; worst-case coupled). Lower bound: worst ratio {wmin:.4g} (>= 1 holds); upper bound: worst ratio "
                f"{wmax:.4g}. σ_min+²(B) <= λ_min+(S_A) {'on every case' if sand <= 1 + INEQ_RTOL else 'NOT on every case'} "
                f"(max ratio {sand:.4g}): the test vector "
                f"1⊗c/√n with S_A c = λ_min+ c gives ‖Bᵀz‖² = λ_min+(S_A), so the factor 1/2 is within 2 of tight."
                + ("" if status == "pass" else f" VIOLATED on {len(bad_min)} (min) / {len(bad_max)} (max) cases: "
                   f"{[p['case'] for p in (bad_min + bad_max)[:3]]}.") + clear_note(pts)),
        extra={"max smin2_B/lambda_min_pos_S_A": sand})
    caught = [p for p in pts if not approx_ge(p["smin2_B"], 2.0 * p["lambda_min_pos_S_A"])]
    ctrl = CheckResult(
        id=ids[1], kind="lemma", status="fail" if caught else "pass", label=label, control=True, expected="fail",
        theory="σ_min+²(B) >= 2 λ_min+(S_A)  (the lemma's constant 1/2 replaced by 2)",
        **reading("worst σ_min+²(B)/(2λ_min+(S_A))", {
            "worst σ_min+²(B)/(2λ_min+(S_A))": min(p["smin2_B"] / (2 * p["lambda_min_pos_S_A"]) for p in pts)}),
        tolerance=INEQ_RTOL, instance={"cases": len(pts)},
        detail=f"perturbed lower bound violated on {len(caught)} of {len(pts)} cases (a control must fail).")
    return [main, ctrl]


ID = "lemma.coupled_spectrum"
LEMMA = LemmaCheck(
    id=ID, label=LABEL, description="Lemma lem:coupled_spectrum on explicit B = (A βW⊗I)",
    results=(Result(ID), Result(f"{ID}.control", control=True)),
    cases=_cases_coupled, point=point_coupled_spectrum, finalize=_finalize_coupled)
