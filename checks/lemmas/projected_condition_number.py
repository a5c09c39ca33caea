"""Remark ``rem:projected_condition_number``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from mixbounds.bounds.condition import mixed_kappa, projected_kappa
from mixbounds.checks.lemmas.base import (
    INEQ_RTOL,
    SAME_RTOL,
    SUBSPACE_TOL,
    SUITE_RTOL,
    LemmaCheck,
    Result,
    approx_eq,
    approx_ge,
    approx_le,
    compact_point,
    mu_tilde_dense,
)
from mixbounds.checks.lemmas.cases import (
    describe,
    group_extremes,
    interaction_min_pos,
    intersection,
    materialize,
    orth_kernel,
    orth_range,
    subspace_equal,
    sv2,
)
from mixbounds.checks.run.result import CheckResult, Finding, reading
from mixbounds.checks.tiers import Tier, per_tier

LABEL = "rem:projected_condition_number"


def point_projected_remark(case: dict, _cost: float = 0.0) -> dict:
    """Remark ``rem:projected_condition_number``: κ̃_BD vs κ̂_B, the case D = 0, and the kernel identity.

    ``B_i`` are the ``A_i`` of the case, ``D_i`` its ``C_i``; ``case["example_t"]`` gives the
    counterexample ``n = 1, B = (1, t), D = (0, 1)``; ``case["unit_columns"]`` gives ``B_i = e_i``
    (the transposition example of def:mixed_condition_number).  ``M = B'``, ``L = ker D``.
    """
    if "example_t" in case:
        t = float(case["example_t"])
        Bs, Ds = [np.array([[1.0, t]])], [np.array([[0.0, 1.0]])]
    elif "example_drop" in case:
        e = float(case["example_drop"])
        Bs, Ds = [np.diag([1.0, e])], [np.array([[0.0, 1.0]])]
    elif "unit_columns" in case:
        k = int(case["unit_columns"])
        Bs, Ds = [np.eye(k)[:, [i]] for i in range(k)], None
    else:
        M_ = materialize(case)
        Bs, Ds = M_.A, M_.C
    n = len(Bs)
    L, _ = group_extremes(Bs)
    _, lamS = interaction_min_pos(Bs, ref=L)
    kappa_hat = L / lamS
    mu_t = mu_tilde_dense(Bs, Ds, L) if Ds is not None else lamS
    kappa_tilde = L / mu_t if mu_t > 0 else 1.0
    Bsp = [sp.csr_matrix(b) for b in Bs]
    suite_tilde0 = projected_kappa(Bsp, None).kappa
    suite_hat = mixed_kappa(Bsp)
    # κ̂_{Bᵀ} needs blocks with a common column dimension
    suite_hat_T = mixed_kappa(Bsp, transpose=True) if len({b.shape[1] for b in Bs}) == 1 else None
    out = {"case": describe(case) if "source" in case else str({k: v for k, v in case.items()}), "n": n,
           "example": "source" not in case,
           "L_B": L, "lambda_min_pos_S_B": lamS, "kappa_hat": kappa_hat, "mu_tilde": mu_t, "kappa_tilde": kappa_tilde,
           "ratio_tilde_over_hat": kappa_tilde / kappa_hat, "kappa_tilde_D0_suite": suite_tilde0, "kappa_hat_suite": suite_hat,
           "kappa_hat_T_suite": suite_hat_T}
    if Ds is not None:
        Mm = np.hstack(Bs)                                        # B' = (B_1 … B_n)
        N = sp.block_diag([sp.csr_matrix(orth_kernel(Dd)) for Dd in Ds]).toarray()  # basis of L = ker D
        P = N @ N.T
        ref = sv2(Mm)["lmax"]
        Kmp = orth_kernel(Mm @ P, ref=ref)                        # ker(M P_L) by SVD ...
        row_MP = orth_kernel(Kmp.T) if Kmp.shape[1] else np.eye(P.shape[0])  # ... and its complement: ker^⊥(M P_L)
        row_M = orth_range(Mm.T, ref=ref)                         # ker^⊥ M
        printed = intersection(row_M, N)                          # ker^⊥ M ∩ L
        corrected = orth_range(P @ row_M)                         # P_L(ker^⊥ M): a basis of ker^⊥ M, projected
        eq_p, sin_p = subspace_equal(row_MP, printed)
        eq_c, sin_c = subspace_equal(row_MP, corrected)
        sub_p = float(np.linalg.norm(printed - row_MP @ (row_MP.T @ printed), 2)) if printed.shape[1] else 0.0
        out.update({"dim_row_MP": row_MP.shape[1], "dim_printed": printed.shape[1], "dim_corrected": corrected.shape[1],
                    "identity_printed": eq_p, "identity_corrected": eq_c, "sin_printed": sin_p, "sin_corrected": sin_c,
                    "rank_M": row_M.shape[1], "rank_MP": row_MP.shape[1], "printed_subset_sin": sub_p,
                    "suite_tilde": projected_kappa(Bsp, [sp.csr_matrix(Dd) for Dd in Ds]).kappa})
    return out


@dataclass(frozen=True)
class RemarkCases:
    """The cases of one tier: ``raw`` seeded random matrices, the box half-widths ``example_t`` and rank drops
    ``example_drop`` of the remark's examples, ``family_pairs`` (random coupled + local, random mixed) family pairs
    and ``worst`` the coupled + local construction's point."""

    raw: int
    example_t: tuple
    example_drop: tuple
    family_pairs: int
    worst: bool


