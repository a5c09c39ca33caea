#!/bin/sh
# Time the benchmarks of issue 38 (mixbounds solve's phases at 10^4 and 10^5 variables, figure drawing, a quick-tier
# subset end to end) and write the pytest-benchmark JSON the docs' results page 'timed benchmarks' reads: docs/data/pytest-benchmark.json (or $1).
# Run it on an idle machine from the repository root, in the suite's virtualenv:
#   sh benchmarks/run_benchmarks.sh                 # ~3 minutes
#   MIXBOUNDS_BENCH_RESULTS=path/to/results.json sh benchmarks/run_benchmarks.sh   # + that run's figures
set -eu
out="${1:-docs/data/pytest-benchmark.json}"
mkdir -p "$(dirname "$out")"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
uptime
# -n 0 --dist no: one process (pyproject's addopts run 2 workers, under which pytest-benchmark disables its timings)
python -m pytest -q -p no:randomly -n 0 --dist no tests/test_bench_solve.py tests/test_bench_tier.py --benchmark-enable --benchmark-json="$out" \
    --benchmark-columns=min,median,max,rounds --benchmark-sort=name
uptime
echo "wrote $out"
