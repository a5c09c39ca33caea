"""The verdicts of ``mixbounds bench`` and ``mixbounds.testing``: a user's method judged with its uncertainty.

One result per class × family × oracle × parameter, judged by the suite's one verdict engine
(:func:`mixbounds.checks.verdict_engine.judge_sweep`) with the rules of this module passed in as named functions.
The fitted quantity is the per-accuracy count between ``ε₁ = 1e-2`` and ``ε₂ = 1e-6`` (rate-based, on the error
envelope: :func:`mixbounds.checks.bench.per_accuracy`) against the realized swept parameter, in log-log; its slope
comes with a 95% confidence interval (Student t on the points' scatter) and R².

**The band.**  What an optimal method's slope may be (:func:`band`): on the worst-case construction as printed,
the lower bound's exponent ± ``tol`` — the engine's measured lower-bound slope where the engine certifies the paper's
exponent on that construction, else the paper's exponent (the slope of the cell's formula along the realized
points); on a random family, where the paper's bound is an upper bound only, ``(−∞, θ + tol]``.  ``tol`` is the
tier's Table 1 slope tolerance, as for ``verify`` (``Tier.table1.slope_tol``: tiny 0.25, quick 0.12).

**The verdict** (:func:`mixbounds.checks.verdict.interval_verdict` of the CI against the band):

* ``below-lower-bound``: at some point the method's first crossing of an error level (1e-2 or 1e-6) took fewer
  rounds of the oracle than the engine's bound for every method of the class on the same instance — impossible in
  the class (``def:foda``): the method bypasses the counters or leaves the class (checked first);
* ``error``: a point failed (the method raised, yielded a wrong shape or a non-finite value, diverged, returned,
  never yielded within ``--yield-timeout``, exceeded ``--method-timeout``, changed the instance, had no per-accuracy
  window), or the instance could not be built;
* ``optimal``: the whole 95% CI lies inside the band, and no point ended at the budget;
* ``suboptimal``: the whole CI lies above the band.  A run that ended at the budget is *censored*: its count is a
  lower bound (rounds from the row where the error settled below ``ε₁`` to the last row, or to where it settled
  below ``ε₂`` — under the assumption that it does not rise above ``ε₁`` again); the verdict may use it for
  ``suboptimal`` only when every censored point lies above the mean of ``log x`` (where a larger count can only
  raise the slope), never for ``optimal``;
* ``inconclusive``: anything else, with what would decide it (more points, a wider range, a longer budget).

Flags, beside the verdict: a count series that is not monotone where the band says it must grow; points whose error
left ``ε₁`` or ``ε₂`` again after its first crossing (:mod:`mixbounds.solvers.stop_rule`, the count to ε); censored
and dropped budget points.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mixbounds.bounds.concepts import Oracle
from mixbounds.checks.lower.slopes import LB_DECADES, slope_verdict
from mixbounds.checks.sweeps import PARAM_REALIZED, UB_EPS1, UB_EPS2, cells_of, fit_slope, formula_slope
from mixbounds.checks.tiers import Tier
from mixbounds.checks.verdict import interval_verdict
from mixbounds.checks.verdict_engine import (
    Fit,
    Judgement,
    Selection,
    Stop,
    SweepRules,
    Unjudged,
    bound_comparisons,
    judge_sweep,
)

VERDICTS = ("optimal", "suboptimal", "inconclusive", "below-lower-bound", "error")
#: fewest measured points with a finite 95% CI (two points fit any line exactly)
MIN_POINTS = 3
#: decades of accuracy of the per-accuracy window (ε₁ → ε₂)
DECADES = math.log10(UB_EPS1 / UB_EPS2)
#: what the counts of a bench result include (``counts_basis`` of every result; the report says it too)
COUNTS_BASIS = {
    "per_accuracy": "rounds between the errors 1e-2 and 1e-6 (a difference: set-up not included); rate-based on the "
                    "error envelope, i.e. counted where the error stays below each level",
    "count_to": "rounds from the start to the first row after which the error stays at or below each level (the "
                "count to ε), the first crossing beside it and whether the error left the level again",
    "abs": "rounds from the start to the first crossing of each error level (set-up included: everything the method "
           "did through its oracles, constants estimation too; the below-lower-bound test uses these)",
    "censored": "a run that ended at the budget: rounds from where its error settled below 1e-2 to its last row (or "
                "to where it settled below 1e-6), a lower bound on its per-accuracy count",
    "apapc_setup_counts": "rounds APAPC spent estimating constants, summed over the sweep (lemma constants: 0); "
                          "its right-hand side is in its counts",
}


@dataclass(frozen=True)
class MethodPoint:
    """A judged point of a user's method (the row the engine fits: ``realized`` → ``per_accuracy``)."""

    target: float
    realized: float
    per_accuracy: float
    censored: bool
    per_iteration: float | None
    iterations: int
    ratio_apapc: float | None
    lower_per_decade: float | None
    left_again: tuple
    count_to: dict
    abs: dict
    method_seconds: float | None
    params: dict | None
    rebuild: str | None

    @property
    def ratio(self) -> float | None:
        """The count per decade of accuracy over the engine's lower bound per decade on the same instance."""
        return None if not self.lower_per_decade else (self.per_accuracy / DECADES) / self.lower_per_decade

    def to_dict(self) -> dict:
        return {"target": self.target, "realized": self.realized, "per_accuracy": self.per_accuracy,
                "censored": self.censored, "per_iteration": self.per_iteration, "iterations": self.iterations,
                "ratio_apapc": self.ratio_apapc, "lower_per_decade": self.lower_per_decade, "ratio": self.ratio,
                "left_again": list(self.left_again), "count_to": self.count_to, "abs": self.abs,
                "method_seconds": self.method_seconds, "params": self.params, "rebuild": self.rebuild}


