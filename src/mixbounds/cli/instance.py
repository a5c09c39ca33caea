"""``mixbounds instance FAMILY … --out DIR``: build a named instance and export it.

Builds ``mixbounds.instances.families.build(FAMILY, **params)`` with only the parameters
the user gave, computes the reference solution ``x*`` (exact sparse KKT,
:func:`mixbounds.instances.reference.kkt.reference_solution`) unless ``--no-reference`` — except for the families that
compute their own as part of the construction (convex: the minimiser nearest to the start; nonsmooth: the LP/QP
optimum that sizes the box), whose reference is kept and reported as built,
writes the instance directory atomically (:func:`mixbounds.instances.io.save_instance`; ``--format npz`` for
the binary form, one archive per block group)
and prints a short summary (family, n, sizes, targets vs realized κ's, KKT
residual, findings, path).

Exit codes (as :mod:`mixbounds.cli.command`): 0 written; 2 bad usage or bad input (unknown
family, impossible target, a size beyond its cap, unwritable or occupied output path) — nothing is
written then; 1 the reference solve failed to reach its KKT tolerance (nothing
written either); 130 interrupted (nothing written).

Its options are declared in :mod:`mixbounds.cli.options` (the command line starts without this module).
"""

from __future__ import annotations

import logging
import math
import os
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from threadpoolctl import threadpool_limits

from mixbounds.cli.option_names import optionize
from mixbounds.cli.options import FAMILY_KW
from mixbounds.instances.families import build, families
from mixbounds.instances.io import save_instance
from mixbounds.instances.json_file import JSONFileError, loads
from mixbounds.instances.reference.kkt import reference_solution
from mixbounds.instances.reference.lad_interior_point import NotConverged
from mixbounds.outdir import OutputError, check_name

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
#: BLAS threads during the build and the reference solve: the work is many small per-node products
#: (a QR and eigenvalues of every 100 × 100 Q_i, …), and BLAS threads competing for the cores made them up to
#: 200× slower (random-coupled n = 1000, d = 100, m = 5: 56 s build with 2 threads on a loaded 2-core
#: machine, 5.2 s with 1); the same limit as every task of ``mixbounds verify`` (mixbounds.checks.run.framework)
BLAS_THREADS = 1
#: a build or reference solve running longer than this prints a progress line (and again every as long)
PROGRESS_SECONDS = 5.0
#: largest --n of a family not in NODES_MAX_FAMILY (the families not measured beyond it; the
#: cap every random family had before it was measured at 10⁶ variables); the printed families fix n by κ_W
NODES_MAX = 2000
NODES_MAX_NOTE = ("not measured beyond 2000 nodes; random-mixed took 27 s at n = 1000 and 192 s at n = 3000 when this "
                  "cap was set")
