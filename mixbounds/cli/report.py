"""``mixbounds report RESULTS``: rewrite report.md and report.html from a results document, optionally a screenshot.

    mixbounds report RESULTS [--out DIR] [--redraw] [--screenshot PNG]

Reads ``results.json`` (or the directory holding it), takes the figures already in ``plots/`` beside it
(``--redraw`` draws them again first, as ``mixbounds plot`` does), and writes ``report.md`` and
``report.html`` to ``DIR`` (default: beside RESULTS).  Never runs a solver.  ``--screenshot PNG`` also
renders the first screen of ``report.html`` in headless Chromium (the README's picture:
``mixbounds report mixbounds-results --screenshot docs/report-screenshot.png``).
Exit codes: 0 written; 2 bad input (unreadable results, unusable paths, no browser for --screenshot).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import mixbounds.plots as figures  # drawing loads matplotlib on first use (mixbounds.plots)
from mixbounds.outdir import atomic_write_text
from mixbounds.plots import ResultsFileError, load_results
from mixbounds.report import verify as report
from mixbounds.report.browser import find_chromium
from mixbounds.report.browser import screenshot as shoot

EXIT_OK, EXIT_USAGE = 0, 2


def _err(msg: str) -> int:
    print(f"mixbounds report: error: {msg}", file=sys.stderr)
    return EXIT_USAGE


def _unusable(out: Path) -> str | None:
    """Why ``out`` cannot take the report (not a directory, or no writable existing ancestor), else ``None``."""
    if out.exists() and not out.is_dir():
        return f"--out {out}: exists and is not a directory"
    anc = out
    while not anc.exists():
        anc = anc.parent
    return None if os.access(anc, os.W_OK | os.X_OK) else f"--out {out}: {anc} is not writable"


def run(results, out=None, *, redraw: bool = False, screenshot=None, jobs: int = 1) -> int:
    try:
        doc = load_results(results)
    except ResultsFileError as exc:
        return _err(str(exc))
    src = Path(results)
    base = src if src.is_dir() else src.parent
    out = Path(out) if out is not None else base
    why = _unusable(out)
    if why:
        return _err(why)
    if screenshot is not None:
        if Path(screenshot).is_dir():
            return _err(f"--screenshot {screenshot}: is a directory")
        if find_chromium() is None:
            return _err("--screenshot needs Chromium (Debian: apt-get install chromium); nothing written")
    plots = base / "plots"
    manifest = figures.draw_all(doc, plots, jobs=jobs) if redraw else figures.existing_manifest(doc, plots)
    atomic_write_text(out / "report.md", report.render_markdown(doc, manifest, base=out))
    atomic_write_text(out / "report.html", report.render_html(doc, manifest, base=out))
    n = len(manifest["cells"]) + len(manifest["classes"]) + len(manifest.get("bench", {})) + bool(manifest["heatmap"])
    print(f"mixbounds report: wrote {out / 'report.md'} and {out / 'report.html'} ({n} figures linked from {plots})")
    if screenshot is not None:
        png = shoot(out / "report.html", screenshot)
        print(f"mixbounds report: first screen of report.html in {png}")
    return EXIT_OK


def register(sub) -> None:
    r = sub.add_parser("report", help="rewrite report.md / report.html from a results.json (never runs a solver)")
    r.add_argument("results", metavar="RESULTS", help="results.json of a verify run (or its directory)")
    r.add_argument("--out", default=None, metavar="DIR", help="where to write the report (default: beside RESULTS)")
    r.add_argument("--redraw", action="store_true", help="redraw the figures in plots/ first")
    r.add_argument("--screenshot", default=None, metavar="PNG",
                   help="also save the report's first screen, rendered by headless Chromium, as PNG")
    r.set_defaults(func=lambda a: run(a.results, a.out, redraw=a.redraw, screenshot=a.screenshot))
