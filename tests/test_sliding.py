"""Gradient Sliding, restarted GS and the subgradient control (Tables 3-4)."""

import math

import numpy as np
import pytest
from mixbounds.instances.families import build
from mixbounds.solvers import CountedOracles
from mixbounds.solvers.sliding import (
    PenalizedProblem,
    _gs_params,
    gradient_sliding,
    reformulated_solution,
    restarted_gradient_sliding,
)
from mixbounds.solvers.subgradient import projected_subgradient

#: relative tolerance of K w* = b' for the reformulated reference
FEAS_RTOL = 1e-8


@pytest.fixture(scope="module")
def coupled():
    return build("nonsmooth-coupled", kappa_W=12.0, kappa_AC=15.0)


@pytest.fixture(scope="module")
def coupled_sc():
    return build("nonsmooth-coupled", variant="strongly-convex", kappa_W=12.0, kappa_AC=15.0)


def _R(inst):
    return float(np.linalg.norm(reformulated_solution(inst.problem, inst.x_star)["w"]))


def test_penalty_constants(coupled):
    P = coupled.problem
    pen = PenalizedProblem(P, CountedOracles(P), eps=0.1)
    lo, hi = pen.ref.interval
    assert pen.R_dual == pytest.approx(P.objective.M_total / math.sqrt(lo))
    assert pen.r == pytest.approx(2 * pen.R_dual ** 2 / 0.1)
    assert pen.L == pytest.approx(pen.r * hi)


@pytest.mark.parametrize("fam,kw", [("nonsmooth-coupled", dict(kappa_W=12.0, kappa_AC=15.0)),
                                    ("nonsmooth-mixed", dict(kappa_W=12.0, kappa_AC=15.0, kappa_C=7.0, kappa_Ct=9.0))])
def test_reformulated_solution_is_feasible(fam, kw):
    inst = build(fam, **kw)
    P = inst.problem
    pen = PenalizedProblem(P, CountedOracles(P), eps=1.0)
    w = reformulated_solution(P, inst.x_star)["w"]
    r = pen.ref.apply_normal(w) - pen.ref.normal_rhs
    assert np.linalg.norm(r) <= FEAS_RTOL * (1 + np.linalg.norm(pen.ref.normal_rhs))


def test_gradient_sliding_counts_and_accuracy(coupled):
    P = coupled.problem
    R = _R(coupled)
    M = P.objective.M_total
    eps = M * R / 30.0
    res = gradient_sliding(P, eps=eps, x_star=coupled.x_star, R=R)
    assert res.converged
    assert res.history_error[-1] <= 1.0 and np.all(res.history_error[:-1] > 1.0)
    assert res.params["history_gap"][-1] <= eps and res.params["history_dist"][-1] <= res.params["delta"]
    # one K application per outer iteration, T_k subgradient rounds per outer iteration (book rule)
    pen = PenalizedProblem(P, CountedOracles(P), eps=eps)
    T = [_gs_params("book", k, pen.L, pen.M, R * R, None)[2] for k in range(1, res.iterations + 1)]
    assert res.params["history_inner"][1:] == T
    assert res.counts["grad"] == sum(T)
    per_outer = np.diff(res.history_counts[:, 1])
    assert np.all(per_outer == per_outer[0]) and per_outer[0] == 2 * pen.ref.degrees()["K_x"]


def test_printed_reading_is_worse(coupled):
    P = coupled.problem
    R = _R(coupled)
    eps = P.objective.M_total * R / 30.0
    lan = gradient_sliding(P, eps=eps, x_star=coupled.x_star, R=R)
    pr = gradient_sliding(P, eps=eps, x_star=coupled.x_star, R=R, reading="printed", max_inner=2 * lan.counts["grad"])
    assert lan.converged
    assert (not pr.converged) or pr.counts["grad"] > lan.counts["grad"]


def test_horizon_rule_runs(coupled):
    P = coupled.problem
    R = _R(coupled)
    eps = P.objective.M_total * R / 20.0
    res = gradient_sliding(P, eps=eps, x_star=coupled.x_star, R=R, rule="horizon", N=400)
    assert res.converged
    with pytest.raises(ValueError, match="horizon"):
        gradient_sliding(P, eps=eps, x_star=coupled.x_star, R=R, rule="horizon")


def test_restarted_gradient_sliding(coupled_sc):
    P = coupled_sc.problem
    lay = P.layout
    rho = coupled_sc.params["box_half_width"]
    u0 = rho * np.sign(np.random.default_rng(0).standard_normal(lay.size))
    ws = reformulated_solution(P, coupled_sc.x_star)["w"].copy()
    ws[: lay.dx] -= u0[: lay.dx]
    R = float(np.linalg.norm(ws))
    M, mu = P.objective.M_total, P.objective.mu
    eps = M * M / (mu * 12.0 ** 2)
    res = restarted_gradient_sliding(P, eps=eps, x_star=coupled_sc.x_star, R=R, x0=u0)
    assert res.converged
    assert res.params["mu_H"] == pytest.approx(mu / 2)
    # the restart schedule: N_s = ⌈√(65 L/μ_H)⌉ outer iterations per phase
    assert res.params["N_phase"] == math.ceil(math.sqrt(65 * res.params["L_penalty"] / res.params["mu_H"]))


def test_restart_schedule(coupled_sc):
    """Phase s uses D̃_s = R²/2ˢ (the halving the GS bound guarantees per phase)."""
    P = coupled_sc.problem
    R = _R(coupled_sc)
    M, mu = P.objective.M_total, P.objective.mu
    eps = M * M / (mu * 60.0 ** 2)
    res = restarted_gradient_sliding(P, eps=eps, x_star=coupled_sc.x_star, R=R, max_phases=3)
    assert len(res.params["phases"]) >= 1
    R2 = R * R
    for ph in res.params["phases"]:
        assert ph["R2"] == pytest.approx(R2)
        R2 /= 2


def test_subgradient_control_is_slower(coupled):
    P = coupled.problem
    R = _R(coupled)
    eps = P.objective.M_total * R / 15.0
    gs = gradient_sliding(P, eps=eps, x_star=coupled.x_star, R=R)
    sg = projected_subgradient(P, eps=eps, x_star=coupled.x_star, max_iter=200_000)
    assert gs.converged and sg.converged
    assert sg.counts["A"] > gs.counts["A"]
    assert sg.params["step"] == pytest.approx(eps / (4 * P.objective.M_total ** 2))
