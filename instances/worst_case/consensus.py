"""Consensus lower-bound instance (Table 1, first row; Scaman et al. 2017, Theorem 2).

On the tuned path graph of ``app:example_graph`` (nodes split into thirds
``V1, V2, V3``), Nesterov's quadratic is split between ``V1`` and ``V3``::

    f_i(θ) = α/2 ‖θ‖² + β/2 θᵀ M₁ θ − β θ_1     (i ∈ V1)
    f_i(θ) = α/2 ‖θ‖²                            (i ∈ V2)
    f_i(θ) = α/2 ‖θ‖² + β/2 θᵀ M₂ θ             (i ∈ V3)

``M₁`` couples the pairs (1,2), (3,4), … and ``M₂`` the pairs (2,3), (4,5), … plus
``e_1e_1ᵀ``, so ``M₁ + M₂ = M`` (Nesterov's tridiagonal matrix).  Each ``f_i`` is
``α``-strongly convex and ``(α + 2β)``-smooth; ``β = α(κ_f − 1)/2`` gives ``κ_f``.
The minimiser of ``Σ f_i`` solves ``(M + (3α/β) I) θ = e_1``, so ``θ*_k = ρ^k`` with
``ρ + 1/ρ = 2 + 3α/β``.  Unlocking coordinate ``k+1`` needs a node of ``V1``
(``k`` odd) or ``V3`` (``k`` even): every new coordinate crosses the ``n/3 + 1``
hops between the two groups.
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
    RTOL_ITERATIVE,
    chain_length,
    closed_form,
    geometric_ratio,
    k_eps,
    nesterov_M,
    pair_block_matrix,
    reject_unused,
    rho_from_shift,
)


def build(*, kappa_W: float, kappa_f: float, eps: float = 1e-8, variant: str = "printed", mu_f: float = 1.0,
          chain: int | None = None, chain_scale: float = 1.0, **unused) -> Instance:
    """Scaman et al.'s consensus instance with tuned ``κ_W`` and ``κ_f``."""
    if variant != "printed":
        raise ValueError(f"consensus: unknown variant {variant!r} (known: printed)")
    reject_unused(unused, WorstFamily.CONSENSUS)
    if not kappa_f > 1:
        raise ValueError(f"consensus: κ_f must be > 1, got {kappa_f}")
    tp = tuned_path(kappa_W)
    n = tp.n
    V1, V2, V3 = tp.groups
    alpha = float(mu_f)
    beta = alpha * (kappa_f - 1.0) / 2.0
    rho = rho_from_shift(3.0 * alpha / beta)
    K = int(chain) if chain else chain_length(rho, eps, scale=chain_scale)
    I = sp.identity(K, format="csr")
    M1 = pair_block_matrix(K, 0)
    M2 = pair_block_matrix(K, 1)
    M2 = M2 + sp.csr_matrix(([1.0], ([0], [0])), shape=(K, K))
    Q1, Q2, Q3 = alpha * I + beta * M1, alpha * I, alpha * I + beta * M2
    q1 = np.zeros(K)
    q1[0] = beta
    zero = np.zeros(K)
    Q = [Q1 if i in V1 else Q3 if i in V3 else Q2 for i in range(n)]
    q = [q1 if i in V1 else zero for i in range(n)]
    lay = Layout((0,) * n, K)
    obj = QuadraticObjective(Q, q, lay)
    P = MixedProblem(tp.W, obj, lay, edges=tp.adjacency, name=f"consensus(κ_W={kappa_W:g}, κ_f={kappa_f:g})")
    realized = realized_kappas(P)

    closed = dict(("graph: " + k, dict(v, label="app:example_graph", role="graph")) for k, v in tp.closed_forms().items())
    split = (M1 + M2 - nesterov_M(K)).tolil()
    split[K - 1, K - 1] = 0.0  # the truncated chain's last diagonal entry is covered by one block only
    closed["M1 + M2 = M (Nesterov)"] = {"label": "scaman2017optimal", "statement": "the split sums to Nesterov's matrix",
                                         "max_abs_diff": float(abs(split).max()), "holds": bool(abs(split).max() == 0)}
    closed["kappa_f = 1 + 2β/α"] = closed_form("scaman2017optimal", kappa_f, realized["kappa_f"], rtol=RTOL_ALGEBRA,
                                               statement="each f_i is α-strongly convex and (α+2β)-smooth")
    params = dict(n=n, a=tp.a, alpha=alpha, beta=beta, rho=rho, chain_length=K, k_eps=k_eps(rho, eps), eps=eps,
                  groups={"V1": [int(V1[0]), int(V1[-1])], "V2": [int(V2[0]), int(V2[-1])] if len(V2) else [],
                          "V3": [int(V3[0]), int(V3[-1])]},
                  hop_distance=int(V3[0] - V1[-1]),
                  chain_rule="K = 8 k_eps + 20 (times chain_scale), k_eps = ceil(log(1/eps) / (2 log(1/rho)))",
                  unlock="one coordinate per gradient call at a V1/V3 node, each crossing hop_distance communication rounds")
    inst = Instance(problem=P, family=WorstFamily.CONSENSUS, variant=variant, targets={"kappa_W": kappa_W, "kappa_f": kappa_f},
                    realized=realized, closed_forms=closed, findings=[], params=params,
                    notes=["Scaman et al. 2017 construction; the paper cites it for Table 1's consensus row."])
    return inst


def check_solution(inst: Instance, x_star: np.ndarray) -> dict:
    """``θ*_k = ρ^k`` (leading components of the truncated problem) against the computed ``x*``."""
    lay = inst.problem.layout
    theta = lay.split(x_star)[1][0]
    rho = inst.params["rho"]
    k_eps_ = inst.params["k_eps"]
    ratio = geometric_ratio(theta, skip=1, upto=max(5, 2 * k_eps_))
    return {
        "theta*_k = rho^k: ratio": closed_form("scaman2017optimal", rho, ratio, rtol=RTOL_ITERATIVE,
                                               statement="consecutive components of θ* decay by ρ"),
        "theta*_1 = rho": closed_form("scaman2017optimal", rho, theta[0], rtol=RTOL_ITERATIVE, statement="first component equals ρ"),
    }
