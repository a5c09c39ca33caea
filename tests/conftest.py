"""Shared fixtures.  Seeds are fixed here; matplotlib draws off-screen."""

import os

os.environ.setdefault("MPLBACKEND", "Agg")
# the point cache's signing key (mixbounds.checks.run.cache_key) of the test session, not the user's: one per session,
# in the system's temporary directory, inherited by the subprocesses the tests start
if "MIXBOUNDS_CACHE_KEY" not in os.environ:
    import tempfile

    os.environ["MIXBOUNDS_CACHE_KEY"] = os.path.join(tempfile.mkdtemp(prefix="mixbounds-test-key-"), "point-cache.key")
    # made now, in the process that chose the path (with pytest-xdist: the controller, before its workers start), so
    # the workers only read it: two workers creating it at once could read it empty between create and write
    from mixbounds.checks.run.cache_key import load_key

    load_key()

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from mixbounds.bounds import spectra_memo
from mixbounds.checks.run.calibration import calibrate, in_units
from mixbounds.checks.run.framework import code_version
from mixbounds.solvers import materialize
from threadpoolctl import threadpool_info

settings.register_profile(
    "suite", max_examples=40, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("suite")

SEED = 20261122


@pytest.fixture(autouse=True)
def fresh_process_memos():
    """Every test computes its own spectra and materialised operators: a result kept from an earlier test would
    skip a solver the test monkeypatches (the memos are per process, :mod:`mixbounds.bounds.spectra_memo`)."""
    spectra_memo.clear()
    materialize.clear_memo()


@pytest.fixture
def rng():
    return np.random.default_rng(SEED)


@pytest.fixture
def local_cluster_workers(monkeypatch) -> list:
    """The workers of every ``distributed.LocalCluster`` the code under test starts (``--scheduler local:N``),
    recorded when the cluster closes: a test can check it ran on real worker processes."""
    import distributed

    seen: list = []

    class Spy(distributed.LocalCluster):
        def close(self, *a, **kw):
            seen.extend(self.scheduler_info["workers"].values())
            return super().close(*a, **kw)

    monkeypatch.setattr(distributed, "LocalCluster", Spy)
    return seen


def pytest_report_header(config):
    """numpy, scipy and the BLAS in use, so a platform-dependent failure can be read from the CI log."""
    import scipy

    blas = "; ".join(f"{i.get('internal_api')} {i.get('version')} ({i.get('threading_layer', '?')}, "
                     f"{i.get('num_threads')} threads)" for i in threadpool_info() if i.get("user_api") == "blas")
    return [f"numpy {np.__version__}, scipy {scipy.__version__}, BLAS: {blas or 'none found'}"]


#: the 1-minute load average when the session started (benchmarks: how idle the machine was)
_LOAD_AT_START = os.getloadavg()[0]


#: the machine calibration of this session (mixbounds.checks.run.calibration), measured once when the benchmarks'
#: JSON is written
_CALIBRATION: dict = {}


def _calibration() -> dict:
    if not _CALIBRATION:
        _CALIBRATION.update(calibrate())
    return _CALIBRATION


def pytest_benchmark_update_machine_info(config, machine_info):
    """Record in pytest-benchmark's JSON the load average before and after the benchmarks, the cores, the BLAS
    threads, the code version and the machine calibration: a time taken beside other work is a guess, and the docs'
    page says which it was."""
    machine_info["calibration_seconds"] = _calibration()["seconds"]
    machine_info["calibration"] = dict(_calibration())
    machine_info["load_before"] = round(_LOAD_AT_START, 2)
    machine_info["load_after"] = round(os.getloadavg()[0], 2)
    machine_info["cores"] = os.cpu_count()
    machine_info["code_version"] = code_version()
    machine_info["blas_threads"] = [i.get("num_threads") for i in threadpool_info() if i.get("user_api") == "blas"]


def pytest_benchmark_update_json(config, benchmarks, output_json):
    """Every benchmark's ``extra_info`` carries the session's calibration and its median in calibration units."""
    cal = _calibration()["seconds"]
    for b in output_json.get("benchmarks", []):
        info = b.setdefault("extra_info", {})
        info["calibration_seconds"] = cal
        info["median_calibration_units"] = in_units((b.get("stats") or {}).get("median"), cal)
