"""The constants of the non-quadratic series are exact: ``L_f`` and ``μ_f`` as stated are attained, and hold everywhere.

Why this check exists
---------------------
The random families' non-quadratic series (Table 1: ``…@random-<class>+logcosh``; Table 2:
``…@convex-<class>+logcosh``) use :class:`~mixbounds.instances.objectives.LogCoshObjective`, whose ``L_f`` and
``μ_f`` are closed forms (its docstring derives them).  The method is tuned with them and the sweeps' ``κ_f`` is
``L_f/μ_f``, so a wrong closed form — too small an ``L_f`` (the method diverges or the instance is outside the
class the theorem covers) or too large (the instance does not reach the class's ends, and ``κ_f`` on the x-axis is
not the instance's) — would change every verdict of those series without any of them noticing.

What is measured, per audited instance (each node's ``z_i`` block, dense; ``k_i <= 16`` in every tier)
------------------------------------------------------------------------------------------------------
* **exactness**: at the witness of :meth:`~mixbounds.instances.objectives.LogCoshObjective.curvature_witnesses`
  the largest eigenvalue of ``∇²f_i`` must be ``L_i``, and far out along the witness direction of ``μ_i``
  (``+WITNESS_FAR`` along ``u_ij``: ``sech²`` below 1e-34) the smallest must be ``μ_i``; their maximum and
  minimum over the nodes must equal the stated ``L_f`` and ``μ_f`` to :data:`CONST_RTOL` (relative to ``L_f``);
* **validity, from the Hessian**: at :data:`SAMPLES` random points (around ``x*`` and far from it) the spectrum of
  every ``∇²f_i`` lies in ``[μ_f, L_f]`` (to :data:`CONST_RTOL` ``· L_f``);
* **validity, from the gradient alone** (independent of the Hessian's code): for as many random pairs,
  ``⟨∇f_i(x) − ∇f_i(y), x − y⟩ >= μ_f‖x − y‖²`` and ``‖∇f_i(x) − ∇f_i(y)‖ <= L_f‖x − y‖`` per node;
* **the Hessian is the gradient's derivative**: central differences of ``∇F`` along random directions against
  ``∇²F v`` to :data:`FD_RTOL` (relative to ``L_f‖v‖``).

``pass`` when every deviation is within its tolerance and no sample violates the bounds; ``measured`` is the
exactness deviation ``max(|L_witnessed − L_f|, |μ_witnessed − μ_f|) / L_f``.  The instances: the base point and
the top of the κ_f grid of every class the tier's Table 1 non-quadratic series covers (``Tier.table1.nonquadratic``)
and the base point of every Table 2 class it covers (``Tier.tables24.nonquadratic``).

Negative controls (must ``fail``): ``control.constants.T1.consensus.L_too_small`` states ``L_f`` 10% below the
closed form, ``control.constants.T1.consensus.mu_too_large`` states ``μ_f`` 10% above it, and
``control.constants.T2.coupled.L_too_small`` the former on the Table 2 family (``μ_f = 0`` there).
"""

from __future__ import annotations

import copy

import numpy as np
from mixbounds.bounds.concepts import ProblemClass
from mixbounds.checks.run.framework import Check, Task
from mixbounds.checks.run.result import CheckResult, reading
from mixbounds.checks.sweeps import CLASS_FAMILIES, NONQUADRATIC, PARAM_KW, RANDOM_BASE, nonquadratic_params
from mixbounds.checks.tables234.points import ACC, KAPPA_BASE, class_params, family_of
from mixbounds.checks.tables234.points import CLASSES as NONSMOOTH_CLASSES
from mixbounds.checks.tiers import Tier
from mixbounds.instances.families import build
from mixbounds.instances.objectives import LogCoshObjective

#: stated vs witnessed constants, and the bounds at the samples, relative to L_f: the witnesses are closed-form
#: points, the eigenvalues of k <= 16 dense blocks accurate to ~1e-15 · L_f
CONST_RTOL = 1e-9
#: central differences with step FD_STEP: truncation ~ ``h² · |third derivative| <= 1e-10`` · c_ij, rounding ~ 1e-16/h
FD_RTOL = 1e-6
FD_STEP = 1e-5
#: random points (and pairs, and directions) per instance
SAMPLES = 24
#: how far out along the μ-witness direction (sech²(40) ≈ 7e-35)
WITNESS_FAR = 40.0
#: the negative controls: id → (table, class, stated L factor, stated μ factor)
CONTROLS = {"control.constants.T1.consensus.L_too_small": (1, ProblemClass.CONSENSUS, 0.9, 1.0),
            "control.constants.T1.consensus.mu_too_large": (1, ProblemClass.CONSENSUS, 1.0, 1.1),
            "control.constants.T2.coupled.L_too_small": (2, ProblemClass.COUPLED, 0.9, 1.0)}


