"""Negative controls of the rate checks: each must come out ``fail``.

* ``control.rates.nocheb.T1.consensus.grad.kappa_W`` — APAPC **without** Chebyshev
  acceleration on the consensus construction (κ_f = 10): its iterations, hence gradient
  calls, grow with κ_W (claimed independent).  Its *communication* count is not a usable
  control here: unaccelerated, ``BᵀB = W`` has ``χ = κ_W`` and APAPC needs ``√(κ_f κ_W)``
  iterations of one round each, the same κ_W exponent as the accelerated method (measured
  0.32 on the tiny grid).
* ``control.rates.nocheb.T1.shared_ident.comm.kappa_W`` — the same on the identical-C̃
  random family: unpreconditioned ``B̃ = (I⊗C̃; W)`` has ``κ ∝ κ_W²`` and the communication
  count grows like κ_W^1.8 on this grid (measured 421 → 26 509 over κ_W = 10 → 100) where
  0.5 is claimed.
* ``control.rates.mistuned`` — the consensus construction built with ``κ_W × 1.5`` while
  the sweep records the requested value as its target: the realized-vs-target check
  must catch it.
* ``control.rates.exponent+…`` — the real consensus κ_W sweep refitted against the
  registry exponent perturbed upwards (+0.25; +0.5 in the tiny tier, whose tolerance
  is 0.25): a tight cell whose slope lies far below its exponent must fail, not pass.
* ``control.rates.not_exercised.T1.consensus.grad.kappa_f@random-consensus`` — the real random-consensus κ_f
  sweep judged as an upper bound against the exponent perturbed upwards by 0.5 (1 instead of ½): the upper
  bound holds, and the verdict must say that the sweep does not come near it (``verdict_label`` =
  ``upper holds, not exercised``).  The control's status is ``fail`` (caught) when the label is there, ``pass``
  (not caught) when the perturbed bound would read as an exercised pass.
* ``control.rates.dominance.exponent-0.4.T1.consensus.grad.kappa_f`` — the dominance rule
  (:mod:`mixbounds.checks.dominance`) against a wrong exponent: the consensus construction's κ_f points with every
  count halved, judged as a random family against ½ − 0.4 with the construction for comparison.  The halved series'
  slope (½) exceeds 0.1 + tol and it lies below the construction at every point, but the construction's own
  verdict fails against 0.1, so dominance must not rescue the claim: ``fail``.
* ``control.rates.dominance.above.T1.consensus.grad.kappa_f`` — a series that costs more than the construction and
  grows faster: the construction's own κ_f points with counts multiplied by ``(κ_f/κ_f,0)^0.3``
  (:data:`DOMINANCE_ABOVE_POWER`), judged as a random family with the construction for comparison.  Its slope exceeds
  the bound and its constant lies above the construction's at every point but the first: ``fail``.
"""

from __future__ import annotations

from dataclasses import replace

from mixbounds.bounds.claims import get
from mixbounds.bounds.concepts import ProblemClass
from mixbounds.checks.rates import rate_task, upper_point, verdict, worst_of
from mixbounds.checks.run.framework import Check, Task
from mixbounds.checks.sweeps import Sweep, geomspace, random_sweeps, worst_sweeps
from mixbounds.checks.tiers import QUICK, Tier
from mixbounds.checks.verdict import NOT_EXERCISED
from mixbounds.instances.classes import CLASSES, WORST_FAMILY

#: the perturbation of the not-exercised control: the consensus κ_f exponent ½ judged as 1, far above any tier's
#: tolerance (the slope ~0.43 measured on the quick tier lies 0.57 below it, 0.25 the largest tolerance)
NOT_EXERCISED_SHIFT = 0.5
#: the exponent shift of the dominance control: ½ − 0.4 = 0.1 claimed, so the construction's own two-sided verdict
#: (slope ½) fails by 0.4, above every tier's tolerance (0.25 at most), while the claimed slope stays positive (an
#: upper bound the halved series exceeds, so the dominance rule is consulted)
DOMINANCE_SHIFT = -0.4
#: the halved series of that control lies at this fraction of the construction: below it at every point
DOMINANCE_BELOW_FACTOR = 0.5
#: the planted excess growth of the other dominance control: counts × (κ_f/κ_f,0)^power, power well above the tolerance
DOMINANCE_ABOVE_POWER = 0.3


def _scaled_points(pts: list, power: float, factor: float = 1.0) -> list:
    """Sweep points ``(v, point)`` with every per-accuracy count multiplied by ``factor · (v/v₀)^power`` (the
    controls' planted families)."""
    v0 = pts[0][0]
    out = []
    for v, p in pts:
        q = dict(p)
        f = factor * (v / v0) ** power
        if isinstance(q.get("per_accuracy"), dict):
            q["per_accuracy"] = {k: x * f for k, x in q["per_accuracy"].items()}
        out.append((v, q))
    return out


