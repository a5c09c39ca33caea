"""When each coordinate of ``x*`` first enters the supports: the lower-bound argument of each construction as a formula.

The engine (:mod:`mixbounds.checks.lower.engine`) finds, on the built matrices, the first round of the counted
oracle after which a coordinate of a node can be nonzero.  The appendices state the same thing as an argument
("every new index crosses the ``n/3 + 1`` hops between ``V1`` and ``V3``", "one ``C̃ᵀC̃`` product per index",
"each ``A`` round moves the dual chain one index, and back").  This module writes that argument as a closed
form, per construction and oracle, from the construction's integers only (node groups, hop distances, the
chain index of each coordinate), never from the matrices; :mod:`mixbounds.checks.lower.exact` compares the
two vertex by vertex and count by count.

Notation: chain indices ``k = 1, 2, …``; ``h = V3[0] − V1[−1]`` (the path's hop distance between the groups),
``d₁(i) = max(0, i − V1[−1])`` and ``d₃(i) = max(0, V3[0] − i)`` a node's distance to ``V1`` and to ``V3``,
``b₁(i) = |i − V1[−1]|`` and ``b₃(i) = |V3[0] − i|`` its distance to their boundary nodes (an index that crossed
the path is unlocked at the boundary node first);
on the ``l`` blocks of a coupled + local construction the same with ``U1``, ``U3`` and ``h_C``.

=========================  ========  ====================================================================
construction (part)        counted   first round of index ``k`` (``0`` for every coordinate not listed)
=========================  ========  ====================================================================
consensus ``θ``            grad      ``k``
consensus ``θ``            comm      ``k <= 2: d₁``; ``k >= 3: h·(k−2) + (b₁ if k even else b₃)``
coupled ``p``, ``t``       A         ``p_k: 2(k−1)``; ``t_k: 2·max(k−1, 1)`` (the dual chain: ``x → y → x``)
coupled ``p``, ``t``       comm      ``k = 2: d₃``; ``k >= 3: h·(k−2) + (b₃ if k even else b₁)`` (``k = 1``: 0)
shared ``p``, ``t``        Ct        ``p_k: max(k−1, 1)``; ``t_k: k`` (``t_1``: 0)
shared ``p``, ``t``        comm      ``p_k``: the consensus formula at ``k``; ``t_k`` (``k >= 2``): at ``k + 1``
split-rows ``p``, ``t``    C         block ``j``: ``t_k: h_C(k−1) + (d_{U1} if k odd else d_{U3})``;
                                     ``p_k`` (``k >= 2``): the smaller of ``t_{k−1}``'s and ``t_k``'s
gradient chains            grad      ``w_k: k`` (sum-trick and split chain); with ``∇f_i*``: the split chain (and
                                     consensus ``θ``) ``max(k − 1, 1)``, the sum-trick's whole chain in round 1
any part                   other     every coordinate of a part the counted oracle does not act on: ``0``
                                     (``1`` under grad: the objective's linear term is a gradient's seed)
=========================  ========  ====================================================================

Every block ``j`` of a coupled + local construction with shared rows holds the coupled formula; the
identical-``C̃`` chain follows the shared formulas under ``Ct`` and is free (``0``) under ``comm``.
"""

from __future__ import annotations

import numpy as np
from mixbounds.bounds.concepts import Oracle, WorstFamily
from mixbounds.instances.instance import Instance

#: (family, variant) pairs of the constructions with an arrival formula, per oracle (``None``: every variant)
FORMULAS = {
    WorstFamily.CONSENSUS: {Oracle.GRAD, Oracle.COMM},
    WorstFamily.COUPLED: {Oracle.A, Oracle.COMM},
    WorstFamily.SHARED: {Oracle.CT, Oracle.COMM},
    "coupled-local@shared-rows": {Oracle.A, Oracle.COMM},
    "coupled-local@shared-rows-incidence": {Oracle.A, Oracle.COMM},
    "coupled-local@split-rows": {Oracle.C},
    "mixed@cited": {Oracle.A, Oracle.CT, Oracle.COMM},
    "mixed@split-rows": {Oracle.C},
    WorstFamily.SHARED_IDENT: {Oracle.GRAD, Oracle.CT, Oracle.COMM},
    WorstFamily.MIXED_IDENT: {Oracle.CT, Oracle.COMM},
    "-grad": {Oracle.GRAD},
}