def band(kind: str, reference: float, tol: float) -> tuple[float, float]:
    """The slopes an optimal method may have (module docstring): ``reference ± tol`` on the worst-case construction,
    ``(−∞, reference + tol]`` on a random family (an upper bound only)."""
    return (reference - tol if kind == "worst" else -math.inf, reference + tol)


# ----------------------------------------------------------------------------- the engine's stages
def screen(param: str):
    """A point that cannot be fitted: the instance (``instance``), the method's failure (``error``), a budget-ended
    run without a lower bound (``budget``); a budget-ended run with one is a censored row, not screened."""

    def rule(v: float, p: dict) -> Unjudged | None:
        if "error" in p:
            return Unjudged(v, f"{param}={v:g}: task failed: {p['error']}")
        if "instance_error" in p:
            return Unjudged(v, f"{param}={v:g}: instance could not be built: {p['instance_error']}", "instance")
        if "method_error" in p:
            return Unjudged(v, f"{param}={v:g}: method error: {p['method_error']}")
        if not p["converged"]:
            fe = p.get("final_error")
            fe = f"{fe:.2e}" if isinstance(fe, float) else str(fe)
            why = f"{param}={v:g}: {p['reason']} after {p['iterations']} iterations (final error {fe})"
            if p["reason"] != "budget":
                return Unjudged(v, why)
            if "per_accuracy" not in (p.get("censored") or {}):
                return Unjudged(v, f"{why}: {(p.get('censored') or {}).get('why', 'no lower bound')}", "budget")
            return None
        if "per_accuracy" not in p:
            return Unjudged(v, f"{param}={v:g}: {p.get('window_error', 'no per-accuracy cost')}")
        return None

    return rule


def row(param: str, oracle: str, apapc: dict, lower: dict):
    """The :class:`MethodPoint` of a point; ``apapc``/``lower``: grid value → APAPC's per-accuracy count of the oracle
    and the engine's bound per decade on the same instance."""

    def make(v: float, p: dict) -> MethodPoint:
        cen = "per_accuracy" not in p
        per = (p["censored"] if cen else p)["per_accuracy"][oracle]
        ap = apapc.get(v)
        left = tuple(k for k, c in (p.get("count_to") or {}).items() if c.get("left_again"))
        return MethodPoint(target=v, realized=p["realized"].get(PARAM_REALIZED[param]), per_accuracy=per, censored=cen,
                           per_iteration=None if cen else (p.get("per_iteration") or {}).get(oracle),
                           iterations=p["iterations"],
                           ratio_apapc=None if cen or not ap else per / ap, lower_per_decade=lower.get(v),
                           left_again=left, count_to=p.get("count_to") or {}, abs=p.get("abs") or {},
                           method_seconds=p.get("method_seconds"), params=p.get("params"), rebuild=p.get("rebuild"))

    return make


