"""A machine calibration measured in the run itself, so that its timings can be compared across machines.

The same code's quick tier ran 78 s on one 2-core machine and 228 s on another (issue 49): an absolute number of
seconds says as much about the machine, and its load at the time, as about the code.  Every run that records timings
also records :func:`calibrate` — the seconds this process took for one fixed reference workload of the kind the
suite spends its time on — so a timing ``t`` can be read as ``t / calibration_seconds`` *calibration units*: how
many reference workloads the same machine did in that time, comparable between machines (and loads) to the
extent that the run's time is spent like the workload's.

The workload (:data:`WORKLOAD`, fixed: the same on every machine, ~1 s on the developers' 2-core machine):

* **sparse products**: a Chebyshev-type recurrence ``y_{k+1} = 2 M y_k − y_{k−1}`` (normalised every step) with a
  fixed CSR matrix ``M`` — the path Laplacian of :data:`SPMV_ROWS` nodes, Kronecker a 5-point stencil block, as the
  solvers' ``W ⊗ I`` and constraint products are — :data:`SPMV_STEPS` products;
* **small Python-loop steps**: the same recurrence on a 32-node block, :data:`LOOP_STEPS` steps, where the
  interpreter's per-step overhead dominates (APAPC's per-iteration bookkeeping on small instances, the lower-bound
  engine's loops).

Each part runs once after one untimed warm-up of a tenth of it; the seconds are the process's wall clock with one
BLAS thread, as the suite's workers run.
"""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

#: rows of the path Laplacian and of the stencil block the product part multiplies by (``M`` has
#: ``SPMV_ROWS · STENCIL`` rows and about 7 nonzeros per row)
SPMV_ROWS = 4000
STENCIL = 50
#: products of the sparse part and steps of the small-loop part
SPMV_STEPS = 400
LOOP_STEPS = 50_000
#: the loop part's block size
LOOP_SIZE = 32
#: what the workload is (recorded with the seconds, so a reader knows which workload the units refer to)
WORKLOAD = (f"v1: {SPMV_STEPS} CSR products with a {SPMV_ROWS * STENCIL}-row path ⊗ stencil matrix, and "
            f"{LOOP_STEPS} Python-loop recurrence steps on {LOOP_SIZE} entries")


def _laplacian(n: int) -> sp.csr_matrix:
    main = np.full(n, 2.0)
    main[[0, -1]] = 1.0
    return sp.diags([main, -np.ones(n - 1), -np.ones(n - 1)], [0, -1, 1], format="csr")


def _matrix() -> sp.csr_matrix:
    """``(L_path ⊗ I + I ⊗ L_stencil) / 8``: spectrum in [0, 1], a product pattern like the solvers' ``W ⊗ I``."""
    Lp, Ls = _laplacian(SPMV_ROWS), _laplacian(STENCIL)
    M = sp.kron(Lp, sp.identity(STENCIL), format="csr") + sp.kron(sp.identity(SPMV_ROWS), Ls, format="csr")
    return (M / 8.0).tocsr()


def _recurrence(M, steps: int) -> float:
    y0 = np.linspace(-1.0, 1.0, M.shape[0])
    y1 = M @ y0
    for _ in range(steps):
        y0, y1 = y1, 2.0 * (M @ y1) - y0
        s = float(np.abs(y1).max())
        if s > 1.0:
            y0, y1 = y0 / s, y1 / s
    return float(y1[0])


def calibrate() -> dict:
    """``{"seconds": …, "spmv_seconds": …, "loop_seconds": …, "workload": WORKLOAD}``: this process's seconds for
    the reference workload (module docstring), measured now."""
    M_big, M_small = _matrix(), _laplacian(LOOP_SIZE) / 4.0
    with threadpool_limits(limits=1):
        _recurrence(M_big, SPMV_STEPS // 10)
        t0 = time.perf_counter()
        _recurrence(M_big, SPMV_STEPS)
        t1 = time.perf_counter()
        _recurrence(M_small, LOOP_STEPS // 10)
        t2 = time.perf_counter()
        _recurrence(M_small, LOOP_STEPS)
        t3 = time.perf_counter()
    spmv, loop = t1 - t0, t3 - t2
    return {"seconds": spmv + loop, "spmv_seconds": spmv, "loop_seconds": loop, "workload": WORKLOAD}


def calibration_stats(cal: dict) -> dict:
    """The keys a run's statistics record (``results.json``'s and ``bench.json``'s ``stats``): ``calibration_seconds``
    and ``calibration`` (the parts and the workload's description)."""
    return {"calibration_seconds": cal["seconds"], "calibration": dict(cal)}


def in_units(seconds, calibration_seconds) -> float | None:
    """``seconds`` in calibration units (``None`` when either is missing or the calibration is not positive)."""
    if not isinstance(seconds, (int, float)) or not isinstance(calibration_seconds, (int, float)):
        return None
    return float(seconds) / float(calibration_seconds) if calibration_seconds > 0 else None