def has_formula(inst: Instance, oracle: str) -> bool:
    """Whether :func:`arrival` has the lower-bound argument of ``inst``'s construction for ``oracle``."""
    if inst.family.endswith("-grad"):
        return oracle == Oracle.GRAD and "gradient_chain" in inst.params
    for key in (f"{inst.family}@{inst.variant}", inst.family):
        if key in FORMULAS:
            return oracle in FORMULAS[key]
    return False


# ----------------------------------------------------------------------------- the path between the groups
def arrival_path(groups: dict, n: int) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(h, d₁, d₃, b₁, b₃)`` for nodes (or blocks) ``0 … n−1`` with groups ``{"V1": [a, b], "V3": [c, d]}``:
    distances to the group ``V1`` / ``V3`` and to its boundary node ``V1[−1]`` / ``V3[0]``."""
    g1, g3 = (groups.get("V1") or groups.get("U1")), (groups.get("V3") or groups.get("U3"))
    i = np.arange(n)
    return (int(g3[0] - g1[1]), np.maximum(0, i - g1[1]), np.maximum(0, g3[0] - i), np.abs(i - g1[1]),
            np.abs(g3[0] - i))


def _k(K: int) -> np.ndarray:
    return np.arange(1, K + 1)


def consensus_comm(K: int, h: int, d1: np.ndarray, b1: np.ndarray, b3: np.ndarray) -> np.ndarray:
    """``(nodes × K)``: indices 1, 2 are held by every node of ``V1``; index ``k >= 3`` is unlocked at ``V1``'s
    boundary node ``V1[−1]`` (``k`` even) or at ``V3[0]`` (odd) after ``h·(k−2)`` rounds — when index ``k − 1``
    arrives there — and reaches a node ``d`` hops away ``d`` rounds later."""
    k = _k(K)
    out = h * np.maximum(k - 2, 0)[None, :] + np.where((k % 2 == 0)[None, :], b1[:, None], b3[:, None])
    out[:, : min(K, 2)] = d1[:, None]
    return out


def coupled_comm(K: int, h: int, d3: np.ndarray, b1: np.ndarray, b3: np.ndarray) -> np.ndarray:
    """``(nodes × K)`` for ``p_k`` and ``t_k`` alike: index 1 is free (the shift of ``p``), index 2 is held by every
    node of ``V3``, index ``k >= 3`` is unlocked at ``V3[0]`` (even) or ``V1[−1]`` (odd) after ``h·(k−2)`` rounds."""
    k = _k(K)
    out = h * np.maximum(k - 2, 0)[None, :] + np.where((k % 2 == 0)[None, :], b3[:, None], b1[:, None])
    out[:, 0] = 0
    if K > 1:
        out[:, 1] = d3
    return out


def _coupled(pr: dict, n: int, oracle: str, copies: int = 1) -> np.ndarray:
    """``(n × 2·copies·K)`` for the coupled construction's ``x_i = (p blocks, t blocks)``."""
    K = pr["chain_length"]
    k = _k(K)
    if oracle == Oracle.A:
        p = np.tile(2 * (k - 1), (n, 1))
        t = np.tile(2 * np.maximum(k - 1, 1), (n, 1))
    elif oracle == Oracle.COMM:
        h, _, d3, b1, b3 = arrival_path(pr["groups"], n)
        p = t = coupled_comm(K, h, d3, b1, b3)
    else:
        return np.full((n, 2 * copies * K), 1 if oracle == Oracle.GRAD else 0)
    return np.hstack([np.tile(p, (1, copies)), np.tile(t, (1, copies))])


