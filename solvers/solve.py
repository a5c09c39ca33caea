"""``solve(problem)``: the paper's optimal method for each problem class.

Picks the reformulation of :mod:`mixbounds.solvers.reformulations` by
``problem.problem_class`` (``ValueError`` for classes without a method), runs
APAPC (:mod:`mixbounds.solvers.apapc`) to ``‖x_k − x*‖² <= eps·‖x_0 − x*‖²`` on the original
variables ``(x, X̃)`` and returns a :class:`~mixbounds.solvers.result.SolveResult` whose
``params`` hold every degree, scaling, constant and interval used.
"""

from __future__ import annotations

import numpy as np
from mixbounds.instances.reference.kkt import reference_solution
from mixbounds.solvers.apapc import APAPCParameters, apapc
from mixbounds.solvers.oracles import CountedOracles
from mixbounds.solvers.reformulations import METHODS, Reformulation
from mixbounds.solvers.result import SolveResult

#: default iteration budget of :func:`solve`
MAX_ITER = 100_000


def solve(problem, *, method: str = "apapc", eps: float = 1e-8, x_star=None, max_iter: int = MAX_ITER,
          spectra: str = "lemma", constants: str = "lemma", x0=None,
          oracles: CountedOracles | None = None, materialize: bool = True, settle: float = 0.0,
          settle_eps: float | None = None, max_calls: int | None = None) -> SolveResult:
    """Solve ``problem`` with APAPC on the paper's reformulation.

    Parameters
    ----------
    problem : :class:`~mixbounds.instances.problem.MixedProblem` of class consensus, shared,
        coupled, coupled_local or mixed, with a smooth strongly convex objective.
    method : ``"apapc"`` (Chebyshev-accelerated, the paper's method) or
        ``"apapc-nocheb"`` (same reformulation without polynomials: the control).
    eps : target relative squared error on ``(x, X̃)``.
    x_star : exact solution in the u-layout (``x̃`` copied to every node); computed by
        :func:`mixbounds.instances.reference.kkt.reference_solution` when ``None``.
    max_iter : iteration budget (a run that hits it has ``converged=False``, ``reason="budget"``).
    max_calls : call budget (default none): the run stops with ``reason="budget"`` once some
        oracle has been called ``max_calls`` times (set-up calls included).
    spectra, constants : ``"lemma"`` (theory bounds, default) or ``"exact"`` (see
        :mod:`mixbounds.solvers.reformulations`); ``constants`` also ``"spectral"`` (exact constants of ``G``
        by Lanczos on operators, any size: :mod:`mixbounds.solvers.constants`).
    x0 : start in the u-layout (default 0); the auxiliary ``Y`` always starts at 0.
    oracles : counted oracles to use (default: new); tests pass wrapped ones.
    materialize : apply fixed polynomial operators as matrices built from their counted
        recurrence (same counts, values equal to rounding; see ``mixbounds.solvers.reformulations``).
    settle : stop rule (see :func:`mixbounds.solvers.apapc.apapc`): ``0`` stops at the first error
        ``<= eps``; ``s > 0`` only once the last ``s·k`` errors are all ``<= settle_eps``
        (default ``eps``) and the error has reached ``eps``.
    """
    if method not in METHODS:
        raise ValueError(f"solve: unknown method {method!r}; expected one of {METHODS}")
    if x_star is None:
        x_star = reference_solution(problem).u
    u_star = np.asarray(x_star, dtype=float).ravel()
    if u_star.shape != (problem.layout.size,):
        raise ValueError(f"solve: x_star must be a u-layout vector of length {problem.layout.size}, got shape {u_star.shape}")
    ref = Reformulation(problem, oracles, method=method, spectra=spectra, constants=constants, materialize=materialize)
    u0 = np.zeros(problem.layout.size) if x0 is None else np.asarray(x0, dtype=float).ravel()
    w0 = ref.from_u(u0)
    den = ref.sq_distance(w0, u_star)

    if den > 0:
        def error(w):
            return ref.sq_distance(w, u_star) / den
    else:  # the start is the solution: report the absolute squared distance
        def error(w):
            return ref.sq_distance(w, u_star)

    lo, hi = ref.interval
    params = APAPCParameters.rule(ref.L_G, ref.mu_G, hi, lo)
    return apapc(
        grad_G=ref.grad_G,
        apply_BtB=ref.apply_normal,
        Btb=ref.normal_rhs,
        w0=w0,
        params=params,
        error=error,
        snapshot=ref.orc.snapshot,
        output=ref.to_u,
        eps=eps,
        max_iter=max_iter,
        method=method,
        extra_params=ref.describe(),
        settle=settle,
        settle_eps=settle_eps,
        max_calls=max_calls,
    )


__all__ = ["MAX_ITER", "solve"]
