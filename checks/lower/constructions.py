"""The lower-bound checks: every construction × swept parameter, exact engine counts over decades.

One row of :data:`CONSTRUCTIONS` per construction the suite runs the engine on — as the paper prints it
(``printed``), as it cites it (``cited:<what>``) or as a documented variant (``variant:<name>``) — with the oracles
of its class's tight Table 1 cells it is run for.  For each tier, each parameter of the class is swept over
the tier's grids (:class:`~mixbounds.checks.tiers.LowerBounds`: ≥ 2 decades in the quick tier, ≥ 3 in the full tier), the other parameters at the tier's base;
each point is one :func:`~mixbounds.checks.lower.exact.exact_point` (build, KKT solve, engine, closed form) and
the verdict is :func:`~mixbounds.checks.lower.exact_verdict.judge`.  Result ids:
``T1.<class>.<oracle>.<param>.lower`` for the paper's construction, ``…lower@<suffix>`` for the others.

The gradient statements are run on two chains: the paper's sum-trick (``printed``; ``∇f_i*`` collapses it, so it
bounds primal-gradient methods only — the ``…lower.def_foda`` result measures that) and the split chain of
:mod:`mixbounds.instances.worst_case.split_gradient` (``variant:split-gradient``), whose bound is measured with
``∇f_i*`` in every round (Definition ``def:foda`` as printed).

Negative controls (``control.lower.*``): a consensus chain truncated to 12 coordinates and an identical-``C̃``
chain cut after 6 rows (the closed form no longer describes ``x*``: the exact counts fail), the consensus builder
planted to put its nodes on a path of ``3·κ_W^0.4`` nodes tuned to the same ``κ_W``
(:mod:`mixbounds.checks.lower.plants`: exact at every point, nothing tells the model, but the instance is not the
model's and its bound grows like ``κ_W^0.4``: the certificate is lost by the as-built rule and, judged alone, by the
fit band) and the measured refutation of the printed coupled + local construction
(:mod:`mixbounds.checks.lower.refutation`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mixbounds.bounds.claims import get
from mixbounds.bounds.concepts import Oracle, ProblemClass, WorstFamily
from mixbounds.bounds.result_id import cell_result_id
from mixbounds.checks.lower.asymptotic import MODELS, has_model, model_key
from mixbounds.checks.lower.exact import bound_key, exact_point, formula_text
from mixbounds.checks.lower.exact_verdict import judge
from mixbounds.checks.lower.max_split import checks as max_split_checks
from mixbounds.checks.lower.plants import planted_point
from mixbounds.checks.lower.refutation import refutation_check
from mixbounds.checks.lower.tables234 import control_check as t234_control
from mixbounds.checks.lower.tables234 import joint_control_check, table_checks
from mixbounds.checks.lower.tightness import tightness_check
from mixbounds.checks.run.framework import Check, Task
from mixbounds.checks.run.result import CheckResult, Finding, with_variant
from mixbounds.checks.sweeps import WORST_EPS, cells_of, geomspace
from mixbounds.checks.tiers import TIERS, Tier
from mixbounds.instances.classes import CLASSES

#: instance accuracy of the chain length rule: the chain holds ε^8 of ‖x*‖² beyond its end, so the deepest level
#: compared (1e-12·e₀) reads masses the cut changes by < 1e-28 relative (closed_solution's docstring)
EPS_INSTANCE = WORST_EPS
_CITED = "cited:thm:LN_upper_bound+thm:coupled_iclr"


@dataclass(frozen=True)
class Construction:
    """One construction the engine runs on (module docstring).

    ``name``: the certificate's construction (``printed``, ``cited:<what>``, ``variant:<name>``); ``suffix``: the
    result ids' ``@suffix`` (``None``: the paper's construction); ``keywords``: builder keywords (``variant``,
    ``gradient``); ``parts``: ``(oracle, param) → part`` for direct sums measured on one part; ``params``: the swept
    parameters (default: the class's); ``quick``: those swept in the tiny and quick tiers (default: ``params``);
    ``certifies``: the oracles whose bound it is meant to carry (default: ``oracles``; the tightness runs only there);
    ``full``: parameter → ``(first point, decades)`` of its full-tier sweep where the tier's grid does not fit (a
    construction without closed form needs the KKT solve, which misses its 1e-9 residual at κ_f = 10⁶; the printed
    coupled + local ``√(W_C) ⊗ I`` blocks hold ``l²K`` entries: a worker was killed at 19.8 GB at κ_C = 10⁵; the
    split constructions' KKT solve misses it at κ̃_AC, κ_f >= 10⁵, 3·10⁵: measured, docs/records/lower-bounds.md).
    """

    cls: str
    family: str
    name: str
    suffix: str | None
    oracles: tuple
    keywords: dict = field(default_factory=dict)
    parts: dict = field(default_factory=dict)
    params: tuple | None = None
    tiers: tuple = TIERS
    quick: tuple | None = None
    certifies: tuple | None = None
    full: dict = field(default_factory=dict)

    def swept(self, tier: Tier) -> tuple:
        if tier.lower.short and self.quick is not None:
            return self.quick
        return self.params or CLASSES[self.cls].params

    def method_class(self, oracle: str) -> str:
        """``def:foda`` unless the bound is a gradient bound that ``∇f_i*`` collapses (the sum-trick)."""
        return "primal-gradient" if oracle == Oracle.GRAD and self.keywords.get("gradient") == "sum-trick" else "def:foda"

    def key(self, oracle: str, param: str) -> str:
        conj = oracle == Oracle.GRAD and self.method_class(oracle) == "def:foda"
        return bound_key(oracle, conj, self.parts.get((oracle, param), "all"))

    def model(self, oracle: str, param: str) -> tuple | None:
        m = (model_key(self.family, self.keywords.get("variant"), self.keywords.get("gradient")), oracle,
             self.parts.get((oracle, param), "all"))
        return m if has_model(*m) else None


_SUM, _SPLIT = {"gradient": "sum-trick"}, {"gradient": "split"}
#: every construction the lower-bound checks run (module docstring); the mixed class's paper construction is the
#: cited combination coupled ⊕ shared (the suite's C&L ⊕ shared adds nothing to the printed coupled + local
#: construction's refutation and is not run)
CONSTRUCTIONS: tuple[Construction, ...] = (
    Construction(ProblemClass.CONSENSUS, WorstFamily.CONSENSUS, "printed", None, (Oracle.GRAD, Oracle.COMM)),
    Construction(ProblemClass.COUPLED, WorstFamily.COUPLED, "printed", None, (Oracle.A, Oracle.COMM)),
    Construction(ProblemClass.COUPLED, "coupled-grad", "printed", None, (Oracle.GRAD,), dict(_SUM), params=("kappa_f",)),
    Construction(ProblemClass.COUPLED, "coupled-grad", "variant:split-gradient", "split-gradient", (Oracle.GRAD,), dict(_SPLIT),
                 params=("kappa_f",), full={"kappa_f": (100.0, 3.5)}),
    Construction(ProblemClass.SHARED, WorstFamily.SHARED, "printed", None, (Oracle.CT, Oracle.COMM)),
    Construction(ProblemClass.SHARED, "shared-grad", "printed", None, (Oracle.GRAD,), dict(_SUM), params=("kappa_f",)),
    Construction(ProblemClass.SHARED, "shared-grad", "variant:split-gradient", "split-gradient", (Oracle.GRAD,), dict(_SPLIT),
                 params=("kappa_f",)),
    Construction(ProblemClass.COUPLED_LOCAL, WorstFamily.COUPLED_LOCAL, "printed", None, (Oracle.A, Oracle.C, Oracle.COMM), {"variant": "printed"},
                 quick=("kappa_AC",), certifies=(), full={"kappa_C": (30.0, 3.0), "kappa_f": (100.0, 3.0)}),
    Construction(ProblemClass.COUPLED_LOCAL, WorstFamily.COUPLED_LOCAL, "variant:shared-rows-incidence", "shared-rows-incidence",
                 (Oracle.A, Oracle.C, Oracle.COMM), {"variant": "shared-rows-incidence"}, certifies=(Oracle.A, Oracle.COMM)),
    Construction(ProblemClass.COUPLED_LOCAL, WorstFamily.COUPLED_LOCAL, "variant:split-rows", "split-rows", (Oracle.C,),
                 {"variant": "split-rows"}, params=("kappa_f", "kappa_AC", "kappa_C"),
                 full={"kappa_f": (30.0, 3.0), "kappa_AC": (30.0, 3.0)}),
    Construction(ProblemClass.COUPLED_LOCAL, "coupled-local-grad", "printed", None, (Oracle.GRAD,), dict(_SUM, variant="printed"),
                 params=("kappa_f",), full={"kappa_f": (100.0, 3.0)}),
    Construction(ProblemClass.COUPLED_LOCAL, "coupled-local-grad", "variant:split-gradient", "split-gradient", (Oracle.GRAD,),
                 dict(_SPLIT, variant="shared-rows-incidence"), params=("kappa_f",), full={"kappa_f": (100.0, 3.0)}),
    Construction(ProblemClass.MIXED, WorstFamily.MIXED, _CITED, "cited", (Oracle.A, Oracle.CT, Oracle.COMM), {"variant": "cited"},
                 parts={(Oracle.COMM, "kappa_f"): "x", (Oracle.COMM, "kappa_AC"): "x", (Oracle.COMM, "kappa_Ct"): "xt",
                        (Oracle.COMM, "kappa_W"): "x"},
                 params=("kappa_f", "kappa_AC", "kappa_Ct", "kappa_W")),
    Construction(ProblemClass.MIXED, "mixed-grad", _CITED, "cited", (Oracle.GRAD,), dict(_SUM, variant="cited"), params=("kappa_f",)),
    Construction(ProblemClass.MIXED, "mixed-grad", "variant:split-gradient", "split-gradient", (Oracle.GRAD,),
                 dict(_SPLIT, variant="cited"), params=("kappa_f",)),
    Construction(ProblemClass.MIXED, WorstFamily.MIXED, "variant:split-rows", "split-rows", (Oracle.C,), {"variant": "split-rows"},
                 params=("kappa_f", "kappa_AC", "kappa_C"), full={"kappa_f": (30.0, 3.0), "kappa_AC": (30.0, 3.0)}),
    Construction(ProblemClass.SHARED_IDENT, WorstFamily.SHARED_IDENT, "variant:natural", "natural", (Oracle.GRAD, Oracle.CT, Oracle.COMM),
                 params=("kappa_f", "kappa_Ct_id", "kappa_W")),
    Construction(ProblemClass.MIXED_IDENT, WorstFamily.MIXED_IDENT, "variant:natural", "natural", (Oracle.CT, Oracle.COMM),
                 params=("kappa_f", "kappa_AC", "kappa_Ct_id", "kappa_W")),
)

#: builder keyword of each registry parameter
_KW = {"kappa_Ct_id": "kappa_Ct"}


def grid(tier: Tier, param: str, c: Construction | None = None) -> list[float]:
    """The sweep of ``param`` in ``tier`` (``c``: a construction whose full-tier range is capped, ``Construction.full``)."""
    g = tier.lower
    lo, dec = g.lo.get(param, g.lo["default"]), g.decades.get(param, g.decades["default"])
    if c is not None and g.base is not None and param in c.full:
        lo, dec = c.full[param]
    return geomspace(lo, lo * 10 ** dec, g.points)


def _base_value(tier: Tier, param: str) -> float:
    b = tier.lower.base
    return grid(tier, param)[0] if b is None else b.get(param, b["default"])


def base(tier: Tier, c: Construction) -> dict:
    """The non-swept targets: every parameter of the class at the tier's base (builder keywords; the cited mixed
    combination and the identical mixed construction have no ``C`` and no ``κ_C``)."""
    b = {_KW.get(p, p): _base_value(tier, p) for p in CLASSES[c.cls].params}
    if c.keywords.get("variant") == "cited" or c.family == WorstFamily.MIXED_IDENT:
        b.pop("kappa_C", None)
    return b


def point_params(tier: Tier, c: Construction, param: str, value: float, **extra) -> dict:
    """Builder keywords of one sweep point (``extra``: a control's changes, e.g. ``chain``, ``cut``, ``variant``)."""
    p = dict(base(tier, c), **c.keywords, eps=EPS_INSTANCE)
    p[_KW.get(param, param)] = value
    p.update(extra)
    return p


def _parts(c: Construction) -> dict:
    out: dict = {}
    for (o, _), part in c.parts.items():
        out.setdefault(o, ["all"])
        if part not in out[o]:
            out[o].append(part)
    return out


def task(tier: Tier, c: Construction, param: str, value: float, **extra) -> Task:
    kw = {"family": c.family, "params": point_params(tier, c, param, value, **extra), "oracles": sorted(c.oracles)}
    if c.parts:
        kw["parts"] = _parts(c)
    return Task(exact_point, kw, label=f"LB {c.family}[{c.suffix or 'printed'}] {param}={value:g}")


def cells(c: Construction) -> list:
    return [cell for cell in cells_of(c.cls) if cell.tight and cell.oracle in c.oracles]


def result_id(cell, param: str, c: Construction) -> str:
    return cell_result_id(cell.id, param, "lower", c.suffix)


def judge_construction(tier: Tier, c: Construction, cell, param: str, pts: list, *, rid: str | None = None,
                       control: bool = False, judge_as_built: bool = True,
                       closed_rules: tuple | None = None) -> CheckResult:
    """The verdict of ``cell``'s bound on one sweep of ``c`` (:func:`~mixbounds.checks.lower.exact_verdict.judge`;
    ``closed_rules``: its closed-form rules, default :data:`~mixbounds.checks.lower.exact_verdict.CLOSED_RULES`)."""
    key, model = c.key(cell.oracle, param), c.model(cell.oracle, param)
    kind = MODELS[model][0] if model is not None else None
    inst = {"family": c.family, "variant": c.keywords.get("variant", "printed"), "gradient": c.keywords.get("gradient"),
            "construction": c.name, "base": base(tier, c), "param": param, "bound": key,
            "formula": formula_text(kind, key) if kind is not None else None}
    return judge(tier, cell, param, key, pts, rid=rid or result_id(cell, param, c), construction=c.name,
                 method_class=c.method_class(cell.oracle), model=model, base=base(tier, c), instance=inst, control=control,
                 variant=c.suffix, judge_as_built=judge_as_built, closed_rules=closed_rules)


def foda_result(tier: Tier, c: Construction, cell, pts: list) -> CheckResult:
    """``…grad.kappa_f.lower.def_foda`` of a sum-trick construction: with ``∇f_i*`` every point needs at most one
    round (``finding``: the bound holds for primal-gradient methods only); ``pass`` if it grows with ``∇f_i*`` too."""
    rid = f"{cell.id}.kappa_f.lower.def_foda"
    rows = []
    for v, p in pts:
        b, cj = (p.get("bounds") or {}).get(Oracle.GRAD), (p.get("bounds") or {}).get("grad+conj")
        if b is None or cj is None:
            return CheckResult(id=rid, kind="lower-class", status="error", cell=cell.id, param="kappa_f", label="def:foda",
                               detail=f"kappa_f={v:g}: {p.get('error', 'no gradient bound')}")
        rows.append({"target": v, "realized": p["realized"].get("kappa_f"), "primal_per_accuracy": b["per_accuracy"],
                     "conjugate_rounds": cj["rounds_total"], "conjugate_per_accuracy": cj["per_accuracy"]})
    collapse = all(r["conjugate_rounds"] <= 1 for r in rows)
    counts = (f"primal-gradient per-accuracy counts {[r['primal_per_accuracy'] for r in rows]}; with ∇f_i* allowed, "
              f"{[r['conjugate_rounds'] for r in rows]} round(s) reach x* at κ_f = {[round(r['realized'], 3) for r in rows]} "
              f"on {c.family}[{c.keywords.get('variant', 'printed')}]")
    findings = ()
    if collapse:
        status = "finding"
        findings = (Finding(id=f"finding:{rid}", label="def:foda",
                            statement=f"{cell.id}: Ω(√κ_f log 1/ε) gradient calls for every method of Definition def:foda",
                            printed="κ_f^0.5", measured=f"{max(r['conjugate_rounds'] for r in rows)} round(s) with ∇f_i*",
                            detail=("def:foda admits ∇f_i*; one call ∇(f_i + h_i)*(0) returns the sum-trick's whole chain, so "
                                    f"this construction bounds primal-gradient methods only: {counts}."), source=rid),)
    else:
        status = "pass"
    return CheckResult(id=rid, kind="lower-class", status=status, theory="κ_f^0.5 with ∇f_i*", cell=cell.id,
                       param="kappa_f", label="def:foda", points=rows, detail=counts, findings=findings,
                       extra={"collapse": collapse, "construction": c.name},
                       instance={"family": c.family, "construction": c.name})


def _check(c: Construction) -> Check | None:
    cs = cells(c)
    if not cs:
        return None

    def result_ids(tier):
        out = [result_id(cell, p, c) for p in c.swept(tier) for cell in cs]
        if c.keywords.get("gradient") == "sum-trick":
            out.append(f"{cs[0].id}.kappa_f.lower.def_foda")
        return out

    def tasks(tier):
        return [task(tier, c, p, v) for p in c.swept(tier) for v in grid(tier, p, c)]

    def finalize(tier, points):
        out = []
        for p in c.swept(tier):
            pts = [(v, points[task(tier, c, p, v).key]) for v in grid(tier, p, c)]
            out += [judge_construction(tier, c, cell, p, pts) for cell in cs]
            if c.keywords.get("gradient") == "sum-trick" and p == "kappa_f":
                out.append(foda_result(tier, c, cs[0], pts))
        return out

    tag = c.family + ("" if c.suffix is None else f"@{c.suffix}")
    return Check(id=f"lower.{tag}", family="lower", result_ids=result_ids, tasks=tasks, finalize=finalize, tiers=c.tiers,
                 description=f"exact engine lower bounds on {c.family} ({c.name}) for {', '.join(c.oracles)}")


def _control(cid: str, rid: str, c: Construction, cell_id: str, param: str, description: str, **extra) -> Check:
    """A negative control: the sweep of ``c`` over ``param`` with builder keywords ``extra`` must come out ``fail``."""
    cell = get(cell_id)

    def tasks(tier):
        return [task(tier, c, param, v, **extra) for v in grid(tier, param)]

    def finalize(tier, points):
        pts = [(v, points[task(tier, c, param, v, **extra).key]) for v in grid(tier, param)]
        return [judge_construction(tier, c, cell, param, pts, rid=rid, control=True)]

    return Check(id=cid, family="lower", result_ids=lambda t: [rid], tasks=tasks, finalize=finalize, description=description)


def planted_task(tier: Tier, c: Construction, param: str, value: float, plant: str) -> Task:
    """One sweep point of ``c`` built with ``plant`` inside its builder (:mod:`mixbounds.checks.lower.plants`)."""
    kw = {"plant": plant, "construction": c.family, "targets": point_params(tier, c, param, value),
          "oracles": sorted(c.oracles)}
    return Task(planted_point, kw, label=f"LB {c.family}[plant {plant}] {param}={value:g}")


def _plant_control(cid: str, c: Construction, cell_id: str, param: str, plant: str, description: str) -> Check:
    """Two negative controls on one planted sweep (:mod:`mixbounds.checks.lower.plants`): the whole verdict (the
    as-built rule must catch the plant) and the fit band alone (as-built recorded, not judged: rule 6 must catch it)."""
    cell = get(cell_id)
    rids = (f"{cid}.{cell_id}.{param}", f"{cid}.fit-band.{cell_id}.{param}")

    def tasks(tier):
        return [planted_task(tier, c, param, v, plant) for v in grid(tier, param)]

    def finalize(tier, points):
        pts = [(v, points[planted_task(tier, c, param, v, plant).key]) for v in grid(tier, param)]
        return [judge_construction(tier, c, cell, param, pts, rid=rids[0], control=True),
                judge_construction(tier, c, cell, param, pts, rid=rids[1], control=True, judge_as_built=False)]

    return Check(id=cid, family="lower", result_ids=lambda t: list(rids), tasks=tasks, finalize=finalize,
                 description=description)


def _by(family: str, suffix: str | None = None, gradient: str | None = None) -> Construction:
    return next(c for c in CONSTRUCTIONS if c.family == family and c.suffix == suffix
                and c.keywords.get("gradient") == gradient)


def controls() -> list[Check]:
    cons = _by(WorstFamily.CONSENSUS)
    ident = _by(WorstFamily.SHARED_IDENT, "natural")
    return [
        _control("control.lower.truncated-chain", "control.lower.truncated-chain.T1.consensus.comm.kappa_f", cons,
                 "T1.consensus.comm", "kappa_f", "negative control: a chain truncated to 12 coordinates loses the "
                 "certificate (the closed form no longer describes x*)", chain=12),
        _control("control.lower.def_foda", "control.lower.def_foda.truncated-chain", cons, "T1.consensus.grad",
                 "kappa_f", "negative control: the def:foda gradient bound on a truncated chain must fail", chain=12),
        _control("control.lower.cut-chain", "control.lower.cut-chain.T1.shared_ident.Ct.kappa_Ct_id", ident,
                 "T1.shared_ident.Ct", "kappa_Ct_id", "negative control: a C̃ chain cut after 6 rows loses the "
                 "identical-C̃ certificate", cut=6),
        _plant_control("control.lower.kappa04", cons, "T1.consensus.comm", "kappa_W", "power-path",
                       "negative control: the consensus builder planted to size its path as 3·κ_W^0.4 nodes tuned to the "
                       "same κ_W (exact counts, bound ∝ κ_W^0.4, nothing tells the model) must lose the certificate, by "
                       "the as-built rule and by the fit band alone"),
    ]


def tightness_checks() -> list[Check]:
    """APAPC against the engine on every certifying construction other than the printed worst-case families."""
    out = []
    for c in CONSTRUCTIONS:
        meant = c.oracles if c.certifies is None else c.certifies
        ck = tightness_check(c, [cell for cell in cells(c) if cell.oracle in meant], task=task, grid=grid, key=lambda c, cell, p: c.key(cell.oracle, p),
                             result_id=lambda cell, p, c: with_variant(f"{cell.id}.{p}.tightness", c.suffix))
        if ck is not None:
            out.append(ck)
    return out


def checks() -> list[Check]:
    out = [ck for c in CONSTRUCTIONS if (ck := _check(c)) is not None] + tightness_checks()
    printed_cl = _by(WorstFamily.COUPLED_LOCAL)
    engine_task = lambda tier, v: task(tier, printed_cl, "kappa_AC", v)  # noqa: E731
    refute = [refutation_check(control=ctl, construction=printed_cl, engine_task=engine_task,
                               grid=lambda tier: grid(tier, "kappa_AC", printed_cl), base=lambda tier: base(tier, printed_cl))
              for ctl in (False, True)]
    t234 = table_checks(constructions=CONSTRUCTIONS, task=task, grid=grid, base=base)
    t234.append(t234_control(construction=_by(WorstFamily.COUPLED), task=task, grid=grid, base=base))
    t234.append(joint_control_check(construction=_by(WorstFamily.COUPLED), task=task, grid=grid, base=base))
    return out + controls() + refute + t234 + max_split_checks()
