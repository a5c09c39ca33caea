"""Section 3.2 (``sec:affine_constraints_statements``, tex line 381): nonsmooth convex consensus, measured.

Printed (citing scaman2018optimal): ``O(M_f²R²/ε)`` subgradient evaluations and ``O(√κ_W M_f R/ε)``
communication rounds (``S.consensus.nonsmooth.grad``, ``S.consensus.nonsmooth.comm``).  The source, and Table 3's
gradient cells, have ``M_f²R²/ε²`` for the subgradients (:data:`mixbounds.bounds.claims.TEXT_DISCREPANCIES`).

Measured with the machinery of Table 3 (:func:`mixbounds.checks.tables234.points.point`): Gradient Sliding on the
Chebyshev-preconditioned penalised consensus reformulation of the ``nonsmooth-consensus`` family (Table 3 has no
consensus row), counts to the first ``(ε, δ)``-solution, ``x = M_F R/ε`` (the point's own accuracy parameter):

* ``S.consensus.nonsmooth.grad.MR_eps.upper`` — against the printed exponent 1; a slope above 1 + tol that stays
  within the source's 2 is the ``finding`` the text discrepancy predicts (this method needs ε⁻² subgradients here;
  scaman2018optimal's ``Ω(M²R²/ε²)`` is a lower bound for every method, cited, not measured);
* ``S.consensus.nonsmooth.grad.kappa_W.absent`` — κ_W is absent from the subgradient count;
* ``S.consensus.nonsmooth.comm.MR_eps.upper`` (1) and ``S.consensus.nonsmooth.comm.kappa_W.upper`` (½).

Negative controls: ``control.S.consensus.nonsmooth.comm.MR_eps.subgradient`` (the projected subgradient method: one
application of the preconditioned operator per subgradient, slope 2 in x); the others judge the same points
against a wrong claim (``….exponent``): the subgradient count independent of ε, the subgradient count growing like
√κ_W, the communications independent of κ_W.  No method control exists for the κ_W sweeps: the consensus
reformulation's ``B = √W`` has κ_B = κ_W, and sliding is accelerated in the penalty (``N_B ∝ √κ_B``), so the raw
``W`` (``apapc-nocheb``) also gives ``√κ_W`` communications (measured 0.508 against 0.464 with Chebyshev, quick
tier) — unlike the coupled class, whose κ_B grows like κ_W² (``control.T3.coupled.comm.kappa_W.nocheb``).
"""

from __future__ import annotations

from mixbounds.bounds.concepts import Oracle
from mixbounds.bounds.statements import statement
from mixbounds.checks.run.framework import Check, Task
from mixbounds.checks.statements.sweep import Rule, judge_statement, with_exponent
from mixbounds.checks.sweeps import geomspace
from mixbounds.checks.tables234.points import point
from mixbounds.checks.tiers import Tier

FAMILY = "nonsmooth-consensus"
#: subgradient-round budget of one run
MAX_INNER = 5_000_000
#: the subgradient control's accuracy sweep covers half a decade (its counts grow like x²)
CONTROL_DECADES = 0.5
#: (oracle, param) → (rule, control): ``"subgradient"`` (the projected subgradient method), or the wrong claim
#: ``(exponent, rule kind)`` the same points are judged against
RESULTS = {
    (Oracle.GRAD, "MR_eps"): (Rule("upper", finding="derived"), (0.0, "absent")),
    (Oracle.GRAD, "kappa_W"): (Rule("absent"), (0.5, "tight")),
    (Oracle.COMM, "MR_eps"): (Rule("upper"), "subgradient"),
    (Oracle.COMM, "kappa_W"): (Rule("upper"), (0.0, "absent")),
}


def _task(kappa_W: float, x: float, solver: str = "sliding") -> Task:
    return Task(point, {"table": 3, "family": FAMILY, "params": {"kappa_W": float(kappa_W), "variant": "default"},
                        "x": float(x), "solver": solver, "method": "apapc", "max_inner": MAX_INNER},
                label=f"consensus {solver} κ_W={kappa_W:g} x={x:g}")


def sweep(tier: Tier, param: str, subgradient: bool = False) -> tuple[list[float], list[Task]]:
    g = tier.statements
    solver = "subgradient" if subgradient else "sliding"
    if param == "kappa_W":
        grid = geomspace(*g.consensus_kappa_W, g.points)
        return grid, [_task(v, g.consensus_base["MR_eps"], solver) for v in grid]
    lo, hi = g.consensus_x
    if subgradient:
        hi = lo * 10 ** CONTROL_DECADES
    grid = geomspace(lo, hi, g.points)
    return grid, [_task(g.consensus_base["kappa_W"], v, solver) for v in grid]


def _result_check(oracle: str, param: str, control: bool) -> Check:
    st = statement(f"S.consensus.nonsmooth.{oracle}")
    rule, ctrl = RESULTS[(oracle, param)]
    sub = control and ctrl == "subgradient"
    rid = (f"{st.id}.{param}.{rule.kind}" if not control else
           f"control.{st.id}.{param}.{'subgradient' if sub else 'exponent'}")

    def finalize(tier, points):
        grid, ts = sweep(tier, param, sub)
        pts = [points[t.key] for t in ts]
        judged, r = st, rule
        if control and not sub:
            judged, r = with_exponent(st, param, ctrl[0]), Rule(ctrl[1])
        return [judge_statement(rid, judged, param, grid, pts, r, tol=tier.statements.slope_tol, control=control,
                                instance={"family": FAMILY,
                                          "method": "projected subgradient" if sub else "gradient sliding (Chebyshev)"},
                                extra={"claimed": f"{ctrl[1]} {ctrl[0]:g}"} if control and not sub else None)]

    what = "" if not control else (" (control: projected subgradient, must fail)" if sub else
                                   f" (control: judged as {ctrl[1]} {ctrl[0]:g}, must fail)")
    return Check(id=rid, family="statements", result_ids=lambda tier: [rid], tasks=lambda tier: sweep(tier, param, sub)[1],
                 finalize=finalize, description=f"Sec. 3.2 nonsmooth consensus: {oracle} vs {param}{what}")


def checks() -> list[Check]:
    return [_result_check(o, p, c) for (o, p) in RESULTS for c in (False, True)]
