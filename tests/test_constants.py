"""The constants of G (mixbounds.solvers.spectral_estimates): the closed-form bounds hold against the dense exact constants, never
fall behind the lemma's, the cost model of "auto" says why, and the Lanczos of "spectral" is counted as set-up."""

import math

import numpy as np
import pytest
from helpers import random_problem
from hypothesis import given
from hypothesis import strategies as st
from mixbounds.solvers import ORACLES, Reformulation, solve
from mixbounds.solvers import spectral_estimates as estimates

#: relative slack of a bound against the dense exact eigenvalue (eigvalsh rounding on ≤ 200 unknowns)
BOUND_RTOL = 1e-9
#: the rate's log1p(x) against x for x = ¼/√(κχ) <= 0.05 (κ >= 16): relative gap below x/2, so 1 − √(κ_min/κ_b) holds
#: to 2.5%
LOG1P_RTOL = 0.025

#: coupled-type classes (the constants differ from (μ_f, L_f) only with A): (d, dt, m, p, pt, local, shared)
SHAPES = {"coupled": dict(d=3, dt=0, m=2, local=False), "coupled_local": dict(d=4, dt=0, m=2, p=1),
          "mixed": dict(d=3, dt=2, m=2, p=1, pt=1)}


def _problem(name, seed, n=6, mu=0.5):
    return random_problem(np.random.default_rng(seed), n=n, mu=mu, **SHAPES[name])


def _bounds_hold(R_exact, R_bounds, rtol=BOUND_RTOL) -> bool:
    return (R_bounds.mu_G <= R_exact.mu_G * (1 + rtol)) and (R_bounds.L_G >= R_exact.L_G * (1 - rtol))


@pytest.mark.parametrize("name", list(SHAPES))
@pytest.mark.parametrize("method", ["apapc", "apapc-nocheb"])
def test_bounds_contain_the_exact_constants_and_beat_the_lemma(name, method):
    for seed in range(4):
        P = _problem(name, seed)
        ex = Reformulation(P, method=method, constants="exact")
        bd = Reformulation(P, method=method, constants="bounds")
        assert _bounds_hold(ex, bd), (seed, bd.mu_G, ex.mu_G, bd.L_G, ex.L_G)
        c = bd.info["constants_G"]
        assert c["mu_G_lemma"] * (1 - BOUND_RTOL) <= bd.mu_G and bd.L_G <= c["L_G_lemma"] * (1 + BOUND_RTOL)
        assert bd.setup_counts == {k: 0 for k in ORACLES}


@given(seed=st.integers(0, 10_000), n=st.integers(2, 7), m=st.integers(1, 3), mu=st.floats(0.05, 2.0),
       name=st.sampled_from(list(SHAPES)))
def test_bounds_hold_on_random_problems(seed, n, m, mu, name):
    shape = dict(SHAPES[name], m=m)
    P = random_problem(np.random.default_rng(seed), n=n, mu=mu, **shape)
    assert _bounds_hold(Reformulation(P, constants="exact"), Reformulation(P, constants="bounds"))


def test_a_bound_without_the_coupling_term_is_caught(monkeypatch):
    """Negative control: dropping ``b = rL_A`` from the μ bound (λ* = min(μ_f, a)) overestimates μ_G, and the
    comparison above says so on these problems."""
    real = estimates.bound_constants

    def broken(R):
        out = dict(real(R))
        if R.has_A:
            out["mu"] = min(float(R.problem.objective.mu), out["a"])
        return out

    monkeypatch.setattr("mixbounds.solvers.reformulation.constants_modes.bound_constants", broken)
    caught = [not _bounds_hold(Reformulation(_problem("coupled", s), constants="exact"),
                               Reformulation(_problem("coupled", s), constants="bounds")) for s in range(4)]
    assert any(caught)


