"""The strong convexity ``μ_G`` and smoothness ``L_G`` of the reformulated objective ``G``, three ways, and the
cost model behind ``mixbounds solve``'s default (``constants="auto"``).

``G(w) = F(x, X̃) + (r/2)‖A x + αW'Y − b‖²`` (``eq:coupled_constraints_reg_form``), restricted to
``R^d × L_m^⊥ × R^{n d̃}`` (``L_m^⊥ = {Σ_i y_i = 0}``, where the iterates live); ``∇²G = ∇²F ⊕ 0 + r JᵀJ`` with
``J = (A, αW'⊗I)``.  Lemma ``lem:conv_smooth_c_and_l`` bounds its constants by ``μ_f/4`` and ``2L_f κ_{W'}²``; those
are kept (``constants="lemma"``) for the as-printed rate checks.  Without ``A``, ``G = F`` and every mode gives
``(μ_f, L_f)``.

``constants="bounds"`` (:func:`bound_constants`): closed-form bounds from the same facts as the lemma (``μ_f``,
``L_f``, ``L_A = max_i σ_max²(A_i)``, the scaling ``α``, ``r`` and the interval ``[σ_lo, σ_hi]`` of the singular values
of ``W'`` on ``1^⊥``, so ``μ_W = σ_lo²``, ``L_W = σ_hi²``); no oracle call.  With ``a = rα²μ_W``, ``b = r L_A``,
``a' = rα²L_W`` and ``v = A x`` split into its consensus part ``v_∥`` and the rest ``v_⊥`` (``W'Y ⊥ v_∥``):

* ``L_G <= L_f + b(1 + t)`` for the ``t > 0`` with ``L_f + b(1 + t) = a'(1 + 1/t)``: Young's inequality
  ``r‖v + αW'Y‖² <= r(1 + t)‖v‖² + r(1 + 1/t)α²‖W'Y‖²``, then ``∇²F ⪯ L_f``, ``‖Ax‖² <= L_A‖x‖²``,
  ``‖W'Y‖² <= L_W‖Y‖²``; the smaller of this and the lemma's value is used.
* ``μ_G >= λ*``, the smaller root of ``(μ_f − λ)(a − λ) = bλ``: for ``λ < a``, minimising
  ``r‖v_⊥ + αW'Y‖² − λ‖Y‖²`` over ``Y ∈ L_m^⊥`` gives ``−rλ v_⊥ᵀ(rα²W'² − λ)⁻¹v_⊥ >= −c‖v_⊥‖²`` with
  ``c = rλ/(a − λ)`` (``W'² ⪰ μ_W`` on ``1^⊥``), so ``⟨w, ∇²G w⟩ − λ‖w‖² >= (μ_f − λ)‖u‖² + r‖v_∥‖² − c‖v_⊥‖²
  >= (μ_f − λ − c L_A)‖u‖²``, which is ``>= 0`` up to ``λ*``.  With ``α²μ_W >= L_A`` (both ``α`` of
  ``lem:coupled_spectrum`` and ``eq:block_scaling``) ``λ* >= μ_f/4``: never below the lemma.

``constants="spectral"`` (:func:`spectral_constants`): the extreme eigenvalues of ``∇²G`` on that subspace by ARPACK on
the operator ``v ↦ Π ∇²G Π v`` (``Π`` removes the node mean of ``Y``, a rank-``m`` projection), never as a matrix;
``λ_min`` uses ``Π∇²GΠ + λ_max(I − Π)`` so that the removed directions sit at the top.  Quadratic ``F``: ``∇²F = Q``
and the numbers are the exact constants (``constants="exact"`` computes the same ones densely up to 3000 unknowns;
``tests/test_scale.py`` compares them); other smooth ``F``: ``μ_f I`` and ``L_f I`` replace ``∇²F``.  Every product
goes through the reformulation's *set-up* oracles (:attr:`mixbounds.solvers.reformulations.Reformulation.setup_orc`): one
Hessian product costs one ``grad`` round (``Q v = ∇F(v) − ∇F(0)``), two ``A`` and ``2·deg W'`` ``comm`` rounds, and
the solve reports them as ``setup_counts``, apart from its own ``counts``.

``constants="auto"`` (:func:`choose_constants`): ``bounds``, with the cost model's account of what ``spectral`` would
have cost and saved.  Spectral constants can only shorten the run by the ratio of the condition numbers (at most the
fraction ``1 − I(κ_min)/I(κ_b)`` of its iterations, :func:`saved_fraction_max`), while their Lanczos products are paid
up front, and for a quadratic ``F`` each product costs one ``grad`` round, as one iteration does.  ARPACK makes at
least :func:`lanczos_products_min` of them, but how many more depends on how the ends of the spectrum cluster, which
nothing cheaper than the eigen-solve itself tells: measured at ``eps = 1e-8`` on every family with ``A`` (the
worst-case constructions at κ = 4–10, the random families and applications at their defaults), 82 to 53,942 products
for 0 to 24 iterations saved, and 61,594 products for none on the printed coupled construction at ``κ = 30`` (10,800
variables); ``tests/test_constants_cost.py`` checks it family by family.  A set-up that must never cost more oracle calls
than it saves, nor more than half the iteration phase, therefore starts no eigen-solve of unknown length;
:func:`measured_reason` states after the run what exact constants could at most have saved, from the measured
iterations.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse.linalg as spla
from mixbounds.bounds.concepts import Oracle
from mixbounds.instances.objectives import QuadraticObjective
from mixbounds.solvers.oracles import ORACLES

#: ARPACK relative tolerance of the two extreme eigenvalues
LANCZOS_TOL = 1e-10
#: Lanczos basis size and iteration cap
LANCZOS_NCV = 40
LANCZOS_MAXITER = 100_000


# ----------------------------------------------------------------------------- bounds from the facts
def bound_constants(R) -> dict:
    """``μ_G``, ``L_G`` bounds of the reformulation ``R`` from its facts (module docstring), with their terms.

    Returns ``{"mu": λ*, "L": …, "a": rα²μ_W, "b": rL_A, "a_prime": rα²L_W, "t": …}`` (without ``A``:
    ``{"mu": μ_f, "L": L_f}``, the exact constants of ``G = F``).
    """
    obj = R.problem.objective
    mu_f, L_f = float(obj.mu), float(obj.L)
    if not R.has_A:
        return {"mu": mu_f, "L": L_f}
    s, f = R.scal, R.facts
    r, al2 = s["r"], s["alpha"] ** 2
    a, b, ap = r * al2 * s["mu_W"], r * f["L_A"], r * al2 * s["L_W"]
    tot = mu_f + a + b
    # smaller root of λ² − (μ_f + a + b)λ + μ_f a, written without cancellation
    mu = 2 * mu_f * a / (tot + math.sqrt(tot * tot - 4 * mu_f * a))
    B = L_f + b - ap
    t = 2 * ap / (B + math.sqrt(B * B + 4 * b * ap)) if B > 0 else (-B + math.sqrt(B * B + 4 * b * ap)) / (2 * b)
    L_young = L_f + b * (1 + t)
    L_lemma = 2 * L_f * s["kappa_W_prime"] ** 2
    return {"mu": mu, "L": min(L_young, L_lemma), "L_young": L_young, "a": a, "b": b, "a_prime": ap, "t": t}


# ----------------------------------------------------------------------------- Lanczos, counted
def _hessian_operator(R, F_op):
    """``v ↦ Π(F_op ⊕ 0 + r JᵀJ)Π v`` on the flat ``w`` of the reformulation ``R``, through its set-up oracles."""
    n, m, dx = R.n, R.m, R.dx
    ops = R._ops(R.setup_orc)
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
    """``(μ_G, L_G)`` of the reformulation ``R`` (a :class:`mixbounds.solvers.reformulations.Reformulation`) by Lanczos; every
    product counted on ``R.setup_orc`` (module docstring)."""
    obj = R.problem.objective
    if not R.has_A:
        return float(obj.mu), float(obj.L)
    orc = R.setup_orc
    if isinstance(obj, QuadraticObjective):
        g0 = orc.grad(np.zeros(R.dx + R.n * R.dt))  # ∇F(0) = −q, once: then Q v = ∇F(v) − ∇F(0), one round each
        lo_op = hi_op = (lambda u: orc.grad(u) - g0)
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


# ----------------------------------------------------------------------------- the cost model of "auto"
def hessian_product_counts(R) -> dict:
    """Oracle rounds of one Hessian product of :func:`spectral_constants` (``grad`` only for a quadratic ``F``)."""
    dW = R.degrees().get("W", 1)
    quad = isinstance(R.problem.objective, QuadraticObjective)
    return {Oracle.GRAD: int(quad), Oracle.A: 2, Oracle.C: 0, Oracle.CT: 0, Oracle.COMM: 2 * dW}


def lanczos_products_min(R) -> int:
    """The fewest Hessian products :func:`spectral_constants` can make: ARPACK's first Lanczos factorisation builds
    ``min(size, LANCZOS_NCV)`` basis vectors, one product each, for each of the two ends."""
    return 2 * min(R.size, LANCZOS_NCV)


def predicted_iterations(kappa: float, chi: float, eps: float) -> float:
    """APAPC's iterations to ``eps`` by its rate ``(1 + ¼ min{1/√(κχ), 1/χ})^{−k}`` (:mod:`mixbounds.solvers.apapc`): a
    worst-case count (6.6–12.8× the measured ones on every family with ``A`` at ``eps = 1e-8``), used only for ratios."""
    return math.log(1.0 / eps) / math.log1p(0.25 * min(1.0 / math.sqrt(kappa * chi), 1.0 / chi))


def saved_fraction_max(kappa_bounds: float, kappa_min: float, chi: float, eps: float) -> float:
    """The largest fraction of a run's iterations that constants with ``κ_G >= kappa_min`` can save against the bounds'
    ``kappa_bounds``: ``1 − I(κ_min)/I(κ_b)`` with ``I`` = :func:`predicted_iterations` (``1 − √(κ_min/κ_b)`` where the
    rate is ``1/√(κχ)``, 0 where it is ``1/χ``)."""
    lo = min(kappa_min, kappa_bounds)
    return max(0.0, 1.0 - predicted_iterations(lo, chi, eps) / predicted_iterations(kappa_bounds, chi, eps))


def choose_constants(R, eps: float) -> tuple[str, str, dict]:
    """``("bounds", reason, model)``: the constants ``constants="auto"`` uses, and the cost model's account of
    ``spectral`` (module docstring: no eigen-solve of unknown length is started).

    With the bounds ``κ_b = L_b/μ_b``, the exact constants satisfy ``L_G >= L_f`` (Rayleigh quotient at ``∇²F``'s top
    direction) and ``μ_G <= min(μ_f + r L_A, rα²L_W)`` (at ``∇²F``'s bottom direction, or a ``Y`` alone), so
    ``κ_G >= κ_min = L_f / min(μ_f + rL_A, rα²L_W)``: at most the fraction :func:`saved_fraction_max` of the
    iterations is saved, each costing :meth:`~mixbounds.solvers.reformulations.Reformulation.per_iteration_counts`;
    the Lanczos costs at least :func:`lanczos_products_min` × :func:`hessian_product_counts`.  ``model`` holds these
    numbers for :func:`measured_reason`.
    """
    if not R.has_A:
        return "bounds", "no coupled constraint: G = F, the bounds are the exact (μ_f, L_f)", {}
    b = bound_constants(R)
    obj = R.problem.objective
    lo, hi = R.interval
    chi = hi / lo
    kappa_b = b["L"] / b["mu"]
    kappa_min = float(obj.L) / min(float(obj.mu) + b["b"], b["a_prime"])
    frac = saved_fraction_max(kappa_b, kappa_min, chi, eps)
    products = lanczos_products_min(R)
    per_prod = hessian_product_counts(R)
    model = {"kappa_bounds": kappa_b, "kappa_min": kappa_min, "chi": chi, "saved_fraction_max": frac,
             "lanczos_products_min": products, "product_counts": per_prod,
             "iteration_counts": R.per_iteration_counts()}
    return "bounds", (f"no set-up: exact constants could save at most {100 * frac:.0f}% of the iterations (κ_G from "
                      f"{kappa_b:.3g} down to >= {kappa_min:.3g}) for a Lanczos of >= {products} Hessian products "
                      f"whose length is not known in advance"), model


def measured_reason(model: dict, iterations: int) -> str:
    """What ``spectral`` could at most have saved in a run of ``iterations`` iterations with the bounds, against its
    least Lanczos cost, per oracle (``model`` from :func:`choose_constants`); "" without a model."""
    if not model:
        return ""
    saved = model["saved_fraction_max"] * iterations
    cost = {k: model["lanczos_products_min"] * model["product_counts"][k] for k in ORACLES}
    gain = {k: saved * model["iteration_counts"][k] for k in ORACLES}
    worse = [k for k in ORACLES if cost[k] > gain[k]]
    head = (f"measured {iterations} iterations: exact constants would have saved at most {saved:.0f} of them "
            f"({', '.join(f'{k} {gain[k]:.0f}' for k in ORACLES if gain[k])})")
    if worse:
        k = worse[0]
        return f"{head}, fewer {k} rounds than the >= {cost[k]:.0f} their Lanczos costs"
    return (f"{head}, against >= {', '.join(f'{k} {cost[k]:.0f}' for k in ORACLES if cost[k])} for their Lanczos "
            "plus its unknown remainder (--constants spectral computes them)")
