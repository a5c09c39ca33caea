"""Tightness on the certifying construction itself: APAPC and the engine on the same instances.

A certified statement is *tight* when the paper's method (APAPC with Chebyshev acceleration, :mod:`mixbounds.solvers`)
needs, on the very construction that certifies the lower bound, a count that grows like the bound: the ratio
(APAPC's count per decade of accuracy) / (the engine's count per decade) is *flat* in the swept parameter when its
slope is within the tier's Table 1 ratio tolerance of the slope a solver following the cell's formula would give
over the grid (0 for a single monomial; for the mixed communication sum, whose bound here is one part's, the
formula's slope minus the bound's).  Flatness is a reading the certificates report (``tightness.flat``, the
report's table); a ratio that is not flat is *explained* (``tightness.explained``) when its slope splits
(:func:`decomposition`) into a per-iteration count that follows the bound within the tolerance and APAPC iterations
per accuracy that fall — APAPC is then faster than its worst case on this construction (its count grows more slowly
than the bound, while the ratio stays above 1), which contradicts neither the lower bound nor the theorem, whose
iteration count does not grow with the swept parameter; the result fails when APAPC needs fewer rounds than the engine's bound at some point (impossible:
the engine or the solver is wrong).  The printed worst-case families get this from the rate checks
(:func:`mixbounds.checks.rates.tightness_extra`); here it is measured on every other certifying construction —
the cited mixed combination, the documented variants, the split gradient chain — at the points of its own
lower-bound sweep (the same task group: one instance, one KKT solve, shared by APAPC and the engine).

Tiers (``lower.tightness_*``): the quick tier measures the κ_f sweep of each construction at its first two points (the
others cost seconds per APAPC run and live in the full tier); the full tier every parameter at the sweep's points up
to the tier's ``tightness_max_kappa`` (APAPC's count per iteration grows like √κ·degree).  Results ``<cell>.<param>.tightness@<suffix>``.
"""

from __future__ import annotations

import math

from mixbounds.checks.lower.exact import WINDOW_DECADES
from mixbounds.checks.rates import upper_point
from mixbounds.checks.run.framework import Check, Task
from mixbounds.checks.run.result import CheckResult, reading
from mixbounds.checks.sweeps import PARAM_REALIZED, UB_EPS1, UB_EPS2, fit_slope, formula_slope
from mixbounds.checks.tiers import Tier

#: APAPC's iteration budget on these instances (the rate checks' default)
MAX_ITER = 100_000


def points(tier: Tier, c, param: str, grid) -> list[float]:
    """The sweep points APAPC runs at: the tier's ``lower.tightness_*`` (module docstring)."""
    lb = tier.lower
    if lb.tightness_params is not None and param not in lb.tightness_params:
        return []
    g = grid(tier, param, c)
    if lb.tightness_points is not None:
        return g[: lb.tightness_points]
    return [v for v in g if v <= lb.tightness_max_kappa * (1 + 1e-9)]


def apapc_task(params: dict) -> Task:
    return Task(upper_point, {"family": params.pop("_family"), "params": params, "method": "apapc", "max_iter": MAX_ITER},
                label="APAPC (tightness)")


