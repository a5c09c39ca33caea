"""Adversarial instances from a PEP solution, and the cross-check of the PEP against the suite's APAPC.

The PEP's worst case is a Gram matrix; evaluated, it gives for every node ``i`` the points
``x_j``, gradients ``g_j = ∇f_i(x_j)`` and values ``f_i(x_j)`` (``x_0 = 0``, ``g_0 = 0``, ``f_0 = 0``:
:mod:`mixbounds.checks.pep.model`) of a function ``f_i ∈ F(μ_f, L_f)`` in ``R^D`` (``D`` = the Gram size).

Quadratic consistency, in closed form (no SDP).  A quadratic ``½ xᵀHx`` with ``μI ⪯ H ⪯ LI`` interpolates
``(X, G)`` (columns ``x_j``, ``g_j``) iff ``H' = H − μI ⪰ 0`` with ``H'X = G' := G − μX`` and ``H' ⪯ (L − μ)I``.
Every PSD solution of ``H'X = G'`` dominates ``H'_min = G'(XᵀG')⁺G'ᵀ`` in the Loewner order (it exists iff
``XᵀG'`` is symmetric PSD with the right ranges), so a quadratic in the class exists iff ``H'_min ⪯ (L − μ)I``,
and ``H = μI + H'_min`` is then one: the least curved interpolant, ``μ`` off the span of the data.  The
worst case is a numerical SDP solution, so ``XᵀG'`` is symmetrised and its negative eigenvalues dropped, and
``H``'s spectrum is clipped into ``[μ_f, L_f]``; in one direction orthogonal to the data the curvature is
``L_f`` (the interpolant alone is ``μ_f`` there), so that the instance's own constants are the class's.
:func:`quadratic_interpolant` returns ``H`` and its residuals; :func:`quadratic_fit` fits every node and calls the
worst case quadratic when the largest relative gradient residual ``max|HX − G| / max|G|`` (``H`` is in the class
by construction) and the value residual are within :data:`QUADRATIC_TOL`: interior-point Gram matrices are
slightly infeasible, so a small residual is a quadratic up to the SDP's accuracy, and a large one a worst case
that is not quadratic (then the interpolating non-quadratic ``f_i`` of Taylor, Hendrickx & Glineur is not
built; the result says so).

:func:`cross_check` builds the instance as a suite :class:`~mixbounds.instances.instance.Instance`
(``f_i = ½ xᵀH_i x`` in ``R^D``, the same ``W`` and blocks ``a_i I_D`` / ``c̃_i I_D``, zero right-hand
sides, ``x* = 0``), runs the suite's APAPC step (:func:`mixbounds.solvers.apapc.apapc_steps` through the
suite's :class:`~mixbounds.solvers.reformulations.Reformulation` and counted oracles) K times from the PEP's
worst-case state and evaluates the Lyapunov function: it must equal the PEP's ``V^K`` to the
SDP's accuracy (:data:`AGREE_ATOL`).  This checks the PEP model (that it is the suite's
method) and the solver (that it realises the worst case).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from mixbounds.bounds.concepts import Matrix
from mixbounds.bounds.guards import SCALE_FLOOR
from mixbounds.checks.pep.lyapunov import LyapunovWeights, lyapunov
from mixbounds.checks.pep.model import LinearModel, class_problem
from mixbounds.checks.pep.performance import PEPOutcome
from mixbounds.instances.instance import Instance
from mixbounds.instances.objectives import QuadraticObjective
from mixbounds.instances.problem import MixedProblem
from mixbounds.solvers.apapc import apapc_steps
from mixbounds.solvers.reformulations import Reformulation

#: largest relative gradient (and value) residual of the fitted quadratic still called "quadratic up to accuracy":
#: interior-point worst cases are slightly infeasible.  Measured on the path of 3 (κ_f = 10, κ_W = 100, K = 1): the
#: consensus and coupled worst cases leave 1.1e-5 and 5.6e-5 and their instances reproduce V^K to 2e-11 and 7e-9;
#: the shared class's non-quadratic worst case leaves 9.9e-2 and its instance misses V^K by 0.26
QUADRATIC_TOL = 1e-3
#: eigenvalues of XᵀG' below this fraction of the largest are dropped from the pseudo-inverse
PINV_RTOL = 1e-10
#: ``|V^K(suite's APAPC on the extracted instance) − V^K(PEP)|`` allowed (V⁰ = 1)
AGREE_ATOL = 1e-5
#: family name of the extracted instances
FAMILY = "pep-worst"


@dataclass(frozen=True)
class QuadraticFit:
    """``H_i`` per node (each in ``F(μ_f, L_f)``), the largest relative gradient residual and value residual."""

    H: tuple[np.ndarray, ...]
    violation: float
    value_residual: float

    @property
    def quadratic(self) -> bool:
        return self.violation <= QUADRATIC_TOL and self.value_residual <= QUADRATIC_TOL


def _node_data(triplets) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    X = np.array([t[0] for t in triplets]).T
    G = np.array([t[1] for t in triplets]).T
    F = np.array([t[2] for t in triplets])
    return X, G, F


def quadratic_interpolant(triplets, mu: float, L: float, rtol: float = PINV_RTOL) -> tuple[np.ndarray, float, float]:
    """``H = μI + G'(XᵀG')⁺G'ᵀ + (L − μ)vvᵀ`` with spectrum clipped into ``[μ, L]`` (module docstring; ``v`` a unit
    vector orthogonal to the data, so that ``H`` attains ``L``), the relative gradient residual
    ``max|HX − G| / max|G|`` and the value residual ``max_j |f_j − ½x_jᵀHx_j| / max(1, max|f|)``.

    ``rtol``: eigenvalues of ``XᵀG'`` below ``rtol`` times the largest are dropped from the pseudo-inverse."""
    X, G, F = _node_data(triplets)
    D = X.shape[0]
    Gp = G - mu * X
    M = X.T @ Gp
    lam, V = np.linalg.eigh(0.5 * (M + M.T))
    keep = lam > rtol * max(float(np.abs(lam).max(initial=0.0)), SCALE_FLOOR)
    Minv = (V[:, keep] / lam[keep]) @ V[:, keep].T
    H = mu * np.eye(D) + Gp @ Minv @ Gp.T
    data = np.hstack([X, Gp])
    U, sv, _ = np.linalg.svd(data, full_matrices=True)
    rank = int(np.sum(sv > rtol * max(float(sv.max(initial=0.0)), SCALE_FLOOR)))
    if rank < D:  # the curvature L in a direction the data do not see: the instance attains the class's L_f
        v = U[:, rank]
        H = H + (L - mu) * np.outer(v, v)
    ev, W = np.linalg.eigh(0.5 * (H + H.T))
    H = (W * np.clip(ev, mu, L)) @ W.T
    gs = max(float(np.abs(G).max()), SCALE_FLOOR)
    grad_res = float(np.abs(H @ X - G).max()) / gs
    val_res = max(abs(F[j] - 0.5 * X[:, j] @ H @ X[:, j]) for j in range(X.shape[1])) / max(1.0, float(np.abs(F).max()))
    return 0.5 * (H + H.T), grad_res, float(val_res)


