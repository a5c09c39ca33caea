"""Bring your own method: the contract (mixbounds.methods), the verdicts (mixbounds.bench_method), the pytest
helpers (mixbounds.testing) and the shipped examples, which use nothing but the public contract."""

import json
import math
import sys
from importlib.metadata import EntryPoint
from pathlib import Path

import numpy as np
import pytest
from mixbounds.checks.run.framework import instance_and_reference
from mixbounds.checks.tiers import TINY

from mixbounds.bench_method import plans
from mixbounds.bench_verdict import judge
from mixbounds.cli.command import main
from mixbounds.methods import MethodError, ProblemView, resolve, run_method
from mixbounds.testing import assert_optimal, assert_suboptimal, measure

ROOT = Path(__file__).resolve().parents[1]
# `examples` is a top-level folder of the checkout, as for `mixbounds bench`; appended, not prepended: the checkout's
# folders must never come before the install (worker processes inherit sys.path)
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))

from examples.apapc import apapc  # noqa: E402
from examples.diging import diging  # noqa: E402
from examples.papc import papc  # noqa: E402

#: tiny-tier slope tolerance of the examples' κ_f slopes (3 points over half a decade; the engine and APAPC read
#: 0.49-0.50 there): the optimal example must be within it of ½, the non-accelerated one must exceed 1 − it
SLOPE_TOL = 0.1
#: the example APAPC and the suite's APAPC run the same algorithm with the same constants: their per-accuracy
#: counts agree to rounding of the recorded history (measured: identical to 13 digits)
SAME_RTOL = 1e-9


@pytest.fixture(scope="module")
def consensus_point():
    return instance_and_reference("consensus", {"kappa_f": 30.0, "kappa_W": 30.0, "eps": 1e-6})


def _run(method, point, **kw):
    inst, ref = point
    kw.setdefault("max_iter", 2000)
    return run_method(method, inst.problem, ref.u, eps=1e-6, **kw)


# ----------------------------------------------------------------------------- the contract
def test_view_has_no_matrices_and_the_paper_constants(consensus_point):
    inst, _ = consensus_point
    v = ProblemView.of(inst.problem)
    for k, val in vars(v).items():
        assert not hasattr(val, "nnz"), f"{k} is a sparse matrix"
        assert not (isinstance(val, np.ndarray) and val.ndim == 2 and k != "b"), f"{k} is a matrix"
    assert v.kappa_W == pytest.approx(inst.realized["kappa_W"], rel=1e-6)
    assert v.kappa_f == pytest.approx(inst.realized["kappa_f"], rel=1e-6)
    assert v.size == inst.problem.layout.size and v.problem_class == "consensus"


def test_counts_are_the_oracle_calls(consensus_point):
    """Counts after k yields equal an independent count of the calls the method made."""
    made = {"grad": 0, "comm": 0}

    def method(problem, oracles):
        u = np.zeros(problem.size)
        while True:
            oracles.grad(u)
            oracles.comm(u.reshape(problem.n, -1))
            oracles.comm(u.reshape(problem.n, -1))
            made["grad"] += 1
            made["comm"] += 2
            yield u

    res = _run(method, consensus_point, max_iter=7)
    assert res.reason == "budget" and res.iterations == 7
    assert res.counts["grad"] == made["grad"] == 7 and res.counts["comm"] == made["comm"] == 14
    assert list(res.history_counts[-1]) == [7, 0, 0, 0, 14]


def _gen(body):
    def method(problem, oracles):
        yield from body(problem, oracles)
    return method


@pytest.mark.parametrize("body, reason", [
    (lambda p, o: iter([np.zeros(p.size), 1 / 0]), "exception: ZeroDivisionError"),
    (lambda p, o: iter([np.full(p.size, np.nan)]), "non-finite"),
    (lambda p, o: iter([np.zeros(p.size + 1)]), "shape: yield 1 is shape"),
    (lambda p, o: iter(["x"]), "shape: yield 1 is a non-numeric value"),
    (lambda p, o: iter([np.zeros(p.size)] * 3), "returned"),
    (lambda p, o: (np.full(p.size, 1e20 * (k + 1)) for k in range(5)), "diverged"),
    (lambda p, o: (np.zeros(p.size) for _ in iter(int, 1)), "budget"),
])
def test_bad_methods_are_reported_not_raised(consensus_point, body, reason):
    res = _run(_gen(body), consensus_point, max_iter=50)
    assert not res.converged and res.reason.startswith(reason), res.reason


