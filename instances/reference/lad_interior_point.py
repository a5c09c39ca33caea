"""Sparse primal–dual interior-point method for the reference optimum of the nonsmooth families.

What: the optimum of the absolute-deviation objectives of :mod:`mixbounds.instances.nonsmooth`
(Assumption ``ass:nonsmooth_and_str_convex_of_f_i``; Tables 3 and 4,
``table:nonsmooth_conv_optimization_constraints`` and
``table:nonsmooth_strconv_optimization_constraints``; ``μ_f > 0`` is the case of
``sec:nonsmooth_strongly_convex_case``) under the problem's affine constraints, as the
lifted LP/QP in the original variables ``v = (x, x̃)`` (``x̃`` once)::

    min_{v,p,q}  Σ_j w_j (p_j + q_j) + (μ/2)·vᵀ(EᵀE)v   s.t.  D v − p + q = y,  G v = h,  p, q >= 0,

``D = block_diag_u(F_1, …, F_n) E`` (``E`` = :func:`mixbounds.instances.reference.kkt.copy_map`), ``G, h`` =
:func:`mixbounds.instances.reference.kkt.constraint_system`, ``w_j = 1/N_i`` on the rows of node ``i``.

Why: :func:`mixbounds.instances.nonsmooth.reference_nonsmooth` forms this problem densely (HiGHS, or the
dense :func:`mixbounds.instances.nonsmooth.qp_interior_point`), which stops near 2000 nodes; this method
never forms a dense ``D``, ``G`` or any ``n × n`` matrix, so the families build at 10⁵–10⁶
u-layout variables.

How (Mehrotra predictor–corrector, infeasible start): duals ``z`` of ``Dv − p + q = y`` and ``λ``
of ``Gv = h``; the slacks ``s_p, s_q`` of ``p, q >= 0`` satisfy ``s_p = w + z``, ``s_q = w − z`` (so
``|z| < w``); they are kept as iterates of their own (recomputing ``w − z`` lost them to cancellation:
an exact 0 on a 4-node instance).  With ``r_d = μEᵀEv − Dᵀz − Gᵀλ``, ``r_1 = Dv − p + q − y``,
``r_2 = Gv − h`` and complementarity right-hand sides ``c_p, c_q`` (of ``s_p∘dp + p∘ds_p = c_p``, …),
eliminating ``dp, dq, ds_p, ds_q`` from the Newton system leaves (:func:`_direction`, exact form there)

    dz = Θ(ρ − D dv),   ρ = −r_1 + c_p/s_p − c_q/s_q (+ slack residual terms),   Θ = diag(1/(p/s_p + q/s_q)),

    [[H, Gᵀ], [G, 0]] [dv; −dλ] = [−r_d + DᵀΘρ; −r_2],      H = μEᵀE + DᵀΘD,

then ``dp = (c_p − p∘dz)/s_p``, ``dq = (c_q + q∘dz)/s_q``.  ``H`` equals ``Eᵀ·blockdiag_i(μI + F_iᵀΘ_iF_i)·E``:
the node blocks are one batched product when all ``F_i`` have one shape and are written straight into the CSR
arrays of ``H`` in ``v``, whose index structure is fixed (``x_i``-rows: the block of node ``i`` and the ``x̃``
columns; ``x̃``-rows: every column, the ``x̃x̃`` part summed over the nodes); otherwise a loop over nodes and
``Eᵀ(·)E`` of the u-layout matrix.  The saddle-point matrix is factored once per iteration (:func:`_kkt`) by
:func:`mixbounds.instances.reference.kkt.kkt_solver` while it is small (direct SuperLU), above that by
:class:`mixbounds.instances.reference.deflated_kkt.DeflatedKKT` (node blocks inverted, the near-null directions of the blocks that a
vertex of the LP leaves singular moved with ``x̃`` and ``λ`` into a small border system: nothing regularised), or,
when that border would be too large or ``H`` has no node blocks, the Schur complement over the block/arrow Cholesky
of ``H`` (redundant rows of ``G`` are handled there); the factorisation serves the predictor and the corrector
(:class:`_Scaled`).  Late iterations spread Θ over ~24 decades, so the system is given to it Jacobi-scaled, with
the rows of ``G`` that act on one node or on ``x̃`` alone added to ``H`` as ``G_SᵀG_S`` (same solution), and, only
when a factorisation is refused, a primal regularisation (:data:`PRIMAL_REG`); every solve is refined on the
plain system (and continued by GMRES when refinement stalls).

Before any of this, the rows of ``G`` on one block (``C_i`` on ``x_i``, ``C̃_i`` on ``x̃``) are eliminated through
their null spaces (:mod:`mixbounds.instances.reference.block_elimination`): otherwise the 2·10⁴ local rows of a 10⁶-variable
coupled-local instance sent the Schur complement of every KKT solve to MINRES.

Stopping rule: the relative primal residuals ``‖r_1‖/(1 + ‖y‖)`` and ``‖r_2‖/(1 + ‖h‖)``, the relative
dual residual ``‖r_d‖/(1 + ‖c‖)`` (``c = (0, w, w)``, the linear cost), the relative duality gap
``|P − D|/(1 + |P|)`` (``P`` primal, ``D = yᵀz + hᵀλ − (μ/2)vᵀEᵀEv`` dual objective) and the relative
complementarity ``(pᵀs_p + qᵀs_q)/(1 + |P|)`` are all ``<= tol``.  Not converged within ``max_iter``
iterations is a ``ValueError`` naming the residuals, never a returned point.
"""

