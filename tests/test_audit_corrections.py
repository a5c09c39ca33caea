"""The independent audit's corrections (issue 47, item 5): each corrected entry reads as stated, and the report's
problems list carries the corrected titles and severities."""

import pytest
from mixbounds.bounds.claims import TEXT_DISCREPANCIES, get

from mixbounds.report.problems import PROBLEMS, SEVERITIES, group_findings, text_discrepancies


def _entry(line: int) -> dict:
    found = [t for t in TEXT_DISCREPANCIES if t["line"] == line]
    assert len(found) == 1, line
    return found[0]


def test_l523_the_cited_coupled_bound_carries_kappa_AC_only_mat_C_kappa_C_is_uncovered():
    says = _entry(523)["source_says"]
    assert "already carries the factor" in says and "κ̃_AC = κ̂_A" in says
    assert "only the κ_C factor of the Mat. C cell" in says
    assert "T1.mixed.A" in says and "T1.mixed.comm" in says
    for oracle in ("grad", "A", "Ct", "comm"):
        lower = get(f"T1.mixed.{oracle}").lower_source
        assert "already carries the κ̃_AC factor" in lower and "need" not in lower, oracle
    assert "κ_C factor" in get("T1.mixed.C").lower_source


def test_l798_is_a_citation_gap_naming_the_three_known_bounds():
    says = _entry(798)["source_says"]
    assert says.startswith("a citation gap, not an unsupported claim")
    for who in ("Nesterov", "scaman2017optimal", "salim2022optimal"):
        assert who in says


def test_l1212_is_not_a_discrepancy_the_convention_makes_mu_a_lower_bound():
    assert not [t for t in TEXT_DISCREPANCIES if t["line"] == 1212]


@pytest.mark.parametrize("line, title", [
    (523, "covers κ̃_AC; only Mat. C's κ_C factor is uncovered"),
    (798, "Citation gap"),
])
def test_the_problems_list_titles_the_citation_entries(line, title):
    g = [g for g in text_discrepancies() if f"tex line {line})" in g.title]
    assert len(g) == 1 and title in g[0].title and g[0].severity == "typo"


def _problem(key):
    return next(p for p in PROBLEMS if p.key == key)


def test_alg_sliding_is_a_transcription_slip():
    p = _problem("alg-sliding")
    assert p.severity == "typo" and "transcription slip" in p.corrected and "Lan's Gradient Sliding" in p.title


@pytest.mark.parametrize("key", ["cl-printed", "cl-variant-C"])
def test_the_coupled_local_problems_say_the_argument_fails_and_the_rate_is_certified(key):
    p = _problem(key)
    assert p.severity == "a proof fails, the rate is certified"
    assert "certified" in p.corrected and "certified" in p.title
    for false_rate in ("gives no lower bound", "unproven"):
        assert false_rate not in p.title + p.corrected


def test_the_report_ranks_the_new_severity_between_the_class_and_a_constant():
    assert SEVERITIES.index("changes the class") < SEVERITIES.index("a proof fails, the rate is certified") \
        < SEVERITIES.index("changes a constant")
    rid = "T1.coupled_local.A.kappa_AC.lower"
    doc = {"claims": [{"id": rid, "kind": "lower", "status": "finding"}],
           "findings": [{"id": f"finding:{rid}", "label": "x", "statement": "s", "source": rid}]}
    g = [g for g in group_findings(doc) if g.records]
    assert len(g) == 1 and g[0].key == "cl-printed" and g[0].severity == "a proof fails, the rate is certified"
