"""EXTRA (Shi, Ling, Wu, Yin, "EXTRA: An exact first-order algorithm for decentralized
consensus optimization", SIAM J. Optim. 25(2), 2015) for the consensus class.

Update (the paper's EXTRA iteration, mixing matrices ``M`` and ``M̃ = (I + M)/2``)::

    X¹      = M X⁰ − α ∇F(X⁰)
    X^{k+2} = (I + M) X^{k+1} − M̃ X^k − α (∇F(X^{k+1}) − ∇F(X^k))

with ``X ∈ R^{n×d̃}`` the node copies of the shared variable (u-layout of a consensus
problem) and ``X⁰ = 0``.  ``M X^k`` is kept from the previous iteration, so one
iteration costs **one ``grad`` and one ``comm``**.

The method's parameters:

* mixing matrix ``M = I − W/λ_max(W)`` (symmetric, doubly stochastic, eigenvalues in
  ``[0, 1]``; :func:`mixbounds.solvers.baselines._common.mixing_matrix_apply`) — the paper takes
  any symmetric doubly stochastic ``W`` with ``null(I − W) = span(1)``; this is the
  standard one built from a gossip matrix.  Then ``λ_min(M̃) >= 1/2``.
* step ``α = λ_min(M̃)/L_f`` (default): the paper's convergence theorem for convex ``f``
  needs ``0 < α < 2λ_min(M̃)/L_f``; its linear-rate theorem only proves a much smaller
  sufficient step.  The default takes half the convex-case bound (also the value
  used by the public re-implementation accompanying Yarmoshik et al. 2024).  Since
  ``λ_min(M) = 0`` (at ``λ = λ_max(W)``), ``λ_min(M̃) = ½`` and ``α = 1/(2L_f)``.
  Override with ``alpha=``.
"""

from __future__ import annotations

import numpy as np
from mixbounds.bounds.concepts import ProblemClass
from mixbounds.solvers.baselines import Baseline
from mixbounds.solvers.baselines._common import Run, gossip_facts, mixing_matrix_apply, reference_u, require
from mixbounds.solvers.oracles import CountedOracles
from mixbounds.solvers.result import SolveResult

CLASSES = (ProblemClass.CONSENSUS,)
CITATION = "Shi, Ling, Wu, Yin (2015), SIAM J. Optim. 25(2):944-966, EXTRA"


def solve_extra(problem, *, eps: float = 1e-8, x_star=None, max_iter: int = 100_000,
                oracles: CountedOracles | None = None, settle: float = 0.0, settle_eps: float | None = None,
                max_calls: int | None = None,
                alpha: float | None = None) -> SolveResult:
    """Run EXTRA on a consensus problem to ``‖x_k − x*‖² <= eps ‖x_0 − x*‖²`` (module docstring)."""
    require(problem, CLASSES, "EXTRA")
    orc = oracles if oracles is not None else CountedOracles(problem)
    u_star = reference_u(problem, x_star)
    g = gossip_facts(problem.W)
    lam_min_M = 0.0  # eigenvalues of M = I − W/λ_max are 1 − λ/λ_max: {1} ∪ [0, 1 − 1/κ_W], 0 at λ = λ_max
    lam_min_Mt = 0.5 * (1.0 + lam_min_M)
    L = problem.objective.L
    a = lam_min_Mt / L if alpha is None else float(alpha)
    if not (0 < a < 2 * lam_min_Mt / L):
        raise ValueError(f"EXTRA: need 0 < α < 2λ_min(M̃)/L_f = {2 * lam_min_Mt / L:g}, got {a}")
    mix = mixing_matrix_apply(orc, g["lambda_max_W"])
    n, dt = problem.n, problem.layout.dt
    run = Run(problem, orc, u_star, eps, max_iter, "extra", settle=settle, settle_eps=settle_eps, max_calls=max_calls)
    X_prev = np.zeros((n, dt))
    params = {"alpha": a, "mixing": "M = I - W/lambda_max(W)", "lambda_min_Mtilde": lam_min_Mt, **g}
    if run.record(X_prev):
        return run.result(params)
    G_prev = orc.grad(X_prev.ravel()).reshape(n, dt)
    MX_prev = mix(X_prev)
    X = MX_prev - a * G_prev
    if run.record(X):
        return run.result(params)
    while True:
        G = orc.grad(X.ravel()).reshape(n, dt)
        MX = mix(X)
        # X⁺ = X + MX − ½(X_prev + MX_prev) − α(G − G_prev)
        X_new = X + MX - 0.5 * (X_prev + MX_prev) - a * (G - G_prev)
        X_prev, MX_prev, G_prev, X = X, MX, G, X_new
        if run.record(X):
            return run.result(params)


BASELINE = Baseline("extra", solve_extra, CLASSES, CITATION)
