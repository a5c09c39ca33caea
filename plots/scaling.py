"""Log-log scaling figures: per-accuracy oracle counts against a realized κ.

Per (table cell, swept parameter) one axes shows

* the solver's per-accuracy counts (markers, from the ``.upper``/``.tight``/``.absent`` result),
* the lower-bound engine's per-accuracy counts (markers, from the matching ``.lower``
  result(s): the printed construction and any documented variant),
* a fitted line per series whose slope is the result's measured slope (legend:
  slope ± 95% CI and verdict; the line passes through the data's log-mean),
* the theory reference line with the claimed exponent through the middle point.

Artists carry ``gid`` s (``data:…``, ``fit:…``, ``theory``) that survive into the SVG.
"""

from __future__ import annotations

import math
import textwrap

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.mathtext import MathTextParser
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter, NullLocator
from mixbounds.bounds.claims import CLASS_LABELS, get
from mixbounds.bounds.concepts import ORACLES
from mixbounds.bounds.render import format_terms
from mixbounds.plots.data import SweepGroup, closed_text, fmt_slope, slope_reading, variant_of, xy
from mixbounds.plots.style import (
    LOWER_STYLES,
    THEORY_STYLE,
    UPPER_EXTRA_STYLES,
    new_figure,
    oracle_tex,
    param_tex,
    style_context,
    x_label,
    y_label,
)

ORACLE_ORDER = ORACLES
PARAM_ORDER = ("kappa_f", "kappa_A", "kappa_Ct", "kappa_AC", "kappa_C", "kappa_Ct_id", "kappa_W", "LR2_eps", "MR_eps", "M_mu_eps")
_VERDICT_MARK = {"pass": "pass", "fail": "FAIL", "finding": "finding", "error": "error", "skipped": "skipped"}


def _mathtext_ok(s: str) -> bool:
    try:
        MathTextParser("path").parse(s)
        return True
    except Exception:  # noqa: BLE001 - fall back to unicode text
        return False


def formula_tex(cell_id: str) -> str:
    """The cell's printed complexity as mathtext (unicode if mathtext cannot parse it; '' if unknown)."""
    try:
        cell = get(cell_id)
    except KeyError:
        return ""
    s = "$" + format_terms(cell.terms, style="latex") + "$"
    return s if _mathtext_ok(s) else format_terms(cell.terms)


def _fit_line(xs, ys, slope):
    """Line of the given slope through the log-mean of the data, over the data's x-range."""
    lx, ly = np.log(xs), np.log(ys)
    b = float(np.mean(ly - slope * lx))
    gx = np.geomspace(min(xs), max(xs), 20)
    return gx, np.exp(b + slope * np.log(gx))


def _series_label(res: dict, role: str) -> str:
    if role == "upper":
        inst = res.get("instance") or {}
        who = inst.get("method") or inst.get("solver") or (res.get("extra") or {}).get("method") or "solver"
        fam = inst.get("family")
        return f"{who}" + (f" on {fam}" if fam else "")
    v = variant_of(res)
    return f"lower-bound engine ({v})"


def legend_numbers(reading: dict) -> str:
    """The numbers of a series' legend entry, each named for what it is: ``fitted slope 0.49 ± 0.03``, and for a
    result read from a closed form ``closed-form exponent 0.5; fitted slope 0.445 [0.41, 0.48]`` (never the closed
    form's number under the fit's name: :func:`mixbounds.plots.data.slope_reading`)."""
    fit = "fitted slope " + fmt_slope({"measured": reading["fit"], "ci": reading["ci"]})
    if reading["closed"] is None:
        return fit
    return f"closed-form exponent {closed_text(reading['closed'])}; {fit}"


