"""Performance-estimation certificates (checks/pep): closed form, certificates, controls, extraction, skip path."""

from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys

import numpy as np
import pytest
from helpers import stall_first_quadratic_scaling
from mixbounds.checks.pep import availability
from mixbounds.checks.pep.factor import iterations, rho_derived, rho_theorem
from mixbounds.checks.pep.model import linear_model
from mixbounds.checks.pep.networks import network
from mixbounds.checks.pep.points import _data, certificate_point
from mixbounds.checks.pep.registry import certificate_verdict, checks
from mixbounds.checks.tiers import TINY

HAVE_PEP = availability.available()
needs_pep = pytest.mark.skipif(not HAVE_PEP, reason=availability.missing_reason() or "")

#: a PEP value vs a closed form: the SDP's accuracy (mixbounds.checks.pep.performance.PEP_ACCURACY) with margin
CLOSED_FORM_ATOL = 1e-6
#: tuned κ_W of the small networks (networks.KAPPA_W_RTOL with margin)
KAPPA_RTOL = 1e-8


@pytest.mark.parametrize("kind,n", [("path", 3), ("ring", 4), ("star", 5)])
def test_network_kappa_tuned(kind, n):
    net = network(kind, n, 1000.0)
    ev = np.linalg.eigvalsh(net.W)
    assert abs(ev[0]) < 1e-12 and ev[1] > 0
    assert ev[-1] / ev[1] == pytest.approx(1000.0, rel=KAPPA_RTOL)


def test_network_bad_input():
    with pytest.raises(ValueError, match="n >= 3|3 <= n"):
        network("path", 2, 10.0)
    with pytest.raises(ValueError, match="below it"):
        network("star", 5, 2.0)


def test_model_reads_the_suites_reformulation():
    """P is P_W(W) (spectrum in the Chebyshev interval), the rule's parameters, z-subspace = range P."""
    m = linear_model(_data("consensus", "path", 3, 10.0, 100.0))
    ev = np.linalg.eigvalsh(m.P)
    pos = ev[ev > 1e-9]
    assert pos.size == 2 and abs(ev[0]) < 1e-12
    assert m.params.lam_min <= pos.min() * (1 + 1e-9) and pos.max() <= m.params.lam_max * (1 + 1e-9)
    assert m.degree == 10  # ⌈√100⌉ communication rounds per iteration
    mc = linear_model(_data("coupled", "path", 3, 10.0, 100.0))
    assert mc.size == 6 and mc.S.shape[1] == 5  # x (3) + Y ⊥ 1 (2)
    assert np.linalg.norm(mc.H) > 0  # the penalty of eq:coupled_constraints_reg_form


def test_factors():
    m = linear_model(_data("consensus", "path", 3, 10.0, 100.0))
    p = m.params
    assert rho_theorem(p) == pytest.approx(1 / (1 + 0.25 * min(1 / np.sqrt(p.kappa * p.chi), 1 / p.chi)), rel=1e-15)
    assert 0 < rho_derived(p) < 1
    assert iterations(np.exp(-0.5)) == pytest.approx(2.0, rel=1e-14)
    assert iterations(1.0) == np.inf


@needs_pep
@pytest.mark.parametrize("eta", [0.05, 0.1, 0.18])
def test_gradient_descent_closed_form(eta):
    """PEPit on the suite's solver settings: one gradient step on F(μ, L), exact rate max(|1−ημ|, |1−ηL|)²."""
    from mixbounds.checks.pep.performance import SOLVER_OPTIONS
    from PEPit import PEP
    from PEPit.functions import SmoothStronglyConvexFunction

    mu, L = 1.0, 10.0
    pep = PEP()
    f = pep.declare_function(SmoothStronglyConvexFunction, mu=mu, L=L)
    xs = f.stationary_point()
    x0 = pep.set_initial_point()
    pep.set_initial_condition((x0 - xs) ** 2 <= 1)
    x1 = x0 - eta * f.gradient(x0)
    pep.set_performance_metric((x1 - xs) ** 2)
    solver = availability.solver_name()
    val = pep.solve(wrapper="cvxpy", solver=solver, verbose=0, **SOLVER_OPTIONS.get(solver, {}))
    assert val == pytest.approx(max(abs(1 - eta * mu), abs(1 - eta * L)) ** 2, abs=CLOSED_FORM_ATOL)


