"""Named instance families (``mixbounds instance FAMILY …``).

``families()`` maps a family name to a builder ``f(**params) -> Instance``,
collected from every module listed in :data:`MODULES` that defines a
``FAMILIES`` dict (a module that is not present is skipped).
"""

from __future__ import annotations

import importlib
from typing import Callable

from mixbounds.instances.instance import Instance

MODULES = ("mixbounds.instances.worst_case", "mixbounds.instances.random", "mixbounds.instances.nonsmooth",
           "mixbounds.instances.convex")


def families() -> dict[str, Callable[..., Instance]]:
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


def build(name: str, **params) -> Instance:
    fam = families()
    if name not in fam:
        raise ValueError(f"unknown instance family {name!r}; known: {', '.join(sorted(fam))}")
    return fam[name](**params)
