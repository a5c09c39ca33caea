"""Max-type split chains: Tables 3–4's matrix and communication lower bounds with exponent 1 in the accuracy (issue 47;
the suite's own bounds, not the paper's).

The smooth chains of :mod:`mixbounds.checks.lower.tables234` carry exponent ½ in ``x = M_fR/ε`` (Table 3) and
``x = M_f/√(μ_fε)`` (Table 4), where the printed upper bounds have 1.  A *split* chain whose links are nonsmooth
carries 1: Scaman et al.'s split (odd links held by one group, even links by another, every link crossing between
them through one kind of action) with each quadratic link ``β/2(w_k − w_{k+1})²`` replaced by ``γ|w_k − w_{k+1}|``.

The chain (the TV chain, seed ``a = 1``).  ``F(w) = γ(−w_1 + Σ_{k<T} |w_k − w_{k+1}|)`` on ``‖w‖ <= R`` (Table 3), or
``+ μ/2‖w‖²`` (Table 4).  A point supported on ``{1..m}``, ``m < T``, has ``Σ_{k<T}|w_k − w_{k+1}| >= |w_1|`` (the
links telescope to ``w_{m+1} = 0``), so ``F >= 0 = F(0)``; the minimiser is constant, ``w* = s·1_T``, with
``F* = −γR/√T`` (``s = R/√T``) or ``−γ²/(2μT)`` (``s = γ/(μT)``; the multipliers of the links are
``1 − k/T ∈ [0, 1]``).  The subgradients are bounded by ``M = γ(1 + 2√(T−1))`` (Table 4: ``+ 2γ/√T`` on the ball
``‖w‖ <= 2‖w*‖``, a bounded domain of the class).  So every point without index ``T`` is more than ``ε`` from
optimal as long as ``x > g(T)``, :func:`g3` ``= √T(1 + 2√(T−1))`` (Table 3) or :func:`g4` ``= √(2T)(1 + 2√(T−1) +
2/√T)`` (Table 4): the instance built for ``x`` has ``T(x)`` links (:func:`indices_needed`, the largest ``T`` with
``g(T) < x``, ``≈ x/2`` and ``≈ x/(2√2)``) and any method needs index ``T(x)`` somewhere.  The split chains are
built smooth (:mod:`mixbounds.instances.worst_case.block_split`): the nonsmooth twin has the same supports (each
node's ``∂h``, ``∇h*`` and prox act within the 2 × 2 links of its group), so the engine's first round of index ``k``
on the smooth chain is the twin's, and the count is ``N(x) = r(T(x))``.  ``x`` is the reduced chain's accuracy
parameter: the instance's ``M_fR/ε`` differs from it by factors of ``n`` and ``l`` fixed over the sweep, which move
no exponent.

Sources (:data:`SOURCES`; each a member of the class): communication — the network split (``network-split``,
``w`` the shared ``x̃``, or local ``x_i`` agreed through the path's incidence rows ``A_i``; scaman2018optimal's
lower bound); ``A``, ``C``, ``C̃`` — the block split (``block-split``: the chain's two halves are groups of blocks of
the variable joined only by ``A``, ``C`` or ``C̃``).  First round of index ``k`` (closed form, :func:`closed_arrival`):
the consensus formula of :mod:`mixbounds.checks.lower.arrival` over the path that joins the halves (nodes, or blocks),
times ``R`` (2 for ``A``: ``x → y → x``, 1 otherwise); :func:`max_split_point` compares it with the engine at every
node, block and index.  ``N(x) = R·h·(T(x) − 2)`` for ``T(x) >= 3`` (``h`` the hop distance), exponent 1.

Results ``T3|T4.<class>.<oracle>.<acc>.lower@max-split``: ``pass`` when the engine equals the closed form everywhere,
the chain holds index ``T(x)`` at every ``x`` of the grid, the lower exponent (the closed form's, read at
``x = 10¹²…10¹³``) is at most the printed upper one, over the tier's decades; ``gap`` = upper − lower.  Negative
controls: the chain truncated below ``T(x_max)`` and the block split planted with both halves of the chain in the
``U3`` blocks (:mod:`mixbounds.checks.lower.plants`: every index is local, the closed form fails).
"""

from __future__ import annotations

import math

import numpy as np
from mixbounds.bounds.claims import REGISTRY
from mixbounds.bounds.concepts import Oracle, ProblemClass, Structure
from mixbounds.checks.lower.arrival import arrival_path, consensus_comm
from mixbounds.checks.lower.engine import Engine
from mixbounds.checks.lower.exact_verdict import ASYMPTOTIC_TOL
from mixbounds.checks.lower.plants import planted
from mixbounds.checks.run.framework import Check, Task
from mixbounds.checks.run.result import CheckResult, reading
from mixbounds.checks.sweeps import fit_slope, geomspace
from mixbounds.checks.tiers import Tier
from mixbounds.instances.families import build

