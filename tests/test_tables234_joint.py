"""Tables 2–4 κ sweeps read at an accuracy swept jointly with κ (issue 47, item 3): where the count at a fixed δ
stops growing, the same sweep below each point's accuracy threshold carries the closed form's exponent."""

from __future__ import annotations

import pytest
from mixbounds.bounds.claims import get
from mixbounds.checks.lower import tables234
from mixbounds.checks.lower.constructions import CONSTRUCTIONS, base, grid, task
from mixbounds.checks.lower.exact import HEAD_CUT, WINDOW
from mixbounds.checks.tiers import QUICK


@pytest.fixture(scope="module")
def sweep():
    c = next(c for c in CONSTRUCTIONS if c.family == "coupled" and c.suffix is None)
    pts = [(v, task(QUICK, c, "kappa_A", v).func(**task(QUICK, c, "kappa_A", v).kwargs)) for v in grid(QUICK, "kappa_A", c)]
    return c, pts


def _judge(c, pts):
    return tables234.judge(QUICK, 2, get("T2.coupled.A"), "kappa_A", c, pts, rid="t", base=base(QUICK, c))


def test_every_kappa_sweep_records_its_thresholds_and_joint_counts(sweep):
    c, pts = sweep
    r = _judge(c, pts)
    j = r.extra["joint"]
    assert r.status == "pass" and r.verdict_label is None
    assert j["exact"] and j["carried"] and all(0 < t <= HEAD_CUT for t in j["thresholds"])
    assert j["deltas"] == pytest.approx([WINDOW * t for t in j["thresholds"]])
    assert j["counts"] == sorted(j["counts"]) and j["counts"][-1] > j["counts"][0]


def test_a_collapse_at_fixed_accuracy_is_carried_below_the_threshold(sweep):
    c, pts = sweep
    flat = tables234._flatten(pts, (f"{tables234.DELTA:g}",))
    r = _judge(c, flat)
    assert r.verdict_label == tables234.CARRIED_BELOW, r.detail
    assert r.extra["lower_exponent"] == pytest.approx(0.5, abs=1e-3) and "thresholds" in r.detail


def test_flat_joint_counts_are_not_carried(sweep):
    c, pts = sweep
    flat = tables234._flatten(pts, (f"{tables234.DELTA:g}", "window_end"))
    r = _judge(c, flat)
    assert r.verdict_label == tables234.NOT_CARRIED and r.extra["lower_exponent"] is None
    assert r.extra["joint"]["carried"] is False
