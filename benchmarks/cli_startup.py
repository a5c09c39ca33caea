"""The command line's start-up against ``python -c "import numpy"`` on the same machine, in one run (issue 49).

Usage (suite virtualenv active; an idle machine for numbers anyone should quote)::

    python benchmarks/cli_startup.py [REPEATS]

Runs, interleaved and ``REPEATS`` times each (default 5), a fresh interpreter for ``import numpy``, for
``mixbounds --help`` and for every ``mixbounds <cmd> --help``, and prints the median wall of each and its ratio to
the numpy baseline (the target of ``mixbounds --help``: <= 2.5), with the load average before and after.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

COMMANDS = ("table", "verify", "plot", "instance", "report", "bench", "solve")


def wall(argv: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main(repeats: int) -> None:
    py = sys.executable
    cases = {"import numpy": [py, "-c", "import numpy"], "mixbounds --help": [py, "-m", "mixbounds", "--help"]}
    cases.update({f"mixbounds {c} --help": [py, "-m", "mixbounds", c, "--help"] for c in COMMANDS})
    print(f"load average before: {os.getloadavg()}")
    times: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(repeats):
        for name, argv in cases.items():
            times[name].append(wall(argv))
    print(f"load average after:  {os.getloadavg()}")
    base = statistics.median(times["import numpy"])
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"{name:28s} median {med:.3f} s  ({med / base:.2f}× import numpy)  runs: "
              + " ".join(f"{t:.3f}" for t in ts))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
