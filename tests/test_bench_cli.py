"""``mixbounds bench``: its output directory is the suite's (manifest, lock, staged install, mixbounds.outdir),
and ``--scheduler`` runs its points on a real Dask LocalCluster with the serial run's results."""

import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest
from mixbounds.checks.run.compare import untimed  # timings: the only fields two runs may differ in
from mixbounds.checks.tiers import TINY

from mixbounds.cli.command import main
from mixbounds.outdir import LOCK, MANIFEST, OutputDir

ROOT = Path(__file__).resolve().parents[1]
#: the smallest bench run there is: the example APAPC on the consensus class, tiny tier (8 results)
BENCH = ["bench", "--method", "examples.apapc:apapc", "--classes", "consensus", "--tier", "tiny", "--jobs", "1"]
#: per-result fields that hold wall-clock measurements, the only ones allowed to differ between two runs

needs_dask = pytest.mark.skipif(importlib.util.find_spec("distributed") is None,
                                reason="Dask's distributed is not installed (pip install '.[dask]')")


@pytest.fixture
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)  # `examples` is a top-level folder of the checkout


@pytest.mark.parametrize("spec,match", [("local:0", "worker count"), ("tcp://host", "expected tcp://HOST:PORT"),
                                        ("missing.json", "not found")])
def test_bad_scheduler_exits_2_and_writes_nothing(tmp_path, capsys, at_root, spec, match):
    out = tmp_path / "out"
    assert main([*BENCH, "--out", str(out), "--scheduler", spec]) == 2
    err = capsys.readouterr().err
    assert match in err and err.count("\n") == 1 and "mixbounds bench: error" in err
    assert not out.exists()


def test_foreign_nonempty_out_refused_before_work(tmp_path, capsys, at_root):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.tex").write_text("x")
    assert main([*BENCH, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "not written by mixbounds" in err and err.count("\n") == 1
    assert sorted(p.name for p in out.iterdir()) == ["thesis.tex"]


def test_out_in_use_by_another_run_refused(tmp_path, capsys, at_root):
    out = tmp_path / "busy"
    with OutputDir(out, "bench", command="another bench run"):
        assert main([*BENCH, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "in use by another run" in err and "another bench run" in err
    assert not (out / "bench.json").exists()


def test_json_must_not_overwrite_a_foreign_file(tmp_path, capsys, at_root):
    js = tmp_path / "notes.json"
    js.write_text('{"mine": true}')
    assert main([*BENCH, "--out", str(tmp_path / "o"), "--json", str(js)]) == 2
    assert "not a mixbounds bench document" in capsys.readouterr().err
    assert json.loads(js.read_text()) == {"mine": True} and not (tmp_path / "o").exists()


def test_legacy_bench_directory_is_adopted(tmp_path):
    """A bench directory written before manifests (bench.json, report, plots/) is recognised as the suite's."""
    from mixbounds.outdir import owned_files

    out = tmp_path / "old"
    (out / "plots").mkdir(parents=True)
    (out / "bench.json").write_text(json.dumps({"method": "m:f", "results": [], "summary": {}}))
    (out / "report.md").write_text("# old")
    (out / "plots" / "bench.method.consensus.comm.kappa_f.png").write_bytes(b"png")
    assert owned_files(out, "--out") == ["bench.json", "report.md"]
    assert owned_files(out / "plots", "--out", figures=True) == ["bench.method.consensus.comm.kappa_f.png"]
    (out / "bench.json").write_text(json.dumps({"not": "a bench document"}))  # negative control
    with pytest.raises(Exception, match="not written by mixbounds"):
        owned_files(out, "--out")


@needs_dask
def test_local_cluster_equals_serial_bench_result_for_result(tmp_path, at_root, local_cluster_workers):
    """A real LocalCluster (2 worker processes) against the serial run: same ids, statuses, measured, counts; the
    output directory is an owned one (manifest, lock released, no staging left) and a rerun replaces the set."""
    seen = local_cluster_workers  # the cluster --scheduler local:2 starts, its workers seen before it closes
    serial, dask = tmp_path / "serial", tmp_path / "dask"
    assert main([*BENCH, "--out", str(serial)]) == 0
    assert main([*BENCH, "--out", str(dask), "--scheduler", "local:2"]) == 0
    assert len(seen) == 2 and all(w["nanny"] for w in seen)  # a nanny: a worker process
    a, b = (json.loads((d / "bench.json").read_text()) for d in (serial, dask))
    assert [r["id"] for r in a["results"]] == [r["id"] for r in b["results"]] and len(a["results"]) == 8
    for x, y in zip(a["results"], b["results"]):
        assert x["status"] == y["status"] and x["slope"] == y["slope"], x["id"]
        assert untimed(x) == untimed(y), x["id"]
    assert a["summary"] == b["summary"]
    for k in ("tasks", "computed", "code_version"):
        assert a["stats"][k] == b["stats"][k], k
    assert b["stats"]["scheduler"] == "local:2" and "scheduler" not in a["stats"]
    assert all(d["stats"]["calibration_seconds"] > 0 for d in (a, b))  # bench.json carries the machine calibration
    for d in (serial, dask):
        m = json.loads((d / MANIFEST).read_text())
        assert {"bench.json", "report.md", "report.html", "plots"} <= set(m["files"])
        assert (d / LOCK).read_text() == "" and not [p for p in os.listdir(d) if p.startswith(".mixbounds-staging")]
    assert main([*BENCH, "--out", str(dask)]) == 0  # the owned directory is reused, the set replaced
    assert untimed(json.loads((dask / "bench.json").read_text())["results"]) == untimed(a["results"])


def test_measure_plans_refuses_an_executor_for_a_python_object():
    from mixbounds.bench_method import measure_plans

    if str(ROOT) not in sys.path:  # appended: `mixbounds` must keep resolving to the install (tests/test_byom.py)
        sys.path.append(str(ROOT))
    from examples.apapc import apapc

    with pytest.raises(ValueError, match="Python object"):
        measure_plans(apapc, [], TINY, executor=lambda version, payloads: iter(()))
