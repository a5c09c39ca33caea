"""Negative controls of Table 2's factor reading (smooth convex, ``table:smooth_conv_optimization_constraints``).

A Table 2 accuracy slope above its log-including target is read by the proof's two factors
(:mod:`mixbounds.checks.table2_factors`) before it fails; these controls make sure that reading can fail:
``control.T2.shared.grad.LR2_eps.factors.{unaccelerated,efolds,nonlinear}`` (measured runs with a
per-e-fold cost growing like ``x``, with e-folds growing like ``N³``, and with a steeper count whose factors hold but
whose tails are not linear: the factor reading must not pass).  Where too few tails are linear the verdict reads the
count per e-fold needed instead (:func:`mixbounds.checks.table2_factors.needed_reading`);
``control.T2.coupled_local.grad.LR2_eps.needed.log-squared`` gives it the measured runs of the family that needs it,
their counts multiplied by the e-folds needed (a ``log²`` count): it must not pass.
"""

from __future__ import annotations

import dataclasses

from mixbounds.bounds.concepts import Oracle
from mixbounds.bounds.concepts import ProblemClass as PC
from mixbounds.checks.run.framework import Check
from mixbounds.checks.run.result import CheckResult
from mixbounds.checks.sweeps import (
    NONQUADRATIC,
    PARAM_KW,
    series_name,
)
from mixbounds.checks.tables234.points import ACC, KAPPA_BASE, cells, class_params, family_of, sweep_task
from mixbounds.checks.tables234.rules import verdict

#: the measured runs the factor reading's controls scale (mixbounds.checks.table2_factors): the log-cosh shared
#: family at the base κ's, where every run's tail is linear (R² 1.0000 from x ≈ 1.4·10³; 0.9996 at 928)
FACTOR_CONTROL_X = (1000.0, 2000.0, 4000.0)
#: the e-folds control: settled rows × (N/N₀)^power, so that the e-folds grow like N^(1 + power)
EFOLD_CONTROL_POWER = 2.0
#: the linear-tail control: this fraction of the first run's e-folds is taken off every run (a steeper count whose
#: factors hold, as the full tier's shared series), and every tail gets the R² of a run that settles inside the
#: gap's oscillations (measured 0.898 at x = 300)
OFFSET_CONTROL_FRACTION = 0.6
OFFSET_CONTROL_R2 = 0.9


#: the per-e-fold-needed reading's control: the convex coupled + local family at its base κ's, whose runs have no
#: linear tail (R² 0.69–0.92 at x = 300 … 3000) and whose starts need N = ln x − 2.99 e-folds (2.7 … 5.0 here)
NEEDED_CONTROL_X = (300.0, 1000.0, 3000.0)


def _scaled_run(p: dict, rows: float, rate: float) -> dict:
    """A measured Table 2 point whose settled row (and every count up to it) is ``rows`` times and whose rate is
    ``rate`` times the measured one: what a method with that rate and those e-folds would have counted."""
    q = dict(p)
    if "error" in p or p.get("per_accuracy") is None or not p.get("tail"):
        return q
    t = dict(p["tail"])
    s = t["rows"][0] * rows
    t.update(rows=[s, t["rows"][1]], rate=t["rate"] * rate if t.get("rate") else t.get("rate"))
    t["efolds"] = s * t["rate"] if t.get("rate") else None
    q.update(tail=t, per_accuracy={k: v * rows for k, v in p["per_accuracy"].items()},
             hit_row=None if p.get("hit_row") is None else p["hit_row"] * rows)
    return q


def _tail(p: dict, key: str):
    return (p.get("tail") or {}).get(key)


def unaccelerated_runs(got: list) -> list:
    """The measured runs as an unaccelerated method's: rows × (x/x₀)^½ at a rate × (x/x₀)^-½."""
    return [_scaled_run(p, (x / FACTOR_CONTROL_X[0]) ** 0.5, (x / FACTOR_CONTROL_X[0]) ** -0.5)
            for p, x in zip(got, FACTOR_CONTROL_X)]


def cubed_efold_runs(got: list) -> list:
    """The measured runs with rows × (N/N₀)^:data:`EFOLD_CONTROL_POWER` (N the e-folds needed)."""
    n0 = _tail(got[0], "need")
    return [_scaled_run(p, (_tail(p, "need") / n0) ** EFOLD_CONTROL_POWER, 1.0) if n0 and _tail(p, "need") else p
            for p in got]


