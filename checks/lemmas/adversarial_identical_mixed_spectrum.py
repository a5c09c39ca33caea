"""Adversarial search on the unnamed lemma closing app:upper_bound_coupled_plus_non_ident_local_constraints_prob
(identical ``C̃``, ``C = 0``: ``B = diag(αB_1, B_2)``, the lemma's α, β, γ).

Parameters: complete-graph Laplacian weights, the entries of the ``A_i`` and of ``C̃``; statements evaluated by
:func:`~mixbounds.checks.lemmas.identical_mixed_spectrum.point_identical_mixed`: ``σ_min+²(B) >= σ_min+²(C̃)`` and the proof's
explicit ``σ_max²(B)`` bound.  Control: the lower bound with ``4σ_min+²(C̃)``.
"""

from __future__ import annotations

import numpy as np
from mixbounds.bounds.concepts import Matrix
from mixbounds.checks.lemmas.adversarial import Search, Statement, adversarial_check, complete_laplacian, n_edges, take
from mixbounds.checks.lemmas.identical_mixed_spectrum import LABEL, point_identical_mixed
from mixbounds.checks.lemmas.identical_mixed_spectrum import LEMMA as SAMPLED

SHAPES = ({"n": 4, "m": 2, "d": 2, "pt": 2, "dt": 3}, {"n": 3, "m": 1, "d": 3, "pt": 3, "dt": 2},
          {"n": 4, "m": 3, "d": 2, "pt": 1, "dt": 2})


def _sample(rng, s: dict) -> np.ndarray:
    n = s["n"]
    return np.concatenate([1.5 * rng.standard_normal(n_edges(n)), rng.standard_normal(n * s["m"] * s["d"] + s["pt"] * s["dt"])])


def _case(theta: np.ndarray, s: dict) -> dict:
    n, m, d, pt, dt = s["n"], s["m"], s["d"], s["pt"], s["dt"]
    w, pos = take(theta, 0, n_edges(n), (n_edges(n),))
    A, pos = take(theta, pos, n * m * d, (n, m, d))
    Ct, _ = take(theta, pos, pt * dt, (pt, dt))
    return {"source": "explicit", "W": complete_laplacian(w, n).tolist(), Matrix.A: A.tolist(), Matrix.CT: [Ct.tolist()] * n}


def _ratios(p: dict) -> dict:
    return {"lower": p["ratio_min"], "upper": p["ratio_max"], "control": p["ratio_min"] / 4.0}


def _evaluate(case: dict) -> dict | None:
    p = point_identical_mixed(case)
    return dict(_ratios(p), cond=p["kappa_B"]) if p["clear"] else None


SEARCH = Search(
    name="identical_mixed_spectrum", label=LABEL, module=__name__, seed=36,
    statements=(Statement("lower", "σ_min+²(B) >= σ_min+²(C̃)"),
                Statement("upper", "σ_max²(B) <= max(2σ_min+²(C̃)(κ̂_A + (κ̂_A + 1)κ_W²), σ_max²(C̃) + σ_min+²(C̃)κ_W²)"),
                Statement("control", "σ_min+²(B) >= 4σ_min+²(C̃)", role="control")),
    shapes=SHAPES, sample=_sample, case=_case, evaluate=_evaluate, lemma=SAMPLED, sampled=_ratios)
LEMMA = adversarial_check(SEARCH)
