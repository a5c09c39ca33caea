"""The suite's own Tables 2–4 lower bounds claim an exponent only where the counts to δ·e₀ carry it.

Read at a fixed level, a construction's count can stop growing where its hard tail holds less than δ of e₀ (the full
tier measured [98, 152, 192, 118, 2, 2, 2] for the coupled construction's A count in κ_A from 100 to 10⁶); such a
sweep must not report the closed form's exponent (docs/records/lower-bounds.md)."""

from __future__ import annotations

from mixbounds.checks.lower import tables234
from mixbounds.checks.tiers import FULL, QUICK

from mixbounds.report import verify as report

#: the closed form's exponent of the per-accuracy count (Table 1)
CLOSED = 0.5


def test_collapsing_counts_are_not_carried_in_any_tier():
    measured = [98, 152, 192, 118, 2, 2, 2]  # full tier, T2.coupled.A.kappa_A.lower, κ_A = 100 … 10⁶
    for tier in (QUICK, FULL):
        why = tables234._carried(tier, measured, -0.579, CLOSED)
        assert why is not None and "fall from point 4" in why


def test_growing_counts_are_carried_and_the_fit_band_is_judged_in_the_full_tier_only():
    growing = [35, 75, 161, 346, 745, 1604, 3454]
    assert tables234._carried(FULL, growing, 0.499, CLOSED) is None
    assert tables234._carried(FULL, growing, 0.438, CLOSED) is None  # the slowest carried full-tier fit measured
    slow = CLOSED - tables234.CARRY_BAND - 0.01
    assert tables234._carried(FULL, growing, slow, CLOSED) is not None
    assert tables234._carried(QUICK, growing, slow, CLOSED) is None  # quick grids start pre-asymptotic: recorded


def test_the_report_shows_no_exponent_for_a_sweep_not_carried():
    doc = {"claims": [{"id": "T2.coupled.A.kappa_A.lower", "status": "pass", "param": "kappa_A",
                       "verdict_label": tables234.NOT_CARRIED, "readings": {"fit": -0.579},
                       "extra": {"own": True, "lower_exponent": None, "upper_exponent": 0.5, "gap": None,
                                 "construction": "printed", "method_class": "def:foda"}}]}
    out: list[str] = []
    report.render_md(report._own_lower_section(doc), None, out)
    row = next(line for line in out if "T2.coupled.A.kappa_A.lower" in line)
    assert "not established" in row and tables234.NOT_CARRIED in row and "0.500" not in row
