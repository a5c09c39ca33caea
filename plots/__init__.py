"""Figures, drawn from check results only (the reports that show them are :mod:`mixbounds.report`).

``draw_all(doc, out_dir)`` turns a results document (``results.json`` of
``mixbounds verify``) into log-log figures, PNG and SVG (``formats``; ``mixbounds verify`` writes the PNG its report
shows unless asked for ``--svg``):

* ``cell_<cell>_<param>.{png,svg}``: one (table cell, swept parameter) — solver
  per-accuracy counts, the lower-bound engine's curve, fitted slopes ± CI,
  the claimed slope (:func:`mixbounds.plots.scaling.figure_cell_param`);
* ``class_<table>.<class>.{png,svg}``: every oracle × parameter of a problem class
  (:func:`mixbounds.plots.scaling.figure_class_panel`);
* ``heatmap.{png,svg}``: measured/claimed exponent per cell × parameter
  (:func:`mixbounds.plots.heatmap.figure_heatmap`);
* ``bench_<class>_<oracle>.{png,svg}``: every method's counts on the benchmark sweeps
  (:func:`mixbounds.plots.bench.figure_bench`).

Nothing here runs a solver (``mixbounds plot results.json`` redraws everything).

Importing this package is light (reading and grouping results, :mod:`mixbounds.plots.data`); the drawing names
(``draw_all``, ``existing_manifest``, the ``figure_*`` builders) load matplotlib on first use.
"""

from __future__ import annotations

from mixbounds.plots.data import ResultsFileError, SweepGroup, load_results, sweep_groups, validate, xy

__all__ = ["ResultsFileError", "SweepGroup", "load_results", "sweep_groups", "validate", "xy", "draw_all",
           "existing_manifest", "figure_cell_param", "figure_class_panel", "figure_heatmap"]

#: the drawing names and their modules, loaded on first use (module ``__getattr__``, PEP 562)
_DRAWING = {"draw_all": "draw", "existing_manifest": "draw", "figure_cell_param": "scaling",
            "figure_class_panel": "scaling", "figure_heatmap": "heatmap"}


def __getattr__(name: str):
    if name in _DRAWING:
        # matplotlib costs +0.6 s on the start-up of every `mixbounds` command (measured under load: 1.54 s → 2.16 s
        # for numpy/scipy/rich, then matplotlib's modules); only `verify`, `plot`, `report` and `bench` draw
        from mixbounds.plots import draw, heatmap, scaling  # lazy: matplotlib, +0.6 s of start-up (measured)

        value = getattr({"draw": draw, "scaling": scaling, "heatmap": heatmap}[_DRAWING[name]], name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'mixbounds.plots' has no attribute {name!r}")