def offset_efold_runs(got: list, r2: float | None = OFFSET_CONTROL_R2) -> list:
    """The measured runs with :data:`OFFSET_CONTROL_FRACTION` of the first run's e-folds taken off each (the
    count steeper, both factors unchanged) and, unless ``r2`` is ``None``, tails of that R² (not linear)."""
    e0 = _tail(got[0], "efolds")
    out = []
    for p in got:
        e = _tail(p, "efolds")
        q = _scaled_run(p, (e - OFFSET_CONTROL_FRACTION * e0) / e, 1.0) if e and e0 else p
        if r2 is not None and q.get("tail"):
            q = dict(q, tail=dict(q["tail"], r2=r2))
        out.append(q)
    return out


#: the factor reading's negative controls: id suffix → (what the measured runs become, the transformation)
FACTOR_CONTROLS = {
    "unaccelerated": ("rows × (x/x₀)^½ at rate × (x/x₀)^-½", unaccelerated_runs),
    "efolds": (f"rows × (N/N₀)^{EFOLD_CONTROL_POWER:g} (e-folds ~ N^{1 + EFOLD_CONTROL_POWER:g})", cubed_efold_runs),
    "nonlinear": (f"{OFFSET_CONTROL_FRACTION:g} of the first run's e-folds taken off each (a steeper count, the same "
                  f"factors) from tails of R² {OFFSET_CONTROL_R2:g} (runs that do not converge linearly)",
                  offset_efold_runs),
}


def log_squared_runs(got: list) -> list:
    """The measured runs with rows × N/N₀ (N the e-folds needed): a count of ``x^e · N²``."""
    n0 = _tail(got[0], "need")
    return [_scaled_run(p, _tail(p, "need") / n0, 1.0) if n0 and _tail(p, "need") else p for p in got]


#: the per-e-fold-needed reading's negative controls: id suffix → (what the measured runs become, the transformation)
NEEDED_CONTROLS = {"log-squared": ("rows × N/N₀ (a count of √x·N², N the e-folds needed)", log_squared_runs)}


def _series(cls: str) -> tuple[dict, str | None]:
    """The base parameters and series name of a class's control series (log-cosh for shared, the printed quadratic
    family for coupled + local)."""
    base = {PARAM_KW[p]: KAPPA_BASE[p] for p in class_params(cls)}
    if cls == PC.SHARED:
        return dict(base, variant=NONQUADRATIC), series_name(family_of(2, cls)[0], NONQUADRATIC)
    return base, None


def factor_control_verdict(tier, got: list, rid: str, *, control: bool = True, cls: str = PC.SHARED,
                           xs: tuple = FACTOR_CONTROL_X) -> CheckResult:
    """The Table 2 grad verdict of a class's control series (default: the shared log-cosh series at
    :data:`FACTOR_CONTROL_X`) on the points ``got``."""
    cell = next(c for c in cells(2, cls) if c.oracle == Oracle.GRAD)
    return verdict(tier, 2, cell, ACC[2], list(xs), got, control=control, rid=rid, variant=_series(cls)[1])


def _controls(cls: str, xs: tuple, reading: str, controls: dict, what_reading: str) -> list[Check]:
    """One negative control per entry of ``controls``: the class's measured runs at ``xs``, transformed."""
    params = _series(cls)[0]
    pts = [(params, x) for x in xs]

    def tasks(tier):
        return [sweep_task(2, cls, q, x, tier=tier) for q, x in pts]

    out = []
    for suffix, (what, transform) in controls.items():
        rid = f"control.T2.{cls}.grad.LR2_eps.{reading}.{suffix}"

        def finalize(tier, points, rid=rid, what=what, transform=transform):
            got = transform([points[sweep_task(2, cls, q, x, tier=tier).key] for q, x in pts])
            r = factor_control_verdict(tier, got, rid, cls=cls, xs=xs)
            return [dataclasses.replace(r, detail=f"measured runs with {what}: {r.detail}")]

        out.append(Check(id=rid, family="nonsmooth", result_ids=lambda tier, rid=rid: [rid], tasks=tasks,
                         finalize=finalize, description=f"negative control: the Table 2 {what_reading} must not pass {what}"))
    return out


def factor_controls() -> list[Check]:
    """Negative controls of the factor reading (:data:`FACTOR_CONTROLS`), on measured runs: a per-e-fold cost that
    grows like x (an unaccelerated method), e-folds that grow like N³, and a count whose factors hold but whose runs do
    not end in linear convergence; each makes the count slope fail, so the reading is consulted, and it must not
    pass.  Then the per-e-fold-needed reading's (:data:`NEEDED_CONTROLS`): a ``log²`` count on runs without a linear
    tail, where that reading is consulted; it must not pass."""
    return (_controls(PC.SHARED, FACTOR_CONTROL_X, "factors", FACTOR_CONTROLS, "factor reading")
            + _controls(PC.COUPLED_LOCAL, NEEDED_CONTROL_X, "needed", NEEDED_CONTROLS, "per-e-fold-needed reading"))
