"""Adversarial search on the Chebyshev interval (``subsec:chebyshev_acc``, Salim et al. §6.3.2).

Claim: with degree ``K = ⌈√κ⌉`` every positive eigenvalue ``λ ∈ [μ, L]`` of ``BᵀB`` is mapped by ``P`` into
``[1 − 1/T_K, 1 + 1/T_K] ⊂ [11/15, 19/15]``.  Parameters: ``log₁₀ κ ∈ (0, 6)`` and the position of ``λ`` in
``[μ, L]`` (both through a logistic map), ``P(λ) = 1 − T_K((L + μ − 2λ)/(L − μ))/T_K(θ)`` by the lemma check's
:func:`~mixbounds.checks.lemmas.chebyshev_interval.cheb_residual`.  The sup of ``1/T_⌈√κ⌉`` is ``1/cosh 2 ≈ 0.2658`` (κ → ∞
along perfect squares), just below ``4/15``: the ``19/15`` end has a margin of 7e-4.  Control: degree
``⌈κ^{1/4}⌉`` (the lemma check's control).
"""

from __future__ import annotations

import math

import numpy as np
from mixbounds.checks.lemmas.adversarial import Search, Statement, adversarial_check
from mixbounds.checks.lemmas.base import CHEB_EIG_TOL, SALIM_HI, SALIM_LO
from mixbounds.checks.lemmas.chebyshev_interval import LABEL, cheb_residual, inv_T
from mixbounds.checks.lemmas.chebyshev_interval import LEMMA as SAMPLED

SHAPES = ({"log10_kappa_max": 6.0},)


def _sample(rng, s: dict) -> np.ndarray:
    return rng.uniform(-4.0, 4.0, 2)


def _case(theta: np.ndarray, s: dict) -> dict:
    lk = s["log10_kappa_max"] / (1.0 + math.exp(-float(np.clip(theta[0], -40, 40))))
    t = 1.0 / (1.0 + math.exp(-float(np.clip(theta[1], -40, 40))))
    return {"kappa": 10.0 ** lk, "t": t}


def _interval_ratio(P: float, lo: float, hi: float) -> float:
    return min(P / lo, hi / P) if P > 0 else None


def _evaluate(case: dict) -> dict:
    kap, t = case["kappa"], case["t"]
    L, mu = kap, 1.0
    lam = np.array([mu + t * (L - mu)])
    out = {}
    for key, K in (("sqrt", max(1, math.ceil(math.sqrt(kap) * (1 - 1e-12)))), ("quarter", max(1, math.ceil(kap ** 0.25 * (1 - 1e-12))))):
        P = float(1.0 - cheb_residual(lam, L, mu, K)[0])
        e = inv_T(K, kap)
        if key == "sqrt":
            out["salim"] = _interval_ratio(P, SALIM_LO, SALIM_HI)
            out["exact"] = _interval_ratio(P, 1 - e, 1 + e) if e > 0 else (1.0 if abs(P - 1) <= CHEB_EIG_TOL else None)
        else:
            out["control"] = _interval_ratio(P, SALIM_LO, SALIM_HI)
    return out


def _sampled(p: dict) -> dict:
    """The lemma check's κ grid: the interval ends are attained, so the worst row gives the sampled worst."""
    if "rows" not in p or "dense" in p:
        return {}
    worst = min(min(r["lo"] / SALIM_LO, SALIM_HI / r["hi"]) for r in p["rows"])
    return {"control": worst} if "quarter" in p["case"] else {"salim": worst}


SEARCH = Search(
    name="chebyshev_interval", label=LABEL, module=__name__, seed=36,
    statements=(Statement("salim", "P(λ) ∈ [11/15, 19/15] for λ ∈ [μ, L], K = ⌈√κ⌉", tol=0.0),
                Statement("exact", "P(λ) ∈ [1 − 1/T_K(θ), 1 + 1/T_K(θ)]", tol=CHEB_EIG_TOL),
                Statement("control", "P(λ) ∈ [11/15, 19/15] with K = ⌈κ^(1/4)⌉", role="control", tol=0.0)),
    shapes=SHAPES, sample=_sample, case=_case, evaluate=_evaluate, lemma=SAMPLED, sampled=_sampled)
LEMMA = adversarial_check(SEARCH)
