"""Extreme eigenvalues and singular values with a *relative* zero threshold.

Every condition number of the paper is a ratio ``λ_max / λ_min+`` (largest
eigenvalue over the smallest *positive* one) of a symmetric positive
semidefinite matrix, or the same for squared singular values.  "Positive" needs
a threshold: an eigenvalue ``λ`` counts as zero when ``λ <= rtol * λ_max``
(default :data:`ZERO_RTOL`).  The threshold is relative so that a matrix and
any positive multiple of it have the same condition number.

Two paths compute the same numbers:

* **dense** (``numpy.linalg.eigvalsh``), exact up to rounding, used when the
  matrix has at most :data:`DENSE_LIMIT` rows;
* **iterative** (ARPACK through ``scipy.sparse.linalg.eigsh``): ``λ_max`` by
  Lanczos, ``λ_min+`` by shift-invert around a tiny negative shift, asking for
  more and more eigenvalues until the first one above the threshold is found.
  Rows and columns that are structurally zero are removed first (their unit
  vectors are exact kernel vectors).  When the caller knows a basis ``N`` of
  (part of) the kernel, ``M + λ_max N Nᵀ`` moves those directions to
  ``λ_max`` so that the smallest eigenvalue of the deflated matrix is
  ``λ_min+`` of ``M``; this is how large kernels (e.g. consensus constraints
  inside a node) are handled.

Both paths agree to about 1e-8 relative on matrices where both apply
(``tests/test_spectral.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla

#: eigenvalues ``<= ZERO_RTOL * λ_max`` are treated as zero.
ZERO_RTOL = 1e-9
#: matrices with at most this many rows use the dense path under ``method="auto"``.
DENSE_LIMIT = 1500
#: largest number of (near-)zero eigenvalues the iterative path will step over.
MAX_KERNEL_ITER = 64
#: relative shift used by shift-invert: sigma = -SHIFT_RTOL * λ_max.
SHIFT_RTOL = 1e-7
#: ARPACK tolerance (relative accuracy of the returned eigenvalues).
ARPACK_TOL = 1e-12


@dataclass(frozen=True)
class Extremes:
    """``lmax`` = largest eigenvalue, ``lmin_pos`` = smallest positive one (0.0 if none)."""

    lmax: float
    lmin_pos: float
    method: str

    @property
    def kappa(self) -> float:
        """``lmax / lmin_pos``; ``inf`` when there is no positive eigenvalue."""
        if self.lmin_pos <= 0.0:
            return float("inf")
        return self.lmax / self.lmin_pos


def _check_square(M, name: str) -> None:
    if M.ndim != 2 or M.shape[0] != M.shape[1]:
        raise ValueError(f"{name}: expected a square matrix, got shape {M.shape}")


def _nonzero_rows(M) -> np.ndarray:
    if sp.issparse(M):
        Mc = sp.csr_matrix(M)
        Mc.eliminate_zeros()
        return np.flatnonzero(np.diff(Mc.indptr) > 0)
    return np.flatnonzero(np.any(M != 0, axis=1))


def _dense_extremes(M, rtol: float) -> Extremes:
    Md = M.toarray() if sp.issparse(M) else np.asarray(M, dtype=float)
    if Md.shape[0] == 0:
        return Extremes(0.0, 0.0, "dense")
    ev = sla.eigvalsh(0.5 * (Md + Md.T))
    lmax = float(ev[-1])
    if lmax <= 0.0:
        return Extremes(0.0, 0.0, "dense")
    pos = ev[ev > rtol * lmax]
    return Extremes(lmax, float(pos.min()), "dense")


def _iterative_lmax(M) -> float:
    n = M.shape[0]
    if n <= 2:
        return float(np.max(np.linalg.eigvalsh(M.toarray() if sp.issparse(M) else M)))
    v0 = np.ones(n) / np.sqrt(n) + 1e-3 * np.random.default_rng(0).standard_normal(n)
    val = spla.eigsh(M, k=1, which="LA", tol=1e-10, ncv=min(n, 48), v0=v0, return_eigenvectors=False)
    return float(val[0])


def _iterative_lmin_pos(M, lmax: float, rtol: float) -> float:
    n = M.shape[0]
    sigma = -SHIFT_RTOL * lmax
    k = 4
    v0 = np.random.default_rng(1).standard_normal(n)
    while True:
        k_eff = min(k, n - 2)
        if k_eff < 1:
            return _dense_extremes(M, rtol).lmin_pos
        vals = spla.eigsh(
            sp.csc_matrix(M), k=k_eff, sigma=sigma, which="LM", tol=ARPACK_TOL,
            v0=v0, return_eigenvectors=False,
        )
        vals = np.sort(vals)
        pos = vals[vals > rtol * lmax]
        if pos.size and pos.size < vals.size:
            # at least one zero and one positive returned: the boundary was found
            return float(pos.min())
        if pos.size == vals.size:
            # no zero eigenvalue among the smallest k: the smallest is λ_min+
            return float(pos.min())
        if k_eff >= min(MAX_KERNEL_ITER, n - 2):
            raise ValueError(
                f"iterative λ_min+: more than {k_eff} zero eigenvalues in a {n}x{n} matrix; "
                "pass a kernel basis (kernel=...) or use method='dense'"
            )
        k *= 2


def sym_extremes(M, *, kernel=None, rtol: float = ZERO_RTOL, method: str = "auto", name: str = "M") -> Extremes:
    """Largest and smallest positive eigenvalue of a symmetric PSD matrix.

    Parameters
    ----------
    M : ndarray or scipy.sparse matrix, shape (k, k), symmetric positive semidefinite.
    kernel : optional (k, r) array or sparse matrix with orthonormal columns spanning
        a subspace of ``ker M`` (deflated, see module docstring).  It is checked:
        ``‖M N‖ <= 1e-8 λ_max`` else ``ValueError``.
    rtol : relative zero threshold.
    method : ``"dense"``, ``"iterative"`` or ``"auto"`` (dense up to :data:`DENSE_LIMIT` rows).
    """
    _check_square(M, name)
    if method not in ("auto", "dense", "iterative"):
        raise ValueError(f"{name}: unknown method {method!r}")
    n = M.shape[0]
    if n == 0:
        return Extremes(0.0, 0.0, "empty")
    data = M.data if sp.issparse(M) else np.asarray(M)
    if not np.all(np.isfinite(data)):
        raise ValueError(f"{name}: non-finite entries")
    use_dense = method == "dense" or (method == "auto" and n <= DENSE_LIMIT)
    if kernel is not None:
        K = kernel
        if K.shape[0] != n:
            raise ValueError(f"{name}: kernel basis has {K.shape[0]} rows, matrix has {n}")
        if use_dense:
            # the dense path finds zero eigenvalues exactly; the basis is only validated
            out = _dense_extremes(M, rtol)
            MK = M @ K
            MK = MK.toarray() if sp.issparse(MK) else MK
            if out.lmax > 0 and np.linalg.norm(MK) > 1e-8 * out.lmax * max(1.0, np.sqrt(K.shape[1])):
                raise ValueError(f"{name}: the supplied kernel basis is not in the kernel (‖M N‖ = {np.linalg.norm(MK):.3e})")
            return out
        lmax = _iterative_lmax(sp.csr_matrix(M))
        MK = M @ K
        MKn = spla.norm(MK) if sp.issparse(MK) else np.linalg.norm(MK)
        if lmax > 0 and MKn > 1e-8 * lmax * max(1.0, np.sqrt(K.shape[1])):
            raise ValueError(f"{name}: the supplied kernel basis is not in the kernel (‖M N‖ = {MKn:.3e})")
        Ks = sp.csr_matrix(K)
        Md = sp.csr_matrix(M) + lmax * (Ks @ Ks.T)
        lmin = _iterative_lmin_pos(Md, lmax, rtol)
        return Extremes(lmax, lmin, "iterative+kernel")
    if use_dense:
        return _dense_extremes(M, rtol)
    Ms = sp.csr_matrix(M)
    rows = _nonzero_rows(Ms)
    if rows.size == 0:
        return Extremes(0.0, 0.0, "iterative")
    if rows.size < n:
        Ms = Ms[rows][:, rows]
        if rows.size <= DENSE_LIMIT and method == "auto":
            return _dense_extremes(Ms, rtol)
    lmax = _iterative_lmax(Ms)
    if lmax <= 0:
        return Extremes(0.0, 0.0, "iterative")
    return Extremes(lmax, _iterative_lmin_pos(Ms, lmax, rtol), "iterative")


def gram(B, side: str | None = None):
    """``BᵀB`` (side="right") or ``BBᵀ`` (side="left"); default: the smaller one."""
    r, c = B.shape
    if side is None:
        side = "left" if r <= c else "right"
    if sp.issparse(B):
        B = sp.csr_matrix(B)
        G = B @ B.T if side == "left" else (B.T @ B)
        return sp.csr_matrix(G), side
    B = np.asarray(B, dtype=float)
    return (B @ B.T if side == "left" else B.T @ B), side


def sv_extremes(B, *, kernel=None, rtol: float = ZERO_RTOL, method: str = "auto", name: str = "B") -> Extremes:
    """``σ_max²(B)`` and ``σ_min+²(B)`` (returned as ``lmax``, ``lmin_pos``).

    Uses the smaller Gram matrix; with ``kernel`` (a basis of part of the right
    kernel of ``B``) it uses ``BᵀB`` so the kernel can be deflated.
    """
    if B.ndim != 2:
        raise ValueError(f"{name}: expected a matrix, got {B.ndim} dimensions")
    if min(B.shape) == 0:
        return Extremes(0.0, 0.0, "empty")
    G, _ = gram(B, side="right" if kernel is not None else None)
    return sym_extremes(G, kernel=kernel, rtol=rtol, method=method, name=f"Gram({name})")


def smallest_eigenvalue(M, *, method: str = "auto") -> float:
    """Smallest eigenvalue (zero included) of a symmetric PSD matrix."""
    n = M.shape[0]
    if method == "dense" or (method == "auto" and n <= DENSE_LIMIT) or n <= 3:
        Md = M.toarray() if sp.issparse(M) else np.asarray(M, dtype=float)
        return float(sla.eigvalsh(0.5 * (Md + Md.T))[0])
    Ms = sp.csr_matrix(M)
    scale = float(abs(Ms).sum(axis=1).max())  # Gershgorin bound on λ_max: only sets the shift
    sigma = -SHIFT_RTOL * scale
    val = spla.eigsh(sp.csc_matrix(M), k=1, sigma=sigma, which="LM", tol=ARPACK_TOL,
                     v0=np.random.default_rng(2).standard_normal(n), return_eigenvectors=False)
    return float(val[0])