def test_bound_formulas_by_hand():
    """μ* is the smaller root of (μ_f − λ)(a − λ) = bλ and L = L_f + b(1 + t) equals a'(1 + 1/t)."""
    R = Reformulation(_problem("coupled", 1), constants="bounds")
    bc = estimates.bound_constants(R)
    mu_f, L_f = R.problem.objective.mu, R.problem.objective.L
    lam = bc["mu"]
    assert (mu_f - lam) * (bc["a"] - lam) == pytest.approx(bc["b"] * lam, rel=1e-12)
    assert 0 < lam < min(mu_f, bc["a"])
    assert L_f + bc["b"] * (1 + bc["t"]) == pytest.approx(bc["a_prime"] * (1 + 1 / bc["t"]), rel=1e-12)
    assert bc["L"] == min(bc["L_young"], R.info["constants_G"]["L_G_lemma"])


def test_without_A_every_mode_gives_the_objective_constants():
    P = random_problem(np.random.default_rng(3), n=5, d=3, dt=2, coupled=False)
    mu_f, L_f = P.objective.mu, P.objective.L
    for mode in ("bounds", "auto", "spectral", "lemma"):
        R = Reformulation(P, constants=mode)
        assert (R.mu_G, R.L_G) == (mu_f, L_f)


def test_auto_states_its_choice_and_reason():
    """auto takes the bounds (no eigen-solve of unknown length) and says what spectral constants could save."""
    R = Reformulation(_problem("coupled", 2), constants="auto", eps=1e-6)
    c = R.info["constants_G"]
    assert c["choice"] == "bounds" and "Lanczos" in c["reason"] and R.setup_counts == {k: 0 for k in ORACLES}
    model = c["cost_model"]
    assert model["kappa_min"] <= model["kappa_bounds"] and 0 <= model["saved_fraction_max"] < 1
    assert model["lanczos_products_min"] == 2 * min(R.size, estimates.LANCZOS_NCV)


def test_saved_fraction_follows_the_rate_regimes():
    """1 − √(κ_min/κ_b) where the rate is 1/√(κχ); nothing to save where it is 1/χ (χ >= κ)."""
    f = estimates.saved_fraction_max(100.0, 25.0, 1.5, 1e-8)
    assert f == pytest.approx(1 - math.sqrt(25.0 / 100.0), rel=LOG1P_RTOL)
    assert estimates.saved_fraction_max(100.0, 25.0, 400.0, 1e-8) == 0.0
    assert estimates.saved_fraction_max(100.0, 200.0, 1.5, 1e-8) == 0.0


def test_predicted_iterations_follow_the_rate():
    """(1 + ¼ min{1/√(κχ), 1/χ})^{-k} <= eps at the predicted k, and not one iteration earlier."""
    for kappa, chi in ((30.0, 1.5), (4.0, 40.0)):
        k = estimates.predicted_iterations(kappa, chi, 1e-6)
        q = 1 + 0.25 * min(1 / math.sqrt(kappa * chi), 1 / chi)
        assert q ** -k == pytest.approx(1e-6, rel=1e-9)


def test_spectral_lanczos_is_counted_as_setup_not_in_the_solve():
    """Every Hessian product of constants="spectral" is one grad, two A and 2·deg W' comm rounds on the set-up oracles
    (plus ∇F(0) once); the solve's own counts are those of the same run with the constants given."""
    P = _problem("coupled", 4)
    sp_run = solve(P, eps=1e-6, constants="spectral")
    s = sp_run.setup_counts
    products = s["A"] // 2
    dW = sp_run.params["degrees"]["W"]
    assert products > 0 and s["grad"] == products + 1 and s["comm"] == 2 * dW * products
    assert s["C"] == s["Ct"] == 0
    with_setup = sp_run.counts_with_setup()
    assert all(with_setup[k] == sp_run.counts[k] + s[k] for k in ORACLES)
    lemma_run = solve(P, eps=1e-6, constants="lemma")
    assert lemma_run.setup_counts == {k: 0 for k in ORACLES}
