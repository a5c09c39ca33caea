"""``local-global``: mixture of local and global models (``app:problem_formulations``), built as an exact
reformulation of the printed problem (which is not of the form (P)); details in :func:`local_global`.
"""

from __future__ import annotations

import numpy as np
from mixbounds.bounds.guards import SCALE_FLOOR
from mixbounds.instances.instance import Instance
from mixbounds.instances.layout import Layout
from mixbounds.instances.objectives import QuadraticObjective
from mixbounds.instances.problem import MixedProblem
from mixbounds.instances.random.common import (
    COMMON_KW,
    ROOT_RTOL,
    check_int,
    check_kappa,
    check_seed,
    check_variant,
    haar_orthogonal,
    reject_targets,
    reject_unknown,
    rel_gap,
    seeded_rng,
)
from mixbounds.instances.random.finish import finish_instance
from mixbounds.instances.random.gossip import make_gossip
from mixbounds.instances.reference.kkt import reference_solution
from scipy.optimize import brentq


def _lg_blocks(h: float, lam: float, sig: float) -> tuple[np.ndarray, np.ndarray]:
    """Per-eigen-direction blocks of ``Q_i`` (``i >= 1``: 2×2) and ``Q_0`` (3×3) for an eigenvalue ``h`` of ``H_i``."""
    Q2 = np.array([[h + lam, -lam], [-lam, lam]])
    Q3 = np.array([[h + lam, 0.0, -lam], [0.0, sig, -sig], [-lam, -sig, lam + sig]])
    return Q2, Q3


def _lg_kappa(h_min: float, lam: float, sig: float) -> float:
    a2, a3 = _lg_blocks(h_min, lam, sig)
    b2, b3 = _lg_blocks(1.0, lam, sig)
    mu = min(np.linalg.eigvalsh(a2)[0], np.linalg.eigvalsh(a3)[0])
    L = max(np.linalg.eigvalsh(b2)[-1], np.linalg.eigvalsh(b3)[-1])
    return float(L / mu)