#: the cases per tier
SETTINGS = per_tier(
    tiny=RemarkCases(raw=3, example_t=(1.0, 3.0), example_drop=(0.1,), family_pairs=0, worst=False),
    quick=RemarkCases(raw=16, example_t=(0.5, 1.0, 3.0, 10.0), example_drop=(0.1, 0.01), family_pairs=1, worst=True),
    full=RemarkCases(raw=80, example_t=(0.5, 1.0, 3.0, 10.0), example_drop=(0.1, 0.01), family_pairs=4, worst=True))


def _cases_remark(tier: Tier) -> list[dict]:
    cases = SETTINGS[tier.name]
    k = cases.raw
    out = [{"example_t": t} for t in cases.example_t]
    out.append({"unit_columns": 4})
    out += [{"example_drop": e} for e in cases.example_drop]
    for s in range(k):
        n = 2 + s % 6
        m = 1 + s % 4
        d = [3 + (s + i) % 4 for i in range(n)]
        spec = {"source": "raw", "seed": 700 + s, "n": n, "graph": "ring" if n > 2 else "path", "m": m, "d": d,
                "p": 1 + s % 3, "scale_A": [1.0, 1e-3, 1e3][s % 3], "scale_C": [1.0, 1e3, 1e-3][s % 3], "objective": False}
        if s % 4 == 2:
            spec["m"] = 5  # m > d_i − p_i
        if s % 8 == 7:
            spec.update(n=2, graph="path", d=[3, 3], p=2, m=3)  # m > Σ(d_i − p_i): projecting drops rank
        if s % 5 == 1:
            spec["rank_A"] = 1
        out.append(spec)
    out += [{"source": "family", "family": f, "seed": s, "kw": {}} for s, f in
            enumerate(["random-coupled-local", "random-mixed"] * cases.family_pairs)]
    if cases.worst:
        out.append({"source": "worst", "family": "coupled-local",
                    "kw": {"kappa_W": 10.0, "kappa_C": 10.0, "kappa_AC": 20.0, "kappa_f": 10.0, "chain": 10, "variant": "shared-rows"}})
    return out



