"""How far the upper-bound checks reach (issue 35): the PEP certificates, the PEP worst cases, the cells not exercised.

Three report sections, rendered from the results document alone:

* **PEP certificates** — one row per PEP sweep point of the ``pep.<class>.contraction.<param>`` results (and the
  full tier's ``…networks``): class, network, ``K``, ``κ_f``, ``κ_W``, the exact worst-case contraction ``ρ_PEP``
  of APAPC's Lyapunov function over ``F(μ_f, L_f)``, the theorem's factor ``ρ_thm``, the derived one, the margin,
  the iteration count ``−1/log ρ_PEP``, and the SDP's status and accuracy; then the slopes of those iteration
  counts (``pep.<class>.iterations|comm.<param>``);
* **PEP worst cases as instances** — per class and sweep point of the third Table 1 series (``…@pep-worst``):
  which worst case the instance is (over the class, or over quadratics), ``ρ_PEP`` and the instance's own
  one-step contraction from the worst-case state;
* **Upper bounds not exercised** — every passing upper-bound result labelled ``upper holds, not exercised``
  (its slope's 95% CI lies wholly below ``θ_f − tol``): the instances of that series do not come near the bound
  on that parameter, so the pass says little about the bound there;
* **Upper bounds held by dominance** and **Upper bounds held by their factors** (Table 2 accuracy) — the two rules that
  are consulted when an upper slope fails (:mod:`mixbounds.checks.dominance`, :mod:`mixbounds.checks.table2_factors`).
"""

from __future__ import annotations

import math

from mixbounds.checks.table2_factors import LINEAR_R2, MIN_NEED, MIN_POINTS
from mixbounds.checks.verdict import DOMINATED, FACTORED, NOT_EXERCISED, PER_EFOLD_NEEDED
from mixbounds.plots.data import finite, fmt_slope, variant_of
from mixbounds.report.blocks import LIST, H, P, T, V, anchor_id, link


def _cid(rid: str) -> str:
    return anchor_id("c", rid)


def _f(v, digits: int = 6) -> str:
    x = finite(v)
    return "—" if x is None else f"{x:.{digits}f}"


def _g(v) -> str:
    x = finite(v)
    return "—" if x is None else f"{x:.4g}"


def _pep_contraction(doc: dict) -> list[dict]:
    return [c for c in doc.get("claims", []) if c["id"].startswith("pep.") and ".contraction." in c["id"]
            and not c.get("control")]


#: result id prefixes of the certificates shown per point in the scope table (checks/pep/kinds/results.py)
_SCOPED = ("pep.class.", "pep.blocks.", "pep.binding.")


def _carried(p: dict) -> str:
    """What carries the worst case's Lyapunov value: the dual state's share of V⁰ (and the network's share of u⁰)."""
    ds = finite(p.get("dual_share_V0"))
    if ds is None:
        return "—"
    out = f"dual {ds:.0%}" if ds >= 0.005 else "primal (dual < 0.5%)"
    ns = finite(p.get("network_share_u0"))
    return out + (f", network {ns:.0%} of u⁰" if ns is not None else "")


def _exactness(p: dict) -> str:
    if p.get("exact"):
        return f"exact (ρ <= {p.get('exact_rho'):.7f})" if finite(p.get("exact_rho")) is not None else "exact"
    return "float" + (f": {p.get('exact_reason')}" if p.get("exact_reason") else "")


def _scope_row(c: dict, p: dict) -> list:
    if p.get("scope") == "class":
        kc = "".join(f", {name}={_g(p[k])}" for k, name in (("kappa_Ct", "κ_C̃"), ("kappa_A", "κ_A")) if k in p)
        where = (f"κ_f={_g(p.get('kappa_f'))}, κ_G={_g(p.get('kappa_G'))}, χ={_g(p.get('chi'))} (from "
                 f"κ_W={_g(p.get('kappa_W'))}{kc})")
    else:
        where = f"{p.get('network', '')} {p.get('N', '')}, κ_f={_g(p.get('kappa_f'))}, κ_W={_g(p.get('kappa_W'))}"
    rp, rt = finite(p.get("rho_pep")), finite(p.get("rho_theorem"))
    margin = f"{rt - rp:+.6f}" if rp is not None and rt is not None else "—"
    rank = p.get("rank")
    rank = "—" if rank is None else str(rank)
    if finite(p.get("rho_mode")) is not None:  # the worst single one-dimensional mode (checks/pep/kinds/modes.py)
        rank += f" (ρ_mode {_f(p['rho_mode'], 7)})"
    return [link(c["id"], _cid(c["id"])), p.get("scope", "network"), p.get("class", ""), p.get("method", "apapc"),
            p.get("blocks", "scalar"), where, str(p.get("K", "")), _f(rp), _f(rt), margin,
            _f(p.get("rho_class")) if p.get("scope") != "class" else "—", _exactness(p),
            rank, _carried(p), V(c["status"], c.get("verdict_label") or c["status"])]


