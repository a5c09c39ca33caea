"""One judged point of a sweep: the typed record every sweep verdict (Tables 1–4, lower bounds, benchmarks) builds.

A sweep point is what a verdict reads from one task's output once the point passed the screens of
:func:`mixbounds.checks.verdict_engine.judge_sweep`: the swept parameter's target and realized value (the x of
the log-log fit), the per-accuracy count of the judged oracle (the y), and the readings that let
anyone re-fit or audit it (first-hit counts, iterations, the instance's size, every realized
constant).  Each table writes the fields its points have always carried, in its own order
(``fields``: e.g. :data:`mixbounds.checks.rates.POINT_FIELDS`), so ``results.json`` points keep their keys.
"""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class SweepPoint:
    """A judged sweep point.  ``fields``: the names :meth:`to_dict` writes, in order (the table's layout)."""

    fields: tuple[str, ...]
    target: float | None = None  # the swept parameter's target value (the grid)
    realized: float | None = None  # its realized value, computed from the instance's matrices (x of the fit)
    per_accuracy: float | None = None  # per-accuracy count of the judged oracle (y of the fit)
    part: str | None = None  # lower bounds: the part of a direct sum whose bound is the largest
    e0: float | None = None  # lower bounds: error reachable with zero rounds of the oracle
    count1: float | None = None  # first-hit count to ε₁ (solvers) / the window's start (lower bounds)
    count2: float | None = None  # first-hit count to ε₂ / the window's end
    per_iteration: float | None = None  # mean count of the oracle per iteration over the window
    iterations_window: float | None = None  # iterations the error envelope needs for the window
    iterations: int | None = None  # iterations of the run (outer iterations for Gradient Sliding)
    settle: dict | None = None  # first iteration at which the envelope stays below each ε
    eps: float | None = None  # Tables 2–4: the accuracy ε derived from the accuracy parameter
    R: float | None = None  # Tables 2–4: the initial distance R of the cited theorem
    M: float | None = None  # Tables 3–4: the bound M on the subgradients
    n: int | None = None  # nodes
    chain_length: int | None = None  # worst-case constructions: the chain length
    variables: int | None = None  # primal variables of the instance
    degrees: object = None  # Chebyshev degrees of the solver run
    realized_all: dict | None = None  # every realized constant of the instance (formula slopes read it)
    phases: int | None = None  # Table 4: restarts of Gradient Sliding
    hit_row: int | None = None  # Tables 2–4: the row (iteration) of the (ε, δ)-hit
    reason: str | None = None  # lower bounds: why the engine stopped
    target_rel_err: float | None = None  # |realized/target − 1| (Table 1's target check)

    def __post_init__(self):
        names = {f.name for f in fields(self)} - {"fields"}
        unknown = [k for k in self.fields if k not in names]
        if unknown:
            raise ValueError(f"SweepPoint: unknown fields {unknown}")

    def to_dict(self) -> dict:
        """The point as ``results.json`` writes it: the table's fields, in its order."""
        return {k: getattr(self, k) for k in self.fields}
