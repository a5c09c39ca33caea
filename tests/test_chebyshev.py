"""Chebyshev acceleration (Algorithm ``alg:chebyshev``): polynomial, interval, stability, counts."""

import math

import numpy as np
import pytest
from mixbounds.solvers.chebyshev import Chebyshev, chebyshev_degree, chebyshev_interval, inverse_chebyshev_T

#: agreement of the fast recurrence with the line-by-line transcription, per step of the
#: recurrence (rounding accumulates linearly with the degree), relative to max |v|
TRANSCRIPTION_RTOL_PER_STEP = 1e-14
#: dense eigenvalues of P(M) vs the closed-form interval
INTERVAL_ATOL = 1e-10
#: P(λ) vs the closed form 1 − T_n(x(λ))/T_n(θ) at high degree
CLOSED_FORM_ATOL = 1e-9
#: eigenvalues counted as zero
ZERO_ATOL = 1e-9


def literal_chebyshev(apply_M, L, mu, n, v, g):
    """``alg:chebyshev`` exactly as printed (reference for the optimised recurrence)."""
    rho = (L - mu) ** 2 / 16
    nu = (L + mu) / 2
    delta = -nu / 2
    p = -(apply_M(v) - g) / nu
    v = v + p
    for _ in range(1, n):
        beta = rho / delta
        delta = -(nu + beta)
        p = ((apply_M(v) - g) + beta * p) / delta
        v = v + p
    return v


def psd_with_spectrum(rng, eigs):
    Q, _ = np.linalg.qr(rng.standard_normal((len(eigs), len(eigs))))
    return (Q * np.asarray(eigs)) @ Q.T


def closed_form_P(lam, L, mu, n):
    """``1 − T_n((L+μ−2λ)/(L−μ)) / T_n(θ)`` for λ in [μ, L], evaluated stably."""
    x = np.clip((L + mu - 2 * lam) / (L - mu), -1.0, 1.0)
    return 1.0 - np.cos(n * np.arccos(x)) * inverse_chebyshev_T(n, L, mu)


@pytest.mark.parametrize("L,mu,degree", [(10.0, 0.1, None), (1e6, 1.0, 1000), (4.0, 1.0, 300), (2.0, 2.0, 5), (3.0, 1.0, 1)])
def test_recurrence_equals_printed_algorithm(rng, L, mu, degree):
    lam = np.concatenate([[0.0, mu, L], rng.uniform(mu, L, 40)])
    ch = Chebyshev(lambda x: lam * x, L, mu, degree)
    v = rng.standard_normal(lam.size)
    g = lam * rng.standard_normal(lam.size)
    for gg in (g, np.zeros_like(g)):
        ref = literal_chebyshev(lambda x: lam * x, L, mu, ch.degree, v, gg)
        got = ch.iterate(v, gg if gg.any() else None)
        assert np.max(np.abs(got - ref)) <= TRANSCRIPTION_RTOL_PER_STEP * ch.degree * max(1.0, np.max(np.abs(ref)))


def test_interval_equals_dense_eigenvalues_of_P(rng):
    """Apply P(M) to identity columns; its positive spectrum is exactly [1 − 1/T_n, 1 + 1/T_n]."""
    L, mu = 50.0, 0.5
    n = chebyshev_degree(L, mu)
    # include the ends μ, L and the extremal points of T_n inside (where |T̃_n| = 1/T_n)
    extremal = (L + mu) / 2 - (L - mu) / 2 * np.cos(np.arange(n + 1) * np.pi / n)
    eigs = np.concatenate([[0.0, 0.0], extremal, rng.uniform(mu, L, 10)])
    M = psd_with_spectrum(rng, eigs)
    ch = Chebyshev(lambda V: M @ V, L, mu)
    PM = ch.apply_P(np.eye(M.shape[0]))  # columns P(M) e_j
    ev = np.linalg.eigvalsh(0.5 * (PM + PM.T))
    pos = ev[np.abs(ev) > ZERO_ATOL]
    lo, hi = ch.interval
    assert np.sum(np.abs(ev) <= ZERO_ATOL) == 2  # P(0) = 0: the kernel is kept
    assert abs(pos.min() - lo) <= INTERVAL_ATOL
    assert abs(pos.max() - hi) <= INTERVAL_ATOL
    assert (lo, hi) == chebyshev_interval(L, mu, n)
    # and P(M) is the polynomial of M: same eigenvectors, eigenvalues P(λ_i)
    assert np.allclose(np.sort(ev), np.sort(ch.polynomial(eigs)), atol=INTERVAL_ATOL)


