"""The sweep points of Tables 2-4: the classes, families and grids of each table, and one measured point.

Measured quantity: the oracle counts until the method's output is an ``(ε, δ)``-solution
of the original problem (function gap ``<= ε`` and distance to the feasible set ``<= δ``;
T2 uses the row from which the criterion holds until the end of the run, APAPC being
non-monotone; T3/T4 the first outer iteration whose output qualifies).  For sublinear
rates the count to ε is itself the per-accuracy cost (start-up terms are lower order in
the asymptotic regime; the grids start where the start point no longer satisfies the
criterion).

Sweeps (one parameter at a time, on the realized value):

* accuracy sweep: the accuracy parameter ``x`` over a grid at the base κ's; ε is derived
  per instance so that ``x`` is exact: T2 ``ε = L_f R_u²/x`` (``R_u = ‖u⁰ − u*‖``, the R of
  Lemma ``lem:regularized_convergence``), T3 ``ε = M R_w/x`` and T4 ``ε = M²/(μ_f x²)`` with
  ``M = M_F`` (bound on ``‖∂F‖``) and ``R_w = ‖w⁰ − w*‖`` in the reformulated variables
  (the R of ``thm:upper_bound_nonsmooth_affine_constraints``; ``Y*`` least-norm);
* κ sweeps: each κ of the class's row at fixed ``x`` (so ε follows the instance).

Non-quadratic series (Table 2): the same sweeps on the ``logcosh`` variant of the convex families (a
rank-deficient quadratic plus Huber-smoothed terms, exact ``L_f = 1`` and ``μ_f = 0``,
:mod:`mixbounds.instances.convex`; reference by equality-constrained Newton, relative KKT residual ``<= 1e-9``),
results ``…@convex-<class>+logcosh``, the sweeps ``Tier.tables24.nonquadratic`` selects (quick: every class's
accuracy sweep; full: all).  Tables 3–4 need none: their families are absolute deviations.
"""

from __future__ import annotations

import functools
import json
import time

import numpy as np
from mixbounds.bounds.claims import REGISTRY
from mixbounds.bounds.concepts import ProblemClass as PC
from mixbounds.checks.run.framework import Task
from mixbounds.checks.sweeps import (
    CLASS_FAMILIES,
    NONQUADRATIC,
    PARAM_KW,
    geomspace,
    nonquadratic_params,
    series_name,
)
from mixbounds.checks.table2_factors import tail_reading
from mixbounds.checks.tiers import Tier
from mixbounds.instances.families import build
from mixbounds.solvers.homotopy_sliding import homotopy_gradient_sliding
from mixbounds.solvers.regularized import counts_at, regularized_apapc
from mixbounds.solvers.sliding import gradient_sliding, reformulated_solution, restarted_gradient_sliding
from mixbounds.solvers.subgradient import projected_subgradient

ACC = {2: "LR2_eps", 3: "MR_eps", 4: "M_mu_eps"}
# the tier's grids, budgets and slope tolerance: Tier.tables24 (mixbounds.checks.tiers)
#: accuracy grids shifted up for classes whose runs are pre-asymptotic on the default grid: the T2 shared
#: instances reach (ε, δ) within < 20 APAPC iterations below x ≈ 200 (the shared block is easy at these sizes)
ACC_SHIFT = {(2, PC.SHARED): 10.0}
#: points of an accuracy sweep whose (ε, δ)-hit came within fewer rows than this (APAPC iterations for T2,
#: outer iterations for T3/T4) are pre-asymptotic (the start nearly qualifies) and are left out of the fit
MIN_ROWS = {2: 20, 3: 8, 4: 8}
KAPPA_BASE = {"kappa_W": 10.0, "kappa_A": 10.0, "kappa_AC": 10.0, "kappa_C": 10.0, "kappa_Ct": 8.0, "kappa_Ct_id": 8.0}
CLASSES = {2: (PC.COUPLED, PC.SHARED, PC.COUPLED_LOCAL, PC.MIXED, PC.MIXED_IDENT),
           3: (PC.COUPLED, PC.SHARED, PC.COUPLED_LOCAL, PC.MIXED),
           4: (PC.COUPLED, PC.SHARED, PC.COUPLED_LOCAL, PC.MIXED)}
