"""The reviewer's report of a ``mixbounds verify`` run: ``report.md`` and a self-contained ``report.html``.

Both are rendered from the results document only (the same one written to
``results.json``) plus the figure manifest of :func:`plots.draw_all`:

1. verdict line and summary (counts per status, controls caught, findings);
2. the paper's Table 1 (and Tables 2-4 where results exist) with the printed
   formula (:func:`bounds.render.format_terms`) and, for every parameter of the
   row, the claimed exponent θ, the solver's measured slope ± 95% CI with its
   verdict and the lower-bound engine's slope ± CI with its verdict (printed
   construction and documented variants);
3. figures: the heat-map of measured/claimed exponents, one panel per problem
   class, one figure per (cell, parameter) — embedded in the HTML as PNG data
   URIs (no external files), linked by relative path in the Markdown;
4. one section per finding (what the paper says, what was measured, label, detail);
5. the lemma checks; other checks (benchmarks, closed forms, …);
6. the negative controls (caught or not); failures and errors with their detail;
7. the run: tier, wall time, versions, code version, seeds, statistics.

The content is built once as a list of blocks and rendered twice.
"""

from __future__ import annotations

import base64
import html
import os
from dataclasses import dataclass, field
from pathlib import Path

from mixbounds.bounds.claims import CLASS_LABELS, ORACLE_LABELS, PARAMS, TABLES
from mixbounds.bounds.render import format_terms, table_rows

PAPER = "D. Yarmoshik, N. T. Nguyen, A. Rogozin, A. Gasnikov, Complexity of Decentralized Optimization with Mixed Affine Constraints"
PARAM_ORDER = ("kappa_f", "kappa_A", "kappa_Ct", "kappa_AC", "kappa_C", "kappa_Ct_id", "kappa_W", "LR2_eps", "MR_eps", "M_mu_eps")
UPPER_KINDS = ("upper", "tight", "absent")


# ----------------------------------------------------------------------------- blocks
@dataclass
class V:
    """A verdict cell (coloured in HTML, emphasised in Markdown when bad)."""

    status: str
    text: str = ""

    def md(self) -> str:
        t = self.text or self.status
        return f"**{t}**" if self.status in ("fail", "error", "not caught") else t


@dataclass
class Block:
    kind: str  # h, p, table, img, details, kv, pre, list
    a: object = None
    b: object = None
    c: list = field(default_factory=list)


def H(level, text):
    return Block("h", level, text)


def P(text):
    return Block("p", text)


def T(headers, rows):
    return Block("table", headers, rows)


def IMG(path, caption):
    return Block("img", path, caption)


def DETAILS(summary, blocks):
    return Block("details", summary, blocks)


def LIST(items):
    return Block("list", items)


# ----------------------------------------------------------------------------- helpers
def _num(v):
    from mixbounds.plots.data import finite

    return finite(v)


def _slope(c: dict) -> str:
    from mixbounds.plots.data import fmt_slope

    return fmt_slope(c, 3)


def _val(v, limit: int | None = None) -> str:
    if v is None:
        return "—"
    if isinstance(v, float):
        s = f"{v:.4g}"
    elif isinstance(v, dict):
        s = "; ".join(f"{k}: {_val(x)}" for k, x in v.items())
    elif isinstance(v, (list, tuple)):
        s = ", ".join(_val(x) for x in v)
        s = f"[{s}]"
    else:
        s = str(v)
    if limit and len(s) > limit:
        s = s[: limit - 1] + "…"
    return s


def _theta(x: float) -> str:
    from fractions import Fraction

    fr = Fraction(x).limit_denominator(8)
    return str(fr) if abs(float(fr) - x) < 1e-9 else f"{x:g}"


def _variant(c: dict) -> str:
    from mixbounds.plots.data import variant_of

    return variant_of(c)


def _index(doc: dict):
    """(cell, param) → {"upper": [...], "lower": [...]}; plus the cells any result touches."""
    from mixbounds.plots.data import cell_param

    idx: dict = {}
    for c in doc["claims"]:
        if c.get("control") or c.get("kind") not in UPPER_KINDS + ("lower",):
            continue
        cp = cell_param(c)
        if cp is None:
            continue
        e = idx.setdefault(cp, {"upper": [], "lower": []})
        e["lower" if c["kind"] == "lower" else "upper"].append(c)
    return idx


