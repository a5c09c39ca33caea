"""The set-up of ``constants="auto"`` never costs more than it saves, on every family (issue 49, item 1).

Every family the suite builds with a coupled constraint (the worst-case constructions as printed, their sum-trick
twins, the random families, the applications) is solved three ways — ``bounds``, ``spectral`` and ``auto`` — and the
cost model of :mod:`mixbounds.solvers.spectral_estimates` is read against what was measured, in oracle calls:

* ``auto`` sets up nothing: its set-up is <= half its iteration phase and <= the calls it saves, in every oracle;
* the model's claims hold in their directions: the Lanczos made at least :func:`lanczos_products_min` products
  (predicted <= measured), and exact constants saved at most :func:`saved_fraction_max` of the bounds' iterations
  (measured <= predicted);
* the alternative ``auto`` declines would not have paid: ``spectral`` costs more in some oracle, set-up included,
  than ``auto`` (measured).

A second ``mixbounds solve`` of an instance directory does no spectral work at all (no eigen-solver call, no
Lanczos product).  Negative controls: round 3's choice (spectral on the printed coupled construction), a cost bound
moved the wrong way, and a directory without its stored facts are each caught.
"""

from __future__ import annotations

import json
import sys

import pytest
from mixbounds.instances.families import build
from mixbounds.instances.io import save_instance
from mixbounds.instances.reference.kkt import reference_solution
from mixbounds.solvers import ORACLES, solve
from mixbounds.solvers import spectral_estimates as estimates

from mixbounds.cli.command import main

#: target accuracy of the runs (the solve command's default)
EPS = 1e-8
#: the saving bound is a fraction of an integer iteration count: one iteration of rounding
SAVED_SLACK_IT = 1
#: auto's set-up may be at most this fraction of its iteration phase, in every oracle (issue 49)
SETUP_SHARE_MAX = 0.5
#: worst-case constructions at a small base point and a coarse accuracy (short chains: each spectral run < 1 s)
K = 4.0
WORST = {
    "coupled": dict(kappa_W=K, kappa_f=K, kappa_A=K, eps=1e-2),
    "coupled-grad": dict(kappa_W=K, kappa_f=K, kappa_A=K, eps=1e-2),
    "coupled-local": dict(kappa_W=K, kappa_f=K, kappa_AC=12.0, kappa_C=K, eps=1e-2),
    "coupled-local-grad": dict(kappa_W=K, kappa_f=K, kappa_AC=12.0, kappa_C=K, eps=1e-2),
    "mixed": dict(kappa_W=K, kappa_f=K, kappa_AC=12.0, kappa_C=K, kappa_Ct=K, eps=1e-2),
    "mixed-grad": dict(kappa_W=K, kappa_f=K, kappa_AC=12.0, kappa_C=K, kappa_Ct=K, eps=1e-2),
    "mixed-ident": dict(kappa_W=K, kappa_f=K, kappa_AC=12.0, kappa_Ct=K, eps=1e-2),
}
#: the random families with A (their defaults: 48-128 variables), a non-quadratic one, the applications
RANDOM = {"random-coupled": {}, "random-coupled-logistic": dict(objective="logistic"), "random-coupled-local": {},
          "random-mixed": {}, "random-mixed-ident": {}, "vertical-fl": {}, "local-global": {}}
#: families without A: G = F, every mode gives (μ_f, L_f)
WITHOUT_A = {"random-consensus": {}, "random-shared": {}}


def _family(name: str) -> str:
    return "random-coupled" if name == "random-coupled-logistic" else name


def measure(name: str, kw: dict) -> dict:
    """The three runs of one family: iterations, counts, set-up counts, Lanczos products and auto's model."""
    P = build(_family(name), **kw).problem
    out = {"family": name}
    for mode in ("bounds", "spectral", "auto"):
        r = solve(P, eps=EPS, constants=mode)
        assert r.converged, (name, mode, r.reason)
        c = r.params["constants_G"]
        out[mode] = {"iterations": r.iterations, "counts": dict(r.counts), "setup": dict(r.setup_counts),
                     "products": r.setup_counts["A"] // 2, "choice": c.get("choice", mode),
                     "model": c.get("cost_model") or {}}
    return out


