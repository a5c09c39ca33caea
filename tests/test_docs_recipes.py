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
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import MAPPED_FOLDERS, installed_copy

ROOT = Path(__file__).resolve().parent.parent
CONTRIBUTING = ROOT / "docs" / "contributing.md"
#: the line of a recipe that states how many files it touches
FILES_LINE = re.compile(r"Files touched: (\d+)\.")


def _source_of(rel: str) -> Path:
    """The repository file a path of the installed copy comes from (mapped folders, else ``src/mixbounds``)."""
    return ROOT / rel if rel.split("/")[0] in MAPPED_FOLDERS else ROOT / "src" / "mixbounds" / rel


def _files(top: Path) -> set[str]:
    return {f.relative_to(top).as_posix() for f in top.rglob("*") if f.is_file() and "__pycache__" not in f.parts}


def touched_files(pkg: Path) -> list[str]:
    """The files of the copy ``pkg`` that differ from the repository's (added, changed or removed), as repository
    paths: what the recipe performed on the copy touched."""
    copy = _files(pkg)
    source = {f"{sub}/{r}" for sub in MAPPED_FOLDERS for r in _files(ROOT / sub)} | _files(ROOT / "src" / "mixbounds")
    changed = {r for r in copy & source if (pkg / r).read_bytes() != _source_of(r).read_bytes()}
    return sorted((copy ^ source) | changed)


def stated_files(recipe: str) -> int:
    """The number of files the page's recipe ``### a <recipe>`` says it touches (its ``Files touched: N.`` line)."""
    text = CONTRIBUTING.read_text()
    start = text.index(f"\n### a {recipe}\n")
    end = text.find("\n### ", start + 1)
    m = FILES_LINE.search(text[start:end if end > 0 else len(text)])
    assert m, f"the recipe '{recipe}' of docs/contributing.md states no 'Files touched: N.'"
    return int(m.group(1))


def assert_touches(pkg: Path, recipe: str, expected: list[str]) -> None:
    """The recipe performed on ``pkg`` touched exactly ``expected``, as many files as the page states."""
    got = touched_files(pkg)
    assert got == sorted(expected), f"recipe '{recipe}' touched {got}, not {sorted(expected)}"
    stated = stated_files(recipe)
    assert len(got) == stated, f"recipe '{recipe}' touched {len(got)} files, the page states {stated}"


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
              "random family": test_recipe_random_family,
              "PEP certificate (a point of a class-level grid)": test_recipe_pep_certificate,
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

from mixbounds.solvers.baselines import Baseline
from mixbounds.solvers.baselines.diging import solve_diging

CLASSES = ("consensus",)
CITATION = "the contributing recipe's test"


def solve_toy_gt(problem, *, eps, x_star=None, max_iter=100_000, oracles=None, settle=0.0, settle_eps=None,
                 max_calls=None, **params):
    """DIGing, run through the same counted oracles."""
    return solve_diging(problem, eps=eps, x_star=x_star, max_iter=max_iter, oracles=oracles, settle=settle,
                        settle_eps=settle_eps, max_calls=max_calls, **params)


BASELINE = Baseline("toy-gt", solve_toy_gt, CLASSES, CITATION)
'''
SOLVER_FILE = "solvers/baselines/toy_gt.py"


def _instance(root: Path, family: str, out: Path) -> None:
    """``mixbounds instance FAMILY --kappa-W 10 --kappa-f 10 --out OUT`` on the copy (a tiny instance)."""
    proc = _run(root, ["instance", family, "--kappa-W", "10", "--kappa-f", "10", "--out", str(out)])
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (out / "instance.json").is_file()


def test_recipe_solver(tmp_path):
    """Recipe: one module ``solvers/baselines/<name>.py`` ending with ``BASELINE = Baseline(...)``, discovered: the
    benchmarks list it on its class only and ``mixbounds solve --method`` runs it; it touches one file."""
    root = tmp_path / "src"
    pkg = installed_copy(root)
    (pkg / SOLVER_FILE).write_text(TOY_SOLVER)
    assert_touches(pkg, "solver (a baseline to benchmark)", [SOLVER_FILE])
    probe = ("from mixbounds.checks.registry import all_checks\n"
             "from mixbounds.checks.tiers import TINY\n"
             "ids = [r for c in all_checks() for r in c.result_ids(TINY)]\n"
             "print('bench.consensus.toy-gt.comm.kappa_f' in ids, any('.coupled.toy-gt.' in r for r in ids))")
    proc = _run(root, ["-c", probe])
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["True", "False"]  # benchmarked on the class it lists and only there
    _instance(root, "random-consensus", tmp_path / "inst")
    summary = tmp_path / "solve.json"
    proc = _run(root, ["solve", str(tmp_path / "inst"), "--method", "toy-gt", "--eps", "1e-6", "--json", str(summary)])
    assert proc.returncode == 0, proc.stderr[-2000:]
    doc = json.loads(summary.read_text())  # an unknown --method would be exit 2; toy-gt runs DIGing (its record)
    assert doc["method"] == "diging" and doc["converged"] and doc["counts"]["comm"] > 0


def test_a_recipe_with_a_second_edit_fails_the_count(tmp_path):
    """Negative control of the file counts: the baseline recipe as it was (the module and its line in a registry
    table) touches two files, and the check of the page's count says so."""
    pkg = installed_copy(tmp_path / "src")
    (pkg / SOLVER_FILE).write_text(TOY_SOLVER)
    _edit(pkg, "solvers/baselines/__init__.py", "from __future__ import annotations\n",
          "from __future__ import annotations\n\nfrom mixbounds.solvers.baselines import toy_gt  # noqa: F401\n")
    assert touched_files(pkg) == ["solvers/baselines/__init__.py", SOLVER_FILE]
    with pytest.raises(AssertionError, match="touched"):
        assert_touches(pkg, "solver (a baseline to benchmark)", [SOLVER_FILE, "solvers/baselines/__init__.py"])


def test_a_baseline_file_without_its_declaration_is_an_error(tmp_path):
    """Negative control of the discovery: a module dropped in solvers/baselines/ without ``BASELINE`` is not left
    out silently; importing the baselines names the file."""
    root = tmp_path / "src"
    pkg = installed_copy(root)
    (pkg / SOLVER_FILE).write_text(TOY_SOLVER.replace('BASELINE = Baseline("toy-gt", solve_toy_gt, CLASSES, CITATION)',
                                                      ""))
    proc = _run(root, ["-c", "import mixbounds.solvers.baselines"])
    assert proc.returncode == 1 and "toy_gt.py: a module of solvers/baselines/ must declare BASELINE" in proc.stderr


# ----------------------------------------------------------------------------- a random family
TOY_RANDOM = '''"""A random consensus family of another seed (the recipe's test)."""

