"""Medians per (instance directory, tree, phase) of the JSON lines benchmarks/remeasure.sh writes."""

import json
import statistics
import sys
from collections import defaultdict

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
acc = defaultdict(list)
for r in rows:
    for phase, v in r.items():
        if isinstance(v, dict) and "wall" in v:
            acc[(r["dir"], r["tree"], phase)].append((v["wall"], v["cpu"]))
print(f"{'instance':32s} {'tree':4s} {'phase':10s} {'wall s':>8s} {'cpu s':>8s}  runs")
for (d, tree, phase), vs in sorted(acc.items()):
    print(f"{d:32s} {tree:4s} {phase:10s} {statistics.median(w for w, _ in vs):8.3f} "
          f"{statistics.median(c for _, c in vs):8.3f}  {len(vs)}")
