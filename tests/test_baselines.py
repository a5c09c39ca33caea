"""Baselines: convergence on small instances of every class they apply to, counts against an
independent count, honest non-convergence, and the method-specific building blocks."""

import numpy as np
import pytest
from helpers import path_laplacian, random_problem, ring_laplacian, wrap_oracles
from mixbounds.instances import Layout, MixedProblem, QuadraticObjective
from mixbounds.instances.reference.kkt import reference_solution
from mixbounds.solvers import ORACLES, CountedOracles, solve
from mixbounds.solvers.baselines import BASELINES, baselines_for
from mixbounds.solvers.baselines._common import inner_agd
from mixbounds.solvers.baselines.dual_gradient import distinct_positive_eigenvalues

#: target relative squared error of the convergence tests
EPS = 1e-8
#: iteration budget of the convergence tests (generous: the instances are small and well conditioned)
BUDGET = 20_000
#: how close the final iterate must be to x* (relative squared error) — the stopping target itself
TOL_X = EPS


def _problem(cls, rng):
    """A small random problem of class ``cls`` (ring of 5 nodes)."""
    kw = {
        "consensus": dict(d=0, dt=3, coupled=False, local=False, shared=False),
        "shared": dict(d=0, dt=3, coupled=False, local=False, shared=True),
        "coupled": dict(d=3, dt=0, m=2, coupled=True, local=False, shared=False),
        "coupled_local": dict(d=3, dt=0, m=1, p=1, coupled=True, local=True, shared=False),
        "mixed": dict(d=3, dt=2, m=1, p=1, coupled=True, local=True, shared=True),
    }[cls]
    P = random_problem(rng, n=5, **kw)
    assert P.problem_class == cls
    return P


CASES = [(name, cls) for name, (_, classes, _) in BASELINES.items() for cls in classes]


@pytest.mark.parametrize("name,cls", CASES, ids=[f"{n}-{c}" for n, c in CASES])
def test_converges_and_counts_are_honest(name, cls, rng):
    P = _problem(cls, rng)
    ref = reference_solution(P)
    orc = CountedOracles(P)
    tally = wrap_oracles(orc)
    fn = BASELINES[name][0]
    res = fn(P, eps=EPS, x_star=ref.u, max_iter=BUDGET, oracles=orc)
    assert res.converged and res.reason == "tolerance", (name, cls, res.reason, res.final_error())
    d = res.x - ref.u
    assert d @ d <= TOL_X * (ref.u @ ref.u) * (1 + 1e-9)
    # counts: the record equals the independent count of products actually performed
    assert res.counts == tally, (res.counts, tally)
    assert tuple(res.history_counts[-1]) == tuple(tally[k] for k in ORACLES)
    assert res.history_counts.shape == (res.iterations + 1, len(ORACLES))
    assert np.all(np.diff(res.history_counts, axis=0) >= 0)
    assert res.history_error.shape == (res.iterations + 1,)
    assert res.history_error[0] == pytest.approx(1.0)
    assert res.history_error[-1] <= EPS
    assert res.method == name or name == "apapc-nocheb"
    # every oracle the class has is used, none it lacks
    used = {k for k, v in tally.items() if v > 0}
    assert "grad" in used and "comm" in used
    assert ("A" in used) == (P.A is not None)
    assert ("C" in used) == (P.C is not None)
    assert ("Ct" in used) == (P.Ct is not None)


@pytest.mark.parametrize("name", sorted(BASELINES))
def test_settle_stop_rule(name, rng):
    """``settle=0.5``: the run ends only once the last half of its errors are <= ``settle_eps``
    and the error has reached ``eps`` (the stop rule of the rate measurements)."""
    P = _problem(BASELINES[name][1][0], rng)
    ref = reference_solution(P)
    res = BASELINES[name][0](P, eps=1e-8, x_star=ref.u, max_iter=BUDGET, settle=0.5, settle_eps=1e-6)
    assert res.converged
    k, e = res.iterations, res.history_error
    above = np.flatnonzero(e > 1e-6)
    assert k - above[-1] >= k / 2 and e.min() <= 1e-8
    with pytest.raises(ValueError, match="settle"):
        BASELINES[name][0](P, eps=1e-8, x_star=ref.u, settle=1.5)


@pytest.mark.parametrize("name", sorted(BASELINES))
def test_budget_is_reported_not_converged(name, rng):
    cls = BASELINES[name][1][0]
    P = _problem(cls, rng)
    ref = reference_solution(P)
    res = BASELINES[name][0](P, eps=1e-12, x_star=ref.u, max_iter=3)
    assert not res.converged and res.reason == "budget"
    assert res.iterations == 3
    assert res.counts_to(1e-12) is None


#: call budget of the call-budget test (small: a few iterations of every method on the 5-node instances)
CALL_BUDGET = 40

CALL_CASES = sorted(BASELINES) + ["apapc"]


