"""``mixbounds verify``: run the checks, print the verdicts, write results, plots and the report.

The main job of the suite (README's first command)::

    mixbounds verify [--tier tiny|quick|full] [--claims GLOB] [--jobs N] [--out DIR]
                     [--json FILE] [--no-plots] [--svg] [--no-cache]

* selects every check with a result id matching ``--claims`` (comma-separated
  globs; a glob also selects the ids below it: ``T1.coupled.comm`` selects
  ``T1.coupled.comm.kappa_W.lower``, ``…lower`` selects ``…lower@variant``);
* runs their tasks (sweep points) with :func:`mixbounds.checks.run.framework.run_checks`:
  a progress bar on a terminal, a line per ~10 % otherwise; every point is cached
  under ``OUT/.cache/<code version>/`` so an interrupted run resumes
  (``--no-cache`` neither reads nor writes the cache); with ``--scheduler`` the points run on
  a Dask cluster (:mod:`mixbounds.checks.run.executors`; reached before any work) and come back to this
  process, which alone writes the cache;
* prints a table of verdicts, the findings, the negative controls and a summary line;
* writes, only once everything has run, ``OUT/results.json``, ``OUT/results.csv``,
  ``OUT/report.md``, ``OUT/report.html`` and ``OUT/plots/`` (PNG; with ``--svg`` also SVG) as one set (:mod:`mixbounds.outdir`):
  drawn into a staging directory, then installed behind a journal, so an interrupted,
  killed or failed run leaves the previous complete set and never a mix.  OUT must be new,
  empty or a directory this suite wrote (its manifest ``.mixbounds-out.json`` lists the
  files; nothing else is touched), and one run at a time holds it (``.mixbounds-lock``).
  Every output path (``--out``, ``--json``) is checked before any work.

Exit codes: 0 no result ``fail``/``error``, every ``finding`` expected
(:mod:`mixbounds.checks.expected`, each with its reason) and every negative control caught;
1 a check failed or errored, a finding is not an expected one, a control was not
caught, or the outputs could not be written; 2 bad usage (unknown tier,
bad ``--jobs``, a ``--claims`` glob matching nothing, an unusable or foreign ``--out``
or ``--json``, ``--out`` in use by another run, a ``--scheduler`` that is misspelt, unreachable
or needs Dask where it is not installed);
130 interrupted (Ctrl-C; cached points are kept, nothing else is written).
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from fnmatch import fnmatchcase
from pathlib import Path

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

import mixbounds.plots as figures  # the module; `plots` is the option that turns them on
from mixbounds.bounds.claims import REGISTRY
from mixbounds.checks.audits.guards import guard_globs
from mixbounds.checks.lower.certificates import summary_line
from mixbounds.checks.lower.tables234 import CARRIED_BELOW, NOT_CARRIED
from mixbounds.checks.registry import all_checks
from mixbounds.checks.run.document import (  # noqa: F401  (re-exported for the CLI and tests)
    EXIT_FAIL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    SCHEMA,
    build_document,
    csv_text,
    seeds_of,
    summarize,
)
from mixbounds.checks.run.executors import SchedulerError, open_executor, parse_scheduler
from mixbounds.checks.run.framework import (  # noqa: F401  (code_version: patched by the tests)
    Check,
    cache_census,
    code_version,
    run_checks,
)
from mixbounds.checks.tiers import QUICK, Tier, as_tier
from mixbounds.outdir import (
    VERIFY_OUT,
    OutputDir,
    OutputError,
    atomic_write_text,
    check_cache_dir,
    check_dir,
    check_file,
    figures_kind,
    relative_files,
)
from mixbounds.plots.data import ResultsFileError, figure_files, finite, fmt_slope, load_results
from mixbounds.report import verify as report

#: the figure files a run writes: the PNG its report shows (``--svg`` adds vector copies; ``mixbounds plot`` writes both)
REPORT_FORMATS = ("png",)
SWEEP_KINDS = ("upper", "tight", "absent", "lower")


@dataclass(frozen=True)
class Options:
    """What ``mixbounds verify`` was asked to do (its command-line options).

    ``tier``: a :class:`~mixbounds.checks.tiers.Tier` (a name is parsed: ``ValueError`` for an unknown one);
    ``claims``: comma-separated globs over result ids; ``jobs``: worker processes; ``out``: the output directory;
    ``json``: a second copy of ``results.json``; ``plots``: draw the figures; ``svg``: also write each figure as SVG
    (the report shows the PNG files; the vector copies are for papers, and cost a third of the drawing time);
    ``cache``: read and write the point cache; ``command``: the command line, recorded; ``scheduler``: a Dask
    scheduler (``--scheduler``).
    """

    tier: Tier = QUICK
    claims: str = "*"
    jobs: int = 1
    out: Path = Path(VERIFY_OUT)
    json: Path | None = None
    plots: bool = True
    svg: bool = False
    cache: bool = True
    command: str = ""
    scheduler: str | None = None

    def __post_init__(self):
        object.__setattr__(self, "tier", as_tier(self.tier))


@dataclass(frozen=True)
class Run:
    """One run, validated and planned by :func:`run`: everything the steps that execute it need."""

    opts: Options
    #: the selected checks, the globs that selected them, and each check's tasks (check id → tasks)
    checks: tuple
    globs: tuple
    plan: dict
    #: every task key of the plan (the sweep points), and the point cache (``None``: ``--no-cache``)
    keys: frozenset
    cache_dir: Path | None
    #: how many results the selected checks produce that the globs select
    n_results: int
    #: ``time.perf_counter()`` and the UTC time when the run started
    t_start: float
    started: str
    #: a Dask executor (``--scheduler``), or ``None`` for this process / joblib
    executor: object | None
    #: the consoles of the verdicts (stdout) and of the progress and messages (stderr)
    console: Console
    err: Console


# ----------------------------------------------------------------------------- selection
def parse_globs(spec: str) -> list[str]:
    """``"T1.coupled.*, lemma.*"`` → ``["T1.coupled.*", "lemma.*"]``."""
    globs = [g.strip() for g in str(spec).split(",") if g.strip()]
    if not globs:
        raise ValueError("--claims: empty glob")
    return globs


def matches(rid: str, globs: list[str]) -> bool:
    """Whether result id ``rid`` is selected: the glob matches it, or one of its parents (``.`` / ``@`` children)."""
    return any(fnmatchcase(rid, g) or fnmatchcase(rid, g + ".*") or fnmatchcase(rid, g + "@*") for g in globs)


def select_checks(checks: list[Check], globs: list[str], tier: Tier) -> list[Check]:
    """The checks of ``tier`` with a result id that ``globs`` select."""
    return [c for c in checks if tier in c.tiers and any(matches(r, globs) for r in c.result_ids(tier))]


def _no_match_message(globs, tier) -> str:
    reg = [c.id for c in REGISTRY if matches(c.id, globs) or any(fnmatchcase(c.id, g) for g in globs)]
    msg = f"no check in tier {tier.name!r} produces a result matching {', '.join(map(repr, globs))}"
    if reg:
        msg += f" ({len(reg)} registry claim(s) match, e.g. {reg[0]}, but no check measures them yet)"
    else:
        msg += " (result ids look like 'T1.coupled.comm.kappa_W.tight', 'T1.*.lower', 'lemma.*', 'control.*')"
    return msg


# ----------------------------------------------------------------------------- progress
class ProgressReporter:
    """Progress over tasks: a rich bar on a terminal, otherwise one line per ~10 % (never spams a log)."""

    def __init__(self, console, total: int, cached: int):
        self.console, self.total, self.cached = console, total, cached
        self.t0 = time.perf_counter()
        self.bar = None
        self.last_decile = -1
        self.live = console.is_terminal and total > cached

    def __enter__(self):
        if self.live:
            self.bar = Progress(SpinnerColumn(), TextColumn("sweep points"), BarColumn(), MofNCompleteColumn(),
                                TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
                                TextColumn("[dim]{task.description}"), console=self.console, transient=True)
            self.bar.__enter__()
            self.task = self.bar.add_task("", total=self.total, completed=self.cached)
        return self

    def __call__(self, done: int, total: int, task) -> None:
        if self.bar is not None:
            self.bar.update(self.task, completed=done, total=total, description=(task.label or task.name)[:60])
            return
        decile = int(10 * done / max(total, 1))
        if decile > self.last_decile:
            self.last_decile = decile
            el = time.perf_counter() - self.t0
            self.console.print(f"  {100 * done / max(total, 1):5.1f}%  {done}/{total} points  {el:7.1f} s  "
                               f"(last: {_short(task.label or task.name, 70)})", markup=False, highlight=False, soft_wrap=True)

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.__exit__(*exc)
        return False


# ----------------------------------------------------------------------------- document
# ----------------------------------------------------------------------------- writing
def write_outputs(doc: dict, out: Path, *, json_path: Path | None = None, plots: bool = True,
                  t_start: float | None = None, jobs: int = 1, formats: tuple[str, ...] = REPORT_FORMATS) -> dict:
    """Figures (in ``formats``), report, CSV, then ``results.json`` into directory ``out`` (a staging directory in a
    run).

    With ``t_start`` (a ``time.perf_counter()`` value), ``doc["wall_time"]`` is updated to include the figures.
    """
    out = Path(out)
    manifest = {"cells": {}, "classes": {}, "heatmap": [], "errors": []}
    if plots:
        t0 = time.perf_counter()
        manifest = figures.draw_all(doc, out / "plots", formats=formats, jobs=jobs)
        doc["stats"]["plot_seconds"] = time.perf_counter() - t0
    if t_start is not None:
        doc["wall_time"] = time.perf_counter() - t_start
    t0 = time.perf_counter()
    md = report.render_markdown(doc, manifest, base=out)
    html = report.render_html(doc, manifest, base=out)
    doc["stats"]["report_seconds"] = time.perf_counter() - t0  # after wall_time, which the report prints
    text = json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False)
    atomic_write_text(out / "results.csv", csv_text(doc))
    atomic_write_text(out / "report.md", md)
    atomic_write_text(out / "report.html", html)
    atomic_write_text(out / "results.json", text + "\n")
    if json_path is not None:
        atomic_write_text(Path(json_path), text + "\n")
    return manifest


def is_results_document(path: Path) -> bool:
    """Whether ``path`` holds a results document of this suite (so ``--json`` may replace it)."""
    try:
        load_results(path)
        return True
    except ResultsFileError:
        return False


# ----------------------------------------------------------------------------- terminal
def _short(v, n: int = 34) -> str:
    if v is None:
        return "—"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, dict):
        items = [f"{k}: {_short(x, 12)}" for k, x in list(v.items())[:2]]
        s = "; ".join(items) + ("; …" if len(v) > 2 else "")
    else:
        s = str(v)
    return s if len(s) <= n else s[: n - 1] + "…"


def measured_text(c: dict, digits: int = 3) -> str:
    if c.get("readings"):  # several numbers (lemma checks, closed forms, audits): all of them by name
        return _short(c["readings"])
    if finite(c.get("measured")) is not None:
        return fmt_slope(c, digits)
    return _short(c.get("measured"))


#: how the terminal shows a pass's verdict label (labels not listed are shown as they are; ``tight`` adds nothing)
LABEL_TEXT = {"tight": None, "upper matches, lower not certified": "lower not certified", NOT_CARRIED: "not carried",
              CARRIED_BELOW: "carried below its accuracy threshold"}


def verdict_text(c: dict) -> str:
    """The verdict column: the status, and for a pass its ``verdict_label`` (``pass (upper holds, not exercised)``)."""
    label = c.get("verdict_label")
    shown = LABEL_TEXT.get(label, label) if label else None
    return c["status"] + (f" ({shown})" if shown and c["status"] == "pass" else "")


STATUS_STYLE = {"pass": "green", "fail": "bold red", "finding": "yellow", "error": "bold magenta", "skipped": "dim"}


def print_summary(doc: dict, console, *, outputs: str | None = None) -> None:
    claims = doc["claims"]
    ordinary = [c for c in claims if not c.get("control")]
    t = Table(title=f"mixbounds verify — tier {doc['tier']}", show_lines=False, header_style="bold", expand=False)
    # the claim id unbroken (at the 150-column width of a non-terminal, ids up to 48 characters), the rest folded
    for col, kw in (("claim", {"overflow": "fold", "min_width": 48}), ("kind", {}),
                    ("theory", {"overflow": "fold", "max_width": 22}),
                    ("measured ± CI", {"overflow": "fold", "max_width": 24}), ("tol", {}),
                    ("verdict", {"overflow": "fold", "max_width": 18})):
        t.add_column(col, **kw)
    for c in ordinary:
        t.add_row(Text(c["id"]), Text(c["kind"]), Text(_short(c.get("theory"), 28)), Text(measured_text(c)),
                  Text(_short(c.get("tolerance"))),
                  Text(verdict_text(c), style=STATUS_STYLE.get(c["status"], "")))
    if ordinary:
        console.print(t)
    fnd = doc.get("findings") or []
    if fnd:
        console.print(Text(f"Findings ({len(fnd)}):", style="bold yellow"))
        for f in fnd:
            console.print(Text(f"  {_short(f.get('label'), 60)}: {f.get('statement')} — printed {_short(f.get('printed'), 40)} "
                               f"vs measured {_short(f.get('measured'), 60)}"), soft_wrap=True)
    ctl = doc["controls"]
    if ctl["total"]:
        style = "bold green" if ctl["caught"] == ctl["total"] else "bold red"
        console.print(Text(f"Negative controls: {ctl['caught']}/{ctl['total']} caught", style=style))
        why = {c["id"]: c.get("detail") for c in doc["claims"]}
        for it in ctl["items"]:
            mark = Text("caught     ", style="green") if it["caught"] else Text("NOT CAUGHT ", style="bold red")
            # a control that could not run says why (e.g. an optional extra that is not installed)
            reason = f": {_short(why.get(it['id']), 160)}" if not it["caught"] and it["status"] == "skipped" else ""
            console.print(Text("  ") + mark + Text(f"{it['id']} (status {it['status']}){reason}"), soft_wrap=True)
    bad = [c for c in ordinary if c["status"] in ("fail", "error")]
    for c in bad:
        console.print(Text(f"  {c['status'].upper()} {c['id']}: {_short(c.get('detail'), 300)}", style=STATUS_STYLE[c["status"]]),
                      soft_wrap=True)
    s = doc["summary"]
    for rid in s.get("unexpected_findings", []):
        console.print(Text(f"  UNEXPECTED FINDING {rid}: not in checks/expected.py — a new disagreement or a regression",
                           style="bold red"), soft_wrap=True)
    for rid in s.get("expected_findings_now_passing", []):
        console.print(Text(f"  note: {rid} is listed as an expected finding but passed", style="yellow"), soft_wrap=True)
    lbc = s.get("lower_bound_certificates")
    if lbc and lbc.get("total"):
        console.print(Text(summary_line(lbc), style="bold" if not lbc["none"] else "yellow"), soft_wrap=True)
    if outputs:
        console.print(Text(outputs), soft_wrap=True)
    counts = ", ".join(f"{n} {k}" for k, n in s["status"].items() if n or k in ("pass", "fail"))
    st = doc["stats"]
    line = (f"{'OK' if s['exit_code'] == 0 else 'FAILED'}: {s['results']} results ({counts}); controls caught "
            f"{s['controls_caught']}/{s['controls_total']}; {doc['wall_time']:.1f} s wall; {st.get('computed', 0)} points "
            f"computed, {st.get('cached', 0)} cached; tier {doc['tier']}; code {doc['versions']['code_version']}")
    console.print(Text(line, style="bold green" if s["exit_code"] == 0 else "bold red"), soft_wrap=True)


# ----------------------------------------------------------------------------- main
def _consoles():
    out = Console(file=sys.stdout, highlight=False, width=None if sys.stdout.isatty() else 150)
    err = Console(file=sys.stderr, highlight=False, width=None if sys.stderr.isatty() else 150)
    return out, err


def _usage(msg: str) -> int:
    print(f"mixbounds verify: error: {msg}", file=sys.stderr)
    return EXIT_USAGE


def _check_outputs(out: Path, json_path: Path | None, plots: bool, cache: bool = True) -> None:
    """Every output path of the run, checked before any work (:class:`mixbounds.outdir.OutputError`): ``--out`` (new,
    or a ``verify`` set), ``--json``, and the point cache ``OUT/.cache`` with this code version's directory in it."""
    check_dir(out, "--out", subdirs=("plots",) if plots else (), tool="verify")
    if json_path is not None:
        check_file(json_path, "--json", ours=is_results_document, ours_desc="mixbounds results document")
    if cache:
        check_cache_dir(Path(out).absolute() / ".cache")
        check_cache_dir(Path(out).absolute() / ".cache" / code_version())


