"""The problem classes of Table ``table:smooth_str_convex_optimization_affine_constraints``, as one table.

Each :class:`ProblemClass` says, once, everything the checks need to know about a class: the
parameters of its Table 1 row (registry names, :mod:`mixbounds.bounds.claims`), the oracles its methods
call (Definition ``def:foda``), its worst-case construction (a module of
:mod:`mixbounds.instances.worst_case`, built as printed in its appendix) and its random family
(:mod:`mixbounds.instances.random`), and the base points the sweeps hold the non-swept parameters at.
The sweeps and rates (:mod:`mixbounds.checks.sweeps`, :mod:`mixbounds.checks.rates`), the lower-bound engine's
sweeps (:mod:`mixbounds.checks.lower.slopes`), the benchmarks (:mod:`mixbounds.checks.bench`) and the worst-case family
registry (:mod:`mixbounds.instances.worst_case`) all read this table.

Adding a worst-case family: its module under ``instances/worst_case/`` (a ``build(**kw)``) and
its name in the class's entry below (``worst_family``, ``worst_module``, ``worst_base``).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class ProblemClass:
    """One row of Table 1.

    ``params``: the row's parameters (registry names; ``kappa_Ct_id`` is κ_C̃ of the identical
    variant); ``oracles``: the oracle names its methods call; ``worst_family`` / ``worst_module``:
    the CLI family name of the worst-case construction and its module in ``mixbounds.instances.worst_case``
    (``None`` for the classes without one); ``random_family``: the random family's name;
    ``worst_base`` / ``random_base``: the sweeps' base point on each (registry names → value);
    ``engine_variants``: the variants of the worst-case construction the lower-bound engine sweeps
    (``None``: the family's default, the construction as printed); ``sum_trick``: the gradient bound needs the
    construction's sum-trick twin ``<worst_family>-grad`` (:mod:`mixbounds.instances.worst_case.sum_trick`); ``False`` when
    the construction is itself a gradient lower bound (Scaman et al.'s consensus chain).
    """

    name: str
    params: tuple[str, ...]
    oracles: tuple[str, ...]
    random_family: str
    random_base: dict
    worst_family: str | None = None
    worst_module: str | None = None
    worst_base: dict = field(default_factory=dict)
    engine_variants: tuple = (None,)
    sum_trick: bool = True


#: the classes in report order.  Base points keep the swept term dominant; the mixed worst case keeps κ̂_C̃
#: small so that the κ̃_AC chain dominates its communication count and bound; the random bases sit low
#: (cost grows with every κ; random-mixed needs κ̂_C̃ >= 18 at κ_W = 139, hence 30)
CLASSES: dict[str, ProblemClass] = {c.name: c for c in (
    ProblemClass("consensus", ("kappa_f", "kappa_W"), ("grad", "comm"),
                 "random-consensus", {"kappa_f": 30.0, "kappa_W": 30.0},
                 "consensus", "consensus", {"kappa_f": 100.0, "kappa_W": 100.0}, sum_trick=False),
    ProblemClass("coupled", ("kappa_f", "kappa_A", "kappa_W"), ("grad", "A", "comm"),
                 "random-coupled", {"kappa_f": 30.0, "kappa_A": 30.0, "kappa_W": 30.0},
                 "coupled", "coupled", {"kappa_f": 30.0, "kappa_A": 30.0, "kappa_W": 30.0}),
    ProblemClass("shared", ("kappa_f", "kappa_Ct", "kappa_W"), ("grad", "Ct", "comm"),
                 "random-shared", {"kappa_f": 30.0, "kappa_Ct": 30.0, "kappa_W": 30.0},
                 "shared", "shared", {"kappa_f": 30.0, "kappa_Ct": 30.0, "kappa_W": 30.0}),
    ProblemClass("coupled_local", ("kappa_f", "kappa_AC", "kappa_C", "kappa_W"), ("grad", "A", "C", "comm"),
                 "random-coupled-local", {"kappa_f": 30.0, "kappa_AC": 30.0, "kappa_C": 10.0, "kappa_W": 30.0},
                 "coupled-local", "coupled_local", {"kappa_f": 10.0, "kappa_AC": 30.0, "kappa_C": 10.0, "kappa_W": 10.0},
                 ("printed", "shared-rows-incidence", "split-rows")),
    ProblemClass("mixed", ("kappa_f", "kappa_AC", "kappa_C", "kappa_Ct", "kappa_W"), ("grad", "A", "C", "Ct", "comm"),
                 "random-mixed", {"kappa_f": 30.0, "kappa_AC": 30.0, "kappa_C": 10.0, "kappa_Ct": 30.0, "kappa_W": 30.0},
                 "mixed", "mixed", {"kappa_f": 10.0, "kappa_AC": 30.0, "kappa_C": 10.0, "kappa_Ct": 4.0, "kappa_W": 10.0},
                 ("printed", "shared-rows-incidence", "cited", "split-rows")),
    ProblemClass("shared_ident", ("kappa_f", "kappa_Ct_id", "kappa_W"), ("grad", "Ct", "comm"),
                 "random-shared-ident", {"kappa_f": 30.0, "kappa_Ct_id": 30.0, "kappa_W": 30.0}),
    ProblemClass("mixed_ident", ("kappa_f", "kappa_AC", "kappa_C", "kappa_Ct_id", "kappa_W"), ("grad", "A", "C", "Ct", "comm"),
                 "random-mixed-ident", {"kappa_f": 30.0, "kappa_AC": 30.0, "kappa_C": 10.0, "kappa_Ct_id": 10.0,
                                        "kappa_W": 30.0}),
)}

#: class → worst-case family, for the classes that have one (report order)
WORST_FAMILY: dict[str, str] = {c.name: c.worst_family for c in CLASSES.values() if c.worst_family}
