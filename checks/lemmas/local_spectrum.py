"""Lemma ``lem:local_spectrum``."""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from mixbounds.bounds.spectral import ZERO_RTOL
from mixbounds.checks.lemmas.base import (
    EQ_RTOL,
    LemmaCheck,
    Result,
    SeededCases,
    approx_eq,
    approx_ge,
    clear_note,
    compact_point,
)
from mixbounds.checks.lemmas.cases import (
    describe,
    gossip_extremes,
    materialize,
    sv2,
)
from mixbounds.checks.run.result import CheckResult, Finding, reading
from mixbounds.checks.tiers import Tier, per_tier

LABEL = "lem:local_spectrum"


def point_local_spectrum(case: dict, _cost: float = 0.0) -> dict:
    """Lemma ``lem:local_spectrum``: ``Bᵀ = [I⊗Cᵀ, γW⊗I]`` (identical ``C``), three ways.

    ``actual`` (dense SVD of the explicit ``B``), ``kron`` (the eigenvalues
    ``λ_i(CᵀC) + γ²λ_j(W)²`` of ``BᵀB = I⊗CᵀC + γ²W²⊗I``), and the printed formulas
    ``σ_max² = σ_max²(C) + γ²σ_max²(W)``, ``σ_min+² = min{σ_min+²(C), γ²σ_min+²(W)}``,
    plus the corrected ``σ_min+² = min{…}`` if ``ker C ≠ 0``, else ``σ_min+²(C)``.
    ``case["gamma_factor"]`` sets ``γ² = factor · σ_min+²(C)/σ_min+²(W)``.
    """
    M = materialize(case)
    C = M.Ct[0]
    n, dt = M.n, M.dt
    sC = sv2(C)
    g = gossip_extremes(M.W)
    gamma2 = float(case.get("gamma_factor", 1.0)) * sC["lmin_pos"] / g["mu_W"]
    B = sp.vstack([sp.kron(sp.identity(n), sp.csr_matrix(C)), math.sqrt(gamma2) * sp.kron(M.W, sp.identity(dt))], format="csr")
    s = sv2(B)
    evC = np.linalg.eigvalsh(C.T @ C)
    evW = np.linalg.eigvalsh(M.W.toarray())
    sums = (evC[:, None] + gamma2 * evW[None, :] ** 2).ravel()
    top = sums.max()
    pos = sums[sums > ZERO_RTOL * top]
    kernel_C = int(dt - sC["rank"])
    printed_max = sC["lmax"] + gamma2 * g["L_W"]
    printed_min = min(sC["lmin_pos"], gamma2 * g["mu_W"])
    corrected_min = printed_min if kernel_C > 0 else sC["lmin_pos"]
    return {"case": describe(case), "n": n, "p": C.shape[0], "dt": dt, "dim_ker_C": kernel_C, "gamma2": gamma2,
            "smax2_B": s["lmax"], "smin2_B": s["lmin_pos"], "kron_max": float(top), "kron_min_pos": float(pos.min()),
            "smax2_C": sC["lmax"], "smin2_C": sC["lmin_pos"], "gamma2_mu_W": gamma2 * g["mu_W"],
            "printed_max": printed_max, "printed_min": printed_min, "corrected_min": corrected_min,
            "control_max": sC["lmax"] + math.sqrt(gamma2) * g["L_W"],
            "clear": bool(s["clear"] and sC["clear"] and g["clear"])}


#: the cases per tier (random-shared-ident family points)
SETTINGS = per_tier(tiny=SeededCases(raw=3, families=0), quick=SeededCases(raw=16, families=2),
                    full=SeededCases(raw=80, families=6))


