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
checks verify instead (``mixbounds.checks.rates``, ``…truncation.<param>``) is that
doubling ``K`` leaves the measured per-accuracy counts unchanged.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from mixbounds.bounds.guards import SCALE_FLOOR
from mixbounds.instances.graphs import PATH_KAPPA_W_MAX

#: chain length = CHAIN_FACTOR * k_eps + CHAIN_PAD (see the module docstring)
CHAIN_FACTOR = 8
CHAIN_PAD = 20
#: hard cap on the chain length (memory); exceeding it is a ValueError naming the parameters
CHAIN_MAX = 200_000
#: largest κ_f, κ̂_A / κ̃_AC, κ_C, κ̂_C̃ a printed construction accepts (the random families' KAPPA_MAX):
#: the chain's ratio is ρ ≈ 1 − 2/√κ, so beyond it the chain needs ≳ 10⁴·log(1/ε) coordinates (CHAIN_MAX is
#: reached for ε ≤ 1e-4) and at κ ≈ 1e16 ρ rounds to 1 in double precision (k_ε would divide by zero)
KAPPA_PRINTED_MAX = 1e8
#: smallest target accuracy: ε below it only lengthens the chain, the measurements stop at 1e-21 (mixbounds.checks.sweeps)
EPS_MIN = 1e-30
#: the κ parameters of the printed constructions and their paper symbols (messages)
KAPPA_NAMES = {"kappa_f": "κ_f", "kappa_AC": "κ̃_AC", "kappa_A": "κ̂_A", "kappa_C": "κ_C", "kappa_Ct": "κ̂_C̃",
               "kappa_W": "κ_W"}


def check_printed_params(params: dict) -> None:
    """Upper bounds of a printed construction's parameters, checked before anything is built.

    Each κ must be finite and <= :data:`KAPPA_PRINTED_MAX` (κ_W and κ_C, realized by tuned paths: the path's
    bound :data:`mixbounds.instances.graphs.PATH_KAPPA_W_MAX`), ε in [EPS_MIN, 1); the message says the bound and why.
    """
    for key, sym in KAPPA_NAMES.items():
        v = params.get(key)
        if v is None or isinstance(v, str):
            continue
        v = float(v)
        path = key in ("kappa_W", "kappa_C")  # κ_C of app:coupled_local is a tuned path's κ as well (its C blocks)
        bound = PATH_KAPPA_W_MAX if path else KAPPA_PRINTED_MAX
        nodes = math.pi * math.sqrt(v) / 2 if math.isfinite(v) else math.inf
        why = (f"{sym} is realized by a tuned path of app:example_graph, with ≈ π√{sym}/2 = "
               f"{nodes:.3g} nodes, 1571 at the bound" if path else
               "the chain's ratio ρ ≈ 1 − 2/√κ needs ≳ 10⁴·log(1/ε) coordinates beyond it (CHAIN_MAX = "
               f"{CHAIN_MAX}) and rounds to 1 in double precision near 1e16")
        if not math.isfinite(v) or v > bound:
            raise ValueError(f"{sym} = {v:g} exceeds the bound {bound:g} of the printed construction ({why})")
    eps = params.get("eps")
    if eps is not None and not (EPS_MIN <= float(eps) < 1):
        raise ValueError(f"ε = {float(eps):g} must be in [{EPS_MIN:g}, 1) (the chain length grows as log(1/ε))")


def reject_unused(unused: dict, fam: str) -> None:
    """Refuse the parameters a construction was given but does not use (``seed`` and ``n`` are always allowed).

    Parameters
    ----------
    unused : dict
        Parameter name → value for the parameters family ``fam`` ignores; ``None`` means not given.
    fam : str
        The family's name, for the error message.
    """
    bad = {k: v for k, v in unused.items() if v is not None and k not in ("seed", "n")}
    if bad:
        raise ValueError(f"{fam}: parameters {sorted(bad)} do not apply to this family")


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
    if not (0 < rho < 1) or math.log(1.0 / rho) <= 0:
        raise ValueError(f"chain: ratio ρ = {rho!r} is not in (0, 1) in double precision (the κ behind it is ≳ 1e16); "
                         f"chains are limited to CHAIN_MAX = {CHAIN_MAX} coordinates")
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


#: closed-form tolerances (``closed_form(..., rtol=)``); a record that misses its tolerance becomes a finding.
#: Exact algebra on the built matrices (dense eigenvalues, entries): rounding only
RTOL_ALGEBRA = 1e-9
#: an extreme eigenvalue by Lanczos (ARPACK at ``mixbounds.bounds.spectral.LMAX_TOL`` = 1e-8)
RTOL_EIGEN = 1e-8
#: read off the reference solution ``x*`` (a KKT solve, ratios of small components) or an iterative λ_min+
RTOL_ITERATIVE = 1e-6
#: a formula of the infinite chain compared on the built chain of ``K`` coordinates: the finite chain's λ_min+ and
#: realized κ differ from the infinite chain's by a correction that vanishes as ``K`` grows
RTOL_FINITE_CHAIN = 1e-3


def closed_form(label: str, printed, computed, *, rtol: float, statement: str, **extra) -> dict:
    """A closed-form comparison record: ``holds`` iff ``|computed − printed| <= rtol·|printed|``.

    ``extra`` may carry ``key`` (which closed form, stable for the checks that select it) and ``role``
    (``printed``: the formula as printed; ``corrected``: the suite's derived form; ``check``: a
    supporting identity; ``control``: a deliberately wrong form that must fail).
    """
    printed_f, computed_f = float(printed), float(computed)
    holds = bool(abs(computed_f - printed_f) <= rtol * max(abs(printed_f), SCALE_FLOOR))
    rec = {"label": label, "statement": statement, "printed": printed_f, "computed": computed_f,
           "rel_diff": abs(computed_f - printed_f) / max(abs(printed_f), SCALE_FLOOR), "rtol": rtol, "holds": holds}
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
