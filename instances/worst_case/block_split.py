"""A split chain whose two halves are joined only by one constraint matrix: Tables 3–4's max-type chain for ``C``,
``C̃`` and ``A`` (issue 47; the suite's construction, not the paper's).

Scaman et al.'s split (:mod:`.consensus`, ``app:example_graph``) puts a chain's odd links at the nodes ``V1`` of a
path and its even links at ``V3``, so that every link crosses the path by communication.  Here the path is one of
*blocks* of the variable: ``w = (w¹, …, w^l)``, ``w^j ∈ R^K``, the ``l = 3m`` blocks on a tuned path of
``app:example_graph`` (weights ``W_b`` with ``κ(W_b) = κ_b``, groups ``U1, U2, U3``).  Every node holds the same

    h(w) = Σ_{j∈U1} [α/2‖w^j‖² + β/2 w^jᵀM₁w^j − sβ w^j_1] + Σ_{j∈U2} α/2‖w^j‖² + Σ_{j∈U3} [α/2‖w^j‖² + β/2 w^jᵀM₂w^j]

(``M₁`` the pairs ``(1,2), (3,4), …``, ``M₂`` the pairs ``(2,3), (4,5), …`` and ``e_1e_1ᵀ`` as in
:mod:`.consensus`, ``α = μ_f``, ``β = μ_f(κ_f − 1)/2``), and the blocks are joined only by ``B = D_b ⊗ I_K`` with
``D_bᵀD_b = W_b`` (``D_b`` the weighted incidence of the block path), placed by ``where``:

* ``"local"``: ``w`` is every node's ``x_i`` and ``C_i = B``, ``c_i = 0`` (a coupled + local or mixed instance with
  ``A = 0``: multiplications by ``C``);
* ``"shared"``: ``w`` is the shared ``x̃`` and ``C̃_i = B``, ``c̃_i = 0`` (identical ``C̃_i``, a member of the shared and
  mixed classes: multiplications by ``C̃``);
* ``"coupled"``: ``w`` is every node's ``x_i`` and ``A_i = B``, ``b_i = 0`` (``Σ_i A_i x_i = B Σ_i x_i = 0``:
  multiplications by ``A``).

``Bw = 0`` makes the blocks equal (for ``"coupled"``: those of the nodes' average, and by the symmetry of the
convex objective the minimiser has every ``x_i`` equal), so the problem is ``(l/3)·n`` times Scaman et al.'s chain
``β/2 wᵀMw + (3α/2)‖w‖² − sβ w_1``: ``w*_k = c ρ^k`` in every block with ``ρ + 1/ρ = 2 + 3α/β`` at every node.
Local computation (``∇h``, ``∇h*``, any prox) maps a support ``{1..k}`` of a block into ``{1..k+1}`` at most, and
the next link is held by the other group of blocks: every chain index crosses the ``l/3 + 1`` hops between ``U1``
and ``U3``, one hop per ``BᵀB`` product (communication does not help: the blocks are different coordinates).

Its nonsmooth twin (the same supports, :mod:`mixbounds.checks.lower.max_split`) replaces each quadratic link
``β/2(w_k − w_{k+1})²`` by ``γ|w_k − w_{k+1}|``: the chain that Tables 3–4's matrix counts need.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from mixbounds.bounds.concepts import Matrix, Oracle, Structure, WorstFamily
from mixbounds.instances.graphs import tuned_path
from mixbounds.instances.instance import Instance
from mixbounds.instances.layout import Layout
from mixbounds.instances.objectives import QuadraticObjective
from mixbounds.instances.problem import MixedProblem
from mixbounds.instances.realized import realized_kappas
from mixbounds.instances.worst_case.common import chain_length, k_eps, reject_unused, rho_from_shift
from mixbounds.instances.worst_case.split_gradient import split_blocks

#: where the block chain sits and which matrix joins its blocks (module docstring)
WHERE = {Structure.LOCAL: Matrix.C, Structure.SHARED: Matrix.CT, Structure.COUPLED: Matrix.A}


def block_incidence(W: sp.spmatrix) -> sp.csr_matrix:
    """``D`` with ``DᵀD = W`` for a weighted path Laplacian ``W``: row ``e`` is ``√w_e (e_e − e_{e+1})``."""
    W = sp.csr_matrix(W)
    l = W.shape[0]
    w = -np.asarray(W.diagonal(1)).ravel()
    r = np.repeat(np.arange(l - 1), 2)
    c = np.column_stack([np.arange(l - 1), np.arange(1, l)]).ravel()
    v = (np.sqrt(w)[:, None] * np.array([1.0, -1.0])[None, :]).ravel()
    return sp.csr_matrix((v, (r, c)), shape=(l - 1, l))


def _objective(K: int, l: int, groups: tuple, mu_f: float, kappa_f: float):
    """``(Q, q)`` of ``h`` over the ``l`` blocks (module docstring)."""
    Q1, Q2, Q3, beta = split_blocks(K, mu_f, kappa_f)
    U1, _, U3 = groups
    Q = sp.block_diag([Q1 if j in U1 else Q3 if j in U3 else Q2 for j in range(l)], format="csr")
    q = np.zeros(l * K)
    for j in U1:
        q[j * K] = beta
    return Q, q


def build(*, kappa_W: float, kappa_f: float, kappa_b: float = 10.0, where: str = Structure.LOCAL, eps: float = 1e-8,
          mu_f: float = 1.0, chain: int | None = None, chain_scale: float = 1.0, **unused) -> Instance:
    """The block-split chain (module docstring) on the tuned path of ``κ_W``, its blocks on a tuned path of
    ``κ_b`` (``l = 3m`` blocks), joined by the matrix of ``where`` (:data:`WHERE`)."""
    reject_unused(unused, WorstFamily.BLOCK_SPLIT)
    if where not in WHERE:
        raise ValueError(f"block-split: where must be one of {', '.join(WHERE)}, got {where!r}")
    if not kappa_f > 1:
        raise ValueError(f"block-split: κ_f must be > 1, got {kappa_f}")
    tp, bp = tuned_path(kappa_W), tuned_path(kappa_b)
    n, l = tp.n, bp.n
    beta = mu_f * (kappa_f - 1.0) / 2.0
    rho = rho_from_shift(3.0 * mu_f / beta)
    K = int(chain) if chain else chain_length(rho, eps, scale=chain_scale)

    def problem(K: int, consts: dict | None = None) -> MixedProblem:
        Q, q = _objective(K, l, bp.groups, mu_f, kappa_f)
        B = sp.kron(block_incidence(bp.W), sp.identity(K), format="csr")
        zero_rhs = [np.zeros(B.shape[0])] * n
        if where == Structure.SHARED:
            lay = Layout((0,) * n, l * K)
            kw = dict(Ct=[B] * n, ct=zero_rhs)
        else:
            lay = Layout((l * K,) * n, 0)
            kw = dict(C=[B] * n, c=zero_rhs) if where == Structure.LOCAL else dict(A=[B] * n, b=zero_rhs)
        return MixedProblem(tp.W, QuadraticObjective([Q] * n, [q] * n, lay, **(consts or {})), lay, edges=tp.adjacency,
                            name=f"block-split[{where}](κ_W={kappa_W:g}, κ_b={kappa_b:g}, κ_f={kappa_f:g})", **kw)

    realized = _realized(problem)
    P = problem(K, {"L": realized["L_f"], "mu": realized["mu_f"]})
    U1, U2, U3 = bp.groups
    params = dict(n=n, l=l, where=where, oracle=WHERE[where].oracle, alpha=mu_f, beta=beta, rho=rho, chain_length=K,
                  k_eps=k_eps(rho, eps), eps=eps, a_b=bp.a,
                  block_groups={"U1": [int(U1[0]), int(U1[-1])], "U2": [int(U2[0]), int(U2[-1])] if len(U2) else [],
                                "U3": [int(U3[0]), int(U3[-1])]},
                  block_hop_distance=int(U3[0] - U1[-1]),
                  chain_rule="K = 8 k_eps + 20 (times chain_scale), k_eps = ceil(log(1/eps) / (2 log(1/rho)))")
    return Instance(problem=P, family=WorstFamily.BLOCK_SPLIT, variant=where,
                    targets={"kappa_W": kappa_W, "kappa_f": kappa_f, "kappa_b": kappa_b}, realized=realized,
                    closed_forms={}, findings=[], params=params,
                    notes=["the suite's block-split chain (issue 47): Scaman et al.'s split over a path of blocks joined "
                           f"only by {WHERE[where]}; not a construction of the paper"])


def build_network(*, kappa_W: float, kappa_f: float, where: str = Structure.SHARED, eps: float = 1e-8, mu_f: float = 1.0,
                  chain: int | None = None, chain_scale: float = 1.0, **unused) -> Instance:
    """Scaman et al.'s split over the *nodes* (the chain of :mod:`.split_gradient` alone): ``w`` is the shared ``x̃``
    (``where="shared"``, no constraint: a member of the shared and mixed classes with ``C̃ = 0``) or every node's
    ``x_i`` agreed through the coupled rows ``A_i = D_{:,i} ⊗ I_K`` of the path's incidence ``D`` (``"coupled"``: a
    member of the coupled and coupled + local classes); every chain index crosses the path by communication."""
    reject_unused(unused, WorstFamily.NETWORK_SPLIT)
    if where not in (Structure.SHARED, Structure.COUPLED):
        raise ValueError(f"network-split: where must be 'shared' or 'coupled', got {where!r}")
    if not kappa_f > 1:
        raise ValueError(f"network-split: κ_f must be > 1, got {kappa_f}")
    tp = tuned_path(kappa_W)
    n = tp.n
    V1, V2, V3 = tp.groups
    beta = mu_f * (kappa_f - 1.0) / 2.0
    rho = rho_from_shift(3.0 * mu_f / beta)
    K = int(chain) if chain else chain_length(rho, eps, scale=chain_scale)
    def problem(K: int, consts: dict | None = None) -> MixedProblem:
        Q1, Q2, Q3, _ = split_blocks(K, mu_f, kappa_f)
        Q = [Q1 if i in V1 else Q3 if i in V3 else Q2 for i in range(n)]
        seed = np.zeros(K)
        seed[0] = beta
        q = [seed if i in V1 else np.zeros(K) for i in range(n)]
        if where == Structure.SHARED:
            lay, kw = Layout((0,) * n, K), {}
        else:
            D = block_incidence(_unit_path(n))
            lay = Layout((K,) * n, 0)
            kw = dict(A=[sp.kron(D[:, [i]], sp.identity(K), format="csr") for i in range(n)],
                      b=[np.zeros((n - 1) * K)] * n)
        return MixedProblem(tp.W, QuadraticObjective(Q, q, lay, **(consts or {})), lay, edges=tp.adjacency,
                            name=f"network-split[{where}](κ_W={kappa_W:g}, κ_f={kappa_f:g})", **kw)

    realized = _realized(problem)
    P = problem(K, {"L": realized["L_f"], "mu": realized["mu_f"]})
    params = dict(n=n, where=where, oracle=Oracle.COMM, alpha=mu_f, beta=beta, rho=rho, chain_length=K,
                  k_eps=k_eps(rho, eps), eps=eps, a=tp.a,
                  groups={"V1": [int(V1[0]), int(V1[-1])], "V2": [int(V2[0]), int(V2[-1])] if len(V2) else [],
                          "V3": [int(V3[0]), int(V3[-1])]},
                  hop_distance=int(V3[0] - V1[-1]))
    return Instance(problem=P, family=WorstFamily.NETWORK_SPLIT, variant=where,
                    targets={"kappa_W": kappa_W, "kappa_f": kappa_f}, realized=realized, closed_forms={},
                    findings=[], params=params,
                    notes=["Scaman et al.'s split chain over the network (scaman2017optimal; its nonsmooth twin is "
                           "scaman2018optimal's lower bound), alone"])


def _realized(problem) -> dict:
    """The realized κ's, computed on the chain of two coordinates: the constraint matrices are ``M ⊗ I_K`` (the same
    singular values for every ``K``) and the link blocks ``αI + βM₁``, ``αI + β(M₂ + e_1e_1ᵀ)`` have the extremes ``α``
    and at most ``α + 2β`` for every ``K >= 2`` (the largest, ``α + 2β``, is ``M₁``'s pair), so the values — and the
    ``L_f``, ``μ_f`` handed to the chain of ``K`` coordinates — are the instance's; computed at ``K = 1483`` the dense
    eigenvalue solves of the blocks cost ~2 minutes on a loaded machine."""
    return realized_kappas(problem(2))


def _unit_path(n: int) -> sp.csr_matrix:
    """The unweighted path Laplacian on ``n`` nodes (its incidence rows ``e_i − e_{i+1}``)."""
    main = np.full(n, 2.0)
    main[[0, -1]] = 1.0
    return sp.diags([main, -np.ones(n - 1), -np.ones(n - 1)], [0, -1, 1], format="csr")
