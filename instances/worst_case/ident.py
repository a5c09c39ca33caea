"""Identical-``C̃`` worst cases (``sub:ident_local``, ``thm:LI_upper_bound``, the identical case of
``thm:upper_bound_coupled_plus_non_ident_local_constraints_prob``).

The paper prints no construction for these statements; it cites "corresponding lower bounds"
(rogozin2022decentralized_affine) and, for the mixed identical case, the "combination of lower bounds in
thm:LI_upper_bound, thm:coupled_iclr".  These are the natural direct sums (:mod:`direct_sum`), documented
variants, each part as printed for its own class:

``shared-ident``
    Scaman et al.'s consensus instance (gradient and communication bounds, ``√κ_f`` and ``√κ_f √κ_W``)
    ⊕ the identical-``C̃`` chain of :mod:`ident_chain` (``C̃`` bound ``√κ_f √κ_C̃``).
``mixed-ident``
    the coupled construction on ``x`` with ``κ̂_A = κ̃_AC`` (``C = 0``, Remark rem:projected_condition_number;
    communication bound ``√κ_f √κ̃_AC √κ_W``) ⊕ the identical-``C̃`` chain on ``x̃``.

``kappa_Ct`` is the target of the common ``C̃``'s condition number ``κ_C̃`` (realized key ``kappa_Ct_id``).
"""

from __future__ import annotations

import mixbounds.instances.worst_case.consensus as consensus
import mixbounds.instances.worst_case.coupled as coupled
import mixbounds.instances.worst_case.ident_chain as ident_chain
from mixbounds.instances.worst_case.common import reject_unused
from mixbounds.instances.worst_case.direct_sum import direct_sum


def build_shared(*, kappa_W: float, kappa_Ct: float, kappa_f: float, eps: float = 1e-8, variant: str = "natural",
                 chain: int | None = None, chain_scale: float = 1.0, cut: int | None = None, **unused):
    """Consensus ⊕ identical-``C̃`` chain (module docstring); ``cut`` cuts the ``C̃`` chain (negative control)."""
    if variant != "natural":
        raise ValueError(f"shared-ident: unknown variant {variant!r} (only 'natural')")
    reject_unused(unused, "shared-ident")
    a = consensus.build(kappa_W=kappa_W, kappa_f=kappa_f, eps=eps, chain=chain, chain_scale=chain_scale)
    b = ident_chain.build(kappa_W=kappa_W, kappa_Ct=kappa_Ct, kappa_f=kappa_f, eps=eps, chain=chain,
                          chain_scale=chain_scale, cut=cut)
    return direct_sum(None, [a, b], family="shared-ident", variant=variant if cut is None else f"cut-{cut}",
                      targets={"kappa_W": kappa_W, "kappa_Ct_id": kappa_Ct, "kappa_f": kappa_f},
                      notes=["no construction printed for identical C̃ (sub:ident_local): consensus ⊕ identical-C̃ chain"])


def build_mixed(*, kappa_W: float, kappa_AC: float, kappa_Ct: float, kappa_f: float, eps: float = 1e-8,
                variant: str = "natural", chain: int | None = None, chain_scale: float = 1.0, cut: int | None = None,
                **unused):
    """Coupled (``κ̂_A = κ̃_AC``) ⊕ identical-``C̃`` chain (module docstring)."""
    if variant != "natural":
        raise ValueError(f"mixed-ident: unknown variant {variant!r} (only 'natural')")
    reject_unused(unused, "mixed-ident")
    a = coupled.build(kappa_W=kappa_W, kappa_A=kappa_AC, kappa_f=kappa_f, eps=eps, chain=chain, chain_scale=chain_scale)
    b = ident_chain.build(kappa_W=kappa_W, kappa_Ct=kappa_Ct, kappa_f=kappa_f, eps=eps, chain=chain,
                          chain_scale=chain_scale, cut=cut)
    return direct_sum(a, [b], family="mixed-ident", variant=variant if cut is None else f"cut-{cut}",
                      targets={"kappa_W": kappa_W, "kappa_AC": kappa_AC, "kappa_Ct_id": kappa_Ct, "kappa_f": kappa_f},
                      notes=["as cited for the identical mixed case: thm:coupled_iclr's construction ⊕ identical-C̃ chain"])
