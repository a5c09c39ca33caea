"""Pieces shared by the worst-case constructions.

Chain length rule
-----------------
Every construction truncates an infinite chain (Nesterov's tridiagonal ``M``) to
``K`` coordinates.  Its exact solution decays geometrically, ``x*_k ∝ ρ^k``; the
number of leading components an ``ε``-accurate point must have (relative squared
error, the solvers' and the engine's measure) is

    k_ε = ⌈ log(1/ε) / (2 log(1/ρ)) ⌉.

The truncation must not change what is measured, or the finite problem's
faster convergence fakes a slope.  The rule is ``K = CHAIN_FACTOR · k_ε + CHAIN_PAD``
with ``CHAIN_FACTOR = 8``, i.e. ``K ≈ 2√κ_chain log(1/ε)`` (``k_ε ≈ √κ_chain log(1/ε)/4``):

* the exact solution's tail beyond ``K`` is below ``ε^8`` of its mass, so ``x*``
  is the infinite chain's to far below any accuracy measured;
* the smallest eigenvalue of the truncated ``M_K``, ``≈ (π/K)²``, is below 1% of
  the chain's shift, so the realized condition numbers (which the fits use)
  are those of the infinite construction to within 1%;
* the lower-bound engine needs the index ``k_ε`` and reports a stall if the
  chain ends first.

A Chebyshev-accelerated method applies polynomials of degree ``~√κ`` every
iteration, so its iterates' supports reach any finite ``K`` within a few
iterations: no chain length keeps a run "from reaching the end".  What the
checks verify instead (``checks.rates``, ``…truncation.<param>``) is that
doubling ``K`` leaves the measured per-accuracy counts unchanged.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

#: chain length = CHAIN_FACTOR * k_eps + CHAIN_PAD (see the module docstring)
CHAIN_FACTOR = 8
CHAIN_PAD = 20
#: hard cap on the chain length (memory); exceeding it is a ValueError naming the parameters
CHAIN_MAX = 200_000


def rho_from_shift(a2: float) -> float:
    """Root ``ρ ∈ (0, 1)`` of ``ρ + 1/ρ = 2 + a2`` (the solution ratio of ``(M + a2 I) z = e_1``)."""
    if a2 <= 0:
        raise ValueError(f"chain: the shift must be positive, got {a2}")
    c = 1.0 + a2 / 2.0
    return c - math.sqrt(c * c - 1.0)


def k_eps(rho: float, eps: float) -> int:
    """Leading components needed for relative squared error ``eps`` (module docstring)."""
    if not (0 < eps < 1):
        raise ValueError(f"eps must be in (0, 1), got {eps}")
    return max(1, math.ceil(math.log(1.0 / eps) / (2.0 * math.log(1.0 / rho))))


def chain_length(rho: float, eps: float, *, factor: int = CHAIN_FACTOR, pad: int = CHAIN_PAD, scale: float = 1.0) -> int:
    """The rule of the module docstring, times ``scale`` (the truncation check uses 2)."""
    K = int(round(scale * (factor * k_eps(rho, eps) + pad)))
    if K > CHAIN_MAX:
        raise ValueError(f"chain length {K} for ρ={rho:.6f}, ε={eps:g} exceeds CHAIN_MAX={CHAIN_MAX}; lower κ or raise ε")
    return K


def nesterov_M(K: int) -> sp.csr_matrix:
    """Truncation of Nesterov's ``M`` (tridiagonal 2, −1; ``M_11 = 2``) to ``K × K``."""
    return sp.diags([np.full(K, 2.0), -np.ones(K - 1), -np.ones(K - 1)], [0, -1, 1], format="csr")


def pair_block_matrix(K: int, first: int) -> sp.csr_matrix:
    """``Σ (e_k − e_{k+1})(e_k − e_{k+1})ᵀ`` over ``k = first, first+2, …`` (0-based ``k``, ``k+1 < K``)."""
    rows, cols, vals = [], [], []
    for k in range(first, K - 1, 2):
        rows += [k, k, k + 1, k + 1]
        cols += [k, k + 1, k, k + 1]
        vals += [1.0, -1.0, -1.0, 1.0]
    return sp.csr_matrix((vals, (rows, cols)), shape=(K, K))


def difference_rows(K: int, ks) -> sp.csr_matrix:
    """``K × K`` matrix whose row ``k`` (0-based, for ``k`` in ``ks``) is ``e_k − e_{k+1}`` (truncated), other rows zero."""
    rows, cols, vals = [], [], []
    for k in ks:
        rows.append(k)
        cols.append(k)
        vals.append(1.0)
        if k + 1 < K:
            rows.append(k)
            cols.append(k + 1)
            vals.append(-1.0)
    return sp.csr_matrix((vals, (rows, cols)), shape=(K, K))


def unit_rows(K: int, ks) -> sp.csr_matrix:
    """``K × K`` diagonal 0/1 matrix with ones at rows ``ks``."""
    d = np.zeros(K)
    d[list(ks)] = 1.0
    return sp.diags(d, format="csr")


def closed_form(label: str, printed, computed, *, rtol: float, statement: str, **extra) -> dict:
    """A closed-form comparison record: ``holds`` iff ``|computed − printed| <= rtol·|printed|``.

    ``extra`` may carry ``key`` (which closed form, stable for the checks that select it) and ``role``
    (``printed``: the formula as printed; ``corrected``: the suite's derived form; ``check``: a
    supporting identity; ``control``: a deliberately wrong form that must fail).
    """
    printed_f, computed_f = float(printed), float(computed)
    holds = bool(abs(computed_f - printed_f) <= rtol * max(abs(printed_f), 1e-300))
    rec = {"label": label, "statement": statement, "printed": printed_f, "computed": computed_f,
           "rel_diff": abs(computed_f - printed_f) / max(abs(printed_f), 1e-300), "rtol": rtol, "holds": holds}
    rec.update(extra)
    return rec


def finding(label: str, statement: str, printed, measured, detail: str, *, key: str | None = None) -> dict:
    """A disagreement between the paper and the numbers (both kept); ``key``: the closed form it is about."""
    out = {"label": label, "statement": statement, "printed": printed, "measured": measured, "detail": detail}
    if key is not None:
        out["key"] = key
    return out


def geometric_ratio(v: np.ndarray, *, skip: int = 3, upto: int | None = None, floor: float = 1e-250) -> float:
    """Median ratio ``|v_{k+1}| / |v_k|`` over a stretch of a geometrically decaying vector."""
    a = np.abs(np.asarray(v, dtype=float))
    hi = len(a) - 1 if upto is None else min(upto, len(a) - 1)
    idx = [k for k in range(skip, hi) if a[k] > floor and a[k + 1] > floor]
    if len(idx) < 3:
        return float("nan")
    return float(np.median([a[k + 1] / a[k] for k in idx]))
