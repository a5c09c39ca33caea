"""``mixbounds solve DIR [--method NAME] [--eps E] [--json FILE] [--x FILE]``: solve an exported instance.

Reads a directory in the format of docs/design.md (``mixbounds.instances.io.load_instance``) and, before any solve:

* checks every output path (``--json``, ``--x``): creatable, writable, not a directory, and not an existing
  file this command did not write (an existing ``--json`` must be a solve summary; an existing x file must
  be the one such a summary names);
* tests the constraint groups for joint feasibility (:func:`constraint_consistency`: the stacked system
  ``G v = h`` of :func:`mixbounds.instances.reference.kkt.constraint_system` — coupled ``A``, local ``C``, shared ``C̃`` —
  solved by a sparse factorisation, group by group, so the message names the group that breaks it);
* checks a supplied ``x_star.npy`` (:func:`xstar_residual`: finite, one shared block across the nodes,
  feasible, stationary with the best multipliers; a relative KKT residual above :data:`XSTAR_RTOL` is an
  error naming the file — the method is not blamed for a wrong reference) or computes it when absent.

Then it runs the method — a built-in one (``apapc``, ``apapc-nocheb``, a baseline) or a user's method
``MODULE:FUNCTION`` written to the contract of :mod:`mixbounds.methods` (run in a process of its own, as ``mixbounds
bench`` runs it: :mod:`mixbounds.isolation`, keyword arguments from ``--method-arg``) — until the error has stayed at
or below ``--eps`` for the last ``--settle`` of its iterations (default a third: the count to ε is where the error
stays, :mod:`mixbounds.solvers.stop_rule`), prints its counts and writes the JSON summary (method, eps, converged,
the count to ε with the first crossing beside it, iterations,
per-oracle ``counts`` of the solve — its iterations and the right-hand side ``Bᵀb'`` it computes first —,
``setup_counts``, the rounds spent estimating APAPC's constants (``--constants spectral``: the Lanczos products;
zero for ``bounds`` and ``lemma``), ``counts_with_setup`` (their sum), which constants were used and why, where the
spectral facts came from (the instance's stored spectra when its files are unchanged: :mod:`mixbounds.instances.spectra`),
the seconds of each phase (load, checks, set-up, iterations), the final relative error
``‖x − x*‖²/‖x⁰ − x*‖²``, the path of x) and the final
iterate in the z-layout of ``x_star.npy``: to ``--x FILE``, else next to the summary as ``<stem>.x.npy``; without
either, x is not written (never into the instance directory unless asked).  The summary is strict JSON:
non-finite numbers are written as the strings ``"nan"``, ``"inf"``, ``"-inf"``.  ``--trace FILE`` writes the run
row by row as CSV (``iteration,error,grad,A,C,Ct,comm``: the relative error and the cumulative counts after set-up
and after every iteration) — with ``mixbounds instance`` (the rebuild command ``bench.json`` records for every point)
the trace of one method on one instance.

Exit codes: 0 converged, 1 did not converge, 2 bad input (nothing written), 130 interrupted (nothing written).
Its options are declared in :mod:`mixbounds.cli.options` (the command line starts without this module).
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from threadpoolctl import threadpool_limits

from mixbounds.bounds.concepts import Matrix
from mixbounds.bounds.guards import SCALE_FLOOR
from mixbounds.instances.io import load_instance
from mixbounds.instances.json_file import JSONFileError, read_json
from mixbounds.instances.reference.kkt import (
    constraint_system,
    copy_map,
    kkt_solver,
    reference_solution,
    relative_kkt_residual,
)
from mixbounds.instances.spectra import trusted_facts
from mixbounds.isolation import call_isolated
from mixbounds.methods import (
    METHOD_TIMEOUT_S,
    YIELD_TIMEOUT_S,
    MethodError,
    parse_method_args,
    probe,
    resolve,
    run_method,
)
from mixbounds.outdir import OutputError, atomic_write, atomic_write_text, check_file
from mixbounds.solvers import solve
from mixbounds.solvers.baselines import BASELINES
from mixbounds.solvers.reformulations import METHODS
from mixbounds.solvers.spectral_estimates import measured_reason
from mixbounds.solvers.stop_rule import SETTLE

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
#: relative KKT residual above which a supplied x_star.npy is not the solution (saved ones have ~1e-12;
#: the reference solve guarantees 1e-9, and the least-squares multipliers add rounding on top)
XSTAR_RTOL = 1e-6
#: relative residual ‖Gv − h‖ / (‖G‖_max‖v‖ + ‖h‖) above which the constraints have no common solution
FEAS_RTOL = 1e-8
#: BLAS threads while loading, checking and solving (as ``mixbounds instance``, mixbounds.cli.instance.BLAS_THREADS:
#: the per-node products are small, and competing BLAS threads made them up to 200× slower on a loaded machine)
BLAS_THREADS = 1
#: keys a solve summary has (an existing --json file without them was not written by this command)
SUMMARY_KEYS = ("method", "eps", "converged", "counts", "x", "instance")
#: the header of a --trace file (an existing --trace file without it was not written by this command)
TRACE_HEADER = "iteration,error,grad,A,C,Ct,comm"


def _methods() -> dict:
    out: dict = {m: None for m in METHODS}
    out.update({k: v for k, v in BASELINES.items()})
    return out


def strict(x):
    """JSON-safe copy: numpy scalars to Python, non-finite floats to the strings ``"nan"``, ``"inf"``, ``"-inf"``."""
    if isinstance(x, dict):
        return {str(k): strict(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [strict(v) for v in x]
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    return x


def _read_summary(path: Path) -> dict | None:
    try:
        doc = read_json(path)
    except (OSError, JSONFileError):
        return None
    return doc if isinstance(doc, dict) and all(k in doc for k in SUMMARY_KEYS) else None


def _is_trace(path: Path) -> bool:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.readline().strip() == TRACE_HEADER
    except (OSError, UnicodeDecodeError):
        return False


def output_paths(args) -> tuple[Path | None, Path | None]:
    """``(json, x)`` output paths, checked before any work (:class:`mixbounds.outdir.OutputError`); ``--trace`` too."""
    for opt, raw in (("--json", args.json), ("--x", args.x), ("--trace", args.trace)):  # raw: Path() drops a slash
        if raw is not None:
            check_file(raw, opt)
    if args.trace is not None:
        check_file(Path(args.trace).absolute(), "--trace", ours=_is_trace, ours_desc="mixbounds solve trace")
    out_json = None if args.json is None else Path(args.json).absolute()
    if args.x is not None:
        x_path = Path(args.x).absolute()
    elif out_json is not None:
        x_path = out_json.with_name(out_json.name[: -len(out_json.suffix)] if out_json.suffix else out_json.name)
        x_path = x_path.with_name(x_path.name + ".x.npy")
    else:
        x_path = None
    if out_json is not None:
        check_file(out_json, "--json", ours=lambda p: _read_summary(p) is not None, ours_desc="mixbounds solve summary")
    if x_path is not None:
        prev = _read_summary(out_json) if (out_json is not None and out_json.is_file()) else None
        ours = lambda p: prev is not None and Path(str(prev.get("x"))).absolute() == p  # noqa: E731
        check_file(x_path, "--x" if args.x is not None else "x (next to --json)", ours=ours,
                   ours_desc="solution file named by the summary in --json")
        if out_json is not None and x_path == out_json:
            raise OutputError(f"--x {x_path}: the same file as --json")
    if args.trace is not None and Path(args.trace).absolute() in (out_json, x_path):
        raise OutputError(f"--trace {args.trace}: the same file as another output")
    return out_json, x_path


# ----------------------------------------------------------------------------- input checks
def _group_rows(P) -> list[tuple[str, str, list[int]]]:
    """``(symbol, description, row counts per node)`` of the groups, in the order of ``constraint_system``."""
    out: list[tuple[str, str, list[int]]] = []
    if P.A is not None:
        out.append((Matrix.A, "coupled constraints Σ A_i x_i = Σ b_i", [P.m]))
    if P.C is not None:
        out.append((Matrix.C, "local constraints C_i x_i = c_i", [c.shape[0] for c in P.C]))
    if P.Ct is not None:
        out.append(("C̃", "shared constraints C̃_i x̃ = c̃_i", [c.shape[0] for c in P.Ct]))
    return out


def _consistent(G, h) -> tuple[bool, float]:
    """Whether ``G v = h`` has a solution: min-norm solve by the reference's KKT solver (the whole KKT matrix
    factored while small, else its Schur complement: a 10⁶-variable vertical-fl instance ran SuperLU out of
    memory here), then its relative residual (above :data:`FEAS_RTOL`: no solution)."""
    if G.shape[0] == 0:
        return True, 0.0
    nv = G.shape[1]
    v = kkt_solver(sp.eye(nv, format="csr"), G).solve(np.concatenate([np.zeros(nv), h]))[:nv]
    gmax = abs(G).max() if G.nnz else 1.0
    rel = float(np.linalg.norm(G @ v - h) / (gmax * np.linalg.norm(v) + np.linalg.norm(h) + SCALE_FLOOR))
    return rel <= FEAS_RTOL, rel


def constraint_consistency(P) -> str | None:
    """Why the constraint groups of ``P`` have no common solution (``None`` if they have one).

    Groups are added one at a time (A, then C, then C̃); the first that makes the stacked system inconsistent
    is named, and within it the first node whose own block is infeasible, or else that the nodes' blocks
    contradict each other.
    """
    G, h = constraint_system(P)
    if G.shape[0] == 0:
        return None
    ok, rel = _consistent(G, h)
    if ok:
        return None
    start = 0
    names: list[str] = []
    for sym, desc, rows in _group_rows(P):
        stop = start + sum(rows)
        ok_prefix, rel_prefix = _consistent(G[:stop], h[:stop])
        if not ok_prefix:
            alone, _ = _consistent(G[start:stop], h[start:stop])
            if alone:
                return (f"the {desc} ({sym}) are feasible alone but contradict the {', '.join(names)} group(s): "
                        f"no point satisfies all constraints (relative residual {rel_prefix:.1e})")
            r0 = start
            for i, r in enumerate(rows):
                if r and len(rows) > 1 and not _consistent(sp.csr_matrix(G[r0:r0 + r]), h[r0:r0 + r])[0]:
                    return f"the {desc} ({sym}) are infeasible at node {i} (its own block has no solution)"
                r0 += r
            per_node = " (each node's block is feasible, they contradict each other)" if len(rows) > 1 else ""
            return f"the {desc} ({sym}) have no common solution{per_node}; relative residual {rel_prefix:.1e}"
        names.append(sym)
        start = stop
    return f"the constraints have no common solution (relative residual {rel:.1e})"


def xstar_residual(P, u: np.ndarray) -> tuple[float, str]:
    """Relative KKT residual of a candidate solution ``u`` (u-layout) of ``P``, with what fails first.

    Finite; the nodes' copies of x̃ agree; ``G v = h``; ``∇F + Gᵀλ = 0`` with the least-squares ``λ``
    (saddle_point.relative_kkt_residual's scale).  Nonsmooth objectives: feasibility only.
    """
    if not np.all(np.isfinite(u)):
        return math.inf, f"{int(np.sum(~np.isfinite(u)))} of its {u.size} entries are not finite"
    lay = P.layout
    E = copy_map(P)
    v = np.concatenate([u[: lay.dx], u[lay.dx:].reshape(lay.n, lay.dt).mean(axis=0)]) if lay.dt else u[: lay.dx]
    spread = float(np.linalg.norm(E @ v - u) / (np.linalg.norm(u) + SCALE_FLOOR))
    if spread > XSTAR_RTOL:
        return spread, f"the nodes' copies of the shared variable x̃ differ (relative spread {spread:.1e})"
    G, h = constraint_system(P)
    if G.shape[0]:
        # relative to the size of the terms summed (|G||v| and h), not to ‖Gv‖: with h = 0 (every printed worst case)
        # ‖Gv‖ is itself the rounding residual, and ‖Gv − h‖/‖Gv‖ = 1 for any exact solution
        scale = np.linalg.norm(abs(G) @ np.abs(v)) + np.linalg.norm(h)
        feas = float(np.linalg.norm(G @ v - h) / (scale + SCALE_FLOOR))
        if feas > XSTAR_RTOL:
            return feas, f"it violates the constraints (relative residual {feas:.1e})"
    if not P.objective.smooth:
        return 0.0, "feasible (nonsmooth objective: stationarity not tested)"
    g = E.T @ P.objective.grad(u)
    g0 = E.T @ P.objective.grad(np.zeros_like(u))
    lam = spla.lsqr(G.T, -g, atol=1e-15, btol=1e-15, iter_lim=20 * (G.shape[0] + 10))[0] if G.shape[0] else np.zeros(0)
    res = relative_kkt_residual(g, g0, G, lam, v, h)
    return res, f"it is not stationary (relative KKT residual {res:.1e})"


def _reference(P, inst, d: Path) -> tuple[np.ndarray | None, str | None, str]:
    """``(x*, error, note)``: the supplied x_star.npy checked, or the computed reference solution."""
    if inst.x_star is not None:
        res, why = xstar_residual(P, np.asarray(inst.x_star, dtype=float))
        if not res <= XSTAR_RTOL:
            return None, (f"{d / 'x_star.npy'} is not the solution of this instance: {why} "
                          f"(tolerance {XSTAR_RTOL:.0e}); delete it to have the solution computed"), ""
        return inst.x_star, None, f"x_star.npy (KKT residual {res:.1e})"
    try:
        return reference_solution(P).u, None, "computed (no x_star.npy in the directory)"
    except ValueError as exc:
        return None, f"no x_star.npy and the reference solve failed: {' '.join(str(exc).split())}", ""


def cmd_solve(args) -> int:
    def usage(msg: str) -> int:
        print(f"mixbounds solve: error: {' '.join(str(msg).split())}", file=sys.stderr)
        return EXIT_USAGE

    methods = _methods()
    user = ":" in args.method
    if args.method not in methods and not user:
        return usage(f"unknown method {args.method!r}; known: {', '.join(sorted(methods))}, or MODULE:FUNCTION "
                     f"(a method of mixbounds.methods' contract)")
    if not (0 < args.eps < 1):
        return usage(f"--eps must be in (0, 1), got {args.eps:g}")
    if args.max_iter < 1:
        return usage(f"--max-iter must be a positive integer, got {args.max_iter}")
    if args.settle is None:  # the parser (mixbounds.cli.options) leaves the default to the stopping rule
        args.settle = SETTLE
    if not (0 <= args.settle < 1):
        return usage(f"--settle must be in [0, 1), got {args.settle:g}")
    try:
        kwargs = parse_method_args(args.method_arg)
    except MethodError as exc:
        return usage(str(exc))
    if kwargs and not user:
        return usage(f"--method-arg: only a user's method (MODULE:FUNCTION) takes arguments, not {args.method!r}")
    try:
        out_json, x_path = output_paths(args)
    except OutputError as exc:
        return usage(str(exc))
    if user:
        try:
            probe(args.method, kwargs=kwargs)
        except MethodError as exc:
            return usage(str(exc))
    args.kwargs = kwargs
    try:
        with threadpool_limits(limits=BLAS_THREADS):
            return _load_and_solve(args, methods, usage, out_json, x_path)
    except KeyboardInterrupt:  # the outputs are written last, each atomically: nothing half-written
        print("mixbounds solve: interrupted; nothing written", file=sys.stderr)
        return EXIT_INTERRUPTED


def _load_and_solve(args, methods: dict, usage, out_json, x_path) -> int:
    """Load and check the instance directory, its reference, then run the method and report."""
    d = Path(args.dir)
    t0 = time.perf_counter()
    try:
        inst = load_instance(d)
    except (OSError, ValueError) as exc:
        return usage(f"cannot load {d}: {exc}")
    P = inst.problem
    facts, facts_note = trusted_facts(inst.spectra, d, P)
    phases = {"load": time.perf_counter() - t0}
    t0 = time.perf_counter()
    why = constraint_consistency(P)
    if why:
        return usage(f"{d}: {why}")
    x_star, err, ref_note = _reference(P, inst, d)
    if err:
        return usage(err)
    phases["checks"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    stop = {"settle": args.settle, "settle_eps": args.eps}
    try:
        if ":" in args.method:
            res = _user_method(args, P, x_star)
            if isinstance(res, str):
                print(f"mixbounds solve: error: {args.method}: {res}", file=sys.stderr)
                return EXIT_FAIL
            facts_note = "not used (a user's method reads the constants of its ProblemView)"
        elif methods[args.method] is None:
            res = solve(P, method=args.method, eps=args.eps, x_star=x_star, max_iter=args.max_iter,
                        constants=args.constants, facts=facts, timings=phases, **stop)
        else:
            res = methods[args.method][0](P, eps=args.eps, x_star=x_star, max_iter=args.max_iter, **stop)
            facts_note = "not used by this method"
    except ValueError as exc:
        return usage(str(exc))
    secs = time.perf_counter() - t0
    return _report(args, inst, d, res, ref_note, secs, out_json, x_path, phases,
                   facts_note if facts is not None or methods.get(args.method) is not None
                   else f"computed from the matrices ({facts_note})")


def _user_method(args, P, x_star):
    """A user's method on the instance in a process of its own (as ``mixbounds bench`` runs it): its run, or why it
    has none (a hang, a crash, ``sys.exit``)."""
    def run():
        fn = resolve(args.method, add_cwd=False)
        return run_method(fn, P, x_star, eps=args.eps, settle=args.settle, settle_eps=args.eps,
                          max_iter=args.max_iter, name=args.method, method_kwargs=args.kwargs)

    try:
        cwd = os.getcwd()
        if cwd not in sys.path:  # resolved from the current directory, as python -m does (and bench)
            sys.path.insert(0, cwd)
        out = call_isolated(run, METHOD_TIMEOUT_S * 10, limit_name=f"{METHOD_TIMEOUT_S * 10:g} s",
                            idle_timeout=YIELD_TIMEOUT_S, idle_name=f"no yield for {YIELD_TIMEOUT_S:g} s")
    finally:
        if cwd in sys.path:
            sys.path.remove(cwd)
    return out.value if out.ok else out.reason


def _constants_line(res) -> tuple[dict | None, str]:
    """The constants record of the summary and its printed line (``None``, "" for methods without them)."""
    c = res.params.get("constants_G")
    if not isinstance(c, dict):
        return None, ""
    mode = res.params.get("constants")
    used = c.get("choice", mode)
    rec = {"mode": mode, "used": used, "mu_G": c.get("mu_G"), "L_G": c.get("L_G")}
    if "reason" in c:
        rec["reason"] = c["reason"]
    text = f"  constants: {used} (μ_G = {c.get('mu_G'):.4g}, L_G = {c.get('L_G'):.4g})"
    if mode == "auto":
        after = measured_reason(c.get("cost_model") or {}, int(res.iterations))
        if after:
            rec["measured"] = after
        text += f"; auto: {c.get('reason')}" + (f"; {after}" if after else "")
    return rec, text


def _report(args, inst, d, res, ref_note, secs, out_json, x_path, phases, facts_note) -> int:
    P = inst.problem
    setup = {k: int(v) for k, v in (res.setup_counts or {k: 0 for k in res.counts}).items()}
    counts = {k: int(v) for k, v in res.counts.items()}
    constants, constants_text = _constants_line(res)
    ct = res.count_to(args.eps)
    summary = strict({"method": res.method, "eps": args.eps, "converged": bool(res.converged), "reason": res.reason,
                      "count_to_eps": ct.to_dict(), "settle": args.settle,
                      "count_to_note": "counts at the first iteration after which the error stays <= eps until the "
                                       "run ends (the run goes on until it has stayed there for the last --settle of "
                                       "its iterations); first_counts: at its first crossing",
                      "iterations": int(res.iterations), "counts": counts,
                      "counts_note": "the solve: its iterations and the right-hand side it computes first (row 0); "
                                     "not the constants' estimation (setup_counts)",
                      "setup_counts": setup, "counts_with_setup": {k: counts[k] + setup.get(k, 0) for k in counts},
                      "final_relative_error": res.final_error(), "x": None if x_path is None else str(x_path),
                      "reference": ref_note, "instance": str(d), "family": inst.family, "seconds": secs,
                      "phases_seconds": phases, "constants": res.params.get("constants"),
                      "constants_used": constants, "facts": facts_note})
    print(f"{inst.family} ({P.problem_class}, n = {P.n}, {P.layout.size} variables): {res.method}, eps = {args.eps:g}")
    print(f"  {'converged' if res.converged else 'NOT converged'} ({res.reason}) after {res.iterations} iterations, "
          f"final relative error {res.final_error():.3e}")
    if ct.row is not None:
        print(f"  count to eps (where the error stays, iteration {ct.row}, watched {ct.observed} more): "
              + ", ".join(f"{k} {v}" for k, v in ct.counts.items())
              + (f"; first crossing at iteration {ct.first_row}, then the error left eps again" if ct.left_again
                 else "; no crossing before it"))
    print("  counts (solve): " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    print("  setup_counts (constants estimation): " + ", ".join(f"{k} {v}" for k, v in setup.items()))
    if constants_text:
        print(constants_text)
    print(f"  spectral facts: {facts_note}")
    print("  seconds: " + ", ".join(f"{k} {v:.2f}" for k, v in phases.items()))
    try:
        if x_path is not None:
            z = P.layout.to_z(res.x)
            atomic_write(x_path, lambda tmp: np.save(tmp, z))
        if out_json is not None:
            text = json.dumps(summary, indent=2, allow_nan=False)
            atomic_write_text(out_json, text + "\n")
        if args.trace is not None:
            atomic_write_text(Path(args.trace), trace_text(res))
    except OSError as exc:
        print(f"mixbounds solve: error: could not write the outputs: {exc}", file=sys.stderr)
        return EXIT_FAIL
    print(f"  x {'written to ' + str(x_path) if x_path else 'not written (give --json or --x)'}; "
          f"reference: {ref_note}; {secs:.2f} s")
    if out_json:
        print(f"  summary written to {out_json}")
    if args.trace:
        print(f"  trace ({res.iterations + 1} rows) written to {args.trace}")
    return EXIT_OK if res.converged else EXIT_FAIL


def trace_text(res) -> str:
    """The run row by row as CSV (:data:`TRACE_HEADER`): error and cumulative counts after set-up (row 0) and after
    every iteration."""
    lines = [TRACE_HEADER]
    for k, (e, c) in enumerate(zip(res.history_error, res.history_counts)):
        lines.append(f"{k},{float(e):.17g}," + ",".join(str(int(v)) for v in c))
    return "\n".join(lines) + "\n"
