"""The non-quadratic objective of the random families' second series (instances/objectives.py: LogCoshObjective)."""

import numpy as np
import pytest
from mixbounds.instances.families import build
from mixbounds.instances.layout import Layout
from mixbounds.instances.objectives import LogCoshObjective
from mixbounds.instances.reference.kkt import KKT_RTOL

#: closed forms and sums evaluated twice: rounding only
EXACT_RTOL = 1e-12
#: central differences with step 1e-5 on this objective (truncation ~1e-10, rounding ~1e-11)
FD_RTOL = 1e-6


def _objective(n=3, k=4, seed=0):
    rng = np.random.default_rng(seed)
    lay = Layout(d=(k - 1,) * n, dt=1)
    U = [np.linalg.qr(rng.standard_normal((k, k)))[0] for _ in range(n)]
    lam = [rng.uniform(1.0, 5.0, k) for _ in range(n)]
    c = [rng.uniform(0.0, 3.0, k) for _ in range(n)]
    s = [rng.standard_normal(k) for _ in range(n)]
    q = [rng.standard_normal(k) for _ in range(n)]
    return LogCoshObjective(U, lam, c, s, q, lay), lam, c


def test_closed_form_constants_and_derivatives():
    obj, lam, c = _objective()
    assert obj.L == pytest.approx(max(float((li + ci).max()) for li, ci in zip(lam, c)), rel=EXACT_RTOL)
    assert obj.mu == pytest.approx(min(float(li.min()) for li in lam), rel=EXACT_RTOL)
    rng = np.random.default_rng(1)
    u, v = rng.standard_normal(obj.layout.size), rng.standard_normal(obj.layout.size)
    assert obj.node_values(u).sum() == pytest.approx(obj.value(u), rel=EXACT_RTOL)
    h = 1e-5
    fd_g = (obj.value(u + h * v) - obj.value(u - h * v)) / (2 * h)
    assert fd_g == pytest.approx(obj.grad(u) @ v, rel=FD_RTOL)
    fd_h = (obj.grad(u + h * v) - obj.grad(u - h * v)) / (2 * h)
    assert np.linalg.norm(fd_h - obj.hessian(u) @ v) <= FD_RTOL * obj.L * np.linalg.norm(v)
    # no overflow far out: log cosh grows linearly
    assert np.isfinite(obj.value(1e6 * v)) and np.all(np.isfinite(obj.grad(1e6 * v)))


def test_bad_input_names_the_node():
    obj, lam, c = _objective()
    lay = obj.layout
    U = list(obj.U_blocks)
    q = [np.zeros(4)] * 3
    with pytest.raises(ValueError, match="node 1: lam_1 and c_1 must be >= 0"):
        LogCoshObjective(U, lam, [c[0], -c[1], c[2]], [np.zeros(4)] * 3, q, lay)
    with pytest.raises(ValueError, match="node 0: U_0 is not orthogonal"):
        LogCoshObjective([2 * U[0], U[1], U[2]], lam, c, [np.zeros(4)] * 3, q, lay)


@pytest.mark.parametrize("family,kw", [("random-consensus", {"kappa_f": 30.0, "kappa_W": 30.0}),
                                       ("random-mixed", {"kappa_f": 100.0, "kappa_AC": 30.0, "kappa_C": 10.0,
                                                         "kappa_Ct": 30.0, "kappa_W": 30.0})])
def test_random_family_logcosh(family, kw):
    """The random families' log-cosh series: realized κ_f exactly the target (closed forms), the quadratic series'
    instances unchanged by its existence, and a reference by Newton's method certified by its KKT residual."""
    from mixbounds.instances.reference.kkt import reference_solution

    inst = build(family, seed=0, objective="logcosh", **kw)
    quad = build(family, seed=0, **kw)
    assert inst.realized["kappa_f"] == pytest.approx(kw["kappa_f"], rel=EXACT_RTOL)
    Qq = quad.problem.objective.Q.toarray()  # the same U_i and eigenvalues: equal up to rounding
    assert np.abs(inst.problem.objective.Q.toarray() - Qq).max() <= EXACT_RTOL * np.abs(Qq).max()
    ref = reference_solution(inst.problem)
    assert ref.method.startswith("newton-kkt") and ref.kkt_residual <= KKT_RTOL


def test_convex_logcosh_variant():
    """Table 2's log-cosh variant: L_f = 1, μ_f = 0 exactly, a unique minimiser by Newton."""
    inst = build("convex-coupled", seed=0, kappa_A=10.0, kappa_W=10.0, variant="logcosh")
    obj = inst.problem.objective
    assert obj.L == 1.0 and obj.mu == 0.0
    assert inst.params["reference"]["method"].startswith("newton-kkt")
    assert inst.params["reference"]["kkt_residual"] <= KKT_RTOL


@pytest.mark.parametrize("rid,caught", [("audit.constants.T1.consensus.base", False),
                                        ("control.constants.T1.consensus.L_too_small", True),
                                        ("control.constants.T1.consensus.mu_too_large", True),
                                        ("control.constants.T2.coupled.L_too_small", True)])
def test_constants_audit_and_controls(rid, caught):
    """The constants audit passes on the closed forms and fails when L_f is stated 10% low or μ_f 10% high."""
    from mixbounds.checks.audits.audit_constants import checks
    from mixbounds.checks.tiers import TINY

    ch = next(c for c in checks() if rid in c.result_ids(TINY))
    res = {r.id: r for r in ch.finalize(TINY, {t.key: t.func(**t.kwargs) for t in ch.tasks(TINY)})}
    r = res[rid]
    assert r.status == ("fail" if caught else "pass"), r.detail
    if not caught:
        assert r.readings["hessian_violations"] == 0 and r.readings["gradient_violations"] == 0
