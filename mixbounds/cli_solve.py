"""``mixbounds solve DIR [--method NAME] [--eps E] [--json FILE]``: solve an exported instance.

Reads a directory in the format of DESIGN.md (``instances.io.load_instance``), computes
the reference solution when ``x_star.npy`` is absent (a user's own instance), runs the
chosen method, prints its counts and writes ``x.npy`` (z-layout, like ``x_star.npy``)
next to the JSON file (``--json``) or in DIR.  The JSON holds method, eps, converged,
iterations, per-oracle counts, the final relative error ``‖x − x*‖²/‖x⁰ − x*‖²`` and
the path of ``x.npy``.  Exit codes: 0 converged, 1 did not converge, 2 bad input.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
#: APAPC's constants of the reformulated objective: "spectral" (exact, by Lanczos, at any size) rather than
#: the lemma's bounds μ_f/4, 2L_f·κ_W'², which the rate checks keep as printed (solvers.constants)
SOLVE_CONSTANTS = "spectral"


def _methods() -> dict:
    from mixbounds.solvers.reformulations import METHODS

    out = {m: None for m in METHODS}
    try:
        from mixbounds.solvers.baselines import BASELINES
    except ImportError:
        BASELINES = {}
    out.update({k: v for k, v in BASELINES.items()})
    return out


def _atomic_write(path: Path, write) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _cmd_solve(args) -> int:
    from mixbounds.instances.io import load_instance
    from mixbounds.instances.reference import reference_solution

    methods = _methods()
    if args.method not in methods:
        print(f"mixbounds solve: unknown method {args.method!r}; known: {', '.join(sorted(methods))}", file=sys.stderr)
        return EXIT_USAGE
    if not (0 < args.eps < 1):
        print(f"mixbounds solve: --eps must be in (0, 1), got {args.eps}", file=sys.stderr)
        return EXIT_USAGE
    d = Path(args.dir)
    try:
        inst = load_instance(d)
    except (OSError, ValueError) as exc:
        print(f"mixbounds solve: cannot load {d}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    P = inst.problem
    t0 = time.perf_counter()
    x_star = inst.x_star
    ref_note = "x_star.npy"
    if x_star is None:
        try:
            x_star = reference_solution(P).u
            ref_note = "computed (no x_star.npy in the directory)"
        except ValueError as exc:
            print(f"mixbounds solve: no x_star.npy and the reference solve failed: {exc}", file=sys.stderr)
            return EXIT_USAGE
    try:
        if methods[args.method] is None:
            from mixbounds.solvers import solve

            res = solve(P, method=args.method, eps=args.eps, x_star=x_star, max_iter=args.max_iter,
                        constants=SOLVE_CONSTANTS)
        else:
            fn = methods[args.method][0]
            res = fn(P, eps=args.eps, x_star=x_star, max_iter=args.max_iter)
    except ValueError as exc:
        print(f"mixbounds solve: {exc}", file=sys.stderr)
        return EXIT_USAGE
    secs = time.perf_counter() - t0
    out_json = Path(args.json) if args.json else None
    x_path = (out_json.parent if out_json else d) / "x.npy"
    z = P.layout.to_z(res.x)
    _atomic_write(x_path, lambda tmp: np.save(open(tmp, "wb"), z))
    summary = {"method": res.method, "eps": args.eps, "converged": bool(res.converged), "reason": res.reason,
               "iterations": int(res.iterations), "counts": {k: int(v) for k, v in res.counts.items()},
               "final_relative_error": res.final_error(), "x": str(x_path), "reference": ref_note,
               "instance": str(d), "family": inst.family, "seconds": secs}
    print(f"{inst.family} ({P.problem_class}, n = {P.n}, {P.layout.size} variables): {res.method}, eps = {args.eps:g}")
    print(f"  {'converged' if res.converged else 'NOT converged'} ({res.reason}) after {res.iterations} iterations, "
          f"final relative error {res.final_error():.3e}")
    print("  counts: " + ", ".join(f"{k} {v}" for k, v in res.counts.items()))
    print(f"  x written to {x_path}; reference: {ref_note}; {secs:.2f} s")
    if out_json:
        _atomic_write(out_json, lambda tmp: Path(tmp).write_text(json.dumps(summary, indent=2)))
        print(f"  summary written to {out_json}")
    return EXIT_OK if res.converged else EXIT_FAIL


def register(sub) -> None:
    s = sub.add_parser("solve", help="solve an exported instance directory and print the oracle counts")
    s.add_argument("dir", help="instance directory (mixbounds instance … --out DIR)")
    s.add_argument("--method", default="apapc", help="apapc (default), apapc-nocheb, or a baseline")
    s.add_argument("--eps", type=float, default=1e-8, help="target relative squared error (default 1e-8)")
    s.add_argument("--json", default=None, help="write a JSON summary here (x.npy goes next to it)")
    s.add_argument("--max-iter", type=int, default=100_000, help="iteration budget")
    s.set_defaults(func=_cmd_solve)
