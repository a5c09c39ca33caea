"""Lemma ``lem:strong_conv_G_penal``."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from mixbounds.bounds.concepts import WorstFamily
from mixbounds.checks.lemmas.base import (
    INEQ_RTOL,
    PSD_MARGIN,
    LemmaCheck,
    Result,
    approx_ge,
    block_diag_dense,
    block_scaling,
    clear_note,
    compact_point,
    mu_tilde_dense,
)
from mixbounds.checks.lemmas.cases import (
    consensus_complement,
    describe,
    gossip_extremes,
    group_extremes,
    interaction_min_pos,
    materialize,
    sv2,
)
from mixbounds.checks.run.result import CheckResult, reading
from mixbounds.checks.tiers import Tier, per_tier

LABEL = "lem:strong_conv_G_penal"


def point_strong_conv_penal(case: dict, _cost: float = 0.0) -> dict:
    """Lemma ``lem:strong_conv_G_penal``: modulus of ``F(x, x̃) + (r²/ε)‖Kz − v‖²`` on ``X × L_m^⊥ × X̃``.

    ``K = diag(B, B̃)``, ``B = [[A, αW⊗I_m], [βC, 0]]``, ``B̃ = [C̃; γW⊗I_d̃]``, ``α² = (μ_A + L_A)/μ_W``,
    ``ε = 4r²μ_A/μ_f · eps_factor`` (``eps_factor <= 1`` satisfies the hypothesis; the control uses a
    violating value).  ``r`` only enters through ``r²/ε``.  ``β, γ`` as in the paper (eq:block_scaling;
    lem:coupled_spectrum for C̃ᵀ, or γ² = σ_min+²(C̃)/μ_W for identical C̃) and also ``β = γ = 0``
    (the weakest K: the extra rows only add positive semidefinite terms).
    """
    M = materialize(case)
    n, m, dt = M.n, M.m, M.dt
    d = M.d
    dx = int(sum(d))
    mu_f = min(float(np.linalg.eigvalsh(Q)[0]) for Q in M.Q)
    L_A, mu_A = group_extremes(M.A)
    g = gossip_extremes(M.W)
    a2 = (mu_A + L_A) / g["mu_W"]
    r = float(case.get("r", 1.0))
    eps = 4 * r ** 2 * mu_A / mu_f * float(case.get("eps_factor", 1.0))
    eps_ctrl = 400 * r ** 2 * (mu_A + L_A) / mu_f
    # β, γ of the paper
    if M.C is not None:
        L_S, _ = interaction_min_pos(M.A)
        L_C, mu_C = group_extremes(M.C)
        b2 = block_scaling(L_A, L_S, mu_tilde_dense(M.A, M.C, L_A), g["mu_W"], mu_C)[1]
    else:
        b2 = 0.0
    if dt > 0 and M.Ct is not None:
        if all(np.array_equal(c, M.Ct[0]) for c in M.Ct):
            c2 = sv2(M.Ct[0])["lmin_pos"] / g["mu_W"]
        else:
            LCt, _ = group_extremes(M.Ct)
            _, lamSt = interaction_min_pos(M.Ct, transpose=True)
            c2 = (lamSt + LCt) / g["mu_W"]
    else:
        c2 = 1.0 if dt > 0 else 0.0
    # Hessian of F on (x, x̃) in u-layout, embedded into z = (x, y, x̃)
    ny, nt = n * m, n * dt
    N = dx + ny + nt
    HF = np.zeros((N, N))
    offs = np.concatenate([[0], np.cumsum(d)]).astype(int)
    for i, Q in enumerate(M.Q):
        idx = np.concatenate([np.arange(offs[i], offs[i + 1]), dx + ny + i * dt + np.arange(dt)]).astype(int)
        HF[np.ix_(idx, idx)] += Q
    Wd = M.W.toarray()
    A = block_diag_dense(M.A)

    def K_rows(b2_, c2_):
        rows = [np.hstack([A, math.sqrt(a2) * np.kron(Wd, np.eye(m)), np.zeros((ny, nt))])]
        if M.C is not None and b2_ > 0:
            Cb = block_diag_dense(M.C)
            rows.append(np.hstack([math.sqrt(b2_) * Cb, np.zeros((Cb.shape[0], ny + nt))]))
        if dt > 0:
            if M.Ct is not None:
                Ctb = block_diag_dense(M.Ct)
                rows.append(np.hstack([np.zeros((Ctb.shape[0], dx + ny)), Ctb]))
            if c2_ > 0:
                rows.append(np.hstack([np.zeros((nt, dx + ny)), math.sqrt(c2_) * np.kron(Wd, np.eye(dt))]))
        return np.vstack(rows)

    U = sp.block_diag([sp.identity(dx), sp.csr_matrix(consensus_complement(n, m)), sp.identity(nt)]).toarray() if nt else \
        sp.block_diag([sp.identity(dx), sp.csr_matrix(consensus_complement(n, m))]).toarray()

    # the proof's last-but-one line: D >= μ_f/4‖(dx, dy)‖² + μ_f/2‖dx̃‖², i.e. ∇² ⪰ diag(μ_f/2, μ_f/2, μ_f)
    Dproof = np.diag(np.concatenate([np.full(dx + ny, mu_f / 2), np.full(nt, mu_f)]))

    def modulus(b2_, c2_, eps_):
        K = K_rows(b2_, c2_)
        H = HF + (2 * r ** 2 / eps_) * K.T @ K
        Hr = U.T @ H @ U
        return float(np.linalg.eigvalsh(Hr)[0]), float(np.linalg.eigvalsh(Hr - U.T @ Dproof @ U)[0])

    (mu_paper, marg_paper), (mu_weak, marg_weak) = modulus(b2, c2, eps), modulus(0.0, 0.0, eps)
    mu_ctrl = modulus(0.0, 0.0, eps_ctrl)[0]
    worst = min(mu_paper, mu_weak)
    return {"case": describe(case), "n": n, "m": m, "dt": dt, "mu_f": mu_f, "L_A": L_A, "mu_A": mu_A, "alpha2": a2, "beta2": b2,
            "gamma2": c2, "eps": eps, "r2_over_eps": r ** 2 / eps, "mu_paper_scaling": mu_paper, "mu_beta_gamma_zero": mu_weak,
            "modulus": worst, "ratio_half": worst / (mu_f / 2.0), "ratio_quarter": worst / (mu_f / 4.0),
            "modulus_over_mu_f": worst / mu_f, "control_modulus": mu_ctrl,
            "proof_margin_over_mu_f": min(marg_paper, marg_weak) / mu_f, "clear": bool(g["clear"])}


@dataclass(frozen=True)
class PenalCases:
    """The cases of one tier: ``raw`` seeded random matrices, ``named`` the two family points below, ``sweep``
    random-mixed points over decades of κ̃_AC and κ_f, and ``worst`` the mixed construction's point."""

    raw: int
    named: bool
    sweep: int
    worst: bool


