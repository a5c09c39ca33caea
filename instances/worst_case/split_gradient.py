"""A gradient lower bound that survives ``∇f_i*``: Scaman et al.'s split chain added to a construction.

The sum-trick (:mod:`.sum_trick`, ``app:nonind_local_lower``) adds Nesterov's function ``h(w_i)`` at every node on
independent variables; Definition ``def:foda`` admits ``∇f_i*``, and one call ``∇(f_i + h)*(0)`` returns the whole
chain, so that bound holds for primal-gradient methods only.  Here the chain is split as in the consensus lower
bound (Scaman et al. 2017, :mod:`.consensus`): on new variables ``w ∈ R^K`` that all nodes must agree on,

    h_i(w) = α/2‖w‖² + β/2 wᵀM₁w − sβ w_1   (i ∈ V1),   α/2‖w‖²   (V2),   α/2‖w‖² + β/2 wᵀM₂w   (V3),

``M₁`` the pairs ``(1,2), (3,4), …``, ``M₂`` the pairs ``(2,3), (4,5), …`` and ``e_1e_1ᵀ``, ``α = μ_f``,
``β = μ_f(κ_f − 1)/2`` (``∇²h_i ∈ [μ_f, κ_f μ_f]``: ``κ_f`` unchanged).  ``∇h_i`` and ``∇h_i*`` alike map a
support ``{1..k}`` into ``{1..k+1}`` at most (``(αI + βM_j)`` is block diagonal with 2 × 2 blocks), and the next
link is held by the other group: every index costs a gradient round (``∇f_i`` or ``∇f_i*``), as in the consensus
bound.  The minimiser is ``w*_k = s ρ^k`` with ``ρ + 1/ρ = 2 + 3α/β`` (:mod:`.closed_solution`); ``s`` makes
the chain hold :data:`~.sum_trick.DOMINANCE` times the base solution's mass.

Agreement on ``w``: in the classes with a shared variable (shared, mixed) ``w`` is appended to ``x̃``; in those
without (coupled, coupled + local) it is a local variable with a consensus constraint written as coupled rows,
``A^w_i = D_{:,i} ⊗ I_K`` (``D`` the incidence matrix of the path, ``Σ_i A^w_i w_i = 0`` iff ``w_i`` agree on
every edge), ``b^w = 0``.  These rows change the realized ``κ̂_A`` / ``κ̃_AC`` (reported); the gradient
statements depend on ``κ_f`` only.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import scipy.sparse as sp
from mixbounds.bounds.concepts import Matrix
from mixbounds.instances.instance import Instance
from mixbounds.instances.layout import Layout
from mixbounds.instances.objectives import QuadraticObjective
from mixbounds.instances.problem import MixedProblem
from mixbounds.instances.realized import realized_kappas
from mixbounds.instances.reference.kkt import reference_solution
from mixbounds.instances.worst_case.common import (
    RTOL_ALGEBRA,
    chain_length,
    closed_form,
    k_eps,
    pair_block_matrix,
    rho_from_shift,
)
from mixbounds.instances.worst_case.sum_trick import DOMINANCE


def split_blocks(K: int, mu_f: float, kappa_f: float) -> tuple[sp.csr_matrix, sp.csr_matrix, sp.csr_matrix, float]:
    """``(Q₁, Q₂, Q₃, β)``: the Hessians of ``h_i`` on ``V1``, ``V2``, ``V3`` (module docstring)."""
    alpha, beta = mu_f, mu_f * (kappa_f - 1.0) / 2.0
    I = sp.identity(K, format="csr")
    M2 = pair_block_matrix(K, 1) + sp.csr_matrix(([1.0], ([0], [0])), shape=(K, K))
    return (sp.csr_matrix(alpha * I + beta * pair_block_matrix(K, 0)), sp.csr_matrix(alpha * I),
            sp.csr_matrix(alpha * I + beta * M2), beta)


def _incidence(n: int) -> sp.csr_matrix:
    """``(n−1) × n`` incidence of the path ``0 − 1 − … − n−1`` (row ``e``: ``e_e − e_{e+1}``)."""
    r = np.repeat(np.arange(n - 1), 2)
    c = np.column_stack([np.arange(n - 1), np.arange(1, n)]).ravel()
    v = np.tile([1.0, -1.0], n - 1)
    return sp.csr_matrix((v, (r, c)), shape=(n - 1, n))


def add_split_gradient_chain(inst: Instance, *, eps: float | None = None, chain_scale: float = 1.0) -> Instance:
    """A copy of ``inst`` with the split chain added (module docstring); ``ValueError`` without node groups."""
    P = inst.problem
    groups = inst.params.get("groups")
    if not groups:
        raise ValueError(f"split-gradient: {inst.family} has no node groups V1, V2, V3 (a tuned path)")
    mu_f, L_f = P.objective.mu, P.objective.L
    if not (mu_f > 0 and L_f > mu_f):
        raise ValueError("split-gradient: needs a strongly convex objective with L_f > μ_f")
    kappa_f = L_f / mu_f
    eps = eps if eps is not None else inst.params.get("eps", 1e-8)
    alpha = mu_f
    beta = mu_f * (kappa_f - 1.0) / 2.0
    rho = rho_from_shift(3.0 * alpha / beta)
    K = chain_length(rho, eps, scale=chain_scale)
    Q1, Q2, Q3, beta = split_blocks(K, mu_f, kappa_f)
    n = P.n
    in1 = lambda i: groups["V1"][0] <= i <= groups["V1"][1]  # noqa: E731
    in3 = lambda i: bool(groups["V3"]) and groups["V3"][0] <= i <= groups["V3"][1]  # noqa: E731
    base_mass = float(np.sum(reference_solution(P).u ** 2))
    chain_mass = n * rho ** 2 / (1 - rho ** 2)
    scale = float(np.sqrt(DOMINANCE * base_mass / chain_mass)) if base_mass > 0 else 1.0
    Qh = [Q1 if in1(i) else Q3 if in3(i) else Q2 for i in range(n)]
    qh = np.zeros(K)
    qh[0] = scale * beta
    qh_i = [qh if in1(i) else np.zeros(K) for i in range(n)]
    lay0 = P.layout
    shared = lay0.dt > 0
    Q, q = [], []
    for i in range(n):
        Qi, qi, di = sp.csr_matrix(P.objective.Q_blocks[i]), P.objective.q_blocks[i], lay0.d[i]
        if shared:  # z_i = (x_i, x̃_i, w)
            Q.append(sp.block_diag([Qi, Qh[i]], format="csr"))
            q.append(np.concatenate([qi, qh_i[i]]))
        else:  # z_i = (x_i, w): w is local, agreed through A
            Q.append(sp.block_diag([Qi[:di, :di], Qh[i]], format="csr"))
            q.append(np.concatenate([qi[:di], qh_i[i]]))
    kw = {}
    if shared:
        lay = Layout(lay0.d, lay0.dt + K)
        if P.Ct is not None:
            kw.update(Ct=[sp.hstack([B, sp.csr_matrix((B.shape[0], K))], format="csr") for B in P.Ct], ct=P.ct)
        for name in (Matrix.A, "b", Matrix.C, "c", "C_kernels"):
            if getattr(P, name, None) is not None:
                kw[name] = getattr(P, name)
    else:
        lay = Layout(tuple(d + K for d in lay0.d), 0)
        D = _incidence(n)
        Aw = [sp.kron(D[:, [i]], sp.identity(K), format="csr") for i in range(n)]
        pad = lambda M: sp.hstack([M, sp.csr_matrix((M.shape[0], K))], format="csr")  # noqa: E731
        if P.A is not None:
            A = [sp.block_diag([sp.csr_matrix(P.A[i]), Aw[i]], format="csr") for i in range(n)]
            b = [np.concatenate([P.b[i], np.zeros(Aw[i].shape[0])]) for i in range(n)]
        else:
            A, b = Aw, [np.zeros(Aw[i].shape[0]) for i in range(n)]
        kw.update(A=A, b=b)
        if P.C is not None:
            kw.update(C=[pad(Ci) for Ci in P.C], c=P.c)
            if P.C_kernels is not None:
                kw.update(C_kernels=[sp.block_diag([Ni, sp.identity(K)], format="csr") for Ni in P.C_kernels])
    P2 = MixedProblem(P.W, QuadraticObjective(Q, q, lay), lay, edges=P.edges, name=P.name + " + split chain", **kw)
    realized = realized_kappas(P2)
    closed = dict(inst.closed_forms)
    closed["split chain keeps κ_f"] = closed_form("scaman2017optimal", inst.realized["kappa_f"], realized["kappa_f"],
                                                  rtol=RTOL_ALGEBRA, statement="∇²h_i ∈ [μ_f, κ_f μ_f]")
    params = dict(inst.params, gradient_chain={"kind": "split", "length": K, "rho": rho, "k_eps": k_eps(rho, eps),
                                               "offset": list(lay0.d), "scale": scale, "dominance": DOMINANCE,
                                               "in_shared": bool(shared), "alpha": alpha, "beta": beta})
    note = ("split gradient chain (Scaman et al.'s V1/V3 split, κ = κ_f, chain "
            f"{K}) on {'the shared variable' if shared else 'local variables agreed through coupled rows'}")
    return replace(inst, problem=P2, family=inst.family + "-grad", realized=realized, closed_forms=closed,
                   params=params, notes=inst.notes + [note], x_star=None)