@needs_pep
@pytest.mark.parametrize("cls", ["consensus", "coupled", "shared"])
def test_certificate_each_class(cls):
    p = certificate_point(cls, "path", 3, 10.0, 100.0)
    assert p["solved"], p["solver_status"]
    assert p["accuracy"] <= 1e-6
    assert p["rho_pep"] <= p["rho_derived"] <= p["rho_theorem"]
    for key in ("N", "K", "W", "solver", "solver_status", "accuracy", "rho_pep", "rho_theorem"):
        assert key in p
    r = certificate_verdict(f"pep.{cls}.contraction.test", [p])
    assert r.status == "pass" and r.verdict_label == "certified (network)"
    assert p["exact"] and p["exact_t"] <= p["rho_theorem"] ** p["K"]  # the rounded dual certificate, checked exactly
    assert p["rho_pep"] <= p["rho_class"] + 1e-6


@needs_pep
def test_certificate_value_pinned():
    """Consensus, path 3, κ_f = 10, κ_W = 100: ρ_PEP measured 0.854330 (Clarabel and SCS agree to 1e-5)."""
    p = certificate_point("consensus", "path", 3, 10.0, 100.0)
    assert p["rho_pep"] == pytest.approx(0.8543298, abs=1e-5)


@needs_pep
def test_two_steps_no_worse_per_step():
    """K = 2 gives a per-step factor (V²)^{1/2} <= the one-step worst case (a contraction composes)."""
    one = certificate_point("consensus", "path", 3, 10.0, 100.0, K=1)
    two = certificate_point("consensus", "path", 3, 10.0, 100.0, K=2)
    assert two["solved"] and two["rho_pep"] <= one["rho_pep"] + 1e-6


def test_finding_when_the_factor_is_exceeded():
    """The verdict itself: a point above ρ_thm is a finding with both numbers, an unsolved SDP an error."""
    base = {"solved": True, "rho_pep": 0.99, "rho_theorem": 0.98, "rho_derived": 0.985, "N": 3, "K": 1,
            "solver": "CLARABEL", "solver_status": "optimal", "accuracy": 1e-9, "sdp_seconds": 0.1, "W": [[0]],
            "class": "consensus", "network": "path", "kappa_f": 10.0, "kappa_W": 100.0}
    r = certificate_verdict("pep.x", [base])
    assert r.status == "finding" and "0.990000" in r.detail and "0.980000" in r.detail
    r = certificate_verdict("pep.x", [dict(base, solved=False, solver_status="optimal_inaccurate", accuracy=1e-3)])
    assert r.status == "error"


@needs_pep
@pytest.mark.parametrize("rid", ["control.pep.theta_doubled.consensus", "control.pep.theta_doubled.coupled",
                                 "control.pep.wide_chebyshev.consensus"])
def test_controls_are_caught(rid):
    from mixbounds.checks.pep.registry import _control_result, _ctrl_task

    t = _ctrl_task(rid)
    r = _control_result(rid, t.func(**t.kwargs))
    assert r.control and r.status == "fail", r.detail


def test_an_unbounded_control_catches_nothing():
    """A control whose SDP is unbounded (or unsolved) is an error, never caught: only the certified property may
    catch a mis-set method (issue 46, Done means)."""
    from mixbounds.checks.pep.registry import _control_result

    p = {"rho_pep": math.inf, "rho_theorem": 0.9, "N": 3, "K": 1, "solver": "CLARABEL", "solver_status": "unbounded",
         "W": [], "accuracy": math.nan, "solved": False, "unbounded": True}
    assert _control_result("c", p).status == "error"
    assert _control_result("c", dict(p, solver_status="optimal", solved=True, rho_pep=0.95)).status == "fail"


@needs_pep
@pytest.mark.parametrize("cls", ["consensus", "coupled"])
def test_extraction_round_trip(cls):
    """The PEP's worst case as a suite instance: the suite's APAPC reproduces V^K to AGREE_ATOL."""
    from mixbounds.checks.pep.extract import AGREE_ATOL
    from mixbounds.checks.pep.points import extraction_point

    p = extraction_point(cls, "path", 3, 10.0, 100.0)
    assert p["quadratic"] and p["params_match"]
    assert p["V0_run"] == pytest.approx(1.0, abs=AGREE_ATOL)
    assert abs(p["VK_run"] - p["VK_pep"]) <= AGREE_ATOL
    assert p["oracle_counts"]["grad"] == 1  # one counted gradient round for K = 1


