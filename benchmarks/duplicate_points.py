"""Points a verify run computes twice (issue 49, item 4): by task key, and by equivalent instance + solver runs.

Usage (suite virtualenv active)::

    python benchmarks/duplicate_points.py RUN_DIR [--tier quick] [--claims GLOB]

Plans the tier's tasks as ``mixbounds verify`` does (default ``--claims '*'``) and reads the run's recorded task
seconds and groups (``RUN_DIR/results.json``, ``stats``), then prints

* tasks of the same key planned by several checks (the framework runs each key once: listed to show the sharing);
* instances (``family`` + ``params`` of a task) built in more than one task group (each group builds its instance
  once, in one process): the instance builds and reference solves done twice;
* tasks of the same function, instance and method under different keys, with the keyword arguments that differ
  (equivalent runs, if those differences do not change what is computed) and their recorded seconds.
"""

from __future__ import annotations

import argparse
import collections
import json
from pathlib import Path

from mixbounds.checks.registry import all_checks
from mixbounds.checks.tiers import tier_by_name

from mixbounds.verify import parse_globs, select_checks


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", help="a mixbounds verify --out directory of the same tier and code")
    ap.add_argument("--tier", default="quick")
    ap.add_argument("--claims", default="*")
    args = ap.parse_args()
    tier = tier_by_name(args.tier)
    stats = json.loads((Path(args.run) / "results.json").read_text())["stats"]
    secs, groups = stats["task_seconds"], stats["task_groups"]
    group_of = {k: i for i, g in enumerate(groups) for k in g}
    owners, tasks = collections.defaultdict(list), {}
    for c in select_checks(all_checks(), parse_globs(args.claims), tier):
        for t in c.tasks(tier):
            owners[t.key].append(c.id)
            tasks.setdefault(t.key, t)
    shared = {k: ids for k, ids in owners.items() if len(set(ids)) > 1}
    print(f"{len(tasks)} tasks planned, {sum(1 for k in tasks if k in secs)} recorded in the run; "
          f"{len(shared)} keys planned by several checks (run once each)")
    inst, same = collections.defaultdict(set), collections.defaultdict(list)
    for k, t in tasks.items():
        kw = t.kwargs
        if "family" in kw and "params" in kw:
            where = (kw["family"], json.dumps(kw["params"], sort_keys=True))
            inst[where].add(group_of.get(k))
            same[(t.name, *where, kw.get("method"))].append(k)
    twice = {i: g for i, g in inst.items() if len(g) > 1}
    print(f"{len(inst)} instances (family + params); built in more than one group: {len(twice)}")
    for (fam, params), g in sorted(twice.items()):
        print(f"  {fam} {params}: groups {sorted(x for x in g if x is not None)}")
    alike = {x: ks for x, ks in same.items() if len(ks) > 1}
    total = sum(secs.get(k, 0.0) for ks in alike.values() for k in ks[1:])
    print(f"same function, instance and method under different keys: {len(alike)} sets, {total:.1f} s beyond the "
          "first of each")
    for (name, fam, _, method), ks in sorted(alike.items(), key=lambda kv: -sum(secs.get(k, 0.0) for k in kv[1])):
        a = tasks[ks[0]].kwargs
        diff = sorted({kk for k in ks[1:] for kk, v in tasks[k].kwargs.items() if a.get(kk) != v})
        print(f"  {name.split(':')[-1]} {fam} {method}: {len(ks)} tasks differing in {', '.join(diff)}; seconds "
              + ", ".join(f"{secs.get(k, 0.0):.2f}" for k in ks))


if __name__ == "__main__":
    main()
