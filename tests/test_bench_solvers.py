"""Benchmarks: one APAPC iteration and one communication round at n = 400 nodes, 10⁶ variables;
the APAPC loop against its bare counted operations on coupled and mixed problems of 10⁵–10⁶ variables.

They run as plain tests by default (``pytest.ini``/``pyproject`` passes
``--benchmark-disable``: each benchmarked call runs once and its counts are
checked); time them with ``--benchmark-enable``.  ``python tests/test_bench_solvers.py``
prints the ratio of the solver's time to the time of the bare scipy/numpy
operations it counts (process CPU time, minimum over repeats); ``python tests/test_bench_solvers.py
coupled-1e5 coupled-1e6 mixed-1e5`` the same for the loop on the big cases.  The big-case benchmarks
are skipped unless ``--benchmark-enable`` is given (building 10⁶ variables is not for the default run).
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


# ---------------------------------------------------------------------- coupled and mixed classes (issue 19)
#: vector passes over the whole APAPC state per iteration (``mixbounds.solvers.apapc``: u_g 2, d 1, u^{k+1/2} 3, Bᵀb 1,
#: z 1, u^{k+1} 1, u_f 3, the error's difference and dot 2)
APAPC_VECTOR_PASSES = 14
#: vector passes per Chebyshev step (two in-place BLAS passes, ``mixbounds.solvers.chebyshev``), plus two per application
CHEB_VECTOR_PASSES_PER_STEP, CHEB_VECTOR_PASSES_PER_APPLY = 2, 2
#: pytest-benchmark rounds of the big cases (minimum reported): 3 rounds left the 10⁶ ratio between 1.21 and 1.37
#: from one run to the next on an idle 2-core machine
BENCH_ROUNDS = 7
#: the issue's loop / bare-operations target (reported by the script, never asserted: no timing in unit tests)
LOOP_RATIO_TARGET = 1.3
#: (nodes, d, d̃, m, p, p̃): the 10⁵-variable coupled instance of issue 19, its 10⁶ version, and a mixed one
BIG_CASES = {
    "coupled-1e5": (1000, 100, 0, 5, 0, 0),
    "coupled-1e6": (10000, 100, 0, 5, 0, 0),
    "mixed-1e5": (1000, 80, 20, 5, 2, 1),
}


def _spd(k: int, kappa: float, rng, ends: bool) -> np.ndarray:
    ev = np.exp(rng.uniform(0.0, np.log(kappa), k))
    if ends:
        ev[0], ev[-1] = 1.0, kappa
    U = np.linalg.qr(rng.standard_normal((k, k)))[0]
    return (U * ev) @ U.T


def big_problem(n: int, d: int, dt: int, m: int, p: int, pt: int, seed: int = 0) -> MixedProblem:
    """Random coupled (``dt = 0``) or mixed problem: κ_f = 10, sparse ER graph of expected degree 2 ln n,
    Gaussian A_i, C_i, C̃_i (the random families' structure without the κ tuning, which is not timed)."""
    rng = np.random.default_rng(seed)
    W = laplacian(erdos_renyi_adjacency(n, degree=2 * np.log(n), seed=seed))
    lay = Layout((d,) * n, dt)
    Q = [_spd(d + dt, 10.0, rng, i == 0) for i in range(n)]
    q = [rng.standard_normal(d + dt) for _ in range(n)]
    x0 = [rng.standard_normal(d) for _ in range(n)]
    xt0 = rng.standard_normal(dt)
    A = [rng.standard_normal((m, d)) / np.sqrt(d) for _ in range(n)]
    kw = {"A": A, "b": [A[i] @ x0[i] for i in range(n)]}
    if p:
        C = [rng.standard_normal((p, d)) / np.sqrt(d) for _ in range(n)]
        kw.update(C=C, c=[C[i] @ x0[i] for i in range(n)])
    if pt:
        Ct = [rng.standard_normal((pt, dt)) / np.sqrt(dt) for _ in range(n)]
        kw.update(Ct=Ct, ct=[Ci @ xt0 for Ci in Ct])
    return MixedProblem(W, QuadraticObjective(Q, q, lay, L=10.0, mu=1.0), lay, **kw)


def bare_iteration(R: Reformulation, u: np.ndarray):
    """``u``: a u-layout point.  The counted operations of one APAPC iteration as bare scipy CSR products, and the same plus the
    vector passes the loop and its Chebyshev recurrences need (the two denominators of the ratio).

    Products per iteration (``Reformulation.per_iteration_counts``, checked against a measured run by
    :func:`test_bench_coupled_mixed_loop`): one ``Q u − q``; ``A`` rounds alternate ``A`` and ``Aᵀ``;
    ``comm`` rounds act on ``(n, m)`` states in the coupled block and on ``(n, d̃)`` in the shared one;
    ``C``/``C̃`` rounds alternate the block and its transpose.
    """
    P, deg = R.problem, R.degrees()
    n, m, dt = P.n, P.m, P.layout.dt
    dW = deg.get("W", 1)
    Kt = deg.get("K_t", 0)
    per = R.per_iteration_counts()
    comm_t = 2 * dW * Kt if R.t_kind == "shared" else 0
    comm_x = per["comm"] - comm_t
    Qm, q, W = P.objective.Q, P.objective.q, P.W
    bA, bAT = sp.csr_matrix(P.bA), sp.csr_matrix(P.bA.T)
    x, Y, Xt = u[: P.layout.dx], np.ones((n, m)), np.ones((n, max(dt, 1)))
    ops = [(lambda: Qm @ u - q, 1), (lambda: bA @ x, per["A"] // 2), (lambda: bAT @ Y.ravel(), per["A"] // 2),
           (lambda: W @ Y, comm_x), (lambda: W @ Xt, comm_t)]
    if P.C is not None:
        bC, bCT = sp.csr_matrix(P.bC), sp.csr_matrix(P.bC.T)
        v = np.ones(bC.shape[0])
        ops += [(lambda: bC @ x, per["C"] // 2), (lambda: bCT @ v, per["C"] // 2)]
    if P.Ct is not None:
        bCt, bCtT = sp.csr_matrix(P.bCt), sp.csr_matrix(P.bCt.T)
        vt = np.ones(bCt.shape[0])
        ops += [(lambda: bCt @ Xt.ravel(), per["Ct"] // 2), (lambda: bCtT @ vt, per["Ct"] // 2)]
    w = np.ones(R.size)
    sizes = [(b.polynomial.degree, int(np.prod(b.shape))) for b in R.blocks.values() if b.polynomial.outer]
    passes = APAPC_VECTOR_PASSES * R.size + sum((CHEB_VECTOR_PASSES_PER_STEP * K + CHEB_VECTOR_PASSES_PER_APPLY) * sz
                                                 for K, sz in sizes)
    reps = passes // R.size
    tail = passes - reps * R.size

    ops = [(f, c) for f, c in ops if c > 0]
    rounds = max(c for _, c in ops)
    # round-robin, as the loop interleaves them (the big Q product then the polynomial's A/W/C rounds), so
    # that the small products meet the caches the loop leaves them rather than a warm repeat of themselves
    schedule = [f for r in range(rounds) for f, c in ops if r * c // rounds < (r + 1) * c // rounds]

    def products():
        for f in schedule:
            f()

    def with_vectors():
        products()
        for _ in range(reps):
            np.multiply(w, 1.0000001, out=w)
        np.multiply(w[:tail], 1.0000001, out=w[:tail])

    return products, with_vectors


def _loop_runner(R: Reformulation, u: np.ndarray, iterations: int):
    return one_iteration_runner(R, R.from_u(u), iterations)


@pytest.fixture(scope="module", params=list(BIG_CASES))
def big_case(request):
    # pyproject's addopts pass --benchmark-disable; --benchmark-enable overrides it (pytest-benchmark's rule)
    if request.config.getoption("benchmark_disable") and not request.config.getoption("benchmark_enable"):
        pytest.skip("10⁵–10⁶-variable benchmark: run with --benchmark-enable (kept out of the default run)")
    P = big_problem(*BIG_CASES[request.param])
    R = Reformulation(P)
    u = np.random.default_rng(1).standard_normal(P.layout.size)
    return request.param, P, R, u


@pytest.mark.benchmark(group="apapc-loop-vs-bare")
def test_bench_coupled_mixed_loop(benchmark, big_case):
    """Five APAPC iterations on the big coupled/mixed cases; counts per iteration as the degrees imply."""
    name, P, R, u = big_case
    res = benchmark.pedantic(_loop_runner(R, u, 5), rounds=BENCH_ROUNDS, iterations=1)
    per = np.diff(res.history_counts, axis=0)
    want = R.per_iteration_counts()
    assert res.iterations == 5 and all(dict(zip(ORACLES, row)) == want for row in per)
    benchmark.extra_info.update(case=name, variables=P.layout.size, per_iteration=want,
                                W_materialized=R.info["materialized"]["W'"])


@pytest.mark.benchmark(group="apapc-loop-vs-bare")
def test_bench_coupled_mixed_bare_products(benchmark, big_case):
    """The denominators: five iterations' counted products alone (scipy CSR)."""
    name, P, R, u = big_case
    products, _ = bare_iteration(R, u)
    benchmark.pedantic(lambda: [products() for _ in range(5)], rounds=BENCH_ROUNDS, iterations=1)
    benchmark.extra_info.update(case=name)


@pytest.mark.benchmark(group="apapc-loop-vs-bare")
def test_bench_coupled_mixed_bare_with_vector_passes(benchmark, big_case):
    """… and the same with the loop's and the recurrences' vector passes."""
    name, P, R, u = big_case
    _, with_vectors = bare_iteration(R, u)
    benchmark.pedantic(lambda: [with_vectors() for _ in range(5)], rounds=BENCH_ROUNDS, iterations=1)
    benchmark.extra_info.update(case=name)


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


def measure_loop_ratios(cases=("coupled-1e5",), repeats: int = 3) -> list[dict]:
    """Per-iteration time of the APAPC loop over its bare counted products, without and with vector passes."""
    rows = []
    for name in cases:
        P = big_problem(*BIG_CASES[name])
        R = Reformulation(P)
        u = np.random.default_rng(1).standard_normal(P.layout.size)
        products, with_vectors = bare_iteration(R, u)
        run1, run4 = _loop_runner(R, u, 1), _loop_runner(R, u, 4)
        t_loop = (_min_time(run4, repeats) - _min_time(run1, repeats)) / 3
        t_prod, t_vec = _min_time(products, repeats), _min_time(with_vectors, repeats)
        rows.append({"case": name, "variables": P.layout.size, "W_materialized": R.info["materialized"]["W'"],
                     "loop_ms": 1e3 * t_loop, "bare_ms": 1e3 * t_prod, "bare_vec_ms": 1e3 * t_vec,
                     "ratio": t_loop / t_prod, "ratio_vec": t_loop / t_vec})
    return rows


if __name__ == "__main__":  # pragma: no cover
    import os
    import sys

    sys.path.insert(0, os.path.dirname(__file__))
    if len(sys.argv) > 1:
        for r in measure_loop_ratios(sys.argv[1:]):
            print(f"{r['case']:12s} {r['variables']} variables, W' materialised: {r['W_materialized']}: loop "
                  f"{r['loop_ms']:.2f} ms/iteration; bare products {r['bare_ms']:.2f} ms -> {r['ratio']:.2f}; "
                  f"with vector passes {r['bare_vec_ms']:.2f} ms -> {r['ratio_vec']:.2f} (target <= {LOOP_RATIO_TARGET})")
        sys.exit(0)
    for r in measure_ratios():
        print(f"{r['graph']:32s} K={r['K']:4d}  round {r['round_ms']:.2f} ms vs bare W@Y {r['bare_round_ms']:.2f} ms "
              f"-> {r['round_ratio']:.2f};  iteration {r['iter_ms']:.1f} ms vs bare {r['bare_iter_ms']:.1f} ms "
              f"-> {r['iter_ratio']:.2f}")