def draw_group(ax, group: SweepGroup, *, compact: bool = False) -> dict:
    """Draw one (cell, param) sweep group on ``ax``; returns ``{"handles", "labels", "series", "summary"}``."""
    handles, labels, summary = [], [], []
    series = 0
    allx, ally, first = [], [], None
    styled = [(r, "upper", UPPER_EXTRA_STYLES[i % len(UPPER_EXTRA_STYLES)]) for i, r in enumerate(group.upper)]
    styled += [(r, "lower", LOWER_STYLES[i % len(LOWER_STYLES)]) for i, r in enumerate(group.lower)]
    for res, role, st in styled:
        xs, ys = xy(res)
        if role == "upper":
            tag = "up" if len(group.upper) == 1 else f"up ({variant_of(res)})"
        else:
            tag = "LB" if variant_of(res) == "printed" else "LB′"
        verdict = _VERDICT_MARK.get(res.get("status"), res.get("status"))
        if not xs:  # no positive count (e.g. the oracle is not needed on this construction): say so
            name = _series_label(res, role)
            ph = Line2D([], [], ls="none", marker=st["marker"], color=st["color"], markerfacecolor="none", alpha=0.5)
            handles.append(ph)
            labels.append(f"{name}: no positive per-accuracy count ({verdict})")
            summary.append(f"{tag}: no positive count, {verdict}")
            continue
        series += 1
        allx += xs
        ally += ys
        if first is None:
            first = (xs, ys)
        name = _series_label(res, role)
        sc = ax.scatter(xs, ys, s=18 if compact else 22, marker=st["marker"], color=st["color"], zorder=3,
                        facecolors="none" if role == "lower" else st["color"], linewidths=1.1, label=name)
        sc.set_gid(f"data:{role}:{res['id']}")
        reading = slope_reading(res)
        slope = reading["fit"]  # the line drawn is the fit's, whatever number the verdict read
        if slope is not None and len(xs) >= 2:
            gx, gy = _fit_line(xs, ys, slope)
            (ln,) = ax.plot(gx, gy, color=st["color"], lw=1.1, ls="-" if role == "upper" else (0, (1, 1)), zorder=2)
            ln.set_gid(f"fit:{role}:{res['id']}")
            # one legend entry per series (markers over their fitted line): half the legend text to lay out
            handles.append((ln, sc))
            labels.append(f"{name}, {len(xs)} points\n{legend_numbers(reading)} ({verdict})")
        else:
            handles.append(sc)
            labels.append(f"{name}: {len(xs)} points")
        summary.append(f"{tag} {fmt_slope(res)} {verdict}")
    theory = group.theory
    if theory is not None and first is not None:
        xs, ys = first
        mid = len(xs) // 2
        gx = np.geomspace(min(allx), max(allx), 20)
        gy = ys[mid] * (gx / xs[mid]) ** theory
        (ln,) = ax.plot(gx, gy, zorder=1, **THEORY_STYLE)
        ln.set_gid("theory")
        handles.append(ln)
        labels.append(f"theory: slope {theory:g}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    if allx:
        lo, hi = min(allx), max(allx)
        pad = (hi / lo) ** 0.08 if hi > lo else 1.3
        ax.set_xlim(lo / pad, hi * pad)
    log_ticks(ax, allx, ally)
    ax.set_xlabel(x_label(group.param))
    ax.set_ylabel(y_label(group.oracle) if not compact else f"{oracle_tex(group.oracle)} per accuracy")
    return {"handles": handles, "labels": labels, "series": series, "summary": summary}


_MANTISSAS = ((1, 2, 3, 5), (1, 1.5, 2, 3, 5, 7), (1, 2, 3, 4, 5, 6, 7, 8, 9), (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 9),
              (1, 2, 5), (1, 3), (1,))


def _nice_ticks(lo: float, hi: float, maxn: int = 5) -> list[float]:
    """The most ticks (at most ``maxn``, at least 2) of the form m·10^k, m from one of :data:`_MANTISSAS`,
    inside [lo, hi]; ``[]`` if none fits (matplotlib's locator is kept then)."""
    if not (lo > 0 and hi > lo):
        return []
    k0, k1 = int(math.floor(math.log10(lo))), int(math.ceil(math.log10(hi)))
    best: list[float] = []
    for mant in _MANTISSAS:
        ticks = [t for k in range(k0, k1 + 1) for m in mant if lo <= (t := m * 10.0 ** k) <= hi]
        if len(best) < len(ticks) <= maxn:
            best = ticks
    if len(best) >= 2:
        return best
    decades = [10.0 ** k for k in range(k0, k1 + 1) if lo <= 10.0 ** k <= hi]
    return decades[:: -(-len(decades) // maxn)] if len(decades) > maxn else []


def _fmt(v: float) -> str:
    if v >= 1e4 or v < 1e-2:
        e = int(math.floor(math.log10(v)))
        m = v / 10.0 ** e
        return f"$10^{{{e}}}$" if abs(m - 1) < 1e-9 else f"${m:g}\\cdot 10^{{{e}}}$"
    return f"{v:g}"


def log_ticks(ax, xs=None, ys=None):
    """Readable plain-number log ticks (a sweep often spans one decade or less) and no degenerate y-range."""
    if ys:
        lo, hi = min(ys), max(ys)
        if hi / lo < 1.5:  # constant or nearly constant counts: a log axis needs some range
            mid = math.sqrt(lo * hi)
            ax.set_ylim(mid / 2.0, mid * 2.0)
    for axis, lim in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
        ticks = _nice_ticks(*sorted(lim))
        if len(ticks) >= 2:
            axis.set_major_locator(FixedLocator(ticks))
            axis.set_major_formatter(FuncFormatter(lambda v, _p: _fmt(v)))
            axis.set_minor_locator(NullLocator())
            axis.set_minor_formatter(NullFormatter())


#: legend text width in characters per inch of figure width (7-pt DejaVu Sans averages ~0.6 em per character,
#: minus the handle and padding); wrapping at this width keeps every legend line inside the figure
LEGEND_CHARS_PER_INCH = 15.0


def wrap_label(label: str, width: int) -> str:
    """Wrap each line of a legend label to ``width`` characters (long variant names would leave the figure)."""
    return "\n".join(textwrap.fill(line, width, break_long_words=False, break_on_hyphens=False)
                     for line in label.split("\n"))


def figure_cell_param(group: SweepGroup, *, width: float = 3.4, height: float | None = None):
    """One-column figure of a (cell, param) group; the legend sits below the axes (never over data) and its
    labels are wrapped to the figure width, the height grown by their line count."""
    with style_context():
        fig = new_figure(width, height or 3.0)
        ax = fig.add_subplot()
        info = draw_group(ax, group)
        labels = [wrap_label(lab, int(LEGEND_CHARS_PER_INCH * (width - 0.45))) for lab in info["labels"]]
        n_lines = sum(lab.count("\n") + 1 for lab in labels)
        fig.set_size_inches(width, height or (2.4 + 0.16 * n_lines))
        title = f"{group.cell}: {oracle_tex(group.oracle)} vs {param_tex(group.param)}"
        ftex = formula_tex(group.cell)
        ax.set_title(title + (f"\nclaimed {ftex}" if ftex else ""), fontsize=8)
        if info["handles"]:
            fig.legend(info["handles"], labels, loc="outside lower center", ncol=1, frameon=False,
                       handlelength=2.2)
        info["labels"] = labels
    return fig, info


def _panel_layout(groups: list[SweepGroup]):
    oracles = [o for o in ORACLE_ORDER if any(g.oracle == o for g in groups)]
    oracles += sorted({g.oracle for g in groups} - set(oracles))
    params = [p for p in PARAM_ORDER if any(g.param == p for g in groups)]
    params += sorted({g.param for g in groups} - set(params))
    return oracles, params


def figure_class_panel(table: str, cls: str, groups: list[SweepGroup]):
    """All oracles (rows) × swept parameters (columns) of one problem class, with a shared legend."""
    oracles, params = _panel_layout(groups)
    by = {(g.oracle, g.param): g for g in groups}
    nlines = 1 + max((len(g.upper) + len(g.lower) for g in groups), default=1)
    any_lower = any(g.lower for g in groups)
    any_upper = any(g.upper for g in groups)
    n_entries = int(any_upper) + int(any_lower) + int(any(len(g.lower) > 1 for g in groups)) + 1
    w = max(4.6, 2.05 * len(params) + 0.5)
    ncol = max(1, min(n_entries, int(w // 3.3)))
    leg_rows = -(-n_entries // ncol)
    with style_context():
        # fixed margins (a constrained layout of 25 axes takes seconds per save)
        h = (1.45 + 0.13 * nlines + 0.45) * len(oracles) + 0.75 + 0.17 * leg_rows
        fig = new_figure(w, h, layout=None)
        side = max(0.0, (w - 2.05 * len(params) - 0.5) / 2)  # centre a narrow grid in the minimum width
        fig.subplots_adjust(left=(0.7 + side) / w, right=1 - (0.15 + side) / w, bottom=(0.55 + 0.17 * leg_rows) / h,
                            top=1 - (0.6 + 0.13 * nlines) / h, wspace=0.42, hspace=(0.13 * nlines + 0.5) / 1.45)
        axes = fig.subplots(len(oracles), len(params), squeeze=False)
        series = 0
        for i, o in enumerate(oracles):
            for j, p in enumerate(params):
                ax = axes[i][j]
                g = by.get((o, p))
                head = f"{oracle_tex(o)} vs {param_tex(p)}"
                if g is None:
                    ax.set_axis_off()
                    ax.text(0.5, 0.5, f"{head}\nnot measured", ha="center", va="center", transform=ax.transAxes,
                            color="0.5", fontsize=7)
                    continue
                info = draw_group(ax, g, compact=True)
                series += info["series"]
                th = g.theory
                head += f" (θ={th:g})" if th is not None else ""
                if info["series"] == 0:  # results, but no positive count to draw: say what they are
                    ax.clear()
                    ax.set_axis_off()
                    ax.text(0.5, 0.5, "\n".join([head] + info["summary"]), ha="center", va="center",
                            transform=ax.transAxes, color="0.25", fontsize=6.5)
                    continue
                ax.set_title("\n".join([head] + info["summary"]), fontsize=6.5)
                ax.tick_params(labelsize=6)
                ax.xaxis.label.set_size(7)
                ax.yaxis.label.set_size(7)
        proxies, names = [], []
        if any_upper:
            proxies += [Line2D([], [], color=UPPER_EXTRA_STYLES[0]["color"], marker="o", ls="-")]
            names += ["up: solver per-accuracy counts + fit"]
        if any_lower:
            proxies += [Line2D([], [], color=LOWER_STYLES[0]["color"], marker="s", markerfacecolor="white", ls=(0, (1, 1)))]
            names += ["LB: lower-bound engine (printed construction) + fit"]
            if any(len(g.lower) > 1 for g in groups):
                proxies += [Line2D([], [], color=LOWER_STYLES[1]["color"], marker="D", markerfacecolor="white", ls=(0, (1, 1)))]
                names += ["LB′: lower-bound engine (documented variant) + fit"]
        proxies += [Line2D([], [], **THEORY_STYLE)]
        names += ["theory: claimed slope θ"]
        fig.legend(proxies, names, loc="lower center", ncol=ncol, frameon=False, bbox_to_anchor=(0.5, 0.0))
        fig.suptitle(f"{table} — {CLASS_LABELS.get(cls, cls)}\nper-accuracy oracle counts vs realized κ", fontsize=9,
                     y=1 - 0.1 / h, va="top")
    return fig, {"series": series, "rows": len(oracles), "cols": len(params)}

