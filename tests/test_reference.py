"""Reference solutions: KKT residual and feasibility on every class."""

import numpy as np
import pytest
from helpers import random_problem, ring_laplacian
from mixbounds.instances import Layout, LogisticObjective, MixedProblem, QuadraticObjective
from mixbounds.instances.reference.kkt import KKT_RTOL, reference_solution

#: feasibility of x* relative to the size of the right-hand sides
FEAS_RTOL = 1e-9


@pytest.mark.parametrize("kw", [dict(), dict(d=0), dict(d=0, shared=False), dict(dt=0), dict(dt=0, local=False)])
def test_reference_solution_every_class(rng, kw):
    P = random_problem(rng, **kw)
    r = reference_solution(P)
    assert r.kkt_residual <= KKT_RTOL
    lay = P.layout
    x = r.x
    if P.A is not None:
        s = sum(P.A[i] @ x[lay.x_offsets[i]:lay.x_offsets[i + 1]] - P.b[i] for i in range(P.n))
        assert np.linalg.norm(s) <= FEAS_RTOL * (1 + np.linalg.norm(np.sum(P.b, axis=0)))
    if P.Ct is not None:
        for Ci, ci in zip(P.Ct, P.ct):
            assert np.linalg.norm(Ci @ r.xt - ci) <= FEAS_RTOL * (1 + np.linalg.norm(ci))
    # the u-layout copies x̃ to every node
    _, Xt = lay.split(r.u)
    assert np.allclose(Xt, r.xt[None, :])


def test_redundant_identical_constraints(rng):
    lay = Layout((0,) * 5, 4)
    Ct = rng.standard_normal((2, 4))
    xt = rng.standard_normal(4)
    obj = QuadraticObjective([np.eye(4) * 2] * 5, [rng.standard_normal(4) for _ in range(5)], lay)
    P = MixedProblem(ring_laplacian(5), obj, lay, Ct=[Ct] * 5, ct=[Ct @ xt] * 5)
    r = reference_solution(P)
    assert r.kkt_residual <= KKT_RTOL


def test_logistic_reference_by_newton(rng):
    lay = Layout((3,) * 5, 2)
    F = [rng.standard_normal((20, 5)) for _ in range(5)]
    y = [np.sign(rng.standard_normal(20)) for _ in range(5)]
    obj = LogisticObjective(F, y, 0.1, lay)
    A = [rng.standard_normal((2, 3)) for _ in range(5)]
    P = MixedProblem(ring_laplacian(5), obj, lay, A=A, b=[A[i] @ np.ones(3) for i in range(5)])
    r = reference_solution(P)
    assert r.kkt_residual <= KKT_RTOL and r.method.startswith("newton")


def test_objective_gradient_matches_finite_differences(rng):
    lay = Layout((3,) * 4, 2)
    F = [rng.standard_normal((10, 5)) for _ in range(4)]
    y = [np.sign(rng.standard_normal(10)) for _ in range(4)]
    obj = LogisticObjective(F, y, 0.3, lay)
    u = rng.standard_normal(lay.size)
    g = obj.grad(u)
    h = 1e-6
    fd = np.array([(obj.value(u + h * e) - obj.value(u - h * e)) / (2 * h) for e in np.eye(lay.size)])
    assert np.allclose(g, fd, atol=1e-7)
    H = obj.hessian(u).toarray()
    fdH = np.array([(obj.grad(u + h * e) - obj.grad(u - h * e)) / (2 * h) for e in np.eye(lay.size)])
    assert np.allclose(H, fdH, atol=1e-6)
