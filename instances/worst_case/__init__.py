"""Worst-case (lower-bound) constructions of the paper, built as printed.

``FAMILIES`` maps CLI family names to builders returning :class:`mixbounds.instances.instance.Instance`.
A ``-grad`` family is the same construction with the gradient sum-trick
(:mod:`mixbounds.instances.worst_case.sum_trick`) applied.
"""

from importlib import import_module

from mixbounds.bounds.concepts import WorstFamily
from mixbounds.instances.classes import CLASSES
from mixbounds.instances.worst_case import block_split, ident
from mixbounds.instances.worst_case.common import check_printed_params
from mixbounds.instances.worst_case.split_gradient import add_split_gradient_chain
from mixbounds.instances.worst_case.sum_trick import add_gradient_chain

#: the gradient chains a ``-grad`` family can add (keyword ``gradient``): the paper's sum-trick (primal-gradient
#: methods only) and Scaman et al.'s split chain, which needs a gradient round per index with ∇f_i* as well
GRADIENT_CHAINS = {"sum-trick": add_gradient_chain, "split": add_split_gradient_chain}


def _check_n(builder):
    def build(*, n=None, seed=None, **kw):
        check_printed_params(kw)
        inst = builder(**kw)
        if n is not None and int(n) != inst.problem.n:
            raise ValueError(f"{inst.family}: n is fixed by κ_W (the tuned path has n = {inst.problem.n}); got --n {n}")
        return inst

    build.__doc__ = builder.__doc__
    build.__wrapped__ = builder  # the keywords it passes on are the builder's (the docs list them from here)
    return build


def _grad(builder):
    def build(*, gradient: str = "sum-trick", **kw):
        if gradient not in GRADIENT_CHAINS:
            raise ValueError(f"gradient chain {gradient!r} unknown; known: {', '.join(GRADIENT_CHAINS)}")
        return GRADIENT_CHAINS[gradient](builder(**kw), eps=kw.get("eps"), chain_scale=kw.get("chain_scale", 1.0))

    build.__doc__ = f"{builder.__doc__} (with the gradient sum-trick)"
    build.__wrapped__ = builder
    return build


#: one construction per problem class that has one (mixbounds.instances.classes names the module)
_BASE = {c.worst_family: import_module(f"{__name__}.{c.worst_module}").build for c in CLASSES.values() if c.worst_family}
#: the identical-C̃ constructions (documented variants, none is printed): run by the lower-bound engine only
#: (mixbounds.checks.lower.slopes), so they are not the classes' worst families (no solver sweeps on them)
_BASE.update({WorstFamily.SHARED_IDENT: ident.build_shared, WorstFamily.MIXED_IDENT: ident.build_mixed})
#: the suite's max-type split chains of Tables 3–4 (mixbounds.checks.lower.max_split): engine only
_BASE.update({WorstFamily.BLOCK_SPLIT: block_split.build, WorstFamily.NETWORK_SPLIT: block_split.build_network})

FAMILIES: dict = {name: _check_n(b) for name, b in _BASE.items()}
FAMILIES.update({f"{c.worst_family}-grad": _check_n(_grad(_BASE[c.worst_family])) for c in CLASSES.values()
                 if c.worst_family and c.sum_trick})
