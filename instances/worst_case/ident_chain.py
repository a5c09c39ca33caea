"""Identical-``C̃`` chain: the shared-variable construction with every node holding the whole ``C̃``.

``sub:ident_local`` and ``thm:LI_upper_bound`` state the identical-``C̃`` bounds as "optimal due to
corresponding lower bounds" (rogozin2022decentralized_affine) and print no construction; the mixed
theorem (``thm:upper_bound_coupled_plus_non_ident_local_constraints_prob``) cites the same for its
identical case.  This is the natural one, a documented variant of ``app:nonind_local_lower``: the
objective of :mod:`shared` (``f_i(p, t) = μ_f/2‖p‖² + L_f‖t + (L'/μ_f)e_1‖²``, ``L_f = κ_f μ_f/2``) and at
*every* node the stacked ``C̃ = (C̃_1; C̃_3) = (√L' Eᵀ, √μ' I)`` (up to the row order), ``c̃ = 0``.  The feasible
set is the shared instance's, so ``x*`` and its dual chain (ratio ρ of :func:`shared.derived_rho`) are too;
``C̃C̃ᵀ = L'EᵀE + μ'I`` has spectrum in ``[μ', 4L' + μ']``, so ``μ' = 1``, ``L' = (κ_C̃ − 1)/4`` give
``κ_C̃ = κ(C̃)`` up to the truncation (the realized value is reported).

One ``C̃ᵀC̃`` product unlocks one chain index at any node alone: the ``C̃`` bound is
``Ω(√(κ_f κ_C̃) log(1/ε))`` and needs no communication (the identical class's communication and
gradient bounds come from the consensus part of :mod:`ident`).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from mixbounds.instances.graphs import tuned_path
from mixbounds.instances.instance import Instance
from mixbounds.instances.layout import Layout
from mixbounds.instances.objectives import QuadraticObjective
from mixbounds.instances.problem import MixedProblem
from mixbounds.instances.realized import realized_kappas
from mixbounds.instances.worst_case.common import RTOL_ALGEBRA, chain_length, closed_form, k_eps, reject_unused
from mixbounds.instances.worst_case.shared import derived_rho, shared_blocks


def build(*, kappa_W: float, kappa_Ct: float, kappa_f: float, eps: float = 1e-8, mu_f: float = 1.0,
          chain: int | None = None, chain_scale: float = 1.0, cut: int | None = None, **unused) -> Instance:
    """The identical-``C̃`` chain with tuned ``κ_C̃`` and ``κ_f``.

    ``cut``: keep only the first ``cut`` rows of ``C̃`` (a negative control: the chain is cut and the
    solution beyond the cut is reachable without ``C̃``).
    """
    reject_unused(unused, "ident-chain")
    if not kappa_Ct > 1:
        raise ValueError(f"ident-chain: κ_C̃ must exceed 1 for L' = (κ_C̃ − 1)/4 > 0, got {kappa_Ct}")
    if not kappa_f > 1:
        raise ValueError(f"ident-chain: κ_f must be > 1, got {kappa_f}")
    tp = tuned_path(kappa_W)
    n = tp.n
    mup, Lp = 1.0, (kappa_Ct - 1.0) / 4.0
    L_f = kappa_f * mu_f / 2.0
    rho = derived_rho(Lp, mup, L_f, mu_f)
    K = int(chain) if chain else chain_length(rho, eps, scale=chain_scale)
    C1, C3 = shared_blocks(K, Lp, mup)
    Cid = (C1 + C3).tocsr()  # disjoint rows (odd / even): the stacked C̃ with rows in chain order
    if cut is not None:
        Cid = sp.diags((np.arange(K) < cut).astype(float)) @ Cid
        Cid.eliminate_zeros()
    Ct = [Cid] * n
    ct = [np.zeros(K)] * n
    a = Lp / mu_f
    Qb = sp.diags(np.concatenate([np.full(K, mu_f), np.full(K, 2 * L_f)]), format="csr")
    qb = np.zeros(2 * K)
    qb[K] = -2 * L_f * a
    lay = Layout((0,) * n, 2 * K)
    P = MixedProblem(tp.W, QuadraticObjective([Qb] * n, [qb] * n, lay), lay, Ct=Ct, ct=ct, edges=tp.adjacency,
                     name=f"ident-chain(κ_W={kappa_W:g}, κ_C̃={kappa_Ct:g}, κ_f={kappa_f:g})")
    realized = realized_kappas(P)
    lab = "sub:ident_local (variant of app:nonind_local_lower)"
    closed = {"kappa_Ct_id (target)": closed_form(lab, kappa_Ct, realized.get("kappa_Ct_id", float("nan")), rtol=2e-2,
                                                  statement="κ(C̃) = (4L' + μ')/μ' for the infinite chain"),
              "kappa_f": closed_form(lab, kappa_f, realized["kappa_f"], rtol=RTOL_ALGEBRA, statement="∇²f_i = diag(μ_f, 2L_f)")}
    params = dict(n=n, Lp=Lp, mup=mup, mu_f=mu_f, L_f_symbol=L_f, rho=rho, chain_length=K, k_eps=k_eps(rho, eps), eps=eps,
                  cut=cut, groups=None, hop_distance=None)
    return Instance(problem=P, family="ident-chain", variant="natural" if cut is None else f"cut-{cut}",
                    targets={"kappa_W": kappa_W, "kappa_Ct": kappa_Ct, "kappa_f": kappa_f}, realized=realized,
                    closed_forms=closed, findings=[], params=params,
                    notes=["identical C̃ = (√L'Eᵀ, √μ'I) at every node; no construction is printed (sub:ident_local)"])
