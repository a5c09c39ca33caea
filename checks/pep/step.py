"""One iteration of APAPC (Algorithm ``alg:apapc``) on slot sequences, line by line.

The same lines as :class:`mixbounds.solvers.apapc.Iterates.step` (``b = 0``, see
:mod:`mixbounds.checks.pep.model`), written on sequences of slot values so that one code serves PEPit
points (the PEP) — every operation is a fixed scalar combination of slot values::

    u_g       = τ u + (1 − τ) u_f
    u^{+1/2}  = c (u − η(∇G(u_g) − α u_g + z)),          c = 1/(1 + ηα)
    z⁺        = z + θ P u^{+1/2}
    u⁺        = c (u − η(∇G(u_g) − α u_g + z⁺))
    u_f⁺      = u_g + 2τ/(2 − τ) (u⁺ − u)
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
from mixbounds.solvers.apapc import APAPCParameters


def combine(terms: Sequence[tuple[float, Sequence]]) -> list:
    """``Σ_k c_k v_k`` slot by slot (terms with ``c_k = 0`` skipped)."""
    terms = [(float(c), v) for c, v in terms if c != 0.0]
    size = len(terms[0][1])
    out = []
    for s in range(size):
        acc = None
        for c, v in terms:
            t = c * v[s] if c != 1.0 else v[s]
            acc = t if acc is None else acc + t
        out.append(acc)
    return out


def apply(M: np.ndarray, v: Sequence, zero) -> list:
    """``(M ⊗ I) v``: ``out_i = Σ_j M_ij v_j`` (``zero`` where a row of ``M`` vanishes)."""
    out = []
    for i in range(M.shape[0]):
        acc = None
        for j in np.nonzero(M[i])[0]:
            t = float(M[i, j]) * v[j]
            acc = t if acc is None else acc + t
        out.append(zero if acc is None else acc)
    return out


def apapc_step(params: APAPCParameters, P: np.ndarray, grad_G: Callable[[list], list], u, u_f, z, zero):
    """One iteration from ``(u, u_f, z)``; returns ``(u⁺, u_f⁺, z⁺, u_g)``.

    ``grad_G(u_g)`` returns ``∇G(u_g)`` as a slot sequence; ``P`` is the normal operator (slot matrix).
    """
    tau, eta, theta, alpha = params.tau, params.eta, params.theta, params.alpha
    c = 1.0 / (1.0 + eta * alpha)
    u_g = combine([(tau, u), (1.0 - tau, u_f)])
    g = grad_G(u_g)
    d = combine([(1.0, g), (-alpha, u_g)])
    u_half = combine([(c, u), (-c * eta, d), (-c * eta, z)])
    z_new = combine([(1.0, z), (theta, apply(P, u_half, zero))])
    u_new = combine([(c, u), (-c * eta, d), (-c * eta, z_new)])
    mom = 2.0 * tau / (2.0 - tau)
    u_f_new = combine([(1.0, u_g), (mom, u_new), (-mom, u)])
    return u_new, u_f_new, z_new, u_g
