"""The reviewer's report of a ``mixbounds verify`` run: ``report.md`` and ``report.html``.

Both are rendered from the results document only (the same one written to ``results.json``) plus
the figure manifest of :func:`mixbounds.plots.draw_all`, in this order:

1. verdict line, summary, table of contents (and, in HTML, a filter by status / class / oracle);
2. how to read the report: statuses, "per accuracy", every verdict rule with its tolerance per tier,
   certificates (:mod:`mixbounds.report.rules`, generated from the checks' own constants);
3. problems with the paper: the finding records grouped into distinct problems, ranked by severity,
   text discrepancies included (:mod:`mixbounds.report.problems`);
4. the index by paper label (theorems, tables, lemmas, remarks, equations, …) with every result that
   measures it (:mod:`mixbounds.report.index`);
5. the paper's Tables 1-4 with the printed formula and, per parameter, the solver's and the engine's
   slopes linked to their results; the lower-bound certificates; the PEP certificates (ρ_PEP against ρ_thm per
   class and κ, the PEP worst cases as instances) and the upper bounds not exercised
   (:mod:`mixbounds.report.upper`);
6. overview figures (heat-map, one panel per problem class);
7. one section per (table cell, swept parameter): its figure, and per result the verdict, the rule
   with its numbers, the instance (non-swept κ's, n, chain length K), the labels and the command
   reproducing it alone;
8. lemma checks, benchmarks, other checks, negative controls, failures, the run.

Every result, finding, problem and paper label has an anchor (``c-<id>``, ``f-<id>``, ``p-<key>``,
``l-<label>``); figures are linked files, lazy-loaded in the HTML, never embedded.
"""

from __future__ import annotations

import html
import re
from fractions import Fraction
from pathlib import Path

from mixbounds.bounds.claims import CLASS_LABELS, ORACLE_LABELS, PARAMS, TABLES
from mixbounds.bounds.render import format_terms, table_rows
from mixbounds.checks.lower.certificates import summary_line
from mixbounds.checks.run.result import STATUSES
from mixbounds.checks.sweeps import CLASS_FAMILIES
from mixbounds.checks.tolerances import TABLE_HEADERS
from mixbounds.checks.tolerances import table_rows as tolerance_rows
from mixbounds.plots.data import bench_series, cell_param, figure_files, finite, fmt_slope, sweep_groups, variant_of
from mixbounds.report.blocks import (
    CSS,
    DETAILS,
    ERROR_HOOK,
    GROUP,
    HTML_ONLY,
    IMG,
    LIST,
    SCRIPT,
    Block,
    H,
    P,
    Row,
    T,
    V,
    anchor_id,
    controls_html,
    inline,
    link,
    render_html_blocks,
    render_md,
)
from mixbounds.report.index import (
    cited_in,
    instance_text,
    label_index,
    labels_in,
    registry_cell,
    reproduce_command,
    result_labels,
)
from mixbounds.report.problems import SEVERITIES, group_findings
from mixbounds.report.rules import how_to_read
from mixbounds.report.upper import dominance_section, factors_section, not_exercised_section, pep_section

PAPER = ("D. Yarmoshik, N. T. Nguyen, A. Rogozin, A. Gasnikov, Complexity of Decentralized Optimization with Mixed "
         "Affine Constraints")
PARAM_ORDER = ("kappa_f", "kappa_A", "kappa_Ct", "kappa_AC", "kappa_C", "kappa_Ct_id", "kappa_W", "LR2_eps", "MR_eps",
               "M_mu_eps")
UPPER_KINDS = ("upper", "tight", "absent")
SWEEP_KINDS = UPPER_KINDS + ("lower",)
STATUS_ORDER = ("error", "fail", "finding", "skipped", "pass")


# ----------------------------------------------------------------------------- helpers
def _num(v):
    return finite(v)


def _slope(c: dict) -> str:
    return fmt_slope(c, 3)


def _measured(c: dict, limit: int) -> str:
    """The Measured cell of a result: its ``readings`` by name when it has several numbers (lemma checks, closed
    forms, audits), else the number (± CI)."""
    if c.get("readings"):
        return _val(c["readings"], limit)
    return _slope(c) if _num(c.get("measured")) is not None else _val(c.get("measured"), limit)


def _val(v, limit: int | None = None) -> str:
    if v is None:
        return "—"
    if isinstance(v, float):
        s = f"{v:.4g}"
    elif isinstance(v, dict):
        s = "; ".join(f"{k}: {_val(x)}" for k, x in v.items())
    elif isinstance(v, (list, tuple)):
        s = "[" + ", ".join(_val(x) for x in v) + "]"
    else:
        s = str(v)
    if limit and len(s) > limit:
        s = s[: limit - 1] + "…"
    return s


def _theta(x: float) -> str:
    fr = Fraction(x).limit_denominator(8)
    return str(fr) if abs(float(fr) - x) < 1e-9 else f"{x:g}"


def _variant(c: dict) -> str:
    return variant_of(c)


def _pname(p: str) -> str:
    return PARAMS[p][0] if p in PARAMS else p


def cid(c) -> str:
    """Anchor of a result."""
    return anchor_id("c", c if isinstance(c, str) else c["id"])


