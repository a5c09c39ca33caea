"""Stored spectra (mixbounds.instances.spectra): an instance directory keeps the solver's spectral facts with the CRC-32 of
the files they come from; `mixbounds solve` uses them only while those files are unchanged, and reports its set-up
(constants chosen, why, and the rounds spent estimating them) apart from the solve's counts."""

import json
import shutil

import numpy as np
import pytest
from mixbounds.instances.families import build
from mixbounds.instances.io import load_instance, save_instance
from mixbounds.instances.reference.kkt import reference_solution
from mixbounds.instances.spectra import fact_keys, solver_facts, trusted_facts
from mixbounds.solvers import ORACLES

from mixbounds.cli.command import main

#: families covering every set of facts: coupled (A), coupled with local constraints and kernels (A, C, Nker),
#: mixed (A, C, C̃ different) and shared with identical C̃
FAMILIES = {"random-coupled": dict(n=6, d=5, m=2), "random-coupled-local": dict(n=6, d=6, m=2, p=2),
            "random-mixed": dict(n=6, d=5, dt=3, m=2, p=1, pt=1), "random-shared-ident": dict(n=6, dt=5, pt=2)}


@pytest.fixture(scope="module", params=[(f, fmt) for f in FAMILIES for fmt in ("npz", "mtx")],
                ids=lambda p: f"{p[0]}-{p[1]}")
def stored(request, tmp_path_factory):
    fam, fmt = request.param
    inst = build(fam, seed=2, **FAMILIES[fam])
    d = tmp_path_factory.mktemp("spectra") / f"{fam}-{fmt}"
    save_instance(inst.with_reference(reference_solution(inst.problem).u), d, matrix_format=fmt)
    return inst, d


def test_stored_facts_are_the_computed_ones_bit_for_bit(stored):
    inst, d = stored
    loaded = load_instance(d)
    facts, note = trusted_facts(loaded.spectra, d, loaded.problem)
    assert facts is not None, note
    assert set(facts) == fact_keys(loaded.problem)
    assert facts == solver_facts(loaded.problem)[0] == solver_facts(inst.problem)[0]
    # the objective's constants were taken from the record: the same floats as computed from the blocks
    assert (loaded.problem.objective.L, loaded.problem.objective.mu) == (inst.problem.objective.L,
                                                                          inst.problem.objective.mu)


def _rewrite_one_value(d, fmt, group):
    """Change one matrix value of ``group`` the way a tool would: a valid file with a fresh checksum."""
    if fmt == "npz":
        with np.load(d / f"{group}.npz") as z:
            arrays = {k: z[k].copy() for k in z.files}
        arrays["data"][0] *= 1.5
        np.savez(d / f"{group}.npz", **arrays)
    else:
        path = d / (f"{group}.mtx" if group == "W" else f"{group}_0.mtx")
        lines = path.read_text().splitlines()
        i = next(k for k, ln in enumerate(lines) if not ln.startswith("%") and k > 0) + 1
        parts = lines[i].split()
        parts[-1] = repr(float(parts[-1]) * 1.5)
        lines[i] = " ".join(parts)
        path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("fmt", ["npz", "mtx"])
def test_a_changed_file_is_not_trusted(tmp_path, fmt):
    """Negative control: A changed after the spectra were stored → the stored facts are refused, naming the group,
    and the facts computed from the new matrices differ from the stored ones."""
    inst = build("random-coupled", n=6, d=5, m=2, seed=3)
    d = tmp_path / "inst"
    save_instance(inst, d, matrix_format=fmt)
    stored_facts = json.loads((d / "instance.json").read_text())["spectra"]["facts"]
    _rewrite_one_value(d, fmt, "A")
    loaded = load_instance(d)
    facts, note = trusted_facts(loaded.spectra, d, loaded.problem)
    assert facts is None and "A" in note
    assert solver_facts(loaded.problem)[0] != stored_facts


