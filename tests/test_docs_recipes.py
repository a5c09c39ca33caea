"""The "How to add …" recipes of docs/contributing.md, each followed step by step in a copy of the package.

Every test copies the package in its installed layout to a temporary directory, makes exactly the edits its
recipe lists (a new file, a line in a registry), and then checks from a fresh interpreter on that copy that the
suite picked the addition up where the recipe says it does: the family registry and ``mixbounds instance``, the
benchmarks' method list, ``mixbounds verify`` with the new lemma or check family (its result passes and its
negative control is caught), the sweeps of a new claim.  A recipe that stops working (a registry moved, a
signature changed) fails here before a contributor follows it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from helpers import installed_copy

ROOT = Path(__file__).resolve().parent.parent
CONTRIBUTING = ROOT / "docs" / "contributing.md"


def _edit(pkg: Path, rel: str, old: str, new: str) -> None:
    """Replace the one occurrence of ``old`` in ``pkg/rel`` (the recipe's "its line in …")."""
    f = pkg / rel
    text = f.read_text()
    assert text.count(old) == 1, f"recipe anchor not found exactly once in {rel}: {old!r}"
    f.write_text(text.replace(old, new))


def _run(root: Path, args: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``python ARGS`` with the copy first on the path; exit 3 if the installed tree were imported instead."""
    env = dict(os.environ, PYTHONPATH=str(root))
    guard = (f"import mixbounds, sys\nif not mixbounds.__file__.startswith({str(root)!r}): sys.exit(3)\n")
    if args[0] == "-c":
        args = ["-c", guard + args[1]] + args[2:]
    else:  # the mixbounds command
        args = ["-c", guard + "from mixbounds.cli.command import main; sys.exit(main())"] + args
    return subprocess.run([sys.executable, *args], env=env, cwd=cwd or root, capture_output=True, text=True,
                          timeout=900)


def _verify(root: Path, claims: str, out: Path) -> tuple[int, dict]:
    proc = _run(root, ["verify", "--tier", "tiny", "--jobs", "1", "--no-plots", "--no-cache", "--out", str(out),
                       "--claims", claims])
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    return proc.returncode, json.loads((out / "results.json").read_text())


def test_every_recipe_of_the_page_has_a_test_here():
    recipes = [line[len("### a "):].strip() for line in CONTRIBUTING.read_text().splitlines()
               if line.startswith("### a ")]
    tested = {"worst-case family (a construction for a problem class)": test_recipe_worst_case_family,
              "solver (a baseline to benchmark)": test_recipe_solver,
              "lemma check": test_recipe_lemma_check, "claim (a table cell)": test_recipe_claim,
              "check family": test_recipe_check_family}
    assert recipes and sorted(recipes) == sorted(tested)


# ----------------------------------------------------------------------------- a worst-case family
TOY_FAMILY = '''"""A second construction for the consensus class (the recipe's test): the printed one, renamed."""

from mixbounds.instances.worst_case.consensus import build as build_consensus


def build(**kw):
    """The consensus construction as printed (mixbounds.instances.worst_case.consensus)."""
    return build_consensus(**kw)
'''


def test_recipe_worst_case_family(tmp_path):
    """Recipe: a module ``instances/worst_case/<name>.py`` with ``build(**kw)``, and its class's entry."""
    root = tmp_path / "src"
    pkg = installed_copy(root)
    (pkg / "instances" / "worst_case" / "toy_consensus.py").write_text(TOY_FAMILY)
    _edit(pkg, "instances/classes.py",
          '_named(ProblemClass.CONSENSUS), _named(ProblemClass.CONSENSUS), {"kappa_f": 100.0, "kappa_W": 100.0},',
          '"toy-consensus", "toy_consensus", {"kappa_f": 100.0, "kappa_W": 100.0},')
    probe = ("import json\n"
             "from mixbounds.instances.families import families\n"
             "from mixbounds.checks.registry import all_checks\n"
             "from mixbounds.checks.tiers import TINY\n"
             "f = families()\n"
             "kw = [json.dumps(t.kwargs) for c in all_checks() for t in c.tasks(TINY)]\n"
             "print('toy-consensus' in f, 'toy-consensus-grad' in f, any('toy-consensus' in k for k in kw))")
    proc = _run(root, ["-c", probe])
    assert proc.returncode == 0, proc.stderr[-2000:]
    # in the registry (no sum-trick twin: sum_trick=False), and the sweeps build it
    assert proc.stdout.split() == ["True", "False", "True"]
    out = tmp_path / "inst"
    proc = _run(root, ["instance", "toy-consensus", "--kappa-W", "10", "--kappa-f", "10", "--out", str(out)])
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (out / "instance.json").is_file()


# ----------------------------------------------------------------------------- a solver
TOY_SOLVER = '''"""Gradient tracking under another name (the recipe's test): a baseline module of the contract's shape."""

from mixbounds.solvers.baselines.diging import solve_diging

CLASSES = ("consensus",)
CITATION = "the contributing recipe's test"


def solve_toy_gt(problem, *, eps, x_star=None, max_iter=100_000, oracles=None, settle=0.0, settle_eps=None,
                 max_calls=None, **params):
    """DIGing, run through the same counted oracles."""
    return solve_diging(problem, eps=eps, x_star=x_star, max_iter=max_iter, oracles=oracles, settle=settle,
                        settle_eps=settle_eps, max_calls=max_calls, **params)
'''


def test_recipe_solver(tmp_path):
    """Recipe: a module ``solvers/baselines/<name>.py`` with ``solve_<name>``, ``CLASSES``, ``CITATION``, and
    its line in ``BASELINES``."""
    root = tmp_path / "src"
    pkg = installed_copy(root)
    (pkg / "solvers" / "baselines" / "toy_gt.py").write_text(TOY_SOLVER)
    _edit(pkg, "solvers/baselines/__init__.py", "from mixbounds.solvers.baselines.tracking_admm import solve_tracking_admm\n",
          "from mixbounds.solvers.baselines.tracking_admm import solve_tracking_admm\n"
          "from mixbounds.solvers.baselines import toy_gt\nfrom mixbounds.solvers.baselines.toy_gt import solve_toy_gt\n")
    _edit(pkg, "solvers/baselines/__init__.py", "BASELINES = {\n",
          'BASELINES = {\n    "toy-gt": (solve_toy_gt, toy_gt.CLASSES, toy_gt.CITATION),\n')
    probe = ("from mixbounds.checks.registry import all_checks\n"
             "from mixbounds.checks.tiers import TINY\n"
             "from mixbounds.instances.families import build\n"
             "from mixbounds.instances.reference.kkt import reference_solution\n"
             "from mixbounds.solvers.baselines import BASELINES\n"
             "ids = [r for c in all_checks() for r in c.result_ids(TINY)]\n"
             "inst = build('random-consensus', kappa_f=10.0, kappa_W=10.0, seed=0)\n"
             "res = BASELINES['toy-gt'][0](inst.problem, eps=1e-6, x_star=reference_solution(inst.problem).u)\n"
             "print('bench.consensus.toy-gt.comm.kappa_f' in ids, any('.coupled.toy-gt.' in r for r in ids),\n"
             "      res.converged, res.counts['comm'] > 0)")
    proc = _run(root, ["-c", probe])
    assert proc.returncode == 0, proc.stderr[-2000:]
    # benchmarked on the class it lists and only there; it converges through the counted oracles
    assert proc.stdout.split() == ["True", "False", "True", "True"]


# ----------------------------------------------------------------------------- a lemma check
TOY_LEMMA = '''"""λ_max of the path Laplacian is below 4 (the recipe's test), with a control that claims 3.5."""

import numpy as np

from mixbounds.checks.lemmas.base import LemmaCheck, Result, _le
from mixbounds.checks.run.result import CheckResult

BOUND, WRONG = 4.0, 3.5


def point(case):
    n = case["n"]
    L = np.diag(np.r_[1.0, np.full(n - 2, 2.0), 1.0]) - np.eye(n, k=1) - np.eye(n, k=-1)
    return {"n": n, "lmax": float(np.linalg.eigvalsh(L)[-1])}


def finalize(tier, pts, ids):
    worst = max(p["lmax"] for p in pts)
    ok, control_ok = _le(worst, BOUND), _le(worst, WRONG)
    return [CheckResult(id=ids[0], kind="lemma", status="pass" if ok else "fail", theory=BOUND, measured=worst,
                        label="toy:path_lmax", detail=f"max λ_max {worst:.4f} vs {BOUND}"),
            CheckResult(id=ids[1], kind="lemma", status="pass" if control_ok else "fail", theory=WRONG,
                        measured=worst, label="toy:path_lmax", control=True, expected="fail",
                        detail=f"max λ_max {worst:.4f} vs the wrong bound {WRONG}")]


LEMMA = LemmaCheck(
    id="lemma.toy_path_lmax", label="toy:path_lmax", description="λ_max(path Laplacian) <= 4",
    results=(Result("lemma.toy_path_lmax"), Result("lemma.toy_path_lmax.control", control=True)),
    cases=lambda tier: [{"n": n} for n in (3, 5, 8)], point=point, finalize=finalize)
'''


def test_recipe_lemma_check(tmp_path):
    """Recipe: a module ``checks/lemmas/<name>.py`` defining ``LEMMA``, and its name in ``MODULES``."""
    root = tmp_path / "src"
    pkg = installed_copy(root)
    (pkg / "checks" / "lemmas" / "toy_path_lmax.py").write_text(TOY_LEMMA)
    _edit(pkg, "checks/lemmas/__init__.py", 'MODULES = (', 'MODULES = ("toy_path_lmax", ')
    code, doc = _verify(root, "lemma.toy_path_lmax*", tmp_path / "out")
    by_id = {c["id"]: c for c in doc["claims"]}
    assert code == 0, doc["summary"]
    assert by_id["lemma.toy_path_lmax"]["status"] == "pass"
    assert by_id["lemma.toy_path_lmax.control"]["status"] == "fail"
    # the subset runs the lemma tolerances' probes with it (mixbounds.checks.audits.guards), every control caught
    assert "control.tolerance.lemmas.INEQ_RTOL.detects" in by_id
    assert doc["summary"]["controls_caught"] == doc["summary"]["controls_total"]


# ----------------------------------------------------------------------------- a claim
def test_recipe_claim(tmp_path):
    """Recipe: one ``add(...)`` line in ``_table_1``; the rates sweep every cell of its class."""
    root = tmp_path / "src"
    pkg = installed_copy(root)
    anchor = "def _table_1(add) -> None:\n"
    text = (pkg / "bounds" / "claims.py").read_text()
    body_start = text.index(anchor)
    first_add = text.index("    add(1,", body_start)
    text = text[:first_add] + ('    add(1, "mixed_ident", "grad", [M(kappa_f=.5)], "the contributing recipe\'s test", '
                               'tight=False)\n') + text[first_add:]
    (pkg / "bounds" / "claims.py").write_text(text)
    probe = ("from mixbounds.bounds.claims import cells\n"
             "from mixbounds.checks.registry import all_checks\n"
             "from mixbounds.checks.tiers import TINY\n"
             "ids = [r for c in all_checks() for r in c.result_ids(TINY)]\n"
             "print([c.id for c in cells('T1.mixed_ident.grad')],\n"
             "      'T1.mixed_ident.grad.kappa_f.upper@random-mixed-ident' in ids)")
    proc = _run(root, ["-c", probe])
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "['T1.mixed_ident.grad'] True"


# ----------------------------------------------------------------------------- a check family
TOY_FAMILY_CHECKS = '''"""A check family of one check and its negative control (the recipe's test)."""

from mixbounds.checks.run.framework import Check, Task
from mixbounds.checks.run.result import CheckResult


def square_point(x: float) -> dict:
    """The task: a module-level function of JSON-able arguments returning a JSON-able point."""
    return {"x": x, "square": x * x}


def _tasks(tier):
    return [Task(square_point, {"x": 3.0}, label="toy: 3²")]


def _verdict(rid, points, claimed, control=False):
    (p,) = points.values()
    ok = p["square"] == claimed
    return [CheckResult(id=rid, kind="toy", status="pass" if ok else "fail", theory=claimed, measured=p["square"],
                        control=control, expected="fail" if control else None, detail=f"3² = {p['square']}")]


def checks():
    return [Check("toy.square", "toy", lambda t: ["toy.square"], _tasks,
                  lambda t, pts: _verdict("toy.square", pts, 9.0), description="3² = 9"),
            Check("control.toy.square", "toy", lambda t: ["control.toy.square"], _tasks,
                  lambda t, pts: _verdict("control.toy.square", pts, 10.0, control=True),
                  description="3² = 10 must fail")]
'''


def _register_family(pkg: Path) -> None:
    """The recipe's step 2: import the module in ``checks/registry.py`` and add it to ``FAMILIES``."""
    _edit(pkg, "checks/registry.py", "from mixbounds.checks.run.framework import Check\n",
          "from mixbounds.checks.run.framework import Check\nfrom mixbounds.checks import toy_family\n")
    _edit(pkg, "checks/registry.py", "FAMILIES = (", "FAMILIES = (toy_family, ")


def test_recipe_check_family(tmp_path):
    """Recipe: a module with ``checks()``, its place in ``FAMILIES`` of ``checks/registry.py``, a negative control."""
    root = tmp_path / "src"
    pkg = installed_copy(root)
    (pkg / "checks" / "toy_family.py").write_text(TOY_FAMILY_CHECKS)
    _register_family(pkg)
    code, doc = _verify(root, "toy.*,control.toy.*", tmp_path / "out")
    by_id = {c["id"]: c for c in doc["claims"]}
    assert code == 0, doc["summary"]
    assert by_id["toy.square"]["status"] == "pass" and by_id["control.toy.square"]["status"] == "fail"
    families = {c["id"]: c["family"] for c in doc["checks"]}
    assert {i: f for i, f in families.items() if f != "selfcheck"} == {"toy.square": "toy", "control.toy.square": "toy"}
    # a family guards.uses does not describe is guarded by every self-check (recipe step 4)
    assert {"audit.convergence", "calibration.engine.path", "audit.counters.mixed"} <= set(families)


def test_a_family_whose_control_passes_fails_the_run(tmp_path):
    """Negative control of the check-family test: a control that cannot fail makes verify exit 1."""
    root = tmp_path / "src"
    pkg = installed_copy(root)
    (pkg / "checks" / "toy_family.py").write_text(TOY_FAMILY_CHECKS.replace("pts, 10.0, control=True",
                                                                            "pts, 9.0, control=True"))
    _register_family(pkg)
    code, doc = _verify(root, "toy.*,control.toy.*", tmp_path / "out")
    assert code == 1 and doc["summary"]["controls_not_caught"] == ["control.toy.square"]
