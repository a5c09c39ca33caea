"""Sizing defects planted inside a construction's own builder: the negative controls of the as-built rule.

A certificate's exponent is the asymptotic model's (:mod:`.asymptotic`); :mod:`.as_built` checks that each instance
is that model's.  A plant changes how a builder sizes its instance *inside the builder* — the instance keeps its
family, variant and targets, the exact counts still match (they read the instance's own integers), and nothing
tells the model — so only the as-built rule and the fit band can notice.

``power-path``: the consensus builder (:mod:`mixbounds.instances.worst_case.consensus`) puts its nodes on a path of
:func:`power_path_nodes` ``= 3·round(POWER_PATH_C·κ_W^0.4)`` nodes instead of the paper's ``n = 3m`` with
``β_n <= κ_W < β_{n+3}``, its weak edge tuned to the same κ_W: the instance realizes κ_W, and its communication bound
grows like ``κ_W^0.4``.

A planted point runs in its own task group (:func:`planted_point` takes no ``family``/``params`` keywords, so the
runner shares no instance with the unplanted points) and the patch is undone when the point is done.

``block-shortcut``: the block-split builder (:mod:`mixbounds.instances.worst_case.block_split`) gives its ``U3``
blocks both halves of the chain's links (``αI + βM₁ + βM₂``), so every index is reached by local computation: the
max-type split chain's closed-form rounds (:mod:`mixbounds.checks.lower.max_split`) no longer describe it.
"""

from __future__ import annotations

from contextlib import contextmanager
from unittest import mock

from mixbounds.checks.lower.exact import exact_point
from mixbounds.instances.graphs import tuned_path
from mixbounds.instances.worst_case import block_split, consensus
from mixbounds.instances.worst_case.split_gradient import split_blocks

#: the ``power-path`` plant's node count ``3·max(1, round(POWER_PATH_C·κ_W^0.4))`` (``β_n <= κ_W`` for every
#: κ_W >= 10 with this constant, so the weak edge can tune the path to κ_W)
POWER_PATH_C, POWER_PATH_EXPONENT = 0.5, 0.4


def power_path_nodes(kappa_W: float) -> int:
    """Nodes of the ``power-path`` plant: ``3·max(1, round(POWER_PATH_C·κ_W^0.4))``."""
    return 3 * max(1, round(POWER_PATH_C * kappa_W ** POWER_PATH_EXPONENT))


def _power_path(kappa_W: float, n: int | None = None):
    return tuned_path(kappa_W, power_path_nodes(kappa_W) if n is None else n)


def _shortcut_blocks(K: int, mu_f: float, kappa_f: float):
    Q1, Q2, Q3, beta = split_blocks(K, mu_f, kappa_f)
    return Q1, Q2, (Q1 + Q3 - Q2).tocsr(), beta


#: plant name → (module whose builder is changed, the name it calls, the replacement)
PLANTS = {"power-path": (consensus, "tuned_path", _power_path),
          "block-shortcut": (block_split, "split_blocks", _shortcut_blocks)}


@contextmanager
def planted(name: str):
    """The builder of plant ``name`` (:data:`PLANTS`) with its sizing rule changed, for the ``with`` block only."""
    if name not in PLANTS:
        raise ValueError(f"unknown plant {name!r}; known: {', '.join(sorted(PLANTS))}")
    module, attr, replacement = PLANTS[name]
    with mock.patch.object(module, attr, replacement):
        yield


def planted_point(plant: str, construction: str, targets: dict, oracles: list, parts: dict | None = None) -> dict:
    """:func:`~mixbounds.checks.lower.exact.exact_point` of ``construction`` at ``targets`` with plant ``plant`` in
    its builder (module docstring)."""
    with planted(plant):
        return exact_point(construction, targets, oracles, parts)
