"""The reviewer's report (Markdown + self-contained HTML) and the CSV, rendered from a results document."""

import csv
import io
import json
import re
from html.parser import HTMLParser

import pytest

from mixbounds import report
from mixbounds.checks._selftest import fake_document, sweep_check
from mixbounds.verify import csv_text


@pytest.fixture(scope="module")
def doc():
    return fake_document()


def test_table_1_rows_carry_formula_theory_and_both_slopes(doc):
    md = report.render_markdown(doc)
    assert "## Table 1: Smooth strongly convex" in md and "table:smooth_str_convex_optimization_affine_constraints" in md
    assert "## Table 2" not in md  # no result for Tables 2-4 in this run
    rows = [ln for ln in md.splitlines() if ln.startswith("| Coupled constr. | Comm.")]
    assert len(rows) == 1
    cells = [c.strip() for c in rows[0].strip("|").split("|")]
    assert cells[2] == "√κ_f·√κ̂_A·√κ_W · log(1/ε)" and cells[3] == "tight"
    assert cells[4] == "κ_f" and cells[6] == "not measured"  # a class parameter with no sweep in this run
    kw = [ln for ln in md.splitlines() if "| κ_W | 1/2 |" in ln]
    assert kw and re.search(r"\| 0\.\d{3} ± 0\.\d{3} \| pass \| 0\.\d{3} ± 0\.\d{3} \| pass \|", kw[0])
    assert "| Consensus constr. | Grad. | √κ_f · log(1/ε) | tight | — |" in md  # unmeasured cell: one row


def test_findings_controls_and_run_sections(doc):
    md = report.render_markdown(doc)
    assert "## Findings (1)" in md and "### finding:T1.coupled.comm.kappa_A.lower@selftest" in md
    assert "| What the paper says | T1.coupled.comm grows like kappa_A^0.5 |" in md
    assert "| Paper label | `thm:selftest` |" in md
    assert "## Negative controls: 1/1 caught" in md and "`control.selftest.wrong-exponent`" in md
    assert "## Run" in md and doc["versions"]["code_version"] in md and "| numpy |" in md
    assert "Seeds (" in md
    assert md.count("**OK**") == 1


def test_tables_2_to_4_appear_with_their_results():
    extra = [sweep_check("T2.coupled.A.kappa_A.upper", kind="upper", theory=0.5, slope=0.45, cell="T2.coupled.A",
                         param="kappa_A")]
    from mixbounds.checks._selftest import fake_checks

    d = fake_document(checks=fake_checks() + extra)
    md = report.render_markdown(d)
    assert "## Table 2: Smooth convex" in md and "## Table 3" not in md
    assert re.search(r"\| Coupled constr\. \| Mat\. A \| √κ̂_A·√\(L_fR²/ε\) · log\(1/ε\) \| upper \| κ̂_A \| 1/2 \| 0\.4\d\d ± 0\.\d{3} \| pass \| not measured", md)


def test_failures_are_listed_with_detail():
    from mixbounds.checks._selftest import fake_checks

    d = fake_document(checks=fake_checks(failing=True, uncaught_control=True))
    md = report.render_markdown(d)
    assert "**FAILED**" in md and "## Failures and errors (1)" in md
    assert "**fail** `T1.coupled.grad.kappa_f.tight`" in md
    assert "## Negative controls: 1/2 caught" in md and "**not caught**" in md


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.srcs, self.bad = [], [], []

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.srcs.append(dict(attrs)["src"])
        elif tag not in ("meta", "br"):
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack.pop() != tag:
            self.bad.append(tag)


def test_html_is_self_contained(doc, tmp_path):
    from mixbounds.plots import draw_all

    man = draw_all(doc, tmp_path / "plots", formats=("png",))
    html = report.render_html(doc, man)
    p = _Tags()
    p.feed(html)
    assert not p.bad and not p.stack  # well nested
    n_png = len(man["cells"]) + len(man["classes"]) + 1
    assert len(p.srcs) == n_png and all(s.startswith("data:image/png;base64,") for s in p.srcs)
    assert "http://" not in html and "https://" not in html and 'src="plots' not in html
    assert '<span class="v finding">finding</span>' in html and "<code>thm:selftest</code>" in html
    md = report.render_markdown(doc, man, base=tmp_path)
    assert "![Measured / claimed exponent" in md and "(plots/heatmap.png)" in md


def test_csv_has_one_row_per_sweep_point(doc):
    rows = list(csv.DictReader(io.StringIO(csv_text(doc))))
    assert len(rows) == sum(len(c["points"]) for c in doc["claims"])
    r = next(r for r in rows if r["id"] == "T1.coupled.comm.kappa_W.tight")
    assert r["kind"] == "tight" and r["param"] == "kappa_W" and r["status"] == "pass"
    assert float(r["x"]) == pytest.approx(101.0) and int(r["y"]) == int(r["count2"]) - int(r["count1"])
    assert "realized_all.kappa_W" in r


def test_report_renders_from_a_round_tripped_document(doc):
    d = json.loads(json.dumps(doc))
    assert report.render_markdown(d) == report.render_markdown(doc)
