"""The saddle-point (KKT) system of problem (P) in its original variables, and its sparse solves.

Problem (P) is solved in its original variables ``v = (x, x̃)`` (one copy of the
shared variable): with ``E`` the map ``v ↦ u`` that copies ``x̃`` to every node,
the objective is ``F(E v)`` and the constraints are ``G v = h`` with

    G = [ A'  0 ]      h = [ Σ b_i ]       (coupled)
        [ C   0 ]          [ c     ]       (local)
        [ 0  C̃_s]          [ c̃     ]       (shared; C̃_s stacks C̃_1 … C̃_n)

The solves below need ``H`` positive definite (a strongly convex objective, or the proximal term of
:mod:`mixbounds.instances.reference.min_norm`): then ``v`` is unique, whatever the constraints.  The KKT matrix
``[[H, Gᵀ], [G, 0]]`` is still singular whenever constraints are redundant (identical ``C̃_i`` repeat the same
rows ``n`` times: the multipliers are not unique), so it is factored with a tiny negative ``(2,2)`` block ``−δI``
and the unregularised system is then solved by iterative refinement on top of that factorisation.  Above
:data:`KKT_DIRECT_MAX_NNZ` stored entries only ``H`` is factored and the
multipliers come from the Schur complement ``G H⁻¹ Gᵀ`` (:class:`_SchurKKT`),
refined the same way, unless that complement is too large to form and the whole KKT matrix is still below
:data:`KKT_DIRECT_BEFORE_MINRES_NNZ` (then SuperLU is tried first: MINRES on a Schur complement of millions of
rows is far slower).  ``H`` itself is
factored by its structure (:mod:`mixbounds.instances.reference.hessian_factor`: block diagonal without a shared
variable, arrow-shaped with one), SuperLU otherwise.  :func:`relative_kkt_residual` is the relative KKT residual every
reference is checked with (:data:`KKT_RTOL`); :mod:`mixbounds.instances.reference.kkt` is the front door.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from mixbounds.bounds.guards import SCALE_FLOOR
from mixbounds.instances.problem import MixedProblem
from mixbounds.instances.reference.factored_rows import FactoredRows
from mixbounds.instances.reference.hessian_factor import SOLVE_CHUNK_ENTRIES, factor_hessian

#: required relative KKT residual of a reference solution
KKT_RTOL = 1e-9
#: relative regularisation of the (2,2) block of the factored KKT matrix
KKT_DELTA = 1e-10
#: iterative refinement steps on the unregularised KKT system
REFINE_STEPS = 60
#: a Schur-complement refinement step must shrink the KKT residual at least by this factor, else refinement stops
REFINE_STALL = 0.5
#: KKT matrices with more stored entries than this are not factored whole (``splu`` of the saddle-point
#: matrix ran out of memory near 10⁸ entries): :class:`_SchurKKT` factors only H.  Every instance of the
#: quick tier and every test is far below it and keeps the direct path.
KKT_DIRECT_MAX_NNZ = 20_000_000
#: between KKT_DIRECT_MAX_NNZ and this, a KKT system whose Schur complement would go to MINRES (more than
#: SCHUR_DENSE_MAX rows) is still tried whole first, and only SuperLU's MemoryError sends it to the Schur path.
#: Measured at 10⁷ variables: printed mixed-ident (2.9·10⁷ entries) factored whole in 95 s, 7.0 GB, where MINRES on
#: its 2.5·10⁶-row Schur complement had not finished in 20 min; printed coupled (2.3·10⁷) 115 s, 9.1 GB, against
#: 172 s through MINRES; SuperLU refused printed mixed (6.7·10⁷) and coupled-local (8.5·10⁷) at once ("Not
#: enough memory"), so the cap stays below both.
KKT_DIRECT_BEFORE_MINRES_NNZ = 50_000_000
#: the Schur complement G H⁻¹ Gᵀ is formed densely up to this many constraint rows
SCHUR_DENSE_MAX = 2000
#: MINRES tolerance and iteration cap on the Schur system when it is applied as an operator
SCHUR_RTOL = 1e-14
SCHUR_MAXITER = 10_000


def copy_map(problem: MixedProblem) -> sp.csr_matrix:
    """``E``: ``(x, x̃) ↦ u = (x, x̃, …, x̃)``."""
    return layout_copy_map(problem.layout)


def layout_copy_map(lay) -> sp.csr_matrix:
    """:func:`copy_map` of a :class:`~mixbounds.instances.layout.Layout`."""
    Ex = sp.eye(lay.dx, format="csr")
    Et = sp.kron(np.ones((lay.n, 1)), sp.eye(lay.dt), format="csr")
    return sp.csr_matrix(sp.block_diag([Ex, Et], format="csr")) if lay.dt else sp.csr_matrix(Ex)


def constraint_system(problem: MixedProblem) -> tuple[sp.csr_matrix, np.ndarray]:
    """``G`` and ``h`` of the module docstring (original variables)."""
    lay = problem.layout
    rows, rhs = [], []
    if problem.A is not None:
        rows.append(sp.hstack([sp.hstack(problem.A), sp.csr_matrix((problem.m, lay.dt))]))
        rhs.append(np.sum(problem.b, axis=0))
    if problem.C is not None:
        rows.append(sp.hstack([problem.bC, sp.csr_matrix((problem.bC.shape[0], lay.dt))]))
        rhs.append(problem.c_stacked)
    if problem.Ct is not None:
        Cs = sp.vstack(problem.Ct)
        rows.append(sp.hstack([sp.csr_matrix((Cs.shape[0], lay.dx)), Cs]))
        rhs.append(problem.ct_stacked)
    nv = lay.dx + lay.dt
    if not rows:
        return sp.csr_matrix((0, nv)), np.zeros(0)
    return sp.csr_matrix(sp.vstack(rows)), np.concatenate(rhs)


def refine_solve(once, K0: sp.csr_matrix, rhs: np.ndarray, *, stall: float | None) -> np.ndarray:
    """Iterative refinement of ``K0 sol = rhs`` with the approximate solve ``once``: at most
    :data:`REFINE_STEPS` corrections, until the residual is 1e-15 of ``rhs``; with ``stall``, also
    until a correction shrinks the residual by less than that factor (the better iterate is kept)."""
    floor = 1e-15 * max(np.linalg.norm(rhs), SCALE_FLOOR)
    sol = once(rhs)
    r = rhs - K0 @ sol
    nr = np.linalg.norm(r)
    for _ in range(REFINE_STEPS):
        if nr <= floor:
            break
        cand = sol + once(r)
        r_c = rhs - K0 @ cand
        nr_c = np.linalg.norm(r_c)
        if stall is not None and not nr_c <= stall * nr:
            if nr_c < nr:
                sol = cand
            break
        sol, r, nr = cand, r_c, nr_c
    return sol


def copy_weights(layout) -> np.ndarray:
    """``diag(EᵀE)`` of :func:`copy_map`: 1 on ``x``, ``n`` on ``x̃`` (the u-layout norm in the original variables)."""
    return np.concatenate([np.ones(layout.dx), np.full(layout.dt, float(layout.n))])


class SaddleOperator:
    """``K0 = [[H, Gᵀ], [G, 0]]`` applied block by block (``K0 @ x``), never assembled: at 10⁶ variables the
    assembled copy (sp.bmat) took 126 s of a reference's 604 s and as much memory as ``H``."""

    def __init__(self, H: sp.csr_matrix, G: sp.csr_matrix):
        self.H, self.G, self.Gt = H, G, sp.csr_matrix(G.T)
        self.nv = H.shape[0]
        self.shape = (H.shape[0] + G.shape[0],) * 2

    def __matmul__(self, x: np.ndarray) -> np.ndarray:
        v, lam = x[: self.nv], x[self.nv:]
        return np.concatenate([self.H @ v + self.Gt @ lam, self.G @ v])


