"""Which point :func:`mixbounds.instances.reference.kkt.reference_solution` returns, and by which path.

A problem whose KKT matrix is singular (a quadratic with ``μ_f = 0`` and flat directions inside the feasible set:
convex-coupled's H is 16 × 16 with 8 zero eigenvalues) used to be factored anyway, and the point that came out
depended on the pivots' rounding (relative KKT residual 0.67 on an AMD EPYC, another minimiser with ‖u‖ 11.4
elsewhere).  Now the path is chosen from the objective's structure: the minimum-norm minimiser for such quadratics,
the KKT solve for strongly convex ones, Newton for strictly convex ones, a refusal otherwise.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sla
from mixbounds.instances.families import build
from mixbounds.instances.layout import Layout
from mixbounds.instances.objectives import (
    STRONG_CONVEXITY_RTOL,
    LogCoshObjective,
    LogisticObjective,
    QuadraticObjective,
)
from mixbounds.instances.problem import MixedProblem
from mixbounds.instances.reference.kkt import KKT_RTOL, constraint_system, copy_map, copy_weights, reference_solution

pytestmark = pytest.mark.numerics

#: the generic reference and the family's own minimum-norm point are the same computation (0 measured; a margin
#: for BLAS threads)
SAME_POINT_RTOL = 1e-12
#: a point is the minimiser nearest to 0 when its D-weighted component along ker H ∩ ker G is below this, relative
#: to its norm (rounding of the dense least squares: ~1e-15 measured); the control's component is 0.75 of it
NEAREST_RTOL = 1e-10


def _null_space(P):
    """``(N, D)``: an orthonormal basis of ker H ∩ ker G (dense SVD, exact zeros ~1e-16 against ≥ 0.1) and the
    u-layout metric's weights."""
    E = copy_map(P)
    H = (E.T @ P.objective.Q @ E).toarray()
    G = constraint_system(P)[0].toarray()
    return sla.null_space(np.vstack([H, G]), rcond=1e-10), copy_weights(P.layout)


def _distance_from_nearest(P, v: np.ndarray) -> float:
    N, D = _null_space(P)
    return float(np.linalg.norm(N.T @ (D * v)) / np.linalg.norm(v)) if N.shape[1] else 0.0


#: (family, parameters, dim ker H ∩ ker G): singular KKT matrices, and one whose minimiser is unique (μ_f = 0 alone)
CONVEX = [("convex-coupled", {}, 6), ("convex-mixed", {"rank": 1}, 8), ("convex-coupled-local", {"rank": 1}, 6),
          ("convex-mixed", {}, 0)]


@pytest.mark.parametrize("family,params,kernel", CONVEX, ids=[f"{f}-{len(p)}" for f, p, _ in CONVEX])
def test_a_singular_kkt_matrix_gives_the_minimum_norm_minimiser(family, params, kernel):
    inst = build(family, **params)
    P = inst.problem
    N, _ = _null_space(P)
    assert N.shape[1] == kernel  # > 0: the KKT matrix is singular, the minimisers form an affine set
    ref = reference_solution(P)
    assert ref.method.startswith("minimum-norm minimiser") and ref.kkt_residual <= KKT_RTOL
    v = np.concatenate([ref.x, ref.xt])
    assert _distance_from_nearest(P, v) <= NEAREST_RTOL
    assert np.linalg.norm(ref.u - inst.x_star) <= SAME_POINT_RTOL * np.linalg.norm(inst.x_star)
    if kernel:  # the control: another minimiser (the point plus a direction of the solution set), seen
        other = v + 0.75 * np.linalg.norm(v) * N[:, 0]
        assert _distance_from_nearest(P, other) > NEAREST_RTOL


def _quadratic_problem(eigs: list[float]) -> MixedProblem:
    """One node, no constraints, ``Q = U diag(eigs) Uᵀ`` with a fixed rotation ``U``, ``q = Q 1``."""
    k = len(eigs)
    U, _ = np.linalg.qr(np.random.default_rng(0).standard_normal((k, k)))
    Q = (U * np.asarray(eigs)) @ U.T
    Q = 0.5 * (Q + Q.T)
    lay = Layout([k], 0)
    return MixedProblem(np.zeros((1, 1)), QuadraticObjective([Q], [Q @ np.ones(k)], lay), lay)


def test_the_path_follows_the_strong_convexity_margin():
    """A computed μ_f of rounding size (a singular Q's smallest eigenvalue) is not strong convexity; μ_f = 1e-8 L_f
    (κ_f = 1e8, the largest a random family builds) is, and keeps the KKT solve."""
    flat = _quadratic_problem([1.0, 0.5, 0.0])
    assert flat.objective.mu <= STRONG_CONVEXITY_RTOL * flat.objective.L and not flat.objective.strongly_convex
    assert reference_solution(flat).method.startswith("minimum-norm minimiser")
    steep = _quadratic_problem([1.0, 0.5, 1e-8])
    assert steep.objective.strongly_convex
    assert reference_solution(steep).method == "kkt-direct"


def _logistic_problem(F: np.ndarray) -> MixedProblem:
    lay = Layout([F.shape[1]], 0)
    y = np.where(np.arange(F.shape[0]) % 3 == 0, -1.0, 1.0)
    return MixedProblem(np.zeros((1, 1)), LogisticObjective([F], [y], 0.0, lay), lay)


def test_a_non_quadratic_objective_without_unique_minimiser_is_refused():
    """Logistic regression without regularisation on features with a repeated column: flat along (e₁ − e₂), no
    defined reference (one line); the control, full-rank features, is solved by Newton steps."""
    F = np.random.default_rng(1).standard_normal((12, 3))
    full = _logistic_problem(F)
    assert full.objective.strictly_convex
    assert reference_solution(full).method.startswith("newton-kkt")
    F[:, 1] = F[:, 0]
    flat = _logistic_problem(F)
    assert not flat.objective.strictly_convex
    with pytest.raises(ValueError, match="not strictly convex") as err:
        reference_solution(flat)
    assert "\n" not in str(err.value)


def test_log_cosh_strict_convexity_is_read_from_its_data():
    k = 3
    lay = Layout([k], 0)

    def objective(lam, c):
        return LogCoshObjective([np.eye(k)], [np.asarray(lam, float)], [np.asarray(c, float)], [np.zeros(k)],
                                [np.zeros(k)], lay)

    assert objective([1.0, 0.0, 0.0], [0.0, 0.5, 0.5]).strictly_convex  # every direction curved
    assert not objective([1.0, 0.0, 0.0], [0.0, 0.5, 0.0]).strictly_convex  # e₃: λ = c = 0, flat
