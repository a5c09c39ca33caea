"""Counted oracles: the only way a solver touches a problem's data.

Counting follows the class of algorithms of Definition ``def:foda`` and docs/design.md
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

:class:`OracleSurface` is the counted-oracle surface a method sees, declared once: :class:`CountedOracles` (the
problem's own counters), :class:`~mixbounds.solvers.regularized.DelegatingOracles` (a view's, counted on the
original's) and :class:`mixbounds.methods.MethodOracles` (a user's method's) all satisfy it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np
import scipy.sparse as sp
from mixbounds.bounds.concepts import ORACLES, Oracle
from mixbounds.bounds.guards import SCALE_FLOOR
from mixbounds.instances.kron_identity import KronIdentity, kron_identity
from mixbounds.instances.kron_identity import canonical_csr as _canonical

if TYPE_CHECKING:  # pragma: no cover
    from mixbounds.instances.problem import MixedProblem


try:  # scipy's CSR kernels: `A @ x` spends ~10 µs per call in dispatch and checks, which
    # dominates the millions of small products of nested Chebyshev polynomials
    from scipy.sparse._sparsetools import csr_matvec as _csr_matvec
    from scipy.sparse._sparsetools import csr_matvecs as _csr_matvecs
except ImportError:  # pragma: no cover - a future scipy without the private module
    _csr_matvec = _csr_matvecs = None


def check_max_calls(max_calls: int | None, method: str) -> None:
    """``max_calls`` is ``None`` (no call budget) or a positive integer (a run stops with
    ``reason="budget"`` once some oracle has been called that many times)."""
    if max_calls is not None and not (isinstance(max_calls, (int, np.integer)) and max_calls > 0):
        raise ValueError(f"{method}: max_calls must be a positive integer or None, got {max_calls!r}")


def calls_exhausted(counts, max_calls: int | None) -> bool:
    """The call budget: some oracle has been called ``>= max_calls`` times (``counts`` in :data:`ORACLES` order)."""
    return max_calls is not None and max(counts) >= max_calls



#: a factored operator must reproduce the CSR product on a probe vector to this relative distance (it gives the same
#: floats on scipy's kernels; a wrong factored product would otherwise only show as runs that never converge)
FACTORED_PROBE_RTOL = 1e-12


def _operator(M):
    """The canonical CSR form of ``M``, or its factored form ``S ⊗ I_K`` when it is one
    (:mod:`mixbounds.instances.kron_identity`: the same products, faster), checked against the CSR product on a probe
    vector (``RuntimeError`` when they differ: a defect of the factored product, never a property of the instance)."""
    M = _canonical(M)
    kr = kron_identity(M)
    if kr is None:
        return M
    probe = np.random.default_rng(0).standard_normal(M.shape[1])
    ref, got = spmv(M, probe), kr.matvec(probe)
    if not np.linalg.norm(got - ref) <= FACTORED_PROBE_RTOL * max(np.linalg.norm(ref), SCALE_FLOOR):
        raise RuntimeError(f"factored product S ⊗ I_{kr.K} of a {M.shape[0]}×{M.shape[1]} matrix differs from its CSR "
                           f"product (relative distance {np.linalg.norm(got - ref) / max(np.linalg.norm(ref), SCALE_FLOOR):.2e})")
    return kr


def spmv(M, x: np.ndarray) -> np.ndarray:
    """``M @ x`` for a CSR ``M`` and a 1-D or 2-D ``x`` (rows = ``M``'s columns).

    Uses scipy's kernels directly when ``M`` is a plain ``csr_matrix`` and the factored product when it is a
    :class:`~mixbounds.instances.kron_identity.KronIdentity`; anything else (e.g. the counting proxies of the
    tests) goes through ``@``.
    """
    if type(M) is KronIdentity:
        return M.matvec(x)
    if _csr_matvec is None or type(M) is not sp.csr_matrix:
        return M @ x
    x = np.ascontiguousarray(x, dtype=np.float64)
    r, c = M.shape
    if x.ndim == 1:
        y = np.zeros(r)
        _csr_matvec(r, c, M.indptr, M.indices, M.data, x, y)
        return y
    y = np.zeros((r, x.shape[1]))
    _csr_matvecs(r, c, x.shape[1], M.indptr, M.indices, M.data, x.ravel(), y.ravel())
    return y


@runtime_checkable
class OracleSurface(Protocol):
    """The counted operators a method may call, each call one round at every node (Definition ``def:foda``).

    Shapes: ``u`` a u-layout vector; ``x`` flat of length ``Σ d_i``; ``Y`` of shape ``(n, m)`` (``comm``: ``(n,)``
    or ``(n, k)``); ``X̃`` of shape ``(n, d̃)``; ``v`` the stacked ``C_i x_i`` (or ``C̃_i x̃_i``).  The counters
    themselves are not part of the surface: a user's method sees the operators only.
    """

    def grad(self, u: np.ndarray) -> np.ndarray:
        """``(∇f_i)_i`` at ``u``; one ``grad``."""
        ...

    def A(self, x: np.ndarray) -> np.ndarray:
        """``(A_i x_i)_i`` as ``(n, m)``; one ``A``."""
        ...

    def AT(self, Y: np.ndarray) -> np.ndarray:
        """``(A_iᵀ y_i)_i`` as flat x; one ``A``."""
        ...

    def C(self, x: np.ndarray) -> np.ndarray:
        """``(C_i x_i)_i`` stacked; one ``C``."""
        ...

    def CT(self, v: np.ndarray) -> np.ndarray:
        """``(C_iᵀ v_i)_i`` as flat x; one ``C``."""
        ...

    def Ct(self, Xt: np.ndarray) -> np.ndarray:
        """``(C̃_i x̃_i)_i`` stacked; one ``Ct``."""
        ...

    def CtT(self, v: np.ndarray) -> np.ndarray:
        """``(C̃_iᵀ v_i)_i`` as ``(n, d̃)``; one ``Ct``."""
        ...

    def comm(self, Y: np.ndarray) -> np.ndarray:
        """``W @ Y`` along the node axis; one ``comm``."""
        ...


class CountedOracles:
    """Counted access to a :class:`~mixbounds.instances.problem.MixedProblem`.

    Vectors: ``x`` flat of length ``Σ d_i``; ``X̃`` of shape ``(n, d̃)``; ``Y`` of shape
    ``(n, m)`` for the coupled-constraint space; ``u`` the u-layout vector.
    """

    def __init__(self, problem: "MixedProblem"):
        self.problem = problem
        self.n = problem.n
        self.counts = {k: 0 for k in ORACLES}
        self._W = _canonical(problem.W)
        self._obj = problem.objective
        if problem.A is not None:
            self._bA = _operator(problem.bA)
            self._bAT = _operator(problem.bA.T)
            self._m = problem.m
        if problem.C is not None:
            self._bC = _operator(problem.bC)
            self._bCT = _operator(problem.bC.T)
        if problem.Ct is not None:
            self._bCt = _operator(problem.bCt)
            self._bCtT = _operator(problem.bCt.T)

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
        self.counts[Oracle.GRAD] += 1
        return self._obj.grad(u)

    def A(self, x: np.ndarray) -> np.ndarray:
        """``(A_i x_i)_i`` as an ``(n, m)`` array; one ``A``."""
        self._need("_bA", "coupled constraint A")
        self.counts[Oracle.A] += 1
        return spmv(self._bA, x).reshape(self.n, self._m)

    def AT(self, Y: np.ndarray) -> np.ndarray:
        """``(A_iᵀ y_i)_i`` as flat x; one ``A``."""
        self._need("_bA", "coupled constraint A")
        self.counts[Oracle.A] += 1
        return spmv(self._bAT, np.ravel(Y))

    def C(self, x: np.ndarray) -> np.ndarray:
        """``(C_i x_i)_i`` stacked; one ``C``."""
        self._need("_bC", "local constraints C")
        self.counts[Oracle.C] += 1
        return spmv(self._bC, x)

    def CT(self, v: np.ndarray) -> np.ndarray:
        """``(C_iᵀ v_i)_i`` as flat x; one ``C``."""
        self._need("_bC", "local constraints C")
        self.counts[Oracle.C] += 1
        return spmv(self._bCT, v)

    def Ct(self, Xt: np.ndarray) -> np.ndarray:
        """``(C̃_i x̃_i)_i`` stacked; one ``Ct``."""
        self._need("_bCt", "shared-variable constraints C̃")
        self.counts[Oracle.CT] += 1
        return spmv(self._bCt, np.ravel(Xt))

    def CtT(self, v: np.ndarray) -> np.ndarray:
        """``(C̃_iᵀ v_i)_i`` as an ``(n, d̃)`` array; one ``Ct``."""
        self._need("_bCt", "shared-variable constraints C̃")
        self.counts[Oracle.CT] += 1
        return spmv(self._bCtT, v).reshape(self.n, -1)

    def comm(self, Y: np.ndarray) -> np.ndarray:
        """``W @ Y`` along the node axis (``Y`` of shape ``(n,)`` or ``(n, k)``); one ``comm``."""
        Y = np.asarray(Y)
        if Y.shape[0] != self.n:
            raise ValueError(f"comm: first axis must be the node axis of length {self.n}, got shape {Y.shape}")
        self.counts[Oracle.COMM] += 1
        return spmv(self._W, Y)