STRUCT = {c: c.value.replace("_", "-") for c in CLASSES[2]}
SOLVER = {2: "regularized", 3: "sliding", 4: "restarted"}
#: every run starts at a random corner u⁰ = ρ·s (s random signs, equal copies of x̃) of the box [−ρ, ρ]
#: (nonsmooth families: the objective's box; T2: ρ = 2 max|u*|), so that the start is far from satisfying the
#: criterion (F(u⁰) − F* and the distance to the feasible set are of the order of M R, L R²) and, in T4,
#: μ_f R²/ε ≫ 1 so that restarts matter.  u⁰ = 0 (the families' centre) already meets the criterion at
#: moderate x on some classes, which biases slopes low-then-high (pre-asymptotic counts of a few iterations).
FAR_START = {2: True, 3: True, 4: True}


def family_of(table: int, cls: str) -> tuple[str, str]:
    if table == 2:
        return f"convex-{STRUCT[cls]}", "default"
    return f"nonsmooth-{STRUCT[cls]}", ("strongly-convex" if table == 4 else "default")


def class_params(cls: str) -> tuple[str, ...]:
    return tuple(p for p in CLASS_FAMILIES[cls][2] if p != "kappa_f")


def cells(table: int, cls: str):
    return [c for c in REGISTRY if c.table in (table, None) and c.id.startswith(f"T{table}.{cls}.")]


# ----------------------------------------------------------------------------- task
@functools.lru_cache(maxsize=64)
def cached_instance(family: str, params_json: str):
    return build(family, **json.loads(params_json))


def point(table: int, family: str, params: dict, x: float, solver: str, method: str = "apapc",
          max_inner: int = 5_000_000) -> dict:
    """Build the instance, derive ε from the accuracy parameter ``x`` and count oracle calls to an (ε, δ)-solution."""
    t0 = time.perf_counter()
    inst = cached_instance(family, json.dumps(params, sort_keys=True))
    P = inst.problem
    lay = P.layout
    u_star = inst.x_star
    u0 = np.zeros(lay.size)
    if FAR_START[table]:
        rho = inst.params.get("box_half_width") or 2.0 * float(np.abs(u_star).max())
        rng = np.random.default_rng(12345)
        s = np.sign(rng.standard_normal(lay.size))
        if lay.dt:  # one point of the box with equal copies of x̃ (a consensus start)
            st = s[lay.dx:].reshape(lay.n, lay.dt)
            st[:] = st[0]
        u0 = rho * s
    out = {"realized": dict(inst.realized), "targets": dict(inst.targets), "n": P.n, "variables": lay.size,
           "family": family, "solver": solver, "method": method}
    if table == 2:
        L = float(P.objective.L)
        R = float(np.linalg.norm(u0 - u_star))
        eps = L * R * R / x
        res = regularized_apapc(P, eps=eps, x_star=u_star, R=R, method=method, x0=u0)
        row = res.params.get("settled_row")
        counts = counts_at(res, row) if res.converged else None
        out["hit_row"] = row
        out.update(L_f=L, R=R, tail=tail_reading(res.history_error, row) if res.converged else None)
    else:
        ws = reformulated_solution(P, u_star, method=method)
        w_star = ws["w"].copy()
        ndx = lay.dx
        w_star[:ndx] -= u0[:ndx]
        # the X̃ part of w* sits at the end (slice st), the u-part of u0 after dx
        k_t = w_star.size - lay.dt * lay.n
        w_star[k_t:] -= u0[ndx:]
        R = float(np.linalg.norm(w_star))
        M = float(P.objective.M_total)
        if table == 3:
            eps = M * R / x
        else:
            mu = float(P.objective.mu)
            eps = M * M / (mu * x * x)
            out["mu_f"] = mu
        if solver == "sliding":
            res = gradient_sliding(P, eps=eps, x_star=u_star, R=R, method=method, x0=u0, max_inner=max_inner)
        elif solver == "restarted":
            res = restarted_gradient_sliding(P, eps=eps, x_star=u_star, R=R, method=method, x0=u0, max_inner=max_inner)
        elif solver == "homotopy":
            res = homotopy_gradient_sliding(P, eps=eps, x_star=u_star, R=R, method=method, x0=u0, max_inner=max_inner)
        elif solver == "subgradient":
            res = projected_subgradient(P, eps=eps, x_star=u_star, method=method, x0=u0, max_iter=max_inner)
        else:
            raise ValueError(f"unknown solver {solver!r}")
        counts = res.counts if res.converged else None
        out["hit_row"] = int(res.iterations)
        out.update(M=M, R=R, R_u=float(np.linalg.norm(u0 - u_star)), Y_norm=ws["Y_norm"])
        if solver in ("restarted", "homotopy"):
            out["phases"] = len(res.params.get("phases", []))
    out["realized"][ACC[table]] = float(x)
    out.update(eps=eps, converged=bool(res.converged), reason=res.reason, iterations=int(res.iterations),
               per_accuracy=counts, final_ratio=float(res.history_error[-1]), degrees=res.params.get("reformulation", res.params).get("degrees"),
               solve_seconds=time.perf_counter() - t0)
    return out


