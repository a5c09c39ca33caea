"""The tiers of a run: ``tiny``, ``quick`` and ``full``, each one typed object holding every number it sets.

A tier decides how much is measured: the grids of the sweeps, the budgets of the runs and the slope tolerances
that go with those grids.  They are grouped by what they configure (:class:`Table1Sweeps`, :class:`Tables24Sweeps`,
:class:`BenchSweeps`, …); a check receives the :class:`Tier` and reads its own group.  ``results.json`` records the
tier's :attr:`Tier.name`.

A check whose settings are its own (how many seeded cases a lemma check draws, which extra cases a tier adds)
declares them next to its code, as a small frozen dataclass per tier name (:func:`per_tier`), and reads
``SETTINGS[tier.name]``: adding such a check does not edit this module, and no check branches on a tier.

* ``tiny``: seconds; the command-line tests (3 points per sweep, not a verdict anyone should cite);
* ``quick``: the default, the whole registry in minutes (>= 4 points over >= 1 decade);
* ``full``: publication (>= 7 points over >= 2 decades).

:func:`tier_by_name` parses a name (the ``--tier`` option); the instances are :data:`TINY`, :data:`QUICK` and
:data:`FULL`, compared by identity.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping, TypeVar

from mixbounds.bounds.concepts import ProblemClass as PC

K = TypeVar("K")
V = TypeVar("V")


def _frozen(d: dict[K, V]) -> Mapping[K, V]:
    return MappingProxyType(dict(d))


@dataclass(frozen=True)
class Table1Sweeps:
    """Table 1: the solver and lower-bound sweeps (:mod:`mixbounds.checks.sweeps`, :mod:`mixbounds.checks.rates`,
    :mod:`mixbounds.checks.lower.slopes`, :mod:`mixbounds.checks.lower.certificates`, :mod:`mixbounds.checks.controls`).
    """

    #: points per sweep
    points: int
    #: (lo, hi) of each swept parameter on the worst-case constructions
    worst_range: Mapping[str, tuple[Any, ...]]
    #: per-class exceptions to :attr:`worst_range`: (class, parameter) → (lo, hi)
    worst_range_class: Mapping[tuple[Any, ...], tuple[Any, ...]]
    #: (lo, hi) of every sweep on the random families
    random_range: tuple[Any, ...]
    #: ``|slope − θ|`` allowed for tight and absent parameters, and ``slope − θ`` for upper-only checks
    #: (``mixbounds.checks.rates``; per-accuracy counts are integers and the tuned path's n jumps in steps of 3:
    #: over one decade with 4 points about ±0.1 of slack)
    slope_tol: float
    #: the same for the lower-bound engine's slopes (``mixbounds.checks.lower.slopes``)
    lower_slope_tol: float
    #: ``|slope|`` of the solver / lower-bound ratio under which a tightness ratio is flat (certificates)
    ratio_tol: float
    #: the κ sweeps of the no-Chebyshev negative controls (``mixbounds.checks.controls``)
    nocheb_range: tuple[Any, ...]
    #: the same on the identical-C̃ classes
    nocheb_ident_range: tuple[Any, ...]
    #: the random families' non-quadratic series (log-cosh objectives, :mod:`mixbounds.checks.sweeps`): class →
    #: swept parameters; ``None``: every class, every parameter (the quick tier keeps a few seconds of it)
    nonquadratic: Mapping[str, tuple[Any, ...]] | None = None


@dataclass(frozen=True)
class Tables24Sweeps:
    """Tables 2–4 (:mod:`mixbounds.checks.tables234`)."""

    #: slope tolerance (counts to a first hit are integers with ±15% phase noise; sweeps of 1 decade)
    slope_tol: float
    #: points per sweep
    points: int
    #: accuracy grids per table (x = the table's accuracy parameter)
    acc_range: Mapping[int, tuple[Any, ...]]
    #: accuracy parameter per table at which the κ sweeps run
    acc_base: Mapping[int, float]
    #: (lo, hi) of the κ sweeps
    kappa_range: tuple[Any, ...]
    #: decades of the accuracy sweeps whose count is quadratic in x (a shorter grid)
    quadratic_decades: float
    #: inner-iteration budget of one run
    max_inner: int
    #: seeds of the Table 4 mixed-class A-count finding
    seeds_t4a: tuple[Any, ...]
    #: Table 2's non-quadratic series (the ``logcosh`` variant of the convex families): class → swept parameters
    #: (``LR2_eps`` the accuracy sweep); ``None``: every class, every parameter
    nonquadratic: Mapping[str, tuple[Any, ...]] | None = None


@dataclass(frozen=True)
class LowerBounds:
    """The lower-bound certificates (:mod:`mixbounds.checks.lower.constructions` and the modules it runs): exact
    engine counts over decades on every construction, tightness on the certifying construction, refutations."""

    #: points per sweep
    points: int
    #: first point of each swept parameter (key ``default`` for the others)
    lo: Mapping[str, float]
    #: decades each sweep spans from its first point (key ``default`` for the others)
    decades: Mapping[str, float]
    #: the non-swept parameters' values (key ``default``); ``None``: each parameter at its own sweep's first point,
    #: so that the first point of every sweep of a construction is one shared task
    base: Mapping[str, float] | None
    #: the realized swept parameter must span at least this many decades (issue 34: ≥ 3 full, ≥ 2 quick)
    min_decades: float
    #: ``|fitted slope − claim|`` allowed: the verdict of a sweep without a closed form (full tier: its whole 95% CI);
    #: an exact sweep's fit is judged against the closed form's band on its grid (``lower.as_built``)
    slope_band: float
    #: constructions with a ``quick`` parameter list sweep only those (the full tier sweeps every parameter)
    short: bool
    #: APAPC runs of the tightness check: the parameters swept (``None``: every one), the points per sweep
    #: (``None``: every point up to :attr:`tightness_max_kappa`)
    tightness_params: tuple[Any, ...] | None
    tightness_points: int | None
    tightness_max_kappa: float
    #: (cell, parameter) pairs whose printed construction is refuted by measurement (the first is the control's)
    refute_cells: tuple[Any, ...]


@dataclass(frozen=True)
class BenchSweeps:
    """The benchmarks (:mod:`mixbounds.checks.bench`): baselines and APAPC on the same sweeps.

    Every run has an iteration ``budget``; every baseline also a budget of ``calls`` of any one oracle (``None``:
    none), counted in what is measured (an iteration budget alone does not bound the work of the methods with
    inner solves).
    """

    points: int
    #: (lo, hi) of every swept parameter, unless :attr:`range_override` names it
    range: tuple[Any, ...]
    #: base value of every parameter of the class
    base: float
    #: the two accuracies (ε₁, ε₂) the per-accuracy cost is measured between
    eps: tuple[Any, ...]
    #: the accuracy a run stops at
    stop: float
    budget: int
    calls: int | None
    #: per-parameter (lo, hi) (the C&L and mixed constructions need κ̃_AC > 9: their printed map
    #: L'_A = L_A/2 − 9μ̃/2)
    range_override: Mapping[str, tuple[Any, ...]]
    #: base values of the random families that differ: the random shared and mixed families cannot reach
    #: κ̂_C̃ = 10 once the κ_W sweep has grown the network (measured in the full tier: minimum 15 at κ_W = 100,
    #: 13.5 at 316; the family's bound κ̂ >= n·rank(S)/Σ_i rank(B_i)), so their κ̂_C̃ sits at 30
    random_base_override: Mapping[str, float]


@dataclass(frozen=True)
class PEPSweeps:
    """The performance-estimation certificates (:mod:`mixbounds.checks.pep.registry`): which classes, which κ ranges.

    The κ_f sweep runs at κ_W = :data:`mixbounds.checks.pep.registry.FIXED_W`, the κ_W sweep at κ_f =
    :data:`mixbounds.checks.pep.registry.FIXED_F`, both with :attr:`points` points.
    """

    #: classes whose certificates, slopes and worst case the tier runs
    classes: tuple[Any, ...]
    #: (lo, hi) of the κ_f sweep
    kappa_f_range: tuple[Any, ...]
    #: (lo, hi) of the κ_W sweep (the quick tier starts at 100 so that the Chebyshev degree ⌈√κ_W⌉ is not
    #: dominated by its ceiling)
    kappa_W_range: tuple[Any, ...]
    points: int
    #: the certificate also on other networks and with K = 2 (``pep.<class>.contraction.networks``)
    networks: bool
    #: class-level points per class (the first ones of :data:`mixbounds.checks.pep.kinds.results.CLASS_GRID`)
    class_points: int = 2
    #: the several-slot blocks, the 5-step binding network PEP and the θ threshold's bisection
    full_extras: bool = False


@dataclass(frozen=True)
class StatementSweeps:
    """The rate statements outside the tables (:mod:`mixbounds.checks.statements`) and the Table 4 penalty homotopy
    (:mod:`mixbounds.checks.statements.homotopy`).  Ranges are ``(lo, hi)`` of the swept parameter."""

    #: points per sweep
    points: int
    #: slope tolerance (APAPC: per-accuracy iterations, smooth in κ_B; GS: counts to a first hit, ±15% phase noise)
    slope_tol: float
    #: thm:apapc, χ-dominated regime (τ = 1, χ >= 4κ_G): κ_G and the κ_B range
    apapc_chi: tuple[Any, ...]
    #: thm:apapc, √(κ_G χ) regime (τ < 1, χ <= κ_G/10): κ_G and the κ_B range
    apapc_sqrt: tuple[Any, ...]
    #: thm:upper_bound_nonsmooth_affine_constraints: κ_B range, accuracy ranges (x = MR/ε, M/√(με)) and the base
    #: point of the other sweep
    sliding_kappa_B: tuple[Any, ...]
    sliding_x_convex: tuple[Any, ...]
    sliding_x_strong: tuple[Any, ...]
    sliding_base: Mapping[str, float]
    #: nonsmooth consensus (Section 3.2): accuracy range, κ_W range, base point
    consensus_x: tuple[Any, ...]
    consensus_kappa_W: tuple[Any, ...]
    consensus_base: Mapping[str, float]
    #: the homotopy (full tier only, mixbounds.checks.statements.homotopy): Table 4 classes run, the largest accuracy
    #: parameter of their grid (Tables24Sweeps' Table 4 grid cut there: the homotopy's early phases cost O(x²)
    #: subgradients), and the accuracy range of the generic-B experiment
    homotopy_classes: tuple[Any, ...]
    homotopy_x_max: float
    homotopy_generic_x: tuple[Any, ...]


@dataclass(frozen=True, eq=False)
class Tier:
    """One tier: its name and every number it sets, grouped by what they configure (compared by identity)."""

    name: str
    table1: Table1Sweeps
    tables24: Tables24Sweeps
    #: ``None``: the tier does not run the benchmarks
    bench: BenchSweeps | None
    lower: LowerBounds
    pep: PEPSweeps
    statements: StatementSweeps

    def __repr__(self) -> str:
        return f"Tier({self.name!r})"

    def __str__(self) -> str:  # messages name the tier as the command line does
        return self.name


TINY = Tier(
    "tiny",
    table1=Table1Sweeps(
        points=3,
        worst_range=_frozen({"kappa_f": (30, 100), "kappa_W": (30, 100), "kappa_A": (30, 100), "kappa_Ct": (30, 100),
                             "kappa_AC": (30, 100), "kappa_C": (10, 30)}),
        worst_range_class=_frozen({}),
        random_range=(30, 100), slope_tol=0.25, lower_slope_tol=0.25, ratio_tol=0.25,
        nocheb_range=(60, 200), nocheb_ident_range=(10, 60), nonquadratic=_frozen({PC.CONSENSUS: ("kappa_f",)})),
    tables24=Tables24Sweeps(
        slope_tol=0.35, points=3, acc_range=_frozen({2: (30, 100), 3: (15, 40), 4: (8, 20)}),
        acc_base=_frozen({2: 50, 3: 20, 4: 10}), kappa_range=(10, 30), quadratic_decades=0.5, max_inner=2_000_000,
        seeds_t4a=(0, 1, 2), nonquadratic=_frozen({PC.COUPLED: ("LR2_eps",)})),
    bench=BenchSweeps(
        points=2, range=(4.0, 10.0), base=4.0, eps=(1e-2, 1e-5), stop=1e-8, budget=3000, calls=None,
        range_override=_frozen({"kappa_AC": (12.0, 30.0)}), random_base_override=_frozen({})),
    pep=PEPSweeps(classes=(PC.CONSENSUS, PC.COUPLED), kappa_f_range=(10.0, 31.6), kappa_W_range=(100.0, 316.0),
                  points=3, networks=False, class_points=1),
    statements=StatementSweeps(
        points=3, slope_tol=0.25, apapc_chi=(2.0, (200.0, 600.0)), apapc_sqrt=(300.0, (3.0, 9.0)),
        sliding_kappa_B=(10.0, 30.0), sliding_x_convex=(20.0, 60.0), sliding_x_strong=(5.0, 15.0),
        sliding_base=_frozen({"kappa_B": 30.0, "MR_eps": 20.0, "M_mu_eps": 10.0}),
        consensus_x=(12.0, 36.0), consensus_kappa_W=(10.0, 30.0), consensus_base=_frozen({"kappa_W": 10.0, "MR_eps": 20.0}),
        homotopy_classes=(PC.COUPLED,), homotopy_x_max=20.0, homotopy_generic_x=(100.0, 300.0)),
    lower=LowerBounds(
        points=3, lo=_frozen({"kappa_AC": 10.0, "kappa_W": 10.0, "kappa_Ct": 10.0, "kappa_Ct_id": 10.0, "default": 4.0}),
        decades=_frozen({"default": 1.0}), base=None, min_decades=0.9, slope_band=0.25, short=True,
        tightness_params=("kappa_f",), tightness_points=2, tightness_max_kappa=1e4,
        refute_cells=(("T1.coupled_local.A", "kappa_AC"),)),
)

QUICK = Tier(
    "quick",
    table1=Table1Sweeps(
        points=4,
        # one decade at small κ (a C&L/mixed point at κ_C = 300 costs minutes: the asymptotic regime is the full
        # tier's job); κ̂_C̃ one decade higher, where APAPC's iterations per accuracy on the printed shared
        # construction have stopped falling (docs/records/measurement-fixes.md, "A pre-asymptotic range")
        worst_range=_frozen({"kappa_f": (30, 300), "kappa_W": (30, 300), "kappa_A": (30, 300),
                             "kappa_Ct": (300, 3000), "kappa_AC": (30, 300), "kappa_C": (10, 100)}),
        # the coupled + local and mixed κ_f sweeps start at their base κ_f = 10 (their κ_f = 300 points are the
        # tier's most expensive, and the tier has to finish in 5 minutes)
        worst_range_class=_frozen({(PC.COUPLED_LOCAL, "kappa_f"): (10, 100), (PC.MIXED, "kappa_f"): (10, 100)}),
        random_range=(30, 300), slope_tol=0.12, lower_slope_tol=0.12, ratio_tol=0.12,
        nocheb_range=(100, 1000), nocheb_ident_range=(10, 100),
        # the κ_f sweeps of three classes (measured under load: 0.2–1.4 s per sweep; all 25 sweeps of the 7 classes
        # are the full tier's)
        nonquadratic=_frozen({PC.CONSENSUS: ("kappa_f",), PC.COUPLED: ("kappa_f",), PC.SHARED: ("kappa_f",)})),
    tables24=Tables24Sweeps(
        slope_tol=0.2, points=4, acc_range=_frozen({2: (20, 200), 3: (12, 120), 4: (5, 50)}),
        acc_base=_frozen({2: 50, 3: 20, 4: 10}), kappa_range=(10, 100), quadratic_decades=0.5, max_inner=5_000_000,
        # the accuracy sweeps of every class (measured under load: 0.3–0.6 s each; with the κ sweeps 14 s)
        seeds_t4a=(0, 1, 2, 3), nonquadratic=_frozen({c: ("LR2_eps",) for c in (PC.COUPLED, PC.SHARED, PC.COUPLED_LOCAL,
                                                                               PC.MIXED, PC.MIXED_IDENT)})),
    # not the default quick tier: measured there (2 jobs) the 1088-point quick run had done every non-bench point
    # but one and was still running the mixed-class benchmarks after 22 min (apapc-nocheb and the dual gradient
    # method to their budgets on the printed mixed construction); the registry's quick verdicts do not need them.
    # ``mixbounds bench --tier tiny|full`` (or ``mixbounds verify --tier tiny|full --claims 'bench.*'``)
    bench=None,
    pep=PEPSweeps(classes=(PC.CONSENSUS, PC.COUPLED), kappa_f_range=(10.0, 100.0), kappa_W_range=(100.0, 1000.0),
                  points=4, networks=False),
    statements=StatementSweeps(
        points=4, slope_tol=0.2, apapc_chi=(2.0, (200.0, 2000.0)), apapc_sqrt=(300.0, (3.0, 30.0)),
        sliding_kappa_B=(10.0, 100.0), sliding_x_convex=(10.0, 100.0), sliding_x_strong=(5.0, 50.0),
        sliding_base=_frozen({"kappa_B": 30.0, "MR_eps": 20.0, "M_mu_eps": 10.0}),
        consensus_x=(12.0, 120.0), consensus_kappa_W=(10.0, 100.0), consensus_base=_frozen({"kappa_W": 10.0, "MR_eps": 20.0}),
        homotopy_classes=(PC.COUPLED, PC.SHARED), homotopy_x_max=50.0, homotopy_generic_x=(100.0, 1000.0)),
    # two decades from the base point (κ = 4; κ̃_AC = 10: the printed coupled + local map needs κ̃_AC > 9; κ_W, κ̂_C̃,
    # κ_C̃ = 10, past the first steps of the path's n = 3m staircase and of the shift 6/((κ̂_C̃ − 3)κ_f)); the fit is
    # judged against the closed form's band on this grid (at κ = 4 the local slope of 1/arccosh(1 + s/2) is still ~5%
    # off ½: the band's pre-asymptotic offset, lower.as_built)
    lower=LowerBounds(
        points=3, lo=_frozen({"kappa_AC": 10.0, "kappa_W": 10.0, "kappa_Ct": 10.0, "kappa_Ct_id": 10.0, "default": 4.0}),
        decades=_frozen({"default": 2.0}), base=None, min_decades=1.9, slope_band=0.06, short=True,
        tightness_params=("kappa_f",), tightness_points=2, tightness_max_kappa=1e4,
        refute_cells=(("T1.coupled_local.A", "kappa_AC"),)),
)

FULL = Tier(
    "full",
    table1=Table1Sweeps(
        points=7,
        worst_range=_frozen({"kappa_f": (100, 10000), "kappa_W": (100, 10000), "kappa_A": (100, 10000),
                             "kappa_Ct": (100, 10000), "kappa_AC": (100, 10000), "kappa_C": (30, 3000)}),
        worst_range_class=_frozen({}),
        random_range=(100, 10000), slope_tol=0.08, lower_slope_tol=0.08, ratio_tol=0.08,
        nocheb_range=(100, 3000), nocheb_ident_range=(10, 300)),
    tables24=Tables24Sweeps(
        slope_tol=0.12, points=7, acc_range=_frozen({2: (30, 3000), 3: (15, 1500), 4: (8, 800)}),
        acc_base=_frozen({2: 300, 3: 60, 4: 30}), kappa_range=(10, 1000), quadratic_decades=1.0,
        max_inner=50_000_000, seeds_t4a=(0, 1, 2, 3, 4, 5, 6)),
    # every run 10⁵ iterations; every baseline also 3·10⁵ calls of any one oracle.  The reference ``apapc`` has no
    # call budget: its Chebyshev iterations make hundreds of calls each, so a common call budget would leave the
    # optimal method itself unmeasured; its iteration counts stay far below the iteration budget
    # (docs/records/full-tier.md, "Benchmarks of the full tier").  A point that hits a budget is left out of its fit
    # and kept as a censored count.
    bench=BenchSweeps(
        points=5, range=(10.0, 1000.0), base=10.0, eps=(1e-3, 1e-8), stop=1e-10, budget=100000, calls=300000,
        range_override=_frozen({"kappa_AC": (12.0, 1200.0)}), random_base_override=_frozen({"kappa_Ct": 30.0})),
    pep=PEPSweeps(classes=(PC.CONSENSUS, PC.COUPLED, PC.SHARED), kappa_f_range=(10.0, 1e4), kappa_W_range=(10.0, 1e4),
                  points=7, networks=True, class_points=10, full_extras=True),
    statements=StatementSweeps(
        points=7, slope_tol=0.12, apapc_chi=(10.0, (1000.0, 100000.0)), apapc_sqrt=(10000.0, (10.0, 1000.0)),
        sliding_kappa_B=(10.0, 1000.0), sliding_x_convex=(10.0, 1000.0), sliding_x_strong=(5.0, 500.0),
        sliding_base=_frozen({"kappa_B": 30.0, "MR_eps": 40.0, "M_mu_eps": 20.0}),
        consensus_x=(15.0, 1500.0), consensus_kappa_W=(10.0, 1000.0), consensus_base=_frozen({"kappa_W": 10.0, "MR_eps": 60.0}),
        homotopy_classes=(PC.COUPLED, PC.SHARED, PC.COUPLED_LOCAL, PC.MIXED), homotopy_x_max=400.0,
        homotopy_generic_x=(100.0, 1000.0)),
    # from κ = 100 (the asymptotic regime of the slope rule's CI) over four decades, three for κ_C (a split-rows
    # point at κ_C = 10⁵ has l = 498 blocks: 56 s, 2.3 GB); the others at 10 (docs/records/lower-bounds.md: reach and cost);
    # APAPC's tightness runs at the sweeps' points up to κ = 10⁴ (issue 47: the ratio's trend needs the decade past
    # 2154; an APAPC run at 10⁴ on the mixed constructions costs minutes)
    lower=LowerBounds(
        points=7, lo=_frozen({"default": 100.0}), decades=_frozen({"kappa_C": 3.0, "default": 4.0}),
        base=_frozen({"default": 10.0}), min_decades=2.9, slope_band=0.03, short=False,
        tightness_params=None, tightness_points=None, tightness_max_kappa=1.0e4,
        refute_cells=(("T1.coupled_local.A", "kappa_AC"), ("T1.coupled_local.C", "kappa_AC"),
                      ("T1.coupled_local.comm", "kappa_AC"))),
)

#: every tier, smallest first
TIERS: tuple[Tier, ...] = (TINY, QUICK, FULL)
#: their names, in the same order (the ``--tier`` choices)
TIER_NAMES: tuple[str, ...] = tuple(t.name for t in TIERS)


def per_tier(**settings: V) -> Mapping[str, V]:
    """A check's own settings keyed by tier name: one value for each of :data:`TIER_NAMES`.

    Parameters
    ----------
    **settings
        ``tiny=…, quick=…, full=…`` (each usually a small frozen dataclass of the check's module).

    Returns
    -------
    Mapping
        A read-only mapping from tier name to the settings, read as ``SETTINGS[tier.name]``.

    Raises
    ------
    ValueError
        When a tier name is missing or unknown (the check would have no settings in that tier).
    """
    missing = [t for t in TIER_NAMES if t not in settings]
    unknown = [t for t in settings if t not in TIER_NAMES]
    if missing or unknown:
        raise ValueError(f"per_tier: settings needed for exactly the tiers {', '.join(TIER_NAMES)}; "
                         f"missing {missing}, unknown {unknown}")
    return _frozen({t: settings[t] for t in TIER_NAMES})


def tier_by_name(name: str) -> Tier:
    """The tier called ``name`` (``ValueError`` naming the known ones otherwise).

    Parameters
    ----------
    name : str
        ``tiny``, ``quick`` or ``full``.

    Returns
    -------
    Tier
        The tier.

    Raises
    ------
    ValueError
        For an unknown name.
    """
    for t in TIERS:
        if t.name == name:
            return t
    raise ValueError(f"unknown tier {name!r} (choose from {', '.join(TIER_NAMES)})")


def as_tier(tier: Tier | str) -> Tier:
    """``tier`` itself, or the tier of that name: the entry points that users and tests call take either.

    Parameters
    ----------
    tier : Tier or str
        A tier or its name.

    Returns
    -------
    Tier
        The tier.

    Raises
    ------
    ValueError
        For an unknown name.
    """
    return tier if isinstance(tier, Tier) else tier_by_name(tier)
