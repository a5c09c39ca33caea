"""lem:boundness_of_penal_prob_dual and lem:penalization on exact max-affine LPs/QPs (checks/lemmas/max_affine.py)."""

import math

import numpy as np
import pytest
from mixbounds.checks.lemmas import penalization, penalization_dual_bound
from mixbounds.checks.lemmas.cases import seeded_rng
from mixbounds.checks.lemmas.max_affine import (
    box_instance,
    constrained,
    dual_range_1d,
    penalized,
    random_instance,
    sublevel_extreme,
    tight_instance,
)
from mixbounds.checks.tiers import QUICK

#: exact LP/QP solutions agree with closed forms to rounding
EXACT_RTOL = 1e-9
#: the ε-sublevel extreme is located by bisection (60 halvings)
BISECT_RTOL = 1e-8


def test_tight_instance_attains_the_dual_bound():
    P = tight_instance(seeded_rng(3, "test"), 4, 3)
    sol = constrained(P)
    assert sol["stationarity"] <= 1e-12
    assert np.linalg.norm(sol["v_range"]) == pytest.approx(P.M / P.sigma_min_pos(), rel=EXACT_RTOL)


@pytest.mark.parametrize("t", [0.5, 3.0, 30.0])
def test_box_instance_multiplier_exceeds_the_bound_by_sqrt_1_plus_t2(t):
    P = box_instance(t)
    sol = constrained(P)
    assert sol["G"] == pytest.approx(0.0, abs=EXACT_RTOL)
    lo, hi = dual_range_1d(P, sol["G"])
    assert lo == pytest.approx(-1.0, rel=EXACT_RTOL) and hi == pytest.approx(-1.0, rel=EXACT_RTOL)  # unique v* = −m
    assert (P.M / P.sigma_min_pos()) == pytest.approx(1.0 / math.sqrt(1 + t * t), rel=EXACT_RTOL)


def test_penalized_solution_is_a_kkt_point_and_lower_than_g_star():
    P = random_instance(seeded_rng(5, "test"), 3, 2, 5)
    r = 7.0
    sol = penalized(P, r)
    # H at the returned point is no larger than at nearby points (exact minimiser of a convex function)
    rng = np.random.default_rng(0)
    for _ in range(50):
        assert P.H(sol["u"], r) <= P.H(sol["u"] + 1e-4 * rng.standard_normal(3), r) + 1e-12
    assert sol["H"] <= constrained(P)["G"] + EXACT_RTOL  # H* <= G*: H = G on the feasible set


def test_sublevel_extreme_of_the_tight_instance_is_one_and_a_half_eps_over_R():
    """‖v*‖ = R_dual and G linear near u*: ‖Bû − b‖ = ε/(2R) + ε/R (module docstring of penalization)."""
    P = tight_instance(seeded_rng(1300, "penalization"), 2, 1)
    eps = 1e-2
    R = P.M / P.sigma_min_pos()
    r = 2 * R ** 2 / eps
    Hs = penalized(P, r)["H"]
    c = constrained(P)["v_range"]
    ext = sublevel_extreme(P, r, Hs, eps, c / np.linalg.norm(c))
    assert ext["H_gap"] == pytest.approx(eps, rel=BISECT_RTOL)
    assert np.linalg.norm(P.B @ ext["u"] - P.b) == pytest.approx(1.5 * eps / R, rel=BISECT_RTOL)


def _run(lem, tier=QUICK):
    pts = [dict(c.func(c.case)) for c in lem.cases(tier)]
    return {r.id: r for r in lem.finalize(tier, pts, tuple(lem.result_ids(tier)))}


def test_dual_bound_check_finding_on_the_box_only():
    res = _run(penalization_dual_bound.LEMMA)
    main, ctrl = res["lemma.boundness_of_penal_prob_dual"], res["lemma.boundness_of_penal_prob_dual.control"]
    assert main.status == "finding" and ctrl.status == "fail"
    assert main.readings["U = R^d cases violating"] == 0
    assert main.readings["R_dual/‖v*‖ on the tight instance"] == pytest.approx(1.0, rel=EXACT_RTOL)
    assert main.readings["worst R_dual/min‖v*‖ (U a box)"] == pytest.approx(1 / math.sqrt(1 + 30.0 ** 2), rel=EXACT_RTOL)


def test_penalization_check_numbers():
    res = _run(penalization.LEMMA)
    main, ctrl = res["lemma.penalization"], res["lemma.penalization.control"]
    assert main.status == "finding" and ctrl.status == "fail"
    assert main.readings["worst (2ε/R_dual)/‖Bû − b‖ (U = R^d)"] == pytest.approx(4 / 3, rel=BISECT_RTOL)
    t = 3.0
    assert main.readings["worst (2ε/R_dual)/‖Bû − b‖ (U a box)"] == pytest.approx(
        2 / (math.sqrt(1 + t * t) / 2 + 1), rel=BISECT_RTOL)
    # quartered penalty on the tight instances: ‖Bû − b‖ = ε/(2R)·4 + 2ε/R = 4ε/R, twice the bound
    assert ctrl.readings["worst (2ε/R_dual)/‖Bû − b‖"] == pytest.approx(0.5, rel=BISECT_RTOL)
