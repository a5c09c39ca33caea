"""The claims registry reproduces every cell of the paper's four tables.

The tables are read from the copy that ships with the package (``bounds/paper_tables.tex``); that copy is compared
with the whole paper when the paper is found (``$MIXBOUNDS_PAPER`` or ``shared/paper/`` beside the checkout).
"""

import re

import pytest
from mixbounds.bounds.claims import PARAMS, REGISTRY, TEXT_DISCREPANCIES, cells, discrepancies, get
from mixbounds.bounds.render import format_terms, render_markdown, render_text
from mixbounds.bounds.texparse import find_paper, parse_complexity, parse_tables, table_spans, vendored_tables

#: a cell row of the tables' source: ``& Grad. …``, ``& Comm. …``, ``& Mat. …`` (the ``& Paper …`` rows cite the source)
ORACLE_ROW = re.compile(r"^\s*&\s*\$?\s*(Grad|Comm|Mat)", flags=re.M)
#: the claims the theorems state beyond the tables' cells (the identical-C̃ cases: thm:LI_upper_bound,
#: thm:upper_bound_coupled_plus_non_ident_local_constraints_prob, app:smooth_convex_results)
THEOREM_ONLY = ("T1.mixed_ident.Ct", "T1.mixed_ident.comm", "T1.shared_ident.grad", "T1.shared_ident.Ct",
                "T1.shared_ident.comm", "T2.mixed_ident.Ct", "T2.mixed_ident.comm")


def oracle_rows(tex: str) -> int:
    """The number of complexity cells of the tables in ``tex``, counted as rows of its source (not by
    :func:`mixbounds.bounds.texparse.parse_tables`, whose result it checks)."""
    return len(ORACLE_ROW.findall(tex))


@pytest.fixture(scope="module")
def paper_cells():
    return parse_tables(vendored_tables())


@pytest.fixture(scope="module")
def paper_text():
    try:
        return find_paper().read_text(encoding="utf-8")
    except FileNotFoundError:
        pytest.skip("the whole paper is not here ($MIXBOUNDS_PAPER unset, no shared/paper/ beside the working "
                    "directory): the registry is checked against the vendored tables only")


def test_the_vendored_tables_are_the_papers(paper_text):
    """bounds/paper_tables.tex holds exactly the four table environments of the paper, verbatim."""
    vendored = table_spans(vendored_tables().read_text(encoding="utf-8"))
    assert table_spans(paper_text) == vendored
    assert len(vendored) == 4


def test_a_changed_table_is_noticed():
    """Negative control: one symbol changed in a cell of the copy makes its spans differ from the original."""
    text = vendored_tables().read_text(encoding="utf-8")
    assert r"\kappa_W" in text
    assert table_spans(text.replace(r"\kappa_W", r"\kappa_f", 1)) != table_spans(text)


def test_every_table_cell_is_registered_with_the_printed_exponents(paper_cells):
    assert len(paper_cells) == oracle_rows(vendored_tables().read_text(encoding="utf-8"))
    table_cells = {c.id: tuple(sorted(c.terms)) for c in REGISTRY if c.table is not None}
    assert set(table_cells) == set(paper_cells)
    for cid, terms in paper_cells.items():
        assert table_cells[cid] == terms, cid


def test_registry_size_and_ids():
    """The registry holds one claim per cell row of the tables' source and the theorem-only claims, nothing else."""
    assert len(REGISTRY) == oracle_rows(vendored_tables().read_text(encoding="utf-8")) + len(THEOREM_ONLY)
    theorem_only = [c.id for c in REGISTRY if c.table is None]
    assert sorted(theorem_only) == sorted(THEOREM_ONLY)
    for c in REGISTRY:
        assert c.source and c.setting
        assert all(k in PARAMS for t in c.terms for k, _ in t)


def test_a_cell_row_more_or_less_changes_the_count():
    """Negative control of the count: the tables' source with one cell row removed has one row fewer, so the
    registry's size would no longer match it."""
    text = vendored_tables().read_text(encoding="utf-8")
    row = ORACLE_ROW.search(text)
    line_end = text.index("\n", row.start() + 1)
    assert oracle_rows(text[:row.start()] + text[line_end:]) == oracle_rows(text) - 1
    assert len(REGISTRY) != oracle_rows(text[:row.start()] + text[line_end:]) + len(THEOREM_ONLY)


def test_the_theorem_only_claims_cite_labels_of_the_paper(paper_text):
    """Each claim outside the tables names, as its source, a label the paper defines."""
    for c in REGISTRY:
        if c.table is None:
            label = c.source.split()[0]
            assert f"\\label{{{label}}}" in paper_text, (c.id, label)


def test_tightness():
    assert all(c.tight for c in cells("T1.*"))
    assert not any(c.tight for c in REGISTRY if c.table in (2, 3, 4))


def test_table4_mixed_A_discrepancy_is_recorded():
    (c,) = discrepancies()
    assert c.id == "T4.mixed.A"
    assert c.exponent("kappa_A") == 0.5 and c.exponent("kappa_AC") == 0.0
    assert c.exponent("kappa_AC", derived=True) == 0.5
    assert len(TEXT_DISCREPANCIES) >= 2


def test_exponents():
    c = get("T1.mixed.comm")
    assert [c.exponent(p) for p in ("kappa_f", "kappa_AC", "kappa_Ct", "kappa_W", "kappa_C")] == [0.5, 0.5, 0.5, 0.5, 0.0]
    assert get("T3.coupled.grad").exponent("MR_eps") == 2.0
    with pytest.raises(ValueError, match="unknown parameter"):
        c.exponent("kappa_X")
    with pytest.raises(KeyError):
        get("T9.none.grad")


def test_rendered_tables_contain_every_formula():
    text = render_text()
    md = render_markdown()
    for c in REGISTRY:
        f = format_terms(c.terms)
        assert f in text and f in md, c.id
    # the rendered formula re-parses to the same exponents
    for c in REGISTRY:
        assert parse_complexity(format_terms(c.terms, style="latex")) == tuple(sorted(c.terms)), c.id


def test_parser_rejects_unknown_symbols():
    with pytest.raises(ValueError, match="cannot parse"):
        parse_complexity(r"$\sqrt{\kappa_Z}$")
