"""The registry of the paper's complexity claims, as data.

Every cell of the four complexity tables
(``table:smooth_str_convex_optimization_affine_constraints`` = T1,
``table:smooth_conv_optimization_constraints`` = T2,
``table:nonsmooth_conv_optimization_constraints`` = T3,
``table:nonsmooth_strconv_optimization_constraints`` = T4) × problem class ×
oracle, plus the identical-``C̃`` variants stated only in theorems
(``thm:upper_bound_coupled_plus_non_ident_local_constraints_prob``,
``thm:LI_upper_bound``, and the end of ``app:smooth_convex_results``).

A cell's complexity is a *sum of monomials* in the parameters of
:data:`PARAMS`; e.g. the T1 mixed communication cell
``√κ_f (√κ̃_AC + √κ̂_{C̃ᵀ}) √κ_W`` is the two monomials
``{κ_f: ½, κ̃_AC: ½, κ_W: ½}`` and ``{κ_f: ½, κ̂_{C̃ᵀ}: ½, κ_W: ½}``.
The exponent of a parameter in a cell (what a slope measures when that
parameter is swept alone and its term dominates) is the largest exponent it
has in any monomial; 0 means the parameter is absent from the formula.

Where a table cell disagrees with the theorem or appendix it cites, the cell
keeps the **printed** terms and carries the **derived** terms and a
``discrepancy`` note; nothing is silently corrected.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from types import MappingProxyType

#: parameter name → (unicode symbol, LaTeX symbol, meaning)
PARAMS = MappingProxyType({
    "kappa_f": ("κ_f", r"\kappa_f", "L_f/μ_f, condition number of the local objectives"),
    "kappa_W": ("κ_W", r"\kappa_W", "λ_max(W)/λ_min+(W), condition number of the gossip matrix"),
    "kappa_A": ("κ̂_A", r"\hat\kappa_A", "mixed condition number of (A_1..A_n), Def. def:mixed_condition_number"),
    "kappa_Ct": ("κ̂_C̃ᵀ", r"\hat\kappa_{\widetilde C^\top}", "mixed condition number of (C̃_1ᵀ..C̃_nᵀ)"),
    "kappa_AC": ("κ̃_AC", r"\widetilde\kappa_{AC}", "projected condition number, Def. def:projected_condition_number"),
    "kappa_C": ("κ_C", r"\kappa_C", "condition number of the block-diagonal C"),
    "kappa_Ct_id": ("κ_C̃", r"\kappa_{\widetilde C}", "condition number of the common C̃ (identical constraints)"),
    "LR2_eps": ("L_fR²/ε", r"\frac{L_f R^2}{\varepsilon}", "smooth convex accuracy parameter"),
    "MR_eps": ("M_fR/ε", r"\frac{M_f R}{\varepsilon}", "nonsmooth convex accuracy parameter"),
    "M_mu_eps": ("M_f/√(μ_fε)", r"\frac{M_f}{\sqrt{\mu_f\varepsilon}}", "nonsmooth strongly convex accuracy parameter"),
})

ORACLE_LABELS = MappingProxyType({
    "grad": "Grad.", "A": "Mat. A", "C": "Mat. C", "Ct": "Mat. C̃", "comm": "Comm.",
})

CLASS_LABELS = MappingProxyType({
    "consensus": "Consensus constr.",
    "coupled": "Coupled constr.",
    "shared": "Shared var. constr.",
    "coupled_local": "Local var. constr. (C&L)",
    "mixed": "Mixed constr.",
    "shared_ident": "Shared var., identical C̃ (Th. LI)",
    "mixed_ident": "Mixed, identical C̃",
})

TABLES = MappingProxyType({
    1: ("table:smooth_str_convex_optimization_affine_constraints", "smooth_strongly_convex",
        "Smooth strongly convex (log(1/ε) omitted)"),
    2: ("table:smooth_conv_optimization_constraints", "smooth_convex", "Smooth convex (log(1/ε) omitted)"),
    3: ("table:nonsmooth_conv_optimization_constraints", "nonsmooth_convex", "Nonsmooth convex"),
    4: ("table:nonsmooth_strconv_optimization_constraints", "nonsmooth_strongly_convex", "Nonsmooth strongly convex"),
})

Monomial = tuple[tuple[str, float], ...]


def _mono(**exps: float) -> Monomial:
    for k in exps:
        if k not in PARAMS:
            raise ValueError(f"unknown parameter {k!r}")
    return tuple(sorted((k, float(v)) for k, v in exps.items() if v != 0))


@dataclass(frozen=True)
class Cell:
    """One complexity claim.

    ``terms``: the complexity as printed (sum of monomials); ``log_eps``: whether the
    claim carries a ``log(1/ε)`` factor (T1, T2: yes, omitted in the table);
    ``tight``: whether the paper claims a matching lower bound; ``source``: label
    of the theorem giving the upper bound; ``lower_source``: where the lower bound
    is stated; ``derived_terms``/``discrepancy``: set when the cited theorem or
    appendix gives a different formula than the table prints.
    """

    id: str
    table: int | None
    setting: str
    problem_class: str
    oracle: str
    terms: tuple[Monomial, ...]
    log_eps: bool
    tight: bool
    source: str
    lower_source: str | None = None
    table_label: str | None = None
    derived_terms: tuple[Monomial, ...] | None = None
    discrepancy: str | None = None
    note: str | None = None

    def exponent(self, param: str, *, derived: bool = False) -> float:
        """Largest exponent of ``param`` over the monomials (0 if absent)."""
        if param not in PARAMS:
            raise ValueError(f"unknown parameter {param!r}; known: {sorted(PARAMS)}")
        terms = self.derived_terms if (derived and self.derived_terms is not None) else self.terms
        return max((dict(t).get(param, 0.0) for t in terms), default=0.0)

    def parameters(self, *, derived: bool = False) -> tuple[str, ...]:
        terms = self.derived_terms if (derived and self.derived_terms is not None) else self.terms
        return tuple(sorted({k for t in terms for k, _ in t}))

    @property
    def kind(self) -> str:
        return "tight" if self.tight else "upper"


def _build() -> tuple[Cell, ...]:
    cells: list[Cell] = []

    def add(table, cls, oracle, terms, source, *, tight, lower=None, derived=None, discrepancy=None, note=None):
        label, setting, _ = TABLES[table]
        in_table = cls not in ("shared_ident", "mixed_ident")  # the identical-C̃ variants are theorem statements
        cells.append(Cell(
            id=f"T{table}.{cls}.{oracle}", table=table if in_table else None, setting=setting, problem_class=cls,
            oracle=oracle, terms=tuple(terms), log_eps=table in (1, 2), tight=tight, source=source,
            lower_source=lower, table_label=label if in_table else None,
            derived_terms=None if derived is None else tuple(derived), discrepancy=discrepancy, note=note,
        ))

    _table_1(add)
    _tables_2_to_4(add)
    ids = [c.id for c in cells]
    assert len(ids) == len(set(ids)), "duplicate claim ids"
    return tuple(cells)


def _table_1(add) -> None:
    """Table 1 (``tab:smooth_strongly_convex``) and the identical-C̃ statements of its theorems, cell by cell."""
    M = _mono
    lb_cons = "scaman2017optimal (Theorem 2: path graph, Nesterov function split over V1/V3)"
    add(1, "consensus", "grad", [M(kappa_f=.5)], "scaman2017optimal; sec. Consensus Optimization cites kovalev2020optimal",
        tight=True, lower=lb_cons)
    add(1, "consensus", "comm", [M(kappa_f=.5, kappa_W=.5)], "scaman2017optimal; kovalev2020optimal", tight=True, lower=lb_cons)
    lb_coup = "thm:coupled_iclr (yarmoshik2024decentralized, Theorem 2)"
    add(1, "coupled", "grad", [M(kappa_f=.5)], "thm:coupled_iclr", tight=True, lower=lb_coup + "; sum-trick for gradients")
    add(1, "coupled", "A", [M(kappa_f=.5, kappa_A=.5)], "thm:coupled_iclr", tight=True, lower=lb_coup)
    add(1, "coupled", "comm", [M(kappa_f=.5, kappa_A=.5, kappa_W=.5)], "thm:coupled_iclr", tight=True, lower=lb_coup)
    lb_sh = "thm:LN_upper_bound (app:nonind_local_lower)"
    add(1, "shared", "grad", [M(kappa_f=.5)], "thm:LN_upper_bound", tight=True, lower=lb_sh + "; sum-trick for gradients")
    add(1, "shared", "Ct", [M(kappa_f=.5, kappa_Ct=.5)], "thm:LN_upper_bound", tight=True, lower=lb_sh)
    add(1, "shared", "comm", [M(kappa_f=.5, kappa_Ct=.5, kappa_W=.5)], "thm:LN_upper_bound", tight=True, lower=lb_sh)
    lb_cl = "thm:mixed_upper_bound (app:mixed_coupled_with_local_lower)"
    add(1, "coupled_local", "grad", [M(kappa_f=.5)], "thm:mixed_upper_bound", tight=True, lower=lb_cl + "; sum-trick for gradients")
    add(1, "coupled_local", "A", [M(kappa_f=.5, kappa_AC=.5)], "thm:mixed_upper_bound", tight=True, lower=lb_cl)
    add(1, "coupled_local", "C", [M(kappa_f=.5, kappa_AC=.5, kappa_C=.5)], "thm:mixed_upper_bound", tight=True, lower=lb_cl)
    add(1, "coupled_local", "comm", [M(kappa_f=.5, kappa_AC=.5, kappa_W=.5)], "thm:mixed_upper_bound", tight=True, lower=lb_cl)
    lb_mix = ("as cited: thm:LN_upper_bound + thm:coupled_iclr; the κ̃_AC and κ_C factors need the lower bound of "
              "app:mixed_coupled_with_local_lower, which the citation omits")
    mix_src = "thm:upper_bound_coupled_plus_non_ident_local_constraints_prob"
    add(1, "mixed", "grad", [M(kappa_f=.5)], mix_src, tight=True, lower=lb_mix)
    add(1, "mixed", "A", [M(kappa_f=.5, kappa_AC=.5)], mix_src, tight=True, lower=lb_mix)
    add(1, "mixed", "C", [M(kappa_f=.5, kappa_AC=.5, kappa_C=.5)], mix_src, tight=True, lower=lb_mix)
    add(1, "mixed", "Ct", [M(kappa_f=.5, kappa_Ct=.5)], mix_src, tight=True, lower=lb_mix)
    add(1, "mixed", "comm", [M(kappa_f=.5, kappa_AC=.5, kappa_W=.5), M(kappa_f=.5, kappa_Ct=.5, kappa_W=.5)], mix_src,
        tight=True, lower=lb_mix)
    # identical C̃ variants (theorem statements, not table cells)
    add(1, "mixed_ident", "Ct", [M(kappa_f=.5, kappa_Ct_id=.5)], mix_src + " (identical C̃_i)", tight=True,
        lower="as cited: thm:LI_upper_bound + thm:coupled_iclr")
    add(1, "mixed_ident", "comm", [M(kappa_f=.5, kappa_AC=.5, kappa_W=.5)], mix_src + " (identical C̃_i)", tight=True,
        lower="as cited: thm:LI_upper_bound + thm:coupled_iclr")
    li = "thm:LI_upper_bound (rogozin2022decentralized_affine)"
    add(1, "shared_ident", "grad", [M(kappa_f=.5)], li, tight=True, lower=li + " ('optimal due to corresponding lower bounds')")
    add(1, "shared_ident", "Ct", [M(kappa_f=.5, kappa_Ct_id=.5)], li, tight=True, lower=li)
    add(1, "shared_ident", "comm", [M(kappa_f=.5, kappa_W=.5)], li, tight=True, lower=li)


def _tables_2_to_4(add) -> None:
    """Tables 2-4 (smooth convex, nonsmooth convex, nonsmooth strongly convex), cell by cell."""
    M = _mono
    # each row's accuracy parameter p and its exponent in the gradient cell / matrix cells
    for t, (p, g_exp, src) in {
        2: ("LR2_eps", 0.5, "thm:upper_bounds_mixed_smooth_nonstrongly_convex"),
        3: ("MR_eps", 2.0, "thm:nonsmooth_convex_upper_bounds"),
        4: ("M_mu_eps", 2.0, "thm:nonsmooth_strongly_convex_upper_bounds"),
    }.items():
        mexp = 0.5 if t == 2 else 1.0
        note = None if t != 2 else "the paper calls these bounds suboptimal because of the log(1/ε) factor"
        a = {p: mexp}
        add(t, "coupled", "grad", [M(**{p: g_exp})], src, tight=False, note=note)
        add(t, "coupled", "A", [M(kappa_A=.5, **a)], src, tight=False, note=note)
        add(t, "coupled", "comm", [M(kappa_W=.5, kappa_A=.5, **a)], src, tight=False, note=note)
        add(t, "shared", "grad", [M(**{p: g_exp})], src, tight=False, note=note)
        add(t, "shared", "Ct", [M(kappa_Ct=.5, **a)], src, tight=False, note=note)
        add(t, "shared", "comm", [M(kappa_Ct=.5, kappa_W=.5, **a)], src, tight=False, note=note)
        add(t, "coupled_local", "grad", [M(**{p: g_exp})], src, tight=False, note=note)
        add(t, "coupled_local", "A", [M(kappa_AC=.5, **a)], src, tight=False, note=note)
        add(t, "coupled_local", "C", [M(kappa_AC=.5, kappa_C=.5, **a)], src, tight=False, note=note)
        add(t, "coupled_local", "comm", [M(kappa_AC=.5, kappa_W=.5, **a)], src, tight=False, note=note)
        add(t, "mixed", "grad", [M(**{p: g_exp})], src, tight=False, note=note)
        if t == 4:
            add(t, "mixed", "A", [M(kappa_A=.5, **a)], src, tight=False,
                derived=[M(kappa_AC=.5, **a)],
                discrepancy=("Table 4 prints √κ̂_A for the mixed Mat. A cell; its proof "
                             "(app:proof_nonsmooth_strongly_convex_upper_bounds) counts O(√κ̃_AC) multiplications by A "
                             "per application of the preconditioned K, as do Table 4's C&L row and the mixed rows of "
                             "Tables 1-3. The two agree only when C = 0 (Remark rem:projected_condition_number)."))
        else:
            add(t, "mixed", "A", [M(kappa_AC=.5, **a)], src, tight=False, note=note)
        add(t, "mixed", "C", [M(kappa_AC=.5, kappa_C=.5, **a)], src, tight=False, note=note)
        add(t, "mixed", "Ct", [M(kappa_Ct=.5, **a)], src, tight=False, note=note)
        add(t, "mixed", "comm", [M(kappa_AC=.5, kappa_W=.5, **a), M(kappa_Ct=.5, kappa_W=.5, **a)], src, tight=False, note=note)
        if t == 2:
            add(t, "mixed_ident", "Ct", [M(kappa_Ct_id=.5, **a)], "app:smooth_convex_results (identical C̃_i)", tight=False, note=note)
            add(t, "mixed_ident", "comm", [M(kappa_AC=.5, kappa_W=.5, **a)], "app:smooth_convex_results (identical C̃_i)",
                tight=False, note=note)


REGISTRY: tuple[Cell, ...] = _build()

#: statements outside the tables whose rate disagrees with its own source (recorded, not measured).
TEXT_DISCREPANCIES: tuple[dict, ...] = (
    {
        "where": "sec. Consensus Optimization (Section 3.2), nonsmooth convex consensus",
        "printed": "O(M_f² R² / ε) subgradient evaluations",
        "source_says": "scaman2018optimal: O(M_f² R² / ε²) (also the gradient cells of Table 3)",
    },
    {
        "where": "app:smooth_objectives_apapc, after lem:regularized_convergence",
        "printed": "1/δ = O((M + ε/2)(L + ε/R²)/ε²)",
        "source_says": "eq:regularized_convergence_def_delta has D (= G(u*) − min G), not M",
    },
)


def cells(pattern: str = "*") -> tuple[Cell, ...]:
    """Registry cells whose id matches the glob ``pattern`` (e.g. ``'T1.coupled.*'``)."""
    return tuple(c for c in REGISTRY if fnmatchcase(c.id, pattern))


def get(cell_id: str) -> Cell:
    for c in REGISTRY:
        if c.id == cell_id:
            return c
    raise KeyError(f"no claim {cell_id!r} in the registry")


def discrepancies() -> tuple[Cell, ...]:
    return tuple(c for c in REGISTRY if c.discrepancy)