from __future__ import annotations

import logging
import time

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from mixbounds.bounds.guards import SCALE_FLOOR
from mixbounds.instances.layout import Layout
from mixbounds.instances.objectives import block_diag_u
from mixbounds.instances.problem import MixedProblem
from mixbounds.instances.reference import deflated_kkt
from mixbounds.instances.reference import saddle_point as _reference
from mixbounds.instances.reference.block_elimination import eliminate as eliminate_blocks
from mixbounds.instances.reference.block_elimination import row_blocks
from mixbounds.instances.reference.hessian_factor import BlockCholesky
from mixbounds.instances.reference.saddle_point import (
    REFINE_STALL,
    KKTFactor,
    SaddleOperator,
    constraint_system,
    copy_weights,
    kkt_solver,
    layout_copy_map,
    refine_solve,
)

#: default stopping tolerance (every relative residual, the gap and the complementarity)
LAD_TOL = 1e-10
#: default iteration cap
LAD_MAX_ITER = 100
#: fraction of the step to the boundary of ``p, q >= 0`` and ``|z| < w`` that is taken
STEP_FRACTION = 0.99
#: the starting point is v = 0 and p, q = max(∓(y − Dv), 0) + shift, z = 0, λ = 0, with shift this multiple of
#: the mean absolute data residual (at least 1): strictly interior, primal data rows feasible
START_SHIFT = 1.0

#: primal regularisation levels (a fallback: the deflated solver, :mod:`mixbounds.instances.reference.deflated_kkt`, needs none on the
#: families; before it, every late iteration of a μ_f = 0 instance above the direct size went through them and
#: nonsmooth-coupled-local at 10⁶ variables stalled at a dual residual of 2.3e-7), tried in turn when a
#: factorisation of the KKT system is refused (not positive definite) or, on the Schur path, yields solves that even
#: GMRES cannot bring below SOLVE_RTOL, and kept from then on (Θ only spreads further): every node block
#: ``μI + F_iᵀΘ_iF_i`` gets the level times its largest diagonal entry added to its diagonal (less what μ already
#: provides).  Late iterations spread Θ over ~24 decades (Θ → ∞ on rows
#: fitted exactly, → 0 on the others); a node with fewer exactly fitted rows than columns then has a numerically
#: singular block: the block Cholesky of the Schur path refused one (nonsmooth-coupled, n = 10⁴, d = 100, m = 5),
#: and the arrow Cholesky's Schur complement on x̃ (formed by cancellation against those blocks) needed 1e-8 on small
#: mixed instances.  It is a proximal term at the current iterate: the solves are refined (and GMRES-corrected) on
#: the unregularised system, and the stopping rule measures the unregularised residuals.  Never applied while the
#: factorisation works, nor on the direct path for inaccuracy (SuperLU pivots; there the residual floor comes from
#: dependent rows of G, and regularising a small mixed instance stalled it at a dual residual of 6e-8).
PRIMAL_REG = (1e-12, 1e-10, 1e-8, 1e-6)
#: a refined KKT solve with a larger relative residual than this goes on with GMRES (preconditioned by the
#: factorisation) from the refined solution
SOLVE_RTOL = 1e-8
#: the centring target σ·mean(p∘s) is kept above this fraction of the complementarity the stopping rule asks for:
#: driving it further only spreads Θ (and the condition of H) without bringing the stop closer; without it an
#: iterate whose residuals lagged saw its complementarity fall to 1e-25 and the iteration break down
COMP_FLOOR = 0.1

METHOD = "sparse primal-dual interior point (Mehrotra), mixbounds.instances.reference.lad_interior_point"

#: one INFO record per iteration (the residuals of the stopping rule): a 10⁶-variable reference takes tens of
#: minutes, and ``mixbounds instance`` prints these records so the run shows where it is
log = logging.getLogger(__name__)