def test_resolve_errors_name_the_spec(tmp_path, monkeypatch):
    (tmp_path / "usermod.py").write_text("import numpy\nX = 3\ndef f(p, o):\n    return 1\n"
                                         "def g(p, o):\n    yield 0\ng.classes = ('nope',)\n")
    (tmp_path / "broken.py").write_text("raise RuntimeError('boom')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for spec, msg in [("nosuchmod:f", "does not import"), ("broken:f", "RuntimeError: boom"),
                      ("usermod:h", "has no attribute"), ("usermod:X", "not callable"),
                      ("usermod:f", "not a generator function"), ("usermod:g", "unknown classes"),
                      ("nosuchname", "no entry point")]:
        with pytest.raises(MethodError, match=msg):
            resolve(spec)


def test_entry_point_group(monkeypatch):
    import mixbounds.methods as methods_module

    ep = EntryPoint(name="ex-apapc", value="examples.apapc:apapc", group="mixbounds.methods")
    monkeypatch.setattr(methods_module, "entry_points", lambda group=None: [ep] if group == "mixbounds.methods" else [])
    assert resolve("ex-apapc") is apapc


def test_example_apapc_is_the_suites_apapc(consensus_point):
    """The example (contract only) and the suite's APAPC + Chebyshev make the same counts."""
    from mixbounds.checks.bench import per_accuracy
    from mixbounds.solvers import solve

    inst, ref = consensus_point
    mine = _run(apapc, consensus_point, settle=1 / 3, settle_eps=1e-6, max_iter=10_000)
    suite = solve(inst.problem, eps=1e-6, x_star=ref.u, settle=1 / 3)
    assert mine.converged and suite.converged and mine.iterations == suite.iterations
    a, b = per_accuracy(mine, 1e-2, 1e-6)["per_accuracy"], per_accuracy(suite, 1e-2, 1e-6)["per_accuracy"]
    assert a["comm"] == pytest.approx(b["comm"], rel=SAME_RTOL)


# ----------------------------------------------------------------------------- verdicts
def _synthetic(counts, lower_abs):
    plan = plans(TINY, ["consensus"], params=["kappa_f"], kinds=("worst",))[0]
    xs = plan.sweep.grid
    mp = [(v, {"realized": {"kappa_f": v}, "converged": True, "iterations": 10, "per_accuracy": {"comm": c, "grad": c},
               "abs": {"0.01": {"comm": c, "grad": c}, "1e-06": {"comm": 2 * c, "grad": 2 * c}}})
          for v, c in zip(xs, counts)]
    lp = [(v, {"error": "not run"} if lower_abs is None else
           {"realized": {"kappa_f": v}, "n": 9, "chain_length": 50,
            "bounds": {"comm": {"e0": 1.0, "count1": 0, "count2": 1, "reason": "tolerance",
                                "abs": {"0.01": 1, "1e-06": lower_abs}}}}) for v in xs]
    return plan, {"method": mp, "lower": lp}


def test_judge_slopes_and_below_lower_bound():
    xs = plans(TINY, ["consensus"], params=["kappa_f"], kinds=("worst",))[0].sweep.grid
    plan, pts = _synthetic([100 * x ** 0.5 for x in xs], None)
    assert judge(TINY, plan, "comm", pts)["status"] == "optimal"
    plan, pts = _synthetic([100 * x for x in xs], None)
    r = judge(TINY, plan, "comm", pts)
    assert r["status"] == "suboptimal" and "wholly above the band" in r["detail"] and r["slope"] == pytest.approx(1.0)
    plan, pts = _synthetic([100 * x ** 0.5 for x in xs], 10 ** 6)  # every count below the engine's bound
    r = judge(TINY, plan, "comm", pts)
    assert r["status"] == "below-lower-bound" and "engine's bound" in r["detail"]


def test_negative_control_a_method_that_bypasses_the_counters_is_below_the_lower_bound():
    """Control: reading the exact solution around the counters (not through the contract) must be caught."""
    from mixbounds.instances.reference.kkt import reference_solution

    from mixbounds.methods import _COUNTED

    def cheat(problem, oracles):
        x = reference_solution(_COUNTED[oracles].problem).u  # the raw problem (its process's copy): forbidden
        while True:
            yield x

    m = measure(cheat, "consensus", oracle="comm", param="kappa_f", tier=TINY)
    assert m.verdict == "below-lower-bound", m.detail


