"""Self-check of the Table 2 references: ``x*`` is a minimiser of (P), and the one nearest to ``u⁰ = 0``.

Why this check exists
---------------------
The convex families (:mod:`instances.convex`, ``μ_f = 0``) have a whole affine set of minimisers,
``v* + (ker H ∩ ker G)`` in the unique variables ``v = (x, x̃)`` (``u = E v``, ``H = EᵀQE``, ``G v = h``
the constraints, :mod:`instances.reference`).  The family's reference is the one nearest to the
start ``u⁰ = 0`` in the u-layout norm, and the T2 checks read ``R = ‖u⁰ − u*‖`` from it
(Lemma ``lem:regularized_convergence``: ``ν = ε/R²``).  Any other minimiser has the same ``F*``
and the same ``∇F(u*)``, so a reference moved along the solution set leaves every T2 slope
and every lemma within tolerance: planted as ``u* + 2·(a direction of ker H ∩ ker G)``, the
T2 claims and the lemmas all still passed.  This audit is what notices it.

What is recomputed, from the instance's matrices alone (dense; every tier instance has at
most a few dozen unknowns)
----------------------------------------------------------------------------------------
* ``copies``: ``u*`` has equal copies of ``x̃``: ``‖E v* − u*‖ / ‖u*‖`` with ``v*`` the least-squares
  preimage;
* ``kkt``: ``v*`` is a minimiser: ``G v* = h`` and ``H v* − g ∈ range(Gᵀ)`` (the stationarity
  residual left after the best multiplier), relative to the sizes of the terms;
* ``nearest``: the distance from ``u*`` to the nearest minimiser, relative to ``‖u*‖``.  The nearest
  one is computed here by another route than the family's (which projects with a null-space
  basis): ``min ½‖E v‖² s.t. H v = H v*, G v = h`` — the minimisers are exactly the feasible ``v``
  with the same ``H v`` — by least squares on its KKT system, which needs no rank decision.

Each must be within its tolerance below.  The result per class covers every distinct T2
instance of the tier's sweeps and reports the dimension of each solution set (at the quick
tier only the coupled class has a non-trivial one, so there the check has something to find).

Negative controls, on the coupled class's base instance (:data:`PLANTS`), must fail the same judge:
``control.reference.T2.other-minimiser`` moves the reference by ``‖u*‖`` along a unit direction of
``E(ker H ∩ ker G)`` — another exact minimiser, the planted defect above — and
``control.reference.T2.not-a-minimiser`` moves it by ``10⁻⁶‖u*‖`` off the solution set.
"""

from __future__ import annotations

import json

import numpy as np
import scipy.linalg as sla

from .framework import Check, Task
from .result import CheckResult

#: ``‖E v* − u*‖ / ‖u*‖``: equal copies of x̃, up to rounding
COPIES_RTOL = 1e-12
#: relative KKT residual of ``u*`` (the family's own requirement is 1e-9, instances.convex.KKT_RTOL)
KKT_RTOL = 1e-9
#: ``‖u* − u_nearest‖ / ‖u*‖``: the dense reference is exact to rounding (≈ 1e-15 measured); the sparse
#: proximal one certifies its stationarity to 1e-9 (instances.min_norm_reference.MIN_NORM_RTOL)
NEAREST_RTOL = 1e-8
#: the audit is dense; it refuses instances larger than this (unknowns + multipliers)
DENSE_MAX = 4000
#: the control moves the reference by this multiple of ‖u*‖ along the solution set
CONTROL_SHIFT = 1.0
#: the second control moves it off the solution set by this multiple of ‖u*‖ (a random direction with equal
#: copies of x̃): far above KKT_RTOL, far below anything a slope would notice
CONTROL_OFFSET = 1e-6
#: the planted defects of the controls
PLANTS = {"other-minimiser": "u* + ‖u*‖·(unit direction of E(ker H ∩ ker G)): another exact minimiser",
          "not-a-minimiser": f"u* + {CONTROL_OFFSET:g}·‖u*‖·(random unit direction with equal copies)"}