def local_global(*, n=None, seed=0, kappa_W=None, kappa_f=100.0, kappa_AC=None, kappa_C=None, kappa_Ct=None, eps=None,
                 variant="default", graph=None, **kw) -> Instance:
    """``local-global``: mixture of local and global models (``app:problem_formulations``).

    Printed problem: ``min Σ_i f_i(x_i) + λ/2‖x_i − z‖²`` s.t. ``x_1 + … + x_n = n z``,
    "z stored at the first node, … a problem with coupled constraints".  As printed
    the penalty ``λ/2‖x_i − z‖²`` couples node ``i``'s ``x_i`` with node 1's ``z``, so
    the objective is not a sum of node-local ``f_i`` (recorded in ``findings``).
    This family builds an exactly equivalent instance of (P):

    * node 0 (the paper's node 1) holds ``(x_0, z)`` (``d_0 = 2d``), the other nodes ``x_i``;
    * the printed coupled constraint ``Σ_i x_i − n z = 0``: ``A_0 = [I, −nI]``, ``A_i = I``, ``b_i = 0``;
    * a shared (consensus) copy ``x̃`` of the global model carries the penalties:
      ``f_i(x_i, x̃) = g_i(x_i) + λ/2‖x_i − x̃‖²`` and
      ``f_0(x_0, z, x̃) = g_0(x_0) + λ/2‖x_0 − x̃‖² + σ/2‖z − x̃‖²`` (``σ = λ``).

    Equivalence: for any feasible point the objective is >= ``Σ g_i(x_i) + λ/2 Σ‖x_i − x̄‖²``
    (the mean minimises the penalty), which is the printed objective at ``z = x̄``;
    equality holds at ``x̃ = z = x̄``.  The builder solves both problems and reports
    the agreement in ``closed_forms``.  ``g_i(x) = ½xᵀH_ix − h_iᵀx`` with the spectrum of
    ``H_i`` in ``[h_min, 1]`` (both ends at nodes 0 and 1); ``h_min`` is found by
    Brent's method so that ``κ_f`` (of the ``f_i`` above, jointly in ``(x_i, x̃)``)
    equals the target.  Reachable: ``κ_f >= κ_f(h_min = 1)`` (≈ 13.9 for λ = 0.5).
    κ̂_A = (1 + n²)/(n + 1) in closed form (reported).
    Keywords: ``d`` (4), ``lam`` (0.5), ``gossip``, ``er_p``.
    """
    family = "local-global"
    seed = check_seed(seed)
    check_variant(family, variant, ("default",))
    reject_unknown(family, kw, list(COMMON_KW) + ["d", "lam", "kappa_A"])
    reject_targets(family, {
        "kappa_AC": (kappa_AC if kappa_AC is not None else kw.get("kappa_A"), "κ̂_A = (1 + n²)/(n + 1) is fixed by the printed constraint"),
        "kappa_C": (kappa_C, "the problem has no local constraints"),
        "kappa_Ct": (kappa_Ct, "the problem has no shared-variable constraints"),
    })
    kappa_f = check_kappa("kappa_f", kappa_f)
    kappa_W = check_kappa("kappa_W", kappa_W)
    d = check_int("d", kw.get("d", 4), 2)
    lam = float(kw.get("lam", 0.5))
    if not (np.isfinite(lam) and lam > 0):
        raise ValueError(f"{family}: lam must be positive and finite, got {kw.get('lam')}")
    sig = lam
    h_min, floor = _lg_h_min(family, kappa_f, lam, sig)
    gs = make_gossip(graph, None if n is None else check_int("n", n, 2), default_n=8, kappa_W=kappa_W,
                     gossip=kw.get("gossip", "laplacian"), seed=seed, er_p=kw.get("er_p"))
    n = gs.n
    Hs, hs = _lg_local_models(n, d, h_min, seeded_rng(seed, "local-global"))
    obj, lay = _lg_objective(Hs, hs, lam, sig, d)
    I = np.eye(d)
    A = [np.hstack([I, -n * I])] + [I.copy() for _ in range(n - 1)]
    problem = MixedProblem(gs.W, obj, lay, A=A, b=[np.zeros(d) for _ in range(n)], edges=gs.adjacency,
                           name=f"{family}(n={n}, seed={seed})", meta={"family": family, "seed": seed})
    closed = dict(gs.closed_forms)
    kA = (1.0 + n * n) / (n + 1.0)
    closed["kappa_A = (1 + n^2)/(n + 1)"] = {"printed": kA, "computed": None, "holds": None, "label": "def:mixed_condition_number"}
    # equivalence with the printed (non-separable) problem, solved centrally
    closed["printed problem ≡ reformulation (x*, z*)"] = _lg_equivalence(problem, Hs, hs, lam, n, d)
    targets = {"kappa_f": kappa_f}
    if kappa_W is not None:
        targets["kappa_W"] = kappa_W
    params = {"n": n, "d": d, "lam": lam, "sigma": sig, "h_min": h_min, "eps": eps, "graph": gs.info,
              "objective": "quadratic", "z_node": 0,
              "tuning": {"kappa_f": f"h_min of H_i found by Brent's method (floor {floor:.6g} at h_min = 1)",
                         "kappa_W": gs.info.get("tuning"), "kappa_A": "closed form (1 + n^2)/(n + 1), not tunable"}}
    notes = ["local-global: node 0 holds (x_0, z); shared x~ is the consensus copy of z used in the penalties (exact reformulation)."]
    inst = finish_instance(family, variant, problem, targets, seed=seed, params=params, notes=notes, closed_forms=closed,
                   findings=[_lg_finding(lam)])
    cf = inst.closed_forms["kappa_A = (1 + n^2)/(n + 1)"]
    cf["computed"] = inst.realized.get("kappa_A")
    cf["holds"] = bool(cf["computed"] is not None and rel_gap(cf["computed"], kA) <= 1e-9)
    return inst


def _lg_h_min(family: str, kappa_f: float, lam: float, sig: float) -> tuple[float, float]:
    """``h_min`` of the ``H_i`` spectra giving κ_f (Brent on log h_min), and the family's floor of κ_f."""
    floor = _lg_kappa(1.0, lam, sig)
    if kappa_f < floor * (1 - ROOT_RTOL):
        raise ValueError(f"{family}: kappa_f = {kappa_f:g} is below {floor:.6g}, the smallest κ_f of this family with lam = {lam:g} "
                         "(all H_i = I); the penalty blocks alone have this condition number")
    if rel_gap(floor, kappa_f) <= ROOT_RTOL:
        return 1.0, floor
    f = lambda s: np.log(_lg_kappa(np.exp(s), lam, sig)) - np.log(kappa_f)  # noqa: E731
    s_lo = -1.0
    while f(s_lo) < 0:
        s_lo *= 2
        if s_lo < -80:
            raise ValueError(f"{family}: kappa_f = {kappa_f:g} not reached")
    return float(np.exp(brentq(f, s_lo, 0.0, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500))), floor


