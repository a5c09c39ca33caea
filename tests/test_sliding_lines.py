"""Which printed line of Algorithm alg:sliding breaks convergence (finding.alg_sliding.line12), and the severities and
text discrepancies the report lists for the paper's problems."""

import pytest
from mixbounds.bounds.claims import TEXT_DISCREPANCIES
from mixbounds.bounds.texparse import find_paper
from mixbounds.checks.tables234.tables34_findings import SLIDING_LINE, sliding_readings

from mixbounds.report.problems import SEVERITIES, group_findings

#: line 6 as printed only moves the inner start: it converges at Lan's rate, its count within this fraction of Lan's
#: (at x = MR/ε = 40: 1525 against 1467 rounds, 4 %, the same on OpenBLAS's SkylakeX, Haswell, Sandybridge and
#: Nehalem kernels; equal counts, 1525, on the instance built before the κ_W cut was made machine-independent)
SAME_RATE_RTOL = 0.1


@pytest.fixture(scope="module")
def readings():
    return sliding_readings()


@pytest.mark.numerics
def test_line_6_alone_converges_as_lans_and_line_12_alone_does_not(readings):
    lan, l6, l12, both = readings["lan"], readings["line6"], readings["line12"], readings["printed"]
    assert lan["converged"] and l6["converged"]
    assert abs(l6["counts"]["grad"] / lan["counts"]["grad"] - 1) <= SAME_RATE_RTOL
    assert not l12["converged"] and not both["converged"]
    assert l12["best_ratio"] > 1.0  # never reaches (ε, δ) within 4× Lan's rounds
    assert SLIDING_LINE == 12


def _doc(rid: str, kind: str):
    return {"claims": [{"id": rid, "kind": kind, "status": "finding"}],
            "findings": [{"id": f"finding:{rid}", "label": "x", "statement": "s", "source": rid}]}


@pytest.mark.parametrize("rid, kind, severity", [
    ("T1.coupled.grad.kappa_f.lower.def_foda", "lower-class", "changes the class"),
    ("lemma.mixed_coupled_with_local_spectrum.order", "lemma", "changes a constant of a proof, no theorem's rate"),
    ("finding.alg_sliding.line12", "finding", "typo"),
])
def test_relabelled_severities(rid, kind, severity):
    g = [g for g in group_findings(_doc(rid, kind)) if g.records]
    assert len(g) == 1 and g[0].severity == severity and severity in SEVERITIES


def test_every_text_discrepancy_points_at_its_tex_line():
    try:
        paper = find_paper()
    except FileNotFoundError:  # a clone without shared/ beside it (CI): the tex lines are checked where the paper is
        pytest.skip("the whole paper is not here ($MIXBOUNDS_PAPER unset, no shared/paper/ beside the working "
                    "directory): the text discrepancies' tex lines are not checked")
    lines = paper.read_text().split("\n")
    for t in TEXT_DISCREPANCIES:
        assert t["tex"] in lines[t["line"] - 1], (t["line"], t["tex"])
        assert t["printed"] and t["source_says"]