def test_a_raising_method_is_an_error_verdict_and_fails_assert_optimal():
    def broken(problem, oracles):
        yield np.zeros(problem.size)
        raise RuntimeError("step size")

    m = measure(broken, "consensus", oracle="comm", param="kappa_W", tier=TINY)
    assert m.verdict == "error" and "RuntimeError: step size" in m.detail
    with pytest.raises(AssertionError, match="error, not optimal: .*RuntimeError: step size"):
        assert_optimal(broken, "consensus", oracle="comm", param="kappa_W", tier=TINY)


# ----------------------------------------------------------------------------- the examples (tiny tier)
def test_examples_classified_on_consensus_kappa_f():
    opt = assert_optimal(apapc, "consensus", oracle="comm", param="kappa_f", tier=TINY)
    assert abs(opt.slope - 0.5) <= SLOPE_TOL and opt.lower_slope == pytest.approx(0.5, abs=SLOPE_TOL)
    sub = measure(papc, "consensus", oracle="comm", param="kappa_f", tier=TINY)
    assert sub.verdict == "suboptimal" and sub.slope >= 1 - SLOPE_TOL, sub
    assert "wholly above the band" in sub.detail


@pytest.mark.slow
def test_examples_classified_on_coupled_and_kappa_W():
    """Tiny tier, measured under load: APAPC coupled κ_f 0.520 [0.504, 0.536] optimal (its error leaves ε again
    after its first crossings: flagged), PAPC 1.000 suboptimal, DIGing κ_W 1.000 suboptimal; APAPC's consensus κ_W
    slope 0.452 [0.27, 0.63] straddles the band's lower edge 0.318 (3 points): inconclusive, never suboptimal."""
    opt = assert_optimal(apapc, "coupled", oracle="comm", param="kappa_f", tier=TINY)
    assert any("left ε again" in f for f in opt.flags)
    assert_suboptimal(papc, "coupled", oracle="comm", param="kappa_f", tier=TINY)
    assert measure(apapc, "consensus", oracle="comm", param="kappa_W", tier=TINY).verdict in ("optimal", "inconclusive")
    assert_suboptimal(diging, "consensus", oracle="comm", param="kappa_W", tier=TINY)


