"""Sweeps of the rate statements outside the four tables (:mod:`mixbounds.bounds.statements`) and the Table 4
penalty homotopy (issue 36, items 1 and 4): one module per statement.

* :mod:`~mixbounds.checks.statements.apapc_kappa_B` — ``thm:smooth_objectives_apapc_convergence`` part 1 in κ_B;
* :mod:`~mixbounds.checks.statements.sliding_generic` — ``thm:upper_bound_nonsmooth_affine_constraints`` with a
  generic B, in κ_B and ε, both parts;
* :mod:`~mixbounds.checks.statements.consensus_nonsmooth` — the nonsmooth consensus rates of Section 3.2;
* :mod:`~mixbounds.checks.statements.homotopy` — Table 4 with the penalty homotopy against the paper's method;
* :mod:`~mixbounds.checks.statements.log_factor` — Table 4's ``log(1/ε)``: necessary, removed or open;

their shared verdict is :mod:`~mixbounds.checks.statements.sweep`.
"""

from mixbounds.checks.run.framework import Check
from mixbounds.checks.statements import apapc_kappa_B, consensus_nonsmooth, homotopy, log_factor, sliding_generic


def checks() -> list[Check]:
    """Every check of the family ``statements``, in the order above."""
    return [*apapc_kappa_B.checks(), *sliding_generic.checks(), *consensus_nonsmooth.checks(), *homotopy.checks(),
            *log_factor.checks()]