def pep_scope_section(doc: dict) -> list:
    """Every PEP certificate point with its scope (class: every G and P with the constants; network: one fixed network),
    class, blocks, constants, ρ_PEP, ρ_thm, margin, exactness, the worst case's rank and what carries it."""
    rows = []
    for c in doc.get("claims", []):
        if c.get("control") or c["id"].endswith(".containment") or not (c["id"].startswith(_SCOPED)
                                                                         or ".contraction." in c["id"]):
            continue
        rows += [_scope_row(c, p) for p in c.get("points") or [] if isinstance(p, dict) and "rho_pep" in p]
    if not rows:
        return []
    return [H(3, "PEP certificates by scope: class and network, exactness, what carries the worst case", "pep-scope"),
            P("Scope `class`: one PEP over every G ∈ F(μ_G, L_G) and every symmetric P with spectrum in {0} ∪ [lo, hi] "
              "(the lemmas' constants, χ = hi/lo): it covers every network and constraint matrix with those constants. "
              "Scope `network`: one fixed network and fixed blocks, every f_i ∈ F(μ_f, L_f); ρ_class is the class value "
              "at the same constants (a network above it is outside the class its parameters assume). Exact: the SDP's "
              "dual certificate, rounded to rationals and checked in exact arithmetic, proves V^K <= ρ^K V⁰ for the "
              "shown ρ; float: only the floating-point SDP says so. Rank: eigenvalues of the worst-case Gram matrix "
              "above 1e-4 of the largest; ρ_mode (binding results): the worst one-dimensional mode, a quadratic on one "
              "eigenvector of P — ρ_PEP = ρ_mode means that mode is a worst case. Carried by: the dual state's share "
              "of V⁰ at the worst case. The numbers are "
              "per-step contractions of the Lyapunov function over K steps, not asymptotic rates (docs: "
              "guides/pep-certificates)."),
            T(["Result", "Scope", "Class", "Method", "Blocks", "Constants / network", "K", "ρ_PEP", "ρ_thm", "Margin",
               "ρ_class", "Exactness", "Rank", "Carried by", "Verdict"], rows)]


def pep_section(doc: dict) -> list:
    """ρ_PEP vs ρ_thm per class and κ (module docstring); empty when the run has no PEP result."""
    res = _pep_contraction(doc)
    worst = _worst_case_rows(doc)
    if not res and not worst and not pep_scope_section(doc):
        return []
    head = [H(2, "PEP certificates: ρ_PEP against ρ_thm", "pep-certificates")]
    if not res:
        return head + [P("This run has no fixed-network PEP sweep (`pep.<class>.contraction.*`).")] + \
            pep_scope_section(doc) + worst
    rows = []
    for c in res:
        for p in c.get("points") or []:
            if not isinstance(p, dict) or "rho_pep" not in p:
                continue
            rp, rt = finite(p.get("rho_pep")), finite(p.get("rho_theorem"))
            margin = f"{rt - rp:+.6f}" if rp is not None and rt is not None else "—"
            it = finite(p.get("iterations"))
            rows.append([link(c["id"], _cid(c["id"])), p.get("class", ""), f"{p.get('network', '')} {p.get('N', '')}",
                         str(p.get("K", "")), _g(p.get("kappa_f")), _g(p.get("kappa_W")), _f(rp), _f(rt),
                         _f(p.get("rho_derived")), margin, "—" if it is None or not math.isfinite(it) else f"{it:.1f}",
                         f"{p.get('solver', '')} {p.get('solver_status', '')}", _g(p.get("accuracy")),
                         V(c["status"], c.get("verdict_label") or c["status"])])
    slopes = [c for c in doc.get("claims", []) if c["id"].startswith("pep.") and c.get("kind") == "pep"
              and (".iterations." in c["id"] or ".comm." in c["id"]) and not c.get("control")]
    blocks = head + [
              P("Per sweep point: the exact worst case ρ_PEP of one APAPC step of the theorem's Lyapunov function "
                "(with its dual terms) over every f_i ∈ F(μ_f, L_f), on the fixed network, solved by the suite's PEP engine "
                "(Clarabel; PEPit is its test reference); ρ_thm the "
                "theorem's factor, ρ_derived the factor the suite's derivation proves; margin = ρ_thm − ρ_PEP (a "
                "negative margin is a finding). Iterations = −1/log ρ_PEP. An SDP not solved to its accuracy is an "
                "error, never a certificate."),
              T(["Result", "Class", "Network", "K", "κ_f", "κ_W", "ρ_PEP", "ρ_thm", "ρ_derived", "Margin",
                 "Iterations", "Solver", "Accuracy", "Verdict"], rows)]
    if slopes:
        blocks.append(P("Slopes of the PEP iteration counts (and × communications per iteration) against the "
                        "claimed exponents, judged two-sided: "
                        + "; ".join(f"{link(c['id'], _cid(c['id']))} {fmt_slope(c, 3)} vs {_g(c.get('theory'))} "
                                    f"({c['status']})" for c in slopes) + "."))
    return blocks + pep_scope_section(doc) + worst


