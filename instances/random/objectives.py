"""Random objectives with an exact κ_f (Assumption ``ass:smooth_and_str_convex_of_f_i``).

Quadratic: ``Q_i = U_i diag(λ_i) U_iᵀ`` with random orthogonal ``U_i`` and eigenvalues in
``[1, κ_f]``; node 0 holds both ends (``μ_f = 1``, ``L_f = κ_f``), so ``L_f/μ_f = κ_f`` up to
rounding.  Logistic: ``L_f = max_i ‖F_i‖²/(4N_i) + λ``, ``μ_f = λ`` and
``λ = max_i ‖F_i‖²/(4N_i) / (κ_f − 1)`` (needs ``κ_f > 1``).
"""

from __future__ import annotations

import numpy as np
from mixbounds.instances.layout import Layout
from mixbounds.instances.objectives import LogisticObjective, QuadraticObjective
from mixbounds.instances.random.common import _orthogonal


def quadratic_objective(layout: Layout, kappa_f: float, rng: np.random.Generator) -> tuple[QuadraticObjective, dict]:
    """``f_i(z) = ½ zᵀQ_i z − q_iᵀz`` with spectrum of every ``Q_i`` in ``[1, κ_f]``, both ends attained."""
    n = layout.n
    Qs, qs = [], []
    ends = {(0, "min"), (0 if layout.d[0] + layout.dt >= 2 else 1, "max")}
    for i in range(n):
        k = layout.d[i] + layout.dt
        ev = np.exp(rng.uniform(0.0, np.log(kappa_f), k)) if kappa_f > 1 else np.ones(k)
        if (i, "min") in ends:
            ev[0] = 1.0
        if (i, "max") in ends:
            ev[-1 if (i, "min") in ends else 0] = kappa_f
        U = _orthogonal(k, rng)
        Q = (U * ev) @ U.T
        Qs.append(0.5 * (Q + Q.T))
        qs.append(rng.standard_normal(k))
    obj = QuadraticObjective(Qs, qs, layout)
    return obj, {"type": "quadratic", "tuning": "eigenvalues of Q_i in [1, kappa_f], both ends at nodes 0/1"}


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

