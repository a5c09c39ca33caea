"""No legend, label or title of a report figure is cut at the figure's edge (matplotlib's tight bounding box
of everything drawn must lie inside the figure), including the long legend entries of variants whose engine
counts are zero (``cell_T1.coupled_local.A_kappa_AC.png`` used to cut "no positive per-accuracy count (finc")."""

import pytest
from mixbounds.checks.run._selftest import fake_document
from mixbounds.plots.data import SweepGroup, sweep_groups
from mixbounds.plots.heatmap import figure_heatmap
from mixbounds.plots.scaling import figure_cell_param, figure_class_panel
from mixbounds.plots.style import new_figure

#: how far (inches) drawn content may reach past the figure's edge: antialiasing of a glyph's edge, 1.5 px at 150 dpi
CLIP_TOL_IN = 0.01


def overflow(fig) -> float:
    """Largest distance (inches) by which anything drawn leaves the figure (0 when everything is inside)."""
    fig.canvas.draw()
    bb = fig.get_tightbbox(fig.canvas.get_renderer())
    w, h = fig.get_size_inches()
    return max(0.0, -bb.x0, -bb.y0, bb.x1 - w, bb.y1 - h)


def _res(rid, kind, status, counts, theory=0.5):
    pts = [{"realized": x, "per_accuracy": y} for x, y in zip((30.0, 68.0, 146.0, 300.0), counts)]
    return {"id": rid, "kind": kind, "status": status, "theory": theory, "measured": 0.5 if any(counts) else None,
            "variant": rid.partition("@")[2] or "printed",
            "ci": [0.49, 0.51], "param": "kappa_AC", "points": pts,
            "instance": {"family": "coupled-local", "method": "apapc"}}


@pytest.fixture(scope="module")
def long_group():
    """The case that was clipped: a solver series, the printed engine with zero counts, a long-named variant."""
    return SweepGroup("T1.coupled_local.A", "kappa_AC",
                      upper=[_res("T1.coupled_local.A.kappa_AC.tight", "tight", "pass", (100, 150, 220, 320))],
                      lower=[_res("T1.coupled_local.A.kappa_AC.lower", "lower", "finding", (0, 0, 0, 0)),
                             _res("T1.coupled_local.A.kappa_AC.lower@shared-rows-incidence", "lower", "pass",
                                  (50, 75, 110, 160))])


def test_cell_figures_keep_every_legend_entry_inside(long_group):
    fig, info = figure_cell_param(long_group)
    assert any("no positive per-accuracy count" in lab.replace("\n", " ") for lab in info["labels"])
    assert overflow(fig) <= CLIP_TOL_IN
    for g in sweep_groups(fake_document()).values():
        assert overflow(figure_cell_param(g)[0]) <= CLIP_TOL_IN, g.cell


def test_class_panel_and_heatmap_keep_everything_inside(long_group):
    groups = sweep_groups(fake_document())
    assert overflow(figure_class_panel("T1", "coupled", list(groups.values()))[0]) <= CLIP_TOL_IN
    assert overflow(figure_class_panel("T1", "coupled_local", [long_group])[0]) <= CLIP_TOL_IN
    groups[("T1.coupled_local.A", "kappa_AC")] = long_group
    fig, info = figure_heatmap(groups)
    assert info["panels"] == 4  # solvers, engine on the printed constructions, on @selftest, on the long variant
    assert overflow(fig) <= CLIP_TOL_IN


def test_negative_control_an_unwrapped_legend_is_caught(long_group):
    fig = new_figure(3.4, 3.0)
    ax = fig.add_subplot()
    ax.plot([1, 2], [1, 2],
            label="lower-bound engine (shared-rows-incidence): no positive per-accuracy count (finding)")
    fig.legend(loc="outside lower center")
    assert overflow(fig) > 0.1
