"""Chebyshev preconditioning (subsec:chebyshev_acc, app:Chebyshev_iteration)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from mixbounds.bounds.guards import SCALE_FLOOR
from mixbounds.checks.lemmas.base import (
    CHEB_ALG_RTOL,
    CHEB_EIG_TOL,
    EXACT_RTOL,
    SALIM_HI,
    SALIM_LO,
    LemmaCheck,
    Point,
    Result,
)
from mixbounds.checks.lemmas.cases import (
    seeded_rng,
)
from mixbounds.checks.run.result import CheckResult, reading
from mixbounds.checks.tiers import Tier, per_tier
from mixbounds.solvers.chebyshev import Chebyshev, chebyshev_degree, inverse_chebyshev_T

LABEL = "subsec:chebyshev_acc"


def inv_T(K: int, kappa: float) -> float:
    """``1/T_K(θ)``, ``θ = (κ+1)/(κ−1)``, computed here as ``1/cosh(K·arccosh θ)`` (0 for κ = 1).

    ``arccosh θ = log1p(x + √(x(2+x)))`` with ``x = θ − 1 = 2/(κ − 1)`` avoids cancellation near θ = 1.
    """
    if kappa <= 1.0:
        return 0.0
    x = 2.0 / (kappa - 1.0)
    a = math.log1p(x + math.sqrt(x * (2.0 + x)))
    z = K * a
    return 0.0 if z > 700 else 1.0 / math.cosh(z)


def cheb_residual(lam: np.ndarray, L: float, mu: float, K: int) -> np.ndarray:
    """``T_K((L + μ − 2λ)/(L − μ)) / T_K(θ)`` for ``λ ∈ [μ, L]`` (cos form), by direct evaluation."""
    if L <= mu:
        return 1.0 - lam / L
    x = np.clip((L + mu - 2.0 * lam) / (L - mu), -1.0, 1.0)
    return np.cos(K * np.arccos(x)) * inv_T(K, L / mu)


def point_chebyshev(case: dict, _cost: float = 0.0) -> dict:
    """Chebyshev preconditioning at degree ``K = ⌈√κ⌉``: the exact interval ``[1 − 1/T_K, 1 + 1/T_K]`` vs
    ``[11/15, 19/15]`` on a κ grid, and (``case["dense"]``) the eigenvalues of ``P(M)`` for a random
    rank-deficient PSD ``M`` with ``λ_max/λ_min+ = κ``: by this module's own evaluation of the
    residual polynomial and, when available, by :class:`mixbounds.solvers.chebyshev.Chebyshev` (Algorithm alg:chebyshev).
    """
    kappas = [float(k) for k in case["kappas"]]
    degree_rule = case.get("degree", "sqrt")
    rows = []
    for kap in kappas:
        if degree_rule == "sqrt":
            K = max(1, math.ceil(math.sqrt(kap) * (1 - 1e-12)))
        else:  # control: K = ⌈κ^{1/4}⌉
            K = max(1, math.ceil(kap ** 0.25 * (1 - 1e-12)))
        e = inv_T(K, kap)
        rows.append({"kappa": kap, "K": K, "inv_T": e, "lo": 1 - e, "hi": 1 + e,
                     "inside": bool(1 - e >= SALIM_LO and 1 + e <= SALIM_HI)})
    out = {"case": f"kappas[{len(kappas)}], degree {degree_rule}", "rows": rows,
           "max_inv_T": max(r["inv_T"] for r in rows), "all_inside": all(r["inside"] for r in rows)}
    out["solver_module"] = True
    out["degree_agrees"] = all(chebyshev_degree(r["kappa"], 1.0) == r["K"] for r in rows) if degree_rule == "sqrt" else None
    out["inv_T_agrees"] = all(abs(inverse_chebyshev_T(r["K"], r["kappa"], 1.0) - r["inv_T"]) <= EXACT_RTOL * max(r["inv_T"], 1e-30)
                              for r in rows)
    if case.get("dense"):
        rng = seeded_rng(int(case.get("seed", 0)), "chebyshev")
        dense = []
        for kap, r in zip(kappas, rows):
            N, rank = 40, 30
            scale = 10.0 ** rng.uniform(-3, 3)
            ev = np.zeros(N)
            ev[:rank] = np.exp(rng.uniform(0, math.log(kap), rank)) if kap > 1 else 1.0
            ev[0], ev[1] = 1.0, kap
            ev *= scale
            Uo = np.linalg.qr(rng.standard_normal((N, N)))[0]
            Mm = (Uo * ev) @ Uo.T
            Mm = 0.5 * (Mm + Mm.T)
            L, mu = kap * scale, scale
            # own evaluation: P(M) = U diag(1 − T̃_K(λ)) Uᵀ on range(M), 0 on ker M
            Pl = np.where(ev > 0, 1.0 - cheb_residual(ev, L, mu, r["K"]), 0.0)
            P_own = (Uo * Pl) @ Uo.T
            evP = np.linalg.eigvalsh(0.5 * (P_own + P_own.T))
            rec = {"kappa": kap, "K": r["K"], "scale": scale}
            Ur = Uo[:, :rank]
            on_range = np.linalg.eigvalsh(Ur.T @ P_own @ Ur)
            rec.update(own_min=float(on_range.min()), own_max=float(on_range.max()),
                       kernel_max=float(np.max(np.abs(evP[: N - rank]))) if N > rank else 0.0)
            if out.get("solver_module"):
                ch = Chebyshev(lambda v: Mm @ v, L, mu, r["K"], name="M")
                P_sol = ch.apply_P(np.eye(N))
                rec["solver_vs_own"] = float(np.max(np.abs(P_sol - P_own)) / max(np.max(np.abs(P_own)), SCALE_FLOOR))
                on_range_s = np.linalg.eigvalsh(Ur.T @ (0.5 * (P_sol + P_sol.T)) @ Ur)
                rec.update(solver_min=float(on_range_s.min()), solver_max=float(on_range_s.max()),
                           solver_interval=list(ch.interval))
            rec["within"] = bool(rec["own_min"] >= r["lo"] - CHEB_EIG_TOL and rec["own_max"] <= r["hi"] + CHEB_EIG_TOL)
            # the ends: λ = μ gives 1 − T_K(1)/T_K(θ) = 1 − 1/T_K; λ = L gives 1 − (−1)^K/T_K
            end_mu = 1 - cheb_residual(np.array([mu]), L, mu, r["K"])[0]
            rec["attains_lo"] = bool(abs(end_mu - r["lo"]) <= CHEB_EIG_TOL)
            dense.append(rec)
        out["dense"] = dense
    return out


@dataclass(frozen=True)
class ChebyshevGrids:
    """The grids of one tier: the κ grid of the interval check and the κ's of its dense P(M) check."""

    kappas: tuple
    dense_kappas: tuple


