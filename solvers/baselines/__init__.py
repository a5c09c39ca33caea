"""Baselines: the methods a user would otherwise pick, through the same counted oracles.

Every function has the signature
``solve_<name>(problem, *, eps, x_star=None, max_iter, oracles=None, settle=0, settle_eps=None, max_calls=None,
**params) -> SolveResult`` and the stopping rule of :func:`mixbounds.solvers.solve.solve` (``settle`` and
``settle_eps`` as there; relative squared distance of the original
variables ``(x, X̃)`` to ``x*``, start ``0``; ``converged=False`` with the reason on a budget,
non-finite or diverging run).

A baseline is **one file** dropped in this folder: a public module (its name does not start with ``_``) that ends with
``BASELINE = Baseline(name, solve_<name>, CLASSES, CITATION)`` (:class:`Baseline`;
the parameter sources and defaults in its docstring).  :func:`discover` imports every such module (``pkgutil``) when
this package is first imported — by a command that runs a method, never by ``mixbounds --help`` — and
:data:`BASELINES` maps a name to ``(function, classes it applies to, citation)``, in the order of the module names.

The baselines with their classes and citations are listed on the generated registry page of the docs
(``docs/_ext/registry_pages.py`` reads :data:`BASELINES`).
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Callable

from mixbounds.solvers.baselines._record import Baseline


def discover() -> dict[str, Baseline]:
    """Every baseline of this folder: the ``BASELINE`` record of each public module, by module name.

    Returns
    -------
    dict
        name → :class:`~mixbounds.solvers.baselines._record.Baseline`.

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
