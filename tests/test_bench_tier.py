"""Benchmark of one quick-tier subset end to end (issue 38, item 5): ``mixbounds verify --tier quick --claims
'T1.consensus.*' --jobs 1 --no-plots --no-cache``, through :func:`mixbounds.verify.run` — selection, the sweep points
(APAPC runs, the lower-bound engine's exact counts, the tightness runs), the verdicts, the controls and the report.

The consensus row is the smallest of Table 1 that exercises every kind of check of a cell; one process, so the time
does not depend on the number of cores.  As every benchmark of the suite (``pyproject.toml``:
``--benchmark-disable``), the default run calls it once and checks its verdicts; ``--benchmark-enable`` times it.
Nothing here asserts a time.
"""

from __future__ import annotations

import json

import pytest
from mixbounds.checks.run.document import EXIT_OK
from mixbounds.checks.tiers import QUICK

from mixbounds.verify import Options, run

SUBSET = "T1.consensus.*"
#: rounds when timed (each ~10 s on an idle 2-core machine)
ROUNDS = 3


@pytest.mark.benchmark(group="quick-tier-subset")
def test_bench_quick_tier_consensus(benchmark, tmp_path, capsys):
    outs = iter(range(ROUNDS + 1))

    def once():
        out = tmp_path / f"run{next(outs)}"
        rc = run(Options(tier=QUICK, claims=SUBSET, jobs=1, out=out, plots=False, cache=False,
                         command=f"mixbounds verify --claims '{SUBSET}' --jobs 1 --no-plots --no-cache"))
        return rc, json.loads((out / "results.json").read_text())

    rc, doc = benchmark.pedantic(once, rounds=ROUNDS if benchmark.enabled else 1, iterations=1)
    capsys.readouterr()
    assert rc == EXIT_OK
    mine = [c for c in doc["claims"] if not c.get("control")]
    cells = [c for c in mine if c["id"].startswith("T1.consensus.")]
    assert cells and {c["status"] for c in mine} == {"pass"}  # with the guards verify adds (audits, tolerances)
    assert doc["controls"]["caught"] == doc["controls"]["total"] > 0
    benchmark.extra_info.update(claims=SUBSET, results=len(mine), cell_results=len(cells), points=doc["stats"]["computed"], jobs=1)