def unjudged(unj: list[Unjudged], rows: list) -> Stop | None:
    """A failed point is ``error``; budget points without a bound are left out (listed); fewer than
    :data:`MIN_POINTS` fitted points is ``inconclusive``."""
    fails = [u.why for u in unj if u.kind in ("error", "instance")]
    if fails:
        return Stop("error", "; ".join(fails), extra={"verdict": "error"})
    dropped = [u.why for u in unj if u.kind == "budget"]
    if len(rows) < MIN_POINTS:
        decide = ("a longer budget (--max-iter)" if dropped else "") or "a tier with more points per sweep"
        return Stop("pass", f"only {len(rows)} measured point(s), a 95% CI needs {MIN_POINTS}"
                    + (f" ({len(dropped)} ended at the budget without a lower bound: {'; '.join(dropped)})"
                       if dropped else "") + f"; {decide} would decide",
                    extra={"verdict": "inconclusive", "decide": decide, "dropped": dropped})
    return None


def fit(rows: list) -> Fit | Stop:
    """The log-log fit of the counts; equal counts at every point are an exact slope 0 (no scatter), and a zero count
    among non-zero ones has no log-log slope (``inconclusive``)."""
    ys = [r.per_accuracy for r in rows]
    if len(set(ys)) == 1:
        return Fit(0.0, (0.0, 0.0), math.nan, {"slope": 0.0, "ci": (0.0, 0.0), "r2": math.nan, "n": len(ys),
                                               "constant": True})
    if min(ys) <= 0:
        return Stop("pass", f"no log-log slope: per-accuracy counts {ys} include zero", points=rows,
                    extra={"verdict": "inconclusive", "decide": "an oracle the method calls at every point"})
    return Fit.of(fit_slope([r.realized for r in rows], ys))


# ----------------------------------------------------------------------------- the last stage
def _range(rows: list) -> dict:
    xs = [r.realized for r in rows]
    return {"lo": min(xs), "hi": max(xs), "decades": math.log10(max(xs) / min(xs)) if min(xs) > 0 else math.nan}


def flags(rows: list, must_grow: bool) -> list[str]:
    """What a reader should see beside the verdict (module docstring)."""
    out = []
    srt = sorted(rows, key=lambda r: r.realized)
    drops = [f"{a.realized:.3g}→{b.realized:.3g}: {a.per_accuracy:.4g}→{b.per_accuracy:.4g}"
             for a, b in zip(srt, srt[1:]) if b.per_accuracy < a.per_accuracy]
    if must_grow and drops:
        out.append("count series not monotone (" + "; ".join(drops) + ")")
    left = [f"{r.realized:.3g} (ε {', '.join(r.left_again)})" for r in rows if r.left_again]
    if left:
        out.append("error left ε again after its first crossing at " + ", ".join(left)
                   + " (counted where it stays)")
    cen = [f"{r.realized:.3g}" for r in rows if r.censored]
    if cen:
        out.append("ended at the budget (count is a lower bound) at " + ", ".join(cen))
    return out


def judge_rule(kind: str, param: str, oracle: str, reference: float, reference_kind: str, tol: float, theory: float):
    """The last stage: the CI against :func:`band` (module docstring), with the flags and what would decide."""
    lo, hi = band(kind, reference, tol)

    def judge(f: Fit, sel: Selection, unj) -> Judgement:
        rows = sel.rows
        rng = _range(rows)
        censored = [r for r in rows if r.censored]
        dropped = [u.why for u in unj if u.kind == "budget"]
        where = interval_verdict(f.ci, lo, hi)
        mean_lx = float(np.mean([math.log(r.realized) for r in rows]))
        cens_safe = all(math.log(r.realized) > mean_lx for r in censored)
        if where == "inside" and not censored:
            verdict, why = "optimal", "the 95% CI lies inside the band"
        elif where == "above" and (not censored or cens_safe):
            verdict = "suboptimal"
            why = "the 95% CI lies wholly above the band" + (
                " even with the budget-censored counts (lower bounds, at the top of the range)" if censored else "")
        else:
            verdict, why = "inconclusive", _undecided(where, f.ci, lo, hi, censored, cens_safe)
        decide = why if verdict == "inconclusive" else None
        band_text = (f"[{lo:.3f}, {hi:.3f}]" if math.isfinite(lo) else f"<= {hi:.3f}")
        fit_text = (f"{oracle} slope {f.slope:.3f} (95% CI {f.ci[0]:.3f}..{f.ci[1]:.3f}, R² {f.r2:.3f}, "
                    f"{len(rows)} points over {rng['decades']:.2f} decades of realized {param} "
                    f"{rng['lo']:.3g}..{rng['hi']:.3g})")
        fl = flags(rows, must_grow=reference - tol > 0)
        paper = "" if reference_kind.startswith("paper") else f"; paper's exponent {theory:g}"
        detail = (f"{verdict}: {fit_text} vs band {band_text} ({reference_kind} {reference:.3f}, tol {tol}{paper}): "
                  f"{why}" + (f"; dropped: {'; '.join(dropped)}" if dropped else "")
                  + ("; flags: " + "; ".join(fl) if fl else ""))
        return Judgement("pass", detail, {"verdict": verdict, "band": [lo, hi], "range": rng, "flags": fl,
                                          "decide": decide, "censored": len(censored), "dropped": dropped,
                                          "points_used": len(rows)})

    return judge


