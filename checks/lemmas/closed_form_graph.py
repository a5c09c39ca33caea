"""Closed forms of the path graph (app:example_graph, eq:n_chi_relation)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from mixbounds.checks.lemmas.base import (
    PATH_ABS_TOL,
    LemmaCheck,
    Point,
    Result,
)
from mixbounds.checks.run.result import CheckResult, reading
from mixbounds.checks.tiers import Tier, per_tier
from mixbounds.instances.graphs import beta, laplacian, path_adjacency, path_size_for, tuned_path
from scipy.linalg import eigvalsh_tridiagonal


def point_path_eigenvalues(case: dict, _cost: float = 0.0) -> dict:
    """``λ_max = 2(1 + cos(π/n))``, ``λ_min+ = 2(1 − cos(π/n))`` of the unweighted path Laplacian (app:example_graph)."""
    rows = []
    for n in case["ns"]:
        Wp = laplacian(path_adjacency(int(n)))  # the suite's path Laplacian, eigenvalues by LAPACK's tridiagonal solver
        ev = eigvalsh_tridiagonal(Wp.diagonal(), Wp.diagonal(1))
        lmin = float(ev[1])
        c, c1 = math.cos(math.pi / n), math.cos(math.pi / (n + 1))
        rows.append({"n": int(n), "lambda_max": float(ev[-1]), "lambda_min_pos": lmin, "closed_max": 2 * (1 + c), "closed_min": 2 * (1 - c),
                     "holds": bool(abs(ev[-1] - 2 * (1 + c)) <= PATH_ABS_TOL and abs(lmin - 2 * (1 - c)) <= PATH_ABS_TOL),
                     "rel_err_min": abs(lmin / (2 * (1 - c)) - 1),
                     "control_holds": bool(abs(ev[-1] - 2 * (1 + c1)) <= PATH_ABS_TOL and abs(lmin - 2 * (1 - c1)) <= PATH_ABS_TOL)})
    return {"rows": rows}


def point_n_chi(case: dict, _cost: float = 0.0) -> dict:
    """eq:n_chi_relation: for the ``n`` of app:example_graph (``β_n <= κ_W < β_{n+3}``), the chain
    ``κ_W <= β_{n+3} <= 72(n+3)²/π² <= 288n²/π² <= 32n²`` and ``√κ_W <= 4√2 n``; plus the step
    ``1 − cos x >= x²/4`` on ``[0, π/3]``."""
    rows = []
    for k in case["kappas"]:
        n = path_size_for(float(k))
        b3 = beta(n + 3)
        chain = [float(k), b3, 72 * (n + 3) ** 2 / math.pi ** 2, 288 * n ** 2 / math.pi ** 2, 32.0 * n ** 2]
        rows.append({"kappa_W": float(k), "n": n, "chain": chain,
                     "holds": bool(all(a <= b * (1 + 1e-12) for a, b in zip(chain, chain[1:])) and math.sqrt(k) <= 4 * math.sqrt(2) * n
                                   and beta(n) <= k * (1 + 1e-9)),
                     "sqrt_kappa_over_n": math.sqrt(k) / n, "control_holds": bool(math.sqrt(k) <= 0.5 * n)})
    xs = np.linspace(0.0, math.pi / 3, 2001)
    cos_ok = bool(np.all(1 - np.cos(xs) >= xs ** 2 / 4 - 1e-15))
    tuned = [tuned_path(float(k)).kappa_W for k in case["kappas"][:5]]
    return {"rows": rows, "one_minus_cos": cos_ok, "tuned_ok": all(abs(t / k - 1) < 1e-8 for t, k in zip(tuned, case["kappas"][:5]))}


@dataclass(frozen=True)
class PathCases:
    """The grids of one tier: path sizes ``n`` of the eigenvalue closed form, κ_W values of the n–χ relation, and
    the decade ``kappa_W_decade`` the detail names as the top of that range."""

    path_sizes: tuple
    path_kappa_W: tuple
    kappa_W_decade: int


#: the grids per tier
SETTINGS = per_tier(
    tiny=PathCases(path_sizes=tuple(range(2, 40)), path_kappa_W=(3.0, 10.0, 100.0, 1e3), kappa_W_decade=5),
    quick=PathCases(path_sizes=tuple(range(2, 301)), path_kappa_W=tuple(np.logspace(np.log10(3.0), 5, 60).tolist()),
                    kappa_W_decade=5),
    full=PathCases(path_sizes=tuple(range(2, 1201)), path_kappa_W=tuple(np.logspace(np.log10(3.0), 6, 400).tolist()),
                   kappa_W_decade=6))


def _cases_closed_graph(tier: Tier) -> list[Point]:
    ns = list(SETTINGS[tier.name].path_sizes)
    ks = list(SETTINGS[tier.name].path_kappa_W)
    return [Point(point_path_eigenvalues, {"ns": ns}, "path eigenvalues"), Point(point_n_chi, {"kappas": ks}, "n_chi relation")]


def _finalize_closed_graph(tier: Tier, pts: list[dict], ids: tuple) -> list[CheckResult]:
    pe, nc = pts
    rows = pe["rows"]
    bad = [r["n"] for r in rows if not r["holds"]]
    res = [CheckResult(
        id=ids[0], kind="closed-form", status="pass" if not bad else "fail", label="app:example_graph",
        theory="λ_max(W) = 2(1 + cos(π/n)), λ_min+(W) = 2(1 − cos(π/n)) (unweighted path Laplacian)",
        **reading("max |λ_min+/closed − 1|", {
            "max |λ_min+/closed − 1|": max(r["rel_err_min"] for r in rows), "n range": [rows[0]["n"], rows[-1]["n"]]}),
        tolerance=PATH_ABS_TOL, instance={"n": len(rows)}, points=rows[:: max(1, len(rows) // 30)],
        detail=f"eigenvalues of the path Laplacian (LAPACK tridiagonal) for n = {rows[0]['n']}…{rows[-1]['n']}, absolute error <= {PATH_ABS_TOL:g}; "
               f"the builders' tuned-path records are checked in lemma.closed_form.worst_case_graphs."
               + ("" if not bad else f" FAILS for n = {bad[:5]}"))]
    caught = [r["n"] for r in rows if not r["control_holds"]]
    res.append(CheckResult(
        id=ids[1], kind="closed-form", status="fail" if caught else "pass", label="app:example_graph", control=True, expected="fail",
        theory="2(1 ± cos(π/(n+1))) (the Dirichlet path's eigenvalues)",
        **reading("n violating", {"n violating": len(caught)}), tolerance=PATH_ABS_TOL,
        detail=f"the wrong closed form fails for {len(caught)} of {len(rows)} n."))
    bad = [r["kappa_W"] for r in nc["rows"] if not r["holds"]]
    res.append(CheckResult(
        id=ids[2], kind="closed-form", status="pass" if not bad and nc["one_minus_cos"] and nc["tuned_ok"] else "fail",
        label="eq:n_chi_relation",
        theory="κ_W <= β_{n+3} <= 72(n+3)²/π² <= 288n²/π² <= 32n²  ⇒  √κ_W <= 4√2 n",
        **reading("max √κ_W/n", {
            "max √κ_W/n": max(r["sqrt_kappa_over_n"] for r in nc["rows"]), "4√2": 4 * math.sqrt(2)}),
        tolerance=1e-12, instance={"kappas": len(nc["rows"])},
        points=[{k: r[k] for k in ("kappa_W", "n", "sqrt_kappa_over_n")} for r in nc["rows"][:: max(1, len(nc["rows"]) // 30)]],
        detail=(f"every link of the chain on {len(nc['rows'])} values of κ_W ∈ [3, 1e{SETTINGS[tier.name].kappa_W_decade}], with n from "
                f"app:example_graph; 1 − cos x >= x²/4 on [0, π/3]: {nc['one_minus_cos']}; tuned paths reach κ_W: {nc['tuned_ok']}. "
                "(Asymptotically √κ_W ≈ 2n/π, so 4√2 is loose by a factor ~9, as an O(n) statement needs.)"
                + ("" if not bad else f" FAILS at κ_W = {bad[:5]}"))))
    caught = [r["kappa_W"] for r in nc["rows"] if not r["control_holds"]]
    res.append(CheckResult(
        id=ids[3], kind="closed-form", status="fail" if caught else "pass", label="eq:n_chi_relation", control=True, expected="fail",
        theory="√κ_W <= n/2 (constant 4√2 replaced by 1/2)",
        **reading("κ_W violating", {"κ_W violating": len(caught)}), tolerance=0.0,
        detail=f"the perturbed constant fails for {len(caught)} of {len(nc['rows'])} κ_W."))
    return res


B = "lemma.closed_form"
LEMMA = LemmaCheck(
    id=f"{B}.graph", label="app:example_graph", kind="closed-form", description="path-graph closed forms of app:example_graph",
    results=(Result(f"{B}.path_eigenvalues"), Result(f"{B}.path_eigenvalues.control", control=True),
             Result(f"{B}.n_chi_relation"), Result(f"{B}.n_chi_relation.control", control=True)),
    cases=_cases_closed_graph, finalize=_finalize_closed_graph)