#: the grids per tier
SETTINGS = per_tier(
    tiny=ChebyshevGrids(kappas=(1.0, 2.0, 10.0, 100.0, 1e4, 1e6), dense_kappas=(4.0, 100.0)),
    quick=ChebyshevGrids(kappas=tuple(sorted({*np.logspace(0, 6, 61).tolist(),
                                              *[float(j * j) for j in (2, 3, 10, 31, 100, 316, 1000)], 1.0 + 1e-9, 1.5,
                                              3.99})),
                         dense_kappas=(1.0, 2.0, 10.0, 100.0, 1e3, 1e4, 1e6)),
    full=ChebyshevGrids(kappas=tuple(sorted({*np.logspace(0, 6, 1201).tolist(), *[float(j * j) for j in range(1, 1001)],
                                             1.0 + 1e-12})),
                        dense_kappas=(1.0, 1.5, 2.0, 4.0, 10.0, 99.0, 100.0, 1e3, 1e4, 1e5, 1e6)))


def _cases_cheb(tier: Tier) -> list[Point]:
    return [Point(point_chebyshev, {"kappas": list(SETTINGS[tier.name].kappas)}, "chebyshev interval grid"),
            Point(point_chebyshev, {"kappas": list(SETTINGS[tier.name].dense_kappas), "dense": True, "seed": 0}, "chebyshev dense P(M)"),
            Point(point_chebyshev, {"kappas": list(SETTINGS[tier.name].kappas), "degree": "quarter"}, "chebyshev control: degree κ^(1/4)")]


