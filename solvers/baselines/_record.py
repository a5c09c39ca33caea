"""What a baseline module declares: its name, the problem classes it solves, its entry function, its source.

Every public module of ``solvers/baselines/`` ends with ``BASELINE = Baseline(...)``; the package discovers them
(:func:`mixbounds.solvers.baselines.discover`), so a baseline is one file dropped in the folder.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Baseline:
    """One baseline of the benchmarks.

    Parameters
    ----------
    name : str
        Its method name (``mixbounds solve --method NAME``, the ``bench.<class>.<name>.*`` result ids).
    solve : callable
        ``solve(problem, *, eps, x_star=None, max_iter, oracles=None, settle=0, settle_eps=None, max_calls=None,
        **params) -> SolveResult`` (the contract of :mod:`mixbounds.solvers.baselines`).
    classes : tuple of str
        The problem classes it applies to (the benchmarks run it on these only).
    citation : str
        Where the method and its parameters come from.
    """

    name: str
    solve: Callable
    classes: tuple
    citation: str

    def __post_init__(self) -> None:
        if not (isinstance(self.name, str) and self.name):
            raise ValueError(f"a baseline's name must be a non-empty string, got {self.name!r}")
        if not callable(self.solve):
            raise ValueError(f"baseline {self.name!r}: solve must be callable, got {self.solve!r}")
        if not (isinstance(self.classes, tuple) and self.classes):
            raise ValueError(f"baseline {self.name!r}: classes must be a non-empty tuple, got {self.classes!r}")