def _worst_case_rows(doc: dict) -> list:
    """The third series' instances, one row per class, parameter and point (from any one result of the sweep)."""
    seen, rows = set(), []
    for c in doc.get("claims", []):
        if variant_of(c) != "pep-worst" or c.get("control"):
            continue
        cls = (c.get("cell") or "").split(".")[1] if c.get("cell") else ""
        key = (cls, c.get("param"))
        if key in seen:
            continue
        seen.add(key)
        for r in (c.get("extra") or {}).get("pep_worst") or []:
            rows.append([cls, c.get("param"), _g(r.get("target")), r.get("source") or "—", _f(r.get("rho_pep")),
                         _f(r.get("rho_pep_quadratic")), _f(r.get("rho_instance")), _g(r.get("V1_difference")),
                         _g(r.get("residual")), str(r.get("D") or "—")])
    if not rows:
        return []
    return [H(3, "PEP worst cases as instances (Table 1's third series, `…@pep-worst`)", "pep-worst"),
            P("Each sweep point's worst case built as an instance (closed-form quadratic interpolant, the class's ends "
              "attained off the data; its solution where the solvers' start is the worst-case state): source "
              "`F(mu_f, L_f)` when the class's worst case is quadratic, `quadratics` when it is not and the worst "
              "case over quadratic f_i is used instead (then both ρ's are shown); ρ_instance is the instance's "
              "one-step contraction from the worst-case state, which must reproduce the PEP's (V¹ difference)."),
            T(["Class", "Swept", "Value", "Source", "ρ_PEP", "ρ_PEP (quadratics)", "ρ_instance", "V¹ difference",
               "Interpolation residual", "D"], rows)]


def _series(c: dict) -> str:
    """The series of a result: its variant (a random family, ``pep-worst``, …), else its instance family (Tables
    2–4 name no variant for their own family)."""
    return c.get("variant") or (c.get("instance") or {}).get("family") or variant_of(c)


def not_exercised_section(doc: dict) -> list:
    """Every passing upper-bound result labelled :data:`~mixbounds.checks.verdict.NOT_EXERCISED`, by series."""
    items = [c for c in doc.get("claims", []) if c.get("verdict_label") == NOT_EXERCISED]
    upper = [c for c in doc.get("claims", []) if (c.get("extra") or {}).get("exercised") is not None]
    blocks = [H(2, f"Upper bounds not exercised ({len(items)} of {len(upper)})", "not-exercised"),
              P(f"An upper-bound result passes when its slope does not exceed θ_f + tol; it reads `{NOT_EXERCISED}` "
                "when the slope's whole 95% confidence interval lies below θ_f − tol: the instances of that series do "
                "not come near the bound on that parameter, so the pass says little about the bound there. Cells the "
                "paper calls tight are judged two-sided on the worst-case constructions (a slope far below is a "
                "`fail` there).")]
    if not items:
        blocks.append(P("None in this run." if upper else "This run has no upper-bound result that could be."))
        return blocks
    rows = []
    for c in items:
        ex = c.get("extra") or {}
        target = finite(c.get("theory")) if c["id"].startswith(("T2.", "T3.", "T4.")) else finite(ex.get("formula_slope"))
        rows.append([link(c["id"], _cid(c["id"])), _series(c), c.get("param") or "", fmt_slope(c, 3),
                     "—" if target is None else f"{target:.3f}", _f(ex.get("exercise_threshold"), 3)])
    by = {}
    for c in items:
        by[_series(c)] = by.get(_series(c), 0) + 1
    blocks.append(LIST([f"`{k}`: {n}" for k, n in sorted(by.items())]))
    blocks.append(T(["Result", "Series", "Param", "Slope ± CI", "θ_f", "θ_f − tol"], rows))
    return blocks


