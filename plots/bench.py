"""Benchmark figures: every method's per-accuracy counts on the same sweeps.

One figure per (problem class, oracle): one panel per swept parameter, one series per
method, solid on the worst-case construction and dashed on the random family, each
labelled with its fitted slope (``bench.<class>.<method>.<oracle>.<param>[@family]``
results of :mod:`mixbounds.checks.bench`).  The slopes are reported, not judged.
"""

from __future__ import annotations

from mixbounds.plots.data import finite, xy
from mixbounds.plots.scaling import log_ticks
from mixbounds.plots.style import PARAM_TEX, new_figure, oracle_tex, param_tex, style_context

#: method colours (APAPC first, in the suite's blue)
METHOD_COLORS = ["#1f5fa8", "#c0392b", "#27ae60", "#8e44ad", "#e67e22", "#16a085", "#7f8c8d", "#d4ac0d"]


def figure_bench(cls: str, oracle: str, results: list[dict]):
    """Panels per swept parameter; returns ``(figure, {"series": n})`` (``(None, …)`` if nothing to draw)."""
    params = []
    for r in results:
        p = r["_bench"]["param"]
        if p not in params:
            params.append(p)
    params.sort(key=lambda p: list(PARAM_TEX).index(p) if p in PARAM_TEX else len(PARAM_TEX))
    methods = []
    for r in results:
        if r["_bench"]["method"] not in methods:
            methods.append(r["_bench"]["method"])
    color = {m: METHOD_COLORS[i % len(METHOD_COLORS)] for i, m in enumerate(methods)}
    series = 0
    with style_context():
        w = max(4.0, 2.6 * len(params) + 0.6)
        n_series = max(sum(1 for r in results if r["_bench"]["param"] == p) for p in params)
        fig = new_figure(w, 2.8 + 0.12 * n_series)
        axes = fig.subplots(1, len(params), squeeze=False)[0]
        for ax, p in zip(axes, params):
            allx, ally = [], []
            for r in results:
                b = r["_bench"]
                if b["param"] != p:
                    continue
                xs, ys = xy(dict(r, param=p))
                if not xs:
                    continue
                s = finite(r.get("measured"))
                fam = "worst" if b["family"] == "worst" else "random"
                label = f"{b['method']} ({fam})" + (f" {s:.2f}" if s is not None else "")
                ax.loglog(xs, ys, ls="-" if fam == "worst" else "--", marker="o" if fam == "worst" else "s",
                          color=color[b["method"]], label=label)
                allx += list(xs)
                ally += list(ys)
                series += 1
            if allx:  # the whole sweep in view even when a panel has one point (a degenerate log range otherwise)
                lo, hi = min(allx), max(allx)
                pad = (hi / lo) ** 0.08 if hi > lo * 1.5 else 2.0
                ax.set_xlim(lo / pad, hi * pad)
                log_ticks(ax, allx, ally)
            ax.set_xlabel(f"realized {param_tex(p)}")
            ax.set_ylabel(f"{oracle_tex(oracle)} per accuracy")
            ax.set_title(f"{oracle_tex(oracle)} vs {param_tex(p)}")
            if ax.lines:  # below the panel: never over the data
                ax.legend(fontsize=5.5, frameon=False, title="method (family) slope", title_fontsize=5.5,
                          loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=1)
        fig.suptitle(f"{cls}: per-accuracy counts, all methods (solid: worst case, dashed: random)", fontsize=8)
    if series == 0:
        return None, {"series": 0}
    return fig, {"series": series}
