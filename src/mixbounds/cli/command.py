"""The ``mixbounds`` command line.

Sub-commands: ``verify`` (the main job: :mod:`mixbounds.verify`), ``plot`` (redraw
the figures from a ``results.json``), ``report`` (rewrite the report from it,
:mod:`mixbounds.cli.report`), ``bench`` (a user's method against the lower bounds, :mod:`mixbounds.cli.bench`),
``table`` (the registry as the paper's tables), ``instance`` (:mod:`mixbounds.cli.instance`) and ``solve``
(:mod:`mixbounds.cli.solve`).  Every parser is built here (the options of ``instance`` and ``solve`` are declared
in :mod:`mixbounds.cli.options`); every command imports its machinery when it runs (:data:`LAZY`).  Exit codes: 0 success, 1 a check failed (or a negative control
was not caught), 2 bad usage or bad input, 130 interrupted.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from mixbounds.checks.tiers import QUICK
from mixbounds.cli.options import register_instance, register_solve
from mixbounds.cli.parsing import TIER_METAVAR, Parser, default_jobs, jobs_option, set_mode_options, tier_arg
from mixbounds.cli.streams import guarded_stdout, io_error, prepare_streams
from mixbounds.isolation import METHOD_MAX_ITER, METHOD_TIMEOUT_S, YIELD_TIMEOUT_S
from mixbounds.outdir import BENCH_OUT, SUITE_BENCH_OUT, VERIFY_OUT

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130

#: Why every command imports its machinery when it runs and not here: the checks' registry, scipy.stats and
#: matplotlib cost 0.9 s of the 1.3 s that ``import mixbounds.cli`` took with every command imported at the top
#: (``python -X importtime``, idle machine), paid by every ``mixbounds solve`` and ``mixbounds instance`` call — at
#: 10⁴ variables most of a solve's wall; ``mixbounds.cli.solve`` and ``mixbounds.cli.instance`` (scipy, the instance
#: builders, the solvers) cost 1.0 s of CPU each against 0.27 s for this module with numpy and 0.15 s for numpy
#: alone (``time.process_time`` around the import, median of 3, load average 12 on 2 cores).  The parsers are
#: declared without them so that ``mixbounds --help`` and the CLI reference still list every option
#: (``tests/test_cli.py`` checks the modules a help loads).
LAZY = "each command's machinery is imported when it runs"


def _cmd_table(args) -> int:
    from mixbounds.bounds.render import render_markdown, render_text  # lazy: see LAZY
    print(render_markdown() if args.markdown else render_text())
    return EXIT_OK


def _cmd_verify(args) -> int:
    from mixbounds.verify import Options, run  # lazy: see LAZY
    if args.json is not None and args.json.endswith(("/", os.sep)):  # Path() would drop the slash
        print(f"mixbounds verify: error: --json {args.json}: is a directory name, expected a file name",
              file=sys.stderr)
        return EXIT_USAGE
    opts = Options(tier=args.tier, claims=args.claims, jobs=args.jobs, out=Path(args.out),
                   json=None if args.json is None else Path(args.json), plots=not args.no_plots, svg=args.svg,
                   cache=not args.no_cache,
                   command=" ".join(["mixbounds"] + list(args.argv)), scheduler=args.scheduler, mode=args.mode)
    return run(opts)


def _cmd_plot(args) -> int:
    from mixbounds.verify import redraw  # lazy: see LAZY
    return redraw(args.results, args.out, jobs=args.jobs, mode=args.mode)


def _cmd_report(args) -> int:
    from mixbounds.cli.report import run  # lazy: see LAZY
    return run(args.results, args.out, redraw=args.redraw, screenshot=args.screenshot, jobs=args.jobs, mode=args.mode)


def _cmd_bench(args) -> int:
    from mixbounds.cli.bench import run_bench  # lazy: see LAZY
    return run_bench(args)


def _cmd_instance(args) -> int:
    from mixbounds.cli.instance import cmd_instance  # lazy: see LAZY
    return cmd_instance(args)


def _cmd_solve(args) -> int:
    from mixbounds.cli.solve import cmd_solve  # lazy: see LAZY
    return cmd_solve(args)


def _scheduler_option(p) -> None:
    """``--scheduler``, the same for ``verify`` and ``bench`` (:mod:`mixbounds.checks.run.executors` reads it)."""
    p.add_argument("--scheduler", default=None, metavar="ADDRESS|local:N",
                   help="run the sweep points on a Dask cluster: tcp://HOST:PORT of a 'dask scheduler', a scheduler "
                        "file (*.json), or local:N for a local cluster of N worker processes (needs the [dask] extra)")


def _register_bench(sub) -> None:
    b = sub.add_parser("bench", help="measure a user's method against the paper's lower bounds",
                       description="Run a method written to the contract of mixbounds.methods (a generator "
                                   "method(problem, oracles) yielding its primal estimate) on the worst-case "
                                   "constructions and random families of the chosen classes, over the Table 1 "
                                   "sweeps; report slopes, the paper's exponents, the engine's lower-bound slopes, "
                                   "count/bound ratios and a verdict (optimal, suboptimal, inconclusive, below-lower-bound, error). "
                                   "MODULE:FUNCTION is imported with the current directory on sys.path. Without "
                                   "--method: the suite's own methods (APAPC and the baselines, results bench.*, "
                                   "tiers tiny and full), written as a verify run. Exit 0: "
                                   "measured; 1: some error or below-lower-bound; 2: bad usage.")
    b.add_argument("--method", default=None, metavar="MODULE:FUNCTION",
                   help="the method (MODULE:FUNCTION, or a NAME of entry-point group mixbounds.methods); without it, "
                        "the suite's own methods (APAPC and the baselines: the results bench.*, which 'mixbounds "
                        "verify' runs only when --claims names them) in tiers tiny and full")
    b.add_argument("--classes", default=None, metavar="C,…",
                   help="problem classes (default: those the method declares in .classes, else all)")
    b.add_argument("--tier", type=tier_arg, default=QUICK, metavar=TIER_METAVAR, help="sweeps of the Table 1 checks (default quick)")
    b.add_argument("--out", default=None, metavar="DIR",
                   help=f"output directory (default ./{BENCH_OUT}/; without --method ./{SUITE_BENCH_OUT}/)")
    b.add_argument("--json", default=None, metavar="FILE",
                   help="also write bench.json (without --method: results.json) to FILE")
    b.add_argument("--method-timeout", type=float, default=METHOD_TIMEOUT_S, metavar="SECONDS",
                   help=f"wall-clock limit of the method on one sweep point (import, set-up and run; default "
                        f"{METHOD_TIMEOUT_S:g} s): a point that exceeds it is the method's error, the run goes on")
    b.add_argument("--yield-timeout", type=float, default=YIELD_TIMEOUT_S, metavar="SECONDS",
                   help=f"a method that yields nothing for this long is stopped and the point is its error (default "
                        f"{YIELD_TIMEOUT_S:g} s, over 10x the longest wait for a yield of the shipped examples)")
    b.add_argument("--max-iter", "--budget", dest="max_iter", type=int, default=METHOD_MAX_ITER, metavar="N",
                   help=f"budget of iterations (yields) per point (default {METHOD_MAX_ITER}); a run that reaches it is "
                        "censored: its count is a lower bound the verdict uses as such, never an error")
    b.add_argument("--method-arg", action="append", default=None, metavar="KEY=VALUE",
                   help="keyword argument passed to the method, method(problem, oracles, KEY=VALUE); VALUE is read as "
                        "JSON when it is JSON (3, 0.5, true, \"text\"), else as a string; repeatable")
    b.add_argument("--params", default=None, metavar="P,…",
                   help="only these swept parameters (e.g. kappa_f,kappa_W; default: every parameter of the class)")
    b.add_argument("--families", default=None, metavar="F,…",
                   help="only these families: worst (the worst-case construction as printed), random, or family names "
                        "(default: both)")
    b.add_argument("--oracles", default=None, metavar="O,…",
                   help="judge only these oracles (grad, A, C, Ct, comm; default: every oracle of the class)")
    b.add_argument("--cache-dir", default=None, metavar="DIR",
                   help="cache of the references (APAPC and the lower-bound engine per point, by code version; default "
                        "OUT/.cache; a verify's mixbounds-results/.cache holds the same tasks); the method is never cached")
    b.add_argument("--no-cache", action="store_true", help="neither read nor write the reference cache")
    b.add_argument("--jobs", type=jobs_option, default=default_jobs(), metavar="N",
                   help="worker processes (default and cap: the available cores)")
    _scheduler_option(b)
    set_mode_options(b, "results", merge=True)
    b.set_defaults(func=_cmd_bench)


def _register_report(sub) -> None:
    r = sub.add_parser("report", help="rewrite report.md / report.html from a results.json (never runs a solver)")
    r.add_argument("results", metavar="RESULTS", help="results.json of a verify run (or its directory)")
    r.add_argument("--out", default=None, metavar="DIR", help="where to write the report (default: beside RESULTS)")
    r.add_argument("--redraw", action="store_true", help="redraw the figures in plots/ first")
    r.add_argument("--jobs", type=jobs_option, default=default_jobs(), metavar="N",
                   help="worker processes for --redraw (default: the available cores)")
    r.add_argument("--screenshot", default=None, metavar="PNG",
                   help="also save the report's first screen, rendered by headless Chromium, as PNG")
    set_mode_options(r, "report", merge=False)
    r.set_defaults(func=_cmd_report)


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="mixbounds", description="Check the complexity theorems of the mixed-affine-constraints paper.")
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND", required=True, parser_class=Parser)
    t = sub.add_parser("table", help="print the claims registry as the paper's tables")
    t.add_argument("--markdown", action="store_true", help="Markdown instead of plain text")
    t.set_defaults(func=_cmd_table)
    v = sub.add_parser("verify", help="measure the registered claims; write results, plots and the report",
                       description="Run the checks (sweeps, lower-bound engine, lemmas, negative controls), print the "
                                   "verdicts and write results.json, results.csv, report.md, report.html and plots/ "
                                   "into --out. Exit 0: no fail/error and every control caught; 1: a check failed or "
                                   "errored or a control was not caught; 2: bad usage; 130: interrupted.")
    v.add_argument("--tier", type=tier_arg, default=QUICK, metavar=TIER_METAVAR,
                   help="tiny: smoke test (seconds-minutes); quick (default): >= 1 decade per sweep; full: publication")
    v.add_argument("--claims", default="*", metavar="GLOB",
                   help="glob(s) over result ids, comma-separated, e.g. 'T1.coupled.*', 'T1.*.lower', 'lemma.*'; "
                        "a glob also selects the ids below it ('T1.coupled.comm' selects T1.coupled.comm.kappa_W.tight)")
    v.add_argument("--jobs", type=jobs_option, default=default_jobs(), metavar="N",
                   help=f"worker processes for sweep points and figures (default: the available cores, here {default_jobs()})")
    v.add_argument("--out", default=VERIFY_OUT, metavar="DIR", help=f"output directory (default ./{VERIFY_OUT}/)")
    v.add_argument("--json", default=None, metavar="FILE", help="also write results.json to FILE")
    v.add_argument("--no-plots", action="store_true", help="skip the figures (the report then has none)")
    v.add_argument("--svg", action="store_true",
                   help="also write every figure as SVG (vector copies for papers; the report shows the PNG files, "
                        "and 'mixbounds plot RESULTS' redraws both formats from a run)")
    v.add_argument("--no-cache", action="store_true", help="neither read nor write the point cache (OUT/.cache)")
    _scheduler_option(v)
    set_mode_options(v, "results", merge=True)
    v.set_defaults(func=_cmd_verify)
    pl = sub.add_parser("plot", help="redraw the figures from a results.json (never runs a solver)")
    pl.add_argument("results", metavar="RESULTS", help="results.json of a verify run (or its directory)")
    pl.add_argument("--out", default=None, metavar="DIR", help="figure directory (default: plots/ beside RESULTS)")
    pl.add_argument("--jobs", type=jobs_option, default=default_jobs(), metavar="N",
                    help="worker processes (default: the available cores)")
    set_mode_options(pl, "figures", merge=True)
    pl.set_defaults(func=_cmd_plot)
    register_instance(sub, _cmd_instance)
    _register_report(sub)
    _register_bench(sub)
    register_solve(sub, _cmd_solve)
    return p


def _subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    """The parser of subcommand ``name``."""
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            return a.choices[name]
    return parser


def join_negative_numbers(argv: list[str]) -> list[str]:
    """``--eps -1e-3`` → ``--eps=-1e-3``: argparse reads a token such as ``-1e-3`` as an option, not a value.

    Only a long option without ``=`` followed by a token that parses as a number is joined; the value is then
    validated by the option's own type and range checks (a negative ``--eps`` is still refused, with its range).
    """
    out: list[str] = []
    for tok in argv:
        prev = out[-1] if out else ""
        if tok.startswith("-") and prev.startswith("--") and "=" not in prev and len(prev) > 2:
            try:
                float(tok)
            except ValueError:
                pass
            else:
                out[-1] = f"{prev}={tok}"
                continue
        out.append(tok)
    return out


def main(argv: list[str] | None = None) -> int:
    try:
        os.getcwd()
    except FileNotFoundError:  # every relative path and the method's module are resolved against it
        print("mixbounds: error: the current directory no longer exists (deleted while this shell was in it); "
              "cd into an existing directory", file=sys.stderr)
        return EXIT_USAGE
    prepare_streams()
    argv = join_negative_numbers(list(sys.argv[1:] if argv is None else argv))
    cmd = "mixbounds"
    try:
        parser = build_parser()
        args, extra = parser.parse_known_args(argv)
        if extra:  # named by the subcommand that does not know them (argparse names the top-level command)
            _subparser(parser, args.cmd).error(f"unrecognized arguments: {' '.join(extra)}")
        args.argv = argv
        cmd = f"mixbounds {args.cmd}"
        with guarded_stdout():
            return args.func(args)
    except MemoryError as exc:
        # one line, not a traceback: an instance too large for this machine is an outcome, not a crash
        detail = f" ({exc})" if str(exc) else ""
        print(f"{cmd}: out of memory{detail}; try a smaller instance or a machine with more memory", file=sys.stderr)
        return EXIT_FAIL
    except OSError as exc:  # stdout on a full device or closed, a path the system cannot look up (cli.streams)
        return io_error(cmd, exc)
    except KeyboardInterrupt:  # before a command's own handler (importing its machinery, validating): nothing written
        print(f"{cmd}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