def _regularisation(dmax, mu: float, level: float):
    """Shift of a node block's diagonal so that its smallest possible eigenvalue is at least ``level`` times its
    largest diagonal entry ``dmax`` (the block already contains ``μI``: nothing is added while ``μ`` suffices)."""
    return np.maximum(level * np.asarray(dmax, dtype=float) - mu, 0.0)


class _Nodes:
    """The data of ``D`` node by node: ``D v``, ``Dᵀ r`` and ``μEᵀE + DᵀΘD`` without forming ``D``.

    ``stacked``: all ``F_i`` of one shape ``(N, k)`` and all ``d_i`` equal, kept as one ``(n, N, k)`` array
    (batched products); otherwise the list and the u-layout block-diagonal matrix of the ``F_i``.
    """

    def __init__(self, feats, layout: Layout, E: sp.csr_matrix):
        self.lay, self.E = layout, E
        self.n, self.dt, self.dx = layout.n, layout.dt, layout.dx
        self.nv = self.dx + self.dt
        shapes = {np.shape(F) for F in feats}
        self.stacked = len(shapes) == 1 and len(set(layout.d)) <= 1
        if self.stacked:
            self.F = np.stack([np.asarray(F, dtype=float) for F in feats])
            self.d = layout.d[0] if layout.n else 0
            self.N, self.k = self.F.shape[1], self.F.shape[2]
            self._csr_structure()
        else:
            self.feats = [np.asarray(F, dtype=float) for F in feats]
            self.rows = np.cumsum([0] + [F.shape[0] for F in self.feats])
            self.Fu = block_diag_u(self.feats, layout)  # sparse, u-layout columns

    # ------------------------------------------------------------------ products with D
    def _Z(self, v: np.ndarray) -> np.ndarray:
        """``(n, k)``: row ``i`` is ``z_i = (x_i, x̃)``."""
        X = v[: self.dx].reshape(self.n, self.d)
        Xt = np.broadcast_to(v[self.dx:], (self.n, self.dt))
        return np.concatenate([X, Xt], axis=1)

    def D(self, v: np.ndarray) -> np.ndarray:
        if self.stacked:
            return np.matmul(self.F, self._Z(v)[:, :, None])[:, :, 0].ravel()
        return self.Fu @ (self.E @ v)

    def DT(self, r: np.ndarray) -> np.ndarray:
        if self.stacked:
            G = np.matmul(r.reshape(self.n, 1, self.N), self.F)[:, 0, :]  # (n, k): F_iᵀ r_i
            return np.concatenate([G[:, : self.d].ravel(), G[:, self.d:].sum(axis=0)])
        return self.E.T @ (self.Fu.T @ r)

    # ------------------------------------------------------------------ H = μEᵀE + DᵀΘD
    def _csr_structure(self) -> None:
        """Column indices and row pointers of ``H`` in ``v`` (fixed; only the values change)."""
        n, d, dt, nv = self.n, self.d, self.dt, self.nv
        nnz = n * d * self.k + dt * nv
        idx = np.int32 if max(nnz, nv) < np.iinfo(np.int32).max else np.int64
        cols_x = np.concatenate([np.arange(n * d).reshape(n, d), np.broadcast_to(self.dx + np.arange(dt), (n, dt))],
                                axis=1)  # (n, k): the columns of node i's rows
        self.indices = np.concatenate([np.broadcast_to(cols_x[:, None, :], (n, d, self.k)).ravel(),
                                       np.tile(np.arange(nv), dt)]).astype(idx)
        self.indptr = np.concatenate([np.arange(n * d + 1) * self.k,
                                      n * d * self.k + np.arange(1, dt + 1) * nv]).astype(idx)

    def hessian(self, theta: np.ndarray, mu: float, level: float) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray]:
        """``(S H S, S Δ S, s)``: ``H = Eᵀ·blockdiag_i(μI + F_iᵀΘ_iF_i + δ_iI)·E`` Jacobi-scaled by ``S = diag(s)``,
        ``s = diag(H)^{-1/2}``, and the diagonal ``Δ = Eᵀ·blockdiag_i(δ_iI)·E`` of the regularisation, scaled the
        same way (``δ_i`` = :func:`_regularisation` at ``level``; none at level 0)."""
        if not self.stacked:
            blocks, shift = [], []
            for i, F in enumerate(self.feats):
                B = F.T @ (F * theta[self.rows[i]:self.rows[i + 1], None]) + mu * np.eye(F.shape[1])
                di = float(_regularisation(B.diagonal().max(initial=0.0), mu, level))
                blocks.append(B + di * np.eye(F.shape[1]))
                shift.append(np.full(F.shape[1], di))
            M = block_diag_u(blocks, self.lay, square=True)
            H = sp.csr_matrix(self.E.T @ M @ self.E)
            sc = 1.0 / np.sqrt(H.diagonal())
            Sm = sp.diags(sc)
            du = np.concatenate(shift)[self.lay.z_to_u]  # z-layout (node blocks) to u-layout
            return sp.csr_matrix(Sm @ H @ Sm), (self.E.T @ du) * sc * sc, sc
        n, d, dt, N = self.n, self.d, self.dt, self.N
        FT = self.F * theta.reshape(n, N, 1)
        # x_i-rows of the node blocks, (n, d, k), batched; the x̃x̃ part summed over the nodes is one product of the
        # stacked rows (never the (n, k, k) blocks: 16 GB for nonsmooth-shared with d̃ = 2000, n = 500)
        Mx = np.matmul(self.F[:, :, :d].transpose(0, 2, 1), FT)
        Mtt = self.F[:, :, d:].reshape(n * N, dt).T @ FT[:, :, d:].reshape(n * N, dt)
        dtt = np.einsum("nrj,nrj->nj", self.F[:, :, d:], FT[:, :, d:])  # (n, dt): diagonals of the nodes' x̃x̃ parts
        del FT
        ad, at = np.arange(d), np.arange(dt)
        dx = Mx[:, ad, ad] + mu  # (n, d)
        dmax = np.maximum(dx.max(axis=1, initial=0.0), (dtt + mu).max(axis=1, initial=0.0))
        delta = _regularisation(dmax, mu, level)
        Mx[:, ad, ad] += mu + delta[:, None]
        Mtt[at, at] += n * mu + delta.sum()
        sx = 1.0 / np.sqrt(Mx[:, ad, ad])  # (n, d)
        st = 1.0 / np.sqrt(np.diag(Mtt)) if dt else np.zeros(0)  # the x̃ diagonal sums over the nodes
        Mx *= sx[:, :, None]
        Mx *= np.concatenate([sx, np.broadcast_to(st, (n, dt))], axis=1)[:, None, :]
        parts = [Mx.ravel()]
        if dt:
            Mtx = Mx[:, :, d:].transpose(2, 0, 1).reshape(dt, n * d)
            Mtt *= np.outer(st, st)
            parts.append(np.concatenate([Mtx, Mtt], axis=1).ravel())
        del Mx
        H = sp.csr_matrix((np.concatenate(parts), self.indices, self.indptr), shape=(self.nv, self.nv))
        sc = np.concatenate([sx.ravel(), st])
        shift = np.concatenate([np.repeat(delta, d), np.full(dt, delta.sum())])
        return H, shift * sc * sc, sc


