"""A primal–dual gradient method for the coupled class, written only against the public contract (not accelerated).

Problem (P) with coupled constraints only (``prob:opt_mixed_constraints_intro``, class ``coupled``):
``min Σ f_i(x_i)  s.t.  Σ A_i x_i = Σ b_i``.  With one auxiliary block ``Y`` (n × m) the constraint becomes
``A x + α W'Y = b`` node by node (``app:coupled_cons``: ``Σ_i (A_i x_i − b_i) = 0`` exactly when ``A x − b`` lies in the
range of ``W'``), ``W' = P(W)`` a Chebyshev polynomial of the gossip matrix of degree ``⌈√κ_W⌉`` (``alg:chebyshev``),
so the constraint matrix ``K = (A  αW')`` is well conditioned.  The method is the predictor–corrector primal–dual
iteration on the Lagrangian ``F(x) + ⟨λ, A x + α W'Y − b⟩`` with one multiplier ``λ_i ∈ R^m`` per node, step ``1/L_f``
and **no momentum** (PAPC, ``alg:apapc`` with ``τ = 1``, and no augmented term).

Per iteration: one ``grad``, two ``A`` (``A`` and ``AT``), ``2⌈√κ_W⌉`` ``comm``.  Expected on the coupled class:
``~(κ_f + κ_A)`` iterations, so exponent 1 (not Table 1's ½) in ``κ_f`` and ``κ_A``, ½ in ``κ_W`` — suboptimal.
The method designer's guide (docs/guides/method-designer.md) shows this file's function as the coupled example.
"""

import math

import numpy as np


def pdgd(problem, oracles):
    n, m, b = problem.n, problem.m, problem.b                    # b: (n, m), row i is b_i
    lmax, lmin = problem.lambda_max_W, problem.lambda_min_W      # extreme eigenvalues of W (λ_min+: positive one)
    deg = math.ceil(math.sqrt(lmax / lmin))
    c0 = (lmax + lmin) / (lmax - lmin)
    T = math.cosh(deg * math.acosh(c0))                          # T_deg(c0); spectrum of W' in [1 − 1/T, 1 + 1/T]

    def gossip(Y):                                               # W'Y = Y − T_deg(c(W))Y / T_deg(c0): deg rounds
        shift = lambda V: c0 * V - 2 * oracles.comm(V) / (lmax - lmin)  # noqa: E731 - c(W)V, one round
        t_prev, t = Y, shift(Y)
        for _ in range(deg - 1):
            t_prev, t = t, 2 * shift(t) - t_prev
        return Y - t / T

    s = 1 / T
    a = math.sqrt(problem.lambda_min_S_A) / (1 - s)              # α: σ_min+ of αW' at least √λ_min+(S_A)
    eta = 1 / problem.L_f
    sigma = 1 / (eta * (problem.L_A + (a * (1 + s)) ** 2))       # σ·η·‖K‖² <= 1
    x, Y, lam = np.zeros(problem.dx), np.zeros((n, m)), np.zeros((n, m))
    KTx, KTY = np.zeros(problem.dx), np.zeros((n, m))             # Kᵀλ = (Aᵀλ, αW'λ)
    while True:
        g = oracles.grad(x)                                      # x (dx,) -> ∇F(x) (dx,): no shared block here
        xp, Yp = x - eta * (g + KTx), Y - eta * KTY              # predictor
        lam = lam + sigma * (oracles.A(xp) + a * gossip(Yp) - b)  # A: (dx,) -> (n, m)
        KTx, KTY = oracles.AT(lam), a * gossip(lam)             # AT: (n, m) -> (dx,)
        x, Y = x - eta * (g + KTx), Y - eta * KTY                # corrector
        yield x


pdgd.classes = ("coupled",)