def _worst(statuses) -> str:
    statuses = list(statuses)
    return next((s for s in STATUS_ORDER if s in statuses), statuses[0] if statuses else "")


def _filter_data(c: dict) -> dict:
    """Filter attributes of a result row: status, problem class and oracle (from its cell or id)."""
    cell = c.get("cell") or ""
    parts = cell.split(".") if cell else c["id"].split(".")
    d = {"s": c["status"]}
    if len(parts) >= 2 and parts[1] in CLASS_LABELS:
        d["c"] = parts[1]
    if len(parts) >= 3 and parts[2] in ORACLE_LABELS:
        d["o"] = parts[2]
    return d


def _index(doc: dict):
    """(cell, param) → {"upper": [...], "lower": [...]} over the non-control sweep results."""
    idx: dict = {}
    for c in doc["claims"]:
        if c.get("control") or c.get("kind") not in SWEEP_KINDS:
            continue
        cp = cell_param(c)
        if cp is None:
            continue
        e = idx.setdefault(cp, {"upper": [], "lower": []})
        e["lower" if c["kind"] == "lower" else "upper"].append(c)
    return idx


def _class_params(cls: str) -> tuple:
    return CLASS_FAMILIES.get(cls, (None, None, ()))[2]


def _png(paths) -> Path | None:
    """The PNG among a figure's files, if it exists on disk."""
    for p in paths or []:
        if str(p).endswith(".png") and Path(p).is_file():
            return Path(p)
    return None


def sweep_anchor(cell: str, param: str) -> str:
    return anchor_id("s", f"{cell}.{param}")


def _rule(c: dict) -> str:
    """The verdict rule of a slope result with its numbers (θ_f from ``extra.formula_slope``, tol)."""
    tol = _num(c.get("tolerance"))
    th = _num(c.get("theory"))
    fs = _num((c.get("extra") or {}).get("formula_slope"))
    if tol is None or th is None:
        return "—"
    tgt = th if c["id"].startswith(("T2.", "T3.", "T4.")) or fs is None else fs
    k = c.get("kind")
    if k == "lower":
        return f"{tgt:.3f} − {tol:g} ≤ s ≤ max({tgt:.3f}, {th:g}) + {tol:g}"
    if k == "absent":
        return f"|s| ≤ {tol:g}"
    if k == "tight":
        return f"|s − {tgt:.3f}| ≤ {tol:g}"
    return f"s ≤ {tgt:.3f} + {tol:g}"


# ----------------------------------------------------------------------------- tables 1-4
def _verdict_cells(results: list[dict], lower: bool) -> tuple[str, V | str]:
    """Slope text linked to each result (per variant when there are several) and the worst verdict."""
    if not results:
        return "not measured", ""
    parts = []
    for c in results:
        txt = _slope(c)
        if len(results) > 1 or (lower and _variant(c) != "printed"):
            txt = f"{_variant(c)}: {txt}" + (f" ({c['status']})" if len(results) > 1 else "")
        parts.append(link(txt, cid(c)))
    return "; ".join(parts), V(_worst(c["status"] for c in results))


def _table_section(doc: dict, t: int, idx: dict) -> list[Block]:
    label, _, title = TABLES[t]
    blocks = [H(2, f"Table {t}: {title}", anchor_id("table", t)),
              P(f"Paper label {link(label, anchor_id('l', label))}. θ is the exponent of the parameter in the printed "
                f"formula (0: absent, the slope must be ≈ 0). Slopes are log-log fits of the per-accuracy oracle count "
                f"against the realized parameter, ± half-width of the 95% confidence interval; each links to its "
                f"result, the parameter to its figure (rules: {link('how to read', 'how-rules')}). The lower-bound "
                f"engine bounds every method of Definition `def:foda` for matrix and communication counts, and of "
                f"`def:foda` *without* ∇f_i* for gradient counts (∇f_i* fills the sum-trick chain in one call: finding "
                f"`def:foda`); it runs on the worst-case construction as printed and on documented variants. A tight "
                f"cell reads `tight` only with a {link('lower-bound certificate', 'certificates')}.")]
    rows = []
    for cell in table_rows(t):
        formula = format_terms(cell.terms) + (" · log(1/ε)" if cell.log_eps else "")
        if cell.discrepancy:
            formula += f" (proof: {format_terms(cell.derived_terms)})"
        claim = ("tight" if cell.tight else "upper") + ("" if cell.table is not None else ", theorem only")
        cls_params = set(_class_params(cell.problem_class)) - ({"kappa_f"} if t != 1 else set())  # no κ_f in T2-4
        params = set(cell.parameters()) | cls_params | {p for (c, p) in idx if c == cell.id}
        mine = [p for p in PARAM_ORDER if p in params] + sorted(params - set(PARAM_ORDER))
        measured = [p for p in mine if (cell.id, p) in idx]
        head = [CLASS_LABELS.get(cell.problem_class, cell.problem_class), ORACLE_LABELS.get(cell.oracle, cell.oracle),
                formula, claim]
        data = {"c": cell.problem_class, "o": cell.oracle}
        anchor = anchor_id("t", cell.id)
        if not measured:
            rows.append(Row(head + ["—", "", "not measured", "", "not measured", ""], anchor))
            continue
        for i, p in enumerate(mine):
            e = idx.get((cell.id, p), {"upper": [], "lower": []})
            th = cell.exponent(p) if p in PARAMS else 0.0
            theta = _theta(th)
            fs = [_num((c.get("extra") or {}).get("formula_slope")) for c in e["upper"] + e["lower"]]
            fs = [x for x in fs if x is not None and abs(x - th) > 0.02]
            if fs:
                theta += f" (formula over the grid: {fs[0]:.2f})"
            us, uv = _verdict_cells(e["upper"], False)
            ls, lv = _verdict_cells(e["lower"], True)
            pn = link(_pname(p), sweep_anchor(cell.id, p)) if (e["upper"] or e["lower"]) else _pname(p)
            st = _worst([c["status"] for c in e["upper"] + e["lower"]]) or "not measured"
            rows.append(Row((head if i == 0 else ["", "", "", ""]) + [pn, theta, us, uv, ls, lv],
                            anchor if i == 0 else None, dict(data, s=st)))
    blocks.append(T(["Problem", "Oracle", "Complexity (printed)", "Claim", "Param", "θ", "Solver slope ± CI", "Verdict",
                     "Lower-bound slope ± CI", "Verdict"], rows))
    return blocks


