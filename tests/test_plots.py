"""Figures drawn from results only: series, axes in the paper's symbols, valid PNG/SVG files."""

import json
import math
import xml.etree.ElementTree as ET

import pytest
from matplotlib.collections import PathCollection
from mixbounds.checks.run._selftest import fake_document
from mixbounds.plots import (
    ResultsFileError,
    draw_all,
    figure_cell_param,
    figure_class_panel,
    figure_heatmap,
    load_results,
    sweep_groups,
)
from mixbounds.plots.style import save

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def doc():
    return fake_document()


@pytest.fixture(scope="module")
def groups(doc):
    return sweep_groups(doc)


def _svg_ids(path):
    root = ET.parse(path).getroot()
    return [el.get("id") for el in root.iter() if el.get("id")]


def test_groups_pair_solver_and_engine_results(groups):
    g = groups[("T1.coupled.comm", "kappa_W")]
    assert [r["id"] for r in g.upper] == ["T1.coupled.comm.kappa_W.tight"]
    assert [r["id"] for r in g.lower] == ["T1.coupled.comm.kappa_W.lower"]
    assert g.oracle == "comm" and g.theory == 0.5
    assert all(not r["control"] for gg in groups.values() for r in gg.upper + gg.lower)  # controls are not plotted


def test_cell_figure_series_labels_and_files(groups, tmp_path):
    fig, info = figure_cell_param(groups[("T1.coupled.comm", "kappa_W")])
    ax = fig.axes[0]
    data = [c for c in ax.collections if isinstance(c, PathCollection)]
    assert len(data) == 2 and info["series"] == 2  # solver markers + engine markers
    gids = sorted(ln.get_gid() for ln in ax.lines)
    assert gids == ["fit:lower:T1.coupled.comm.kappa_W.lower", "fit:upper:T1.coupled.comm.kappa_W.tight", "theory"]
    assert ax.get_xscale() == ax.get_yscale() == "log"
    assert r"\kappa_W" in ax.get_xlabel() and "N_W" in ax.get_ylabel()
    legend = fig.legends[0]
    texts = [t.get_text() for t in legend.get_texts()]
    assert any("slope 0.4" in t and "±" in t and "(pass)" in t for t in texts)
    assert "theory: slope 0.5" in texts
    # the legend sits outside the axes: no overlap with the data area
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    lb, ab = legend.get_window_extent(r), ax.get_window_extent(r)
    assert lb.y1 <= ab.y0
    png, svg = save(fig, tmp_path / "cell_T1.coupled.comm_kappa_W")
    assert png.name == "cell_T1.coupled.comm_kappa_W.png" and png.read_bytes()[:8] == PNG_MAGIC
    assert png.stat().st_size > 5000
    ids = _svg_ids(svg)
    assert sum(i.startswith("data:") for i in ids) == 2 and sum(i.startswith("fit:") for i in ids) == 2
    assert ids.count("theory") == 1


