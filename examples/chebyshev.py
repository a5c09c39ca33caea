"""Chebyshev acceleration written against the public contract only (``subsec:chebyshev_acc``, ``alg:chebyshev``).

For a symmetric PSD operator ``M`` (a callable; each call costs whatever oracles it uses) whose positive
eigenvalues lie in ``[mu, L]``: ``P(M) = I − T̃_n(M)`` with the normalised residual polynomial of degree ``n``;
its positive eigenvalues lie in ``[1 − 1/T_n(θ), 1 + 1/T_n(θ)]``, ``θ = (L + μ)/(L − μ)``.
"""

import math

import numpy as np


def degree(L, mu):
    """``⌈√(L/μ)⌉``: the degree that makes ``P(M)`` well conditioned."""
    return max(1, math.ceil(math.sqrt(L / mu)))


def spread(L, mu, n):
    """``1/T_n(θ)``: ``P(M)`` has its positive spectrum in ``[1 − spread, 1 + spread]``."""
    if L <= mu:
        return 0.0
    x = 2 * mu / (L - mu)
    t = math.exp(-n * math.log1p(x + math.sqrt(x * (2 + x))))
    return 2 * t / (1 + t * t)


def iterate(M, g, v, L, mu, n):
    """``n`` Chebyshev steps for ``M v = g`` from ``v`` (``v=None``: start at 0 and skip the product ``M·0``)."""
    rho, nu = (L - mu) ** 2 / 16, (L + mu) / 2
    r = -np.asarray(g, dtype=float) if v is None else M(v) - g
    v = np.zeros_like(r) if v is None else np.array(v, dtype=float)
    p = -r / nu
    v = v + p
    delta = -nu / 2
    for _ in range(n - 1):
        beta = rho / delta
        delta = -(nu + beta)
        p = ((M(v) - g) + beta * p) / delta
        v = v + p
    return v


def poly(M, L, mu, n):
    """The operator ``u ↦ P(M) u`` (``n`` applications of ``M``)."""
    return lambda u: u - iterate(M, 0.0, u, L, mu, n)
