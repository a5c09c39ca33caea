"""The type check of CI (``.ci/typecheck.py``): ``.ci/run`` runs it and fails on its errors, and it reports a planted
error in the public API (strict) and a plain type error in the rest of the package (basic mode), except in the
modules whose basic-mode errors are not reported yet (``[tool.mypy]`` in ``pyproject.toml``).

The negative control copies the checkout to a temporary folder, plants the same unannotated function in a module of
the public API (``mixbounds.checks.registry``, strict: must be reported) and in one outside it
(``mixbounds.checks.sweeps``, basic: must not be), a wrongly typed assignment in a basic-mode module
(``mixbounds.bounds.render``: must be reported) and in a module of the not-yet-reported list
(``mixbounds.checks.bench``: must not be), and runs the check on the copy.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys

import pytest
from helpers import ROOT

TYPECHECK = ROOT / ".ci" / "typecheck.py"
#: what the copy needs: the package's folders and the configuration
COPIED = ("src", "bounds", "instances", "solvers", "checks", "plots")
#: a function strict mode rejects (no annotations) and basic mode accepts
PLANTED = "\n\ndef planted_untyped(x):\n    return x\n"
#: an error in basic mode too
PLANTED_BASIC = "\n\nplanted_wrong: int = \"not an int\"\n"
#: the public API of the strict block; each must be a module of the package
STRICT_MODULES = ("mixbounds.methods", "mixbounds.testing", "mixbounds.solvers.solve", "mixbounds.instances.families",
                  "mixbounds.checks.run.result", "mixbounds.checks.run.framework", "mixbounds.checks.registry",
                  "mixbounds.checks.tiers", "mixbounds.bounds.claims")

needs_mypy = pytest.mark.skipif(importlib.util.find_spec("mypy") is None,
                                reason="mypy is not installed (the test extra installs it)")


def test_ci_run_runs_the_type_check_and_fails_on_it():
    run = (ROOT / ".ci" / "run").read_text()
    assert 'bash -c "set -e; . .venv/bin/activate; python .ci/typecheck.py"' in run
    # its exit status reaches .ci/run's (the same pattern as the numerics job)
    assert re.search(r"trc=\$\?\nif \[ \"\$trc\" -ne 0 \]; then\n.*\n  \[ \"\$rc\" -eq 0 \] && rc=\$trc", run)


def test_the_strict_block_names_the_public_api():
    toml = (ROOT / "pyproject.toml").read_text()
    for mod in STRICT_MODULES:
        assert f'"{mod}"' in toml, mod
        assert importlib.util.find_spec(mod) is not None, mod
    api = (ROOT / "docs" / "reference" / "api.rst").read_text()
    for mod in STRICT_MODULES:
        assert mod in api, f"{mod} is strict but docs/reference/api.rst does not list it"


def test_a_copy_that_is_not_a_checkout_is_refused(tmp_path):
    r = subprocess.run([sys.executable, str(TYPECHECK), str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 2 and "not a checkout" in r.stderr


@needs_mypy
def test_a_planted_error_fails_the_check_where_it_is_reported(tmp_path):
    for folder in COPIED:
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    for rel, planted in (("checks/registry.py", PLANTED), ("checks/sweeps.py", PLANTED),
                         ("bounds/render.py", PLANTED_BASIC), ("checks/bench.py", PLANTED_BASIC)):
        with open(tmp_path / rel, "a") as f:
            f.write(planted)
    r = subprocess.run([sys.executable, str(TYPECHECK), str(tmp_path)], capture_output=True, text=True)
    out = r.stdout + r.stderr
    assert r.returncode == 1, out
    errors = sorted(line for line in out.splitlines() if ": error:" in line)
    assert [e.split(":")[0] for e in errors] == ["mixbounds/bounds/render.py", "mixbounds/checks/registry.py"], out
    assert "[assignment]" in errors[0] and "no-untyped-def" in errors[1]
