"""A non-accelerated method written only against the public contract: PAPC (no Nesterov momentum).

The primal-dual iteration that APAPC accelerates (``alg:apapc`` with ``τ = 1``: ``u_g = u``, no extrapolation),
on the same reformulations as ``examples/apapc.py`` but without the outer Chebyshev polynomial:

* consensus: ``KᵀK = W`` itself (plain gossip, one ``comm`` per iteration);
* coupled: ``B = (A  αW')`` with ``W' = P_W(W)`` (Chebyshev gossip kept inside the block: with ``W`` itself
  the block's spectral ratio grows like ``κ_W²``), ``KᵀK = BᵀB``.

Expected: ``κ_f + κ_W`` iterations on consensus and ``(κ_f + κ̂_A)·√κ_W`` communications on coupled, i.e. suboptimal
in ``κ_f`` (exponent 1 instead of ½) — the paper's Table 1 needs the acceleration.
"""

import math

import numpy as np

from examples import chebyshev as cheb


def papc(problem, oracles):
    """PAPC for the consensus and coupled classes (yields the primal estimate after every iteration)."""
    n, lmax, lmin = problem.n, problem.lambda_max_W, problem.lambda_min_W
    if problem.problem_class == "consensus":
        W = lambda X: oracles.comm(X.reshape(n, -1)).ravel()  # noqa: E731
        w = np.zeros(problem.size)
        yield from _plain(oracles.grad, W, np.zeros_like(w), w, problem.L_f, problem.mu_f, lmax, lmin)
        return
    dW = cheb.degree(lmax, lmin)
    sW = cheb.spread(lmax, lmin, dW)
    Wp = cheb.poly(oracles.comm, lmax, lmin, dW)
    mu_W, kW = (1 - sW) ** 2, (1 + sW) / (1 - sW)
    LA, lS, dx, m = problem.L_A, problem.lambda_min_S_A, problem.dx, problem.m
    a, r, b = math.sqrt((lS + LA) / mu_W), problem.mu_f / (2 * LA), problem.b

    def B(w):
        return oracles.A(w[:dx]) + a * Wp(w[dx:].reshape(n, m))

    def BT(e):
        return np.concatenate([oracles.AT(e), a * Wp(e).ravel()])

    def grad_G(w):
        g = r * BT(B(w) - b)
        g[:dx] += oracles.grad(w[:dx])
        return g

    hi, lo = LA + (LA + lS) * kW ** 2, lS / 2  # lem:coupled_spectrum
    for w in _plain(grad_G, lambda w: BT(B(w)), BT(b), np.zeros(dx + n * m), 2 * problem.L_f * kW ** 2,
                    problem.mu_f / 4, hi, lo):
        yield w[:dx]


def _plain(grad, normal, rhs, w, L, mu, lam_max, lam_min):
    """``alg:apapc`` with ``τ = 1`` (PAPC): the same steps, no momentum."""
    eta = 1.0 / (4 * L)
    theta, c = 1.0 / (eta * lam_max), 1.0 / (1.0 + eta * mu)
    u, z = w.copy(), np.zeros_like(w)
    while True:
        step = grad(u) - mu * u
        u_half = c * (u - eta * (step + z))
        z = z + theta * (normal(u_half) - rhs)
        u = c * (u - eta * (step + z))
        yield u


papc.classes = ("consensus", "coupled")