class KKTFactor:
    """Factorisation of ``[[H, Gᵀ], [G, −δI]]`` and refined solves of the δ = 0 system.

    Interface shared with :class:`_SchurKKT` (and used by :mod:`mixbounds.instances.reference.lad_interior_point`): ``K0`` (the
    δ = 0 matrix, anything with ``@``), ``once`` (one unrefined solve), ``solve`` (refined), ``name``.
    """

    name = "kkt-direct"

    def __init__(self, H: sp.csr_matrix, G: sp.csr_matrix):
        self.H, self.G = H, G
        nv, nc = H.shape[0], G.shape[0]
        scale = max(abs(H).max() if H.nnz else 1.0, (abs(G).max() ** 2) if G.nnz else 1.0)
        self.delta = KKT_DELTA * scale
        K = sp.bmat([[H, G.T], [G, -self.delta * sp.eye(nc)]], format="csc") if nc else sp.csc_matrix(H)
        try:
            self.lu = spla.splu(K, permc_spec="COLAMD", options={"SymmetricMode": False})
        except RuntimeError as exc:
            raise ValueError(
                f"reference solution: the KKT matrix is singular ({exc}); is the objective strongly convex on the feasible set?"
            ) from exc
        self.nv, self.nc = nv, nc
        self.K0 = sp.bmat([[H, G.T], [G, None]], format="csr") if nc else sp.csr_matrix(H)
        self.once = self.lu.solve

    def solve(self, rhs: np.ndarray, stall: float | None = None, guess: np.ndarray | None = None) -> np.ndarray:
        """Refined solve; ``stall`` as in :func:`refine_solve` (default: refine to the floor or the step cap);
        ``guess`` is accepted for the interface of :class:`_SchurKKT` (a factorisation needs none)."""
        sol = refine_solve(self.lu.solve, self.K0, rhs, stall=stall)
        if not np.all(np.isfinite(sol)):
            raise ValueError("reference solution: the KKT solve produced non-finite values")
        return sol