#: accuracy parameter of each table and the grid's first point (T(30) = 14 and 10 links: past the seed's pair)
ACC = {3: "MR_eps", 4: "M_mu_eps"}
X0 = 30.0
#: (class, oracle) → (family, builder keywords): the split chain that carries the cell (module docstring)
SOURCES = {
    (ProblemClass.COUPLED, Oracle.COMM): ("network-split", {"where": Structure.COUPLED}),
    (ProblemClass.COUPLED_LOCAL, Oracle.COMM): ("network-split", {"where": Structure.COUPLED}),
    (ProblemClass.SHARED, Oracle.COMM): ("network-split", {"where": Structure.SHARED}),
    (ProblemClass.MIXED, Oracle.COMM): ("network-split", {"where": Structure.SHARED}),
    (ProblemClass.COUPLED, Oracle.A): ("block-split", {"where": Structure.COUPLED}),
    (ProblemClass.COUPLED_LOCAL, Oracle.A): ("block-split", {"where": Structure.COUPLED}),
    (ProblemClass.MIXED, Oracle.A): ("block-split", {"where": Structure.COUPLED}),
    (ProblemClass.COUPLED_LOCAL, Oracle.C): ("block-split", {"where": Structure.LOCAL}),
    (ProblemClass.MIXED, Oracle.C): ("block-split", {"where": Structure.LOCAL}),
    (ProblemClass.SHARED, Oracle.CT): ("block-split", {"where": Structure.SHARED}),
    (ProblemClass.MIXED, Oracle.CT): ("block-split", {"where": Structure.SHARED}),
}
#: rounds of the counted oracle per hop of the joining path (the engine's A step is x → y, then y → x)
ROUNDS = {Oracle.A: 2, Oracle.C: 1, Oracle.CT: 1, Oracle.COMM: 1}
#: where the asymptotic exponent of N(x) is read (as for Table 1's closed forms)
ASYMPTOTE = (1e12, 1e13)


def g3(T: float) -> float:
    """Table 3: the TV chain with ``T`` links forces index ``T`` while ``x = MR/ε > g3(T) = √T(1 + 2√(T−1))``."""
    return math.sqrt(T) * (1.0 + 2.0 * math.sqrt(T - 1.0))


def g4(T: float) -> float:
    """Table 4: ... while ``x = M/√(με) > g4(T) = √(2T)(1 + 2√(T−1) + 2/√T)``."""
    return math.sqrt(2.0 * T) * (1.0 + 2.0 * math.sqrt(T - 1.0) + 2.0 / math.sqrt(T))


_G = {3: g3, 4: g4}


def indices_needed(table: int, x: float) -> int:
    """``T(x)``: the largest ``T >= 2`` with ``g(T) < x`` (``1`` when none: no link is forced)."""
    g = _G[table]
    if g(2.0) >= x:
        return 1
    lo, hi = 2, 4
    while g(hi) < x:
        lo, hi = hi, 2 * hi
    while hi - lo > 1:  # g increases: g(lo) < x <= g(hi)
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if g(mid) < x else (lo, mid)
    return lo


def continuous_T(table: int, x: float) -> float:
    """The real ``T`` with ``g(T) = x`` for the split function ``g`` of ``table`` (bisection to rounding): the
    integer count's continuous interpolation, whose log-derivative is the asymptotic exponent."""
    g, lo, hi = _G[table], 2.0, 4.0
    while g(hi) < x:
        lo, hi = hi, 2 * hi
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if g(mid) < x else (lo, mid)
    return lo


def asymptotic_exponent(table: int) -> float:
    """``lim d log N / d log x`` of ``N(x) = R h (T(x) − 2)``, read at :data:`ASYMPTOTE` (``R h`` cancels)."""
    a, b = ASYMPTOTE
    return math.log((continuous_T(table, b) - 2.0) / (continuous_T(table, a) - 2.0)) / math.log(b / a)


def grid(tier: Tier) -> list[float]:
    """``x`` from :data:`X0` over the tier's minimum decades, rounded up (quick 2, full 3), its points."""
    lb = tier.lower
    return geomspace(X0, X0 * 10 ** math.ceil(lb.min_decades), lb.points)


