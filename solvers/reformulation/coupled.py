"""The blocks on ``(x, Y)`` of the coupled constraint ``Σ_i A_i x_i = Σ_i b_i``, alone or with local constraints.

* :class:`CoupledBlock`: ``B = (A  αW')``, ``B(x, Y) = b`` (``app:coupled_cons``, problem
  ``prob:coupled_constraints_prob`` with ``W → W' = P_W(W)``); ``σ_min+²(B) >= λ_min+(S_A)/2`` and
  ``σ_max²(B) <= L_A + (L_A + λ_min+(S_A))κ_{W'}²`` (``lem:coupled_spectrum``).
* :class:`CoupledLocalBlock`: ``B = [[A, αW'], [βC', 0]]``, ``B(x, Y) = (b, βc')`` (``sec:mixed_upper``, the scalings
  of ``eq:block_scaling``); ``σ_min+²(B) >= μ̃_AC/4`` (``L_A`` when ``μ̃_AC = 0``) and
  ``σ_max²(B) <= L_A + α²L_{W'} + β²L_{C'}`` (``lem:mixed_coupled_with_local_spectrum``).

One application of ``BᵀB`` costs two ``A`` rounds and two ``W'`` (``2 deg P_W`` ``comm``), plus two ``C'``
(``4 deg P_C`` ``C`` rounds with Chebyshev, 2 without) with the local constraints.
"""

from __future__ import annotations

import numpy as np
from mixbounds.bounds.concepts import BlockKind, Oracle
from mixbounds.solvers.reformulation.block import Block
from mixbounds.solvers.reformulation.inner import InnerOperators
from mixbounds.solvers.reformulation.variables import Variables


class CoupledBlock(Block):
    """``B = (A  αW')`` on ``(x, Y)`` (module docstring)."""

    kind = BlockKind.COUPLED
    side = "x"
    operands = ("x", "W'", Oracle.A, "alpha")

    @staticmethod
    def place(var: Variables) -> tuple[slice, tuple]:
        return slice(0, var.dx + var.n * var.m), (var.dx + var.n * var.m,)

    def raw_interval_lemma(self) -> tuple[float, float]:
        L_A, lam_S = self.facts["L_A"], self.facts["lambda_min_S_A"]  # lem:coupled_spectrum
        return lam_S / 2, L_A + (L_A + lam_S) * self.scal.kappa_W_prime ** 2

    def normal(self, ops: InnerOperators, v: np.ndarray) -> np.ndarray:
        orc, dx, alpha = ops.orc, self.var.dx, self.scal.alpha
        x, Y = v[:dx], v[dx:].reshape(self.var.n, self.var.m)
        e1 = orc.A(x)
        e1 += alpha * ops.Wp(Y)  # A x + αW'Y
        out = np.empty_like(v)
        out[:dx] = orc.AT(e1)
        self._add_local(ops, out[:dx], lambda: ops.CpT(ops.Cp(x)))
        out[dx:] = (alpha * ops.Wp(e1)).ravel()
        return out

    def rhs(self, ops: InnerOperators) -> np.ndarray:
        orc, dx = ops.orc, self.var.dx
        bY = self.problem.b_stacked.reshape(self.var.n, self.var.m)
        out = np.empty(dx + self.var.n * self.var.m)
        out[:dx] = orc.AT(bY)
        self._add_local(ops, out[:dx], lambda: ops.CpT(ops.c_prime()))
        out[dx:] = (self.scal.alpha * ops.Wp(bY)).ravel()
        return out

    def _add_local(self, ops: InnerOperators, out_x: np.ndarray, term) -> None:
        """Add the local rows' part ``β² C'ᵀ(…)`` to ``out_x`` (none here)."""

    def rounds(self, K: int, degrees: dict, cheb: bool) -> dict[str, int]:
        return {Oracle.A: 2 * K, Oracle.COMM: 2 * degrees.get("W", 1) * K}


class CoupledLocalBlock(CoupledBlock):
    """``B = [[A, αW'], [βC', 0]]`` on ``(x, Y)`` (module docstring)."""

    kind = BlockKind.COUPLED_LOCAL
    operands = ("x", "W'", Oracle.A, Oracle.C, "alpha", "beta")

    def raw_interval_lemma(self) -> tuple[float, float]:
        # lem:mixed_coupled_with_local_spectrum
        L_A, mu_tilde, s = self.facts["L_A"], self.facts["mu_tilde_AC"], self.scal
        hi = L_A + s.alpha ** 2 * s.L_W + s.beta ** 2 * s.L_C_prime
        lo = mu_tilde / 4 if mu_tilde > 0 else L_A
        return lo, hi

    def _add_local(self, ops: InnerOperators, out_x: np.ndarray, term) -> None:
        """``(βC')ᵀ(βC' x)`` in :meth:`normal`, ``(βC')ᵀ(βc')`` in :meth:`rhs`."""
        out_x += self.scal.beta ** 2 * term()

    def rounds(self, K: int, degrees: dict, cheb: bool) -> dict[str, int]:
        out = super().rounds(K, degrees, cheb)
        out[Oracle.C] = (4 * degrees[Oracle.C] if cheb else 2) * K
        return out
