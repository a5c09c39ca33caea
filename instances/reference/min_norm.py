"""The minimiser of a convex quadratic (P) nearest to the start: dense least squares, or proximal-point steps on a
sparse KKT system.

The smooth convex families (Table 2, ``μ_f = 0``, :mod:`mixbounds.instances.convex`) have a whole affine set of
minimisers ``v₀ + N`` with ``N = ker H ∩ ker G`` (``H = Eᵀ∇²F E``, ``G v = h`` the constraints in the
original variables ``v = (x, x̃)``, :mod:`mixbounds.instances.reference.kkt`).  Their reference ``u*`` is the one nearest to
``u⁰ = 0`` in the u-layout norm, ``‖E v‖² = vᵀ D v`` with ``D = EᵀE = diag(1 for x, n for x̃)``: the point the
regularised method of ``thm:smooth_objectives_apapc_convergence`` converges to as ν → 0, and the ``u*`` that
makes ``R = ‖u⁰ − u*‖`` of ``lem:regularized_convergence`` smallest.

Up to :data:`DENSE_REFERENCE_MAX` unknowns and multipliers (:func:`min_norm_quadratic_solution`): one solution of
the singular KKT system by dense least squares, then its component along the solution set ``v₀ + N`` removed in
the D-metric (``N`` from an SVD whose rank cut ``1e-10`` lies far between the exact zeros, ~1e-16, and the
smallest nonzero singular value).  That route is cubic in the size.  Above it, with one factorisation of the strongly convex KKT matrix
``[[H + νD, Gᵀ], [G, 0]]`` (the structured solver of :func:`mixbounds.instances.reference.saddle_point.kkt_solver`), the
proximal-point steps

    w_{j+1} = argmin F(E v) + (ν/2)‖v − w_j‖²_D   s.t.  G v = h,      w₀ = 0,

converge to the minimiser nearest to ``w₀``: every step keeps the D-orthogonal projection onto ``N`` of its
iterate (``Hz − g + νD(z − w) + Gᵀλ = 0`` and ``N ⊥ range H + range Gᵀ`` give ``nᵀD(z − w) = 0`` for
``n ∈ N``, since ``g`` lies in ``N^⊥`` when minimisers exist), and that projection is 0 at ``w₀ = 0``.  On the
complement each step contracts by ``ν/(ν + λ)`` for the eigenvalues ``λ > 0`` of the reduced Hessian.

**Certificate.**  Nearest to 0 means ``D v ∈ range H + range Gᵀ``.  Summing the step equations gives
``D w_K = H α + Gᵀ β + K D δ_{K−1}`` with ``α = (1/ν) Σ_j j δ_j``, ``β = (1/ν) Σ_j j (λ_j − λ_{j−1})``,
``δ_j = w_{j+1} − w_j`` (sums of steps, no cancellation of large terms); ``‖D v − Hα − Gᵀβ‖`` is then
evaluated with the matrices themselves, so a wrong step, a wrong metric or a start with a component in ``N``
shows as a large residual.  Both it and the KKT residual of (P) are reported and must be below
:data:`MIN_NORM_RTOL` and :data:`mixbounds.instances.reference.kkt.KKT_RTOL`; otherwise ``ValueError``, never a point.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from mixbounds.bounds.guards import SCALE_FLOOR
from mixbounds.instances.problem import MixedProblem
from mixbounds.instances.reference.saddle_point import (
    KKT_RTOL,
    REFINE_STALL,
    constraint_system,
    copy_map,
    copy_weights,
    kkt_solver,
    relative_kkt_residual,
)

#: proximal weight ν relative to L_f: each step contracts the complement of N by ν/(ν + λ); smaller ν converges
#: in fewer steps but makes H + νD closer to singular (its smallest eigenvalue is ν·min D = ν)
PROX_NU = 1e-2
#: the steps stop once a step is this small relative to the iterate (D-norm) …
STEP_RTOL = 1e-14
#: … or once this many steps in a row were no smaller than the smallest step so far (the rounding floor)
STALL_STEPS = 5
#: at most this many steps; more is an error (the reduced Hessian has eigenvalues far below ν)
MAX_STEPS = 2000
#: required relative residual of the certificate D v ∈ range H + range Gᵀ
MIN_NORM_RTOL = 1e-9
#: the dense least-squares route (cubic in nv + nc) is used up to this many unknowns plus multipliers, the
#: sparse proximal one above: every instance of the verify tiers and of the tests (n = 4 ring, ≤ 60 unknowns)
#: stays on the dense route, which the sparse one is tested against (tests/test_min_norm_reference.py)
DENSE_REFERENCE_MAX = 2000
#: rank cut of the null space ker H ∩ ker G (relative to the largest singular value of [H; G])
NULL_SPACE_RCOND = 1e-10


def min_norm_quadratic_solution(problem: MixedProblem) -> dict:
    """Minimiser of a convex quadratic (P) nearest to 0 in the u-layout norm (module docstring).

    Parameters
    ----------
    problem : MixedProblem
        With a :class:`~mixbounds.instances.objectives.QuadraticObjective` (convex, not necessarily strongly).

    Returns
    -------
    dict
        ``u`` (u-layout), ``v`` (original variables), ``multipliers``, ``kkt_residual``, ``solution_set_dim``
        (``dim(ker H ∩ ker G)``; ``None`` on the proximal route), ``method``, and on the proximal route
        ``min_norm_residual`` (its certificate).  ``ValueError`` when the KKT residual exceeds
        :data:`~mixbounds.instances.reference.saddle_point.KKT_RTOL`.
    """
    E = copy_map(problem)
    G, h = constraint_system(problem)
    if E.shape[1] + G.shape[0] > DENSE_REFERENCE_MAX:
        return dict(proximal_min_norm_solution(problem), solution_set_dim=None)
    obj = problem.objective
    H = (E.T @ obj.Q @ E).toarray()
    g = E.T @ obj.q
    G = G.toarray()
    nv, nc = H.shape[0], G.shape[0]
    K = np.block([[H, G.T], [G, np.zeros((nc, nc))]])
    sol = np.linalg.lstsq(K, np.concatenate([g, h]), rcond=None)[0]
    v0, lam = sol[:nv], sol[nv:]
    N = sla.null_space(np.vstack([H, G]), rcond=NULL_SPACE_RCOND)
    EtE = (E.T @ E).toarray()
    v = v0 + N @ np.linalg.solve(N.T @ EtE @ N, -(N.T @ EtE @ v0)) if N.shape[1] else v0
    stat = H @ v - g + G.T @ lam
    feas = G @ v - h
    den = np.linalg.norm(H @ v) + np.linalg.norm(g) + np.linalg.norm(G.T @ lam) + np.linalg.norm(h) + SCALE_FLOOR
    res = float(np.sqrt(stat @ stat + feas @ feas) / den)
    if not res <= KKT_RTOL:
        raise ValueError(f"convex reference: relative KKT residual {res:.2e} exceeds {KKT_RTOL:g}")
    return {"u": E @ v, "v": v, "multipliers": lam, "kkt_residual": res, "solution_set_dim": int(N.shape[1]),
            "method": "dense least-squares KKT + projection onto the solution set (min u-norm)"}


def proximal_min_norm_solution(problem: MixedProblem, *, nu: float | None = None, start: np.ndarray | None = None,
                               max_steps: int = MAX_STEPS) -> dict:
    """Minimiser of the convex quadratic (P) nearest to 0 in the u-layout norm (module docstring).

    ``start`` (original variables, default 0) exists for the negative control: from a start with a component in
    ``N`` the steps converge to another minimiser and the certificate, which assumes ``w₀ = 0``, must fail.
    Returns ``{"u", "v", "multipliers", "kkt_residual", "min_norm_residual", "steps", "method"}``.
    """
    obj = problem.objective
    lay = problem.layout
    E = copy_map(problem)
    H = sp.csr_matrix(E.T @ obj.Q @ E)
    g = E.T @ obj.q
    G, h = constraint_system(problem)
    nv, nc = H.shape[0], G.shape[0]
    Dm = copy_weights(lay)
    nu = PROX_NU * float(obj.L) if nu is None else float(nu)
    kkt = kkt_solver(sp.csr_matrix(H + sp.diags(nu * Dm)), G, lay.dt)
    w = np.zeros(nv) if start is None else np.asarray(start, dtype=float).copy()
    alpha, beta = np.zeros(nv), np.zeros(nc)
    lam_prev = None
    best, stalled, steps = np.inf, 0, 0
    dnorm = lambda x: float(np.sqrt(x @ (Dm * x)))
    converged = False
    for j in range(max_steps):
        # refined until a step no longer halves the residual: the direct solve's default (to the 1e-15 floor or
        # 60 steps) ran 53 LU solves per step at 10⁵ variables; the certificate measures what is left
        sol = kkt.solve(np.concatenate([g + nu * Dm * w, h]), stall=REFINE_STALL, guess=lam_prev)
        z, lam = sol[:nv], sol[nv:]
        delta = z - w
        alpha += j * delta
        if lam_prev is not None:
            beta += j * (lam - lam_prev)
        w, lam_prev, steps = z, lam, j + 1
        size = dnorm(delta)
        if size <= STEP_RTOL * max(dnorm(w), SCALE_FLOOR):
            converged = True
            break
        if size < best:
            best, stalled = size, 0
        else:
            stalled += 1
            if stalled >= STALL_STEPS:
                converged = True
                break
    if not converged:
        raise ValueError(f"convex reference: {steps} proximal steps did not converge (last step {size:.2e} of the "
                         f"iterate's D-norm {dnorm(w):.2e}); the reduced Hessian has eigenvalues far below ν = {nu:g}")
    alpha /= nu
    beta /= nu
    Dv, Ha, Gb = Dm * w, H @ alpha, (G.T @ beta if nc else np.zeros(nv))
    cert = float(np.linalg.norm(Dv - Ha - Gb) / max(np.linalg.norm(Dv) + np.linalg.norm(Ha) + np.linalg.norm(Gb), SCALE_FLOOR))
    # the KKT residual of (P) itself (the proximal term is gone at the fixed point)
    kkt_res = relative_kkt_residual(H @ w - g, -g, G, lam_prev if nc else np.zeros(0), w, h)
    if not kkt_res <= KKT_RTOL:
        raise ValueError(f"convex reference: relative KKT residual {kkt_res:.2e} exceeds {KKT_RTOL:g} "
                         f"after {steps} proximal steps")
    if not cert <= MIN_NORM_RTOL:
        raise ValueError(f"convex reference: the point is not the minimiser nearest to 0: residual {cert:.2e} of "
                         f"D v ∈ range H + range Gᵀ exceeds {MIN_NORM_RTOL:g} ({steps} proximal steps)")
    return {"u": E @ w, "v": w, "multipliers": lam_prev if nc else np.zeros(0), "kkt_residual": kkt_res, "min_norm_residual": cert, "steps": steps,
            "method": f"proximal-point steps (ν = {nu:g}, {steps} steps) on one {kkt.name} factorisation; "
                      "certificate D v ∈ range H + range Gᵀ"}