def _certificates_section(doc: dict) -> list[Block]:
    """The certificate table, one row per optimality statement (mixbounds.checks.lower.certificates): class,
    construction, per parameter the exact count, decades, exponent and tightness on the same instance, the other
    constructions' verdicts and the exact-count formula."""
    lbc = (doc.get("summary") or {}).get("lower_bound_certificates") or {}
    if not lbc.get("total"):
        return []

    def num(v, f="{:.3f}"):
        return f.format(v) if isinstance(v, (int, float)) else "—"

    rows = []
    for st in lbc["statements"]:
        per = st["params"].items()
        sym = lambda p: PARAMS[p][0] if p in PARAMS else p  # noqa: E731

        def each(f):
            return "; ".join(f"{sym(p)} {f(c)}" for p, c in per)

        def exact(c):
            ex = c.get("exact") or {}
            return f"{ex.get('matched')}/{ex.get('points')}" if ex.get("points") else "no closed form"

        def expo(c):
            ci = c.get("ci") or [None, None]
            src = "closed form" if c.get("exponent_source") == "closed form" else "fit"
            return f"{num(c.get('exponent'))} ({src}; fit CI {num(ci[0])}..{num(ci[1])})" if c.get("construction") else "—"

        def tight(c):
            tg = c.get("tightness") or {}
            return (f"{num(tg.get('slope'), '{:+.3f}')} {'flat' if tg.get('flat') else 'not flat'}"
                    if tg.get("slope") is not None else "not run")

        formulas = sorted({(c.get("exact") or {}).get("formula") or "" for _, c in per} - {""})
        others = "; ".join(sorted({f"{t['construction']} ({t.get('method_class')}): {t['verdict']}" for _, c in per
                                   for t in c.get("constructions", []) if t["construction"] != c.get("construction")}))
        rows.append([st["statement"], st.get("method_class") or "—", st["certificate"], each(exact),
                     each(lambda c: num(c.get("decades"), "{:.2f}")), each(expo), each(tight), others or "—",
                     " / ".join(formulas)[:400] or "—"])
    flat = lbc.get("ratios_not_flat") or []
    explained = lbc.get("ratios_explained") or []
    return [H(2, "Lower-bound certificates", "certificates"),
            P(summary_line(lbc) + ". Exact: engine counts equal to the closed-form counts / counts compared (every "
              "level of every sweep point); exponent: the closed form's asymptotic one where the counts are exact, "
              "else the fit. Tightness (solver / engine per decade on the same instance) "
              + ("flat for every certified statement" if not flat else f"not flat: {', '.join(flat)}")
              + (f"; not flat but explained (APAPC's iterations per accuracy fall, its per-iteration count follows the "
                 f"bound): {', '.join(explained)}." if explained else ".")),
            T(["Statement", "Class", "Construction", "Exact (per parameter)", "Decades", "Exponent", "Tightness slope",
               "Other constructions", "Exact-count formula"], rows)]


def _own_lower_section(doc: dict) -> list[Block]:
    """Tables 2–4: the suite's own lower exponents (mixbounds.checks.lower.tables234) next to the printed upper ones."""
    own = [c for c in doc.get("claims", []) if (c.get("extra") or {}).get("own") and not c.get("control")]
    if not own:
        return []
    rows = []
    for c in own:
        ex, r = c["extra"], c.get("readings") or {}
        low, gap = ex.get("lower_exponent"), ex.get("gap")
        rows.append([link(c["id"], anchor_id("c", c["id"])), _pname(c.get("param")),
                     "not established" if low is None else f"{low:.3f}", f"{r.get('fit', float('nan')):.3f}",
                     f"{ex['upper_exponent']:g}", "—" if gap is None else f"{gap:+.3f}",
                     ex.get("construction", ""), ex.get("method_class", ""),
                     V(c["status"], f"{c['status']} ({c['verdict_label']})" if c.get("verdict_label") else "")])
    return [H(2, "Tables 2–4: the suite's own lower bounds (not the paper's)", "own-lower"),
            P("The paper proves no lower bound for Tables 2–4. These are the suite's: Nesterov's chain with μ_f tied to "
              "ε (Table 2; Tables 3–4 on a ball, where it is Lipschitz) and Nesterov's max-type chain for subgradients, "
              "in the decentralized constructions that certify Table 1, read by the engine at a fixed relative accuracy "
              "(checks/lower/tables234.py). Lower exponent: the closed form's (the max-type chain: 2); gap = printed "
              "upper exponent − lower exponent, an upper bound on the true gap (a sharper construction could close it). "
              "A sweep whose counts stop growing (the construction's hard tail holds less than δ of e₀ there) claims "
              "no exponent: *not established*."),
            T(["Result", "Param", "Lower exponent", "Fit", "Upper exponent", "Gap", "Construction", "Class", "Verdict"],
              rows)]


