"""The two remarks after Definition ``def:mixed_condition_number`` (they carry no label of their own).

1. The transposition order matters: ``B_i = e_i ∈ R^{n×1}`` gives ``κ̂_B = n`` and ``κ̂_{Bᵀ} = 1``, and in general
   ``κ̂_{Bᵀ} ≠ κ̂_B``.
2. Equal blocks ``B_1 = … = B_n = B`` reduce the mixed condition number to the usual one:
   ``κ̂_B = κ̂_{Bᵀ} = κ_B = σ_max²(B)/σ_min+²(B)``.

Both sides are computed twice: by the suite's :func:`mixbounds.bounds.condition.mixed_kappa` and by the dense helpers of
:mod:`mixbounds.checks.lemmas.cases` (``max_i λ_max(B_iB_iᵀ)`` over ``λ_min+`` of ``S_B`` or ``S_{Bᵀ}``), so a slip in either
shows.  Negative control: the first remark with ``n`` and ``1`` swapped (``κ̂_B = 1``, ``κ̂_{Bᵀ} = n``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from mixbounds.bounds.condition import mixed_kappa
from mixbounds.checks.lemmas.base import SUITE_RTOL, LemmaCheck, Point, Result, approx_eq
from mixbounds.checks.lemmas.cases import group_extremes, interaction_min_pos, random_block, seeded_rng, sv2
from mixbounds.checks.run.result import CheckResult, reading
from mixbounds.checks.tiers import Tier, per_tier

LABEL = "def:mixed_condition_number"
#: closed forms of the remarks hold to rounding of a dense eigendecomposition of size <= 40
REMARK_RTOL = 1e-9


def _dense_mixed(blocks: list, transpose: bool) -> float:
    """``max_i λ_max(B_iB_iᵀ) / λ_min+(S_B)`` (or the ``Bᵀ`` version), with the dense helpers of ``cases``."""
    bl = [b.T for b in blocks] if transpose else blocks
    L, _ = group_extremes(bl)
    _, lam = interaction_min_pos(bl, ref=L)
    return L / lam


def point_remark(case: dict, _cost: float = 0.0) -> dict:
    """Both mixed condition numbers of one case: ``{"unit": n}`` (``B_i = e_i``), ``{"identical": seed, ...}``
    (``n`` copies of one random block, possibly rank-deficient) or ``{"generic": seed, ...}`` (independent blocks)."""
    if "unit" in case:
        n = int(case["unit"])
        blocks = [np.eye(n)[:, [i]] for i in range(n)]
    else:
        key = "identical" if "identical" in case else "generic"
        rng = seeded_rng(int(case[key]), "mixed-condition-remark")
        n, r, c = int(case["n"]), int(case["rows"]), int(case["cols"])
        rank, scale = case.get("rank"), float(case.get("scale", 1.0))
        if key == "identical":
            B = random_block(rng, r, c, rank=rank, cond=float(case.get("cond", 10.0)), scale=scale)
            blocks = [B] * n
        else:
            blocks = [random_block(rng, r, c, rank=rank, cond=float(case.get("cond", 10.0)), scale=scale * (1 + i))
                      for i in range(n)]
    sp_blocks = [sp.csr_matrix(b) for b in blocks]
    kind = "unit" if "unit" in case else "identical" if "identical" in case else "generic"
    out = {"case": str(case), "kind": kind, "n": len(blocks),
           "kappa_hat": mixed_kappa(sp_blocks), "kappa_hat_T": mixed_kappa(sp_blocks, transpose=True),
           "kappa_hat_dense": _dense_mixed(blocks, False), "kappa_hat_T_dense": _dense_mixed(blocks, True)}
    if "identical" in case:
        s = sv2(blocks[0])
        out["kappa_B"] = s["lmax"] / s["lmin_pos"]
    return out


@dataclass(frozen=True)
class RemarkCases:
    """The cases of one tier: the sizes n of the B_i = e_i example and the random cases."""

    units: tuple
    cases: int


#: the cases per tier
SETTINGS = per_tier(tiny=RemarkCases(units=(2, 3), cases=2), quick=RemarkCases(units=(2, 3, 5, 8, 13), cases=6),
                    full=RemarkCases(units=tuple(range(2, 41)), cases=40))


def _cases(tier: Tier) -> list[Point]:
    units = SETTINGS[tier.name].units
    k = SETTINGS[tier.name].cases
    out = [Point(point_remark, {"unit": n}, f"B_i = e_i, n = {n}") for n in units]
    for s in range(k):
        spec = {"n": 2 + s % 5, "rows": 1 + s % 4, "cols": 1 + (s * 3) % 5, "scale": [1.0, 1e-3, 1e3][s % 3]}
        if s % 3 == 1:
            spec["rank"] = 1
        out.append(Point(point_remark, {"identical": 500 + s, **spec}, f"identical blocks #{s}"))
        out.append(Point(point_remark, {"generic": 600 + s, **dict(spec, rows=2 + s % 3, cols=2 + s % 3)},
                         f"independent blocks #{s}"))
    return out


def _finalize(tier: Tier, pts: list[dict], ids: tuple) -> list[CheckResult]:
    unit, ident, generic = ([p for p in pts if p["kind"] == k] for k in ("unit", "identical", "generic"))
    suite_ok = all(approx_eq(p["kappa_hat"], p["kappa_hat_dense"], SUITE_RTOL) and approx_eq(p["kappa_hat_T"], p["kappa_hat_T_dense"], SUITE_RTOL)
                   for p in pts)
    err_unit = max(max(abs(p["kappa_hat"] / p["n"] - 1), abs(p["kappa_hat_T"] - 1)) for p in unit)
    differ = [p for p in generic if not approx_eq(p["kappa_hat"], p["kappa_hat_T"], SUITE_RTOL)]
    t_ok = err_unit <= REMARK_RTOL and suite_ok
    first = CheckResult(
        id=ids[0], kind="lemma", status="pass" if t_ok else "fail", label=LABEL,
        theory="B_i = e_i: κ̂_B = n, κ̂_{Bᵀ} = 1; in general κ̂_{Bᵀ} ≠ κ̂_B (first remark after def:mixed_condition_number)",
        **reading("worst relative error of κ̂_B = n, κ̂_{Bᵀ} = 1", {
            "worst relative error of κ̂_B = n, κ̂_{Bᵀ} = 1": err_unit, "unit-vector cases": len(unit),
            "independent-block cases with κ̂_B ≠ κ̂_{Bᵀ}": len(differ), "independent-block cases": len(generic),
            "suite (bounds.condition) agrees with the dense computation": suite_ok}),
        tolerance=REMARK_RTOL, points=[{k: p[k] for k in ("case", "n", "kappa_hat", "kappa_hat_T")} for p in unit + generic],
        detail=(f"B_i = e_i for n in {[p['n'] for p in unit]}: κ̂_B/n and κ̂_(Bᵀ) within {err_unit:.2g} of 1. Independent "
                f"random blocks: κ̂_B ≠ κ̂_(Bᵀ) on {len(differ)} of {len(generic)} (the 'in general'). Suite vs dense: "
                f"{'agree' if suite_ok else 'DISAGREE'} within {SUITE_RTOL:g}."))
    err_id = max(max(abs(p["kappa_hat"] / p["kappa_B"] - 1), abs(p["kappa_hat_T"] / p["kappa_B"] - 1)) for p in ident)
    second = CheckResult(
        id=ids[1], kind="lemma", status="pass" if err_id <= SUITE_RTOL and suite_ok else "fail", label=LABEL,
        theory="B_1 = … = B_n = B: κ̂_B = κ̂_{Bᵀ} = κ_B (second remark after def:mixed_condition_number)",
        **reading("worst relative error of κ̂_B = κ̂_{Bᵀ} = κ_B", {
            "worst relative error of κ̂_B = κ̂_{Bᵀ} = κ_B": err_id, "cases": len(ident)}),
        tolerance=SUITE_RTOL, points=[{k: p[k] for k in ("case", "n", "kappa_hat", "kappa_hat_T", "kappa_B")} for p in ident],
        detail=(f"{len(ident)} cases of n copies of one random block (shapes 1..4 × 1..5, rank 1 or full, scales 1e±3): "
                f"worst relative deviation {err_id:.2g}."))
    caught = [p for p in unit if not (approx_eq(p["kappa_hat"], 1.0, REMARK_RTOL) and approx_eq(p["kappa_hat_T"], p["n"], REMARK_RTOL))]
    ctrl = CheckResult(
        id=ids[2], kind="lemma", status="fail" if caught else "pass", label=LABEL, control=True, expected="fail",
        theory="B_i = e_i: κ̂_B = 1, κ̂_{Bᵀ} = n (the remark's transposition order swapped)", tolerance=REMARK_RTOL,
        **reading("cases violating", {"cases violating": len(caught)}), instance={"cases": len(unit)},
        detail=f"the swapped closed forms fail on {len(caught)} of {len(unit)} unit-vector cases (a control must fail).")
    return [first, second, ctrl]


ID = "lemma.mixed_condition_remarks"
LEMMA = LemmaCheck(
    id=ID, label=LABEL, description="The two remarks after def:mixed_condition_number",
    results=(Result(f"{ID}.transposition"), Result(f"{ID}.identical"), Result(f"{ID}.control", control=True)),
    cases=_cases, finalize=_finalize)
