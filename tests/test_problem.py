"""MixedProblem: validation messages and the problem-class taxonomy."""

import numpy as np
import pytest
import scipy.sparse as sp
from helpers import path_laplacian, random_problem, ring_laplacian
from mixbounds.instances import Layout, MixedProblem, QuadraticObjective


def _obj(lay, rng, mu=1.0):
    Q = [np.eye(lay.d[i] + lay.dt) * (1 + mu) for i in range(lay.n)]
    q = [rng.standard_normal(lay.d[i] + lay.dt) for i in range(lay.n)]
    return QuadraticObjective(Q, q, lay)


@pytest.mark.parametrize(
    "kw, cls",
    [
        (dict(d=0, shared=False), "consensus"),
        (dict(d=0, shared=True), "shared"),
        (dict(dt=0, local=False), "coupled"),
        (dict(dt=0), "coupled_local"),
        (dict(dt=0, coupled=False), "local"),
        (dict(), "mixed"),
        (dict(local=False), "mixed"),
        (dict(dt=0, coupled=False, local=False), "separable"),
    ],
)
def test_problem_classes(rng, kw, cls):
    assert random_problem(rng, **kw).problem_class == cls


def test_identical_shared(rng):
    lay = Layout((0,) * 4, 3)
    Ct = rng.standard_normal((2, 3))
    xt = rng.standard_normal(3)
    P = MixedProblem(ring_laplacian(4), _obj(lay, rng), lay, Ct=[Ct] * 4, ct=[Ct @ xt] * 4)
    assert P.identical_shared
    P2 = MixedProblem(ring_laplacian(4), _obj(lay, rng), lay, Ct=[Ct] * 3 + [2 * Ct], ct=[Ct @ xt] * 3 + [2 * Ct @ xt])
    assert not P2.identical_shared


def _consensus(W, rng, n=None):
    n = W.shape[0] if n is None else n
    lay = Layout((0,) * n, 2)
    return MixedProblem(W, _obj(lay, rng), lay)


def test_W_must_be_symmetric(rng):
    W = path_laplacian(4).toarray()
    W[0, 1] = -0.5
    W[0, 0] = 0.5
    with pytest.raises(ValueError, match=r"not symmetric.*ass:W, item 1"):
        _consensus(W, rng)


def test_W_must_be_psd(rng):
    W = -path_laplacian(4)
    with pytest.raises(ValueError, match=r"ass:W"):
        _consensus(W, rng)


def test_W_graph_must_be_connected(rng):
    W = sp.block_diag([path_laplacian(3), path_laplacian(3)])
    with pytest.raises(ValueError, match=r"not connected.*node 3.*ass:W, item 3"):
        _consensus(W, rng)


def test_W_kernel_must_be_consensus(rng):
    W = path_laplacian(4) + 0.1 * sp.eye(4)
    with pytest.raises(ValueError, match=r"W·1.*ass:W, item 3"):
        _consensus(W, rng)


def test_W_pattern_must_match_edges(rng):
    W = path_laplacian(4)
    E = np.zeros((4, 4), bool)
    for i in range(3):
        E[i, i + 1] = True
    lay = Layout((0,) * 4, 1)
    MixedProblem(W, _obj(lay, rng), lay, edges=E)  # fine
    E2 = E.copy()
    E2[0, 3] = True
    with pytest.raises(ValueError, match=r"\(0, 3\) is an edge but W\[0, 3\] = 0.*item 2"):
        MixedProblem(W, _obj(lay, rng), lay, edges=E2)
    E3 = E.copy()
    E3[1, 2] = False
    with pytest.raises(ValueError, match=r"W\[1, 2\] ≠ 0 but \(1, 2\) is not an edge"):
        MixedProblem(W, _obj(lay, rng), lay, edges=E3)


def test_W_shape(rng):
    lay = Layout((0,) * 3, 1)
    with pytest.raises(ValueError, match=r"shape \(4, 4\), expected \(3, 3\)"):
        MixedProblem(path_laplacian(4), _obj(lay, rng), lay)