# ----------------------------------------------------------------------------- sweeps
def _result_row(c: dict, tier: str) -> Row:
    fit = _measured(c, 80)
    r2 = _num(c.get("r2"))
    if r2 is not None:
        fit += f" (R² {r2:.3f})"
    cells = [f"`{c['id']}`", c.get("kind", ""), V(c["status"]), fit, _rule(c), instance_text(c),
             f"`{reproduce_command(c, tier)}`"]
    return Row(cells, cid(c), _filter_data(c))


def _sweep_sections(doc: dict, idx: dict, manifest: dict) -> list[Block]:
    groups = sweep_groups(doc)
    if not groups:
        return []
    tier = doc.get("tier") or "quick"
    cells_fig = (manifest or {}).get("cells", {})
    blocks = [H(2, f"Results per table cell and parameter ({len(groups)} sweeps)", "sweeps"),
              P("One section per (table cell, swept parameter): the figure (solver counts filled, lower-bound engine "
                "open, fitted lines with slope ± CI, claimed slope dashed), then every result of the sweep with its "
                "verdict, the rule with its numbers (s = measured slope), the instance behind it (family, the "
                "non-swept parameters realized at the sweep points, nodes n, chain length K) and the command that "
                "reruns it alone (the command runs the check that produces the result, e.g. the whole sweep, and "
                "reports and writes only this result, into a new directory of its own: into this set it is refused "
                "unless given `--merge`). The run's tier is in the command; `--tier tiny` reruns it in seconds as a "
                "smoke test.")]
    heads = ["Result", "Kind", "Verdict", "Slope ± CI", "Rule", "Instance", "Reproduce"]
    for (cell, param), g in groups.items():
        rc = registry_cell(cell)
        formula = (format_terms(rc.terms) + (" · log(1/ε)" if rc.log_eps else "")) if rc else ""
        th = rc.exponent(param) if (rc is not None and param in PARAMS) else None
        res = g.upper + g.lower
        inner = [H(3, f"{cell} × {_pname(param)}"),
                 P(f"Claim {link(cell, anchor_id('t', cell))}: {formula or '—'}"
                   + (f"; θ = {_theta(th)}" if th is not None else "")
                   + ". Paper labels: " + ", ".join(link(lab, anchor_id("l", lab)) for lab in
                                                   dict.fromkeys(lab for c in res for lab in result_labels(c))) + ".")]
        fig = _png(cells_fig.get(f"{cell}|{param}"))
        if fig is not None:
            inner.append(IMG(fig, f"{cell}: per-accuracy counts vs realized {_pname(param)}",
                             anchor_id("fig", f"{cell}.{param}")))
        elif manifest:
            inner.append(P("No figure: no result of this sweep has a positive per-accuracy count."))
        inner.append(T(heads, [_result_row(c, tier) for c in res]))
        inner.append(DETAILS("Details (counts per point)",
                             [LIST([f"`{c['id']}`: {_val(c.get('detail'))}" for c in res])]))
        cls = cell.split(".")[1] if cell.count(".") >= 2 else ""
        blocks.append(GROUP(inner, sweep_anchor(cell, param), {"c": cls, "o": g.oracle}))
    return blocks


def _formats_sentence(manifest: dict) -> str:
    """Which files of each figure ``plots/`` holds: the PNG the report shows, SVG too when it was drawn."""
    if any(str(p).endswith(".svg") for paths in figure_files(manifest) for p in paths):
        return "PNG and SVG of every figure are in `plots/`."
    return ("The PNG of every figure is in `plots/` (vector SVG copies: `mixbounds verify --svg`, or "
            "`mixbounds plot results.json`).")


def _overview_figures(manifest: dict) -> list[Block]:
    if not manifest or not (manifest.get("classes") or manifest.get("heatmap")):
        return []
    blocks = [H(2, "Overview figures", "figures"),
              P("The heat-map compares every measured slope with its claimed exponent (solvers; the lower-bound engine "
                "on the printed constructions and, in its own panel, on the documented variants). One panel per "
                "problem class shows every oracle × parameter; each (cell, parameter) figure sits in its "
                f"{link('sweep section', 'sweeps')}. {_formats_sentence(manifest)}")]
    if _png(manifest.get("heatmap")):
        blocks.append(IMG(_png(manifest["heatmap"]), "Measured / claimed exponent per table cell × parameter.",
                          "fig-heatmap"))
    for key, paths in manifest.get("classes", {}).items():
        _, _, cls = key.partition(".")
        if _png(paths) is None:
            continue
        blocks.append(IMG(_png(paths), f"{key}: {CLASS_LABELS.get(cls, cls)}, every oracle × parameter.",
                          anchor_id("fig", key)))
    if manifest.get("errors"):
        blocks.append(P("Figures that could not be drawn: " + "; ".join(manifest["errors"])))
    return blocks


