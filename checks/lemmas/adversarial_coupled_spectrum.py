"""Adversarial search on Lemma ``lem:coupled_spectrum`` (``B = (A  βW⊗I_m)``, β² as the lemma sets it).

Parameters: the complete-graph Laplacian weights and the entries of the ``A_i``; statements evaluated by the lemma
check's own :func:`~mixbounds.checks.lemmas.coupled_spectrum.point_coupled_spectrum`.  Control: the lower bound with its
constant 1/2 replaced by 2 (multiplied by 4).
"""

from __future__ import annotations

import numpy as np
from mixbounds.bounds.concepts import Matrix
from mixbounds.checks.lemmas.adversarial import Search, Statement, adversarial_check, complete_laplacian, n_edges, take
from mixbounds.checks.lemmas.coupled_spectrum import LABEL, point_coupled_spectrum
from mixbounds.checks.lemmas.coupled_spectrum import LEMMA as SAMPLED

SHAPES = ({"n": 4, "m": 2, "d": 3}, {"n": 3, "m": 3, "d": 2}, {"n": 5, "m": 1, "d": 2})


def _sample(rng, s: dict) -> np.ndarray:
    return np.concatenate([1.5 * rng.standard_normal(n_edges(s["n"])), rng.standard_normal(s["n"] * s["m"] * s["d"])])


def _case(theta: np.ndarray, s: dict) -> dict:
    n, m, d = s["n"], s["m"], s["d"]
    w, pos = take(theta, 0, n_edges(n), (n_edges(n),))
    A, _ = take(theta, pos, n * m * d, (n, m, d))
    return {"source": "explicit", "W": complete_laplacian(w, n).tolist(), Matrix.A: A.tolist(), "objective": False}


def _ratios(p: dict) -> dict:
    return {"lower": p["ratio_min"], "upper": p["ratio_max"],
            "control": p["smin2_B"] / (2.0 * p["lambda_min_pos_S_A"]) if p["lambda_min_pos_S_A"] > 0 else None}


def _evaluate(case: dict) -> dict | None:
    p = point_coupled_spectrum(case)
    return dict(_ratios(p), cond=p["smax2_B"] / p["smin2_B"]) if p["clear"] else None


SEARCH = Search(
    name="coupled_spectrum", label=LABEL, module=__name__, seed=36,
    statements=(Statement("lower", "σ_min+²(B) >= λ_min+(S_A)/2"),
                Statement("upper", "σ_max²(B) <= σ_max²(A) + (σ_max²(A) + λ_min+(S_A))κ_W²"),
                Statement("control", "σ_min+²(B) >= 2λ_min+(S_A)", role="control")),
    shapes=SHAPES, sample=_sample, case=_case, evaluate=_evaluate, lemma=SAMPLED, sampled=_ratios)
LEMMA = adversarial_check(SEARCH)