def _lg_local_models(n: int, d: int, h_min: float, rng: np.random.Generator) -> tuple[list, list]:
    """``g_i(x) = ½xᵀH_ix − h_iᵀx`` with the spectrum of ``H_i`` in ``[h_min, 1]`` (both ends at nodes 0 and 1)."""
    Hs, hs = [], []
    for i in range(n):
        ev = np.exp(rng.uniform(np.log(h_min), 0.0, d)) if h_min < 1 else np.ones(d)
        if i in (0, 1):  # both ends at node 0 (3×3 blocks) and node 1 (2×2 blocks)
            ev[0], ev[-1] = h_min, 1.0
        U = haar_orthogonal(d, rng)
        H = (U * ev) @ U.T
        Hs.append(0.5 * (H + H.T))
        hs.append(rng.standard_normal(d))
    return Hs, hs


def _lg_objective(Hs: list, hs: list, lam: float, sig: float, d: int) -> tuple[QuadraticObjective, Layout]:
    """The reformulated ``f_i`` (node 0 holds ``(x_0, z)``; penalties through the shared copy ``x̃``)."""
    n = len(Hs)
    I = np.eye(d)
    Qs, qs = [], []
    for i in range(n):
        if i == 0:
            Q = np.block([[Hs[0] + lam * I, 0 * I, -lam * I], [0 * I, sig * I, -sig * I], [-lam * I, -sig * I, (lam + sig) * I]])
            q = np.concatenate([hs[0], np.zeros(2 * d)])
        else:
            Q = np.block([[Hs[i] + lam * I, -lam * I], [-lam * I, lam * I]])
            q = np.concatenate([hs[i], np.zeros(d)])
        Qs.append(0.5 * (Q + Q.T))
        qs.append(q)
    lay = Layout((2 * d,) + (d,) * (n - 1), d)
    return QuadraticObjective(Qs, qs, lay), lay


def _lg_finding(lam: float) -> dict:
    """Finding: the printed penalty couples node i's ``x_i`` with node 1's ``z`` (not of the form (P))."""
    return {
        "label": "app:problem_formulations",
        "statement": "Mixture of local and global models: 'The variable z is stored at the first node, and we come to a problem with coupled constraints.'",
        "printed": "min Σ_i f_i(x_i) + λ/2 ||x_i − z||^2  s.t.  x_1 + … + x_n = n z",
        "measured": {"cross-node Hessian block ∂²/∂x_i∂z (i ≠ 1)": -lam},
        "detail": "The penalty λ/2||x_i − z||² involves x_i (node i) and z (node 1), so the objective is not a sum of node-local "
                  "functions and the problem is not of the form (P) as printed. Built instead: an exact reformulation with a "
                  "shared consensus copy x̃ of z carrying the penalties and the printed coupled constraint kept (see docstring).",
    }


def _lg_equivalence(problem: MixedProblem, Hs, hs, lam: float, n: int, d: int) -> dict:
    """Solve the printed problem (dense KKT, z = mean x) and the reformulation; compare x* and z*."""
    size = n * d + d
    if size > 3000:
        return {"printed": "not checked (size > 3000)", "computed": None, "holds": None, "label": "app:problem_formulations"}
    # printed: variables (x_1..x_n, z); objective Σ ½xᵀHx − hᵀx + λ/2‖x_i − z‖²; constraint Σ x_i − n z = 0
    I = np.eye(d)
    H = np.zeros((size, size))
    g = np.zeros(size)
    for i in range(n):
        s = slice(i * d, (i + 1) * d)
        H[s, s] += Hs[i] + lam * I
        H[s, -d:] -= lam * I
        H[-d:, s] -= lam * I
        H[-d:, -d:] += lam * I
        g[s] = hs[i]
    G = np.hstack([np.tile(I, n), -n * I])
    K = np.block([[H, G.T], [G, np.zeros((d, d))]])
    sol = np.linalg.solve(K, np.concatenate([g, np.zeros(d)]))
    x_pr, z_pr = sol[: n * d], sol[n * d: size]
    ref = reference_solution(problem)
    lay = problem.layout
    xs = [ref.x[lay.x_offsets[i]: lay.x_offsets[i + 1]] for i in range(n)]
    x_rf = np.concatenate([xs[0][:d]] + xs[1:])
    z_rf = xs[0][d:]
    err = float(max(np.abs(x_rf - x_pr).max(), np.abs(z_rf - z_pr).max(), np.abs(ref.xt - z_pr).max())
                / max(np.abs(sol[:size]).max(), SCALE_FLOOR))
    return {"printed": 0.0, "computed": err, "holds": bool(err <= 1e-8), "label": "app:problem_formulations",
            "detail": "max |reformulated − printed| over x*, z* (and x̃* vs z*), relative to max |printed solution|"}



#: the family of this module (collected by :func:`mixbounds.instances.families.families`)
FAMILIES = {"local-global": local_global}
