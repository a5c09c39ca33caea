"""The T2 reference audit (checks/audits/audit_reference.py): passes on the suite's references, fails on planted ones."""

from __future__ import annotations

import numpy as np
import pytest
from mixbounds.checks.audits import audit_reference as ar
from mixbounds.checks.tiers import QUICK, TINY
from mixbounds.instances.families import build

#: the dense references are exact to rounding: their measured worst distance to the nearest minimiser is ~1e-13
MEASURED_RTOL = 1e-12


@pytest.mark.parametrize("cls", ar._classes())
def test_tier_references_pass(cls):
    fam, plist = ar.tier_params(TINY, cls)
    p = ar.reference_audit(fam, plist)
    r = ar.judge("t", p)
    assert r.status == "pass", r.detail
    assert len(p["instances"]) == len(plist) >= 3
    assert all(row["nearest"] <= MEASURED_RTOL and row["kkt"] <= MEASURED_RTOL for row in p["instances"])


def test_coupled_solution_set_is_not_trivial():
    """The control needs a direction to move along: the coupled class's minimisers form a set."""
    fam, plist = ar.tier_params(QUICK, "coupled")
    p = ar.reference_audit(fam, plist[:1])
    assert p["instances"][0]["solution_set_dim"] > 0


@pytest.mark.parametrize("plant,key,at_least", [("other-minimiser", "nearest", 0.5),
                                                ("not-a-minimiser", "kkt", 1e-8)])
def test_controls_fail(plant, key, at_least):
    fam, plist = ar.tier_params(QUICK, "coupled")
    p = ar.reference_audit(fam, plist, plant=plant)
    r = ar.judge("c", p, control=True)
    assert r.status == "fail", r.detail
    assert len(p["instances"]) == 1 and p["instances"][0][key] >= at_least


def test_other_minimiser_keeps_kkt():
    """The shifted reference is still an exact minimiser: only the nearest-point test can tell."""
    fam, plist = ar.tier_params(QUICK, "coupled")
    row = ar.reference_audit(fam, plist, plant="other-minimiser")["instances"][0]
    assert row["kkt"] <= MEASURED_RTOL and row["copies"] <= MEASURED_RTOL


def test_measure_by_hand():
    """Two unknowns, F(v) = ½ v₁² − v₁ (flat in v₂), no constraint row but v₁ + 0·v₂ = 1: the minimisers are
    (1, t); the nearest to 0 is (1, 0), and (1, 1) is at distance 1/√2 of its norm."""
    E = np.eye(2)
    H = np.array([[1.0, 0.0], [0.0, 0.0]])
    g = np.array([1.0, 0.0])
    G = np.array([[1.0, 0.0]])
    h = np.array([1.0])
    good = ar.measure(E, H, g, G, h, np.array([1.0, 0.0]))
    assert good["nearest"] <= 1e-15 and good["kkt"] <= 1e-15
    far = ar.measure(E, H, g, G, h, np.array([1.0, 1.0]))
    assert far["nearest"] == pytest.approx(1 / np.sqrt(2), rel=1e-12) and far["kkt"] <= 1e-15


def test_unknown_plant_and_large_instance_are_refused(monkeypatch):
    with pytest.raises(ValueError, match="unknown plant"):
        ar.reference_audit("convex-coupled", [{}], plant="nonsense")
    monkeypatch.setattr(ar, "DENSE_MAX", 5)
    with pytest.raises(ValueError, match="exceed the dense audit"):
        ar._systems(build("convex-coupled"))


@pytest.mark.parametrize("table", ar.NONSMOOTH_TABLES)
@pytest.mark.parametrize("cls", ar._classes(3))
def test_nonsmooth_references_pass(table, cls):
    fam, plist = ar.tier_params(TINY, cls, table)
    p = ar.lad_reference_audit(fam, plist)
    r = ar.judge("t", p, table=table)
    assert r.status == "pass", r.detail
    assert all(row["box_margin"] > 0 and row["stationarity"] <= ar.LAD_STAT_RTOL for row in p["instances"])


@pytest.mark.parametrize("table", ar.NONSMOOTH_TABLES)
def test_nonsmooth_control_fails_on_stationarity(table):
    """A feasible point 1e-4·‖u*‖ away is not optimal: the certificate fails while feasibility holds."""
    fam, plist = ar.tier_params(QUICK, "coupled", table)
    p = ar.lad_reference_audit(fam, plist, plant="not-a-minimiser")
    row = p["instances"][0]
    assert ar.judge("c", p, control=True, table=table).status == "fail"
    assert row["stationarity"] > 100 * ar.LAD_STAT_RTOL and row["feasibility"] <= ar.KKT_RTOL


def test_t4_reference_at_the_old_qp_tolerance_fails(monkeypatch):
    """The dense QP reference stopped at 1e-11 (its default, used before QP_TOL) is caught: stationarity 2.6e-6."""
    from mixbounds.instances import nonsmooth as nsm

    monkeypatch.setattr(nsm, "QP_TOL", 1e-11)
    fam, plist = ar.tier_params(QUICK, "coupled", 4)
    r = ar.judge("t", ar.lad_reference_audit(fam, plist[:1]), table=4)
    assert r.status == "fail" and r.measured > 10 * ar.LAD_STAT_RTOL


def test_nonsmooth_unknown_plant_is_refused():
    with pytest.raises(ValueError, match="unknown plant"):
        ar.lad_reference_audit("nonsmooth-coupled", [{}], plant="other-minimiser")