def _undecided(where: str, ci, lo: float, hi: float, censored: list, cens_safe: bool) -> str:
    """What would decide an ``inconclusive`` verdict."""
    if where == "undefined":
        return "the CI is not finite: more points decide"
    if censored and where == "above" and not cens_safe:
        return (f"{len(censored)} budget-censored point(s) below the middle of the range, where a lower bound can "
                "lower the slope: a longer budget (--max-iter) decides")
    if censored and where == "inside":
        return (f"{len(censored)} point(s) ended at the budget, so the counts there are lower bounds and the true "
                "slope may be larger: a longer budget (--max-iter) decides")
    if where == "below":
        return ("the CI lies below the lower bound's exponent: the counts approach the bound from above over this "
                "range (pre-asymptotic); a range at larger values decides")
    width, allowed = ci[1] - ci[0], hi - lo
    more = (f"the 95% CI ({ci[0]:.3f}..{ci[1]:.3f}, width {width:.2f}) is wider than the band (width {allowed:.2f}): "
            if math.isfinite(allowed) and width > allowed else
            f"the 95% CI ({ci[0]:.3f}..{ci[1]:.3f}) straddles the band's edge: ")
    return more + "more points per sweep (tier full) or a wider range decide" + (
        "; a longer budget (--max-iter) for the censored points" if censored else "")


# ----------------------------------------------------------------------------- one result
def _cell(cls: str, oracle: str):
    return next(c for c in cells_of(cls) if c.oracle == oracle)


def _lower_slope(tier: Tier, plan, cell, lpts) -> dict:
    """The engine's per-accuracy lower bound on this sweep: per point (per decade) and its slope/verdict."""
    if cell.oracle == Oracle.GRAD or not lpts:  # gradient bounds need the sum-trick families (checks.lower.slopes)
        return {"slope": None, "status": None, "per_decade": {}, "part": None}
    r = slope_verdict(tier, cell, plan.sweep.param, plan.sweep, lpts)
    per = {p["target"]: (None if p.get("per_accuracy") in (None, 0) else p["per_accuracy"] / LB_DECADES)
           for p in r.points if "target" in p}
    slope = r.measured if isinstance(r.measured, float) and math.isfinite(r.measured) else None
    return {"slope": slope, "ci": r.ci, "status": r.status, "per_decade": per, "source": cell.lower_source,
            "part": sorted({p.get("part", "all") for p in r.points})}


def below_lower_bound(param: str, family: str, oracle: str, mpts, lpts) -> list[str]:
    """Points where the method's first crossing of an error level took fewer rounds than the engine's bound."""
    out = []
    for (v, mp), (_, lp) in zip(mpts, lpts):
        if "bounds" not in lp or "abs" not in mp:
            continue
        comps = bound_comparisons(lp, lambda o, k, mp=mp: (mp["abs"].get(k) or {}).get(o) if o == oracle else None)
        out += [f"{param}={v:g}: {sc} {oracle} rounds to ε={eps:g} < the engine's bound {lbc} ({key}) on the "
                f"{family} construction as printed" for key, eps, sc, lbc in comps if sc < lbc]
    return out


