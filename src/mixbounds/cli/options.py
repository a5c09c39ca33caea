"""The options of ``mixbounds instance`` and ``mixbounds solve``, declared without their machinery.

:mod:`mixbounds.cli.command` builds every parser when the command line starts (``mixbounds --help`` lists every
option, and the CLI reference is generated from the parsers); the modules that run these two commands
(:mod:`mixbounds.cli.instance`, :mod:`mixbounds.cli.solve`) import the instance builders, scipy and the solvers, so
their options live here and the commands are imported when they run (``mixbounds.cli.command.LAZY``).
"""

from __future__ import annotations

import argparse

from mixbounds.cli.option_names import option_names

#: family keywords (sizes and knobs of instances/random/, convex.py, nonsmooth.py builders): option → (type, help);
#: passed on only when given, and a family that does not take one rejects it with a one-line error (exit 2)
FAMILY_KW = (
    ("d", int, "local dimension d of each x_i"), ("dt", int, "dimension d~ of the shared variable x~"),
    ("m", int, "rows m of the coupled constraint blocks A_i"), ("p", int, "rows p of the local constraints C_i"),
    ("pt", int, "rows p~ of the shared-variable constraints C~_i"),
    ("samples", int, "data rows per node (logistic, vertical-fl, convex, nonsmooth)"),
    ("features", int, "features per party (vertical-fl)"), ("out_dim", int, "output dimension c (vertical-fl)"),
    ("noise", float, "label noise of the synthetic data"), ("lam", float, "penalty lambda (local-global)"),
    ("rank", int, "rank of the objective (convex families)"), ("mu", float, "strong convexity (nonsmooth strongly-convex)"),
    ("er_p", float, "edge probability of the Erdos-Renyi graph (--graph er)"),
    ("gossip", str, "gossip matrix of the graph: laplacian or metropolis"),
    ("objective", str, "objective of the random families: quadratic or logistic"),
)

#: APAPC's constants of the reformulated objective (``--constants``, mixbounds.solvers.spectral_estimates): "auto" (the default:
#: the bounds, no set-up, with the cost model's account of what exact constants could have saved, from the measured
#: iterations), "bounds" (closed-form bounds from the lemma's facts, no set-up call), "spectral" (exact, by Lanczos:
#: from 82 to tens of thousands of Hessian products, counted in setup_counts; measured on random-coupled at 10⁵
#: variables: 822 products for 55 instead of 66 iterations; 61,594 products for none saved on the printed coupled
#: construction at κ = 30) or "lemma" (lem:conv_smooth_c_and_l as printed, μ_f/4 and 2L_f·κ_W'², as the rate checks
#: use them)
SOLVE_CONSTANTS = "auto"
CONSTANTS_CHOICES = ("auto", "bounds", "spectral", "lemma")