def _class_params(cls: str) -> tuple:
    try:
        from .sweeps import CLASS_FAMILIES
    except Exception:  # noqa: BLE001 - the report must render without the measurement modules
        return ()
    return CLASS_FAMILIES.get(cls, (None, None, ()))[2]


def _verdict_cells(results: list[dict], lower: bool) -> tuple[str, V | str]:
    """Slope text (per variant, with its own verdict when there are several) and the worst verdict."""
    if not results:
        return "not measured", ""
    parts, verdicts = [], []
    for c in results:
        verdicts.append(c["status"])
        if len(results) > 1 or (lower and _variant(c) != "printed"):
            parts.append(f"{_variant(c)}: {_slope(c)}" + (f" ({c['status']})" if len(results) > 1 else ""))
        else:
            parts.append(_slope(c))
    worst = next((s for s in ("error", "fail", "finding", "skipped", "pass") if s in verdicts), verdicts[0])
    return "; ".join(parts), V(worst)


# ----------------------------------------------------------------------------- content
def _table_section(doc: dict, t: int, idx: dict) -> list[Block]:
    label, _, title = TABLES[t]
    blocks = [H(2, f"Table {t}: {title}"),
              P(f"Paper label `{label}`. θ is the exponent of the parameter in the printed formula (0: absent, "
                f"the slope must be ≈ 0). Slopes are log-log fits of the per-accuracy oracle count against the realized "
                f"parameter, ± half-width of the 95% confidence interval. Upper-bound cells pass when slope ≤ θ + tol, "
                f"tight cells when |slope − θ| ≤ tol; the lower-bound engine bounds every method of Definition `def:foda` "
                f"for matrix and communication counts, and of `def:foda` *without* ∇f_i* for gradient counts (∇f_i* "
                f"fills the sum-trick chain in one call: finding `def:foda`); it is run on the paper's worst-case "
                f"construction as printed and on documented variants. A tight cell reads `tight` only with a "
                f"lower-bound certificate (section Lower-bound certificates).")]
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
        if not measured:
            rows.append(head + ["—", "", "not measured", "", "not measured", ""])
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
            rows.append((head if i == 0 else ["", "", "", ""]) + [PARAMS[p][0] if p in PARAMS else p, theta, us, uv, ls, lv])
    blocks.append(T(["Problem", "Oracle", "Complexity (printed)", "Claim", "Param", "θ", "Solver slope ± CI", "Verdict",
                     "Lower-bound slope ± CI", "Verdict"], rows))
    return blocks


def _certificates_section(doc: dict) -> list[Block]:
    """One row per optimality statement (checks/certificates.py): certificate, per parameter, the reason of a none."""
    lbc = (doc.get("summary") or {}).get("lower_bound_certificates") or {}
    if not lbc.get("total"):
        return []
    from mixbounds.checks.certificates import summary_line

    rows = []
    for st in lbc["statements"]:
        per = "; ".join(f"{PARAMS[p][0] if p in PARAMS else p}: {c['certificate']}"
                        + (f" (ratio slope {c['tightness']['slope']:+.3f})" if (c.get("tightness") or {}).get("slope") is not None else "")
                        for p, c in st["params"].items())
        why = " ".join(c.get("reason", "") for c in st["params"].values() if c["certificate"] in ("none", "refuted"))
        rows.append([st["statement"], st["certificate"], per, why[:600]])
    flat = lbc.get("ratios_not_flat") or []
    return [H(2, "Lower-bound certificates"), P(summary_line(lbc) + ". Tightness ratios (solver / engine, per decade) "
            + ("flat for every certified statement." if not flat else f"not flat: {', '.join(flat)}.")),
            T(["Statement", "Certificate", "Per parameter", "Why not certified"], rows)]


