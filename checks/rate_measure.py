"""The per-accuracy cost of one rate run: what every Table 1 upper-bound sweep point measures.

:func:`rate_point` solves an instance with the paper's method (``mixbounds.solvers.solve``: APAPC with
Chebyshev acceleration, or the no-Chebyshev control) from the solvers' start ``u⁰ = 0`` to the accuracy
``eps2`` and turns the error history into the cost of one accuracy window ``[eps2, eps1]``.  It is shared by
the sweeps of :mod:`mixbounds.checks.rates` (worst-case constructions and random families, instances from the
family registry) and by the PEP worst-case series (:mod:`mixbounds.checks.pep.series`, instances built from a
performance-estimation solution), so every series of Table 1 is measured by the same code.

The error ``‖x_k − x*‖²`` of APAPC is not monotone (it contracts a Lyapunov function of the primal-dual pair;
measured oscillations of 1.5 decades with periods of ~√κ iterations), so first-hitting times mostly measure the
oscillation's phase.  The per-accuracy cost is therefore rate-based: the *envelope* ``E_k = max_{j>=k} e_j`` is
fitted (log-linear) over the window, giving iterations per window, times the exact per-iteration count of each
oracle.  The run continues until the error has stayed below ``eps2`` for the last :data:`SETTLE` of its
iterations, so that the envelope of the recorded history is the envelope of the whole run above ``eps2``: the
envelope is at or below ``ε`` exactly from the row of the count to ``ε`` on (the suite's one definition,
:mod:`mixbounds.solvers.stop_rule`; the point's ``settle``).  First-crossing counts (``counts1``, ``counts2``) are
kept for the lower-bound comparison, where the first crossing is the stricter test.
"""

from __future__ import annotations

import math

import numpy as np
from mixbounds.checks.audits.audit_counters import closed_form_mismatch
from mixbounds.checks.sweeps import UB_EPS1, UB_EPS2
from mixbounds.solvers import ORACLES, solve
from mixbounds.solvers.stop_rule import SETTLE as _SETTLE
from mixbounds.solvers.stop_rule import settled_row

#: iteration budget per solver run
MAX_ITER = 200_000
#: stop rule of the rate runs (``mixbounds.solvers.apapc.apapc``'s ``settle``): :data:`mixbounds.solvers.stop_rule.SETTLE`
#: (the run ends once the error has stayed <= ε₂ for the last third of its iterations; a first-hit stop can end a run
#: at a dip and make the envelope of the cut history look cheaper than it is)
SETTLE = _SETTLE


def rate_point(inst, x_star, *, method: str = "apapc", eps1: float = UB_EPS1, eps2: float = UB_EPS2,
               max_iter: int = MAX_ITER) -> dict:
    """Solve ``inst`` (an :class:`~mixbounds.instances.instance.Instance`) with ``method`` against the exact
    solution ``x_star`` (u-layout); the per-accuracy cost between ``eps1`` and ``eps2`` (module docstring).

    Returns the sweep point's record: realized and target κ's, sizes, convergence, first-hit counts to both
    accuracies, and (when the run reached ``eps2`` and the guards hold) ``per_iteration``, ``iterations_window``,
    ``per_accuracy``; otherwise the reason a verdict may not use the point (``counter_audit_error``,
    ``convergence_error``, ``window_error``, or ``converged = False``).
    """
    res = solve(inst.problem, method=method, eps=eps2, x_star=x_star, max_iter=max_iter, settle=SETTLE)
    out = {"realized": inst.realized, "targets": inst.targets, "n": inst.problem.n,
           "variables": inst.problem.layout.size, "chain_length": inst.params.get("chain_length"),
           "converged": bool(res.converged), "reason": res.reason, "iterations": int(res.iterations),
           "final_error": res.final_error(), "counts1": res.counts_to(eps1), "counts2": res.counts_to(eps2),
           "counts": res.counts, "setup_counts": res.setup_counts,
           "solver": {k: res.params[k] for k in ("degrees", "tau", "L_G", "mu_G", "interval") if k in res.params}}
    # convergence guard: the error at the returned x, recomputed here from x and x* (not the solver's flag)
    out["final_error_recomputed"], why = convergence_guard(res, x_star, eps2)
    out["eps_asked"] = eps2
    mismatch = closed_form_mismatch(res)
    if mismatch:
        out["counter_audit_error"] = mismatch
    if not res.converged:
        return out
    if why:
        out["convergence_error"] = why
        return out
    e = res.history_error
    env = np.maximum.accumulate(e[::-1])[::-1]
    win = np.flatnonzero((env <= eps1) & (env >= eps2))
    hc = res.history_counts
    per_iter = (hc[-1] - hc[0]) / max(res.iterations, 1)
    if win.size < 3:
        out["window_error"] = f"only {win.size} iterations with the envelope in [{eps2:g}, {eps1:g}]"
        return out
    slope = np.polyfit(win, np.log10(env[win]), 1)[0]  # decades per iteration (negative)
    iters_window = math.log10(eps1 / eps2) / abs(slope)
    out.update({
        "per_iteration": {o: float(v) for o, v in zip(ORACLES, per_iter)},
        "iterations_window": float(iters_window),
        "per_accuracy": {o: float(v) * iters_window for o, v in zip(ORACLES, per_iter)},
        "settle": {f"{eps:g}": settled_row(e, eps) for eps in (eps1, eps2)},  # where the count to ε is read
    })
    return out


def convergence_guard(res, x_star, eps: float) -> tuple[float, str | None]:
    """The error at ``res.x`` recomputed from ``x*``, and why the run may not be judged when it exceeds ``eps``.

    A run is judged only when it reached the accuracy it was asked for, whatever its ``converged`` flag says.
    """
    err = recomputed_error(res.x, x_star)
    if err <= eps:
        return err, None
    return err, (f"the solver reports {res.reason!r} after {res.iterations} iterations, but the error recomputed "
                 f"from x and x* is {err:.3e} > ε = {eps:g}")


def recomputed_error(x, x_star) -> float:
    """``‖x − x*‖² / ‖x⁰ − x*‖²`` with ``x⁰ = 0`` (the solvers' start), from the returned point itself.

    The accuracy every rate run asks for (``mixbounds.solvers.solve``: relative squared distance on the original
    variables); ``‖x − x*‖²`` when ``x* = 0``.
    """
    x, xs = np.asarray(x, float).ravel(), np.asarray(x_star, float).ravel()
    den = float(xs @ xs)
    num = float((x - xs) @ (x - xs))
    return num / den if den > 0 else num
