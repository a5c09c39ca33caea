"""Named instance families (``mixbounds instance FAMILY …``).

``FAMILIES`` maps a family name to a builder ``f(**params) -> Instance``.  The
worst-case constructions register in :mod:`instances.worst_case`, the random
families in :mod:`instances.random`.
"""

from __future__ import annotations

from typing import Callable

from .instance import Instance


def families() -> dict[str, Callable[..., Instance]]:
    from . import worst_case

    out: dict[str, Callable[..., Instance]] = {}
    out.update(worst_case.FAMILIES)
    try:
        from . import random as _random  # registered by instances/random.py
    except ImportError:  # pragma: no cover - during development only
        _random = None
    if _random is not None:
        out.update(getattr(_random, "FAMILIES", {}))
    return out


def build(name: str, **params) -> Instance:
    fam = families()
    if name not in fam:
        raise ValueError(f"unknown instance family {name!r}; known: {', '.join(sorted(fam))}")
    return fam[name](**params)
