"""Output of ``mixbounds bench``: the verdict table, figures and ``report.md``/``report.html``.

Rendered from the bench document only (what ``bench.json`` holds).  Figures overlay, per class × family ×
oracle × parameter, the user's method, the paper's method (APAPC + Chebyshev) and the lower-bound engine's
bound, all per decade of accuracy (the method's and APAPC's per-accuracy cost between ε₁ = 1e-2 and
ε₂ = 1e-6 divided by the 4 decades; the engine's per-accuracy bound divided by its window,
:data:`mixbounds.checks.lower.slopes.LB_DECADES`).  The Markdown/HTML renderers are those of ``mixbounds verify``'s report.
"""

from __future__ import annotations

import math
import sys
from html import escape as html_escape
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from mixbounds.checks.sweeps import UB_EPS1, UB_EPS2
from mixbounds.report.blocks import CSS, SCRIPT_LAZY, render_html_blocks, render_md
from mixbounds.report.verify import IMG, LIST, H, P, T, V

DECADES = math.log10(UB_EPS1 / UB_EPS2)
STATUS_STYLE = {"optimal": "green", "suboptimal": "yellow", "inconclusive": "cyan", "below-lower-bound": "bold red",
                "error": "bold magenta"}
#: report verdict colours reuse verify's classes (pass / finding / skipped / fail / error)
_V_CLASS = {"optimal": "pass", "suboptimal": "finding", "inconclusive": "skipped", "below-lower-bound": "fail",
            "error": "error"}


def _f(v, d: int = 3) -> str:
    return "—" if v is None or (isinstance(v, float) and not math.isfinite(v)) or isinstance(v, str) else f"{v:.{d}f}"


def _ci(r: dict) -> str:
    ci = r.get("ci")
    if not ci or any(isinstance(c, str) for c in ci):
        return "—"
    return f"[{ci[0]:.2f}, {ci[1]:.2f}]"


def _band(r: dict) -> str:
    b = r.get("band")
    if not b or any(isinstance(c, str) and c not in ("-inf", "inf") for c in b):
        return "—"
    lo, hi = (float(c) for c in b)
    return f"[{lo:.2f}, {hi:.2f}]" if math.isfinite(lo) else f"≤ {hi:.2f}"


def _range(r: dict) -> str:
    g = r.get("range") or {}
    if not isinstance(g.get("lo"), (int, float)):
        return "—"
    return f"{g['lo']:.3g}–{g['hi']:.3g} ({_f(g.get('decades'), 1)} dec)"


def _list(r: dict, key: str) -> str:
    """Per point, two significant digits (ratios span 0.03 to 300)."""
    rs = [p.get(key) for p in r.get("points", [])]
    return "—" if not any(isinstance(q, (int, float)) for q in rs) else ", ".join(
        "—" if not isinstance(q, (int, float)) else f"{q:.2g}" for q in rs)


def _per_iter(r: dict) -> str:
    vs = [p["per_iteration"] for p in r.get("points", []) if isinstance(p.get("per_iteration"), (int, float))]
    if not vs:
        return "—"
    lo, hi = min(vs), max(vs)
    return f"{lo:.3g}" if lo == hi else f"{lo:.3g}–{hi:.3g}"


def _points(r: dict) -> str:
    pts = r.get("points") or []
    cen = sum(bool(p.get("censored")) for p in pts)
    return f"{len(pts)}" + (f" ({cen} cens.)" if cen else "")


def rows(doc: dict) -> list[list]:
    """One row per result: class, family, oracle, parameter, slope, CI, R², points, range, band, per-iteration
    counts, ratio to APAPC and to the lower bound per point, verdict."""
    out = []
    for r in doc["results"]:
        out.append([r["class"], r["family"], r["oracle"], r["param"], _f(r.get("slope")), _ci(r), _f(r.get("r2")),
                    _points(r), _range(r), _band(r), _per_iter(r), _list(r, "ratio_apapc"), _list(r, "ratio"),
                    r["status"]])
    return out


HEADERS = ["class", "family", "oracle", "param", "slope", "95% CI", "R²", "points", "range", "band (optimal)",
           "per iteration", "× APAPC per point", "× lower bound per point", "verdict"]


def notes(doc: dict) -> list[str]:
    """What the table cannot hold: why a result is error / below-lower-bound, what would decide an inconclusive one,
    and the flags (non-monotone counts, errors that left ε again, budget-censored points)."""
    out = []
    for r in doc["results"]:
        if r["status"] in ("error", "below-lower-bound"):
            out.append(f"{r['id']}: {r['status']}: {r['detail']}")
        elif r["status"] == "inconclusive" and r.get("decide"):
            out.append(f"{r['id']}: inconclusive: {r['decide']}")
        out += [f"{r['id']}: flag: {f}" for f in r.get("flags") or []]
    return out


def print_table(doc: dict) -> None:
    con = Console(file=sys.stdout, highlight=False, width=None if sys.stdout.isatty() else 200)
    t = Table(title=f"mixbounds bench — {doc['method']} — tier {doc['tier']}")
    for h in HEADERS:
        t.add_column(h)
    for row in rows(doc):
        st = row[-1]
        t.add_row(*[escape(str(x)) for x in row[:-1]], f"[{STATUS_STYLE.get(st, '')}]{st}[/]")
    con.print(t)
    for line in doc.get("summary", []):
        con.print(escape(line))
    for line in notes(doc):
        con.print(escape(line))


