"""Statements checked since issue 36: the two remarks after def:mixed_condition_number, the kernel equivalence of
sub:shared_variable_constraints, the reformulations of app:problem_formulations (and the VFL of the introduction)."""

import math

import pytest
from mixbounds.checks.lemmas import kernel_equivalence, mixed_condition_remarks, problem_formulations
from mixbounds.checks.lemmas.kernel_equivalence import point_kernel
from mixbounds.checks.lemmas.mixed_condition_remarks import REMARK_RTOL, point_remark
from mixbounds.checks.lemmas.problem_formulations import FORM_RTOL, WRONG_MIN, point_formulation
from mixbounds.checks.tiers import QUICK

#: principal-angle sine below which two kernels are the same subspace (checks.lemmas.base.SUBSPACE_TOL)
SUBSPACE_TOL = 1e-8


def _run(lem, tier=QUICK):
    pts = [dict(c.func(c.case)) if hasattr(c, "func") else dict(lem.point(c)) for c in lem.cases(tier)]
    return {r.id: r for r in lem.finalize(tier, pts, tuple(lem.result_ids(tier)))}


@pytest.mark.parametrize("n", [2, 7])
def test_unit_vectors_give_n_and_one(n):
    p = point_remark({"unit": n})
    assert p["kappa_hat"] == pytest.approx(n, rel=REMARK_RTOL)
    assert p["kappa_hat_T"] == pytest.approx(1.0, rel=REMARK_RTOL)


def test_identical_blocks_reduce_to_kappa_B():
    p = point_remark({"identical": 3, "n": 4, "rows": 3, "cols": 2, "cond": 50.0})
    assert p["kappa_hat"] == pytest.approx(p["kappa_B"], rel=1e-9) and p["kappa_hat_T"] == pytest.approx(p["kappa_B"], rel=1e-9)
    assert p["kappa_B"] == pytest.approx(50.0, rel=1e-9)  # random_block puts σ² at 1 and cond exactly


def test_remarks_check_statuses():
    res = _run(mixed_condition_remarks.LEMMA)
    assert [r.status for r in res.values()] == ["pass", "pass", "fail"]


def _kcase(**kw):
    base = {"seed": 801, "n": 4, "p": 2, "dt": 3, "graph": "path", "weights": "random", "identical": True, "rank": 1,
            "label": "test"}
    return {**base, **kw}


@pytest.mark.parametrize("poly", ["random", "chebyshev", "near-root"])
def test_kernels_equal_for_admissible_polynomials(poly):
    p = point_kernel(_kcase(poly=poly, degree=3))
    assert p["same"] and p["sin"] <= SUBSPACE_TOL and p["clear"]
    assert p["dim_ker_C_W"] == 2  # identical rank-1 C̃ on R³: ker C̃ ∩ consensus = 2-dimensional


def test_polynomial_vanishing_on_an_eigenvalue_grows_the_kernel():
    p = point_kernel(_kcase(poly="vanish"))
    assert p["dim_ker_C_W"] == 2 and p["dim_ker_PC_W"] == 3  # P(C̃ᵀC̃) = 0: ker W = consensus (R³)
    q = point_kernel(_kcase(poly="constant"))
    assert q["dim_ker_PC_W"] == 0 and not q["same"]


def test_kernel_check_statuses():
    res = _run(kernel_equivalence.LEMMA)
    main, ctrl = res["lemma.kernel_equivalence"], res["lemma.kernel_equivalence.control"]
    assert main.status == "pass" and ctrl.status == "fail"
    assert main.readings["cases where the kernels differ"] == 0
    assert ctrl.readings["control cases where the kernels differ"] == ctrl.readings["control cases"]


@pytest.mark.parametrize("form", problem_formulations.FORMS)
def test_formulations_have_the_same_optimum(form):
    p = point_formulation({"form": form, "n": 4, "seed": 2})
    assert p["diff_x"] <= FORM_RTOL and p["diff_value"] <= FORM_RTOL
    assert p["kappa_suite"] == pytest.approx(p["kappa_closed"], rel=1e-9)
    w = point_formulation({"form": form, "n": 4, "seed": 2, "wrong": True})
    assert w["diff_x"] > WRONG_MIN


def test_formulation_closed_forms():
    n = 6
    assert point_formulation({"form": "mixture", "n": n, "seed": 0})["kappa_suite"] == pytest.approx((1 + n * n) / (n + 1),
                                                                                                   rel=1e-12)
    assert point_formulation({"form": "multitask", "n": n, "seed": 0})["kappa_suite"] == pytest.approx(n, rel=1e-12)
    assert math.isfinite(point_formulation({"form": "ssl", "n": n, "seed": 0})["kappa_suite"])