def _cases_local(tier: Tier) -> list[dict]:
    graphs = ["ring", "path", "star", "complete", "er"]
    cases = SETTINGS[tier.name]
    k = cases.raw
    factors = [0.1, 1.0, 10.0, 0.01, 3.0]  # case 0: ker C = 0 with γ²σ_min+²(W) < σ_min+²(C) (the printed formula's gap)
    scales = [1.0, 1e-3, 1e3]
    out = []
    for s in range(k):
        dt = 2 + s % 4
        # full column rank (p >= d̃, ker C = 0) on every other case, a kernel otherwise
        pt = dt + (s % 3) if s % 2 == 0 else max(1, dt - 1 - s % 2)
        spec = {"source": "raw", "seed": 100 + s, "n": 3 + s % 6, "graph": graphs[s % len(graphs)], "weights": ["random", "unit"][s % 2],
                "m": 0, "d": 0, "dt": dt, "pt": pt, "ident_Ct": True, "gamma_factor": factors[s % len(factors)],
                "scale_Ct": scales[s % 3], "scale_W": scales[(s // 3) % 3], "objective": False}
        if s % 6 == 4:
            spec["rank_Ct"] = max(1, dt - 1)  # rank-deficient even with p >= d̃
        out.append(spec)
    for s in range(cases.families):
        out.append({"source": "family", "family": "random-shared-ident", "seed": s, "gamma_factor": factors[s % 5],
                    "kw": {"pt": 2 + s % 4, "dt": 6, **({"kappa_Ct": 20.0} if s % 2 else {})}})
    return out



def _finalize_local(tier: Tier, pts: list[dict], ids: tuple) -> list[CheckResult]:
    label = LABEL
    consistent = all(approx_eq(p["smin2_B"], p["kron_min_pos"]) and approx_eq(p["smax2_B"], p["kron_max"]) for p in pts)
    max_ok = all(approx_eq(p["smax2_B"], p["printed_max"]) for p in pts)
    pmin_bad = [p for p in pts if not approx_eq(p["smin2_B"], p["printed_min"])]
    cmin_bad = [p for p in pts if not approx_eq(p["smin2_B"], p["corrected_min"])]
    lower_ok = all(approx_ge(p["smin2_B"], p["printed_min"]) for p in pts)
    worst = max(pmin_bad, key=lambda p: p["smin2_B"] / p["printed_min"], default=None)
    keys = ("dim_ker_C", "gamma2", "smax2_B", "smin2_B", "printed_max", "printed_min", "corrected_min", "smin2_C", "gamma2_mu_W")
    findings = ()
    if not consistent or not max_ok or cmin_bad:
        status = "fail"
    elif pmin_bad:
        status = "finding"
        findings = (Finding(
            id="lemma.local_spectrum.min", label=label,
            statement="σ_min+²(B) = min{σ_min+²(C), γ²σ_min+²(W)} for Bᵀ = [I⊗Cᵀ, γW⊗I]",
            printed=f"min{{σ_min+²(C), γ²σ_min+²(W)}} = {worst['printed_min']:.6g}",
            measured=f"σ_min+²(B) = {worst['smin2_B']:.6g} (case {worst['case']}: ker C = 0, σ_min+²(C) = {worst['smin2_C']:.6g}, "
                     f"γ²σ_min+²(W) = {worst['gamma2_mu_W']:.6g})",
            detail=("BᵀB = I⊗CᵀC + γ²W²⊗I has eigenvalues λ_i(CᵀC) + γ²λ_j(W)². When C has full column rank every λ_i(CᵀC) "
                    ">= σ_min+²(C) > 0, so the pair (0, γ²λ_min+(W)²) does not exist and σ_min+²(B) = σ_min+²(C) even when "
                    "γ²σ_min+²(W) is smaller. Corrected (checked on every case): σ_min+²(B) = min{σ_min+²(C), γ²σ_min+²(W)} "
                    "if ker C ≠ {0}, else σ_min+²(C); in all cases σ_min+²(B) >= min{σ_min+²(C), γ²σ_min+²(W)}, which is all "
                    f"the paper uses (with γ² = σ_min+²(C)/σ_min+²(W) both coincide). Printed form fails on {len(pmin_bad)} of "
                    f"{len(pts)} cases (all with ker C = 0 and γ²σ_min+²(W) < σ_min+²(C))."),
            source=ids[0]),)
    else:
        status = "pass"
    main = CheckResult(
        id=ids[0], kind="lemma", status=status, label=label,
        theory="σ_max²(B) = σ_max²(C) + γ²σ_max²(W);  σ_min+²(B) = min{σ_min+²(C), γ²σ_min+²(W)}",
        **reading("worst σ_min+²(B)/printed min", {
            "worst σ_min+²(B)/printed min": max((p["smin2_B"] / p["printed_min"] for p in pts), default=1.0),
            "worst |σ_max²(B)/printed − 1|": max(abs(p["smax2_B"] / p["printed_max"] - 1) for p in pts),
            "printed σ_min+² formula fails on": len(pmin_bad), "corrected fails on": len(cmin_bad),
            "lower bound σ_min+²(B) >= min{…} holds everywhere": lower_ok}),
        tolerance=EQ_RTOL, points=[compact_point(p, keys) for p in pts], instance={"cases": len(pts)}, findings=findings,
        detail=(f"{len(pts)} cases (identical C̃ with ker C = 0 and ≠ 0, rank-deficient C, γ² = f·σ_min+²(C)/σ_min+²(W) with "
                f"f ∈ {{0.01 … 10}}, scales 1e±3). Explicit B vs Kronecker-sum eigenvalues agree: {consistent}. σ_max² formula "
                f"exact on all cases: {max_ok}." + clear_note(pts)))
    caught = [p for p in pts if not approx_eq(p["smax2_B"], p["control_max"])]
    ctrl = CheckResult(
        id=ids[1], kind="lemma", status="fail" if caught else "pass", label=label, control=True, expected="fail",
        theory="σ_max²(B) = σ_max²(C) + γ·σ_max²(W)  (γ² replaced by γ)", tolerance=EQ_RTOL, instance={"cases": len(pts)},
        **reading("cases violating", {"cases violating": len(caught)}),
        detail=f"perturbed σ_max² formula violated on {len(caught)} of {len(pts)} cases.")
    return [main, ctrl]


ID = "lemma.local_spectrum"
LEMMA = LemmaCheck(
    id=ID, label=LABEL, description="Lemma lem:local_spectrum (identical constraints)",
    results=(Result(ID, finding="σ_min+²(B) = min{σ_min+²(C), γ²σ_min+²(W)} holds only when ker C ≠ 0; "
                                "otherwise it is σ_min+²(C)"),
             Result(f"{ID}.control", control=True)),
    cases=_cases_local, point=point_local_spectrum, finalize=_finalize_local)
