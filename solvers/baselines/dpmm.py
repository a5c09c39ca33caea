"""DPMM — decentralized proximal method of multipliers (Gong & Zhang, "Decentralized proximal
method of multipliers for convex optimization with coupled constraints", 2023) for the
coupled class ``min Σ f_i(x_i) s.t. Σ_i (A_i x_i − b_i) = 0``.

Update (node-wise parameters taken equal across nodes; ``L`` = the gossip matrix ``W``, a
graph-Laplacian-type matrix as DPMM assumes)::

    ỹ^k     = y^k − γ Λ^k
    x̂^k     = argmin_x f(x) + ⟨ỹ^k, A x − b⟩ + (γ/2)‖A x − b‖² + (1/(2α))‖x − x^k‖²   (node-wise)
    ŷ^k     = ỹ^k + γ (A x̂^k − b)
    x^{k+1} = (1 − θ) x^k + θ x̂^k
    Λ^{k+1} = Λ^k + β W ŷ^k                                             (one comm round)
    y^{k+1} = ŷ^k + γ (Λ^k − Λ^{k+1})

with ``x⁰ = 0``, ``y⁰ = Λ⁰ = 0``.  A fixed point has ``W ŷ = 0`` (a common multiplier),
``∇f(x) + Aᵀŷ = 0`` and ``A x − b = Λ ∈ range(W)``, i.e. ``Σ_i (A_i x_i − b_i) = 0``: the KKT
system.  The update rule and the parameter ranges below
are those of the public re-implementation accompanying Yarmoshik et al. 2024 (the paper's ref. for Table 1's
coupled row), re-derived here (fixed point above); where they were read: ``docs/records/sources.md``.

Parameters (ranges from the paper's convergence theorem as implemented there):
``θ ∈ (0, 2)``, ``α > 0``, ``γ > 0``, ``0 < β < 1/(γ λ_max(W))``.  Defaults (rules; the
paper leaves them free):

* ``θ = 1`` (no relaxation);
* ``β = 1/(2γ λ_max(W))`` (half the bound, as in the public implementation);
* ``γ`` = the augmented-Lagrangian penalty, ``γ = √(μ_f L_f)/(n √(L_A λ_min+(S_A)))``: the
  balanced ADMM penalty of Ghadimi et al. 2015 (see :mod:`.tracking_admm`) divided by ``n``
  (each node penalizes its own share ``A_i x_i − b_i − Λ_i`` of a sum of ``n`` terms);
* ``α = 1/√(μ_f L_f)``: the proximal weight ``1/α`` is the geometric mean of ``μ_f`` and
  ``L_f``, so the subproblem's condition number is at most ``√κ_f + 1 + γL_A/√(μ_f L_f)``.
  Calibration (relative error 1e-8, κ_f = κ̂_A = κ_W = 30, n = 6): with this ``γ``,
  ``α = 1/√(μ_f L_f)`` took 301 iterations / 4388 ``grad`` (random-coupled) and 512 / 7358
  (coupled worst case); ``0.1/√(μ_f L_f)`` 450 / 2971 and 736 / 5152; ``γ`` three times
  smaller or larger was slower in iterations on both; ``γ`` without the ``1/n``
  took 864 / 14451 (random).

Inner solver (counted).  ``x̂`` by :func:`mixbounds.solvers.baselines._common.inner_agd` on
``∇φ(x) = ∇f(x) + Aᵀ(ỹ + γ(A x − b)) + (x − x^k)/α``: one inner step = one ``grad`` and two
``A`` rounds; constants ``μ = μ_f + 1/α``, ``L = L_f + γL_A + 1/α``; warm start ``x^k``; per-node
stop at ``‖∇φ_i‖ <= inner_rel·‖∇φ_i(x^k)‖``.  ``A x̂`` is reused from the last inner step.
"""

from __future__ import annotations

import math

import numpy as np
from mixbounds.bounds.concepts import ProblemClass
from mixbounds.solvers.baselines import Baseline
from mixbounds.solvers.baselines._common import (
    INNER_REL,
    InnerSolver,
    Run,
    coupled_facts,
    gossip_facts,
    reference_u,
    require,
    x_node_index,
)
from mixbounds.solvers.baselines.tracking_admm import balanced_penalty
from mixbounds.solvers.oracles import CountedOracles
from mixbounds.solvers.result import SolveResult

CLASSES = (ProblemClass.COUPLED,)
CITATION = "Gong & Zhang (2023), Decentralized proximal method of multipliers for convex optimization with coupled constraints"


def solve_dpmm(problem, *, eps: float = 1e-8, x_star=None, max_iter: int = 100_000,
               oracles: CountedOracles | None = None, settle: float = 0.0, settle_eps: float | None = None,
               max_calls: int | None = None,
               gamma: float | None = None, alpha: float | None = None,
               beta: float | None = None, theta: float = 1.0, inner_rel: float = INNER_REL) -> SolveResult:
    """Run DPMM on a coupled problem (module docstring)."""
    require(problem, CLASSES, "DPMM")
    orc = oracles if oracles is not None else CountedOracles(problem)
    u_star = reference_u(problem, x_star)
    g = gossip_facts(problem.W)
    fa = coupled_facts(problem)
    obj = problem.objective
    L_f, mu_f = obj.L, obj.mu
    gam = balanced_penalty(mu_f, L_f, fa["L_A"], fa["lambda_min_S_A"]) / problem.n if gamma is None else float(gamma)
    alp = 1.0 / math.sqrt(mu_f * L_f) if alpha is None else float(alpha)
    bound = 1.0 / (gam * g["lambda_max_W"])
    bet = 0.5 * bound if beta is None else float(beta)
    if not (gam > 0 and alp > 0 and 0 < theta < 2 and 0 < bet < bound):
        raise ValueError(f"DPMM: need γ > 0, α > 0, θ ∈ (0, 2), 0 < β < 1/(γλ_max(W)) = {bound:g}; "
                         f"got γ={gam}, α={alp}, θ={theta}, β={bet}")
    n, m, dx = problem.n, problem.m, problem.layout.dx
    node = x_node_index(problem.layout)
    bY = problem.b_stacked.reshape(n, m)
    L_sub, mu_sub = L_f + gam * fa["L_A"] + 1.0 / alp, mu_f + 1.0 / alp
    run = Run(problem, orc, u_star, eps, max_iter, "dpmm", settle=settle, settle_eps=settle_eps, max_calls=max_calls)
    inner = InnerSolver(inner_rel)
    params = {"gamma": gam, "alpha": alp, "beta": bet, "theta": theta, "inner_rel": inner_rel, "L_sub": L_sub,
              "mu_sub": mu_sub, **g, **fa}
    x = np.zeros(dx)
    if run.record(x):
        return run.result(params)
    y = np.zeros((n, m))
    Lam = np.zeros((n, m))
    while True:
        yt = y - gam * Lam
        last: dict = {}

        def grad_phi(z, yt=yt, xk=x, last=last):
            Az = orc.A(z)
            last["Az"] = Az
            return orc.grad(z) + orc.AT(yt + gam * (Az - bY)) + (z - xk) / alp

        x_hat = inner(grad_phi, x, L_sub, mu_sub, node, n)
        y_hat = yt + gam * (last["Az"] - bY)
        x = (1.0 - theta) * x + theta * x_hat
        step = bet * orc.comm(y_hat)  # Λ^{k+1} − Λ^k
        Lam = Lam + step
        y = y_hat - gam * step
        if run.record(x):
            break
    params["inner"] = inner.summary()
    return run.result(params)


BASELINE = Baseline("dpmm", solve_dpmm, CLASSES, CITATION)