def _shared(pr: dict, n: int, oracle: str) -> np.ndarray:
    """``(n × 2K)`` for the shared construction's (and the identical-``C̃`` chain's) ``x̃ = (p, t)``."""
    K = pr["chain_length"]
    k = _k(K)
    if oracle == Oracle.CT:
        p, t = np.maximum(k - 1, 1), k.copy()
        t[0] = 0
        return np.tile(np.concatenate([p, t]), (n, 1))
    if oracle == Oracle.COMM and pr.get("hop_distance") is not None:
        h, d1, _, b1, b3 = arrival_path(pr["groups"], n)
        c = consensus_comm(K + 1, h, d1, b1, b3)
        t = c[:, 1:].copy()
        t[:, 0] = 0
        return np.hstack([c[:, :K], t])
    return np.full((n, 2 * K), 1 if oracle == Oracle.GRAD else 0)


def gradient_chain(K: int, conjugate: bool) -> np.ndarray:
    """A split chain's index ``k`` under gradient rounds: ``k``; with ``∇f_i*`` the seed's pair ``(1, 2)`` comes in
    round 1 and every later index one round earlier, ``max(k − 1, 1)``."""
    k = _k(K)
    return np.maximum(k - 1, 1) if conjugate else k


def _consensus(pr: dict, n: int, oracle: str, conjugate: bool = False) -> np.ndarray:
    K = pr["chain_length"]
    if oracle == Oracle.GRAD:
        return np.tile(gradient_chain(K, conjugate), (n, 1))
    if oracle == Oracle.COMM:
        h, d1, _, b1, b3 = arrival_path(pr["groups"], n)
        return consensus_comm(K, h, d1, b1, b3)
    return np.zeros((n, K), dtype=np.int64)


