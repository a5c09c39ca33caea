"""Process CPU seconds of every task of a tier, run serially in this process, for before/after comparisons.

Collects the tier's tasks as ``mixbounds verify`` does (every check of the registry, a task shared by several checks
once), groups them by instance as :func:`mixbounds.checks.run.framework.run_checks` does (one build and one exact
solution per group) and runs the groups one after the other with one BLAS thread, timing each task with
``time.process_time`` (CPU seconds: on a shared machine a wall time measures the other jobs too).  Writes a JSON file
``{"rows": [{"key", "name", "label", "checks", "family", "cpu", "wall", "error"}], "setup_cpu"}`` and prints the
total and the CPU per check family.

One process sees every task, so whatever a process reuses between tasks (the spectra memo, materialised operators)
is reused more than on ``--jobs 2``, where each worker sees half of them.

Usage: ``python benchmarks/profile_tier.py [TIER] [OUT.json]`` (defaults ``quick``, ``profile-TIER.json``); for an
older tree, run it with ``PYTHONPATH`` pointing at that tree's package.  ``py-spy record -f raw -o FILE -- python
benchmarks/profile_tier.py`` gives the functions.
"""

from __future__ import annotations

import json
import sys
import time
from collections import defaultdict

from mixbounds.checks.registry import all_checks
from mixbounds.checks.run import framework
from mixbounds.checks.tiers import as_tier
from threadpoolctl import threadpool_limits


def main(argv: list[str]) -> int:
    tier = as_tier(argv[0] if argv else "quick")
    out_path = argv[1] if len(argv) > 1 else f"profile-{tier.name}.json"
    c0 = time.process_time()
    checks = [c for c in all_checks() if tier in c.tiers]
    tasks, per_check = framework._collect_tasks(checks, tier)
    setup_cpu = time.process_time() - c0
    owners: dict[str, list[str]] = defaultdict(list)
    for cid, keys in per_check.items():
        for k in keys:
            owners[k].append(cid)
    family = {c.id: c.family for c in checks}
    groups: dict[str, list] = {}
    for t in tasks.values():
        groups.setdefault(framework._group_key(t), []).append(t)
    rows = []
    with threadpool_limits(limits=1):
        for g in groups.values():
            framework._GROUP.instances = {}  # as framework.run_group: the group's tasks share their instance
            try:
                for t in g:
                    c = time.process_time()
                    point = framework.call_task(t.func, t.kwargs)
                    rows.append({"key": t.key, "name": t.name, "label": t.label, "checks": owners[t.key],
                                 "family": family[owners[t.key][0]], "cpu": time.process_time() - c,
                                 "wall": point["seconds"], "error": point.get("error")})
            finally:
                framework._GROUP.instances = None
    with open(out_path, "w") as f:
        json.dump({"tier": tier.name, "setup_cpu": setup_cpu, "rows": rows}, f)
    by: dict[str, list] = defaultdict(lambda: [0, 0.0])
    for r in rows:
        by[r["family"]][0] += 1
        by[r["family"]][1] += r["cpu"]
    print(f"{len(rows)} tasks, {sum(r['cpu'] for r in rows):.1f} CPU s, {sum(1 for r in rows if r['error'])} errors; "
          f"collecting them {setup_cpu:.2f} CPU s")
    for fam, (n, cpu) in sorted(by.items(), key=lambda kv: -kv[1][1]):
        print(f"  {fam:12s} {n:5d} tasks {cpu:8.1f} CPU s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
