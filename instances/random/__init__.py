"""Seeded random instance families for upper-bound checks away from the worst case.

Every builder returns an :class:`mixbounds.instances.instance.Instance` whose ``realized`` condition numbers
are computed from the matrices and checked against the targets (:mod:`.finish`).  One module per
concept:

* :mod:`.common` — seeds (independent streams per component), argument checks, tolerances;
* :mod:`.gossip` — graph and gossip matrix, κ_W tuned (Assumption ``ass:W``);
* :mod:`.objectives` — quadratic / logistic ``f_i`` with an exact κ_f;
* :mod:`.tuning` — blocks with a prescribed κ̂ / κ̃ (Definitions ``def:mixed_condition_number``,
  ``def:projected_condition_number``), two-stage family and Brent's method;
* :mod:`.constraint_blocks` — ``C_i`` with exact κ_C and identical ``C̃`` with exact κ_C̃;
* :mod:`.finish` — realized κ's, tolerance check, the Instance;
* :mod:`.generic` — the eight families built from one structure table;
* :mod:`.vertical_fl`, :mod:`.local_global` — the two application families of the paper.

A family is **one file** dropped in this folder: a module with a ``FAMILIES`` dict (CLI name → builder, each
documented in its module), found by :func:`mixbounds.instances.families.families` (which imports every module here);
the families with their keywords are listed on the generated registry page of the docs.
Builders take keyword arguments only::

    f(*, n=None, seed=0, kappa_W=None, kappa_f=…, kappa_AC=None, kappa_C=None,
      kappa_Ct=None, eps=None, variant="default", graph=None, **kw) -> Instance

``graph=None`` means ``"ring"``, or ``"path"`` when ``kappa_W`` is given; ``n=None``
means the family default (or the ``n`` forced by the tuned path).  Extra keywords
(sizes such as ``d``, ``dt``, ``m``, ``p``, ``pt``; ``gossip``; ``er_p``;
``objective``; ``samples`` …) are listed in each family's docstring; unknown
keywords, unknown variants and impossible targets raise ``ValueError``.
"""

from __future__ import annotations

from mixbounds.instances.random.common import (
    COMMON_KW,
    KAPPA_MAX,
    OBJECTIVES,
    ROOT_RTOL,
    TARGET_RTOL,
    TARGET_RTOL_LARGE,
)
from mixbounds.instances.random.constraint_blocks import identical_shared_block, local_blocks
from mixbounds.instances.random.finish import projected_remark_finding
from mixbounds.instances.random.generic import (
    logistic_consensus,
    random_consensus,
    random_coupled,
    random_coupled_local,
    random_mixed,
    random_mixed_ident,
    random_shared,
    random_shared_ident,
)
from mixbounds.instances.random.gossip import GOSSIPS, GRAPHS, Gossip, make_gossip
from mixbounds.instances.random.local_global import local_global
from mixbounds.instances.random.objectives import logistic_objective, quadratic_objective
from mixbounds.instances.random.tuning import frame_base, group_ratio, tune_group
from mixbounds.instances.random.vertical_fl import vertical_fl

__all__ = [
    "COMMON_KW", "GOSSIPS", "GRAPHS", "Gossip", "KAPPA_MAX", "OBJECTIVES", "ROOT_RTOL", "TARGET_RTOL",
    "TARGET_RTOL_LARGE", "frame_base", "group_ratio", "identical_shared_block", "local_blocks", "local_global",
    "logistic_consensus", "logistic_objective", "make_gossip", "projected_remark_finding", "quadratic_objective",
    "random_consensus", "random_coupled", "random_coupled_local", "random_mixed", "random_mixed_ident",
    "random_shared", "random_shared_ident", "tune_group", "vertical_fl",
]
