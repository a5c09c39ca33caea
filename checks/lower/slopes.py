"""Lower-bound checks: the engine (:mod:`mixbounds.checks.lower.engine`) on every worst-case construction.

For each tight Table 1 cell and each parameter of its class, a sweep of the
class's worst-case family gives, per point, the engine's count of the cell's
oracle.  The measured quantity is the **per-accuracy** lower bound
``c₂ − c₁``: ``c₁`` is the first round with error ``<= 10⁻⁴ e₀``, where ``e₀`` is the
error reachable with *zero* rounds of the oracle (everything else free), and ``c₂``
the first round with error ``<= 10⁻⁴ e(c₁)`` (four decades of the geometric tail,
see :data:`LB_WINDOW`).  This removes the additive start-up term that the large, trivially reachable part of
``x*`` (e.g. the ``e_1`` shift of ``p`` at every node of the coupled instance)
would otherwise put into the count, exactly as the upper-bound fits use
per-accuracy costs.

Verdicts (claimed exponent ``θ`` = the cell's exponent of the swept parameter,
tolerance :data:`TOL`):

* ``|slope − θ| <= tol``: ``pass``;
* ``slope < θ − tol`` (including "no lower bound at all": the oracle is not
  needed): ``finding`` — the construction does not give the lower bound the
  paper states, with the numbers;
* ``slope > θ + tol``: ``fail`` (a lower bound steeper than the matching upper
  bound means the engine or the instance is wrong).

Gradient bounds use the ``-grad`` families (the sum-trick).  The C&L and mixed
constructions run as printed and in the documented ``shared-rows-incidence`` variant.
Negative control: the consensus sweep with a chain truncated to a fixed short
length must not reproduce the claimed slope.
"""

from __future__ import annotations

from dataclasses import replace

from mixbounds.bounds.claims import get
from mixbounds.checks.run.framework import Check, Task
from mixbounds.checks.run.result import CheckResult, Finding, with_variant
from mixbounds.checks.run.sweep_point import SweepPoint
from mixbounds.checks.sweeps import (
    ABS_LEVELS,
    PARAM_REALIZED,
    POINTS,
    WORST_EPS,
    WORST_FAMILY,
    WORST_RANGE,
    Sweep,
    cells_of,
    fit_slope,
    formula_slope,
    geomspace,
    worst_sweeps,
)
from mixbounds.checks.verdict import between_ok
from mixbounds.checks.verdict_engine import Fit, Judgement, Selection, Stop, SweepRules, Unjudged, judge_sweep
from mixbounds.instances.classes import CLASSES

#: tolerance on |slope − claimed exponent| per tier: the engine is exact, the slack covers
#: integer counts and the staircase n(κ_W) = 3m of the tuned path graph (steps of 3 nodes)
TOL = {"tiny": 0.25, "quick": 0.12, "full": 0.08}
#: the per-accuracy lower bound's window.  It starts at the first round ``c₁`` whose error is
#: ``<= EPS1_REL·e₀`` and ends at the first round ``c₂`` whose error is ``<= LB_WINDOW·e(c₁)``: four
#: decades of the *tail*, measured from the error actually reached at ``c₁``.  The first chain
#: components carry a "head" of mass that one or two rounds remove, and its share of e₀ grows with
#: the swept κ: on the coupled construction the A bound's error right after the head is 9.5·10⁻⁵ e₀
#: at κ̂_A = 100 but 4.0·10⁻⁵ e₀ (κ̂_A = 10³) and 1.35·10⁻⁶ e₀ (κ̂_A = 10⁴), reached in 2 rounds.
#: A window fixed at e₀·10⁻⁴ … e₀·10⁻⁸ therefore held 4, 4.4 and only 2.1 decades of tail at those
#: points, and the full-tier slope came out 0.363 instead of 0.5 (rounds per decade of tail:
#: 51, 163, 500, slope 0.50).  The head cut itself stays four decades below e₀ (a window inside
#: the head biases the slope low: 0.34 instead of 0.5 in a tiny-tier run).
EPS1_REL, LB_WINDOW = 1e-4, 1e-4
#: decades of error the window spans (the per-decade rate divides by it)
LB_DECADES = 4.0
#: instance accuracy used for the chain length (covers the window's end, see common.py)
EPS_INSTANCE = WORST_EPS

