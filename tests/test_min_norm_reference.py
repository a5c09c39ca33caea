"""The sparse proximal reference of the smooth convex families (instances/reference/min_norm.py) against the
dense least-squares one, its certificate's negative control and its non-convergence error."""

import numpy as np
import pytest
import scipy.linalg as sla
from mixbounds.instances.families import build
from mixbounds.instances.nonsmooth import STRUCTURES
from mixbounds.instances.reference import min_norm
from mixbounds.instances.reference.kkt import KKT_RTOL, constraint_system, copy_map
from mixbounds.instances.reference.min_norm import (
    MIN_NORM_RTOL,
    min_norm_quadratic_solution,
    proximal_min_norm_solution,
)

pytestmark = pytest.mark.numerics

#: the two references agree to this relative distance (both solve to the rounding floor, 7e-13 measured)
U_RTOL = 1e-10


@pytest.mark.parametrize("structure", list(STRUCTURES))
@pytest.mark.parametrize("rank", [None, 1])
def test_proximal_matches_dense(structure, rank):
    P = build(f"convex-{structure}", rank=rank).problem
    dense = min_norm_quadratic_solution(P)
    prox = proximal_min_norm_solution(P)
    assert prox["kkt_residual"] <= KKT_RTOL and prox["min_norm_residual"] <= MIN_NORM_RTOL
    assert np.linalg.norm(prox["u"] - dense["u"]) <= U_RTOL * np.linalg.norm(dense["u"])


def _null_direction(P):
    """A direction of ker H ∩ ker G (the minimisers' set), dense; None if the minimiser is unique."""
    E = copy_map(P)
    H = (E.T @ P.objective.Q @ E).toarray()
    G = constraint_system(P)[0].toarray()
    N = sla.null_space(np.vstack([H, G]), rcond=1e-10)
    return N[:, 0] if N.shape[1] else None


def test_certificate_fails_for_another_minimiser():
    """Negative control: started with a component in ker H ∩ ker G, the steps converge to a minimiser that is
    not the nearest to 0; the certificate (which assumes the start 0) must reject it."""
    P = build("convex-coupled", rank=1).problem
    n0 = _null_direction(P)
    assert n0 is not None
    with pytest.raises(ValueError, match="not the minimiser nearest to 0"):
        proximal_min_norm_solution(P, start=3.0 * n0)


def test_too_few_steps_is_an_error():
    P = build("convex-mixed").problem
    with pytest.raises(ValueError, match="did not converge"):
        proximal_min_norm_solution(P, nu=1.0, max_steps=3)


def test_family_build_above_the_dense_limit_uses_the_proximal_route(monkeypatch):
    default = build("convex-coupled", rank=2)
    monkeypatch.setattr(min_norm, "DENSE_REFERENCE_MAX", 0)
    sparse = build("convex-coupled", rank=2)
    ref = sparse.params["reference"]
    assert ref["method"].startswith("proximal-point")
    assert ref["min_norm_residual"] <= MIN_NORM_RTOL
    assert np.linalg.norm(sparse.x_star - default.x_star) <= U_RTOL * np.linalg.norm(default.x_star)


@pytest.mark.parametrize("structure", ["mixed-ident", "coupled-local"])
def test_proximal_through_the_schur_complement_and_minres(monkeypatch, structure):
    """The route of the 10⁶-variable instances (H factored alone, MINRES on G H⁻¹ Gᵀ warm-started from the previous
    step's multipliers) gives the same point as the dense reference."""
    from mixbounds.instances.reference import saddle_point as reference

    monkeypatch.setattr(reference, "KKT_DIRECT_MAX_NNZ", 0)
    monkeypatch.setattr(reference, "KKT_DIRECT_BEFORE_MINRES_NNZ", 0)
    monkeypatch.setattr(reference, "SCHUR_DENSE_MAX", 0)
    P = build(f"convex-{structure}", rank=2).problem
    dense = min_norm_quadratic_solution(P)
    prox = proximal_min_norm_solution(P)
    assert "kkt-schur" in prox["method"]
    assert prox["min_norm_residual"] <= MIN_NORM_RTOL
    assert np.linalg.norm(prox["u"] - dense["u"]) <= U_RTOL * np.linalg.norm(dense["u"])
