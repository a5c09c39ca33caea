"""Max-type split chains for Tables 3–4's matrix and communication bounds (checks/lower/max_split.py, issue 47 item 1):
the TV chain's gap, the links an accuracy needs, the engine's rounds against the closed form, the verdicts and the
controls."""

import math

import numpy as np
import pytest
from mixbounds.checks.lower import max_split as ms
from mixbounds.checks.lower.arrival import arrival_path, consensus_comm
from mixbounds.checks.lower.engine import Engine
from mixbounds.checks.tiers import QUICK
from mixbounds.instances.families import build
from mixbounds.instances.nonsmooth import qp_interior_point
from mixbounds.instances.realized import realized_kappas
from scipy.optimize import minimize

#: the interior-point and SLSQP solves of the TV chain reach its optimum to ~1e-9 (their own tolerances 1e-11, 1e-12)
SOLVE_ATOL = 1e-6
#: T(x)'s log-slope over x = 1e4…1e6: g(T) = 2T + O(√T), so the slope exceeds 1 by O(1/√T) ≈ 1.4e-3 there
LINEAR_SLOPE_TOL = 5e-3


def _tv_qp(T: int, gamma: float, mu: float, support: int):
    """min γ(−w_1 + Σ_{k<T}|w_k − w_{k+1}|) + μ/2‖w‖² over w supported on {1..support}, as a QP in (w, p, q >= 0)."""
    m = support
    n_links = T - 1
    nx = T + 2 * n_links
    H = np.zeros((nx, nx))
    H[:T, :T] = mu * np.eye(T)
    c = np.zeros(nx)
    c[0] = -gamma
    c[T:] = gamma
    rows = []
    for k in range(n_links):  # w_k − w_{k+1} − p_k + q_k = 0
        r = np.zeros(nx)
        r[k], r[k + 1], r[T + k], r[T + n_links + k] = 1.0, -1.0, -1.0, 1.0
        rows.append(r)
    for j in range(m, T):  # outside the support
        r = np.zeros(nx)
        r[j] = 1.0
        rows.append(r)
    A = np.array(rows)
    res = qp_interior_point(H, c, A, np.zeros(A.shape[0]), np.arange(T, nx))
    assert res["converged"]
    x = res["x"]
    return 0.5 * x @ H @ x + c @ x


