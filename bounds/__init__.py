"""Theory side: condition numbers and the registry of the paper's complexity claims."""

from mixbounds.bounds.condition import (
    L_S,
    GroupSpectrum,
    Projected,
    gossip_spectrum,
    group_kappa,
    group_L,
    group_spectrum,
    interaction_matrix,
    kappa_f,
    kappa_W,
    kernel_basis_is_complete,
    mixed_kappa,
    projected_kappa,
)
from mixbounds.bounds.spectral import DENSE_LIMIT, ZERO_RTOL, Extremes, smallest_eigenvalue, sv_extremes, sym_extremes

__all__ = [
    "DENSE_LIMIT", "ZERO_RTOL", "Extremes", "GroupSpectrum", "L_S", "Projected", "gossip_spectrum",
    "group_L", "group_kappa", "group_spectrum", "interaction_matrix", "kappa_W", "kappa_f", "kernel_basis_is_complete",
    "mixed_kappa", "projected_kappa", "smallest_eigenvalue", "sv_extremes", "sym_extremes",
]