_VARIANTS = {name: c.engine_variants for name, c in CLASSES.items()}  # mixbounds.instances.classes
_VARIANTS.update(shared_ident=("natural",), mixed_ident=("natural",))  # mixbounds.instances.worst_case.ident (engine only)
_FAMILY = dict(WORST_FAMILY, shared_ident="shared-ident", mixed_ident="mixed-ident")
#: constructions of the identical-C̃ statements (mixbounds.instances.worst_case.ident; none is printed): their parameters and
#: base point (small κ's: the engine needs no solver, and the chains stay short)
IDENT_PARAMS = {"shared_ident": ("kappa_f", "kappa_Ct_id", "kappa_W"),
                "mixed_ident": ("kappa_f", "kappa_AC", "kappa_Ct_id", "kappa_W")}
IDENT_BASE = {"shared_ident": {"kappa_f": 10.0, "kappa_Ct": 10.0, "kappa_W": 10.0},
              "mixed_ident": {"kappa_f": 10.0, "kappa_AC": 10.0, "kappa_Ct": 10.0, "kappa_W": 10.0}}
#: constructions without local constraints C (the κ_C sweep and the C cells do not apply)
_NO_C = ("cited",)


def sweeps(tier: str, cls: str, variant: str | None, *, grad: bool) -> list[Sweep]:
    """The worst-case sweeps of ``cls`` on ``variant`` (consensus and shared-ident need no sum-trick: every
    chain index of the consensus part costs a gradient at a V1/V3 node)."""
    if cls in IDENT_PARAMS:
        out = []
        for p in IDENT_PARAMS[cls]:
            lo, hi = WORST_RANGE[tier]["kappa_AC" if p == "kappa_Ct_id" else p]
            out.append(Sweep(cls, _FAMILY[cls], p, IDENT_BASE[cls], tuple(geomspace(lo, hi, POINTS[tier])),
                             variant=variant, eps=WORST_EPS))
        return out
    out = worst_sweeps(tier, cls, variant, grad=grad)
    if variant in _NO_C:
        out = [replace(sw, base={k: v for k, v in sw.base.items() if k != "kappa_C"}) for sw in out if sw.param != "kappa_C"]
    return out


# ----------------------------------------------------------------------------- task
def lower_point(family: str, params: dict, oracles: list, chain: int | None = None, parts: tuple = ("all",)) -> dict:
    """Build one instance, solve it exactly, and run the engine for ``oracles`` on each part."""
    from mixbounds.checks.lower.engine import Engine
    from mixbounds.checks.run.framework import instance_and_reference

    kw = dict(params)
    if chain is not None:
        kw["chain"] = chain
    inst, ref = instance_and_reference(family, kw)
    eng = Engine(inst.problem, ref.u)
    out = {"realized": inst.realized, "targets": inst.targets, "n": inst.problem.n,
           "chain_length": inst.params.get("chain_length"), "k_eps": inst.params.get("k_eps"),
           "variables": inst.problem.layout.size, "kkt_residual": ref.kkt_residual, "bounds": {}}
    for part in parts:
        for o in oracles:
            if o not in eng.available():
                continue
            key = o if part == "all" else f"{o}@{part}"
            e0 = eng.lower_bound(o, 0.0, max_steps=0, part=part).errors[0]
            if e0 <= 0:
                out["bounds"][key] = {"e0": 0.0, "count1": 0, "count2": 0, "reason": "x* reachable with zero rounds"}
                continue
            head = eng.lower_bound(o, e0 * EPS1_REL, part=part)
            c1 = head.count
            e1 = head.errors[c1] if c1 is not None else e0 * EPS1_REL
            lb = eng.lower_bound(o, min(e1 * LB_WINDOW, min(ABS_LEVELS)), part=part)
            if o == "grad":
                # Definition def:foda as written: ∇f_i* allowed in every counted round (engine.lower_bound)
                cj = eng.lower_bound(o, e1 * LB_WINDOW, part=part, conjugate=True)
                out["bounds"]["grad+conj" if part == "all" else f"grad+conj@{part}"] = {
                    "e0": e0, "count1": cj.count_to(e0 * EPS1_REL), "count2": cj.count, "reason": cj.reason}
            out["bounds"][key] = {"e0": e0, "e1": e1, "count1": c1, "count2": lb.count_to(e1 * LB_WINDOW),
                                  "reason": lb.reason,
                                  # counts at absolute relative-error levels: the solvers' counts to the
                                  # same ε must never be smaller (self-consistency, mixbounds.checks.rates)
                                  "abs": {f"{eps:g}": lb.count_to(eps) for eps in ABS_LEVELS}}
    return out