#: families measured at larger n: family → (largest --n, the measurement quoted in the error); 2-core machine
#: shared with other jobs, `/usr/bin/time -v mixbounds instance … --format npz` (docs/records/large-instances.md)
NODES_MAX_FAMILY = {
    "random-mixed": (10_000, "random-mixed n = 10⁴, d = 100, dt = 10, m = 5, p = 2, p̃ = 2 (1.1·10⁶ variables): build "
                             "100 s, reference 337 s, peak RSS 10.8 GB; mixbounds solve 73 iterations in 11.7 min, "
                             "6.1 GB"),
    "random-mixed-ident": (10_000, "random-mixed-ident n = 10⁴, d = 100, dt = 10, m = 5, p = 2, p̃ = 3 (1.1·10⁶ "
                                   "variables): build 140 s, reference 181 s, peak RSS 11.2 GB; mixbounds solve 56 "
                                   "iterations in 13.7 min, 6.1 GB"),
    "random-shared-ident": (10_000, "random-shared-ident n = 10⁴, dt = 100, p̃ = 3 (10⁶ variables): build 66 s, "
                                    "reference 15 s, peak RSS 5.9 GB; mixbounds solve 41 iterations in 2.6 min, 4.7 GB"),
    "logistic-consensus": (10_000, "logistic-consensus n = 10⁴, dt = 100 (10⁶ variables): build 9 s, reference "
                                   "127 s, peak RSS 4.2 GB; mixbounds solve 54 iterations in 20 s, 1.1 GB"),
    "vertical-fl": (10_000, "vertical-fl n = 20, samples = 10, features = 49990 (10⁶ variables; A has "
                            "n²·samples·features entries): build 398 s, reference 163 s, peak RSS 17.6 GB; mixbounds "
                            "solve 78 iterations in 14.6 min, 19.0 GB"),
    "local-global": (10_000, "local-global n = 10⁴, d = 100 (10⁶ variables): build 131 s, reference 83 s, peak "
                             "RSS 12.2 GB; mixbounds solve not run to the end (stopped after 22 CPU minutes; "
                             "κ̂_A = (1 + n²)/(n + 1) ≈ n by construction)"),
    "random-consensus": (10_000, "random-consensus n = 10⁴, dt = 100 (10⁶ variables): build 25 s, reference 6 s, "
                                 "peak RSS 5.9 GB; mixbounds solve 40 iterations in 42 s, 4.4 GB"),
    "random-coupled-local": (10_000, "random-coupled-local n = 10⁴, d = 100, m = 5, p = 2 (10⁶ variables): build "
                                     "65 s, reference 84 s, peak RSS 9.1 GB; mixbounds solve 76 iterations in 4.5 min, "
                                     "5.2 GB"),
    "random-shared": (10_000, "random-shared n = 10⁴, dt = 100, κ̂_C̃ = 300 (10⁶ variables): build 30 s, reference "
                              "8 s, peak RSS 5.9 GB; mixbounds solve 28 iterations in 2.2 min, 4.4 GB"),
    "random-coupled": (10_000, "random-coupled n = 10⁴, d = 100, m = 5 (10⁶ variables): build 56 s, reference "
                               "40 s, peak RSS 8.1 GB; mixbounds solve 74 iterations in 4.5 min, 4.3 GB"),
    # the convex families' reference (the nearest minimiser) is part of their build
    "convex-coupled": (10_000, "convex-coupled n = 10⁴, d = 100, m = 5 (10⁶ variables): build with its reference "
                               "62 s, peak RSS 10.1 GB"),
    "convex-coupled-local": (10_000, "convex-coupled-local n = 10⁴, d = 100, m = 5, p = 2 (10⁶ variables): build "
                                     "with its reference 286 s, peak RSS 11.0 GB"),
    "convex-shared-ident": (10_000, "convex-shared-ident n = 10⁴, dt = 100, p̃ = 3 (10⁶ variables): build with its "
                                    "reference 32 s, peak RSS 5.9 GB"),
    "convex-mixed-ident": (10_000, "convex-mixed-ident n = 10⁴, d = 100, dt = 10, m = 5, p = 2, p̃ = 3 (1.1·10⁶ "
                                   "variables): build with its reference 870 s (35 proximal steps, MINRES on the "
                                   "Schur complement), peak RSS 12.8 GB"),
    # n·p̃ < d̃ (x̃ must stay free) makes the dense node objectives hold n·(d + d̃)² > n³ entries: 10⁶ variables
    # would need about 50 GB; the largest measured:
    "convex-shared": (500, "convex-shared n = 500, dt = 501, p̃ = 1 (2.5·10⁵ variables; n·p̃ < d̃ makes the node "
                           "objectives hold n·d̃² entries): build with its reference 37 s, peak RSS 6.5 GB"),
    "convex-mixed": (500, "convex-mixed n = 500, d = 100, dt = 501, m = 5, p = 2, p̃ = 1 (3·10⁵ variables; n·p̃ < d̃): "
                          "build with its reference 109 s, peak RSS 9.3 GB"),
    "nonsmooth-consensus": (10_000, "nonsmooth-consensus n = 10⁴, dt = 100, ring (10⁶ variables): build 95.8 s "
                                    "with its reference (sparse interior point), peak RSS 5.3 GB"),
    "nonsmooth-shared-ident": (10_000, "nonsmooth-shared-ident n = 10⁴, dt = 100, p̃ = 3, ER (10⁶ variables): build "
                                       "71.1 s with its reference (sparse interior point, the 3·10⁴ C̃ rows of rank 3 "
                                       "eliminated, 21 iterations), peak RSS 5.3 GB"),
    "nonsmooth-coupled": (10_000, "nonsmooth-coupled n = 10⁴, d = 100, m = 5, ER (10⁶ variables): build 266.7 s with "
                                  "its reference (sparse interior point, singular node blocks deflated, 22 iterations), "
                                  "peak RSS 6.8 GB"),
    "nonsmooth-coupled-local": (10_000, "nonsmooth-coupled-local n = 10⁴, d = 100, m = 5, p = 2, ER (10⁶ variables): "
                                        "build 403.6 s with its reference (sparse interior point, the 2·10⁴ C rows "
                                        "eliminated, singular node blocks deflated, 22 iterations), peak RSS 9.2 GB"),
    "nonsmooth-mixed-ident": (10_000, "nonsmooth-mixed-ident n = 10⁴, d = 100, dt = 10, m = 5, p = 2, p̃ = 3, ER "
                                      "(1.1·10⁶ variables): build 589.5 s with its reference (sparse interior point, "
                                      "block rows eliminated, singular node blocks deflated, 25 iterations), peak RSS "
                                      "10.9 GB"),
    "convex-consensus": (10_000, "convex-consensus n = 10⁴, dt = 100 (10⁶ variables): build with its reference 26 s, "
                                 "peak RSS 5.9 GB"),
}


