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
from typing import Any, Callable, Iterable, Mapping

from mixbounds.bounds.concepts import Oracle, ProblemClass
from mixbounds.bounds.result_id import cell_id

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

#: oracle → its column title in the paper's tables (declared with the oracle, :class:`~mixbounds.bounds.concepts.Oracle`)
ORACLE_LABELS: Mapping[str, str] = MappingProxyType({o: o.label for o in Oracle})

#: class → its row title (declared with the class, :class:`~mixbounds.bounds.concepts.ProblemClass`)
CLASS_LABELS: Mapping[str, str] = MappingProxyType({c: c.label for c in ProblemClass})

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
        """Largest exponent of ``param`` over the monomials (0 if absent).

        Parameters
        ----------
        param : str
            A parameter name (``kappa_W``, ``LR2_eps``, …).
        derived : bool
            Read the proof's derived terms instead of the printed ones (when the cell has them).

        Returns
        -------
        float
            The exponent.
        """
        if param not in PARAMS:
            raise ValueError(f"unknown parameter {param!r}; known: {sorted(PARAMS)}")
        terms = self.derived_terms if (derived and self.derived_terms is not None) else self.terms
        return max((dict(t).get(param, 0.0) for t in terms), default=0.0)

    def parameters(self, *, derived: bool = False) -> tuple[str, ...]:
        """The parameters the cell's formula contains.

        Parameters
        ----------
        derived : bool
            Read the proof's derived terms instead of the printed ones (when the cell has them).

        Returns
        -------
        tuple of str
            Their names, sorted.
        """
        terms = self.derived_terms if (derived and self.derived_terms is not None) else self.terms
        return tuple(sorted({k for t in terms for k, _ in t}))

    @property
    def kind(self) -> str:
        """``tight`` (a matching lower bound is claimed) or ``upper``."""
        return "tight" if self.tight else "upper"


#: the signature of ``_build``'s ``add`` (one cell of the registry), as the table builders receive it
AddCell = Callable[..., None]


def _build() -> tuple[Cell, ...]:
    cells: list[Cell] = []

    def add(table: int, cls: str, oracle: str, terms: Iterable[Monomial], source: str, *, tight: bool, lower: str | None = None,
            derived: Iterable[Monomial] | None = None, discrepancy: str | None = None, note: str | None = None) -> None:
        label, setting, _ = TABLES[table]
        in_table = ProblemClass.named(cls).in_table  # the identical-C̃ variants are theorem statements
        cells.append(Cell(
            id=cell_id(table, cls, oracle), table=table if in_table else None, setting=setting, problem_class=cls,
            oracle=oracle, terms=tuple(terms), log_eps=table in (1, 2), tight=tight, source=source,
            lower_source=lower, table_label=label if in_table else None,
            derived_terms=None if derived is None else tuple(derived), discrepancy=discrepancy, note=note,
        ))

    _table_1(add)
    _tables_2_to_4(add)
    ids = [c.id for c in cells]
    assert len(ids) == len(set(ids)), "duplicate claim ids"
    return tuple(cells)


