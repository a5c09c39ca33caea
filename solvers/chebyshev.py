"""Chebyshev acceleration (``subsec:chebyshev_acc``, Algorithm ``alg:chebyshev``).

For a symmetric positive semidefinite operator ``M`` whose positive eigenvalues
lie in ``[mu, L]``, Algorithm ``alg:chebyshev`` (Gutknecht & Röllin's
three-term recurrence, printed in ``app:Chebyshev_iteration``) runs ``n`` steps
of the Chebyshev iteration for ``M v = g``::

    ρ = (L − μ)² / 16,   ν = (L + μ) / 2,   δ⁰ = −ν/2,
    p⁰ = −(M v⁰ − g) / ν,                       v¹ = v⁰ + p⁰,
    β^{i−1} = ρ / δ^{i−1},  δ^i = −(ν + β^{i−1}),
    p^i = ((M v^i − g) + β^{i−1} p^{i−1}) / δ^i,  v^{i+1} = v^i + p^i,   i = 1 … n−1.

(The paper writes it for ``M = BᵀB``, ``g = Bᵀb``, ``L = σ_max²(B)``,
``μ = σ_min+²(B)``; here ``M`` is any callable, e.g. ``W`` for gossip, where one
application is one communication round, or ``BᵀB`` applied as one ``B`` and one
``Bᵀ`` product through the counted oracles.)

If ``g = M v*``, the error after ``n`` steps is ``v^n − v* = T̃_n(M)(v⁰ − v*)``
with the normalised residual polynomial

    T̃_n(λ) = T_n((L + μ − 2λ)/(L − μ)) / T_n(θ),   θ = (L + μ)/(L − μ),   T̃_n(0) = 1.

Hence, with ``P(λ) = 1 − T̃_n(λ)`` (``P(0) = 0``, degree ``n``):

* ``apply_P(u) = u − Cheb(v=u, g=0) = P(M) u`` — the preconditioned operator
  (``B → P_B(BᵀB)`` in the paper's notation), ``n`` applications of ``M``;
* ``rhs(g) = Cheb(v=0, g) = P(M) M⁺ g`` — the reformulated right-hand side
  ``b' = P_B(BᵀB)(BᵀB)⁺Bᵀb`` of ``subsec:chebyshev_acc`` (``n − 1`` applications:
  the first product ``M·0 = 0`` is not computed);
* on ``[μ, L]``, ``|T̃_n| <= 1/T_n(θ)``, so every positive eigenvalue of ``P(M)``
  lies in the exact interval ``[1 − 1/T_n(θ), 1 + 1/T_n(θ)]``; both ends are
  attained at ``λ = μ`` and ``λ = L`` (up to parity).  With the default degree
  ``n = ⌈√(L/μ)⌉`` the interval is about ``[0.734, 1.266]``: ``t <= ((√κ−1)/(√κ+1))^{√κ} < e⁻²``
  gives ``1/T_n < 2e⁻²/(1 + e⁻⁴) ≈ 0.2658 < 4/15``, so the paper's ``[11/15, 19/15]``
  (from Salim et al. 2022, §6.3.2) always holds; the interval is computed here,
  never hard-coded.

``1/T_n(θ)`` is evaluated in the log domain, ``1/T_n(θ) = 2t/(1 + t²)`` with
``t = exp(−n·arccosh θ)`` and ``arccosh θ = log1p(x + √(x(2 + x)))``,
``x = 2μ/(L − μ)``, so it neither overflows at degree ≥ 1000 nor loses the small
``x`` to cancellation.  The recurrence itself only involves the bounded
coefficients ``δ^i → −(ν + √(ν² − 4ρ))/2 = −(ν + √(Lμ))/2``; no monomial
coefficients and no values of ``T_n`` are ever formed.

``L == μ`` (all positive eigenvalues equal) is handled exactly: ``ρ = 0``, the
first step already gives ``P(M) = M/L``, ``1/T_n(θ) = 0`` and the interval is
``[1, 1]`` (default degree 1).
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np
import scipy.sparse as sp
from mixbounds.instances.kron_identity import KronIdentity
from scipy.linalg.blas import daxpy, ddot, dscal

#: μ may exceed L by this relative amount (rounding of bounds) and still count as μ = L.
EQUAL_RTOL = 1e-12
#: the scale of the carried direction is folded back into it below this value.
RENORM = 1e-100


def _flat64(a: np.ndarray) -> np.ndarray | None:
    """A 1-D view of a C-contiguous float64 array (for in-place BLAS), else ``None``."""
    if isinstance(a, np.ndarray) and a.dtype == np.float64 and a.flags.c_contiguous and a.flags.writeable:
        return a.reshape(-1)
    return None


#: level-1 BLAS calls are made on chunks of at most this many entries.  OpenBLAS runs
#: ``daxpy`` multi-threaded above 10 000 entries, and its spinning threads made a round
#: 3–10× slower on a loaded 2-core machine; chunks stay single-threaded and in cache.
CHUNK = 8192


def axpy(a: float, x: np.ndarray, y: np.ndarray) -> None:
    """``y += a·x`` in place on flat float64 arrays, chunk by chunk (BLAS ``daxpy``)."""
    n = y.size
    if n <= CHUNK:
        daxpy(x, y, a=a)
        return
    for i in range(0, n, CHUNK):
        daxpy(x[i:i + CHUNK], y[i:i + CHUNK], a=a)


def scal(a: float, y: np.ndarray) -> None:
    """``y *= a`` in place on a flat float64 array, chunk by chunk (BLAS ``dscal``)."""
    n = y.size
    if n <= CHUNK:
        dscal(a, y)
        return
    for i in range(0, n, CHUNK):
        dscal(a, y[i:i + CHUNK])


def dot(x: np.ndarray, y: np.ndarray) -> float:
    """``xᵀy`` of flat float64 arrays, chunk by chunk (single-threaded BLAS ``ddot``)."""
    n = x.size
    if n <= CHUNK:
        return float(ddot(x, y))
    return float(sum(ddot(x[i:i + CHUNK], y[i:i + CHUNK]) for i in range(0, n, CHUNK)))


def _cheb_step(qf, rf, gf, vf, c_r: float, s: float) -> None:
    """``q += c_r (r − g)``; ``v += s q`` — one Chebyshev step, fused per chunk."""
    n = vf.size
    for i in range(0, n, CHUNK):
        j = min(i + CHUNK, n)
        qc = qf[i:j]
        daxpy(rf[i:j], qc, a=c_r)
        if gf is not None:
            daxpy(gf[i:j], qc, a=-c_r)
        daxpy(qc, vf[i:j], a=s)


def _check_interval(L: float, mu: float, name: str) -> tuple[float, float]:
    L, mu = float(L), float(mu)
    if not (np.isfinite(L) and np.isfinite(mu)):
        raise ValueError(f"Chebyshev({name}): spectral bounds must be finite, got L={L}, μ={mu}")
    if mu <= 0:
        raise ValueError(f"Chebyshev({name}): the lower bound μ on the positive eigenvalues must be > 0, got {mu}")
    if mu > L * (1 + EQUAL_RTOL):
        raise ValueError(f"Chebyshev({name}): need μ <= L, got μ={mu} > L={L}")
    return L, mu


def chebyshev_degree(L: float, mu: float) -> int:
    """``⌈√(L/μ)⌉`` (line 2 of ``alg:chebyshev``), at least 1.

    The ratio is rounded down by a relative ``1e-12`` before the ceiling, so that
    ``L/μ = 4·(1 + 1e-15)`` gives 2, not 3.
    """
    L, mu = _check_interval(L, mu, "degree")
    return max(1, int(math.ceil(math.sqrt(max(L / mu, 1.0)) * (1 - EQUAL_RTOL))))


def inverse_chebyshev_T(degree: int, L: float, mu: float) -> float:
    """``1/T_n(θ)`` with ``θ = (L + μ)/(L − μ)``, in the log domain (0 when ``L == μ``)."""
    if degree < 1:
        raise ValueError(f"Chebyshev: degree must be >= 1, got {degree}")
    L, mu = _check_interval(L, mu, "interval")
    if L <= mu:
        return 0.0
    x = 2.0 * mu / (L - mu)  # θ − 1, without cancellation
    acosh_theta = math.log1p(x + math.sqrt(x * (2.0 + x)))
    t = math.exp(-degree * acosh_theta)
    return 2.0 * t / (1.0 + t * t)


def chebyshev_interval(L: float, mu: float, degree: int) -> tuple[float, float]:
    """Exact range ``[1 − 1/T_n(θ), 1 + 1/T_n(θ)]`` of ``P`` on ``[μ, L]``."""
    e = inverse_chebyshev_T(degree, L, mu)
    return 1.0 - e, 1.0 + e


class Chebyshev:
    """Algorithm ``alg:chebyshev`` for ``M`` applied by a callable.

    Parameters
    ----------
    apply_M : callable ``v ↦ M v`` on arrays of any fixed shape (e.g. ``(n, k)``
        node-axis arrays for ``M = W``, flat vectors for ``M = BᵀB``); it must return a
        new array (results are updated in place).  Every call is whatever oracle
        rounds the callable performs; :attr:`applications` counts the calls made
        through this object.
    L, mu : upper bound on ``λ_max(M)`` and lower bound on ``λ_min+(M)`` (what the
        method knows; if the true spectrum leaves ``[μ, L]``, ``P(M)`` leaves the
        interval — nothing here hides that).
    degree : number of steps ``n`` (default :func:`chebyshev_degree`).
    name : used in messages and parameter records.
    """

    def __init__(self, apply_M: Callable[[np.ndarray], np.ndarray], L: float, mu: float,
                 degree: int | None = None, *, name: str = "M"):
        self.L, self.mu = _check_interval(L, mu, name)
        self.name = name
        self.degree = chebyshev_degree(self.L, self.mu) if degree is None else int(degree)
        if self.degree < 1:
            raise ValueError(f"Chebyshev({name}): degree must be >= 1, got {degree}")
        self._apply_M = apply_M
        self.applications = 0
        Lm = max(self.L, self.mu)
        self.rho = (Lm - self.mu) ** 2 / 16.0
        self.nu = (Lm + self.mu) / 2.0
        # coefficients of the recurrence: β^{i−1}, 1/δ^i for i = 1 … n−1
        delta = -self.nu / 2.0
        betas, inv_deltas = [], []
        for _ in range(1, self.degree):
            beta = self.rho / delta
            delta = -(self.nu + beta)
            betas.append(beta)
            inv_deltas.append(1.0 / delta)
        self._betas = tuple(betas)
        self._inv_deltas = tuple(inv_deltas)
        self.interval = chebyshev_interval(self.L, self.mu, self.degree)
        self.inv_T = inverse_chebyshev_T(self.degree, self.L, self.mu)

    def _M(self, v: np.ndarray) -> np.ndarray:
        self.applications += 1
        return self._apply_M(v)

    def iterate(self, v: np.ndarray, g: np.ndarray | None = None, *, v_is_zero: bool = False) -> np.ndarray:
        """``v^n`` of ``alg:chebyshev`` started at ``v`` for ``M v = g`` (``g=None`` means 0).

        ``v_is_zero=True`` skips the product ``M v⁰ = 0`` (used by :meth:`rhs`).
        The input arrays are not modified.

        Implementation note (performance, same iterates): the printed update
        ``p^i = (β^{i−1}/δ^i) p^{i−1} + (1/δ^i)(M v^i − g)`` is carried as
        ``p^i = s_i q^i`` with ``s_i = Π_{j<=i} β^{j−1}/δ^j`` so that a step costs two
        in-place BLAS passes (``q += (1/(δ^i s_i)) r``, ``v += s_i q``) besides the
        product (made chunk by chunk, see :data:`CHUNK`); ``q`` is renormalised (``q ← s q``, ``s ← 1``) whenever ``s`` falls below
        :data:`RENORM` (in particular when ``β = 0``, i.e. ``L = μ``).
        ``tests/test_chebyshev.py`` checks it against a line-by-line transcription.
        """
        # p⁰ = −(M v⁰ − g)/ν ;  v¹ = v⁰ + p⁰
        if v_is_zero:
            if g is None:
                return np.zeros_like(v)
            p = np.multiply(g, 1.0 / self.nu)
        else:
            r = self._M(v)
            if g is not None:
                r = r - g
            rf = _flat64(r)
            if rf is not None and not np.may_share_memory(r, v):  # fresh result: scale in place
                scal(-1.0 / self.nu, rf)
                p = r
            else:
                p = np.multiply(r, -1.0 / self.nu)
        v = v + p
        if not self._betas:
            return v
        qf, vf = _flat64(p), _flat64(v)
        gf = None if g is None else _flat64(np.ascontiguousarray(g, dtype=np.float64))
        s = 1.0
        for beta, inv_delta in zip(self._betas, self._inv_deltas):
            r = self._M(v)
            rf = _flat64(r)
            a = beta * inv_delta  # p^i = a p^{i−1} + (1/δ^i)(M v^i − g)
            if qf is not None and vf is not None and rf is not None and rf.size == qf.size \
                    and (g is None or (gf is not None and gf.size == qf.size)):
                s_new = s * a
                if s_new < RENORM:
                    scal(s_new, qf)
                    s = 1.0
                else:
                    s = s_new
                _cheb_step(qf, rf, gf, vf, inv_delta / s, s)
            else:  # generic arrays: the printed update literally
                if qf is not None and s != 1.0:
                    p *= s
                    s = 1.0
                if g is not None:
                    r = r - g
                p *= beta
                p += r
                p *= inv_delta
                v += p
        return v

    def apply_P(self, u: np.ndarray) -> np.ndarray:
        """``P(M) u = u − Cheb(v=u, g=0)``: ``degree`` applications of ``M``."""
        v = self.iterate(u)
        vf, uf = _flat64(v), _flat64(np.ascontiguousarray(u, dtype=np.float64))
        if vf is not None and uf is not None and vf.size == uf.size:
            scal(-1.0, vf)
            axpy(1.0, uf, vf)
            return v
        return u - v

    def rhs(self, g: np.ndarray) -> np.ndarray:
        """``P(M) M⁺ g = Cheb(v=0, g)`` (``g`` in the range of ``M``): ``degree − 1`` applications."""
        return self.iterate(np.zeros_like(g, dtype=float), g, v_is_zero=True)

    def sparse_P(self, M, nnz_limit: int):
        """``P(M)`` as a sparse matrix for a sparse symmetric ``M``, or ``None`` past ``nnz_limit``.

        The same recurrence as :meth:`apply_P` (same coefficients), run on sparse
        matrices started at the identity: ``V ← V + p`` with ``p⁰ = −M V⁰/ν`` and
        ``p^i = (β^{i−1} p^{i−1} + M V^i)/δ^i``, then ``P(M) = I − V^n``.  No oracle is
        used (the caller counts applications); the fill-in is checked after every
        step and the evaluation abandoned (``None``) once any iterate has more than
        ``nnz_limit`` stored entries.
        """
        if isinstance(M, KronIdentity):  # P(S ⊗ I_K) = P(S) ⊗ I_K: the recurrence on S, K times fewer entries
            small = self.sparse_P(M.S, nnz_limit // M.K)
            return None if small is None else KronIdentity(small, M.K)
        M = sp.csr_matrix(M, dtype=np.float64)
        out = self._matrix_P(M, sp.identity(M.shape[0], dtype=np.float64, format="csr"),
                             lambda X: X.nnz > nnz_limit)
        if out is None:
            return None
        out = out.tocsr()
        out.sum_duplicates()
        out.sort_indices()
        return out

    def dense_P(self, M: np.ndarray) -> np.ndarray:
        """``P(M)`` as a dense matrix for a small dense symmetric ``M``: the recurrence of :meth:`sparse_P` on dense
        matrices (used on the diagonal blocks of a block-diagonal ``M``, :class:`mixbounds.solvers.materialize.
        MaterializedBlocks`)."""
        M = np.asarray(M, dtype=np.float64)
        return self._matrix_P(M, np.eye(M.shape[0]), lambda X: False)

    def _matrix_P(self, M, eye, too_large: Callable):
        """``I − V^n`` of the recurrence started at ``V⁰ = I`` (:meth:`sparse_P`), ``None`` once ``too_large`` says so
        of an iterate."""
        p = M @ eye * (-1.0 / self.nu)
        v = eye + p
        if too_large(v):
            return None
        for beta, inv_delta in zip(self._betas, self._inv_deltas):
            p = (p * beta + M @ v) * inv_delta
            v = v + p
            if too_large(v) or too_large(p):
                return None
        return eye - v

    def polynomial(self, lam) -> np.ndarray:
        """``P(λ)`` at scalar(s) ``λ``, by the same recurrence on a diagonal operator (no oracle use)."""
        lam = np.asarray(lam, dtype=float)
        scalar = Chebyshev(lambda v: lam * v, self.L, self.mu, self.degree, name=self.name)
        return scalar.apply_P(np.ones_like(lam))

    def describe(self) -> dict:
        lo, hi = self.interval
        return {"name": self.name, "degree": self.degree, "L": self.L, "mu": self.mu,
                "interval": [lo, hi], "inv_T": self.inv_T}
