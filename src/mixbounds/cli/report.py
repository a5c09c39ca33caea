"""``mixbounds report RESULTS``: rewrite report.md and report.html from a results document, optionally a screenshot.

    mixbounds report RESULTS [--out DIR] [--redraw] [--screenshot PNG]

Reads ``results.json`` (or the directory holding it), takes the figures already in ``plots/`` beside it
(``--redraw`` draws them again first, exactly as ``mixbounds plot`` does: staged, installed, only the figures
its manifest lists ever replaced or removed), and writes ``report.md`` and ``report.html`` to ``DIR`` (default:
beside RESULTS).  DIR goes through the ownership, lock and staged install of :mod:`mixbounds.outdir`: it must
be new, empty, a directory of an earlier ``mixbounds report``, or a ``verify`` result set (whose other files
are kept); a user's own ``report.md`` in a directory the suite did not write is never overwritten.  Never runs
a solver.  ``--screenshot PNG`` also renders the first screen of ``report.html`` in headless Chromium (the
README's picture: ``mixbounds report mixbounds-results --screenshot docs/report-screenshot.png``).
A report is written beside the results it was drawn from or into a directory of its own: a directory holding
the set or report of another selection (:mod:`mixbounds.selection`) is refused, a report directory unless
``--replace``.  Exit codes: 0 written; 1 the report could not be written (a full disk; the previous one is
unchanged); 2 bad input (unreadable results, unusable or foreign paths, another selection, no browser for
--screenshot; nothing written); 130 interrupted (nothing half-written).
"""

from __future__ import annotations

import sys
from pathlib import Path

from mixbounds.outdir import OutputDir, OutputError, atomic_write_text, check_dir, check_file, relative_files
from mixbounds.plots import ResultsFileError, existing_manifest, load_results
from mixbounds.plots.data import figure_files
from mixbounds.report import verify as report
from mixbounds.report.browser import find_chromium
from mixbounds.report.browser import screenshot as shoot
from mixbounds.selection import describe, document_selection
from mixbounds.verify import install_figures

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def _err(msg: str) -> int:
    print(f"mixbounds report: error: {msg}", file=sys.stderr)
    return EXIT_USAGE


def run(results, out=None, *, redraw: bool = False, screenshot=None, jobs: int = 1, mode: str = "refuse") -> int:
    try:
        doc = load_results(results)
    except ResultsFileError as exc:
        return _err(str(exc))
    src = Path(results)
    base = (src if src.is_dir() else src.parent).absolute()
    out = Path(out).absolute() if out is not None else base
    what = "--out" if out != base else "report directory"
    plots = base / "plots"
    try:  # every path before any work
        check_dir(out, what, tool="report")
        if redraw:
            check_dir(plots, "figure directory", figures=True, tool="plot")
        if screenshot is not None:
            check_file(screenshot, "--screenshot")
    except OutputError as exc:
        return _err(str(exc))
    if screenshot is not None and find_chromium() is None:
        return _err("--screenshot needs Chromium (Debian: apt-get install chromium); nothing written")
    command = f"mixbounds report {results}"
    try:  # DIR held first: a report directory in use by another run is refused before any figure is redrawn
        with OutputDir(out, "report", what=what, command=command, selection=document_selection(doc),
                       mode=mode) as od:
            if od.previous is not None and od.kind == "verify":  # never a report beside another selection's results
                raise OutputError(f"{what} {od.path}: holds the results of {describe(od.previous)}; the report of "
                                  f"{results} ({describe(document_selection(doc))}) is written beside its own results "
                                  f"or into a directory of its own: choose another --out")
            if redraw:
                install_figures(doc, plots, what="figure directory", command=command, jobs=jobs)
            manifest = existing_manifest(doc, plots)
            stage = od.stage()
            atomic_write_text(stage / "report.md", report.render_markdown(doc, manifest, base=od.path))
            atomic_write_text(stage / "report.html", report.render_html(doc, manifest, base=od.path))
            od.install(stage, relative_files(stage), keep_others=True)
    except OutputError as exc:
        return _err(str(exc))
    except KeyboardInterrupt:
        print(f"mixbounds report: interrupted; the report in {out} is unchanged", file=sys.stderr)
        return EXIT_INTERRUPTED
    except OSError as exc:  # a full disk while writing or installing: the staged report is dropped
        print(f"mixbounds report: error: could not write the report ({exc.strerror or exc}); the report in {out} "
              f"is unchanged", file=sys.stderr)
        return EXIT_FAIL
    n = len(figure_files(manifest))
    print(f"mixbounds report: wrote {out / 'report.md'} and {out / 'report.html'} ({n} figures linked from {plots})")
    if screenshot is not None:
        png = shoot(out / "report.html", screenshot)
        print(f"mixbounds report: first screen of report.html in {png}")
    return EXIT_OK
