"""mixbounds.instances.reference.deflated_kkt: KKT solves whose node blocks are singular, against a dense solve; the controls show that
the block Cholesky / Schur path refuses the same systems and that the border system needs its equilibration."""

import numpy as np
import pytest
import scipy.sparse as sp
from mixbounds.instances.families import build
from mixbounds.instances.reference import deflated_kkt as dk
from mixbounds.instances.reference import lad_interior_point as lad
from mixbounds.instances.reference import saddle_point as reference
from mixbounds.instances.reference.hessian_factor import BlockCholesky

pytestmark = pytest.mark.numerics

#: a solve of a well-posed system with singular blocks agrees with the dense solve to this (relative)
SOLVE_RTOL = 1e-9
#: the system with an unpinned eigenvalue 1e-11 (condition ~1e11, ε·cond ~ 1e-5; measured 1.4e-6): agreement to this
ILL_RTOL = 1e-4
#: ... and without the equilibration of the border system it is at least this far off (the dropped direction)
BROKEN_MIN = 0.5


def _system(*, n=8, s=5, border=0, nc=3, singular=(1, 4), null=0.0, g_scale=1.0, unpinned=False, seed=0):
    """Arrow-shaped PSD ``H`` with node blocks ``singular`` given the eigenvalue ``null`` (times the block's
    largest), and ``G`` (``nc`` rows).  ``unpinned``: ``G`` has no component along those null directions."""
    rng = np.random.default_rng(seed)
    blocks, nulls = [], []
    for i in range(n):
        A = rng.standard_normal((s, s))
        B = A @ A.T + 0.1 * np.eye(s)
        if i in singular:
            w, U = np.linalg.eigh(B)
            w[0] = null * w[-1]
            B = (U * w) @ U.T
            nulls.append((i, U[:, 0]))
        blocks.append(B)
    nx = n * s
    Hxt = 0.1 * rng.standard_normal((nx, border))
    H = sp.bmat([[sp.block_diag(blocks), Hxt], [Hxt.T, 10.0 * np.eye(border)]], format="csr") if border else \
        sp.csr_matrix(sp.block_diag(blocks))
    G = g_scale * rng.standard_normal((nc, nx + border))
    if unpinned:
        for i, u in nulls:
            cols = slice(i * s, (i + 1) * s)
            G[:, cols] -= np.outer(G[:, cols] @ u, u)
    parts = [np.arange(i * s, (i + 1) * s) for i in range(n)]
    return sp.csr_matrix(H), sp.csr_matrix(G), parts, rng


def _dense(H, G):
    nc = G.shape[0]
    return np.block([[H.toarray(), G.T.toarray()], [G.toarray(), np.zeros((nc, nc))]])


@pytest.mark.parametrize("border", [0, 3])
@pytest.mark.parametrize("null", [0.0, 1e-14, -1e-15])
def test_singular_blocks_are_deflated_and_the_solve_is_exact(border, null):
    H, G, parts, rng = _system(border=border, null=null)
    K = _dense(H, G)
    b = rng.standard_normal(K.shape[0])
    kkt = dk.DeflatedKKT(H, G, border, parts, reference.SaddleOperator(H, G))
    assert kkt.kz == 2 and kkt.nb == 2 + border + G.shape[0]
    x = kkt.once(b)
    x_ref = np.linalg.solve(K, b)
    assert np.linalg.norm(x - x_ref) <= SOLVE_RTOL * np.linalg.norm(x_ref)
    assert np.linalg.norm(kkt.K0 @ x - b) <= SOLVE_RTOL * np.linalg.norm(b)


@pytest.mark.parametrize("border", [0, 3])
def test_regular_blocks_give_the_schur_solution(border):
    """Nothing deflated: the border system is the arrow / Schur elimination, same solution as a dense solve."""
    H, G, parts, rng = _system(border=border, singular=())
    b = rng.standard_normal(H.shape[0] + G.shape[0])
    kkt = dk.DeflatedKKT(H, G, border, parts, reference.SaddleOperator(H, G))
    assert kkt.kz == 0
    x_ref = np.linalg.solve(_dense(H, G), b)
    assert np.linalg.norm(kkt.once(b) - x_ref) <= SOLVE_RTOL * np.linalg.norm(x_ref)


