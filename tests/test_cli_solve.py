"""`mixbounds solve DIR`: exported instances, user instances without x_star, exit codes."""

import json

import numpy as np
import pytest
from mixbounds.instances.families import build
from mixbounds.instances.io import save_instance
from mixbounds.instances.reference.kkt import reference_solution

from mixbounds.cli.command import main


@pytest.fixture(scope="module")
def inst_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("inst") / "coupled"
    I = build("random-coupled", kappa_AC=20.0, kappa_f=20.0, seed=1)
    save_instance(I.with_reference(reference_solution(I.problem).u), d)
    return d


def test_solve_writes_json_and_x(inst_dir, tmp_path, capsys):
    out = tmp_path / "res" / "summary.json"
    assert main(["solve", str(inst_dir), "--eps", "1e-8", "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["method"] == "apapc" and doc["converged"] and doc["final_relative_error"] <= 1e-8
    assert set(doc["counts"]) == {"grad", "A", "C", "Ct", "comm"} and doc["counts"]["A"] > 0
    assert doc["x"] == str(out.parent / "summary.x.npy")  # x beside the summary, named after it
    x = np.load(out.parent / "summary.x.npy")
    xs = np.load(inst_dir / "x_star.npy")
    assert x.shape == xs.shape
    assert np.sum((x - xs) ** 2) <= 1e-8 * np.sum(xs ** 2) * (1 + 1e-9)
    assert "converged" in capsys.readouterr().out


def test_user_instance_without_reference(inst_dir, tmp_path):
    import shutil

    d = tmp_path / "user"
    shutil.copytree(inst_dir, d)
    (d / "x_star.npy").unlink()
    before = sorted(p.name for p in d.iterdir())
    assert main(["solve", str(d), "--eps", "1e-6"]) == 0
    assert sorted(p.name for p in d.iterdir()) == before  # nothing written into the instance directory
    assert main(["solve", str(d), "--eps", "1e-6", "--x", str(tmp_path / "x.npy")]) == 0
    assert (tmp_path / "x.npy").is_file()


def test_budget_exhausted_exits_1(inst_dir, tmp_path):
    out = tmp_path / "s.json"
    assert main(["solve", str(inst_dir), "--max-iter", "3", "--json", str(out)]) == 1
    doc = json.loads(out.read_text())
    assert doc["converged"] is False and doc["reason"] == "budget"


def test_bad_input_exits_2(inst_dir, tmp_path, capsys):
    assert main(["solve", str(tmp_path / "nowhere")]) == 2
    assert main(["solve", str(inst_dir), "--method", "magic"]) == 2
    assert main(["solve", str(inst_dir), "--eps", "2"]) == 2
    err = capsys.readouterr().err
    assert "not an instance directory" in err and "unknown method" in err and "--eps" in err


def test_constants_choice(inst_dir, tmp_path):
    """--constants lemma (no Lanczos set-up: for the largest instances) converges too, in more iterations than the
    exact spectral constants; the summary says which were used."""
    its = {}
    for c in ("spectral", "lemma"):
        js = tmp_path / f"{c}.json"
        assert main(["solve", str(inst_dir), "--constants", c, "--eps", "1e-6", "--json", str(js)]) == 0
        doc = json.loads(js.read_text())
        assert doc["converged"] and doc["constants"] == c
        its[c] = doc["iterations"]
    assert its["lemma"] > its["spectral"], its