def _header(r: Run, where: str) -> int:
    cen = {"valid": 0, "damaged": 0} if r.cache_dir is None else cache_census(r.cache_dir, r.keys)
    dmg = f", {cen['damaged']} damaged cache entries to recompute" if cen["damaged"] else ""
    r.err.print(f"mixbounds verify: tier {r.opts.tier.name}, {len(r.checks)} checks ({r.n_results} results), "
                f"{len(r.keys)} sweep points ({cen['valid']} cached{dmg}), {where}" + ("" if r.cache_dir else ", cache off"),
                markup=False, highlight=False)
    return cen["valid"]


def _guards_left_out(checks: list[Check], selected: list[Check], globs: list[str], tier: Tier) -> list[str]:
    """The globs of the self-checks ``selected`` rests on (:func:`mixbounds.checks.audits.guards.guard_globs`) that
    select a result ``globs`` leave out (none with ``'*'``)."""
    wanted = guard_globs(selected, tier)
    prefixes = tuple({g.split(".")[0] + "." for g in wanted})
    left = [r for c in checks if tier in c.tiers for r in c.result_ids(tier)
            if r.startswith(prefixes) and not matches(r, globs)]
    return [g for g in wanted if any(matches(r, [g]) for r in left)]


def run(opts: Options, *, checks: list[Check] | None = None) -> int:
    """Run ``mixbounds verify`` with ``opts``; ``checks`` defaults to :func:`mixbounds.checks.registry.all_checks`."""
    tier = opts.tier
    if not isinstance(opts.jobs, int) or opts.jobs < 1:
        return _usage(f"--jobs must be a positive integer, got {opts.jobs!r}")
    try:
        globs = parse_globs(opts.claims)
    except ValueError as exc:
        return _usage(str(exc))
    out = Path(opts.out)
    try:
        _check_outputs(out, opts.json, opts.plots, opts.cache)
    except OutputError as exc:
        return _usage(str(exc))
    try:
        if opts.scheduler is not None:
            parse_scheduler(opts.scheduler)
    except SchedulerError as exc:
        return _usage(str(exc))
    console, err = _consoles()
    t_start = time.perf_counter()
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    if checks is None:
        checks = all_checks()
    selected = select_checks(checks, globs, tier)
    if not selected:
        return _usage(_no_match_message(globs, tier))
    guards = _guards_left_out(checks, selected, globs, tier)
    if guards:  # the self-checks a subset rests on run with it (mixbounds.checks.audits.guards)
        globs = globs + guards
        selected = select_checks(checks, globs, tier)
    plan = {c.id: list(c.tasks(tier)) for c in selected}
    try:
        executor = open_executor(None if opts.scheduler is None else parse_scheduler(opts.scheduler))
    except SchedulerError as exc:
        return _usage(str(exc))
    if guards:
        err.print(f"mixbounds verify: with the self-checks this selection rests on: {', '.join(guards)}",
                  markup=False, highlight=False, soft_wrap=True)
    r = Run(opts=opts, checks=tuple(selected), globs=tuple(globs), plan=plan,
            keys=frozenset(t.key for ts in plan.values() for t in ts), cache_dir=(out / ".cache") if opts.cache else None,
            n_results=sum(1 for c in selected for rid in c.result_ids(tier) if matches(rid, globs)),
            t_start=t_start, started=started, executor=executor, console=console, err=err)
    try:
        return _run_out(r)
    finally:
        if executor is not None:
            executor.close()


