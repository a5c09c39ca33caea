"""Problem (P) of the paper (``prob:opt_mixed_constraints_intro``)::

    min Σ_i f_i(x_i, x̃)   s.t.  Σ_i (A_i x_i − b_i) = 0,   C_i x_i = c_i,   C̃_i x̃ = c̃_i,

over a network with gossip matrix ``W`` (Assumption ``ass:W``).  Any of the three
constraint groups may be absent; the paper's special cases are this object with
blocks left out (:attr:`MixedProblem.problem_class`).

Validation happens at construction and raises ``ValueError`` naming the node,
the matrix and the violated assumption.  Nothing is changed silently: inputs are
copied into sparse/float form, never repaired.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Sequence

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
import scipy.sparse.linalg as spla
from mixbounds.bounds import spectral
from mixbounds.bounds.concepts import Matrix, Structure
from mixbounds.bounds.spectral import DENSE_LIMIT, LMAX_TOL, ZERO_RTOL
from mixbounds.instances.layout import Layout
from mixbounds.instances.objectives import Objective

#: relative tolerance for symmetry of W and for W·1 = 0.
W_RTOL = 1e-10
#: Lanczos tolerance for the smallest eigenvalue of a large W off the consensus line (relative; the checks
#: compare it with ZERO_RTOL·λ_max = 1e-9·λ_max only through its sign and size, far above this)
W_LANCZOS_TOL = 1e-10
#: relative residual allowed in the range conditions (Σb_i ∈ range(A'), c_i ∈ range(C_i), …).
RANGE_RTOL = 1e-7

PROBLEM_CLASSES: tuple[Structure, ...] = tuple(Structure)


def _as_matrix(M, where: str) -> sp.csr_matrix:
    try:
        S = sp.csr_matrix(M, dtype=float)
    except Exception as exc:  # noqa: BLE001 - re-raised with context
        raise ValueError(f"{where}: not a matrix ({exc})") from exc
    if S.ndim != 2:
        raise ValueError(f"{where}: expected a 2-D matrix")
    if S.nnz and not np.all(np.isfinite(S.data)):
        raise ValueError(f"{where}: non-finite entries")
    return S


def _as_vector(v, length: int, where: str) -> np.ndarray:
    a = np.asarray(v, dtype=float).ravel()
    if a.shape != (length,):
        raise ValueError(f"{where}: expected length {length}, got {a.size}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{where}: non-finite entries")
    return a


def _range_residual(M: sp.csr_matrix, v: np.ndarray) -> float:
    """Relative residual ``min_x ‖M x − v‖ / ‖v‖`` (0 if v = 0)."""
    nv = np.linalg.norm(v)
    if nv == 0:
        return 0.0
    if M.nnz == 0:
        return 1.0
    if M.shape[0] * M.shape[1] <= 4_000_000:
        Md = M.toarray()
        x, *_ = np.linalg.lstsq(Md, v, rcond=None)
        return float(np.linalg.norm(Md @ x - v) / nv)
    sol = spla.lsqr(M, v, atol=1e-14, btol=1e-14, iter_lim=20 * max(M.shape))
    return float(np.linalg.norm(M @ sol[0] - v) / nv)


def _extremes_large(W: sp.csr_matrix) -> tuple[float, float, float]:
    """``(λ_1, λ_2, λ_max)`` of a large ``W`` with ``W·1 = 0`` (for the checks of Assumption ``ass:W``).

    Narrow band after reverse Cuthill–McKee (paths, rings, grids): LAPACK's banded solver, exact and O(n·band²),
    for all three (ARPACK's λ_max of a 10⁴-node ring took 59 s: its top eigenvalues cluster within O(1/n²)).
    Otherwise λ_max by Lanczos to :data:`~mixbounds.bounds.spectral.LMAX_TOL` (it only scales the thresholds), and
    (shift-invert's sparse LU of a random graph fills in: a 10⁴-node Erdős–Rényi W did not factor in
    minutes) the smallest eigenvalue ``μ`` of ``W`` on ``1⊥`` from Lanczos on ``W + λ_max·11ᵀ/n`` applied
    as an operator (the consensus direction, an eigenvector of eigenvalue 0, moved to ``λ_max``): the two
    smallest are then ``min(0, μ)`` and ``max(0, μ)``.
    """
    n = W.shape[0]
    band = spectral.banded_form(W)  # None when wider than spectral.BANDED_LIMIT (or too many entries)
    if band is not None:
        ab = band[0]
        ev = sla.eigvals_banded(ab, lower=True, select="i", select_range=(0, 1), check_finite=False)
        top = sla.eigvals_banded(ab, lower=True, select="i", select_range=(n - 1, n - 1), check_finite=False)
        return float(ev[0]), float(ev[1]), float(top[0])
    # a fixed start vector: ARPACK's own draws continue from earlier calls in the process
    lmax = float(spla.eigsh(W, k=1, which="LA", tol=LMAX_TOL, v0=np.random.default_rng(0).standard_normal(n),
                            return_eigenvectors=False)[0])
    op = spla.LinearOperator((n, n), matvec=lambda x: W @ np.ravel(x) + lmax * np.mean(x), dtype=float)
    mu = float(spla.eigsh(op, k=1, which="SA", tol=W_LANCZOS_TOL, v0=np.random.default_rng(1).standard_normal(n),
                          return_eigenvectors=False)[0])
    return min(0.0, mu), max(0.0, mu), lmax


def _read_only(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


@dataclass(frozen=True, eq=False)
class MixedProblem:
    """Data of problem (P).

    Parameters
    ----------
    W : (n, n) gossip matrix (sparse or dense).
    objective : :class:`mixbounds.instances.objectives.Objective` on the u-layout of ``layout``.
    layout : sizes ``d_i`` of the local variables and ``d̃`` of the shared one.
    A, b : per-node ``A_i`` (m × d_i) and ``b_i`` (m,), or ``None`` (no coupled constraint).
    C, c : per-node ``C_i`` (p_i × d_i) and ``c_i``, or ``None`` (no local constraints).
    Ct, ct : per-node ``C̃_i`` (p̃_i × d̃) and ``c̃_i``, or ``None`` (no shared-variable constraints).
    edges : optional (n, n) adjacency pattern of the network; when given, Assumption
        ``ass:W`` item 2 (``W_ij ≠ 0`` iff ``i = j`` or ``(i, j) ∈ E``) is checked against it.
    C_kernels : optional per-node orthonormal bases of ``ker C_i`` (used by the
        condition-number code for large blocks; checked there).
    name, meta : free description carried into ``instance.json``.
    """

    W: Any
    objective: Objective
    layout: Layout
    A: Sequence | None = None
    b: Sequence | None = None
    C: Sequence | None = None
    c: Sequence | None = None
    Ct: Sequence | None = None
    ct: Sequence | None = None
    edges: Any = None
    C_kernels: Sequence | None = None
    name: str = "problem"
    meta: dict = field(default_factory=dict)

    def __post_init__(self):
        set_ = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731
        lay = self.layout
        n = lay.n
        if n < 1:
            raise ValueError("MixedProblem: need at least one node")
        W = _as_matrix(self.W, "W (gossip matrix)")
        if W.shape != (n, n):
            raise ValueError(f"W (gossip matrix): shape {W.shape}, expected ({n}, {n}) for {n} nodes")
        set_("W", W)
        self._validate_W()
        if self.objective.layout != lay:
            raise ValueError("objective: its layout (d_i, d̃) differs from the problem's")
        L, mu = self.objective.L, self.objective.mu
        if self.objective.smooth:
            if L is None or not np.isfinite(L) or L <= 0:
                raise ValueError(f"objective: smoothness constant L_f must be positive and finite, got {L}")
            if mu < 0 or mu > L * (1 + 1e-12):
                raise ValueError(f"objective: need 0 <= μ_f <= L_f (Assumption ass:smooth_and_str_convex_of_f_i), got μ_f={mu}, L_f={L}")
        else:
            if self.objective.M is not None and not (self.objective.M > 0):
                raise ValueError(f"objective: subgradient bound M_f must be positive, got {self.objective.M}")
            if mu < 0:
                raise ValueError(f"objective: μ_f must be non-negative, got {mu}")

        # coupled constraints
        if (self.A is None) != (self.b is None):
            raise ValueError("A, b: give both or neither (coupled constraint Σ(A_i x_i − b_i) = 0)")
        if self.A is not None:
            if len(self.A) != n or len(self.b) != n:
                raise ValueError(f"A, b: need one block per node ({n}), got {len(self.A)} and {len(self.b)}")
            A = tuple(_as_matrix(Ai, f"node {i}: A_{i}") for i, Ai in enumerate(self.A))
            m = A[0].shape[0]
            for i, Ai in enumerate(A):
                if Ai.shape != (m, lay.d[i]):
                    raise ValueError(f"node {i}: A_{i} has shape {Ai.shape}, expected ({m}, d_{i}={lay.d[i]}) (all A_i share m rows)")
            b = tuple(_as_vector(bi, m, f"node {i}: b_{i}") for i, bi in enumerate(self.b))
            set_(Matrix.A.value, A)
            set_("b", b)
        # local constraints
        if (self.C is None) != (self.c is None):
            raise ValueError("C, c: give both or neither (local constraints C_i x_i = c_i)")
        if self.C is not None:
            if len(self.C) != n or len(self.c) != n:
                raise ValueError(f"C, c: need one block per node ({n})")
            C = tuple(_as_matrix(Ci, f"node {i}: C_{i}") for i, Ci in enumerate(self.C))
            for i, Ci in enumerate(C):
                if Ci.shape[1] != lay.d[i]:
                    raise ValueError(f"node {i}: C_{i} has {Ci.shape[1]} columns, expected d_{i}={lay.d[i]}")
            c = tuple(_as_vector(ci, C[i].shape[0], f"node {i}: c_{i}") for i, ci in enumerate(self.c))
            set_(Matrix.C.value, C)
            set_("c", c)
        # shared-variable constraints
        if (self.Ct is None) != (self.ct is None):
            raise ValueError("Ct, ct: give both or neither (shared-variable constraints C̃_i x̃ = c̃_i)")
        if self.Ct is not None:
            if len(self.Ct) != n or len(self.ct) != n:
                raise ValueError(f"Ct, ct: need one block per node ({n})")
            Ct = tuple(_as_matrix(Ci, f"node {i}: C̃_{i}") for i, Ci in enumerate(self.Ct))
            for i, Ci in enumerate(Ct):
                if Ci.shape[1] != lay.dt:
                    raise ValueError(f"node {i}: C̃_{i} has {Ci.shape[1]} columns, expected d̃={lay.dt}")
            ct = tuple(_as_vector(ci, Ct[i].shape[0], f"node {i}: c̃_{i}") for i, ci in enumerate(self.ct))
            set_(Matrix.CT.value, Ct)
            set_("ct", ct)
        if (self.A is not None or self.C is not None) and lay.dx == 0:
            raise ValueError("A/C given but all local dimensions d_i are 0")
        if self.Ct is not None and lay.dt == 0:
            raise ValueError("C̃ given but the shared dimension d̃ is 0")
        if self.C_kernels is not None:
            if self.C is None or len(self.C_kernels) != n:
                raise ValueError("C_kernels: need one basis per node and local constraints C_i")
            set_("C_kernels", tuple(self.C_kernels))
        self._validate_ranges()
        set_("meta", dict(self.meta))

    # ------------------------------------------------------------------ validation
    def _validate_W(self) -> None:
        W = self.W
        n = W.shape[0]
        scale = abs(W).max() if W.nnz else 0.0
        if n == 1:
            if scale != 0.0:
                raise ValueError("W (gossip matrix): with one node, W must be 0 (Assumption ass:W, item 3)")
            return
        if scale == 0.0:
            raise ValueError("W (gossip matrix): zero matrix; its kernel is not the consensus line (Assumption ass:W, item 3)")
        asym = abs(W - W.T)
        if asym.nnz and asym.max() > W_RTOL * scale:
            i, j = np.unravel_index(int(np.argmax(asym.toarray() if n <= 4000 else asym.todense())), W.shape)
            raise ValueError(f"W (gossip matrix): not symmetric at ({i}, {j}) (Assumption ass:W, item 1)")
        off = W - sp.diags(W.diagonal())
        off.eliminate_zeros()
        if self.edges is not None:
            E = sp.csr_matrix(self.edges, dtype=bool)
            if E.shape != (n, n):
                raise ValueError(f"edges: shape {E.shape}, expected ({n}, {n})")
            E = E.maximum(E.T)
            E.setdiag(False)
            E.eliminate_zeros()
            extra = off.astype(bool) > E
            if extra.nnz:
                i, j = extra.nonzero()
                raise ValueError(f"W (gossip matrix): W[{i[0]}, {j[0]}] ≠ 0 but ({i[0]}, {j[0]}) is not an edge (Assumption ass:W, item 2)")
            missing = E > off.astype(bool)
            if missing.nnz:
                i, j = missing.nonzero()
                raise ValueError(f"W (gossip matrix): ({i[0]}, {j[0]}) is an edge but W[{i[0]}, {j[0]}] = 0 (Assumption ass:W, item 2)")
        ncomp, labels = csgraph.connected_components(off, directed=False)
        if ncomp > 1:
            node = int(np.flatnonzero(labels != labels[0])[0])
            raise ValueError(
                f"W (gossip matrix): the graph is not connected ({ncomp} components; node {node} is not reachable from node 0), "
                "so ker W is larger than the consensus line (Assumption ass:W, item 3)"
            )
        r = np.abs(W @ np.ones(n))
        if r.max() > 1e-9 * scale * np.sqrt(n):
            i = int(np.argmax(r))
            raise ValueError(f"W (gossip matrix): row {i} of W·1 is {W[i].sum():.3e} ≠ 0, so consensus vectors are not in ker W (Assumption ass:W, item 3)")
        # PSD and 1-dimensional kernel: the two smallest eigenvalues
        if n <= DENSE_LIMIT:
            ev = np.linalg.eigvalsh(W.toarray())
            lmin, l2, lmax = ev[0], ev[1], ev[-1]
        else:
            lmin, l2, lmax = _extremes_large(W)
        if lmin < -ZERO_RTOL * lmax * 10:
            raise ValueError(f"W (gossip matrix): not positive semidefinite (λ_min = {lmin:.3e}) (Assumption ass:W, item 1)")
        if l2 <= ZERO_RTOL * lmax:
            raise ValueError(f"W (gossip matrix): kernel has dimension > 1 (second eigenvalue {l2:.3e}), not only consensus vectors (Assumption ass:W, item 3)")

    def _validate_ranges(self) -> None:
        if self.A is not None:
            Ap = sp.hstack(self.A, format="csr")
            s = np.sum(self.b, axis=0)
            res = _range_residual(Ap, s)
            if res > RANGE_RTOL:
                raise ValueError(
                    f"b: Σ_i b_i is not in the range of (A_1 … A_n) (relative residual {res:.2e}); "
                    "the coupled constraint Σ(A_i x_i − b_i) = 0 is infeasible"
                )
        for name, M, v in ((Matrix.C, self.C, self.c), ("C̃", self.Ct, self.ct)):
            if M is None:
                continue
            seen: dict[tuple, float] = {}
            for i, (Mi, vi) in enumerate(zip(M, v)):
                key = (id(Mi), vi.tobytes())
                if key not in seen:
                    seen[key] = _range_residual(Mi, vi)
                if seen[key] > RANGE_RTOL:
                    lo = name.lower()
                    raise ValueError(
                        f"node {i}: {lo}_{i} is not in the range of {name}_{i} (relative residual {seen[key]:.2e}); "
                        f"the local constraint {name}_{i} · = {lo}_{i} is infeasible"
                    )

    # ------------------------------------------------------------------ structure
    @property
    def n(self) -> int:
        return self.layout.n

    @property
    def m(self) -> int:
        """Rows of the coupled constraint (0 if absent)."""
        return 0 if self.A is None else self.A[0].shape[0]

    @property
    def problem_class(self) -> Structure:
        """One of :data:`PROBLEM_CLASSES`.

        ``consensus``: only x̃, no C̃ (``prob:consensus_cons``); ``shared``: x̃ with C̃
        (``prob:shared_var_constraints``); ``coupled``: x with A only (``eq:coupled_constraints_org``);
        ``coupled_local``: x with A and C (``prob:coupled_with_local``); ``local``: x with C only
        (decoupled nodes); ``mixed``: x (with A and/or C) and x̃ (``prob:opt_mixed_constraints_intro``);
        ``separable``: x only, no constraint.
        """
        has_x = self.layout.dx > 0
        has_t = self.layout.dt > 0
        if has_x and has_t:
            return Structure.MIXED
        if has_t:
            return Structure.SHARED if self.Ct is not None else Structure.CONSENSUS
        if self.A is not None:
            return Structure.COUPLED_LOCAL if self.C is not None else Structure.COUPLED
        return Structure.LOCAL if self.C is not None else Structure.SEPARABLE

    @cached_property
    def identical_shared(self) -> bool:
        """``True`` iff C̃_1 = … = C̃_n and c̃_1 = … = c̃_n (``sub:ident_local``)."""
        if self.Ct is None:
            return False
        C0, c0 = self.Ct[0], self.ct[0]
        for Ci, ci in zip(self.Ct[1:], self.ct[1:]):
            if Ci.shape != C0.shape or abs(Ci - C0).sum() != 0 or not np.array_equal(ci, c0):
                return False
        return True

    # block-diagonal operators (u-layout parts), built once
    @cached_property
    def bA(self) -> sp.csr_matrix:
        """``diag(A_1, …, A_n)``: flat x → stacked (n·m)."""
        return sp.block_diag(self.A, format="csr")

    @cached_property
    def bC(self) -> sp.csr_matrix:
        """``diag(C_1, …, C_n)``: flat x → stacked (Σ p_i)."""
        return sp.block_diag(self.C, format="csr")

    @cached_property
    def bCt(self) -> sp.csr_matrix:
        """``diag(C̃_1, …, C̃_n)``: X̃ (n, d̃) flattened → stacked (Σ p̃_i)."""
        return sp.block_diag(self.Ct, format="csr")

    @cached_property
    def b_stacked(self) -> np.ndarray:
        """``(b_1, …, b_n)`` stacked (read-only, computed once: the solvers read it every iteration)."""
        return _read_only(np.concatenate(self.b))

    @cached_property
    def c_stacked(self) -> np.ndarray:
        """``(c_1, …, c_n)`` stacked (read-only, computed once: the solvers read it every iteration)."""
        return _read_only(np.concatenate(self.c))

    @cached_property
    def ct_stacked(self) -> np.ndarray:
        """``(ct_1, …, ct_n)`` stacked (read-only, computed once: the solvers read it every iteration)."""
        return _read_only(np.concatenate(self.ct))

    def summary(self) -> dict:
        lay = self.layout
        return {
            "name": self.name,
            "class": self.problem_class,
            "identical_shared": self.identical_shared,
            "n": self.n,
            "d": list(lay.d) if len(set(lay.d)) > 1 else (lay.d[0] if lay.d else 0),
            "dt": lay.dt,
            "m": self.m,
            "p": None if self.C is None else [int(Ci.shape[0]) for Ci in self.C],
            "pt": None if self.Ct is None else [int(Ci.shape[0]) for Ci in self.Ct],
            "variables": lay.size,
        }
