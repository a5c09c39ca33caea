"""``solve(problem)``: the paper's optimal method for each problem class.

Picks the reformulation of :mod:`mixbounds.solvers.reformulations` by
``problem.problem_class`` (``ValueError`` for classes without a method), runs
APAPC (:mod:`mixbounds.solvers.apapc`) to ``‖x_k − x*‖² <= eps·‖x_0 − x*‖²`` on the original
variables ``(x, X̃)`` and returns a :class:`~mixbounds.solvers.result.SolveResult` whose
``params`` hold every degree, scaling, constant and interval used.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
from mixbounds.instances.problem import MixedProblem
from mixbounds.instances.reference.kkt import reference_solution
from mixbounds.solvers.apapc import APAPCParameters, apapc
from mixbounds.solvers.oracles import CountedOracles
from mixbounds.solvers.reformulations import METHODS, Reformulation
from mixbounds.solvers.result import SolveResult
from numpy.typing import ArrayLike

#: default iteration budget of :func:`solve`
MAX_ITER = 100_000


def solve(problem: MixedProblem, *, method: str = "apapc", eps: float = 1e-8, x_star: ArrayLike | None = None,
          max_iter: int = MAX_ITER, spectra: str = "lemma", constants: str = "lemma", x0: ArrayLike | None = None,
          oracles: CountedOracles | None = None, materialize: bool = True, settle: float = 0.0,
          settle_eps: float | None = None, max_calls: int | None = None, facts: dict[str, Any] | None = None,
          timings: dict[str, Any] | None = None) -> SolveResult:
    """Solve ``problem`` with APAPC on the paper's reformulation.

    Parameters
    ----------
    problem : mixbounds.instances.problem.MixedProblem
        Of class consensus, shared, coupled, coupled_local or mixed, with a smooth strongly convex objective.
    method : {"apapc", "apapc-nocheb"}
        Chebyshev-accelerated (the paper's method), or the same reformulation without polynomials (the
        negative control).
    eps : float
        Target relative squared error on ``(x, X̃)``.
    x_star : array_like, optional
        Exact solution in the u-layout (``x̃`` copied to every node); computed by
        :func:`mixbounds.instances.reference.kkt.reference_solution` when ``None``.
    max_iter : int
        Iteration budget (a run that hits it has ``converged=False``, ``reason="budget"``).
    spectra : {"lemma", "exact"}
        Spectral intervals from the lemmas' bounds (default) or computed exactly
        (:mod:`mixbounds.solvers.reformulations`).
    constants : {"lemma", "exact", "spectral", "bounds", "auto"}
        The constants of ``G``: the lemmas' bounds (default), exact, by Lanczos on operators at any size (its
        products counted in the result's ``setup_counts``), closed-form bounds from the lemma's facts (no oracle
        call), or ``"auto"``: the bounds, with the cost model's account of what spectral constants could save
        (:func:`mixbounds.solvers.spectral_estimates.choose_constants`).
    x0 : array_like, optional
        Start in the u-layout (default 0); the auxiliary ``Y`` always starts at 0.
    oracles : mixbounds.solvers.oracles.CountedOracles, optional
        Counted oracles to use (default: new ones); tests pass wrapped ones.
    materialize : bool
        Apply fixed polynomial operators as matrices built from their counted recurrence (same counts, values
        equal to rounding; :mod:`mixbounds.solvers.reformulations`).
    settle : float
        Stop rule (:func:`mixbounds.solvers.apapc.apapc`): ``0`` stops at the first error ``<= eps``; ``s > 0``
        only once the last ``s·k`` errors are all ``<= settle_eps`` and the error has reached ``eps``.
    settle_eps : float, optional
        The level of the settle rule (default ``eps``).
    max_calls : int, optional
        Call budget: the run stops with ``reason="budget"`` once some oracle has been called ``max_calls`` times
        (set-up calls included).
    facts : dict, optional
        The spectral facts of :func:`mixbounds.instances.spectra.solver_facts` when already known (computed when
        ``None``).
    timings : dict, optional
        Receives the wall seconds of the set-up (``"setup"``: the reformulation, its constants and right-hand side)
        and of the iterations (``"iterations"``), for reports.

    Returns
    -------
    mixbounds.solvers.result.SolveResult
        Counts per oracle and per iteration, the error history, ``converged`` and the stop reason; ``params``
        hold every degree, scaling, constant and interval used; ``setup_counts`` the rounds spent estimating
        constants.

    Raises
    ------
    ValueError
        An unknown method, a class without a method, or an ``x_star`` of the wrong length.
    """
    if method not in METHODS:
        raise ValueError(f"solve: unknown method {method!r}; expected one of {METHODS}")
    u_star = _exact_solution(problem, x_star)
    t0 = time.perf_counter()
    ref, w0, error, params = _set_up(problem, oracles, u_star, x0, method=method, spectra=spectra, constants=constants,
                                     materialize=materialize, eps=eps, facts=facts)
    t1 = time.perf_counter()
    res = apapc(grad_G=ref.grad_G, apply_BtB=ref.apply_normal, Btb=ref.normal_rhs, w0=w0, params=params, error=error,
                snapshot=ref.orc.snapshot, output=ref.to_u, eps=eps, max_iter=max_iter, method=method,
                extra_params=ref.describe(), settle=settle, settle_eps=settle_eps, max_calls=max_calls)
    if timings is not None:
        timings.update(setup=t1 - t0, iterations=time.perf_counter() - t1)
    return replace(res, setup_counts=ref.setup_counts)


def _exact_solution(problem: MixedProblem, x_star: ArrayLike | None) -> np.ndarray:
    """``x_star`` as a u-layout vector (the reference solution when ``None``); ``ValueError`` on a wrong length."""
    if x_star is None:
        x_star = reference_solution(problem).u
    u_star = np.asarray(x_star, dtype=float).ravel()
    if u_star.shape != (problem.layout.size,):
        raise ValueError(f"solve: x_star must be a u-layout vector of length {problem.layout.size}, got shape {u_star.shape}")
    return u_star


def _set_up(problem: MixedProblem, oracles: CountedOracles | None, u_star: np.ndarray, x0: ArrayLike | None, *,
            method: str, spectra: str, constants: str, materialize: bool, eps: float, facts: dict[str, Any] | None,
            ) -> tuple[Reformulation, np.ndarray, Callable[[np.ndarray], float], APAPCParameters]:
    """What :func:`solve` times as its set-up: the reformulation with its constants, the start ``w0``, the error the
    stop rule reads (squared distance to ``u_star`` relative to the start's, absolute when the start is the
    solution) and APAPC's parameters from the reformulation's constants and interval."""
    ref = Reformulation(problem, oracles, method=method, spectra=spectra, constants=constants, materialize=materialize,
                        eps=eps, facts=facts)
    u0 = np.zeros(problem.layout.size) if x0 is None else np.asarray(x0, dtype=float).ravel()
    w0 = ref.from_u(u0)
    den = ref.sq_distance(w0, u_star)

    if den > 0:
        def error(w: np.ndarray) -> float:
            return float(ref.sq_distance(w, u_star) / den)
    else:  # the start is the solution: report the absolute squared distance
        def error(w: np.ndarray) -> float:
            return float(ref.sq_distance(w, u_star))

    lo, hi = ref.interval
    params = APAPCParameters.rule(ref.L_G, ref.mu_G, hi, lo)
    return ref, w0, error, params

__all__ = ["MAX_ITER", "solve"]
