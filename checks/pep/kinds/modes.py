"""Single modes: K APAPC steps on one common eigenvector of ``P`` and of a quadratic ``G``, the worst over them.

Let ``G(u) = ½ uᵀHu`` with ``μ ⪯ H ⪯ L`` and ``H`` commuting with ``P`` (every one-dimensional quadratic on a
common eigenvector, e.g. identical ``f_i = (h/2)‖·‖²`` on every node of a network).  On a common eigenvector
``e`` (``He = he``, ``Pe = λe``) APAPC (Algorithm ``alg:apapc``) is linear in the three scalars ``(u, u_f, w)``
(``z − z* = Pw``, :mod:`mixbounds.checks.pep.kinds.classlevel`), and the Lyapunov function is the quadratic form
``V = u²/η + (2(1−τ)/τ)(h/2)u_f² + (λ/θ − cηλ²)w²`` — so ``V^K/V⁰`` on that line is a generalised eigenvalue of two
small matrices (2 × 2 from the algorithm's start ``u_f = u``, 3 × 3 from any state; without ``w`` when ``λ = 0``).
Because ``V`` and the iteration split over the common eigenvectors, the worst case over all such ``(H, P)`` is
attained on **one** line: a worst case of rank 1 (every point of the PEP a multiple of ``e``).

``ρ_mode`` is the largest of these factors over ``h ∈ [μ, L]`` and ``λ ∈ {0} ∪ [lo, hi]`` (the class) or ``λ`` in
the spectrum of a network's ``P``; each mode is an instance of the class, so ``ρ_mode <= ρ_PEP`` (a check of the
SDP from below by explicit instances).  Two readings of a solved PEP follow (used by the binding results of
:mod:`mixbounds.checks.pep.kinds.results` and the guide ``docs/guides/pep-certificates.md``):

* ``ρ_PEP = ρ_mode`` (to the SDP's accuracy): a single mode is a worst case — one-dimensional, and the network
  enters only through the one eigenvalue ``λ*`` (``λ* = 0``: the consensus direction, network-blind);
* ``ρ_PEP > ρ_mode``: no single mode is a worst case — the worst case couples directions (e.g. ``ker P`` and
  ``range P`` through a non-quadratic ``G``), and its rank is at least 2 unless a one-dimensional non-quadratic
  ``G`` on one eigenvector does as well.

The maximum is taken on a grid refined twice around its argmax (:data:`GRID`, :data:`REFINE`): a lower bound of the
true maximum over the modes, equal to it to the grid's resolution.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mixbounds.solvers.apapc import APAPCParameters

#: points per axis of the (h, λ) grid, and of each refinement around the best point
GRID = 101
#: refinements of the grid around its best point (each shrinks the box 10×)
REFINE = 2


@dataclass(frozen=True)
class ModeBound:
    """The worst single mode: ``rho`` (per step), at curvature ``h`` and eigenvalue ``lam`` of ``P``."""

    rho: float
    h: float
    lam: float

    def record(self) -> dict:
        return {"rho_mode": self.rho, "mode_h": self.h, "mode_lambda": self.lam}


def _steps(p: APAPCParameters, h: np.ndarray, lam: np.ndarray, K: int) -> np.ndarray:
    """``M^K`` for every ``(h, λ)`` (arrays of one shape): the K-step map of ``(u, u_f, w)``, shape ``(…, 3, 3)``."""
    tau, eta, theta, alpha = p.tau, p.eta, p.theta, p.alpha
    c = 1.0 / (1.0 + eta * alpha)
    mom = 2.0 * tau / (2.0 - tau)
    on = (lam > 0).astype(float)  # the w-update acts only in range P
    cols = []
    for e in np.eye(3):
        u, uf, w = (np.full(h.shape, x) for x in e)
        ug = tau * u + (1.0 - tau) * uf
        base = c * u - c * eta * (h - alpha) * ug
        w_new = w + theta * on * (base - c * eta * lam * w)
        u_new = base - c * eta * lam * w_new
        cols.append(np.stack([u_new, ug + mom * (u_new - u), w_new], axis=-1))
    M = np.stack(cols, axis=-1)
    out = np.broadcast_to(np.eye(3), M.shape).copy()
    for _ in range(K):
        out = M @ out
    return out


def _ratios(p: APAPCParameters, h: np.ndarray, lam: np.ndarray, K: int, start: str) -> np.ndarray:
    """``max V^K/V⁰`` on the line of every ``(h, λ)`` (module docstring)."""
    a_u, a_f = 1.0 / p.eta, (2.0 * (1.0 - p.tau) / p.tau if p.tau < 1.0 else 0.0)
    c = 1.0 / (1.0 + p.eta * p.alpha)
    q = np.stack([np.full(h.shape, a_u), a_f * h / 2.0, lam / p.theta - c * p.eta * lam ** 2], axis=-1)
    # from the algorithm's start u_f = u; with τ = 1 u_f enters neither the step (u_g = u) nor V: drop it too
    S = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]) if start == "algorithm" or a_f == 0.0 else np.eye(3)
    MK = _steps(p, h, lam, K) @ S
    A = np.einsum("...ki,...k,...kj->...ij", MK, q, MK)
    B = np.einsum("ki,...k,kj->...ij", S, q, S)
    out = np.empty(h.shape)
    dual = lam > 0
    for mask, keep in ((dual, slice(None)), (~dual, slice(0, S.shape[1] - 1))):
        if not mask.any():
            continue
        a, b = A[mask][:, keep, keep], B[mask][:, keep, keep]
        d = 1.0 / np.sqrt(np.einsum("...ii->...i", b))  # B is diagonal with a positive diagonal on the kept part
        sym = a * d[:, :, None] * d[:, None, :]
        out[mask] = np.linalg.eigvalsh(0.5 * (sym + np.swapaxes(sym, -1, -2)))[:, -1]
    return out


def mode_bound(p: APAPCParameters, K: int = 1, start: str = "any", lams=None) -> ModeBound:
    """``ρ_mode`` (module docstring) for the rule's parameters ``p``: over ``λ ∈ {0} ∪ [lo, hi]``, or over the given
    eigenvalues ``lams`` of a network's ``P`` (values below ``1e-12·max`` count as 0)."""
    if start not in ("any", "algorithm"):
        raise ValueError(f"mode bound: start must be 'any' or 'algorithm', got {start!r}")
    mu, L = p.mu, p.L
    if lams is not None:
        lam_axis = np.unique(np.where(np.abs(lams) <= 1e-12 * np.max(np.abs(lams)), 0.0, np.asarray(lams, float)))
        box = None
    else:
        lam_axis = np.concatenate([[0.0], np.linspace(p.lam_min, p.lam_max, GRID)])
        box = (p.lam_min, p.lam_max)
    h_axis = np.linspace(mu, L, GRID)
    best = (-np.inf, mu, 0.0)
    for level in range(REFINE + 1):
        Hh, Ll = np.meshgrid(h_axis, lam_axis, indexing="ij")
        R = _ratios(p, Hh, Ll, K, start)
        i = np.unravel_index(int(np.argmax(R)), R.shape)
        if R[i] > best[0]:
            best = (float(R[i]), float(Hh[i]), float(Ll[i]))
        if level == REFINE:
            break
        dh = (h_axis[-1] - h_axis[0]) / 10.0
        h_axis = np.linspace(max(mu, best[1] - dh), min(L, best[1] + dh), GRID)
        if box is not None and best[2] > 0:
            dl = (lam_axis[-1] - lam_axis[1]) / 10.0
            lam_axis = np.concatenate([[0.0], np.linspace(max(box[0], best[2] - dl), min(box[1], best[2] + dl), GRID)])
    return ModeBound(max(best[0], 0.0) ** (1.0 / K), best[1], best[2])
