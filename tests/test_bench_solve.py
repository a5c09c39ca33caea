"""Benchmarks of ``mixbounds solve``'s phases and of figure drawing (issue 38, item 5).

The instance of issue 38: ``random-coupled``, d = 100, m = 5, κ_f = κ̂_A = 10, Erdős–Rényi graph, at 10⁴ (n = 100)
and 10⁵ (n = 1000) variables, ε = 1e-6.  Cases, each with its counts in ``extra_info``:

* ``load``: :func:`mixbounds.instances.io.load_instance` of the instance directory in the binary form (``--format
  npz``), written once to a temporary directory;
* ``setup``: the reformulation with its constants (``constants="auto"``, the stored spectral facts given, as
  ``mixbounds solve`` does when the files are unchanged), and with ``constants="spectral"`` for comparison (10⁴ only:
  the Lanczos takes ~20× the iterations at 10⁵);
* ``facts``: the spectral facts computed from the matrices (what the stored ones save);
* ``iterations``: the APAPC loop to ε on that reformulation;
* ``figures``: :func:`mixbounds.plots.draw_all` on the self-test results document (PNG, and PNG + SVG), and on a quick-tier
  ``results.json`` when ``MIXBOUNDS_BENCH_RESULTS`` names one.

As every benchmark of the suite (``pyproject.toml``: ``--benchmark-disable``), the default run calls each once and
checks its counts; ``--benchmark-enable`` times them (the 10⁵ cases only then: building them takes ~15 s).
``benchmarks/run_benchmarks.sh`` writes the JSON the docs read.  Nothing here asserts a time.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from mixbounds.checks.run._selftest import fake_document
from mixbounds.instances.families import build
from mixbounds.instances.io import load_instance, save_instance
from mixbounds.instances.reference.kkt import reference_solution
from mixbounds.instances.spectra import solver_facts, trusted_facts
from mixbounds.plots import draw_all, load_results
from mixbounds.solvers import ORACLES, APAPCParameters, Reformulation, apapc
from threadpoolctl import threadpool_limits

#: the issue's instance at each size: variables → random-coupled keywords
SIZES = {"1e4": dict(n=100, d=100, m=5, kappa_f=10.0, kappa_AC=10.0, graph="er", seed=0),
         "1e5": dict(n=1000, d=100, m=5, kappa_f=10.0, kappa_AC=10.0, graph="er", seed=0)}
EPS = 1e-6
#: rounds of the timed cases (pytest-benchmark reports min, median, … over them)
ROUNDS = {"1e4": 7, "1e5": 3}


def _enabled(config) -> bool:
    return not config.getoption("benchmark_disable") or config.getoption("benchmark_enable")


@pytest.fixture(scope="module", autouse=True)
def one_blas_thread():
    with threadpool_limits(limits=1):  # as mixbounds solve (BLAS_THREADS)
        yield


@pytest.fixture(scope="module", params=list(SIZES))
def case(request, tmp_path_factory):
    size = request.param
    if size != "1e4" and not _enabled(request.config):
        pytest.skip("10⁵-variable benchmark: run with --benchmark-enable")
    inst = build("random-coupled", **SIZES[size])
    inst = inst.with_reference(reference_solution(inst.problem).u)
    d = tmp_path_factory.mktemp("bench") / f"random-coupled-{size}"
    save_instance(inst, d, matrix_format="npz")
    loaded = load_instance(d)
    facts, note = trusted_facts(loaded.spectra, d, loaded.problem)
    assert facts is not None, note
    return size, d, loaded, facts


def _run_iterations(R: Reformulation, u_star: np.ndarray):
    lo, hi = R.interval
    params = APAPCParameters.rule(R.L_G, R.mu_G, hi, lo)
    w0 = R.from_u(np.zeros(R.problem.layout.size))
    den = R.sq_distance(w0, u_star)
    return apapc(grad_G=R.grad_G, apply_BtB=R.apply_normal, Btb=R.normal_rhs, w0=w0, params=params,
                 error=lambda w: R.sq_distance(w, u_star) / den, snapshot=R.orc.snapshot, eps=EPS, max_iter=10_000)


@pytest.mark.benchmark(group="solve-load")
def test_bench_load(benchmark, case):
    size, d, inst, _ = case
    out = benchmark.pedantic(load_instance, args=(d,), rounds=ROUNDS[size], iterations=1)
    assert out.problem.layout.size == inst.problem.layout.size
    benchmark.extra_info.update(size=size, variables=inst.problem.layout.size, format="npz")


@pytest.mark.benchmark(group="solve-facts")
def test_bench_facts_computed(benchmark, case):
    size, _, inst, facts = case
    got, _ = benchmark.pedantic(solver_facts, args=(inst.problem,), rounds=ROUNDS[size], iterations=1)
    assert got == facts  # what the stored spectra replace, bit for bit
    benchmark.extra_info.update(size=size, variables=inst.problem.layout.size)


@pytest.mark.benchmark(group="solve-setup")
@pytest.mark.parametrize("constants", ["auto", "spectral"])
def test_bench_setup(benchmark, case, constants):
    size, _, inst, facts = case
    if constants == "spectral" and size != "1e4":
        pytest.skip("spectral Lanczos at 10⁵: ~20× the iteration phase (issue 38); measured at 10⁴ only")
    R = benchmark.pedantic(Reformulation, args=(inst.problem,),
                           kwargs=dict(constants=constants, eps=EPS, facts=facts), rounds=ROUNDS[size], iterations=1)
    c = R.info["constants_G"]
    setup = R.setup_counts
    assert (sum(setup.values()) > 0) == (constants == "spectral")
    benchmark.extra_info.update(size=size, variables=inst.problem.layout.size, constants=constants,
                                used=c.get("choice", constants), mu_G=c["mu_G"], L_G=c["L_G"], setup_counts=setup)


@pytest.mark.benchmark(group="solve-iterations")
@pytest.mark.parametrize("constants", ["auto", "spectral"])
def test_bench_iterations(benchmark, case, constants):
    size, _, inst, facts = case
    R = Reformulation(inst.problem, constants=constants, eps=EPS, facts=facts)
    res = benchmark.pedantic(_run_iterations, args=(R, inst.x_star), rounds=ROUNDS[size], iterations=1)
    assert res.converged and res.history_error[-1] <= EPS
    per = np.diff(res.history_counts, axis=0)
    assert all(dict(zip(ORACLES, row)) == R.per_iteration_counts() for row in per)
    benchmark.extra_info.update(size=size, variables=inst.problem.layout.size, constants=constants,
                                iterations=res.iterations, counts=res.counts, setup_counts=R.setup_counts)


@pytest.fixture(scope="module")
def selftest_doc():
    return fake_document()


@pytest.mark.benchmark(group="figures")
@pytest.mark.parametrize("formats", [("png",), ("png", "svg")], ids=["png", "png+svg"])
def test_bench_figures_selftest(benchmark, selftest_doc, tmp_path, formats):
    """``png``: what ``mixbounds verify`` draws; ``png+svg``: with ``--svg`` or ``mixbounds plot``."""
    m = benchmark.pedantic(draw_all, args=(selftest_doc, tmp_path), kwargs={"formats": formats}, rounds=3,
                           iterations=1)
    assert not m["errors"] and m["cells"] and m["heatmap"]
    assert {p.suffix for p in m["heatmap"]} == {f".{f}" for f in formats}
    benchmark.extra_info.update(figures=len(m["cells"]) + len(m["classes"]) + 1, formats=list(formats))


@pytest.mark.benchmark(group="figures")
def test_bench_figures_results_file(benchmark, tmp_path):
    path = os.environ.get("MIXBOUNDS_BENCH_RESULTS")
    if not path:
        pytest.skip("set MIXBOUNDS_BENCH_RESULTS to a results.json (e.g. of the quick tier) to time its figures")
    doc = load_results(Path(path))
    m = benchmark.pedantic(draw_all, args=(doc, tmp_path), rounds=1, iterations=1)
    assert not m["errors"]
    benchmark.extra_info.update(results=str(path), figures=len(m["cells"]) + len(m["classes"]) + len(m["bench"]) + 1,
                                jobs=1)
