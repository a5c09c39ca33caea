"""The problem classes of Table ``table:smooth_str_convex_optimization_affine_constraints``, as one table.

Each :class:`ClassSetup` says, once, what the checks build for a class (a
:class:`~mixbounds.bounds.concepts.ProblemClass`, which carries the parameters of its Table 1 row and the oracles its
methods call, Definition ``def:foda``): its worst-case construction (a module of
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

from mixbounds.bounds.concepts import ProblemClass


@dataclass(frozen=True)
class ClassSetup:
    """What the checks build for one row of Table 1.

    ``cls``: the class (its ``params`` and ``oracles`` are read through it); ``worst_family`` / ``worst_module``:
    the CLI family name of the worst-case construction and its module in ``mixbounds.instances.worst_case``
    (``None`` for the classes without one); ``random_family``: the random family's name;
    ``worst_base`` / ``random_base``: the sweeps' base point on each (registry names → value);
    ``engine_variants``: the variants of the worst-case construction the lower-bound engine sweeps
    (``None``: the family's default, the construction as printed); ``sum_trick``: the gradient bound needs the
    construction's sum-trick twin ``<worst_family>-grad`` (:mod:`mixbounds.instances.worst_case.sum_trick`); ``False`` when
    the construction is itself a gradient lower bound (Scaman et al.'s consensus chain).
    """

    cls: ProblemClass
    random_family: str
    random_base: dict
    worst_family: str | None = None
    worst_module: str | None = None
    worst_base: dict = field(default_factory=dict)
    engine_variants: tuple = (None,)
    sum_trick: bool = True

    @property
    def name(self) -> ProblemClass:
        """The class (its value is the class's name)."""
        return self.cls

    @property
    def params(self) -> tuple[str, ...]:
        """The parameters of the class's Table 1 row."""
        return self.cls.params

    @property
    def oracles(self) -> tuple[str, ...]:
        """The oracles the class's methods call."""
        return self.cls.oracles


def _named(cls: ProblemClass) -> str:
    """A worst-case family or module named after its class (the name as a plain string, as the CLI spells it)."""
    return cls.value


#: the classes in report order.  Base points keep the swept term dominant; the mixed worst case keeps κ̂_C̃
#: small so that the κ̃_AC chain dominates its communication count and bound; the random bases sit low
#: (cost grows with every κ; random-mixed needs κ̂_C̃ >= 18 at κ_W = 139, hence 30)
CLASSES: dict[ProblemClass, ClassSetup] = {c.cls: c for c in (
    ClassSetup(ProblemClass.CONSENSUS, "random-consensus", {"kappa_f": 30.0, "kappa_W": 30.0},
               _named(ProblemClass.CONSENSUS), _named(ProblemClass.CONSENSUS), {"kappa_f": 100.0, "kappa_W": 100.0},
               sum_trick=False),
    ClassSetup(ProblemClass.COUPLED, "random-coupled", {"kappa_f": 30.0, "kappa_A": 30.0, "kappa_W": 30.0},
               _named(ProblemClass.COUPLED), _named(ProblemClass.COUPLED), {"kappa_f": 30.0, "kappa_A": 30.0, "kappa_W": 30.0}),
    ClassSetup(ProblemClass.SHARED, "random-shared", {"kappa_f": 30.0, "kappa_Ct": 30.0, "kappa_W": 30.0},
               _named(ProblemClass.SHARED), _named(ProblemClass.SHARED), {"kappa_f": 30.0, "kappa_Ct": 30.0, "kappa_W": 30.0}),
    ClassSetup(ProblemClass.COUPLED_LOCAL,
               "random-coupled-local", {"kappa_f": 30.0, "kappa_AC": 30.0, "kappa_C": 10.0, "kappa_W": 30.0},
               "coupled-local", _named(ProblemClass.COUPLED_LOCAL), {"kappa_f": 10.0, "kappa_AC": 30.0, "kappa_C": 10.0, "kappa_W": 10.0},
               ("printed", "shared-rows-incidence", "split-rows")),
    ClassSetup(ProblemClass.MIXED,
               "random-mixed", {"kappa_f": 30.0, "kappa_AC": 30.0, "kappa_C": 10.0, "kappa_Ct": 30.0, "kappa_W": 30.0},
               _named(ProblemClass.MIXED), _named(ProblemClass.MIXED), {"kappa_f": 10.0, "kappa_AC": 30.0, "kappa_C": 10.0, "kappa_Ct": 4.0, "kappa_W": 10.0},
               ("printed", "shared-rows-incidence", "cited", "split-rows")),
    ClassSetup(ProblemClass.SHARED_IDENT, "random-shared-ident", {"kappa_f": 30.0, "kappa_Ct_id": 30.0, "kappa_W": 30.0}),
    ClassSetup(ProblemClass.MIXED_IDENT, "random-mixed-ident",
               {"kappa_f": 30.0, "kappa_AC": 30.0, "kappa_C": 10.0, "kappa_Ct_id": 10.0, "kappa_W": 30.0}),
)}

#: class → worst-case family, for the classes that have one (report order)
WORST_FAMILY: dict[ProblemClass, str] = {c.name: c.worst_family for c in CLASSES.values() if c.worst_family}