def sweep_task(table, cls, params, x, solver=None, method="apapc", *, tier: Tier) -> Task:
    fam, var = family_of(table, cls)
    p = dict(params)
    p.setdefault("variant", var)  # the non-quadratic series names its own (nonquadratic_sweeps)
    kw = {"table": table, "family": fam, "params": p, "x": float(x), "solver": solver or SOLVER[table], "method": method,
          "max_inner": tier.tables24.max_inner}
    return Task(point, kw, label=f"T{table} {fam} x={x:g} {solver or SOLVER[table]}/{method} {params}")


# ----------------------------------------------------------------------------- sweeps
def sweeps(tier: Tier, table: int, cls: str) -> list[tuple[str, dict, list, list]]:
    """``(param, base κ's, grid of targets, [(params, x)])`` per swept parameter (grids: ``tier.tables24``)."""
    grids = tier.tables24
    base = {PARAM_KW[p]: KAPPA_BASE[p] for p in class_params(cls)}
    out = []
    lo, hi = grids.acc_range[table]
    m = ACC_SHIFT.get((table, cls), 1.0)
    grid = geomspace(m * lo, m * hi, grids.points)
    out.append((ACC[table], base, grid, [(base, x) for x in grid]))
    klo, khi = grids.kappa_range
    kgrid = geomspace(klo, khi, grids.points)
    xb = grids.acc_base[table]
    for p in class_params(cls):
        pts = []
        for v in kgrid:
            q = dict(base)
            q[PARAM_KW[p]] = v
            pts.append((q, xb))
        out.append((p, base, kgrid, pts))
    return out


def nonquadratic_sweeps(tier: Tier, table: int, cls: str) -> list[tuple[str, dict, list, list]]:
    """Table 2's non-quadratic series: the sweeps of :func:`sweeps` that ``Tier.tables24.nonquadratic`` selects, on the
    ``logcosh`` variant of the convex family (exact ``L_f = 1``, ``μ_f = 0``: :mod:`mixbounds.instances.convex`).
    Tables 3–4 have none (their families are non-quadratic already: absolute deviations)."""
    if table != 2:
        return []
    keep = nonquadratic_params(tier.tables24.nonquadratic, cls, [ACC[2], *class_params(cls)])
    return [(p, base, grid, [(dict(q, variant=NONQUADRATIC), x) for q, x in pts])
            for p, base, grid, pts in sweeps(tier, table, cls) if p in keep]


def series(table: int, cls: str, pts: list) -> str | None:
    """The ``@variant`` of a sweep's results: ``None`` for the table's own family, ``<family>+logcosh`` for the
    non-quadratic series."""
    v = pts[0][0].get("variant") if pts else None
    return series_name(family_of(table, cls)[0], v) if v else None