# ----------------------------------------------------------------------------- problems, labels
def _problems_section(doc: dict) -> list[Block]:
    groups = group_findings(doc)
    n_rec = len(doc.get("findings") or [])
    n_text = sum(1 for g in groups if not g.records)
    blocks = [H(2, f"Problems with the paper ({len(groups)})", "problems"),
              P(f"The {n_rec} finding records of this run grouped into {len(groups) - n_text} distinct problems, plus "
                f"{n_text} discrepancies in the text that the suite records without measuring "
                f"(`bounds/claims.py: TEXT_DISCREPANCIES`); ranked by severity: *changes a rate* (an exponent or "
                f"factor "
                f"of a bound is not supported as printed), *changes the class* (a bound holds for a narrower class "
                f"of methods or problems than printed), *a proof fails, the rate is certified* (the printed "
                f"argument does not carry a bound that the suite certifies otherwise), *changes a constant* (a "
                f"constant, closed form or "
                f"intermediate quantity is wrong; the rates hold), *changes a constant of a proof, no theorem's "
                f"rate* (an intermediate bound is off, every theorem uses it where that parameter is O(1)), *typo* "
                f"(a printed expression or step is wrong, the argument is unaffected once corrected).")]
    if not groups:
        return blocks + [P("No finding: every measured statement agrees with the paper within its tolerance.")]
    summary = []
    for i, g in enumerate(groups, 1):
        labs = _label_links(g.label)
        summary.append([str(i), link(g.title, anchor_id("p", g.key)), g.severity, labs, str(len(g.records)) or "0"])
    blocks.append(T(["#", "Problem", "Severity", "Paper label", "Records"], summary))
    tier = doc.get("tier") or "quick"
    for i, g in enumerate(groups, 1):
        inner = [H(3, f"{i}. {g.title}"),
                 T(["", ""], [["Severity", g.severity], ["Paper label", _label_links(g.label)],
                              ["What the paper prints", g.printed], ["Corrected statement / what holds", g.corrected],
                              ["Records", str(len(g.records)) if g.records
                               else "none: recorded in the code, not measured"]])]
        if g.records:
            rows = []
            for f, res in g.records:
                rid = res.get("id") or f.get("source")
                rows.append(Row([f"`{f.get('id')}`", link(rid, cid(rid)) if res else f"`{rid}`",
                                 _val(f.get("printed"), 120), _val(f.get("measured"), 160),
                                 V(res.get("status", "finding")), f"`{reproduce_command({'id': rid}, tier)}`"],
                                anchor_id("f", f.get("id")), _filter_data(res) if res else {}))
            inner.append(T(["Finding", "Result", "Printed", "Measured", "Verdict", "Reproduce"], rows))
        blocks.append(GROUP(inner, anchor_id("p", g.key)))
    return blocks


def _label_links(text) -> str:
    labs = labels_in(text) + cited_in(text)
    if not labs:
        return str(text)
    return ", ".join(link(lab, anchor_id("l", lab)) for lab in labs)


def _labels_section(doc: dict, manifest: dict) -> list[Block]:
    idx = label_index(doc, group_findings(doc))
    blocks = [H(2, f"Index by paper label ({len(idx)})", "labels"),
              P("Every label of the paper the suite checks (search this page for a label: each entry lists its "
                "results with their verdicts and numbers; a result's link leads to its row with the figure, the rule, "
                "the instance and the reproduce command). *Cited work* are other papers the tables cite for a bound.")]
    overview = []
    for lab, e in idx.items():
        counts: dict = {}
        for c in e.results:
            if not c.get("control"):
                counts[c["status"]] = counts.get(c["status"], 0) + 1
        cnt = ", ".join(f"{counts[s]} {s}" for s in STATUS_ORDER[::-1] if s in counts)
        nctl = sum(1 for c in e.results if c.get("control"))
        cnt = (cnt + (f"; {nctl} control(s)" if nctl else "")) or "no result in this run"
        probs = ", ".join(link(g.title, anchor_id("p", g.key)) for g in e.problems) or "—"
        overview.append([link(lab, anchor_id("l", lab)), e.kind, cnt, probs])
    blocks.append(T(["Label", "Kind", "Results", "Problems with the paper"], overview))
    for lab, e in idx.items():
        inner = [H(3, f"{e.kind} `{lab}`")]
        if e.cells:
            inner.append(P("Registry cells citing it: " + ", ".join(link(c, anchor_id("t", c)) for c in e.cells) + "."))
        if e.problems:
            inner.append(P("Problems with the paper: " + ", ".join(f"{link(g.title, anchor_id('p', g.key))} "
                                                                   f"({g.severity})" for g in e.problems) + "."))
        if e.findings:
            inner.append(P("Findings: " + ", ".join(link(f.get("id"), anchor_id("f", f.get("id"))) for f in e.findings)
                           + "."))
        if e.kind == "Table" and len(e.results) > 40:
            t = next((k for k, v in TABLES.items() if v[0] == lab), None)
            inner.append(P(f"{len(e.results)} results measure this table: see "
                           + (link(f"Table {t}", anchor_id("table", t)) if t else "the tables") + "."))
        elif e.results:
            rows = [Row([link(c["id"], cid(c)), V(c["status"]),
                         _measured(c, 80),
                         _fig_link(c, manifest)], None, _filter_data(c)) for c in e.results]
            inner.append(T(["Result (its row: rule, instance, reproduce command)", "Verdict", "Measured", "Figure"],
                           rows))
        else:
            inner.append(P("No result of this run measures it (tier or `--claims` selection)."))
        blocks.append(GROUP(inner, anchor_id("l", lab)))
    return blocks