# ----------------------------------------------------------------------------- the CLI
@pytest.mark.parametrize("argv, match", [
    (["--method", "nosuchmod:f"], "module 'nosuchmod' does not import"),
    (["--method", "examples.apapc:nosuch"], "has no attribute 'nosuch'"),
    (["--method", "examples.apapc:math"], "not callable"),
    (["--method", "examples.chebyshev:degree"], "not a generator function"),
    (["--method", "examples.diging:diging", "--classes", "consensus,coupled"], "does not support class 'coupled'"),
    (["--method", "examples.apapc:apapc", "--classes", "consensus,bogus"], "unknown class 'bogus'"),
])
def test_cli_bad_input_exit_2_nothing_written(tmp_path, capsys, monkeypatch, argv, match):
    monkeypatch.chdir(ROOT)
    out = tmp_path / "out"
    assert main(["bench", *argv, "--tier", "tiny", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert match in err and len(err.strip().splitlines()) == 1 and "mixbounds bench: error" in err
    assert not out.exists()


def test_cli_out_path_checked_before_the_work(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    f = tmp_path / "file"
    f.write_text("x")
    assert main(["bench", "--method", "examples.apapc:apapc", "--tier", "tiny", "--out", str(f)]) == 2
    assert "not a directory" in capsys.readouterr().err


def test_cli_runs_and_writes(tmp_path, monkeypatch, capsys):
    """The whole path on the smallest run there is: the consensus class, tiny tier, one job."""
    monkeypatch.chdir(ROOT)
    out, js = tmp_path / "o", tmp_path / "b.json"
    rc = main(["bench", "--method", "examples.apapc:apapc", "--classes", "consensus", "--tier", "tiny",
               "--out", str(out), "--json", str(js), "--jobs", "1"])
    assert rc == 0
    doc = json.loads(js.read_text())
    # tiny tier: 3 points, a CI with one degree of freedom; the optimal method is never suboptimal, and where the
    # CI is narrow enough (κ_f on the construction) it is optimal; elsewhere the data cannot decide
    assert {r["status"] for r in doc["results"]} <= {"optimal", "inconclusive"} and len(doc["results"]) == 8
    comm = next(r for r in doc["results"] if r["id"] == "bench.method.consensus.comm.kappa_f")
    assert comm["status"] == "optimal" and all(p["ratio"] >= 1 for p in comm["points"])
    assert math.isfinite(comm["lower"]["slope"]) and all(0.9 < p["ratio_apapc"] < 1.1 for p in comm["points"])
    assert (out / "report.md").is_file() and (out / "report.html").is_file() and (out / "bench.json").is_file()
    assert "optimal" in (out / "report.md").read_text() and len(list((out / "plots").glob("*.png"))) == 8
    # set-up counted and said: what each count includes, APAPC's constants-estimation rounds (lemma constants: 0)
    assert all(r["counts_basis"]["per_accuracy"].startswith("rounds between") for r in doc["results"])
    assert all(r["apapc"]["setup_counts"] == 0 for r in doc["results"])
    assert "Set-up: the per-accuracy counts" in (out / "report.md").read_text()


def test_guide_example_is_the_shipped_diging():
    """The method designer's guide shows examples/diging.py's function as the complete example, character for character."""
    guide = (ROOT / "docs" / "guides" / "method-designer.md").read_text()
    block = guide.split("def diging(problem, oracles):", 1)[1].split("```", 1)[0]
    src = (ROOT / "examples" / "diging.py").read_text().split("def diging(problem, oracles):", 1)[1]
    assert block.strip() == src.strip().replace("\n\n\n", "\n\n")


# ----------------------------------------------------------------------------- the contract on one page
def test_guide_contract_table_is_generated_from_the_code():
    """The guide's table is contract_table() exactly (regenerate it from there when a field changes)."""
    from mixbounds.methods import contract_table

    guide = (ROOT / "docs" / "guides" / "method-designer.md").read_text()
    block = guide.split("do not edit by hand -->\n", 1)[1].split("<!-- end of contract-table -->", 1)[0]
    assert block == contract_table(), "run python -c 'from mixbounds.methods import contract_table; " \
                                      "print(contract_table())' and paste it into the guide"


def test_contract_table_covers_every_field_and_operator_and_nothing_else():
    import dataclasses

    from mixbounds.methods import ORACLE_ROWS, VIEW_FIELDS, MethodOracles

    assert list(VIEW_FIELDS) == [f.name for f in dataclasses.fields(ProblemView)]
    ops = [k for k, v in vars(MethodOracles).items() if callable(v) and not k.startswith("_")]
    assert sorted(ORACLE_ROWS) == sorted(ops)


def test_contract_shapes_are_the_operators_shapes():
    """The table's shapes, checked on a mixed instance (every block present): A (dx,)→(n, m), AT back, Ct (n, dt)→
    stacked, CtT back to (n, dt), comm keeps the shape; b is (n, m)."""
    from mixbounds.solvers.oracles import CountedOracles

    from mixbounds.methods import MethodOracles

    inst, _ = instance_and_reference("random-mixed", {"seed": 0})
    v, o = ProblemView.of(inst.problem), MethodOracles(CountedOracles(inst.problem))
    x, Xt = np.zeros(v.dx), np.zeros((v.n, v.dt))
    assert o.A(x).shape == (v.n, v.m) == v.b.shape and o.AT(o.A(x)).shape == (v.dx,)
    assert o.CT(o.C(x)).shape == (v.dx,) and o.C(x).shape == v.c.shape
    assert o.CtT(o.Ct(Xt)).shape == (v.n, v.dt) and o.Ct(Xt).shape == v.ct.shape
    assert o.grad(np.zeros(v.size)).shape == (v.size,) and o.comm(np.zeros((v.n, 3))).shape == (v.n, 3)


def test_guide_coupled_example_is_the_shipped_pdgd():
    guide = (ROOT / "docs" / "guides" / "method-designer.md").read_text()
    block = guide.split("def pdgd(problem, oracles):", 1)[1].split("```", 1)[0]
    src = (ROOT / "examples" / "pdgd.py").read_text().split("def pdgd(problem, oracles):", 1)[1]
    assert block.strip() == src.strip().replace("\n\n\n", "\n\n")


def test_coupled_example_pdgd_is_suboptimal_in_kappa_f():
    """The guide's coupled example: a primal–dual method without momentum, exponent ~1 in κ_f (Table 1: ½)."""
    from examples.pdgd import pdgd

    m = assert_suboptimal(pdgd, "coupled", oracle="comm", param="kappa_f", tier=TINY)
    assert m.slope > 1 - SLOPE_TOL, m.detail
