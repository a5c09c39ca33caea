"""The gradient lower bound's sum-trick (``app:nonind_local_lower``, ``app:mixed_coupled_with_local_lower``).

"To each f_i(x_i) we add an independent copy of Nesterov's worst function h_i(w_i)
with appropriate parameters (variables w_i are new independent variables without
any coupling between different nodes)."  Here

    h(w) = (L − μ)/8 (wᵀ M w − 2 w_1) + μ/2 ‖w‖²,     ∇²h = (L − μ)/4 · M + μ I ∈ [μ, L],

with ``L = L_f``, ``μ = μ_f`` of the instance, so ``κ_f`` is unchanged; its minimiser
is ``w*_k = s ρ^k``, ``ρ = (√κ_f − 1)/(√κ_f + 1)``, with the scale ``s`` chosen so that
the added chains hold :data:`DOMINANCE` times the base instance's ``‖x*‖²``, and a gradient call can extend the
support of ``w_i`` by one index only.  ``w_i`` is appended to the local variable
``x_i`` (zero columns in ``A_i``, ``C_i``).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import scipy.sparse as sp
from mixbounds.instances.instance import Instance
from mixbounds.instances.layout import Layout
from mixbounds.instances.objectives import QuadraticObjective
from mixbounds.instances.problem import MixedProblem
from mixbounds.instances.realized import realized_kappas
from mixbounds.instances.reference.kkt import reference_solution
from mixbounds.instances.worst_case.common import RTOL_ALGEBRA, chain_length, closed_form, k_eps, nesterov_M


def nesterov_block(K: int, L: float, mu: float, scale: float = 1.0) -> tuple[sp.csr_matrix, np.ndarray]:
    """``(Q_h, q_h)`` of ``h`` (quadratic form ½wᵀQ_h w − q_hᵀw + const); ``w* = scale · ρ^k``."""
    Q = (L - mu) / 4.0 * nesterov_M(K) + mu * sp.identity(K, format="csr")
    q = np.zeros(K)
    q[0] = scale * (L - mu) / 4.0
    return sp.csr_matrix(Q), q


#: the added chains hold this multiple of the base instance's ‖x*‖² ("appropriate parameters":
#: the gradient bound must not be drowned by the rest of x* in the relative error)
DOMINANCE = 100.0


def add_gradient_chain(inst: Instance, *, eps: float | None = None, chain: int | None = None,
                       chain_scale: float = 1.0) -> Instance:
    """A copy of ``inst`` with Nesterov's function added at every node on new local variables."""
    P = inst.problem
    L, mu = P.objective.L, P.objective.mu
    if not (mu > 0 and L > mu):
        raise ValueError("sum-trick: needs a strongly convex objective with L_f > μ_f")
    eps = eps if eps is not None else inst.params.get("eps", 1e-8)
    kap = L / mu
    rho = (np.sqrt(kap) - 1) / (np.sqrt(kap) + 1)
    Kh = int(chain) if chain else chain_length(rho, eps, scale=chain_scale)
    base_mass = float(np.sum(reference_solution(P).u ** 2))
    chain_mass = P.n * rho ** 2 / (1 - rho ** 2)  # Σ_k ρ^{2k} per node
    scale = float(np.sqrt(DOMINANCE * base_mass / chain_mass)) if base_mass > 0 else 1.0
    Qh, qh = nesterov_block(Kh, L, mu, scale)
    lay0 = P.layout
    n, dt = P.n, lay0.dt
    d_new = tuple(di + Kh for di in lay0.d)
    lay = Layout(d_new, dt)
    if not isinstance(P.objective, QuadraticObjective):
        raise ValueError("sum-trick: only quadratic instances are supported")
    Q, q = [], []
    for i in range(n):
        di = lay0.d[i]
        Qi = sp.csr_matrix(P.objective.Q_blocks[i])
        qi = P.objective.q_blocks[i]
        # z_i = (x_i, w_i, x̃_i): insert the w block between x_i and x̃_i
        Qxx, Qxt = Qi[:di, :di], Qi[:di, di:]
        Qtx, Qtt = Qi[di:, :di], Qi[di:, di:]
        Q.append(sp.bmat([[Qxx, None, Qxt], [None, Qh, None], [Qtx, None, Qtt]], format="csr"))
        q.append(np.concatenate([qi[:di], qh, qi[di:]]))
    obj = QuadraticObjective(Q, q, lay)
    pad = lambda M: sp.hstack([M, sp.csr_matrix((M.shape[0], Kh))], format="csr")  # noqa: E731
    kw = {}
    if P.A is not None:
        kw.update(A=[pad(Ai) for Ai in P.A], b=P.b)
    if P.C is not None:
        kw.update(C=[pad(Ci) for Ci in P.C], c=P.c)
        if P.C_kernels is not None:
            kw.update(C_kernels=[sp.block_diag([Ni, sp.identity(Kh)], format="csr") for Ni in P.C_kernels])
    if P.Ct is not None:
        kw.update(Ct=P.Ct, ct=P.ct)
    P2 = MixedProblem(P.W, obj, lay, edges=P.edges, name=P.name + " + Σ h_i(w_i)", **kw)
    realized = realized_kappas(P2)
    closed = dict(inst.closed_forms)
    closed["sum-trick keeps κ_f"] = closed_form("app:nonind_local_lower", inst.realized["kappa_f"], realized["kappa_f"], rtol=RTOL_ALGEBRA,
                                                statement="h_i has ∇²h ∈ [μ_f, L_f]")
    params = dict(inst.params, gradient_chain={"kind": "sum-trick", "length": Kh, "rho": rho, "k_eps": k_eps(rho, eps), "offset": list(lay0.d),
                                               "scale": scale, "dominance": DOMINANCE})
    return replace(inst, problem=P2, family=inst.family + "-grad", realized=realized, closed_forms=closed, params=params,
                   notes=inst.notes + [f"sum-trick: Nesterov's function (κ = κ_f, chain {Kh}) added on new local variables w_i"],
                   x_star=None)
