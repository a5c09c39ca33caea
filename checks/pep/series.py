"""The PEP's worst cases as a third instance family of the Table 1 upper-bound sweeps (issue 35, item 2).

At every point of a PEP sweep (:mod:`mixbounds.checks.pep.registry`: one class, one network, ``κ_f`` and
``κ_W``) the PEP's worst case gives, for every node ``i``, the points ``x_j``, gradients ``g_j`` and values of a
function ``f_i ∈ F(μ_f, L_f)`` (``x_0 = 0``, ``g_0 = 0``: :mod:`mixbounds.checks.pep.model`).  This module
turns them into a suite instance of family ``pep-worst`` and measures the paper's method on it with the same
code as every other Table 1 series (:func:`mixbounds.checks.rate_measure.rate_point`), so the random families
and the worst-case constructions get a third, adversarial series (:mod:`mixbounds.checks.rates`).

The quadratic interpolant is :func:`mixbounds.checks.pep.extract.quadratic_interpolant` (closed form, in the
class by construction, attaining ``L_f`` in a direction the data do not see, so that the suite's solver, which
reads the constants off the instance, runs with the PEP's parameters).  The instance *is* the worst case when the
suite's APAPC, run on it from the PEP's worst-case state, reproduces the PEP's ``V¹`` to :data:`WORST_AGREE`
(``V⁰ = 1``; :func:`mixbounds.checks.pep.extract.cross_check`); the gradient and value residuals of the
interpolant are recorded (up to ~1e-2 on the coupled class: the Gram matrix is accurate to ``PEP_ACCURACY`` in its
entries, the coordinates of nearly degenerate directions only to about its square root; ``V¹`` still agrees to
3e-5 or better where the worst case is quadratic).
A worst case that is not quadratic (the coupled class at large κ_f, the shared class at every measured point)
is replaced by the worst case over quadratic ``f_i`` (a second PEP, PEPit's quadratic class), which must then
agree: the point records which one it is (``source``: ``F(mu_f, L_f)`` or ``quadratics``) with both ρ's and
``rho_instance`` (the instance's one-step contraction from the worst-case state).  The PEP over quadratics is
solved in the certificate's scaling ``(L_f, μ_f) = (κ_f, 1)`` first and, when that does not solve to
``PEP_ACCURACY``, in :func:`rescaled` ``(1, 1/κ_f)`` (ρ, the APAPC parameters' ratios and the suite's counts
do not change when every f_i is multiplied by a constant; the instance is then built in that scaling, and the
point says so under ``quadratic_scaling``).  Measured on the shared class (path of 3, κ_W = 100): at κ_f = 10³ …
10⁴ the first scaling stalls at a proof residual of 1.2e-6 … 2.0e-6 (Clarabel ``AlmostSolved``; its value off by
9e-6 at 10⁴), the second solves to 1e-9 at every κ_f from 10 to 10⁴.

The instance.  ``f_i(x) = ½ (x − x*_i)ᵀH_i(x − x*_i) + ⟨g_i, x − x*_i⟩``, in ``R^D`` (``D`` = the Gram
size), the network's ``W``, the class's blocks ``a_i I_D`` / ``c̃_i I_D``; ``(x*, g)`` a KKT pair chosen so that
the solvers' start ``u⁰ = 0``, ``z⁰ = 0`` is the PEP's worst-case state as far as that start can be: the
solution is minus the worst case's primal start (its node average for the consensus and shared classes, whose
solutions are consensual), and ``g`` is the worst case's dual start (consensus: ``z⁰``, mean zero; coupled:
``g_i = −a_i λ`` with ``λ`` the least-squares fit of ``z⁰``'s node part; shared: ``z⁰``, any ``g`` is a KKT
pair there, the feasible set being the point ``x̃*``).  ``x*`` is then computed by the suite's independent
reference solve (:func:`mixbounds.instances.reference.kkt.reference_solution`, relative KKT residual
``<= KKT_RTOL = 1e-9``) and must equal the constructed one to :data:`XSTAR_RTOL`, else the point is an error.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from mixbounds.bounds.concepts import Oracle, ProblemClass
from mixbounds.bounds.guards import SCALE_FLOOR
from mixbounds.checks.pep.extract import cross_check, quadratic_fit
from mixbounds.checks.pep.model import LinearModel, linear_model
from mixbounds.checks.pep.performance import PEPOutcome, solve_pep
from mixbounds.checks.rate_measure import rate_point
from mixbounds.instances.instance import Instance
from mixbounds.instances.layout import Layout
from mixbounds.instances.objectives import QuadraticObjective
from mixbounds.instances.problem import MixedProblem
from mixbounds.instances.realized import realized_kappas
from mixbounds.instances.reference.kkt import reference_solution

#: family name of the series (the result ids' ``@pep-worst``)
FAMILY = "pep-worst"
#: ``|x*(reference solve) − x*(constructed)| / |x*|`` allowed: the reference's KKT residual is <= 1e-9 and the
#: instances' condition numbers are <= 10⁴ (the full tier's largest κ_f), so 1e-9 · 10⁴ with a margin of 10
XSTAR_RTOL = 1e-4
#: ``|V¹(the suite's APAPC on the instance, from the worst-case state) − V¹(PEP)|`` (V⁰ = 1) for the instance to count as
#: the worst case.  Measured (path of 3, quick and tiny grids): worst cases over quadratics 1e-8…5e-8; the class's
#: worst cases whose ρ equals the quadratics' to the SDP's accuracy: consensus <= 7e-7, coupled at κ_f = 10 and 17.8
#: 1.5e-5 and 3.0e-5 (the SDP fit of mixbounds.checks.pep.extract: 5.8e-6 and 2.7e-5); non-quadratic worst cases
#: (coupled at κ_f >= 31.6 or κ_W = 215, shared): 1.5e-2 and more.  1e-4 lies two decades from both.
WORST_AGREE = 1e-4


def _realised(model: LinearModel, outcome: PEPOutcome):
    """The interpolants of every node, their largest residuals, and the suite's APAPC run on them from the worst-case
    state (:func:`mixbounds.checks.pep.extract.cross_check`: ``difference`` = ``|V^K(run) − V^K(PEP)|``)."""
    fit = quadratic_fit(outcome, model.data.mu_f, model.data.L_f)
    return list(fit.H), fit.violation, fit.value_residual, cross_check(model, outcome, fit)


def worst_case_instance(model: LinearModel, outcome: PEPOutcome, Hs: list) -> tuple[Instance, np.ndarray]:
    """The ``pep-worst`` instance of the worst case ``outcome`` with Hessians ``Hs`` and its constructed solution
    (u-layout), module docstring."""
    data = model.data
    n, D = data.network.n, Hs[0].shape[0]
    u0, _, z0 = (np.asarray(a, dtype=float) for a in outcome.worst["states"][0])
    slots = list(model.node_slot)
    xu, zu = u0[slots], z0[slots]  # node parts of the worst-case start (n × D)
    eye = np.eye(D)
    kw: dict = {}
    if data.cls == ProblemClass.COUPLED:
        lay = Layout(d=(D,) * n, dt=0)
        a = np.asarray(data.blocks, dtype=float)
        xs = -xu
        lam = -(a @ zu) / float(a @ a)
        g = -a[:, None] * lam[None, :]
        kw = {Oracle.A: [ai * eye for ai in a], "b": [ai * x for ai, x in zip(a, xs)]}
        u_star = xs.ravel()
    else:
        lay = Layout(d=(0,) * n, dt=D)
        xbar = -xu.mean(axis=0)
        xs = np.tile(xbar, (n, 1))
        g = zu - zu.mean(axis=0) if data.cls == ProblemClass.CONSENSUS else zu
        if data.cls == ProblemClass.SHARED:
            kw = {Oracle.CT: [ci * eye for ci in data.blocks], "ct": [ci * xbar for ci in data.blocks]}
        u_star = np.tile(xbar, n)
    qs = [H @ x - gi for H, x, gi in zip(Hs, xs, g)]
    obj = QuadraticObjective(list(Hs), qs, lay)
    problem = MixedProblem(W=data.network.W, objective=obj, layout=lay, name=f"{FAMILY}-{data.cls}", **kw)
    realized = realized_kappas(problem)
    inst = Instance(problem=problem, family=FAMILY, variant=data.cls,
                    targets={"kappa_f": data.L_f / data.mu_f, "kappa_W": data.network.kappa_W}, realized=realized,
                    params={"D": D, "class_data": data.describe()},
                    notes=["worst case of the one-step PEP of APAPC's Lyapunov function (mixbounds.checks.pep.series)"])
    return inst, u_star


def worst_case_rates(model: LinearModel, outcome: PEPOutcome, methods: tuple = ("apapc",)) -> dict:
    """``{method: rate point}`` (:func:`mixbounds.checks.rate_measure.rate_point`) of each method on the worst case
    of ``outcome`` (or, when that is not quadratic, of the worst case over quadratics), every point with the
    instance's provenance: the source, the interpolation residuals, both ρ's, and ``rho_instance``, the one-step
    contraction of the Lyapunov function on the instance from the worst-case state
    (:func:`mixbounds.checks.pep.extract.cross_check`).  A point that cannot be measured carries ``error``."""
    rec, inst, x_star = _worst_case_series_instance(model, outcome)
    if inst is None:
        return {m: rec for m in methods}
    return {m: {**rec, **rate_point(inst, x_star, method=m)} for m in methods}


def rescaled(model: LinearModel) -> LinearModel:
    """The same model with ``(L_f, μ_f) = (1, 1/κ_f)``: the second scaling of the PEP over quadratics (module
    docstring)."""
    kappa_f = model.data.L_f / model.data.mu_f
    return linear_model(dataclasses.replace(model.data, L_f=1.0, mu_f=1.0 / kappa_f))


def quadratic_worst_case(model: LinearModel, K: int) -> tuple[LinearModel, PEPOutcome, list[dict]]:
    """``(model, outcome, attempts)``: the PEP over quadratics of ``model`` and, when it does not solve to accuracy,
    the same PEP in the scaling :func:`rescaled` (module docstring); the model and outcome returned are the
    first that solved (else the first), ``attempts`` each solve's ``L_f``, ``mu_f``, status and accuracy."""
    out = solve_pep(model, K=K, function_class="quadratic")
    tried = [(model, out)]
    if not out.solved:
        scaled = rescaled(model)
        tried.append((scaled, solve_pep(scaled, K=K, function_class="quadratic")))
    used = next((t for t in tried if t[1].solved), tried[0])
    attempts = [{"L_f": m.data.L_f, "mu_f": m.data.mu_f, "status": o.status, "accuracy": o.accuracy} for m, o in tried]
    return used[0], used[1], attempts