def _fig_link(c: dict, manifest: dict) -> str:
    """Link to the figure of a sweep result, or why there is none."""
    cp = cell_param(c) if c.get("kind") in SWEEP_KINDS and not c.get("control") else None
    if cp is None:
        return "—"
    if _png((manifest or {}).get("cells", {}).get(f"{cp[0]}|{cp[1]}")) is None:
        return "none (no positive count)" if manifest.get("cells") else "not drawn"
    return link("figure", anchor_id("fig", f"{cp[0]}.{cp[1]}"))


# ----------------------------------------------------------------------------- other sections
def _result_table(claims: list[dict], tier: str) -> Block:
    rows = [Row([f"`{c['id']}`", _label_links(c.get("label")) if c.get("label") else "—", _val(c.get("theory"), 200),
                 _measured(c, 200),
                 _val(c.get("tolerance")), V(c["status"]), _val(c.get("detail"), 600),
                 f"`{reproduce_command(c, tier)}`"], cid(c), _filter_data(c)) for c in claims]
    return T(["Check", "Label", "Statement / theory", "Measured", "Tolerance", "Verdict", "Detail", "Reproduce"], rows)


def _lemma_section(doc: dict) -> list[Block]:
    lem = [c for c in doc["claims"] if not c.get("control") and (c["id"].startswith("lemma.")
                                                                   or c["kind"] in ("lemma", "closed-form"))]
    if not lem:
        return []
    return [H(2, f"Lemma checks ({len(lem)})", "lemmas"),
            P("Both sides of every lemma and closed form the proofs rest on, on many seeded cases; `measured` is the "
              "worst observed ratio of the two sides (≥ 1 holds) unless stated otherwise."),
            _result_table(lem, doc.get("tier") or "quick")]


def _bench_section(doc: dict, manifest: dict) -> list[Block]:
    """Per class: method × oracle rows, one column per (parameter, family) with the fitted slope ± CI."""
    bench = [c for c in doc["claims"] if c["id"].startswith("bench.") and not c.get("control")]
    if not bench:
        return []
    blocks = [H(2, "Benchmarks: baselines vs APAPC", "bench"),
              P("Per-accuracy counts of every method on the same sweeps (worst-case construction and random family), "
                "fitted log-log slopes ± 95% CI. Slopes are reported, not judged; `skipped` means the method did not "
                "reach two measured points (budget) and the detail says why. `consistency`: no method's count to an "
                "error level is below the lower-bound engine's count on the same instance. Each slope links to its "
                f"result in {link('other results', 'other')}.")]
    by_cls: dict = {}
    for c in bench:
        b = bench_series(c)
        if b is None:
            by_cls.setdefault(c["id"].split(".")[1], {}).setdefault("_consistency", []).append(c)
            continue
        by_cls.setdefault(b["class"], {})[(b["method"], b["oracle"], b["param"], b["family"])] = c
    for cls, d in by_cls.items():
        keys = [k for k in d if k != "_consistency"]
        cols = list(dict.fromkeys((k[2], k[3]) for k in keys))
        rows = []
        for m, o in dict.fromkeys((k[0], k[1]) for k in keys):
            row = [m, o]
            for p, fam in cols:
                c = d.get((m, o, p, fam))
                row.append("" if c is None else link(_slope(c) if c["status"] == "pass" else c["status"], cid(c)))
            rows.append(row)
        head = ["Method", "Oracle"] + [f"{_pname(p)} ({'worst' if f == 'worst' else f})" for p, f in cols]
        blocks += [H(3, CLASS_LABELS.get(cls, cls)), T(head, rows)]
        cons = d.get("_consistency") or []
        if cons:
            blocks.append(LIST([f"{V(c['status']).md()} {link(c['id'], cid(c))}: {_val(c.get('detail'))}"
                                for c in cons]))
        for key, paths in (manifest or {}).get("bench", {}).items():
            if key.split(".")[0] == cls and _png(paths) is not None:
                blocks.append(IMG(_png(paths), f"{key}: all methods", anchor_id("fig", f"bench.{key}")))
    return blocks