@pytest.mark.parametrize("T", [4, 7])
def test_tv_chain_strongly_convex_gap_is_gamma2_over_2muT_and_shorter_supports_reach_nothing(T):
    gamma, mu = 1.3, 0.7
    assert _tv_qp(T, gamma, mu, T) == pytest.approx(-gamma ** 2 / (2 * mu * T), abs=SOLVE_ATOL)
    for m in (1, T // 2, T - 1):
        assert _tv_qp(T, gamma, mu, m) == pytest.approx(0.0, abs=SOLVE_ATOL)


def test_tv_chain_on_the_ball_has_minimum_minus_gamma_R_over_sqrt_T():
    T, gamma, R = 5, 1.0, 2.0

    def solve(m):
        # variables (w, s): min γ(−w_1 + Σ s_k), s_k >= ±(w_k − w_{k+1}), ‖w‖² <= R², w_j = 0 beyond m
        cons = [{"type": "ineq", "fun": lambda z, k=k, sg=sg: z[T + k] - sg * (z[k] - z[k + 1])}
                for k in range(T - 1) for sg in (1.0, -1.0)]
        cons.append({"type": "ineq", "fun": lambda z: R ** 2 - z[:T] @ z[:T]})
        cons += [{"type": "eq", "fun": lambda z, j=j: z[j]} for j in range(m, T)]
        r = minimize(lambda z: gamma * (-z[0] + z[T:].sum()), np.full(2 * T - 1, 0.1), constraints=cons,
                     method="SLSQP", options={"ftol": 1e-12, "maxiter": 500})
        return r.fun

    assert solve(T) == pytest.approx(-gamma * R / math.sqrt(T), abs=SOLVE_ATOL)
    assert solve(T - 1) == pytest.approx(0.0, abs=SOLVE_ATOL)


@pytest.mark.parametrize("table", [3, 4])
def test_links_needed_are_the_largest_T_below_x_and_grow_linearly(table):
    g = ms._G[table]
    for x in (9.0, 30.0, 1e3, 3.3e4):
        T = ms.indices_needed(table, x)
        assert g(T) < x <= g(T + 1)
    slope = math.log(ms.indices_needed(table, 1e6) / ms.indices_needed(table, 1e4)) / math.log(100)
    assert slope == pytest.approx(1.0, abs=LINEAR_SLOPE_TOL)
    assert ms.asymptotic_exponent(table) == pytest.approx(1.0, abs=1e-5)


@pytest.mark.parametrize("fam, kw", sorted({(f, tuple(sorted(k.items()))) for f, k in ms.SOURCES.values()}))
def test_engine_rounds_equal_the_closed_form_on_every_source(fam, kw):
    p = ms.max_split_point(fam, dict(dict(kw), kappa_W=100.0, kappa_f=10.0, kappa_b=100.0, chain=40)
                           if fam == "block-split" else dict(dict(kw), kappa_W=100.0, kappa_f=10.0, chain=40), [3, 20, 40])
    assert p["matched"] == p["total"] > 0
    R, h = p["rounds_per_hop"], p["hop"]
    assert p["counts"] == {"3": R * h, "20": R * h * 18, "40": R * h * 38}


@pytest.mark.parametrize("fam, kw", [("coupled-grad", dict(kappa_A=10)), ("shared-grad", dict(kappa_Ct=10)),
                                     ("coupled-local-grad", dict(kappa_C=10, kappa_AC=10, variant="shared-rows-incidence")),
                                     ("mixed-grad", dict(kappa_AC=10, kappa_Ct=10, variant="cited"))])
def test_the_classes_own_constructions_with_the_split_chain_take_the_network_splits_rounds(fam, kw):
    """The network split stands for each class's construction with the chain added (the split-gradient variants):
    on those, the chain's first rounds under communication are the same consensus formula."""
    inst = build(fam, kappa_W=100, kappa_f=10, eps=1e-3, gradient="split", **kw)
    P, gc = inst.problem, inst.params["gradient_chain"]
    eng = Engine(P, np.ones(P.layout.size))
    r = eng.reach("comm")
    K, n = gc["length"], P.n
    X, Xt = r[: eng.base_t].reshape(n, -1), r[eng.base_t: eng.base_y].reshape(n, -1)
    w = Xt[:, -K:] if gc["in_shared"] else np.stack([X[i, gc["offset"][i]: gc["offset"][i] + K] for i in range(n)])
    h, d1, _, b1, b3 = arrival_path(inst.params["groups"], n)
    assert np.array_equal(w, consensus_comm(K, h, d1, b1, b3))


@pytest.fixture(scope="module")
def quick_points():
    run = {}
    for check in ms.checks():
        for t in check.tasks(QUICK):
            run[t.key] = t.func(**t.kwargs)
    return run


def test_every_table_3_4_matrix_and_communication_cell_reaches_the_printed_exponent(quick_points):
    results = [r for check in ms.checks() if not check.id.startswith("control.")
               for r in check.finalize(QUICK, quick_points)]
    assert {r.cell for r in results} == {c.id for t in (3, 4) for c in ms.cells(t)}
    for r in results:
        assert r.status == "pass", r.detail
        assert r.extra["gap"] == pytest.approx(0.0, abs=1e-4)


def test_max_split_controls_fail(quick_points):
    for check in ms.controls():
        (r,) = check.finalize(QUICK, quick_points)
        assert r.status == "fail", (check.id, r.detail)


#: realized κ's of two computations on matrices with the same spectrum (Lanczos or dense, to their tolerances)
REALIZED_RTOL = 1e-6


@pytest.mark.parametrize("fam, kw", sorted({(f, tuple(sorted(k.items()))) for f, k in ms.SOURCES.values()}))
def test_realized_kappas_of_the_two_coordinate_chain_are_the_instances(fam, kw):
    inst = build(fam, kappa_W=30.0, kappa_f=10.0, chain=40, **dict(kw))
    direct = realized_kappas(inst.problem)
    assert set(direct) == set(inst.realized)
    for k, v in direct.items():
        assert inst.realized[k] == pytest.approx(v, rel=REALIZED_RTOL), k