#: largest value of every per-node size keyword (options and --param alike): the largest per-node size measured
#: is vertical-fl's 49990 features at 10⁶ variables (NODES_MAX_FAMILY); beyond it the dense per-node blocks
#: ((d + d̃)² entries of a quadratic objective, samples × (d + d̃) features) are not measured
SIZE_MAX = 50_000
SIZE_KEYWORDS = ("d", "dt", "m", "p", "pt", "samples", "features", "out_dim", "rank")
SIZE_MAX_NOTE = "the largest per-node size measured: vertical-fl with 49990 features per node at 10⁶ variables"


def size_error(family: str, params: dict, from_param: set | frozenset = frozenset()) -> str | None:
    """Why the size keywords of ``params`` are out of range, else ``None``: ``n`` within the family's measured cap
    (:data:`NODES_MAX_FAMILY`), every other size within :data:`SIZE_MAX`; options and ``--param`` alike (the keys
    in ``from_param`` came from ``--param``, and the message names them so)."""
    cap, note = NODES_MAX_FAMILY.get(family, (NODES_MAX, NODES_MAX_NOTE))
    caps = {"n": (cap, f"for {family} (measured: {note})")}
    caps.update({k: (SIZE_MAX, f"({SIZE_MAX_NOTE})") for k in SIZE_KEYWORDS})
    for key, (hi, why) in caps.items():
        v = params.get(key)
        if v is None:
            continue
        shown = f"--param {key}={v!r}" if key in from_param else f"--{key.replace('_', '-')} {v!r}"
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v:
            return f"{shown}: must be an integer in [1, {hi}]"
        if v > hi or (key == "n" and v < 1):  # the lower bounds of the other sizes are the builders' (m >= 2, …)
            return f"{shown}: must be in [1, {hi}] {why}"
    return None


def condition_error(params: dict) -> str | None:
    """Why a target condition number (``kappa_*``) cannot be built, before any builder sees it: a condition number is
    a finite number >= 1 (a builder given -3 fails in a square root, with Python's words only)."""
    for k, v in params.items():
        if not k.startswith("kappa_") or v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 1:
            return f"{k} = {v!r} is impossible: a condition number is a finite number >= 1"
    return None