#: singular values of [H; G] below this fraction of the largest span the control's shift directions
NULL_RCOND = 1e-10

TABLE = 2


def _systems(inst):
    from mixbounds.instances.reference import constraint_system, copy_map

    P = inst.problem
    E = copy_map(P)
    G, h = constraint_system(P)
    if E.shape[1] + G.shape[0] > DENSE_MAX:
        raise ValueError(f"reference audit: {E.shape[1]} unknowns + {G.shape[0]} multipliers exceed the dense "
                         f"audit's {DENSE_MAX}")
    obj = P.objective
    E = E.toarray()
    H = E.T @ obj.Q.toarray() @ E
    g = E.T @ obj.q
    return E, H, g, G.toarray(), np.asarray(h, dtype=float)


def measure(E, H, g, G, h, u: np.ndarray) -> dict:
    """The three relative residuals of the module docstring for the candidate ``u``."""
    nu = float(np.linalg.norm(u)) or 1.0
    v = np.linalg.lstsq(E, u, rcond=None)[0]
    copies = float(np.linalg.norm(E @ v - u)) / nu
    r = H @ v - g
    lam = np.linalg.lstsq(G.T, -r, rcond=None)[0]
    stat = r + G.T @ lam
    feas = G @ v - h
    den = float(np.linalg.norm(H @ v) + np.linalg.norm(g) + np.linalg.norm(G.T @ lam) + np.linalg.norm(h)) or 1.0
    kkt = float(np.hypot(np.linalg.norm(stat), np.linalg.norm(feas))) / den
    # nearest minimiser: min ½‖E w‖² s.t. M w = M v*-side (H w = H v, G w = h), by least squares on its KKT system
    M = np.vstack([H, G])
    rhs_c = np.concatenate([H @ v, h])
    nv, nc = M.shape[1], M.shape[0]
    K = np.block([[E.T @ E, M.T], [M, np.zeros((nc, nc))]])
    w = np.linalg.lstsq(K, np.concatenate([np.zeros(nv), rhs_c]), rcond=None)[0][:nv]
    nearest = float(np.linalg.norm(E @ w - u)) / nu
    return {"copies": copies, "kkt": kkt, "nearest": nearest, "norm_u": float(np.linalg.norm(u)),
            "norm_nearest": float(np.linalg.norm(E @ w))}


def reference_audit(family: str, params_list: list, plant: str = "") -> dict:
    """Audit every instance of ``params_list``; with ``plant`` (a control), only the first, its reference
    replaced by the planted defect (:data:`PLANTS`)."""
    from mixbounds.instances.families import build

    if plant and plant not in PLANTS:
        raise ValueError(f"reference audit: unknown plant {plant!r}; one of {sorted(PLANTS)}")
    rows = []
    for params in (params_list[:1] if plant else params_list):
        inst = build(family, **params)
        E, H, g, G, h = _systems(inst)
        u = np.asarray(inst.x_star, dtype=float).copy()
        N = sla.null_space(np.vstack([H, G]), rcond=NULL_RCOND)
        row = {"params": params, "variables": int(u.size), "solution_set_dim": int(N.shape[1])}
        if plant == "other-minimiser":
            if not N.shape[1]:
                raise ValueError(f"{family} {params}: the minimiser is unique, the control has no direction to move "
                                 "the reference along")
            d = E @ N[:, 0]
            u = u + CONTROL_SHIFT * np.linalg.norm(u) * d / np.linalg.norm(d)
        elif plant == "not-a-minimiser":
            d = E @ np.random.default_rng(0).standard_normal(E.shape[1])
            u = u + CONTROL_OFFSET * np.linalg.norm(u) * d / np.linalg.norm(d)
        row["plant"] = plant or None
        row.update(measure(E, H, g, G, h, u))
        rows.append(row)
    return {"family": family, "instances": rows}


