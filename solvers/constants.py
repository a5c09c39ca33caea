"""``constants="spectral"``: the strong convexity and smoothness of the reformulated objective ``G``,
computed iteratively from operators (Lanczos), at any size.

``G(w) = F(x, X̃) + (r/2)‖A x + αW'Y − b‖²`` (``eq:coupled_constraints_reg_form``).  Lemma
``lem:conv_smooth_c_and_l`` bounds its constants by ``μ_f/4`` and ``2L_f κ_{W'}²``; those are kept
(``constants="lemma"``) for the as-printed rate checks.  Here the extreme eigenvalues of ``∇²G``
restricted to ``R^d × L_m^⊥ × R^{n d̃}`` (``L_m^⊥ = {Σ_i y_i = 0}``, where the iterates live) are
computed with ARPACK on the operator ``v ↦ Π ∇²G Π v`` — ``Π`` removes the node mean of ``Y`` (a
rank-``m`` projection), ``∇²G = ∇²F ⊕ 0 + r JᵀJ`` with ``J = (A, αW'⊗I)`` — never as a matrix.
``λ_min`` uses ``Π∇²GΠ + λ_max(I − Π)`` so that the removed directions sit at the top.

* Quadratic ``F``: ``∇²F = Q`` and the numbers are the exact constants (``constants="exact"``
  computes the same ones densely up to 3000 unknowns; ``tests/test_scale.py`` compares them).
* Other smooth ``F``: ``∇²F`` varies, so ``μ_f I`` and ``L_f I`` replace it for ``μ_G`` and ``L_G``
  respectively (Assumption ``ass:smooth_and_str_convex_of_f_i``): valid bounds, tight for the
  penalty part.
* Without ``A``, ``G = F`` and the constants are ``(μ_f, L_f)``.

The products use a scratch oracle (set-up work, not counted), like every spectral constant.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse.linalg as spla
from mixbounds.instances.objectives import QuadraticObjective

#: ARPACK relative tolerance of the two extreme eigenvalues
LANCZOS_TOL = 1e-10
#: Lanczos basis size and iteration cap
LANCZOS_NCV = 40
LANCZOS_MAXITER = 100_000


def _hessian_operator(R, F_op):
    """``v ↦ Π(F_op ⊕ 0 + r JᵀJ)Π v`` on the flat ``w`` of the reformulation ``R``."""
    n, m, dx = R.n, R.m, R.dx
    ops = R._ops(R.scratch)
    orc = ops.orc
    alpha, r = R.scal["alpha"], R.scal["r"]
    sx, sy, st = R.sx, R.sy, R.st

    def proj(v):
        Y = v[sy].reshape(n, m)
        v[sy] = (Y - Y.mean(axis=0, keepdims=True)).ravel()
        return v

    def matvec(v):
        v = proj(np.array(np.ravel(v), dtype=float))
        out = np.zeros_like(v)
        u = np.concatenate([v[sx], v[st]])
        hu = F_op(u)
        out[sx], out[st] = hu[:dx], hu[dx:]
        e = orc.A(v[sx])
        e += alpha * ops.Wp(v[sy].reshape(n, m))
        out[sx] += r * orc.AT(e)
        out[sy] = (r * alpha * ops.Wp(e)).ravel()
        return proj(out)

    return matvec, proj


def _extreme(matvec, size: int, which: str) -> float:
    op = spla.LinearOperator((size, size), matvec=matvec, dtype=float)
    v0 = np.random.default_rng(3).standard_normal(size)
    val = spla.eigsh(op, k=1, which=which, tol=LANCZOS_TOL, ncv=min(size, LANCZOS_NCV), maxiter=LANCZOS_MAXITER,
                     v0=v0, return_eigenvectors=False)
    return float(val[0])


def spectral_constants(R) -> tuple[float, float]:
    """``(μ_G, L_G)`` of the reformulation ``R`` (a :class:`mixbounds.solvers.reformulations.Reformulation`)."""
    obj = R.problem.objective
    if not R.has_A:
        return float(obj.mu), float(obj.L)
    if isinstance(obj, QuadraticObjective):
        Q = obj.Q
        lo_op = hi_op = (lambda u: Q @ u)
    else:
        lo_op, hi_op = (lambda u: obj.mu * u), (lambda u: obj.L * u)
    mv_hi, _ = _hessian_operator(R, hi_op)
    L = _extreme(mv_hi, R.size, "LA")
    mv_lo, proj = _hessian_operator(R, lo_op)

    def shifted(v):
        v = np.ravel(v)
        return mv_lo(v) + L * (v - proj(v.copy()))

    mu = _extreme(shifted, R.size, "SA")
    if not (np.isfinite(mu) and mu > 0 and np.isfinite(L) and L >= mu):
        raise ValueError(f"constants='spectral': Lanczos gave μ_G = {mu}, L_G = {L} (need 0 < μ_G <= L_G)")
    return mu, L