def _consulted_section(doc: dict, key: str, label: str | tuple, title: str, anchor: str, text: str, empty: str,
                       header: list, row) -> list:
    """The report section of a rule consulted when an upper slope fails: every result whose ``extra[key]`` says what
    the rule found, how many of them pass with ``label`` (or one of the labels), and one ``row(result)`` each."""
    labels = (label,) if isinstance(label, str) else label
    items = [c for c in doc.get("claims", []) if not c.get("control") and (c.get("extra") or {}).get(key)]
    passed = [c for c in items if c.get("verdict_label") in labels]
    blocks = [H(2, f"{title} ({len(passed)} of {len(items)})", anchor), P(text)]
    if not items:
        return blocks + [P(empty)]
    return blocks + [T(header, [[link(c["id"], _cid(c["id"])), c["status"], fmt_slope(c, 3), *row(c)] for c in items])]


def dominance_section(doc: dict) -> list:
    """Every random-family upper result whose slope exceeded θ_f + tol, and what the worst-case construction said
    (:mod:`mixbounds.checks.dominance`): passed by dominance, or not dominated (then it is a ``fail``)."""

    def row(c):
        dom = c["extra"]["dominance"]
        ratios = dom.get("ratios") or []
        return [_f(c["extra"].get("formula_slope"), 3), f"`{dom.get('worst')}` ({dom.get('worst_status')})",
                "—" if not ratios else f"{min(ratios):.2f} … {max(ratios):.2f}", dom.get("reason") or ""]

    return _consulted_section(
        doc, "dominance", DOMINATED, "Upper bounds held by dominance", "dominance",
        "A random family's slope above θ_f + tol passes only when the class's worst-case construction, swept over the "
        "same parameter in the same run, passes against the same exponent and the family's count per unit of the "
        f"formula stays at or below the construction's at every point: it reads `{DOMINATED}` (the family approaches "
        "the bound from below over the range). Otherwise the slope's `fail` stands, with the reason below.",
        "No random-family slope exceeded θ_f + tol in this run.",
        ["Result", "Status", "Slope ± CI", "θ_f", "Construction", "Constant ratio", "Not dominated because"], row)


def factors_section(doc: dict) -> list:
    """Every Table 2 accuracy result whose count slope exceeded θ_log + tol, and what its runs' two factors said
    (:mod:`mixbounds.checks.table2_factors`): passed by its factors, or not (then it is a ``fail``)."""

    def slope_ci(slope, ci):
        return "—" if slope is None else f"{slope:.3f}" + (f" ({ci[0]:.3f}..{ci[1]:.3f})" if ci else "")

    def row(c):
        fr = c["extra"]["factors"]
        pts = fr.get("points") or []
        nd = fr.get("per_efold_needed") or {}
        npts = nd.get("points") or []
        needed = "not consulted" if not nd else (
            slope_ci(nd.get("slope"), nd.get("ci")) + (f" on {npts[0]:.4g} … {npts[-1]:.4g} ({len(npts)})" if npts else ""))
        return [_f(c.get("theory"), 3), "—" if not pts else f"{pts[0]:.4g} … {pts[-1]:.4g} ({len(pts)})",
                ", ".join(f"{x:.4g}" for x in fr.get("excluded") or []) or "—",
                slope_ci(fr.get("cost_slope"), fr.get("cost_ci")), _f(fr.get("efold_slope"), 3), needed,
                "; ".join(r for r in (fr.get("reason"), nd.get("reason")) if r)]

    return _consulted_section(
        doc, "factors", (FACTORED, PER_EFOLD_NEEDED), "Upper bounds held by their factors: Table 2 accuracy", "factors",
        "A Table 2 accuracy sweep's count slope above θ_log + tol (θ_log: the slope of x^θ·ln x) is read by the "
        "proof's two factors on the points whose runs end in linear convergence (the accuracy ratio's tail after the "
        f"settled row is a straight line in log scale, R² >= {LINEAR_R2}): the cost per e-fold (calls per iteration "
        "over the tail's rate) must grow at most like x^(θ + tol), and the e-folds the run took at that rate at most "
        "1 + tol per e-fold the criterion needs from the start. Both hold: it reads "
        f"`{FACTORED}`, on the range named. Where fewer than {MIN_POINTS} tails are linear, the count per e-fold "
        "its start needs (count / ln q₀, q₀ the accuracy ratio at the run's start: the proof's log(1/δ) as measured; "
        f"points needing at least {MIN_NEED:g} e-fold) must grow at most like x^(θ + tol): it then reads "
        f"`{PER_EFOLD_NEEDED}`. Otherwise the slope's `fail` stands, with the reason below.",
        "No Table 2 accuracy slope exceeded θ_log + tol in this run.",
        ["Result", "Status", "Count slope ± CI", "θ_log", "Linear points (n)", "Left out", "Cost per e-fold: slope (CI)",
         "E-folds per e-fold needed", "Count per e-fold needed: slope (CI)", "Not read because"], row)
