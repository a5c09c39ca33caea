"""Baselines: the methods a user would otherwise pick, through the same counted oracles.

Every function has the signature
``solve_<name>(problem, *, eps, x_star=None, max_iter, oracles=None, settle=0, settle_eps=None, max_calls=None,
**params) -> SolveResult`` and the stopping rule of :func:`mixbounds.solvers.solve.solve` (``settle`` and
``settle_eps`` as there; relative squared distance of the original
variables ``(x, X̃)`` to ``x*``, start ``0``; ``converged=False`` with the reason on a budget,
non-finite or diverging run).

A baseline is **one file** dropped in this folder: a public module (its name does not start with ``_``) that ends with
``BASELINE = Baseline(name, solve_<name>, CLASSES, CITATION)`` (:class:`Baseline`, defined here before the discovery runs;
the parameter sources and defaults in its docstring).  :func:`discover` imports every such module (``pkgutil``) when
this package is first imported — by a command that runs a method, never by ``mixbounds --help`` — and
:data:`BASELINES` maps a name to ``(function, classes it applies to, citation)``, in the order of the module names.

The baselines with their classes and citations are listed on the generated registry page of the docs
(``docs/_ext/registry_pages.py`` reads :data:`BASELINES`).
"""

from __future__ import annotations

import importlib
import pkgutil
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


def discover() -> dict[str, Baseline]:
    """Every baseline of this folder: the ``BASELINE`` record of each public module, by module name.

    Returns
    -------
    dict
        name → :class:`Baseline`.

    Raises
    ------
    ValueError
        A public module without a ``BASELINE`` record (a file dropped here that would otherwise be silently left
        out), or two modules declaring the same name.
    """
    found: dict[str, Baseline] = {}
    where: dict[str, str] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"{__name__}.{info.name}")
        rec = getattr(mod, "BASELINE", None)
        if not isinstance(rec, Baseline):
            raise ValueError(f"{mod.__file__}: a module of solvers/baselines/ must declare "
                             f"BASELINE = Baseline(name, solve, classes, citation)")
        if rec.name in found:
            raise ValueError(f"baseline {rec.name!r} is declared twice ({where[rec.name]} and {info.name})")
        found[rec.name] = rec
        where[rec.name] = info.name
    return found


#: name → (function, classes it applies to, citation), discovered (:func:`discover`)
BASELINES: dict[str, tuple[Callable, tuple, str]] = {b.name: (b.solve, b.classes, b.citation)
                                                     for b in discover().values()}


def baselines_for(problem_class: str) -> list[str]:
    """Names of the baselines that apply to ``problem_class``."""
    return [k for k, (_, classes, _) in BASELINES.items() if problem_class in classes]


__all__ = ["BASELINES", "Baseline", "baselines_for", "discover"]
