"""Every block of the reformulations (:mod:`mixbounds.solvers.reformulation`) against the paper's ``B`` written out.

For each block kind, the code's ``BᵀB`` (column by column) and ``Bᵀb'`` equal those of ``B`` and ``b'`` built here as
dense matrices from the paper's formulas: coupled ``(A  αW')`` (``app:coupled_cons``), coupled + local
``[[A, αW'], [βC', 0]]`` with ``b' = (b, βc')`` (``sec:mixed_upper``), local ``C``, consensus ``√W``
(``prob:consensus_cons``), shared ``(C̃; γW')`` with ``b' = (c̃, 0)`` (``app:nonind_upper``), identical
``(I⊗C̃'; W')`` (``thm:LI_upper_bound``).  Here ``W' = P_W(W)``, ``C' = P_C(CᵀC)``, ``C̃' = P(C̃ᵀC̃)`` come from the
eigendecompositions (the code runs the recurrence on vectors), ``c' = P_C(CᵀC)(CᵀC)⁺Cᵀc``; without Chebyshev
``W' = W``, ``C' = C``, ``C̃' = C̃``.  Negative control: a ``B`` with the raw operator where the paper puts its
polynomial (or ``W`` for ``√W``, ``CᵀC`` for ``C``) is told apart.
"""

import numpy as np
import pytest
from mixbounds.bounds.spectral import ZERO_RTOL
from mixbounds.solvers import CountedOracles, Reformulation
from mixbounds.solvers.chebyshev import Chebyshev
from mixbounds.solvers.reformulation.exact import dense_operator
from test_reformulations import small

#: ``BᵀB`` and ``Bᵀb'`` by two routes (recurrence on vectors, eigendecomposition) agree to this fraction of their
#: norm: both are rounding of O(1) matrices through polynomials of degree <= 10 on n = 6 nodes (measured <= 2.3e-15)
ROUTES_RTOL = 1e-10
#: a wrong ``B`` (the negative control) is at least this far from the code's, relatively (measured >= 0.72)
WRONG_MIN = 0.1

#: a problem (tests/test_reformulations.py's shapes) with each block kind, and the block's key
KINDS = {"coupled": ("coupled", "x"), "coupled_local": ("coupled_local", "x"), "local": ("mixed_no_A", "x"),
         "consensus": ("consensus", "t"), "shared": ("shared", "t"), "shared_identical": ("shared_identical", "t")}


def _function(S: np.ndarray, f) -> np.ndarray:
    """``f(S)`` of a symmetric matrix by its eigendecomposition (``f`` on the eigenvalues)."""
    ev, V = np.linalg.eigh(S)
    return (V * f(ev)) @ V.T


def _poly(R, name: str, S: np.ndarray) -> np.ndarray:
    """The inner polynomial ``name`` of ``R`` at ``S`` (or ``S`` itself without Chebyshev)."""
    p = R.inner[name]
    return _function(S, lambda ev: Chebyshev(lambda v: v, p.L, p.mu, p.degree).polynomial(ev))


def _rhs_map(R, name: str, S: np.ndarray) -> np.ndarray:
    """``P(S) S⁺`` of the inner polynomial ``name`` (``S``'s kernel sent to 0)."""
    p = R.inner[name]
    top = np.abs(np.linalg.eigvalsh(S)).max()

    def f(ev):
        keep = ev > ZERO_RTOL * top
        out = np.zeros_like(ev)
        out[keep] = Chebyshev(lambda v: v, p.L, p.mu, p.degree).polynomial(ev[keep]) / ev[keep]
        return out

    return _function(S, f)


