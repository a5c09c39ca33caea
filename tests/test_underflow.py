"""Flush-to-zero of the iterates' subnormal entries (mixbounds.solvers.underflow): the same run, without them.

The coupled worst case (``app:coupled_cons``'s chain in ``A``) at κ = 30 develops subnormal entries ahead of the
chain's front within a few hundred APAPC iterations; flushed, none is left after any iteration, and the run stops at
the same iteration with the same oracle counts, its per-accuracy cost equal to :data:`FLUSH_RTOL`.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from mixbounds.checks.rate_measure import rate_point
from mixbounds.checks.rates import UB_EPS1, UB_EPS2, instance_and_reference
from mixbounds.solvers.underflow import TINY, flush_subnormals

apapc_module = importlib.import_module("mixbounds.solvers.apapc")

#: a flushed and an unflushed run agree in their per-accuracy costs to this relative distance (measured: equal on
#: this instance; 4.9e-10 on a confidence bound near zero, 1.8e-11 on a slope, over the quick tier)
FLUSH_RTOL = 1e-9


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.uint64)


def test_flush_zeroes_exactly_the_subnormals():
    sub = np.nextafter(TINY, 0.0)  # the largest subnormal
    a = np.array([1.0, -2.5e-300, TINY, -TINY, sub, -sub, 5e-324, -5e-324, 0.0, -0.0, np.inf, -np.inf, np.nan])
    b = a.copy()
    flush_subnormals(b)
    small = np.abs(a) < TINY  # the four subnormals and the two zeros
    assert small.sum() == 6
    assert np.all(_bits(b[small]) == 0)  # +0.0, bit for bit (−0.0 becomes +0.0: equal as numbers)
    assert np.array_equal(_bits(b[~small]), _bits(a[~small]))  # normals, infinities, NaN untouched


def test_flush_works_in_place_on_a_2d_array():
    a = np.full((3, 4), 1e-310)
    a[1] = 1.0
    flush_subnormals(a)
    assert np.count_nonzero(a) == 4 and np.all(a[1] == 1.0)


def _run(monkeypatch, flush: bool):
    """The quick tier's ``UB coupled`` point at κ_f = κ_A = κ_W = 30 and the subnormal entries of ``u, u_f, z``
    counted after every iteration."""
    inst, ref = instance_and_reference("coupled", {"kappa_f": 30.0, "kappa_A": 30.0, "kappa_W": 30.0,
                                                   "eps": UB_EPS2})
    seen = []
    step = apapc_module.Iterates.step

    def counted(self, *args):
        step(self, *args)
        seen.append(sum(int(np.count_nonzero((v != 0) & (np.abs(v) < TINY))) for v in (self.u, self.u_f, self.z)))

    with monkeypatch.context() as m:
        m.setattr(apapc_module.Iterates, "step", counted)
        if not flush:
            m.setattr(apapc_module, "flush_subnormals", lambda a: None)
        out = rate_point(inst, ref.u, method="apapc", eps1=UB_EPS1, eps2=UB_EPS2, max_iter=200_000)
    return out, seen


@pytest.fixture(scope="module")
def runs():
    with pytest.MonkeyPatch.context() as mp:
        return _run(mp, True), _run(mp, False)


def test_flushed_apapc_carries_no_subnormal(runs):
    (out, seen), _ = runs
    assert out["converged"] and len(seen) == out["iterations"]
    assert max(seen) == 0


def test_unflushed_apapc_carries_subnormals(runs):
    """Negative control: without the flush the same run does carry subnormal entries (the test above can fail)."""
    _, (out, seen) = runs
    assert out["converged"] and max(seen) > 0


def test_the_flush_changes_no_count(runs):
    (a, _), (b, _) = runs
    assert a["iterations"] == b["iterations"]
    assert a["counts"] == b["counts"]
    for k, v in a["per_accuracy"].items():
        assert v == pytest.approx(b["per_accuracy"][k], rel=FLUSH_RTOL, abs=0.0), k