def quadratic_fit(outcome: PEPOutcome, mu_f: float, L_f: float) -> QuadraticFit:
    """Fit ``f_i = ½ xᵀH_i x`` to every node's worst-case triplets (:func:`quadratic_interpolant`); the violation is
    the largest relative gradient residual, the value residual the largest value residual."""
    fits = [quadratic_interpolant(t, mu_f, L_f) for t in outcome.worst["functions"]]
    return QuadraticFit(tuple(h for h, _, _ in fits), max(r for _, r, _ in fits), max(v for _, _, v in fits))


def build_instance(model: LinearModel, fit: QuadraticFit) -> Instance:
    """The suite instance of the fitted worst case (module docstring); ``x* = 0``."""
    data = model.data
    n, D = data.network.n, fit.H[0].shape[0]
    scalar = class_problem(data)
    lay = type(scalar.layout)(d=tuple(D if k else 0 for k in scalar.layout.d), dt=D if scalar.layout.dt else 0)
    obj = QuadraticObjective(list(fit.H), [np.zeros(D)] * n, lay, L=data.L_f, mu=data.mu_f)
    kw: dict = {}
    eye = np.eye(D)
    if scalar.A is not None:
        kw = {Matrix.A: [float(a.toarray()[0, 0]) * eye for a in scalar.A], "b": [np.zeros(D)] * n}
    if scalar.Ct is not None:
        kw = {Matrix.CT: [float(c.toarray()[0, 0]) * eye for c in scalar.Ct], "ct": [np.zeros(D)] * n}
    problem = MixedProblem(W=data.network.W, objective=obj, layout=lay, name=f"{FAMILY}-{data.cls}", **kw)
    realized = {"kappa_W": data.network.kappa_W, "H_spectrum": [[float(np.linalg.eigvalsh(H)[0]),
                                                                  float(np.linalg.eigvalsh(H)[-1])] for H in fit.H]}
    return Instance(problem=problem, family=FAMILY, variant=data.cls,
                    targets={"kappa_f": data.L_f / data.mu_f, "kappa_W": data.network.kappa_W},
                    realized=realized, params={"D": D, "class_data": data.describe(),
                                               "class_violation": fit.violation},
                    notes=["worst case of the one-step PEP of APAPC's Lyapunov function (mixbounds.checks.pep)"],
                    x_star=np.zeros(lay.size))