def violations(run: dict) -> list[str]:
    """What the measured runs of one family contradict (empty: the set-up rule and the model's claims hold)."""
    fam, b, s, a = run["family"], run["bounds"], run["spectral"], run["auto"]
    out = []
    saved = {k: b["counts"][k] - a["counts"][k] for k in ORACLES}
    for k in ORACLES:
        if a["setup"][k] > SETUP_SHARE_MAX * a["counts"][k]:
            out.append(f"{fam}: auto's set-up {a['setup'][k]} {k} > {SETUP_SHARE_MAX} × its iterations' {a['counts'][k]}")
        if a["setup"][k] > max(0, saved[k]):
            out.append(f"{fam}: auto's set-up {a['setup'][k]} {k} > the {saved[k]} it saved")
    m = a["model"]
    if m:
        if s["products"] < m["lanczos_products_min"]:
            out.append(f"{fam}: Lanczos made {s['products']} products, fewer than the model's least "
                       f"{m['lanczos_products_min']}")
        bound = m["saved_fraction_max"] * b["iterations"] + SAVED_SLACK_IT
        if b["iterations"] - s["iterations"] > bound:
            out.append(f"{fam}: exact constants saved {b['iterations'] - s['iterations']} iterations, more than the "
                       f"model's {bound:.1f}")
    total = {mode: {k: run[mode]["counts"][k] + run[mode]["setup"][k] for k in ORACLES} for mode in ("spectral", "auto")}
    sp, au = total["spectral"], total["auto"]
    if a["choice"] == "bounds" and all(sp[k] <= au[k] for k in ORACLES) and any(sp[k] < au[k] for k in ORACLES):
        out.append(f"{fam}: spectral would have cost fewer calls than auto's bounds in every oracle ({total})")
    return out


@pytest.fixture(scope="module")
def runs() -> list[dict]:
    return [measure(n, kw) for n, kw in {**WORST, **RANDOM, **WITHOUT_A}.items()]


def test_auto_never_sets_up_more_than_it_saves_on_every_family(runs):
    found = [v for r in runs for v in violations(r)]
    assert found == []
    for r in runs:
        a = r["auto"]
        assert a["choice"] == "bounds" and a["setup"] == {k: 0 for k in ORACLES}
        assert (a["iterations"], a["counts"]) == (r["bounds"]["iterations"], r["bounds"]["counts"])


def test_the_model_describes_every_family_with_A(runs):
    """The families with A have a model, the others none (G = F: the bounds are exact, nothing to save)."""
    for r in runs:
        has_model = bool(r["auto"]["model"])
        assert has_model == (r["family"] not in WITHOUT_A), r["family"]
        if not has_model:
            assert r["spectral"]["setup"] == {k: 0 for k in ORACLES}
            assert r["spectral"]["iterations"] == r["bounds"]["iterations"]


def test_round_3s_choice_is_caught(runs):
    """Negative control: ``auto`` taking spectral, as round 3's model did on the printed coupled construction
    (a Lanczos of 642 products here, 61,594 at κ = 30): its set-up exceeds what it saved and half its iterations."""
    run = next(r for r in runs if r["family"] == "coupled")
    planted = dict(run, auto=dict(run["spectral"], choice="spectral", model=run["auto"]["model"]))
    found = violations(planted)
    assert any("> the" in v and "saved" in v for v in found) and any("× its iterations" in v for v in found)


def test_a_cost_bound_moved_the_wrong_way_is_caught(runs, monkeypatch):
    """Negative controls of the model's two claims: a least Lanczos cost above the measured one, and a saving
    bound of zero where exact constants saved iterations."""
    run = next(r for r in runs if r["family"] == "coupled-local")
    assert run["bounds"]["iterations"] - run["spectral"]["iterations"] > SAVED_SLACK_IT
    model = dict(run["auto"]["model"])
    too_costly = dict(run, auto=dict(run["auto"], model=dict(model, lanczos_products_min=run["spectral"]["products"] + 1)))
    assert any("fewer than the model's least" in v for v in violations(too_costly))
    no_saving = dict(run, auto=dict(run["auto"], model=dict(model, saved_fraction_max=0.0)))
    assert any("more than the model's" in v for v in violations(no_saving))


