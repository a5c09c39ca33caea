"""``--scheduler`` (checks/run/executors.py): a real Dask LocalCluster gives the serial run's results and cache, result
for result; bad addresses, a missing Dask and a worker with another code version fail with one line."""

import importlib.util
import json
import sys

import pytest
from mixbounds.checks.run import executors
from mixbounds.checks.run.compare import untimed  # timings: the only fields two runs may differ in
from mixbounds.checks.run.executors import SchedulerError, parse_scheduler, run_group_on_worker
from mixbounds.checks.run.framework import code_version

from mixbounds.verify import EXIT_OK, EXIT_USAGE, Options, run

#: a tiny subset of the registry: several task groups (so both workers get work), rates, lower bound and a lemma,
#: a few seconds serially
CLAIMS = "T1.consensus.*@random-consensus,T1.consensus.comm.kappa_W.lower,lemma.coupled_spectrum"


def _doc(out):
    return json.loads((out / "results.json").read_text())


def _cache(out):
    return {f.name: untimed(json.loads(f.read_text())) for f in (out / ".cache").rglob("*.json")}


def _verify(out, **kw):
    return run(Options(tier="tiny", claims=CLAIMS, jobs=1, out=out, plots=False, **kw))


@pytest.mark.parametrize("spec,kind,target,workers", [
    ("local:3", "local", "local:3", 3), ("tcp://10.0.0.5:8786", "address", "tcp://10.0.0.5:8786", 0),
    ("node17:8786", "address", "node17:8786", 0), ("tls://[::1]:8786", "address", "tls://[::1]:8786", 0),
])
def test_parse_scheduler(spec, kind, target, workers):
    s = parse_scheduler(spec)
    assert (s.kind, s.target, s.workers) == (kind, target, workers)


@pytest.mark.parametrize("spec,match", [
    ("local:0", "worker count"), ("local:two", "worker count"), ("local:", "worker count"),
    ("tcp://host", "expected tcp://HOST:PORT"), ("dask", "expected tcp://HOST:PORT"), ("missing.json", "not found"),
])
def test_bad_scheduler_exits_2_and_writes_nothing(tmp_path, capsys, spec, match):
    out = tmp_path / "out"
    assert _verify(out, scheduler=spec) == EXIT_USAGE
    err = capsys.readouterr().err
    assert match in err and err.count("\n") == 1
    assert not out.exists()
    with pytest.raises(SchedulerError, match=match):
        parse_scheduler(spec)


def test_without_dask_installed_exits_2_naming_the_extra(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    out = tmp_path / "out"
    assert _verify(out, scheduler="local:2") == EXIT_USAGE
    err = capsys.readouterr().err
    assert "[dask]" in err and err.count("\n") == 1
    assert not out.exists()


def test_worker_with_another_code_version_refuses():
    with pytest.raises(RuntimeError, match="code version"):
        run_group_on_worker("0" * 20, [])
    assert run_group_on_worker(code_version(), []) == []


needs_dask = pytest.mark.skipif(importlib.util.find_spec("distributed") is None,
                                reason="Dask's distributed is not installed (pip install '.[dask]')")


@needs_dask

def test_unreachable_scheduler_exits_2_before_any_work(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(executors, "CONNECT_TIMEOUT_S", 2.0)
    out = tmp_path / "out"
    assert _verify(out, scheduler="tcp://127.0.0.1:9") == EXIT_USAGE  # port 9 (discard): nobody listens
    err = capsys.readouterr().err
    assert "cannot reach the Dask scheduler" in err and err.count("\n") == 1
    assert not out.exists()


@needs_dask
def test_local_cluster_equals_serial_run_result_for_result(tmp_path, local_cluster_workers):
    """A real LocalCluster (2 worker processes, 1 thread each) against the serial run: same results and cache."""
    seen = local_cluster_workers  # the cluster --scheduler local:2 starts, its workers seen before it closes
    serial, dask = tmp_path / "serial", tmp_path / "dask"
    assert _verify(serial) == EXIT_OK
    assert _verify(dask, scheduler="local:2") == EXIT_OK
    assert len(seen) == 2 and all(w["nthreads"] == 1 and w["nanny"] for w in seen)  # a nanny: a worker process
    a, b = _doc(serial), _doc(dask)
    assert [c["id"] for c in a["claims"]] == [c["id"] for c in b["claims"]]
    assert len(a["claims"]) >= 4 and a["stats"]["tasks"] >= 3
    for x, y in zip(a["claims"], b["claims"]):
        assert untimed(x) == untimed(y), x["id"]
    for k in ("tasks", "computed", "cached", "code_version"):
        assert a["stats"][k] == b["stats"][k], k
    assert b["stats"]["scheduler"] == "local:2" and "scheduler" not in a["stats"]
    assert a["summary"] == b["summary"] and a["findings"] == b["findings"]
    # the client wrote the cache: the same entries with the same points, which a local run then reads
    assert _cache(serial) == _cache(dask) and len(_cache(dask)) == a["stats"]["tasks"]
    assert _verify(dask) == EXIT_OK
    again = _doc(dask)
    assert again["stats"]["computed"] == 0 and again["stats"]["cached"] == a["stats"]["tasks"]
    assert untimed(again["claims"]) == untimed(a["claims"])


#: a loop of vector updates on 150 000 floats page-faults at least this many times more with Dask's worker malloc
#: setting than after tune_worker_malloc (measured: 17.6 million against 900 faults for 20 000 iterations)
MALLOC_FAULT_RATIO = 20

_FAULT_LOOP = """
import resource, sys
import numpy as np
from mixbounds.checks.run.executors import tune_worker_malloc
tuned = tune_worker_malloc() if sys.argv[1] == "tune" else None
x = np.random.rand(150_000); y = np.random.rand(150_000)
f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(2000):
    x = (x + 0.5 * y) - 0.1 * x
print(tuned, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0)
"""


def _faults(mode: str) -> tuple[str, int]:
    import os
    import subprocess

    env = dict(os.environ, MALLOC_TRIM_THRESHOLD_="65536")  # what Dask's nanny gives every worker
    out = subprocess.run([sys.executable, "-P", "-c", _FAULT_LOOP, mode], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    return out[0], int(out[1])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc mallopt")
def test_worker_malloc_tuning_stops_the_page_faults_of_dasks_trim_threshold():
    """Negative control first: with MALLOC_TRIM_THRESHOLD_=65536 every temporary array is mmap'ed and
    faulted in again; tune_worker_malloc (run by every worker before its first group) stops that."""
    _, untuned = _faults("plain")
    tuned_ok, tuned = _faults("tune")
    assert tuned_ok == "True"
    assert untuned >= MALLOC_FAULT_RATIO * max(tuned, 1), (untuned, tuned)


def test_worker_runs_the_malloc_tuning_once(monkeypatch):
    calls = []
    monkeypatch.setattr(executors, "_MALLOC_TUNED", None)
    monkeypatch.setattr(executors, "tune_worker_malloc", lambda: calls.append(1) or True)
    for _ in range(2):
        assert run_group_on_worker(code_version(), []) == []
    assert calls == [1] and executors._MALLOC_TUNED is True
