"""The coupled and shared constraint groups of a random family, tuned, with feasible right-hand sides.

``A_i`` (``m × d``) and ``C̃_i`` (``p̃ × d̃``) are drawn from a frame base plus Gaussian blocks and tuned by
:func:`.tuning.tune_group` to the target ``κ̃_AC`` (``κ̂_A`` without local constraints) or ``κ̂_{C̃ᵀ}``; identical
``C̃_i`` get their singular values set directly (:func:`.constraint_blocks.identical_shared_block`).  The
right-hand sides come from a random point (``b_i = A_i x⁰_i``, ``c̃_i = C̃_i x̃⁰``), so every instance is feasible.
Shared by the smooth random families (:mod:`.generic`) and the nonsmooth/convex ones
(:mod:`mixbounds.instances.nonsmooth`), with the same seeded streams, so both draw the same blocks.
"""

from __future__ import annotations

import numpy as np
from mixbounds.instances.random.common import seeded_rng
from mixbounds.instances.random.constraint_blocks import identical_shared_block
from mixbounds.instances.random.tuning import frame_base, tune_group

#: what the identical C̃ of a family records as its tuning
IDENTICAL_CT_TUNING = ("identical C̃: singular values in [1, sqrt(kappa_Ct)]; "
                       "kappa_Ct targets κ_C̃ (= κ̂_{C̃ᵀ} for identical blocks)")


def coupled_group(*, seed: int, n: int, d: int, p: int, m: int, kernels, x0: list, kappa_AC,
                  with_C: bool) -> tuple[list, list, dict, object]:
    """``(A, b, targets, tuning)``: ``A_i`` tuned to ``κ̃_AC`` on the kernels of the local ``C_i`` (``with_C``) or to
    ``κ̂_A``, ``b_i = A_i x⁰_i``, the targets met and the tuner's record."""
    rA = seeded_rng(seed, "coupled-A")
    B0 = frame_base(m, [d - p] * n, rA)
    X0 = [B0[i] @ kernels[i].T for i in range(n)] if with_C else B0
    XG = [rA.standard_normal((m, d)) / np.sqrt(d) for _ in range(n)]
    projs = [N @ N.T for N in kernels] if with_C else None
    tuned = tune_group(X0, XG, projs, kappa_AC, rA, label="kappa_AC")
    A = tuned.blocks
    targets = {}
    if kappa_AC is not None:
        targets["kappa_AC"] = kappa_AC
        if not with_C:
            targets["kappa_A"] = kappa_AC
    return A, [A[i] @ x0[i] for i in range(n)], targets, tuned.info


def shared_group(*, seed: int, n: int, dt: int, pt: int, xt0, kappa_Ct, identical: bool) -> tuple[list, list, dict, object]:
    """``(C̃, c̃, targets, tuning)``: identical ``C̃_i`` with exact ``κ_C̃``, or ``C̃_i`` tuned to ``κ̂_{C̃ᵀ}``;
    ``c̃_i = C̃_i x̃⁰``."""
    rC = seeded_rng(seed, "shared-Ct")
    targets = {}
    if identical:
        Ct0 = identical_shared_block(dt, pt, kappa_Ct, rC)
        if kappa_Ct is not None:
            targets["kappa_Ct_id"] = kappa_Ct
            targets["kappa_Ct"] = kappa_Ct
        return [Ct0] * n, [Ct0 @ xt0] * n, targets, IDENTICAL_CT_TUNING if kappa_Ct else "none"
    B0 = frame_base(dt, [pt] * n, rC)
    XG = [rC.standard_normal((dt, pt)) / np.sqrt(pt) for _ in range(n)]
    tuned = tune_group(B0, XG, None, kappa_Ct, rC, label="kappa_Ct")
    Ct = [X.T.copy() for X in tuned.blocks]
    if kappa_Ct is not None:
        targets["kappa_Ct"] = kappa_Ct
    return Ct, [Ci @ xt0 for Ci in Ct], targets, tuned.info
