"""Benchmarks of what a sweep point reuses from the points before it in the same process (issue 38, item 3).

* ``spectra``: the spectra of one sweep point (the printed mixed construction at κ_C̃ = 3000): its build (realized
  condition numbers) and the solver's facts (:func:`mixbounds.instances.spectra.solver_facts`), with the spectra memo
  ``off`` and ``on`` (empty at the start: only the point's own repeats are reused);
* ``setup``: the APAPC reformulation (:class:`mixbounds.solvers.Reformulation`, its materialised operators) of
  ``random-coupled-local`` at κ_W = 300, with the memos empty and after the same operators were materialised for
  ``random-mixed`` at the same point (the quick tier's costliest set-up: a 243 × 243 normal operator).

Each warm result is checked bit for bit against the cold one.  As every benchmark of the suite (``pyproject.toml``:
``--benchmark-disable``), the default run calls each once and checks it; ``--benchmark-enable`` times them.  Nothing
here asserts a time.
"""

from __future__ import annotations

import numpy as np
import pytest
from mixbounds.bounds import spectra_memo
from mixbounds.instances.families import build
from mixbounds.instances.spectra import solver_facts
from mixbounds.solvers import Reformulation, materialize
from threadpoolctl import threadpool_limits

#: the quick tier's κ_C̃ = 3000 point of the printed mixed construction (its lower-bound task's instance)
MIXED_POINT = dict(kappa_f=10.0, kappa_AC=30.0, kappa_C=10.0, kappa_Ct=3000.0, kappa_W=10.0, eps=1e-6)
RANDOM = dict(kappa_f=30.0, kappa_AC=30.0, kappa_C=10.0, kappa_W=300.0, seed=0)


@pytest.fixture(scope="module", autouse=True)
def one_blas_thread():
    with threadpool_limits(limits=1):  # as the workers of mixbounds verify
        yield


def _forget():
    spectra_memo.clear()
    materialize.clear_memo()


def _point(params: dict) -> tuple[dict, dict]:
    """A sweep point's spectra: the instance build (its realized condition numbers) and the solver's facts."""
    inst = build("mixed", **params)
    facts, _ = solver_facts(inst.problem)
    return inst.realized, facts


@pytest.mark.benchmark(group="sweep-reuse-spectra")
@pytest.mark.parametrize("memo", ["off", "on"])
def test_bench_point_spectra(benchmark, memo):
    with spectra_memo.disabled():
        expected = _point(MIXED_POINT)

    def run():
        if memo == "off":
            with spectra_memo.disabled():
                return _point(MIXED_POINT)
        return _point(MIXED_POINT)

    got = benchmark.pedantic(run, setup=_forget, rounds=5, iterations=1)
    assert got == expected  # floats compared exactly
    benchmark.extra_info.update(memo=memo, **spectra_memo.stats())


@pytest.fixture(scope="module")
def coupled_local():
    return build("random-coupled-local", **RANDOM).problem, build("random-mixed", **RANDOM).problem


def _normal_matrices(R: Reformulation) -> list[np.ndarray]:
    return [M.M for _, _, M in R.normal_operator.entries if isinstance(M, materialize.MaterializedDense)]


@pytest.mark.benchmark(group="sweep-reuse-setup")
@pytest.mark.parametrize("memo", ["cold", "warm"])
def test_bench_setup(benchmark, coupled_local, memo):
    P, other = coupled_local
    _forget()
    ref = Reformulation(P, eps=1e-6)
    expected = _normal_matrices(ref)
    assert expected, "the x block is materialised at this size"

    def setup():
        _forget()
        if memo == "warm":
            Reformulation(other, eps=1e-6)

    R = benchmark.pedantic(Reformulation, args=(P,), kwargs=dict(eps=1e-6), setup=setup, rounds=3, iterations=1)
    got = _normal_matrices(R)
    assert len(got) == len(expected) and all(np.array_equal(a, b) for a, b in zip(got, expected))
    assert R.per_iteration_counts() == ref.per_iteration_counts()
    benchmark.extra_info.update(memo=memo, size=int(expected[0].shape[0]))