def _nocheb_sweeps(tier: Tier) -> dict[str, Sweep]:
    lo, hi = tier.table1.nocheb_range
    lo2, hi2 = tier.table1.nocheb_ident_range
    return {
        "control.rates.nocheb.T1.consensus.grad.kappa_W": Sweep(
            ProblemClass.CONSENSUS, WORST_FAMILY[ProblemClass.CONSENSUS], "kappa_W", {"kappa_f": 10.0, "kappa_W": 100.0}, tuple(geomspace(lo, hi, tier.table1.points)),
            eps=1e-8),
        "control.rates.nocheb.T1.shared_ident.comm.kappa_W": Sweep(
            ProblemClass.SHARED_IDENT, CLASSES[ProblemClass.SHARED_IDENT].random_family, "kappa_W", {"kappa_f": 10.0, "kappa_W": 10.0, "kappa_Ct": 10.0},
            tuple(geomspace(lo2, hi2, tier.table1.points)), eps=1e-8, extra={"seed": 0}),
    }


def mistuned_point(family: str, params: dict, factor: float, **kw) -> dict:
    """``upper_point`` on an instance tuned to ``factor × κ_W`` that reports the requested κ_W as target."""
    p = dict(params)
    requested = p["kappa_W"]
    p["kappa_W"] = requested * factor
    out = upper_point(family, p, **kw)
    out["targets"] = dict(out["targets"], kappa_W=requested)
    return out


def _mistuned_task(sw: Sweep, v: float) -> Task:
    return Task(mistuned_point, {"family": sw.family, "params": sw.point_params(v), "factor": 1.5},
                label=f"control mistuned κ_W={v:g}")


def _nocheb_control() -> Check:
    """1) APAPC without Chebyshev acceleration on the κ_W sweeps of :func:`_nocheb_sweeps`."""
    ids_nc = list(_nocheb_sweeps(QUICK))  # the ids do not depend on the tier

    def nc_tasks(tier):
        return [rate_task(sw, v, method="apapc-nocheb") for sw in _nocheb_sweeps(tier).values() for v in sw.grid]

    def nc_final(tier, points):
        res = []
        for rid, sw in _nocheb_sweeps(tier).items():
            pts = [(v, points[rate_task(sw, v, method="apapc-nocheb").key]) for v in sw.grid]
            cell = get(".".join(rid.split(".")[3:6]))
            res.append(verdict(tier, cell, "kappa_W", sw, pts, random=sw.family.startswith("random"), control=True, rid=rid))
        return res

    return Check(id="control.rates.nocheb", family="controls", result_ids=lambda t: ids_nc, tasks=nc_tasks, finalize=nc_final,
                 description="APAPC without Chebyshev acceleration must miss the κ_W exponents")


def _mistuned_control() -> Check:
    """2) The consensus κ_W sweep on instances tuned to 1.5 κ_W (:func:`mistuned_point`)."""
    rid_mt = "control.rates.mistuned.T1.consensus.comm.kappa_W"

    def mt_sw(tier):
        return worst_sweeps(tier, ProblemClass.CONSENSUS)[1]  # the κ_W sweep

    def mt_tasks(tier):
        sw = mt_sw(tier)
        return [_mistuned_task(sw, v) for v in sw.grid]

    def mt_final(tier, points):
        sw = mt_sw(tier)
        pts = [(v, points[_mistuned_task(sw, v).key]) for v in sw.grid]
        return [verdict(tier, get("T1.consensus.comm"), "kappa_W", sw, pts, random=False, control=True, rid=rid_mt)]

    return Check(id="control.rates.mistuned", family="controls", result_ids=lambda t: [rid_mt], tasks=mt_tasks,
                 finalize=mt_final, description="an instance tuned to 1.5 κ_W must be caught by the realized-vs-target check")


def _exponent_control() -> Check:
    """3) The real consensus κ_W sweep against its registry exponent perturbed upwards (reuses the sweep's points)."""
    def shift(tier):
        return 0.5 if tier.table1.slope_tol >= 0.25 else 0.25

    def ex_id(tier):
        return f"control.rates.exponent+{shift(tier):g}.T1.consensus.comm.kappa_W"

    def ex_tasks(tier):
        sw = worst_sweeps(tier, ProblemClass.CONSENSUS)[1]
        return [rate_task(sw, v) for v in sw.grid]

    def ex_final(tier, points):
        sw = worst_sweeps(tier, ProblemClass.CONSENSUS)[1]
        pts = [(v, points[rate_task(sw, v).key]) for v in sw.grid]
        return [verdict(tier, get("T1.consensus.comm"), "kappa_W", sw, pts, random=False, control=True,
                        theory_shift=shift(tier), rid=ex_id(tier))]

    return Check(id="control.rates.exponent", family="controls", result_ids=lambda t: [ex_id(t)], tasks=ex_tasks,
                 finalize=ex_final, description="the consensus κ_W sweep must fail against an exponent perturbed upwards")