#: GMRES on the plain system, preconditioned by the factorisation, when refinement stalls above SOLVE_RTOL
GMRES_RTOL = 1e-12
GMRES_RESTART = 40
GMRES_CYCLES = 3


def _local_rows(G: sp.csr_matrix, layout: Layout) -> np.ndarray:
    """Rows of ``G`` acting on one ``x_i`` or on ``x̃`` alone (local constraints ``C_i``, shared-variable
    constraints ``C̃_i``)."""
    return np.flatnonzero(row_blocks(G, layout) >= 0)


#: the Gram matrix of the local rows on x̃ (C̃) is formed densely when they have at most this many entries
GRAM_DENSE_MAX = 50_000_000


def _gram(GS: sp.csr_matrix, border: int) -> sp.csr_matrix:
    """``G_SᵀG_S``.  The rows on ``x̃`` alone (the last ``border`` columns) are dense ``C̃`` rows: their product is one
    dense BLAS product (the sparse product of a 1500 × 2000 C̃ took 10 s per iteration, nonsmooth-shared n = 500,
    d̃ = 2000); the others (one ``C_i`` each) are block-local and stay sparse."""
    nv = GS.shape[1]
    lo = nv - border
    on_t = np.zeros(GS.shape[0], dtype=bool)
    if border:
        first = np.full(GS.shape[0], nv)
        nz = np.diff(GS.indptr) > 0
        first[nz] = np.minimum.reduceat(GS.indices, GS.indptr[:-1][nz])
        on_t = first >= lo
    if not on_t.any() or on_t.sum() * border > GRAM_DENSE_MAX:
        return sp.csr_matrix(GS.T @ GS)
    Gt = GS[np.flatnonzero(on_t)][:, lo:].toarray()
    Gx = GS[np.flatnonzero(~on_t)]
    dense = sp.csr_matrix(Gt.T @ Gt)
    out = sp.bmat([[sp.csr_matrix((lo, lo)), None], [None, dense]], format="csr")
    return out + sp.csr_matrix(Gx.T @ Gx) if Gx.shape[0] else out


#: the KKT solvers :func:`lad_interior_point` may be told to use: ``auto`` (below), ``deflated`` (forced wherever ``H``
#: has node blocks: the audit of :mod:`mixbounds.checks.audits.audit_reference` runs it on tier instances, which are all small)
KKT_CHOICES = ("auto", "deflated")