def tier_params(tier: str, cls: str) -> tuple[str, list]:
    """The family and the distinct instance parameters of the T2 sweeps of class ``cls`` at ``tier``."""
    from . import nonsmooth as ns

    fam, var = ns.family_of(TABLE, cls)
    seen, out = set(), []
    for _param, _base, _grid, pts in ns.sweeps(tier, TABLE, cls):
        for params, _x in pts:
            p = dict(params, variant=var)
            key = json.dumps(p, sort_keys=True)
            if key not in seen:
                seen.add(key)
                out.append(p)
    return fam, out


def _task(tier: str, cls: str, plant: str = "") -> Task:
    fam, plist = tier_params(tier, cls)
    return Task(reference_audit, {"family": fam, "params_list": plist, "plant": plant},
                label=f"reference audit T2 {cls}{f' (control: {plant})' if plant else ''}")


def judge(rid: str, p: dict, *, control: bool = False) -> CheckResult:
    common = dict(kind="audit", label="lem:regularized_convergence", control=control,
                  expected="fail" if control else None, tolerance=NEAREST_RTOL,
                  theory=f"x* a minimiser (KKT <= {KKT_RTOL:g}) with equal copies (<= {COPIES_RTOL:g}) and the "
                         f"nearest to u0 = 0 (distance <= {NEAREST_RTOL:g}·|u*|)")
    if "error" in p:
        return CheckResult(id=rid, status="fail" if control else "error", detail=p["error"], **common)
    bad, worst = [], {"copies": 0.0, "kkt": 0.0, "nearest": 0.0}
    for r in p["instances"]:
        for k, tol in (("copies", COPIES_RTOL), ("kkt", KKT_RTOL), ("nearest", NEAREST_RTOL)):
            worst[k] = max(worst[k], r[k])
            if not r[k] <= tol:
                bad.append(f"{k} {r[k]:.2e} > {tol:g} at {r['params']}")
    dims = sorted({r["solution_set_dim"] for r in p["instances"]})
    detail = (f"{p['family']}: {len(p['instances'])} instance(s), solution-set dimensions {dims}; worst copies "
              f"{worst['copies']:.1e}, KKT {worst['kkt']:.1e}, distance to the nearest minimiser "
              f"{worst['nearest']:.1e}·|u*|" + (f"; {len(bad)} violation(s): " + "; ".join(bad[:3]) if bad else ""))
    return CheckResult(id=rid, status="fail" if bad else "pass", measured=worst["nearest"], detail=detail,
                       points=p["instances"], readings={k: worst[k] for k in ("nearest", "kkt", "copies")}, **common)


def _classes():
    from .nonsmooth import CLASSES

    return CLASSES[TABLE]


def checks() -> list[Check]:
    def ids(tier):
        return [f"audit.reference.T2.{c}" for c in _classes()]

    def tasks(tier):
        return [_task(tier, c) for c in _classes()]

    def finalize(tier, pts):
        return [judge(f"audit.reference.T2.{c}", pts[_task(tier, c).key]) for c in _classes()]

    def c_id(plant):
        return f"control.reference.T2.{plant}"

    def c_tasks(tier):
        return [_task(tier, "coupled", plant) for plant in PLANTS]

    def c_finalize(tier, pts):
        return [judge(c_id(plant), pts[_task(tier, "coupled", plant).key], control=True) for plant in PLANTS]

    return [Check(id="audit.reference", family="selfcheck", result_ids=ids, tasks=tasks, finalize=finalize,
                  description="the T2 references are minimisers and the nearest ones to u0 = 0 (the R of the rates)"),
            Check(id="control.reference", family="selfcheck", result_ids=lambda t: [c_id(p) for p in PLANTS],
                  tasks=c_tasks, finalize=c_finalize,
                  description="a reference moved along the solution set (another minimiser) or off it must fail")]
