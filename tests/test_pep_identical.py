"""The identical-C̃ classes' PEP certificates (checks/pep/kinds/identical.py) and the worst single mode
(checks/pep/kinds/modes.py) with the binding certificates it qualifies."""

from __future__ import annotations

import numpy as np
import pytest
from mixbounds.checks.pep import availability

HAVE_PEP = availability.available()
needs_pep = pytest.mark.skipif(not HAVE_PEP, reason=availability.missing_reason() or "")

#: a ρ against its measured reference: the SDP's accuracy (PEP_ACCURACY = 1e-6) with margin
RHO_ATOL = 1e-6
#: a margin of a control against its measured value (a difference of two ρ's)
MARGIN_ATOL = 1e-5
#: the operator's extreme eigenvalues against lem:local_spectrum's ends: the lower end is attained (at λ_min+(W)'s
#: mode, in ker C̃) and the two agree up to the rounding of the Chebyshev polynomial's evaluation (measured 1.7e-15)
SPECTRUM_RTOL = 1e-12
#: the single-mode bound is a grid maximum refined to about 1e-9 relative; a PEP solved to 1e-6 may sit that much
#: below an instance's exact contraction
MODE_ATOL = 1e-6


@pytest.mark.parametrize("cls", ["shared_ident", "mixed_ident"])
@pytest.mark.parametrize("dt,method,kw", [(3, "apapc", 100.0), (3, "apapc-nocheb", 3.0), (2, "apapc", 100.0)])
def test_identical_model_is_the_suite_s_identical_reformulation(cls, dt, method, kw):
    """The instance has identical C̃_i, its X̃-block is the identical one without an outer polynomial, and the suite's
    operator has its positive spectrum inside lem:local_spectrum's interval (the lower end attained)."""
    from mixbounds.checks.pep.kinds.identical import ident_model, ident_problem

    m = ident_model(cls, "path", 3, 10.0, kw, method, kappa_Ct=10.0 if dt == 3 else 1.0, dt=dt)
    t = m.reform["blocks"]["t"]
    assert t["kind"] == "shared_identical" and not t["outer"] and m.reform["degrees"]["K_t"] == 1
    if cls == "mixed_ident":
        assert m.reform["blocks"]["x"]["outer"] == (method == "apapc")  # B₁ keeps its outer polynomial
    ev = np.linalg.eigvalsh(m.P)
    pos = ev[ev > 1e-10 * ev[-1]]
    lo, hi = m.params.lam_min, m.params.lam_max
    assert pos.min() >= lo * (1 - SPECTRUM_RTOL) and pos.max() <= hi * (1 + SPECTRUM_RTOL)
    problem, slots = ident_problem(cls, m.data, dt, 10.0 if dt == 3 else 1.0)
    assert problem.identical_shared and all(len(s) == len(slots[0]) for s in slots)


def test_identical_Ct_refuses_what_it_cannot_build():
    from mixbounds.checks.pep.kinds.identical import ident_Ct

    assert np.linalg.svd(ident_Ct(3, 25.0), compute_uv=False) == pytest.approx([1.0, 0.2], rel=1e-12)
    with pytest.raises(ValueError, match="dt = 2"):
        ident_Ct(2, 10.0)
    with pytest.raises(ValueError, match="dt must be 2 or 3"):
        ident_Ct(4, 10.0)


@needs_pep
@pytest.mark.parametrize("cls,kf,kw,method,kc,rho", [
    ("shared_ident", 10.0, 100.0, "apapc", 10.0, 0.9006242),
    ("shared_ident", 10.0, 3.0, "apapc-nocheb", 10.0, 0.9901243),   # τ = 1 (χ = 100 >= 4κ)
    ("mixed_ident", 10.0, 100.0, "apapc", 10.0, 0.9799468),
    ("mixed_ident", 1.1, 3.0, "apapc-nocheb", 10.0, 0.9972884),      # τ = 1 (χ = 368 >= 4κ_G = 317)
])
def test_identical_class_certificate_reference(cls, kf, kw, method, kc, rho):
    from mixbounds.checks.pep.kinds.points import class_point

    p = class_point(cls, kf, kw, method, kappa_Ct=kc)
    assert p["solved"] and p["exact"], p.get("exact_reason")
    assert p["rho_pep"] == pytest.approx(rho, abs=RHO_ATOL)
    assert p["rho_pep"] < p["rho_theorem"] and p["exact_t"] <= p["rho_theorem"]
    assert p["kappa_Ct"] == kc and p["blocks"] == "several slots"


@needs_pep
def test_identical_fact_control_caught_by_containment():
    """λ_min+(W) overstated 2× in lem:local_spectrum: the suite's operator reaches 0.2215 below the assumed
    lo = 0.6355, and ρ_network 0.9239250 exceeds ρ_class 0.7827663; built from the true facts, the same network is
    inside its class (ρ_network = ρ_class = 0.8190371: the worst case is the class's)."""
    from mixbounds.checks.pep.kinds.points import block_point, ident_fact_point, network_point
    from mixbounds.checks.pep.kinds.results import _control

    p = ident_fact_point("shared_ident", 1.5, 100.0, "lambda_min_W", 2.0)
    assert p["operator_spectrum"][0] < p["lo"]
    assert p["rho_pep"] - p["rho_class"] == pytest.approx(0.1411587, abs=MARGIN_ATOL)
    assert _control("c", p, "rho_pep", "rho_class", "fact").status == "fail"
    from mixbounds.checks.pep.kinds.identical import DT_NETWORK, ident_model

    q = network_point(ident_model("shared_ident", "path", 3, 1.5, 100.0, dt=DT_NETWORK), blocks="several slots")
    assert q["rho_pep"] <= q["rho_class"] + RHO_ATOL
    assert q["rho_pep"] == pytest.approx(0.8190371, abs=RHO_ATOL)
    r = block_point("shared_ident", 10.0, 100.0)
    assert r["solved"] and r["exact"] and r["rho_pep"] <= r["rho_class"] + RHO_ATOL


