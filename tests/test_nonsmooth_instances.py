"""Nonsmooth (Tables 3-4) and smooth convex (Table 2) instance families."""

import numpy as np
import pytest
from mixbounds.instances.families import build, families
from mixbounds.instances.nonsmooth import STRUCTURES, qp_interior_point
from mixbounds.instances.reference.kkt import constraint_system, copy_map
from scipy.optimize import linprog

#: realized κ's vs targets (the generators of mixbounds.instances.random tune to 1e-8)
TARGET_RTOL = 1e-6
#: reference accuracy (relative constraint residual / optimality)
REF_TOL = 1e-8

KAPPAS = {"consensus": {"kappa_W": 12.0}, "coupled": {"kappa_W": 12.0, "kappa_AC": 15.0},
          "shared": {"kappa_W": 12.0, "kappa_Ct": 9.0}, "shared-ident": {"kappa_W": 12.0, "kappa_Ct": 9.0},
          "coupled-local": {"kappa_W": 12.0, "kappa_AC": 15.0, "kappa_C": 7.0},
          "mixed": {"kappa_W": 12.0, "kappa_AC": 15.0, "kappa_C": 7.0, "kappa_Ct": 9.0},
          "mixed-ident": {"kappa_W": 12.0, "kappa_AC": 15.0, "kappa_C": 7.0, "kappa_Ct": 9.0}}


def test_families_registered():
    fam = families()
    for s in STRUCTURES:
        assert f"nonsmooth-{s}" in fam and f"convex-{s}" in fam


@pytest.mark.parametrize("structure", list(STRUCTURES))
@pytest.mark.parametrize("variant", ["default", "strongly-convex"])
def test_nonsmooth_family(structure, variant):
    inst = build(f"nonsmooth-{structure}", variant=variant, **KAPPAS[structure])
    P = inst.problem
    for k, t in inst.targets.items():
        assert abs(inst.realized[k] / t - 1) <= TARGET_RTOL
    obj = P.objective
    assert not obj.smooth and obj.L is None
    assert (obj.mu > 0) == (variant == "strongly-convex")
    # reference: feasible, inside the box (inactive), residuals reported small
    G, h = constraint_system(P)
    E = copy_map(P)
    u = inst.x_star
    v = np.linalg.lstsq(E.toarray(), u, rcond=None)[0]
    assert np.allclose(E @ v, u)
    assert np.linalg.norm(G @ v - h) <= 1e-7 * (1 + np.linalg.norm(h))
    assert inst.params["box_margin"] > 0
    assert inst.params["reference"]["primal_residual"] <= REF_TOL
    # subgradient bounds on the box: every node's subgradient is within M_i
    rng = np.random.default_rng(0)
    lo, hi = obj.box
    for _ in range(20):
        z = rng.uniform(lo, hi)
        g = obj.grad(z)
        norms = np.sqrt(np.bincount(P.layout.node_of_u, weights=g * g, minlength=P.n))
        assert np.all(norms <= np.asarray(obj.M_nodes) * (1 + 1e-12))
    assert np.linalg.norm(obj.grad(u)) <= obj.M_total
    if structure in ("shared", "mixed"):
        assert inst.params["free_shared_dims"] > 0


@pytest.mark.parametrize("family", ["nonsmooth-shared", "nonsmooth-mixed", "convex-shared", "convex-mixed"])
def test_shared_constraints_that_fix_x_tilde_are_refused(family):
    """n·p̃ < d̃ (STRUCTURES' note): at n·p̃ = d̃ the C̃_i fix x̃; one more column leaves one free direction."""
    with pytest.raises(ValueError, match="would fix x̃"):
        build(family, n=5, dt=10, pt=2)
    assert build(family, n=5, dt=11, pt=2).params["free_shared_dims"] == 1


def test_reference_is_optimal_against_feasible_perturbations():
    inst = build("nonsmooth-coupled", kappa_W=12.0, kappa_AC=15.0)
    P = inst.problem
    G, h = constraint_system(P)
    E = copy_map(P)
    from scipy.linalg import null_space

    N = null_space(G.toarray())
    v = np.linalg.lstsq(E.toarray(), inst.x_star, rcond=None)[0]
    F = P.objective.value
    f0 = F(inst.x_star)
    rng = np.random.default_rng(1)
    for _ in range(50):
        d = N @ rng.standard_normal(N.shape[1])
        assert F(E @ (v + 1e-3 * d / np.linalg.norm(d))) >= f0 - 1e-10


def test_interior_point_matches_highs_on_lp():
    rng = np.random.default_rng(3)
    nv, nr, ne = 6, 14, 2
    D = rng.standard_normal((nr, nv))
    y = rng.standard_normal(nr)
    Geq = rng.standard_normal((ne, nv))
    h = Geq @ rng.standard_normal(nv)
    A = np.block([[D, -np.eye(nr), np.eye(nr)], [Geq, np.zeros((ne, 2 * nr))]])
    b = np.concatenate([y, h])
    c = np.concatenate([np.zeros(nv), np.ones(2 * nr)])
    H = np.zeros((nv + 2 * nr,) * 2)
    ipm = qp_interior_point(H, c, A, b, np.arange(nv, nv + 2 * nr))
    assert ipm["converged"]
    lp = linprog(c, A_eq=A, b_eq=b, bounds=[(None, None)] * nv + [(0, None)] * (2 * nr), method="highs")
    assert abs(c @ ipm["x"] - lp.fun) <= 1e-8 * (1 + abs(lp.fun))


def test_nonsmooth_rejects_kappa_f_and_bad_variant():
    with pytest.raises(ValueError, match="kappa_f"):
        build("nonsmooth-coupled", kappa_f=10.0)
    with pytest.raises(ValueError, match="variant"):
        build("nonsmooth-coupled", variant="smooth")
    with pytest.raises(ValueError, match="mu"):
        build("nonsmooth-coupled", mu=1.0)


@pytest.mark.parametrize("structure", ["coupled", "shared", "coupled-local", "mixed", "mixed-ident"])
def test_convex_family(structure):
    inst = build(f"convex-{structure}", **KAPPAS[structure])
    P = inst.problem
    obj = P.objective
    assert obj.smooth and obj.mu == 0.0 and obj.L == 1.0
    for k, t in inst.targets.items():
        assert abs(inst.realized[k] / t - 1) <= TARGET_RTOL
    assert inst.params["reference"]["kkt_residual"] <= 1e-9
    assert inst.params["D"] >= -1e-9
    # u* is optimal and the nearest optimum to 0: feasible directions along which F is flat do not shorten it
    G, h = constraint_system(P)
    E = copy_map(P)
    from scipy.linalg import null_space

    H = (E.T @ obj.Q @ E).toarray()
    Nf = null_space(np.vstack([H, G.toarray()]))
    v = np.linalg.lstsq(E.toarray(), inst.x_star, rcond=None)[0]
    if Nf.shape[1]:
        g = (E.toarray() @ Nf).T @ inst.x_star
        assert np.linalg.norm(g) <= 1e-8 * (1 + np.linalg.norm(inst.x_star))
    assert np.linalg.norm(G @ v - h) <= 1e-8 * (1 + np.linalg.norm(h))


def test_convex_logistic_variant():
    inst = build("convex-coupled", variant="logistic", kappa_W=12.0, kappa_AC=15.0)
    assert inst.problem.objective.mu == 0.0
    assert inst.params["reference"]["kkt_residual"] <= 1e-9