@contextmanager
def _progress(what: str, every: float = PROGRESS_SECONDS):
    """Print ``mixbounds instance: <what> … N s`` to stderr every ``every`` seconds while the block runs, and the
    INFO records of the instance builders (the sparse interior point's iterations) as they come."""
    done = threading.Event()
    t0 = time.perf_counter()
    logger = logging.getLogger("mixbounds.instances")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("mixbounds instance: %(message)s"))
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)

    def tick():
        while not done.wait(every):
            print(f"mixbounds instance: {what} … {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)

    th = threading.Thread(target=tick, daemon=True)
    th.start()
    try:
        yield
    finally:
        done.set()
        th.join()
        logger.removeHandler(handler)
        logger.setLevel(level)

#: CLI option → builder keyword (only options the user gave are passed on)
_PARAMS = (
    ("kappa_W", "kappa_W"), ("kappa_C", "kappa_C"), ("kappa_AC", "kappa_AC"), ("kappa_Ct", "kappa_Ct"),
    ("kappa_f", "kappa_f"), ("n", "n"), ("eps", "eps"), ("seed", "seed"), ("variant", "variant"), ("graph", "graph"),
)

#: builder keyword → the option that sets it (filled by :func:`cmd_instance` from the names
#: :func:`mixbounds.cli.options.register_instance` read off the parser: error messages name options)
OPTION_NAMES: dict[str, str] = {}


def _err(msg: str) -> int:
    print(f"mixbounds instance: error: {optionize(' '.join(str(msg).split()), OPTION_NAMES)}", file=sys.stderr)
    return EXIT_USAGE


def _check_out(out: Path) -> str | None:
    """Why ``out`` cannot receive an instance directory (``None`` if it can): checked before building."""
    try:
        check_name(out, "--out")
    except OutputError as exc:
        return str(exc)
    if out.exists() or out.is_symlink():
        if not out.is_dir() or out.is_symlink():
            return f"{out}: exists and is not a directory"
        if any(out.iterdir()) and not (out / "instance.json").is_file():
            return f"{out}: exists, is not empty and is not an instance directory"
        if not os.access(out.parent, os.W_OK | os.X_OK):
            return f"{out.parent}: not writable"
        return None
    anc = out.parent
    while not anc.exists():
        if anc.parent == anc:
            break
        anc = anc.parent
    if not anc.is_dir():
        return f"{anc}: is not a directory, cannot create {out}"
    if not os.access(anc, os.W_OK | os.X_OK):
        return f"{anc}: not writable, cannot create {out}"
    return None


def _fmt(v) -> str:
    if v is None:
        return "-"
    try:
        return f"{float(v):.10g}"
    except (TypeError, ValueError):
        return str(v)


def _size_text(v) -> str:
    """A size for the summary line: per-node lists as one value when all nodes agree, else their range (a list of
    10⁴ entries, one per node, is not a summary)."""
    if not isinstance(v, list):
        return str(v)
    lo, hi = min(v), max(v)
    return str(lo) if lo == hi else f"{lo}…{hi} (per node)"


def summary_lines(inst, path: Path | None, ref=None) -> list[str]:
    """The summary printed after a successful build."""
    P = inst.problem
    s = P.summary()
    sizes = ", ".join(f"{k} = {_size_text(s[k])}" for k in ("d", "dt", "m", "p", "pt") if s.get(k) not in (None, 0, [])) or "-"
    lines = [
        f"family {inst.family} (variant {inst.variant}), seed {inst.seed}",
        f"  n = {P.n}, class {s['class']}{' (identical C~)' if s.get('identical_shared') else ''}, "
        f"variables {s['variables']}; sizes: {sizes}",
        "  condition numbers (realized from the matrices):",
    ]
    keys = [k for k in inst.realized if k.startswith("kappa")]
    keys += [k for k in inst.targets if k not in keys]
    tol = inst.params.get("tolerance", {}) if isinstance(inst.params, dict) else {}
    for k in keys:
        t = inst.targets.get(k)
        r = inst.realized.get(k)
        if t is None:
            lines.append(f"    {k:<12} realized {_fmt(r):>16}   (not targeted)")
        else:
            rel = abs(r / t - 1) if (r is not None and t) else None
            tol_txt = f", tolerance {tol[k]:.0e}" if k in tol else ""
            lines.append(f"    {k:<12} realized {_fmt(r):>16}   target {_fmt(t)} (relative error {_fmt(rel)}{tol_txt})")
    fam_ref = inst.params.get("reference") if isinstance(inst.params, dict) else None
    if ref is not None:
        lines.append(f"  reference solution: KKT residual {ref.kkt_residual:.2e} ({ref.method})")
    elif inst.x_star is not None and isinstance(fam_ref, dict):
        res = ", ".join(f"{k.replace('_', ' ')} {v:.2e}" for k, v in fam_ref.items()
                        if k.endswith(("residual", "gap", "complementarity")) and isinstance(v, float))
        lines.append(f"  reference solution (the family's own, part of its construction): {res} ({fam_ref.get('method')})")
    else:
        lines.append("  reference solution: not computed (--no-reference)")
    lines.append(f"  findings: {len(inst.findings)}" + "".join(f"\n    - {f.get('label', '?')}: {f.get('statement', '')}" for f in inst.findings))
    if path is not None:
        lines.append(f"  written: {path}")
    return lines


def _parse_param(item: str):
    """``"KEY=VALUE"`` → ``(KEY, VALUE)`` with VALUE read as JSON when it is JSON (``3``, ``0.1``, ``true``; nesting
    limited as for every JSON the suite reads), else the string; ``(None, None)`` when malformed."""
    key, sep, val = str(item).partition("=")
    key = key.strip()
    if not sep or not key.isidentifier():
        return None, None
    try:
        return key, loads(val, f"--param {key}")
    except JSONFileError:
        return key, val


def cmd_instance(args) -> int:
    """Handler of ``mixbounds instance``: a Ctrl-C anywhere is exit 130 with nothing written (the directory is
    written into a temporary sibling and renamed at the end, :func:`mixbounds.instances.io.save_instance`)."""
    OPTION_NAMES.update(getattr(args, "option_names", {}))
    try:
        return _instance(args)
    except KeyboardInterrupt:
        print(f"mixbounds instance: interrupted; nothing written to {args.out}", file=sys.stderr)
        return EXIT_INTERRUPTED


def _instance(args) -> int:
    fams = families()
    if args.family not in fams:
        return _err(f"unknown instance family {args.family!r}; known: {', '.join(sorted(fams)) or 'none'}")
    out = Path(args.out).absolute()
    why = _check_out(out)
    if why:
        return _err(why)
    params = {kw: getattr(args, opt) for opt, kw in _PARAMS if getattr(args, opt, None) is not None}
    params.update({k: getattr(args, k) for k, _, _ in FAMILY_KW if getattr(args, k, None) is not None})
    for item in args.param or []:
        key, val = _parse_param(item)
        if key is None:
            return _err(f"--param {item!r}: expected KEY=VALUE with KEY a builder keyword, e.g. --param er_p=0.1")
        if key in params and params[key] != val:
            return _err(f"--param {key}={val!r} disagrees with the option giving {key} = {params[key]!r}")
        params[key] = val
    why = size_error(args.family, params, {_parse_param(item)[0] for item in args.param or []}) or \
        condition_error(params)
    if why:
        return _err(why)
    if args.kappa_A is not None:
        if "kappa_AC" in params and params["kappa_AC"] != args.kappa_A:
            return _err(f"--kappa-A {args.kappa_A} and --kappa-AC {params['kappa_AC']} disagree (--kappa-A is an alias)")
        params["kappa_AC"] = args.kappa_A
    t0 = time.perf_counter()
    try:
        with _progress(f"building {args.family}"), threadpool_limits(limits=BLAS_THREADS):
            inst = build(args.family, **params)
    except NotConverged as exc:  # not the input: the family's reference solver did not reach its tolerance
        print(f"mixbounds instance: {args.family}: reference solution failed: {exc}", file=sys.stderr)
        return EXIT_FAIL
    except (ValueError, TypeError) as exc:
        msg = str(exc)  # the family's own messages already name it
        return _err(msg if msg.startswith(f"{args.family}:") else f"{args.family}: {msg}")
    if args.kappa_A is not None and inst.problem.C is not None:
        return _err(f"--kappa-A is the alias of --kappa-AC for coupled families without local constraints; "
                    f"{args.family} has local constraints: give --kappa-AC (κ̃_AC) instead")
    t_build = time.perf_counter() - t0
    ref = None
    # convex and nonsmooth families compute their reference themselves (the minimiser nearest to the start; the
    # box of the nonsmooth ones is sized from it): the generic KKT solve would replace it by another minimiser
    # of a convex objective and cannot solve a nonsmooth one
    if inst.x_star is None and not args.no_reference:
        try:
            with _progress("computing the reference solution"), threadpool_limits(limits=BLAS_THREADS):
                ref = reference_solution(inst.problem)
        except ValueError as exc:
            print(f"mixbounds instance: reference solution failed: {' '.join(str(exc).split())}", file=sys.stderr)
            return EXIT_FAIL
        inst = inst.with_reference(ref.u)
        inst = replace(inst, params=dict(inst.params, reference={"kkt_residual": ref.kkt_residual, "method": ref.method}))
    t_ref = time.perf_counter() - t0 - t_build
    try:
        path = save_instance(inst, out, matrix_format=args.format)
    except (OSError, ValueError) as exc:
        return _err(f"cannot write {out}: {exc}")
    for line in summary_lines(inst, path, ref):
        print(line)
    print(f"  time: build {t_build:.2f} s, reference {t_ref:.2f} s")
    return EXIT_OK
