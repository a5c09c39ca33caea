"""The blocks on the node copies ``X̃`` of the shared variable: consensus, with shared constraints, identical ones.

* :class:`ConsensusBlock`: ``B = √W``, ``N = W`` (``prob:consensus_cons``), spectrum ``[λ_min+(W), λ_max(W)]``; its
  outer polynomial is ``P_W(W)`` itself.  One application: one ``comm`` round.
* :class:`SharedBlock`: ``B̃ = (C̃; γW')``, ``N = C̃ᵀC̃ + γ²W'²`` (``app:nonind_upper``); ``lem:coupled_spectrum`` on
  ``C̃ᵀ`` bounds it by ``[λ_min+(S_C̃ᵀ)/2, L_C̃ + (L_C̃ + λ_min+(S_C̃ᵀ))κ_{W'}²]``.  One application: two ``C̃`` rounds
  and two ``W'``.
* :class:`SharedIdenticalBlock`: ``C̃_i = C̃``, ``B̃ = (I⊗C̃'; W')`` with ``γ = 1`` and ``C̃' = P(C̃ᵀC̃)``, no outer
  polynomial (the identical case of ``app:upper_bound_coupled_plus_non_ident_local_constraints_prob``,
  ``thm:LI_upper_bound``); ``lem:local_spectrum``: ``[min(μ_{C̃'}, μ_{W'}), L_{C̃'} + L_{W'}]``.  One application: two
  ``C̃'`` and two ``W'``.
"""

from __future__ import annotations

import numpy as np
from mixbounds.bounds.concepts import BlockKind, Oracle
from mixbounds.solvers.reformulation.block import Block
from mixbounds.solvers.reformulation.inner import InnerOperators
from mixbounds.solvers.reformulation.variables import Variables


class _SharedSide(Block):
    """A block on ``X̃``: arrays ``(n, d̃)``."""

    side = "t"

    @staticmethod
    def place(var: Variables) -> tuple[slice, tuple]:
        return var.st, (var.n, var.dt)


class ConsensusBlock(_SharedSide):
    """``B = √W`` on ``X̃`` (module docstring)."""

    kind = BlockKind.CONSENSUS
    operands = ("t", "W")

    def raw_interval_lemma(self) -> tuple[float, float]:
        return self.facts["lambda_min_W"], self.facts["lambda_max_W"]

    def normal(self, ops: InnerOperators, v: np.ndarray) -> np.ndarray:
        return ops.orc.comm(v)

    def rhs(self, ops: InnerOperators) -> np.ndarray:
        return np.zeros((self.var.n, self.var.dt))

    def rounds(self, K: int, degrees: dict, cheb: bool) -> dict[str, int]:
        return {Oracle.COMM: K}


class SharedBlock(_SharedSide):
    """``B̃ = (C̃; γW')`` on ``X̃`` (module docstring)."""

    kind = BlockKind.SHARED
    operands = ("t", "W'", "C̃", "gamma")

    def raw_interval_lemma(self) -> tuple[float, float]:
        L, lam_S = self.facts["L_Ct"], self.facts["lambda_min_S_Ct"]  # lem:coupled_spectrum applied to C̃ᵀ
        return lam_S / 2, L + (L + lam_S) * self.scal.kappa_W_prime ** 2

    def normal(self, ops: InnerOperators, v: np.ndarray) -> np.ndarray:
        out = ops.orc.CtT(ops.orc.Ct(v))
        out += self.scal.gamma ** 2 * ops.Wp(ops.Wp(v))
        return out

    def rhs(self, ops: InnerOperators) -> np.ndarray:
        return ops.orc.CtT(self.problem.ct_stacked)

    def rounds(self, K: int, degrees: dict, cheb: bool) -> dict[str, int]:
        return {Oracle.CT: 2 * K, Oracle.COMM: 2 * degrees.get("W", 1) * K}


class SharedIdenticalBlock(_SharedSide):
    """``B̃ = (I⊗C̃'; W')`` on ``X̃`` (module docstring)."""

    kind = BlockKind.SHARED_IDENTICAL
    preconditioned = False
    operands = ("t", "W'", "C̃")

    def raw_interval_lemma(self) -> tuple[float, float]:
        s = self.scal  # lem:local_spectrum, γ = 1
        return min(s.mu_Ct_prime, s.mu_W), s.L_Ct_prime + s.L_W

    def normal(self, ops: InnerOperators, v: np.ndarray) -> np.ndarray:
        out = ops.Ctp(ops.Ctp(v)) if ops.Ctp is not None else ops.orc.CtT(ops.orc.Ct(v))
        out += ops.Wp(ops.Wp(v))
        return out

    def rhs(self, ops: InnerOperators) -> np.ndarray:
        return ops.Ct_rhs()

    def rounds(self, K: int, degrees: dict, cheb: bool) -> dict[str, int]:
        return {Oracle.CT: 4 * degrees[Oracle.CT] if cheb else 2, Oracle.COMM: 2 * degrees.get("W", 1)}
