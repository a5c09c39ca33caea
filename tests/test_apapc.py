"""APAPC (Algorithm ``alg:apapc``) on synthetic affine-constrained quadratics.

``G(u) = ½ uᵀHu − qᵀu`` with ``spec(H) ⊂ [1, κ]`` (log-spaced), ``B`` with
``σ²(B) ∈ [1, χ]``; the parameter rule is :meth:`APAPCParameters.rule`.
"""

import math

import numpy as np
import pytest
from mixbounds.solvers.apapc import APAPCParameters, apapc
from mixbounds.solvers.oracles import ORACLES

#: slope of the per-accuracy iteration count vs κ at fixed χ = O(1) (theory: 1/2)
SQRT_KAPPA_SLOPE = 0.5
SLOPE_TOL = 0.08
#: accuracies between which the per-accuracy cost is measured (start-up excluded)
EPS_1, EPS_2 = 1e-4, 1e-10
#: solution accuracy of a converged run, relative squared error
EPS = 1e-10


def synthetic(kappa, chi, *, d=120, s=60, seed=0):
    rng = np.random.default_rng(seed)
    U, _ = np.linalg.qr(rng.standard_normal((d, d)))
    H = (U * np.geomspace(1.0, kappa, d)) @ U.T
    V, _ = np.linalg.qr(rng.standard_normal((d, d)))
    B = np.sqrt(np.geomspace(1.0, chi, s))[:, None] * V[:s]
    b = B @ rng.standard_normal(d)
    q = rng.standard_normal(d) * kappa
    K = np.block([[H, B.T], [B, np.zeros((s, s))]])
    u_star = np.linalg.solve(K, np.concatenate([q, b]))[:d]
    return H, q, B, b, u_star


def run(kappa, chi, *, eps=EPS, max_iter=200_000, L=None, lam=None, seed=0, w0=None, **stop):
    H, q, B, b, u_star = synthetic(kappa, chi, seed=seed)
    BtB, Btb = B.T @ B, B.T @ b
    counts = {k: 0 for k in ORACLES}

    def grad(u):
        counts["grad"] += 1
        return H @ u - q

    def normal(u):
        counts["A"] += 2
        return BtB @ u

    lam_min, lam_max = (1.0, chi) if lam is None else lam
    params = APAPCParameters.rule(kappa if L is None else L, 1.0, lam_max, lam_min)
    u0 = np.zeros_like(u_star) if w0 is None else w0
    den = float((u0 - u_star) @ (u0 - u_star))
    err = (lambda u: float((u - u_star) @ (u - u_star)) / den) if den > 0 else (lambda u: float((u - u_star) @ (u - u_star)))
    res = apapc(grad_G=grad, apply_BtB=normal, Btb=Btb, w0=u0, params=params, error=err,
                snapshot=lambda: dict(counts), eps=eps, max_iter=max_iter, **stop)
    return res, u_star


def per_accuracy(res):
    h = res.history_error
    return int(np.argmax(h <= EPS_2) - np.argmax(h <= EPS_1))


def test_parameter_rule():
    p = APAPCParameters.rule(100.0, 2.0, 3.0, 0.5)  # κ = 50, χ = 6
    assert p.tau == pytest.approx(0.5 * math.sqrt(6 / 50))
    assert p.eta == pytest.approx(1 / (4 * p.tau * 100.0))
    assert p.theta == pytest.approx(1 / (p.eta * 3.0))
    assert p.alpha == 2.0
    assert APAPCParameters.rule(1.0, 1.0, 100.0, 1.0).tau == 1.0  # χ >= 4κ
    for bad in [(0.0, 1.0, 1.0, 1.0), (1.0, 2.0, 1.0, 1.0), (1.0, 1.0, 1.0, 2.0), (1.0, 1.0, np.inf, 1.0)]:
        with pytest.raises(ValueError):
            APAPCParameters.rule(*bad)