def _table_1(add: AddCell) -> None:
    """Table 1 (``tab:smooth_strongly_convex``) and the identical-C̃ statements of its theorems, cell by cell."""
    M = _mono
    lb_cons = "scaman2017optimal (Theorem 2: path graph, Nesterov function split over V1/V3)"
    add(1, ProblemClass.CONSENSUS, Oracle.GRAD, [M(kappa_f=.5)], "scaman2017optimal; sec. Consensus Optimization cites kovalev2020optimal",
        tight=True, lower=lb_cons)
    add(1, ProblemClass.CONSENSUS, Oracle.COMM, [M(kappa_f=.5, kappa_W=.5)], "scaman2017optimal; kovalev2020optimal", tight=True, lower=lb_cons)
    lb_coup = "thm:coupled_iclr (yarmoshik2024decentralized, Theorem 2)"
    add(1, ProblemClass.COUPLED, Oracle.GRAD, [M(kappa_f=.5)], "thm:coupled_iclr", tight=True, lower=lb_coup + "; sum-trick for gradients")
    add(1, ProblemClass.COUPLED, Oracle.A, [M(kappa_f=.5, kappa_A=.5)], "thm:coupled_iclr", tight=True, lower=lb_coup)
    add(1, ProblemClass.COUPLED, Oracle.COMM, [M(kappa_f=.5, kappa_A=.5, kappa_W=.5)], "thm:coupled_iclr", tight=True, lower=lb_coup)
    lb_sh = "thm:LN_upper_bound (app:nonind_local_lower)"
    add(1, ProblemClass.SHARED, Oracle.GRAD, [M(kappa_f=.5)], "thm:LN_upper_bound", tight=True, lower=lb_sh + "; sum-trick for gradients")
    add(1, ProblemClass.SHARED, Oracle.CT, [M(kappa_f=.5, kappa_Ct=.5)], "thm:LN_upper_bound", tight=True, lower=lb_sh)
    add(1, ProblemClass.SHARED, Oracle.COMM, [M(kappa_f=.5, kappa_Ct=.5, kappa_W=.5)], "thm:LN_upper_bound", tight=True, lower=lb_sh)
    lb_cl = "thm:mixed_upper_bound (app:mixed_coupled_with_local_lower)"
    add(1, ProblemClass.COUPLED_LOCAL, Oracle.GRAD, [M(kappa_f=.5)], "thm:mixed_upper_bound", tight=True, lower=lb_cl + "; sum-trick for gradients")
    add(1, ProblemClass.COUPLED_LOCAL, Oracle.A, [M(kappa_f=.5, kappa_AC=.5)], "thm:mixed_upper_bound", tight=True, lower=lb_cl)
    add(1, ProblemClass.COUPLED_LOCAL, Oracle.C, [M(kappa_f=.5, kappa_AC=.5, kappa_C=.5)], "thm:mixed_upper_bound", tight=True, lower=lb_cl)
    add(1, ProblemClass.COUPLED_LOCAL, Oracle.COMM, [M(kappa_f=.5, kappa_AC=.5, kappa_W=.5)], "thm:mixed_upper_bound", tight=True, lower=lb_cl)
    lb_mix = ("as cited: thm:LN_upper_bound + thm:coupled_iclr; the cited combination has C = 0, where κ̃_AC = κ̂_A "
              "(rem:projected_condition_number), so thm:coupled_iclr already carries the κ̃_AC factor")
    lb_mix_C = ("as cited: thm:LN_upper_bound + thm:coupled_iclr, which have no C: the Mat. C cell's κ_C factor needs "
                "the lower bound of app:mixed_coupled_with_local_lower, which the citation omits")
    mix_src = "thm:upper_bound_coupled_plus_non_ident_local_constraints_prob"
    add(1, ProblemClass.MIXED, Oracle.GRAD, [M(kappa_f=.5)], mix_src, tight=True, lower=lb_mix)
    add(1, ProblemClass.MIXED, Oracle.A, [M(kappa_f=.5, kappa_AC=.5)], mix_src, tight=True, lower=lb_mix)
    add(1, ProblemClass.MIXED, Oracle.C, [M(kappa_f=.5, kappa_AC=.5, kappa_C=.5)], mix_src, tight=True, lower=lb_mix_C)
    add(1, ProblemClass.MIXED, Oracle.CT, [M(kappa_f=.5, kappa_Ct=.5)], mix_src, tight=True, lower=lb_mix)
    add(1, ProblemClass.MIXED, Oracle.COMM, [M(kappa_f=.5, kappa_AC=.5, kappa_W=.5), M(kappa_f=.5, kappa_Ct=.5, kappa_W=.5)], mix_src,
        tight=True, lower=lb_mix)
    # identical C̃ variants (theorem statements, not table cells)
    add(1, ProblemClass.MIXED_IDENT, Oracle.CT, [M(kappa_f=.5, kappa_Ct_id=.5)], mix_src + " (identical C̃_i)", tight=True,
        lower="as cited: thm:LI_upper_bound + thm:coupled_iclr")
    add(1, ProblemClass.MIXED_IDENT, Oracle.COMM, [M(kappa_f=.5, kappa_AC=.5, kappa_W=.5)], mix_src + " (identical C̃_i)", tight=True,
        lower="as cited: thm:LI_upper_bound + thm:coupled_iclr")
    li = "thm:LI_upper_bound (rogozin2022decentralized_affine)"
    add(1, ProblemClass.SHARED_IDENT, Oracle.GRAD, [M(kappa_f=.5)], li, tight=True, lower=li + " ('optimal due to corresponding lower bounds')")
    add(1, ProblemClass.SHARED_IDENT, Oracle.CT, [M(kappa_f=.5, kappa_Ct_id=.5)], li, tight=True, lower=li)
    add(1, ProblemClass.SHARED_IDENT, Oracle.COMM, [M(kappa_f=.5, kappa_W=.5)], li, tight=True, lower=li)