#: classes whose constructions are direct sums of an x part and an x̃ part (bounds are also run per part)
_SUM_CLASSES = ("mixed", "mixed_ident")


def best_bound(bounds: dict, oracle: str) -> tuple[str | None, dict | None, int | None]:
    """``(key, bound, per-accuracy count)`` of the largest per-accuracy bound for ``oracle`` over the whole
    instance and its parts (keys ``oracle``, ``oracle@x``, ``oracle@xt``).

    A direct sum's lower bound is the larger of its parts' ("combination of lower bounds", sec. Mixed
    Constraints): a method's error on a part never exceeds its error on the whole, so every part's per-accuracy
    count bounds the whole's.  The whole's own count can be smaller than a part's (its window is anchored at the
    whole's error, where the other part's mass may dominate), and reading one fixed part understates the bound
    (as the suite once did for the mixed κ_f and κ_W communication bounds: x part only, while the x̃ part grew).
    """
    best = (None, None, None)
    for key in (oracle, f"{oracle}@x", f"{oracle}@xt"):
        b = bounds.get(key)
        if b is None:
            continue
        per = None if (b["count1"] is None or b["count2"] is None) else b["count2"] - b["count1"]
        if best[0] is None or (per is not None and (best[2] is None or per > best[2])):
            best = (key, b, per)
    return best


def bound_comparisons(lp: dict, count_at):
    """``(bound key, ε, solver count, lower bound)`` for every level ``ε`` at which the engine point ``lp``
    recorded a bound and ``count_at(oracle, level key)`` gives the solver's count to the same ε.  A bound
    on a part (key ``oracle@part``) is a bound for the whole: the part's error never exceeds the whole's."""
    for key, b in lp["bounds"].items():
        o = key.split("@")[0]
        for key_eps, lbc in (b.get("abs") or {}).items():
            sc = count_at(o, key_eps)
            if lbc is not None and sc is not None:
                yield key, float(key_eps), sc, lbc


def solver_point_task(sw: Sweep, value: float) -> Task:
    """The engine's task at a solver sweep point (same instance; the tight non-gradient oracles of the class's
    Table 1 cells): the rates and the benchmarks compare their counts with it."""
    oracles = sorted({c.oracle for c in cells_of(sw.cls) if c.tight and c.oracle != "grad"})
    return _task(sw, value, oracles)


def _task(sw: Sweep, value: float, oracles, chain=None) -> Task:
    params = sw.point_params(value)
    params.setdefault("eps", EPS_INSTANCE)  # the instance of the solvers' sweep point (mixbounds.checks.rates.upper_point)
    kw = {"family": sw.family, "params": params, "oracles": sorted(oracles)}
    if sw.cls in _SUM_CLASSES and not sw.family.endswith("-grad"):
        kw["parts"] = ["all", "x", "xt"]
    if chain is not None:
        kw["chain"] = chain
    return Task(lower_point, kw, label=f"LB {sw.family}[{sw.variant or 'printed'}] {sw.param}={value:g}")


# ----------------------------------------------------------------------------- the class bounded
#: a gradient bound "collapses" under ∇f* when this many rounds (∇f_i and ∇f_i* each) reach the window's end
CONJ_COLLAPSE = 1


def class_bounded(oracle: str) -> str:
    """The class of methods an engine bound holds for (docs/design.md, "The lower-bound engine").

    Definition def:foda admits ∇f_i*: one call ∇(f_i + h_i)*(0) fills a sum-trick chain (measured by
    :func:`foda_verdict`), so the gradient bounds hold for def:foda *without* ∇f_i*; the matrix and
    communication bounds leave ∇f_i and ∇f_i* free, i.e. hold for def:foda as written.
    """
    if oracle == "grad":
        return "def:foda without ∇f_i* (primal gradients; ∇f_i* collapses the sum-trick chain)"
    return "def:foda (∇f_i and ∇f_i* free)"


