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
* **banded** (LAPACK bisection through ``scipy.linalg.eigvals_banded``) for sparse
  matrices whose bandwidth after reverse Cuthill–McKee reordering is at most
  :data:`BANDED_LIMIT` (chains, paths and Kronecker products with small factors:
  all worst-case instances); exact like the dense path and fast for 10⁵ rows;
* **iterative** (ARPACK through ``scipy.sparse.linalg.eigsh``): ``λ_max`` by
  Lanczos, ``λ_min+`` by shift-invert around a tiny negative shift, asking for
  more and more eigenvalues until the first one above the threshold is found.
  Rows and columns that are structurally zero are removed first (their unit
  vectors are exact kernel vectors).  When the caller knows a basis ``N`` of
  (part of) the kernel, ``M + λ_max N Nᵀ`` moves those directions to
  ``λ_max`` so that the smallest eigenvalue of the deflated matrix is
  ``λ_min+`` of ``M``; this is how large kernels (e.g. consensus constraints
  inside a node) are handled.  ``N Nᵀ`` is formed explicitly only while it is
  sparse enough (:data:`EXPLICIT_DEFLATION_NNZ`); the consensus line of a large
  graph is deflated as a rank-one operator and solved by Lanczos (or exactly by
  the banded path on ``M`` itself), never as an n×n matrix.

