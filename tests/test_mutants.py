"""Mutation harness (issue 17): `mixbounds verify` must catch a broken suite on its own.

Each mutant copies the package (the installed layout: ``mixbounds/`` with ``bounds/``, ``instances/``,
``solvers/``, ``checks/``, ``plots/`` inside) to a temporary directory, applies ONE planted defect,
and runs ``mixbounds verify --tier quick`` from the copy on the smallest claim subset that should
catch it: exit code 1, with the failing result ids the defect must produce.  The unmodified copy
on the union of the subsets must exit 0 (otherwise a broken copy would "catch" every mutant).

Not part of the default run (marker ``mutants``, excluded by ``addopts``)::

    pytest -m mutants -n 0 --dist no -s tests/test_mutants.py     # prints the failing ids of every mutant

(``-n 0 --dist no``: in one process, whose output ``-s`` shows; under the default ``-n 2`` of ``addopts`` the
workers' output is not shown.)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from fnmatch import fnmatchcase
from pathlib import Path

import pytest
from helpers import installed_copy

pytestmark = pytest.mark.mutants

ROOT = Path(__file__).resolve().parent.parent

#: the planted defects the self-checks exist for (issue 37: each must also be caught by a subset that uses it)
COMM_UNDERCOUNT = ("solvers/oracles.py",
                   [('        self.counts[Oracle.COMM] += 1\n        return spmv(self._W, Y)',
                     '        self._mutant_calls = getattr(self, "_mutant_calls", 0) + 1\n'
                     '        if self._mutant_calls % 2:\n            self.counts[Oracle.COMM] += 1\n        return spmv(self._W, Y)')])
ENGINE_TWO_HOPS = ("checks/lower/engine.py",  # a counted round crosses two edges of the oracle's graph
                   [("    out[reached] = hops // 2 if bipartite else hops\n",
                     "    out[reached] = hops // 2 if bipartite else (hops + 1) // 2\n")])
INEQ_RTOL_X100 = ("checks/tolerances.py", [("INEQ_RTOL = 1e-7", "INEQ_RTOL = 1e-5")])
STOPS_A_DECADE_EARLY = ("solvers/stop_rule.py",
                        [("        if err <= self.eps:\n", "        if err <= 10 * self.eps:\n"),
                         ("        self.hit = self.hit or err <= self.eps\n",
                          "        self.hit = self.hit or err <= 10 * self.eps\n"),
                         ("        if err > self.level:\n", "        if err > 10 * self.level:\n")])
LOWER_TOL_LOOSENED = ("checks/tiers.py", [("slope_tol=0.12, lower_slope_tol=0.12,",
                                            "slope_tol=0.12, lower_slope_tol=0.3,")])

#: name → (file, [(old, new)], claims subset, globs of which at least one failing id must match)
MUTANTS = {
    "comm-undercount": (*COMM_UNDERCOUNT, "audit.counters.*", ["audit.counters.*"]),
    # a split chain joined by C counted as if joined by A (the matrix → oracle map of the block-split params)
    "matrix-oracle-swapped": (
        "bounds/concepts.py",
        [("        return next(o for o in Oracle if o.value == self.value)\n", "        return Oracle.A\n")],
        "T3.coupled_local.C.*", ["T3.coupled_local.C.*@max-split"]),
    "engine-two-hops": (*ENGINE_TWO_HOPS, "calibration.engine.*,T1.consensus.comm.*.lower",
                        ["calibration.engine.*", "T1.consensus.comm.*.lower"]),
    "arrival-one-round-late": (
        "checks/lower/arrival.py",
        [("    out = h * np.maximum(k - 2, 0)[None, :] + np.where((k % 2 == 0)[None, :], b1[:, None], b3[:, None])",
          "    out = h * np.maximum(k - 2, 0)[None, :] + np.where((k % 2 == 0)[None, :], b1[:, None] + 1, b3[:, None])")],
        "T1.consensus.comm.*.lower", ["T1.consensus.comm.*.lower"]),
    "closed-form-chain-ratio": (
        "instances/worst_case/closed_solution.py",
        [('    rho = rho_from_shift(3.0 * params["alpha"] / params["beta"])',
          '    rho = rho_from_shift(3.3 * params["alpha"] / params["beta"])')],
        "T1.consensus.*.lower", ["T1.consensus.*.lower"]),
    "hop-distance-exponent": (
        "checks/lower/asymptotic.py",
        [("    return math.pi / math.acos((kappa - 1.0) / (kappa + 1.0))",
          "    return (math.pi / math.acos((kappa - 1.0) / (kappa + 1.0))) ** 0.9")],
        "T1.consensus.comm.kappa_W.lower", ["T1.consensus.comm.kappa_W.lower"]),
    "ineq-rtol-loosened": (*INEQ_RTOL_X100, "control.tolerance.lemmas.INEQ_RTOL.*",
                           ["control.tolerance.lemmas.INEQ_RTOL.detects"]),
    "path-abs-tol-loosened": (
        "checks/tolerances.py", [("PATH_ABS_TOL = 1e-12", "PATH_ABS_TOL = 1e-10")],
        "control.tolerance.lemmas.PATH_ABS_TOL.*", ["control.tolerance.lemmas.PATH_ABS_TOL.detects"]),
    "solver-stops-a-decade-early": (*STOPS_A_DECADE_EARLY, "audit.convergence.*", ["audit.convergence.stop-rule"]),
    # the same defects on a subset of ordinary results that rests on them: the subset runs its self-checks
    # (mixbounds.checks.audits.guards), where before only --claims '*' did
    "comm-undercount@rates-subset": (*COMM_UNDERCOUNT, "T1.consensus.comm.kappa_W.tight",
                                     ["audit.counters.consensus.*"]),
    "engine-two-hops@lower-subset": (*ENGINE_TWO_HOPS, "T1.consensus.comm.kappa_W.lower", ["calibration.engine.path.*"]),
    "ineq-rtol-x100@lemma-subset": (*INEQ_RTOL_X100, "lemma.coupled_spectrum",
                                    ["control.tolerance.lemmas.INEQ_RTOL.detects"]),
    "solver-stops-a-decade-early@rates-subset": (*STOPS_A_DECADE_EARLY, "T1.consensus.comm.kappa_W.tight",
                                                 ["audit.convergence.stop-rule"]),
    "lower-tol-loosened@lower-subset": (*LOWER_TOL_LOOSENED, "T1.consensus.comm.kappa_W.lower",
                                        ["control.tolerance.lower.TOL.quick.detects"]),
    "convex-reference-other-minimiser": (
        "instances/reference/min_norm.py",
        [("    v = v0 + N @ np.linalg.solve(N.T @ EtE @ N, -(N.T @ EtE @ v0)) if N.shape[1] else v0\n",
          "    v = v0 + N @ np.linalg.solve(N.T @ EtE @ N, -(N.T @ EtE @ v0)) if N.shape[1] else v0\n"
          "    if N.shape[1]:\n        v = v + 2.0 * N[:, 0]\n")],
        "audit.reference.*", ["audit.reference.T2.coupled"]),
    "t4-reference-loose": (
        "instances/nonsmooth.py", [("QP_TOL = 1e-13", "QP_TOL = 1e-11")],
        "audit.reference.T4.*", ["audit.reference.T4.coupled"]),
    "sparse-lift-without-particular-solution": (
        "instances/reference/block_elimination.py", [("        v = self.v0.copy()\n", "        v = np.zeros_like(self.v0)\n")],
        "audit.reference.T3.*", ["audit.reference.T3.coupled_local"]),
    "deflated-kkt-drops-deflated-directions": (
        "instances/reference/deflated_kkt.py",
        [("        v += self.Y @ e[: self.Y.shape[1]]\n", "        v += self.Y[:, kz:] @ e[kz: self.Y.shape[1]]\n")],
        "audit.reference.T3.*", ["audit.reference.T3.coupled_local"]),
    "affine-kappa-B-squared": (
        "instances/affine.py", [("    B = np.sqrt(np.geomspace(1.0, kB, s))[:, None] * V.T\n",
                                 "    B = np.geomspace(1.0, kB, s)[:, None] * V.T\n")],
        "S.sliding.convex.B.kappa_B.upper", ["S.sliding.convex.B.kappa_B.upper"]),
    # the per-e-fold-needed reading divides by N² (a log² count then reads as √x): only its control notices
    "needed-reading-divides-by-n-squared": (
        "checks/table2_factors.py",
        [("    f = fit_slope(list(xs), [c / n for _, n, c in used])\n",
          "    f = fit_slope(list(xs), [c / n / n for _, n, c in used])\n")],
        "control.T2.coupled_local.grad.LR2_eps.needed.*", ["control.T2.coupled_local.grad.LR2_eps.needed.log-squared"]),
    # C' as dense diagonal blocks charges half of its recurrence's counts: the κ_C sweep's C counts no longer follow
    # the claim (the counter audit's instances do not take the blocks; the claims do)
    "blocks-undercount": (
        "solvers/materialize.py",
        [("            self.main.counts[k] += c\n        return self.product(v)",
          "            self.main.counts[k] += c // 2\n        return self.product(v)")],
        "T1.coupled_local.*.kappa_C.*", ["T1.coupled_local.C.kappa_C.tight"]),
    "fit-first-two-points": (
        "checks/sweeps.py",
        [("    x, y = np.log(x[ok]), np.log(y[ok])\n",
          "    x, y = np.log(x[ok]), np.log(y[ok])\n    x, y = x[:2], y[:2]\n")],
        "T1.consensus.comm.kappa_W.*", ["T1.consensus.comm.kappa_W.*"]),
}


def _mutate(pkg: Path, rel: str, edits) -> None:
    f = pkg / rel
    text = f.read_text()
    for old, new in edits:
        assert text.count(old) == 1, f"mutant target not found exactly once in {rel}: {old!r}"
        text = text.replace(old, new)
    f.write_text(text)


def _verify(root: Path, claims: str, out: Path) -> tuple[int, dict]:
    env = dict(os.environ, PYTHONPATH=str(root))
    # the copy, not the installed tree, must be what runs (exit 3 otherwise)
    prog = ("import sys, mixbounds; root = sys.argv.pop(1)\n"
            "if not mixbounds.__file__.startswith(root): sys.exit(3)\n"
            "from mixbounds.cli.command import main; sys.exit(main())")
    cmd = [sys.executable, "-c", prog, str(root), "verify", "--tier", "quick", "--jobs", "1", "--no-plots",
           "--no-cache", "--out", str(out), "--claims", claims]
    proc = subprocess.run(cmd, env=env, cwd=root, capture_output=True, text=True, timeout=1800)
    assert proc.returncode in (0, 1), f"exit {proc.returncode}: {proc.stderr[-2000:]}"
    doc = json.loads((out / "results.json").read_text())
    return proc.returncode, doc


def _failing(doc: dict) -> list[str]:
    s = doc.get("summary") or {}
    return list(s.get("failed", [])) + list(s.get("controls_not_caught", [])) + list(s.get("unexpected_findings", []))


def _details(doc: dict, ids: list[str]) -> list[str]:
    by = {c["id"]: c for c in doc.get("claims", [])}
    return [f"{i} [{by.get(i, {}).get('status')}]: {str(by.get(i, {}).get('detail'))[:240]}" for i in ids]


def test_unmodified_copy_exits_0(tmp_path):
    root = tmp_path / "src"
    installed_copy(root)
    claims = ",".join(sorted({m[2] for m in MUTANTS.values()}))
    code, doc = _verify(root, claims, tmp_path / "out")
    assert code == 0, _failing(doc)
    assert doc["summary"]["controls_caught"] == doc["summary"]["controls_total"] > 0


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_mutant_is_caught(name, tmp_path):
    rel, edits, claims, must = MUTANTS[name]
    root = tmp_path / "src"
    pkg = installed_copy(root)
    _mutate(pkg, rel, edits)
    code, doc = _verify(root, claims, tmp_path / "out")
    bad = _failing(doc)
    print(f"\nmutant {name}: verify --tier quick --claims '{claims}' → exit {code}; failing {len(bad)}:")
    for line in _details(doc, bad):
        print("  " + line)
    assert code == 1, f"mutant {name} not caught (exit {code})"
    assert any(fnmatchcase(i, g) for i in bad for g in must), (name, bad)