#: the cases per tier
SETTINGS = per_tier(tiny=PenalCases(raw=2, named=False, sweep=0, worst=False),
                    quick=PenalCases(raw=12, named=True, sweep=0, worst=False),
                    full=PenalCases(raw=60, named=True, sweep=4, worst=True))


def _cases_penal(tier: Tier) -> list[dict]:
    graphs = ["ring", "path", "er", "star", "complete"]
    cases = SETTINGS[tier.name]
    k = cases.raw
    scales = [(1.0, 1.0, 1.0), (1e-3, 1.0, 1e3), (1e3, 1e-3, 1.0), (1.0, 1e3, 1e-3)]
    out = []
    for s in range(k):
        n = 3 + s % 5
        sa, sw, sf = scales[s % len(scales)]
        dt = [0, 2, 3][s % 3]
        spec = {"source": "raw", "seed": 500 + s, "n": n, "graph": graphs[s % len(graphs)], "weights": ["random", "unit"][s % 2],
                "m": 1 + s % 3, "d": [3 + (s + i) % 3 for i in range(n)], "dt": dt, "kappa_f": [10.0, 2.0, 100.0][s % 3],
                "scale_A": sa, "scale_W": sw, "scale_f": sf, "eps_factor": [1.0, 0.1, 1.0, 0.01][s % 4]}
        if s % 2 == 1:
            spec["p"] = 1
        if dt and s % 4 != 3:
            spec.update(pt=1 + s % 2, ident_Ct=bool(s % 5 == 2))
        if s % 5 == 3:
            spec["rank_A"] = 1
        out.append(spec)
    if cases.named:
        out += [{"source": "family", "family": "random-mixed", "seed": 0, "kw": {"n": 5}},
                {"source": "family", "family": "random-mixed-ident", "seed": 1, "kw": {"n": 4, "kappa_AC": 30.0}}]
    out += [{"source": "family", "family": "random-mixed", "seed": 10 + s, "kw": {"kappa_AC": 10.0 ** (1 + s % 2), "kappa_f": 10.0 ** (1 + s % 2)}}
            for s in range(cases.sweep)]
    if cases.worst:
        out.append({"source": "worst", "family": WorstFamily.MIXED,
                    "kw": {"kappa_W": 10.0, "kappa_C": 10.0, "kappa_AC": 20.0, "kappa_Ct": 10.0, "kappa_f": 10.0, "chain": 8,
                           "variant": "shared-rows"}})
    return out