def register_instance(subparsers, func) -> argparse.ArgumentParser:
    """Add ``instance`` to ``subparsers`` (from ``add_subparsers(parser_class=Parser)`` in :mod:`mixbounds.cli.command`),
    dispatching to ``func(args)``."""
    p = subparsers.add_parser(
        "instance",
        help="build a named instance and export it as an instance directory",
        description="Build FAMILY with the given targets, compute its reference solution and write it to --out "
                    "(instance.json, W.mtx, per-node blocks, x_star.npy). Only the options given are passed to the family.",
    )
    p.add_argument("family", metavar="FAMILY", help="instance family, e.g. random-mixed (see mixbounds.instances.families)")
    p.add_argument("--kappa-W", dest="kappa_W", type=float, metavar="X", help="target κ_W of the gossip matrix")
    p.add_argument("--kappa-C", dest="kappa_C", type=float, metavar="X", help="target κ_C of the local constraints")
    p.add_argument("--kappa-AC", dest="kappa_AC", type=float, metavar="X", help="target κ̃_AC (κ̂_A without local constraints)")
    p.add_argument("--kappa-A", dest="kappa_A", type=float, metavar="X", help="alias of --kappa-AC for coupled families (κ̂_A)")
    p.add_argument("--kappa-Ct", dest="kappa_Ct", type=float, metavar="X", help="target κ̂_{C̃ᵀ} (κ_C̃ for identical C̃)")
    p.add_argument("--kappa-f", dest="kappa_f", type=float, metavar="X", help="target κ_f = L_f/μ_f")
    p.add_argument("--n", type=int, metavar="N", help="number of nodes")
    p.add_argument("--eps", type=float, metavar="E", help="target accuracy (sizes of worst-case chains)")
    p.add_argument("--seed", type=int, metavar="S", help="random seed")
    p.add_argument("--variant", metavar="V", help="construction variant (e.g. printed, default)")
    p.add_argument("--graph", metavar="G", help="communication graph: path, ring, grid, star, complete, er")
    for k, typ, text in FAMILY_KW:
        p.add_argument(f"--{k.replace('_', '-')}", dest=k, type=typ, metavar=k.upper(), help=f"{text} (family keyword {k})")
    p.add_argument("--param", action="append", metavar="KEY=VALUE",
                   help="any other builder keyword (repeatable; VALUE read as JSON when possible)")
    p.add_argument("--format", choices=("mtx", "npz"), default="mtx",
                   help="matrix files: mtx (Matrix Market, a file per node and block; portable, the default) or npz "
                        "(one NumPy archive per block group; fast to load)")
    p.add_argument("--no-reference", action="store_true", help="do not compute the reference solution x*")
    p.add_argument("--out", required=True, metavar="DIR", help="output instance directory (written atomically; an existing instance directory is replaced)")
    p.set_defaults(func=func, option_names=option_names(p))
    return p


def register_solve(sub, func) -> argparse.ArgumentParser:
    """Add ``solve`` to ``sub``, dispatching to ``func(args)``."""
    s = sub.add_parser("solve", help="solve an exported instance directory and print the oracle counts",
                       description="Solve an instance directory; x goes to --x FILE or next to --json as <stem>.x.npy. "
                                   "Exit 0 converged, 1 not converged, 2 bad input (nothing written). "
                                   "Negative numbers may be written --eps -1e-3 or --eps=-1e-3.")
    s.add_argument("dir", help="instance directory (mixbounds instance … --out DIR)")
    s.add_argument("--method", default="apapc",
                   help="apapc (default), apapc-nocheb, a baseline, or MODULE:FUNCTION: a user's method (the contract "
                        "of mixbounds.methods, imported with the current directory on sys.path, run in a process of its "
                        "own)")
    s.add_argument("--method-arg", action="append", default=None, metavar="KEY=VALUE",
                   help="keyword argument of a user's method (as mixbounds bench --method-arg); repeatable")
    s.add_argument("--settle", type=float, default=None, metavar="FRACTION",
                   help="go on until the error has stayed <= --eps for the last FRACTION of the iterations (default "
                        "1/3, mixbounds.solvers.stop_rule.SETTLE: the count to eps is where the error stays, the first "
                        "crossing is reported beside it); 0 stops at the first crossing")
    s.add_argument("--trace", default=None, metavar="FILE",
                   help="write the run row by row as CSV: iteration, error, cumulative counts per oracle")
    s.add_argument("--eps", type=float, default=1e-8, help="target relative squared error (default 1e-8)")
    s.add_argument("--json", default=None, metavar="FILE", help="write a JSON summary here (x goes to <stem>.x.npy)")
    s.add_argument("--x", default=None, metavar="FILE", help="write the final iterate here (z-layout .npy)")
    s.add_argument("--max-iter", type=int, default=100_000, help="iteration budget")
    s.add_argument("--constants", choices=CONSTANTS_CHOICES, default=SOLVE_CONSTANTS,
                   help="APAPC's constants: 'auto' (default: the bounds, printed with what exact constants could at most "
                        "have saved), 'bounds' (closed-form bounds, no set-up oracle call), 'spectral' (exact, by Lanczos; "
                        "its products are reported as setup_counts) or 'lemma' (the lemma's bounds as printed)")
    s.set_defaults(func=func)
    return s
