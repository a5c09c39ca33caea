"""The ``mixbounds`` command line.

Sub-commands: ``verify`` (the main job: :mod:`mixbounds.verify`), ``plot`` (redraw
the figures from a ``results.json``), ``report`` (rewrite the report from it,
:mod:`mixbounds.cli.report`), ``table`` (the registry as the paper's tables), ``instance`` (:mod:`mixbounds.cli.instance`) and ``solve`` (``mixbounds.cli.solve``,
when present).  Exit codes: 0 success, 1 a check failed (or a negative control
was not caught), 2 bad usage or bad input, 130 interrupted.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from mixbounds.bounds.render import render_markdown, render_text
from mixbounds.checks.tiers import QUICK
from mixbounds.cli.bench import register as register_bench
from mixbounds.cli.instance import register as register_instance
from mixbounds.cli.parsing import TIER_METAVAR, Parser, default_jobs, jobs_option, tier_arg
from mixbounds.cli.report import register as register_report
from mixbounds.cli.solve import register as register_solve
from mixbounds.verify import DEFAULT_OUT, Options, redraw, run

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


def _cmd_table(args) -> int:
    print(render_markdown() if args.markdown else render_text())
    return EXIT_OK


def _cmd_verify(args) -> int:
    if args.json is not None and args.json.endswith(("/", os.sep)):  # Path() would drop the slash
        print(f"mixbounds verify: error: --json {args.json}: is a directory name, expected a file name",
              file=sys.stderr)
        return EXIT_USAGE
    opts = Options(tier=args.tier, claims=args.claims, jobs=args.jobs, out=Path(args.out),
                   json=None if args.json is None else Path(args.json), plots=not args.no_plots, svg=args.svg,
                   cache=not args.no_cache,
                   command=" ".join(["mixbounds"] + list(args.argv)), scheduler=args.scheduler)
    return run(opts)


def _cmd_plot(args) -> int:
    return redraw(args.results, args.out, jobs=args.jobs)


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="mixbounds", description="Check the complexity theorems of the mixed-affine-constraints paper.")
    sub = p.add_subparsers(dest="cmd", required=True, parser_class=Parser)
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
    v.add_argument("--out", default=DEFAULT_OUT, metavar="DIR", help=f"output directory (default ./{DEFAULT_OUT}/)")
    v.add_argument("--json", default=None, metavar="FILE", help="also write results.json to FILE")
    v.add_argument("--no-plots", action="store_true", help="skip the figures (the report then has none)")
    v.add_argument("--svg", action="store_true",
                   help="also write every figure as SVG (vector copies for papers; the report shows the PNG files, "
                        "and 'mixbounds plot RESULTS' redraws both formats from a run)")
    v.add_argument("--no-cache", action="store_true", help="neither read nor write the point cache (OUT/.cache)")
    v.add_argument("--scheduler", default=None, metavar="ADDRESS|local:N",
                   help="run the sweep points on a Dask cluster: tcp://HOST:PORT of a 'dask scheduler', a scheduler "
                        "file (*.json), or local:N for a local cluster of N worker processes (needs the [dask] extra)")
    v.set_defaults(func=_cmd_verify)
    pl = sub.add_parser("plot", help="redraw the figures from a results.json (never runs a solver)")
    pl.add_argument("results", metavar="RESULTS", help="results.json of a verify run (or its directory)")
    pl.add_argument("--out", default=None, metavar="DIR", help="figure directory (default: plots/ beside RESULTS)")
    pl.add_argument("--jobs", type=jobs_option, default=default_jobs(), metavar="N",
                    help="worker processes (default: the available cores)")
    pl.set_defaults(func=_cmd_plot)
    register_instance(sub)
    register_report(sub)
    register_bench(sub)
    register_solve(sub)
    return p


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
    argv = join_negative_numbers(list(sys.argv[1:] if argv is None else argv))
    cmd = "mixbounds"
    try:
        args = build_parser().parse_args(argv)
        args.argv = argv
        cmd = f"mixbounds {args.cmd}"
        return args.func(args)
    except MemoryError as exc:
        # one line, not a traceback: an instance too large for this machine is an outcome, not a crash
        detail = f" ({exc})" if str(exc) else ""
        print(f"{cmd}: out of memory{detail}; try a smaller instance or a machine with more memory", file=sys.stderr)
        return EXIT_FAIL
    except BrokenPipeError:
        # the reader of stdout went away (`mixbounds table | head -1`): no traceback, and nothing more to flush into
        # the closed pipe at exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        print(f"{cmd}: error: standard output was closed before the output was written (broken pipe)",
              file=sys.stderr)
        return EXIT_FAIL


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