def _split_rows(pr: dict, n: int, oracle: str) -> np.ndarray:
    """``(n × 2lK)``: every node alike; block ``j`` of ``p`` and of ``t`` (module docstring)."""
    K, l = pr["chain_length"], pr["l"]
    if oracle != Oracle.C:
        return np.full((n, 2 * l * K), 1 if oracle == Oracle.GRAD else 0)
    hC, dU1, dU3, _, _ = arrival_path(pr["block_groups"], l)
    k = _k(K)
    t = hC * (k - 1)[None, :] + np.where((k % 2 == 1)[None, :], dU1[:, None], dU3[:, None])  # (l × K)
    p = np.minimum(t, np.hstack([np.full((l, 1), np.iinfo(np.int64).max // 2), t[:, :-1]]))
    p[:, 0] = 0
    return np.tile(np.concatenate([p.ravel(), t.ravel()]), (n, 1))


def _part(family: str, variant: str, pr: dict, n: int, oracle: str, conjugate: bool = False) -> np.ndarray:
    if family == WorstFamily.CONSENSUS:
        return _consensus(pr, n, oracle, conjugate)
    if family == WorstFamily.COUPLED:
        return _coupled(pr, n, oracle)
    if family in (WorstFamily.SHARED, WorstFamily.IDENT_CHAIN):
        if family == WorstFamily.IDENT_CHAIN and oracle == Oracle.COMM:
            return np.zeros((n, 2 * pr["chain_length"]), dtype=np.int64)
        return _shared(pr, n, oracle)
    if family == WorstFamily.COUPLED_LOCAL:
        if variant == "split-rows":
            return _split_rows(pr, n, oracle)
        return _coupled(pr, n, oracle, copies=pr["l"])
    raise ValueError(f"arrival: no formula for the part {family}[{variant}]")


def arrival(inst: Instance, oracle: str, *, conjugate: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``(X, X̃)``: the closed-form first round of ``oracle`` at which each ``x_i`` and ``x̃_i`` coordinate can be
    nonzero (``n × d`` and ``n × d̃``; module docstring).  ``conjugate`` (``grad`` only): each round may also call
    ``∇f_i*``.  ``ValueError`` without a formula (:func:`has_formula`)."""
    if not has_formula(inst, oracle):
        raise ValueError(f"arrival: no formula for {inst.family}[{inst.variant}] and oracle {oracle!r}")
    pr, n = inst.params, inst.problem.n
    fam = inst.family.removesuffix("-grad")
    if fam in (WorstFamily.SHARED_IDENT, WorstFamily.MIXED_IDENT) or (fam == WorstFamily.MIXED and inst.variant == "cited"):
        X, xt = None, []
        for f in pr["parts"]:
            a = _part(f, "printed", pr[f"{f}_part"], n, oracle, conjugate)
            if f == WorstFamily.COUPLED:
                X = a
            else:
                xt.append(a)
        X = X if X is not None else np.zeros((n, 0), dtype=np.int64)
        Xt = np.hstack(xt) if xt else np.zeros((n, 0), dtype=np.int64)
    elif fam == WorstFamily.MIXED:
        X = _part(WorstFamily.COUPLED_LOCAL, inst.variant, pr["x_part"], n, oracle)
        Xt = _shared(dict(pr["xt_part"], hop_distance=None) if oracle != Oracle.COMM else pr["xt_part"], n, oracle)
    else:
        a = _part(fam, inst.variant, pr, n, oracle, conjugate)
        local = fam in (WorstFamily.COUPLED, WorstFamily.COUPLED_LOCAL)
        X, Xt = (a, np.zeros((n, 0), dtype=np.int64)) if local else (np.zeros((n, 0), dtype=np.int64), a)
    if inst.family.endswith("-grad"):  # the base instance is reached with its gradient seeds, the chain one index a round
        gc = inst.params["gradient_chain"]
        if conjugate and gc.get("kind") != "split":  # ∇(f_i + h)*(0) returns the sum-trick's whole chain
            w = np.ones((n, gc["length"]), dtype=np.int64)
        else:
            w = np.tile(gradient_chain(gc["length"], conjugate), (n, 1))
        X, Xt = np.ones_like(X), np.ones_like(Xt)
        X, Xt = (X, np.hstack([Xt, w])) if gc.get("in_shared") else (np.hstack([X, w]), Xt)
    return X.astype(np.int64), Xt.astype(np.int64)


#: the table of the module docstring, per chain kind (:data:`mixbounds.checks.lower.asymptotic.MODELS`) and oracle
#: (``+conj``: ``∇f_i*`` allowed), for the records: ``r_v`` of the exact count's formula
ARRIVAL_TEXT = {
    (WorstFamily.CONSENSUS, Oracle.GRAD): "r(θ_k) = k",
    (WorstFamily.CONSENSUS, "grad+conj"): "r(θ_k) = max(k − 1, 1)",
    (WorstFamily.CONSENSUS, Oracle.COMM): "r(θ_k, node i) = d₁(i) for k <= 2, h(k − 2) + (b₁(i) if k even else b₃(i)) for k >= 3",
    (WorstFamily.COUPLED, Oracle.A): "r(p_k) = 2(k − 1), r(t_k) = 2·max(k − 1, 1)",
    (WorstFamily.COUPLED, Oracle.COMM): "r(p_k, t_k, node i) = 0 for k = 1, d₃(i) for k = 2, h(k − 2) + (b₃(i) if k even else b₁(i))",
    (WorstFamily.SHARED, Oracle.CT): "r(p_k) = max(k − 1, 1), r(t_k) = k (r(t_1) = 0)",
    (WorstFamily.SHARED, Oracle.COMM): "r(p_k) = consensus r(θ_k), r(t_k) = consensus r(θ_{k+1}) (r(t_1) = 0)",
    ("cl-shared-rows", Oracle.A): "every block j: coupled r(p_k) = 2(k − 1), r(t_k) = 2·max(k − 1, 1)",
    ("cl-shared-rows", Oracle.COMM): "every block j: the coupled formula",
    ("cl-split-rows", Oracle.C): "block j: r(t_k) = h_C(k − 1) + (d_U1(j) if k odd else d_U3(j)), "
                             "r(p_k) = min(r(t_{k−1}), r(t_k)) (r(p_1) = 0)",
    ("ident", Oracle.CT): "r(p_k) = max(k − 1, 1), r(t_k) = k (r(t_1) = 0)",
    ("sum-trick", Oracle.GRAD): "r(w_k) = k; base solution in round 1",
    ("sum-trick", "grad+conj"): "r(w_k) = 1: ∇(f_i + h)*(0) returns the whole chain",
    ("split", Oracle.GRAD): "r(w_k) = k; base solution in round 1",
    ("split", "grad+conj"): "r(w_k) = max(k − 1, 1); base solution in round 1",
}