def _worst_case_series_instance(model: LinearModel, outcome: PEPOutcome):
    """``(provenance, instance, x* of the reference solve)``, or ``(provenance with error, None, None)``."""
    if not outcome.solved:
        return {"error": f"the PEP was not solved to accuracy (status {outcome.status}, accuracy "
                         f"{outcome.accuracy})"}, None, None
    Hs, gres, vres, cc = _realised(model, outcome)
    rec = {"rho_pep": outcome.rho, "class_residual": gres, "class_V1_difference": cc["difference"]}
    src = outcome
    if not cc["difference"] <= WORST_AGREE:
        model, src, attempts = quadratic_worst_case(model, outcome.K)
        rec.update(rho_pep_quadratic=src.rho, quadratic_status=src.status, quadratic_accuracy=src.accuracy)
        if len(attempts) > 1:
            rec.update(quadratic_attempts=attempts)
        if not src.solved:
            tried = "; ".join(f"L_f = {a['L_f']:g}, mu_f = {a['mu_f']:g}: status {a['status']}, accuracy "
                              f"{a['accuracy']:.3g}" for a in attempts)
            return {**rec, "error": f"the class's worst case is not quadratic (its interpolant misses V¹ by "
                                    f"{cc['difference']:.3g}) and the PEP over quadratics was not solved to accuracy "
                                    f"({tried})"}, None, None
        Hs, gres, vres, cc = _realised(model, src)
        if not cc["difference"] <= WORST_AGREE:
            return {**rec, "error": f"the interpolant of the worst case over quadratics misses its V¹ by "
                                    f"{cc['difference']:.3g} > {WORST_AGREE:g} (residuals {gres:.3g}, "
                                    f"{vres:.3g})"}, None, None
    rec.update(source="F(mu_f, L_f)" if src is outcome else "quadratics", residual=gres, value_residual=vres,
               rho_instance=cc["rho_run"], V1_difference=cc["difference"])
    inst, u_star = worst_case_instance(model, src, Hs)
    ref = reference_solution(inst.problem)
    err = float(np.linalg.norm(ref.u - u_star) / max(np.linalg.norm(u_star), SCALE_FLOOR))
    rec.update(D=Hs[0].shape[0], reference_kkt_residual=ref.kkt_residual, reference_method=ref.method,
               x_star_rel_diff=err, family=FAMILY)
    if not err <= XSTAR_RTOL or not math.isfinite(err):
        return {**rec, "error": f"the reference solve's x* differs from the constructed one by {err:.3g} "
                                f"(relative) > {XSTAR_RTOL:g}"}, None, None
    return rec, inst, ref.u