def _slots(w: np.ndarray, size: int) -> list[np.ndarray]:
    return list(np.asarray(w, dtype=float).reshape(size, -1))


def lyapunov_of_state(model: LinearModel, fit: QuadraticFit, u, u_f, z) -> float:
    """``V`` (rule's weights) at a numpy state of slot rows, with ``D_{f_i}(x) = ½ xᵀH_i x``."""
    w = LyapunovWeights.of(model.params, model.P_pinv)
    uf = _slots(u_f, model.size)
    breg = sum(0.5 * float(uf[s] @ H @ uf[s]) for s, H in zip(model.node_slot, fit.H))
    return float(lyapunov(w, _slots(u, model.size), uf, _slots(z, model.size), breg, model.H))


def cross_check(model: LinearModel, outcome: PEPOutcome, fit: QuadraticFit) -> dict:
    """Run the suite's APAPC K steps from the worst-case state on the extracted instance; compare ``V^K``."""
    inst = build_instance(model, fit)
    # materialize=False: K steps need K products; materialising P(BᵀB) cost 1.6 s per coupled point (cProfile)
    ref = Reformulation(inst.problem, method="apapc", spectra="lemma", constants="lemma", materialize=False)
    lo, hi = ref.interval
    params_match = all(math.isclose(getattr(ref, k), v, rel_tol=1e-12) for k, v in
                       (("L_G", model.params.L), ("mu_G", model.params.mu))) \
        and math.isclose(hi, model.params.lam_max, rel_tol=1e-9) and math.isclose(lo, model.params.lam_min, rel_tol=1e-9)
    u0, uf0, z0 = outcome.worst["states"][0]
    flat = lambda a: np.asarray(a, dtype=float).reshape(-1)  # noqa: E731  (slot-major = the reformulation's w order)
    V0 = lyapunov_of_state(model, fit, u0, uf0, z0)
    u, uf, z = apapc_steps(grad_G=ref.grad_G, apply_BtB=ref.apply_normal, Btb=ref.normal_rhs, params=model.params,
                           u=flat(u0), u_f=flat(uf0), z=flat(z0), steps=outcome.K)
    VK = lyapunov_of_state(model, fit, u, uf, z)
    return {"instance": inst, "V0_run": V0, "VK_run": VK, "VK_pep": outcome.value, "rho_run": (VK / V0) ** (1 / outcome.K),
            "difference": abs(VK - float(outcome.value)), "agree": abs(VK - float(outcome.value)) <= AGREE_ATOL,
            "params_match": params_match, "counts": ref.orc.snapshot(), "D": fit.H[0].shape[0]}
