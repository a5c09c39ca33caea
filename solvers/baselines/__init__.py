"""Baselines: the methods a user would otherwise pick, through the same counted oracles.

Every function has the signature
``solve_<name>(problem, *, eps, x_star=None, max_iter, oracles=None, settle=0, settle_eps=None, max_calls=None,
**params) -> SolveResult`` and the stopping rule of :func:`mixbounds.solvers.solve.solve` (``settle`` and
``settle_eps`` as there; relative squared distance of the original
variables ``(x, X̃)`` to ``x*``, start ``0``; ``converged=False`` with the reason on a budget,
non-finite or diverging run).  :data:`BASELINES` maps a name to
``(function, classes it applies to, citation)``; the parameter sources and defaults are in
each module's docstring.

=============  ====================================================  ====================================
name           classes                                               module
=============  ====================================================  ====================================
extra          consensus                                             :mod:`.extra`
diging         consensus                                             :mod:`.diging`
msda           consensus                                             :mod:`.msda` (inner ∇f* solves)
tracking-admm  coupled                                               :mod:`.tracking_admm` (inner solves)
dpmm           coupled                                               :mod:`.dpmm` (inner solves)
dual-gradient  coupled, coupled_local, mixed                         :mod:`.dual_gradient` (inner solves)
apapc-nocheb   every class of :func:`mixbounds.solvers.solve.solve`  :mod:`.apapc_nocheb`
=============  ====================================================  ====================================
"""

from __future__ import annotations

from mixbounds.solvers.baselines import apapc_nocheb, diging, dpmm, dual_gradient, extra, msda, tracking_admm
from mixbounds.solvers.baselines.apapc_nocheb import solve_apapc_nocheb
from mixbounds.solvers.baselines.diging import solve_diging
from mixbounds.solvers.baselines.dpmm import solve_dpmm
from mixbounds.solvers.baselines.dual_gradient import solve_dual_gradient
from mixbounds.solvers.baselines.extra import solve_extra
from mixbounds.solvers.baselines.msda import solve_msda
from mixbounds.solvers.baselines.tracking_admm import solve_tracking_admm

#: name → (function, classes it applies to, citation)
BASELINES = {
    "extra": (solve_extra, extra.CLASSES, extra.CITATION),
    "diging": (solve_diging, diging.CLASSES, diging.CITATION),
    "msda": (solve_msda, msda.CLASSES, msda.CITATION),
    "tracking-admm": (solve_tracking_admm, tracking_admm.CLASSES, tracking_admm.CITATION),
    "dpmm": (solve_dpmm, dpmm.CLASSES, dpmm.CITATION),
    "dual-gradient": (solve_dual_gradient, dual_gradient.CLASSES, dual_gradient.CITATION),
    "apapc-nocheb": (solve_apapc_nocheb, apapc_nocheb.CLASSES, apapc_nocheb.CITATION),
}


def baselines_for(problem_class: str) -> list[str]:
    """Names of the baselines that apply to ``problem_class``."""
    return [k for k, (_, classes, _) in BASELINES.items() if problem_class in classes]


__all__ = [
    "BASELINES", "baselines_for", "solve_apapc_nocheb", "solve_diging", "solve_dpmm", "solve_dual_gradient",
    "solve_extra", "solve_msda", "solve_tracking_admm",
]
