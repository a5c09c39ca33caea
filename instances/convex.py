"""Smooth convex (not strongly convex) instance families (Table 2, ``μ_f = 0``).

Objectives (Assumption ``ass:smooth_and_str_convex_of_f_i`` with ``L_f > μ_f = 0``):

* ``default``: rank-deficient quadratics ``f_i(z) = ½ zᵀQ_i z − q_iᵀz``: ``Q_i = U_i diag(λ) U_iᵀ``
  with ``rank`` (default ``⌈k_i/2⌉``) eigenvalues log-uniform in ``[0.1, 1]`` (``L_f = 1``
  attained at node 0) and the others 0; ``q_i = Q_i z_i⁰`` lies in the range of ``Q_i``,
  so each ``f_i`` is bounded below and the problem has minimisers, generally a whole
  affine set of them (flat directions of ``F`` inside the feasible set).
* ``logistic``: logistic regression **without** regularisation
  (:class:`~mixbounds.instances.objectives.LogisticObjective` with ``reg = 0``) on noisy, hence
  non-separable, labels; ``L_f = max_i ‖F_i‖²/(4N_i)``.
* ``logcosh``: the ``default`` quadratic (same ``U_i``, eigenvalues, rank) plus Huber-smoothed terms
  ``c_ij log cosh(u_ijᵀz − s_ij)`` along its eigenvectors
  (:class:`~mixbounds.instances.objectives.LogCoshObjective`): ``c_ij = r_ij (1 − λ_ij)``, ``r_ij`` uniform in
  ``[½, 1]``, except ``c = 0`` on node 0's direction of curvature 1.  Exact constants: ``L_f = 1`` (attained at
  every point, node 0) and ``μ_f = 0`` (the infimum of the curvature along the null directions of ``Q_i``,
  approached far out); every ``f_i`` is strictly convex, so the minimiser is unique.  ``q_i`` makes ``z_i⁰``
  (the feasible point plus noise, as for the quadratic) the minimiser of ``f_i`` alone, so each ``f_i`` is
  bounded below.

Constraints and κ's: :func:`mixbounds.instances.nonsmooth.build_constraints` (the generators of
:mod:`mixbounds.instances.random`, ring graph by default so that ``n`` is fixed along κ_W sweeps).

Reference solution (``x_star``): the minimiser **nearest to the start** ``u⁰ = 0`` in the
u-layout norm (the one the regularised method of ``thm:smooth_objectives_apapc_convergence``
converges to as ν → 0 from ``u⁰ = 0``, and the ``u*`` that makes ``R = ‖u⁰ − u*‖`` smallest for that start).
The T2 checks (:mod:`mixbounds.checks.tables234`) start far from 0 (``u⁰ = ρ·s``): there ``R = ‖u⁰ − u*‖`` with this
``u*`` is a valid ``R`` of Lemma ``lem:regularized_convergence`` (any minimiser may be its ``u*``) but not the
smallest one (convex-coupled quick-tier base instance: 16.42 against the distance 12.73 from ``u⁰`` to the
solution set); the audit ``audit.reference.T2.*`` checks the contract stated here.
Quadratic: :func:`mixbounds.instances.reference.min_norm.min_norm_quadratic_solution` (dense least squares on the
singular KKT system, then the component along the solution set ``v₀ + (ker H ∩ ker G)`` removed in the u-layout
metric; proximal-point steps on one sparse factorisation with a certificate above its size limit), the point
:func:`mixbounds.instances.reference.kkt.reference_solution` also returns for these problems.  The KKT residual is reported.  Logistic and log-cosh: equality-constrained Newton
(:func:`mixbounds.instances.reference.kkt.reference_solution`, relative KKT residual ``<= 1e-9``, else an error),
strictly convex on the feasible set (logistic: for these data, checked by its KKT solve; log-cosh: everywhere).  ``params`` report ``R_u``, ``L_f``, ``F*``,
``D = F(u*) − inf F`` (Lemma ``lem:regularized_convergence``; quadratic only) and
``grad_norm_star = ‖∇F(u*)‖``.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from mixbounds.bounds.concepts import Matrix
from mixbounds.instances.instance import Instance
from mixbounds.instances.layout import Layout
from mixbounds.instances.nonsmooth import SIZE_KW, STRUCTURES, build_constraints
from mixbounds.instances.objectives import LogCoshObjective, LogisticObjective, QuadraticObjective
from mixbounds.instances.problem import MixedProblem
from mixbounds.instances.random.common import (
    COMMON_KW,
    check_int,
    check_seed,
    check_variant,
    haar_orthogonal,
    kappa_A_alias,
    reject_unknown,
    seeded_rng,
)
from mixbounds.instances.random.finish import finish_instance
from mixbounds.instances.reference.kkt import reference_solution
from mixbounds.instances.reference.min_norm import min_norm_quadratic_solution


def _rank_deficient_spectra(layout: Layout, rng: np.random.Generator, u_feas: np.ndarray, rank: int | None):
    """Per node: eigenvalues (``rank`` of them log-uniform in ``[0.1, 1]``, node 0's first = 1, the rest 0), a
    random orthogonal ``U_i`` and the point ``z_i⁰`` (feasible point plus noise), in the quadratic family's draw
    order."""
    out = []
    for i in range(layout.n):
        k = layout.d[i] + layout.dt
        r = max(1, (k + 1) // 2) if rank is None else min(int(rank), k)
        ev = np.zeros(k)
        ev[:r] = np.exp(rng.uniform(np.log(0.1), 0.0, r))
        if i == 0:
            ev[0] = 1.0
        U = haar_orthogonal(k, rng)
        z0 = u_feas[layout.node_u_indices(i)] + rng.standard_normal(k)
        out.append((ev, U, z0))
    return out


def rank_deficient_quadratic(layout: Layout, rng: np.random.Generator, u_feas: np.ndarray, rank: int | None):
    Qs, qs = [], []
    for ev, U, z0 in _rank_deficient_spectra(layout, rng, u_feas, rank):
        Q = (U * ev) @ U.T
        Q = 0.5 * (Q + Q.T)
        Qs.append(Q)
        qs.append(Q @ z0)
    obj = QuadraticObjective(Qs, qs, layout, L=1.0, mu=0.0)
    return obj


def logcosh_convex(layout: Layout, rng: np.random.Generator, u_feas: np.ndarray, rank: int | None) -> LogCoshObjective:
    """The ``logcosh`` variant (module docstring): exact ``L_f = 1``, ``μ_f = 0``, each ``f_i`` minimised at ``z_i⁰``."""
    spec = _rank_deficient_spectra(layout, rng, u_feas, rank)
    rng_t = np.random.default_rng(rng.integers(2**63))  # the terms' own stream, after the quadratic part's draws
    Us, lams, cs, ss, qs = [], [], [], [], []
    for i, (ev, U, z0) in enumerate(spec):
        c = rng_t.uniform(0.5, 1.0, ev.size) * (1.0 - ev)
        if i == 0:
            c[0] = 0.0
        s = rng_t.standard_normal(ev.size)
        t0 = U.T @ z0 - s
        # ∇f_i(z0) = Q z0 − q + U (c · tanh(Uᵀz0 − s)) = 0
        q = (U * ev) @ (U.T @ z0) + U @ (c * np.tanh(t0))
        Us.append(U), lams.append(ev), cs.append(c), ss.append(s), qs.append(q)
    return LogCoshObjective(Us, lams, cs, ss, qs, layout)


def _build(structure: str, *, n=None, seed=0, kappa_W=None, kappa_f=None, kappa_AC=None, kappa_C=None, kappa_Ct=None,
           eps=None, variant="default", graph=None, **kw) -> Instance:
    family = f"convex-{structure}"
    seed = check_seed(seed)
    check_variant(family, variant, ("default", "logistic", "logcosh"))
    st = STRUCTURES[structure]
    allowed = list(COMMON_KW) + [k for k in SIZE_KW if k in st["defaults"]] + ["rank", "samples", "noise"]
    if st[Matrix.A] and not st[Matrix.C]:
        allowed.append("kappa_A")
    reject_unknown(family, kw, allowed)
    kappa_AC = kappa_A_alias(family, kw, kappa_AC)
    if kappa_f is not None:
        raise ValueError(f"{family}: cannot target kappa_f = {kappa_f}: μ_f = 0 in Table 2 (κ_f is infinite); "
                         "the accuracy parameter is L_f R²/ε")
    con = build_constraints(family, structure, seed=seed, n=n, kappa_W=kappa_W, kappa_AC=kappa_AC, kappa_C=kappa_C,
                            kappa_Ct=kappa_Ct, graph=graph, kw=kw)
    lay, gs, blocks = con["layout"], con["gossip"], con["blocks"]
    rng = seeded_rng(seed, "convex-objective")
    if variant == "default":
        rank = kw.get("rank")
        if rank is not None:
            rank = check_int("rank", rank, 1)
        obj = rank_deficient_quadratic(lay, rng, con["feasible_u"], rank)
        oinfo = {"type": "quadratic (rank-deficient)", "rank": rank, "eigenvalues": "log-uniform in [0.1, 1], L_f = 1 at node 0"}
    elif variant == "logcosh":
        rank = kw.get("rank")
        if rank is not None:
            rank = check_int("rank", rank, 1)
        obj = logcosh_convex(lay, rng, con["feasible_u"], rank)
        oinfo = {"type": "logcosh (quadratic of rank ~k/2 plus log-cosh terms)", "rank": rank,
                 "constants": "exact: L_f = 1 attained at node 0, mu_f = 0 (infimum)"}
    else:
        Fs, ys = [], []
        samples = check_int("samples", kw.get("samples", 0) or 0, 0)
        noise = float(kw.get("noise", 1.0))
        for i in range(lay.n):
            k = lay.d[i] + lay.dt
            Ni = samples or 4 * k
            F = rng.standard_normal((Ni, k)) / np.sqrt(k)
            wtrue = con["feasible_u"][lay.node_u_indices(i)] + rng.standard_normal(k)
            y = np.sign(F @ wtrue + noise * rng.standard_normal(Ni))
            y[y == 0] = 1.0
            Fs.append(F)
            ys.append(y)
        obj = LogisticObjective(Fs, ys, 0.0, lay)
        oinfo = {"type": "logistic (no regularisation)", "samples_per_node": [int(F.shape[0]) for F in Fs], "noise": noise}
    problem = MixedProblem(gs.W, obj, lay, edges=gs.adjacency, name=f"{family}(n={lay.n}, seed={seed})",
                           meta={"family": family, "seed": seed}, **blocks)
    if variant == "default":
        ref = min_norm_quadratic_solution(problem)
        u_star = ref["u"]
        F_inf = -0.5 * sum(float(q @ np.linalg.lstsq(Q.toarray(), q, rcond=None)[0]) for Q, q in zip(obj.Q_blocks, obj.q_blocks))
        D = obj.value(u_star) - F_inf
        rinfo = {k: ref[k] for k in ("kkt_residual", "solution_set_dim", "method", "min_norm_residual") if k in ref}
    else:
        r = reference_solution(problem)
        u_star = r.u
        D = None
        rinfo = {"kkt_residual": r.kkt_residual, "method": r.method, "solution_set_dim": 0}
    params = dict(con["params"], eps=eps, objective=oinfo, L_f=float(obj.L), mu_f=0.0, R_u=float(np.linalg.norm(u_star)),
                  F_star=float(obj.value(u_star)), D=D, grad_norm_star=float(np.linalg.norm(obj.grad(u_star))), reference=rinfo)
    notes = [f"{family}: smooth convex objective with μ_f = 0 (instances/convex.py); u0 = 0 is the start (R_u = |u*|)."]
    inst = finish_instance(family, variant, problem, con["targets"], seed=seed, params=params, notes=notes,
                   closed_forms=dict(gs.closed_forms))
    return inst.with_reference(u_star)


def _family(structure: str) -> Callable[..., Instance]:
    def builder(**kw) -> Instance:
        return _build(structure, **kw)

    builder.__name__ = f"convex_{structure.replace('-', '_')}"
    builder.__doc__ = (f"``convex-{structure}``: smooth convex objective (μ_f = 0) with the constraints of the "
                       f"``random-{structure}`` family (module docstring).  Variants ``default`` (rank-deficient "
                       "quadratic, keyword ``rank``), ``logistic`` (no regularisation; ``samples``, ``noise``) and "
                       "``logcosh`` (the quadratic plus Huber-smoothed terms, exact constants; ``rank``).")
    return builder


FAMILIES: dict[str, Callable[..., Instance]] = {f"convex-{s}": _family(s) for s in STRUCTURES}