def foda_verdict(tier, cell, sw: Sweep, pts, *, control=False, rid=None) -> CheckResult:
    """Gradient bound with ∇f_i* allowed (def:foda as written) against the primal-gradient bound.

    ``finding``: with ∇f_i* every point needs at most :data:`CONJ_COLLAPSE` rounds while the primal bound grows
    with the claimed exponent (the gradient lower bound fails for def:foda as written); ``pass``: the bound grows
    with ∇f_i* too (it holds for def:foda); ``fail`` otherwise (neither bound grows: a cut chain).
    """
    rid = rid or f"{cell.id}.kappa_f.lower.def_foda"
    theory, tol = cell.exponent("kappa_f"), TOL[tier]
    rows, errs = [], []
    for v, p in pts:
        if "error" in p or "grad" not in p.get("bounds", {}):
            errs.append(f"kappa_f={v:g}: {p.get('error', 'no gradient bound')}")
            continue
        b, cj = p["bounds"]["grad"], p["bounds"]["grad+conj"]
        per = None if (b["count1"] is None or b["count2"] is None) else b["count2"] - b["count1"]
        cper = None if (cj["count1"] is None or cj["count2"] is None) else cj["count2"] - cj["count1"]
        rows.append({"target": v, "realized": p["realized"].get("kappa_f"), "primal_per_accuracy": per,
                     "primal_count": b["count2"], "conjugate_count": cj["count2"], "conjugate_per_accuracy": cper})
    common = dict(kind="lower-class", theory=f"grad bound ∝ κ_f^{theory:g} with ∇f_i*", tolerance=tol, label="def:foda",
                  cell=cell.id, param="kappa_f", control=control, expected="fail" if control else None,
                  instance={"family": sw.family, "variant": sw.variant or "printed", "base": sw.base, "param": "kappa_f"})
    if errs or any(r["primal_per_accuracy"] is None or r["conjugate_count"] is None for r in rows):
        return CheckResult(id=rid, status="fail" if control else "error", points=rows,
                           detail="; ".join(errs) or "a bound did not reach ε", **common)
    xs = [r["realized"] for r in rows]
    prim = fit_slope(xs, [max(r["primal_per_accuracy"], 1e-12) for r in rows])["slope"]
    conj = [r["conjugate_per_accuracy"] for r in rows]
    cslope = fit_slope(xs, [max(c, 1e-12) for c in conj])["slope"] if min(conj) > 0 else 0.0
    collapse = all(r["conjugate_count"] <= CONJ_COLLAPSE for r in rows)
    primal_grows = abs(prim - theory) <= tol
    counts = (f"primal-gradient per-accuracy counts {[r['primal_per_accuracy'] for r in rows]} (slope {prim:.3f}); with "
              f"∇f_i* allowed, rounds to the same accuracy {[r['conjugate_count'] for r in rows]} at κ_f = "
              f"{[round(x, 3) for x in xs]} on {sw.family}[{sw.variant or 'printed'}]")
    findings: tuple = ()
    if collapse and primal_grows and not control:
        status = "finding"
        findings = (Finding(
            id=f"finding:{rid}", label="def:foda",
            statement=f"{cell.id}: Ω(√κ_f log 1/ε) gradient calls for every method of Definition def:foda",
            printed=f"κ_f^{theory:g}", measured=f"{max(r['conjugate_count'] for r in rows)} round(s) with ∇f_i*",
            detail=("def:foda's local computation admits ∇f_i*; one call ∇(f_i + h_i)*(0) returns the whole chain of "
                    f"the sum-trick, so the bound holds only for primal-gradient methods: {counts}."), source=rid),)
    elif primal_grows and not collapse and abs(cslope - theory) <= tol:
        status = "pass"
    else:
        status = "fail"
    return CheckResult(id=rid, status=status, measured=cslope, points=rows, findings=findings,
                       detail=counts, extra={"primal_slope": prim, "collapse": collapse}, **common)


# ----------------------------------------------------------------------------- verdicts
def _result_id(cell_id: str, param: str, variant: str | None) -> str:
    return with_variant(f"{cell_id}.{param}.lower", variant)


