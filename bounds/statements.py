"""The rate statements outside the four tables that the suite measures by sweeps (issue 36, item 1).

The tables (:mod:`mixbounds.bounds.claims`) are stated for the decentralized problem classes; the text also
states rates for the generic problem ``min G(u) s.t. Bu = b`` (``prob:affine_constraints``) that the tables are
built from, and for nonsmooth consensus (Section 3.2).  Each statement here is one oracle count as printed,
a sum of monomials in :data:`STATEMENT_PARAMS`, like a table cell:

* ``thm:smooth_objectives_apapc_convergence`` part 1 (= ``thm:apapc``, citing salim2022optimal Proposition 1):
  APAPC without Chebyshev needs ``O(κ_B √(L/μ) log(1/ε))`` iterations (one ``∇G`` and one ``BᵀB`` each);
* ``thm:upper_bound_nonsmooth_affine_constraints`` part 1 (μ = 0): ``N_B = O(MR/ε √κ_B)``,
  ``N_G' = O(M²R²/ε² + N_B)``; part 2 (μ > 0, restarted): ``N_B = O(M/√(με) √κ_B)``,
  ``N_G' = O(M²/(με) + N_B)`` (no log printed; its proof in ``app:affine_constraint_nonsmooth`` has one);
* Section 3.2 (``sec:affine_constraints_statements``, tex line 381), nonsmooth convex consensus, cited from
  scaman2018optimal: ``O(M_f²R²/ε)`` subgradients (printed; the source and Table 3 have ``ε²``:
  :data:`mixbounds.bounds.claims.TEXT_DISCREPANCIES`) and ``O(√κ_W M_f R/ε)`` communications.

``derived_terms`` (as in :class:`mixbounds.bounds.claims.Cell`) is the formula the cited source or the proof
gives where the printed one differs; the checks judge against the printed terms and name the difference.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from types import MappingProxyType

from mixbounds.bounds.concepts import Oracle

#: parameter → (unicode symbol, LaTeX symbol, meaning), as :data:`mixbounds.bounds.claims.PARAMS`
STATEMENT_PARAMS = MappingProxyType({
    "kappa_B": ("κ_B", r"\kappa_B", "σ_max²(B)/σ_min+²(B), condition number of the constraint matrix (eq:kappa_A for B)"),
    "kappa_G": ("L/μ", r"L/\mu", "condition number of the objective G"),
    "kappa_W": ("κ_W", r"\kappa_W", "λ_max(W)/λ_min+(W), condition number of the gossip matrix"),
    "MR_eps": ("MR/ε", r"\frac{MR}{\varepsilon}", "nonsmooth convex accuracy parameter"),
    "M_mu_eps": ("M/√(με)", r"\frac{M}{\sqrt{\mu\varepsilon}}", "nonsmooth strongly convex accuracy parameter"),
})

Monomial = tuple[tuple[str, float], ...]


def _mono(**exps: float) -> Monomial:
    for k in exps:
        if k not in STATEMENT_PARAMS:
            raise ValueError(f"unknown statement parameter {k!r}")
    return tuple(sorted((k, float(v)) for k, v in exps.items() if v != 0))


@dataclass(frozen=True)
class Statement:
    """One printed rate: ``id``, the paper ``label`` it is stated under, the ``oracle`` counted
    (``iterations``, ``B`` = multiplications by B or Bᵀ, ``grad`` = (sub)gradients of G, ``comm``), its ``terms`` as
    printed, whether the bound carries ``log(1/ε)`` (``log_eps``), where it comes from (``source``), the formula as
    the paper prints it (``printed``) and, where the source or the proof says otherwise, ``derived_terms`` with the
    ``discrepancy``."""

    id: str
    label: str
    oracle: str
    terms: tuple[Monomial, ...]
    log_eps: bool
    source: str
    printed: str = ""
    derived_terms: tuple[Monomial, ...] | None = None
    discrepancy: str | None = None

    def exponent(self, param: str, *, derived: bool = False) -> float:
        """Largest exponent of ``param`` over the monomials (0 if absent)."""
        if param not in STATEMENT_PARAMS:
            raise ValueError(f"unknown statement parameter {param!r}; known: {sorted(STATEMENT_PARAMS)}")
        terms = self.derived_terms if (derived and self.derived_terms is not None) else self.terms
        return max((dict(t).get(param, 0.0) for t in terms), default=0.0)


def _build() -> tuple[Statement, ...]:
    M = _mono
    apapc = "thm:smooth_objectives_apapc_convergence"
    gs = "thm:upper_bound_nonsmooth_affine_constraints"
    out = (
        Statement("S.apapc.iterations", apapc + " (part 1), thm:apapc", "iterations", (M(kappa_B=1, kappa_G=.5),), True,
                  "salim2022optimal Proposition 1, restated as thm:apapc (part 1 of the theorem)",
                  "N = O(κ_B √(L/μ) log(1/ε)) iterations of APAPC"),
        Statement("S.sliding.convex.B", gs, "B", (M(MR_eps=1, kappa_B=.5),), False, "lan2020communication (part 1)",
                  "N_B = O(MR/ε · √κ_B) multiplications by B, Bᵀ (μ = 0)"),
        Statement("S.sliding.convex.grad", gs, Oracle.GRAD, (M(MR_eps=2), M(MR_eps=1, kappa_B=.5)), False,
                  "lan2020communication (part 1)", "N_G' = O(M²R²/ε² + N_B) subgradients (μ = 0)"),
        Statement("S.sliding.strong.B", gs, "B", (M(M_mu_eps=1, kappa_B=.5),), False,
                  "lan2020communication (part 2, restarted)",
                  "N_B = O(M/√(με) · √κ_B) multiplications by B, Bᵀ (μ > 0, restarted; no log)",
                  discrepancy="the proof (app:affine_constraint_nonsmooth) substitutes L = 2M²κ_B/ε into "
                              "N_s = O(√(L/μ) log(1/ε)): the bound it proves carries log(1/ε), the statement none"),
        Statement("S.sliding.strong.grad", gs, Oracle.GRAD, (M(M_mu_eps=2), M(M_mu_eps=1, kappa_B=.5)), False,
                  "lan2020communication (part 2, restarted)", "N_G' = O(M²/(με) + N_B) subgradients (μ > 0)"),
        Statement("S.consensus.nonsmooth.grad", "sec:affine_constraints_statements", Oracle.GRAD, (M(MR_eps=1),), False,
                  "scaman2018optimal (Section 3.2, tex line 381)",
                  "O(M_f²R²/ε) subgradient evaluations (nonsmooth convex consensus)", derived_terms=(M(MR_eps=2),),
                  discrepancy="printed O(M_f²R²/ε); scaman2018optimal and Table 3's gradient cells have ε² "
                              "(TEXT_DISCREPANCIES)"),
        Statement("S.consensus.nonsmooth.comm", "sec:affine_constraints_statements", Oracle.COMM,
                  (M(kappa_W=.5, MR_eps=1),), False, "scaman2018optimal (Section 3.2, tex line 381)",
                  "O(√κ_W M_f R/ε) communication rounds (nonsmooth convex consensus)"),
    )
    ids = [s.id for s in out]
    assert len(ids) == len(set(ids)), "duplicate statement ids"
    return out


STATEMENTS: tuple[Statement, ...] = _build()


def statements(pattern: str = "*") -> tuple[Statement, ...]:
    """Statements whose id matches the glob ``pattern``."""
    return tuple(s for s in STATEMENTS if fnmatchcase(s.id, pattern))


def statement(sid: str) -> Statement:
    for s in STATEMENTS:
        if s.id == sid:
            return s
    raise KeyError(f"no statement {sid!r}; known: {', '.join(s.id for s in STATEMENTS)}")


__all__ = ["STATEMENTS", "STATEMENT_PARAMS", "Statement", "statement", "statements"]
