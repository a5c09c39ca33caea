"""The machine calibration (mixbounds.checks.run.calibration): a fixed workload, its seconds recorded with a run's
timings, and the docs' timings pages showing both raw seconds and calibration units."""

import sys
from pathlib import Path

import pytest
from mixbounds.checks.run import calibration

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "docs" / "_ext"))
import results_pages  # noqa: E402

#: a ratio of two floats printed to one decimal
UNITS_RTOL = 1e-12


def test_the_workload_is_fixed_and_measured_in_parts():
    cal = calibration.calibrate()
    assert cal["seconds"] == pytest.approx(cal["spmv_seconds"] + cal["loop_seconds"], rel=UNITS_RTOL)
    assert cal["spmv_seconds"] > 0 and cal["loop_seconds"] > 0 and cal["workload"] == calibration.WORKLOAD
    M = calibration._matrix()
    assert M.shape == (calibration.SPMV_ROWS * calibration.STENCIL,) * 2
    # the same matrix every time, and its spectrum in [0, 1] (the recurrence's normalisation is then rare)
    assert (M != calibration._matrix()).nnz == 0 and abs(M).sum(axis=1).max() <= 1.0 + UNITS_RTOL
    assert calibration.calibration_stats(cal) == {"calibration_seconds": cal["seconds"], "calibration": cal}


def test_units_are_seconds_over_the_calibration():
    assert calibration.in_units(6.0, 2.0) == pytest.approx(3.0, rel=UNITS_RTOL)
    assert calibration.in_units(None, 2.0) is None and calibration.in_units(6.0, None) is None
    assert calibration.in_units(6.0, 0.0) is None  # negative control: no division by a zero calibration


def _snapshot(stats: dict, wall: float):
    meta = {"commit": "c0ffee", "dirty": False, "command": "mixbounds verify", "date": "d", "load_before": 0.1,
            "load_after": 0.2}
    return results_pages.Snapshot(name="quick", doc={"stats": stats, "wall_time": wall}, meta=meta)


def test_timings_page_shows_raw_and_calibrated_times():
    page = results_pages.page_timings({"quick": _snapshot({"seconds": 40.0, "calibration_seconds": 0.5}, 50.0)})
    assert "40.0 s = 80.0 u" in page and "50.0 s = 100.0 u" in page and "0.500 s" in page
    old = results_pages.page_timings({"quick": _snapshot({"seconds": 40.0}, 50.0)})  # a run before the calibration
    assert " u" not in old.split("| snapshot")[1].split("\n\n")[0] and "not recorded" in old


def test_timed_benchmarks_page_shows_units():
    doc = {"machine_info": {"calibration_seconds": 0.5}, "commit_info": {},
           "benchmarks": [{"name": "t", "group": "figures", "stats": {"median": 0.25, "min": 0.2, "max": 0.3,
                                                                      "rounds": 3}}]}
    page = results_pages.page_timed(doc)
    assert "0.5000 u" in page and "Machine calibration of the session: 0.500 s" in page
    doc["machine_info"] = {}
    assert "No machine calibration recorded" in results_pages.page_timed(doc)
