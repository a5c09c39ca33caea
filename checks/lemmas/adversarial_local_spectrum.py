"""Adversarial search on Lemma ``lem:local_spectrum`` (identical ``C``: ``Bᵀ = [I⊗Cᵀ, γW⊗I]``).

Parameters: the complete-graph Laplacian weights, the entries of ``C`` (shapes with ``ker C = 0`` and ``≠ 0``) and
``log`` of the factor in ``γ² = f·σ_min+²(C)/σ_min+²(W)`` (the lemma holds for any γ); statements evaluated by
:func:`~mixbounds.checks.lemmas.local_spectrum.point_local_spectrum`.  The printed ``σ_min+²`` formula is a known finding (it
fails when ``ker C = 0``); what the paper uses, ``σ_min+²(B) >= min{σ_min+²(C), γ²σ_min+²(W)}``, the corrected
formula and the ``σ_max²`` formula must survive.  Equalities enter as ``min(a/b, b/a)``.  Control: the ``σ_max²``
formula with ``γ²`` replaced by ``γ`` (the lemma check's control).
"""

from __future__ import annotations

import numpy as np
from mixbounds.bounds.concepts import Matrix
from mixbounds.checks.lemmas.adversarial import Search, Statement, adversarial_check, complete_laplacian, n_edges, take
from mixbounds.checks.lemmas.base import EQ_RTOL
from mixbounds.checks.lemmas.local_spectrum import LABEL, point_local_spectrum
from mixbounds.checks.lemmas.local_spectrum import LEMMA as SAMPLED

SHAPES = ({"n": 4, "p": 3, "dt": 3}, {"n": 3, "p": 4, "dt": 2}, {"n": 4, "p": 2, "dt": 3})


def _sample(rng, s: dict) -> np.ndarray:
    return np.concatenate([1.5 * rng.standard_normal(n_edges(s["n"])), rng.standard_normal(s["p"] * s["dt"]),
                           [rng.uniform(-3.0, 3.0)]])


def _case(theta: np.ndarray, s: dict) -> dict:
    n, p, dt = s["n"], s["p"], s["dt"]
    w, pos = take(theta, 0, n_edges(n), (n_edges(n),))
    C, pos = take(theta, pos, p * dt, (p, dt))
    return {"source": "explicit", "W": complete_laplacian(w, n).tolist(), Matrix.CT: [C.tolist()] * n,
            "gamma_factor": float(np.exp(np.clip(theta[pos], -12.0, 12.0)))}


def _eq(a: float, b: float) -> float:
    return min(a / b, b / a) if a > 0 and b > 0 else None


def _ratios(p: dict) -> dict:
    return {"printed_min": _eq(p["smin2_B"], p["printed_min"]), "corrected_min": _eq(p["smin2_B"], p["corrected_min"]),
            "lower": p["smin2_B"] / p["printed_min"], "max": _eq(p["smax2_B"], p["printed_max"]),
            "control": _eq(p["smax2_B"], p["control_max"])}


def _evaluate(case: dict) -> dict | None:
    p = point_local_spectrum(case)
    return dict(_ratios(p), cond=p["smax2_B"] / p["smin2_B"]) if p["clear"] else None


SEARCH = Search(
    name="local_spectrum", label=LABEL, module=__name__, seed=36,
    statements=(Statement("printed_min", "σ_min+²(B) = min{σ_min+²(C), γ²σ_min+²(W)} (as printed)", role="printed-false",
                          tol=EQ_RTOL),
                Statement("corrected_min", "σ_min+²(B) = min{σ_min+²(C), γ²σ_min+²(W)} if ker C ≠ 0, else σ_min+²(C)",
                          tol=EQ_RTOL),
                Statement("lower", "σ_min+²(B) >= min{σ_min+²(C), γ²σ_min+²(W)}"),
                Statement("max", "σ_max²(B) = σ_max²(C) + γ²σ_max²(W)", tol=EQ_RTOL),
                Statement("control", "σ_max²(B) = σ_max²(C) + γσ_max²(W)", role="control", tol=EQ_RTOL)),
    shapes=SHAPES, sample=_sample, case=_case, evaluate=_evaluate, lemma=SAMPLED, sampled=_ratios,
    finding="the printed σ_min+²(B) formula fails under search as on the seeded cases (ker C = 0); the corrected "
            "formula, the lower bound the paper uses and σ_max²(B) survive")
LEMMA = adversarial_check(SEARCH)
