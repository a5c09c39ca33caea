"""Constraint blocks with an exact κ_C (group of local ``C_i``, paper Notation) or κ_C̃ (identical C̃).

Singular values are set directly in ``[1, √κ]`` with both ends present, so
``κ = σ_max²/σ_min+²`` exactly up to rounding.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from mixbounds.instances.random.common import haar_orthogonal


def local_blocks(d: Sequence[int], p: Sequence[int], kappa_C: float | None, rng: np.random.Generator):
    """``C_i = U_i diag(s_i) V_iᵀ`` (``p_i × d_i``, full row rank) and orthonormal kernel bases ``N_i``.

    ``kappa_C`` given: ``s_i² ∈ [1, κ_C]`` with both ends attained (node 0, or nodes 0/1);
    else the singular values of a Gaussian ``p_i × d_i`` matrix scaled by ``1/√d_i``.
    """
    n = len(d)
    Cs, Ns = [], []
    for i in range(n):
        U = haar_orthogonal(p[i], rng)
        Q = haar_orthogonal(d[i], rng)
        V, N = Q[:, : p[i]], Q[:, p[i]:]
        if kappa_C is None:
            s = np.linalg.svd(rng.standard_normal((p[i], d[i])) / np.sqrt(d[i]), compute_uv=False)
        else:
            s = np.sqrt(np.exp(rng.uniform(0.0, np.log(kappa_C), p[i]))) if kappa_C > 1 else np.ones(p[i])
            if i == 0:
                s[0] = 1.0
                if p[0] >= 2:
                    s[-1] = np.sqrt(kappa_C)
            if i == 1 and p[0] < 2:
                s[0] = np.sqrt(kappa_C)
        Cs.append((U * s) @ V.T)
        Ns.append(N)
    return Cs, Ns


def identical_shared_block(dt: int, pt: int, kappa: float | None, rng: np.random.Generator) -> np.ndarray:
    """One ``C̃`` (``p̃ × d̃``) with ``σ_max²/σ_min+² = κ_C̃`` (both ends attained)."""
    U = haar_orthogonal(pt, rng)
    V = haar_orthogonal(dt, rng)[:, :pt]
    if kappa is None:
        s = np.linalg.svd(rng.standard_normal((pt, dt)) / np.sqrt(dt), compute_uv=False)
    else:
        s = np.sqrt(np.exp(rng.uniform(0.0, np.log(kappa), pt))) if kappa > 1 else np.ones(pt)
        s[0] = 1.0
        s[-1] = np.sqrt(kappa)
    return (U * s) @ V.T

