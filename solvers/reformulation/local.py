"""The block ``B = C`` on ``x`` of local constraints ``C_i x_i = c_i`` without a coupled constraint.

The x-part of a mixed problem without ``A`` (``app:upper_bound_coupled_plus_non_ident_local_constraints_prob``
with ``A = 0``): ``N = CᵀC`` has its positive spectrum in ``[μ_C, L_C]`` (the facts), and one application costs
two ``C`` rounds.
"""

from __future__ import annotations

import numpy as np
from mixbounds.bounds.concepts import BlockKind, Oracle
from mixbounds.solvers.reformulation.block import Block
from mixbounds.solvers.reformulation.inner import InnerOperators
from mixbounds.solvers.reformulation.variables import Variables


class LocalBlock(Block):
    """``B = C`` on ``x`` (module docstring)."""

    kind = BlockKind.LOCAL
    side = "x"
    operands = ("x", Oracle.C)

    @staticmethod
    def place(var: Variables) -> tuple[slice, tuple]:
        return var.sx, (var.dx,)

    def raw_interval_lemma(self) -> tuple[float, float]:
        return self.facts["mu_C"], self.facts["L_C"]

    def normal(self, ops: InnerOperators, v: np.ndarray) -> np.ndarray:
        return ops.orc.CT(ops.orc.C(v))

    def rhs(self, ops: InnerOperators) -> np.ndarray:
        return ops.orc.CT(self.problem.c_stacked)

    def rounds(self, K: int, degrees: dict, cheb: bool) -> dict[str, int]:
        return {Oracle.C: 2 * K}