def _finalize_penal(tier: Tier, pts: list[dict], ids: tuple) -> list[CheckResult]:
    label = LABEL
    bad = [p for p in pts if not approx_ge(p["modulus"], p["mu_f"] / 2.0)]
    w = min(p["modulus_over_mu_f"] for p in pts)
    proof_ok = all(p["proof_margin_over_mu_f"] >= -PSD_MARGIN * max(1.0, p["L_A"] * p["r2_over_eps"] / p["mu_f"]) for p in pts)
    keys = ("m", "dt", "mu_f", "mu_A", "L_A", "eps", "mu_paper_scaling", "mu_beta_gamma_zero", "modulus", "ratio_half")
    main = CheckResult(
        id=ids[0], kind="lemma", status="pass" if not bad and proof_ok else "fail", label=label,
        theory="F + (r²/ε)‖Kz − v‖² is μ_f/2-strongly convex on X × L_m^⊥ × X̃ (α² = (μ_A+L_A)/μ_W, ε <= 4r²μ_A/μ_f)",
        **reading("worst modulus/(μ_f/2)", {
            "worst modulus/μ_f": w, "worst modulus/(μ_f/2)": min(p["ratio_half"] for p in pts),
            "worst modulus/(μ_f/4)": min(p["ratio_quarter"] for p in pts)}),
        tolerance=INEQ_RTOL, points=[compact_point(p, keys) for p in pts], instance={"cases": len(pts)},
        detail=(f"{len(pts)} cases (quadratic F on (x_i, x̃_i), with/without C and C̃ (identical or not), ε = 4r²μ_A/μ_f·{{1, 0.1, "
                f"0.01}}, paper β, γ and β = γ = 0; scales 1e±3; random-mixed families). Worst modulus {w:.4g}·μ_f. Statement vs "
                "proof: the proof's last line D >= (μ_f/4)‖z' − z‖² is modulus μ_f/2 under D >= (μ/2)‖·‖² (the convention of its "
                "own first step D_F >= (μ_f/2)‖·‖²), so statement and proof agree; the proof writes γW where K has αW (the "
                "substitution of α² shows γ means α), its first line K(z̃' − z) for K(z' − z), and it assumes "
                "ass:nonsmooth_and_str_convex_of_f_i with μ_f >= 0 where the lemma says μ_f > 0: notation only. The proof's "
                f"last-but-one line, D >= μ_f/4‖(dx, dy)‖² + μ_f/2‖dx̃‖², holds as a matrix inequality on every case: {proof_ok}."
                + ("" if not bad else f" VIOLATED: {[p['case'] for p in bad[:3]]}") + clear_note(pts)))
    caught = [p for p in pts if not approx_ge(p["control_modulus"], p["mu_f"] / 2.0)]
    ctrl = CheckResult(
        id=ids[1], kind="lemma", status="fail" if caught else "pass", label=label, control=True, expected="fail",
        theory="μ_f/2-strong convexity with ε = 400r²(μ_A + L_A)/μ_f (the hypothesis ε <= 4r²μ_A/μ_f violated)",
        tolerance=INEQ_RTOL,
        **reading("cases violating", {"cases violating": len(caught)}), instance={"cases": len(pts)},
        detail=f"with the penalty weakened, the modulus falls below μ_f/2 on {len(caught)} of {len(pts)} cases.")
    return [main, ctrl]


ID = "lemma.strong_conv_G_penal"
LEMMA = LemmaCheck(
    id=ID, label=LABEL, description="Lemma lem:strong_conv_G_penal: modulus of the penalised objective",
    results=(Result(ID), Result(f"{ID}.control", control=True)),
    cases=_cases_penal, point=point_strong_conv_penal, finalize=_finalize_penal)
