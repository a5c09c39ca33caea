"""The record every solver returns."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from mixbounds.solvers.oracles import ORACLES
from mixbounds.solvers.stop_rule import CountTo, count_to


@dataclass(frozen=True, eq=False)
class SolveResult:
    """Outcome of a solver run.

    ``x``: final iterate in the u-layout; ``iterations``: iterations done;
    ``counts``: per-oracle totals (keys of :data:`mixbounds.solvers.oracles.ORACLES`);
    ``history_counts``: ``(iterations + 1, 5)`` int array of cumulative counts after
    each iteration (row 0: after set-up, before the first iteration), columns in
    ``ORACLES`` order; ``history_error``: the relative error
    ``‖x_k − x*‖² / ‖x_0 − x*‖²`` (or the method's own accuracy measure, named in
    ``error_kind``) at the same rows; ``converged``: whether the stopping test held;
    ``reason``: why the run stopped (``"tolerance"``, ``"budget"``, ``"non-finite"``, …);
    ``method``, ``eps``, ``params``: what ran, with which target and parameters;
    ``setup_counts``: oracle rounds spent *estimating constants* before the run (e.g. the Lanczos products of
    ``constants="spectral"``), never included in ``counts`` (empty when the solver estimates none).
    """

    x: np.ndarray
    iterations: int
    counts: dict
    history_counts: np.ndarray
    history_error: np.ndarray
    converged: bool
    reason: str
    method: str
    eps: float
    error_kind: str = "relative squared distance to x*"
    params: dict = field(default_factory=dict)
    setup_counts: dict = field(default_factory=dict)

    def counts_to(self, eps: float) -> dict | None:
        """Cumulative counts at the **first crossing** of ``eps``: the first recorded row whose error is ``<= eps``
        (``None`` if never).  The lower-bound comparisons read it; the count to ``eps`` is :meth:`count_to`."""
        hit = np.flatnonzero(self.history_error <= eps)
        if hit.size == 0:
            return None
        row = self.history_counts[hit[0]]
        return {k: int(v) for k, v in zip(ORACLES, row)}

    def count_to(self, eps: float) -> CountTo:
        """The count to ``eps``: counts at the first row after which the error stays ``<= eps`` until the run ends,
        with the first crossing beside it (:mod:`mixbounds.solvers.stop_rule`, the suite's one definition)."""
        return count_to(self.history_error, self.history_counts, eps, censored=not self.converged)

    def counts_with_setup(self) -> dict:
        """``counts`` plus ``setup_counts``: every oracle round the run needed, constants estimation included."""
        return {k: int(v) + int(self.setup_counts.get(k, 0)) for k, v in self.counts.items()}

    def final_error(self) -> float:
        return float(self.history_error[-1]) if self.history_error.size else float("nan")
