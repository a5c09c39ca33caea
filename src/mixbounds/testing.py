"""pytest helpers: pin a user's method's rates in the user's own CI.

::

    from mixbounds.testing import assert_optimal, measure

    def test_my_method_is_optimal_in_kappa_W():
        assert_optimal(my_method, "coupled", oracle="comm", param="kappa_W", tier="tiny")

    def test_my_method_loses_in_kappa_f():
        assert_suboptimal(my_method, "consensus", oracle="comm", param="kappa_f", tier="quick")

:func:`measure` runs one Table 1 sweep of the class (the worst-case construction as printed, or its random
family with ``family="random"``) exactly as ``mixbounds bench`` does (:mod:`mixbounds.bench_method`), in this
process, and returns a frozen :class:`Measurement`; its verdict follows the same rules
(:mod:`mixbounds.bench_verdict`): ``optimal`` only when the slope's whole 95% CI lies inside the band,
``suboptimal`` only when it lies wholly above, ``inconclusive`` otherwise, so an assertion cannot pass on noise.
The ``tiny`` tier (3 points over half a decade, a CI from one degree of freedom) is a smoke test that rarely
decides; verdicts worth citing need ``quick`` (>= 4 points over a decade) or ``full``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from mixbounds.bench_method import RunOptions, measure_plans, plans
from mixbounds.bounds.concepts import Oracle, ProblemClass
from mixbounds.checks.bench import ORACLES_OF
from mixbounds.checks.sweeps import CLASS_FAMILIES
from mixbounds.checks.tiers import TINY, Tier
from mixbounds.methods import METHOD_CLASSES, METHOD_MAX_ITER, MethodError, check_kwargs, check_method, declared_classes


@dataclass(frozen=True)
class Measurement:
    """One class × family × oracle × parameter of a method (what ``mixbounds bench`` reports in one row).

    ``slope``, ``ci`` (95%) and ``r2`` of the per-accuracy count against the realized parameter, fitted on
    ``points_used`` points over ``range`` (``lo``, ``hi``, ``decades``); ``exponent``: the paper's (Table 1);
    ``lower_slope``: the lower-bound engine's slope (``None`` where it is not run: gradient bounds, random families);
    ``reference``: the slope the band is built on; ``band``: ``(lo, hi)``, the slopes an optimal method may have;
    ``verdict``: ``optimal``, ``suboptimal``, ``inconclusive``, ``below-lower-bound`` or ``error``; ``decide``: for
    ``inconclusive``, what would decide it; ``flags``: non-monotone counts, errors that left ε again, budget-censored
    points; ``censored``: how many fitted counts are lower bounds (runs ended at ``max_iter``); ``detail``: the
    reason in words; ``points``: per point the realized value, the per-accuracy count, the ratios to the lower bound
    and to APAPC, the count to each ε (where the error stays) beside its first crossing.
    """

    problem_class: str
    family: str
    oracle: str
    param: str
    slope: float | None
    ci: tuple[Any, ...] | None
    exponent: float
    lower_slope: float | None
    reference: float | None
    tolerance: float
    verdict: str
    detail: str
    points: tuple[Any, ...]
    r2: float | None = None
    band: tuple[Any, ...] | None = None
    range: dict[str, Any] | None = None
    points_used: int = 0
    decide: str | None = None
    flags: tuple[Any, ...] = ()
    censored: int = 0


def measure(method: Callable[..., Any], problem_class: str, *, oracle: str = Oracle.COMM, param: str = "kappa_W", tier: Tier | str = TINY,
            family: str = "worst", max_iter: int = METHOD_MAX_ITER, method_args: dict[str, Any] | None = None) -> Measurement:
    """Measure one Table 1 sweep of ``method`` in this process, as ``mixbounds bench`` does for one row.

    Parameters
    ----------
    method : Callable or str
        A generator function following :mod:`mixbounds.methods`, or ``"MODULE:FUNCTION"``.
    problem_class : str
        One of :data:`mixbounds.methods.METHOD_CLASSES`.
    oracle : str
        The counted oracle whose per-accuracy count is fitted (``grad``, ``A``, ``C``, ``Ct``, ``comm``; those of
        the class).
    param : str
        The swept parameter (registry name: ``kappa_f``, ``kappa_W``, ``kappa_A``, …; those of the class).
    tier : {"tiny", "quick", "full"}
        The sweep's grid: ``tiny`` is a smoke test, verdicts worth citing need ``quick`` or ``full``.
    family : {"worst", "random"}
        The worst-case construction as printed, or the class's random family.
    max_iter : int
        The budget of yields per point (``mixbounds bench --max-iter``); a run that reaches it is censored (its count
        a lower bound), never an error.
    method_args : dict, optional
        Keyword arguments passed to the method (``mixbounds bench --method-arg``).

    Returns
    -------
    Measurement
        Slope and CI, the paper's exponent, the engine's lower-bound slope, the verdict and its reason.

    Raises
    ------
    ValueError
        An unknown class, oracle, parameter or family (naming the choices).
    MethodError
        A method that breaks the contract or does not declare ``problem_class``.
    """
    if problem_class not in METHOD_CLASSES:
        raise ValueError(f"measure: unknown class {problem_class!r} (choose from {', '.join(METHOD_CLASSES)})")
    problem_class = ProblemClass.named(problem_class)
    if oracle not in ORACLES_OF[problem_class]:
        raise ValueError(f"measure: class {problem_class} has no oracle {oracle!r} ({ORACLES_OF[problem_class]})")
    if param not in CLASS_FAMILIES[problem_class][2]:
        raise ValueError(f"measure: class {problem_class} has no parameter {param!r} "
                         f"({CLASS_FAMILIES[problem_class][2]})")
    if family not in ("worst", "random"):
        raise ValueError(f"measure: family must be 'worst' or 'random', got {family!r}")
    if not (isinstance(max_iter, int) and max_iter >= 1):
        raise ValueError(f"measure: max_iter must be a positive integer, got {max_iter!r}")
    if not isinstance(method, str):
        name = getattr(method, "__name__", repr(method))
        check_method(method, name)
        check_kwargs(method, method_args or {}, name)
        decl = declared_classes(method)
        if decl is not None and problem_class not in decl:
            raise MethodError(f"method {name!r} does not support class {problem_class!r} (it declares classes={decl})")
    plan = plans(tier, [problem_class], params=[param], kinds=(family,))[0]
    opts = RunOptions(max_iter=max_iter, method_args=tuple(sorted((method_args or {}).items())))
    results, _ = measure_plans(method, [plan], tier, jobs=1, apapc=False, opts=opts, oracles=(oracle,))
    r = results[0]
    return Measurement(problem_class=problem_class, family=r["family"], oracle=oracle, param=param,
                       slope=r.get("slope"), ci=None if r.get("ci") is None else tuple(r["ci"]),
                       exponent=r["exponent"], lower_slope=(r.get("lower") or {}).get("slope"),
                       reference=r.get("reference"), tolerance=r["tolerance"], verdict=r["status"],
                       detail=r["detail"], points=tuple(r.get("points") or ()), r2=r.get("r2"),
                       band=None if r.get("band") is None else tuple(r["band"]), range=r.get("range"),
                       points_used=len(r.get("points") or ()), decide=r.get("decide"),
                       flags=tuple(r.get("flags") or ()), censored=int(r.get("censored") or 0))


def _assert_verdict(want: str, method: Callable[..., Any], problem_class: str, kw: dict[str, Any]) -> Measurement:
    m = measure(method, problem_class, **kw)
    if m.verdict != want:
        raise AssertionError(f"{problem_class} {m.oracle} in {m.param} ({m.family}, tier {kw.get('tier', TINY)}): "
                             f"{m.verdict}, not {want}: {m.detail}")
    return m


def assert_optimal(method: Callable[..., Any], problem_class: str, **kw: Any) -> Measurement:
    """:func:`measure`, and fail unless the verdict is ``optimal`` (the whole 95% CI inside the band).

    Parameters
    ----------
    method : callable
        A generator function following the contract (:mod:`mixbounds.methods`).
    problem_class : str
        The class the sweep runs on.
    **kw
        The keywords of :func:`measure` (``oracle``, ``param``, ``tier``, ``family``, ``max_iter``, ``method_args``).

    Returns
    -------
    Measurement
        The measurement, when ``optimal``.

    Raises
    ------
    AssertionError
        With the class, oracle, parameter, tier, verdict and the reason (for ``inconclusive``: what would decide it).
    """
    return _assert_verdict("optimal", method, problem_class, kw)


def assert_suboptimal(method: Callable[..., Any], problem_class: str, **kw: Any) -> Measurement:
    """:func:`measure`, and fail unless the verdict is ``suboptimal`` (the whole 95% CI above the band).

    Parameters
    ----------
    method : callable
        A generator function following the contract (:mod:`mixbounds.methods`).
    problem_class : str
        The class the sweep runs on.
    **kw
        The keywords of :func:`measure` (``oracle``, ``param``, ``tier``, ``family``, ``max_iter``, ``method_args``).

    Returns
    -------
    Measurement
        The measurement, when ``suboptimal``.

    Raises
    ------
    AssertionError
        As :func:`assert_optimal`.
    """
    return _assert_verdict("suboptimal", method, problem_class, kw)


__all__ = ["Measurement", "assert_optimal", "assert_suboptimal", "measure"]