def _node_blocks(obj, u: np.ndarray) -> list[np.ndarray]:
    H = obj.hessian(u)
    lay = obj.layout
    return [H[idx][:, idx].toarray() for idx in (lay.node_u_indices(i) for i in range(lay.n))]


def _node_sums(lay, v: np.ndarray) -> np.ndarray:
    return np.bincount(lay.node_of_u, weights=v, minlength=lay.n)


def constants_point(family: str, params: dict, L_factor: float = 1.0, mu_factor: float = 1.0) -> dict:
    """The measurements of the module docstring on ``build(family, **params)``; ``L_factor``/``mu_factor`` restate
    the objective's constants (the negative controls)."""
    inst = build(family, **params)
    obj = inst.problem.objective
    if not isinstance(obj, LogCoshObjective):
        return {"error": f"{family}: objective {type(obj).__name__} is not a LogCoshObjective"}
    if (L_factor, mu_factor) != (1.0, 1.0):
        obj = copy.copy(obj)
        obj.L, obj.mu = obj.L * L_factor, obj.mu * mu_factor
    lay = obj.layout
    L, mu = float(obj.L), float(obj.mu)
    wit = obj.curvature_witnesses()
    u_L = np.zeros(lay.size)
    for i, w in wit.items():
        u_L[lay.node_u_indices(i)] = w["z_L"]
    blocks = _node_blocks(obj, u_L)
    L_nodes = {i: float(np.linalg.eigvalsh(blocks[i])[-1]) for i in wit}
    mu_nodes = {}
    for i, w in wit.items():
        u_far = u_L.copy()
        u_far[lay.node_u_indices(i)] += WITNESS_FAR * w["mu_direction"]
        mu_nodes[i] = float(np.linalg.eigvalsh(_node_blocks(obj, u_far)[i])[0])
    L_wit, mu_wit = max(L_nodes.values()), min(mu_nodes.values())
    dev = max(abs(L_wit - L), abs(mu_wit - mu)) / L
    rng = np.random.default_rng(2024)
    scale = 1.0 + float(np.abs(inst.x_star).max()) if inst.x_star is not None else 3.0
    tol = CONST_RTOL * L
    hess_bad = grad_bad = 0
    fd = 0.0
    for k in range(SAMPLES):
        s = scale * (10.0 if k % 4 == 3 else 1.0)  # every fourth sample far out (the log-cosh terms flat)
        x, y, v = s * rng.standard_normal(lay.size), s * rng.standard_normal(lay.size), rng.standard_normal(lay.size)
        ev = [np.linalg.eigvalsh(B) for B in _node_blocks(obj, x)]
        hess_bad += sum(int(e[0] < mu - tol or e[-1] > L + tol) for e in ev)
        dg, dx = obj.grad(x) - obj.grad(y), x - y
        inner, d2, g2 = _node_sums(lay, dg * dx), _node_sums(lay, dx * dx), _node_sums(lay, dg * dg)
        grad_bad += int(np.sum(inner < (mu - tol) * d2) + np.sum(g2 > ((L + tol) ** 2) * d2))
        cd = (obj.grad(x + FD_STEP * v) - obj.grad(x - FD_STEP * v)) / (2 * FD_STEP)
        fd = max(fd, float(np.linalg.norm(cd - obj.hessian(x) @ v)) / (L * float(np.linalg.norm(v))))
    return {"family": family, "params": params, "L_stated": L, "mu_stated": mu, "L_witnessed": L_wit,
            "mu_witnessed": mu_wit, "exactness_deviation": dev, "hessian_violations": hess_bad,
            "gradient_violations": grad_bad, "fd_deviation": fd, "samples": SAMPLES, "nodes": lay.n,
            "L_nodes": list(L_nodes.values()), "mu_nodes": list(mu_nodes.values()),
            "kappa_f_realized": inst.realized.get("kappa_f")}