def figure(r: dict, method: str):
    """The method, APAPC and the engine's bound against the realized parameter (log-log, per decade of accuracy)."""
    from mixbounds.plots.style import (  # lazy: matplotlib, +0.6 s of start-up (mixbounds.plots)
        LOWER_STYLES,
        THEORY_STYLE,
        UPPER_STYLE,
        new_figure,
        x_label,
        y_label,
    )

    fig = new_figure(3.6, 2.8)
    ax = fig.add_subplot()
    pts = r.get("points") or []
    xs = [p["realized"] for p in pts]
    if xs:
        ax.plot(xs, [p["per_accuracy"] / DECADES for p in pts], ls="-", color="#2c3e50", marker="o",
                label=f"{method} (slope {_f(r.get('slope'), 2)})")
    ap = r.get("apapc") or {}
    if ap.get("x"):
        ax.plot(ap["x"], [y / DECADES for y in ap["y"]], ls="--", **UPPER_STYLE,
                label=f"APAPC + Chebyshev (slope {_f(ap.get('slope'), 2)})")
    lb = [(p["realized"], p.get("lower_per_decade")) for p in pts if p.get("lower_per_decade")]
    if lb:
        ax.plot(*zip(*lb), ls=":", **LOWER_STYLES[0],
                label=f"engine lower bound (slope {_f((r.get('lower') or {}).get('slope'), 2)})")
    if xs and pts:
        x0, y0 = xs[0], pts[0]["per_accuracy"] / DECADES
        th = r.get("reference")
        if th is not None and math.isfinite(th):
            ax.plot([x0, xs[-1]], [y0, y0 * (xs[-1] / x0) ** th], **THEORY_STYLE, label=f"reference slope {th:.2f}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(x_label(r["param"]))
    ax.set_ylabel(y_label(r["oracle"]).replace("per accuracy", "per decade"))
    ax.set_title(f"{r['class']} [{r['family']}]: {r['status']}", fontsize=8)
    ax.legend(fontsize=6)
    return fig


def draw(doc: dict, plot_dir: Path) -> dict:
    """One PNG per result with points; ``{result id: path}``."""
    from mixbounds.plots.style import save, style_context  # lazy: matplotlib, +0.6 s of start-up (mixbounds.plots)

    out = {}
    with style_context():
        for r in doc["results"]:
            if not r.get("points"):
                continue
            stem = plot_dir / r["id"].replace("@", "_at_").replace("/", "_")
            out[r["id"]] = str(save(figure(r, doc["method"]), stem, formats=("png",))[0])
    return out


def _apapc_setup(doc: dict) -> str:
    """APAPC's constants-estimation rounds over the run's sweeps, per oracle (``0`` with the lemma's constants)."""
    tot: dict = {}
    for r in doc["results"]:
        n = (r.get("apapc") or {}).get("setup_counts")
        if n is not None:
            tot[r["oracle"]] = tot.get(r["oracle"], 0) + int(n)
    return ", ".join(f"{k} {v}" for k, v in tot.items()) or "not recorded"


def blocks(doc: dict, figs: dict) -> list:
    counts = {s: sum(r["status"] == s for r in doc["results"]) for s in _V_CLASS}
    b = [H(1, f"mixbounds bench — `{doc['method']}`"),
         P(f"Tier {doc['tier']}, classes {', '.join(doc['classes'])}; {len(doc['results'])} results: "
           + ", ".join(f"{v} {k}" for k, v in counts.items()) + f"; {doc['stats'].get('wall_time', 0):.1f} s wall."),
         P("Slopes of the per-accuracy count (ε 1e-2 → 1e-6, counted where the error stays below each level) "
           "against the realized parameter, with their 95% CI and R². The band is what an optimal method's slope may "
           "be: on the worst-case construction the lower bound's exponent ± tol (the engine's lower-bound slope where "
           "the engine certifies the paper's exponent on the printed construction, else the paper's exponent), on a "
           "random family at most the paper's exponent + tol. Verdicts: optimal (the whole CI inside the band), "
           "suboptimal (the whole CI above it), inconclusive (neither: the notes say what would decide), "
           "below-lower-bound (a count below the engine's bound: impossible in the class), error. A run that ended at "
           "the budget is censored: its count is a lower bound, used for suboptimal only. Set-up: the per-accuracy "
           "counts are "
           "differences between two error levels and leave out the rounds before the first iteration; the counts to "
           "an error level (the below-lower-bound test) include them, constants estimation too (each result's "
           "`counts_basis`; APAPC's `setup_counts`: "
           + _apapc_setup(doc) + ")."),
         H(2, "Summary"), LIST(doc.get("summary", [])), H(2, "Verdicts")]
    b.append(T(HEADERS, [row[:-1] + [V(_V_CLASS[row[-1]], row[-1])] for row in rows(doc)]))
    nts = notes(doc)
    if nts:
        b += [H(2, "Notes"), LIST(nts)]
    b.append(H(2, "Details"))
    b.append(LIST([f"`{r['id']}`: {r['status']} — {r['detail']}" for r in doc["results"]]))
    b.append(H(2, "Figures"))
    b += [IMG(figs[r["id"]], f"{r['id']}: {r['status']}") for r in doc["results"] if r["id"] in figs]
    return b


def write_report(doc: dict, out: Path) -> dict:
    """Figures into ``out/plots``, then ``out/report.md`` and ``out/report.html``; returns the figure paths."""
    figs = draw(doc, Path(out) / "plots")
    bl = blocks(doc, figs)
    md: list[str] = []
    render_md(bl, Path(out), md)
    (Path(out) / "report.md").write_text("\n".join(md).rstrip() + "\n")
    html = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
            f"<title>mixbounds bench — {html_escape(str(doc['method']))}</title>", f"<style>{CSS}</style></head><body>"]
    render_html_blocks(bl, Path(out), html)  # figures linked relative to out (not embedded)
    html.append(f"<script>{SCRIPT_LAZY}</script></body></html>")
    (Path(out) / "report.html").write_text("\n".join(html) + "\n")
    return figs
