"""The generic problem min G(u) s.t. Bu = b (mixbounds.instances.affine) and the paper's methods on it
(mixbounds.solvers.affine): exact κ's, exact references, counts against an independent count."""

from __future__ import annotations

import math

import numpy as np
import pytest
from mixbounds.instances.affine import apapc_hard, condition_of_B, sliding_hard
from mixbounds.solvers.affine import AffineOracles, affine_apapc, affine_sliding

#: realized κ's are computed from singular values of diagonal scalings: rounding only
KAPPA_RTOL = 1e-9
#: KKT residuals of the closed-form / LP references, relative
KKT_RTOL = 1e-8
#: a random feasible perturbation of the LP/QP optimum never lowers G by more than this (relative)
OPT_RTOL = 1e-9


@pytest.mark.parametrize("kB,kG", [(10.0, 1000.0), (3000.0, 4.0)])
def test_apapc_hard_constants_and_solution(kB, kG):
    P = apapc_hard(kappa_B=kB, kappa_G=kG)
    assert P.realized["kappa_B"] == pytest.approx(kB, rel=KAPPA_RTOL)
    assert P.realized["kappa_G"] == pytest.approx(kG, rel=KAPPA_RTOL)
    assert P.params["dual_condition"] == pytest.approx(kB * kG, rel=KAPPA_RTOL)  # the dual's worst case
    u = P.u_star
    assert np.linalg.norm(P.B @ u - P.b) <= KKT_RTOL * (1 + np.linalg.norm(P.b))
    g = P.objective.grad(u)  # stationarity: ∇G(u*) in the row space of B
    v = np.linalg.lstsq(P.B.T, -g, rcond=None)[0]
    assert np.linalg.norm(P.B.T @ v + g) <= KKT_RTOL * (1 + np.linalg.norm(g))


@pytest.mark.parametrize("mu", [0.0, 1.0])
def test_sliding_hard_reference_is_optimal_and_inside_the_box(mu):
    P = sliding_hard(kappa_B=100.0, mu=mu)
    assert P.realized["kappa_B"] == pytest.approx(100.0, rel=KAPPA_RTOL)
    assert condition_of_B(P.B) == P.realized["kappa_B"]
    u = P.u_star
    assert np.linalg.norm(P.B @ u - P.b) <= KKT_RTOL * (1 + np.linalg.norm(P.b))
    assert np.abs(u).max() <= P.params["box_half_width"] / 2  # box inactive: the dual bound needs no normal cone
    # no feasible direction improves G (G is convex: local = global)
    N = np.linalg.svd(P.B)[2][P.B.shape[0]:].T  # basis of ker B
    rng = np.random.default_rng(0)
    G0 = P.objective.value(u)
    for t in (1e-2, 1e-3):
        for _ in range(50):
            assert P.objective.value(u + t * N @ rng.standard_normal(N.shape[1])) >= G0 - OPT_RTOL * (1 + abs(G0))


def test_bad_input_names_what_is_wrong():
    with pytest.raises(ValueError, match="kappa_B must be a finite number >= 1"):
        sliding_hard(kappa_B=0.5)
    with pytest.raises(ValueError, match="1 <= s < d"):
        apapc_hard(kappa_B=10.0, kappa_G=10.0, d=4, s=4)


def test_apapc_counts_one_gradient_and_two_products_per_iteration():
    P = apapc_hard(kappa_B=300.0, kappa_G=10.0)
    res = affine_apapc(P, eps=1e-8)
    assert res.converged and res.final_error() <= 1e-8
    assert res.counts["grad"] == res.iterations
    assert res.counts["A"] == 2 * res.iterations + 1  # + the set-up product Bᵀb
    assert res.params["tau"] == 1.0  # χ = 300 >= 4κ_G: the χ-dominated regime


def test_apapc_with_chebyshev_counts_the_polynomial():
    P = apapc_hard(kappa_B=300.0, kappa_G=10.0)
    res = affine_apapc(P, eps=1e-8, chebyshev=True)
    deg = res.params["chebyshev"]["degree"]
    assert deg == math.ceil(math.sqrt(300.0))
    assert res.converged
    # per iteration deg applications of BᵀB; set-up: Bᵀb, then deg − 1 applications for the right-hand side
    assert res.counts["A"] == 2 * deg * res.iterations + 1 + 2 * (deg - 1)


def test_the_oracles_count_against_an_independent_count():
    P = sliding_hard(kappa_B=10.0)
    orc = AffineOracles(P)
    u = np.ones(P.B.shape[1])
    orc.normal(u)
    orc.grad(u)
    orc.Bt(P.b)
    assert orc.snapshot() == {"grad": 1, "A": 3, "C": 0, "Ct": 0, "comm": 0}


@pytest.mark.parametrize("method,mu", [("gs", 0.0), ("restarted", 1.0), ("homotopy", 1.0), ("subgradient", 0.0)])
def test_sliding_methods_reach_an_eps_delta_solution(method, mu):
    P = sliding_hard(kappa_B=30.0, mu=mu)
    u0 = P.params["box_half_width"] * np.sign(np.random.default_rng(1).standard_normal(P.B.shape[1]))
    R, M = float(np.linalg.norm(u0 - P.u_star)), P.objective.M
    eps = M * R / 10.0 if mu == 0 else M * M / (mu * 10.0 ** 2)
    res = affine_sliding(P, eps=eps, R=R, method=method, x0=u0)
    assert res.converged
    assert res.params["history_gap"][-1] <= eps and res.params["history_dist"][-1] <= eps / M
    assert res.params["L_penalty"] == pytest.approx(2 * M * M * P.realized["kappa_B"] / eps, rel=KAPPA_RTOL)
    if method == "subgradient":
        assert res.params["step"] == pytest.approx(min(eps / (4 * M * M), 1 / res.params["L_penalty"]))


def test_sliding_refuses_a_strongly_convex_method_without_mu():
    P = sliding_hard(kappa_B=10.0, mu=0.0)
    with pytest.raises(ValueError, match="needs μ > 0"):
        affine_sliding(P, eps=1.0, R=1.0, method="restarted")
    with pytest.raises(ValueError, match="method must be one of"):
        affine_sliding(P, eps=1.0, R=1.0, method="newton")
