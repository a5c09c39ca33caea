"""Sweep designs shared by the upper-bound (``mixbounds.checks.rates``) and lower-bound
(``mixbounds.checks.lower.slopes``) families, and the slope fit.

One sweep varies **one** parameter of one problem class over a grid, the others
fixed at the class's base point, on one instance family.  The x-axis of every fit
is the *realized* value of the swept parameter (computed from the matrices).

Grids: ``quick`` ≥ 4 points over ≥ 1 decade; ``full`` ≥ 7 points over ≥ 2
decades; ``tiny`` 3 points (CLI tests only, not a verdict anyone should cite).
Base points keep the swept term dominant (κ ≳ 10² where sizes allow) and the
instances small enough for the tier.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from mixbounds.bounds.claims import REGISTRY, Cell
from mixbounds.checks.tiers import Tier
from mixbounds.instances.classes import CLASSES, WORST_FAMILY
from scipy import stats

#: class → (worst-case family, random family, parameters of the class's Table 1 row), read from mixbounds.instances.classes
CLASS_FAMILIES = {c.name: (c.worst_family, c.random_family, c.params) for c in CLASSES.values()}

#: builder keyword for each registry parameter
PARAM_KW = {"kappa_f": "kappa_f", "kappa_W": "kappa_W", "kappa_A": "kappa_A", "kappa_AC": "kappa_AC",
            "kappa_C": "kappa_C", "kappa_Ct": "kappa_Ct", "kappa_Ct_id": "kappa_Ct"}
#: realized key for each registry parameter
PARAM_REALIZED = {"kappa_f": "kappa_f", "kappa_W": "kappa_W", "kappa_A": "kappa_A", "kappa_AC": "kappa_AC",
                  "kappa_C": "kappa_C", "kappa_Ct": "kappa_Ct", "kappa_Ct_id": "kappa_Ct_id",
                  # accuracy parameters of Tables 2-4: the realized value is the point's own x
                  "LR2_eps": "LR2_eps", "MR_eps": "MR_eps", "M_mu_eps": "M_mu_eps"}


def geomspace(lo: float, hi: float, k: int) -> list[float]:
    return [float(v) for v in np.geomspace(lo, hi, k)]


@dataclass(frozen=True)
class Sweep:
    """``family`` with ``base`` parameters, ``param`` taking the values of ``grid``."""

    cls: str
    family: str
    param: str
    base: dict
    grid: tuple
    variant: str | None = None
    eps: float = 1e-8
    extra: dict = field(default_factory=dict)

    def point_params(self, value: float) -> dict:
        p = dict(self.base)
        p[PARAM_KW[self.param]] = value
        if self.variant is not None:
            p["variant"] = self.variant
        p.update(self.extra)
        return p


def fit_slope(x, y) -> dict:
    """OLS slope of ``log y`` against ``log x`` with a 95% confidence interval and R².

    Returns ``{"slope", "ci": (lo, hi), "r2", "intercept", "n", "constant"}``; with fewer than
    three usable points the interval is infinite; ``constant``: every ``y`` equal (slope exactly 0,
    the interval undefined).
    """
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = (x > 0) & (y > 0) & np.isfinite(x) & np.isfinite(y)
    x, y = np.log(x[ok]), np.log(y[ok])
    n = x.size
    if n < 2 or np.ptp(x) == 0:
        return {"slope": float("nan"), "ci": (float("-inf"), float("inf")), "r2": float("nan"), "intercept": float("nan"), "n": int(n)}
    res = stats.linregress(x, y)
    if n >= 3:
        t = stats.t.ppf(0.975, n - 2)
        half = t * res.stderr
    else:
        half = float("inf")
    return {"slope": float(res.slope), "ci": (float(res.slope - half), float(res.slope + half)),
            "r2": float(res.rvalue ** 2), "intercept": float(res.intercept), "n": int(n),
            "constant": bool(np.ptp(y) == 0)}


def fit_integrity(fit: dict, points: int, *, stopped: int = 0) -> str | None:
    """Why a slope fit may not be judged, or ``None`` (a fit must use the whole sweep).

    ``fit``: a :func:`fit_slope` result; ``points``: how many points the sweep has; ``stopped``: how
    many of them were left out for a stated, measured reason (a budget stop).  A fit on fewer
    points than the sweep has minus those, or with an infinite or undefined confidence interval,
    is not a verdict.
    """
    want = points - stopped
    if fit.get("n") != want:
        return (f"the fit used {fit.get('n')} of the sweep's {points} points"
                + (f" ({stopped} left out for a budget stop)" if stopped else "") + f"; expected {want}")
    lo, hi = fit["ci"]
    if fit.get("constant"):
        return None  # equal counts at every point: slope exactly 0, no scatter to put an interval on
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return f"the slope's 95% CI ({lo}, {hi}) is not finite (fit on {fit.get('n')} points)"
    return None


def formula_value(cell: Cell, realized: dict, *, derived: bool = False) -> float:
    """The cell's formula (unit constants) at one instance's realized constants; accuracy parameters and constants the
    instance does not have count as 1 (they are constant along a κ sweep)."""
    terms = cell.derived_terms if (derived and cell.derived_terms is not None) else cell.terms
    v = 0.0
    for mono in terms:
        t = 1.0
        for k, e in mono:
            val = realized.get(PARAM_REALIZED.get(k, k))
            if val is None or not np.isfinite(val) or val <= 0:
                val = 1.0
            t *= val ** e
        v += t
    return v


def formula_slope(cell: Cell, param: str, realized_points: list[dict], *, derived: bool = False) -> float:
    """Log-log slope of the cell's formula (unit constants) along the realized sweep points.

    Equals the exponent for single-monomial cells; for sums (the mixed
    communication cell) it is the local slope the sweep can actually show.
    """
    xs = [r[PARAM_REALIZED[param]] for r in realized_points]
    ys = [formula_value(cell, r, derived=derived) for r in realized_points]
    return fit_slope(xs, ys)["slope"]


def cells_of(cls: str, table: int = 1) -> list[Cell]:
    return [c for c in REGISTRY if c.problem_class == cls and c.id.startswith(f"T{table}.")]


def decades(grid) -> float:
    return math.log10(max(grid) / min(grid))


# ----------------------------------------------------------------------------- grids
#: base points of the worst-case families (mixbounds.instances.classes)
WORST_BASE = {name: CLASSES[name].worst_base for name in WORST_FAMILY}
#: instance accuracy of the worst-case sweeps (chain length rule; shared by upper and lower checks;
#: the engine's window ends 4 decades below the error after the head, measured down to ~1e-21 on the coupled comm bound:
#: k(1e-21) <= 3.5 k_eps(1e-6), below K = 8 k_eps + 20)
WORST_EPS = 1e-6
#: the solvers' two accuracies (relative squared error): the per-accuracy cost is measured between them
UB_EPS1, UB_EPS2 = 1e-2, 1e-6
#: absolute error levels at which engine lower bounds are also recorded (self-consistency)
ABS_LEVELS = (UB_EPS1, UB_EPS2)


def worst_sweeps(tier: Tier, cls: str, variant: str | None = None, *, grad: bool = False) -> list[Sweep]:
    """One sweep per parameter of the class on its worst-case construction (grids: ``tier.table1``)."""
    fam = WORST_FAMILY[cls] + ("-grad" if grad and CLASSES[cls].sum_trick else "")
    grids = tier.table1
    out = []
    for p in CLASS_FAMILIES[cls][2]:
        lo, hi = grids.worst_range_class.get((cls, p), grids.worst_range[p])
        out.append(Sweep(cls, fam, p, WORST_BASE[cls], tuple(geomspace(lo, hi, grids.points)), variant=variant,
                         eps=WORST_EPS))
    return out


#: random-family sweeps: base points (their ranges: ``Tier.table1.random_range``)
RANDOM_BASE = {name: c.random_base for name, c in CLASSES.items()}  # mixbounds.instances.classes


#: the non-quadratic objective of the random families' second series (Table 1: ``objective=``, Table 2: ``variant=``;
#: :class:`mixbounds.instances.objectives.LogCoshObjective`, exact constants)
NONQUADRATIC = "logcosh"


def nonquadratic_params(select, cls: str, params) -> tuple:
    """The parameters of ``params`` a tier's non-quadratic selection (``Tier.table1.nonquadratic`` or
    ``Tier.tables24.nonquadratic``: class → parameters, ``None`` = all) sweeps for ``cls``."""
    if select is None:
        return tuple(params)
    return tuple(p for p in params if p in select.get(cls, ()))


def series_name(family: str, objective: str | None) -> str:
    """The series of a random-family sweep, as its result ids name it: the family, ``+<objective>`` unless quadratic."""
    return family if objective in (None, "quadratic", "default") else f"{family}+{objective}"


def random_sweeps(tier: Tier, cls: str, objective: str = "quadratic") -> list[Sweep]:
    """The Table 1 sweeps of class ``cls`` on its random family, seed 0: every parameter of its row with quadratic
    objectives; with ``objective`` = :data:`NONQUADRATIC` the parameters ``Tier.table1.nonquadratic`` selects."""
    fam = CLASS_FAMILIES[cls][1]
    lo, hi = tier.table1.random_range
    params = CLASS_FAMILIES[cls][2]
    extra = {"seed": 0}
    if objective != "quadratic":
        params = nonquadratic_params(tier.table1.nonquadratic, cls, params)
        extra["objective"] = objective
    return [Sweep(cls, fam, p, {PARAM_KW[k]: v for k, v in RANDOM_BASE[cls].items()},
                  tuple(geomspace(lo, hi, tier.table1.points)), eps=UB_EPS2, extra=dict(extra)) for p in params]
