"""The nonsmooth objective of Tables 3 and 4: sums of absolute deviations, optionally plus a quadratic, on a box.

``f_i(z) = (1/N_i) Σ_j |a_ijᵀz − y_ij| + (μ_f/2)‖z‖²`` (Assumption ``ass:nonsmooth_and_str_convex_of_f_i``), whose
subgradients are bounded on the box ``[−ρ, ρ]`` of every coordinate by ``M_i = (1/N_i) Σ_j ‖a_ij‖ + μ_f ρ √(d_i + d̃)``.
The families that build it are :mod:`mixbounds.instances.nonsmooth`; this module holds the objective alone, so that
reading an instance directory (:mod:`mixbounds.instances.io`) does not import the builders, their reference solvers
and scipy.optimize.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
from mixbounds.instances.layout import Layout
from mixbounds.instances.objectives import Objective, block_diag_u


class AbsDeviationObjective(Objective):
    """``f_i(z) = (1/N_i) Σ_j |a_ijᵀz − y_ij| + (μ/2)‖z‖²`` on the u-layout (module docstring).

    ``features[i]``: ``N_i × (d_i + d̃)``; ``targets[i]``: ``(N_i,)``; ``mu >= 0``;
    ``box``: ``None`` or the half-width ``ρ`` of the box ``[−ρ, ρ]`` of every coordinate
    (attribute ``box`` is then the pair ``(lo, hi)`` of u-layout arrays).
    ``grad`` returns a subgradient (``sign(0) = 0``).  ``L = None`` (nonsmooth),
    ``M`` = ``M_f`` = max_i M_i, ``M_total`` = ``M_F`` = √(Σ M_i²), ``M_nodes`` = (M_i).
    With ``mu > 0`` a box is required (otherwise the subgradients are unbounded).
    """

    smooth = False
    L = None

    def __init__(self, features: Sequence, targets: Sequence, layout: Layout, *, mu: float = 0.0, box: float | None = None):
        n = layout.n
        if len(features) != n or len(targets) != n:
            raise ValueError(f"AbsDeviationObjective: need {n} feature blocks and target vectors")
        if not (np.isfinite(mu) and mu >= 0):
            raise ValueError(f"AbsDeviationObjective: μ_f must be finite and >= 0, got {mu}")
        if mu > 0 and box is None:
            raise ValueError("AbsDeviationObjective: μ_f > 0 needs a box (bounded subgradients and strong convexity "
                             "hold together only on a bounded set, sec:nonsmooth_strongly_convex_case)")
        if box is not None and not (np.isfinite(box) and box > 0):
            raise ValueError(f"AbsDeviationObjective: box half-width must be positive and finite, got {box}")
        self.layout = layout
        self.mu = float(mu)
        Fs, ys, w, Ms = [], [], [], []
        for i, (F, y) in enumerate(zip(features, targets)):
            F = np.asarray(F, dtype=float)
            y = np.asarray(y, dtype=float).ravel()
            k = layout.d[i] + layout.dt
            if F.ndim != 2 or F.shape[1] != k or F.shape[0] < 1:
                raise ValueError(f"node {i}: features have shape {F.shape}, expected (N_i >= 1, {k})")
            if y.shape != (F.shape[0],) or not (np.all(np.isfinite(F)) and np.all(np.isfinite(y))):
                raise ValueError(f"node {i}: targets must be finite, one per feature row")
            Ni = F.shape[0]
            Fs.append(F)
            ys.append(y)
            w.append(np.full(Ni, 1.0 / Ni))
            Mi = float(np.linalg.norm(F, axis=1).sum() / Ni)
            if box is not None:
                Mi += self.mu * float(box) * math.sqrt(k)
            Ms.append(Mi)
        self.features, self.targets = tuple(Fs), tuple(ys)
        self.F = block_diag_u(Fs, layout)
        self.y = np.concatenate(ys)
        self.w = np.concatenate(w)
        self._row_node = np.repeat(np.arange(n), [F.shape[0] for F in Fs])
        self._u_node = layout.node_of_u
        self.M_nodes = tuple(Ms)
        self.M = float(max(Ms))
        self.M_total = float(math.sqrt(sum(m * m for m in Ms)))
        self.rho = None if box is None else float(box)
        self.box = None if box is None else (np.full(layout.size, -float(box)), np.full(layout.size, float(box)))

    def _res(self, u):
        return self.F @ u - self.y

    def value(self, u):
        v = float(self.w @ np.abs(self._res(u)))
        return v + 0.5 * self.mu * float(u @ u) if self.mu else v

    def node_values(self, u):
        out = np.bincount(self._row_node, weights=self.w * np.abs(self._res(u)), minlength=self.layout.n)
        if self.mu:
            out = out + 0.5 * self.mu * np.bincount(self._u_node, weights=u * u, minlength=self.layout.n)
        return out

    def grad(self, u):
        g = self.F.T @ (self.w * np.sign(self._res(u)))
        if self.mu:
            g = g + self.mu * u
        return g

    def describe(self):
        return {"type": "abs-deviation", "form": "f_i(z) = mean_j |a_ij^T z - y_ij| + mu/2 |z|^2 on the box [-rho, rho]",
                "mu_f": self.mu, "M_f": self.M, "M_F": self.M_total, "box_half_width": self.rho,
                "samples": [int(F.shape[0]) for F in self.features]}
