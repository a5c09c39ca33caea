"""Constraint blocks with a prescribed mixed or projected condition number (κ̂, κ̃).

``kappa_AC`` (κ̃_AC, Definition ``def:projected_condition_number``; equal to κ̂_A of Definition
``def:mixed_condition_number`` when there are no local constraints) and ``kappa_Ct`` (κ̂_{C̃ᵀ},
non-identical C̃): the blocks ``X_i`` (``A_i``, or ``C̃_iᵀ``) run through a two-stage
one-parameter family.  Stage 1 blends a *frame base* ``X⁰`` (orthonormal rows of one random
orthogonal matrix dealt to the nodes cyclically: the smallest mixed condition number the sizes
allow, 1 when every ``A_i P_{ker C_i}`` can have ``m`` orthonormal rows) with Gaussian blocks
``Xᴳ``: ``X(h) = Wh · ((1−h)X⁰ + hXᴳ)`` where ``Wh`` whitens the (projected) interaction matrix
to the identity on its range.  Stage 2 (targets above the Gaussian value) scales one random
direction ``u`` of that range: ``X(t) = (I − (1−t)uuᵀ) X(1)``, so ``λ_min+ = t²``.  ``h`` or
``log t`` is found by Brent's method, so the realized value matches the target to about 1e-12 in
exact arithmetic.  A target below the frame base's value is impossible (for a rank-deficient
group, ``κ̂ >= n·rank(S)/Σ_i rank(B_i)``) and raises ``ValueError`` naming the floor.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
from mixbounds.bounds.spectral import ZERO_RTOL
from mixbounds.instances.random.common import ROOT_RTOL, haar_orthogonal, rel_gap
from scipy.optimize import brentq


def _smax_sq(blocks: Sequence[np.ndarray]) -> float:
    shapes = {B.shape for B in blocks}
    if len(shapes) == 1:
        return float(np.max(np.linalg.norm(np.stack(blocks), 2, axis=(1, 2))) ** 2)
    return float(max(np.linalg.norm(B, 2) ** 2 for B in blocks if B.size))


def _proj_gram(blocks: Sequence[np.ndarray], projs: Sequence[np.ndarray] | None) -> np.ndarray:
    """``(1/n) Σ X_i P_i X_iᵀ`` (``P_i = I`` when ``projs`` is None)."""
    n = len(blocks)
    S = np.zeros((blocks[0].shape[0],) * 2)
    for i, X in enumerate(blocks):
        XP = X if projs is None else X @ projs[i]
        S += XP @ X.T if projs is None else XP @ XP.T
    return 0.5 * (S + S.T) / n


def _pos_eig(S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    ev, V = np.linalg.eigh(S)
    if ev[-1] <= 0:
        return ev[:0], V[:, :0]
    keep = ev > ZERO_RTOL * ev[-1]
    return ev[keep], V[:, keep]


def group_ratio(blocks: Sequence[np.ndarray], projs: Sequence[np.ndarray] | None = None) -> float:
    """``max_i σ_max²(X_i) / λ_min+((1/n) Σ X_i P_i X_iᵀ)``.

    With ``P_i = I``: κ̂_X of Definition ``def:mixed_condition_number``; with
    ``P_i`` the projector onto ``ker C_i``: κ̃_XC of Definition
    ``def:projected_condition_number`` (``μ̃ > 0`` case).
    """
    ev, _ = _pos_eig(_proj_gram(blocks, projs))
    if ev.size == 0:
        return float("inf")
    return _smax_sq(blocks) / float(ev.min())


def _whiten(blocks: list[np.ndarray], projs) -> list[np.ndarray]:
    ev, V = _pos_eig(_proj_gram(blocks, projs))
    Wm = (V / np.sqrt(ev)) @ V.T + (np.eye(V.shape[0]) - V @ V.T)
    return [Wm @ X for X in blocks]


def frame_base(m: int, ranks: Sequence[int], rng: np.random.Generator) -> list[np.ndarray]:
    """``B⁰_i`` (``m × r_i``): columns of one random orthogonal ``O`` dealt cyclically, times random ``R_i``.

    ``r_i >= m``: ``B⁰_i B⁰_iᵀ = I``; ``r_i < m``: a coordinate projection of rank ``r_i``,
    the ranks spread as evenly over the ``m`` directions as the sizes allow.
    """
    O = haar_orthogonal(m, rng)
    out, off = [], 0
    for r in ranks:
        R = haar_orthogonal(r, rng)
        if r >= m:
            B = np.hstack([O, np.zeros((m, r - m))]) @ R
        else:
            cols = (off + np.arange(r)) % m
            off += r
            B = O[:, cols] @ R
        out.append(B)
    return out


@dataclass
class _Tuned:
    blocks: list
    info: dict


def tune_group(X0: list[np.ndarray], XG: list[np.ndarray], projs, target: float | None, rng: np.random.Generator,
               *, label: str) -> _Tuned:
    """Blocks ``X_i`` with ``group_ratio(X, projs) = target`` (two-stage family of the module docstring).

    ``target=None``: the Gaussian blocks ``XG`` unchanged (untuned).
    """
    if target is None:
        return _Tuned([np.array(X) for X in XG], {"tuning": "none (Gaussian blocks)"})

    def blend(h: float) -> list[np.ndarray]:
        return _whiten([(1.0 - h) * a + h * g for a, g in zip(X0, XG)], projs)

    k0 = group_ratio(blend(0.0), projs)
    if target < k0 * (1 - ROOT_RTOL):
        raise ValueError(
            f"{label} = {target:g} is below {k0:.6g}, the smallest value this family reaches with these sizes "
            f"(frame base; in general κ̂ >= n·rank(S)/Σ_i rank(B_i)): increase the block ranks or lower the row dimension"
        )
    if rel_gap(k0, target) <= ROOT_RTOL:
        return _Tuned(blend(0.0), {"tuning": "frame base", "h": 0.0, "t": 1.0, "floor": k0})
    XG1 = blend(1.0)
    kG = group_ratio(XG1, projs)
    info: dict[str, Any] = {"floor": k0, "kappa_gaussian": kG}
    if target <= kG:
        f = lambda h: np.log(group_ratio(blend(h), projs)) - np.log(target)  # noqa: E731
        h = brentq(f, 0.0, 1.0, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500)
        X = blend(h)
        info.update(tuning="stage 1: blend frame base -> Gaussian (Brent on h)", h=float(h), t=1.0)
    else:
        ev, V = _pos_eig(_proj_gram(XG1, projs))
        if V.shape[1] < 2:
            raise ValueError(f"{label} = {target:g}: the interaction matrix has rank {V.shape[1]} < 2, so no weak direction can be scaled; "
                             f"the reachable maximum is {kG:.6g}")
        g = V @ (V.T @ rng.standard_normal(V.shape[0]))
        u = g / np.linalg.norm(g)

        def scaled(s: float) -> list[np.ndarray]:
            t = np.exp(s)
            return [X - (1.0 - t) * np.outer(u, u @ X) for X in XG1]

        f = lambda s: np.log(group_ratio(scaled(s), projs)) - np.log(target)  # noqa: E731
        s_lo = -0.5 * np.log(target / kG) - 0.1
        while f(s_lo) < 0:
            s_lo -= 1.0
            if s_lo < -40:
                raise ValueError(f"{label} = {target:g} not reached by scaling a weak direction")
        s = brentq(f, s_lo, 0.0, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500)
        X = scaled(s)
        info.update(tuning="stage 2: Gaussian blocks, weak direction scaled by t (Brent on log t)", h=1.0, t=float(np.exp(s)))
    achieved = group_ratio(X, projs)
    if rel_gap(achieved, target) > ROOT_RTOL:
        raise ValueError(f"{label}: root finding reached {achieved:.12g}, target {target:.12g} (relative error {rel_gap(achieved, target):.1e})")
    info["internal_relative_error"] = rel_gap(achieved, target)
    return _Tuned(X, info)

