"""Drawing every figure of a results document: :func:`draw_all` and the manifest of what it drew.

The figure kinds and their files are listed in :mod:`mixbounds.plots`; nothing here runs a solver.
"""

from __future__ import annotations

from pathlib import Path

from joblib import Parallel, delayed
from mixbounds.plots.bench import figure_bench
from mixbounds.plots.data import SweepGroup, bench_groups, sweep_groups
from mixbounds.plots.heatmap import figure_heatmap
from mixbounds.plots.scaling import figure_cell_param, figure_class_panel
from mixbounds.plots.style import save


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "._-@" else "_" for ch in name)


def _draw_one(kind: str, args: tuple, stem: Path, formats) -> tuple[list, str | None]:
    """Draw and save one figure (in the calling process or a worker); ``(paths, error)``."""
    make = {"cell": figure_cell_param, "class": figure_class_panel, "heatmap": figure_heatmap, "bench": figure_bench}[kind]
    try:
        fig, _ = make(*args)
        if fig is None:
            return [], None
        return save(fig, stem, formats), None
    except Exception as exc:  # noqa: BLE001 - a broken figure is reported, the rest are drawn
        return [], f"{type(exc).__name__}: {exc}"


#: the file formats a figure can be written in (:func:`mixbounds.plots.style.save`)
FORMATS = ("png", "svg")


def _check_formats(formats) -> tuple[str, ...]:
    """``formats`` as a tuple; ``ValueError`` when empty or holding an unknown format (a run would otherwise write
    no file for any figure and report its figures as drawn)."""
    formats = tuple(formats)
    if not formats or any(f not in FORMATS for f in formats):
        raise ValueError(f"figure formats {formats!r}: need one or more of {FORMATS}")
    return formats


def _plan(doc: dict) -> list[tuple]:
    """(manifest section, key, error name, figure kind, builder arguments, file stem) of every figure of ``doc``."""
    groups = sweep_groups(doc)
    todo: list[tuple] = []
    for (cell, param), g in groups.items():
        if g.has_data():  # nothing to draw (e.g. zero counts everywhere): the panel and report say why
            todo.append(("cells", f"{cell}|{param}", f"{cell} {param}", "cell", (g,), f"cell_{cell}_{param}"))
    by_class: dict[tuple[str, str], list[SweepGroup]] = {}
    for g in groups.values():
        by_class.setdefault((g.table, g.problem_class), []).append(g)
    for (t, cls), gs in by_class.items():
        todo.append(("classes", f"{t}.{cls}", f"{t}.{cls}", "class", (t, cls, gs), f"class_{t}.{cls}"))
    if groups:
        todo.append(("heatmap", None, "heatmap", "heatmap", (groups,), "heatmap"))
    for (cls, oracle), rs in bench_groups(doc).items():
        todo.append(("bench", f"{cls}.{oracle}", f"bench {cls} {oracle}", "bench", (cls, oracle, rs), f"bench_{cls}_{oracle}"))
    return todo


def existing_manifest(doc: dict, out_dir, formats=FORMATS) -> dict:
    """The manifest :func:`draw_all` would return, from the figure files already in ``out_dir`` (nothing drawn)."""
    out_dir = Path(out_dir)
    manifest: dict = {"cells": {}, "classes": {}, "heatmap": [], "bench": {}, "errors": []}
    for section, key, _, _, _, stem in _plan(doc):
        paths = [out_dir / f"{_safe(stem)}.{fmt}" for fmt in formats if (out_dir / f"{_safe(stem)}.{fmt}").is_file()]
        if not paths:
            continue
        if key is None:
            manifest[section] = paths
        else:
            manifest[section][key] = paths
    return manifest


def draw_all(doc: dict, out_dir, formats=FORMATS, *, jobs: int = 1) -> dict:
    """Draw every figure of ``doc`` into ``out_dir``.

    Returns a manifest ``{"cells": {"<cell>|<param>": [paths]}, "classes": {"<table>.<class>": [paths]},
    "heatmap": [paths], "bench": {"<class>.<oracle>": [paths]}, "errors": ["<figure>: <reason>"]}``; a figure that cannot be drawn
    is reported in ``errors`` and does not stop the others.  Nothing else in ``out_dir`` is touched: the
    commands draw into a staging directory and install the set through :mod:`mixbounds.outdir`, which alone
    removes figures (those its manifest lists and the new set lacks), never a file a user put there.
    ``jobs > 1`` draws the figures in that many worker processes (joblib); each figure is
    drawn from the same data either way, so the files do not depend on ``jobs``.
    """
    formats = _check_formats(formats)
    out_dir = Path(out_dir)
    manifest: dict = {"cells": {}, "classes": {}, "heatmap": [], "bench": {}, "errors": []}
    todo = _plan(doc)
    # the large figures first (heatmap ~10 s, class panels 1-5 s, a cell figure 0.6 s): no long tail in parallel
    weight = {"heatmap": 0, "class": 1, "bench": 2, "cell": 3}
    todo.sort(key=lambda t: (weight[t[3]], -len(t[4][-1]) if t[3] == "class" else 0))
    calls = [(kind, args, out_dir / _safe(stem), formats) for _, _, _, kind, args, stem in todo]
    if jobs > 1 and len(calls) > 1:
        done = Parallel(n_jobs=min(jobs, len(calls)), batch_size=4)(delayed(_draw_one)(*c) for c in calls)
    else:
        done = [_draw_one(*c) for c in calls]
    for (section, key, name, *_), (paths, err) in zip(todo, done):
        if err is not None:
            manifest["errors"].append(f"{name}: {err}")
        elif paths:
            if key is None:
                manifest[section] = paths
            else:
                manifest[section][key] = paths
    return manifest
