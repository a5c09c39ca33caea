"""``refuted`` from measurement: a construction that does not carry the bound it is printed for.

A lower-bound *statement* cannot be refuted by one instance, but the *argument* the paper prints can: a
construction is ``refuted`` for a (statement × parameter) when, over at least two decades of the realized
parameter (the tier's ``lower.min_decades``),

* the engine's count on it stays bounded — its per-accuracy count is zero or grows with an exponent at least
  :data:`REFUTE_MARGIN` below the claim, and so does its count to the deepest accuracy compared — and
* a method of the class attains counts below the claimed growth on it: :data:`METHOD` (a def:foda method: local
  gradient steps, the matrix products of its dual ascent, gossip), run to ``ε = 1e-6`` at every point, has counts
  whose exponent (between the sweep's ends) is at least :data:`REFUTE_MARGIN` below the claim.

Both exponents are read between the sweep's end points (three points in the quick tier: a 95% interval on one
degree of freedom would be ±12.7 standard errors, and the claim is about growth, which the end points carry).

Run on the printed coupled + local construction (``app:mixed_coupled_with_local_lower``, ``eq:Ai_rear``): its
``A_i`` write the row blocks ``U1`` (``V1``) and ``U3`` (``V3``) separately, ``x*`` has two nonzero chain indices, and
the dual-gradient method's ``A`` count to ε falls as ``κ̃_AC`` grows.  Results ``<cell>.<param>.lower.refutation``
(``finding`` when refuted; the certificates read them) and the negative control
``control.lower.refut.T1.coupled_local.A.kappa_AC``, which must come out ``refuted`` (status ``fail``).
"""

from __future__ import annotations

import math

from mixbounds.bounds.claims import get
from mixbounds.checks.rate_measure import SETTLE
from mixbounds.checks.run.framework import Check, Task, instance_and_reference
from mixbounds.checks.run.result import CheckResult, Finding, reading
from mixbounds.checks.sweeps import UB_EPS2
from mixbounds.checks.tiers import Tier
from mixbounds.solvers.baselines import BASELINES

#: the method of the class run on the construction (solvers.baselines)
METHOD = "dual-gradient"
#: a measured exponent this far below the claim counts as "below the claimed growth"
REFUTE_MARGIN = 0.25
#: iteration budget of the method (measured: 225–983 iterations at κ̃_AC = 10…1000)
METHOD_MAX_ITER = 20_000
CONTROL_ID = "control.lower.refut.T1.coupled_local.A.kappa_AC"


def method_point(family: str, params: dict, method: str = METHOD, eps: float = UB_EPS2,
                 max_iter: int = METHOD_MAX_ITER) -> dict:
    """Run ``method`` on one instance to relative squared error ``eps``: its count to ``eps`` and realized κ's.

    The count is the suite's count to ``eps`` (:mod:`mixbounds.solvers.stop_rule`: the first row after which the
    error stays at or below ``eps``; the run goes on for :data:`~mixbounds.checks.rate_measure.SETTLE` of its
    iterations to see it), with the first crossing beside it: a method that touched ``eps`` by luck refutes
    nothing.  ``iterations`` is the row of the count."""
    inst, ref = instance_and_reference(family, dict(params))
    res = BASELINES[method][0](inst.problem, eps=eps, x_star=ref.u, max_iter=max_iter, settle=SETTLE, settle_eps=eps)
    ct = res.count_to(eps)
    return {"realized": inst.realized, "converged": bool(res.converged), "reason": res.reason,
            "iterations": ct.row if ct.row is not None else int(res.iterations), "run_iterations": int(res.iterations),
            "counts": ct.counts, "first_counts": ct.first_counts, "left_again": ct.left_again,
            "final_error": res.final_error()}


def _exponent(xs: list, ys: list) -> float:
    """Log-slope between the end points (``-inf`` when the count at the top is 0)."""
    if ys[-1] <= 0:
        return -math.inf
    if ys[0] <= 0:
        return math.inf
    return math.log(ys[-1] / ys[0]) / math.log(xs[-1] / xs[0])


