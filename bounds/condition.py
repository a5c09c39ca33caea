"""Condition numbers of the paper, each a pure function of the matrices.

Conventions (paper notation → function):

* ``κ_f = L_f / μ_f`` (Assumption ``ass:smooth_and_str_convex_of_f_i``) → :func:`kappa_f`.
* ``κ_W = λ_max(W) / λ_min+(W)`` of the gossip matrix (Assumption ``ass:W``) → :func:`kappa_W`.
  The paper's appendices also use ``L_W = σ_max²(W)`` and ``μ_W = σ_min+²(W)``
  (eq. ``eq:mat_Lmu``); for symmetric PSD ``W`` these are the *squared*
  eigenvalues, so ``L_W / μ_W = κ_W²``: see :func:`gossip_spectrum`.
* ``κ_A`` of a group ``(A_1, …, A_n)`` = ``max_i σ_max²(A_i) / min_i σ_min+²(A_i)``
  (paper, Notation; the block-diagonal matrix) → :func:`group_kappa`.  Zero blocks
  have no positive singular value and are left out of the minimum.
* ``κ̂_B`` and ``κ̂_{Bᵀ}`` (Definition ``def:mixed_condition_number``) →
  :func:`mixed_kappa` with ``transpose=False`` / ``True``.
* ``μ̃_BD``, ``κ̃_BD`` (Definition ``def:projected_condition_number``, with the
  convention ``κ̃ = 1`` when ``μ̃ = 0``) → :func:`projected_kappa`.
* ``L_S = σ_max²(B')/n = λ_max(S_B)`` (proof of ``lem:mixed_coupled_with_local_spectrum``) → :func:`L_S`.

Blocks are numpy arrays or scipy sparse matrices.  Nodes with identical blocks
are computed once (the worst-case instances repeat the same block on a third of
the nodes).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from mixbounds.bounds.guards import SCALE_FLOOR
from mixbounds.bounds.spectra_memo import memo_by_content, watch_settings
from mixbounds.bounds.spectral import ZERO_RTOL, Extremes, smallest_eigenvalue, sv_extremes, sv_max_sq, sym_extremes


def kappa_f(L_f: float, mu_f: float) -> float:
    """``κ_f = L_f / μ_f``; ``ValueError`` unless ``0 < μ_f <= L_f``."""
    if not (np.isfinite(L_f) and np.isfinite(mu_f)):
        raise ValueError(f"kappa_f: non-finite constants L_f={L_f}, mu_f={mu_f}")
    if mu_f <= 0:
        raise ValueError(f"kappa_f: μ_f must be positive (got {mu_f}); κ_f is undefined for μ_f = 0")
    if L_f < mu_f:
        raise ValueError(f"kappa_f: need L_f >= μ_f (got L_f={L_f}, μ_f={mu_f})")
    return float(L_f) / float(mu_f)


def _consensus_basis(n: int) -> np.ndarray:
    return np.full((n, 1), 1.0 / np.sqrt(n))


def gossip_spectrum(W, *, method: str = "auto") -> Extremes:
    """``λ_max(W)`` and ``λ_min+(W)`` of a gossip matrix whose kernel is the consensus line.

    The kernel basis ``1/√n`` is deflated (Assumption ``ass:W``, item 3, which
    :class:`mixbounds.instances.problem.MixedProblem` validates).
    """
    n = W.shape[0]
    if n == 1:
        return Extremes(0.0, 0.0, "trivial")
    return sym_extremes(W, kernel=_consensus_basis(n), method=method, name="W")


def kappa_W(W, *, method: str = "auto") -> float:
    """``κ_W = λ_max(W) / λ_min+(W)`` (Assumption ``ass:W``)."""
    return gossip_spectrum(W, method=method).kappa


def _matrix_key(M) -> str:
    h = hashlib.blake2b(digest_size=16)
    if sp.issparse(M):
        Mc = sp.csr_matrix(M)
        Mc.sum_duplicates()
        h.update(repr(Mc.shape).encode())
        for arr in (Mc.indptr, Mc.indices, Mc.data):
            h.update(np.ascontiguousarray(arr).tobytes())
    else:
        A = np.ascontiguousarray(np.asarray(M, dtype=float))
        h.update(repr(A.shape).encode())
        h.update(A.tobytes())
    return h.hexdigest()


def _is_zero(M) -> bool:
    if sp.issparse(M):
        return M.nnz == 0 or not np.any(M.data)
    return not np.any(M)


@dataclass(frozen=True)
class GroupSpectrum:
    """``L = max_i σ_max²(B_i)`` and ``mu = min_i σ_min+²(B_i)`` over the nonzero blocks."""

    L: float
    mu: float

    @property
    def kappa(self) -> float:
        return self.L / self.mu if self.mu > 0 else float("inf")


def _per_distinct_block(blocks: Sequence, compute) -> list:
    """``compute(i, B_i)`` for every nonzero block, computed once per distinct matrix (in block order)."""
    cache: dict = {}
    out = []
    for i, B in enumerate(blocks):
        if B is None or min(B.shape) == 0 or _is_zero(B):
            continue
        key = _matrix_key(B)
        if key not in cache:
            cache[key] = compute(i, B)
        out.append(cache[key])
    return out


@memo_by_content()
def group_spectrum(blocks: Sequence, *, kernels: Sequence | None = None, method: str = "auto", name: str = "B") -> GroupSpectrum:
    """Extremes of the block-diagonal matrix ``diag(B_1, …, B_n)``.

    ``kernels[i]`` (optional) is a basis of part of ``ker B_i`` used for deflation.
    """
    L, mu = 0.0, float("inf")
    for e in _per_distinct_block(
            blocks, lambda i, B: sv_extremes(B, kernel=None if kernels is None else kernels[i], method=method,
                                             name=f"{name}[{i}]")):
        L = max(L, e.lmax)
        if e.lmin_pos > 0:
            mu = min(mu, e.lmin_pos)
    if mu == float("inf"):
        mu = 0.0
    return GroupSpectrum(L, mu)


def group_L(blocks: Sequence, *, method: str = "auto", name: str = "B") -> float:
    """``L = max_i σ_max²(B_i)`` over the nonzero blocks, without ``σ_min+`` (equal to
    ``group_spectrum(blocks).L``; for the methods that need only the step-size constant: the
    smallest positive singular value of a large block with a large kernel needs a kernel basis)."""
    vals = _per_distinct_block(blocks, lambda i, B: sv_max_sq(B, method=method, name=f"{name}[{i}]"))
    return max(vals, default=0.0)


def group_kappa(blocks: Sequence, **kw) -> float:
    """``κ_B = max_i σ_max²(B_i) / min_i σ_min+²(B_i)`` (paper, Notation)."""
    return group_spectrum(blocks, **kw).kappa


def interaction_matrix(blocks: Sequence, *, transpose: bool = False):
    """``S_B = (1/n) Σ B_i B_iᵀ`` (eq. ``eq:interaction_matrix``), or ``(1/n) Σ B_iᵀ B_i`` if ``transpose``.

    Sparse if any block is sparse, dense otherwise.
    """
    n = len(blocks)
    if n == 0:
        raise ValueError("interaction_matrix: no blocks")
    shapes = {(B.shape[1] if transpose else B.shape[0]) for B in blocks}
    if len(shapes) != 1:
        raise ValueError(
            f"interaction_matrix: blocks must share their {'column' if transpose else 'row'} dimension, got {sorted(shapes)}"
        )
    cache: dict[str, Any] = {}
    counts: dict[str, int] = {}
    for B in blocks:
        key = _matrix_key(B)
        counts[key] = counts.get(key, 0) + 1
        if key not in cache:
            if sp.issparse(B):
                Bs = sp.csr_matrix(B)
                cache[key] = (Bs.T @ Bs) if transpose else (Bs @ Bs.T)
            else:
                Bd = np.asarray(B, dtype=float)
                cache[key] = (Bd.T @ Bd) if transpose else (Bd @ Bd.T)
    any_sparse = any(sp.issparse(B) for B in blocks)
    S: Any = None
    for key, G in cache.items():
        term = counts[key] * G
        S = term if S is None else S + term
    S = S / n
    if any_sparse:
        return sp.csr_matrix(S)
    return np.asarray(S)


def _drop_zero_lines(R, axis: int):
    """Remove structurally zero rows (axis=0) or columns (axis=1); they carry no singular value."""
    if sp.issparse(R):
        R = sp.csr_matrix(R) if axis == 0 else sp.csc_matrix(R)
        R.eliminate_zeros()
        keep = np.flatnonzero(np.diff(R.indptr) > 0)
        return sp.csr_matrix(R[keep] if axis == 0 else R[:, keep])
    keep = np.flatnonzero(np.any(R != 0, axis=1 - axis))
    return R[keep] if axis == 0 else R[:, keep]


def interaction_factor(blocks: Sequence, *, transpose: bool = False):
    """``R`` with ``n·S_B = R Rᵀ`` (``R = (√c_j B_j)_j`` side by side over the *distinct* blocks,
    ``c_j`` their multiplicities), or ``n·S_{Bᵀ} = Rᵀ R`` (blocks stacked) if ``transpose``.

    Zero lines are dropped, so ``σ²(R)/n`` are the nonzero eigenvalues of ``S`` and the
    smaller Gram side of ``R`` can be used: a large kernel of ``S`` (e.g. rows no node
    constrains) never has to be stepped over.
    """
    n = len(blocks)
    if n == 0:
        raise ValueError("interaction_factor: no blocks")
    shapes = {(B.shape[1] if transpose else B.shape[0]) for B in blocks}
    if len(shapes) != 1:
        raise ValueError(
            f"interaction_factor: blocks must share their {'column' if transpose else 'row'} dimension, got {sorted(shapes)}"
        )
    reps: dict[str, object] = {}
    counts: dict[str, int] = {}
    for B in blocks:
        key = _matrix_key(B)
        counts[key] = counts.get(key, 0) + 1
        reps.setdefault(key, B)
    parts = [np.sqrt(counts[k]) * (sp.csr_matrix(B) if sp.issparse(B) else np.asarray(B, dtype=float)) for k, B in reps.items()]
    any_sparse = any(sp.issparse(B) for B in parts)
    if any_sparse:
        R = sp.vstack(parts, format="csr") if transpose else sp.hstack(parts, format="csr")
    else:
        R = np.vstack(parts) if transpose else np.hstack(parts)
    # n·S_{Bᵀ} = RᵀR: drop zero rows of R; n·S_B = R Rᵀ: drop zero columns of R
    return _drop_zero_lines(R, axis=0 if transpose else 1)


@memo_by_content()
def interaction_extremes(blocks: Sequence, *, transpose: bool = False, method: str = "auto") -> Extremes:
    """``λ_max`` and ``λ_min+`` of ``S_B`` (or ``S_{Bᵀ}``) via its factor (see :func:`interaction_factor`)."""
    R = interaction_factor(blocks, transpose=transpose)
    e = sv_extremes(R, method=method, name="S_B factor")
    n = len(blocks)
    return Extremes(e.lmax / n, e.lmin_pos / n, e.method)


def mixed_kappa(blocks: Sequence, *, transpose: bool = False, method: str = "auto") -> float:
    """Mixed condition number (Definition ``def:mixed_condition_number``).

    ``transpose=False``: ``κ̂_B = max_i λ_max(B_i B_iᵀ) / λ_min+((1/n) Σ B_i B_iᵀ)``.
    ``transpose=True``:  ``κ̂_{Bᵀ} = max_i λ_max(B_iᵀ B_i) / λ_min+((1/n) Σ B_iᵀ B_i)``.
    (The numerators agree: ``λ_max(B_i B_iᵀ) = λ_max(B_iᵀ B_i) = σ_max²(B_i)``.)
    """
    num = group_spectrum(blocks, method=method).L
    den = interaction_extremes(blocks, transpose=transpose, method=method).lmin_pos
    if den <= 0:
        return float("inf")
    return num / den


def L_S(blocks: Sequence, *, method: str = "auto") -> float:
    """``L_S = σ_max²(B')/n = λ_max(S_B)`` with ``B' = (B_1 … B_n)``."""
    return interaction_extremes(blocks, method=method).lmax


def _orthonormal_kernel(D, name: str) -> np.ndarray:
    Dd = D.toarray() if sp.issparse(D) else np.asarray(D, dtype=float)
    d = Dd.shape[1]
    if Dd.shape[0] == 0 or not np.any(Dd):
        return np.eye(d)
    _, s, Vt = np.linalg.svd(Dd, full_matrices=True)
    tol = np.sqrt(ZERO_RTOL) * s[0]  # σ <= sqrt(ZERO_RTOL) σ_max  <=>  σ² <= ZERO_RTOL σ_max²
    rank = int(np.sum(s > tol))
    return Vt[rank:].T


@dataclass(frozen=True)
class Projected:
    """``mu`` = μ̃_BD, ``kappa`` = κ̃_BD (1 by convention when μ̃ = 0), ``L`` = max_i λ_max(B_i B_iᵀ)."""

    kappa: float
    mu: float
    L: float


@memo_by_content()
def projected_kappa(
    B_blocks: Sequence,
    D_blocks: Sequence | None,
    *,
    D_kernels: Sequence | None = None,
    method: str = "auto",
) -> Projected:
    """Projected condition number (Definition ``def:projected_condition_number``).

    ``μ̃_BD = (1/n) σ_min+²(B' P_{ker D})`` with ``B' = (B_1 … B_n)`` and
    ``D = diag(D_1, …, D_n)``; ``κ̃_BD = max_i λ_max(B_i B_iᵀ) / μ̃_BD`` if ``μ̃ > 0``, else 1.

    With an orthonormal kernel basis ``N_i`` of ``D_i``, ``B' P_{ker D}`` has the
    same singular values as ``(B_1 N_1 … B_n N_n)``, so
    ``μ̃ = λ_min+(Σ_i (B_i N_i)(B_i N_i)ᵀ) / n``.  The bases are computed by a
    dense SVD of each distinct ``D_i`` unless ``D_kernels`` supplies them
    (sparse allowed; each must have orthonormal columns and satisfy
    ``D_i N_i = 0``, which is checked, and ``dim`` equal to ``dim ker D_i``, the
    caller's responsibility: :func:`kernel_basis_is_complete` checks it).
    ``D_blocks=None`` (or a ``None``/empty block) means ``D_i = 0`` (``N_i = I``).
    """
    n = len(B_blocks)
    L = group_spectrum(B_blocks, method=method).L
    m = B_blocks[0].shape[0]
    kcache: dict[str, object] = {}
    parts: dict[tuple, list] = {}
    for i, B in enumerate(B_blocks):
        if B.shape[0] != m:
            raise ValueError(f"projected_kappa: B[{i}] has {B.shape[0]} rows, B[0] has {m}")
        D = None if D_blocks is None else D_blocks[i]
        bkey = _matrix_key(B)
        key: tuple[str, str | None]
        if D is None or min(D.shape) == 0 or _is_zero(D):
            key = (bkey, None)
            if key not in parts:
                parts[key] = [B, 0]
        else:
            if D.shape[1] != B.shape[1]:
                raise ValueError(f"projected_kappa: D[{i}] has {D.shape[1]} columns, B[{i}] has {B.shape[1]}")
            dkey = _matrix_key(D)
            key = (bkey, dkey)
            if key not in parts:
                if D_kernels is not None and D_kernels[i] is not None:
                    N = D_kernels[i]
                    DN = D @ N
                    DNn = float(spla.norm(DN) if sp.issparse(DN) else np.linalg.norm(DN))  # Frobenius, never densified
                    scale = float(spla.norm(D) if sp.issparse(D) else np.linalg.norm(D))  # Frobenius >= σ_max
                    if DNn > 1e-8 * max(scale, SCALE_FLOOR) * max(1.0, np.sqrt(N.shape[1])):
                        raise ValueError(f"projected_kappa: D_kernels[{i}] is not in ker D[{i}] (‖D N‖ = {DNn:.3e})")
                else:
                    if dkey not in kcache:
                        kcache[dkey] = _orthonormal_kernel(D, f"D[{i}]")
                    N = kcache[dkey]
                parts[key] = [B @ N, 0]
        parts[key][1] += 1
    # n μ̃ = σ_min+²(B' P_ker D) = λ_min+(Σ_i (B_i N_i)(B_i N_i)ᵀ) = σ_min+²(F), F = (√c_j B_j N_j)_j
    blocks = [np.sqrt(c) * (sp.csr_matrix(BN) if sp.issparse(BN) else np.asarray(BN, dtype=float)) for BN, c in parts.values()]
    F = sp.hstack(blocks, format="csr") if any(sp.issparse(b) for b in blocks) else np.hstack(blocks)
    F = _drop_zero_lines(F, axis=1)
    e = sv_extremes(F, method=method, name="B'P_kerD") if min(F.shape) else None
    # the zero threshold is relative to the B group's scale (n L), not to F's own largest value:
    # when B'P_ker D = 0 exactly, F's entries are rounding noise and its "λ_min+" would be ~1e-33
    mu = 0.0 if (e is None or e.lmax <= ZERO_RTOL * n * L) else e.lmin_pos / n
    if mu <= 0:
        return Projected(1.0, 0.0, L)
    return Projected(L / mu, mu, L)


def kernel_basis_is_complete(D, N, *, method: str = "auto") -> bool:
    """``True`` iff the columns of ``N`` lie in ``ker D`` and span all of it.

    Then ``DᵀD + λ_max(DᵀD) N Nᵀ`` is nonsingular: its smallest eigenvalue is
    above the zero threshold.
    """
    G = (sp.csr_matrix(D).T @ sp.csr_matrix(D)) if sp.issparse(D) else np.asarray(D).T @ np.asarray(D)
    e = sym_extremes(G, kernel=N, method=method, name="DᵀD")  # also checks D N = 0
    Ns = sp.csr_matrix(N) if sp.issparse(N) else np.asarray(N)
    Gd = G + e.lmax * (Ns @ Ns.T)
    return smallest_eigenvalue(Gd, method=method) > ZERO_RTOL * e.lmax


# the constants above steer the paths of the memoized functions: part of every memo key
watch_settings(globals())
