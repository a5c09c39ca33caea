"""The exact solution ``x*`` of each worst-case construction in closed form (the infinite chain, cut at ``K``).

Every lower bound of the suite reads the tail of ``x*`` (:mod:`mixbounds.checks.lower.engine`): the number of
leading chain indices a point must hold to reach accuracy ε is a property of ``x*``.  This module writes ``x*``
from the construction's parameters alone — the chain ratio ``ρ`` from its shift (``ρ + 1/ρ = 2 + s``,
:func:`~mixbounds.instances.worst_case.common.rho_from_shift`) and the head of the chain from the first rows of
the optimality system — so that the engine's counts can be compared with counts derived without any solver
(:mod:`mixbounds.checks.lower.exact`), and each construction's ``x*`` with its KKT solution
(:func:`deviation`).  Derivations (sign conventions as built; ``D``: the ``K × K`` difference matrix with rows
``e_k − e_{k+1}``, ``DᵀD = tridiag(−1, (1, 2, …, 2), −1)``; ``M``: Nesterov's matrix):

``consensus`` (Scaman et al. 2017)
    ``(M + (3α/β) I) θ = e_1``: ``θ_k = ρ^k`` at every node.
``coupled`` (Yarmoshik et al. 2024, App. C; :mod:`mixbounds.instances.worst_case.coupled`)
    multiplier ``(M + a I) y = −½(2e_1 − e_2)``, ``a = 2μ'μ_f/(L'L_f)``: ``y_1 = (a/2)ρ − ½``,
    ``y_k = (a/2)ρ^k`` (``k >= 2``); ``t_i = −(√μ'/L_f) y`` and ``p_i = −c e_1 − (√L'/μ_f) E_g y`` on ``V1``
    (``E₁``) and ``V3`` (``E₂``), ``p_i = −c e_1``, ``t_i = 0`` on ``V2``, ``c = √L'/(2μ_f)``.
``coupled-local`` ``shared-rows``, ``shared-rows-incidence``
    presolving the local consensus gives the coupled instance with ``A`` scaled by ``l/3`` (same ``x*``):
    the coupled solution, copied to every block ``j``.
``coupled-local`` ``split-rows``
    every node alike, so ``x̄_i = x̄``; the constraint is ``√L' D p + √μ' t = 0``:
    ``(DᵀD + σI) p = −σ c e_1``, ``σ = μ'μ_f/(L'L_f)``: ``p_k = −σc/(1 − ρ) · ρ^k``,
    ``t_k = √(L'/μ') σ c ρ^k`` — the ratio of **σ**, half the coupled dual's shift ``a``.
``shared`` (``app:nonind_local_lower``), ``ident-chain``
    the stacked constraints read ``√L' D p + √μ' t = 0``; ``(DᵀD + sI) p = r(e_1 − e_2)``, ``s = μ'μ_f/(2L'L_f)``,
    ``r = (L'/μ_f)√(μ'/L')``: ``p_1 = Pρ + r``, ``p_k = Pρ^k``, ``P = −sr/(1 − ρ)``;
    ``t_k = (μ'/(2L_f))ρ^k − (L'/μ_f)δ_{k1}``.
sum-trick chains (:mod:`.sum_trick`)
    ``w_k = scale·ρ^k``, ``ρ = (√κ_f − 1)/(√κ_f + 1)``, every node.
split gradient chains (:mod:`.split_gradient`)
    Scaman's split of Nesterov's chain on variables all nodes agree on: ``w_k = scale·ρ^k``, ``ρ + 1/ρ = 2 + 3α/β``.
direct sums (:mod:`.direct_sum`, ``mixed``)
    the parts' solutions side by side.

The chain is infinite in these formulas; the built chain ends at ``K = 8k_ε + 20`` indices, which changes the
components the counts read by a relative ``O(ρ^{2(K−k)})`` (below ``ε^8``, far below double precision for
every accuracy measured).
"""

from __future__ import annotations

import math

import numpy as np
from mixbounds.bounds.concepts import WorstFamily
from mixbounds.bounds.guards import SCALE_FLOOR
from mixbounds.instances.instance import Instance
from mixbounds.instances.worst_case.common import rho_from_shift

#: families whose closed form is known here (``None``: every variant of the family)
KNOWN = {WorstFamily.CONSENSUS: None, WorstFamily.COUPLED: None, WorstFamily.SHARED: None,
         WorstFamily.IDENT_CHAIN: None, WorstFamily.SHARED_IDENT: None, WorstFamily.MIXED_IDENT: None,
         WorstFamily.COUPLED_LOCAL: ("shared-rows", "shared-rows-incidence", "split-rows"),
         WorstFamily.MIXED: ("cited", "shared-rows", "shared-rows-incidence", "split-rows")}


def has_closed_form(inst: Instance) -> bool:
    """Whether :func:`closed_form_solution` knows ``inst``'s construction (the printed coupled + local one,
    whose ``x*`` is finite, and its mixed twin are not written here)."""
    base = inst.family.removesuffix("-grad")
    if base not in KNOWN or (KNOWN[base] is not None and inst.variant not in KNOWN[base]):
        return False
    if inst.family.endswith("-grad") and "gradient_chain" not in inst.params:
        return False
    return True