def weaker_bound_finding(cell, rid: str, param: str, sw: Sweep, slope: float, ci, target: float, tol: float, rows: list,
                         xs: list) -> tuple:
    """A lower bound that grows more slowly than the claimed tight rate (slope below the formula slope − tol) is
    a finding about the construction: it proves a weaker bound than the paper says."""
    theory = cell.exponent(param)
    if not slope < target - tol:
        return ()
    return (Finding(
        id=f"finding:{rid}", label=cell.lower_source or cell.source,
        statement=f"{cell.id}: lower bound grows like {param}^{theory:g} (claimed tight)",
        printed=theory, measured=round(slope, 4),
        detail=(f"Per-accuracy engine lower bound on the {sw.family} construction ({sw.variant or 'printed'}) grows with slope "
                f"{slope:.3f} (95% CI {ci[0]:.3f}..{ci[1]:.3f}) in realized {param}, not {target:.3f}; counts "
                f"{[r.per_accuracy for r in rows]} at {param} = {[round(x, 3) for x in xs]}."),
        source=rid),)


#: the fields of a lower-bound sweep point in results.json, in order (:class:`mixbounds.checks.run.sweep_point.SweepPoint`)
POINT_FIELDS = ("part", "target", "realized", "e0", "count1", "count2", "per_accuracy", "reason", "n", "chain_length",
                "realized_all")


def screen(param: str, oracle: str):
    """Why an engine point cannot be judged: an exception, or no bound for the oracle."""

    def rule(v: float, p: dict) -> Unjudged | None:
        if "error" in p:
            return Unjudged(v, f"{param}={v:g}: {p['error']}")
        if best_bound(p["bounds"], oracle)[1] is None:
            return Unjudged(v, f"{param}={v:g}: oracle {oracle} absent")
        return None

    return rule


def sweep_point(param: str, oracle: str):
    """The :class:`SweepPoint` of one engine point: the largest per-accuracy bound over the whole and its parts."""

    def row(v: float, p: dict) -> SweepPoint:
        key, b, per = best_bound(p["bounds"], oracle)
        return SweepPoint(POINT_FIELDS, part="all" if "@" not in key else key.split("@")[1], target=v,
                          realized=p["realized"].get(PARAM_REALIZED[param]), e0=b["e0"], count1=b["count1"],
                          count2=b["count2"], per_accuracy=per, reason=b["reason"], n=p["n"],
                          chain_length=p["chain_length"], realized_all=p["realized"])

    return row


def _unjudged_error(unjudged: list, rows: list) -> Stop | None:
    """An engine point that failed makes the verdict ``error`` (controls included: the engine itself failed)."""
    return Stop("error", "; ".join(u.why for u in unjudged)) if unjudged else None


def _reached(control: bool):
    """Every point must have reached the window's end; otherwise the construction gives no bound there."""

    def select(rows: list[SweepPoint]) -> Selection | Stop:
        if any(r.per_accuracy is None for r in rows):
            why = "; ".join(f"{r.target:g}: {r.reason}" for r in rows if r.per_accuracy is None)
            return Stop("fail" if control else "finding", f"engine did not reach ε at some points ({why})")
        return Selection(rows)

    return select


def _bound_fit(cell, param: str, sw: Sweep, rid: str, control: bool):
    """The slope of the per-accuracy bounds: 0 when they are all equal; a zero bound at some point (no lower bound
    there) has no slope and is a finding about the construction (``fail`` for an absent parameter or a control)."""
    theory = cell.exponent(param)

    def fit(rows: list[SweepPoint]) -> Fit | Stop:
        per = [r.per_accuracy for r in rows]
        xs = [r.realized for r in rows]
        if all(p == per[0] for p in per):
            return Fit(0.0, (0.0, 0.0), float("nan"), {})
        if min(per) <= 0:
            st = "fail" if (control or theory == 0) else "finding"
            fnd = () if st == "fail" else (Finding(
                id=f"finding:{rid}", label=cell.lower_source or cell.source,
                statement=f"{cell.id}: lower bound grows like {param}^{theory:g} (claimed tight)", printed=theory,
                measured=f"per-accuracy counts {per}",
                detail=(f"The {sw.family} construction ({sw.variant or 'printed'}) needs no {cell.oracle} rounds at "
                        f"some sweep points: per-accuracy engine counts {per} at {param} = "
                        f"{[round(x, 3) for x in xs]}."),
                source=rid),)
            return Stop(st, f"per-accuracy counts {per} contain zeros: no slope", findings=fnd)
        return Fit.of(fit_slope(xs, [max(p, 1e-12) for p in per]))

    return fit