def _tables_2_to_4(add: AddCell) -> None:
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
        add(t, ProblemClass.COUPLED, Oracle.GRAD, [M(**{p: g_exp})], src, tight=False, note=note)
        add(t, ProblemClass.COUPLED, Oracle.A, [M(kappa_A=.5, **a)], src, tight=False, note=note)
        add(t, ProblemClass.COUPLED, Oracle.COMM, [M(kappa_W=.5, kappa_A=.5, **a)], src, tight=False, note=note)
        add(t, ProblemClass.SHARED, Oracle.GRAD, [M(**{p: g_exp})], src, tight=False, note=note)
        add(t, ProblemClass.SHARED, Oracle.CT, [M(kappa_Ct=.5, **a)], src, tight=False, note=note)
        add(t, ProblemClass.SHARED, Oracle.COMM, [M(kappa_Ct=.5, kappa_W=.5, **a)], src, tight=False, note=note)
        add(t, ProblemClass.COUPLED_LOCAL, Oracle.GRAD, [M(**{p: g_exp})], src, tight=False, note=note)
        add(t, ProblemClass.COUPLED_LOCAL, Oracle.A, [M(kappa_AC=.5, **a)], src, tight=False, note=note)
        add(t, ProblemClass.COUPLED_LOCAL, Oracle.C, [M(kappa_AC=.5, kappa_C=.5, **a)], src, tight=False, note=note)
        add(t, ProblemClass.COUPLED_LOCAL, Oracle.COMM, [M(kappa_AC=.5, kappa_W=.5, **a)], src, tight=False, note=note)
        add(t, ProblemClass.MIXED, Oracle.GRAD, [M(**{p: g_exp})], src, tight=False, note=note)
        if t == 4:
            add(t, ProblemClass.MIXED, Oracle.A, [M(kappa_A=.5, **a)], src, tight=False,
                derived=[M(kappa_AC=.5, **a)],
                discrepancy=("Table 4 prints √κ̂_A for the mixed Mat. A cell; its proof "
                             "(app:proof_nonsmooth_strongly_convex_upper_bounds) counts O(√κ̃_AC) multiplications by A "
                             "per application of the preconditioned K, as do Table 4's C&L row and the mixed rows of "
                             "Tables 1-3. The two agree only when C = 0 (Remark rem:projected_condition_number)."))
        else:
            add(t, ProblemClass.MIXED, Oracle.A, [M(kappa_AC=.5, **a)], src, tight=False, note=note)
        add(t, ProblemClass.MIXED, Oracle.C, [M(kappa_AC=.5, kappa_C=.5, **a)], src, tight=False, note=note)
        add(t, ProblemClass.MIXED, Oracle.CT, [M(kappa_Ct=.5, **a)], src, tight=False, note=note)
        add(t, ProblemClass.MIXED, Oracle.COMM, [M(kappa_AC=.5, kappa_W=.5, **a), M(kappa_Ct=.5, kappa_W=.5, **a)], src, tight=False, note=note)
        if t == 2:
            add(t, ProblemClass.MIXED_IDENT, Oracle.CT, [M(kappa_Ct_id=.5, **a)], "app:smooth_convex_results (identical C̃_i)", tight=False, note=note)
            add(t, ProblemClass.MIXED_IDENT, Oracle.COMM, [M(kappa_AC=.5, kappa_W=.5, **a)], "app:smooth_convex_results (identical C̃_i)",
                tight=False, note=note)


REGISTRY: tuple[Cell, ...] = _build()