@pytest.mark.parametrize("name", CALL_CASES)
def test_call_budget_stops_at_the_first_iteration_that_reaches_it(name, rng):
    """``max_calls``: the run stops with ``reason="budget"`` after the first (outer) iteration at
    which some oracle has been called ``max_calls`` times; not before (the previous row is below)."""
    cls = BASELINES[name][1][0] if name in BASELINES else "coupled"
    P = _problem(cls, rng)
    ref = reference_solution(P)
    if name == "apapc":
        def run(**kw):
            return solve(P, method="apapc", eps=1e-12, x_star=ref.u, **kw)
    else:
        def run(**kw):
            return BASELINES[name][0](P, eps=1e-12, x_star=ref.u, **kw)
    res = run(max_iter=10**6, max_calls=CALL_BUDGET)
    assert not res.converged and res.reason == "budget"
    hc = res.history_counts
    assert hc[-1].max() >= CALL_BUDGET and hc[-2].max() < CALL_BUDGET, (hc[-2], hc[-1])
    assert res.counts_to(1e-12) is None
    # the iteration budget still applies on its own, and a bad call budget is rejected by name
    assert run(max_iter=2, max_calls=10**9).iterations == 2
    for bad in (0, -5, 2.5):
        with pytest.raises(ValueError, match="max_calls"):
            run(max_iter=10, max_calls=bad)


def test_wrong_class_is_rejected(rng):
    P = _problem("coupled", rng)
    with pytest.raises(ValueError, match="applies to problem classes"):
        BASELINES["extra"][0](P, eps=1e-6)
    assert "extra" in baselines_for("consensus") and "extra" not in baselines_for("coupled")
    assert set(baselines_for("coupled")) == {"tracking-admm", "dpmm", "dual-gradient", "apapc-nocheb"}
    assert all("apapc-nocheb" in baselines_for(c) for c in ("consensus", "shared", "coupled", "coupled_local", "mixed"))


def test_divergence_is_reported(rng):
    """EXTRA with a step above its stability bound is rejected; DIGing with a huge step diverges honestly."""
    P = _problem("consensus", rng)
    ref = reference_solution(P)
    with pytest.raises(ValueError, match="EXTRA: need"):
        BASELINES["extra"][0](P, eps=1e-8, x_star=ref.u, alpha=10.0 / P.objective.L)
    res = BASELINES["diging"][0](P, eps=1e-8, x_star=ref.u, max_iter=5000, alpha=50.0 / P.objective.L)
    assert not res.converged and res.reason in ("diverged", "non-finite")


def test_apapc_nocheb_is_solve(rng):
    P = _problem("shared", rng)
    ref = reference_solution(P)
    a = BASELINES["apapc-nocheb"][0](P, eps=1e-8, x_star=ref.u)
    b = solve(P, method="apapc-nocheb", eps=1e-8, x_star=ref.u)
    assert a.counts == b.counts and a.iterations == b.iterations


def test_finite_time_averaging_is_exact(rng):
    """P(W) = Π(I − W/λ_j) over the distinct positive eigenvalues maps R to 1 ⊗ mean(R)."""
    for W in (path_laplacian(9), ring_laplacian(8)):
        lams = distinct_positive_eigenvalues(W)
        ev = np.linalg.eigvalsh(W.toarray())
        assert lams.size == len({round(v, 8) for v in ev if v > 1e-9})
        R = rng.standard_normal((W.shape[0], 3))
        X = R.copy()
        for lj in lams:
            X = X - (W @ X) / lj
        assert np.allclose(X, np.ones((W.shape[0], 1)) * R.mean(axis=0), atol=1e-10)


def test_inner_solver_per_node_rule(rng):
    """AGD inner solver: each node reduces its own gradient by ``rel``; a node at rounding level stops at once."""
    n, d = 4, 5
    Q = [np.diag(rng.uniform(1.0, 10.0, d)) for _ in range(n)]
    q = [rng.standard_normal(d) for _ in range(n)]
    q[2] = np.zeros(d)  # node 2 starts at its minimiser
    node = np.repeat(np.arange(n), d)
    Qb = np.zeros((n * d, n * d))
    for i in range(n):
        Qb[i * d:(i + 1) * d, i * d:(i + 1) * d] = Q[i]
    qb = np.concatenate(q)
    y, steps, s0 = inner_agd(lambda z: Qb @ z - qb, np.zeros(n * d), 10.0, 1.0, node, n, rel=1e-6)
    g = Qb @ y - qb
    g0 = -qb
    for i in range(n):
        sl = slice(i * d, (i + 1) * d)
        assert np.linalg.norm(g[sl]) <= max(1e-6 * np.linalg.norm(g0[sl]), 1e-12 * s0) + 1e-300
    assert np.all(y[2 * d:3 * d] == 0.0)
    assert steps < 200


def test_msda_parameters_match_paper():
    """Scaman et al. (2017) Algorithm 2: η·λ_max(P_K(W)) = α, momentum from √(κ_l χ)."""
    from mixbounds.solvers.baselines.msda import msda_parameters

    p = msda_parameters(100.0, 1.0, 4.0, 0.04)
    assert p["K"] == 10
    assert p["eta_times_lmaxP_over_mu"] == pytest.approx(1.0)
    lo, hi = p["P_interval"]
    s = np.sqrt(100.0 * hi / lo)
    assert p["momentum"] == pytest.approx((s - 1) / (s + 1))


def test_path_graph_consensus_runs(rng):
    """A consensus problem on a path (bipartite: λ_min(M) = 0 for the mixing matrix) — EXTRA and DIGing converge."""
    n, dt = 6, 2
    lay = Layout((0,) * n, dt)
    Q = [np.diag(rng.uniform(1.0, 5.0, dt)) for _ in range(n)]
    q = [rng.standard_normal(dt) for _ in range(n)]
    P = MixedProblem(path_laplacian(n), QuadraticObjective(Q, q, lay), lay)
    ref = reference_solution(P)
    for name in ("extra", "diging", "msda"):
        res = BASELINES[name][0](P, eps=1e-8, x_star=ref.u, max_iter=BUDGET)
        assert res.converged, name
