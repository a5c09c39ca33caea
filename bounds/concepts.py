"""The paper's two vocabularies as types: the problem classes and the oracles.

A problem class is a row of Table ``table:smooth_str_convex_optimization_affine_constraints`` (and the
identical-``C̃`` variants its theorems state): which constraints it has, the condition numbers its complexities
depend on, and the oracles a method of Definition ``def:foda`` calls on it. An oracle is one counted operation of
that definition (a gradient round, a product with ``A``, ``C`` or ``C̃`` or a transpose, a gossip round with ``W``).

Both are string enums: a member *is* its name (``ProblemClass.COUPLED == "coupled"``, ``f"{Oracle.CT}" == "Ct"``,
``json.dumps`` writes the name, ``repr`` is the name's), so results, ids and outputs read exactly as the bare
strings did, while the code names the concept once, here. Every other module spells a class or an oracle through
these members (``tests/test_concepts.py`` walks the package's syntax trees for stray literals).
"""

from __future__ import annotations

from enum import StrEnum


class Named(StrEnum):
    """A string enum that reads as its name everywhere, ``repr`` included (messages print ``'coupled'``, as the bare
    string did, not ``<ProblemClass.COUPLED: 'coupled'>``)."""

    def __repr__(self) -> str:
        return repr(self.value)


class Oracle(Named):
    """One counted oracle of Definition ``def:foda``; ``label`` is its column title in the paper's tables."""

    GRAD = "grad", "Grad."
    A = "A", "Mat. A"
    C = "C", "Mat. C"
    CT = "Ct", "Mat. C̃"
    COMM = "comm", "Comm."

    label: str

    def __new__(cls, value: str, label: str) -> "Oracle":
        member = str.__new__(cls, value)
        member._value_ = value
        member.label = label
        return member



#: the oracles in the tables' column order (the order of every per-oracle count array)
ORACLES: tuple[Oracle, ...] = tuple(Oracle)

_G, _A, _C, _CT, _W = Oracle.GRAD, Oracle.A, Oracle.C, Oracle.CT, Oracle.COMM


class ProblemClass(Named):
    """One problem class (a row of Table 1, or an identical-``C̃`` variant stated only in a theorem).

    ``params``: the condition numbers of its Table 1 row (names of :data:`mixbounds.bounds.claims.PARAMS`;
    ``kappa_Ct_id`` is κ_C̃ of the identical variant); ``oracles``: the oracles its methods call, in
    :data:`ORACLES` order; ``label``: its row title; ``theorem``: the LaTeX label (or citation) of the upper bound
    Table 1 cites for it; ``in_table``: whether it is a row of the paper's tables (the identical-``C̃`` variants are
    theorem statements only).
    """

    CONSENSUS = ("consensus", ("kappa_f", "kappa_W"), (_G, _W), "Consensus constr.",
                 "scaman2017optimal; kovalev2020optimal", True)
    COUPLED = ("coupled", ("kappa_f", "kappa_A", "kappa_W"), (_G, _A, _W), "Coupled constr.", "thm:coupled_iclr", True)
    SHARED = ("shared", ("kappa_f", "kappa_Ct", "kappa_W"), (_G, _CT, _W), "Shared var. constr.",
              "thm:LN_upper_bound", True)
    COUPLED_LOCAL = ("coupled_local", ("kappa_f", "kappa_AC", "kappa_C", "kappa_W"), (_G, _A, _C, _W),
                     "Local var. constr. (C&L)", "thm:mixed_upper_bound", True)
    MIXED = ("mixed", ("kappa_f", "kappa_AC", "kappa_C", "kappa_Ct", "kappa_W"), (_G, _A, _C, _CT, _W),
             "Mixed constr.", "thm:upper_bound_coupled_plus_non_ident_local_constraints_prob", True)
    SHARED_IDENT = ("shared_ident", ("kappa_f", "kappa_Ct_id", "kappa_W"), (_G, _CT, _W),
                    "Shared var., identical C̃ (Th. LI)", "thm:LI_upper_bound", False)
    MIXED_IDENT = ("mixed_ident", ("kappa_f", "kappa_AC", "kappa_C", "kappa_Ct_id", "kappa_W"), (_G, _A, _C, _CT, _W),
                   "Mixed, identical C̃", "thm:upper_bound_coupled_plus_non_ident_local_constraints_prob", False)

    params: tuple[str, ...]
    oracles: tuple[Oracle, ...]
    label: str
    theorem: str
    in_table: bool

    def __new__(cls, value: str, params: tuple[str, ...], oracles: tuple[Oracle, ...], label: str, theorem: str,
                in_table: bool) -> "ProblemClass":
        member = str.__new__(cls, value)
        member._value_ = value
        member.params = params
        member.oracles = oracles
        member.label = label
        member.theorem = theorem
        member.in_table = in_table
        return member

    @classmethod
    def named(cls, value: str) -> "ProblemClass":
        """The class whose name is ``value`` (``ProblemClass(value)``, spelled so that a type checker reads it as the
        lookup it is and not as a call of :meth:`__new__`); ``ValueError`` for an unknown name."""
        for member in cls:
            if member.value == value:
                return member
        raise ValueError(f"{value!r} is not a problem class (choose from {', '.join(cls)})")