def _identity_result(withD: list[dict], ids: tuple) -> CheckResult:
    """The printed identity ``ker^⊥(M P_L) = ker^⊥M ∩ L`` on the cases with ``D ≠ 0`` (a finding when the printed
    side fails and the corrected ``P_L(ker^⊥M)`` holds)."""
    label = LABEL
    id_bad_p = [p for p in withD if not p["identity_printed"]]
    id_bad_c = [p for p in withD if not p["identity_corrected"]]
    subset_ok = all(p["printed_subset_sin"] <= SUBSPACE_TOL for p in withD)
    if id_bad_p and not id_bad_c:
        st, fnd = "finding", (Finding(
            id=ids[2], label=label, statement="ker^⊥(M P_L) = ker^⊥M ∩ L",
            printed="ker^⊥(M P_L) = ker^⊥M ∩ L",
            measured=f"fails on {len(id_bad_p)} of {len(withD)} cases (e.g. B = (1, t), D = (0, 1): left span(e1), right {{0}})",
            detail=(f"Corrected (checked on all {len(withD)} cases, principal angles <= 1e-8; left side as the orthogonal complement "
                    "of the SVD kernel of M P_L, right side as the projection of a basis of ker^⊥M): ker^⊥(M P_L) = P_L(ker^⊥M) = "
                    f"range(P_L Mᵀ), which contains ker^⊥M ∩ L (checked: {subset_ok}) but is in general larger."),
            source=ids[2]),)
    else:
        st, fnd = ("pass" if not id_bad_p else "fail"), ()
    return CheckResult(
        id=ids[2], kind="lemma", status=st, label=label, theory="ker^⊥(M P_L) = ker^⊥M ∩ L", findings=fnd,
        **reading("printed fails on", {
            "printed fails on": len(id_bad_p), "corrected fails on": len(id_bad_c), "cases": len(withD)}),
        tolerance=SUBSPACE_TOL, instance={"cases": len(withD)},
        points=[compact_point(p, ("dim_row_MP", "dim_printed", "dim_corrected", "sin_printed", "sin_corrected")) for p in withD],
        detail="subspaces compared by principal angles (max sine <= 1e-8).")


