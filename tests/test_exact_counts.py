"""Exact lower-bound counts: closed-form x*, closed-form arrival rounds, the engine's counts, the asymptotic exponent,
the split gradient chain and the refutation rule (checks/lower/{arrival,exact,asymptotic,refutation}.py)."""

import math

import numpy as np
import pytest
from mixbounds.checks.lower.arrival import arrival, has_formula
from mixbounds.checks.lower.asymptotic import asymptotic_exponent
from mixbounds.checks.lower.engine import Engine
from mixbounds.checks.lower.exact import XSTAR_RTOL, exact_point
from mixbounds.checks.lower.refutation import REFUTE_MARGIN, verdict
from mixbounds.checks.tiers import QUICK
from mixbounds.instances.families import build
from mixbounds.instances.reference.kkt import reference_solution
from mixbounds.instances.worst_case.closed_solution import deviation, has_closed_form, split_rows_rho

#: every construction with a closed form, at two sizes each (different n, l, chain lengths)
CASES = [
    ("consensus", dict(kappa_W=30, kappa_f=30)), ("consensus", dict(kappa_W=300, kappa_f=8)),
    ("coupled", dict(kappa_W=30, kappa_A=30, kappa_f=10)), ("coupled", dict(kappa_W=200, kappa_A=8, kappa_f=4)),
    ("shared", dict(kappa_W=30, kappa_Ct=30, kappa_f=10)), ("shared", dict(kappa_W=150, kappa_Ct=8, kappa_f=4)),
    ("coupled-local", dict(kappa_W=20, kappa_C=10, kappa_AC=30, kappa_f=10, variant="shared-rows-incidence")),
    ("coupled-local", dict(kappa_W=10, kappa_C=30, kappa_AC=30, kappa_f=10, variant="split-rows")),
    ("coupled-local", dict(kappa_W=10, kappa_C=150, kappa_AC=8, kappa_f=4, variant="split-rows")),
    ("mixed", dict(kappa_W=20, kappa_AC=30, kappa_Ct=30, kappa_f=10, variant="cited")),
    ("mixed", dict(kappa_W=10, kappa_C=30, kappa_AC=30, kappa_Ct=4, kappa_f=10, variant="split-rows")),
    ("shared-ident", dict(kappa_W=20, kappa_Ct=30, kappa_f=10)),
    ("mixed-ident", dict(kappa_W=20, kappa_AC=30, kappa_Ct=30, kappa_f=10)),
    ("coupled-grad", dict(kappa_W=10, kappa_A=30, kappa_f=10)),
    ("shared-grad", dict(kappa_W=10, kappa_Ct=30, kappa_f=10)),
    ("mixed-grad", dict(kappa_W=10, kappa_AC=30, kappa_Ct=30, kappa_f=10, variant="cited")),
    ("coupled-grad", dict(kappa_W=30, kappa_A=30, kappa_f=10, gradient="split")),
    ("shared-grad", dict(kappa_W=30, kappa_Ct=30, kappa_f=10, gradient="split")),
    ("mixed-grad", dict(kappa_W=30, kappa_AC=30, kappa_Ct=30, kappa_f=10, variant="cited", gradient="split")),
    ("coupled-local-grad", dict(kappa_W=30, kappa_C=10, kappa_AC=30, kappa_f=10, variant="shared-rows-incidence",
                                gradient="split")),
]


@pytest.fixture(scope="module", params=CASES, ids=lambda c: f"{c[0]}[{c[1].get('variant', '')}{c[1].get('gradient', '')}]")
def case(request):
    fam, kw = request.param
    inst = build(fam, eps=1e-4, **kw)
    return inst, reference_solution(inst.problem).u


def test_closed_form_solution_is_the_kkt_solution(case):
    inst, u = case
    assert has_closed_form(inst)
    assert deviation(inst, u) <= XSTAR_RTOL


def test_closed_form_arrival_is_the_engines_first_reach_at_every_mass_vertex(case):
    inst, u = case
    E = Engine(inst.problem, u)
    mass = E.w > 0
    tried = 0
    for o in E.available():
        if not has_formula(inst, o):
            continue
        for conj in ((False, True) if o == "grad" else (False,)):
            X, Xt = arrival(inst, o, conjugate=conj)
            pred = np.zeros(E.N, dtype=np.int64)
            pred[:E.base_t], pred[E.base_t:E.base_y] = X.ravel(), Xt.ravel()
            reach = E.reach(o, conjugate=conj)
            assert np.array_equal(pred[mass], reach[mass]), (o, conj, int(np.count_nonzero(pred[mass] != reach[mass])))
            tried += 1
    assert tried >= 1


def test_printed_coupled_local_has_no_closed_form():
    inst = build("coupled-local", kappa_W=10, kappa_C=10, kappa_AC=30, kappa_f=10, eps=1e-4)
    assert not has_closed_form(inst) and not has_formula(inst, "A")
    with pytest.raises(ValueError, match="no formula"):
        arrival(inst, "A")