def geometric(rho: float, K: int, first: int = 1) -> np.ndarray:
    """``(ρ^first, …, ρ^(first+K−1))``, computed as powers (no accumulated products)."""
    return rho ** np.arange(first, first + K, dtype=float)


def consensus_chain(params: dict) -> np.ndarray:
    """``θ*`` of Scaman et al.'s construction (every node holds it)."""
    rho = rho_from_shift(3.0 * params["alpha"] / params["beta"])
    return geometric(rho, params["chain_length"])


def coupled_blocks(Lp: float, mup: float, mu_f: float, L_f: float, K: int) -> dict:
    """``(p, t)`` of the coupled construction per node group: ``{"V1": (p, t), "V2": …, "V3": …}``."""
    a = 2.0 * mup * mu_f / (Lp * L_f)
    rho = rho_from_shift(a)
    y = 0.5 * a * geometric(rho, K)
    y[0] -= 0.5
    c = math.sqrt(Lp) / (2.0 * mu_f)
    t = -(math.sqrt(mup) / L_f) * y
    nxt = np.append(y[1:], 0.0)
    diff = y - nxt  # (E y)_k = y_k − y_{k+1} on the rows E has
    k = np.arange(1, K + 1)
    E1y = np.where(k % 2 == 0, diff, 0.0)
    E1y[0] = y[0]
    E2y = np.where(k % 2 == 1, diff, 0.0)
    shift = np.zeros(K)
    shift[0] = -c
    return {"V1": (shift - math.sqrt(Lp) / mu_f * E1y, t), "V2": (shift.copy(), np.zeros(K)),
            "V3": (shift - math.sqrt(Lp) / mu_f * E2y, t)}


def shared_variable(Lp: float, mup: float, mu_f: float, L_f: float, K: int) -> np.ndarray:
    """``x̃* = (p, t)`` of the shared construction (and of the identical-``C̃`` chain): module docstring."""
    s = mup * mu_f / (2.0 * Lp * L_f)
    rho = rho_from_shift(s)
    r = (Lp / mu_f) * math.sqrt(mup / Lp)
    P = -s * r / (1.0 - rho)
    p = P * geometric(rho, K)
    p[0] += r
    t = (mup / (2.0 * L_f)) * geometric(rho, K)
    t[0] -= Lp / mu_f
    return np.concatenate([p, t])


def split_rows_block(Lp: float, mup: float, mu_f: float, L_f: float, K: int) -> tuple[np.ndarray, np.ndarray, float]:
    """``(p̄, t̄, ρ)`` of the split-rows coupled + local construction (module docstring)."""
    sigma = mup * mu_f / (Lp * L_f)
    rho = rho_from_shift(sigma)
    c = math.sqrt(Lp) / (2.0 * mu_f)
    g = geometric(rho, K)
    return -sigma * c / (1.0 - rho) * g, math.sqrt(Lp / mup) * sigma * c * g, rho


def split_rows_rho(Lp: float, mup: float, mu_f: float, L_f: float) -> float:
    """The ratio ``x*`` of the split-rows construction decays with: ``ρ + 1/ρ = 2 + μ'μ_f/(L'L_f)``."""
    return rho_from_shift(mup * mu_f / (Lp * L_f))


def _coupled_nodes(pr: dict, n: int, copies: int = 1) -> np.ndarray:
    """``X`` (n × d) of the coupled solution, each node's ``(p, t)`` copied to ``copies`` blocks."""
    K = pr["chain_length"]
    blocks = coupled_blocks(pr["Lp"], pr["mup"], pr["mu_f"], pr["L_f"], K)
    g = pr["groups"]
    X = np.empty((n, 2 * copies * K))
    for i in range(n):
        grp = "V1" if i <= g["V1"][1] else "V3" if g["V3"] and i >= g["V3"][0] else "V2"
        p, t = blocks[grp]
        X[i] = np.concatenate([np.tile(p, copies), np.tile(t, copies)])
    return X


def _part(inst_family: str, variant: str, pr: dict, n: int) -> tuple[np.ndarray | None, np.ndarray | None]:
    """``(X, X̃row)`` of one part: local rows per node (or ``None``) and the shared variable (or ``None``)."""
    K = pr["chain_length"]
    if inst_family == WorstFamily.CONSENSUS:
        return None, consensus_chain(pr)
    if inst_family == WorstFamily.COUPLED:
        return _coupled_nodes(pr, n), None
    if inst_family in (WorstFamily.SHARED, WorstFamily.IDENT_CHAIN):
        return None, shared_variable(pr["Lp"], pr["mup"], pr["mu_f"], pr["L_f_symbol"], K)
    if inst_family == WorstFamily.COUPLED_LOCAL:
        l = pr["l"]
        if variant == "split-rows":
            p, t, _ = split_rows_block(pr["Lp"], pr["mup"], pr["mu_f"], pr["L_f"], K)
            return np.tile(np.concatenate([np.tile(p, l), np.tile(t, l)]), (n, 1)), None
        return _coupled_nodes(pr, n, copies=l), None
    raise ValueError(f"closed form: no closed-form solution for family {inst_family!r} (variant {variant!r})")