def test_rhs_is_P_of_M_times_pseudoinverse(rng):
    L, mu = 20.0, 0.2
    eigs = np.concatenate([[0.0], np.linspace(mu, L, 12)])
    M = psd_with_spectrum(rng, eigs)
    ch = Chebyshev(lambda v: M @ v, L, mu)
    g = M @ rng.standard_normal(M.shape[0])
    PM = ch.apply_P(np.eye(M.shape[0]))
    assert np.allclose(ch.rhs(g), PM @ np.linalg.pinv(M) @ g, atol=1e-10)


def test_stable_at_degree_over_1000(rng):
    L, mu = 1e6, 1.0
    n = chebyshev_degree(L, mu)
    assert n == 1000
    lam = np.concatenate([np.geomspace(mu, L, 200), [mu, L]])
    ch = Chebyshev(lambda x: lam * x, L, mu, 1500)
    P = ch.polynomial(lam)
    assert np.all(np.isfinite(P))
    assert np.max(np.abs(P - closed_form_P(lam, L, mu, 1500))) <= CLOSED_FORM_ATOL
    lo, hi = ch.interval
    assert np.all(P >= lo - CLOSED_FORM_ATOL) and np.all(P <= hi + CLOSED_FORM_ATOL)
    # the interval itself does not overflow at absurd degree and tends to [1, 1]
    assert chebyshev_interval(L, mu, 10**7) == (1.0, 1.0)
    e = inverse_chebyshev_T(2000, L, mu)
    assert 0 < e < 1 and math.isfinite(e)


def test_default_interval_inside_paper_constants():
    """With n = ⌈√(L/μ)⌉, 1/T_n(θ) < 2e⁻²/(1+e⁻⁴) < 4/15, so [11/15, 19/15] (Salim et al.) holds."""
    for kappa in [1.0001, 1.5, 2, 3.99, 4, 10, 1e2, 1e3, 1e4, 1e6, 1e9]:
        lo, hi = chebyshev_interval(kappa, 1.0, chebyshev_degree(kappa, 1.0))
        assert 11 / 15 <= lo <= hi <= 19 / 15


def test_equal_bounds_degree_one_exact(rng):
    lam = np.array([0.0, 3.0, 3.0, 3.0])
    ch = Chebyshev(lambda v: lam * v, 3.0, 3.0)
    assert ch.degree == 1 and ch.interval == (1.0, 1.0)
    u = rng.standard_normal(4)
    assert np.allclose(ch.apply_P(u), lam * u / 3.0, atol=1e-15)
    assert np.allclose(ch.rhs(lam * u), lam * u / 3.0, atol=1e-15)


def test_applications_and_inputs_untouched(rng):
    lam = rng.uniform(1, 9, 30)
    ch = Chebyshev(lambda v: lam * v, 9.0, 1.0, 7)
    u = rng.standard_normal(30)
    u0 = u.copy()
    ch.apply_P(u)
    assert ch.applications == 7
    ch.rhs(lam * u)
    assert ch.applications == 7 + 6  # M·0 is not computed
    assert np.array_equal(u, u0)


def test_node_axis_arrays(rng):
    """Works on (n, k) node-axis arrays (M = W applied along the first axis)."""
    n = 7
    W = psd_with_spectrum(rng, np.concatenate([[0.0], rng.uniform(1, 5, n - 1)]))
    ev = np.linalg.eigvalsh(W)
    ch = Chebyshev(lambda Y: W @ Y, ev[-1], ev[1])
    Y = rng.standard_normal((n, 3))
    PW = ch.apply_P(np.eye(n))
    assert np.allclose(ch.apply_P(Y), PW @ Y, atol=1e-12)


@pytest.mark.parametrize("L,mu", [(1.0, 0.0), (1.0, -1.0), (1.0, 2.0), (np.inf, 1.0)])
def test_bad_bounds_are_errors(L, mu):
    with pytest.raises(ValueError):
        Chebyshev(lambda v: v, L, mu)