#: statements outside the tables whose rate disagrees with its own source, and slips of the text (indices, symbols,
#: arguments, citations) found by reading the proofs: recorded, not measured.  ``line`` is the line of
#: ``paper/mixed-affine-constraints.tex`` and ``tex`` a fragment of that line as printed (a test finds it there);
#: ``source_says`` is the corrected reading and what says so.  Not here: line 1212's μ_J = ½μ̃ (the paper's convention,
#: line 590, makes every μ_X "some lower bound", so it is a legitimate choice, not a slip).
TEXT_DISCREPANCIES: tuple[dict[str, Any], ...] = (
    {
        "where": "sec. Consensus Optimization (Section 3.2), nonsmooth convex consensus",
        "line": 381,
        "tex": "upper bounded by $O(M_f^2R^2/\\varepsilon)$",
        "printed": "O(M_f² R² / ε) subgradient evaluations",
        "source_says": "scaman2018optimal: O(M_f² R² / ε²) (also the gradient cells of Table 3)",
    },
    {
        "where": "app:smooth_objectives_apapc, after lem:regularized_convergence",
        "line": 715,
        "tex": "\\left(M + \\frac{\\varepsilon}{2}\\right)",
        "printed": "1/δ = O((M + ε/2)(L + ε/R²)/ε²)",
        "source_says": "eq:regularized_convergence_def_delta has D (= G(u*) − min G), not M",
    },
    {
        "where": "subsec:chebyshev_acc, the polynomial P_B",
        "line": 348,
        "tex": "P_B(\\sigma_i^2(B)) = $ if and only if",
        "printed": "P_B(σ_i²(B)) =  if and only if σ_i(B) = 0",
        "source_says": "P_B(σ_i²(B)) = 0 if and only if σ_i(B) = 0 (the right-hand side 0 is missing)",
    },
    {
        "where": "alg:sliding, parameter list",
        "line": 321,
        "tex": "\\{\\eta_k\\}_{t=1}^\\infty",
        "printed": "{γ_k}_{k=1}^∞, {η_k}_{t=1}^∞, {θ_t}_{t=1}^∞",
        "source_says": "{γ_k}, {β_k}_{k=1}^∞, {η_t}_{t=1}^∞, {θ_t}_{t=1}^∞: line 8 uses β_k (not listed) and η_t",
    },
    {
        "where": "sub:shared_variable_constraints, prob:local_non_ident_constraints_on_shared_var_prob",
        "line": 435,
        "tex": "\\widetilde{\\mathbf{C}}\\mathbf{x} = \\tilde \\bc",
        "printed": "W x̃ = 0, C̃ x = c̃ with W = W ⊗ I_d (line 437)",
        "source_says": "C̃ x̃ = c̃ and W = W ⊗ I_d̃: the variable is the stacked copy x̃ ∈ (R^d̃)^n",
    },
    {
        "where": "thm:LN_upper_bound, the preconditioner of B̃",
        "line": 442,
        "tex": "\\widetilde{\\bB}\\to P_C(\\widetilde{\\bB}^\\top\\widetilde{\\bB})",
        "printed": "B̃ → P_C(B̃ᵀB̃)",
        "source_says": "B̃ → P_B̃(B̃ᵀB̃), the polynomial of B̃ (app:nonind_upper, line 853, writes P_B̃(B̃ᵀB̃))",
    },
    {
        "where": "sub:mixed_coupled_and_local, prob:coupled_with_local",
        "line": 451,
        "tex": "C_i x_i = d_i",
        "printed": "C_i x_i = d_i",
        "source_says": "C_i x_i = c_i: d_i is the dimension of x_i; (P) and the right-hand side βc of sec:mixed_upper use c_i",
    },
    {
        "where": "after thm:upper_bound_coupled_plus_non_ident_local_constraints_prob, optimality of the mixed rows",
        "line": 523,
        "tex": "\\Cref{thm:LN_upper_bound,thm:coupled_iclr} in the general case",
        "printed": "optimal due to the lower bounds of thm:LI_upper_bound, thm:coupled_iclr (identical C̃_i) and "
                   "thm:LN_upper_bound, thm:coupled_iclr (general case)",
        "source_says": "for κ̃_AC the cited coupled bound already carries the factor: the cited combination has C = 0, "
                       "where κ̃_AC = κ̂_A (rem:projected_condition_number), and the suite certifies T1.mixed.A and "
                       "T1.mixed.comm in κ̃_AC on the cited construction itself; only the κ_C factor of the Mat. C cell "
                       "is uncovered (no cited bound has C): it needs app:mixed_coupled_with_local_lower, whose printed "
                       "argument does not carry it (problems cl-printed, cl-variant-C; the suite certifies it on its "
                       "variant split-rows)",
    },
    {
        "where": "lem:strong_conv_G_penal (statement), its assumption",
        "line": 553,
        "tex": "Assumption~\\ref{assum:strongly_convex} holds with $\\mu_f > 0 $",
        "printed": "Suppose that Assumption assum:strongly_convex holds with μ_f > 0",
        "source_says": "Assumption ass:nonsmooth_and_str_convex_of_f_i with μ_f > 0 (μ_f is the modulus of the f_i; "
                       "assum:strongly_convex is about G with μ), as the appendix restatement (line 1735) cites",
    },
    {
        "where": "app:proof_strong_conv_G_penal (restatement of lem:strong_conv_G_penal)",
        "line": 1735,
        "tex": "holds with $\\mu_f \\geq 0 $",
        "printed": "holds with μ_f >= 0",
        "source_says": "μ_f > 0 as in the statement (line 553): with μ_f = 0, eq:delta_def gives δ = 1, outside the (0, 1) "
                       "it claims, and the conclusion (μ_f/2-strong convexity) is void",
    },
    {
        "where": "lem:regularized_convergence, proof, step (g)",
        "line": 698,
        "tex": "the assumption that $\\|u - u^*_\\nu\\| \\leq \\delta$",
        "printed": "= … the assumption that ‖u − u*_ν‖ <= δ",
        "source_says": "<= … the assumption ‖u − u*_ν‖² <= δ (the lemma's hypothesis; the step substitutes δ for the "
                       "squared distance, and ‖u⁰ − u*‖² <= R² makes it an inequality)",
    },
    {
        "where": "app:gradient_sliding_discuss, eq:saddle_point_problem",
        "line": 740,
        "tex": "\\max_{v \\in\\R^p}",
        "printed": "max over v ∈ R^p",
        "source_says": "v ∈ R^s: B ∈ R^{s×d} (prob:affine_constraints, line 241); p is the row count of the local C_i",
    },
    {
        "where": "app:affine_constraint_nonsmooth, proof of thm:upper_bound_nonsmooth_affine_constraints",
        "line": 766,
        "tex": "\\sqn{B u}$",
        "printed": "K_s(u) = (R²_dual/ε)‖Bu‖²",
        "source_says": "K_s(u) = (R²_dual/ε)‖Bu − b‖², the penalty of eq:affine_constraints_penal_prob with r = 2R²_dual/ε "
                       "(lem:penalization); L is unchanged",
    },
    {
        "where": "thm:LI_upper_bound, optimality sentence",
        "line": 798,
        "tex": "This upper bounds are optimal due to corresponding lower bounds",
        "printed": "This upper bounds are optimal due to corresponding lower bounds",
        "source_says": "a citation gap, not an unsupported claim: literally no lower bound is cited or proved here "
                       "(the theorem's source rogozin2022decentralized_affine gives upper bounds, sub:ident_local, "
                       "line 385), but each bound's optimality follows from a known one — Nesterov's for ∇f calls "
                       "(Introductory Lectures, 2004; not in the bibliography), Scaman et al. 2017 "
                       "(scaman2017optimal) for communications and Salim et al. 2022 (salim2022optimal) for "
                       "multiplications by C̃: cite them",
    },
    {
        "where": "sub:coupled (app:coupled_cons), before lem:coupled_spectrum",
        "line": 813,
        "tex": "The following definition is needed",
        "printed": "The following definition is needed …",
        "source_says": "The following lemma is needed … (lem:coupled_spectrum follows, no definition)",
    },
    {
        "where": "app:nonind_upper, the matrix B̃",
        "line": 841,
        "tex": "\\pmat{\\widetilde{\\bC} & \\gamma \\bW'}",
        "printed": "B̃ᵀ = (C̃  γW')",
        "source_says": "B̃ᵀ = (C̃ᵀ  γW'), as sub:shared_variable_constraints (line 439) defines it and the bound that "
                       "follows (σ_max²(C̃ᵀ), S_{Cᵀ}) uses",
    },
    {
        "where": "app:nonind_upper, the bound on κ_B̃",
        "line": 846,
        "tex": "O(\\kappa^2_{\\bW'}\\hkappa_{\\widetilde{\\bC}}) =  O(\\hkappa_{\\widetilde{\\bC}})",
        "printed": "= O(κ²_W' κ̂_C̃) = O(κ̂_C̃)",
        "source_says": "O(κ̂_{C̃ᵀ}): the denominator is λ_min+(S_{C̃ᵀ}) (Table 1 prints κ̂_{C̃ᵀ}; the remark after "
                       "def:mixed_condition_number warns the transposition order matters)",
    },
    {
        "where": "app:nonind_local_lower, the split of M in the coupled case",
        "line": 864,
        "tex": "\\bM = \\bE_1^\\top \\bE_2 + \\bE_2^\\top \\bE_2",
        "printed": "M = E_1ᵀE_2 + E_2ᵀE_2",
        "source_says": "M = E_1ᵀE_1 + E_2ᵀE_2",
    },
    {
        "where": "sub:bounding_accuracy, which group unlocks even components",
        "line": 1096,
        "tex": "nodes from $\\cV_2$ can only",
        "printed": "by structure of C_2ᵀC_2, nodes from V_2 can only unlock …",
        "source_says": "nodes from V_3: C_i = 0 on V_2 and C_2's rows sit at V_3 (sec:local_cons_example_mats)",
    },
    {
        "where": "sub:bounding_accuracy, the communication path",
        "line": 1097,
        "tex": "from $\\cV_1$ to $\\cV_2$ and back",
        "printed": "transmitted from V_1 to V_2 and back",
        "source_says": "from V_1 to V_3 and back (V_2 holds zero matrices; the distance n/3 + 1 each way gives the 2n/3)",
    },
    {
        "where": "app:mixed_coupled_with_local_spectrum, first display",
        "line": 1130,
        "tex": "\\gamma^2\\smax^2\\cbr{\\bW}",
        "printed": "σ_max²(B) <= σ_max²(A) + γ²σ_max²(W) + β²σ_max²(C)",
        "source_says": "α²σ_max²(W): B = (A αW; βC 0) (line 453, eq:block_scaling); γ scales the shared block B̃",
    },
    {
        "where": "app:mixed_coupled_with_local_spectrum, proof of the lower bound",
        "line": 1159,
        "tex": "image",
        "printed": "a line reading only 'image'",
        "source_says": "delete (a stray word before 'We have ker^⊥ Bᵀ = …')",
    },
    {
        "where": "app:mixed_coupled_with_local_spectrum, eq:mu_B_main",
        "line": 1183,
        "tex": "\\frac12\\sqn{\\bA^\\top v + \\bC^\\top w} + \\mu_W \\sqn{u}",
        "printed": "‖Bᵀz‖² = ‖(Aᵀ(u+v) + Cᵀw; Wu)‖² >= −L_A‖u‖² + ½‖Aᵀv + Cᵀw‖² + μ_W‖u‖²",
        "source_says": "‖(Aᵀ(u+v) + βCᵀw; αWu)‖² >= −L_A‖u‖² + ½‖Aᵀv + βCᵀw‖² + α²μ_W‖u‖²: the proof's μ_W and μ_C are "
                       "those of αW and βC (its closing conditions μ_W >= L_A + …, line 1222, and μ_C >= L_S + …, line "
                       "1211, are eq:block_scaling's α², β²)",
    },
    {
        "where": "app:mixed_coupled_with_local_spectrum, L_S",
        "line": 1201,
        "tex": "\\smax\\cbr{\\frac1n \\one_n\\sumin \\bA_i \\bA_i^\\top} = \\smax(\\bS)",
        "printed": "(1/n)σ_max²(A') = σ_max((1/n) 1_n Σ A_iA_iᵀ) = σ_max(S)",
        "source_says": "(1/n)σ_max²(A') = λ_max((1/n) Σ_i A_iA_iᵀ) = λ_max(S_A) (no 1_n; S_A of eq:interaction_matrix)",
    },
    {
        "where": "sec:mixed_upper, the reformulated problem after lem:conv_smooth_c_and_l",
        "line": 1309,
        "tex": "\\label{prob:coupled_with_local}",
        "printed": "min Σ f_i(x_i) s.t. B(x; y) = (b; βc), under \\label{prob:coupled_with_local}",
        "source_says": "min G(x, y) (the sentence before says Σ f_i is replaced with G); the display reuses the label of "
                       "line 450",
    },
    {
        "where": "app:mixed_coupled_with_local_lower, L'_A",
        "line": 1416,
        "tex": "\\frac{9}{2} \\mu_A",
        "printed": "L'_A = ½L_A − (9/2)μ_A, μ'_A = 9μ̃",
        "source_says": "L'_A = ½L_A − (9/2)μ̃_AC, so that σ_max²(Ā_k) <= 2L'_A + μ'_A = L_A as the sentence claims",
    },
    {
        "where": "app:mixed_coupled_with_local_lower, A'P_C",
        "line": 1424,
        "tex": "1^\\top_{|\\cV_2|} \\otimes \\frac{1}{l} 1_{|\\cU_2|}1^\\top_{l} \\otimes \\bar A_2",
        "printed": "second block row 1ᵀ_{#V_2} ⊗ (1/l)1_{#U_2}1_lᵀ ⊗ Ā_2 (#: cardinality)",
        "source_says": "1ᵀ_{#V_3} ⊗ (1/l)1_{#U_3}1_lᵀ ⊗ Ā_2: A_i = diag(δ_{U_3}) ⊗ Ā_2 on V_3 and 0 on V_2 (eq:Ai_rear)",
    },
    {
        "where": "app:mixed_coupled_with_local_lower, number of nonzero components",
        "line": 1439,
        "tex": "\\sqrt{\\kappa_A \\kappa_f}",
        "printed": "ν >= Ω(√(κ_A κ_f) log(1/ε))",
        "source_says": "√(κ̃_AC κ_f): the construction sets L_A = κ̃_AC and μ̃_AC = 1 (line 1434); κ_A is not one of its "
                       "parameters",
    },
    {
        "where": "app:upper_bound_coupled_plus_non_ident_local_constraints_prob, the blocks of K",
        "line": 1469,
        "tex": "separately preconditioning $\\bB_1$",
        "printed": "preconditioning B_1 as in sec:mixed_upper and B_2 as in app:nonind_upper",
        "source_says": "B (coupled and local) and B̃ (shared): K = diag(B, B̃) is defined on line 1463 with B and B̃; "
                       "B_1 and B_2 appear first here and are named only inside the proof (line 1475), as the "
                       "preconditioned B and B̃",
    },
    {
        "where": "app:upper_bound_coupled_plus_non_ident_local_constraints_prob, identical C̃_i",
        "line": 1504,
        "tex": "\\widetilde \\bC' = P_C(\\bC)",
        "printed": "C̃' = P_C(C) and B_2ᵀ = (I_n ⊗ C'ᵀ  γW' ⊗ I_d)",
        "source_says": "C̃' = P_C̃(C̃ᵀC̃) (a polynomial of C̃ᵀC̃, as subsec:chebyshev_acc defines P_B(BᵀB)) and "
                       "B_2ᵀ = (I_n ⊗ C̃'ᵀ  γW' ⊗ I_d̃)",
    },
    {
        "where": "app:upper_bound_coupled_plus_non_ident_local_constraints_prob, identical C̃_i, B_1 cost",
        "line": 1510,
        "tex": "O(\\sqrt{\\tkappa_{A}})",
        "printed": "O(√κ_B1) = O(√κ̃_A)",
        "source_says": "O(√κ̃_AC) (lem:mixed_coupled_with_local_spectrum; the non-identical bullet, line 1495, has κ̃_AC)",
    },
    {
        "where": "app:upper_bound_coupled_plus_non_ident_local_constraints_prob, identical C̃_i, B_2 cost",
        "line": 1511,
        "tex": "O(\\sqrt{\\widetilde \\kappa_{\\bC}})$ multiplications by $\\bC, \\bC^\\top$",
        "printed": "O(deg P_C̃) = O(√κ̃_C) multiplications by C, Cᵀ",
        "source_says": "O(√κ_C̃) multiplications by C̃, C̃ᵀ: κ̃ is the projected condition number of "
                       "def:projected_condition_number, C the local constraints of x",
    },
    {
        "where": "app:smooth_convex_results, identical C̃_i",
        "line": 1617,
        "tex": "preconditioning requires $O(\\sqrt{\\kappa_C})$ multiplications by $\\bC$",
        "printed": "for the block B̃, preconditioning requires O(√κ_C) multiplications by C, Cᵀ",
        "source_says": "O(√κ_C̃) multiplications by C̃, C̃ᵀ (the display that follows states N_C̃ with κ_C̃)",
    },
    {
        "where": "app:nonsmooth_strongly_convex_results, the problem on bounded sets",
        "line": 1724,
        "tex": "the problem~\\eqref{eq:coupled_constraints_org} on a bounded set",
        "printed": "we consider the problem eq:coupled_constraints_org on a bounded set X × X̃",
        "source_says": "prob:opt_mixed_constraints_intro (eq:coupled_constraints_org has no x̃; the next display penalizes "
                       "eq:mixed_constraints_reformulation)",
    },
    {
        "where": "app:proof_strong_conv_G_penal, first line of the chain",
        "line": 1747,
        "tex": "\\bK(\\tilde{\\bz}^\\prime - \\bz)",
        "printed": "(r²/ε)‖K(z̃' − z)‖²",
        "source_says": "(r²/ε)‖K(z' − z)‖²",
    },
    {
        "where": "app:proof_strong_conv_G_penal, the coupled block's scale",
        "line": 1748,
        "tex": "\\gamma \\bW (\\by^\\prime-\\by)",
        "printed": "A(x' − x) + γW(y' − y)",
        "source_says": "A(x' − x) + αW(y' − y): the lemma fixes α² = (μ_A + L_A)/μ_W "
                       "(eq:strcv_non_smooth_coupled_constraints_constants_condition) and the chain substitutes it; γ "
                       "scales the shared block",
    },
    {
        "where": "app:proof_nonsmooth_strongly_convex_upper_bounds, the penalty constant",
        "line": 1767,
        "tex": "r \\leq \\frac{M}{\\sminp(\\bB)}",
        "printed": "r <= M/σ_min+(B) with the penalty (r²/ε)‖Kz − v‖² (eq:mixed_constraints_nonsmooth_penalized)",
        "source_says": "r >= R_dual = M/σ_min+(K): (r²/ε)‖·‖² is lem:penalization's (r_pen/2)‖·‖² with r_pen = 2r²/ε, "
                       "whose feasibility bound needs r_pen >= 2R²_dual/ε; the constraint matrix is K, not B "
                       "(lemma.penalization.control measures a too small penalty breaking ‖Bû − b‖ <= 2ε/R_dual)",
    },
)


def cells(pattern: str = "*") -> tuple[Cell, ...]:
    """Registry cells whose id matches the glob ``pattern`` (e.g. ``'T1.coupled.*'``).

    Parameters
    ----------
    pattern : str
        A glob over the cell ids.

    Returns
    -------
    tuple of Cell
        The matching cells, in registry order.
    """
    return tuple(c for c in REGISTRY if fnmatchcase(c.id, pattern))


def get(cell_id: str) -> Cell:
    """The registry cell of that id.

    Parameters
    ----------
    cell_id : str
        A cell id (``T1.coupled.grad``).

    Returns
    -------
    Cell
        The cell.

    Raises
    ------
    KeyError
        When no cell has that id.
    """
    for c in REGISTRY:
        if c.id == cell_id:
            return c
    raise KeyError(f"no claim {cell_id!r} in the registry")


def discrepancies() -> tuple[Cell, ...]:
    """The cells whose printed formula and proof differ (``discrepancy`` set).

    Returns
    -------
    tuple of Cell
        Those cells, in registry order.
    """
    return tuple(c for c in REGISTRY if c.discrepancy)