def closed_form_solution(inst: Instance) -> np.ndarray:
    """``x*`` of ``inst`` in the u-layout (each node's ``x_i``, then its copy of ``x̃``), from closed forms only.

    Raises ``ValueError`` for a construction without one (:func:`has_closed_form`).
    """
    if not has_closed_form(inst):
        raise ValueError(f"closed form: no closed-form solution for {inst.family}[{inst.variant}]")
    P, pr, n = inst.problem, inst.params, inst.problem.n
    base = inst.family.removesuffix("-grad")
    cited = base == WorstFamily.MIXED and inst.variant == "cited"
    if base in (WorstFamily.SHARED_IDENT, WorstFamily.MIXED_IDENT) or cited:
        parts = [(name.removesuffix("_part"), pr[name]) for name in
                 [f"{f}_part" for f in pr["parts"]]]
        X = None
        xt = []
        for fam, ppr in parts:
            Xp, xtp = _part(fam, "printed", ppr, n)
            if Xp is not None:
                X = Xp
            if xtp is not None:
                xt.append(xtp)
        Xt = np.tile(np.concatenate(xt), (n, 1)) if xt else np.zeros((n, 0))
        X = X if X is not None else np.zeros((n, 0))
    elif base == WorstFamily.MIXED:
        X, _ = _part(WorstFamily.COUPLED_LOCAL, inst.variant, pr["x_part"], n)
        Xt = np.tile(_part(WorstFamily.SHARED, "printed", pr["xt_part"], n)[1], (n, 1))
    else:
        X, xt = _part(base, inst.variant, pr, n)
        X = X if X is not None else np.zeros((n, 0))
        Xt = np.tile(xt, (n, 1)) if xt is not None else np.zeros((n, 0))
    if inst.family.endswith("-grad"):
        X, Xt = _with_chain(X, Xt, inst)
    return P.layout.join(X.ravel(), Xt)


def _with_chain(X: np.ndarray, Xt: np.ndarray, inst: Instance) -> tuple[np.ndarray, np.ndarray]:
    """The gradient chain ``w``: the sum-trick's (:mod:`.sum_trick`: ratio ``(√κ_f − 1)/(√κ_f + 1)``, after each
    node's ``x_i``) or the split one (:mod:`.split_gradient`: ratio of ``ρ + 1/ρ = 2 + 3α/β``, after ``x̃`` in the
    classes with a shared variable, else after ``x_i``); its scale makes the chains hold ``dominance`` times the
    base solution's mass."""
    gc = inst.params["gradient_chain"]
    kap = float(inst.targets["kappa_f"])
    if gc.get("kind") == "split":
        rho = rho_from_shift(3.0 * gc["alpha"] / gc["beta"])
    else:
        rho = (math.sqrt(kap) - 1.0) / (math.sqrt(kap) + 1.0)
    n = X.shape[0]
    base_mass = float(np.sum(X ** 2) + np.sum(Xt ** 2))
    scale = math.sqrt(gc["dominance"] * base_mass / (n * rho ** 2 / (1.0 - rho ** 2)))
    w = np.tile(scale * geometric(rho, gc["length"]), (n, 1))
    if gc.get("in_shared"):
        return X, np.hstack([Xt, w])
    return np.hstack([X, w]), Xt


def deviation(inst: Instance, x_star: np.ndarray) -> float:
    """``max_k |x*_k − x̂_k| / max_k |x*_k|``: the closed form ``x̂`` against a computed ``x*``."""
    xc = closed_form_solution(inst)
    return float(np.max(np.abs(xc - np.asarray(x_star, float))) / max(np.max(np.abs(x_star)), SCALE_FLOOR))


#: the closed forms of the module docstring, per chain kind, for the records (``ρ + 1/ρ = 2 + s``)
SOLUTION_TEXT = {
    WorstFamily.CONSENSUS: "θ_k = ρ^k, s = 3α/β",
    WorstFamily.COUPLED: "y_1 = (a/2)ρ − ½, y_k = (a/2)ρ^k, t = −(√μ'/L_f) y, p = −c e_1 − (√L'/μ_f) E_g y, s = a = 2μ'μ_f/(L'L_f)",
    WorstFamily.SHARED: "p_k = Pρ^k (+ r at k = 1), t_k = (μ'/2L_f) ρ^k − (L'/μ_f) δ_k1, s = μ'μ_f/(2L'L_f)",
    "cl-shared-rows": "the coupled solution in every block, s = 2μ'μ_f/(L'L_f)",
    "cl-split-rows": "p_k = −σc/(1 − ρ)·ρ^k, t_k = √(L'/μ') σ c ρ^k in every block, s = σ = μ'μ_f/(L'L_f)",
    "ident": "the shared formula with the identical chain's L', μ'",
    "sum-trick": "w_k = scale·ρ^k, ρ = (√κ_f − 1)/(√κ_f + 1)",
    "split": "w_k = scale·ρ^k, s = 3α/β",
}
