"""APAPC without Chebyshev acceleration: the paper's reformulation, unpreconditioned.

This is :func:`mixbounds.solvers.solve` with ``method="apapc-nocheb"`` (see :mod:`mixbounds.solvers.reformulations`):
the same constraint blocks as the optimal method (``√W``, ``(A  αW)``, ``(C̃; γW)``,
``[[A, αW], [βC, 0]]``, ``C``) with every Chebyshev polynomial replaced by the raw operator,
and APAPC (Salim, Condat, Kovalev, Richtárik, AISTATS 2022, Algorithm ``alg:apapc`` of the
paper) with the parameter rule of :class:`mixbounds.solvers.apapc.APAPCParameters` and the constants of
Lemma ``lem:conv_smooth_c_and_l`` (``constants="lemma"``).  It applies to every class the
optimal method applies to; its iteration count grows with the raw ``χ = κ(BᵀB)`` instead of
the preconditioned one (and, with a coupled constraint, with ``L_G = 2L_f κ_W²``).
"""

from __future__ import annotations

from mixbounds.solvers.baselines import Baseline
from mixbounds.solvers.oracles import CountedOracles
from mixbounds.solvers.reformulation.options import SUPPORTED_CLASSES
from mixbounds.solvers.result import SolveResult
from mixbounds.solvers.solve import solve

CLASSES = SUPPORTED_CLASSES
CITATION = "Salim, Condat, Kovalev, Richtárik (2022), AISTATS, APAPC on the paper's reformulation, no Chebyshev"


def solve_apapc_nocheb(problem, *, eps: float = 1e-8, x_star=None, max_iter: int = 100_000,
                       oracles: CountedOracles | None = None, **params) -> SolveResult:
    """``mixbounds.solvers.solve(problem, method="apapc-nocheb", …)``; extra keywords go to :func:`mixbounds.solvers.solve`."""
    return solve(problem, method="apapc-nocheb", eps=eps, x_star=x_star, max_iter=max_iter, oracles=oracles, **params)


BASELINE = Baseline("apapc-nocheb", solve_apapc_nocheb, CLASSES, CITATION)