def _kkt(H: sp.csr_matrix, G: sp.csr_matrix, border: int, cache: dict, choice: str = "auto"):
    """The KKT solver of one iteration: :class:`mixbounds.instances.reference.deflated_kkt.DeflatedKKT` where :func:`kkt_solver` would
    take its Schur-complement path (or always, ``choice="deflated"``) and ``H`` is block diagonal up to the border (its
    singular node blocks are deflated, never regularised), else :func:`kkt_solver`.  ``cache``: the node blocks of
    ``H`` (fixed pattern), found once."""
    nv, nc = H.shape[0], G.shape[0]
    large = H.nnz + 2 * G.nnz + nc > _reference.KKT_DIRECT_MAX_NNZ
    if (large or choice == "deflated") and nc + border <= deflated_kkt.BORDER_MAX:
        if "parts" not in cache:
            cache["parts"] = BlockCholesky.parts(H[: nv - border][:, : nv - border] if border else H)
        if cache["parts"] is not None:
            try:
                return deflated_kkt.DeflatedKKT(H, G, border, cache["parts"], SaddleOperator(H, G) if nc else H)
            except deflated_kkt.BorderTooLarge:
                pass  # more deflated directions than the border system takes: the Schur path (and regularisation)
    return kkt_solver(H, G, border)


class _Scaled:
    """The KKT system of one iteration, symmetrically scaled and factored.

    ``kkt_solver`` regularises its (2,2) block by ``KKT_DELTA`` times the largest entry of ``H`` (or of ``G``
    squared); late in an IPM ``H`` has entries of order ``Θ_max`` ~ 10¹² and that δ swamped ``G H⁻¹ Gᵀ`` (its
    refinement then stalled: constraint and dual residuals stuck).  With the Jacobi scaling ``H ← SHS``
    (``S = diag(H)^{-1/2}``) and rows of ``GS`` of unit norm the same δ is 1e-10 of a unit diagonal; the
    solution is unchanged (``dv = S dv'``, ``dλ = R dλ'``).  Solves are refined on the scaled system without the
    primal regularisation ``shift`` (:data:`PRIMAL_REG`), the factorisation (with it) being the approximate
    solve, stopped once a step no longer shrinks the residual by ``REFINE_STALL`` (the solver's own ``solve``
    runs all ``REFINE_STEPS`` steps when the rounding floor is out of reach: 60 SuperLU solves per direction).
    """

    def __init__(self, Hs: sp.csr_matrix, shift_s: np.ndarray, s: np.ndarray, G: sp.csr_matrix, border: int,
                 local: np.ndarray, cache: dict | None = None, choice: str = "auto"):
        Gs = sp.csr_matrix(G @ sp.diags(s))
        rn = np.sqrt(np.asarray(Gs.multiply(Gs).sum(axis=1)).ravel()) if G.shape[0] else np.zeros(0)
        self.s, self.r = s, 1.0 / np.where(rn > 0, rn, 1.0)
        Gs = sp.csr_matrix(sp.diags(self.r) @ Gs)
        self.local = local
        self.GS = sp.csr_matrix(Gs[local]) if local.size else None
        H = Hs if self.GS is None else sp.csr_matrix(Hs + _gram(self.GS, border))
        self.kkt = _kkt(H, Gs, border, {} if cache is None else cache, choice)
        self.shift_s = shift_s
        self.nv = Hs.shape[0]
        self.direct = isinstance(self.kkt, KKTFactor)
        self.name = self.kkt.name

    def __matmul__(self, x: np.ndarray) -> np.ndarray:
        """The scaled KKT matrix without the primal regularisation, applied to ``x``."""
        out = self.kkt.K0 @ x
        if np.any(self.shift_s):
            out[: self.nv] -= self.shift_s * x[: self.nv]
        if self.GS is not None:
            out[: self.nv] -= self.GS.T @ (self.GS @ x[: self.nv])
        return out

    def solve(self, rhs: np.ndarray) -> tuple[np.ndarray, float]:
        """Solution of ``[[H, Gᵀ], [G, 0]] x = rhs`` (unscaled) and the relative residual of the scaled system."""
        nv = self.nv
        b = np.concatenate([self.s * rhs[:nv], self.r * rhs[nv:]])
        base = self.kkt.once

        def once(r):
            if self.GS is None:
                return base(r)
            r = r.copy()
            r[:nv] += self.GS.T @ r[nv:][self.local]
            return base(r)

        xs = refine_solve(once, self, b, stall=REFINE_STALL)
        nb = max(np.linalg.norm(b), SCALE_FLOOR)
        rr = float(np.linalg.norm(b - self @ xs) / nb)
        if rr > SOLVE_RTOL and np.all(np.isfinite(xs)):
            n = b.size
            A = spla.LinearOperator((n, n), matvec=lambda x: self @ x, dtype=float)
            M = spla.LinearOperator((n, n), matvec=once, dtype=float)
            xg = spla.gmres(A, b, x0=xs, M=M, rtol=GMRES_RTOL, atol=0.0, restart=GMRES_RESTART, maxiter=GMRES_CYCLES)[0]
            rg = float(np.linalg.norm(b - self @ xg) / nb)
            if rg < rr:
                xs, rr = xg, rg
        if not np.all(np.isfinite(xs)):
            raise ValueError("sparse LAD interior point: the KKT solve produced non-finite values")
        return np.concatenate([self.s * xs[:nv], self.r * xs[nv:]]), rr


