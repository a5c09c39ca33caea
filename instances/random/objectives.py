"""Random objectives with an exact κ_f (Assumption ``ass:smooth_and_str_convex_of_f_i``).

Quadratic: ``Q_i = U_i diag(λ_i) U_iᵀ`` with random orthogonal ``U_i`` and eigenvalues in
``[1, κ_f]``; node 0 holds both ends (``μ_f = 1``, ``L_f = κ_f``), so ``L_f/μ_f = κ_f`` up to
rounding.  Logistic: ``L_f = max_i ‖F_i‖²/(4N_i) + λ``, ``μ_f = λ`` and
``λ = max_i ‖F_i‖²/(4N_i) / (κ_f − 1)`` (needs ``κ_f > 1``).  Log-cosh
(:class:`~mixbounds.instances.objectives.LogCoshObjective`, non-quadratic): the quadratic's ``Q_i`` plus
``c_ij log cosh(u_ijᵀz − s_ij)`` along its eigenvectors with ``c_ij = r_ij (κ_f − λ_ij)``, ``r_ij`` uniform in
``[½, 1]``, except along the two directions of node 0 that hold the ends (``c = 0``): the curvature along ``u_ij``
runs over ``[λ_ij, λ_ij + r_ij(κ_f − λ_ij)] ⊂ [1, κ_f]`` — on the other nodes from ``μ_f`` up to near ``L_f`` —
and the constants are exact closed forms attained at every point (``μ_f = 1``, ``L_f = κ_f``).
"""

from __future__ import annotations

import numpy as np
from mixbounds.instances.layout import Layout
from mixbounds.instances.objectives import LogCoshObjective, LogisticObjective, QuadraticObjective
from mixbounds.instances.random.common import haar_orthogonal


def _spectra(layout: Layout, kappa_f: float, rng: np.random.Generator):
    """Per node: eigenvalues in ``[1, κ_f]`` (log-uniform), the indices holding the ends (node 0, or nodes 0 and 1
    when node 0 has one coordinate), a random orthogonal ``U_i`` and a random ``q_i`` — in the draw order of the
    quadratic family (its instances do not change)."""
    ends = {(0, "min"), (0 if layout.d[0] + layout.dt >= 2 else 1, "max")}
    out = []
    for i in range(layout.n):
        k = layout.d[i] + layout.dt
        ev = np.exp(rng.uniform(0.0, np.log(kappa_f), k)) if kappa_f > 1 else np.ones(k)
        fixed = []
        if (i, "min") in ends:
            ev[0] = 1.0
            fixed.append(0)
        if (i, "max") in ends:
            j = -1 if (i, "min") in ends else 0
            ev[j] = kappa_f
            fixed.append(j % k)
        U = haar_orthogonal(k, rng)
        out.append((ev, fixed, U, rng.standard_normal(k)))
    return out


def quadratic_objective(layout: Layout, kappa_f: float, rng: np.random.Generator) -> tuple[QuadraticObjective, dict]:
    """``f_i(z) = ½ zᵀQ_i z − q_iᵀz`` with spectrum of every ``Q_i`` in ``[1, κ_f]``, both ends attained."""
    Qs, qs = [], []
    for ev, _, U, q in _spectra(layout, kappa_f, rng):
        Q = (U * ev) @ U.T
        Qs.append(0.5 * (Q + Q.T))
        qs.append(q)
    obj = QuadraticObjective(Qs, qs, layout)
    return obj, {"type": "quadratic", "tuning": "eigenvalues of Q_i in [1, kappa_f], both ends at nodes 0/1"}


def logcosh_objective(layout: Layout, kappa_f: float, rng: np.random.Generator) -> tuple[LogCoshObjective, dict]:
    """The quadratic family's ``Q_i`` and ``q_i`` plus log-cosh terms (module docstring); ``L_f/μ_f = κ_f`` exactly."""
    spec = _spectra(layout, kappa_f, rng)
    rng_t = np.random.default_rng(rng.integers(2**63))  # the terms' own stream, after the quadratic part's draws
    Us, lams, cs, ss, qs = [], [], [], [], []
    for ev, fixed, U, q in spec:
        c = rng_t.uniform(0.5, 1.0, ev.size) * (kappa_f - ev)
        c[fixed] = 0.0
        Us.append(U)
        lams.append(ev)
        cs.append(c)
        ss.append(rng_t.standard_normal(ev.size))
        qs.append(q)
    obj = LogCoshObjective(Us, lams, cs, ss, qs, layout)
    return obj, {"type": "logcosh", "tuning": "Q_i and q_i as the quadratic family; c_ij = r_ij (kappa_f - lam_ij), "
                 "r_ij uniform in [1/2, 1], c = 0 on the end directions of nodes 0/1; s_ij standard normal",
                 "constants": "exact closed forms (LogCoshObjective)"}


def logistic_objective(layout: Layout, kappa_f: float, rng: np.random.Generator, samples: int) -> tuple[LogisticObjective, dict]:
    """Regularised logistic regression with ``λ`` chosen so that ``L_f/μ_f = κ_f`` exactly."""
    if kappa_f <= 1.0:
        raise ValueError("logistic objective: kappa_f must be > 1 (L_f = L_loss + λ > λ = μ_f)")
    n = layout.n
    Fs, ys = [], []
    w_true = {}
    for i in range(n):
        k = layout.d[i] + layout.dt
        F = rng.standard_normal((samples, k)) / np.sqrt(max(k, 1))
        w = rng.standard_normal(k)
        y = np.sign(F @ w + 0.3 * rng.standard_normal(samples))
        y[y == 0] = 1.0
        Fs.append(F)
        ys.append(y)
        w_true[i] = w
    L_loss = max(float(np.linalg.norm(F, 2) ** 2) / (4 * F.shape[0]) for F in Fs)
    reg = L_loss / (kappa_f - 1.0)
    obj = LogisticObjective(Fs, ys, reg, layout)
    return obj, {"type": "logistic", "samples_per_node": samples, "reg": reg, "L_loss": L_loss,
                 "tuning": "reg = max_i ||F_i||^2/(4 N_i) / (kappa_f - 1)"}