# ----------------------------------------------------------------------------- the engine's rounds
def closed_arrival(inst) -> np.ndarray:
    """``(nodes × blocks × K)``: the closed-form first round of every chain coordinate (module docstring)."""
    pr, n = inst.params, inst.problem.n
    K = pr["chain_length"]
    if inst.family == "network-split":
        h, d1, _, b1, b3 = arrival_path(pr["groups"], n)
        return consensus_comm(K, h, d1, b1, b3)[:, None, :]
    h, d1, _, b1, b3 = arrival_path(pr["block_groups"], pr["l"])
    per_block = ROUNDS[pr["oracle"]] * consensus_comm(K, h, d1, b1, b3)
    return np.broadcast_to(per_block, (n,) + per_block.shape)


def _engine_arrival(inst) -> np.ndarray:
    P = inst.problem
    eng = Engine(P, np.ones(P.layout.size))  # the rounds do not depend on x*'s masses
    r = eng.reach(inst.params["oracle"])
    blocks = inst.params.get("l", 1)
    part = r[eng.base_t: eng.base_y] if P.layout.dt else r[: eng.base_t]
    return part.reshape(P.n, blocks, inst.params["chain_length"])


def max_split_point(family: str, params: dict, indices: list) -> dict:
    """Build the split chain, run the engine for its joining oracle, compare every first round with
    :func:`closed_arrival`; the count at each of ``indices`` (the ``T(x)`` of the grid) is the earliest round any
    node holds that index."""
    inst = build(family, **params)
    got, want = _engine_arrival(inst), closed_arrival(inst)
    K = inst.params["chain_length"]
    first = got.min(axis=(0, 1))
    return {"family": family, "where": inst.params["where"], "oracle": inst.params["oracle"], "K": K, "n": inst.problem.n,
            "hop": inst.params.get("block_hop_distance", inst.params.get("hop_distance")),
            "rounds_per_hop": ROUNDS[inst.params["oracle"]], "matched": int(np.count_nonzero(got == want)),
            "total": int(got.size), "realized": inst.realized,
            "counts": {str(T): (int(first[T - 1]) if 1 <= T <= K else None) for T in indices}}


def planted_split_point(plant: str, family: str, targets: dict, indices: list) -> dict:
    """:func:`max_split_point` with ``plant`` inside the builder (:mod:`mixbounds.checks.lower.plants`)."""
    with planted(plant):
        return max_split_point(family, targets, indices)


def _params(tier: Tier, kw: dict, chain: int) -> dict:
    base = tier.lower.base or {}
    return dict(kw, kappa_W=float(base.get("default", 10.0)), kappa_f=10.0, chain=chain)


def task(tier: Tier, source: tuple, *, chain: int | None = None, plant: str | None = None) -> Task:
    fam, kw = source
    idx = sorted({indices_needed(t, x) for t in ACC for x in grid(tier)})
    p = _params(tier, kw, chain if chain is not None else max(idx) + 2)
    if plant:
        return Task(planted_split_point, {"plant": plant, "family": fam, "targets": p, "indices": idx},
                    label=f"max-split {fam}[{kw['where']}] plant {plant}")
    return Task(max_split_point, {"family": fam, "params": p, "indices": idx}, label=f"max-split {fam}[{kw['where']}]")


