"""Regularised APAPC (Table 2) and the shared pieces of mixbounds.solvers.regularized."""

import numpy as np
import pytest
from mixbounds.instances.families import build
from mixbounds.instances.reference.kkt import constraint_system, copy_map
from mixbounds.solvers import CountedOracles
from mixbounds.solvers.regularized import Accuracy, RegularizedObjective, counts_at, reformulate, regularized_apapc

#: relative accuracy of the regularised minimiser's gap bound (Lemma lem:regularized_convergence, ν R²/2)
GAP_RTOL = 1e-9


@pytest.fixture(scope="module")
def coupled():
    return build("convex-coupled", kappa_W=12.0, kappa_AC=15.0)


def test_accuracy_measures(coupled):
    P = coupled.problem
    acc = Accuracy(P, coupled.x_star, eps=1e-2, delta=1e-3)
    assert abs(acc.gap(coupled.x_star)) <= 1e-12
    assert acc.dist(coupled.x_star) <= 1e-10
    # a feasible direction does not change the distance; an infeasible one does
    G, h = constraint_system(P)
    E = copy_map(P).toarray()
    from scipy.linalg import null_space

    N = null_space(G.toarray())
    v = np.linalg.lstsq(E, coupled.x_star, rcond=None)[0]
    u_feas = E @ (v + N[:, 0])
    assert acc.dist(u_feas) <= 1e-9
    assert acc.dist(coupled.x_star + 0.1 * np.ones(P.layout.size)) > 0


def test_counts_go_through_the_base_oracles(coupled):
    P = coupled.problem
    orc = CountedOracles(P)
    nu = 0.1
    u0 = np.zeros(P.layout.size)
    ref = reformulate(P, orc, RegularizedObjective(P.objective, nu, u0), grad_transform=lambda u, g: g + nu * (u - u0))
    before = orc.snapshot()
    w = ref.from_u(np.ones(P.layout.size))
    ref.apply_normal(w)
    g = ref.grad_G(w)
    after = orc.snapshot()
    assert after["grad"] - before["grad"] == 1
    assert after["A"] > before["A"] and after["comm"] > before["comm"]
    assert ref.problem.objective.mu == pytest.approx(nu) and ref.problem.W is P.W
    assert g.shape == w.shape


def test_regularized_minimiser_gap_bound(coupled):
    """F(u*_ν) − F(u*) <= ν‖u⁰ − u*‖²/2 (first step of the proof of lem:regularized_convergence)."""
    P = coupled.problem
    obj = P.objective
    E = copy_map(P)
    G, h = constraint_system(P)
    R2 = float(coupled.x_star @ coupled.x_star)
    for eps in (1e-1, 1e-2, 1e-3):
        nu = eps / R2
        H = (E.T @ obj.Q @ E).toarray() + nu * (E.T @ E).toarray()
        g = E.T @ obj.q
        K = np.block([[H, G.toarray().T], [G.toarray(), np.zeros((G.shape[0],) * 2)]])
        sol = np.linalg.lstsq(K, np.concatenate([g, h]), rcond=None)[0]
        u_nu = E @ sol[: H.shape[0]]
        gap = obj.value(u_nu) - obj.value(coupled.x_star)
        assert -1e-10 <= gap <= 0.5 * eps * (1 + GAP_RTOL)


def test_regularized_apapc_reaches_eps_delta(coupled):
    P = coupled.problem
    R = float(np.linalg.norm(coupled.x_star))
    eps = P.objective.L * R * R / 50.0
    res = regularized_apapc(P, eps=eps, x_star=coupled.x_star)
    assert res.converged and res.reason == "tolerance"
    row = res.params["settled_row"]
    assert row is not None and np.all(res.history_error[row:] <= 1.0)
    assert res.params["history_gap"][row] <= eps
    assert res.params["history_dist"][row] <= res.params["delta"]
    c = counts_at(res, row)
    # one gradient round per APAPC iteration
    assert c["grad"] == row
    # per-iteration counts are those of the reformulation
    per = res.params["per_iteration_counts"]
    hc = res.history_counts
    assert np.all(np.diff(hc[:, 0]) == per["grad"])
    assert np.all(np.diff(hc[:, 1]) == per["A"]) and np.all(np.diff(hc[:, 4]) == per["comm"])
    assert res.params["nu"] == pytest.approx(eps / R ** 2)


def test_nocheb_control_costs_more_communication(coupled):
    P = coupled.problem
    R = float(np.linalg.norm(coupled.x_star))
    eps = P.objective.L * R * R / 30.0
    a = regularized_apapc(P, eps=eps, x_star=coupled.x_star)
    b = regularized_apapc(P, eps=eps, x_star=coupled.x_star, method="apapc-nocheb")
    assert a.converged and b.converged
    assert counts_at(b, b.params["settled_row"])["grad"] > counts_at(a, a.params["settled_row"])["grad"]


def test_rejects_nonsmooth():
    inst = build("nonsmooth-coupled", kappa_W=12.0, kappa_AC=15.0)
    with pytest.raises(ValueError, match="smooth"):
        regularized_apapc(inst.problem, eps=1.0, x_star=inst.x_star)
