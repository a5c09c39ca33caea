"""The constraint ``K = diag(B, B̃)`` of a reformulation as APAPC reads it: ``P(KᵀK)`` and ``Kᵀb'``.

The blocks follow the problem's parts (:func:`x_block`, the shared variable's :func:`~mixbounds.instances.spectra.
shared_kind`).  APAPC's z-update needs only ``KᵀK`` and ``Kᵀb'``, so each block contributes
``P_B(BᵀB)`` and ``P_B(BᵀB)(BᵀB)⁺Bᵀb`` (``app:nonind_upper``, ``sec:mixed_upper``): APAPC for the constraint
``P(BᵀB)^{1/2} w = b''`` (the same feasible set), one polynomial per iteration instead of two
(:mod:`mixbounds.solvers.apapc`).  Without Chebyshev the raw ``BᵀB`` and ``Bᵀb``.  An ``x`` without constraint
(``"free"``: a mixed problem with neither ``A`` nor ``C``) has no block and a zero row of ``KᵀK``.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np
from mixbounds.bounds.concepts import BlockKind
from mixbounds.solvers.chebyshev import Chebyshev
from mixbounds.solvers.reformulation.block import Block
from mixbounds.solvers.reformulation.coupled import CoupledBlock, CoupledLocalBlock
from mixbounds.solvers.reformulation.inner import InnerOperators
from mixbounds.solvers.reformulation.local import LocalBlock
from mixbounds.solvers.reformulation.shared import ConsensusBlock, SharedBlock, SharedIdenticalBlock
from mixbounds.solvers.reformulation.variables import Variables

#: every block kind by name
BLOCKS: dict[str, type[Block]] = {cls.kind: cls for cls in (CoupledBlock, CoupledLocalBlock, LocalBlock, ConsensusBlock,
                                                            SharedBlock, SharedIdenticalBlock)}


def x_block(dx: int, has_A: bool, has_C: bool) -> BlockKind | None:
    """The kind of the block on ``x``: ``None`` (no ``x``), ``COUPLED``, ``COUPLED_LOCAL``, ``LOCAL`` or ``FREE``."""
    if dx == 0:
        return None
    if has_A:
        return BlockKind.COUPLED_LOCAL if has_C else BlockKind.COUPLED
    return BlockKind.LOCAL if has_C else BlockKind.FREE


def blocks(var: Variables, x_kind: str | None, t_kind: str | None, problem, facts: dict, scal) -> dict[str, Block]:
    """The blocks of ``K`` by their side, ``"x"`` then ``"t"`` (``"free"`` and absent parts have none)."""
    classes = [BLOCKS[kind] for kind in (x_kind, t_kind) if kind not in (None, BlockKind.FREE)]
    return {cls.side: cls(var, problem, facts, scal) for cls in classes}


class Entry(NamedTuple):
    """One block of the assembled operator: its part of ``w``, the shape it is applied to, and ``M``."""

    slice: slice
    shape: tuple
    apply: Callable


class NormalOperator:
    """``w ↦ P(KᵀK) w`` (or ``KᵀK w`` without Chebyshev), block by block, with the zero rows of a free ``x``.

    Parameters
    ----------
    entries : list of Entry
        The blocks' operators.
    size : int
        Length of ``w``.
    zero_slices : list of slice
        Parts of ``w`` no block covers (a free ``x``).
    """

    def __init__(self, entries: list[Entry], size: int, zero_slices: list[slice]):
        self.entries, self.zero_slices = entries, zero_slices
        covered = sum(e.slice.stop - e.slice.start for e in entries)
        self.single = len(entries) == 1 and covered == size

    def __call__(self, w: np.ndarray) -> np.ndarray:
        """``P(KᵀK) w``; a new array."""
        if self.single:
            sl, shape, M = self.entries[0]
            return np.asarray(M(w.reshape(shape))).reshape(-1)
        out = np.empty_like(w)
        for sl, shape, M in self.entries:
            out[sl] = np.asarray(M(w[sl].reshape(shape))).ravel()
        for sl in self.zero_slices:
            out[sl] = 0.0
        return out


def assemble(blocks: dict[str, Block], ops: InnerOperators, size: int, zero_slices: list[slice],
             materialized: Callable[[Block], Callable | None]) -> tuple[NormalOperator, np.ndarray]:
    """``P(KᵀK)`` and ``Kᵀb'`` on the main oracles (the right-hand side counted: a decentralized method computes it).

    Parameters
    ----------
    blocks : dict of str to Block
        The blocks, their outer polynomials set up.
    ops : InnerOperators
        The inner operators bound to the solve's oracles.
    size : int
        Length of ``w``.
    zero_slices : list of slice
        Parts of ``w`` no block covers.
    materialized : callable
        The block's operator as a matrix counted as its recurrence, or ``None`` to apply the recurrence
        (:meth:`mixbounds.solvers.reformulation.materialized.Materializer.outer`).

    Returns
    -------
    (NormalOperator, numpy.ndarray)
    """
    entries, rhs = [], np.zeros(size)
    for b in blocks.values():
        N = (lambda v, b=b: b.normal(ops, v))
        Btb = b.rhs(ops)
        poly = b.polynomial
        if poly.outer:
            lo, hi = poly.raw_interval
            ch = Chebyshev(N, hi, lo, poly.degree, name=f"BᵀB[{b.kind}]")
            M = ch.apply_P
            r = ch.rhs(Btb) if np.any(Btb) else np.zeros_like(Btb)
        else:
            M, r = N, Btb
        matrix = materialized(b)
        if matrix is not None:
            M = matrix
        rhs[b.slice] = np.asarray(r).ravel()
        entries.append(Entry(b.slice, b.shape, M))
    return NormalOperator(entries, size, zero_slices), rhs
