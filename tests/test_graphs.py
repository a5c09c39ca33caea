"""Graphs: the tuned path of app:example_graph and the standard families."""

import numpy as np
import pytest
from mixbounds.bounds import kappa_W
from mixbounds.instances.graphs import (
    KAPPA_W_RTOL,
    beta,
    complete_adjacency,
    erdos_renyi_adjacency,
    grid_adjacency,
    laplacian,
    metropolis,
    path_size_for,
    ring_adjacency,
    star_adjacency,
    tuned_path,
)


@pytest.mark.parametrize("target", [3.0, 7.5, 100.0, 1234.5, 3e4])
def test_tuned_path_hits_kappa(target):
    tp = tuned_path(target)
    assert tp.n % 3 == 0
    assert tp.beta_n <= target * (1 + KAPPA_W_RTOL) and target < tp.beta_n3
    assert 0.0 <= tp.a < 1.0
    assert abs(kappa_W(tp.W) / target - 1) <= KAPPA_W_RTOL
    cf = tp.closed_forms()
    assert all(v["holds"] for v in cf.values()), cf


def test_n_chi_relation_and_beta():
    for k in (3.0, 50.0, 1e3, 1e5):
        n = path_size_for(k)
        assert np.sqrt(k) <= 4 * np.sqrt(2) * n
        assert beta(n) <= k * (1 + 1e-9)


def test_tuned_path_rejects_impossible_targets():
    with pytest.raises(ValueError, match="κ_W must be finite and >= β_3"):
        tuned_path(2.0)
    with pytest.raises(ValueError):
        tuned_path(float("inf"))


@pytest.mark.parametrize("adj", [ring_adjacency(9), grid_adjacency(3, 4), star_adjacency(7), complete_adjacency(5),
                                 erdos_renyi_adjacency(25, 0.15, 3)])
def test_gossip_matrices_satisfy_assumption_W(adj):
    from mixbounds.instances import Layout, MixedProblem, QuadraticObjective

    n = adj.shape[0]
    lay = Layout((0,) * n, 1)
    obj = QuadraticObjective([np.eye(1)] * n, [np.zeros(1)] * n, lay)
    for W in (laplacian(adj), metropolis(adj)):
        MixedProblem(W, obj, lay, edges=adj)  # validates ass:W items 1-3 and the edge pattern
        assert np.isfinite(kappa_W(W))


def test_complete_graph_kappa_is_one():
    assert kappa_W(laplacian(complete_adjacency(6))) == pytest.approx(1.0)
