"""The objective ``G`` of a reformulation and its gradient.

``G(w) = F(x, X̃) + (r/2)‖A x + αW'Y − b‖²`` with ``r = μ_f/(2 L_A)`` (``eq:coupled_constraints_reg_form``,
``sec:mixed_upper``; for mixed constraints the same penalty,
``app:upper_bound_coupled_plus_non_ident_local_constraints_prob``): ``Y`` makes ``F`` lose its strong convexity, the
penalty restores it (``lem:conv_smooth_c_and_l``) and is zero on the feasible set, so the minimiser is unchanged.
Without ``A`` there is no ``Y`` and ``G = F``.  Its constants: :mod:`mixbounds.solvers.reformulation.constants_modes`.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from mixbounds.bounds.concepts import Oracle
from mixbounds.solvers.reformulation.scalings import Scalings
from mixbounds.solvers.reformulation.variables import Variables


class PenalizedObjective:
    """``G`` of the module docstring on the oracles ``orc``, with ``W'`` applied by ``Wp``.

    Parameters
    ----------
    var : Variables
        The layout of ``w``.
    problem : MixedProblem
        The problem (``b``).
    orc : CountedOracles
        The solve's counted oracles.
    scal : Scalings
        ``α`` and ``r``.
    Wp : callable or None
        ``W'`` on node arrays (``None`` without ``A``).
    """

    def __init__(self, var: Variables, problem, orc, scal: Scalings, Wp: Callable | None):
        self.var, self.problem, self.orc, self.scal, self.Wp = var, problem, orc, scal, Wp
        self.has_A = problem.A is not None
        self.w_is_u = var.dx == 0 or (var.dt == 0 and not self.has_A)

    def grad(self, w: np.ndarray) -> np.ndarray:
        """``∇G(w)``: one ``grad`` round, plus (with A) two ``A`` and two ``W'`` applications."""
        orc, var = self.orc, self.var
        if self.w_is_u:
            return orc.grad(w)
        sx, sy, st = var.sx, var.sy, var.st
        x = w[sx]
        u = x if var.dt == 0 else np.concatenate([x, w[st]])
        g = orc.grad(u)
        out = np.empty_like(w)
        out[sx] = g[: var.dx]
        out[st] = g[var.dx:]
        if self.has_A:
            alpha, r = self.scal.alpha, self.scal.r
            e = orc.A(x)
            e += alpha * self.Wp(w[sy].reshape(var.n, var.m))
            e -= self.problem.b_stacked.reshape(var.n, var.m)
            out[sx] += r * orc.AT(e)
            out[sy] = (r * alpha * self.Wp(e)).ravel()
        else:
            out[sy] = 0.0
        return out

    @staticmethod
    def rounds(has_A: bool, degrees: dict) -> dict[str, int]:
        """Oracle rounds of one :meth:`grad` (``degrees``: the inner polynomials')."""
        if not has_A:
            return {Oracle.GRAD: 1}
        return {Oracle.GRAD: 1, Oracle.A: 2, Oracle.COMM: 2 * degrees.get("W", 1)}
