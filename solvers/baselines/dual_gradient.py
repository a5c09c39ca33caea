"""Distributed dual gradient method (Necoara & Nedelcu, "Rate analysis of inexact dual first
order methods: application to dual decomposition", IEEE TAC 59(5), 2014; "On linear
convergence of a distributed dual gradient algorithm for linearly constrained separable
convex problems", Automatica 55, 2015) for the classes with a coupled constraint:
``coupled``, ``coupled_local`` and ``mixed``.

The method is gradient ascent on the Lagrangian dual with a *weighted* (block-diagonal)
step; for a strongly convex, smooth objective the dual is smooth and satisfies an error
bound, which gives linear convergence of the primal iterates (Necoara & Nedelcu 2015).
Every constraint of problem (P) is dualized:

=======================  =================  ==========================================
constraint               multiplier         gradient (ascent direction)
=======================  =================  ==========================================
Σ_i (A_i x_i − b_i) = 0   λ ∈ R^m (common)   Σ_i (A_i x_i − b_i)
C_i x_i = c_i             ν_i (node i)       C_i x_i − c_i
C̃_i x̃_i = c̃_i             ν̃_i (node i)       C̃_i x̃_i − c̃_i
x̃_1 = … = x̃_n             ζ ∈ range(W)       W X̃   (ζ = W^{1/2} z, consensus ⇔ W^{1/2}X̃ = 0)
=======================  =================  ==========================================

One iteration::

    u(·) = argmin_u F(u) + ⟨v, u⟩,  v = (A_iᵀλ_i + C_iᵀν_i ; ζ_i + C̃_iᵀν̃_i)_i      (local, inner solver)
    λ_i ← λ_i + η_A Σ_j (A_j x_j − b_j),   ν_i ← ν_i + η_C (C_i x_i − c_i),
    ν̃_i ← ν̃_i + η_C̃ (C̃_i x̃_i − c̃_i),       ζ ← ζ + η_W W X̃.

Steps (the weighted-step rule of Necoara & Nedelcu 2015: a diagonal majorization of the
dual Hessian ``M H⁻¹ Mᵀ <= (1/μ_f) M Mᵀ``, ``M`` the stacked constraint operator): with
``k_x`` (``k_t``) the number of dualized blocks acting on ``x`` (on ``x̃``),
``M Mᵀ <= diag(k_x A'A'ᵀ, k_x CCᵀ, k_t C̃C̃ᵀ, k_t W)``, so ``η_A = μ_f/(k_x n L_S)``
(``‖A'‖² = n λ_max(S_A)``), ``η_C = μ_f/(k_x L_C)``, ``η_C̃ = μ_f/(k_t L_C̃)``,
``η_W = μ_f/(k_t λ_max(W))``.  No parameter is left free.

Decentralized sum.  The common multiplier needs ``Σ_j (A_j x_j − b_j)`` at every node
(a coordinator in Necoara & Nedelcu).  Here it is computed exactly by **finite-time
average consensus**: ``P(W) R = 1 ⊗ mean(R)`` for ``P(t) = Π_j (1 − t/λ_j)`` over the
distinct positive eigenvalues ``λ_j`` of ``W`` (Leja-ordered for stability), i.e. ``r``
``comm`` rounds per iteration with ``r`` = number of distinct positive eigenvalues
(``n − 1`` on a path).  Its first round also carries ``W X̃`` (one message).  The eigenvalues
are set-up knowledge of the method (like the spectral constants of every method here).

Inner solver (counted).  ``u(v)`` by :func:`mixbounds.solvers.baselines._common.inner_agd` on
``∇φ(u) = ∇F(u) + v``: one ``grad`` round per inner step (``v`` costs one ``A``, one ``C``,
one ``Ct`` round per iteration), constants ``(μ_f, L_f)``, warm start at the previous
``u``, per-node stop at ``‖∇φ_i‖ <= inner_rel·‖∇φ_i(u_prev)‖``.
"""

from __future__ import annotations

import numpy as np
from mixbounds.bounds.concepts import Matrix, ProblemClass
from mixbounds.bounds.condition import group_L
from mixbounds.bounds.spectral import ZERO_RTOL
from mixbounds.solvers.baselines import Baseline
from mixbounds.solvers.baselines._common import (
    INNER_REL,
    InnerSolver,
    Run,
    coupled_facts,
    gossip_facts,
    reference_u,
    require,
)
from mixbounds.solvers.oracles import CountedOracles
from mixbounds.solvers.result import SolveResult

CLASSES = (ProblemClass.COUPLED, ProblemClass.COUPLED_LOCAL, ProblemClass.MIXED)
CITATION = ("Necoara & Nedelcu (2014), IEEE TAC 59(5):1232-1243; (2015), Automatica 55:209-216, "
            "distributed dual gradient method")
#: eigenvalues of W closer than this (relative to λ_max) are one distinct eigenvalue
DISTINCT_RTOL = 1e-9