def test_solves_the_constrained_problem():
    res, u_star = run(50.0, 4.0)
    assert res.converged and res.reason == "tolerance"
    assert res.final_error() <= EPS
    assert np.linalg.norm(res.x - u_star) <= 1e-4 * np.linalg.norm(u_star)
    # history: cumulative counts, one grad and one normal product per iteration
    hc = res.history_counts
    assert hc.shape == (res.iterations + 1, len(ORACLES))
    assert np.all(np.diff(hc, axis=0)[:, ORACLES.index("grad")] == 1)
    assert np.all(np.diff(hc, axis=0)[:, ORACLES.index("A")] == 2)
    assert res.counts["grad"] == res.iterations
    assert res.history_error.shape == (res.iterations + 1,)


def test_iterations_grow_like_sqrt_kappa_at_fixed_chi():
    kappas = np.array([1e1, 1e2, 1e3, 1e4])
    costs = np.array([per_accuracy(run(k, 2.0)[0]) for k in kappas])
    slope = np.polyfit(np.log(kappas), np.log(costs), 1)[0]
    assert abs(slope - SQRT_KAPPA_SLOPE) <= SLOPE_TOL, (costs, slope)


def test_iterations_depend_on_chi_at_fixed_kappa():
    """χ = O(1) gives the √κ count; a larger χ costs more (√(κχ) while χ < 4κ, then ∝ χ or better)."""
    costs = [per_accuracy(run(100.0, chi)[0]) for chi in (2.0, 200.0, 20000.0)]
    assert costs[0] < costs[1] < costs[2]
    assert costs[1] >= 3 * costs[0]


def test_budget_is_not_convergence():
    res, _ = run(100.0, 2.0, max_iter=3)
    assert not res.converged and res.reason == "budget"
    assert res.iterations == 3 and res.history_counts.shape == (4, len(ORACLES))
    assert res.counts_to(EPS) is None


@pytest.mark.parametrize("wrong", [{"L": 2.0}, {"lam": (0.01, 0.02)}])
def test_wrong_constant_is_reported(wrong):
    """L_G or the spectrum of BᵀB told 50–100× too small: steps too long, the iteration blows up — never 'converged'."""
    res, _ = run(100.0, 2.0, max_iter=2000, **wrong)
    assert not res.converged
    assert res.reason in ("non-finite", "diverged", "budget")
    assert res.reason != "budget" or res.final_error() > 1.0


def test_start_at_solution():
    _, u_star = run(10.0, 2.0, max_iter=1)
    res, _ = run(10.0, 2.0, w0=u_star.copy())
    assert res.iterations <= 1 and res.converged


def test_bad_arguments():
    with pytest.raises(ValueError):
        run(10.0, 2.0, eps=0.0)
    with pytest.raises(ValueError):
        run(10.0, 2.0, max_iter=-1)


def test_settle_stop_rule_survives_a_dip():
    """The coupled worst case at κ̂_A = 300 (quick tier) dips 5 decades below its error envelope at
    iteration 109; a first-hit stop at 10^-7.5 ends there, although the error rises to ~4e-3
    afterwards.  With ``settle`` the run ends only once the last third of its errors are <= ε₂."""
    from mixbounds.instances.families import build
    from mixbounds.instances.reference.kkt import reference_solution
    from mixbounds.solvers import solve

    P = build("coupled", kappa_f=30.0, kappa_A=300.0, kappa_W=30.0, eps=1e-6).problem
    ref = reference_solution(P).u
    first = solve(P, eps=10 ** -7.5, x_star=ref)
    settled = solve(P, eps=1e-6, x_star=ref, settle=1 / 3)
    assert first.converged and settled.converged
    k, e = settled.iterations, settled.history_error
    above = np.flatnonzero(e > 1e-6)
    m = k - above[-1]  # length of the trailing run of errors <= ε₂
    assert m >= k / 3 and m - 1 < (k - 1) / 3  # k is the first iteration that qualifies
    # the first-hit stop was a dip: the same trajectory rises far above ε₂ after it
    assert np.array_equal(first.history_error, settled.history_error[: first.iterations + 1])
    assert settled.history_error[first.iterations:].max() > 1e3 * 1e-6


def test_settle_arguments():
    with pytest.raises(ValueError, match="settle"):
        run(10.0, 2.0, settle=1.0)
    with pytest.raises(ValueError, match="settle_eps"):
        run(10.0, 2.0, eps=1e-6, settle=0.5, settle_eps=1e-8)
