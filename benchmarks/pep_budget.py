"""Process CPU seconds of the PEP tasks of a tier, run as ``mixbounds verify --jobs 2`` runs them (issue 46's budget).

Collects the tier's tasks as ``mixbounds verify`` does and keeps those of the PEP checks (family ``pep`` and the
``control.pep*`` checks: every task whose label starts with ``PEP``), groups them as
:func:`mixbounds.checks.run.framework.task_groups` does, and runs the groups on ``JOBS`` fresh worker processes
(spawned, one BLAS thread each, as verify's loky workers), timing each task with ``time.process_time`` in its
worker.  A worker's first task pays the imports it needs (the ``[pep]`` extra's solver, scipy): in a whole verify
run the workers would have paid part of them for other tasks, so the figures here are an upper bound of the PEP
share.  Prints every task (CPU, wall) and the totals: the CPU sum over all tasks, and per worker (the PEP share's
wall time on ``JOBS`` idle cores is about the larger worker sum).  Under load CPU seconds are inflated too
(caches and frequency are shared): compare runs made back to back, or run on an idle machine.

Usage: ``python benchmarks/pep_budget.py [TIER] [JOBS] [OUT.json]`` (defaults ``quick``, ``2``, no file).
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import sys
import time

from mixbounds.checks.registry import all_checks
from mixbounds.checks.run import framework
from mixbounds.checks.tiers import as_tier


def _pep_tasks(tier) -> list:
    checks = [c for c in all_checks() if tier in c.tiers]
    tasks, _ = framework._collect_tasks(checks, tier)
    return [t for t in tasks.values() if str(t.label or "").startswith("PEP")]


def _run(group: list) -> list[dict]:
    """Run one group in this worker; ``[{label, cpu, wall, pid, error}]``."""
    from threadpoolctl import threadpool_limits  # lazy: in the worker

    rows = []
    with threadpool_limits(limits=1):
        framework._GROUP.instances = {}
        try:
            for label, func, kwargs in group:
                c = time.process_time()
                point = framework.call_task(func, kwargs)
                rows.append({"label": label, "cpu": time.process_time() - c, "wall": point["seconds"],
                             "pid": os.getpid(), "error": point.get("error") or point.get("skipped")})
        finally:
            framework._GROUP.instances = None
    return rows


def main(argv: list[str]) -> int:
    tier = as_tier(argv[0] if argv else "quick")
    jobs = int(argv[1]) if len(argv) > 1 else 2
    out_path = argv[2] if len(argv) > 2 else None
    groups = framework.task_groups(_pep_tasks(tier))
    payload = [[(t.label, t.func, t.kwargs) for t in g] for g in groups]
    t0 = time.perf_counter()
    with mp.get_context("spawn").Pool(jobs) as pool:
        rows = [r for rs in pool.imap_unordered(_run, payload) for r in rs]
    wall = time.perf_counter() - t0
    per_worker: dict[int, float] = {}
    for r in rows:
        per_worker[r["pid"]] = per_worker.get(r["pid"], 0.0) + r["cpu"]
    for r in sorted(rows, key=lambda r: -r["cpu"]):
        print(f"{r['cpu']:7.2f} CPU s {r['wall']:7.2f} s  {r['label']}" + (f"  [{r['error'][:60]}]" if r["error"] else ""))
    total = sum(r["cpu"] for r in rows)
    print(f"{len(rows)} PEP tasks of tier {tier.name}: {total:.1f} CPU s in all; per worker "
          f"{', '.join(f'{v:.1f}' for v in sorted(per_worker.values(), reverse=True))} CPU s; {wall:.1f} s wall on "
          f"{jobs} workers (load average {os.getloadavg()[0]:.1f})")
    if out_path:
        with open(out_path, "w") as f:
            json.dump({"tier": tier.name, "jobs": jobs, "rows": rows, "wall": wall, "cpu": total}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
