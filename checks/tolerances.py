"""Every named tolerance that decides a verdict: value, where it is used, why it is that number.

One list (:data:`TOLERANCES`) for the report (:func:`table_rows`) and for the boundary
controls of :mod:`mixbounds.checks.audits.calibration_tolerances`.  Each entry pins two perturbations next to
the value it was designed for: ``tolerate`` (just below the tolerance: rounding the check must
accept) and ``detect`` (about ten times the tolerance for rounding tolerances, a small multiple
for slope tolerances: an error the check must reject).  The controls feed both through the
comparison in effect, so a tolerance loosened (or tightened) past its pinned probes turns the run
red — a perturbation computed from the tolerance itself would follow any change and catch none.

``INEQ_RTOL`` and ``PATH_ABS_TOL`` are defined here and imported by :mod:`mixbounds.checks.lemmas`; the
other values are read from the module that uses them (``module:NAME``, ``[tier]`` for per-tier
dicts), so this list never holds a second copy that could drift.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from mixbounds.checks.tiers import tier_by_name

#: an inequality ``a <= b`` holds if ``a <= b (1 + INEQ_RTOL)``: dense eigenvalues carry absolute
#: errors ~1e-16·λ_max, i.e. relative errors <= 1e-16·κ <= 1e-8 for the κ <= 1e8 the lemma cases keep.
INEQ_RTOL = 1e-7
#: path-Laplacian eigenvalues (<= 4) by LAPACK's tridiagonal solver: absolute accuracy ~1e-15, so 1e-12 absolute;
#: the control's 2(1 ± cos(π/(n+1))) differs by > 1e-8 for every n <= 1200
PATH_ABS_TOL = 1e-12


@dataclass(frozen=True)
class Tolerance:
    """A verdict-deciding tolerance: ``where`` (``module:NAME`` or ``module:NAME[key]``), its kind
    (``rel``, ``abs``, ``slope``), the reason for its value, and the pinned boundary probes
    (``None``: not probed; the reason says why)."""

    where: str
    kind: str
    design: float
    reason: str
    tolerate: float | None = None
    detect: float | None = None

    @property
    def name(self) -> str:
        return self.where.split(":", 1)[1]

    def in_effect(self) -> float:
        """The value the checks use now: read from the using module, or from the tier that sets it
        (``rates:TOL[<tier>]``, ``lower:TOL[<tier>]``, ``nonsmooth:TOL[<tier>]``: :data:`_TIER_SET`)."""
        mod, _, name = self.where.partition(":")
        key = None
        if name.endswith("]"):
            name, _, key = name[:-1].partition("[")
        if f"{mod}:{name}" in _TIER_SET:
            return float(_TIER_SET[f"{mod}:{name}"](tier_by_name(key)))
        v = getattr(importlib.import_module(f"mixbounds.checks.{_MODULES.get(mod, mod)}"), name)
        return float(v[key] if key is not None else v)


_L = "lemmas"
#: the module that holds the constants of a family (the lemma package keeps them in its base module)
_MODULES = {"lemmas": "lemmas.base", "calibration_engine": "audits.calibration_engine", "exact": "lower.exact",
            "exact_verdict": "lower.exact_verdict", "refutation": "lower.refutation", "as_built": "lower.as_built",
            "audit_constants": "audits.audit_constants"}
#: the tolerances a tier sets (:mod:`mixbounds.checks.tiers`), under the names the results record: the Table 1
#: slope tolerances of the solver sweeps (``mixbounds.checks.rates``) and of the engine's (``lower.slopes``), the
#: Tables 2-4 slope tolerance (``mixbounds.checks.tables234``), the statements' (``mixbounds.checks.statements``) and
#: the band of the exact lower bounds' cross-check (``lower.exact_verdict``)
_TIER_SET = {"rates:TOL": lambda tier: tier.table1.slope_tol, "lower:TOL": lambda tier: tier.table1.lower_slope_tol,
             "nonsmooth:TOL": lambda tier: tier.tables24.slope_tol, "statements:TOL": lambda tier: tier.statements.slope_tol,
             "exact_verdict:SLOPE_BAND": lambda tier: tier.lower.slope_band}
TOLERANCES: tuple[Tolerance, ...] = (
    Tolerance(f"{_L}:INEQ_RTOL", "rel", 1e-7, "dense eigenvalues: relative rounding <= 1e-16·κ <= 1e-8 (κ <= 1e8)",
              tolerate=5e-8, detect=1e-6),
    Tolerance(f"{_L}:EQ_RTOL", "rel", 1e-7, "equalities of spectral quantities: the same rounding as INEQ_RTOL",
              tolerate=5e-8, detect=1e-6),
    Tolerance(f"{_L}:PATH_ABS_TOL", "abs", 1e-12, "path-Laplacian eigenvalues (<= 4) by LAPACK's tridiagonal "
              "solver are accurate to ~1e-15 absolute", tolerate=5e-13, detect=1e-11),
    Tolerance(f"{_L}:EXACT_RTOL", "rel", 1e-10, "closed forms of exact constructions: rounding only",
              tolerate=5e-11, detect=1e-9),
    Tolerance(f"{_L}:SUITE_RTOL", "rel", 1e-6, "the same spectral number through two code paths (dense vs "
              "mixbounds.bounds.condition)", tolerate=5e-7, detect=1e-5),
    Tolerance(f"{_L}:SAME_RTOL", "rel", 1e-9, "identical formulas evaluated twice: rounding only",
              tolerate=5e-10, detect=1e-8),
    Tolerance(f"{_L}:SUBSPACE_TOL", "abs", 1e-8, "sine of the largest principal angle, accurate to ~1e-15; "
              "generic angles are O(1)", tolerate=5e-9, detect=1e-7),
    Tolerance(f"{_L}:NOT_SC_TOL", "rel", 1e-8, "kernel directions of a restricted Hessian give ~1e-15·λ_max",
              tolerate=5e-9, detect=1e-7),
    Tolerance(f"{_L}:PSD_MARGIN", "rel", 1e-9, "H ⪰ D up to rounding of λ_min(H − D)", tolerate=5e-10,
              detect=1e-8),
    Tolerance(f"{_L}:CHEB_EIG_TOL", "abs", 1e-9, "eigenvalues of P(M) vs the exact interval: rounding of a 40×40 "
              "eigendecomposition", tolerate=5e-10, detect=1e-8),
    Tolerance(f"{_L}:CHEB_ALG_RTOL", "rel", 1e-7, "three-term recurrence (<= 1000 steps) vs the cos form",
              tolerate=5e-8, detect=1e-6),
    Tolerance(f"{_L}:FEAS_RTOL", "rel", 1e-8, "relative residual of dense solves of size <= 30", tolerate=5e-9,
              detect=1e-7),
    Tolerance(f"{_L}:ORDER_SLOPE_TOL", "slope", 0.5, "κ_B's slope in κ_W: 1 (printed O(κ̃κ_W)) vs 2 (κ_W²); the "
              "midpoint separates them", tolerate=0.4, detect=0.6),
    Tolerance("rates:TOL[quick]", "slope", 0.12, "integer per-accuracy counts and the tuned path's n in steps of 3 "
              "give about ±0.1 over one decade with 4 points", tolerate=0.1, detect=0.24),
    Tolerance("rates:TOL[tiny]", "slope", 0.25, "three points over half a decade (CLI tests only)", tolerate=0.2,
              detect=0.5),
    Tolerance("rates:TOL[full]", "slope", 0.08, "two decades, 7 points", tolerate=0.07, detect=0.16),
    Tolerance("rates:TARGET_RTOL", "rel", 5e-3, "families tune κ to 1e-6 or better, worst-case κ̂/κ̃ to ~1e-3 "
              "(chain truncation)", tolerate=2.5e-3, detect=5e-2),
    Tolerance("rates:TRUNC_RTOL", "rel", 0.02, "per-accuracy counts are integers × degrees: doubling the chain "
              "moves them by less than 2% when it does not truncate", tolerate=0.01, detect=0.2),
    Tolerance("lower:TOL[quick]", "slope", 0.12, "engine counts are exact; integer counts and the path's steps of "
              "3 nodes over one decade (probed through the lower-bound verdict of mixbounds.checks.lower.slopes on "
              "an exact power law)", tolerate=0.1, detect=0.24),
    Tolerance("lower:TOL[tiny]", "slope", 0.25, "three points over half a decade (CLI tests only)", tolerate=0.2,
              detect=0.5),
    Tolerance("lower:TOL[full]", "slope", 0.08, "two decades, 7 points", tolerate=0.07, detect=0.16),
    Tolerance("nonsmooth:TOL[quick]", "slope", 0.2, "Tables 2-4: counts to a first hit are integers with ±15% phase "
              "noise over one decade", tolerate=0.18, detect=0.4),
    Tolerance("nonsmooth:TOL[tiny]", "slope", 0.35, "Tables 2-4, three points (CLI tests only)", tolerate=0.3,
              detect=0.7),
    Tolerance("nonsmooth:TOL[full]", "slope", 0.12, "Tables 2-4, two decades, 7 points", tolerate=0.1, detect=0.24),
    Tolerance("statements:TOL[quick]", "slope", 0.2, "the rate statements outside the tables: APAPC's per-accuracy "
              "iterations (smooth in κ_B) and Gradient Sliding's counts to a first hit (±15% phase noise) over one "
              "decade", tolerate=0.18, detect=0.4),
    Tolerance("statements:TOL[tiny]", "slope", 0.25, "theorems as stated, three points (CLI tests only)",
              tolerate=0.2, detect=0.5),
    Tolerance("statements:TOL[full]", "slope", 0.12, "theorems as stated, two decades, 7 points", tolerate=0.1,
              detect=0.24),
    Tolerance("exact_verdict:SLOPE_BAND[full]", "slope", 0.03, "issue 34: the 95% CI of the fitted exponent within ±0.03 "
              "over >= 3 decades, the verdict of a sweep without a closed form (the exact sweeps' fit is judged against "
              "the closed form's band on the grid: as_built.INDEX_QUANTUM)"),
    Tolerance("as_built:INDEX_QUANTUM", "abs", 1.0, "the per-accuracy count within one chain index (R rounds) of the "
              "asymptotic model's: the window's ends are read on a staircase of one index per R rounds (measured "
              "(count − model)/R in [−0.079, 0.988] on every quick-tier point, [−0.185, 0.999] on every full-tier one); the "
              "fit band is the slope this moves "
              "(probed by control.lower.kappa04 and its fit-band twin: a path of 3·κ_W^0.4 nodes)"),
    Tolerance("as_built:RHO_RTOL", "rel", 1e-9, "the builder's chain ratio from its weights against the model's from the "
              "targets: two routes through the same algebra, rounding ~1e-15 (tests/test_as_built.py)"),
    Tolerance("exact_verdict:ASYMPTOTIC_TOL", "abs", 1e-3, "the closed form's exponent read at κ = 1e12…1e13, where "
              "the +1 of the hop distance n/3 + 1 still adds 5e-5 (probed by control.lower.kappa04)"),
    Tolerance("exact:BOUNDARY_RTOL", "rel", 1e-8, "a level this close to a closed-form tail value may be hit one round "
              "apart: the KKT x* agrees with the closed form to ~1e-15 of its largest entry, ~1e-9 relative at the "
              "deepest level read (probed by the truncated-chain controls)"),
    Tolerance("exact:XSTAR_RTOL", "rel", 1e-10, "closed-form x* against the KKT solution: measured <= 5e-14 on every "
              "construction (tests/test_exact_counts.py), rounding of the solve"),
    Tolerance("refutation:REFUTE_MARGIN", "slope", 0.25, "half the claimed exponent ½: a count that grows with exponent "
              "<= 0.25 over two decades is below the claimed growth (control.lower.refut: −0.17 measured)"),
    Tolerance("audit_constants:CONST_RTOL", "rel", 1e-9, "stated vs witnessed L_f, μ_f of the non-quadratic objectives "
              "(closed-form witnesses; eigenvalues of k <= 16 dense blocks to ~1e-15 L_f)", tolerate=5e-10, detect=1e-8),
    Tolerance("audit_constants:FD_RTOL", "rel", 1e-6, "Hessian vs central differences of the gradient (step 1e-5: "
              "truncation ~1e-10, rounding ~1e-11, relative to L_f)", tolerate=5e-7, detect=1e-5),
    Tolerance("calibration_engine:CURVE_RTOL", "rel", 1e-12, "the engine's and the closed form's error curves sum "
              "the same squares in a different order", tolerate=1e-13, detect=1e-10),
)


def by_name(name: str) -> Tolerance:
    for t in TOLERANCES:
        if t.name == name:
            return t
    raise KeyError(name)


TABLE_HEADERS = ("Tolerance", "In effect", "Designed", "Must pass", "Must fail", "Why this value")


def table_rows() -> list[list[str]]:
    """The list as table rows (:data:`TABLE_HEADERS`): where, value in effect, design value, probes, reason."""
    out = []
    for t in TOLERANCES:
        try:
            v = f"{t.in_effect():g}"
        except Exception as exc:  # noqa: BLE001 - the report lists what it cannot read
            v = f"unreadable ({type(exc).__name__})"
        out.append([f"`{t.where}`", v, f"{t.design:g}", "—" if t.tolerate is None else f"{t.tolerate:g}",
                    "—" if t.detect is None else f"{t.detect:g}", t.reason])
    return out
