"""Named instance families (``mixbounds instance FAMILY …``).

``families()`` maps a family name to a builder ``f(**params) -> Instance``,
collected from the ``FAMILIES`` dict of every module listed in :data:`MODULES` (a module that is not present is
skipped) and of every module of the packages listed in :data:`PACKAGES` (discovered with ``pkgutil``: a random
family is one file dropped in ``instances/random/``).
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType
from typing import Any, Callable

from mixbounds.instances.instance import Instance

#: where the families are, in the registry's order
MODULES = ("mixbounds.instances.worst_case", "mixbounds.instances.random", "mixbounds.instances.nonsmooth",
           "mixbounds.instances.convex")
#: the packages of :data:`MODULES` read module by module: each public module (name not starting with ``_``) may
#: define ``FAMILIES``, in the order of the module names
PACKAGES = ("mixbounds.instances.random",)


def _modules() -> list[ModuleType]:
    """The modules of :data:`MODULES` that are present, each package of :data:`PACKAGES` as its public modules."""
    out = []
    for name in MODULES:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        if name not in PACKAGES:
            out.append(mod)
            continue
        subs = sorted(i.name for i in pkgutil.iter_modules(mod.__path__) if not i.name.startswith("_"))
        out += [importlib.import_module(f"{name}.{s}") for s in subs]
    return out


def families() -> dict[str, Callable[..., Instance]]:
    """Every named family: name → builder ``f(**params) -> Instance``.

    Returns
    -------
    dict
        Collected from the ``FAMILIES`` dict of every module of :data:`MODULES` that is present and of every
        module of :data:`PACKAGES`.

    Raises
    ------
    ValueError
        When two modules define the same family name.
    """
    out: dict[str, Callable[..., Instance]] = {}
    for mod in _modules():
        for k, v in getattr(mod, "FAMILIES", {}).items():
            if k in out:
                raise ValueError(f"instance family {k!r} is defined twice ({mod.__name__})")
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