Both paths agree to about 1e-8 relative on matrices where both apply
(``tests/test_spectral.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from mixbounds.bounds.spectra_memo import memo_by_content, watch_settings
from scipy.linalg import eigh_tridiagonal, eigvals_banded
from scipy.linalg.lapack import dpbtrf
from scipy.sparse.csgraph import reverse_cuthill_mckee

#: eigenvalues ``<= ZERO_RTOL * λ_max`` are treated as zero.
ZERO_RTOL = 1e-9
#: matrices with at most this many rows use the dense path under ``method="auto"``.
DENSE_LIMIT = 1500
#: largest number of (near-)zero eigenvalues the iterative path will step over.
MAX_KERNEL_ITER = 64
#: relative shift used by shift-invert: sigma = -SHIFT_RTOL * λ_max.
SHIFT_RTOL = 1e-7
#: largest bandwidth (after RCM) for the banded path, and cap on bandwidth × rows (memory)
BANDED_LIMIT = 256
BANDED_MAX_ENTRIES = 30_000_000
#: sparse matrices above this many rows try the banded path before the dense one
BANDED_MIN = 300
#: singular matrices with bandwidth >= 2 use LAPACK's banded selective solver only up to this size
BANDED_SINGULAR_DENSE = 4000
#: ARPACK tolerance for shift-invert (relative accuracy of the returned eigenvalues).
ARPACK_TOL = 1e-12
#: ARPACK tolerance for λ_max by Lanczos.
LMAX_TOL = 1e-8
#: a kernel basis ``K`` is deflated as the explicit sparse ``K Kᵀ`` (and factored for shift-invert)
#: only while that matrix has at most this many nonzeros (a dense consensus column: n <= 5000);
#: beyond it as a low-rank operator (``_operator_deflated_extremes``)
EXPLICIT_DEFLATION_NNZ = 25_000_000
#: Lanczos iteration cap for the smallest eigenvalues of an operator-deflated matrix
LANCZOS_MAXITER = 200_000
#: a supplied kernel basis ``K`` is accepted when ``‖M K‖_F <= KERNEL_RTOL·λ_max·√(columns of K)``: rounding of the
#: products is ~1e-15 relative; a column with a component c outside the kernel adds at least λ_min+·c to ‖M K‖
KERNEL_RTOL = 1e-8


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


def banded_form(M) -> tuple[np.ndarray, int] | None:
    """Lower banded storage of ``M`` after RCM reordering, or ``None`` if the band is too wide."""
    Ms = sp.csr_matrix(M)
    perm = reverse_cuthill_mckee(Ms, symmetric_mode=True)
    Mp = sp.coo_matrix(Ms[perm][:, perm])
    if Mp.nnz == 0:
        return None
    bw = int(np.max(np.abs(Mp.row - Mp.col)))
    n = Mp.shape[0]
    if bw > BANDED_LIMIT or (bw + 1) * n > BANDED_MAX_ENTRIES:
        return None
    low = Mp.row >= Mp.col
    ab = np.zeros((bw + 1, n))
    ab[Mp.row[low] - Mp.col[low], Mp.col[low]] += Mp.data[low]
    return ab, bw


def _pd(ab: np.ndarray, shift: float) -> bool:
    """Is ``M − shift·I`` positive definite?  (banded Cholesky, LAPACK dpbtrf, O(n b²))."""
    a = ab.copy()
    a[0] -= shift
    _, info = dpbtrf(a, lower=1)
    return info == 0


def _nd(ab: np.ndarray, shift: float) -> bool:
    """Is ``shift·I − M`` positive definite?"""
    a = -ab
    a[0] += shift
    _, info = dpbtrf(a, lower=1)
    return info == 0


def _bisect_geometric(pred, lo: float, hi: float, rel: float = 1e-13) -> float:
    """``pred(lo)`` true, ``pred(hi)`` false (0 < lo < hi): the boundary, to relative ``rel``."""
    for _ in range(200):
        if hi - lo <= rel * hi:
            break
        mid = np.sqrt(lo * hi) if hi > 4 * lo else 0.5 * (lo + hi)
        if pred(mid):
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def _banded_extremes(ab: np.ndarray, rtol: float) -> Extremes | None:
    """λ_max and λ_min+ of a banded symmetric PSD matrix (lower storage ``ab``).

    * bandwidth 1 (tridiagonal): LAPACK bisection per eigenvalue index
      (``eigh_tridiagonal``, O(n) each); λ_min+ by a binary search over indices, so
      a kernel of any dimension costs ``log2(n)`` probes;
    * wider bands: bisection on ``x`` with banded Cholesky tests (``M − xI ≻ 0``,
      ``xI − M ≻ 0``), O(n b²) each, when ``M`` is nonsingular.  A singular wide-band
      matrix returns ``None`` above :data:`BANDED_SINGULAR_DENSE` rows (the caller
      falls back to ARPACK), since LAPACK's banded selective eigensolver allocates
      an n×n matrix.
    """
    n = ab.shape[1]
    bw = ab.shape[0] - 1
    if bw <= 1:
        d = ab[0]
        e = ab[1, : n - 1] if bw == 1 else np.zeros(max(n - 1, 0))

        def eig(k: int) -> float:
            if n == 1:
                return float(d[0])
            return float(eigh_tridiagonal(d, e, eigvals_only=True, select="i", select_range=(k, k))[0])
    else:
        # Gershgorin: every row sum of |M| is at most max|diag| + 2 Σ_k max_j |band_k|
        gersh = float(np.max(np.abs(ab[0])) + 2 * np.sum(np.max(np.abs(ab[1:]), axis=1)))
        lo = gersh * 1e-16
        if gersh <= 0 or _nd(ab, lo):
            return Extremes(0.0, 0.0, "banded")
        lmax = _bisect_geometric(lambda x: not _nd(ab, x), lo, gersh * (1 + 1e-12))
        thr = rtol * lmax
        if _pd(ab, thr):
            lmin = _bisect_geometric(lambda x: _pd(ab, x), thr, lmax)
            return Extremes(lmax, lmin, "banded")
        if n > BANDED_SINGULAR_DENSE:
            return None

        def eig(k: int) -> float:
            return float(eigvals_banded(ab, lower=True, select="i", select_range=(k, k))[0])

    lmax = eig(n - 1)
    if lmax <= 0:
        return Extremes(0.0, 0.0, "banded")
    thr = rtol * lmax
    if eig(0) > thr:
        return Extremes(lmax, eig(0), "banded")
    lo, hi = 0, n - 1  # invariant: λ_lo <= thr < λ_hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if eig(mid) > thr:
            hi = mid
        else:
            lo = mid
    return Extremes(lmax, eig(hi), "banded")


def _tridiagonal_smallest(Ms: sp.csr_matrix) -> float | None:
    """``λ_min`` of a sparse symmetric matrix of bandwidth <= 1 after RCM, exactly; ``None`` if wider."""
    if Ms.nnz == 0:
        return 0.0
    band = banded_form(Ms)
    if band is None or band[1] > 1:
        return None
    ab, bw = band
    if bw == 0:
        return float(np.min(ab[0]))
    return float(eigh_tridiagonal(ab[0], ab[1, :-1], eigvals_only=True, select="i", select_range=(0, 0))[0])


def _iterative_lmax(M) -> float:
    n = M.shape[0]
    if n <= 2:
        return float(np.max(np.linalg.eigvalsh(M.toarray() if sp.issparse(M) else M)))
    v0 = np.ones(n) / np.sqrt(n) + 1e-3 * np.random.default_rng(0).standard_normal(n)
    # For a symmetric matrix the Ritz value's error is bounded by the residual, so tol=1e-8
    # gives λ_max to ~1e-8 relative; tighter tolerances cost many Lanczos restarts on
    # path-like spectra whose top eigenvalues cluster.
    val = spla.eigsh(M, k=1, which="LA", tol=LMAX_TOL, ncv=min(n, 64), v0=v0, return_eigenvectors=False)
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


@memo_by_content()
def sym_extremes(M, *, kernel=None, rtol: float = ZERO_RTOL, method: str = "auto", name: str = "M") -> Extremes:
    """Largest and smallest positive eigenvalue of a symmetric PSD matrix.

    Parameters
    ----------
    M : ndarray or scipy.sparse matrix, shape (k, k), symmetric positive semidefinite.
    kernel : optional (k, r) array or sparse matrix with orthonormal columns spanning
        a subspace of ``ker M`` (deflated, see module docstring).  It is checked:
        ``‖M N‖ <= 1e-8 λ_max`` else ``ValueError``.
    rtol : relative zero threshold.
    method : ``"dense"``, ``"banded"``, ``"iterative"`` or ``"auto"`` (dense up to
        :data:`DENSE_LIMIT` rows, then banded when the band is narrow, else iterative).
    """
    _check_square(M, name)
    if method not in ("auto", "dense", "iterative", "banded"):
        raise ValueError(f"{name}: unknown method {method!r}")
    n = M.shape[0]
    if n == 0:
        return Extremes(0.0, 0.0, "empty")
    data = M.data if sp.issparse(M) else np.asarray(M)
    if not np.all(np.isfinite(data)):
        raise ValueError(f"{name}: non-finite entries")
    use_dense = method == "dense" or (method == "auto" and n <= DENSE_LIMIT)
    if method == "auto" and use_dense and sp.issparse(M) and n > BANDED_MIN and kernel is None:
        band = banded_form(M)
        eb = _banded_extremes(band[0], rtol) if band is not None else None
        if eb is not None:
            return eb
    if method == "banded":
        return _banded_only(M, kernel, rtol, name)
    if kernel is not None:
        return _extremes_with_kernel(M, kernel, use_dense, method, rtol, name)
    if use_dense:
        return _dense_extremes(M, rtol)
    return _sparse_extremes(sp.csr_matrix(M), method, rtol)


def _banded_only(M, kernel, rtol: float, name: str) -> Extremes:
    """``method="banded"``: the banded eigen-solver after RCM, or a ``ValueError`` saying why it does not apply."""
    band = banded_form(M)
    if band is None:
        raise ValueError(f"{name}: bandwidth after RCM exceeds {BANDED_LIMIT}; use another method")
    if kernel is not None:
        raise ValueError(f"{name}: the banded path does not take a kernel basis")
    eb = _banded_extremes(band[0], rtol)
    if eb is None:
        raise ValueError(f"{name}: singular with bandwidth >= 2 and more than {BANDED_SINGULAR_DENSE} rows; use another method")
    return eb


def _extremes_with_kernel(M, K, use_dense: bool, method: str, rtol: float, name: str) -> Extremes:
    """Extremes of ``M`` given a basis ``K`` of (part of) its kernel: validated, then deflated (module docstring)."""
    n = M.shape[0]
    if K.shape[0] != n:
        raise ValueError(f"{name}: kernel basis has {K.shape[0]} rows, matrix has {n}")
    if use_dense and sp.issparse(M) and n > BANDED_MIN and method == "auto":
        Ms = sp.csr_matrix(M)
        band = banded_form(Ms)
        eb = _banded_extremes(band[0], rtol) if band is not None else None
        if eb is not None:
            _check_kernel(Ms, K, eb.lmax, name)
            return Extremes(eb.lmax, eb.lmin_pos, "banded")
    if use_dense:
        # the dense path finds zero eigenvalues exactly; the basis is only validated
        out = _dense_extremes(M, rtol)
        _check_kernel(M, K, out.lmax, name)
        return out
    lmax = _iterative_lmax(sp.csr_matrix(M))
    _check_kernel(M, K, lmax, name)
    if _deflation_nnz(K) > EXPLICIT_DEFLATION_NNZ:
        return _operator_deflated_extremes(sp.csr_matrix(M), K, lmax, rtol, method)
    Ks = sp.csr_matrix(K)
    Md = sp.csr_matrix(M) + lmax * (Ks @ Ks.T)
    band = banded_form(Md) if method == "auto" else None
    eb = _banded_extremes(band[0], rtol) if band is not None else None
    if eb is not None:
        return Extremes(lmax, eb.lmin_pos, "banded+kernel")
    lmin = _iterative_lmin_pos(Md, lmax, rtol)
    return Extremes(lmax, lmin, "iterative+kernel")


def _sparse_extremes(Ms, method: str, rtol: float) -> Extremes:
    """Extremes of a large sparse ``M`` without a kernel basis: zero rows dropped, then banded or iterative."""
    rows = _nonzero_rows(Ms)
    if rows.size == 0:
        return Extremes(0.0, 0.0, "iterative")
    if rows.size < Ms.shape[0]:
        Ms = Ms[rows][:, rows]
        if rows.size <= DENSE_LIMIT and method == "auto":
            return _dense_extremes(Ms, rtol)
    if method == "auto":
        band = banded_form(Ms)
        eb = _banded_extremes(band[0], rtol) if band is not None else None
        if eb is not None:
            return eb
    lmax = _iterative_lmax(Ms)
    if lmax <= 0:
        return Extremes(0.0, 0.0, "iterative")
    return Extremes(lmax, _iterative_lmin_pos(Ms, lmax, rtol), "iterative")


def _deflation_nnz(K) -> int:
    """Upper bound on the nonzeros of ``K Kᵀ``: ``Σ_j nnz(K e_j)²`` (``n²`` for a dense consensus column)."""
    if sp.issparse(K):
        counts = np.diff(sp.csc_matrix(K).indptr)
    else:
        counts = np.count_nonzero(np.asarray(K), axis=0)
    return int(np.sum(counts.astype(np.int64) ** 2))


def _operator_deflated_extremes(M: sp.csr_matrix, K, lmax: float, rtol: float, method: str) -> Extremes:
    """``λ_min+`` of ``M`` with the kernel part ``K`` deflated as a low-rank operator, never as ``K Kᵀ``.

    ``M + λ_max K Kᵀ`` is applied as ``x ↦ M x + λ_max K (Kᵀ x)`` (O(nnz(M) + n·r) per product).
    A narrow band (chains, paths) is solved exactly on ``M`` itself by the banded path, which steps
    over the kernel by counting eigenvalues; otherwise the smallest eigenvalues of the deflated
    operator come from Lanczos (ARPACK, ``which="SA"``), stepping over any kernel directions ``K``
    does not cover as :func:`_iterative_lmin_pos` does.  Shift-invert is used only for a narrow band (its LU
    stays in the band): a sparse LU of a random graph's Laplacian fills in (a 10⁴-node Erdős–Rényi graph did
    not factor in minutes).
    """
    if method == "auto":
        band = banded_form(M)
        eb = _banded_extremes(band[0], rtol) if band is not None else None
        if eb is not None:
            return Extremes(lmax, eb.lmin_pos, "banded")
        if band is not None:
            # narrow band, singular, too many rows for LAPACK's selective banded solver (a ring: bandwidth 2 after
            # RCM): shift-invert's sparse LU stays within the band, O(n) here, and steps over the kernel by value.
            # Lanczos below needs O(n) iterations for a spectral gap of O(1/n²): 484 s on a 10⁴-node ring.
            return Extremes(lmax, _iterative_lmin_pos(M, lmax, rtol), "shift-invert (narrow band)")
    n = M.shape[0]
    Kd = K if sp.issparse(K) else np.asarray(K, dtype=float)

    def matvec(x):
        x = np.asarray(x).ravel()
        return M @ x + lmax * np.asarray(Kd @ (Kd.T @ x)).ravel()

    op = spla.LinearOperator((n, n), matvec=matvec, dtype=float)
    v0 = np.random.default_rng(1).standard_normal(n)
    k = 2
    while True:
        k_eff = min(k, n - 2)
        vals = np.sort(spla.eigsh(op, k=k_eff, which="SA", tol=ARPACK_TOL, ncv=min(n, max(2 * k_eff + 1, 40)),
                                  maxiter=LANCZOS_MAXITER, v0=v0, return_eigenvectors=False))
        pos = vals[vals > rtol * lmax]
        if pos.size:
            return Extremes(lmax, float(pos.min()), "lanczos+kernel-operator")
        if k_eff >= min(MAX_KERNEL_ITER, n - 2):
            raise ValueError(f"iterative λ_min+: more than {k_eff} zero eigenvalues outside the supplied kernel "
                             f"basis of a {n}x{n} matrix; pass a complete kernel basis")
        k *= 2


def _check_kernel(M, K, lmax: float, name: str) -> None:
    """``ValueError`` unless the supplied basis ``K`` lies in ``ker M``: ``‖M K‖_F <= KERNEL_RTOL·λ_max·√(columns)``."""
    MK = M @ K
    MKn = spla.norm(MK) if sp.issparse(MK) else np.linalg.norm(MK)
    if lmax > 0 and MKn > KERNEL_RTOL * lmax * max(1.0, np.sqrt(K.shape[1])):
        raise ValueError(f"{name}: the supplied kernel basis is not in the kernel (‖M N‖ = {MKn:.3e})")


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


@memo_by_content()
def largest_eigenvalue(M, *, method: str = "auto", name: str = "M") -> float:
    """``λ_max`` of a symmetric PSD matrix alone (no ``λ_min+``: it needs no kernel information).

    ``method``: ``"dense"``, ``"iterative"`` (Lanczos, relative accuracy ~:data:`LMAX_TOL`) or
    ``"auto"`` (dense up to :data:`DENSE_LIMIT` rows after dropping zero rows, else iterative).
    """
    _check_square(M, name)
    if method not in ("auto", "dense", "iterative"):
        raise ValueError(f"{name}: unknown method {method!r}")
    if M.shape[0] == 0:
        return 0.0
    Ms = sp.csr_matrix(M)
    if not np.all(np.isfinite(Ms.data)):
        raise ValueError(f"{name}: non-finite entries")
    rows = _nonzero_rows(Ms)
    if rows.size == 0:
        return 0.0
    Ms = Ms[rows][:, rows]
    if method == "dense" or (method == "auto" and rows.size <= DENSE_LIMIT):
        return float(np.linalg.eigvalsh(Ms.toarray())[-1])
    return _iterative_lmax(Ms)


def sv_max_sq(B, *, method: str = "auto", name: str = "B") -> float:
    """``σ_max²(B)`` alone, from the smaller Gram matrix (:func:`largest_eigenvalue`)."""
    if B.ndim != 2:
        raise ValueError(f"{name}: expected a matrix, got {B.ndim} dimensions")
    if min(B.shape) == 0:
        return 0.0
    G, _ = gram(B)
    return largest_eigenvalue(G, method=method, name=f"Gram({name})")


@memo_by_content()
def smallest_eigenvalue(M, *, method: str = "auto") -> float:
    """Smallest eigenvalue (zero included) of a symmetric PSD matrix.

    ``method="auto"`` above :data:`DENSE_LIMIT` rows takes the exact paths first: a diagonal
    matrix gives its smallest entry and a tridiagonal one (after RCM) LAPACK's bisection
    (``eigh_tridiagonal``, index 0), as every worst-case objective block is.  Only wider bands
    go to ARPACK's shift-invert, whose last bits depend on memory alignment inside the
    process (measured: ``diag(1, …, 1, 10⁴, …)`` of 24136 rows gave 0.9999999999999997 or
    0.9999999999999994 depending on earlier allocations), so a point's realized ``μ_f``
    would differ between a fresh Dask worker and a loky worker with history.
    """
    n = M.shape[0]
    if method == "dense" or (method == "auto" and n <= DENSE_LIMIT) or n <= 3:
        Md = M.toarray() if sp.issparse(M) else np.asarray(M, dtype=float)
        return float(sla.eigvalsh(0.5 * (Md + Md.T))[0])
    Ms = sp.csr_matrix(M)
    if method == "auto":
        exact = _tridiagonal_smallest(Ms)
        if exact is not None:
            return exact
    scale = float(abs(Ms).sum(axis=1).max())  # Gershgorin bound on λ_max: only sets the shift
    sigma = -SHIFT_RTOL * scale
    val = spla.eigsh(sp.csc_matrix(M), k=1, sigma=sigma, which="LM", tol=ARPACK_TOL,
                     v0=np.random.default_rng(2).standard_normal(n), return_eigenvectors=False)
    return float(val[0])


# the constants above steer the paths of the memoized functions: part of every memo key
watch_settings(globals())
