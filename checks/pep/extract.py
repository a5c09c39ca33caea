"""Adversarial instances from a PEP solution, and the cross-check of the PEP against the suite's APAPC.

The PEP's worst case is a Gram matrix; evaluated, it gives for every node ``i`` the points
``x_j``, gradients ``g_j = ∇f_i(x_j)`` and values ``f_i(x_j)`` (``x_0 = 0``, ``g_0 = 0``, ``f_0 = 0``:
:mod:`mixbounds.checks.pep.model`) of a function ``f_i ∈ F(μ_f, L_f)`` in ``R^D`` (``D`` = the Gram size).

Quadratic consistency: a quadratic ``f_i(x) = ½ xᵀH_i x`` with ``μ_f I ⪯ H_i ⪯ L_f I`` fits the data
iff some symmetric ``H_i`` has ``H_i X = G`` (then ``f_i(x_j) = ½⟨x_j, g_j⟩`` is a further check) and
spectrum in ``[μ_f, L_f]``.  :func:`quadratic_fit` solves the small SDP ``min t`` s.t.
``|H X − G| <= t max|G|`` entrywise, ``(μ_f − t L_f) I ⪯ H ⪯ (1 + t) L_f I`` (cvxpy, the PEP's solver): ``t <= 0`` means a quadratic in
the class interpolates the worst case exactly, ``t`` of the order of the SDP's accuracy means it
does so up to that accuracy (interior-point Gram matrices are slightly infeasible), and a
large ``t`` means the worst case is not quadratic (then no instance is built: the interpolating
non-quadratic ``f_i`` of Taylor, Hendrickx & Glineur is not implemented; the result says so).

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
from mixbounds.checks.pep.lyapunov import LyapunovWeights, lyapunov
from mixbounds.checks.pep.model import LinearModel, class_problem
from mixbounds.checks.pep.performance import SOLVER_OPTIONS, PEPOutcome
from mixbounds.instances.instance import Instance
from mixbounds.instances.objectives import QuadraticObjective
from mixbounds.instances.problem import MixedProblem
from mixbounds.solvers.apapc import apapc_steps
from mixbounds.solvers.reformulations import Reformulation

#: largest class violation ``t`` (relative to L_f) of a fitted quadratic still called "quadratic up to accuracy":
#: interior-point worst cases are slightly infeasible; measured on path-3 worst cases (κ_f = 10, κ_W = 100, K = 1, 2)
#: fits within 5e-5 (consensus) and 8e-4 (coupled) reproduce V^K to 2.5e-7 and 7e-6, while the shared class's
#: non-quadratic worst case needs 8e-2 and misses V^K by 0.27
QUADRATIC_TOL = 1e-3
#: ``|V^K(suite's APAPC on the extracted instance) − V^K(PEP)|`` allowed (V⁰ = 1)
AGREE_ATOL = 1e-5
#: family name of the extracted instances
FAMILY = "pep-worst"


@dataclass(frozen=True)
class QuadraticFit:
    """``H_i`` per node and the class violation ``t`` (``<= 0``: inside ``F(μ_f, L_f)``)."""

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


def quadratic_fit(outcome: PEPOutcome, mu_f: float, L_f: float, solver: str) -> QuadraticFit:
    """Fit ``f_i = ½ xᵀH_i x`` to every node's worst-case triplets (module docstring)."""
    import cvxpy as cp  # lazy: importing cvxpy costs 1.5–2.8 s (python -X importtime); only this fit uses it

    Hs, viol, vres = [], -math.inf, 0.0
    for trip in outcome.worst["functions"]:
        X, G, F = _node_data(trip)
        D = X.shape[0]
        H = cp.Variable((D, D), symmetric=True)
        t = cp.Variable()
        I = np.eye(D)
        gs = max(float(np.abs(G).max()), 1e-300)
        prob = cp.Problem(cp.Minimize(t), [cp.abs(H @ X - G) <= t * gs, H >> (mu_f - t * L_f) * I,
                                           H << (1 + t) * L_f * I])
        try:
            prob.solve(solver=solver, **SOLVER_OPTIONS.get(solver, {}))
        except cp.error.SolverError:
            return QuadraticFit((), math.inf, math.inf)
        if prob.status not in ("optimal", "optimal_inaccurate") or H.value is None:
            return QuadraticFit((), math.inf, math.inf)
        Hv = 0.5 * (H.value + H.value.T)
        ev = np.linalg.eigvalsh(Hv)
        viol = max(viol, (mu_f - ev[0]) / L_f, (ev[-1] - L_f) / L_f, float(np.abs(Hv @ X - G).max()) / gs)
        scale = max(1.0, float(np.abs(F).max()))
        vres = max(vres, max(abs(F[j] - 0.5 * X[:, j] @ Hv @ X[:, j]) for j in range(X.shape[1])) / scale)
        Hs.append(Hv)
    return QuadraticFit(tuple(Hs), float(viol), float(vres))


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
        kw = {"A": [float(a.toarray()[0, 0]) * eye for a in scalar.A], "b": [np.zeros(D)] * n}
    if scalar.Ct is not None:
        kw = {"Ct": [float(c.toarray()[0, 0]) * eye for c in scalar.Ct], "ct": [np.zeros(D)] * n}
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