def judge(tier: Tier, cell, param: str, key: str, eng_pts: list, up_pts: list, *, rid: str, construction: str,
          variant: str | None) -> CheckResult:
    """Ratio of APAPC's to the engine's count per decade at each point, and the slope of that ratio."""
    rows, errs = [], []
    for (v, lp), (_, up) in zip(eng_pts, up_pts):
        b = (lp.get("bounds") or {}).get(key)
        if "error" in up or not up.get("converged") or "per_accuracy" not in up:
            errs.append(f"{param}={v:g}: APAPC {up.get('error') or up.get('reason') or up.get('window_error')}")
            continue
        if b is None or not b.get("per_accuracy"):
            errs.append(f"{param}={v:g}: no engine bound {key}")
            continue
        ub = up["per_accuracy"][cell.oracle] / math.log10(UB_EPS1 / UB_EPS2)
        lb = b["per_accuracy"] / WINDOW_DECADES
        rows.append({"target": v, "realized": lp["realized"].get(PARAM_REALIZED[param]), "solver_per_decade": ub,
                     "engine_per_decade": lb, "ratio": ub / lb, "apapc_iterations": up["iterations"],
                     "iterations_per_decade": up.get("iterations_window", float("nan")) / math.log10(UB_EPS1 / UB_EPS2),
                     "per_iteration": (up.get("per_iteration") or {}).get(cell.oracle)})
    common = dict(kind="tightness", theory=0.0, tolerance=tier.table1.ratio_tol, cell=cell.id, param=param,
                  label=cell.source, variant=variant,
                  instance={"construction": construction, "method": "apapc", "bound": key})
    if errs or len(rows) < 2:
        return CheckResult(id=rid, status="error", points=rows, detail="; ".join(errs) or "fewer than two points",
                           **common)
    xs = [r["realized"] for r in rows]
    f = fit_slope(xs, [r["ratio"] for r in rows])
    lower = fit_slope(xs, [r["engine_per_decade"] for r in rows])["slope"]
    fs = formula_slope(cell, param, [lp["realized"] for _, lp in eng_pts if "realized" in lp])
    expected = fs - lower  # a solver that follows the cell's formula over the grid against this construction's bound
    flat = abs(f["slope"] - expected) <= tier.table1.ratio_tol
    parts = decomposition(rows, xs)
    explained = (not flat and parts is not None and abs(parts["per_iteration_vs_bound"] - expected) <= tier.table1.ratio_tol
                 and parts["iterations"] < 0.0)
    below = [r for r in rows if r["ratio"] < 1.0]
    detail = (f"APAPC / engine per decade on {construction}: {[round(r['ratio'], 3) for r in rows]} at {param} = "
              f"{[round(x, 3) for x in xs]}; slope {f['slope']:+.3f}, expected {expected:+.3f} (formula slope {fs:.3f} "
              f"over the grid − the bound's {lower:.3f}); {'flat' if flat else 'not flat'} (tol {tier.table1.ratio_tol})"
              + ("" if parts is None else f"; the slope splits into APAPC's iterations per decade {parts['iterations']:+.3f} "
                 f"and its per-iteration count against the bound {parts['per_iteration_vs_bound']:+.3f}")
              + (f"; explained: the per-iteration count follows the bound and APAPC's iterations per accuracy fall "
                 f"(APAPC is faster than its worst case on this construction; the theorem's iteration count does not "
                 f"grow with {param})" if explained else "")
              + (f"; APAPC BELOW the engine's bound at {[r['target'] for r in below]}" if below else ""))
    return CheckResult(id=rid, status="fail" if below else "pass", points=rows, detail=detail, ci=tuple(f["ci"]),
                       extra={"ratios": [r["ratio"] for r in rows], "construction": construction, "flat": bool(flat),
                              "expected_slope": expected, "decomposition": parts, "explained": bool(explained)},
                       **reading("slope", {"slope": f["slope"], "expected_slope": expected,
                                           "ratio_min": min(r["ratio"] for r in rows),
                                           "ratio_max": max(r["ratio"] for r in rows)}),
                       **common)


def decomposition(rows: list, xs: list) -> dict | None:
    """The ratio's log-slope as the sum of APAPC's iterations per decade of accuracy and its per-iteration count
    against the engine's bound per decade (``None`` where APAPC did not report both)."""
    it = [r["iterations_per_decade"] for r in rows]
    per = [r["per_iteration"] for r in rows]
    if any(v is None or not math.isfinite(v) or v <= 0 for v in it + per):
        return None
    return {"iterations": fit_slope(xs, it)["slope"],
            "per_iteration_vs_bound": fit_slope(xs, [p / r["engine_per_decade"] for p, r in zip(per, rows)])["slope"]}


def tightness_check(c, cells, *, task, grid, key, result_id) -> Check | None:
    """The tightness results of one certifying construction ``c`` (not the printed worst-case families)."""
    if c.suffix is None or not cells:
        return None

    def up(tier, p, v):
        t = task(tier, c, p, v)
        return apapc_task(dict(t.kwargs["params"], _family=t.kwargs["family"]))

    def rids(tier):
        return [result_id(cell, p, c) for p in c.swept(tier) if points(tier, c, p, grid) for cell in cells
                if cell.exponent(p) > 0]

    def tasks(tier):
        return [t for p in c.swept(tier) for v in points(tier, c, p, grid) for t in (task(tier, c, p, v), up(tier, p, v))]

    def finalize(tier, pts):
        out = []
        for p in c.swept(tier):
            vs = points(tier, c, p, grid)
            if not vs:
                continue
            eng = [(v, pts[task(tier, c, p, v).key]) for v in vs]
            ups = [(v, pts[up(tier, p, v).key]) for v in vs]
            out += [judge(tier, cell, p, key(c, cell, p), eng, ups, rid=result_id(cell, p, c), construction=c.name,
                          variant=c.suffix) for cell in cells if cell.exponent(p) > 0]
        return out

    return Check(id=f"tightness.{c.family}@{c.suffix}", family="lower", result_ids=rids, tasks=tasks, finalize=finalize,
                 tiers=c.tiers, description=f"APAPC against the engine on {c.family} ({c.name}), same instances")