def test_the_printed_reason_reports_the_measured_iterations():
    model = {"saved_fraction_max": 0.5, "lanczos_products_min": 80, "product_counts": {"grad": 1, "A": 2, "C": 0,
             "Ct": 0, "comm": 12}, "iteration_counts": {"grad": 1, "A": 32, "C": 0, "Ct": 0, "comm": 192}}
    text = estimates.measured_reason(model, 97)
    assert "measured 97 iterations" in text and "at most 48 of them" in text and "fewer grad rounds than the >= 80" in text
    long_run = estimates.measured_reason(model, 1000)
    assert "at most 500 of them" in long_run and "unknown remainder" in long_run
    assert estimates.measured_reason({}, 97) == ""


# ----------------------------------------------------------------------------- a second run does no spectral work
#: the functions that compute spectra: the spectral modules, the Lanczos of solvers.spectral_estimates and the eigen-solvers
SPECTRAL_FILES = ("bounds/spectral.py", "bounds/condition.py")
SPECTRAL_NAMES = frozenset({"spectral_constants", "eigsh", "eigvalsh", "eigh", "eigvals_banded", "eigh_tridiagonal",
                            "lobpcg", "svds"})


#: not counted: the input check of every loaded problem (Assumption ass:W: W positive semidefinite with the consensus
#: line as its kernel, by one n × n eigen-solve up to DENSE_LIMIT nodes), which is not spectral work of the solve
EXEMPT = (("problem.py", "_validate_W"),)


class SpectralCalls:
    """Counts the calls of spectral functions while active (``sys.setprofile``), outside :data:`EXEMPT`."""

    def __init__(self):
        self.calls: dict[str, int] = {}
        self.exempt = 0

    def __call__(self, frame, event, arg):
        if event not in ("call", "return"):
            return
        code = frame.f_code
        where = (code.co_filename.replace("\\", "/").rsplit("/", 1)[-1], code.co_name)
        if where in EXEMPT:
            self.exempt += 1 if event == "call" else -1
        elif event == "call" and not self.exempt and (
                code.co_name in SPECTRAL_NAMES or code.co_filename.replace("\\", "/").endswith(SPECTRAL_FILES)):
            key = f"{where[0]}:{where[1]}"
            self.calls[key] = self.calls.get(key, 0) + 1

    def __enter__(self):
        sys.setprofile(self)
        return self

    def __exit__(self, *exc):
        sys.setprofile(None)


@pytest.fixture(scope="module")
def coupled_dir(tmp_path_factory):
    inst = build("coupled", **WORST["coupled"])
    d = tmp_path_factory.mktemp("cost") / "coupled"
    save_instance(inst.with_reference(reference_solution(inst.problem).u), d)
    return d


def _solve(d, js, *args) -> tuple[dict, dict]:
    with SpectralCalls() as spy:
        assert main(["solve", str(d), "--json", str(js), *args]) == 0
    return json.loads(js.read_text()), spy.calls


def test_a_second_solve_does_no_spectral_work(coupled_dir, tmp_path):
    for i in range(2):
        doc, calls = _solve(coupled_dir, tmp_path / f"run{i}.json")
        assert doc["facts"].startswith("stored in instance.json")
        assert doc["setup_counts"] == {k: 0 for k in ORACLES} and calls == {}, (i, calls)


def test_spectral_work_is_seen_when_it_happens(coupled_dir, tmp_path):
    """Negative controls of the measurement: ``--constants spectral`` (the Lanczos) and a directory without its
    stored facts (computed from the matrices) are both seen."""
    _, calls = _solve(coupled_dir, tmp_path / "spectral.json", "--constants", "spectral")
    assert calls.get("spectral_estimates.py:spectral_constants") == 1 and any(k.endswith(":eigsh") for k in calls)
    bare = tmp_path / "bare"
    bare.mkdir()
    for f in coupled_dir.iterdir():
        (bare / f.name).write_bytes(f.read_bytes())
    doc = json.loads((bare / "instance.json").read_text())
    del doc["spectra"]
    (bare / "instance.json").write_text(json.dumps(doc))
    summary, calls = _solve(bare, tmp_path / "bare.json")
    assert summary["facts"].startswith("computed from the matrices")
    assert any(k.startswith(("spectral.py:", "condition.py:")) for k in calls)
