"""Dense spectra of small reformulations: ``spectra="exact"`` and ``constants="exact"``.

What a decentralized method does not know: these numbers replace the lemmas' bounds only when asked
(:mod:`mixbounds.solvers.reformulations`), on operators of at most :data:`EXACT_LIMIT` unknowns.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from mixbounds.bounds.spectral import DENSE_LIMIT, ZERO_RTOL, sym_extremes
from mixbounds.solvers.materialize import operator_matrix

#: largest number of unknowns for the dense ``"exact"`` spectra and constants
EXACT_LIMIT = 3000


def dense_operator(op: Callable, shape: tuple, size: int) -> np.ndarray:
    """Matrix of a linear operator on arrays of ``shape`` (``size`` entries), column by column, symmetrised.

    Parameters
    ----------
    op : callable
        The operator, applied to arrays of ``shape``.
    shape : tuple
        The shape of the arrays ``op`` acts on.
    size : int
        Their number of entries.

    Returns
    -------
    numpy.ndarray
        ``(M + Mᵀ)/2`` of shape ``(size, size)``.

    Raises
    ------
    ValueError
        When ``size`` exceeds :data:`EXACT_LIMIT`.
    """
    if size > EXACT_LIMIT:
        raise ValueError(f"exact spectra: operator of size {size} exceeds EXACT_LIMIT={EXACT_LIMIT}; "
                         "use spectra='lemma'")
    M = operator_matrix(op, shape)
    return 0.5 * (M + M.T)


def extremes(M: np.ndarray, name: str) -> tuple[float, float]:
    """``(λ_min+, λ_max)`` of a dense symmetric PSD matrix."""
    ex = sym_extremes(M, method="dense", name=name)
    return ex.lmin_pos, ex.lmax


def gossip_eigenvalues(W) -> np.ndarray:
    """The positive eigenvalues of the gossip matrix ``W`` (dense, at most ``DENSE_LIMIT`` nodes)."""
    if W.shape[0] > DENSE_LIMIT:
        raise ValueError(f"exact spectra: W has {W.shape[0]} > {DENSE_LIMIT} rows")
    ev = np.linalg.eigvalsh(W.toarray())
    return ev[ev > ZERO_RTOL * ev[-1]]


def normal_eigenvalues(blocks, L: float) -> np.ndarray:
    """The eigenvalues of ``C_iᵀC_i`` over the blocks ``C_i`` above ``ZERO_RTOL · L`` (``L`` their largest)."""
    ev = np.concatenate([np.linalg.eigvalsh((Ci.T @ Ci).toarray()) for Ci in blocks])
    return ev[ev > ZERO_RTOL * L]
