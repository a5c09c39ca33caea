"""Measured Tables 2-4: slope checks of every cell, negative controls and findings.

Tables (``mixbounds.bounds.claims``): T2 ``table:smooth_conv_optimization_constraints`` (smooth convex,
accuracy parameter ``L_fR²/ε``), T3 ``table:nonsmooth_conv_optimization_constraints``
(``M_fR/ε``), T4 ``table:nonsmooth_strconv_optimization_constraints`` (``M_f/√(μ_fε)``).
All cells are upper bounds (no lower bound is claimed).

Methods (the paper's): T2 regularised APAPC (:func:`mixbounds.solvers.regularized.regularized_apapc`),
T3 Gradient Sliding (:func:`mixbounds.solvers.sliding.gradient_sliding`), T4 restarted Gradient
Sliding (:func:`mixbounds.solvers.sliding.restarted_gradient_sliding`), all on the paper's
reformulations with Chebyshev preconditioning.  Instances: ``convex-<class>`` (T2,
rank-deficient quadratics) and ``nonsmooth-<class>`` (T3; T4 with variant
``strongly-convex``), :mod:`mixbounds.instances.convex`, :mod:`mixbounds.instances.nonsmooth`.

The modules, one concept each:

* :mod:`~mixbounds.checks.tables234.points`: classes, families, grids and one measured point (the oracle counts to an
  ``(ε, δ)``-solution);
* :mod:`~mixbounds.checks.tables234.rules`: the slope verdict of one sweep (Table 2's log tolerance and log-including
  target, Table 4's log-factor finding, the derived-terms finding);
* :mod:`~mixbounds.checks.tables234.class_checks`: one check per table row (class);
* :mod:`~mixbounds.checks.tables234.controls`: the methods that must fail (no Chebyshev, projected subgradient);
* :mod:`~mixbounds.checks.tables234.table2_factor_controls`: Table 2 (smooth convex): the factor reading's controls;
* :mod:`~mixbounds.checks.tables234.tables34_findings`: Tables 3-4 (nonsmooth): the printed ``alg:sliding`` lines
  and ``finding.T4.mixed.A.kappa``.

Time: the quick tier of this module (~200 tasks) takes a few minutes on 2 cores, most of it
in the mixed-class runs; the full tier (2-decade sweeps, 7 points, up to ~10⁷ subgradient rounds
per point) takes hours.  Tolerances per tier: ``Tier.tables24.slope_tol`` (:mod:`mixbounds.checks.tiers`).
"""

from __future__ import annotations

from mixbounds.checks.run.framework import Check
from mixbounds.checks.tables234.class_checks import class_check
from mixbounds.checks.tables234.controls import method_controls
from mixbounds.checks.tables234.points import CLASSES
from mixbounds.checks.tables234.table2_factor_controls import factor_controls
from mixbounds.checks.tables234.tables34_findings import finding_sliding, finding_t4_mixed_A


def checks() -> list[Check]:
    """Every Tables 2-4 check, in the order of ``results.json``: the rows, the controls, the findings."""
    out = [class_check(t, cls) for t in (2, 3, 4) for cls in CLASSES[t]]
    out += method_controls()
    out += factor_controls()
    out += [finding_sliding(), finding_t4_mixed_A()]
    return out
