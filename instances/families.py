"""Named instance families (``mixbounds instance FAMILY …``).

``families()`` maps a family name to a builder ``f(**params) -> Instance``,
collected from every module listed in :data:`MODULES` that defines a
``FAMILIES`` dict (a module that is not present is skipped).
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

from mixbounds.instances.instance import Instance

MODULES = ("mixbounds.instances.worst_case", "mixbounds.instances.random", "mixbounds.instances.nonsmooth",
           "mixbounds.instances.convex")


def families() -> dict[str, Callable[..., Instance]]:
    """Every named family: name → builder ``f(**params) -> Instance``.

    Returns
    -------
    dict
        Collected from the ``FAMILIES`` dict of every module of :data:`MODULES` that is present.

    Raises
    ------
    ValueError
        When two modules define the same family name.
    """
    out: dict[str, Callable[..., Instance]] = {}
    for name in MODULES:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue
            raise
        for k, v in getattr(mod, "FAMILIES", {}).items():
            if k in out:
                raise ValueError(f"instance family {k!r} is defined twice ({name})")
            out[k] = v
    return out


def build(name: str, **params: Any) -> Instance:
    """Build the instance family ``name`` (``mixbounds instance NAME`` calls this with the options given).

    Parameters
    ----------
    name : str
        A family name of :func:`families` (``consensus``, ``coupled-grad``, ``random-mixed``, ``nonsmooth-coupled``,
        …).
    **params
        The family's keyword arguments (targets such as ``kappa_f``, sizes such as ``n``, ``seed``, ``variant``).

    Returns
    -------
    mixbounds.instances.instance.Instance
        The problem with its realized condition numbers and, where the family computes it, its reference
        solution.

    Raises
    ------
    ValueError
        An unknown family (listing the known ones), or parameters the family refuses.
    """
    fam = families()
    if name not in fam:
        raise ValueError(f"unknown instance family {name!r}; known: {', '.join(sorted(fam))}")
    return fam[name](**params)
