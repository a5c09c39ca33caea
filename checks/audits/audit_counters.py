"""Counter audit: the oracle counts every verdict rests on, recounted independently in every run.

docs/design.md ("Oracle accounting"): solvers reach the data only through the counted
oracles of :mod:`mixbounds.solvers.oracles`, and every counter is tested against an independent
count.  A counter that undercounts (say every second ``comm`` round) moves no slope — a
constant factor cannot — and the lower-bound consistency check has slack of 8× and more,
so ``mixbounds verify`` needs its own audit:

1. **Recount through wrapped raw matrices** (:func:`audit_point`, one task per problem class ×
   method): the raw ``W``, block-diagonal ``A``/``Aᵀ``, ``C``/``Cᵀ``, ``C̃``/``C̃ᵀ`` and the
   objective inside a :class:`~mixbounds.solvers.oracles.CountedOracles` are replaced by the counting
   proxies below (written here, independently of :mod:`mixbounds.solvers.oracles`); APAPC runs
   :data:`AUDIT_ITERATIONS` iterations without materialised polynomials, so every product
   reaches a raw matrix; the proxies' tally must equal the counters exactly.  The same
   iterations are rerun with materialised polynomials (what the sweeps use): the count
   history must be identical.
2. **Closed form from the Chebyshev degrees** (:func:`closed_form_per_iteration`): one APAPC
   iteration (``alg:apapc``) is one ``∇G`` and one application of the (polynomial) normal
   operator ``P(BᵀB)``; with the degrees of every polynomial this fixes every oracle's count
   per iteration.  Every iteration of the audit runs and of every rate sweep point
   (:func:`closed_form_mismatch`, called by :func:`mixbounds.checks.rate_measure.rate_point`) must match it.

Any difference makes the point ``error`` with both numbers.  Negative control: the same
audit of a counter that skips every second ``comm`` round must come out ``fail``.
"""

from __future__ import annotations

import numpy as np
from mixbounds.bounds.concepts import ORACLES, BlockKind, Oracle
from mixbounds.checks.run.framework import Check, Task, instance_and_reference
from mixbounds.checks.run.result import CheckResult, reading
from mixbounds.checks.sweeps import CLASS_FAMILIES, random_sweeps
from mixbounds.checks.tiers import Tier
from mixbounds.solvers import CountedOracles, solve

AUDIT_ORACLES = ORACLES
#: iterations recounted per audit run (the per-iteration counts are constant, the set-up differs)
AUDIT_ITERATIONS = 2
#: methods audited (every method the rate checks and their controls run)
AUDIT_METHODS = ("apapc", "apapc-nocheb")


# ----------------------------------------------------------------------------- independent count
class _CountingMatrix:
    """A raw matrix that adds one to ``tally[key]`` for every product taken with it."""

    def __init__(self, M, tally: dict, key: str):
        self.M, self.tally, self.key = M, tally, key
        self.shape = M.shape

    def __matmul__(self, v):
        self.tally[self.key] += 1
        return self.M @ v


class _CountingGradient:
    """A raw objective that adds one to ``tally["grad"]`` for every gradient round."""

    def __init__(self, obj, tally: dict):
        self.obj, self.tally = obj, tally

    def grad(self, u):
        self.tally[Oracle.GRAD] += 1
        return self.obj.grad(u)


#: the raw data a CountedOracles holds, and which count a product with it is
_RAW = (("_W", Oracle.COMM), ("_bA", Oracle.A), ("_bAT", Oracle.A), ("_bC", Oracle.C), ("_bCT", Oracle.C), ("_bCt", Oracle.CT), ("_bCtT", Oracle.CT))


def wrap_raw(orc, problem) -> dict:
    """Replace the raw data inside ``orc`` by counting proxies; the independent tally.

    Raises ``ValueError`` when an operator the problem has is not where the audit expects it
    (a renamed attribute must not turn the audit into a no-op).
    """
    tally = {k: 0 for k in AUDIT_ORACLES}
    present = {"_W": True, "_bA": problem.A is not None, "_bAT": problem.A is not None, "_bC": problem.C is not None,
               "_bCT": problem.C is not None, "_bCt": problem.Ct is not None, "_bCtT": problem.Ct is not None}
    for attr, key in _RAW:
        if not present[attr]:
            continue
        if not hasattr(orc, attr):
            raise ValueError(f"counter audit: the counted oracles hold no {attr} (raw data of {key!r}) to wrap")
        setattr(orc, attr, _CountingMatrix(getattr(orc, attr), tally, key))
    if not hasattr(orc, "_obj"):
        raise ValueError("counter audit: the counted oracles hold no _obj (raw objective) to wrap")
    orc._obj = _CountingGradient(orc._obj, tally)
    return tally


