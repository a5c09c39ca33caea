"""Adversarial lemma searches (checks/lemmas/adversarial.py): budgets, controls, counterexamples that load back."""

import math

import pytest
from mixbounds.checks.lemmas import adversarial_chebyshev_interval as cheb
from mixbounds.checks.lemmas import adversarial_coupled_spectrum as coupled
from mixbounds.checks.lemmas import adversarial_local_spectrum as local
from mixbounds.checks.lemmas.adversarial import SETTINGS, Search, Statement, adversarial_check, search_point
from mixbounds.checks.lemmas.base import INEQ_RTOL, SALIM_HI
from mixbounds.checks.tiers import TINY

BUDGET = SETTINGS["tiny"].budget

#: a ratio recomputed from a saved counterexample agrees with the search's to rounding
RELOAD_RTOL = 1e-9


def _search(mod, key, tier="tiny"):
    return search_point({"module": mod.__name__, "key": key, "tier": tier})


def test_budget_is_spent_as_declared():
    p = _search(coupled, "lower")
    starts, restarts, maxfev = BUDGET
    assert p["evaluations"] <= starts + restarts * maxfev + restarts  # NM may exceed maxfev by one per restart
    assert p["searched_worst"] <= p["random_worst"]  # the local search starts from the random worst


def test_search_is_deterministic():
    assert _search(coupled, "upper")["searched_worst"] == _search(coupled, "upper")["searched_worst"]


def test_counterexample_loads_back_with_the_same_ratio():
    p = _search(local, "printed_min")
    assert p["searched_worst"] < 1 - INEQ_RTOL  # the printed σ_min+² formula is false (a known finding)
    again = local.SEARCH.evaluate(p["worst_case"])["printed_min"]
    assert again == pytest.approx(p["searched_worst"], rel=RELOAD_RTOL)


@pytest.mark.parametrize("mod", [coupled, local, cheb])
def test_controls_are_violated_and_true_statements_survive(mod):
    for st in mod.SEARCH.statements:
        p = _search(mod, st.key)
        if st.role == "control":
            assert p["searched_worst"] < 1 - st.tol
        elif st.role == "holds":
            assert p["searched_worst"] >= 1 - st.tol


def test_chebyshev_search_stays_inside_19_15():
    """sup 1/T_⌈√κ⌉ = 1/cosh 2: the 19/15 end has margin (19/15)/(1 + 1/cosh 2) − 1 ≈ 7e-4."""
    p = _search(cheb, "salim", "quick")
    assert 1.0 <= p["searched_worst"]
    assert p["searched_worst"] >= SALIM_HI / (1 + 1 / math.cosh(2.0)) * (1 - 1e-12)


def test_a_search_needs_one_control():
    s = Search(name="x", label="lem:x", module=__name__, statements=(Statement("a", "a"),), shapes=({},),
               sample=None, case=None, evaluate=None, lemma=coupled.SAMPLED, sampled=dict)
    with pytest.raises(ValueError, match="exactly one control"):
        adversarial_check(s)


def test_finalize_reports_sampled_and_searched_and_catches_the_control():
    lem = coupled.LEMMA
    pts = [dict(c.func(**({"case": c.case}))) for c in lem.cases(TINY)]
    main, ctrl = lem.finalize(TINY, pts, tuple(lem.result_ids(TINY)))
    assert main.status == "pass" and ctrl.status == "fail"
    for k in ("lower", "upper"):
        assert main.readings[f"{k}: sampled worst"] >= 1 - INEQ_RTOL
        assert main.readings[f"{k}: searched worst"] >= 1 - INEQ_RTOL
    assert main.readings["seed"] == coupled.SEARCH.seed
    assert main.readings["budget (evaluations per statement)"] == sum(BUDGET[:1]) + BUDGET[1] * BUDGET[2]