class NotConverged(ValueError):
    """Not converged within ``max_iter`` iterations; ``trace``: the per-iteration residuals."""

    def __init__(self, trace: list, msg: str):
        super().__init__(msg)
        self.trace = trace


def _direction(nodes: _Nodes, solve, theta: np.ndarray, st: tuple, res: dict, cp: np.ndarray, cq: np.ndarray) -> dict:
    """The Newton direction of the module docstring from the reduced system.

    ``st = (p, q, s_p, s_q)``; ``res``: ``r1 = Dv − p + q − y``, ``r2 = Gv − h``, ``rd = μEᵀEv − Dᵀz − Gᵀλ``,
    ``rp = w + z − s_p``, ``rq = w − z − s_q``; ``cp``, ``cq``: right-hand sides of ``s_p∘dp + p∘ds_p = cp``,
    ``s_q∘dq + q∘ds_q = cq``; ``solve`` solves ``[[H, Gᵀ], [G, 0]] x = rhs``.  The full system it solves
    (checked against a dense solve in the tests)::

        μEᵀE dv − Dᵀdz − Gᵀdλ = −rd,   dz − ds_p = −rp,   −dz − ds_q = −rq,
        D dv − dp + dq = −r1,   G dv = −r2,   s_p∘dp + p∘ds_p = cp,   s_q∘dq + q∘ds_q = cq.

    With ``ds_p = dz + rp`` and ``ds_q = rq − dz``: ``dp = (cp − p∘rp − p∘dz)/s_p``, ``dq = (cq − q∘rq + q∘dz)/s_q``,
    so ``D dv + dz/Θ = ρ`` with ``ρ = −r1 + (cp − p∘rp)/s_p − (cq − q∘rq)/s_q``, ``dz = Θ(ρ − D dv)``, and
    ``(μEᵀE + DᵀΘD) dv − Gᵀdλ = −rd + DᵀΘρ``.
    """
    p, q, s_p, s_q = st
    ap_, aq_ = cp - p * res["rp"], cq - q * res["rq"]
    rho = -res["r1"] + ap_ / s_p - aq_ / s_q
    sol = solve(np.concatenate([-res["rd"] + nodes.DT(theta * rho), -res["r2"]]))
    nv = nodes.nv
    dv, dlam = sol[:nv], -sol[nv:]
    dz = theta * (rho - nodes.D(dv))
    return {"v": dv, "lam": dlam, "z": dz, "p": (ap_ - p * dz) / s_p, "q": (aq_ + q * dz) / s_q,
            "sp": dz + res["rp"], "sq": res["rq"] - dz}


def max_step(x: np.ndarray, dx: np.ndarray) -> float:
    """Largest ``a <= 1`` with ``x + a·dx >= 0`` (``x > 0``): the step to the boundary of both interior points
    (this one and the dense :func:`mixbounds.instances.nonsmooth.qp_interior_point`)."""
    neg = dx < 0
    return min(1.0, float(np.min(-x[neg] / dx[neg]))) if np.any(neg) else 1.0


def _steps(st: tuple, d: dict, mu: float) -> tuple[float, float]:
    """Primal and dual step to the boundary (one common step when ``μ > 0``: the dual residual involves ``v``)."""
    p, q, s_p, s_q = st
    ap = min(max_step(p, d["p"]), max_step(q, d["q"]))
    ad = min(max_step(s_p, d["sp"]), max_step(s_q, d["sq"]))
    return (min(ap, ad),) * 2 if mu else (ap, ad)