def test_a_changed_objective_is_not_trusted(tmp_path):
    """Negative control: Q changed → L_f, μ_f are computed from the blocks again, not taken from the record."""
    inst = build("random-coupled", n=6, d=5, m=2, seed=3)
    d = tmp_path / "inst"
    save_instance(inst, d, matrix_format="npz")
    with np.load(d / "Q.npz") as z:
        arrays = {k: z[k].copy() for k in z.files}
    arrays["data"] *= 2.0  # still symmetric positive definite, L_f and μ_f double
    np.savez(d / "Q.npz", **arrays)
    obj = load_instance(d).problem.objective
    assert obj.L == pytest.approx(2 * inst.problem.objective.L, rel=1e-12)
    assert obj.mu == pytest.approx(2 * inst.problem.objective.mu, rel=1e-12)


def test_directory_without_record_computes_the_facts(tmp_path):
    inst = build("random-coupled", n=6, d=5, m=2, seed=3)
    d = tmp_path / "inst"
    save_instance(inst, d, matrix_format="npz")
    doc = json.loads((d / "instance.json").read_text())
    del doc["spectra"]
    (d / "instance.json").write_text(json.dumps(doc))
    loaded = load_instance(d)
    facts, note = trusted_facts(loaded.spectra, d, loaded.problem)
    assert facts is None and "no stored spectra" in note


@pytest.fixture(scope="module")
def solve_dir(tmp_path_factory):
    inst = build("random-coupled", n=20, d=10, m=3, kappa_f=10.0, kappa_AC=10.0, seed=4)
    d = tmp_path_factory.mktemp("solve") / "inst"
    save_instance(inst.with_reference(reference_solution(inst.problem).u), d, matrix_format="npz")
    return d


def _summary(d, tmp_path, *args):
    js = tmp_path / f"s{len(list(tmp_path.iterdir()))}.json"
    assert main(["solve", str(d), "--eps", "1e-6", "--json", str(js), *args]) == 0
    return json.loads(js.read_text())


def test_summary_reports_setup_apart_from_the_solve(solve_dir, tmp_path, capsys):
    auto = _summary(solve_dir, tmp_path)
    assert auto["constants"] == "auto" and auto["constants_used"]["used"] in ("bounds", "spectral")
    assert "Lanczos" in auto["constants_used"]["reason"]
    assert auto["facts"].startswith("stored in instance.json")
    assert set(auto["phases_seconds"]) == {"load", "checks", "setup", "iterations"}
    spec = _summary(solve_dir, tmp_path, "--constants", "spectral")
    s = spec["setup_counts"]
    assert s["A"] > 0 and s["comm"] > 0 and s["grad"] > 0
    assert spec["counts_with_setup"] == {k: spec["counts"][k] + s[k] for k in ORACLES}
    bounds = _summary(solve_dir, tmp_path, "--constants", "bounds")
    assert bounds["setup_counts"] == {k: 0 for k in ORACLES} and bounds["counts_with_setup"] == bounds["counts"]
    # the solve's own counts do not include the Lanczos: fewer iterations, fewer solve rounds than with bounds
    assert spec["iterations"] <= bounds["iterations"] and spec["counts"]["A"] <= bounds["counts"]["A"]
    out = capsys.readouterr().out
    assert "setup_counts (constants estimation)" in out and "counts (solve)" in out


def test_solve_with_changed_files_computes_the_facts(solve_dir, tmp_path):
    """Negative control: W scaled by 2 after the spectra were stored (still a valid gossip matrix, the same solution):
    the solve computes the facts again and its λ's are the new ones."""
    d = tmp_path / "copy"
    shutil.copytree(solve_dir, d)
    with np.load(d / "W.npz") as z:
        arrays = {k: z[k].copy() for k in z.files}
    arrays["data"] *= 2.0
    np.savez(d / "W.npz", **arrays)
    out = tmp_path / "out"
    out.mkdir()
    doc = _summary(d, out)
    assert doc["facts"].startswith("computed from the matrices") and "W" in doc["facts"]
    stored = json.loads((solve_dir / "instance.json").read_text())["spectra"]["facts"]
    assert solver_facts(load_instance(d).problem)[0]["lambda_max_W"] == pytest.approx(2 * stored["lambda_max_W"],
                                                                                     rel=1e-9)