def apapc_series(param: str, oracle: str, apts) -> dict:
    """The paper's method on the same points (figures, ratios): realized values, per-accuracy counts, slope."""
    ok = [(v, p["realized"].get(PARAM_REALIZED[param]), p["per_accuracy"][oracle]) for v, p in apts
          if "per_accuracy" in p]
    setup = sum(int((p.get("setup_counts") or {}).get(oracle, 0)) for _, p in apts)
    out = {"x": [x for _, x, _ in ok], "y": [y for _, _, y in ok], "slope": None, "setup_counts": setup,
           "by_target": {v: y for v, _, y in ok}}
    if len(ok) >= 2 and min(out["y"]) > 0:
        out["slope"] = fit_slope(out["x"], out["y"])["slope"]
    return out


def judge(tier: Tier, plan, oracle: str, pts: dict) -> dict:
    """The bench record of one class × family × oracle × parameter (module docstring)."""
    sw, cell = plan.sweep, _cell(plan.cls, oracle)
    param, tol = sw.param, tier.table1.slope_tol
    mpts, lpts, apts = pts["method"], pts.get("lower", []), pts.get("apapc", [])
    theory = cell.exponent(param)
    rid = f"bench.method.{plan.cls}.{oracle}.{param}" + ("" if plan.kind == "worst" else f"@{sw.family}")
    rec = {"id": rid, "class": plan.cls, "kind": plan.kind, "family": sw.family, "oracle": oracle, "param": param,
           "exponent": theory, "tolerance": tol, "cell": cell.id, "source": cell.source, "counts_basis": COUNTS_BASIS}
    lower = _lower_slope(tier, plan, cell, lpts) if plan.kind == "worst" else {"slope": None, "status": None}
    rec["lower"] = {k: v for k, v in lower.items() if k != "per_decade"}
    ap = apapc_series(param, oracle, apts)
    rec["apapc"] = {k: v for k, v in ap.items() if k != "by_target"}
    below = below_lower_bound(param, sw.family, oracle, mpts, lpts)  # first: the strongest statement
    if below:
        src = lower.get("source") or cell.source
        return dict(rec, status="below-lower-bound", slope=None, ci=None, points=[],
                    detail=f"count below the lower bound of {src} (class def:foda), impossible in the class — the "
                           "method bypasses the counters or leaves the class: " + "; ".join(below))
    real = [p["realized"] for _, p in mpts if "realized" in p]
    paper = formula_slope(cell, param, real) if theory > 0 and real else 0.0
    use_engine = lower.get("status") == "pass" and lower.get("slope") is not None
    ref = lower["slope"] if use_engine else paper
    ref_kind = ("engine lower bound" if use_engine else
                ("paper's exponent (upper bound on this family)" if plan.kind == "random" else "paper's exponent"))
    rules = SweepRules(screen=screen(param), row=row(param, oracle, ap["by_target"], lower.get("per_decade") or {}),
                       judge=judge_rule(plan.kind, param, oracle, ref, ref_kind, tol, theory), unjudged=unjudged,
                       fit=fit)
    res = judge_sweep(rid, mpts, rules, kind="bench-method", theory=theory, tolerance=tol, cell=cell.id, param=param)
    ex = res.extra
    return dict(rec, status=ex.get("verdict", "error"), slope=res.measured, ci=res.ci, r2=res.r2, points=res.points,
                paper_slope=paper, reference=ref, reference_kind=ref_kind, band=ex.get("band", list(band(plan.kind, ref, tol))),
                range=ex.get("range"), flags=ex.get("flags", []), decide=ex.get("decide"),
                censored=ex.get("censored", 0), dropped=ex.get("dropped", []), detail=res.detail)


def summarize(results: list[dict]) -> list[str]:
    """One line per class × family: where the method is optimal, where it loses, where the data cannot say."""
    groups: dict = {}
    for r in results:
        groups.setdefault((r["class"], r["family"]), []).append(r)
    out = []
    for (cls, fam), rs in groups.items():
        parts = []
        for st in ("suboptimal", "inconclusive", "below-lower-bound", "error"):
            these = [r for r in rs if r["status"] == st]
            if these:
                parts.append(f"{st} in " + ", ".join(
                    f"{r['param']} ({r['oracle']}" + (f": slope {r['slope']:.2f} vs {r['reference']:.2f})"
                                                      if _num(r.get("slope")) and _num(r.get("reference")) else ")")
                    for r in these))
        n_opt = sum(r["status"] == "optimal" for r in rs)
        head = f"{cls} [{fam}]: optimal in {n_opt} of {len(rs)}"
        out.append(head + ("; " + "; ".join(parts) if parts else ""))
    return out


def _num(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
