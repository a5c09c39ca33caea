#!/bin/sh
# Re-measure issue 38's solve numbers on an idle machine: mixbounds solve end to end at 10^4, 10^5 and 10^6 variables
# (random-coupled, d = 100, m = 5, kappa_f = kappa_A = 10, ER graph, eps = 1e-6), its phases, old code against new,
# interleaved, one BLAS thread.  Usage (repository root, suite virtualenv active):
#   sh benchmarks/remeasure.sh OLD_PYTHON NEW_PYTHON [DATA_DIR] [REPEATS]
# (SIZES="100 1000" to choose the node counts n: 10^4 and 10^5 variables; default "100 1000 10000")
# OLD_PYTHON / NEW_PYTHON: the python of a virtualenv with the old / new tree installed (pip install -e .), e.g. a
# worktree of e1be67c.  DATA_DIR (default ./perf-data) receives the instance directories, built once by the NEW tree
# (the old tree reads them too: it ignores their "spectra" record).  Prints one JSON line per run
# (benchmarks/solve_phases.py: import, load, checks, setup, iterations, total; wall and CPU seconds), then medians.
set -eu
old="$1"; new="$2"; data="${3:-perf-data}"; reps="${4:-5}"
here="$(cd "$(dirname "$0")" && pwd)"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
mkdir -p "$data"
sizes="${SIZES:-100 1000 10000}"
for n in $sizes; do
  for fmt in npz mtx; do
    [ "$n" = 10000 ] && [ "$fmt" = mtx ] && continue  # 10^4 Matrix Market files per group: see the README
    d="$data/rc-$n-$fmt"
    [ -f "$d/instance.json" ] || "$new" -m mixbounds instance random-coupled --n "$n" --d 100 --m 5 --kappa-f 10 \
        --kappa-A 10 --graph er --format "$fmt" --out "$d" >/dev/null
  done
done
uptime
log="$data/remeasure-$(date +%Y%m%d-%H%M%S).jsonl"
for r in $(seq "$reps"); do
  for d in $(for n in $sizes; do for fmt in npz mtx; do [ -d "$data/rc-$n-$fmt" ] && echo "$data/rc-$n-$fmt"; done; done); do
    for which in old new; do
      py=$old; [ "$which" = new ] && py=$new
      "$py" "$here/solve_phases.py" "$d" --eps 1e-6 | "$py" -c "import json,sys; d=json.load(sys.stdin); d.pop('stdout'); \
d.update(tree='$which', dir='$d', rep=$r); print(json.dumps(d))" | tee -a "$log"
    done
  done
done
uptime
"$new" "$here/phase_medians.py" "$log"