def _leja(vals: np.ndarray) -> np.ndarray:
    """Leja ordering (start at the largest modulus, then maximise the product of distances)."""
    pool = list(np.asarray(vals, dtype=float))
    out = [max(pool)]
    pool.remove(out[0])
    logd = np.zeros(len(pool))
    while pool:
        v = np.asarray(pool)
        logd += np.log(np.abs(v - out[-1]))
        k = int(np.argmax(logd))
        out.append(pool.pop(k))
        logd = np.delete(logd, k)
    return np.asarray(out)


def distinct_positive_eigenvalues(W) -> np.ndarray:
    """Distinct positive eigenvalues of ``W`` (dense; relative threshold :data:`DISTINCT_RTOL`), Leja-ordered."""
    ev = np.linalg.eigvalsh(W.toarray() if hasattr(W, "toarray") else np.asarray(W))
    lmax = ev[-1]
    pos = ev[ev > ZERO_RTOL * lmax]
    groups = [pos[0]]
    for v in pos[1:]:
        if v - groups[-1] > DISTINCT_RTOL * lmax:
            groups.append(v)
    return _leja(np.asarray(groups))


def solve_dual_gradient(problem, *, eps: float = 1e-8, x_star=None, max_iter: int = 100_000,
                        oracles: CountedOracles | None = None, settle: float = 0.0, settle_eps: float | None = None,
                        max_calls: int | None = None,
                        inner_rel: float = INNER_REL) -> SolveResult:
    """Run the distributed dual gradient method (module docstring)."""
    require(problem, CLASSES, "dual gradient")
    orc = oracles if oracles is not None else CountedOracles(problem)
    u_star = reference_u(problem, x_star)
    P = problem
    lay = P.layout
    n, m, dx, dt = P.n, P.m, lay.dx, lay.dt
    obj = P.objective
    L_f, mu_f = obj.L, obj.mu
    g = gossip_facts(P.W)
    fa = coupled_facts(P)
    has_C, has_Ct = P.C is not None, P.Ct is not None
    k_x = 1 + int(has_C)
    k_t = 1 + int(has_Ct)
    steps = {"eta_A": mu_f / (k_x * n * fa["L_S"])}
    facts = dict(g, **fa)
    if has_C:
        facts["L_C"] = float(group_L(P.C, name=Matrix.C))
        steps["eta_C"] = mu_f / (k_x * facts["L_C"])
    if dt:
        steps["eta_W"] = mu_f / (k_t * g["lambda_max_W"])
    if has_Ct:
        facts["L_Ct"] = float(group_L(P.Ct, name="C̃"))
        steps["eta_Ct"] = mu_f / (k_t * facts["L_Ct"])
    lams = distinct_positive_eigenvalues(P.W)
    node_u = lay.node_of_u
    bY = P.b_stacked.reshape(n, m)
    run = Run(P, orc, u_star, eps, max_iter, "dual-gradient", settle=settle, settle_eps=settle_eps, max_calls=max_calls)
    inner = InnerSolver(inner_rel)
    params = {**steps, "k_x": k_x, "k_t": k_t, "averaging": "finite-time, prod_j (I - W/lambda_j)",
              "averaging_rounds": int(lams.size), "inner_rel": inner_rel, **facts}
    u = np.zeros(lay.size)
    if run.record(u):
        return run.result(params)
    lam = np.zeros((n, m))
    nu = np.zeros(sum(Ci.shape[0] for Ci in P.C)) if has_C else None
    nut = np.zeros(sum(Ci.shape[0] for Ci in P.Ct)) if has_Ct else None
    zeta = np.zeros((n, dt)) if dt else None
    while True:
        v = np.empty(lay.size)
        v[:dx] = orc.AT(lam)
        if nu is not None:  # has_C
            v[:dx] += orc.CT(nu)
        if zeta is not None:  # dt > 0
            vt = zeta.copy()
            if nut is not None:  # has_Ct
                vt += orc.CtT(nut)
            v[dx:] = vt.ravel()
        u = inner(lambda z, v=v: orc.grad(z) + v, u, L_f, mu_f, node_u, n)
        if run.record(u):
            break
        x = u[:dx]
        R = orc.A(x) - bY  # (n, m)
        # finite-time average of R; the first round also carries W X̃
        if dt:
            Xt = u[dx:].reshape(n, dt)
            WR = orc.comm(np.concatenate([R, Xt], axis=1))
            WXt = WR[:, m:]
            R = R - WR[:, :m] / lams[0]
        else:
            R = R - orc.comm(R) / lams[0]
        for lj in lams[1:]:
            R = R - orc.comm(R) / lj
        lam = lam + steps["eta_A"] * n * R  # n · mean = the sum
        if nu is not None:
            nu = nu + steps["eta_C"] * (orc.C(x) - P.c_stacked)
        if zeta is not None:
            zeta = zeta + steps["eta_W"] * WXt
            if nut is not None:
                nut = nut + steps["eta_Ct"] * (orc.Ct(u[dx:].reshape(n, dt)) - P.ct_stacked)
    params["inner"] = inner.summary()
    return run.result(params)


BASELINE = Baseline("dual-gradient", solve_dual_gradient, CLASSES, CITATION)
