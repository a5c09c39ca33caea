"""Mixed-constraints lower-bound instance: a coupled+local part on ``x`` and a
shared-variable part on ``x̃`` over the same tuned path graph.

``f_i(x_i, x̃) = f^{C&L}_i(x_i) + f^{sh}(x̃)`` with the two constructions of
:mod:`coupled_local` and :mod:`shared`.  The C&L part is built with ``μ_f = l``
so that its Hessian ``diag(μ_f/l, L_f/l)`` matches the shared part's
``diag(μ_f, κ_f μ_f)``: the combined ``f_i`` has exactly the requested ``κ_f``.
Each part keeps its own chain, closed-form checks and findings (prefixed
``x-part`` / ``x̃-part``).

Variants: ``printed``, ``shared-rows``, ``shared-rows-incidence`` apply to the C&L part as above (the suite's
C&L ⊕ shared); ``cited`` is what the paper cites for the mixed lower bounds ("combination of lower bounds in
thm:LN_upper_bound, thm:coupled_iclr"): the coupled construction on ``x`` (``C = 0``, so ``κ̃_AC = κ̂_A``,
Remark rem:projected_condition_number) ⊕ the shared one on ``x̃`` (:mod:`direct_sum`).  It has no ``C``: its
``κ_C`` is undefined and ``kappa_C`` must not be given.
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
from mixbounds.instances.worst_case import coupled, coupled_local, shared
from mixbounds.instances.worst_case.common import reject_unused
from mixbounds.instances.worst_case.direct_sum import direct_sum


def build(*, kappa_W: float, kappa_AC: float, kappa_Ct: float, kappa_f: float, kappa_C: float | None = None,
          eps: float = 1e-8, variant: str = "printed", chain: int | None = None, chain_scale: float = 1.0,
          **unused) -> Instance:
    """Mixed worst case; ``variant`` applies to the C&L part (see :mod:`coupled_local`) or is ``cited``."""
    reject_unused(unused, WorstFamily.MIXED)
    if variant == "cited":
        if kappa_C is not None:
            raise ValueError("mixed (cited): coupled ⊕ shared has no local constraints C; do not give κ_C")
        a = coupled.build(kappa_W=kappa_W, kappa_A=kappa_AC, kappa_f=kappa_f, eps=eps, chain=chain, chain_scale=chain_scale)
        b = shared.build(kappa_W=kappa_W, kappa_Ct=kappa_Ct, kappa_f=kappa_f, eps=eps, chain=chain, chain_scale=chain_scale)
        return direct_sum(a, [b], family=WorstFamily.MIXED, variant="cited",
                          targets={"kappa_W": kappa_W, "kappa_AC": kappa_AC, "kappa_Ct": kappa_Ct, "kappa_f": kappa_f},
                          notes=["as cited (thm:LN_upper_bound + thm:coupled_iclr): coupled on x ⊕ shared on x̃"])
    if kappa_C is None:
        raise ValueError(f"mixed ({variant}): give κ_C (the C&L part's local constraints)")
    l = tuned_path(kappa_C).n
    cl = coupled_local.build(kappa_W=kappa_W, kappa_C=kappa_C, kappa_AC=kappa_AC, kappa_f=kappa_f, eps=eps,
                             variant=variant, mu_f=float(l), chain=chain, chain_scale=chain_scale)
    sh = shared.build(kappa_W=kappa_W, kappa_Ct=kappa_Ct, kappa_f=kappa_f, eps=eps, mu_f=1.0, chain=chain,
                      chain_scale=chain_scale)
    Pc, Ps = cl.problem, sh.problem
    n = Pc.n
    dx, dt = Pc.layout.d[0], Ps.layout.dt
    lay = Layout((dx,) * n, dt)
    Q = [sp.block_diag([Pc.objective.Q_blocks[i], Ps.objective.Q_blocks[i]], format="csr") for i in range(n)]
    q = [np.concatenate([Pc.objective.q_blocks[i], Ps.objective.q_blocks[i]]) for i in range(n)]
    obj = QuadraticObjective(Q, q, lay)
    P = MixedProblem(Pc.W, obj, lay, A=Pc.A, b=Pc.b, C=Pc.C, c=Pc.c, Ct=Ps.Ct, ct=Ps.ct, C_kernels=Pc.C_kernels,
                     edges=cl.problem.edges,
                     name=f"mixed[{variant}](κ_W={kappa_W:g}, κ_C={kappa_C:g}, κ̃_AC={kappa_AC:g}, κ̂_C̃={kappa_Ct:g}, κ_f={kappa_f:g})")
    realized = realized_kappas(P)
    closed = {f"x-part: {k}": v for k, v in cl.closed_forms.items()}
    closed.update({f"x̃-part: {k}": v for k, v in sh.closed_forms.items()})
    findings = [dict(f, part="x̃ (shared)") for f in sh.findings] + [dict(f, part="x (C&L)") for f in cl.findings]
    params = {"n": n, "x_part": cl.params, "xt_part": sh.params, "eps": eps,
              "chain_length": max(cl.params["chain_length"], sh.params["chain_length"]),
              "k_eps": max(cl.params["k_eps"], sh.params["k_eps"]), "groups": cl.params["groups"],
              "hop_distance": cl.params["hop_distance"]}
    return Instance(problem=P, family=WorstFamily.MIXED, variant=variant,
                    targets={"kappa_W": kappa_W, "kappa_C": kappa_C, "kappa_AC": kappa_AC, "kappa_Ct": kappa_Ct, "kappa_f": kappa_f},
                    realized=realized, closed_forms=closed, findings=findings, params=params,
                    notes=cl.notes + sh.notes + ["f_i = f^{C&L}_i(x_i) + f^{sh}(x̃); the C&L part is built with μ_f = l."])
