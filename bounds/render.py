"""Render registry formulas and tables (terminal text and Markdown).

Formulas are rendered from the exponents only, so comparing a rendered table
with the paper checks the registry's data, not a copied string.
"""

from __future__ import annotations

from fractions import Fraction

from mixbounds.bounds.claims import CLASS_LABELS, ORACLE_LABELS, PARAMS, REGISTRY, TABLES, Cell, Monomial
from mixbounds.bounds.concepts import ORACLES, PROBLEM_CLASSES, ProblemClass

_SUPER = str.maketrans("0123456789-/", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻ᐟ")
_COMPOUND = {"LR2_eps", "MR_eps", "M_mu_eps"}
_ORDER = ["kappa_f", "kappa_A", "kappa_Ct", "kappa_AC", "kappa_C", "kappa_Ct_id", "kappa_W", "LR2_eps", "MR_eps", "M_mu_eps"]


def _factor(name: str, exp: float, style: str) -> str:
    sym = PARAMS[name][0] if style == "unicode" else PARAMS[name][1]
    fr = Fraction(exp).limit_denominator(8)
    if style == "latex":
        if fr == Fraction(1, 2):
            return rf"\sqrt{{{sym}}}"
        if fr == 1:
            return sym
        return rf"\left({sym}\right)^{{{fr}}}"
    if fr == Fraction(1, 2):
        return f"√({sym})" if name in _COMPOUND else f"√{sym}"
    if fr == 1:
        return f"({sym})" if name in _COMPOUND else sym
    sup = str(fr).translate(_SUPER)
    return f"({sym}){sup}" if name in _COMPOUND else f"{sym}{sup}"


def _mono_str(mono: Monomial, style: str) -> str:
    parts = [_factor(k, v, style) for k, v in sorted(mono, key=lambda kv: _ORDER.index(kv[0]))]
    if not parts:
        return "1"
    return ("·" if style == "unicode" else " ").join(parts)


def format_terms(terms: tuple[Monomial, ...], style: str = "unicode") -> str:
    """``√κ_f·√κ_W·(√κ̃_AC + √κ̂_C̃ᵀ)``-style rendering (common factors pulled out)."""
    if style not in ("unicode", "latex"):
        raise ValueError(f"unknown style {style!r}")
    if len(terms) == 1:
        return _mono_str(terms[0], style)
    dicts = [dict(t) for t in terms]
    common = {k: v for k, v in dicts[0].items() if all(d.get(k) == v for d in dicts[1:])}
    rests = [tuple(sorted((k, v) for k, v in d.items() if k not in common)) for d in dicts]
    inner = " + ".join(_mono_str(r, style) for r in rests)
    if not common:
        return inner
    lp, rp = ("(", ")") if style == "unicode" else (r"\left(", r"\right)")
    return f"{_mono_str(tuple(sorted(common.items())), style)}{'·' if style == 'unicode' else ' '}{lp}{inner}{rp}"


def table_rows(table: int) -> list[Cell]:
    """Cells of one table in the paper's row order (then its theorem-only variants)."""
    order: list[str] = [*(c for c in PROBLEM_CLASSES if c.in_table), ProblemClass.MIXED_IDENT, ProblemClass.SHARED_IDENT]
    oracles: list[str] = list(ORACLES)
    rows = [c for c in REGISTRY if c.id.startswith(f"T{table}.")]
    # a class the paper's tables do not have (a user's addition) comes last
    return sorted(rows, key=lambda c: (order.index(c.problem_class) if c.problem_class in order else len(order),
                                       oracles.index(c.oracle)))


def _log_suffix(c: Cell) -> str:
    return " · log(1/ε)" if c.log_eps else ""


def render_text(tables=(1, 2, 3, 4)) -> str:
    """Plain-text rendering of the registry as the paper's tables."""
    out: list[str] = []
    for t in tables:
        label, _, title = TABLES[t]
        out.append(f"Table {t} — {title}  [{label}]")
        w1 = max(len(CLASS_LABELS[c.problem_class]) for c in table_rows(t))
        last = None
        for c in table_rows(t):
            cls = CLASS_LABELS[c.problem_class] if c.problem_class != last else ""
            last = c.problem_class
            flag = "tight" if c.tight else "upper"
            extra = "  [theorem statement, not a table cell]" if c.table is None else ""
            disc = "  (!) table/proof discrepancy" if c.discrepancy else ""
            out.append(f"  {cls:<{w1}}  {ORACLE_LABELS[c.oracle]:<7}  {format_terms(c.terms)}  [{flag}; {c.source}]{extra}{disc}")
            if c.discrepancy:
                out.append(f"  {'':<{w1}}  {'':<7}  proof gives: {format_terms(c.derived_terms or ())}")
        out.append("")
    return "\n".join(out)


def render_markdown(tables=(1, 2, 3, 4)) -> str:
    """Markdown rendering (one table per paper table)."""
    out: list[str] = []
    for t in tables:
        label, _, title = TABLES[t]
        out.append(f"### Table {t}: {title}\n")
        out.append(f"`{label}`\n")
        out.append("| Problem | Oracle | Complexity | Claim | Source |")
        out.append("|---|---|---|---|---|")
        for c in table_rows(t):
            cx = format_terms(c.terms)
            if c.discrepancy:
                cx += f" (proof: {format_terms(c.derived_terms or ())})"
            claim = ("tight" if c.tight else "upper") + ("" if c.table is not None else ", theorem only")
            out.append(f"| {CLASS_LABELS[c.problem_class]} | {ORACLE_LABELS[c.oracle]} | {cx} | {claim} | {c.source} |")
        out.append("")
    return "\n".join(out)