# ----------------------------------------------------------------------------- closed form
def closed_form_per_iteration(x_block: str | None, t_block: str | None, degrees: dict, cheb: bool) -> dict:
    """Oracle rounds of one APAPC iteration from the polynomial degrees (``alg:apapc``, ``alg:chebyshev``).

    One iteration is ``∇G`` once and ``P(BᵀB)`` once per block; ``P`` of degree ``K`` applies
    ``BᵀB`` ``K`` times (1 without Chebyshev).  ``∇G``: one ``grad`` round and, with a coupled
    constraint, the penalty ``r‖Ax + αW'Y − b‖²``: ``A``, ``Aᵀ`` and two ``W'``.  Raw ``BᵀB``:
    coupled ``(A αW')``: ``A``, ``Aᵀ``, two ``W'``; coupled + local adds ``(βC')ᵀ(βC')``: two
    ``C'``; local ``CᵀC``: two ``C``; consensus ``W``: one ``comm``; shared ``(C̃; γW')``: ``C̃``,
    ``C̃ᵀ``, two ``W'``; identical C̃ ``(I⊗C̃'; W')`` (no outer polynomial): two ``C̃'``, two ``W'``.
    ``W' = P_W(W)`` is ``deg_W`` rounds of ``comm``; ``C' = P_C(CᵀC)`` is ``deg_C`` rounds of
    ``CᵀC`` = ``2 deg_C`` ``C`` counts (likewise ``C̃'``); without Chebyshev ``W' = W``, ``C' = C``.
    """
    dW = degrees.get("W", 1) if cheb else 1
    cC = 2 * degrees.get(Oracle.C, 1) if cheb else 1  # C counts of one C' application
    cT = 2 * degrees.get(Oracle.CT, 1) if cheb else 1
    c = dict.fromkeys(AUDIT_ORACLES, 0)
    c[Oracle.GRAD] = 1
    if x_block in (BlockKind.COUPLED, BlockKind.COUPLED_LOCAL):
        c[Oracle.A] += 2
        c[Oracle.COMM] += 2 * dW
    raw = {BlockKind.COUPLED: {Oracle.A: 2, Oracle.COMM: 2 * dW},
           BlockKind.COUPLED_LOCAL: {Oracle.A: 2, Oracle.COMM: 2 * dW, Oracle.C: 2 * cC},
           BlockKind.LOCAL: {Oracle.C: 2}, BlockKind.CONSENSUS: {Oracle.COMM: 1},
           BlockKind.SHARED: {Oracle.CT: 2, Oracle.COMM: 2 * dW},
           BlockKind.SHARED_IDENTICAL: {Oracle.CT: 2 * cT, Oracle.COMM: 2 * dW}}
    for key, kind in (("x", x_block), ("t", t_block)):
        if kind in (None, "free"):
            continue
        K = degrees.get(f"K_{key}", 1) if (cheb and kind != "shared_identical") else 1
        for o, v in raw[kind].items():
            c[o] += K * v
    return c


def closed_form_mismatch(res) -> str | None:
    """Every iteration of an APAPC run (a :class:`~mixbounds.solvers.result.SolveResult`) against the closed form.

    ``None`` when every row of the count history's differences equals
    :func:`closed_form_per_iteration`; otherwise the difference, with both numbers.
    """
    p = res.params
    if "degrees" not in p or "x_block" not in p:
        return f"no degrees recorded by {res.method!r}: the closed form cannot be checked"
    want = closed_form_per_iteration(p.get("x_block"), p.get("t_block"), p["degrees"], res.method == "apapc")
    per = np.diff(np.asarray(res.history_counts), axis=0)
    if per.shape[0] == 0:
        return None
    w = np.array([want[o] for o in AUDIT_ORACLES])
    bad = np.flatnonzero(np.any(per != w, axis=1))
    if bad.size == 0:
        return None
    k = int(bad[0])
    got = {o: int(v) for o, v in zip(AUDIT_ORACLES, per[k])}
    return (f"{bad.size} of {per.shape[0]} iterations differ from the closed form of degrees {p['degrees']}: "
            f"iteration {k + 1} counted {got}, closed form {want}")


# ----------------------------------------------------------------------------- task
def audit_point(family: str, params: dict, method: str, skip_every_second_comm: bool = False) -> dict:
    """Recount :data:`AUDIT_ITERATIONS` APAPC iterations of ``method`` on one instance (module docstring).

    ``skip_every_second_comm`` builds the negative control: counted oracles whose ``comm``
    counter misses every second round.
    """
    inst, ref = instance_and_reference(family, dict(params))
    P = inst.problem
    orc = _SkippingOracles(P) if skip_every_second_comm else CountedOracles(P)
    tally = wrap_raw(orc, P)
    kw = dict(method=method, eps=1e-300, x_star=ref.u, max_iter=AUDIT_ITERATIONS)
    a = solve(P, oracles=orc, materialize=False, **kw)
    orc_b = _SkippingOracles(P) if skip_every_second_comm else CountedOracles(P)
    b = solve(P, oracles=orc_b, materialize=True, **kw)
    per = np.diff(a.history_counts, axis=0)
    return {"n": P.n, "variables": P.layout.size, "iterations": int(a.iterations), "counted": dict(a.counts),
            "tally": dict(tally), "per_iteration": [[int(v) for v in row] for row in per],
            "closed_form": closed_form_per_iteration(a.params.get("x_block"), a.params.get("t_block"),
                                                     a.params.get("degrees", {}), method == "apapc"),
            "closed_form_mismatch": closed_form_mismatch(a), "degrees": a.params.get("degrees"),
            "materialized_history_equal": bool(np.array_equal(a.history_counts, b.history_counts)),
            "materialized_counts": dict(b.counts)}


