"""Seeding, argument checks and tolerances shared by every random family (:mod:`mixbounds.instances.random`).

All random draws come from streams ``default_rng([seed, crc32(name)])`` that are independent per
component (graph, objective, each matrix group), so changing one target does not redraw the others.
Bad arguments raise ``ValueError`` naming the parameter and the accepted range.
"""

from __future__ import annotations

import zlib
from typing import Sequence

import numpy as np
from mixbounds.bounds.spectral import ZERO_RTOL

#: relative tolerance to which realized κ's match their targets (dense spectral path)
TARGET_RTOL = 1e-8
#: the same when some matrix is larger than ``mixbounds.bounds.spectral.DENSE_LIMIT`` (ARPACK path)
TARGET_RTOL_LARGE = 1e-6
#: largest target accepted: beyond it κ approaches the relative zero threshold
#: ``mixbounds.bounds.spectral.ZERO_RTOL`` = 1e-9 and λ_min+ could not be told from 0.
KAPPA_MAX = 1e8
#: relative accuracy demanded of the internal root finding
ROOT_RTOL = 1e-10

OBJECTIVES = ("quadratic", "logistic", "logcosh")

COMMON_KW = ("gossip", "er_p")


def seeded_rng(seed: int, stream: str) -> np.random.Generator:
    """The generator of one named random stream of an instance: ``default_rng([seed, crc32(stream)])``."""
    return np.random.default_rng([int(seed), zlib.crc32(stream.encode())])


def haar_orthogonal(k: int, rng: np.random.Generator) -> np.ndarray:
    """A Haar-random ``k × k`` orthogonal matrix."""
    if k == 0:
        return np.zeros((0, 0))
    G = rng.standard_normal((k, k))
    Qm, R = np.linalg.qr(G)
    return Qm * np.sign(np.where(np.diag(R) == 0, 1.0, np.diag(R)))


def check_seed(seed) -> int:
    """``seed`` as an ``int``; ``ValueError`` unless it is a non-negative integer."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def check_kappa(name: str, value, *, allow_one: bool = True) -> float | None:
    """A condition-number target as a ``float`` (``None`` passes); ``ValueError`` unless finite, in ``[1, KAPPA_MAX]`` (``> 1`` when not ``allow_one``)."""
    if value is None:
        return None
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {value!r}") from None
    if not np.isfinite(v):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if v < 1.0 or (not allow_one and v <= 1.0):
        raise ValueError(f"{name} = {v:g} is impossible: condition numbers are >= 1" + ("" if allow_one else " (and this one must be > 1)"))
    if v > KAPPA_MAX:
        raise ValueError(f"{name} = {v:g} exceeds KAPPA_MAX = {KAPPA_MAX:g} (λ_min+ would fall below the zero threshold ZERO_RTOL = {ZERO_RTOL:g})")
    return v


def check_int(name: str, value, lo: int, hi: int | None = None) -> int:
    """``value`` as an ``int``; ``ValueError`` unless it is an integer ``>= lo`` (and ``<= hi`` when given)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if value < lo or (hi is not None and value > hi):
        rng_txt = f">= {lo}" if hi is None else f"in [{lo}, {hi}]"
        raise ValueError(f"{name} must be {rng_txt}, got {value}")
    return int(value)


def reject_unknown(family: str, kw: dict, allowed: Sequence[str]) -> None:
    """``ValueError`` naming the keys of ``kw`` that family ``family`` does not accept (``allowed``)."""
    bad = sorted(k for k in kw if k not in allowed)
    if bad:
        raise ValueError(f"{family}: unknown parameter(s) {', '.join(bad)}; accepted extra parameters: {', '.join(sorted(allowed)) or 'none'}")


def reject_targets(family: str, why: dict) -> None:
    """``why``: {param: (value, reason)}: any given value is an error."""
    for k, (v, reason) in why.items():
        if v is not None:
            raise ValueError(f"{family}: cannot target {k} = {v}: {reason}")


def check_variant(family: str, variant: str, known: Sequence[str]) -> str:
    """``variant``; ``ValueError`` unless it is one of the family's ``known`` variants."""
    if variant not in known:
        raise ValueError(f"{family}: unknown variant {variant!r} (known: {', '.join(known)})")
    return variant


def rel_gap(a: float, b: float) -> float:
    """The relative gap ``|a/b − 1|`` between a realized value ``a`` and its target ``b``."""
    return abs(a / b - 1.0)


def kappa_A_alias(family: str, kw: dict, kappa_AC):
    """``kappa_A`` (popped from ``kw``) is an alias of ``kappa_AC`` for coupled structures without local constraints;
    both given must agree.  Returns the target ``κ̃_AC``."""
    if "kappa_A" not in kw:
        return kappa_AC
    ka = kw.pop("kappa_A")
    if kappa_AC is not None and ka is not None and float(ka) != float(kappa_AC):
        raise ValueError(f"{family}: kappa_A = {ka} and kappa_AC = {kappa_AC} disagree (kappa_A is an alias of kappa_AC here)")
    return ka if kappa_AC is None else kappa_AC
