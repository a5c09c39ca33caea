"""Counted oracles: the only way a solver touches a problem's data.

Counting follows the class of algorithms of Definition ``def:foda`` and DESIGN.md
("Oracle accounting"): one *round* of an oracle is the operation done at every
node in parallel.

====== =====================================================================
name   one count is
====== =====================================================================
grad   ``∇f_i`` (a subgradient for nonsmooth ``f_i``) evaluated at every node
A      one multiplication by ``A = diag(A_i)`` **or** by ``Aᵀ`` (all nodes)
C      one multiplication by ``C = diag(C_i)`` or ``Cᵀ``
Ct     one multiplication by ``C̃ = diag(C̃_i)`` or ``C̃ᵀ``
comm   one multiplication by ``W`` along the node axis (any number of columns)
====== =====================================================================

Node states are arrays whose first axis is the node axis; ``W`` is applied as
the sparse product ``W @ Y`` (``Y`` of shape ``(n, k)``), never as ``kron(W, I)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from instances.problem import MixedProblem

ORACLES = ("grad", "A", "C", "Ct", "comm")


class CountedOracles:
    """Counted access to a :class:`~instances.problem.MixedProblem`.

    Vectors: ``x`` flat of length ``Σ d_i``; ``X̃`` of shape ``(n, d̃)``; ``Y`` of shape
    ``(n, m)`` for the coupled-constraint space; ``u`` the u-layout vector.
    """

    def __init__(self, problem: "MixedProblem"):
        self.problem = problem
        self.n = problem.n
        self.counts = {k: 0 for k in ORACLES}
        self._W = problem.W
        self._obj = problem.objective
        if problem.A is not None:
            self._bA = problem.bA
            self._bAT = problem.bA.T.tocsr()
            self._m = problem.m
        if problem.C is not None:
            self._bC = problem.bC
            self._bCT = problem.bC.T.tocsr()
        if problem.Ct is not None:
            self._bCt = problem.bCt
            self._bCtT = problem.bCt.T.tocsr()

    # -- bookkeeping ---------------------------------------------------------
    def snapshot(self) -> dict[str, int]:
        """A copy of the counters."""
        return dict(self.counts)

    def reset(self) -> None:
        for k in self.counts:
            self.counts[k] = 0

    def _need(self, attr: str, what: str) -> None:
        if not hasattr(self, attr):
            raise ValueError(f"CountedOracles: the problem has no {what}")

    # -- oracles -------------------------------------------------------------
    def grad(self, u: np.ndarray) -> np.ndarray:
        """``∇F(u)`` = (∇f_i at every node); one ``grad`` round."""
        self.counts["grad"] += 1
        return self._obj.grad(u)

    def A(self, x: np.ndarray) -> np.ndarray:
        """``(A_i x_i)_i`` as an ``(n, m)`` array; one ``A``."""
        self._need("_bA", "coupled constraint A")
        self.counts["A"] += 1
        return (self._bA @ x).reshape(self.n, self._m)

    def AT(self, Y: np.ndarray) -> np.ndarray:
        """``(A_iᵀ y_i)_i`` as flat x; one ``A``."""
        self._need("_bA", "coupled constraint A")
        self.counts["A"] += 1
        return self._bAT @ np.ravel(Y)

    def C(self, x: np.ndarray) -> np.ndarray:
        """``(C_i x_i)_i`` stacked; one ``C``."""
        self._need("_bC", "local constraints C")
        self.counts["C"] += 1
        return self._bC @ x

    def CT(self, v: np.ndarray) -> np.ndarray:
        """``(C_iᵀ v_i)_i`` as flat x; one ``C``."""
        self._need("_bC", "local constraints C")
        self.counts["C"] += 1
        return self._bCT @ v

    def Ct(self, Xt: np.ndarray) -> np.ndarray:
        """``(C̃_i x̃_i)_i`` stacked; one ``Ct``."""
        self._need("_bCt", "shared-variable constraints C̃")
        self.counts["Ct"] += 1
        return self._bCt @ np.ravel(Xt)

    def CtT(self, v: np.ndarray) -> np.ndarray:
        """``(C̃_iᵀ v_i)_i`` as an ``(n, d̃)`` array; one ``Ct``."""
        self._need("_bCt", "shared-variable constraints C̃")
        self.counts["Ct"] += 1
        return (self._bCtT @ v).reshape(self.n, -1)

    def comm(self, Y: np.ndarray) -> np.ndarray:
        """``W @ Y`` along the node axis (``Y`` of shape ``(n,)`` or ``(n, k)``); one ``comm``."""
        Y = np.asarray(Y)
        if Y.shape[0] != self.n:
            raise ValueError(f"comm: first axis must be the node axis of length {self.n}, got shape {Y.shape}")
        self.counts["comm"] += 1
        return self._W @ Y
