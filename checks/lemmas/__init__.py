"""Lemma checks: every lemma and closed form the proofs rest on, checked numerically.

One lemma per module, each a declarative :class:`~mixbounds.checks.lemmas.base.LemmaCheck` (its result
ids, cases, point function and ``finalize``).  Each check computes *both sides* of a statement
from matrices, on many seeded cases (:mod:`mixbounds.checks.lemmas.cases`: raw Gaussian blocks with mixed
scales, rank deficiency, zero nodes and ``μ̃ = 0``; the random families of :mod:`mixbounds.instances.random`;
small worst-case constructions), and reports

* ``pass``    the printed statement holds on every case (within the named tolerance);
* ``finding`` the printed statement fails somewhere, and a corrected statement,
  derived here and checked on the same cases, holds everywhere (both recorded,
  with the worst numbers, in :class:`mixbounds.checks.run.result.Finding`);
* ``fail``    neither holds (a bug in the suite, or a false claim we cannot name);
* ``error``   a point could not be computed.

``measured`` is one number, the one the verdict compares: the *worst observed ratio of the two sides* over
all cases (oriented so that ``>= 1`` means "holds"), or a count where the statement has no ratio (a
control's cases violating, a closed form's printed records failing); ``readings`` holds every number of
the check by name (:func:`mixbounds.checks.run.result.reading` names the chosen one), ``points`` the per-case
numbers.  Every check ships a negative control (``….control``, ``control=True``,
``expected="fail"``): the same comparison with a constant or exponent made wrong; it must come out
``fail``.

Adding a lemma check: a module here defining ``LEMMA = LemmaCheck(...)``, and its name in
``MODULES`` below.  Its expected findings (``Result(..., finding=reason)``) reach
:mod:`mixbounds.checks.expected` and the tests from that declaration.
"""

from __future__ import annotations

from importlib import import_module

from mixbounds.checks.lemmas.base import (  # noqa: F401  (the tolerances are part of the public surface)
    CHEB_ALG_RTOL,
    CHEB_EIG_TOL,
    EQ_RTOL,
    EXACT_RTOL,
    FAMILY,
    INEQ_RTOL,
    SALIM_HI,
    SALIM_LO,
    LemmaCheck,
    Result,
)
from mixbounds.checks.lemmas.chebyshev_interval import inv_T  # noqa: F401
from mixbounds.checks.lemmas.conv_smooth_c_and_l import point_conv_smooth  # noqa: F401
from mixbounds.checks.lemmas.coupled_spectrum import point_coupled_spectrum  # noqa: F401
from mixbounds.checks.lemmas.identical_mixed_spectrum import point_identical_mixed  # noqa: F401
from mixbounds.checks.lemmas.local_spectrum import point_local_spectrum  # noqa: F401
from mixbounds.checks.lemmas.mixed_coupled_with_local_spectrum import point_mixed_cl_spectrum  # noqa: F401
from mixbounds.checks.lemmas.projected_condition_number import point_projected_remark  # noqa: F401
from mixbounds.checks.lemmas.regularized_convergence import point_regularized, trust_region_max  # noqa: F401
from mixbounds.checks.lemmas.strong_conv_G_penal import point_strong_conv_penal  # noqa: F401
from mixbounds.checks.run.framework import Check

#: the lemma modules, in report order; each defines ``LEMMA``
MODULES = ("coupled_spectrum", "local_spectrum", "mixed_coupled_with_local_spectrum", "identical_mixed_spectrum",
           "conv_smooth_c_and_l", "strong_conv_G_penal", "projected_condition_number", "regularized_convergence",
           "chebyshev_interval", "closed_form_graph", "closed_form_worst", "mixed_condition_remarks",
           "kernel_equivalence", "penalization_dual_bound", "penalization",
           "problem_formulations", "adversarial_coupled_spectrum", "adversarial_local_spectrum",
           "adversarial_mixed_coupled_with_local_spectrum", "adversarial_identical_mixed_spectrum",
           "adversarial_chebyshev_interval", "adversarial_projected_condition_number")
LEMMAS: tuple[LemmaCheck, ...] = tuple(import_module(f"{__name__}.{m}").LEMMA for m in MODULES)


def checks() -> list[Check]:
    """The lemma family (``mixbounds.checks.registry.all_checks`` imports this)."""
    return [lem.check() for lem in LEMMAS]


def declared_results() -> list[tuple[LemmaCheck, Result]]:
    """Every declared result with its check: what the tests and :mod:`mixbounds.checks.expected` derive from."""
    return [(lem, r) for lem in LEMMAS for r in lem.results]