def _run_out(r: Run) -> int:
    """Take the output directory, then run."""
    log = lambda msg: r.err.print(msg, markup=False, highlight=False, soft_wrap=True)  # noqa: E731
    try:
        od = OutputDir(Path(r.opts.out), "verify", command=r.opts.command or "mixbounds verify",
                       subdirs=("plots",) if r.opts.plots else (), log=log).__enter__()
    except OutputError as exc:
        return _usage(str(exc))
    try:
        return _run_locked(r, od)
    finally:
        od.__exit__(None, None, None)


def _run_locked(r: Run, od: OutputDir) -> int:
    """The run proper, holding the output directory: points, document, staged outputs, install."""
    opts, err, console, executor, cache_dir = r.opts, r.err, r.console, r.executor, r.cache_dir
    out = od.path
    try:
        where = f"jobs {opts.jobs}" if executor is None else f"scheduler {executor.describe()}"
        cached = _header(r, where)
        with ProgressReporter(err, len(r.keys), cached) as prog:
            results, stats = run_checks(list(r.checks), opts.tier, jobs=opts.jobs, cache_dir=cache_dir, progress=prog,
                                        executor=executor)
        # the serial start: options, selection, plan, cluster start, cache reading (all before the first point)
        stats["setup_seconds"] = time.perf_counter() - r.t_start - stats["seconds"]
        if executor is not None:
            stats["scheduler"] = str(executor.spec)
    except SchedulerError as exc:  # a task group failed on the cluster (the points computed so far are cached)
        print(f"mixbounds verify: error: {exc}", file=sys.stderr)  # one line: not wrapped by rich
        return EXIT_FAIL
    except KeyboardInterrupt:
        err.print("mixbounds verify: interrupted; nothing written"
                  + (f" (computed points are cached in {cache_dir}: rerun to resume)" if cache_dir else ""),
                  markup=False, highlight=False)
        return EXIT_INTERRUPTED
    t_doc = time.perf_counter()
    globs = list(r.globs)
    results = [res for res in results if matches(res.id, globs)]
    doc = build_document(results, stats, tier=opts.tier, globs=globs, wall_time=time.perf_counter() - r.t_start,
                         started=r.started, checks=list(r.checks), plan=r.plan, jobs=opts.jobs, cache_dir=cache_dir,
                         command=opts.command)
    try:
        stage = od.stage()
        doc["stats"]["document_seconds"] = time.perf_counter() - t_doc
        manifest = write_outputs(doc, stage, plots=opts.plots, t_start=r.t_start, jobs=opts.jobs,
                                 formats=REPORT_FORMATS + (("svg",) if opts.svg else ()))
        if opts.json is not None:
            atomic_write_text(Path(opts.json), (stage / "results.json").read_text(encoding="utf-8"))
        od.install(stage, relative_files(stage), last="results.json")
    except KeyboardInterrupt:
        err.print(f"mixbounds verify: interrupted while writing outputs; the previous output set in {out} is unchanged",
                  markup=False)
        return EXIT_INTERRUPTED
    except OSError as exc:
        err.print(f"mixbounds verify: error: could not write outputs ({exc}); the previous output set in {out} "
                  f"is unchanged", markup=False)
        print_summary(doc, console)
        return EXIT_FAIL
    nfig = len(figure_files(manifest))
    where = f"Wrote {out / 'results.json'}, results.csv, report.md, report.html" + (
        f", {nfig} figures in {out / 'plots'}" if opts.plots else "") + (f"; also {opts.json}" if opts.json else "")
    if manifest["errors"]:
        where += f"; {len(manifest['errors'])} figure(s) failed: {manifest['errors'][0]}"
    print_summary(doc, console, outputs=where)
    return doc["summary"]["exit_code"]


