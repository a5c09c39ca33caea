"""The PEP worst cases as Table 1's third series (checks/pep/series.py, checks/rates.py: ``…@pep-worst``)."""

import numpy as np
import pytest
from helpers import stall_first_quadratic_scaling
from mixbounds.checks.pep import availability
from mixbounds.checks.tiers import TINY

HAVE_PEP = availability.available()
needs_pep = pytest.mark.skipif(not HAVE_PEP, reason=availability.missing_reason() or "")

#: an interpolant of exact quadratic data: rounding only
EXACT_ATOL = 1e-10


def _series():
    from mixbounds.checks.pep import series

    return series


@needs_pep
def test_interpolant_of_exact_quadratic_data():
    """Data of ½xᵀH₀x with μI ⪯ H₀ ⪯ LI: reproduced exactly, spectrum in [μ, L] with both ends attained."""
    from mixbounds.checks.pep.extract import quadratic_interpolant

    rng = np.random.default_rng(3)
    D, mu, L = 9, 1.0, 50.0
    U = np.linalg.qr(rng.standard_normal((D, D)))[0]
    H0 = (U * np.linspace(mu, L, D)) @ U.T
    xs = [np.zeros(D)] + [rng.standard_normal(D) for _ in range(3)]
    trip = [(x, H0 @ x, 0.5 * x @ H0 @ x) for x in xs]
    H, gres, vres = quadratic_interpolant(trip, mu, L)
    ev = np.linalg.eigvalsh(H)
    assert gres <= EXACT_ATOL and vres <= EXACT_ATOL
    assert ev[0] == pytest.approx(mu, abs=EXACT_ATOL) and ev[-1] == pytest.approx(L, abs=1e-9)


@needs_pep
def test_interpolant_of_non_quadratic_data_misses():
    """Two points of a non-quadratic f ∈ F(1, 10) (|x|-like curvature change): no quadratic reproduces them."""
    from mixbounds.checks.pep.extract import quadratic_interpolant

    x1, x2 = np.array([1.0, 0.0]), np.array([-1.0, 0.0])
    g1, g2 = np.array([1.0, 0.0]), np.array([-9.0, 0.0])  # curvature 1 on one side, 9 on the other
    trip = [(np.zeros(2), np.zeros(2), 0.0), (x1, g1, 0.5), (x2, g2, 4.5)]
    _, gres, _ = quadratic_interpolant(trip, 1.0, 10.0)
    assert gres > 0.1


@needs_pep
@pytest.mark.parametrize("cls,source", [("consensus", "F(mu_f, L_f)"), ("shared", "quadratics")])
def test_worst_case_series_point(cls, source):
    """The series point: the instance reproduces the PEP's V¹ from the worst state, its constants are the class's,
    its x* is the reference solve's, and the paper's method reaches ε₂ on it (the shared class: from the worst
    case over quadratics, the class's worst case not being quadratic)."""
    from mixbounds.checks.pep.points import certificate_point

    S = _series()
    AGREE_ATOL = S.WORST_AGREE
    p = certificate_point(cls, "path", 3, 10.0, 100.0, rate_methods=("apapc",))["rate"]
    assert "error" not in p, p.get("error")
    assert p["source"] == source and p["family"] == S.FAMILY
    assert p["V1_difference"] <= AGREE_ATOL and p["x_star_rel_diff"] <= S.XSTAR_RTOL
    assert p["realized"]["kappa_f"] == pytest.approx(10.0, rel=1e-9)
    assert p["realized"]["kappa_W"] == pytest.approx(100.0, rel=1e-8)
    assert p["converged"] and p["per_accuracy"]["grad"] > 0
    if source == "quadratics":
        assert p["rho_pep_quadratic"] < p["rho_pep"] - 1e-2  # measured 0.7062 vs 0.7589
        assert p["rho_instance"] == pytest.approx(p["rho_pep_quadratic"], abs=AGREE_ATOL)
    else:
        assert p["rho_instance"] == pytest.approx(p["rho_pep"], abs=AGREE_ATOL)


@needs_pep
def test_the_quadratic_pep_is_rescaled_only_when_it_does_not_solve(monkeypatch):
    """Shared class, path of 3, κ_W = 100: at κ_f = 10 the PEP over quadratics solves in the certificate's scaling (one
    attempt, the model unchanged).  When that scaling does not solve (here forced: a proof residual of 1e-3 on the
    first scaling's solves; measured without forcing at κ_f = 10³ … 10⁴: 1.2e-6 … 2.0e-6 against PEP_ACCURACY, which
    another BLAS could move either side of the limit), the rescaled PEP (L_f = 1, μ_f = 10⁻³) is used, with the same
    κ_f, and the series point built on it is the worst case."""
    from mixbounds.checks.pep.model import linear_model
    from mixbounds.checks.pep.points import _data, certificate_point

    S = _series()
    m10 = linear_model(_data("shared", "path", 3, 10.0, 100.0))
    model, out, attempts = S.quadratic_worst_case(m10, 1)
    assert model is m10 and out.solved and len(attempts) == 1
    stall_first_quadratic_scaling(monkeypatch, S)
    m3 = linear_model(_data("shared", "path", 3, 1e3, 100.0))
    model, out, attempts = S.quadratic_worst_case(m3, 1)
    assert len(attempts) == 2 and attempts[0]["accuracy"] >= 1e-3 and out.solved
    assert (model.data.L_f, model.data.mu_f) == (1.0, 1e-3)
    p = certificate_point("shared", "path", 3, 1e3, 100.0, rate_methods=("apapc",))["rate"]
    assert "error" not in p, p.get("error")
    assert p["source"] == "quadratics" and len(p["quadratic_attempts"]) == 2
    assert p["V1_difference"] <= S.WORST_AGREE and p["x_star_rel_diff"] <= S.XSTAR_RTOL
    assert p["realized"]["kappa_f"] == pytest.approx(1e3, rel=1e-9)