@needs_pep
@pytest.mark.parametrize("kappa_f,kappa_W,method,K,start,equal", [
    (10.0, 100.0, "apapc", 1, "any", True),                 # network-blind: the consensus direction, h = μ
    (10.0, 1000.0, "apapc-nocheb", 5, "algorithm", True),   # the network's λ_min+, h = μ
    (100.0, 100.0, "apapc-nocheb", 5, "algorithm", False),  # χ = κ: the worst case couples two modes
    (10.0, 10.5, "apapc-nocheb", 1, "any", False),
])
def test_single_mode_bound_against_the_class_pep(kappa_f, kappa_W, method, K, start, equal):
    """Every single mode is an instance of the class (ρ_mode <= ρ_PEP); at the rank-1 points a mode is the worst
    case (equal), at the rank-2 ones the PEP exceeds every mode (ρ_PEP^K − ρ_mode^K measured 7.2e-4 and 2.5e-4)."""
    from mixbounds.checks.pep.kinds.modes import mode_bound
    from mixbounds.checks.pep.kinds.points import class_point, scalar_or_block_model

    m = scalar_or_block_model("consensus", kappa_f, kappa_W, method)
    p = class_point("consensus", kappa_f, kappa_W, method, K=K, start=start)
    mb = mode_bound(m.params, K, start)
    assert mb.rho <= p["rho_pep"] + MODE_ATOL
    if equal:
        assert mb.rho == pytest.approx(p["rho_pep"], abs=MODE_ATOL) and p["rank"] == 1
    else:
        assert p["rho_pep"] ** K - mb.rho ** K > 1e-4 and p["rank"] == 2


def test_single_mode_bound_sees_a_wider_spectrum():
    """Negative control of ρ_mode as a lower bound: the modes of an operator with an eigenvalue at lo/4 (outside the
    interval the parameters assume) contract slower than every mode inside it."""
    from mixbounds.checks.pep.kinds.modes import mode_bound
    from mixbounds.solvers.apapc import APAPCParameters

    p = APAPCParameters.rule(10.0, 1.0, 10.5, 1.0)
    inside = mode_bound(p, 1, "any")
    outside = mode_bound(p, 1, "any", lams=np.array([0.0, p.lam_min / 4, p.lam_max]))
    assert outside.rho > inside.rho + 1e-3 and outside.lam == pytest.approx(p.lam_min / 4)


@needs_pep
def test_two_mode_binding_certificate():
    """K = 5 from the algorithm's start at χ = κ = 100 (class scope): rank 2, dual share 0.94, beyond every single
    mode; the rule's control: the same point with ρ_mode raised to ρ_PEP (a tie of two modes) is not binding."""
    from mixbounds.checks.pep.kinds.results import _binding_task, binding_verdict

    t = _binding_task("kstep_two_modes")
    p = t.func(**t.kwargs)
    assert p["rho_pep"] == pytest.approx(0.9902300, abs=RHO_ATOL) and p["exact"]
    assert p["rank"] == 2 and p["dual_share_V0"] > 0.9
    assert p["rho_mode"] == pytest.approx(0.9900809, abs=RHO_ATOL) and p["mode_lambda"] == 0.0
    assert binding_verdict("b", p, required=True).status == "pass"
    assert binding_verdict("b", dict(p, rho_mode=p["rho_pep"]), required=True).status == "fail"
    assert binding_verdict("b", dict(p, rank=1), required=True).status == "fail"


@needs_pep
@pytest.mark.slow
def test_two_mode_binding_certificate_on_the_path():
    """The same on the path of 3 (full tier's pep.binding.kstep_two_modes_network): the network attains its class
    value with a rank-2 worst case whose second Gram eigenvalue is 1.2e-2 of the first."""
    from mixbounds.checks.pep.kinds.results import _binding_task, binding_verdict

    t = _binding_task("kstep_two_modes_network")
    p = t.func(**t.kwargs)
    assert p["rho_pep"] == pytest.approx(0.9902300, abs=RHO_ATOL) and p["rho_pep"] <= p["rho_class"] + RHO_ATOL
    assert p["rank"] == 2 and p["dual_share_V0"] > 0.9 and p["network_share_u0"] > 0.5
    assert binding_verdict("b", p, required=True).status == "pass"


@needs_pep
@pytest.mark.slow
def test_mixed_ident_network_certificate():
    """pep.blocks.mixed_ident (full tier): x_i ∈ R with A_i, x̃_i ∈ R² with C̃ = (1, ½), path of 3, κ_f = 10,
    κ_W = 100: ρ 0.9729886 inside its class value 0.9789530."""
    from mixbounds.checks.pep.kinds.points import block_point

    p = block_point("mixed_ident", 10.0, 100.0)
    assert p["solved"] and p["exact"]
    assert p["rho_pep"] == pytest.approx(0.9729886, abs=RHO_ATOL)
    assert p["rho_class"] == pytest.approx(0.9789530, abs=RHO_ATOL)
