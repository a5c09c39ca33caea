"""The construction as built against the asymptotic model its exponent comes from.

A certificate's exponent is the closed form's (:mod:`.asymptotic`): the count per decade of accuracy
``R / (2 log₁₀(1/ρ))``, with ``R`` (rounds of the counted oracle per chain index) and ``ρ`` (the chain's ratio)
functions of the targets — the path rule of ``app:example_graph`` (``n = 3m`` with ``β_n <= κ < β_{n+3}``, hop
distance ``n/3 + 1``), the shift of the chain's parameter map, the chain rule ``K = 8 k_ε + 20``.  The exact counts
(:mod:`mixbounds.checks.lower.exact`) read the instance's own integers, so an instance sized by another rule is exact all the same; this
module checks, at every point, that the instance *is* the model's (:func:`conformance`):

1. sizes: the network path's ``n`` (and a coupled + local construction's ``l`` blocks) is the paper's ``n = 3m`` for
   the target ``κ_W`` (``κ_C``), its hop distance ``n/3 + 1``;
2. weights: the ratio ``ρ`` of the chain the model reads equals the model's ``ρ`` of the targets (:data:`RHO_RTOL`);
3. chain length: that chain holds ``K = 8 k_ε(ρ, ε) + 20`` coordinates (:mod:`mixbounds.instances.worst_case.common`);
4. count: the per-accuracy count lies within :data:`INDEX_QUANTUM` chain index (``R`` rounds) of the model's
   ``WINDOW_DECADES · R / (2 log₁₀(1/ρ))`` (the window of :mod:`mixbounds.checks.lower.exact`) with the paper's integer path.

and that the fit over the sweep is the model's on this grid (:func:`grid_band`): the closed form evaluated at the
sweep's own targets has, over the sweep's realized values, a slope ``s_grid = asymptotic exponent + δ`` (``δ``: the
grid's pre-asymptotic offset — the ``+1`` of the hop distance, the ``arccosh`` of a large shift, the path's steps of
three nodes); the measured fit must lie in ``s_grid`` widened by what one index at each point can move it.

Every formula here is written from the paper's rules and the model's targets, never from a builder's sizing code:
a builder whose sizing rule is changed (:mod:`.plants`) builds an instance the model does not describe.
"""

from __future__ import annotations

import math

import numpy as np
from mixbounds.bounds.concepts import ProblemClass
from mixbounds.checks.lower.asymptotic import MODELS, chain_rho, paper_path_nodes, per_decade, rounds_per_index
from mixbounds.checks.sweeps import fit_slope
from mixbounds.instances.graphs import KAPPA_W_RTOL
from mixbounds.instances.worst_case.common import CHAIN_FACTOR, CHAIN_PAD

#: ``|ρ_built / ρ_model − 1|`` allowed: the builder's ρ from its weights (e.g. ``3α/β``) and the model's from the targets
#: (e.g. ``6/(κ_f − 1)``) are two routes through the same algebra in double precision (rounding, ~1e-15); a changed
#: weight rule moves ρ by far more (the consensus chain's β sized for ``κ_f^0.8`` at κ_f = 40: ρ 0.677 → 0.567, 16%)
RHO_RTOL = 1e-9
#: the per-accuracy count lies within this many chain indices of the model's count: the window's two ends are read on
#: a staircase of one index every ``R`` rounds (at once on a chain, spread over the hop distance on a path), so the
#: count is ``R·⌈L⌉`` for ``L`` indices per window, or one index less where a path spreads the step (measured
#: ``(count − model)/R`` in [−0.079, 0.988] on every quick-tier point, [−0.185, 0.999] on every full-tier one)
INDEX_QUANTUM = 1.0
#: where the chain a model reads sits in the instance's parameters (model key → chain kind → path of keys)
CHAIN_AT = {
    ProblemClass.CONSENSUS: {ProblemClass.CONSENSUS: ()},
    ProblemClass.COUPLED: {ProblemClass.COUPLED: ()},
    ProblemClass.SHARED: {ProblemClass.SHARED: ()},
    "shared-ident": {ProblemClass.CONSENSUS: ("consensus_part",), "ident": ("ident-chain_part",)},
    "mixed-ident": {ProblemClass.COUPLED: ("coupled_part",), "ident": ("ident-chain_part",)},
    "mixed@cited": {ProblemClass.COUPLED: ("coupled_part",), ProblemClass.SHARED: ("shared_part",)},
    "coupled-local@shared-rows": {"cl-shared-rows": ()},
    "coupled-local@shared-rows-incidence": {"cl-shared-rows": ()},
    "coupled-local@split-rows": {"cl-split-rows": ()},
    "mixed@split-rows": {"cl-split-rows": ("x_part",)},
    "sum-trick": {"sum-trick": ("gradient_chain",)},
    "split": {"split": ("gradient_chain",)},
}
_SKIP = ("groups", "block_groups")


