"""``thm:smooth_objectives_apapc_convergence`` part 1 (= ``thm:apapc``): plain APAPC in κ_B.

The statement (:data:`mixbounds.bounds.statements.STATEMENTS`, ``S.apapc.iterations``): APAPC without Chebyshev
needs ``O(κ_B √(L/μ) log(1/ε))`` iterations.  The suite's parameter rule (:meth:`mixbounds.solvers.apapc.APAPCParameters.rule`,
the one of salim2022optimal) has the rate ``O((√(κ_G χ) + χ) log(1/ε))`` with ``χ = κ_B`` and ``κ_G = L/μ``, so it
predicts two regimes:

* ``χ >= 4κ_G`` (``τ = 1``): iterations ``∝ χ`` — slope 1 in κ_B, the printed exponent, **exercised** (tight);
* ``χ <= κ_G/10`` (``τ < 1``): iterations ``∝ √(κ_G χ)`` — slope ½ in κ_B: the printed ``κ_B`` is an upper bound
  that holds but is **not exercised** there (the printed ``κ_B√κ_G`` is ``√κ_B`` times the rule's rate).

Instance: :func:`mixbounds.instances.affine.apapc_hard` (dual Hessian condition exactly ``κ_B κ_G``, the dual's
worst case); measured quantity: APAPC iterations for the relative squared error's envelope
(``max_{j>=k} e_j``; the error oscillates) to fall from :data:`EPS_1` to :data:`EPS_2`, fitted in log-log
against the realized κ_B.  Results:

* ``S.apapc.iterations.kappa_B.chi_regime`` — tight at 1 (printed) and at the rule's 1;
* ``S.apapc.iterations.kappa_B.sqrt_regime`` — upper at 1 (printed) and predicted ½ (the rule);

negative controls (``control.…chebyshev``): the same sweeps with Chebyshev acceleration (``B → P(BᵀB)``,
:func:`mixbounds.solvers.affine.affine_apapc` with ``chebyshev=True``): iterations independent of κ_B (slope 0),
which fails both.  Grids and tolerance: ``Tier.statements`` (:mod:`mixbounds.checks.tiers`).
"""

from __future__ import annotations

import numpy as np
from mixbounds.bounds.concepts import Oracle
from mixbounds.bounds.statements import statement
from mixbounds.checks.run.framework import Check, Task
from mixbounds.checks.statements.sweep import Rule, judge_statement
from mixbounds.checks.sweeps import geomspace
from mixbounds.checks.tiers import Tier
from mixbounds.instances.affine import apapc_hard
from mixbounds.solvers.affine import affine_apapc
from mixbounds.solvers.oracles import ORACLES

STATEMENT = "S.apapc.iterations"
#: per-accuracy window of the relative squared error (start-up excluded)
EPS_1, EPS_2 = 1e-3, 1e-7
#: the run continues until the error has stayed below EPS_2 for this fraction of it (mixbounds.solvers.apapc.apapc)
SETTLE = 1.0 / 3.0
#: regime → (tier field, result suffix, rule)
REGIMES = {
    "chi_regime": ("apapc_chi", Rule("tight", predicted=1.0, why_predicted="rule: τ = 1, iterations ∝ χ")),
    "sqrt_regime": ("apapc_sqrt", Rule("upper", predicted=0.5, why_predicted="rule: τ < 1, iterations ∝ √(κ_G χ)")),
}


def apapc_point(kappa_B: float, kappa_G: float, chebyshev: bool = False) -> dict:
    """APAPC on :func:`apapc_hard` (κ_B, κ_G): iterations (and oracle counts) of the envelope's window [EPS_2, EPS_1]."""
    P = apapc_hard(kappa_B=kappa_B, kappa_G=kappa_G)
    res = affine_apapc(P, eps=EPS_2, settle=SETTLE, chebyshev=chebyshev)
    out = {"realized": dict(P.realized), "targets": dict(P.targets), "converged": bool(res.converged),
           "reason": res.reason, "iterations": int(res.iterations), "tau": res.params["tau"],
           "chebyshev": res.params.get("chebyshev")}
    if not res.converged:
        return out
    env = np.maximum.accumulate(res.history_error[::-1])[::-1]
    i1, i2 = int(np.argmax(env <= EPS_1)), int(np.argmax(env <= EPS_2))
    per = {k: int(v) for k, v in zip(ORACLES, res.history_counts[i2] - res.history_counts[i1])}
    out["per_accuracy"] = {"iterations": i2 - i1, Oracle.GRAD: per[Oracle.GRAD], "B": per[Oracle.A]}
    out["hit_row"] = i2
    return out


def _grid(tier: Tier, regime: str) -> tuple[float, list[float]]:
    kG, (lo, hi) = getattr(tier.statements, REGIMES[regime][0])
    return kG, geomspace(lo, hi, tier.statements.points)


def _tasks(tier: Tier, regime: str, chebyshev: bool) -> list[Task]:
    kG, grid = _grid(tier, regime)
    return [Task(apapc_point, {"kappa_B": v, "kappa_G": kG, "chebyshev": chebyshev},
                 label=f"APAPC{' + Chebyshev' if chebyshev else ''} κ_B={v:g} κ_G={kG:g}") for v in grid]


def _check(regime: str, control: bool) -> Check:
    st = statement(STATEMENT)
    rid = (f"control.{STATEMENT}.kappa_B.{regime}.chebyshev" if control else f"{STATEMENT}.kappa_B.{regime}")

    def finalize(tier, points):
        kG, grid = _grid(tier, regime)
        pts = [points[t.key] for t in _tasks(tier, regime, control)]
        taus = [p.get("tau") for p in pts]
        return [judge_statement(rid, st, "kappa_B", grid, pts, REGIMES[regime][1], tol=tier.statements.slope_tol,
                                control=control, extra={"kappa_G": kG, "tau": taus, "window": [EPS_1, EPS_2]},
                                instance={"family": "apapc-hard", "kappa_G": kG,
                                          "method": f"APAPC {'with' if control else 'without'} Chebyshev, "
                                                    f"L/μ = {kG:g} ({'τ = 1' if regime == 'chi_regime' else 'τ < 1'})"})]

    what = "with Chebyshev (must fail)" if control else "without Chebyshev"
    return Check(id=rid, family="statements", result_ids=lambda tier: [rid],
                 tasks=lambda tier: _tasks(tier, regime, control), finalize=finalize,
                 description=f"thm:apapc: APAPC {what}, iterations vs κ_B, {regime.replace('_', ' ')}")


def checks() -> list[Check]:
    return [_check(regime, control) for regime in REGIMES for control in (False, True)]
