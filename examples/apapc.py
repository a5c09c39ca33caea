"""An optimal method written only against the public contract: APAPC with Chebyshev acceleration.

Algorithm ``alg:apapc`` (``sec:smooth_objectives_apapc``) on the paper's reformulations ``min G(w) s.t. K w = b'``:

* consensus (``prob:consensus_cons``): ``w = X̃``, ``KᵀK = P_W(W)`` (Chebyshev of degree ``⌈√κ_W⌉``);
* coupled (``app:coupled_cons``, ``lem:coupled_spectrum``): ``w = (x, Y)``, ``B = (A  αW')`` with ``W' = P_W(W)``,
  ``G = F(x) + (r/2)‖Ax + αW'Y − b‖²`` (``r = μ_f/(2L_A)``, constants of ``lem:conv_smooth_c_and_l``),
  ``KᵀK = P_B(BᵀB)`` (outer Chebyshev).

Expected: ``√κ_f·√κ_W`` communications (consensus), ``√κ_f·√κ̂_A·√κ_W`` (coupled) — Table 1.
"""

import math

import numpy as np

from examples import chebyshev as cheb


def apapc_steps(grad, normal, rhs, w, L, mu, lam_max, lam_min):
    """APAPC iterates ``u^k`` (``alg:apapc``) for ``min G s.t. Kw = b'``; ``normal = KᵀK``, ``rhs = Kᵀb'``."""
    tau = min(1.0, 0.5 * math.sqrt((lam_max / lam_min) / (L / mu)))
    eta = 1.0 / (4 * tau * L)
    theta, alpha = 1.0 / (eta * lam_max), mu
    c = 1.0 / (1.0 + eta * alpha)
    u, u_f, z = w.copy(), w.copy(), np.zeros_like(w)
    while True:
        u_g = tau * u + (1 - tau) * u_f
        step = grad(u_g) - alpha * u_g
        u_half = c * (u - eta * (step + z))
        z = z + theta * (normal(u_half) - rhs)
        u_new = c * (u - eta * (step + z))
        u_f = u_g + 2 * tau / (2 - tau) * (u_new - u)
        u = u_new
        yield u


def apapc(problem, oracles):
    """APAPC + Chebyshev for the consensus and coupled classes (a user's method: yields the primal estimate)."""
    n, lmax, lmin = problem.n, problem.lambda_max_W, problem.lambda_min_W
    dW = cheb.degree(lmax, lmin)
    sW = cheb.spread(lmax, lmin, dW)
    if problem.problem_class == "consensus":
        normal = cheb.poly(lambda X: oracles.comm(X.reshape(n, -1)).ravel(), lmax, lmin, dW)
        w = np.zeros(problem.size)
        for u in apapc_steps(oracles.grad, normal, np.zeros_like(w), w, problem.L_f, problem.mu_f, 1 + sW, 1 - sW):
            yield u
        return
    Wp = cheb.poly(oracles.comm, lmax, lmin, dW)  # W' = P_W(W), σ(W') ⊂ [1 − sW, 1 + sW]
    mu_W, kW = (1 - sW) ** 2, (1 + sW) / (1 - sW)
    LA, lS, dx, m = problem.L_A, problem.lambda_min_S_A, problem.dx, problem.m
    a = math.sqrt((lS + LA) / mu_W)
    r = problem.mu_f / (2 * LA)
    b = problem.b

    def B(w):  # Ax + αW'Y, shape (n, m)
        return oracles.A(w[:dx]) + a * Wp(w[dx:].reshape(n, m))

    def BT(e):  # Bᵀe = (Aᵀe, αW'e)
        return np.concatenate([oracles.AT(e), a * Wp(e).ravel()])

    def grad_G(w):
        g = r * BT(B(w) - b)
        g[:dx] += oracles.grad(w[:dx])
        return g

    hi, lo = LA + (LA + lS) * kW ** 2, lS / 2  # lem:coupled_spectrum
    K = cheb.degree(hi, lo)
    sK = cheb.spread(hi, lo, K)
    N = lambda w: BT(B(w))  # noqa: E731
    normal = cheb.poly(N, hi, lo, K)
    rhs = cheb.iterate(N, BT(b), None, hi, lo, K)  # Kᵀb' = P(BᵀB)(BᵀB)⁺Bᵀb
    w0 = np.zeros(dx + n * m)
    for w in apapc_steps(grad_G, normal, rhs, w0, 2 * problem.L_f * kW ** 2, problem.mu_f / 4, 1 + sK, 1 - sK):
        yield w[:dx]


apapc.classes = ("consensus", "coupled")
