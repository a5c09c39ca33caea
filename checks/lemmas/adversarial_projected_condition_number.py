"""Adversarial search on Remark ``rem:projected_condition_number`` (κ̃_BD against κ̂_B).

Parameters: the entries of the ``B_i`` and ``D_i`` (``m <= Σ(d_i − p_i)``: ``rank(B'P_{ker D}) = rank B'``
generically).  The printed ``κ̃_BD <= κ̂_B`` is a known finding (``B = (1, t), D = (0, 1)``: ``κ̃ = 1 + t²``); the
corrected ``κ̃_BD >= κ̂_B`` on equal-rank cases (derived in the lemma check) must survive.  ``κ̂``, ``μ̃`` with the
helpers the lemma check uses (:func:`mixbounds.checks.lemmas.cases.group_extremes`, :func:`mixbounds.checks.lemmas.cases.interaction_min_pos`,
:func:`mixbounds.checks.lemmas.base.mu_tilde_dense`).  Control: ``κ̃_BD >= 4κ̂_B``.
"""

from __future__ import annotations

import numpy as np
from mixbounds.bounds.concepts import Matrix
from mixbounds.checks.lemmas.adversarial import Search, Statement, adversarial_check, take
from mixbounds.checks.lemmas.base import mu_tilde_dense
from mixbounds.checks.lemmas.cases import group_extremes, interaction_min_pos, materialize, orth_kernel, sv2
from mixbounds.checks.lemmas.projected_condition_number import LABEL
from mixbounds.checks.lemmas.projected_condition_number import LEMMA as SAMPLED

SHAPES = ({"n": 3, "m": 2, "d": 3, "p": 1}, {"n": 2, "m": 2, "d": 3, "p": 1}, {"n": 4, "m": 1, "d": 2, "p": 1})


def _sample(rng, s: dict) -> np.ndarray:
    return rng.standard_normal(s["n"] * (s["m"] + s["p"]) * s["d"])


def _case(theta: np.ndarray, s: dict) -> dict:
    n, m, d, p = s["n"], s["m"], s["d"], s["p"]
    B, pos = take(theta, 0, n * m * d, (n, m, d))
    D, _ = take(theta, pos, n * p * d, (n, p, d))
    return {"source": "explicit", "W": (np.eye(n) * n - np.ones((n, n))).tolist(), Matrix.A: B.tolist(), Matrix.C: D.tolist()}


def _evaluate(case: dict) -> dict | None:
    M = materialize(case)
    L, _ = group_extremes(M.A)
    _, lam = interaction_min_pos(M.A, ref=L)
    mu_t = mu_tilde_dense(M.A, M.C, L)
    if lam <= 0 or mu_t <= 0:
        return None
    kh, kt = L / lam, L / mu_t
    # rank(B'P_{ker D}) = rank of (B_i N_i)_i with N_i an orthonormal basis of ker D_i; same zero threshold as rank B'
    Bp = np.hstack(M.A)
    ref = sv2(Bp)["lmax"]
    F = np.hstack([a @ orth_kernel(c) for a, c in zip(M.A, M.C)])
    same = sv2(Bp, ref=ref)["rank"] == sv2(F, ref=ref)["rank"]
    return {"printed": kh / kt, "corrected": kt / kh if same else None, "control": kt / (4 * kh), "cond": max(kh, kt)}


def _sampled(p: dict) -> dict:
    if p.get("mu_tilde", 0) <= 0 or "rank_MP" not in p:
        return {}
    r = p["ratio_tilde_over_hat"]
    return {"printed": 1.0 / r, "corrected": r if p["rank_M"] == p["rank_MP"] else None, "control": r / 4.0}


SEARCH = Search(
    name="projected_condition_number", label=LABEL, module=__name__, seed=36,
    statements=(Statement("printed", "κ̃_BD <= κ̂_B (as printed)", role="printed-false"),
                Statement("corrected", "κ̃_BD >= κ̂_B when rank(B'P_{ker D}) = rank B'"),
                Statement("control", "κ̃_BD >= 4κ̂_B", role="control")),
    shapes=SHAPES, sample=_sample, case=_case, evaluate=_evaluate, lemma=SAMPLED, sampled=_sampled,
    finding="κ̃_BD <= κ̂_B fails under search as on the seeded cases; the corrected κ̃_BD >= κ̂_B (equal ranks) survives")
LEMMA = adversarial_check(SEARCH)
