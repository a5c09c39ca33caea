"""Benchmarks: one APAPC iteration and one communication round at n = 400 nodes, 10⁶ variables.

They run as plain tests by default (``pytest.ini``/``pyproject`` passes
``--benchmark-disable``: each benchmarked call runs once and its counts are
checked); time them with ``--benchmark-enable``.  ``python tests/test_bench_solvers.py``
prints the ratio of the solver's time to the time of the bare scipy/numpy
operations it counts (process CPU time, minimum over repeats).
"""

from __future__ import annotations

import time

import numpy as np
import pytest
import scipy.sparse as sp

from mixbounds.instances import Layout, MixedProblem, QuadraticObjective
from mixbounds.instances.graphs import erdos_renyi_adjacency, grid_adjacency, laplacian
from mixbounds.solvers import ORACLES, APAPCParameters, Reformulation, apapc

#: benchmark size: n nodes × d̃ shared coordinates = 10⁶ variables
N_NODES, DIM = 400, 2500


def consensus_problem(W, dt=DIM, seed=0) -> MixedProblem:
    """Consensus problem with diagonal quadratic f_i (κ_f = 10) on the gossip matrix ``W``."""
    n = W.shape[0]
    rng = np.random.default_rng(seed)
    lay = Layout((0,) * n, dt)
    Q = [sp.diags(rng.uniform(1.0, 10.0, dt)) for _ in range(n)]
    q = [rng.standard_normal(dt) for _ in range(n)]
    return MixedProblem(W, QuadraticObjective(Q, q, lay, L=10.0, mu=1.0), lay)


def one_iteration_runner(R: Reformulation, u: np.ndarray, iterations: int = 1):
    lo, hi = R.interval
    params = APAPCParameters.rule(R.L_G, R.mu_G, hi, lo)
    zero = np.zeros(R.problem.layout.size)

    def run():
        return apapc(grad_G=R.grad_G, apply_BtB=R.apply_normal, Btb=R.normal_rhs, w0=u, params=params,
                     error=lambda w: R.sq_distance(w, zero), snapshot=R.orc.snapshot,
                     eps=1e-300, max_iter=iterations)
    return run


@pytest.fixture(scope="module")
def big():
    W = laplacian(grid_adjacency(20, 20))  # n = 400
    P = consensus_problem(W)
    assert P.n >= 300 and P.layout.size >= 10**6
    R = Reformulation(P)
    u = np.random.default_rng(1).standard_normal(P.layout.size)
    return P, R, u


@pytest.mark.benchmark
def test_bench_communication_round(benchmark, big):
    """One round of the solver's gossip: a step of the Chebyshev polynomial P_W(W) on (n, d̃) states."""
    P, R, u = big
    K = R.degrees()["K_t"]
    Y = u.reshape(P.n, -1)
    before = R.orc.snapshot()["comm"]
    out = benchmark(R.apply_normal, u)  # K rounds
    rounds = R.orc.snapshot()["comm"] - before
    assert out.shape == u.shape and np.all(np.isfinite(out))
    assert rounds % K == 0 and rounds >= K
    benchmark.extra_info.update(rounds_per_call=K, nodes=P.n, variables=P.layout.size)
    assert np.allclose(R.orc.comm(Y), P.W @ Y)


@pytest.mark.benchmark
def test_bench_bare_gossip(benchmark, big):
    """The bare operation a round counts: ``W @ Y`` with scipy (the denominator of the ratio)."""
    P, _, u = big
    Y = u.reshape(P.n, -1)
    out = benchmark(lambda: P.W @ Y)
    assert out.shape == Y.shape


@pytest.mark.benchmark
def test_bench_apapc_iteration(benchmark, big):
    """One APAPC iteration: 1 grad round + K_t communication rounds, all counted."""
    P, R, u = big
    run = one_iteration_runner(R, u)
    before = np.array([R.orc.snapshot()[k] for k in ORACLES])
    res = benchmark(run)
    assert res.iterations == 1 and np.all(np.isfinite(res.x))
    per = np.diff(res.history_counts, axis=0)[0]
    assert per[ORACLES.index("grad")] == 1 and per[ORACLES.index("comm")] == R.degrees()["K_t"]
    after = np.array([R.orc.snapshot()[k] for k in ORACLES])
    assert np.all(after >= before + per)


# ---------------------------------------------------------------------- ratio script
def _min_time(f, repeats: int) -> float:
    best = np.inf
    for _ in range(repeats):
        t = time.process_time()
        f()
        best = min(best, time.process_time() - t)
    return best


def measure_ratios(repeats: int = 5) -> list[dict]:
    """Solver time per communication round and per iteration over the bare counted operations."""
    from helpers import ring_laplacian

    graphs = {
        "ring (3 nnz/row)": ring_laplacian(N_NODES),
        "grid 20x20 (≈5 nnz/row)": laplacian(grid_adjacency(20, 20)),
        "Erdős–Rényi p=0.02 (≈9 nnz/row)": laplacian(erdos_renyi_adjacency(N_NODES, 0.02, 1)),
    }
    rows = []
    for name, W in graphs.items():
        P = consensus_problem(W)
        R = Reformulation(P)
        K = R.degrees()["K_t"]
        u = np.random.default_rng(1).standard_normal(P.layout.size)
        Y = u.reshape(P.n, -1)
        Wm, Qm, q = P.W, P.objective.Q, P.objective.q

        def bare_rounds():
            v = Y
            for _ in range(K):
                v = Wm @ v

        def bare_iteration():
            Qm @ u - q
            bare_rounds()

        run1, run3 = one_iteration_runner(R, u, 1), one_iteration_runner(R, u, 3)
        t_bare_round = _min_time(bare_rounds, repeats) / K
        t_round = _min_time(lambda: R.apply_normal(u), repeats) / K
        t_bare_iter = _min_time(bare_iteration, repeats)
        t_iter = (_min_time(run3, repeats) - _min_time(run1, repeats)) / 2
        rows.append({"graph": name, "K": K, "bare_round_ms": 1e3 * t_bare_round, "round_ms": 1e3 * t_round,
                     "round_ratio": t_round / t_bare_round, "bare_iter_ms": 1e3 * t_bare_iter,
                     "iter_ms": 1e3 * t_iter, "iter_ratio": t_iter / t_bare_iter})
    return rows


if __name__ == "__main__":  # pragma: no cover
    import os
    import sys

    sys.path.insert(0, os.path.dirname(__file__))
    for r in measure_ratios():
        print(f"{r['graph']:32s} K={r['K']:4d}  round {r['round_ms']:.2f} ms vs bare W@Y {r['bare_round_ms']:.2f} ms "
              f"-> {r['round_ratio']:.2f};  iteration {r['iter_ms']:.1f} ms vs bare {r['bare_iter_ms']:.1f} ms "
              f"-> {r['iter_ratio']:.2f}")
