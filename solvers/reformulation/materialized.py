"""Which operators of a reformulation are applied as matrices, and what each one is a function of.

The machinery is :mod:`mixbounds.solvers.materialize` (a fixed polynomial operator built once from its counted
recurrence on a scratch oracle, each application adding the recurrence's counts to the solve's oracles, dense
matrices kept in a memo by content).  :class:`Materializer` decides per operator, with Chebyshev only:

* ``W' = P_W(W)``: an ``n × n`` matrix along the node axis when :func:`~mixbounds.solvers.materialize.
  nodes_dense_is_cheaper` says so for the node states it multiplies (``Y``: ``m`` columns; ``X̃``: ``d̃``);
* ``C'``, ``C̃'``: dense up to :data:`~mixbounds.solvers.materialize.MATERIALIZE_LIMIT` unknowns, else a sparse
  matrix when :meth:`~mixbounds.solvers.materialize.MaterializedSparse.build` finds it cheaper than the recurrence,
  or dense diagonal blocks of ``P(G)`` for ``CᵀC = G ⊗ I_K`` when
  :meth:`~mixbounds.solvers.materialize.MaterializedBlocks.build` finds them cheaper than both;
* the outer ``P_B(BᵀB)`` of a block (or ``BᵀB`` without outer polynomial): dense up to ``MATERIALIZE_LIMIT``.

:meth:`Materializer.key` is a dense operator's memo key: the matrices, inner polynomials and scalings the operator
reads and its interval and degree.  Nothing else enters (the objective and ``r`` do not: instances along a κ_f
sweep share their materialised operators); a hit is also checked on two columns bit for bit.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import numpy as np
from mixbounds.bounds.concepts import BlockKind, Oracle
from mixbounds.instances.kron_identity import normal_matrix
from mixbounds.solvers.chebyshev import Chebyshev
from mixbounds.solvers.materialize import (
    MATERIALIZE_LIMIT,
    MATERIALIZE_NODES,
    MaterializedBlocks,
    MaterializedDense,
    MaterializedNodes,
    MaterializedSparse,
    RecurrenceProbe,
    nodes_dense_is_cheaper,
)
from mixbounds.solvers.oracles import CountedOracles
from mixbounds.solvers.reformulation.block import Block
from mixbounds.solvers.reformulation.inner import InnerOperators, InnerPolynomial
from mixbounds.solvers.reformulation.scalings import Scalings
from mixbounds.solvers.reformulation.variables import Variables

_MATRICES = (MaterializedDense, MaterializedSparse, MaterializedBlocks)


class Materializer:
    """The materialised operators of one Chebyshev-accelerated reformulation, built on its own scratch oracle (whose
    counts are discarded).

    Parameters
    ----------
    problem : MixedProblem
        The problem.
    inner : dict of str to InnerPolynomial
        The inner polynomials.
    scal : Scalings
        The scalings (they enter the keys).
    var : Variables
        The layout of ``w``.
    bind : callable
        ``orc ↦`` the inner operators as recurrences counted on ``orc``.
    """

    def __init__(self, problem, inner: dict[str, InnerPolynomial], scal: Scalings, var: Variables,
                 bind: Callable[[CountedOracles], InnerOperators]):
        self.problem, self.inner, self.scal, self.var, self.bind = problem, inner, scal, var, bind
        self.scratch = CountedOracles(problem)

    def inner_operators(self, ops: InnerOperators, t_kind: str | None) -> InnerOperators:
        """``ops`` (bound to the main oracles) with ``W'``, ``C'``, ``C̃'`` as matrices where cheaper."""
        sc, orc, var = self.bind(self.scratch), ops.orc, self.var
        if ops.Wp is not None and self._W_prime_dense_is_cheaper(t_kind):
            ops = dataclasses.replace(ops, Wp=MaterializedNodes(sc.Wp, self.scratch, orc, var.n))
        if Oracle.C in self.inner:
            C = self._polynomial(sc.Cp, sc.chC, self.problem.bC, (var.dx,), "C'", orc)
            if C is not None:
                ops = dataclasses.replace(ops, Cp=C, CpT=C)
        if Oracle.CT in self.inner and sc.Ctp is not None:
            Ct = self._polynomial(sc.Ctp, sc.chT, self.problem.bCt, (var.n, var.dt), "C̃'", orc)
            if Ct is not None:
                ops = dataclasses.replace(ops, Ctp=Ct)
        return ops

    def _polynomial(self, op_scratch: Callable, cheb: Chebyshev, B, shape: tuple, role: str, orc: CountedOracles):
        """``P(BᵀB)`` as a dense matrix (small), else dense diagonal blocks or a sparse matrix, whichever is cheaper
        than the recurrence and the other, else ``None`` (the recurrence)."""
        if int(np.prod(shape)) <= MATERIALIZE_LIMIT:
            return MaterializedDense(op_scratch, self.scratch, orc, shape, key=self.key(role))
        M, probe = normal_matrix(B), RecurrenceProbe.of(op_scratch, self.scratch, shape)
        sparse = MaterializedSparse.build(cheb, M, probe, orc, shape, B.nnz)
        rival = None if sparse is None else sparse.P.nnz
        return MaterializedBlocks.build(cheb, M, probe, orc, shape, B.nnz, rival) or sparse

    def _W_prime_dense_is_cheaper(self, t_kind: str | None) -> bool:
        """The cost model of :func:`~mixbounds.solvers.materialize.nodes_dense_is_cheaper` for ``W'`` on the node
        states it multiplies (``Y``: m columns; ``X̃``: d̃ columns; the wider one decides)."""
        var = self.var
        cols = max(var.m if self.problem.A is not None else 0,
                   var.dt if t_kind in (BlockKind.SHARED, BlockKind.SHARED_IDENTICAL) else 0)
        return var.n <= MATERIALIZE_NODES and nodes_dense_is_cheaper(var.n, self.problem.W.nnz,
                                                                     self.inner["W"].degree, cols)

    def outer(self, block: Block, main: CountedOracles) -> MaterializedDense | None:
        """The block's ``P_B(BᵀB)`` (or ``BᵀB``) as a dense matrix counted on ``main``; ``None`` above
        ``MATERIALIZE_LIMIT`` unknowns."""
        if int(np.prod(block.shape)) > MATERIALIZE_LIMIT:
            return None
        sc, poly = self.bind(self.scratch), block.polynomial
        N = (lambda v: block.normal(sc, v))
        if poly.outer:
            lo, hi = poly.raw_interval
            N = Chebyshev(N, hi, lo, poly.degree, name=f"BᵀB[{block.kind}]").apply_P
        return MaterializedDense(N, self.scratch, main, block.shape, key=self.key("outer", block))

    def key(self, role: str, block: Block | None = None) -> tuple:
        """What a dense materialised operator is a function of: its memo key.

        ``role`` ``"C'"``: ``P_C(CᵀC)``, a function of ``C`` and its polynomial (interval, degree); ``"C̃'"``: the same
        of ``C̃``; ``"outer"``: the (outer polynomial of the) normal operator of ``block``, a function of what the
        block reads (:attr:`~mixbounds.solvers.reformulation.block.Block.operands`) and of its interval and degree.
        """
        sc, s, var = self.scratch, self.scal, self.var

        def poly(name):
            p = self.inner.get(name)
            return None if p is None else (float(p.L), float(p.mu), int(p.degree))

        cheb = True  # nothing is materialised without Chebyshev
        parts = {"x": (cheb, var.dx, var.n, var.m), "t": (cheb, var.n, var.dt), "W'": ("W'", poly("W"), sc._W),
                 "W": ("W", sc._W), Oracle.A: (Oracle.A, getattr(sc, "_bA", None), getattr(sc, "_bAT", None)),
                 Oracle.C: (Oracle.C, poly(Oracle.C), getattr(sc, "_bC", None), getattr(sc, "_bCT", None)),
                 "C̃": ("C̃", poly(Oracle.CT), getattr(sc, "_bCt", None), getattr(sc, "_bCtT", None)),
                 "alpha": s.alpha, "beta": s.beta, "gamma": s.gamma}
        if role == "C'":
            return (role, parts["x"], parts[Oracle.C])
        if role == "C̃'":
            return (role, parts["t"], parts["C̃"])
        p = block.polynomial
        outer = (bool(p.outer), tuple(p.raw_interval), int(p.degree))
        return (role, block.kind, tuple(block.shape), outer, tuple(parts[name] for name in block.operands))


def materialized_record(ops: InnerOperators, outer: list[str]) -> dict:
    """Which operators are matrices: ``W'``, ``C'``, ``C̃'`` and the kinds of the blocks whose outer operator is."""
    return {"W'": isinstance(ops.Wp, MaterializedNodes), "C'": isinstance(ops.Cp, _MATRICES),
            "C̃'": isinstance(ops.Ctp, _MATRICES), "outer": outer}