def _finalize_cheb(tier: Tier, pts: list[dict], ids: tuple) -> list[CheckResult]:
    label = LABEL
    grid, dense, ctrl = pts
    sup = 1.0 / math.cosh(2.0)
    worst = max(grid["rows"], key=lambda r: r["inv_T"])
    agree = grid.get("inv_T_agrees", True) and grid.get("degree_agrees", True) is not False
    res = [CheckResult(
        id=ids[0], kind="lemma", status="pass" if grid["all_inside"] and agree else "fail", label=label,
        theory="K = ⌈√κ⌉ ⇒ spectrum of P(BᵀB) in [1 − 1/T_K, 1 + 1/T_K] ⊂ [11/15, 19/15] (Salim et al. 2022, §6.3.2)",
        **reading("max 1/T_K over the grid", {
            "max 1/T_K over the grid": worst["inv_T"], "at κ": worst["kappa"], "4/15": 4 / 15,
            "1/cosh(2) (κ → ∞ limit)": sup,
            "interval at worst κ": [worst["lo"], worst["hi"]]}),
        tolerance=0.0, instance={"kappas": len(grid["rows"]), "range": [min(r["kappa"] for r in grid["rows"]), max(r["kappa"] for r in grid["rows"])]},
        points=[{k: r[k] for k in ("kappa", "K", "inv_T")} for r in grid["rows"][:: max(1, len(grid["rows"]) // 40)]],
        detail=(f"1/T_K computed as 1/cosh(K·arccosh θ), θ = (κ+1)/(κ−1), on {len(grid['rows'])} values of κ ∈ [1, 1e6] including "
                f"perfect squares (K = √κ exactly, the worst case). sup_κ 1/T_⌈√κ⌉ = 1/cosh(2) = {sup:.6f} < 4/15 = {4 / 15:.6f} "
                f"(as κ → ∞, T_√κ(θ) → cosh 2): the quoted [11/15, 19/15] holds with margin {4 / 15 - sup:.2e}. "
                f"mixbounds.solvers.chebyshev present: {grid.get('solver_module')}; its degree and 1/T_K agree: {agree}."))]
    dd = dense["dense"]
    ok = all(r["within"] and r["attains_lo"] and r["kernel_max"] <= CHEB_EIG_TOL for r in dd)
    sol = [r for r in dd if "solver_vs_own" in r]
    sol_ok = all(r["solver_vs_own"] <= CHEB_ALG_RTOL and r["solver_min"] >= SALIM_LO - CHEB_EIG_TOL
                 and r["solver_max"] <= SALIM_HI + CHEB_EIG_TOL for r in sol)
    res.append(CheckResult(
        id=ids[1], kind="lemma", status="pass" if ok and sol_ok else "fail", label="app:Chebyshev_iteration",
        theory="eigenvalues of P(M) on range(M) in [1 − 1/T_K, 1 + 1/T_K], ends attained; P(M) = 0 on ker M",
        **reading("max eig", {"min eig": min(r["own_min"] for r in dd), "max eig": max(r["own_max"] for r in dd),
                  "max |P_alg − P_own|/|P|": max((r["solver_vs_own"] for r in sol), default=None)}),
        tolerance=CHEB_EIG_TOL, instance={"kappas": [r["kappa"] for r in dd], "N": 40, "rank": 30},
        points=dd,
        detail=("P(M) = U diag(1 − T_K((L+μ−2λ)/(L−μ))/T_K(θ)) Uᵀ evaluated here (cos form) on random rank-30 PSD 40×40 M "
                "(spectrum ends μ, L present, scales 1e±3), and, "
                + ("by Algorithm alg:chebyshev in mixbounds.solvers.chebyshev (apply_P on the identity): they agree to "
                   f"{max((r['solver_vs_own'] for r in sol), default=float('nan')):.1e}." if sol else
                   "mixbounds.solvers.chebyshev not available: only the own evaluation was checked."))))
    res.append(CheckResult(
        id=ids[2], kind="lemma", status="pass" if ctrl["all_inside"] else "fail", label=label, control=True, expected="fail",
        theory="K = ⌈κ^{1/4}⌉ (wrong exponent) keeps the spectrum in [11/15, 19/15]", tolerance=0.0,
        **reading("kappas outside", {
            "max 1/T_K": ctrl["max_inv_T"], "kappas outside": sum(not r["inside"] for r in ctrl["rows"])}),
        instance={"kappas": len(ctrl["rows"])}, detail="degree κ^{1/4} leaves [11/15, 19/15] for large κ (a control must fail)."))
    return res


ID = "lemma.chebyshev_interval"
LEMMA = LemmaCheck(
    id=ID, label=LABEL, description="Chebyshev preconditioning: [1 ∓ 1/T_K] ⊂ [11/15, 19/15]",
    results=(Result(ID), Result(f"{ID}.dense"), Result(f"{ID}.control", control=True)),
    cases=_cases_cheb, finalize=_finalize_cheb)