def admissible_nodes(kappa: float) -> set:
    """The paper's ``n`` for ``κ`` and for ``κ(1 ± KAPPA_W_RTOL)`` (a target within the tuned path's tolerance of a
    ``β_n`` may be built on either side of it)."""
    return {paper_path_nodes(kappa * (1.0 + s * KAPPA_W_RTOL)) for s in (-1.0, 0.0, 1.0)}


def built_sizes(inst) -> dict:
    """What the model reads, as built: the network path (``n``, hop distance), every chain's ``ρ``, ``K`` and ``ε``
    by its place in the parameters, every block path (``l``, hop distance).  Recorded at each sweep point."""
    chains, blocks = {}, {}
    eps0 = inst.params.get("eps")

    def walk(d: dict, path: tuple) -> None:
        if "rho" in d and ("chain_length" in d or "length" in d):
            K = d.get("chain_length", d.get("length"))
            chains[".".join(path)] = {"rho": float(np.asarray(d["rho"])), "K": None if K is None else int(K),
                                      "eps": d.get("eps", eps0)}
        if "l" in d and "block_hop_distance" in d:
            blocks[".".join(path)] = {"l": int(d["l"]), "hop": int(d["block_hop_distance"])}
        for k, v in d.items():
            if isinstance(v, dict) and k not in _SKIP:
                walk(v, path + (k,))

    walk(inst.params, ())
    hop = inst.params.get("hop_distance")
    return {"n": int(inst.problem.n), "hop": None if hop is None else int(hop), "chains": chains, "blocks": blocks}


def model_count(model: tuple, targets: dict, decades: float) -> tuple[float, float]:
    """``(count, R)``: the model's count over ``decades`` of accuracy, ``decades · R / (2 log₁₀(1/ρ))``, and its rounds
    per index, with the paper's integer path."""
    t = dict(targets, path_rule="paper")
    return decades * per_decade(*model, t), rounds_per_index(*model, t)


def _chain_k(rho: float, eps: float) -> int:
    return CHAIN_FACTOR * max(1, math.ceil(math.log(1.0 / eps) / (2.0 * math.log(1.0 / rho)))) + CHAIN_PAD


def _sizes(sizes: dict, targets: dict) -> list[str]:
    """Rule 1: the network's and the blocks' paths against the paper's ``n = 3m``."""
    bad = []
    kw, kc = targets.get("kappa_W"), targets.get("kappa_C")
    if kw is not None and sizes.get("hop") is not None:
        if sizes["n"] not in admissible_nodes(kw):
            bad.append(f"network path: n = {sizes['n']} nodes, the paper's n = 3m for κ_W = {kw:g} is "
                       f"{paper_path_nodes(kw)}")
        if sizes["hop"] != sizes["n"] // 3 + 1:
            bad.append(f"network path: hop distance {sizes['hop']}, n/3 + 1 = {sizes['n'] // 3 + 1}")
    for path, b in (sizes.get("blocks") or {}).items():
        if kc is None:
            continue
        if b["l"] not in admissible_nodes(kc):
            bad.append(f"block path{' ' + path if path else ''}: l = {b['l']}, the paper's l = 3m for κ_C = {kc:g} is "
                       f"{paper_path_nodes(kc)}")
        if b["hop"] != b["l"] // 3 + 1:
            bad.append(f"block path: hop distance {b['hop']}, l/3 + 1 = {b['l'] // 3 + 1}")
    return bad