def _verdict(tier, cell, param, sw, pts, *, control=False, rid=None) -> CheckResult:
    """The lower-bound slope verdict of one sweep, by :func:`judge_sweep` (module docstring): within
    ``[formula slope − tol, claimed exponent + tol]`` passes, below is the weaker-bound finding, above fails."""
    theory = cell.exponent(param)
    tol = TOL[tier]
    rid = rid or _result_id(cell.id, param, sw.variant)

    def judge(f: Fit, sel: Selection, _unjudged) -> Judgement:
        rows = sel.rows
        fslope = formula_slope(cell, param, [r.realized_all for r in rows]) if theory > 0 else 0.0
        target = fslope if theory > 0 else 0.0
        # The formula slope weights the printed sum's terms with unit constants.  The constants are not
        # printed: with any positive constants the local slope of a sum of monomials lies between the
        # exponents of its terms, so a bound may grow up to the claimed exponent `theory` (e.g. a
        # construction that isolates the √κ̂_C̃ term of T1.mixed.comm: engine slope 0.520 where the
        # unit-constant formula gives 0.318 over the quick grid).  Below the formula slope is a finding
        # (a weaker bound than claimed), above `theory` a failure.
        findings: tuple = ()
        if between_ok(f.slope, target, max(target, theory), tol):
            status = "pass"
        elif control:
            status = "fail"
        else:
            findings = weaker_bound_finding(cell, rid, param, sw, f.slope, f.ci, target, tol, rows,
                                            [r.realized for r in rows])
            status = "finding" if findings else "fail"
        detail = (f"slope {f.slope:.3f} vs claimed {theory:g} (formula slope over the grid {fslope:.3f}), tol {tol}; "
                  f"per-accuracy counts {[r.per_accuracy for r in rows]}; bounds every method of "
                  f"{class_bounded(cell.oracle)}")
        return Judgement(status, detail, {"formula_slope": fslope}, findings)

    rules = SweepRules(screen=screen(param, cell.oracle), row=sweep_point(param, cell.oracle), judge=judge,
                       unjudged=_unjudged_error, select=_reached(control),
                       fit=_bound_fit(cell, param, sw, rid, control))
    inst = {"family": sw.family, "variant": sw.variant or "printed", "base": sw.base, "param": param,
            "class": class_bounded(cell.oracle),
            "eps_levels": {"head_cut": EPS1_REL, "window": LB_WINDOW},
            "part": "max(whole, x part, x̃ part)" if sw.cls in _SUM_CLASSES and not sw.family.endswith("-grad") else "all"}
    return judge_sweep(rid, pts, rules, control=control, kind="lower", theory=theory, tolerance=tol,
                       label=cell.lower_source, cell=cell.id, param=param, instance=inst,
                       expected="fail" if control else None,
                       variant=None if sw.variant in (None, "printed") else sw.variant)


#: variants built for some cells only: the oracles they are run for (the others are the base variant's)
_VARIANT_ORACLES = {"split-rows": ("C",), "cited": ("grad", "A", "Ct", "comm")}


def _make_check(tier_sweeps, cls: str, variant: str | None, grad: bool) -> Check | None:
    tag = f"{cls}{'' if variant in (None, 'printed') else '@' + variant}{'-grad' if grad else ''}"
    cells = [c for c in cells_of(cls) if c.tight and ((c.oracle == "grad") == grad)
             and c.oracle in _VARIANT_ORACLES.get(variant, (c.oracle,))]
    if not cells:
        return None
    if variant in _VARIANT_ORACLES:  # only the parameters these cells grow with
        inner = tier_sweeps
        tier_sweeps = lambda tier: [sw for sw in inner(tier) if any(c.exponent(sw.param) > 0 for c in cells)]  # noqa: E731
    foda = grad and variant in (None, "printed", "natural")

    def result_ids(tier):
        out = [_result_id(c.id, sw.param, variant) for sw in tier_sweeps(tier) for c in cells]
        return out + ([f"{cells[0].id}.kappa_f.lower.def_foda"] if foda else [])

    def tasks(tier):
        oracles = sorted({c.oracle for c in cells})
        return [_task(sw, v, oracles) for sw in tier_sweeps(tier) for v in sw.grid]

    def finalize(tier, points):
        out = []
        for sw in tier_sweeps(tier):
            oracles = sorted({c.oracle for c in cells})
            pts = [(v, points[_task(sw, v, oracles).key]) for v in sw.grid]
            for c in cells:
                out.append(_verdict(tier, c, sw.param, sw, pts))
            if foda and sw.param == "kappa_f":
                out.append(foda_verdict(tier, cells[0], sw, pts))
        return out

    return Check(id=f"lower.{tag}", family="lower", result_ids=result_ids, tasks=tasks, finalize=finalize,
                 description=f"engine lower bounds on the {cls} construction{'' if variant is None else ' (' + variant + ')'}"
                             f"{' with the gradient sum-trick' if grad else ''}")


