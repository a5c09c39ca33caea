"""Materialised operators shared between reformulations of the same matrices (:mod:`mixbounds.solvers.materialize`).

A reformulation whose operators were materialised before (same matrices, polynomials and scalings, e.g. the next
point of a κ_f sweep) takes the stored matrix; it must be the matrix the recurrence gives, bit for bit, with the same
counts per application, and a stored matrix that the recurrence does not reproduce must be rebuilt, not used.
"""

from __future__ import annotations

import numpy as np
import pytest
from mixbounds.instances.families import build
from mixbounds.solvers import Reformulation, materialize

PARAMS = dict(kappa_AC=10.0, kappa_C=10.0, kappa_W=30.0, seed=0)


@pytest.fixture(autouse=True)
def empty_memo():
    materialize.clear_memo()
    yield
    materialize.clear_memo()


def _dense(R: Reformulation) -> list:
    return [M for _, _, M in R.normal_operator.entries if isinstance(M, materialize.MaterializedDense)]


def _fresh(P) -> Reformulation:
    materialize.clear_memo()
    return Reformulation(P, eps=1e-6)


def test_sweep_neighbour_shares_the_operator_bit_for_bit():
    a = build("random-coupled-local", kappa_f=10.0, **PARAMS).problem
    b = build("random-coupled-local", kappa_f=30.0, **PARAMS).problem  # other f, same A, C, W
    Ra = Reformulation(a, eps=1e-6)
    Rb = Reformulation(b, eps=1e-6)
    (Ma,), (Mb,) = _dense(Ra), _dense(Rb)
    assert Mb.M is Ma.M  # taken from the memo
    (Mf,) = _dense(_fresh(b))
    assert Mf.M is not Ma.M
    assert np.array_equal(Mb.M, Mf.M) and Mb.per_apply == Mf.per_apply
    assert Rb.per_iteration_counts() == _fresh(b).per_iteration_counts()


def test_stored_matrix_that_the_recurrence_does_not_reproduce_is_rebuilt():
    P = build("random-coupled-local", kappa_f=10.0, **PARAMS).problem
    (M0,) = _dense(Reformulation(P, eps=1e-6))
    bad = []
    with materialize._DENSE_MEMO_LOCK:
        for key, (M, per) in list(materialize._DENSE_MEMO.items()):
            wrong = M.copy()
            wrong[0, 0] += 1e-12 * abs(M[0, 0])  # a wrong first column: what a key missing an input would hand out
            materialize._DENSE_MEMO[key] = (wrong, per)
            bad.append(wrong)
    (M1,) = _dense(Reformulation(P, eps=1e-6))
    assert all(M1.M is not w for w in bad)
    assert np.array_equal(M1.M, M0.M)


def test_memo_is_bounded(monkeypatch):
    monkeypatch.setattr(materialize, "DENSE_MEMO_BYTES", 1)
    P = build("random-coupled-local", kappa_f=10.0, **PARAMS).problem
    Reformulation(P, eps=1e-6)
    assert len(materialize._DENSE_MEMO) == 0  # a matrix above the budget is not kept


def test_operator_matrix_is_the_operator_on_the_unit_vectors():
    """The one operator-to-dense helper: on node arrays ``(n, k)`` the operator ``Y ↦ W Y`` is ``kron(W, I_k)`` in
    ``ravel`` order (small integer entries: every product is exact); each column gets a fresh unit vector, so an
    operator writing into its argument leaves the other columns alone."""
    W = np.array([[2.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 1.0]])
    assert np.array_equal(materialize.operator_matrix(lambda Y: W @ Y, (3, 2)), np.kron(W, np.eye(2)))
    assert np.array_equal(materialize.operator_matrix(lambda v: W @ v, 3), W)

    def doubles_in_place(v):
        v *= 2.0
        return v

    assert np.array_equal(materialize.operator_matrix(doubles_in_place, 4), 2.0 * np.eye(4))
    # negative control: a matrix whose entry is changed is told apart
    W2 = W.copy()
    W2[0, 2] = 1.0
    assert not np.array_equal(materialize.operator_matrix(lambda v: W2 @ v, 3), W)
