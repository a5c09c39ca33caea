"""mixbounds.checks.tables234: coverage of Tables 2-4, verdict rules, controls and findings (synthetic points)."""

import math

import pytest
from mixbounds.bounds.claims import REGISTRY, get
from mixbounds.checks import tables234
from mixbounds.checks.registry import all_checks
from mixbounds.checks.tables234.points import ACC, point
from mixbounds.checks.tables234.rules import verdict
from mixbounds.checks.tiers import QUICK


def _pts(param, xs, ys, oracle="A", table=3):
    out = []
    for x, y in zip(xs, ys):
        real = {"kappa_W": 10.0, "kappa_A": 10.0, "kappa_AC": 10.0, "kappa_C": 10.0, "kappa_Ct": 8.0, ACC[table]: 30.0}
        real[param] = x
        out.append({"converged": True, "per_accuracy": {"grad": y, "A": y, "C": y, "Ct": y, "comm": y}, "realized": real,
                    "eps": 0.1, "iterations": 10, "family": "f"})
    return out


def test_every_cell_of_tables_2_to_4_is_measured():
    ids = set()
    for c in tables234.checks():
        ids.update(c.result_ids(QUICK))
    for cell in REGISTRY:
        if cell.table in (2, 3, 4) or (cell.table is None and cell.id.startswith("T2.")):
            acc = ACC[int(cell.id[1])]
            assert any(i.startswith(f"{cell.id}.{acc}.") for i in ids), cell.id
    assert "finding.alg_sliding.line12" in ids
    # the four method controls, the three controls of the Table 2 factor reading and the one of its per-e-fold-needed
    # reading (mixbounds.checks.table2_factors)
    assert sum(i.startswith("control.") for i in ids) == 8
    assert sum(".factors." in i for i in ids if i.startswith("control.")) == 3
    assert sum(".needed." in i for i in ids if i.startswith("control.")) == 1


def test_registered_in_framework():
    assert any(c.id.startswith("nonsmooth.") for c in all_checks())


def test_upper_and_absent_rules():
    tier = QUICK
    tol = tier.tables24.slope_tol
    xs = [10.0, 20.0, 40.0, 80.0]
    cell = get("T3.coupled.A")
    ok = verdict(tier, 3, cell, "kappa_A", xs, _pts("kappa_A", xs, [100 * x ** 0.5 for x in xs]))
    assert ok.status == "pass" and ok.measured == pytest.approx(0.5)
    bad = verdict(tier, 3, cell, "kappa_A", xs, _pts("kappa_A", xs, [100 * x ** (0.5 + 2 * tol) for x in xs]))
    assert bad.status == "fail"
    absent = verdict(tier, 3, cell, "kappa_W", xs, _pts("kappa_W", xs, [100 * x ** (tol / 2) for x in xs]))
    assert absent.kind == "absent" and absent.status == "pass"
    absent_bad = verdict(tier, 3, cell, "kappa_W", xs, _pts("kappa_W", xs, [100 * x ** (-2 * tol) for x in xs]))
    assert absent_bad.status == "fail"


def test_table2_accuracy_target_includes_the_log():
    xs = [30.0, 60.0, 120.0, 300.0]
    cell = get("T2.coupled.grad")
    ys = [10 * math.sqrt(x) * math.log(x) for x in xs]
    r = verdict(QUICK, 2, cell, "LR2_eps", xs, _pts("LR2_eps", xs, ys, table=2))
    assert r.status == "pass" and r.theory > 0.5


def test_table4_log_factor_is_a_finding_and_controls_fail():
    xs = [8.0, 16.0, 32.0, 64.0]
    cell = get("T4.coupled.A")
    ys = [10 * x * (2 * math.log(x)) ** 1.6 for x in xs]  # x·log^1.6 x: above x + tol, within x·log x + tol
    r = verdict(QUICK, 4, cell, "M_mu_eps", xs, _pts("M_mu_eps", xs, ys, table=4))
    assert r.status in ("finding", "fail")
    ys2 = [10 * x * math.log(x) for x in xs]
    r2 = verdict(QUICK, 4, cell, "M_mu_eps", xs, _pts("M_mu_eps", xs, ys2, table=4))
    assert r2.status in ("pass", "finding")
    if r2.status == "finding":
        assert r2.findings and r2.findings[0].id.endswith("log_factor")
    ctrl = verdict(QUICK, 4, cell, "M_mu_eps", xs, _pts("M_mu_eps", xs, [x ** 2 for x in xs], table=4), control=True,
                      rid="control.x")
    assert ctrl.status == "fail" and ctrl.caught


def test_discrepancy_cell_is_a_finding():
    xs = [10.0, 20.0, 40.0, 80.0]
    cell = get("T4.mixed.A")
    r = verdict(QUICK, 4, cell, "kappa_AC", xs, _pts("kappa_AC", xs, [50 * x ** 0.5 for x in xs], table=4))
    assert r.status == "finding" and r.findings


def test_unconverged_points_are_errors_not_counts():
    xs = [10.0, 20.0]
    pts = _pts("kappa_A", xs, [1, 2])
    pts[1]["converged"] = False
    r = verdict(QUICK, 3, get("T3.coupled.A"), "kappa_A", xs, pts)
    assert r.status == "error"


def test_one_point_runs():
    p = point(3, "nonsmooth-coupled", {"kappa_W": 10.0, "kappa_AC": 10.0}, 15.0, "sliding")
    assert p["converged"] and p["per_accuracy"]["A"] > 0
    assert p["realized"]["MR_eps"] == 15.0
    assert p["eps"] == pytest.approx(p["M"] * p["R"] / 15.0)