def _control_check() -> Check:
    """Consensus with the chain truncated to a fixed 12 coordinates: the claimed κ_f slope must NOT be reproduced."""
    cell = get("T1.consensus.comm")
    rid = "control.lower.truncated-chain.T1.consensus.comm.kappa_f"

    def sw(tier):
        return sweeps(tier, "consensus", None, grad=False)[0]  # the κ_f sweep

    def tasks(tier):
        s = sw(tier)
        return [_task(s, v, ["comm"], chain=12) for v in s.grid]

    def finalize(tier, points):
        s = sw(tier)
        pts = [(v, points[_task(s, v, ["comm"], chain=12).key]) for v in s.grid]
        r = _verdict(tier, cell, "kappa_f", s, pts, control=True, rid=rid)
        return [r]

    return Check(id="control.lower.truncated-chain", family="lower", result_ids=lambda t: [rid], tasks=tasks, finalize=finalize,
                 description="negative control: a chain truncated too short must not show the claimed lower-bound slope")


def _foda_control_check() -> Check:
    """The def:foda check on a chain truncated to 12 coordinates: neither bound grows, it must come out ``fail``."""
    cell = get("T1.consensus.grad")
    rid = "control.lower.def_foda.truncated-chain"

    def sw(tier):
        return sweeps(tier, "consensus", None, grad=True)[0]

    def tasks(tier):
        return [_task(sw(tier), v, ["grad"], chain=12) for v in sw(tier).grid]

    def finalize(tier, points):
        s = sw(tier)
        pts = [(v, points[_task(s, v, ["grad"], chain=12).key]) for v in s.grid]
        return [foda_verdict(tier, cell, s, pts, control=True, rid=rid)]

    return Check(id="control.lower.def_foda", family="lower", result_ids=lambda t: [rid], tasks=tasks, finalize=finalize,
                 description="negative control: the ∇f* class check on a truncated chain must fail")


def _cut_control_check() -> Check:
    """The identical-C̃ C̃ bound on the shared-ident construction with its C̃ chain cut after 6 rows: the solution
    beyond the cut needs no C̃ product, the claimed slope (and so the certificate) must be lost: ``fail``."""
    cell = get("T1.shared_ident.Ct")
    rid = "control.lower.cut-chain.T1.shared_ident.Ct.kappa_Ct_id"

    def sw(tier):
        s = next(x for x in sweeps(tier, "shared_ident", "natural", grad=False) if x.param == "kappa_Ct_id")
        return replace(s, extra={"cut": 6})

    def tasks(tier):
        return [_task(sw(tier), v, ["Ct"]) for v in sw(tier).grid]

    def finalize(tier, points):
        s = sw(tier)
        pts = [(v, points[_task(s, v, ["Ct"]).key]) for v in s.grid]
        return [_verdict(tier, cell, "kappa_Ct_id", s, pts, control=True, rid=rid)]

    return Check(id="control.lower.cut-chain", family="lower", result_ids=lambda t: [rid], tasks=tasks, finalize=finalize,
                 description="negative control: a C̃ chain cut short must lose the identical-C̃ lower bound")


def checks() -> list[Check]:
    out = []
    for cls in _FAMILY:
        for variant in _VARIANTS.get(cls, (None,)):
            for grad in (False, True):
                if grad and "grad" not in _VARIANT_ORACLES.get(variant, ("grad",)):
                    continue  # the gradient bounds are the base construction's
                ck = _make_check(lambda tier, c=cls, v=variant, g=grad: sweeps(tier, c, v, grad=g), cls, variant, grad=grad)
                if ck is not None:
                    out.append(ck)
    out += [_control_check(), _foda_control_check(), _cut_control_check()]
    return out