def judge(rid: str, p: dict, *, control: bool = False, label: str = "ass:smooth_and_str_convex_of_f_i") -> CheckResult:
    """``pass`` when the constants are exact and valid (module docstring), else ``fail``; ``error`` on an exception."""
    if "error" in p:
        return CheckResult(id=rid, kind="audit", status="error", detail=p["error"], control=control, label=label,
                           expected="fail" if control else None)
    bad = []
    if not p["exactness_deviation"] <= CONST_RTOL:
        bad.append(f"stated L_f = {p['L_stated']:.10g}, μ_f = {p['mu_stated']:.10g} but witnessed "
                   f"{p['L_witnessed']:.10g}, {p['mu_witnessed']:.10g} (deviation {p['exactness_deviation']:.3g} L_f)")
    if p["hessian_violations"]:
        bad.append(f"{p['hessian_violations']} node Hessians with eigenvalues outside [μ_f, L_f]")
    if p["gradient_violations"]:
        bad.append(f"{p['gradient_violations']} node gradient pairs violating μ_f-monotonicity or L_f-Lipschitz")
    if not p["fd_deviation"] <= FD_RTOL:
        bad.append(f"Hessian vs central differences of the gradient: {p['fd_deviation']:.3g} > {FD_RTOL:g}")
    ok = not bad
    readings = {k: p[k] for k in ("exactness_deviation", "L_stated", "L_witnessed", "mu_stated", "mu_witnessed",
                                  "hessian_violations", "gradient_violations", "fd_deviation", "samples")}
    what = f"{p['family']} {p['params']}"
    detail = (f"{what}: L_f = {p['L_stated']:.10g} and μ_f = {p['mu_stated']:.10g} attained at the witnesses "
              f"(deviation {p['exactness_deviation']:.2g} L_f), no violation at {p['samples']} random points, pairs "
              f"and directions" if ok else f"{what}: " + "; ".join(bad))
    return CheckResult(id=rid, kind="audit", status="pass" if ok else "fail", theory=0.0, tolerance=CONST_RTOL,
                       detail=detail, label=label, control=control, expected="fail" if control else None,
                       points=[p], **reading("exactness_deviation", readings))


def _t1_params(tier: Tier, cls: str) -> list[tuple[str, dict]]:
    fam = CLASS_FAMILIES[cls][1]
    base = {PARAM_KW[k]: v for k, v in RANDOM_BASE[cls].items()}
    top = dict(base, kappa_f=float(tier.table1.random_range[1]))
    return [(fam, dict(b, seed=0, objective=NONQUADRATIC)) for b in (base, top)]


def _t2_params(cls: str) -> tuple[str, dict]:
    """The Table 2 family of ``cls`` at the base point of its κ sweeps (:mod:`mixbounds.checks.tables234.points`)."""
    base = {PARAM_KW[p]: KAPPA_BASE[p] for p in class_params(cls)}
    return family_of(2, cls)[0], dict(base, seed=0, variant=NONQUADRATIC)


def audits(tier: Tier) -> list[tuple[str, str, dict]]:
    """``(result id, family, params)`` of every audited instance of the tier (module docstring)."""
    out = []
    for cls in CLASS_FAMILIES:
        if nonquadratic_params(tier.table1.nonquadratic, cls, CLASS_FAMILIES[cls][2]):
            for j, (fam, p) in enumerate(_t1_params(tier, cls)):
                out.append((f"audit.constants.T1.{cls}.{'base' if j == 0 else 'kappa_f_top'}", fam, p))
    for cls in NONSMOOTH_CLASSES[2]:
        if nonquadratic_params(tier.tables24.nonquadratic, cls, [ACC[2], *class_params(cls)]):
            fam, p = _t2_params(cls)
            out.append((f"audit.constants.T2.{cls}.base", fam, p))
    return out


def _task(family: str, params: dict, L_factor: float = 1.0, mu_factor: float = 1.0) -> Task:
    return Task(constants_point, {"family": family, "params": params, "L_factor": L_factor, "mu_factor": mu_factor},
                label=f"constants {family} {params}")


def _control_instance(tier: Tier, table: int, cls: str) -> tuple[str, dict]:
    return _t1_params(tier, cls)[0] if table == 1 else _t2_params(cls)


def checks() -> list[Check]:
    def tasks(tier):
        return [_task(f, p) for _, f, p in audits(tier)]

    def finalize(tier, pts):
        return [judge(rid, pts[_task(f, p).key]) for rid, f, p in audits(tier)]

    def c_tasks(tier):
        return [_task(*_control_instance(tier, t, c), lf, mf) for t, c, lf, mf in CONTROLS.values()]

    def c_finalize(tier, pts):
        return [judge(rid, pts[_task(*_control_instance(tier, t, c), lf, mf).key], control=True)
                for rid, (t, c, lf, mf) in CONTROLS.items()]

    return [Check(id="audit.constants", family="selfcheck", result_ids=lambda t: [a[0] for a in audits(t)],
                  tasks=tasks, finalize=finalize,
                  description="the non-quadratic series' L_f and μ_f are attained and hold everywhere"),
            Check(id="control.constants", family="selfcheck", result_ids=lambda t: list(CONTROLS), tasks=c_tasks,
                  finalize=c_finalize, description="a stated L_f too small or μ_f too large must fail the audit")]
