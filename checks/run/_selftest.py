"""Self-test fixture for the ``mixbounds verify`` machinery (not a check family).

:func:`fake_checks` builds small :class:`~mixbounds.checks.run.framework.Check` s whose tasks
are exact power laws (``count = c·κ^slope``, computed in microseconds), so the
CLI's exit codes, caching, parallelism, outputs and plots can be tested without
running a solver.  The task function lives in an importable module so that
joblib worker processes can run it.  :func:`mixbounds.checks.registry.all_checks` does
not import this module: the fixture never appears in a real run.
"""

from __future__ import annotations

import math

from mixbounds.checks.run.document import build_document
from mixbounds.checks.run.framework import Check, Task, run_checks
from mixbounds.checks.run.result import CheckResult, Finding
from mixbounds.checks.sweeps import fit_slope
from mixbounds.checks.tiers import TINY, Tier, as_tier

GRID = (100.0, 215.44, 464.16, 1000.0)


def power_point(kappa: float, slope: float, const: float = 30.0, param: str = "kappa_W", wobble: float = 0.0,
                seed: int = 0) -> dict:
    """One fake sweep point: ``per_accuracy = const·κ^slope·(1 + wobble·(−1)^i)``, counts as integers."""
    i = int(round(math.log10(kappa) * 3))
    y = const * kappa ** slope * (1.0 + wobble * (-1) ** i)  # integer counts below: keep const·κ^slope ≳ 10
    c1 = int(round(2 * y))
    c2 = c1 + max(1, int(round(y)))
    return {"realized": {param: kappa * 1.01}, "count1": c1, "count2": c2, "seed": seed}


def _rows(points: list[dict], param: str) -> list[dict]:
    return [{"realized": p["realized"][param], "count1": p["count1"], "count2": p["count2"],
             "per_accuracy": p["count2"] - p["count1"], "realized_all": p["realized"]} for p in points]


def sweep_check(rid: str, *, kind: str = "tight", theory: float = 0.5, slope: float = 0.5, tol: float = 0.1,
                control: bool = False, cell: str = "T1.coupled.comm", param: str = "kappa_W",
                finalize_raises: BaseException | None = None, finding: bool = False, family: str = "selftest",
                grid=GRID, seed: int = 0) -> Check:
    """A slope check on a fake power law: verdict ``pass`` iff ``|slope − theory| <= tol``.

    ``control=True`` makes it a negative control (caught iff the slope misses the
    theory); ``finding=True`` turns a miss into a ``finding``; ``finalize_raises``
    is raised from ``finalize`` (to simulate an interrupted run).
    """

    def tasks(tier):
        return [Task(power_point,
                     {"kappa": k, "slope": slope, "param": param, "wobble": 0.02, "seed": seed},
                     label=f"{rid} {param}={k:g}") for k in grid]

    def finalize(tier, points):
        if finalize_raises is not None:
            raise finalize_raises
        pts = [points[t.key] for t in tasks(tier)]
        errs = [p["error"] for p in pts if "error" in p]
        common = dict(kind=kind, theory=theory, tolerance=tol, cell=cell, param=param, label="thm:selftest",
                      control=control, expected="fail" if control else None,
                      instance={"family": "selftest", "variant": "printed", "base": {"kappa_f": 10.0}},
                      variant=rid.partition("@")[2] or None)  # the fixture's ids name their series
        if errs:
            return [CheckResult(id=rid, status="error", detail="; ".join(errs), **common)]
        rows = _rows(pts, param)
        f = fit_slope([r["realized"] for r in rows], [r["per_accuracy"] for r in rows])
        ok = abs(f["slope"] - theory) <= tol
        fnd = ()
        if ok:
            status = "pass"
        elif finding and not control:
            status = "finding"
            fnd = (Finding(id=f"finding:{rid}", label="thm:selftest", statement=f"{cell} grows like {param}^{theory:g}",
                           printed=theory, measured=round(f["slope"], 4), detail="fake finding for the self-test",
                           source=rid),)
        else:
            status = "fail"
        return [CheckResult(id=rid, status=status, measured=f["slope"], ci=f["ci"], r2=f["r2"], points=rows,
                            findings=fnd, detail=f"slope {f['slope']:.3f} vs {theory:g}", extra={"formula_slope": theory},
                            **common)]

    return Check(id=f"selftest.{rid}", family=family, result_ids=lambda tier: [rid], tasks=tasks, finalize=finalize,
                 description="self-test fixture")


def fake_checks(*, failing: bool = False, uncaught_control: bool = False, finding: bool = True,
                finalize_raises: BaseException | None = None, unexpected_finding: bool = False) -> list[Check]:
    """A small suite: an upper and a lower slope check of one cell, a lemma-like check, a caught control.

    ``failing`` adds a check whose slope misses its claim; ``uncaught_control`` a control that passes;
    ``finding`` a check whose miss is a named, *expected* finding (id ``…@selftest``, listed in
    :mod:`mixbounds.checks.expected`; does not fail the run); ``unexpected_finding`` one that is not listed (fails it).
    """
    out = [
        sweep_check("T1.coupled.comm.kappa_W.tight", kind="tight", theory=0.5, slope=0.5),
        sweep_check("T1.coupled.comm.kappa_W.lower", kind="lower", theory=0.5, slope=0.5, seed=1),
        sweep_check("T1.coupled.A.kappa_A.tight", kind="tight", theory=0.5, slope=0.52, cell="T1.coupled.A", param="kappa_A"),
        sweep_check("T1.coupled.A.kappa_W.absent", kind="absent", theory=0.0, slope=0.0, cell="T1.coupled.A"),
        sweep_check("control.selftest.wrong-exponent", kind="tight", theory=0.5, slope=1.0, control=True),
    ]
    if finding:
        out.append(sweep_check("T1.coupled.comm.kappa_A.lower@selftest", kind="lower", theory=0.5, slope=0.2, finding=True,
                               param="kappa_A"))
    if unexpected_finding:
        out.append(sweep_check("T1.coupled.comm.kappa_f.lower@unlisted", kind="lower", theory=0.5, slope=0.2, finding=True,
                               param="kappa_f"))
    if failing:
        out.append(sweep_check("T1.coupled.grad.kappa_f.tight", kind="tight", theory=0.5, slope=1.0, cell="T1.coupled.grad",
                               param="kappa_f"))
    if uncaught_control:
        out.append(sweep_check("control.selftest.blind", kind="tight", theory=0.5, slope=0.5, control=True))
    if finalize_raises is not None:
        out.append(sweep_check("T1.coupled.grad.kappa_W.absent", kind="absent", theory=0.0, slope=0.0, cell="T1.coupled.grad",
                               finalize_raises=finalize_raises))
    return out


def fake_document(tier: Tier | str = TINY, checks: list[Check] | None = None, **kw) -> dict:
    """The results document (as written to ``results.json``) of a serial, uncached run of :func:`fake_checks`."""
    tier = as_tier(tier)
    checks = fake_checks(**kw) if checks is None else checks
    results, stats = run_checks(checks, tier, jobs=1, cache_dir=None)
    return build_document(results, stats, tier=tier, globs=["*"], wall_time=stats["seconds"], started="",
                          checks=checks, plan={c.id: c.tasks(tier) for c in checks}, jobs=1, cache_dir=None,
                          command="selftest")