def lad_interior_point(problem_sk: MixedProblem, feats, ys, mu: float, *, tol: float = LAD_TOL,
                       max_iter: int = LAD_MAX_ITER, eliminate: bool = True, kkt: str = "auto") -> dict:
    """Solve the lifted problem of the module docstring for ``problem_sk``'s constraints and the data
    ``feats[i]`` (``N_i × (d_i + d̃)``), ``ys[i]`` (``N_i``), ``μ >= 0``.

    With ``eliminate`` (default) the rows of ``G`` on one block (``C_i``, ``C̃_i``) are first eliminated through
    their null spaces (:mod:`mixbounds.instances.reference.block_elimination`) and the interior point runs on the reduced problem; its
    stopping rule is then measured there (the same problem up to the constant ``(μ/2)‖E v⁰‖²``, which ``objective``
    includes), and ``primal_residual_constraints`` is recomputed on the original ``G v = h``.

    Returns ``{"u": E v, "v": v, "info": {...}}`` with ``info`` = method, iterations, the residuals of the
    stopping rule (``primal_residual`` = the larger of the two primal ones), ``objective``, ``factor``
    (the KKT solver used at the last iteration) and ``elimination`` (rows eliminated and kept, sizes; ``None``
    when nothing was eliminated).  ``ValueError`` when not converged in ``max_iter`` iterations.  ``kkt``: one of
    :data:`KKT_CHOICES`.
    """
    if kkt not in KKT_CHOICES:
        raise ValueError(f"sparse LAD interior point: kkt must be one of {KKT_CHOICES}, got {kkt!r}")
    lay = problem_sk.layout
    G, h = constraint_system(problem_sk)
    G = sp.csr_matrix(G)
    red = eliminate_blocks(lay, G, h, feats, ys) if eliminate else None
    if red is None:
        out = _solve(lay, G, h, feats, ys, mu, tol, max_iter, kkt)
        out["info"]["elimination"] = None
        return out
    out = _solve(red.layout, red.G, red.h, red.feats, red.ys, mu, tol, max_iter, kkt)
    v = red.lift(out["v"])
    info = out["info"]
    info["objective"] += 0.5 * mu * float(red.v0 @ (copy_weights(lay) * red.v0))  # (μ/2)‖E v⁰‖²
    info["primal_residual_constraints"] = float(np.linalg.norm(G @ v - h) / (1.0 + np.linalg.norm(h)))
    info["primal_residual"] = max(info["primal_residual_data"], info["primal_residual_constraints"])
    info["elimination"] = red.stats
    return {"u": layout_copy_map(lay) @ v, "v": v, "info": info}


def _not_converged(trace: list, hist: dict, max_iter: int, tol: float) -> NotConverged:
    """The error of a run that spent ``max_iter`` iterations: its last relative residuals against ``tol``."""
    return NotConverged(trace,
        f"sparse LAD interior point did not converge in {max_iter} iterations: relative residuals primal "
        f"{hist['primal_residual_data']:.1e} (data) / {hist['primal_residual_constraints']:.1e} (constraints), "
        f"dual {hist['dual_residual']:.1e}, duality gap {hist['duality_gap']:.1e}, complementarity "
        f"{hist['complementarity']:.1e} (tolerance {tol:g})")


def _predictor(nodes: _Nodes, theta: np.ndarray, mu: float, levels: tuple, lvl: int, system: tuple, st: tuple,
               res: dict) -> tuple:
    """Factor the KKT system of this iteration and take the predictor (affine-scaling) direction, raising the primal
    regularisation ``levels[lvl]`` while a factorisation is refused or (Schur path) too inaccurate even for GMRES.
    ``system``: ``(G, border, local rows, node-block cache, kkt_choice)`` of :class:`_Scaled`.  Returns
    ``(kkt, solve, solve residuals, direction, lvl)``: ``solve`` records each solve's residual for the corrector."""
    p, q, s_p, s_q = st
    solve_res: list = []
    while True:
        try:
            kkt = _Scaled(*nodes.hessian(theta, mu, levels[lvl]), *system)
        except ValueError:  # a node block or the Schur complement not numerically positive definite
            if lvl + 1 == len(levels):
                raise
            lvl += 1
            continue

        def solve(rhs, kkt=kkt):
            sol, rr = kkt.solve(rhs)
            solve_res.append(rr)
            return sol

        # predictor (affine scaling): complementarity targets 0
        d = _direction(nodes, solve, theta, st, res, -p * s_p, -q * s_q)
        if kkt.direct or solve_res[-1] <= SOLVE_RTOL or lvl + 1 == len(levels):
            return kkt, solve, solve_res, d, lvl
        lvl += 1  # Schur path: the factorisation went through but is too inaccurate even for GMRES