class _SchurKKT:
    """Refined solves of ``[[H, Gᵀ], [G, 0]]`` without factoring it: ``H`` alone is factored.

    For KKT matrices above :data:`KKT_DIRECT_MAX_NNZ` (``splu`` of the whole saddle-point matrix
    ran out of memory at about 10⁸ nonzeros).  ``H = Eᵀ∇²F E`` is positive definite (strong
    convexity, ``E`` injective) and as sparse as the node blocks, so its LU stays within them.
    The multipliers solve the Schur system ``S λ = G H⁻¹ r₁ − r₂`` with ``S = G H⁻¹ Gᵀ`` (symmetric
    PSD, singular when constraints are redundant; consistent, so MINRES converges in its range):
    ``S`` is formed densely when it has at most :data:`SCHUR_DENSE_MAX` rows (its pseudo-inverse from
    one eigendecomposition, eigenvalues below the rank cut-off of ``lstsq`` dropped), else applied as an
    operator.  The same residual-driven refinement as :class:`KKTFactor` follows, stopped once a step no
    longer shrinks the residual by :data:`REFINE_STALL` (each step is a full Schur solve; a 2·10⁵-variable
    random-mixed reference ran all 60 steps at the rounding floor); :func:`reference_solution` then
    checks the KKT residual, so an inaccurate solve is an error.
    """

    def __init__(self, H: sp.csr_matrix, G: sp.csr_matrix, border: int = 0, rows: FactoredRows | None = None):
        self.H, self.G = H, G
        # G v and Gᵀ y: the factored local rows when given (the same floats, several times faster)
        self.Gv = rows.matvec if rows is not None else G.__matmul__
        self.GTy = rows.rmatvec if rows is not None else G.T.__matmul__
        self.nv, self.nc = H.shape[0], G.shape[0]
        self.lu = factor_hessian(H, border)
        self.factor = "splu" if self.lu is None else self.lu.name
        self.name = f"kkt-schur ({self.factor})"
        if self.lu is None:
            try:
                self.lu = spla.splu(sp.csc_matrix(H), permc_spec="COLAMD")
            except RuntimeError as exc:
                raise ValueError(f"reference solution: the Hessian is singular ({exc}); is the objective strongly "
                                 f"convex?") from exc
        self.K0 = SaddleOperator(H, G) if self.nc else sp.csr_matrix(H)
        self.S_pinv = None
        if 0 < self.nc <= SCHUR_DENSE_MAX:
            Gt = sp.csc_matrix(G.T)
            step = max(1, SOLVE_CHUNK_ENTRIES // max(self.nv, 1))
            S = np.empty((self.nc, self.nc))
            for j in range(0, self.nc, step):
                S[:, j:j + step] = G @ self.lu.solve(Gt[:, j:j + step].toarray())
            w, V = np.linalg.eigh(0.5 * (S + S.T))
            keep = w > np.finfo(float).eps * self.nc * max(w.max(), 0.0)
            self.S_pinv = (V[:, keep] / w[keep], V[:, keep])

    def once(self, rhs: np.ndarray, lam0: np.ndarray | None = None) -> np.ndarray:
        """One unrefined solve (block elimination; ``lam0`` starts MINRES)."""
        r1, r2 = rhs[: self.nv], rhs[self.nv:]
        Hr1 = self.lu.solve(r1)
        if self.nc == 0:
            return Hr1
        t = self.Gv(Hr1) - r2
        if self.S_pinv is not None:
            VW, V = self.S_pinv
            lam = VW @ (V.T @ t)
        else:
            op = spla.LinearOperator((self.nc, self.nc), matvec=lambda y: self.Gv(self.lu.solve(self.GTy(y))),
                                     dtype=float)
            lam = spla.minres(op, t, x0=lam0, rtol=SCHUR_RTOL, maxiter=SCHUR_MAXITER)[0]
        v = self.lu.solve(r1 - self.GTy(lam))
        return np.concatenate([v, lam])

    def solve(self, rhs: np.ndarray, stall: float | None = REFINE_STALL, guess: np.ndarray | None = None) -> np.ndarray:
        """Refined solve; ``guess`` (multipliers) starts the first MINRES on the Schur complement (a sequence of
        nearby systems, as the proximal steps of :mod:`mixbounds.instances.reference.min_norm`, then needs fewer iterations)."""
        pending = [guess]

        def once(r):
            lam0, pending[0] = pending[0], None
            return self.once(r, lam0)

        sol = refine_solve(once, self.K0, rhs, stall=stall)
        if not np.all(np.isfinite(sol)):
            raise ValueError("reference solution: the Schur-complement KKT solve produced non-finite values")
        return sol


def kkt_solver(H: sp.csr_matrix, G: sp.csr_matrix, border: int = 0, rows: FactoredRows | None = None):
    """The direct factorisation of the KKT matrix while it is small enough, else :class:`_SchurKKT`
    (``border``: the shared variable's trailing rows of ``H``).  A Schur complement too large to form
    (MINRES) is avoided while the whole KKT matrix may still factor (:data:`KKT_DIRECT_BEFORE_MINRES_NNZ`)."""
    nnz = H.nnz + 2 * G.nnz + G.shape[0]
    if nnz <= KKT_DIRECT_MAX_NNZ:
        return KKTFactor(H, G)
    if G.shape[0] > SCHUR_DENSE_MAX and nnz <= KKT_DIRECT_BEFORE_MINRES_NNZ:
        try:
            return KKTFactor(H, G)
        except MemoryError:
            pass  # SuperLU: "Not enough memory to perform factorization"
    return _SchurKKT(H, G, border, rows)


def relative_kkt_residual(grad_v: np.ndarray, grad_0: np.ndarray, G, lam: np.ndarray, v: np.ndarray, h: np.ndarray) -> float:
    """‖(∇F + Gᵀλ, Gv − h)‖ relative to the size of the terms that cancel in it.

    The gradient's scale is ``‖∇F(v) − ∇F(0)‖ + ‖∇F(0)‖`` (for a quadratic,
    ``‖Hv‖ + ‖q‖``), so a residual of 1e-9 means nine digits of cancellation.
    """
    stat = grad_v + (G.T @ lam if G.shape[0] else 0.0)
    feas = (G @ v - h) if G.shape[0] else np.zeros(0)
    num = np.sqrt(np.linalg.norm(stat) ** 2 + np.linalg.norm(feas) ** 2)
    den = (np.linalg.norm(grad_v - grad_0) + np.linalg.norm(grad_0)
           + (np.linalg.norm(G.T @ lam) + np.linalg.norm(h) + np.linalg.norm(G @ v) if G.shape[0] else 0.0))
    return float(num / den) if den > 0 else float(num)


def factored_constraints(problem: MixedProblem, G: sp.csr_matrix) -> FactoredRows | None:
    """:func:`constraint_system`'s ``G`` with its local rows factored (:mod:`mixbounds.instances.reference.factored_rows`),
    when they are ``S ⊗ I_K`` and the solve will go through the Schur complement (``G`` alone is past
    :data:`KKT_DIRECT_MAX_NNZ`); else ``None`` (the plain products)."""
    if problem.C is None or 2 * G.nnz <= KKT_DIRECT_MAX_NNZ:
        return None
    start = problem.m if problem.A is not None else 0
    return FactoredRows.of(G, start, start + problem.bC.shape[0], problem.layout.dx)
