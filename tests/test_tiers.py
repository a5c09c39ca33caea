"""The typed tiers (mixbounds.checks.tiers): parsed by name, frozen, and the grids each tier promises."""

from __future__ import annotations

import dataclasses
import math

import pytest
from mixbounds.checks.tiers import FULL, QUICK, TIER_NAMES, TIERS, TINY, Tier, as_tier, tier_by_name

#: what the tiers promise (module docstring of mixbounds.checks.sweeps): (points, decades) at least, per sweep
PROMISE = {"quick": (4, 1.0), "full": (7, 2.0)}
#: |log10(hi/lo) − decades| allowed: the ranges are powers of ten apart (rounding only)
DECADES_ATOL = 1e-9


def grid_shortfalls(tier: Tier) -> list[str]:
    """Every Table 1 and Tables 2–4 sweep range of ``tier`` that has fewer points or decades than it promises."""
    if tier.name not in PROMISE:
        return []
    points, decades = PROMISE[tier.name]
    ranges = {f"table1.worst_range[{k}]": v for k, v in tier.table1.worst_range.items()}
    ranges.update({f"table1.worst_range_class[{k}]": v for k, v in tier.table1.worst_range_class.items()})
    ranges["table1.random_range"] = tier.table1.random_range
    ranges["tables24.kappa_range"] = tier.tables24.kappa_range
    st = tier.statements
    ranges.update({"statements.apapc_chi": st.apapc_chi[1], "statements.apapc_sqrt": st.apapc_sqrt[1],
                   "statements.sliding_kappa_B": st.sliding_kappa_B, "statements.sliding_x_convex": st.sliding_x_convex,
                   "statements.sliding_x_strong": st.sliding_x_strong, "statements.consensus_x": st.consensus_x,
                   "statements.consensus_kappa_W": st.consensus_kappa_W})
    out = [f"{name} = {lo}..{hi}: {math.log10(hi / lo):.2f} decades < {decades}" for name, (lo, hi) in ranges.items()
           if math.log10(hi / lo) < decades - DECADES_ATOL]
    out += [f"{g}.points = {p} < {points}" for g, p in (("table1", tier.table1.points), ("tables24", tier.tables24.points),
                                                          ("statements", tier.statements.points)) if p < points]
    return out


def test_names_parse_to_the_instances():
    assert TIER_NAMES == ("tiny", "quick", "full") and TIERS == (TINY, QUICK, FULL)
    for t in TIERS:
        assert tier_by_name(t.name) is t and as_tier(t.name) is t and as_tier(t) is t and str(t) == t.name


def test_an_unknown_name_is_refused_naming_the_known_ones():
    with pytest.raises(ValueError, match=r"unknown tier 'huge' \(choose from tiny, quick, full\)"):
        tier_by_name("huge")


def test_tiers_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        QUICK.table1.slope_tol = 1.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        QUICK.name = "fast"
    with pytest.raises(TypeError):
        QUICK.table1.worst_range["kappa_f"] = (1, 2)


def test_quick_and_full_keep_their_promised_grids():
    assert grid_shortfalls(QUICK) == [] and grid_shortfalls(FULL) == []


def test_the_apapc_regimes_are_where_the_rule_puts_them():
    """thm:apapc sweeps: the χ-regime grid has χ >= 4κ_G everywhere (τ = 1), the √-regime grid χ <= κ_G/10."""
    for t in (TINY, QUICK, FULL):
        kG, (lo, _) = t.statements.apapc_chi
        assert lo >= 4 * kG
        kG, (_, hi) = t.statements.apapc_sqrt
        assert hi <= kG / 10


def test_a_short_grid_is_noticed():
    """Negative control: a quick tier with 3 points and a half-decade κ range breaks the promise, twice."""
    short = dataclasses.replace(QUICK, table1=dataclasses.replace(QUICK.table1, points=3),
                                tables24=dataclasses.replace(QUICK.tables24, kappa_range=(10, 30)))
    found = grid_shortfalls(short)
    assert len(found) == 2 and any("table1.points = 3" in f for f in found)
    assert any(f.startswith("tables24.kappa_range") for f in found)


def test_only_the_tiny_and_full_tiers_run_the_benchmarks():
    from mixbounds.checks.bench import BENCH_TIERS

    assert BENCH_TIERS == (TINY, FULL) and QUICK.bench is None