def _controls_section(doc: dict) -> list[Block]:
    ctl = doc.get("controls") or {}
    items = ctl.get("items") or []
    if not items:
        return [H(2, "Negative controls", "controls"), P("No negative control was selected in this run.")]
    by_id = {c["id"]: c for c in doc["claims"]}
    tier = doc.get("tier") or "quick"
    rows = []
    for it in items:
        c = by_id.get(it["id"], {"id": it["id"], "status": it["status"]})
        rows.append(Row([f"`{it['id']}`", it.get("kind", ""), _val(c.get("theory")),
                         _measured(c, 120),
                         it["status"],
                         V("pass" if it["caught"] else "not caught", "caught" if it["caught"] else "not caught"),
                         _val(it.get("detail"), 600), f"`{reproduce_command(c, tier)}`"], cid(c), _filter_data(c)))
    return [H(2, f"Negative controls: {ctl.get('caught')}/{ctl.get('total')} caught", "controls"),
            P("Each control is a check built to fail (a solver without acceleration, a wrong exponent, a truncated "
              "chain, …). It is caught when its status is `fail`; a control that passes means its family cannot fail."),
            T(["Control", "Kind", "Theory", "Measured", "Status", "Caught", "Detail", "Reproduce"], rows)]


def _tolerances_section() -> list[Block]:
    """The verdict-deciding tolerances with their values, probes and reasons (checks/tolerances.py)."""

    return [H(2, "Tolerances", "tolerances"), P("Every named tolerance that decides a verdict; the boundary controls "
                                  "(ids starting `tolerance.` and `control.tolerance.`) check that it accepts the "
                                  "perturbation under Must pass and rejects the one under Must fail."), T(list(TABLE_HEADERS), tolerance_rows())]


def _failures_section(doc: dict) -> list[Block]:
    bad = [c for c in doc["claims"] if not c.get("control") and c["status"] in ("fail", "error")]
    if not bad:
        return []
    return [H(2, f"Failures and errors ({len(bad)})", "failures"),
            LIST([f"**{c['status']}** {link(c['id'], cid(c))}: {_val(c.get('detail'))}" for c in bad])]


def _run_section(doc: dict) -> list[Block]:
    st, ver = doc.get("stats") or {}, doc.get("versions") or {}
    rows = [["Tier", doc.get("tier")], ["Claims glob", f"`{doc.get('claims_glob')}`"],
            ["Command", f"`{doc.get('command') or ''}`"], ["Started (UTC)", doc.get("started")],
            ["Finished (UTC)", doc.get("finished")], ["Wall time", f"{_num(doc.get('wall_time')) or 0:.1f} s"],
            ["Jobs", st.get("jobs")],
            ["Sweep points", f"{st.get('tasks')} ({st.get('computed')} computed, {st.get('cached')} from the cache)"],
            ["Cache", st.get("cache") or "off"], ["Code version", f"`{ver.get('code_version')}`"]]
    rows += [[k, v] for k, v in ver.items() if k != "code_version"]
    blocks = [H(2, "Run", "run"), T(["", ""], [[str(a), _val(b)] for a, b in rows])]
    parts = doc.get("parts") or []
    if parts:  # a set written with --merge: the runs its results come from
        codes = {p.get("code_version") for p in parts}
        blocks += [P(f"This set merges the results of {len(parts)} runs (`mixbounds verify --merge`), of {len(codes)} "
                     f"code version{'s' if len(codes) != 1 else ''}; each result is the last run's that selected it. "
                     "The table above is the last run's."),
                   T(["Results", "Command", "Code version", "Started (UTC)"],
                     [[str(p.get("results")), f"`{p.get('command') or ''}`", f"`{p.get('code_version')}`",
                       _val(p.get("started"))] for p in parts])]
    seeds = doc.get("seeds") or {}
    if seeds:
        blocks.append(DETAILS(f"Seeds ({len(seeds)} checks use seeded instances; all others are deterministic)",
                              [T(["Check", "Seeds"], [[f"`{k}`", _val(v, 300)] for k, v in seeds.items()])]))
    return blocks


def _anchored_ids(blocks: list[Block], acc: set) -> set:
    for b in blocks:
        if b.anchor:
            acc.add(b.anchor)
        if b.kind == "table":
            acc.update(r.anchor for r in b.b if isinstance(r, Row) and r.anchor)
        elif b.kind == "details":
            _anchored_ids(b.b, acc)
        elif b.kind == "group":
            _anchored_ids(b.a, acc)
    return acc


def _other_section(doc: dict, anchored: set) -> list[Block]:
    """Every result not shown elsewhere (benchmarks' individual slopes, consistency, truncation, …)."""
    rest = [c for c in doc["claims"] if cid(c) not in anchored]
    if not rest:
        return []
    return [H(2, f"Other results ({len(rest)})", "other"), _result_table(rest, doc.get("tier") or "quick")]


_LINK = re.compile(r"\[([^\]]+)\]\(#([^)\s]+)\)")


def _prune_links(blocks: list[Block], anchors: set) -> None:
    """Links to anchors this report does not define become plain text (e.g. a cell of a table not rendered)."""
    def fix(s):
        if isinstance(s, str):
            return _LINK.sub(lambda m: m.group(0) if m.group(2) in anchors else m.group(1), s)
        return s

    for b in blocks:
        if b.kind == "h":
            b.b = fix(b.b)
        elif b.kind == "p":
            b.a = fix(b.a)
        elif b.kind == "list":
            b.a = [fix(x) for x in b.a]
        elif b.kind == "table":
            for r in b.b:
                cells = r.cells if isinstance(r, Row) else r
                cells[:] = [fix(x) for x in cells]
        elif b.kind == "details":
            _prune_links(b.b, anchors)
        elif b.kind == "group":
            _prune_links(b.a, anchors)