def _not_exercised_control() -> Check:
    """4) An upper bound far above the measured slope must be labelled "not exercised"."""
    ne_id = "control.rates.not_exercised.T1.consensus.grad.kappa_f@random-consensus"

    def ne_sw(tier):
        return random_sweeps(tier, ProblemClass.CONSENSUS)[0]  # the κ_f sweep

    def ne_final(tier, points):
        sw = ne_sw(tier)
        pts = [(v, points[rate_task(sw, v).key]) for v in sw.grid]
        r = verdict(tier, get("T1.consensus.grad"), "kappa_f", sw, pts, random=True, theory_shift=NOT_EXERCISED_SHIFT,
                    rid=ne_id)
        caught = r.verdict_label == NOT_EXERCISED
        return [replace(r, control=True, expected="fail", status="fail" if caught else ("error" if r.status == "error" else "pass"),
                        verdict_label=None,
                        detail=(f"against exponent ½ + {NOT_EXERCISED_SHIFT:g}: " + r.detail
                                + ("" if caught else f"; NOT labelled {NOT_EXERCISED!r}")))]

    return Check(id="control.rates.not_exercised", family="controls", result_ids=lambda t: [ne_id],
                 tasks=lambda t: [rate_task(ne_sw(t), v) for v in ne_sw(t).grid], finalize=ne_final,
                 description="an upper bound far above the measured slope must be labelled not exercised")


def _dominance_controls() -> list[Check]:
    """5) The dominance rule of the random families must not rescue a wrong exponent, nor a family above the
    construction (both on the construction's κ_f points)."""
    dx_id = f"control.rates.dominance.exponent{DOMINANCE_SHIFT:+g}.T1.consensus.grad.kappa_f"

    def dom_sw(tier):
        return worst_of(tier, ProblemClass.CONSENSUS, "kappa_f")

    def dom_tasks(tier):
        return [rate_task(dom_sw(tier), v) for v in dom_sw(tier).grid]

    def dom_points(tier, points):
        return [(v, points[rate_task(dom_sw(tier), v).key]) for v in dom_sw(tier).grid]

    def dx_final(tier, points):
        w, wpts = dom_sw(tier), dom_points(tier, points)
        r = verdict(tier, get("T1.consensus.grad"), "kappa_f", w, _scaled_points(wpts, 0.0, DOMINANCE_BELOW_FACTOR),
                    random=True, theory_shift=DOMINANCE_SHIFT, control=True, rid=dx_id, worst=(w, wpts))
        return [replace(r, expected="fail", detail=(f"the construction's counts × {DOMINANCE_BELOW_FACTOR:g} against "
                                                    f"exponent ½ {DOMINANCE_SHIFT:+g}, the construction for comparison: "
                                                    + r.detail))]

    da_id = "control.rates.dominance.above.T1.consensus.grad.kappa_f"

    def da_final(tier, points):
        w, wpts = dom_sw(tier), dom_points(tier, points)
        r = verdict(tier, get("T1.consensus.grad"), "kappa_f", w, _scaled_points(wpts, DOMINANCE_ABOVE_POWER),
                    random=True, control=True, rid=da_id, worst=(w, wpts))
        return [replace(r, expected="fail", detail=(f"the construction's counts × (κ_f/κ_f,0)^{DOMINANCE_ABOVE_POWER:g} "
                                                    "judged as a random family: " + r.detail))]

    return [Check(id="control.rates.dominance.exponent", family="controls", result_ids=lambda t: [dx_id],
                  tasks=dom_tasks, finalize=dx_final,
                  description="dominance by the worst-case construction must not rescue a wrong exponent"),
            Check(id="control.rates.dominance.above", family="controls", result_ids=lambda t: [da_id],
                  tasks=dom_tasks, finalize=da_final,
                  description="a family above the worst-case construction must not pass by dominance")]


def checks() -> list[Check]:
    """The negative controls of the module docstring, in this order: no Chebyshev, mis-tuned instance, perturbed
    exponent, not exercised, dominance (two)."""
    return [_nocheb_control(), _mistuned_control(), _exponent_control(), _not_exercised_control(),
            *_dominance_controls()]
