"""pytest helpers: pin a user's method's rates in the user's own CI.

::

    from mixbounds.testing import assert_optimal, measure

    def test_my_method_is_optimal_in_kappa_W():
        assert_optimal(my_method, "coupled", oracle="comm", param="kappa_W", tier="tiny")

    def test_my_method_loses_in_kappa_f():
        m = measure(my_method, "consensus", oracle="comm", param="kappa_f", tier="quick")
        assert m.verdict == "suboptimal" and m.slope > 0.8

:func:`measure` runs one Table 1 sweep of the class (the worst-case construction as printed, or its random
family with ``family="random"``) exactly as ``mixbounds bench`` does (:mod:`mixbounds.bench_method`), in this
process, and returns a frozen :class:`Measurement`.  The ``tiny`` tier (3 points over half a decade) is a
smoke test; verdicts worth citing need ``quick`` (>= 4 points over a decade) or ``full``.
"""

from __future__ import annotations

from dataclasses import dataclass

from mixbounds.bench_method import measure_plans, plans
from mixbounds.checks.bench import ORACLES_OF
from mixbounds.checks.sweeps import CLASS_FAMILIES
from mixbounds.checks.tiers import TINY, Tier
from mixbounds.methods import METHOD_CLASSES, MethodError, check_method, declared_classes


@dataclass(frozen=True)
class Measurement:
    """One class × family × oracle × parameter of a method (what ``mixbounds bench`` reports in one row).

    ``slope`` and ``ci`` (95%) of the per-accuracy count against the realized parameter; ``exponent``: the paper's
    (Table 1); ``lower_slope``: the lower-bound engine's slope (``None`` where it is not run: gradient bounds,
    random families); ``reference``: the slope the verdict compares with; ``verdict``: ``optimal``,
    ``suboptimal``, ``below-lower-bound`` or ``error``; ``detail``: the reason in words; ``points``: per point
    the realized value, the per-accuracy count and the ratio count / lower bound.
    """

    problem_class: str
    family: str
    oracle: str
    param: str
    slope: float | None
    ci: tuple | None
    exponent: float
    lower_slope: float | None
    reference: float | None
    tolerance: float
    verdict: str
    detail: str
    points: tuple


def measure(method, problem_class: str, *, oracle: str = "comm", param: str = "kappa_W", tier: Tier | str = TINY,
            family: str = "worst") -> Measurement:
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
    if oracle not in ORACLES_OF[problem_class]:
        raise ValueError(f"measure: class {problem_class} has no oracle {oracle!r} ({ORACLES_OF[problem_class]})")
    if param not in CLASS_FAMILIES[problem_class][2]:
        raise ValueError(f"measure: class {problem_class} has no parameter {param!r} "
                         f"({CLASS_FAMILIES[problem_class][2]})")
    if family not in ("worst", "random"):
        raise ValueError(f"measure: family must be 'worst' or 'random', got {family!r}")
    if not isinstance(method, str):
        check_method(method, getattr(method, "__name__", repr(method)))
        decl = declared_classes(method)
        if decl is not None and problem_class not in decl:
            raise MethodError(f"method {getattr(method, '__name__', method)!r} does not support class "
                              f"{problem_class!r} (it declares classes={decl})")
    plan = plans(tier, [problem_class], params=[param], kinds=(family,))[0]
    results, _ = measure_plans(method, [plan], tier, jobs=1, apapc=False)
    r = next(x for x in results if x["oracle"] == oracle)
    return Measurement(problem_class=problem_class, family=r["family"], oracle=oracle, param=param,
                       slope=r.get("slope"), ci=None if r.get("ci") is None else tuple(r["ci"]),
                       exponent=r["exponent"], lower_slope=(r.get("lower") or {}).get("slope"),
                       reference=r.get("reference"), tolerance=r["tolerance"], verdict=r["status"],
                       detail=r["detail"], points=tuple(r.get("points") or ()))


def assert_optimal(method, problem_class: str, *, oracle: str = "comm", param: str = "kappa_W", tier: Tier | str = TINY,
                   family: str = "worst") -> Measurement:
    """:func:`measure`, and fail unless the verdict is ``optimal``.

    Parameters are those of :func:`measure`.

    Returns
    -------
    Measurement
        The measurement, when ``optimal``.

    Raises
    ------
    AssertionError
        With the class, oracle, parameter, tier, verdict and the measured slope's reason.
    """
    m = measure(method, problem_class, oracle=oracle, param=param, tier=tier, family=family)
    if m.verdict != "optimal":
        raise AssertionError(f"{problem_class} {oracle} in {param} ({m.family}, tier {tier}): {m.verdict}: {m.detail}")
    return m


__all__ = ["Measurement", "assert_optimal", "measure"]
