"""Condition numbers of a problem, computed from its own matrices."""

from __future__ import annotations

import numpy as np
from mixbounds.bounds import gossip_spectrum, group_spectrum, mixed_kappa, projected_kappa, sv_extremes
from mixbounds.bounds.concepts import Matrix
from mixbounds.bounds.condition import interaction_extremes
from mixbounds.instances.problem import MixedProblem


def realized_kappas(problem: MixedProblem, *, method: str = "auto") -> dict:
    """Every parameter of the paper's tables that applies to ``problem``.

    Keys (absent when the structure is absent): ``kappa_f``, ``L_f``, ``mu_f``,
    ``kappa_W``, ``lambda_max_W``, ``lambda_min_pos_W``, ``kappa_A`` (κ̂_A),
    ``L_A``, ``mu_A`` (block extremes), ``L_S``, ``kappa_C``, ``L_C``, ``mu_C``, ``kappa_AC`` (κ̃_AC),
    ``mu_AC`` (μ̃_AC), ``kappa_Ct`` (κ̂_{C̃ᵀ}), ``kappa_Ct_id`` (κ_C̃, identical C̃ only).
    """
    out: dict[str, float] = {}
    obj = problem.objective
    if obj.L is not None:
        out["L_f"] = float(obj.L)
    out["mu_f"] = float(obj.mu)
    if obj.L is not None and obj.mu > 0:
        out["kappa_f"] = float(obj.L / obj.mu)
    if problem.n > 1:
        g = gossip_spectrum(problem.W, method=method)
        out.update(kappa_W=g.kappa, lambda_max_W=g.lmax, lambda_min_pos_W=g.lmin_pos)
    if problem.A is not None:
        ga = group_spectrum(problem.A, method=method, name=Matrix.A)
        S = interaction_extremes(problem.A, method=method)
        kA = ga.L / S.lmin_pos if S.lmin_pos > 0 else float("inf")
        out.update(L_A=ga.L, mu_A=ga.mu, kappa_A=kA, L_S=S.lmax, lambda_min_pos_S_A=S.lmin_pos)
        if problem.C is None:
            # D = 0: μ̃_AC = λ_min+(S_A) and κ̃_AC = κ̂_A (Definition def:projected_condition_number)
            out.update(kappa_AC=kA, mu_AC=S.lmin_pos)
        else:
            pr = projected_kappa(problem.A, problem.C, D_kernels=problem.C_kernels, method=method)
            out.update(kappa_AC=pr.kappa, mu_AC=pr.mu)
    if problem.C is not None:
        gc = group_spectrum(problem.C, kernels=problem.C_kernels, method=method, name=Matrix.C)
        out.update(L_C=gc.L, mu_C=gc.mu, kappa_C=gc.kappa)
    if problem.Ct is not None:
        out["kappa_Ct"] = mixed_kappa(problem.Ct, transpose=True, method=method)
        if problem.identical_shared:
            e = sv_extremes(problem.Ct[0], method=method, name="C̃")
            out["kappa_Ct_id"] = e.kappa
    return {k: float(v) for k, v in out.items() if v is not None and not (isinstance(v, float) and np.isnan(v))}
