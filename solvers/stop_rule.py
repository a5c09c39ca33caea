"""The stopping rule shared by APAPC and every baseline, so that their counts are comparable, and the count to ε
that reads a stopped run (the one definition every measurement uses, :func:`count_to`).

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

Counts to ε (docs/design.md, "Counts to ε")
-------------------------------------------
A run records its error ``e_0, e_1, …, e_K`` (row 0 after set-up, row ``k`` after iteration ``k``) and the cumulative
oracle counts ``C_0, …, C_K`` at the same rows.  For an accuracy ``ε``:

* the **count to ε** is ``C_{k*}`` with ``k* = min{k : e_j <= ε for every j = k, …, K}``: the first row after which the
  error *stays* at or below ``ε`` until the run ends (equivalently, the first row where the envelope
  ``E_k = max_{j>=k} e_j`` is ``<= ε``, the envelope the per-accuracy costs are fitted on);
* the **first crossing** is ``C_{k₁}`` with ``k₁ = min{k : e_k <= ε}``, reported beside it;
* the run **left ε again** when ``k₁ < k*``: its error went back above ``ε`` after touching it.  A method whose error
  dips below ``ε`` by luck is counted where it settles, not where it touched;
* ``observed`` = ``K − k*``: the iterations the stay was watched for.  The measuring runs (the rate points of
  ``verify``, ``bench``, ``mixbounds.testing.measure``, ``solve``) do not stop at the first crossing: with
  ``settle =`` :data:`SETTLE` (one third) they go on until the error has stayed
  at or below the accuracy ``settle_eps`` for the last third of the run, so ``observed + 1 >= K/3`` (the rows
  ``k*, …, K``) at every ``ε >= settle_eps`` of a run that stopped on ``tolerance``.  A run with ``settle = 0`` stops at its first crossing
  (``observed = 0``: the stay is not seen); a run stopped at its budget has watched only what it recorded, and a
  later rise above ``ε`` is not excluded (``CountTo.censored``).

The lower-bound comparisons (``consistency`` results, ``below-lower-bound``) read the first crossing instead: a lower
bound says that *no* iterate reaches ``ε`` before its round, so the first crossing is the stricter test there.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from mixbounds.solvers.oracles import ORACLES, calls_exhausted, check_max_calls

#: a run whose relative squared error exceeds this is stopped as ``"diverged"``.
DIVERGENCE_RATIO = 1e30
#: the ``settle`` of the measuring runs (rate points, ``mixbounds bench``, ``mixbounds solve``): a run ends once its
#: error has stayed at or below the accuracy for the last third of its iterations.  The error of an accelerated
#: method oscillates by up to ~3 decades and its zero crossings dip 5 decades below the envelope, so a first-hit stop
#: can end a run at a dip (docs/records/measurement-fixes.md, "A stop at a dip"); re-exported as
#: :data:`mixbounds.checks.rate_measure.SETTLE`
SETTLE = 1.0 / 3.0


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


# ----------------------------------------------------------------------------- the count to ε
@dataclass(frozen=True)
class CountTo:
    """The count to ``eps`` of one run (module docstring); ``row`` is ``None`` when the error never stayed at or
    below ``eps`` (then ``counts`` is ``None`` too).

    ``counts``/``first_counts``: cumulative counts per oracle (keys of :data:`ORACLES`) at ``row``/``first_row``;
    ``left_again``: the error went back above ``eps`` after its first crossing; ``observed``: rows recorded after
    ``row``; ``censored``: the run ended at its budget (or otherwise without converging), so the stay was watched
    only until then.
    """

    eps: float
    row: int | None
    counts: dict | None
    first_row: int | None
    first_counts: dict | None
    left_again: bool
    observed: int
    censored: bool = False

    def to_dict(self) -> dict:
        """JSON record (the bench's and ``solve``'s points)."""
        return {"eps": self.eps, "row": self.row, "counts": self.counts, "first_row": self.first_row,
                "first_counts": self.first_counts, "left_again": self.left_again, "observed": self.observed,
                "censored": self.censored}


def settled_row(history_error, eps: float) -> int | None:
    """``k*``: the first row after which every recorded error is ``<= eps`` (``None`` when the last one is not)."""
    e = np.asarray(history_error, dtype=float)
    if e.size == 0 or not e[-1] <= eps:
        return None
    above = np.flatnonzero(~(e <= eps))  # NaN counts as above
    return int(above[-1] + 1) if above.size else 0


def first_row(history_error, eps: float) -> int | None:
    """``k₁``: the first row whose error is ``<= eps`` (``None`` if none)."""
    hit = np.flatnonzero(np.asarray(history_error, dtype=float) <= eps)
    return int(hit[0]) if hit.size else None


def _counts_at(history_counts, row: int | None) -> dict | None:
    if row is None:
        return None
    return {k: int(v) for k, v in zip(ORACLES, np.asarray(history_counts)[row])}


def count_to(history_error, history_counts, eps: float, *, censored: bool = False) -> CountTo:
    """The :class:`CountTo` of a recorded run at accuracy ``eps`` (module docstring).

    Parameters
    ----------
    history_error : array_like
        Errors ``e_0 … e_K`` of the run.
    history_counts : array_like
        ``(K + 1, len(ORACLES))`` cumulative counts at the same rows.
    eps : float
        The accuracy.
    censored : bool
        The run ended without converging (its budget): the stay is watched only until its last row.

    Returns
    -------
    CountTo
    """
    e = np.asarray(history_error, dtype=float)
    k1, ks = first_row(e, eps), settled_row(e, eps)
    return CountTo(eps=float(eps), row=ks, counts=_counts_at(history_counts, ks), first_row=k1,
                   first_counts=_counts_at(history_counts, k1),
                   left_again=bool(k1 is not None and (ks is None or k1 < ks)),
                   observed=0 if ks is None else int(e.size - 1 - ks), censored=bool(censored))