def _skipping_class():
    class SkippingOracles(CountedOracles):
        """Negative control: a ``comm`` counter that misses every second round."""

        _rounds = 0

        def comm(self, Y):
            self._rounds += 1
            before = self.counts[Oracle.COMM]
            out = super().comm(Y)
            if self._rounds % 2 == 0:
                self.counts[Oracle.COMM] = before
            return out

    return SkippingOracles


def _SkippingOracles(P):
    return _skipping_class()(P)


# ----------------------------------------------------------------------------- verdicts
def audit_sample(tier: Tier) -> list[tuple[str, str, dict]]:
    """``(class, family, params)``: every problem class once, at the first point of its first random sweep."""
    out = []
    for cls in CLASS_FAMILIES:
        sw = random_sweeps(tier, cls)[0]
        out.append((cls, sw.family, sw.point_params(sw.grid[0])))
    return out


def _task(family: str, params: dict, method: str, control: bool = False) -> Task:
    kw = {"family": family, "params": params, "method": method}
    if control:
        kw["skip_every_second_comm"] = True
    return Task(audit_point, kw, label=f"audit {family} {method}{' (control)' if control else ''}")


def audit_verdict(rid: str, p: dict, *, control: bool = False, instance: dict | None = None) -> CheckResult:
    """Exact equality of tally and counters, of the two count histories, and of every iteration with the closed form."""
    common = dict(kind="audit", theory="independent tally = counters; per-iteration counts = closed form",
                  tolerance=0.0, label="docs/design.md: oracle accounting", instance=instance or {}, control=control,
                  expected="fail" if control else None)
    if "error" in p:
        return CheckResult(id=rid, status="fail" if control else "error", detail=p["error"], **common)
    why = []
    diff = {o: (p["counted"][o], p["tally"][o]) for o in AUDIT_ORACLES if p["counted"][o] != p["tally"][o]}
    if diff:
        why.append("counters differ from the independent tally (counted, tally): "
                   + ", ".join(f"{o} {c} vs {t}" for o, (c, t) in diff.items()))
    if p["closed_form_mismatch"]:
        why.append(p["closed_form_mismatch"])
    if not p["materialized_history_equal"]:
        why.append(f"materialised run counted {p['materialized_counts']}, recurrence run {p['counted']}")
    if not any(p["tally"].values()):
        why.append("the independent tally is zero: nothing was recounted")
    status = ("fail" if control else "error") if why else "pass"
    detail = "; ".join(why) if why else (
        f"{p['iterations']} iterations (+ set-up): counted = tally = {p['tally']}; "
        f"per iteration {p['per_iteration'][0]} = closed form (degrees {p['degrees']})")
    # measured: the oracles whose counter differs from the independent tally (0 passes); the tally itself in readings
    return CheckResult(id=rid, status=status, points=[p], detail=detail,
                       **reading("oracles differing", {"oracles differing": len(diff), **p["tally"]}), **common)


def _class_check(cls: str) -> Check:
    """The audit of one problem class (a check of its own, so that a ``--claims`` subset runs the audit of the
    classes it measures only: :mod:`mixbounds.checks.audits.guards`)."""

    def sample(tier):
        return next((fam, prm) for c, fam, prm in audit_sample(tier) if c == cls)

    def tasks(tier):
        fam, prm = sample(tier)
        return [_task(fam, prm, m) for m in AUDIT_METHODS]

    def finalize(tier, points):
        fam, prm = sample(tier)
        return [audit_verdict(f"audit.counters.{cls}.{m}", points[_task(fam, prm, m).key],
                              instance={"family": fam, "params": prm, "method": m}) for m in AUDIT_METHODS]

    return Check(id=f"audit.counters.{cls}", family="selfcheck",
                 result_ids=lambda t: [f"audit.counters.{cls}.{m}" for m in AUDIT_METHODS], tasks=tasks,
                 finalize=finalize, description=f"oracle counters of the {cls} class recounted through wrapped raw "
                                                f"matrices; per-iteration closed form")


def checks() -> list[Check]:
    rid_c = "control.audit.counters.skip-every-second-comm"

    def c_sample(tier):
        return audit_sample(tier)[0]  # consensus: comm is its only matrix oracle

    def c_tasks(tier):
        _, fam, prm = c_sample(tier)
        return [_task(fam, prm, "apapc", control=True)]

    def c_final(tier, points):
        _, fam, prm = c_sample(tier)
        return [audit_verdict(rid_c, points[_task(fam, prm, "apapc", control=True).key], control=True,
                              instance={"family": fam, "params": prm, "method": "apapc"})]

    return [_class_check(cls) for cls in CLASS_FAMILIES] + [
            Check(id="control.audit.counters", family="selfcheck", result_ids=lambda t: [rid_c], tasks=c_tasks,
                  finalize=c_final, description="a comm counter missing every second round must fail the audit")]
