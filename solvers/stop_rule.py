"""The stopping rule shared by APAPC and every baseline, so that their counts are comparable.

A run records the caller's error (relative squared distance of the original variables to ``x*``) at row 0
(after set-up) and after every iteration ``k``, and stops with

* ``"non-finite"`` when the error is NaN or infinite;
* ``"tolerance"`` (the only reason with ``converged=True``): with ``settle = 0`` the first time the error is
  ``<= eps``; with ``settle > 0`` at the first ``k`` whose last ``settle·k`` errors are all ``<= settle_eps``
  (default ``eps``) once the error has reached ``eps`` at least once.  The error of an accelerated method is not
  monotone (a zero crossing of an oscillating mode can dip decades below the envelope), so a rate measurement
  asks the error to have *stayed* below the level for a fraction of the run;
* ``"diverged"`` when the error exceeds :data:`DIVERGENCE_RATIO`;
* ``"budget"`` after ``max_iter`` iterations, or once some oracle has been called ``max_calls`` times.
"""

from __future__ import annotations

import math

from mixbounds.solvers.oracles import calls_exhausted, check_max_calls

#: a run whose relative squared error exceeds this is stopped as ``"diverged"``.
DIVERGENCE_RATIO = 1e30


class StopRule:
    """The state of the stopping test of one run (see the module docstring)."""

    def __init__(self, eps: float, max_iter: int, method: str, *, settle: float = 0.0,
                 settle_eps: float | None = None, max_calls: int | None = None):
        if not (eps > 0):
            raise ValueError(f"{method}: eps must be positive, got {eps}")
        if max_iter < 0:
            raise ValueError(f"{method}: max_iter must be >= 0, got {max_iter}")
        if not (0.0 <= settle < 1.0):
            raise ValueError(f"{method}: settle must be in [0, 1), got {settle}")
        level = float(eps if settle_eps is None else settle_eps)
        if not (level >= eps):
            raise ValueError(f"{method}: settle_eps must be >= eps, got {settle_eps} < {eps}")
        check_max_calls(max_calls, method)
        self.eps, self.level, self.settle = float(eps), level, float(settle)
        self.max_iter, self.max_calls = int(max_iter), max_calls
        self.last_above = 0  # last row whose error was above the settle level
        self.hit = False  # the error has been <= eps

    def start(self, err: float) -> str | None:
        """The reason to stop at row 0 (before any iteration), or ``None``."""
        if not math.isfinite(err):
            return "non-finite"
        if err <= self.eps:
            return "tolerance"
        return "budget" if self.max_iter == 0 else None

    def after(self, k: int, err: float, counts) -> str | None:
        """The reason to stop after iteration ``k`` with error ``err`` and cumulative ``counts``, or ``None``."""
        if not math.isfinite(err):
            return "non-finite"
        self.hit = self.hit or err <= self.eps
        if err > self.level:
            self.last_above = k
        elif self.hit and k - self.last_above >= self.settle * k:
            return "tolerance"
        if err > DIVERGENCE_RATIO:
            return "diverged"
        if k >= self.max_iter or calls_exhausted(counts, self.max_calls):
            return "budget"
        return None