@needs_pep
def test_a_quadratic_pep_unsolved_in_both_scalings_is_an_error(monkeypatch):
    """Negative control: PEPs over quadratics whose proof residual stays at 1e-3 in both scalings give a series point
    that is an error naming both attempts, never an instance."""
    import dataclasses

    from mixbounds.checks.pep.points import certificate_point

    S = _series()
    real = S.solve_pep

    def stalled(model, K, function_class="smooth_strongly_convex", **kw):
        out = real(model, K=K, function_class=function_class, **kw)
        return dataclasses.replace(out, proof_residual=1e-3) if function_class == "quadratic" else out

    monkeypatch.setattr(S, "solve_pep", stalled)
    p = certificate_point("shared", "path", 3, 1e3, 100.0, rate_methods=("apapc",))
    assert p["solved"]  # the certificate is fine: the error is the series point's
    q = p["rate"]
    assert "per_accuracy" not in q and len(q["quadratic_attempts"]) == 2
    assert "L_f = 1000, mu_f = 1" in q["error"] and "L_f = 1, mu_f = 0.001" in q["error"]


def _series_points(check, tier, slope: float | None, skipped: str | None = None) -> dict:
    """Synthetic certificate points carrying a series point with grad (and comm) counts ``∝ κ^slope``."""
    pts = {}
    for t in check.tasks(tier):
        if skipped:
            pts[t.key] = {"skipped": skipped}
            continue
        kf, kw = t.kwargs["kappa_f"], t.kwargs["kappa_W"]
        y = 30.0 * kf ** slope
        per = {"grad": y, "A": 0.0, "C": 0.0, "Ct": 0.0, "comm": y * kw ** 0.5}
        cnt = {o: int(round(c)) for o, c in per.items()}
        rate = {"converged": True, "reason": "tolerance", "iterations": 100, "final_error": 5e-7,
                "final_error_recomputed": 5e-7, "eps_asked": 1e-6, "realized": {"kappa_f": kf, "kappa_W": kw},
                "targets": {"kappa_f": kf, "kappa_W": kw}, "counts1": cnt, "counts2": cnt, "per_accuracy": per,
                "per_iteration": per, "iterations_window": 1.0, "settle": {}, "n": 3, "variables": 51,
                "solver": {"degrees": {}}, "source": "F(mu_f, L_f)", "rho_pep": 0.9}
        pts[t.key] = {"rho_pep": 0.9, "rate": rate}
    return pts


@pytest.mark.parametrize("slope,caught", [(0.45, True), (0.0, False)])
def test_series_control(slope, caught):
    """control.rates.exponent-0.5…@pep-worst: a κ_f slope of 0.45 fails against exponent 0 (caught); a flat
    series could not be told from that claim (not caught)."""
    from mixbounds.checks.rates import PEP_CONTROL_ID, checks

    ch = next(c for c in checks() if c.id == "control.rates.exponent.pep_worst")
    (r,) = ch.finalize(TINY, _series_points(ch, TINY, slope))
    assert r.id == PEP_CONTROL_ID and r.control and r.caught is caught


def test_series_verdicts_and_skip():
    """The series' verdicts (ids ``…@pep-worst``, the provenance in extra and detail) and, without the [pep]
    extra, every one of them skipped with the reason."""
    from mixbounds.checks.rates import checks

    ch = next(c for c in checks() if c.id == "rates.pep_worst")
    res = ch.finalize(TINY, _series_points(ch, TINY, 0.5))
    assert [r.id for r in res] == ch.result_ids(TINY)
    r = next(r for r in res if r.id == "T1.consensus.grad.kappa_f.upper@pep-worst")
    assert r.status == "pass" and r.verdict_label is None and r.measured == pytest.approx(0.5, abs=1e-9)
    assert "PEP worst cases" in r.detail and len(r.extra["pep_worst"]) == len(r.points)
    skipped = ch.finalize(TINY, _series_points(ch, TINY, None, skipped="the [pep] extra is not installed"))
    assert all(r.status == "skipped" and "[pep]" in r.detail for r in skipped)