def test_theory_line_passes_through_middle_point(groups):
    g = groups[("T1.coupled.A", "kappa_A")]
    fig, _ = figure_cell_param(g)
    ax = fig.axes[0]
    (th,) = [ln for ln in ax.lines if ln.get_gid() == "theory"]
    x, y = th.get_data()
    slope = (math.log(y[-1]) - math.log(y[0])) / (math.log(x[-1]) - math.log(x[0]))
    assert slope == pytest.approx(0.5)
    pts = g.upper[0]["points"]
    mid = sorted(pts, key=lambda p: p["realized"])[len(pts) // 2]
    assert mid["per_accuracy"] * (x[0] / mid["realized"]) ** 0.5 == pytest.approx(y[0])


def test_absent_parameter_and_constant_counts_keep_a_readable_axis(groups):
    fig, _ = figure_cell_param(groups[("T1.coupled.A", "kappa_W")])
    ax = fig.axes[0]
    lo, hi = ax.get_ylim()
    assert hi / lo >= 1.5 and math.isfinite(hi)
    assert "theory: slope 0" in [t.get_text() for t in fig.legends[0].get_texts()]


def test_series_without_positive_counts_is_named_not_dropped(doc):
    d = json.loads(json.dumps(doc))
    for c in d["claims"]:
        if c["id"] == "T1.coupled.comm.kappa_W.lower":
            for p in c["points"]:
                p["per_accuracy"] = 0
    g = sweep_groups(d)[("T1.coupled.comm", "kappa_W")]
    fig, info = figure_cell_param(g)
    assert info["series"] == 1
    assert any("no positive per-accuracy count" in t.get_text().replace("\n", " ") for t in fig.legends[0].get_texts())


def test_class_panel_and_heatmap(groups, tmp_path):
    gs = [g for g in groups.values() if g.problem_class == "coupled"]
    fig, info = figure_class_panel("T1", "coupled", gs)
    assert (info["rows"], info["cols"]) == (2, 2)  # oracles A, comm × params κ̂_A, κ_W
    assert info["series"] == sum(len(g.upper) + len(g.lower) for g in gs)
    fig, info = figure_heatmap(groups)
    assert info["panels"] == 3 and info["rows"] == 2 and info["cols"] == 2  # solvers, engine printed, @selftest
    png, svg = save(fig, tmp_path / "heat")
    assert png.read_bytes()[:8] == PNG_MAGIC and ET.parse(svg).getroot().tag.endswith("svg")


def test_draw_all_manifest_and_broken_figure(doc, tmp_path, monkeypatch):
    man = draw_all(doc, tmp_path / "plots")
    assert len(man["cells"]) == 4 and list(man["classes"]) == ["T1.coupled"] and len(man["heatmap"]) == 2
    assert man["errors"] == []
    for paths in list(man["cells"].values()) + list(man["classes"].values()) + [man["heatmap"]]:
        assert sorted(p.suffix for p in paths) == [".png", ".svg"] and all(p.stat().st_size > 0 for p in paths)
    assert not [p for p in (tmp_path / "plots").iterdir() if p.name.startswith(".tmp")]
    from mixbounds.plots import draw as draw_module

    def boom(g):
        if g.param == "kappa_A":
            raise ValueError("cannot draw")
        return figure_cell_param(g)

    monkeypatch.setattr(draw_module, "figure_cell_param", boom)
    (tmp_path / "plots" / "notes.txt").write_text("mine")
    man = draw_all(doc, tmp_path / "plots", formats=("png",))
    assert len(man["cells"]) == 2 and len(man["errors"]) == 2 and "cannot draw" in man["errors"][0]
    # drawing never deletes: the earlier figures that were not redrawn and a user's file are still there (the
    # commands install through mixbounds.outdir, which removes only the figures its manifest lists)
    left = {p.name for p in (tmp_path / "plots").iterdir()}
    assert {"notes.txt", "cell_T1.coupled.A_kappa_A.svg"} <= left


@pytest.mark.parametrize("formats", [(), ("pdf",), ("png", "jpg")])
def test_draw_all_refuses_formats_it_cannot_write(doc, tmp_path, formats):
    """No format (or an unknown one) would write no file for any figure and still report the figures as handled."""
    with pytest.raises(ValueError, match="figure formats"):
        draw_all(doc, tmp_path / "plots", formats=formats)
    assert not (tmp_path / "plots").exists()


def test_draw_all_parallel_equals_serial(doc, tmp_path):
    """``jobs=2`` draws the same figures (same files, byte-identical PNGs) as one process."""
    a = draw_all(doc, tmp_path / "serial", formats=("png",))
    b = draw_all(doc, tmp_path / "parallel", formats=("png",), jobs=2)
    assert a["errors"] == b["errors"] == []

    def names(m):
        return sorted(p.name for ps in [*m["cells"].values(), *m["classes"].values(), m["heatmap"]] for p in ps)

    assert names(a) == names(b) and len(names(a)) == 6
    for n in names(a):
        assert (tmp_path / "serial" / n).read_bytes() == (tmp_path / "parallel" / n).read_bytes(), n


def test_load_results_errors(tmp_path):
    with pytest.raises(ResultsFileError, match="no such file"):
        load_results(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ResultsFileError, match="not"):
        load_results(tmp_path / "bad.json")
    (tmp_path / "ok.json").write_text('{"schema": 2, "claims": []}')
    assert load_results(tmp_path / "ok.json") == {"schema": 2, "claims": []}
    (tmp_path / "old.json").write_text('{"schema": 1, "claims": []}')
    assert load_results(tmp_path / "old.json") == {"schema": 2, "claims": [], "upgraded_from": 1}
    with pytest.raises(ResultsFileError, match="without results.json"):
        load_results(tmp_path)


def test_schema_1_measured_dict_read_as_readings(tmp_path):
    """A schema-1 results.json (a lemma's several numbers in ``measured``) still loads: the dict moves to
    ``readings``, ``measured`` becomes null, numeric ``measured`` values stay; the report shows the readings."""
    import json

    from mixbounds.report.verify import _measured

    old = {"schema": 1, "claims": [
        {"id": "lemma.x", "kind": "lemma", "status": "pass", "measured": {"worst ratio": 1.5, "cases": 3}},
        {"id": "T1.coupled.comm.kappa_W.tight", "kind": "tight", "status": "pass", "measured": 0.5, "ci": [0.4, 0.6]}]}
    (tmp_path / "r.json").write_text(json.dumps(old))
    doc = load_results(tmp_path / "r.json")
    lem, slope = doc["claims"]
    assert doc["schema"] == 2 and doc["upgraded_from"] == 1
    assert lem["measured"] is None and lem["readings"] == {"worst ratio": 1.5, "cases": 3}
    assert slope["measured"] == 0.5 and "readings" not in slope
    assert _measured(lem, 80) == "worst ratio: 1.5; cases: 3" and _measured(slope, 80) == "0.500 ± 0.100"


def _bench_doc():
    def res(rid, pts, slope, status="pass"):
        # the series fields as mixbounds.checks.bench writes them (mixbounds.plots.bench reads these, not the id)
        head, _, family = rid.partition("@")
        _, cls, method, oracle, param = head.split(".")
        return {"id": rid, "kind": "bench", "status": status, "measured": slope, "ci": None if slope is None else [slope - 0.1, slope + 0.1],
                "cell": f"T1.{cls}.{oracle}", "param": param, "extra": {"method": method}, "variant": family or None,
                "points": [{"target": x, "realized": x, "per_accuracy": y} for x, y in pts]}
    claims = [res("bench.coupled.apapc.comm.kappa_W", [(10, 100), (100, 316)], 0.5),
              res("bench.coupled.dpmm.comm.kappa_W", [(10, 50), (100, 500)], 1.0),
              res("bench.coupled.apapc.comm.kappa_W@random-coupled", [(10, 80), (100, 250)], 0.49),
              res("bench.coupled.apapc.grad.kappa_f", [(10, 30), (100, 95)], 0.5),
              res("bench.coupled.dpmm.comm.kappa_f", [], None, "skipped"),
              {"id": "bench.coupled.consistency.kappa_W", "kind": "consistency", "status": "pass", "detail": "ok",
               "cell": "T1.coupled", "param": "kappa_W"}]
    return {"claims": claims}


def test_bench_figures_one_per_class_and_oracle(tmp_path):
    """Benchmark figures: one per (class, oracle), one series per (method, family) with points."""
    from mixbounds.plots.bench import figure_bench
    from mixbounds.plots.data import bench_groups

    doc = _bench_doc()
    groups = bench_groups(doc)
    assert set(groups) == {("coupled", "comm"), ("coupled", "grad")}
    fig, info = figure_bench("coupled", "comm", groups[("coupled", "comm")])
    assert info["series"] == 3  # the skipped series has no points and is not drawn
    labels = sorted(line.get_label() for ax in fig.axes for line in ax.get_lines())
    assert labels == ["apapc (random) 0.49", "apapc (worst) 0.50", "dpmm (worst) 1.00"]
    m = draw_all(doc, tmp_path)
    assert sorted(m["bench"]) == ["coupled.comm", "coupled.grad"] and not m["errors"]
    for paths in m["bench"].values():
        png = [p for p in paths if str(p).endswith(".png")][0]
        assert open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n"


def test_bench_series_from_fields_not_id():
    """The series of a bench result comes from its fields (variant, cell, param, extra.method): a result whose
    fields say random family is dashed even if its id had no ``@`` suffix; results without a method are not slopes."""
    from mixbounds.plots.data import bench_series

    r = {"id": "bench.coupled.apapc.comm.kappa_W", "kind": "bench", "cell": "T1.coupled.comm", "param": "kappa_W",
         "extra": {"method": "apapc"}, "variant": "random-coupled"}
    assert bench_series(r) == {"class": "coupled", "method": "apapc", "oracle": "comm", "param": "kappa_W",
                               "family": "random-coupled"}
    assert bench_series(dict(r, variant=None))["family"] == "worst"
    assert bench_series(dict(r, extra={})) is None
    assert bench_series(dict(r, kind="consistency")) is None


def test_points_with_per_oracle_counts_are_read(tmp_path):
    """Tables 2-4 points carry ``per_accuracy`` per oracle (a dict of counts): a fresh quick-tier results.json has
    them (``finding.T4.mixed.A.kappa``), so the loader must accept them; a non-numeric count is still refused."""
    import json

    pt = {"realized": {"kappa_W": 10.0}, "per_accuracy": {"grad": 238, "A": 6785, "comm": 32004}}
    doc = {"schema": 1, "claims": [{"id": "finding.T4.mixed.A.kappa", "kind": "finding", "status": "finding",
                                    "points": [pt]}]}
    (tmp_path / "ok.json").write_text(json.dumps(doc))
    assert load_results(tmp_path / "ok.json")["claims"][0]["points"][0]["per_accuracy"]["A"] == 6785
    pt["per_accuracy"]["A"] = "many"
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    with pytest.raises(ResultsFileError, match=r"points\[0\]\.per_accuracy .* is not a number"):
        load_results(tmp_path / "bad.json")