def test_control_the_block_cholesky_refuses_the_singular_blocks():
    """Why the deflation exists: the factorisation of the Schur path refuses the same H."""
    H, G, parts, _ = _system(null=-1e-15)
    with pytest.raises(ValueError, match="not positive definite"):
        BlockCholesky(H, parts)
    with pytest.raises(ValueError, match="not positive definite"):
        reference._SchurKKT(H, G)


def test_unpinned_small_eigenvalue_needs_the_equilibration():
    """A deflated direction that G does not pin keeps only its small (genuine) eigenvalue in the border system;
    beside large entries of G the plain cut-off drops it, and with it the large component of the solution along it
    (control); with the equilibration the solve agrees with the dense one to the system's condition."""
    H, G, parts, rng = _system(null=1e-11, g_scale=1e3, unpinned=True)
    b = rng.standard_normal(H.shape[0] + G.shape[0])
    x_ref = np.linalg.solve(_dense(H, G), b)
    kkt = dk.DeflatedKKT(H, G, 0, parts, reference.SaddleOperator(H, G))
    assert kkt.kz == 2
    assert np.linalg.norm(kkt.once(b) - x_ref) <= ILL_RTOL * np.linalg.norm(x_ref)
    kkt.S_pinv = dk.border_pinv(kkt.S, equilibrate=False)
    assert np.linalg.norm(kkt.once(b) - x_ref) >= BROKEN_MIN * np.linalg.norm(x_ref)


def test_redundant_constraint_rows_are_consistent():
    """A repeated row of G (consistent right-hand side): a zero eigenvalue of the border system, dropped; the
    solution satisfies the system."""
    H, G, parts, rng = _system()
    G = sp.csr_matrix(sp.vstack([G, G[:1]]))
    x_true = rng.standard_normal(H.shape[0] + G.shape[0])
    K = _dense(H, G)
    b = K @ x_true
    kkt = dk.DeflatedKKT(H, G, 0, parts, reference.SaddleOperator(H, G))
    x = kkt.once(b)
    assert np.linalg.norm(K @ x - b) <= SOLVE_RTOL * np.linalg.norm(b)


def test_border_too_large_is_refused(monkeypatch):
    H, G, parts, _ = _system()
    monkeypatch.setattr(dk, "BORDER_MAX", 4)
    with pytest.raises(dk.BorderTooLarge, match="2 deflated directions"):
        dk.DeflatedKKT(H, G, 0, parts, reference.SaddleOperator(H, G))


def test_interior_point_deflates_at_the_lp_vertex():
    """μ = 0: near the vertex some node blocks are singular; forced onto the deflated solver the interior point
    deflates them, every solve meets SOLVE_RTOL without regularisation, and the optimum is the dense one."""
    inst = build("nonsmooth-coupled-local", n=10, d=6, m=3, p=2)
    P, o = inst.problem, inst.problem.objective
    out = lad.lad_interior_point(P, o.features, o.targets, o.mu, kkt="deflated")
    factors = [t["factor"] for t in out["info"]["trace"] if "factor" in t]
    assert all(f.startswith("kkt-deflated") and "regularised" not in f for f in factors)
    assert max(int(f.split("eigen, ")[1].split()[0]) for f in factors) >= 1
    assert max(t["solve_residual"] for t in out["info"]["trace"] if "solve_residual" in t) <= lad.SOLVE_RTOL
    assert np.linalg.norm(out["u"] - inst.x_star) <= 1e-6 * np.linalg.norm(inst.x_star)


def test_unknown_kkt_choice_is_an_error():
    inst = build("nonsmooth-coupled", n=4, d=3, m=2)
    o = inst.problem.objective
    with pytest.raises(ValueError, match="kkt must be one of"):
        lad.lad_interior_point(inst.problem, o.features, o.targets, o.mu, kkt="splu")
