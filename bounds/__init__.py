"""Theory side: condition numbers and the registry of the paper's complexity claims.

Importing this package is light: the paper's vocabularies (:mod:`mixbounds.bounds.concepts`, read by the command
line's parsers and the tiers) must not pull in scipy.  The condition-number and spectral names listed in
``__all__`` load their modules (scipy's sparse and linear-algebra packages) on first use.
"""

from __future__ import annotations

import importlib

#: the names this package re-exports and the module of each, loaded on first use (module ``__getattr__``, PEP 562)
_EXPORTS = {
    **dict.fromkeys(("L_S", "GroupSpectrum", "Projected", "gossip_spectrum", "group_kappa", "group_L", "group_spectrum",
                     "interaction_matrix", "kappa_f", "kappa_W", "kernel_basis_is_complete", "mixed_kappa",
                     "projected_kappa"), "condition"),
    **dict.fromkeys(("DENSE_LIMIT", "ZERO_RTOL", "Extremes", "smallest_eigenvalue", "sv_extremes", "sym_extremes"),
                    "spectral"),
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        # scipy.sparse and scipy.linalg cost ~0.75 s of `mixbounds --help` (python -X importtime: bounds.condition
        # 746 ms cumulative, under load) whenever anything imports bounds.concepts
        value = getattr(importlib.import_module(f"mixbounds.bounds.{_EXPORTS[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'mixbounds.bounds' has no attribute {name!r}")