def install_figures(doc: dict, out: Path, *, what: str, command: str, jobs: int = 1) -> dict | None:
    """Draw the figures of ``doc`` into a staging directory of the figure directory ``out`` and install them
    (:mod:`mixbounds.outdir`: ``out`` new, empty, or a figure directory ``mixbounds plot`` may write); the manifest
    of the drawing, or ``None`` (nothing installed) when ``doc`` has no figure to draw.  :class:`OutputError`."""
    check_dir(out, what, figures=True, tool="plot")
    with OutputDir(out, "plot", what=what, command=command, kind=figures_kind(out)) as od:
        stage = od.stage()
        manifest = figures.draw_all(doc, stage, jobs=jobs)
        if not figure_files(manifest) and not manifest["errors"]:
            return None
        od.install(stage, relative_files(stage))
    return manifest


def redraw(results_path, out_dir=None, *, jobs: int = 1) -> int:
    """``mixbounds plot RESULTS [--out DIR] [--jobs N]``: redraw the figures of a results document (runs no solver).

    DIR (default ``plots/`` beside RESULTS) must be new, empty or a figure directory of the suite (a stand-alone
    one or the ``plots/`` of a ``verify`` set; never a result set itself); the figures are drawn into a staging
    directory and installed together (:func:`install_figures`).
    """
    try:
        doc = load_results(results_path)
    except ResultsFileError as exc:
        print(f"mixbounds plot: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    src = Path(results_path)
    base = src if src.is_dir() else src.parent
    out = Path(out_dir) if out_dir is not None else base / "plots"
    what = "--out" if out_dir is not None else "figure directory"
    try:
        manifest = install_figures(doc, out, what=what, command=f"mixbounds plot {results_path}", jobs=jobs)
    except OutputError as exc:
        print(f"mixbounds plot: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"mixbounds plot: interrupted; the figures in {out} are unchanged", file=sys.stderr)
        return EXIT_INTERRUPTED
    if manifest is None:
        print(f"mixbounds plot: {results_path} has no sweep results to plot (nothing written)")
        return EXIT_OK
    print(f"mixbounds plot: {len(figure_files(manifest))} figures (PNG + SVG) in {out}")
    for e in manifest["errors"]:
        print(f"mixbounds plot: figure failed: {e}", file=sys.stderr)
    return EXIT_FAIL if manifest["errors"] else EXIT_OK