def paper_B(R, kind: str, wrong: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``(B, b')`` of the block ``kind`` of ``R`` from the paper's formula (module docstring); ``wrong``: the raw
    operator where the paper puts its polynomial (the negative control)."""
    P, n, m, dt, s = R.problem, R.n, R.m, R.dt, R.scalings
    cheb = R.cheb and not wrong
    W = P.W.toarray()
    Wp = _poly(R, "W", W) if cheb and "W" in R.inner else W
    if kind in ("coupled", "coupled_local"):
        top = np.hstack([P.bA.toarray(), s.alpha * np.kron(Wp, np.eye(m))])
        if kind == "coupled":
            return top, P.b_stacked
        C = P.bC.toarray()
        Cp, c_p = (_poly(R, "C", C.T @ C), _rhs_map(R, "C", C.T @ C) @ C.T @ P.c_stacked) if cheb else (C, P.c_stacked)
        bottom = np.hstack([s.beta * Cp, np.zeros((Cp.shape[0], n * m))])
        return np.vstack([top, bottom]), np.concatenate([P.b_stacked, s.beta * c_p])
    if kind == "local":
        C = P.bC.toarray()
        return (C.T @ C, C.T @ P.c_stacked) if wrong else (C, P.c_stacked)
    if kind == "consensus":
        root = W if wrong else _function(W, lambda ev: np.sqrt(np.clip(ev, 0.0, None)))
        return np.kron(root, np.eye(dt)), np.zeros(n * dt)
    zeros = np.zeros(n * dt)
    if kind == "shared":
        return np.vstack([P.bCt.toarray(), s.gamma * np.kron(Wp, np.eye(dt))]), np.concatenate([P.ct_stacked, zeros])
    C0 = P.Ct[0].toarray() if hasattr(P.Ct[0], "toarray") else np.asarray(P.Ct[0])
    ct = P.ct_stacked.reshape(n, -1)
    if cheb:
        Ctp, ctp = _poly(R, "Ct", C0.T @ C0), (_rhs_map(R, "Ct", C0.T @ C0) @ C0.T @ ct.T).T
    else:
        Ctp, ctp = C0, ct
    return np.vstack([np.kron(np.eye(n), Ctp), np.kron(Wp, np.eye(dt))]), np.concatenate([ctp.ravel(), zeros])


def code_normal(R, key: str) -> tuple[np.ndarray, np.ndarray]:
    """The code's ``BᵀB`` (dense, column by column) and ``Bᵀb'`` of block ``key``, as recurrences on fresh oracles."""
    block = R.blocks[key]
    ops = R.operators(CountedOracles(R.problem))
    N = dense_operator(lambda v: block.normal(ops, v), block.shape, int(np.prod(block.shape)))
    return N, np.asarray(block.rhs(ops)).ravel()


def _distance(R, kind: str, wrong: bool) -> float:
    """Relative distance between the code's ``(BᵀB, Bᵀb')`` and the paper's."""
    cls, key = KINDS[kind]
    assert R.blocks[key].kind == kind
    N, rhs = code_normal(R, key)
    B, b = paper_B(R, kind, wrong)
    dN = np.linalg.norm(N - B.T @ B) / np.linalg.norm(B.T @ B)
    scale = max(np.linalg.norm(B.T @ b), np.linalg.norm(b))
    return max(dN, np.linalg.norm(rhs - B.T @ b) / scale if scale > 0 else np.linalg.norm(rhs))


@pytest.mark.parametrize("method", ["apapc", "apapc-nocheb"])
@pytest.mark.parametrize("kind", list(KINDS))
def test_block_is_the_papers_B(kind, method):
    R = Reformulation(small(KINDS[kind][0], seed=2), method=method, materialize=False)
    assert _distance(R, kind, wrong=False) <= ROUTES_RTOL


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_wrong_B_is_told_apart(kind):
    """Negative control: the raw operator in place of the paper's polynomial (``W`` for ``W'``; ``W`` for ``√W``;
    ``CᵀC`` for ``C``) is far from the code's block."""
    R = Reformulation(small(KINDS[kind][0], seed=2), method="apapc", materialize=False)
    assert _distance(R, kind, wrong=True) >= WRONG_MIN
