"""Problems: the model of problem (P), objectives, graphs and the paper's instances.

The names below are imported from their modules on first use (PEP 562 ``__getattr__``): importing a light submodule
such as :mod:`mixbounds.instances.json_file` (which :mod:`mixbounds.outdir`, and so the command line at start-up,
reads) then does not import the objectives, the random families and scipy with it.
"""

from __future__ import annotations

import importlib

#: exported name → the submodule that defines it
_EXPORTS = {"Layout": "layout", "LogisticObjective": "objectives", "Objective": "objectives",
            "QuadraticObjective": "objectives", "block_diag_u": "objectives", "PROBLEM_CLASSES": "problem",
            "MixedProblem": "problem"}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