def verdict(cell, param: str, engine_pts: list, method_pts: list, tier: Tier, *, rid: str, control: bool,
            construction: str) -> CheckResult:
    """``refuted`` or ``not refuted`` for one (statement × parameter × construction) (module docstring)."""
    theory = cell.exponent(param)
    o = cell.oracle
    errs = [f"{param}={v:g}: {p.get('error')}" for v, p in engine_pts + method_pts if "error" in p]
    errs += [f"{param}={v:g}: {METHOD} {p['reason']} after {p['iterations']} iterations" for v, p in method_pts
             if "error" not in p and not p["converged"]]
    common = dict(kind="refutation", theory=theory, cell=cell.id, param=param, label=cell.lower_source or cell.source,
                  control=control, expected="fail" if control else None, tolerance=REFUTE_MARGIN,
                  instance={"construction": construction, "method": METHOD, "eps": UB_EPS2})
    if errs:
        return CheckResult(id=rid, status="fail" if control else "error", detail="; ".join(errs), **common)
    xs = [p["realized"]["kappa_AC" if param == "kappa_AC" else param] for _, p in engine_pts]
    per = [p["bounds"][o]["per_accuracy"] for _, p in engine_pts]
    deep = [p["bounds"][o]["counts"]["1e-10"] if p["bounds"][o].get("counts") else None for _, p in engine_pts]
    meth = [p["counts"][o] for _, p in method_pts]
    dec = math.log10(xs[-1] / xs[0])
    e_per = -math.inf if all(q == 0 for q in per) else _exponent(xs, per)
    e_deep = _exponent(xs, deep) if None not in deep else math.inf
    e_meth = _exponent(xs, meth)
    bounded = e_per <= theory - REFUTE_MARGIN and e_deep <= theory - REFUTE_MARGIN
    easy = e_meth <= theory - REFUTE_MARGIN
    refuted = bool(bounded and easy and dec >= tier.lower.min_decades)
    rows = [{"target": v, "realized": x, "engine_per_accuracy": a, "engine_count_deepest": b, "method_count": m,
             "method_iterations": mp["iterations"]}
            for (v, _), x, a, b, m, (_, mp) in zip(engine_pts, xs, per, deep, meth, method_pts)]
    fin = lambda v: v if math.isfinite(v) else (-1e9 if v < 0 else 1e9)  # noqa: E731  (JSON-safe exponents)
    detail = (f"{construction}: engine per-accuracy {o} counts {per} (exponent {e_per:.3f}), count to 1e-10·e₀ {deep} "
              f"(exponent {e_deep:.3f}); {METHOD} {o} counts to ε = {UB_EPS2:g}: {meth} (exponent {e_meth:.3f}) over "
              f"{dec:.2f} decades of realized {param} {[round(x, 3) for x in xs]}; claim {theory:g}, margin {REFUTE_MARGIN}: "
              + ("refuted" if refuted else "not refuted"))
    findings = ()
    if refuted and not control:
        findings = (Finding(id=f"finding:{rid}", label=cell.lower_source or cell.source,
                            statement=f"{cell.id}: the printed construction gives Ω({param}^{theory:g}) {o} rounds",
                            printed=theory, measured=round(fin(e_meth), 4), detail=detail, source=rid),)
    status = ("fail" if refuted else "pass") if control else ("finding" if refuted else "pass")
    return CheckResult(id=rid, status=status, points=rows, detail=detail, findings=findings,
                       extra={"verdict": "refuted" if refuted else "not refuted", "construction": construction,
                              "method": METHOD, "decades": dec},
                       **reading("method_exponent", {"method_exponent": fin(e_meth), "engine_exponent": fin(e_per),
                                                     "engine_deep_exponent": fin(e_deep), "decades": dec}),
                       **common)


def refutation_check(*, control: bool, construction, engine_task, grid, base) -> Check:
    """The refutation results of the printed coupled + local construction (or the control): the engine's tasks
    are the construction's own sweep points (``engine_task(tier, value)``, shared), the method's run beside them."""
    family = construction.family
    pairs = lambda tier: tier.lower.refute_cells[:1] if control else tier.lower.refute_cells  # noqa: E731

    def method_task(tier, v):
        params = dict(base(tier), **construction.keywords, kappa_AC=v, eps=UB_EPS2)
        return Task(method_point, {"family": family, "params": params}, label=f"{METHOD} {family} κ̃_AC={v:g}")

    def rids(tier):
        return [CONTROL_ID] if control else [f"{c}.{p}.lower.refutation" for c, p in pairs(tier)]

    def tasks(tier):
        return [engine_task(tier, v) for v in grid(tier)] + [method_task(tier, v) for v in grid(tier)]

    def finalize(tier, points):
        eng = [(v, points[engine_task(tier, v).key]) for v in grid(tier)]
        meth = [(v, points[method_task(tier, v).key]) for v in grid(tier)]
        return [verdict(get(c), p, eng, meth, tier, rid=rid, control=control, construction=construction.name)
                for (c, p), rid in zip(pairs(tier), rids(tier))]

    return Check(id="control.lower.refut" if control else "lower.refutation", family="lower", result_ids=rids,
                 tasks=tasks, finalize=finalize,
                 description=("negative control: " if control else "")
                 + f"the printed coupled + local construction refuted by measurement ({METHOD} and the engine)")
