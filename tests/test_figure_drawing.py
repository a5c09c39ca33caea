"""Faster figure drawing with the same figures (issue 38, item 3): matplotlib's mathtext parses shared across
figures, and the heat-map's cell borders drawn as two line collections instead of a grid on minor ticks.  Both are
checked against the way they replaced: the PNG files are byte-identical."""

import io

import numpy as np
import pytest
from matplotlib.collections import LineCollection
from matplotlib.mathtext import MathTextParser
from mixbounds.checks.run._selftest import fake_document
from mixbounds.plots import figure_cell_param, figure_heatmap, style, sweep_groups
from mixbounds.plots import heatmap as heatmap_mod


@pytest.fixture(scope="module")
def groups():
    return sweep_groups(fake_document())


def _png(fig) -> bytes:
    buf = io.BytesIO()
    with style.style_context():
        fig.savefig(buf, format="png", metadata={"Software": None})
    return buf.getvalue()


def test_mathtext_parses_are_shared_across_parsers():
    assert style.MATHTEXT_SHARED
    s, prop = r"$N_{\nabla f}$ per accuracy", None
    a = MathTextParser("path").parse(s, 72, prop)
    b = MathTextParser("path").parse(s, 72, prop)
    assert a is b  # two parsers (two renderers), one parse


def test_shared_parses_draw_the_same_png(groups, monkeypatch):
    g = groups[("T1.coupled.comm", "kappa_W")]
    shared = _png(figure_cell_param(g)[0])
    monkeypatch.setattr(MathTextParser, "_parse_cached", MathTextParser._parse_cached._mixbounds_original)
    own = _png(figure_cell_param(g)[0])
    assert shared == own


def _minor_tick_grid(ax, nrows, ncols):
    """The cell borders as they were drawn before: a grid on invisible minor ticks at the cell edges."""
    ax.set_xticks(np.arange(-0.5, ncols), minor=True)
    ax.set_yticks(np.arange(-0.5, nrows), minor=True)
    ax.grid(which="minor", color="white", lw=0.8)
    ax.tick_params(which="minor", length=0)


def test_heatmap_borders_draw_the_same_png_with_fewer_artists(groups, monkeypatch):
    fig, info = figure_heatmap(groups)
    new = _png(fig)
    borders = [c for ax in fig.axes[: info["panels"]] for c in ax.collections if isinstance(c, LineCollection)]
    assert len(borders) == 2 * info["panels"]
    assert sum(len(c.get_segments()) for c in borders) == info["panels"] * (info["rows"] + info["cols"] + 2)
    monkeypatch.setattr(heatmap_mod, "_cell_borders", _minor_tick_grid)
    old_fig, _ = figure_heatmap(groups)
    assert _png(old_fig) == new
    # control: without the borders the image differs, so the comparison sees them
    monkeypatch.setattr(heatmap_mod, "_cell_borders", lambda ax, r, c: None)
    assert _png(figure_heatmap(groups)[0]) != new