def _chain(model: tuple, sizes: dict, targets: dict) -> list[str]:
    """Rules 2 and 3: the model's chain's ``ρ`` and ``K``."""
    key, oracle, part = model
    kind = MODELS[model][0]
    path = ".".join(CHAIN_AT.get(key, {}).get(kind, ("?",)))
    ch = (sizes.get("chains") or {}).get(path)
    if ch is None:
        return [f"no chain at {path or 'the top level'} for the model {key}/{kind}"]
    bad = []
    rho = chain_rho(key, oracle, part, targets)
    if not abs(ch["rho"] / rho - 1.0) <= RHO_RTOL:
        bad.append(f"chain {path or kind}: ρ = {ch['rho']:.12g}, the model's {rho:.12g} for the targets")
    if ch.get("eps") is not None and ch.get("K") is not None:
        want = {_chain_k(rho * (1.0 + s * RHO_RTOL), float(ch["eps"])) for s in (-1.0, 0.0, 1.0)}
        if ch["K"] not in want:
            bad.append(f"chain {path or kind}: K = {ch['K']}, the rule 8 k_ε + 20 gives {min(want)}")
    return bad


def conformance(model: tuple, point: dict, count: int | None, decades: float) -> dict:
    """Rules 1–4 at one sweep point (module docstring; ``count``: the per-accuracy count over ``decades`` of
    accuracy): ``{"mismatches": [...], "model_count", "rounds", "offset"}`` (``offset``: ``(count − model)/R``)."""
    targets, sizes = point.get("targets") or {}, point.get("as_built")
    if sizes is None:
        return {"mismatches": ["the point records no as-built sizes"], "model_count": None, "rounds": None,
                "offset": None}
    bad = _sizes(sizes, targets) + _chain(model, sizes, targets)
    m, R = model_count(model, targets, decades)
    off = None if count is None else (count - m) / R
    if off is not None and abs(off) > INDEX_QUANTUM:
        bad.append(f"per-accuracy count {count}, the model's {m:.1f} ± {INDEX_QUANTUM:g}·R (R = {R:g}): off by "
                   f"{off:+.2f} indices")
    return {"mismatches": bad, "model_count": m, "rounds": R, "offset": off}


def grid_band(xs: list, model_counts: list, rounds: list, asymptotic: float) -> dict:
    """The fit the model predicts over this grid and how far one index per point can move it.

    ``xs``: the sweep's realized parameter; ``model_counts``, ``rounds``: :func:`model_count` at its targets.
    Returns ``{"slope": s_grid, "offset": s_grid − asymptotic, "lo", "hi", "judged"}``: the least-squares slope is
    ``Σ w_i log c_i`` with ``w_i = (u_i − ū)/Σ(u − ū)²``, ``u = log x``, so counts within ``c_i ± R_i`` give slopes within
    ``s_grid − Σ|w_i| d⁻_i … s_grid + Σ|w_i| d⁺_i`` (``d^±_i`` the log-change of ``±R_i`` taken in the slope's
    direction).  ``judged`` is ``False`` where some ``c_i <= R_i`` (one index is the whole count: the grid cannot
    read an exponent).
    """
    u = np.log(np.asarray(xs, float))
    m, R = np.asarray(model_counts, float), np.asarray(rounds, float) * INDEX_QUANTUM
    s_grid = fit_slope(xs, list(m))["slope"] if np.ptp(m) > 0 else 0.0
    if u.size < 2 or np.ptp(u) == 0 or np.any(m <= R):
        return {"slope": s_grid, "offset": s_grid - asymptotic, "lo": -math.inf, "hi": math.inf, "judged": False}
    w = (u - u.mean()) / np.sum((u - u.mean()) ** 2)
    up, down = np.log1p(R / m), -np.log1p(-R / m)
    hi = float(np.sum(np.where(w > 0, w * up, -w * down)))
    lo = float(np.sum(np.where(w > 0, w * down, -w * up)))
    return {"slope": float(s_grid), "offset": float(s_grid - asymptotic), "lo": float(s_grid - lo),
            "hi": float(s_grid + hi), "judged": True}