def _figure_section(doc: dict, manifest: dict) -> list[Block]:
    if not manifest or not (manifest.get("cells") or manifest.get("classes") or manifest.get("heatmap")):
        return []
    blocks = [H(2, "Figures"),
              P("Per-accuracy oracle counts against the realized swept parameter (log-log): solver counts (filled "
                "markers), lower-bound engine (open markers), fitted lines with slope ± 95% CI, and the claimed slope "
                "through the middle point (dashed). PNG and SVG of every figure are in `plots/`.")]
    if manifest.get("heatmap"):
        blocks.append(IMG(_png(manifest["heatmap"]), "Measured / claimed exponent per table cell × parameter."))
    for key, paths in manifest.get("classes", {}).items():
        t, _, cls = key.partition(".")
        blocks.append(IMG(_png(paths), f"{key}: {CLASS_LABELS.get(cls, cls)}, every oracle × parameter."))
    by_class: dict = {}
    for key, paths in manifest.get("cells", {}).items():
        cell, _, param = key.partition("|")
        by_class.setdefault(".".join(cell.split(".")[:2]), []).append(
            IMG(_png(paths), f"{cell} vs {PARAMS[param][0] if param in PARAMS else param}"))
    for cls, imgs in by_class.items():
        blocks.append(DETAILS(f"{cls}: one figure per (cell, parameter) ({len(imgs)})", imgs))
    if manifest.get("errors"):
        blocks.append(P("Figures that could not be drawn: " + "; ".join(manifest["errors"])))
    return blocks


def _png(paths) -> Path | None:
    for p in paths or []:
        if str(p).endswith(".png"):
            return Path(p)
    return None


def _findings_section(doc: dict) -> list[Block]:
    fnd = doc.get("findings") or []
    if not fnd:
        return [H(2, "Findings"), P("No finding: every measured statement agrees with the paper within its tolerance.")]
    blocks = [H(2, f"Findings ({len(fnd)})"),
              P("A finding is a disagreement between the paper's statement and the numbers that the suite can name "
                "(a constant, a construction, a formula). It is a verdict, not a failure of the run.")]
    for f in fnd:
        blocks += [H(3, f"{f.get('id')}"),
                   T(["", ""], [["Paper label", f"`{f.get('label')}`"], ["What the paper says", _val(f.get("statement"))],
                                ["Printed value", _val(f.get("printed"))], ["Measured", _val(f.get("measured"))],
                                ["Check", f"`{f.get('source')}`"], ["Detail", _val(f.get("detail"))]])]
    return blocks


def _result_table(claims: list[dict]) -> Block:
    rows = [[f"`{c['id']}`", f"`{c.get('label')}`" if c.get("label") else "—", _val(c.get("theory")),
             _slope(c) if _num(c.get("measured")) is not None else _val(c.get("measured")), _val(c.get("tolerance")),
             V(c["status"]), _val(c.get("detail"))] for c in claims]
    return T(["Check", "Label", "Statement / theory", "Measured", "Tolerance", "Verdict", "Detail"], rows)


def _lemma_section(doc: dict) -> list[Block]:
    lem = [c for c in doc["claims"] if not c.get("control") and (c["id"].startswith("lemma.") or c["kind"] in ("lemma", "closed-form"))]
    if not lem:
        return []
    return [H(2, f"Lemma checks ({len(lem)})"),
            P("Both sides of every lemma and closed form the proofs rest on, on many seeded cases; `measured` is the "
              "worst observed ratio of the two sides (≥ 1 holds) unless stated otherwise."), _result_table(lem)]


