"""QuadraticObjective with equal dense node blocks (the random families' Q_i): the vectorised validation and the
index-arithmetic block-diagonal Q give the per-block path's matrix array for array, and its errors node for node."""

import numpy as np
import pytest
import scipy.sparse as sp
from mixbounds.instances import objectives
from mixbounds.instances.layout import Layout
from mixbounds.instances.objectives import QuadraticObjective, block_diag_u

pytestmark = pytest.mark.numerics

LAYOUTS = [((3, 3, 3), 0), ((2, 2), 3), ((4, 4, 4, 4), 2), ((0, 0, 0), 4), ((5,) * 7, 1)]


def _blocks(rng, d, dt):
    k = d[0] + dt
    Q = []
    for _ in d:
        G = rng.standard_normal((k, k))
        Q.append(G @ G.T + 0.1 * np.eye(k))
    return Q, [rng.standard_normal(k) for _ in d]


def _per_block(monkeypatch):
    monkeypatch.setattr(objectives, "dense_node_blocks", lambda blocks, k: None)


@pytest.mark.parametrize("d,dt", LAYOUTS)
def test_dense_path_builds_the_per_block_matrix(d, dt, rng, monkeypatch):
    Q, q = _blocks(rng, d, dt)
    lay = Layout(d, dt)
    fast = QuadraticObjective(Q, q, lay)
    assert objectives.dense_node_blocks(fast.Q_blocks, d[0] + dt) is not None  # the fast path applied
    _per_block(monkeypatch)
    slow = QuadraticObjective(Q, q, lay)
    for a in ("indptr", "indices", "data"):
        x, y = getattr(fast.Q, a), getattr(slow.Q, a)
        assert x.dtype == y.dtype and np.array_equal(x, y), a
    assert (fast.L, fast.mu) == (slow.L, slow.mu) and np.array_equal(fast.q, slow.q)
    ref = block_diag_u([sp.csr_matrix(B) for B in Q], lay, square=True)
    assert abs(fast.Q - ref).max() == 0


@pytest.mark.parametrize("fault", ["asymmetric", "nonfinite", "q_nonfinite", "q_length"])
def test_dense_path_names_the_same_node(fault, rng, monkeypatch):
    d, dt = (3, 3, 3, 3, 3), 1
    Q, q = _blocks(rng, d, dt)
    if fault == "asymmetric":
        Q[3][0, 1] += 1.0
    elif fault == "nonfinite":
        Q[2][1, 1] = np.inf
    elif fault == "q_nonfinite":
        q[4][0] = np.nan
    else:
        q[1] = q[1][:-1]
    lay = Layout(d, dt)
    with pytest.raises(ValueError) as fast:
        QuadraticObjective(Q, q, lay)
    _per_block(monkeypatch)
    with pytest.raises(ValueError) as slow:
        QuadraticObjective(Q, q, lay)
    assert str(fast.value) == str(slow.value)
    assert str(fast.value).startswith(f"node {dict(asymmetric=3, nonfinite=2, q_nonfinite=4, q_length=1)[fault]}:")


def test_sparse_or_unequal_blocks_take_the_per_block_path(rng):
    lay = Layout((2, 3), 0)
    Q = [sp.diags([1.0, 2.0]).tocsr(), sp.csr_matrix(np.eye(3))]
    assert objectives.dense_node_blocks([sp.csr_matrix(B) for B in Q], 2) is None
    obj = QuadraticObjective(Q, [np.zeros(2), np.zeros(3)], lay)
    assert (obj.L, obj.mu) == (2.0, 1.0)
    assert objectives.dense_node_blocks([sp.diags([1.0, 2.0]).tocsr()] * 2, 2) is None  # zeros not stored