def _solve(lay: Layout, G: sp.csr_matrix, h: np.ndarray, feats, ys, mu: float, tol: float, max_iter: int,
           kkt_choice: str = "auto") -> dict:
    """The interior point of the module docstring on the layout ``lay`` and the constraints ``G v = h``."""
    E = layout_copy_map(lay)
    nodes = _Nodes(feats, lay, E)
    y = np.concatenate([np.asarray(t, dtype=float).ravel() for t in ys])
    w = np.concatenate([np.full(np.shape(F)[0], 1.0 / np.shape(F)[0]) for F in feats])
    nv, nr = nodes.nv, y.size
    q_diag = copy_weights(lay)  # EᵀE (diagonal)
    ny, nh, nc = 1.0 + np.linalg.norm(y), 1.0 + np.linalg.norm(h), 1.0 + np.sqrt(2.0) * np.linalg.norm(w)

    v = np.zeros(nv)
    r = y - nodes.D(v)
    shift = START_SHIFT * max(1.0, float(np.mean(np.abs(r))))
    p, q = np.maximum(-r, 0.0) + shift, np.maximum(r, 0.0) + shift
    z = np.zeros(nr)
    s_p, s_q = w.copy(), w.copy()
    lam = np.zeros(G.shape[0])
    local = _local_rows(G, lay)
    cache: dict = {}  # the node blocks of H (a fixed pattern), for the deflated KKT solver
    hist = {}
    factor = None
    levels = (0.0, *PRIMAL_REG)
    lvl = 0  # index into levels: raised when a factorisation is refused or (Schur path) useless, never lowered
    trace = []
    t0 = time.perf_counter()
    for it in range(max_iter + 1):
        res = {"r1": nodes.D(v) - p + q - y, "r2": G @ v - h, "rd": mu * q_diag * v - nodes.DT(z) - G.T @ lam,
               "rp": w + z - s_p, "rq": w - z - s_q}
        comp = float(p @ s_p + q @ s_q)
        quad = 0.5 * mu * float(v @ (q_diag * v))
        primal = float(w @ (p + q)) + quad
        dual = float(y @ z + h @ lam) - quad
        dres = np.sqrt(sum(float(res[k] @ res[k]) for k in ("rd", "rp", "rq")))
        hist = {"primal_residual_data": float(np.linalg.norm(res["r1"]) / ny),
                "primal_residual_constraints": float(np.linalg.norm(res["r2"]) / nh),
                "dual_residual": float(dres / nc),
                "duality_gap": float(abs(primal - dual) / (1.0 + abs(primal))),
                "complementarity": float(comp / (1.0 + abs(primal)))}
        trace.append({"seconds": round(time.perf_counter() - t0, 3), **{k: float(f"{x:.3e}") for k, x in hist.items()}})
        log.info("reference (sparse interior point): iteration %d, largest relative residual %.1e (tolerance %g), "
                 "%.0f s", it, max(hist.values()), tol, trace[-1]["seconds"])
        if max(hist.values()) <= tol:
            break
        if it == max_iter:
            raise _not_converged(trace, hist, max_iter, tol)
        st = (p, q, s_p, s_q)
        theta = 1.0 / (p / s_p + q / s_q)
        kkt, solve, solve_res, d, lvl = _predictor(nodes, theta, mu, levels, lvl, (G, lay.dt, local, cache, kkt_choice),
                                                   st, res)
        factor = kkt.name + (f", regularised {levels[lvl]:g}" if lvl else "")
        ap, ad = _steps(st, d, mu)
        mean = comp / (2 * nr)
        mean_aff = float((p + ap * d["p"]) @ (s_p + ad * d["sp"]) + (q + ap * d["q"]) @ (s_q + ad * d["sq"])) / (2 * nr)
        sigma = min(1.0, (mean_aff / mean) ** 3) if mean > 0 else 0.0
        # corrector: centring σ·mean and the second-order term of the predictor, same factorisation
        target = max(sigma * mean, COMP_FLOOR * tol * (1.0 + abs(primal)) / (2 * nr))
        d = _direction(nodes, solve, theta, st, res, target - p * s_p - d["p"] * d["sp"],
                       target - q * s_q - d["q"] * d["sq"])
        ap, ad = _steps(st, d, mu)
        ap, ad = STEP_FRACTION * ap, STEP_FRACTION * ad
        trace[-1].update(sigma=float(f"{sigma:.3e}"), step_primal=float(f"{ap:.4g}"), step_dual=float(f"{ad:.4g}"),
                         solve_residual=float(f"{max(solve_res):.2e}"), factor=factor)
        v, p, q = v + ap * d["v"], p + ap * d["p"], q + ap * d["q"]
        z, lam, s_p, s_q = z + ad * d["z"], lam + ad * d["lam"], s_p + ad * d["sp"], s_q + ad * d["sq"]
        del kkt, solve, d  # free the factorisation before the next one is formed (GBs at 10⁶ variables)
    info = {"method": METHOD, "iterations": it, "tolerance": tol, "factor": factor,
            "primal_residual": max(hist["primal_residual_data"], hist["primal_residual_constraints"]), **hist,
            "objective": primal, "trace": trace}
    return {"u": E @ v, "v": v, "info": info}