def _finalize_remark(tier: Tier, pts: list[dict], ids: tuple) -> list[CheckResult]:
    label = LABEL
    withD = [p for p in pts if "identity_printed" in p]
    random = [p for p in withD if not p["example"]]
    drops = [p for p in withD if p["mu_tilde"] > 0 and p["rank_MP"] < p["rank_M"]]
    drop_below = [p for p in drops if p["kappa_tilde"] < p["kappa_hat"] * (1 - INEQ_RTOL)]
    viol = [p for p in withD if p["mu_tilde"] > 0 and not approx_le(p["kappa_tilde"], p["kappa_hat"])]
    worst = max((p for p in withD if p["mu_tilde"] > 0), key=lambda p: p["ratio_tilde_over_hat"])
    worst_rand = max((p["ratio_tilde_over_hat"] for p in random if p["mu_tilde"] > 0), default=float("nan"))
    same_rank = [p for p in withD if p["mu_tilde"] > 0 and p["rank_MP"] == p["rank_M"]]
    corr_bad = [p for p in same_rank if not approx_ge(p["kappa_tilde"], p["kappa_hat"])]
    ex = [p for p in withD if "example_t" in p["case"]]
    suite_ok = all(approx_eq(p["kappa_tilde"], p["suite_tilde"], SUITE_RTOL) for p in withD if p["mu_tilde"] > 0)
    res = []
    if viol and not corr_bad:
        st, fnd = "finding", (Finding(
            id=ids[0], label=label, statement="if μ̃_BD > 0 then κ̃_BD <= κ̂_B",
            printed="κ̃_BD <= κ̂_B",
            measured=f"κ̃_BD/κ̂_B up to {worst['ratio_tilde_over_hat']:.6g} ({worst['case']}); worst over random seeds {worst_rand:.6g}; "
                     f"violated on {len(viol)} of {len(withD)} cases with D ≠ 0",
            detail=("Counterexample n = 1, B = (1, t), D = (0, 1): κ̃_BD = 1 + t², κ̂_B = 1 (checked for t ∈ "
                    f"{[p['case'] for p in ex]}). Projecting onto ker D never increases B'P B'ᵀ (B'PB'ᵀ ≼ B'B'ᵀ), so whenever "
                    "rank(B'P_kerD) = rank(B') the inequality is reversed: corrected (checked on "
                    f"{len(same_rank)} cases): κ̃_BD >= κ̂_B if rank(B'P_kerD) = rank(B'); with a rank drop either order occurs "
                    f"({len(drop_below)} of {len(drops)} rank-drop cases have κ̃ < κ̂, e.g. B = diag(1, e), D = (0, 1): κ̃ = 1, "
                    "κ̂ = 1/e²). "
                    "The argument's σ_min+(MP_L) >= σ_min+(M) rests on the false identity ker^⊥(MP_L) = ker^⊥M ∩ L."),
            source=ids[0]),)
    else:
        st, fnd = ("pass" if not viol else "fail"), ()
    res.append(CheckResult(
        id=ids[0], kind="lemma", status=st, label=label, theory="κ̃_BD <= κ̂_B when μ̃_BD > 0",
        **reading("worst κ̃/κ̂", {
            "worst κ̃/κ̂": worst["ratio_tilde_over_hat"], "worst κ̃/κ̂ over random seeds": worst_rand,
            "cases violating": len(viol), "cases with D": len(withD)}),
        tolerance=INEQ_RTOL, findings=fnd, instance={"cases": len(withD)},
        points=[compact_point(p, ("kappa_hat", "kappa_tilde", "mu_tilde", "ratio_tilde_over_hat", "rank_M", "rank_MP")) for p in withD],
        detail=f"κ̃ from the dense projected interaction matrix; agrees with mixbounds.bounds.condition.projected_kappa: {suite_ok}."))
    eq_bad = [p for p in pts if not (approx_eq(p["kappa_tilde_D0_suite"], p["kappa_hat_suite"], SAME_RTOL)
                                       and approx_eq(p["kappa_hat_suite"], p["kappa_hat"], SUITE_RTOL))]
    res.append(CheckResult(
        id=ids[1], kind="lemma", status="pass" if not eq_bad else "fail", label=label, theory="κ̃_BD = κ̂_B when D = 0",
        **reading("max |κ̃_B0/κ̂_B − 1|", {
            "max |κ̃_B0/κ̂_B − 1|": max(abs(p["kappa_tilde_D0_suite"] / p["kappa_hat_suite"] - 1) for p in pts)}),
        tolerance=SAME_RTOL, instance={"cases": len(pts)},
        detail=f"projected_kappa(B, None) vs mixed_kappa(B) (and the dense κ̂) on {len(pts)} cases."))
    res.append(_identity_result(withD, ids))
    res.append(CheckResult(
        id=ids[3], kind="lemma", status="pass" if not corr_bad else "fail", label=label,
        theory="κ̃_BD >= κ̂_B whenever rank(B'P_kerD) = rank(B') (derived here)",
        **reading("worst κ̃/κ̂ on equal-rank cases", {
            "worst κ̃/κ̂ on equal-rank cases": min((p["ratio_tilde_over_hat"] for p in same_rank),
                                                  default=float("nan")),
            "cases": len(same_rank)}),
        tolerance=INEQ_RTOL, instance={"cases": len(same_rank)},
        detail="B'PB'ᵀ ≼ B'B'ᵀ with equal ranges gives λ_min+(B'PB'ᵀ) <= λ_min+(B'B'ᵀ) (Courant–Fischer on the common range)."))
    caught = [p for p in pts if p["kappa_hat_T_suite"] is not None and not approx_eq(p["kappa_tilde_D0_suite"], p["kappa_hat_T_suite"], SAME_RTOL)]
    res.append(CheckResult(
        id=ids[4], kind="lemma", status="fail" if caught else "pass", label=label, control=True, expected="fail",
        theory="κ̃_BD = κ̂_{Bᵀ} when D = 0 (transposition order swapped)", tolerance=SAME_RTOL,
        **reading("cases violating", {"cases violating": len(caught)}), instance={"cases": len(pts)},
        detail=f"the swapped equality fails on {len(caught)} of {len(pts)} cases (B_i = e_i gives κ̂_B = n, κ̂_Bᵀ = 1)."))
    return res


ID = "lemma.projected_condition_number"
LEMMA = LemmaCheck(
    id=ID, label=LABEL, description="Remark rem:projected_condition_number",
    results=(Result(f"{ID}.inequality", finding="κ̃_BD <= κ̂_B is false (B = (1, t), D = (0, 1): κ̃ = 1 + t², κ̂ = 1)"),
             Result(f"{ID}.equality_D0"),
             Result(f"{ID}.kernel_identity", finding="ker^⊥(MP_L) = P_L(ker^⊥ M), not ker^⊥M ∩ L"),
             Result(f"{ID}.corrected_inequality"),
             Result(f"{ID}.control", control=True)),
    cases=_cases_remark, point=point_projected_remark, finalize=_finalize_remark,
    task_label=lambda c: describe(c) if "source" in c else str(c))
