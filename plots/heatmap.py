"""Summary heat-map: measured / theoretical exponent per table cell × swept parameter.

Panels: the solvers' slopes (``.upper``/``.tight``/``.absent`` results), the
lower-bound engine's slopes on the printed constructions (``.lower``) and, one
panel per documented variant, on the corrected constructions (``.lower@variant``).  A
cell's colour is ``measured / θ`` (1 = the claimed exponent; blue below, red
above); where the parameter is absent from the formula (θ = 0) the text gives
the measured slope itself on a grey background.  Marks after the number:
``!`` finding, ``✗`` fail, ``E`` error.
"""

from __future__ import annotations

import matplotlib
import numpy as np
from matplotlib.colors import TwoSlopeNorm
from mixbounds.bounds.concepts import PROBLEM_CLASSES, ProblemClass
from mixbounds.plots.data import SweepGroup, finite, variant_of
from mixbounds.plots.scaling import ORACLE_ORDER, PARAM_ORDER
from mixbounds.plots.style import new_figure, oracle_tex, param_tex, style_context

_MARK = {"pass": "", "finding": "!", "fail": "✗", "error": "E", "skipped": "–"}
_TABLE_CLASS_ORDER = (*(c for c in PROBLEM_CLASSES if c.in_table), ProblemClass.MIXED_IDENT, ProblemClass.SHARED_IDENT)


def _row_key(cell: str):
    t, cls, orc = (cell.split(".") + ["", "", ""])[:3]
    return (t, _TABLE_CLASS_ORDER.index(cls) if cls in _TABLE_CLASS_ORDER else 99, cls,
            ORACLE_ORDER.index(orc) if orc in ORACLE_ORDER else 99, orc)


def _pick(results: list, variant: str | None):
    """The result shown in a panel: the first solver result (``variant None``) or the engine's on ``variant``."""
    if variant is None:
        return results[0] if results else None
    return next((r for r in results if variant_of(r) == variant), None)


def _variants(groups) -> list[str]:
    vs = {variant_of(r) for g in groups.values() for r in g.lower}
    return (["printed"] if "printed" in vs else []) + sorted(vs - {"printed"})


def heatmap_matrix(groups: dict[tuple[str, str], SweepGroup]):
    """Rows (cells), columns (params) and, per panel, the (ratio, text, status) grid."""
    rows = sorted({c for c, _ in groups}, key=_row_key)
    cols = [p for p in PARAM_ORDER if any(p == q for _, q in groups)]
    cols += sorted({q for _, q in groups} - set(cols))
    panels = {}
    for name, variant in [("upper", None)] + [(f"lower@{v}", v) for v in _variants(groups)]:
        lower = variant is not None
        ratio = np.full((len(rows), len(cols)), np.nan)
        text = [["" for _ in cols] for _ in rows]
        present = False
        for (c, p), g in groups.items():
            r = _pick(g.lower if lower else g.upper, variant)
            if r is None:
                continue
            present = True
            i, j = rows.index(c), cols.index(p)
            m, th = finite(r.get("measured")), finite(r.get("theory"))
            mark = _MARK.get(r.get("status"), "?")
            if m is None:
                text[i][j] = mark or "—"
                continue
            if th is not None and th > 0:
                ratio[i, j] = m / th
                text[i][j] = f"{m / th:.2f}{mark}"
            else:
                text[i][j] = f"s={m:.2f}{mark}"
        if present:
            panels[name] = (ratio, text)
    return rows, cols, panels


def _cell_borders(ax, nrows: int, ncols: int) -> None:
    """White lines between the cells: two line collections (what a grid on invisible minor ticks at the cell edges
    draws, with the grid's alpha and z-order, without ~2·(rows + columns) tick objects per panel)."""
    style = {"colors": "white", "linewidths": 0.8, "alpha": matplotlib.rcParams["grid.alpha"], "zorder": 1.5}
    ax.hlines(np.arange(-0.5, nrows), -0.5, ncols - 0.5, **style)
    ax.vlines(np.arange(-0.5, ncols), -0.5, nrows - 0.5, **style)


def figure_heatmap(groups: dict[tuple[str, str], SweepGroup]):
    rows, cols, panels = heatmap_matrix(groups)
    if not panels:
        return None, {"panels": 0}
    titles = {name: ("solvers" if name == "upper" else f"lower-bound engine ({name.split('@', 1)[1]})")
              + "\nmeasured / claimed exponent" for name in panels}
    with style_context():
        w = max(3.4, (0.62 * len(cols) + 0.9) * len(panels) + 2.0)
        h = max(2.2, 0.24 * len(rows) + 1.4)
        fig = new_figure(w, h)
        axes = fig.subplots(1, len(panels), squeeze=False)[0]
        norm = TwoSlopeNorm(vmin=0.0, vcenter=1.0, vmax=2.0)
        im = None
        for ax, (name, (ratio, text)) in zip(axes, panels.items()):
            masked = np.ma.masked_invalid(np.clip(ratio, 0.0, 2.0))
            ax.set_facecolor("0.88")
            im = ax.imshow(masked, cmap="RdBu_r", norm=norm, aspect="auto", interpolation="nearest")
            for i in range(len(rows)):
                for j in range(len(cols)):
                    if text[i][j]:
                        v = ratio[i, j]
                        dark = np.isfinite(v) and abs(v - 1.0) > 0.6
                        ax.text(j, i, text[i][j], ha="center", va="center", fontsize=6, color="white" if dark else "black")
            ax.set_xticks(range(len(cols)), [param_tex(c) for c in cols])
            ax.set_title(titles[name], fontsize=7.5)
            ax.grid(False)
            _cell_borders(ax, len(rows), len(cols))
        ylabels = []
        for c in rows:
            t, cls, orc = (c.split(".") + ["", "", ""])[:3]
            ylabels.append(f"{t} {cls} {oracle_tex(orc)}")
        axes[0].set_yticks(range(len(rows)), ylabels)
        for ax in axes[1:]:
            ax.set_yticks(range(len(rows)), [""] * len(rows))
        cb = fig.colorbar(im, ax=list(axes), shrink=0.8, pad=0.02)
        cb.set_label("measured / claimed exponent", fontsize=7)
        cb.ax.tick_params(labelsize=6)
        fig.suptitle("Measured vs claimed exponents\ngrey: θ = 0 (s = measured slope) or not measured; "
                     "! finding, ✗ fail, E error", fontsize=7.5)
    return fig, {"panels": len(panels), "rows": len(rows), "cols": len(cols)}
