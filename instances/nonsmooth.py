"""Nonsmooth instance families with bounded subgradients (Tables 3 and 4).

Objective (Assumption ``ass:nonsmooth_and_str_convex_of_f_i``): sums of absolute
deviations, optionally plus a quadratic::

    f_i(z) = (1/N_i) Σ_j |a_ijᵀ z − y_ij|  +  (μ_f/2) ‖z‖²,      z = (x_i, x̃),

on a box ``[−ρ, ρ]`` of every coordinate (:class:`AbsDeviationObjective`).  Its
subgradients are bounded on the box by ``M_i = (1/N_i) Σ_j ‖a_ij‖ + μ_f ρ √(d_i + d̃)``
(exact bound of the formula, reported); ``M_f = max_i M_i`` (the paper's constant) and
``M_F = √(Σ_i M_i²)`` (the bound on ``‖∂F(u)‖`` of the stacked objective, the ``M`` of
Theorem ``thm:upper_bound_nonsmooth_affine_constraints`` for the reformulation).

Variants: ``"default"`` (``μ_f = 0``, Table 3) and ``"strongly-convex"`` (``μ_f = mu``,
keyword ``mu`` (default 1); Table 4: strong convexity and bounded subgradients hold
together only on a bounded set, ``sec:nonsmooth_strongly_convex_case``).

Constraints and κ's: exactly as :mod:`mixbounds.instances.random` (its helper functions are
reused: Fiedler-cut gossip tuning, two-stage ``tune_group`` for κ̂_A / κ̃_AC / κ̂_{C̃ᵀ},
singular values for κ_C and κ_C̃); the default graph is a ring (``n`` fixed, 4 nodes by
default) so that sweeps of κ_W do not change ``n``.  Right-hand sides come from a
random feasible point ``u⁰_feas``, so every instance is feasible.

Reference optimum (independent of the solvers under test):

* ``μ_f = 0``: the LP ``min Σ w_j (p_j + q_j)`` s.t. ``D v − p + q = y``, ``G v = h``,
  ``p, q >= 0`` in the original variables ``v = (x, x̃)`` by HiGHS
  (``scipy.optimize.linprog``, tolerances 1e-10);
* ``μ_f > 0``: the same lifted problem with the quadratic term, by a dense
  primal–dual interior-point method (:func:`qp_interior_point`, Mehrotra
  predictor–corrector; checked against HiGHS on LPs in the tests);
* both, once the dense lifted equality matrix would have more than :data:`DENSE_LIFTED_MAX`
  entries: the sparse Mehrotra method of :mod:`mixbounds.instances.reference.lad_interior_point` (per-node
  feature blocks, the reduced KKT system factored by :func:`mixbounds.instances.reference.kkt.kkt_solver`;
  checked against the dense path on small instances of every family in the tests).

The box is chosen **after** the reference solve, ``ρ = max(2 max|u*|, 2 max|u⁰_feas|, 1)``,
so the box is inactive at the optimum (margin reported): the multiplier bound of
Lemma ``lem:boundness_of_penal_prob_dual`` needs no normal-cone term.  ``params``
report ``R_u = ‖u⁰ − u*‖`` (``u⁰ = 0``), ``M_f``, ``M_F``, ``F*``, the reference
method and its achieved accuracy (KKT/constraint residuals).
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from mixbounds.bounds.concepts import Matrix, WorstFamily
from mixbounds.bounds.guards import SCALE_FLOOR
from mixbounds.instances.abs_deviation import AbsDeviationObjective
from mixbounds.instances.instance import Instance
from mixbounds.instances.layout import Layout
from mixbounds.instances.objectives import QuadraticObjective, block_diag_u
from mixbounds.instances.problem import MixedProblem
from mixbounds.instances.random import local_blocks, make_gossip
from mixbounds.instances.random.common import (
    COMMON_KW,
    check_int,
    check_kappa,
    check_seed,
    check_variant,
    kappa_A_alias,
    reject_targets,
    reject_unknown,
    seeded_rng,
)
from mixbounds.instances.random.constraint_groups import coupled_group, shared_group
from mixbounds.instances.random.finish import finish_instance
from mixbounds.instances.reference.kkt import constraint_system, copy_map
from mixbounds.instances.reference.lad_interior_point import lad_interior_point, max_step
from scipy.optimize import linprog

#: relative accuracy demanded of the reference (constraint residual and optimality)
REF_RTOL = 1e-8
#: largest dense lifted equality matrix ``[[D, −I, I], [G, 0, 0]]`` (entries: (rows of D + rows of G) × (columns
#: of v + 2·rows of D), :func:`lifted_entries`) given to the dense path (HiGHS, :func:`qp_interior_point`); above it
#: the sparse interior point of :mod:`mixbounds.instances.reference.lad_interior_point`.  Every instance the ``mixbounds verify`` tiers
#: and the tests build uses the default sizes (n = 4: at most 6844 entries, nonsmooth-mixed), far below, so their
#: references and verdicts do not change.  Measured (1 thread, dense vs sparse path): 6.6·10⁵ entries
#: (nonsmooth-coupled n = 40, d = 10) HiGHS 0.03 s, dense QP 1.2 s, sparse 0.03 s; 1.5·10⁶ (nonsmooth-mixed n = 20)
#: 0.15 s / 3.3 s / 0.06 s; 1.3·10⁷ (mixed n = 40) 1.6 s / 83 s / 0.1 s; 1.4·10⁸ (mixed n = 80) HiGHS 28 s and the
#: dense QP out of memory (a 4.65 GiB matrix).  The dense QP grows as (nv + 3N)³ per iteration: 10⁶ keeps it
#: within seconds.
DENSE_LIFTED_MAX = 1_000_000
#: stopping tolerance of the dense QP reference (μ_f > 0, Table 4).  At 1e-11 (the solver's default) its mean
#: complementarity stopped at 2.6e-11, so F(u*) was 2.6e-11 above the optimum and u* 6.9e-6 (relative) off the
#: sparse interior point's (nonsmooth-coupled strongly-convex, quick tier): F is only μ-strongly convex, so an error
#: δ in F is one of √(2δ/μ) in u.  At 1e-13 (one more iteration) the two agree to 2.6e-8, F to 3e-15.
QP_TOL = 1e-13


# ============================================================== constraints (shared with mixbounds.instances.convex)
#: structure (named like the worst-case family of the same class) → flags (x, x̃, A, C, C̃, identical C̃) and default
#: sizes (small: these families are for sublinear methods whose runs are long)
STRUCTURES = {
    WorstFamily.CONSENSUS: dict(x=False, t=True, A=False, C=False, Ct=False, ident=False, defaults=dict(n=4, dt=3)),
    WorstFamily.COUPLED: dict(x=True, t=False, A=True, C=False, Ct=False, ident=False, defaults=dict(n=4, d=4, m=2)),
    WorstFamily.SHARED: dict(x=False, t=True, A=False, C=False, Ct=True, ident=False, defaults=dict(n=4, dt=6, pt=1)),
    WorstFamily.SHARED_IDENT: dict(x=False, t=True, A=False, C=False, Ct=True, ident=True, defaults=dict(n=4, dt=4, pt=2)),
    WorstFamily.COUPLED_LOCAL: dict(x=True, t=False, A=True, C=True, Ct=False, ident=False, defaults=dict(n=4, d=5, m=2, p=2)),
    WorstFamily.MIXED: dict(x=True, t=True, A=True, C=True, Ct=True, ident=False, defaults=dict(n=4, d=4, dt=6, m=2, p=1, pt=1)),
    WorstFamily.MIXED_IDENT: dict(x=True, t=True, A=True, C=True, Ct=True, ident=True, defaults=dict(n=4, d=4, dt=4, m=2, p=1, pt=2)),
}
#: the shared-variable constraints must leave x̃ free in some directions (n·p̃ < d̃ for non-identical C̃,
#: p̃ < d̃ for identical ones), otherwise they fix x̃ and the objective plays no role in it.
SIZE_KW = ("d", "dt", "m", "p", "pt")


def build_constraints(family: str, structure: str, *, seed: int, n, kappa_W, kappa_AC, kappa_C, kappa_Ct, graph, kw: dict,
                      feasible_scale: float = 0.5) -> dict:
    """Graph, layout, constraint blocks and targets of a family (the generators of :mod:`mixbounds.instances.random`).

    Returns ``{"gossip", "layout", "blocks" (MixedProblem keywords), "targets", "params",
    "feasible_u"}``; ``feasible_u`` is the u-layout point the right-hand sides come from
    (entries ``feasible_scale · N(0, 1)``).
    """
    st = STRUCTURES[structure]
    kappa_W = check_kappa("kappa_W", kappa_W)
    kappa_AC = check_kappa("kappa_AC", kappa_AC)
    kappa_C = check_kappa("kappa_C", kappa_C)
    kappa_Ct = check_kappa("kappa_Ct", kappa_Ct)
    reject_targets(family, {
        "kappa_AC": (kappa_AC, "the problem has no coupled constraint Σ A_i x_i = Σ b_i") if not st[Matrix.A] else (None, ""),
        "kappa_C": (kappa_C, "the problem has no local constraints C_i x_i = c_i") if not st[Matrix.C] else (None, ""),
        "kappa_Ct": (kappa_Ct, "the problem has no shared-variable constraints C̃_i x̃ = c̃_i") if not st[Matrix.CT] else (None, ""),
    })
    gs = make_gossip(graph or "ring", None if n is None else check_int("n", n, 2), default_n=st["defaults"]["n"],
                     kappa_W=kappa_W, gossip=kw.get("gossip", "laplacian"), seed=seed, er_p=kw.get("er_p"))
    n = gs.n
    dflt = st["defaults"]
    d = check_int("d", kw.get("d", dflt.get("d", 0)), 1) if st["x"] else 0
    dt = check_int("dt", kw.get("dt", dflt.get("dt", 0)), 1) if st["t"] else 0
    m = check_int("m", kw.get("m", dflt.get("m")), 2) if st[Matrix.A] else 0
    p = check_int("p", kw.get("p", dflt.get("p")), 1, d - 1) if st[Matrix.C] else 0
    pt = check_int("pt", kw.get("pt", dflt.get("pt")), 1, dt - 1) if st[Matrix.CT] else 0
    if st[Matrix.CT] and not st["ident"] and n * pt >= dt:
        raise ValueError(f"{family}: n·pt = {n}·{pt} = {n * pt} rows of C̃_i >= dt = {dt} would fix x̃ (no free shared "
                         f"direction left for the objective); take dt > n·pt, e.g. dt = {n * pt + 1}")
    if st["ident"] and kappa_Ct is not None and kappa_Ct > 1 and pt < 2:
        raise ValueError(f"{family}: kappa_Ct = {kappa_Ct:g} > 1 needs pt >= 2 rows in C̃")
    lay = Layout((d,) * n, dt)
    targets: dict = {}
    if kappa_W is not None:
        targets["kappa_W"] = kappa_W
    params: dict = {"n": n, "d": d, "dt": dt, "m": m, "p": p, "pt": pt, "graph": gs.info, "tuning": {}}
    rng_x = seeded_rng(seed, "feasible-point")
    x0 = [feasible_scale * rng_x.standard_normal(d) for _ in range(n)] if st["x"] else []
    xt0 = feasible_scale * rng_x.standard_normal(dt) if st["t"] else None
    blocks: dict = {}
    kernels = None
    if st[Matrix.C]:
        C, kernels = local_blocks([d] * n, [p] * n, kappa_C, seeded_rng(seed, "local-C"))
        blocks.update(C=C, c=[C[i] @ x0[i] for i in range(n)], C_kernels=kernels)
        if kappa_C is not None:
            targets["kappa_C"] = kappa_C
        params["tuning"]["kappa_C"] = "singular values in [1, sqrt(kappa_C)]" if kappa_C else "none (Gaussian)"
    if st[Matrix.A]:
        _add_coupled(blocks, targets, params, seed=seed, n=n, d=d, p=p, m=m, kernels=kernels, x0=x0,
                     kappa_AC=kappa_AC, with_C=st[Matrix.C])
    if st[Matrix.CT]:
        _add_shared(blocks, targets, params, seed=seed, n=n, dt=dt, pt=pt, xt0=xt0, kappa_Ct=kappa_Ct,
                    identical=st["ident"])
    if kappa_W is not None:
        params["tuning"]["kappa_W"] = gs.info.get("tuning")
    u_feas = lay.join(np.concatenate(x0) if x0 else np.zeros(0), np.tile(xt0, (n, 1)) if dt else np.zeros((n, 0)))
    return {"gossip": gs, "layout": lay, "blocks": blocks, "targets": targets, "params": params, "feasible_u": u_feas}


def _add_coupled(blocks: dict, targets: dict, params: dict, *, seed: int, n: int, d: int, p: int, m: int, kernels,
                 x0: list, kappa_AC, with_C: bool) -> None:
    """``A_i`` tuned to ``κ̃_AC`` (``κ̂_A`` without local constraints) and ``b_i = A_i x0_i`` (feasible)."""
    A, b, t, info = coupled_group(seed=seed, n=n, d=d, p=p, m=m, kernels=kernels, x0=x0, kappa_AC=kappa_AC,
                                  with_C=with_C)
    blocks.update(A=A, b=b)
    targets.update(t)
    params["tuning"]["kappa_AC"] = info


def _add_shared(blocks: dict, targets: dict, params: dict, *, seed: int, n: int, dt: int, pt: int, xt0, kappa_Ct,
                identical: bool) -> None:
    """``C̃_i`` (identical, or tuned to ``κ̂_{C̃ᵀ}``) and ``c̃_i = C̃_i x̃0`` (feasible)."""
    Ct, ct, t, info = shared_group(seed=seed, n=n, dt=dt, pt=pt, xt0=xt0, kappa_Ct=kappa_Ct, identical=identical)
    targets.update(t)
    if not identical:
        params["tuning"]["kappa_Ct"] = info
    blocks.update(Ct=Ct, ct=ct)
    params["free_shared_dims"] = int(dt - np.linalg.matrix_rank(np.vstack([np.asarray(Ci) for Ci in Ct])))


def skeleton_problem(layout: Layout, gossip, blocks: dict) -> MixedProblem:
    """A problem with the given constraints and a placeholder objective (for the constraint system only)."""
    Q = [sp.identity(layout.d[i] + layout.dt, format="csr") for i in range(layout.n)]
    q = [np.zeros(layout.d[i] + layout.dt) for i in range(layout.n)]
    return MixedProblem(gossip.W, QuadraticObjective(Q, q, layout, L=1.0, mu=1.0), layout, edges=gossip.adjacency, **blocks)


# ============================================================== reference solvers
def _independent_rows(G: np.ndarray, h: np.ndarray, tol: float = 1e-10) -> tuple[np.ndarray, np.ndarray]:
    """Drop linearly dependent rows of ``G v = h`` (consistent systems only; checked)."""
    if G.shape[0] == 0:
        return G, h
    _, R, piv = sla.qr(G.T, mode="economic", pivoting=True)
    diag = np.abs(np.diag(R))
    rank = int(np.sum(diag > tol * max(diag.max(), SCALE_FLOOR)))
    keep = np.sort(piv[:rank])
    return G[keep], h[keep]


def qp_interior_point(H: np.ndarray, c: np.ndarray, A: np.ndarray, b: np.ndarray, nonneg: np.ndarray, *,
                      tol: float = 1e-11, max_iter: int = 200) -> dict:
    """Dense primal–dual interior-point method (Mehrotra predictor–corrector) for

        min ½ xᵀHx + cᵀx   s.t.   A x = b,   x_j >= 0 for j in ``nonneg`` (others free),

    with ``H`` PSD and ``A`` of full row rank.  Returns ``{"x", "lam", "s", "iterations",
    "primal_residual", "dual_residual", "complementarity", "converged"}`` (residuals relative
    to ``1 + ‖b‖``, ``1 + ‖c‖``).  Used for the strongly convex references; checked against
    HiGHS on LPs (``H = 0``) in the tests.
    """
    nx, ne = H.shape[0], A.shape[0]
    P = np.asarray(nonneg, dtype=np.int64)
    x = np.zeros(nx)
    x[P] = 1.0
    s = np.ones(P.size)
    lam = np.zeros(ne)
    nb, nc = 1.0 + np.linalg.norm(b), 1.0 + np.linalg.norm(c)
    reg = 1e-13 * max(1.0, np.abs(H).max() if H.size else 1.0, np.abs(A).max() if A.size else 1.0)
    out = {"converged": False}
    for it in range(max_iter):
        rd = H @ x + c - A.T @ lam
        rd[P] -= s
        rp = A @ x - b
        mu = float(x[P] @ s) / max(P.size, 1)
        pres, dres = np.linalg.norm(rp) / nb, np.linalg.norm(rd) / nc
        obj = 0.5 * x @ (H @ x) + c @ x
        if pres < tol and dres < tol and mu < tol * (1.0 + abs(obj)):
            out["converged"] = True
            break
        Dg = np.zeros(nx)
        Dg[P] = s / x[P]
        K = np.block([[H + np.diag(Dg) + reg * np.eye(nx), -A.T], [A, -reg * np.eye(ne)]])
        lu = sla.lu_factor(K)

        def direction(comp):  # comp = target of x_P∘s after the step (complementarity rhs)
            r1 = -rd.copy()
            r1[P] += (comp - x[P] * s) / x[P] - 0.0
            # ds = (comp − x∘s − s∘dx)/x ; substituted: (H + D)dx − Aᵀdλ = −rd + (comp − x∘s)/x
            sol = sla.lu_solve(lu, np.concatenate([r1, -rp]))
            dx, dl = sol[:nx], sol[nx:]
            ds = (comp - x[P] * s - s * dx[P]) / x[P]
            return dx, dl, ds

        dx, dl, ds = direction(np.zeros(P.size))
        ap, ad = max_step(x[P], dx[P]), max_step(s, ds)
        mu_aff = float((x[P] + ap * dx[P]) @ (s + ad * ds)) / max(P.size, 1)
        sigma = (mu_aff / mu) ** 3 if mu > 0 else 0.0
        dx, dl, ds = direction(sigma * mu - dx[P] * ds)
        a = 0.99 * min(max_step(x[P], dx[P]), max_step(s, ds))
        x += a * dx
        lam += a * dl
        s += a * ds
    out.update(x=x, lam=lam, s=s, iterations=it, primal_residual=float(pres), dual_residual=float(dres),
               complementarity=float(mu))
    return out


def _lifted(problem_sk: MixedProblem, obj_data: tuple, mu: float):
    """The lifted problem in ``(v, p, q)``: dense ``H, c, A_eq, b_eq``, nonneg indices, and maps."""
    feats, ys, lay = obj_data
    E = copy_map(problem_sk)
    D = (block_diag_u(feats, lay) @ E).toarray()
    y = np.concatenate(ys)
    w = np.concatenate([np.full(F.shape[0], 1.0 / F.shape[0]) for F in feats])
    G, h = constraint_system(problem_sk)
    G, h = _independent_rows(G.toarray(), h)
    nv, nr = D.shape[1], D.shape[0]
    A = np.block([[D, -np.eye(nr), np.eye(nr)], [G, np.zeros((G.shape[0], 2 * nr))]])
    b = np.concatenate([y, h])
    c = np.concatenate([np.zeros(nv), w, w])
    H = np.zeros((nv + 2 * nr,) * 2)
    if mu:
        EtE = (E.T @ E).toarray()
        H[:nv, :nv] = mu * EtE
    return H, c, A, b, np.arange(nv, nv + 2 * nr), E, nv


def lifted_entries(problem_sk: MixedProblem, feats) -> int:
    """Entries of the dense lifted equality matrix of :func:`_lifted` (before dependent rows of ``G`` are dropped)."""
    lay = problem_sk.layout
    nr = int(sum(np.shape(F)[0] for F in feats))
    n_g = constraint_system(problem_sk)[0].shape[0]
    return (nr + n_g) * (lay.dx + lay.dt + 2 * nr)


def reference_nonsmooth(problem_sk: MixedProblem, feats, ys, mu: float) -> dict:
    """Reference optimum of ``Σ f_i`` (box inactive) under the problem's constraints (module docstring): the dense
    lifted problem up to :data:`DENSE_LIFTED_MAX` entries, the sparse interior point above."""
    entries = lifted_entries(problem_sk, feats)
    if entries > DENSE_LIFTED_MAX:
        out = lad_interior_point(problem_sk, feats, ys, mu)
        info = {k: v for k, v in out["info"].items() if k != "trace"}
        info["lifted_entries"] = entries
        if info["primal_residual"] > REF_RTOL:
            raise ValueError(f"reference: constraint residual {info['primal_residual']:.1e} exceeds {REF_RTOL:g}")
        return {"u": out["u"], "info": info}
    lay = problem_sk.layout
    H, c, A, b, P, E, nv = _lifted(problem_sk, (feats, ys, lay), mu)
    if mu == 0:
        bounds = [(None, None)] * nv + [(0, None)] * (A.shape[1] - nv)
        res = linprog(c, A_eq=A, b_eq=b, bounds=bounds, method="highs",
                      options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10})
        if res.status != 0:
            raise ValueError(f"reference LP (HiGHS) failed: {res.message}")
        z = res.x
        info = {"method": "HiGHS LP (scipy.optimize.linprog, feasibility tolerances 1e-10)", "status": res.message}
        lam = getattr(res.eqlin, "marginals", None)
        if lam is not None:
            rd = c - A.T @ lam
            # reduced costs of the nonnegative variables must be >= 0, of the free ones = 0
            info["dual_residual"] = float(max(np.abs(rd[:nv]).max(initial=0.0), -min(rd[nv:].min(initial=0.0), 0.0)) / (1 + np.linalg.norm(c)))
            info["duality_gap"] = float(abs(c @ z - b @ lam) / (1 + abs(c @ z)))
    else:
        out = qp_interior_point(H, c, A, b, P, tol=QP_TOL)
        if not out["converged"]:
            raise ValueError(f"reference QP (interior point) did not converge: {out['iterations']} iterations, "
                             f"residuals {out['primal_residual']:.1e}/{out['dual_residual']:.1e}/{out['complementarity']:.1e}")
        z = out["x"]
        info = {"method": "dense primal-dual interior point (Mehrotra), mixbounds.instances.nonsmooth.qp_interior_point",
                "iterations": out["iterations"], "dual_residual": out["dual_residual"], "complementarity": out["complementarity"]}
    v = z[:nv]
    info["primal_residual"] = float(np.linalg.norm(A @ z - b) / (1 + np.linalg.norm(b)))
    if info["primal_residual"] > REF_RTOL:
        raise ValueError(f"reference: constraint residual {info['primal_residual']:.1e} exceeds {REF_RTOL:g}")
    u = E @ v
    return {"u": u, "info": info}


# ============================================================== families
def _features(lay: Layout, samples: int | None, rng: np.random.Generator, u_feas: np.ndarray, noise: float):
    feats, ys = [], []
    for i in range(lay.n):
        k = lay.d[i] + lay.dt
        Ni = samples if samples is not None else k + 2
        F = rng.standard_normal((Ni, k)) / np.sqrt(k)
        z0 = u_feas[lay.node_u_indices(i)] + rng.standard_normal(k)
        y = F @ z0 + noise * rng.laplace(size=Ni)
        feats.append(F)
        ys.append(y)
    return feats, ys


def _build(structure: str, *, n=None, seed=0, kappa_W=None, kappa_f=None, kappa_AC=None, kappa_C=None, kappa_Ct=None,
           eps=None, variant="default", graph=None, **kw) -> Instance:
    family = f"nonsmooth-{structure}"
    seed = check_seed(seed)
    check_variant(family, variant, ("default", "strongly-convex"))
    st = STRUCTURES[structure]
    allowed = list(COMMON_KW) + [k for k in SIZE_KW if k in st["defaults"]] + ["samples", "mu", "noise"]
    if st[Matrix.A] and not st[Matrix.C]:
        allowed.append("kappa_A")
    reject_unknown(family, kw, allowed)
    kappa_AC = kappa_A_alias(family, kw, kappa_AC)
    if kappa_f is not None:
        raise ValueError(f"{family}: cannot target kappa_f = {kappa_f}: a nonsmooth objective has no smoothness constant "
                         "(Tables 3-4 are parametrised by M_f, mu_f and R)")
    mu = float(kw.get("mu", 1.0)) if variant == "strongly-convex" else 0.0
    if variant == "strongly-convex" and not (np.isfinite(mu) and mu > 0):
        raise ValueError(f"{family}: variant 'strongly-convex' needs mu > 0, got {kw.get('mu')}")
    if variant == "default" and "mu" in kw:
        raise ValueError(f"{family}: 'mu' is only accepted with variant 'strongly-convex'")
    samples = None if kw.get("samples") is None else check_int("samples", kw["samples"], 1)
    noise = float(kw.get("noise", 0.3))
    con = build_constraints(family, structure, seed=seed, n=n, kappa_W=kappa_W, kappa_AC=kappa_AC, kappa_C=kappa_C,
                            kappa_Ct=kappa_Ct, graph=graph, kw=kw)
    lay, gs, blocks = con["layout"], con["gossip"], con["blocks"]
    feats, ys = _features(lay, samples, seeded_rng(seed, "nonsmooth-objective"), con["feasible_u"], noise)
    sk = skeleton_problem(lay, gs, blocks)
    ref = reference_nonsmooth(sk, feats, ys, mu)
    u_star = ref["u"]
    rho = float(max(2.0 * np.abs(u_star).max(), 2.0 * np.abs(con["feasible_u"]).max(), 1.0))
    obj = AbsDeviationObjective(feats, ys, lay, mu=mu, box=rho)
    problem = MixedProblem(gs.W, obj, lay, edges=gs.adjacency, name=f"{family}(n={lay.n}, seed={seed})",
                           meta={"family": family, "seed": seed}, **blocks)
    F_star = obj.value(u_star)
    params = dict(con["params"], eps=eps, objective="abs-deviation", mu_f=mu, M_f=obj.M, M_F=obj.M_total,
                  box_half_width=rho, box_margin=float(rho - np.abs(u_star).max()), R_u=float(np.linalg.norm(u_star)),
                  F_star=F_star, reference=ref["info"], samples=[int(F.shape[0]) for F in feats], noise=noise)
    notes = [f"{family}: absolute deviations{' + mu/2 |z|^2' if mu else ''} on a box (instances/nonsmooth.py); "
             "u0 = 0 is the start the checks use (R_u = |u*|)."]
    closed = dict(gs.closed_forms)
    closed["box inactive at u* (lem:boundness_of_penal_prob_dual needs no normal cone)"] = {
        "printed": "max|u*| < rho", "computed": float(np.abs(u_star).max()), "holds": bool(np.abs(u_star).max() < rho),
        "label": "lem:boundness_of_penal_prob_dual"}
    inst = finish_instance(family, variant, problem, con["targets"], seed=seed, params=params, notes=notes, closed_forms=closed)
    return inst.with_reference(u_star)


def _family(structure: str) -> Callable[..., Instance]:
    def builder(**kw) -> Instance:
        return _build(structure, **kw)

    builder.__name__ = f"nonsmooth_{structure.replace('-', '_')}"
    builder.__doc__ = (f"``nonsmooth-{structure}``: absolute-deviation objective on a box with the constraints of the "
                       f"``random-{structure}`` family (module docstring). Variants ``default`` (μ_f = 0) and "
                       f"``strongly-convex`` (keyword ``mu``, default 1).  Keywords: sizes "
                       f"{', '.join(k for k in SIZE_KW if k in STRUCTURES[structure]['defaults'])}; ``samples`` (d_i + d̃ + 2), "
                       "``noise`` (0.3), ``gossip``, ``er_p``.")
    return builder


FAMILIES: dict[str, Callable[..., Instance]] = {f"nonsmooth-{s}": _family(s) for s in STRUCTURES}
