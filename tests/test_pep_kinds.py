"""Class-level, several-slot and binding PEP certificates, and the controls at the boundary (checks/pep/kinds)."""

from __future__ import annotations

import pytest
from mixbounds.checks.pep import availability

HAVE_PEP = availability.available()
needs_pep = pytest.mark.skipif(not HAVE_PEP, reason=availability.missing_reason() or "")

#: a ρ against its measured reference: the SDP's accuracy (PEP_ACCURACY = 1e-6) with margin
RHO_ATOL = 1e-6
#: a margin of a control against its measured value (a difference of two ρ's)
MARGIN_ATOL = 1e-5


@needs_pep
@pytest.mark.parametrize("cls,kf,kw,method,rho", [
    ("consensus", 10.0, 100.0, "apapc", 0.8543299),        # = the path's value: the worst case is network-blind
    ("consensus", 10.0, 1000.0, "apapc-nocheb", 0.9990124),  # τ = 1 (χ = 1000 >= 4κ)
    ("coupled", 10.0, 100.0, "apapc", 0.9685212),
    ("mixed", 10.0, 100.0, "apapc", 0.9697079),
])
def test_class_certificate_reference(cls, kf, kw, method, rho):
    from mixbounds.checks.pep.kinds.points import class_point

    p = class_point(cls, kf, kw, method)
    assert p["solved"] and p["exact"], p.get("exact_reason")
    assert p["rho_pep"] == pytest.approx(rho, abs=RHO_ATOL)
    assert p["rho_pep"] < p["rho_theorem"] and p["exact_t"] <= p["rho_theorem"]


@needs_pep
def test_binding_certificate_uses_the_dual_state():
    """Without Chebyshev at χ = 1.05κ (path of 3, κ_f = 10, κ_W = 10.5): rank-2 worst case, dual share 0.87 of V⁰;
    within its class value."""
    from mixbounds.checks.pep.kinds.points import binding_point
    from mixbounds.checks.pep.kinds.results import binding_verdict

    p = binding_point("network", 1, "any", kappa_W=10.5)
    assert p["rho_pep"] == pytest.approx(0.9267404, abs=RHO_ATOL)
    assert p["rank"] == 2 and p["dual_share_V0"] > 0.5
    assert p["rho_pep"] <= p["rho_class"] + RHO_ATOL
    assert binding_verdict("pep.binding.network", p, required=True).status == "pass"
    # control of the binding rule: the same point with its dual share removed is not binding
    assert binding_verdict("x", dict(p, dual_share_V0=0.0), required=True).status == "fail"


@needs_pep
def test_interval_control_caught_by_containment():
    """Chebyshev interval widened 2× at κ_f = 1.5: ρ_network 0.68025 > ρ_class 0.63504 (margin 0.0452)."""
    from mixbounds.checks.pep.kinds.points import interval_point
    from mixbounds.checks.pep.kinds.results import _control

    p = interval_point(2.0, 1.5, 100.0)
    assert p["rho_pep"] - p["rho_class"] == pytest.approx(0.0452097, abs=MARGIN_ATOL)
    r = _control("c", p, "rho_pep", "rho_class", "interval")
    assert r.status == "fail" and r.readings["margin"] > 0.04
    # and the correctly built network at the same point is inside its class
    from mixbounds.checks.pep.kinds.points import network_point, scalar_or_block_model

    q = network_point(scalar_or_block_model("consensus", 1.5, 100.0))
    assert q["rho_pep"] <= q["rho_class"] + RHO_ATOL


@needs_pep
def test_theta_threshold_both_sides():
    """Certified at θ × f*(1 − s), caught at θ × f*(1 + s) (f* = the recorded bisected threshold)."""
    from mixbounds.checks.pep.kinds.boundary import THETA_STEP, THETA_THRESHOLD
    from mixbounds.checks.pep.kinds.points import theta_point

    lo = theta_point(THETA_THRESHOLD * (1 - THETA_STEP))
    hi = theta_point(THETA_THRESHOLD * (1 + THETA_STEP))
    assert lo["solved"] and lo["rho_pep"] <= lo["rho_theorem"]
    assert hi["solved"] and hi["rho_pep"] > hi["rho_theorem"] + 1e-3


