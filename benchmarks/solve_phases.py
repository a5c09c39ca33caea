"""Phase times of one ``mixbounds solve`` run (wall and process CPU seconds), for before/after comparisons.

Runs ``mixbounds solve DIR …`` in this process with timers wrapped around its phases, by function name, so that the
same script measures an older tree (run it with that tree's interpreter):

* ``import``: importing the CLI (``mixbounds.cli.command``);
* ``load``: :func:`mixbounds.instances.io.load_instance`;
* ``checks``: the input checks of ``mixbounds solve`` (constraint consistency and the x_star.npy residual);
* ``setup``: building the reformulation (:class:`mixbounds.solvers.reformulations.Reformulation`: facts, degrees,
  constants, right-hand side);
* ``iterations``: the APAPC loop (:func:`mixbounds.solvers.apapc.apapc`);
* ``total``: from before the import to the end of the command (the interpreter's own start-up, ~20 ms, is outside).

Usage: ``python benchmarks/solve_phases.py DIR [mixbounds solve options]``; prints one JSON line.
"""

from __future__ import annotations

import json
import sys
import time

T0 = (time.perf_counter(), time.process_time())


def _now():
    return time.perf_counter(), time.process_time()


def main(argv: list[str]) -> dict:
    phases: dict[str, list[float]] = {}

    def add(name, t0):
        w, c = _now()
        acc = phases.setdefault(name, [0.0, 0.0])
        acc[0] += w - t0[0]
        acc[1] += c - t0[1]

    t = _now()
    import mixbounds.instances.io as io
    import mixbounds.solvers.reformulations as reform
    import mixbounds.solvers.solve  # noqa: F401  (the package re-exports a function of the same name)

    import mixbounds.cli.command as command
    import mixbounds.cli.solve as cli_solve

    solve_mod = sys.modules["mixbounds.solvers.solve"]
    add("import", t)

    def wrap(mod, name, phase):
        f = getattr(mod, name)

        def timed(*a, **k):
            t = _now()
            try:
                return f(*a, **k)
            finally:
                add(phase, t)

        setattr(mod, name, timed)

    wrap(io, "load_instance", "load")
    if hasattr(cli_solve, "load_instance"):  # imported by name at the module top (newer trees)
        cli_solve.load_instance = io.load_instance
    wrap(cli_solve, "constraint_consistency", "checks")
    wrap(cli_solve, "_reference", "checks")
    wrap(solve_mod, "apapc", "iterations")
    init = reform.Reformulation.__init__

    def timed_init(self, *a, **k):
        t = _now()
        try:
            return init(self, *a, **k)
        finally:
            add("setup", t)

    reform.Reformulation.__init__ = timed_init
    rc = command.main(["solve", *argv])
    add("total", T0)
    out = {k: {"wall": round(v[0], 4), "cpu": round(v[1], 4)} for k, v in phases.items()}
    out["rc"] = rc
    return out


if __name__ == "__main__":
    import contextlib
    import io as _io

    buf = _io.StringIO()
    with contextlib.redirect_stdout(buf):
        res = main(sys.argv[1:])
    res["stdout"] = buf.getvalue().splitlines()
    print(json.dumps(res))
