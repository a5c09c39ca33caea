"""The identical-C̃ classes' PEP certificates (checks/pep/kinds/identical.py)."""

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