def test_shapes_are_checked_per_node(rng):
    lay = Layout((2, 3, 2), 0)
    A = [np.ones((2, 2)), np.ones((2, 3)), np.ones((3, 2))]
    with pytest.raises(ValueError, match=r"node 2: A_2 has shape \(3, 2\)"):
        MixedProblem(path_laplacian(3), _obj(lay, rng), lay, A=A, b=[np.zeros(2)] * 3)
    C = [np.ones((1, 2)), np.ones((1, 2)), np.ones((1, 2))]
    with pytest.raises(ValueError, match=r"node 1: C_1 has 2 columns, expected d_1=3"):
        MixedProblem(path_laplacian(3), _obj(lay, rng), lay, C=C, c=[np.zeros(1)] * 3)


def test_non_finite_entries(rng):
    lay = Layout((2, 2), 0)
    A = [np.ones((1, 2)), np.array([[np.nan, 1.0]])]
    with pytest.raises(ValueError, match=r"node 1: A_1: non-finite"):
        MixedProblem(path_laplacian(2), _obj(lay, rng), lay, A=A, b=[np.zeros(1)] * 2)


def test_coupled_rhs_must_be_in_range(rng):
    lay = Layout((1, 1), 0)
    A = [np.array([[1.0], [0.0]]), np.array([[2.0], [0.0]])]  # range is span(e1)
    b = [np.array([0.0, 1.0]), np.zeros(2)]
    with pytest.raises(ValueError, match=r"Σ_i b_i is not in the range of \(A_1 … A_n\)"):
        MixedProblem(path_laplacian(2), _obj(lay, rng), lay, A=A, b=b)


def test_local_rhs_must_be_in_range(rng):
    lay = Layout((2, 2), 0)
    C = [np.array([[1.0, 0.0], [2.0, 0.0]])] * 2
    c = [np.array([1.0, 2.0]), np.array([1.0, 0.0])]
    with pytest.raises(ValueError, match=r"node 1: c_1 is not in the range of C_1"):
        MixedProblem(path_laplacian(2), _obj(lay, rng), lay, C=C, c=c)


def test_shared_rhs_must_be_in_range(rng):
    lay = Layout((0, 0), 2)
    Ct = [np.array([[1.0, 1.0], [1.0, 1.0]])] * 2
    ct = [np.array([1.0, 1.0]), np.array([1.0, -1.0])]
    with pytest.raises(ValueError, match=r"node 1: c̃_1 is not in the range of C̃_1"):
        MixedProblem(path_laplacian(2), _obj(lay, rng), lay, Ct=Ct, ct=ct)


def test_objective_constants(rng):
    lay = Layout((1, 1), 0)
    Q = [np.array([[-1.0]]), np.array([[1.0]])]
    with pytest.raises(ValueError, match="not positive semidefinite"):
        QuadraticObjective(Q, [np.zeros(1)] * 2, lay)
    obj = QuadraticObjective([np.eye(1)] * 2, [np.zeros(1)] * 2, lay, L=1.0, mu=2.0)
    with pytest.raises(ValueError, match=r"0 <= μ_f <= L_f"):
        MixedProblem(path_laplacian(2), obj, lay)


def test_half_given_constraint_group(rng):
    lay = Layout((1, 1), 0)
    with pytest.raises(ValueError, match="A, b: give both or neither"):
        MixedProblem(path_laplacian(2), _obj(lay, rng), lay, A=[np.ones((1, 1))] * 2)


def test_layout_roundtrip(rng):
    lay = Layout((2, 0, 3), 2)
    u = rng.standard_normal(lay.size)
    assert np.array_equal(lay.from_z(lay.to_z(u)), u)
    x, Xt = lay.split(u)
    assert Xt.shape == (3, 2)
    z = lay.to_z(u)
    # node 2's block in z-layout is (x_2, x̃_2)
    assert np.array_equal(z[2 + 2 + 0 + 2:], np.concatenate([x[2:5], Xt[2]]))
    assert np.array_equal(u[lay.node_u_indices(2)], np.concatenate([x[2:5], Xt[2]]))


def test_quadratic_gradient_in_node_blocks(rng):
    P = random_problem(rng)
    lay = P.layout
    u = rng.standard_normal(lay.size)
    g = P.objective.grad(u)
    for i in range(P.n):
        idx = lay.node_u_indices(i)
        Qi = P.objective.Q_blocks[i].toarray()
        assert np.allclose(g[idx], Qi @ u[idx] - P.objective.q_blocks[i])
    vals = P.objective.node_values(u)
    assert vals.sum() == pytest.approx(P.objective.value(u))
