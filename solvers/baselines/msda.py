"""MSDA — multi-step dual accelerated method (Scaman, Bach, Bubeck, Lee, Massoulié,
"Optimal algorithms for smooth and strongly convex distributed optimization in networks",
ICML 2017, Algorithm 2) for the consensus class.

The method is Nesterov's accelerated gradient ascent on the dual of
``min Σ f_i(θ_i) s.t. θ P_K(W)^{1/2} = 0``, written in the variable ``x = λ P_K(W)^{1/2}``::

    θ_t     = ∇F*(x_t)                 (θ_{i,t} = ∇f_i*(x_{i,t}) = argmin_θ f_i(θ) − ⟨x_{i,t}, θ⟩)
    y_{t+1} = x_t − η P_K(W) θ_t       (accelerated gossip: K rounds)
    x_{t+1} = (1 + μ) y_{t+1} − μ y_t,       x_0 = y_0 = 0,

output ``θ_t`` (the primal iterate, the u-layout of a consensus problem).

Parameters (the paper's Algorithm 2; ``γ = λ_min+(W)/λ_max(W) = 1/κ_W``, ``α = μ_f``,
``κ_l = L_f/μ_f``):

* ``K = ⌊1/√γ⌋`` gossip rounds per iteration, ``P_K(W) = I − T_K(c₂(I − c₃W))/T_K(c₂)``
  with ``c₂ = (1 + γ)/(1 − γ)``, ``c₃ = 2/((1 + γ)λ_max(W))`` — the Chebyshev polynomial of
  :class:`mixbounds.solvers.chebyshev.Chebyshev` on ``[λ_min+(W), λ_max(W)]``;
* ``c₁ = (1 − √γ)/(1 + √γ)``, step ``η = α(1 + c₁^{2K})/(1 + c₁^K)²`` (``= μ_f/λ_max(P_K(W))``),
  momentum ``μ = ((1 + c₁^K)√κ_l − 1 + c₁^K)/((1 + c₁^K)√κ_l + 1 − c₁^K)``.

Oracle model.  MSDA needs the dual oracle ``∇f_i*``, which is **not** one of this suite's
oracles (Definition ``def:foda`` counts primal gradients).  Here ``∇f_i*(x_i)`` is computed
by the inner solver of :mod:`mixbounds.solvers.baselines._common` (accelerated gradient on
``f_i(θ) − ⟨x_i, θ⟩``, constants ``(μ_f, L_f)``, warm-started at ``θ_{t−1}``, stopped node by
node when the gradient is reduced by ``inner_rel`` = :data:`~._common.INNER_REL`): every inner
step is one counted ``grad`` round.  So MSDA's ``comm`` count is the paper's, and its
``grad`` count is its dual-oracle count times the inner cost (about ``√κ_f ln(1/inner_rel)``).
"""

from __future__ import annotations

import math

import numpy as np
from mixbounds.bounds.concepts import ProblemClass
from mixbounds.solvers.baselines import Baseline
from mixbounds.solvers.baselines._common import INNER_REL, InnerSolver, Run, gossip_facts, reference_u, require
from mixbounds.solvers.chebyshev import Chebyshev, chebyshev_interval
from mixbounds.solvers.oracles import CountedOracles
from mixbounds.solvers.result import SolveResult

CLASSES = (ProblemClass.CONSENSUS,)
CITATION = "Scaman, Bach, Bubeck, Lee, Massoulié (2017), ICML, MSDA (Algorithm 2)"


def msda_parameters(L_f: float, mu_f: float, lam_max: float, lam_min: float) -> dict:
    """``K``, ``η``, ``μ`` of Algorithm 2 (module docstring)."""
    gamma = lam_min / lam_max
    K = max(1, int(math.floor(1.0 / math.sqrt(gamma) * (1 + 1e-12))))
    c1 = (1.0 - math.sqrt(gamma)) / (1.0 + math.sqrt(gamma))
    cK = c1 ** K
    kl = L_f / mu_f
    eta = mu_f * (1.0 + cK * cK) / (1.0 + cK) ** 2
    mom = ((1.0 + cK) * math.sqrt(kl) - 1.0 + cK) / ((1.0 + cK) * math.sqrt(kl) + 1.0 - cK)
    lo, hi = chebyshev_interval(lam_max, lam_min, K)
    return {"K": K, "gamma": gamma, "c1": c1, "eta": eta, "momentum": mom, "kappa_l": kl,
            "P_interval": [lo, hi], "eta_times_lmaxP_over_mu": eta * hi / mu_f}


def solve_msda(problem, *, eps: float = 1e-8, x_star=None, max_iter: int = 100_000,
               oracles: CountedOracles | None = None, settle: float = 0.0, settle_eps: float | None = None,
               max_calls: int | None = None,
               inner_rel: float = INNER_REL) -> SolveResult:
    """Run MSDA with inner ``∇f*`` solves on a consensus problem (module docstring)."""
    require(problem, CLASSES, "MSDA")
    orc = oracles if oracles is not None else CountedOracles(problem)
    u_star = reference_u(problem, x_star)
    g = gossip_facts(problem.W)
    obj = problem.objective
    L_f, mu_f = obj.L, obj.mu
    p = msda_parameters(L_f, mu_f, g["lambda_max_W"], g["lambda_min_W"])
    cheb = Chebyshev(orc.comm, g["lambda_max_W"], g["lambda_min_W"], p["K"], name="W")
    n, dt = problem.n, problem.layout.dt
    node = np.repeat(np.arange(n), dt)
    run = Run(problem, orc, u_star, eps, max_iter, "msda", settle=settle, settle_eps=settle_eps, max_calls=max_calls)
    inner = InnerSolver(inner_rel)
    params = {**p, **g, "inner": "AGD on f_i(θ) − <x_i, θ>, per-node relative stop", "inner_rel": inner_rel}
    theta = np.zeros((n, dt))
    if run.record(theta):
        return run.result(params)
    x = np.zeros((n, dt))
    y = np.zeros((n, dt))
    eta, mom = p["eta"], p["momentum"]
    while True:
        xs = x  # ∇f*(x): argmin f(θ) − <x, θ>
        theta = inner(lambda v: orc.grad(v.ravel()).reshape(n, dt) - xs, theta, L_f, mu_f, node, n)
        if run.record(theta):
            break
        y_new = x - eta * cheb.apply_P(theta)
        x = (1.0 + mom) * y_new - mom * y
        y = y_new
    params["inner"] = inner.summary()
    return run.result(params)


BASELINE = Baseline("msda", solve_msda, CLASSES, CITATION)
