"""Negative controls of the PEP certificates: mis-set methods that must NOT be certified.

* :func:`theta_doubled` — APAPC with ``θ`` twice the rule's (line ``z`` over-steps the dual);
* :func:`wide_chebyshev` — the consensus class with the Chebyshev polynomial on ``W`` built for an
  interval ``[λ_min+(W)/s, λ_max(W)]`` wider than ``W``'s spectrum while keeping the degree
  ``⌈√κ_W⌉`` and the parameters of the correct interval: the polynomial's range on ``W``'s
  spectrum leaves the interval ``[1 − 1/T_n, 1 + 1/T_n]`` APAPC's parameters assume;
* the Lyapunov function without its dual terms (``lyapunov.WITHOUT_DUAL``): the PEP must be
  reported unbounded.

In the first two the Lyapunov function is the theorem's one for the rule's parameters
(:func:`mixbounds.checks.pep.performance.solve_pep` with ``step_params``), so the PEP measures whether the
theorem's certificate survives the mis-set method.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from mixbounds.bounds.concepts import ProblemClass
from mixbounds.checks.pep.model import LinearModel
from mixbounds.solvers.apapc import APAPCParameters
from mixbounds.solvers.chebyshev import Chebyshev, chebyshev_degree

#: factor on θ of the θ control
THETA_FACTOR = 2.0
#: the lower end of the Chebyshev interval on W is divided by this (the interval control)
WIDEN = 16.0


def theta_doubled(model: LinearModel) -> APAPCParameters:
    """The rule's parameters with ``θ`` multiplied by :data:`THETA_FACTOR`."""
    return dataclasses.replace(model.params, theta=THETA_FACTOR * model.params.theta)


def wide_chebyshev(model: LinearModel, widen: float = WIDEN) -> LinearModel:
    """``model`` (consensus) with ``P = P_wide(W)``: degree and APAPC parameters of the correct interval."""
    if model.data.cls != ProblemClass.CONSENSUS:
        raise ValueError(f"wide_chebyshev: the interval control is built for the consensus class, got {model.data.cls!r}")
    W = model.data.network.W
    lam, U = np.linalg.eigh(W)
    pos = lam > 1e-12 * lam[-1]
    lmin, lmax = float(lam[pos].min()), float(lam[-1])
    deg = chebyshev_degree(lmax, lmin)
    ch = Chebyshev(lambda v: v, lmax, lmin / widen, deg, name="W (widened)")
    p = np.where(pos, ch.polynomial(np.where(pos, lam, lmin)), 0.0)
    P = (U * p) @ U.T
    return dataclasses.replace(model, P=0.5 * (P + P.T))