#: the classes in the paper's row order (Table 1's rows, then its theorem-only identical-C̃ variants)
PROBLEM_CLASSES: tuple[ProblemClass, ...] = tuple(ProblemClass)

#: the classes the paper's method (APAPC on the reformulation, Algorithm ``alg:apapc``) is built for here
METHOD_CLASSES: tuple[ProblemClass, ...] = (ProblemClass.CONSENSUS, ProblemClass.COUPLED, ProblemClass.SHARED,
                                            ProblemClass.COUPLED_LOCAL, ProblemClass.MIXED)


class Structure(Named):
    """Which constraints a problem instance has (:attr:`mixbounds.instances.problem.MixedProblem.problem_class`): the
    five rows of Table 1 (named like the classes) and the two structures of no row — ``LOCAL`` (``x`` with local
    constraints only: decoupled nodes) and ``SEPARABLE`` (``x`` with no constraint)."""

    CONSENSUS = ProblemClass.CONSENSUS.value
    SHARED = ProblemClass.SHARED.value
    COUPLED = ProblemClass.COUPLED.value
    COUPLED_LOCAL = ProblemClass.COUPLED_LOCAL.value
    LOCAL = "local"
    MIXED = ProblemClass.MIXED.value
    SEPARABLE = "separable"


class BlockKind(Named):
    """A diagonal block of the reformulation's constraint operator ``K`` (the paper's ``B`` per part of the
    variables; ``K`` is block-diagonal, Appendix
    ``app:upper_bound_coupled_plus_non_ident_local_constraints_prob``): on ``x``, ``COUPLED`` (``B = (A  αW')``,
    ``app:coupled_cons``), ``COUPLED_LOCAL`` (``B = [[A, αW'], [βC', 0]]``, ``sec:mixed_upper``), ``LOCAL``
    (``C'`` alone) or ``FREE`` (no constraint on ``x``: no block); on ``X̃``, ``CONSENSUS`` (``W'``), ``SHARED``
    (different ``C̃_i``, ``app:nonind_upper``) or ``SHARED_IDENTICAL`` (identical ``C̃_i``)."""

    COUPLED = ProblemClass.COUPLED.value
    COUPLED_LOCAL = ProblemClass.COUPLED_LOCAL.value
    LOCAL = Structure.LOCAL.value
    FREE = "free"
    CONSENSUS = ProblemClass.CONSENSUS.value
    SHARED = ProblemClass.SHARED.value
    SHARED_IDENTICAL = "shared_identical"


class WorstFamily(Named):
    """A worst-case construction (an instance generator of :mod:`mixbounds.instances.worst_case`, not a class): the
    five printed constructions of the lower-bound appendices, named like the class each is built for (the CLI's
    family names), the identical-``C̃`` constructions and their chain, and the suite's max-type split chains of
    Tables 3–4.  A family's ``-grad`` twin (the gradient sum-trick) is ``f"{family}-grad"``."""

    CONSENSUS = ProblemClass.CONSENSUS.value
    COUPLED = ProblemClass.COUPLED.value
    SHARED = ProblemClass.SHARED.value
    COUPLED_LOCAL = "coupled-local"
    MIXED = ProblemClass.MIXED.value
    SHARED_IDENT = "shared-ident"
    MIXED_IDENT = "mixed-ident"
    IDENT_CHAIN = "ident-chain"
    BLOCK_SPLIT = "block-split"
    NETWORK_SPLIT = "network-split"


class Matrix(Named):
    """A constraint matrix of the problem (``prob:main``): ``A`` (coupled), ``C`` (local), ``C̃`` (shared-variable).

    The name of the problem's sparse blocks, of their file group in an instance archive and of what a spectral fact
    depends on; spelled like the oracle that multiplies by it (``Matrix.CT == Oracle.CT == "Ct"``), which is
    :attr:`oracle`."""

    A = Oracle.A.value
    C = Oracle.C.value
    CT = Oracle.CT.value

    @property
    def oracle(self) -> Oracle:
        """The oracle of Definition ``def:foda`` that multiplies by this matrix (or its transpose)."""
        return next(o for o in Oracle if o.value == self.value)