#: problems listed on the report's first screen (the rest are one click away)
GLANCE_PROBLEMS = 5


def _at_a_glance(doc: dict) -> list[Block]:
    """The first screen: problems with the paper by severity, the worst few named."""
    groups = group_findings(doc)
    if not groups:
        return []
    by = ", ".join(f"{sum(1 for g in groups if g.severity == s)} {s}" for s in SEVERITIES
                   if any(g.severity == s for g in groups))
    top = [f"{link(g.title, anchor_id('p', g.key))} — {g.severity}, "
           f"{f'{len(g.records)} records' if g.records else 'in the text, not measured'}, "
           f"{_label_links(g.label)}" for g in groups[:GLANCE_PROBLEMS]]
    more = len(groups) - GLANCE_PROBLEMS
    return [P(f"**{len(groups)} problems with the paper** ({by})" + (f"; the first {GLANCE_PROBLEMS} of "
              f"{link('all', 'problems')}:" if more > 0 else ":")), LIST(top)]


def _toc(blocks: list[Block]) -> list[Block]:
    items = [f"{link(b.b, b.anchor)}" for b in blocks if b.kind == "h" and b.a == 2 and b.anchor]
    return [Block("toc", items)]


def build(doc: dict, manifest: dict | None) -> list[Block]:
    s = doc.get("summary") or {}
    counts = ", ".join(f"{n} {k}" for k, n in (s.get("status") or {}).items() if n)
    verdict = "OK" if s.get("exit_code") == 0 else "FAILED"
    manifest = manifest or {}
    head = [H(1, "mixbounds verify — report"),
            P(f"Numerical check of the complexity theorems of *{PAPER}*."),
            P(f"**{verdict}** — {s.get('results', 0)} results ({counts or 'none'}); negative controls caught "
              f"{s.get('controls_caught', 0)}/{s.get('controls_total', 0)}; {len(doc.get('findings') or [])} finding "
              f"records; tier `{doc.get('tier')}`; wall time "
              f"{_num(doc.get('wall_time')) or 0:.1f} s; code version "
              f"`{(doc.get('versions') or {}).get('code_version')}`.")]
    head += _at_a_glance(doc)
    if doc.get("tier") == "tiny":
        head.append(P("Tier `tiny` is a smoke test (3-point sweeps over half a decade): not a verdict anyone "
                      "should cite."))
    idx = _index(doc)
    tables = [1] + [t for t in (2, 3, 4) if any(c.startswith(f"T{t}.") for c, _ in idx)]
    body = how_to_read(doc) + _problems_section(doc) + _labels_section(doc, manifest)
    for t in tables:
        body += _table_section(doc, t, idx)
    body += _certificates_section(doc)
    body += _own_lower_section(doc)
    body += pep_section(doc) + not_exercised_section(doc) + dominance_section(doc) + factors_section(doc)
    body += _overview_figures(manifest)
    body += _sweep_sections(doc, idx, manifest)
    body += _lemma_section(doc)
    body += _bench_section(doc, manifest)
    body += _controls_section(doc)
    body += _tolerances_section()
    body += _failures_section(doc)
    body += _other_section(doc, _anchored_ids(body, set()))
    body += _run_section(doc)
    blocks = head + _toc(body) + [HTML_ONLY(_controls(doc))] + body
    _prune_links(blocks, _anchored_ids(blocks, set()))
    return blocks


def _controls(doc: dict) -> str:
    present = {k: set() for k in "sco"}
    for c in doc.get("claims", []):
        for k, v in _filter_data(c).items():
            present[k].add(v)
    classes = [(k, v) for k, v in CLASS_LABELS.items() if k in present["c"]]
    oracles = [(k, v) for k, v in ORACLE_LABELS.items() if k in present["o"]]
    return controls_html([s for s in STATUSES if s in present["s"]], classes, oracles)


# ----------------------------------------------------------------------------- rendering
def _render_toc_md(blocks: list[Block]) -> list[Block]:
    return [LIST(b.a) if b.kind == "toc" else b for b in blocks]


def render_markdown(doc: dict, manifest: dict | None = None, *, base=None) -> str:
    """``report.md``; figure paths relative to ``base`` (the output directory)."""
    out: list[str] = []
    render_md(_render_toc_md(build(doc, manifest)), None if base is None else Path(base), out)
    return "\n".join(out).rstrip() + "\n"


def render_html(doc: dict, manifest: dict | None = None, *, base=None) -> str:
    """``report.html``: one file, figures linked relative to ``base`` (the directory report.html is written to)."""
    blocks = build(doc, manifest)
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<script>{ERROR_HOOK}</script>",
           f"<title>mixbounds verify — tier {html.escape(str(doc.get('tier')))}</title>",
           f"<style>{CSS}</style></head><body>"]
    rest = []
    for b in blocks:
        if b.kind == "toc":
            rest.append(HTML_ONLY('<nav class="toc" id="toc"><h2>Contents</h2><ol>'
                                  + "".join(f"<li>{inline(x)}</li>" for x in b.a) + "</ol></nav>"))
        else:
            rest.append(b)
    render_html_blocks(rest, None if base is None else Path(base), out)
    out.append(f"<script>{SCRIPT}</script>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"