from mixbounds.instances.random.generic import random_consensus


def toy_random(**kw):
    """``toy-random``: ``random-consensus`` with the default seed 7."""
    return random_consensus(**{"seed": 7, **kw})


FAMILIES = {"toy-random": toy_random}
'''
RANDOM_FILE = "instances/random/toy_random.py"


def test_recipe_random_family(tmp_path):
    """Recipe: one module ``instances/random/<name>.py`` with a ``FAMILIES`` dict, discovered by the family registry:
    ``mixbounds instance`` builds it and ``mixbounds solve`` solves it; it touches one file."""
    root = tmp_path / "src"
    pkg = installed_copy(root)
    (pkg / RANDOM_FILE).write_text(TOY_RANDOM)
    assert_touches(pkg, "random family", [RANDOM_FILE])
    inst = tmp_path / "inst"
    _instance(root, "toy-random", inst)
    assert json.loads((inst / "instance.json").read_text())["seed"] == 7  # built by the dropped builder
    proc = _run(root, ["solve", str(inst), "--eps", "1e-6"])
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_a_random_family_named_twice_is_an_error(tmp_path):
    """Negative control of the discovery: a dropped family that reuses a name is refused, naming the module."""
    root = tmp_path / "src"
    pkg = installed_copy(root)
    (pkg / RANDOM_FILE).write_text(TOY_RANDOM.replace('"toy-random": toy_random', '"random-consensus": toy_random'))
    proc = _run(root, ["-c", "from mixbounds.instances.families import families; families()"])
    assert proc.returncode == 1
    assert "instance family 'random-consensus' is defined twice (mixbounds.instances.random.toy_random)" in proc.stderr


# ----------------------------------------------------------------------------- a PEP certificate
#: the new point of the recipe's test: consensus, κ_f = 10, κ_W = 30, with Chebyshev (not in the grid today)
PEP_POINT = '(10.0, 30.0, C), '
PEP_FILE = "checks/pep/kinds/results.py"


def test_recipe_pep_certificate(tmp_path):
    """Recipe: one tuple in ``CLASS_GRID`` of ``checks/pep/kinds/results.py``; the tier's class certificate
    ``pep.class.<class>.grid`` then runs it (first in the list: every tier) and certifies it; one file."""
    root = tmp_path / "src"
    pkg = installed_copy(root)
    _edit(pkg, PEP_FILE, 'ProblemClass.CONSENSUS: ((10.0, 100.0, C), ',
          'ProblemClass.CONSENSUS: (' + PEP_POINT + '(10.0, 100.0, C), ')
    assert_touches(pkg, "PEP certificate (a point of a class-level grid)", [PEP_FILE])
    probe = ("from mixbounds.checks.registry import all_checks\n"
             "from mixbounds.checks.tiers import TINY\n"
             "from mixbounds.checks.pep.kinds.results import CERT_CLASS, scoped_verdict\n"
             "(c,) = [c for c in all_checks() if 'pep.class.consensus.grid' in c.result_ids(TINY)]\n"
             "(t,) = [t for t in c.tasks(TINY) if t.kwargs.get('cls') == 'consensus']\n"
             "p = t.func(**t.kwargs)\n"
             "r = scoped_verdict('pep.class.consensus.grid', [p], CERT_CLASS)\n"
             "print(t.kwargs['kappa_W'], t.kwargs['method'], r.status, r.verdict_label == CERT_CLASS)")
    proc = _run(root, ["-c", probe])
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["30.0", "apapc", "pass", "True"]


# ----------------------------------------------------------------------------- a lemma check
TOY_LEMMA = '''"""λ_max of the path Laplacian is below 4 (the recipe's test), with a control that claims 3.5."""

import numpy as np

from mixbounds.checks.lemmas.base import LemmaCheck, Result, approx_le
from mixbounds.checks.run.result import CheckResult

BOUND, WRONG = 4.0, 3.5


def point(case):
    n = case["n"]
    L = np.diag(np.r_[1.0, np.full(n - 2, 2.0), 1.0]) - np.eye(n, k=1) - np.eye(n, k=-1)
    return {"n": n, "lmax": float(np.linalg.eigvalsh(L)[-1])}


def finalize(tier, pts, ids):
    worst = max(p["lmax"] for p in pts)
    ok, control_ok = approx_le(worst, BOUND), approx_le(worst, WRONG)
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
    text = (pkg / "bounds" / "claims.py").read_text()
    body_start = text.index("def _table_1(")
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
