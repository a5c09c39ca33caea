"""Figures and the report, drawn from check results only.

``draw_all(doc, out_dir)`` turns a results document (``results.json`` of
``mixbounds verify``) into log-log figures, PNG and SVG:

* ``cell_<cell>_<param>.{png,svg}``: one (table cell, swept parameter) — solver
  per-accuracy counts, the lower-bound engine's curve, fitted slopes ± CI,
  the claimed slope (:func:`plots.scaling.figure_cell_param`);
* ``class_<table>.<class>.{png,svg}``: every oracle × parameter of a problem class
  (:func:`plots.scaling.figure_class_panel`);
* ``heatmap.{png,svg}``: measured/claimed exponent per cell × parameter
  (:func:`plots.heatmap.figure_heatmap`);
* ``bench_<class>_<oracle>.{png,svg}``: every method's counts on the benchmark sweeps
  (:func:`plots.bench.figure_bench`).

Nothing here runs a solver (``mixbounds plot results.json`` redraws everything).
"""

from __future__ import annotations

from pathlib import Path

from .bench import bench_groups, figure_bench
from .data import ResultsFileError, SweepGroup, load_results, sweep_groups, validate, xy
from .heatmap import figure_heatmap
from .scaling import figure_cell_param, figure_class_panel
from .style import save

__all__ = ["ResultsFileError", "SweepGroup", "load_results", "sweep_groups", "validate", "xy", "draw_all",
           "figure_cell_param", "figure_class_panel", "figure_heatmap"]


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "._-@" else "_" for ch in name)


def draw_all(doc: dict, out_dir, formats=("png", "svg"), *, prune: bool = True) -> dict:
    """Draw every figure of ``doc`` into ``out_dir``.

    Returns a manifest ``{"cells": {"<cell>|<param>": [paths]}, "classes": {"<table>.<class>": [paths]},
    "heatmap": [paths], "bench": {"<class>.<oracle>": [paths]}, "errors": ["<figure>: <reason>"]}``; a figure that cannot be drawn
    is reported in ``errors`` and does not stop the others.  With ``prune``, figures of
    this module's naming (``cell_*``, ``class_*``, ``heatmap``) left in ``out_dir`` by an
    earlier run and not redrawn now are removed, so the directory matches the results.
    """
    out_dir = Path(out_dir)
    groups = sweep_groups(doc)
    manifest: dict = {"cells": {}, "classes": {}, "heatmap": [], "bench": {}, "errors": []}

    def attempt(name, make, stem):
        try:
            fig, _ = make()
            if fig is None:
                return []
            return save(fig, out_dir / _safe(stem), formats)
        except Exception as exc:  # noqa: BLE001 - a broken figure is reported, the rest are drawn
            manifest["errors"].append(f"{name}: {type(exc).__name__}: {exc}")
            return []

    for (cell, param), g in groups.items():
        if not g.has_data():  # nothing to draw (e.g. zero counts everywhere): the panel and report say why
            continue
        paths = attempt(f"{cell} {param}", lambda g=g: figure_cell_param(g), f"cell_{cell}_{param}")
        if paths:
            manifest["cells"][f"{cell}|{param}"] = paths
    by_class: dict[tuple[str, str], list[SweepGroup]] = {}
    for g in groups.values():
        by_class.setdefault((g.table, g.problem_class), []).append(g)
    for (t, cls), gs in by_class.items():
        paths = attempt(f"{t}.{cls}", lambda t=t, cls=cls, gs=gs: figure_class_panel(t, cls, gs), f"class_{t}.{cls}")
        if paths:
            manifest["classes"][f"{t}.{cls}"] = paths
    if groups:
        manifest["heatmap"] = attempt("heatmap", lambda: figure_heatmap(groups), "heatmap")
    for (cls, oracle), rs in bench_groups(doc).items():
        paths = attempt(f"bench {cls} {oracle}", lambda cls=cls, o=oracle, rs=rs: figure_bench(cls, o, rs),
                        f"bench_{cls}_{oracle}")
        if paths:
            manifest["bench"][f"{cls}.{oracle}"] = paths
    if prune and out_dir.is_dir():
        keep = {Path(p).name for ps in [*manifest["cells"].values(), *manifest["classes"].values(), manifest["heatmap"],
                                        *manifest["bench"].values()]
                for p in ps}
        for p in out_dir.iterdir():
            stale = p.suffix in (".png", ".svg") and (p.name.startswith(("cell_", "class_", "bench_")) or p.stem == "heatmap")
            if stale and p.name not in keep and p.is_file():
                p.unlink()
    return manifest