@needs_pep
@pytest.mark.slow
def test_theta_threshold_bisection_matches_the_recorded_value():
    from mixbounds.checks.pep.kinds.boundary import THETA_RTOL, THETA_THRESHOLD
    from mixbounds.checks.pep.kinds.points import theta_point

    assert theta_point(bisect=True)["threshold"] == pytest.approx(THETA_THRESHOLD, rel=2 * THETA_RTOL)


@needs_pep
@pytest.mark.parametrize("scope,excess", [("class", 0.3193164), ("network", 0.0232278)])
def test_no_dual_control_is_bounded_and_caught(scope, excess):
    """V without its dual terms on the binding case: a bounded SDP whose positive excess is the margin."""
    from mixbounds.checks.pep.kinds.points import no_dual_point
    from mixbounds.checks.pep.kinds.results import _control

    p = no_dual_point(scope)
    assert p["solved"] and not p["unbounded"]
    assert p["excess"] == pytest.approx(excess, abs=MARGIN_ATOL)
    assert _control("c", p, "excess", None, "no dual").status == "fail"


def test_containment_and_exact_verdicts():
    """The verdict rules on synthetic points: a network above its class fails; fewer than 90% exact fails."""
    from mixbounds.checks.pep.kinds.results import containment_verdict, exact_verdict

    base = {"solved": True, "class_solved": True, "rho_pep": 0.9, "rho_class": 0.91, "rho_theorem": 0.95, "K": 1,
            "class": "consensus", "network": "path", "N": 3, "kappa_f": 10.0, "kappa_W": 100.0, "kappa_G": 10.0,
            "chi": 1.7, "exact": True, "exact_t": 0.9000001, "scope": "network"}
    assert containment_verdict("c", [base]).status == "pass"
    assert containment_verdict("c", [base, dict(base, rho_pep=0.92)]).status == "fail"
    assert exact_verdict("e", [base] * 9 + [dict(base, exact=False, exact_t=None)]).status == "pass"
    assert exact_verdict("e", [base] * 8 + [dict(base, exact=False, exact_t=None)] * 2).status == "fail"


@needs_pep
@pytest.mark.slow
@pytest.mark.parametrize("cls,rho,rho_class", [("coupled", 0.9579410, 0.9684567), ("coupled_local", 0.9598634, 0.9695299),
                                               ("mixed", 0.9600055, 0.9697079)])
def test_block_certificates(cls, rho, rho_class):
    """Several slots per node (A_i ∈ R^{1×2}; C_i ∈ R^{1×2}; f_i(x_i, x̃_i)), path of 3, κ_f = 10, κ_W = 100."""
    from mixbounds.checks.pep.kinds.points import block_point

    p = block_point(cls, 10.0, 100.0)
    assert p["solved"] and p["exact"]
    assert p["rho_pep"] == pytest.approx(rho, abs=RHO_ATOL)
    assert p["rho_class"] == pytest.approx(rho_class, abs=RHO_ATOL)


def test_block_model_structure():
    """The several-slot models read the suite's reformulation: 9 slots, a node function on 2 slots."""
    from mixbounds.checks.pep.kinds.blocks import block_model

    m = block_model("coupled_local", "path", 3, 10.0, 100.0)
    assert m.size == 9 and all(len(s) == 2 for s in m.node_slot)
    assert m.params.lam_min < m.params.lam_max


def test_class_grids_cover_the_theorem_s_regimes():
    """Every class's full-tier grid has points in each branch of thm:apapc's factor and of the rule: χ <= κ,
    κ < χ < 4κ and χ >= 4κ (τ = 1), at the constants the suite's reformulation gives (issue 46, item 1); at least 8
    points per class, the quick tier's first two included."""
    from mixbounds.checks.pep.kinds.points import regime, scalar_or_block_model
    from mixbounds.checks.pep.kinds.results import CLASS_GRID

    for cls, grid in CLASS_GRID.items():
        assert len(grid) >= 8, cls
        seen = set()
        for kf, kw, method, *extra in grid:
            p = scalar_or_block_model(cls, kf, kw, method, **(extra[0] if extra else {})).params
            seen.add(regime(p.kappa, p.chi).split(" ")[0])
        assert seen == {"chi<=kappa", "kappa<chi<4kappa", "chi>=4kappa"}, (cls, seen)