def _bench_section(doc: dict, manifest: dict) -> list[Block]:
    """Per class: method × oracle rows, one column per (parameter, family) with the fitted slope ± CI."""
    from mixbounds.plots.bench import parse_bench_id

    bench = [c for c in doc["claims"] if c["id"].startswith("bench.") and not c.get("control")]
    if not bench:
        return []
    blocks = [H(2, "Benchmarks: baselines vs APAPC"),
              P("Per-accuracy counts of every method on the same sweeps (worst-case construction and random family), "
                "fitted log-log slopes ± 95% CI. Slopes are reported, not judged; `skipped` means the method did not reach "
                "two measured points (budget) and the detail says why. `consistency`: no method's count to an error "
                "level is below the lower-bound engine's count on the same instance.")]
    by_cls: dict = {}
    for c in bench:
        b = parse_bench_id(c["id"])
        if b is None:
            by_cls.setdefault(c["id"].split(".")[1], {}).setdefault("_consistency", []).append(c)
            continue
        by_cls.setdefault(b["class"], {})[(b["method"], b["oracle"], b["param"], b["family"])] = c
    for cls, d in by_cls.items():
        cols = []
        for k in d:
            if k != "_consistency" and (k[2], k[3]) not in cols:
                cols.append((k[2], k[3]))
        rows_keys = []
        for k in d:
            if k != "_consistency" and (k[0], k[1]) not in rows_keys:
                rows_keys.append((k[0], k[1]))
        rows = []
        for m, o in rows_keys:
            row = [m, o]
            for p, fam in cols:
                c = d.get((m, o, p, fam))
                row.append("" if c is None else (_slope(c) if c["status"] == "pass" else V(c["status"])))
            rows.append(row)
        head = ["Method", "Oracle"] + [f"{PARAMS[p][0] if p in PARAMS else p} ({'worst' if f == 'worst' else f})"
                                       for p, f in cols]
        blocks += [H(3, CLASS_LABELS.get(cls, cls)), T(head, rows)]
        cons = d.get("_consistency") or []
        if cons:
            blocks.append(LIST([f"{V(c['status']).md()} `{c['id']}`: {_val(c.get('detail'))}" for c in cons]))
        imgs = [IMG(_png(paths), f"{key}: all methods") for key, paths in (manifest or {}).get("bench", {}).items()
                if key.split(".")[0] == cls]
        if imgs:
            blocks.append(DETAILS(f"{cls}: one figure per oracle ({len(imgs)})", imgs))
    return blocks


def _other_section(doc: dict) -> list[Block]:
    other = [c for c in doc["claims"] if not c.get("control") and c["kind"] not in UPPER_KINDS + ("lower", "lemma", "closed-form", "bench")
             and not c["id"].startswith(("lemma.", "bench."))]
    if not other:
        return []
    return [H(2, f"Other checks ({len(other)})"), _result_table(other)]


def _sweep_details_section(doc: dict) -> list[Block]:
    sw = [c for c in doc["claims"] if not c.get("control") and c["kind"] in UPPER_KINDS + ("lower",)]
    if not sw:
        return []
    rows = [[f"`{c['id']}`", c["kind"], _val(c.get("theory")), _slope(c), _val(c.get("r2")), _val(c.get("tolerance")),
             V(c["status"]), _val(c.get("detail"))] for c in sw]
    return [DETAILS(f"All slope checks ({len(sw)}): ids, R², details",
                    [T(["Check", "Kind", "θ", "Slope ± CI", "R²", "Tol", "Verdict", "Detail"], rows)])]


def _controls_section(doc: dict) -> list[Block]:
    ctl = doc.get("controls") or {}
    items = ctl.get("items") or []
    if not items:
        return [H(2, "Negative controls"), P("No negative control was selected in this run.")]
    by_id = {c["id"]: c for c in doc["claims"]}
    rows = []
    for it in items:
        c = by_id.get(it["id"], {})
        rows.append([f"`{it['id']}`", it.get("kind", ""), _val(c.get("theory")),
                     _slope(c) if _num(c.get("measured")) is not None else _val(c.get("measured"), 120),
                     it["status"], V("pass" if it["caught"] else "not caught", "caught" if it["caught"] else "not caught"),
                     _val(it.get("detail"))])
    return [H(2, f"Negative controls: {ctl.get('caught')}/{ctl.get('total')} caught"),
            P("Each control is a check built to fail (a solver without acceleration, a wrong exponent, a truncated "
              "chain, …). It is caught when its status is `fail`; a control that passes means its family cannot fail."),
            T(["Control", "Kind", "Theory", "Measured", "Status", "Caught", "Detail"], rows)]


