"""Tracking-ADMM (Falsone, Notarnicola, Notarstefano, Prandini, "Tracking-ADMM for distributed
constraint-coupled optimization", Automatica 117, 2020) for the coupled class
``min Σ f_i(x_i) s.t. Σ_i (A_i x_i − b_i) = 0``.

Update of node ``i`` (the paper's algorithm, mixing weights ``a_ij`` = entries of ``M``)::

    δ_i^k     = Σ_j a_ij d_j^k,              λ̄_i^k = Σ_j a_ij λ_j^k          (one comm round)
    x_i^{k+1} = argmin_x f_i(x) + ⟨λ̄_i^k, A_i x⟩ + (c/2)‖A_i x − A_i x_i^k + δ_i^k‖²
    d_i^{k+1} = δ_i^k + A_i x_i^{k+1} − A_i x_i^k
    λ_i^{k+1} = λ̄_i^k + c d_i^{k+1}

with ``x⁰ = 0``, ``d_i⁰ = A_i x_i⁰ − b_i`` (dynamic average tracking of the constraint
violation), ``λ⁰ = 0``.  Both ``d`` and ``λ`` are mixed with iterates of step ``k``, so
a node sends ``(d_i, λ_i)`` in one message: **one ``comm`` per iteration**.

The method's parameters:

* mixing matrix ``M = I − W/λ_max(W)`` (symmetric, doubly stochastic, non-negative for a
  Laplacian-type ``W``; the paper's Assumption on the weights ``a_ij``).
* penalty ``c > 0``: free in the paper (convergence for every ``c > 0``, no rate).
  Default (rule): ``c = √(μ_f L_f) / (3n √(L_A λ_min+(S_A)))``.  The factor
  ``√(μ_f L_f)/√(L_A λ_min+(S_A))`` is the ADMM penalty that balances primal and dual
  conditioning (Ghadimi, Teixeira, Shames, Johansson, "Optimal parameter selection for the
  alternating direction method of multipliers", IEEE TAC 2015: ``ρ* = 1/√(λ_min+ λ_max)`` of
  ``A Q⁻¹ Aᵀ``), with the constraint described by ``L_A = max_i σ_max²(A_i)`` and
  ``λ_min+(S_A)``, ``S_A = (1/n)Σ A_iA_iᵀ``, and ``Q`` by ``(μ_f, L_f)``; the factor ``1/n`` is
  the scaling a parallel (Jacobi) n-block ADMM step needs (Deng, Lai, Peng, Yin, J. Sci.
  Comput. 2017); the constant ``1/3`` was calibrated on this suite (relative error 1e-8,
  random-coupled and coupled at κ_f = κ̂_A = κ_W = 30, n = 6: multiples 1/n, 0.3/n, 3/n of
  the balanced penalty took 1813, 1077, >4000 iterations (random) and >4000, 1489, >4000
  (worst case); the balanced penalty without ``1/n`` took >4000).  Override with ``c=``.

Inner solver (counted).  The local argmin is solved by the accelerated gradient method of
:func:`mixbounds.solvers.baselines._common.inner_agd` on the subproblem, whose gradient is
``∇φ_i(x) = ∇f_i(x) + A_iᵀ(λ̄_i + c(A_i x − v_i))`` with ``v_i = A_i x_i^k − δ_i^k``: one inner
step = one ``grad`` round and two ``A`` rounds (``A x`` and ``Aᵀ·``); constants
``μ = μ_f``, ``L = L_f + c L_A``; warm start ``x^k``; stopping rule: per node,
``‖∇φ_i‖ <= inner_rel · ‖∇φ_i(x^k)‖`` (default :data:`~._common.INNER_REL`).  ``A_i x_i^{k+1}``
is the product computed in the last inner step (not recomputed).
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
from mixbounds.solvers.oracles import CountedOracles
from mixbounds.solvers.result import SolveResult

CLASSES = (ProblemClass.COUPLED,)
CITATION = "Falsone, Notarnicola, Notarstefano, Prandini (2020), Automatica 117:108962, Tracking-ADMM"


def balanced_penalty(mu_f: float, L_f: float, L_A: float, lam_min_S: float) -> float:
    """``√(μ_f L_f)/√(L_A λ_min+(S_A))`` (module docstring)."""
    return math.sqrt(mu_f * L_f) / math.sqrt(L_A * lam_min_S)


#: constant of the default penalty ``c = balanced/(TADMM_C n)`` (calibrated, module docstring)
TADMM_C = 3.0


def solve_tracking_admm(problem, *, eps: float = 1e-8, x_star=None, max_iter: int = 100_000,
                        oracles: CountedOracles | None = None, settle: float = 0.0, settle_eps: float | None = None,
                        max_calls: int | None = None,
                        c: float | None = None,
                        inner_rel: float = INNER_REL) -> SolveResult:
    """Run Tracking-ADMM on a coupled problem (module docstring)."""
    require(problem, CLASSES, "Tracking-ADMM")
    orc = oracles if oracles is not None else CountedOracles(problem)
    u_star = reference_u(problem, x_star)
    g = gossip_facts(problem.W)
    fa = coupled_facts(problem)
    obj = problem.objective
    L_f, mu_f = obj.L, obj.mu
    n = problem.n
    cc = balanced_penalty(mu_f, L_f, fa["L_A"], fa["lambda_min_S_A"]) / (TADMM_C * n) if c is None else float(c)
    if not (cc > 0):
        raise ValueError(f"Tracking-ADMM: penalty c must be positive, got {cc}")
    n, m, dx = problem.n, problem.m, problem.layout.dx
    node = x_node_index(problem.layout)
    bY = problem.b_stacked.reshape(n, m)
    inv = 1.0 / g["lambda_max_W"]
    L_sub, mu_sub = L_f + cc * fa["L_A"], mu_f
    run = Run(problem, orc, u_star, eps, max_iter, "tracking-admm", settle=settle, settle_eps=settle_eps, max_calls=max_calls)
    inner = InnerSolver(inner_rel)
    params = {"c": cc, "mixing": "M = I - W/lambda_max(W)", "inner_rel": inner_rel, "L_sub": L_sub, "mu_sub": mu_sub,
              **g, **fa}
    x = np.zeros(dx)
    if run.record(x):
        return run.result(params)
    Ax = orc.A(x)  # (n, m)
    d = Ax - bY
    lam = np.zeros((n, m))
    while True:
        DL = np.concatenate([d, lam], axis=1)
        MDL = DL - inv * orc.comm(DL)  # one round: M [d, λ]
        delta, lam_bar = MDL[:, :m], MDL[:, m:]
        v = Ax - delta
        last: dict = {}

        def grad_phi(z, v=v, lam_bar=lam_bar, last=last):
            Az = orc.A(z)
            last["Az"] = Az
            return orc.grad(z) + orc.AT(lam_bar + cc * (Az - v))

        x_new = inner(grad_phi, x, L_sub, mu_sub, node, n)
        Ax_new = last["Az"]  # A x^{k+1}: computed at the returned point in the last inner step
        d = delta + Ax_new - Ax
        lam = lam_bar + cc * d
        x, Ax = x_new, Ax_new
        if run.record(x):
            break
    params["inner"] = inner.summary()
    return run.result(params)


BASELINE = Baseline("tracking-admm", solve_tracking_admm, CLASSES, CITATION)
