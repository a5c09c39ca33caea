"""Adversarial search on Lemma ``lem:mixed_coupled_with_local_spectrum`` (``B = [[A, αW⊗I], [βC, 0]]`` with
eq:block_scaling).

Parameters: complete-graph Laplacian weights, the entries of the ``A_i`` and ``C_i``; a shape with ``A_i = R_iC_i``
keeps ``μ̃_AC = 0`` exactly (the lemma's second case).  Statements evaluated by
:func:`~mixbounds.checks.lemmas.mixed_coupled_with_local_spectrum.point_mixed_cl_spectrum`: the lower bound ``σ_min+²(B) >=
μ̃/4`` (``L_A`` when ``μ̃ = 0``) and the proof's explicit ``κ_B`` bound.  Control: the lower bound times 4 (the lemma
check's control).
"""

from __future__ import annotations

import numpy as np
from mixbounds.bounds.concepts import Matrix
from mixbounds.checks.lemmas.adversarial import Search, Statement, adversarial_check, complete_laplacian, n_edges, take
from mixbounds.checks.lemmas.mixed_coupled_with_local_spectrum import LABEL, point_mixed_cl_spectrum
from mixbounds.checks.lemmas.mixed_coupled_with_local_spectrum import LEMMA as SAMPLED

SHAPES = ({"n": 4, "m": 2, "d": 4, "p": 2}, {"n": 3, "m": 1, "d": 3, "p": 1}, {"n": 4, "m": 2, "d": 3, "p": 1, "mu0": True})


def _size(s: dict) -> int:
    blocks = s["n"] * s["p"] * s["d"] + (s["n"] * s["m"] * s["p"] if s.get("mu0") else s["n"] * s["m"] * s["d"])
    return n_edges(s["n"]) + blocks


def _sample(rng, s: dict) -> np.ndarray:
    th = rng.standard_normal(_size(s))
    th[:n_edges(s["n"])] *= 1.5
    return th


def _case(theta: np.ndarray, s: dict) -> dict:
    n, m, d, p = s["n"], s["m"], s["d"], s["p"]
    w, pos = take(theta, 0, n_edges(n), (n_edges(n),))
    C, pos = take(theta, pos, n * p * d, (n, p, d))
    if s.get("mu0"):
        R, _ = take(theta, pos, n * m * p, (n, m, p))
        A = np.einsum("imp,ipd->imd", R, C)
    else:
        A, _ = take(theta, pos, n * m * d, (n, m, d))
    return {"source": "explicit", "W": complete_laplacian(w, n).tolist(), Matrix.A: A.tolist(), Matrix.C: C.tolist()}


def _ratios(p: dict) -> dict:
    if "ratio_min" not in p:
        return {}
    return {"lower": p["ratio_min"], "kappa": p["ratio_kappa"], "control": p["smin2_B"] / p["control_lower"]}


def _evaluate(case: dict) -> dict | None:
    p = point_mixed_cl_spectrum(case)
    return dict(_ratios(p), cond=p["kappa_B"]) if p["clear"] else None


SEARCH = Search(
    name="mixed_coupled_with_local_spectrum", label=LABEL, module=__name__, seed=36,
    statements=(Statement("lower", "σ_min+²(B) >= μ̃_AC/4 (L_A when μ̃_AC = 0)"),
                Statement("kappa", "κ_B <= the proof's explicit bound (end of app:mixed_coupled_with_local_spectrum)"),
                Statement("control", "σ_min+²(B) >= μ̃_AC (4L_A when μ̃_AC = 0)", role="control")),
    shapes=SHAPES, sample=_sample, case=_case, evaluate=_evaluate, lemma=SAMPLED, sampled=_ratios)
LEMMA = adversarial_check(SEARCH)