def _tolerances_section() -> list[Block]:
    """The verdict-deciding tolerances with their values, probes and reasons (checks/tolerances.py)."""
    from mixbounds.checks.tolerances import TABLE_HEADERS, table_rows

    return [H(2, "Tolerances"), P("Every named tolerance that decides a verdict; the boundary controls "
                                  "(ids starting `tolerance.` and `control.tolerance.`) check that it accepts the "
                                  "perturbation under Must pass and rejects the one under Must fail."), T(list(TABLE_HEADERS), table_rows())]


def _failures_section(doc: dict) -> list[Block]:
    bad = [c for c in doc["claims"] if not c.get("control") and c["status"] in ("fail", "error")]
    if not bad:
        return []
    return [H(2, f"Failures and errors ({len(bad)})"),
            LIST([f"**{c['status']}** `{c['id']}`: {_val(c.get('detail'))}" for c in bad])]


def _run_section(doc: dict) -> list[Block]:
    st, ver = doc.get("stats") or {}, doc.get("versions") or {}
    rows = [["Tier", doc.get("tier")], ["Claims glob", f"`{doc.get('claims_glob')}`"], ["Command", f"`{doc.get('command') or ''}`"],
            ["Started (UTC)", doc.get("started")], ["Finished (UTC)", doc.get("finished")],
            ["Wall time", f"{_num(doc.get('wall_time')) or 0:.1f} s"], ["Jobs", st.get("jobs")],
            ["Sweep points", f"{st.get('tasks')} ({st.get('computed')} computed, {st.get('cached')} from the cache)"],
            ["Cache", st.get("cache") or "off"], ["Code version", f"`{ver.get('code_version')}`"]]
    rows += [[k, v] for k, v in ver.items() if k != "code_version"]
    blocks = [H(2, "Run"), T(["", ""], [[str(a), _val(b)] for a, b in rows])]
    seeds = doc.get("seeds") or {}
    if seeds:
        blocks.append(DETAILS(f"Seeds ({len(seeds)} checks use seeded instances; all others are deterministic)",
                              [T(["Check", "Seeds"], [[f"`{k}`", _val(v, 300)] for k, v in seeds.items()])]))
    return blocks


def build(doc: dict, manifest: dict | None) -> list[Block]:
    s = doc.get("summary") or {}
    counts = ", ".join(f"{n} {k}" for k, n in (s.get("status") or {}).items() if n)
    verdict = "OK" if s.get("exit_code") == 0 else "FAILED"
    blocks = [H(1, "mixbounds verify — report"),
              P(f"Numerical check of the complexity theorems of *{PAPER}*."),
              P(f"**{verdict}** — {s.get('results', 0)} results ({counts or 'none'}); negative controls caught "
                f"{s.get('controls_caught', 0)}/{s.get('controls_total', 0)}; {len(doc.get('findings') or [])} findings; "
                f"tier `{doc.get('tier')}`; wall time {_num(doc.get('wall_time')) or 0:.1f} s; code version "
                f"`{(doc.get('versions') or {}).get('code_version')}`.")]
    if doc.get("tier") == "tiny":
        blocks.append(P("Tier `tiny` is a smoke test (3-point sweeps over half a decade): not a verdict anyone should cite."))
    idx = _index(doc)
    tables = [1] + [t for t in (2, 3, 4) if any(c.startswith(f"T{t}.") for c, _ in idx)]
    for t in tables:
        blocks += _table_section(doc, t, idx)
    blocks += _certificates_section(doc)
    blocks += _sweep_details_section(doc)
    blocks += _figure_section(doc, manifest or {})
    blocks += _findings_section(doc)
    blocks += _lemma_section(doc)
    blocks += _bench_section(doc, manifest or {})
    blocks += _other_section(doc)
    blocks += _controls_section(doc)
    blocks += _tolerances_section()
    blocks += _failures_section(doc)
    blocks += _run_section(doc)
    return blocks


# ----------------------------------------------------------------------------- Markdown
def _md_cell(v) -> str:
    s = v.md() if isinstance(v, V) else str(v)
    return s.replace("|", "\\|").replace("\n", "<br>")


