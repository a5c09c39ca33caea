"""Assembling a random instance: realized κ's computed from the matrices and checked against the targets.

Every builder returns an :class:`mixbounds.instances.instance.Instance` whose ``realized`` condition numbers
are computed by :func:`mixbounds.instances.realized.realized_kappas` (never copied from ``targets``); a
builder that cannot meet a target to its stated tolerance raises ``ValueError`` instead of
returning a mis-tuned instance.  Tolerances are relative, stored per target in
``params["tolerance"]``: :data:`TARGET_RTOL`, or :data:`TARGET_RTOL_LARGE` when a matrix is large
enough for the iterative eigen-solver path of ``mixbounds.bounds.spectral``.
"""

from __future__ import annotations

from mixbounds.bounds.spectral import DENSE_LIMIT
from mixbounds.instances.instance import Instance
from mixbounds.instances.problem import MixedProblem
from mixbounds.instances.random.common import TARGET_RTOL, TARGET_RTOL_LARGE, rel_gap
from mixbounds.instances.realized import realized_kappas


def _tolerances(problem: MixedProblem, targets: dict) -> dict:
    big = problem.n > DENSE_LIMIT or problem.m > DENSE_LIMIT or problem.layout.dt > DENSE_LIMIT
    big = big or any(di > DENSE_LIMIT for di in problem.layout.d)
    tol = TARGET_RTOL_LARGE if big else TARGET_RTOL
    return {k: tol for k in targets}


def projected_remark_finding(kappa_A: float, kappa_AC: float) -> dict:
    """Finding: Remark ``rem:projected_condition_number`` claims κ̃_BD <= κ̂_B when μ̃_BD > 0."""
    return {
        "label": "rem:projected_condition_number",
        "statement": "if μ̃_BD > 0 then κ̃_BD <= κ̂_B (via ker^⊥(M P_L) = ker^⊥ M ∩ L)",
        "printed": "kappa_AC <= kappa_A",
        "measured": {"kappa_A": kappa_A, "kappa_AC": kappa_AC},
        "detail": "realized κ̃_AC exceeds κ̂_A on this instance. The row space of M P_L is P_L(ker^⊥ M), not "
                  "ker^⊥ M ∩ L, and projecting can shrink σ_min+: e.g. B = (1 1), D = (0 1) give κ̂_B = 1, κ̃_BD = 2.",
    }


def finish_instance(family: str, variant: str, problem: MixedProblem, targets: dict, *, seed: int, params: dict,
            notes: list, closed_forms: dict | None = None, findings: list | None = None) -> Instance:
    """Compute realized κ's, check them against ``targets``, return the Instance."""
    realized = realized_kappas(problem)
    tol = _tolerances(problem, targets)
    errors = {}
    for k, t in targets.items():
        if k not in realized:
            raise ValueError(f"{family}: target {k} has no realized value (structure missing)")
        err = rel_gap(realized[k], t)
        errors[k] = err
        if err > tol[k]:
            raise ValueError(
                f"{family}: realized {k} = {realized[k]:.10g} misses the target {t:.10g} "
                f"(relative error {err:.1e} > tolerance {tol[k]:.0e}); tuning failed"
            )
    params = dict(params, tolerance=tol, relative_error=errors)
    findings = list(findings or [])
    kA, kAC, muAC = realized.get("kappa_A"), realized.get("kappa_AC"), realized.get("mu_AC", 0.0)
    if kA is not None and kAC is not None and muAC > 0 and kAC > kA * (1 + 1e-9):
        findings.append(projected_remark_finding(kA, kAC))
    return Instance(problem=problem, family=family, variant=variant, targets=dict(targets), realized=realized,
                    closed_forms=dict(closed_forms or {}), findings=findings, params=params,
                    notes=list(notes), seed=seed)
