"""The PEP engine (checks/pep/engine): exact forms, the exact check of dual certificates, agreement with PEPit."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from mixbounds.checks.pep import availability

HAVE_PEP = availability.available()
needs_pep = pytest.mark.skipif(not HAVE_PEP, reason=availability.missing_reason() or "")

#: engine vs PEPit on the same PEP: both solve to ~1e-8 (proof residuals); measured differences <= 5e-9
PEPIT_ATOL = 1e-6
#: a class-level value vs its reference: the SDP's accuracy (PEP_ACCURACY) with margin
RHO_ATOL = 1e-6


def test_dyadic_arithmetic_is_exact():
    from mixbounds.checks.pep.engine.forms import D, q

    a, b = q(0.1), q(1 / 3)
    assert (a * b).fraction() == Fraction(0.1) * Fraction(1 / 3)
    assert (a + b - a).fraction() == Fraction(1 / 3)
    assert (q(3) * q(0.25)).fraction() == Fraction(3, 4)
    with pytest.raises(ValueError, match="not dyadic"):
        q(Fraction(1, 3))
    assert not D(0) and D(5, -2).fraction() == Fraction(5, 4)


def test_exact_psd_tests():
    """The exact PSD tests accept PSD matrices (singular ones too) and reject a matrix 1e-12 off the cone."""
    from mixbounds.checks.pep.engine.exact import ldl_psd, psd_integer, psd_verified

    rng = np.random.default_rng(0)
    B = rng.integers(-3, 4, size=(6, 4))
    M = [[Fraction(int(v)) for v in row] for row in B @ B.T]  # PSD, rank 4
    assert ldl_psd(M)[0] and psd_integer([[int(v) for v in row] for row in B @ B.T])[0]
    e = Fraction(1, 10 ** 12)
    null = np.linalg.svd(B.T)[2][-1]  # a kernel direction: M − e·vvᵀ with v in ker M is not PSD
    v = [Fraction(float(t)) for t in null]
    bad = [[M[i][j] - e * v[i] * v[j] for j in range(6)] for i in range(6)]
    assert not ldl_psd(bad)[0]
    pd = [[M[i][j] + (Fraction(1, 100) if i == j else 0) for j in range(6)] for i in range(6)]
    assert psd_verified(pd)[0] and not psd_verified(bad)[0]


@needs_pep
def test_exact_certificate_refuses_a_bound_below_the_pep_value():
    """The exact check is not a rubber stamp: t = 0.999·(the SDP's bound) must fail, t = bound·(1 + 1e-7) verify."""
    from mixbounds.checks.pep.engine.conic import solve
    from mixbounds.checks.pep.engine.exact import _Identity
    from mixbounds.checks.pep.kinds.classlevel import ClassSpec, build

    tr = build(ClassSpec(1.0, 10.0, 0.7359, 1.2641))
    sol = solve(tr.pep)
    ident = _Identity(tr.pep, sol.duals)
    assert ident.verify(sol.value * (1 + 1e-7))[0]
    assert not ident.verify(sol.value * 0.999)[0]


@needs_pep
@pytest.mark.parametrize("mu,L,lo,hi", [(1.0, 10.0, 0.7359, 1.2641), (1.0, 236.0, 0.83, 1.19), (1.0, 10.0, 1.0, 1000.0)])
def test_class_pep_agrees_with_pepit(mu, L, lo, hi):
    """The class-level PEP (kernel/range partition, z − z* = P·w) and PEPit's BlockPartition + SymmetricLinearOperator
    formulation of it (mixbounds.checks.pep.pepit_reference.class_rho) give the same ρ."""
    from mixbounds.checks.pep.engine.conic import solve
    from mixbounds.checks.pep.kinds.classlevel import ClassSpec, build
    from mixbounds.checks.pep.pepit_reference import class_rho

    spec = ClassSpec(mu, L, lo, hi)
    assert solve(build(spec).pep).value == pytest.approx(class_rho(spec), abs=PEPIT_ATOL)


@needs_pep
def test_network_pep_agrees_with_pepit():
    """The fixed-network PEP on the engine and as first written with PEPit (coupled, path of 3)."""
    from mixbounds.checks.pep import pepit_reference
    from mixbounds.checks.pep.model import linear_model
    from mixbounds.checks.pep.performance import solve_pep
    from mixbounds.checks.pep.points import _data

    m = linear_model(_data("coupled", "path", 3, 10.0, 100.0))
    assert solve_pep(m, exact=False).rho == pytest.approx(pepit_reference.solve_pep(m).rho, abs=PEPIT_ATOL)