@needs_pep
def test_shared_worst_case_is_not_quadratic():
    """Over F(μ, L) the shared class's one-step worst case beats every quadratic (measured 0.7589 vs 0.7062)."""
    from mixbounds.checks.pep.points import extraction_point

    p = extraction_point("shared", "path", 3, 10.0, 100.0)
    assert not p["quadratic"] and p["rho_pep"] > p["rho_pep_quadratic"] + 1e-2
    assert p["extracted_from"] == "quadratics" and abs(p["VK_run"] - p["VK_pep"]) <= 1e-5


@needs_pep
def test_extraction_takes_the_quadratic_pep_in_the_second_scaling_when_the_first_stalls(monkeypatch):
    """The extraction point shares the series' fallback (:func:`mixbounds.checks.pep.series.quadratic_worst_case`):
    with the first scaling's PEP over quadratics forced to stall (proof residual 1e-3), the shared class's worst case
    is extracted from the rescaled PEP (L_f = 1) and the suite's APAPC still reproduces its V^K."""
    from mixbounds.checks.pep import series
    from mixbounds.checks.pep.points import extraction_point

    stall_first_quadratic_scaling(monkeypatch, series)
    p = extraction_point("shared", "path", 3, 10.0, 100.0)
    assert len(p["quadratic_attempts"]) == 2 and p["quadratic_attempts"][1]["L_f"] == 1.0
    assert p["extracted_from"] == "quadratics" and abs(p["VK_run"] - p["VK_pep"]) <= 1e-5


def test_skip_path_without_the_extra(monkeypatch):
    """Without PEPit/cvxpy/solver every PEP result is skipped with the reason, never a pass."""
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "PEPit" else real(name, *a))
    assert not availability.available() and "PEPit" in availability.missing_reason()
    p = certificate_point("consensus", "path", 3, 10.0, 100.0)
    assert p == {"skipped": availability.missing_reason()}
    for ch in checks():
        pts = {t.key: t.func(**t.kwargs) for t in ch.tasks(TINY)}
        for r in ch.finalize(TINY, pts):
            assert r.status == "skipped" and "pep" in r.detail, r.id


def test_an_install_without_clarabel_has_no_engine(monkeypatch):
    """The engine calls Clarabel directly: PEPit, cvxpy and SCS without Clarabel is not the extra (the PEP tasks
    would otherwise fail on import instead of being skipped)."""
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "clarabel" else real(name, *a))
    assert not availability.available() and "clarabel" in availability.missing_reason()
    assert certificate_point("consensus", "path", 3, 10.0, 100.0) == {"skipped": availability.missing_reason()}


@needs_pep
def test_smaller_pep_after_a_larger_one_in_one_process():
    """PEPit caches values on its shared null point: a larger PEP (coupled, Gram 22) then a smaller one (consensus,
    Gram 17) in the same process must both extract their worst cases (verify workers run many PEPs each)."""
    from mixbounds.checks.pep.performance import solve_pep

    big = solve_pep(linear_model(_data("coupled", "path", 3, 10.0, 100.0)))
    small = solve_pep(linear_model(_data("consensus", "path", 3, 10.0, 100.0)))
    assert big.gram_size > small.gram_size
    assert small.solved and len(small.worst["functions"]) == 3
    assert all(x.shape == (small.gram_size,) for x, _, _ in small.worst["functions"][0])


def test_verify_runs_on_an_install_without_the_extra(tmp_path):
    """A bare ``pip install .`` (none of clarabel, cvxpy, PEPit, scs importable): ``verify`` builds its checks without
    importing a module of the extra (the θ-threshold control's constants once imported the conic engine, and every
    ``verify`` stopped with a ModuleNotFoundError) and reports every PEP result ``skipped`` with the reason."""
    prog = ("import sys\n"
            "for name in ('clarabel', 'cvxpy', 'PEPit', 'scs'):\n"
            "    sys.modules[name] = None  # import fails, find_spec says absent\n"
            "from mixbounds.cli.command import main\n"
            "sys.exit(main())")
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-c", prog, "verify", "--tier", "tiny", "--jobs", "1", "--no-plots",
                           "--no-cache", "--out", str(out), "--claims", "pep.consensus.*"],
                          capture_output=True, text=True, timeout=600)
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    doc = json.loads((out / "results.json").read_text())
    pep = [c for c in doc["claims"] if c["id"].startswith("pep.")]
    assert pep and all(c["status"] == "skipped" and "[pep] extra" in c["detail"] for c in pep)