def test_split_rows_records_the_ratio_its_solution_decays_with():
    """The independent reader's 0.8616 at the class base point (κ_f = 10, κ̃_AC = 30), not the coupled dual's 0.810."""
    inst = build("coupled-local", kappa_W=10, kappa_C=10, kappa_AC=30, kappa_f=10, eps=1e-6, variant="split-rows")
    assert inst.params["rho"] == pytest.approx(0.8616264, abs=1e-7)
    assert inst.params["rho"] == pytest.approx(split_rows_rho(40.5, 9.0, 1.0, 10.0), rel=1e-14)


def test_exact_point_matches_at_every_level_and_a_truncated_chain_does_not():
    p = exact_point("consensus", dict(kappa_W=30, kappa_f=100, eps=1e-6), ["comm"])
    ex = p["bounds"]["comm"]["exact"]
    assert ex["matched"] == ex["points"] == 7 and p["bounds"]["comm"]["vertex_mismatch"] == 0
    cut = exact_point("consensus", dict(kappa_W=30, kappa_f=100, eps=1e-6, chain=12), ["comm"])
    assert cut["x_star_deviation"] > 1e-3 or cut["bounds"]["comm"]["exact"]["matched"] < 7


#: the closed form's exponent, read at κ = 1e12…1e13: the +1 of h = n/3 + 1 adds 5e-5 there
ASYM_TOL = 1e-4


@pytest.mark.parametrize("key,oracle,part,param,want", [
    ("consensus", "comm", "all", "kappa_W", 0.5), ("consensus", "comm", "all", "kappa_f", 0.5),
    ("coupled", "A", "all", "kappa_A", 0.5), ("coupled", "A", "all", "kappa_W", 0.0),
    ("mixed@cited", "A", "all", "kappa_AC", 0.5), ("mixed@cited", "comm", "xt", "kappa_AC", 0.0),
    ("coupled-local@split-rows", "C", "all", "kappa_C", 0.5), ("shared-ident", "Ct", "all", "kappa_Ct_id", 0.5),
    ("split", "grad", "all", "kappa_f", 0.5),
])
def test_asymptotic_exponents_of_the_closed_forms(key, oracle, part, param, want):
    base = dict(kappa_f=10.0, kappa_W=10.0, kappa_A=10.0, kappa_AC=10.0, kappa_C=10.0, kappa_Ct=10.0)
    assert asymptotic_exponent(key, oracle, part, param, base) == pytest.approx(want, abs=ASYM_TOL)


def test_split_gradient_chain_survives_conjugate_gradients_where_the_sum_trick_collapses():
    """With ∇f_i* in every round the split chain still needs one round per index; the sum-trick is done in one."""
    split = [exact_point("coupled-grad", dict(kappa_W=10, kappa_A=10, kappa_f=k, eps=1e-6, gradient="split"), ["grad"])
             for k in (100, 1e4)]
    per = [p["bounds"]["grad+conj"]["per_accuracy"] for p in split]
    assert all(p["bounds"]["grad+conj"]["exact"]["matched"] == 7 for p in split)
    assert math.log(per[1] / per[0]) / math.log(100) == pytest.approx(0.5, abs=0.03)
    trick = exact_point("coupled-grad", dict(kappa_W=10, kappa_A=10, kappa_f=1e4, eps=1e-6), ["grad"])
    assert trick["bounds"]["grad+conj"]["rounds_total"] == 1 and trick["bounds"]["grad"]["per_accuracy"] > 100


def _pts(per, deep, meth, xs=(10.0, 100.0, 1000.0)):
    eng = [(x, {"realized": {"kappa_AC": x}, "bounds": {"A": {"per_accuracy": a, "counts": {"1e-10": d}}}})
           for x, a, d in zip(xs, per, deep)]
    m = [(x, {"realized": {"kappa_AC": x}, "converged": True, "reason": "tolerance", "iterations": 10,
              "counts": {"A": c}}) for x, c in zip(xs, meth)]
    return eng, m


def test_refutation_rule():
    from mixbounds.bounds.claims import get

    cell = get("T1.coupled_local.A")
    eng, meth = _pts([0, 0, 0], [2, 2, 2], [983, 531, 449])  # the measured printed construction (quick tier)
    r = verdict(cell, "kappa_AC", eng, meth, QUICK, rid="x", control=True, construction="printed")
    assert r.extra["verdict"] == "refuted" and r.status == "fail"
    eng, meth = _pts([10, 30, 100], [12, 35, 110], [100, 316, 1000])  # a construction that carries the bound
    r = verdict(cell, "kappa_AC", eng, meth, QUICK, rid="x", control=True, construction="printed")
    assert r.extra["verdict"] == "not refuted" and r.status == "pass"
    # bounded engine, but the method grows like the claim: not refuted either (no method beats it)
    eng, meth = _pts([0, 0, 0], [2, 2, 2], [100, 316, 1000])
    r = verdict(cell, "kappa_AC", eng, meth, QUICK, rid="x", control=False, construction="printed")
    assert r.extra["verdict"] == "not refuted" and r.readings["method_exponent"] > 0.5 - REFUTE_MARGIN