# ----------------------------------------------------------------------------- the verdict
def judge(tier: Tier, table: int, cell, pt: dict, *, rid: str, control: bool = False) -> CheckResult:
    """One Table 3/4 cell's max-split lower bound (module docstring)."""
    acc = ACC[table]
    upper = cell.exponent(acc)
    xs = grid(tier)
    Ts = [indices_needed(table, x) for x in xs]
    common = dict(kind="lower", theory=upper, tolerance=ASYMPTOTIC_TOL, cell=cell.id, param=acc,
                  label="suite's own lower bound (not the paper's)", control=control,
                  expected="fail" if control else None, variant="max-split",
                  instance={"family": pt.get("family"), "where": pt.get("where"), "oracle": pt.get("oracle"),
                            "construction": f"variant:{pt.get('family')}"})
    if "error" in pt:
        return CheckResult(id=rid, status="fail" if control else "error", detail=pt["error"], **common)
    counts = [pt["counts"].get(str(T)) for T in Ts]
    rows = [{"realized": x, "links": T, "count": c, "per_accuracy": c} for x, T, c in zip(xs, Ts, counts)]
    lower = asymptotic_exponent(table)
    dec = math.log10(xs[-1] / xs[0])
    exact = pt["matched"] == pt["total"]
    if not exact:
        status = "fail"
        why = f"engine and closed form disagree at {pt['total'] - pt['matched']} of {pt['total']} coordinates"
    elif any(c is None for c in counts):
        status, why = "fail", f"the chain ends (K = {pt['K']}) before index {max(Ts)} that x = {xs[-1]:g} needs"
    elif lower > upper + ASYMPTOTIC_TOL:
        status, why = "fail", f"lower exponent {lower:.4f} above the upper {upper:g}"
    elif dec < tier.lower.min_decades:
        status, why = "fail", f"{dec:.2f} decades, fewer than {tier.lower.min_decades}"
    else:  # a control whose reading is consistent is not caught
        status, why = "pass", "consistent"
    ok_counts = [c for c in counts if c]
    f = fit_slope(xs, counts) if len(ok_counts) == len(counts) else {"slope": float("nan"), "ci": (0.0, 0.0)}
    gap = upper - lower
    detail = (f"suite's own lower bound (not the paper's): the max-type split chain {pt.get('family')}[{pt.get('where')}] "
              f"joined by {pt.get('oracle')} ({pt.get('rounds_per_hop')} round(s) per hop, hop distance {pt.get('hop')}); "
              f"engine = closed form at {pt['matched']}/{pt['total']} coordinates; links needed T(x) = {Ts} at {acc} = "
              f"{[f'{x:.4g}' for x in xs]}, counts N = r(T(x)) = {counts}; lower exponent {lower:.4f} (closed form), fit "
              f"{f['slope']:.3f}; upper {upper:g}; gap {gap:+.3f}; {why}")
    return CheckResult(id=rid, status=status, points=rows, detail=detail, ci=tuple(f["ci"]),
                       extra={"lower_exponent": lower, "upper_exponent": upper, "gap": gap, "decades": dec,
                              "method_class": "def:foda", "construction": f"variant:{pt.get('family')}", "own": True,
                              "links": Ts, "exact": {"matched": pt["matched"], "points": pt["total"]}},
                       **reading("lower_exponent", {"lower_exponent": lower, "fit": f["slope"], "upper_exponent": upper,
                                                    "gap": gap}), **common)


def cells(table: int) -> list:
    return [c for c in REGISTRY if c.id.startswith(f"T{table}.") and (c.problem_class, c.oracle) in SOURCES]


def result_id(cell, table: int) -> str:
    return f"{cell.id}.{ACC[table]}.lower@max-split"


def checks() -> list[Check]:
    """One check per source chain: every Table 3/4 cell it carries (module docstring)."""
    out = []
    for source in sorted({(f, tuple(sorted(kw.items()))) for f, kw in SOURCES.values()}):
        src = (source[0], dict(source[1]))
        carried = [(t, c) for t in ACC for c in cells(t) if SOURCES[(c.problem_class, c.oracle)] == src]

        def finalize(tier, points, src=src, carried=carried):
            pt = points[task(tier, src).key]
            return [judge(tier, t, c, pt, rid=result_id(c, t)) for t, c in carried]

        out.append(Check(id=f"lower.max-split.{src[0]}@{src[1]['where']}", family="lower",
                         result_ids=lambda tier, carried=carried: [result_id(c, t) for t, c in carried],
                         tasks=lambda tier, src=src: [task(tier, src)], finalize=finalize,
                         description=f"max-type split chain {src[0]}[{src[1]['where']}]: Tables 3-4 lower bounds"))
    return out + controls()


def controls() -> list[Check]:
    """The chain cut below ``T(x_max)`` (must fail: the count is not read) and the block split planted with both
    halves in the ``U3`` blocks (must fail: every index is local, the closed form does not describe it)."""
    src = SOURCES[(ProblemClass.COUPLED_LOCAL, Oracle.C)]
    cell = next(c for c in cells(3) if c.id == "T3.coupled_local.C")
    specs = (("control.lower.max-split.truncated", lambda tier: task(tier, src, chain=max(
                 indices_needed(3, x) for x in grid(tier)) // 2),
              "negative control: the block split cut below the last link it needs must fail"),
             ("control.lower.max-split.shortcut", lambda tier: task(tier, src, plant="block-shortcut"),
              "negative control: the block split planted with both halves of the chain in U3 must fail"))
    out = []
    for cid, mk, desc in specs:
        rid = f"{cid}.{cell.id}.{ACC[3]}"
        out.append(Check(id=cid, family="lower", result_ids=lambda tier, rid=rid: [rid],
                         tasks=lambda tier, mk=mk: [mk(tier)],
                         finalize=lambda tier, points, mk=mk, rid=rid: [judge(tier, 3, cell, points[mk(tier).key],
                                                                                rid=rid, control=True)],
                         description=desc))
    return out
