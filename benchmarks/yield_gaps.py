"""The longest wait for a yield of the shipped example methods on the largest quick-tier points (the basis of
``mixbounds.methods.YIELD_TIMEOUT_S``, ``mixbounds bench --yield-timeout``).

For every class an example supports, the largest point of each quick-tier sweep (worst-case construction and random
family) is built and the method run exactly as ``mixbounds bench`` runs it (:func:`mixbounds.methods.run_method`,
settle rule, budget); the gap before each yield (the first one includes the method's set-up) is timed.  Prints one
line per point and the largest gap.  A measurement, not a test: run it on the machine in question::

    python benchmarks/yield_gaps.py            # from the checkout's root (examples/ importable)
"""

import sys
import time
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))

from mixbounds.checks.rate_measure import SETTLE  # noqa: E402
from mixbounds.checks.run.framework import instance_and_reference  # noqa: E402

from examples.apapc import apapc  # noqa: E402
from examples.papc import papc  # noqa: E402
from examples.pdgd import pdgd  # noqa: E402
from mixbounds.bench_method import method_task, plans  # noqa: E402
from mixbounds.methods import run_method  # noqa: E402

#: the iteration budget of the timed runs (the gaps of a run do not grow with its length; 20 000 iterations of PAPC
#: on the largest coupled points took most of half an hour under load)
MAX_ITER = 2_000


def gaps(method, problem, u_star) -> tuple[float, float, int]:
    """(first gap, longest gap, yields) of one run."""
    last = [time.perf_counter()]
    seen: list[float] = []

    def tick():
        now = time.perf_counter()
        seen.append(now - last[0])
        last[0] = now

    run_method(method, problem, u_star, eps=1e-6, settle=SETTLE, settle_eps=1e-6, max_iter=MAX_ITER, on_yield=tick)
    return seen[0], max(seen), len(seen)


def main() -> None:
    worst = 0.0
    for method in (apapc, papc, pdgd):
        for pl in plans("quick", method.classes):
            v = pl.sweep.grid[-1]
            kw = method_task("x:y", pl.sweep, v).kwargs
            inst, ref = instance_and_reference(kw["family"], kw["params"])
            first, longest, n = gaps(method, inst.problem, ref.u)
            worst = max(worst, longest)
            print(f"{method.__name__:6s} {pl.sweep.family:16s} {pl.sweep.param:8s}={v:7.1f} "
                  f"size {inst.problem.layout.size:6d}: first yield {first:6.3f} s, longest gap {longest:6.3f} s, "
                  f"{n} yields", flush=True)
    print(f"longest gap between yields: {worst:.3f} s")


if __name__ == "__main__":
    main()
