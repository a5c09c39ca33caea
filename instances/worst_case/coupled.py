"""Coupled-constraints lower-bound instance (Table 1 coupled row; Yarmoshik et al. 2024, App. C).

As summarised in ``app:mixed_coupled_with_local_lower`` with a single block
(``l = 1``): on the tuned path graph, each node holds ``x_i = (p_i, t_i)`` and

    A_i = (√L' E₁ᵀ, √μ' I)   (i ∈ V1),     A_i = 0   (i ∈ V2),     A_i = (√L' E₂ᵀ, √μ' I)   (i ∈ V3),
    f_i(p, t) = μ_f/2 ‖p + √L'/(2μ_f) e_1‖² + L_f/2 ‖t‖²            (eq:lower_bound_functions_f, l = 1),

``b_i = 0``, with ``E₁`` (rows ``e_1, e_2 − e_3, 0, e_4 − e_5, 0, …``) and ``E₂`` (rows
``e_1 − e_2, 0, e_3 − e_4, 0, …``) as printed in ``app:mixed_coupled_with_local_lower``;
``E₁ᵀE₁ + E₂ᵀE₂ = M``.

Parameter map (derived here; the paper states none for ``l = 1``):
``λ_max(A_iA_iᵀ) = 2L' + μ'`` and ``λ_min+(S_A) = (2μ' + L' λ_min(M_K))/3 → 2μ'/3``, so
``μ' = 3/2`` and ``L' = (κ̂_A − 3/2)/2`` give ``κ̂_A`` up to the truncation term
(relative ``O(κ̂_A / K²)``; the realized value is reported).  The dual problem is
``min (L'/2μ_f) zᵀMz + (μ'/L_f)‖z‖² + (√L'/2)(2z_1 − z_2)`` (up to the factor n/3), whose
solution decays with ``ρ + 1/ρ = 2 + 2μ'μ_f/(L'L_f)``.  ``V1`` extends the dual
support from even to odd indices, ``V3`` from odd to even, so every index
crosses the graph.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from mixbounds.bounds.concepts import WorstFamily
from mixbounds.instances.graphs import tuned_path
from mixbounds.instances.instance import Instance
from mixbounds.instances.layout import Layout
from mixbounds.instances.objectives import QuadraticObjective
from mixbounds.instances.problem import MixedProblem
from mixbounds.instances.realized import realized_kappas
from mixbounds.instances.worst_case.common import (
    RTOL_ALGEBRA,
    RTOL_FINITE_CHAIN,
    RTOL_ITERATIVE,
    chain_length,
    closed_form,
    difference_rows,
    geometric_ratio,
    k_eps,
    nesterov_M,
    reject_unused,
    rho_from_shift,
)


def E1_E2(K: int) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """``E₁``, ``E₂`` of ``app:mixed_coupled_with_local_lower`` truncated to ``K × K`` (0-based rows)."""
    # E1: row 0 = e_0; rows 1, 3, 5, … = e_k − e_{k+1}; rows 2, 4, … = 0
    E1 = difference_rows(K, range(1, K, 2)).tolil()
    E1[0, 0] = 1.0
    # E2: rows 0, 2, 4, … = e_k − e_{k+1}; odd rows = 0
    E2 = difference_rows(K, range(0, K, 2))
    return sp.csr_matrix(E1), E2


def coupled_blocks(K: int, Lp: float, mup: float) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """``Ā₁ = (√L' E₁ᵀ, √μ' I)`` and ``Ā₂ = (√L' E₂ᵀ, √μ' I)``, each ``K × 2K``."""
    E1, E2 = E1_E2(K)
    I = sp.identity(K, format="csr")
    A1 = sp.hstack([np.sqrt(Lp) * E1.T, np.sqrt(mup) * I], format="csr")
    A2 = sp.hstack([np.sqrt(Lp) * E2.T, np.sqrt(mup) * I], format="csr")
    return A1, A2


def dual_rho(Lp: float, mup: float, mu_f: float, L_f: float) -> float:
    """Solution ratio of the dual: ``ρ + 1/ρ = 2 + 2μ'μ_f/(L'L_f)``."""
    return rho_from_shift(2.0 * mup * mu_f / (Lp * L_f))


def build(*, kappa_W: float, kappa_f: float, kappa_AC: float | None = None, kappa_A: float | None = None,
          eps: float = 1e-8, variant: str = "printed", mu_f: float = 1.0, chain: int | None = None, chain_scale: float = 1.0, **unused) -> Instance:
    """Coupled worst case with tuned ``κ_W``, ``κ̂_A`` (``kappa_A``, alias ``kappa_AC``: equal when C = 0) and ``κ_f``."""
    if variant != "printed":
        raise ValueError(f"coupled: unknown variant {variant!r} (only 'printed')")
    reject_unused(unused, WorstFamily.COUPLED)
    kA = kappa_A if kappa_A is not None else kappa_AC
    if kA is None:
        raise ValueError("coupled: give κ̂_A (--kappa-AC or --kappa-A)")
    if not kA > 1.5:
        raise ValueError(f"coupled: κ̂_A must exceed 3/2 for L' = (κ̂_A − 3/2)/2 > 0, got {kA}")
    if not kappa_f > 1:
        raise ValueError(f"coupled: κ_f must be > 1, got {kappa_f}")
    tp = tuned_path(kappa_W)
    n = tp.n
    V1, V2, V3 = tp.groups
    L_f = kappa_f * mu_f
    mup = 1.5
    Lp = (kA - 1.5) / 2.0
    rho = dual_rho(Lp, mup, mu_f, L_f)
    K = int(chain) if chain else chain_length(rho, eps, scale=chain_scale)
    A1, A2 = coupled_blocks(K, Lp, mup)
    Z = sp.csr_matrix((K, 2 * K))
    A = [A1 if i in V1 else A2 if i in V3 else Z for i in range(n)]
    b = [np.zeros(K)] * n
    Qb = sp.diags(np.concatenate([np.full(K, mu_f), np.full(K, L_f)]), format="csr")
    qb = np.zeros(2 * K)
    qb[0] = -np.sqrt(Lp) / 2.0  # μ_f/2‖p + c e1‖² = ½pᵀ(μ_f I)p + μ_f c p_1 + const, c = √L'/(2μ_f)
    lay = Layout((2 * K,) * n, 0)
    obj = QuadraticObjective([Qb] * n, [qb] * n, lay)
    P = MixedProblem(tp.W, obj, lay, A=A, b=b, edges=tp.adjacency,
                     name=f"coupled(κ_W={kappa_W:g}, κ̂_A={kA:g}, κ_f={kappa_f:g})")
    realized = realized_kappas(P)
    closed = dict(("graph: " + k, dict(v, label="app:example_graph", role="graph")) for k, v in tp.closed_forms().items())
    E1, E2 = E1_E2(K)
    Msum = (E1.T @ E1 + E2.T @ E2 - nesterov_M(K)).tolil()
    Msum[K - 1, K - 1] = 0.0
    closed["E1ᵀE1 + E2ᵀE2 = M"] = {"label": "app:mixed_coupled_with_local_lower", "statement": "the two halves sum to Nesterov's M",
                                    "max_abs_diff": float(abs(Msum).max()), "holds": bool(abs(Msum).max() == 0)}
    closed["max λ_max(A_iA_iᵀ) = 2L' + μ'"] = closed_form("app:mixed_coupled_with_local_lower", 2 * Lp + mup, realized["L_A"], rtol=RTOL_ALGEBRA,
                                                         statement="σ_max²(Ā_k) = 2L' + μ' (l = 1)")
    closed["kappa_A (target)"] = closed_form("def:mixed_condition_number", kA, realized["kappa_A"], rtol=RTOL_FINITE_CHAIN,
                                             statement="κ̂_A realized from the matrices vs target (finite-K correction)")
    closed["kappa_f"] = closed_form("eq:lower_bound_functions_f", kappa_f, realized["kappa_f"], rtol=RTOL_ALGEBRA,
                                    statement="f_i is μ_f-strongly convex and L_f-smooth")
    params = dict(n=n, a=tp.a, Lp=Lp, mup=mup, mu_f=mu_f, L_f=L_f, rho=rho, chain_length=K, k_eps=k_eps(rho, eps), eps=eps,
                  groups={"V1": [int(V1[0]), int(V1[-1])], "V2": [int(V2[0]), int(V2[-1])] if len(V2) else [],
                          "V3": [int(V3[0]), int(V3[-1])]},
                  hop_distance=int(V3[0] - V1[-1]),
                  parameter_map="mu' = 3/2, L' = (kappa_A - 3/2)/2 (derived: lambda_max(A_i A_i^T) = 2L'+mu', lambda_min+(S_A) -> 2mu'/3)",
                  chain_rule="K = 8 k_eps + 20 (times chain_scale), k_eps = ceil(log(1/eps) / (2 log(1/rho)))")
    return Instance(problem=P, family=WorstFamily.COUPLED, variant=variant,
                    targets={"kappa_W": kappa_W, "kappa_A": kA, "kappa_f": kappa_f}, realized=realized,
                    closed_forms=closed, findings=[], params=params,
                    notes=["Yarmoshik et al. 2024 (App. C) as summarised in app:mixed_coupled_with_local_lower with l = 1; "
                           "the parameter map L', μ' is derived here (the paper gives it only for the two-level version)."])


def check_solution(inst: Instance, x_star: np.ndarray) -> dict:
    """The primal ``t*`` at a ``V1`` node is ``−(√μ'/L_f) z*``: its tail decays with the dual ratio ρ."""
    P = inst.problem
    K = inst.params["chain_length"]
    i = inst.params["groups"]["V1"][0]
    x = P.layout.split(x_star)[0]
    xi = x[P.layout.x_offsets[i]: P.layout.x_offsets[i + 1]]
    t = xi[K:]
    ratio = geometric_ratio(t, skip=2, upto=max(6, 2 * inst.params["k_eps"]))
    return {"t*_k decays with the dual ratio rho": closed_form("derived (dual of the coupled instance)", inst.params["rho"], ratio,
                                                               rtol=RTOL_ITERATIVE, statement="x*(z*): t* ∝ z*, z*_k ∝ ρ^k")}