def _md(blocks: list[Block], base: Path | None, out: list[str]) -> None:
    for b in blocks:
        if b.kind == "h":
            out += ["#" * b.a + " " + b.b, ""]
        elif b.kind == "p":
            out += [b.a, ""]
        elif b.kind == "list":
            out += [f"- {x}" for x in b.a] + [""]
        elif b.kind == "table":
            out.append("| " + " | ".join(b.a) + " |")
            out.append("|" + "---|" * len(b.a))
            out += ["| " + " | ".join(_md_cell(x) for x in row) + " |" for row in b.b] + [""]
        elif b.kind == "img":
            if b.a is None:
                continue
            rel = os.path.relpath(b.a, base) if base is not None else str(b.a)
            out += [f"![{b.b}]({Path(rel).as_posix()})", "", f"*{b.b}*", ""]
        elif b.kind == "details":
            out += [f"<details><summary>{html.escape(b.a)}</summary>", ""]
            _md(b.b, base, out)
            out += ["</details>", ""]


def render_markdown(doc: dict, manifest: dict | None = None, *, base=None) -> str:
    out: list[str] = []
    _md(build(doc, manifest), None if base is None else Path(base), out)
    return "\n".join(out).rstrip() + "\n"


# ----------------------------------------------------------------------------- HTML
_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222;line-height:1.4}
table{border-collapse:collapse;margin:.6em 0 1.4em;font-size:.86em}
th,td{border:1px solid #ccc;padding:.25em .5em;vertical-align:top;text-align:left}
th{background:#f2f2f2}
code{background:#f4f4f4;padding:0 .2em;border-radius:3px;font-size:.92em}
.v{font-weight:600;white-space:nowrap}
.pass{color:#1e7b34}.finding{color:#a86400}.fail,.error,.not-caught{color:#b00020}.skipped{color:#777}
figure{margin:1em 0}figure img{max-width:100%;border:1px solid #eee}figcaption{font-size:.85em;color:#555}
details{margin:.6em 0}summary{cursor:pointer;font-weight:600}
"""


def _inline(s: str) -> str:
    """Escape, then turn `code` and **bold** / *italic* markers into tags."""
    import re

    s = html.escape(str(s))
    s = re.sub(r"`([^`]+)`", r"<code>\1</code>", s)
    s = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", s)
    s = re.sub(r"(?<![\w*])\*([^*]+)\*(?![\w*])", r"<em>\1</em>", s)
    return s


def _html_cell(v) -> str:
    if isinstance(v, V):
        cls = v.status.replace(" ", "-")
        return f'<span class="v {cls}">{html.escape(v.text or v.status)}</span>'
    return _inline(v)


def _html(blocks: list[Block], out: list[str]) -> None:
    for b in blocks:
        if b.kind == "h":
            out.append(f"<h{b.a}>{_inline(b.b)}</h{b.a}>")
        elif b.kind == "p":
            out.append(f"<p>{_inline(b.a)}</p>")
        elif b.kind == "list":
            out.append("<ul>" + "".join(f"<li>{_inline(x)}</li>" for x in b.a) + "</ul>")
        elif b.kind == "table":
            head = "".join(f"<th>{_inline(h)}</th>" for h in b.a)
            body = "".join("<tr>" + "".join(f"<td>{_html_cell(x)}</td>" for x in row) + "</tr>" for row in b.b)
            out.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
        elif b.kind == "img":
            if b.a is None or not Path(b.a).is_file():
                continue
            data = base64.b64encode(Path(b.a).read_bytes()).decode("ascii")
            out.append(f'<figure><img alt="{html.escape(b.b)}" src="data:image/png;base64,{data}">'
                       f"<figcaption>{_inline(b.b)}</figcaption></figure>")
        elif b.kind == "details":
            out.append(f"<details><summary>{_inline(b.a)}</summary>")
            _html(b.b, out)
            out.append("</details>")


def render_html(doc: dict, manifest: dict | None = None) -> str:
    """A single self-contained HTML file (figures embedded as PNG data URIs)."""
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>mixbounds verify — tier {html.escape(str(doc.get('tier')))}</title>", f"<style>{_CSS}</style></head><body>"]
    _html(build(doc, manifest), out)
    out.append("</body></html>")
    return "\n".join(out) + "\n"
