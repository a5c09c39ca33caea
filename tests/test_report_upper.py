"""The report's sections on the reach of the upper-bound checks (mixbounds/report/upper.py)."""

from mixbounds.checks.verdict import NOT_EXERCISED

from mixbounds.report.blocks import render_md
from mixbounds.report.upper import not_exercised_section, pep_section


def _md(blocks) -> str:
    out: list[str] = []
    render_md(blocks, None, out)
    return "\n".join(out)


def _doc():
    pt = {"class": "consensus", "network": "path", "N": 3, "K": 1, "kappa_f": 10.0, "kappa_W": 100.0,
          "rho_pep": 0.8543298, "rho_theorem": 0.9431110, "rho_derived": 0.9, "iterations": 6.35,
          "solver": "CLARABEL", "solver_status": "optimal", "accuracy": 3e-9}
    return {"claims": [
        {"id": "pep.consensus.contraction.kappa_W", "kind": "pep", "status": "pass", "points": [pt],
         "verdict_label": "certified (PEP)"},
        {"id": "pep.consensus.iterations.kappa_W", "kind": "pep", "status": "pass", "measured": -0.001,
         "ci": [-0.008, 0.007], "theory": 0.0},
        {"id": "T1.consensus.grad.kappa_f.upper@random-consensus+logcosh", "kind": "upper", "status": "pass",
         "measured": 0.218, "ci": [0.177, 0.259], "theory": 0.5, "param": "kappa_f", "variant": "random-consensus+logcosh",
         "verdict_label": NOT_EXERCISED, "extra": {"formula_slope": 0.5, "exercised": False, "exercise_threshold": 0.38}},
        {"id": "T1.consensus.grad.kappa_f.upper@random-consensus", "kind": "upper", "status": "pass", "measured": 0.43,
         "ci": [0.42, 0.44], "theory": 0.5, "param": "kappa_f", "variant": "random-consensus",
         "extra": {"formula_slope": 0.5, "exercised": True, "exercise_threshold": 0.38}},
        {"id": "T1.consensus.grad.kappa_f.upper@pep-worst", "kind": "upper", "status": "pass", "measured": 0.48,
         "ci": [0.46, 0.5], "cell": "T1.consensus.grad", "param": "kappa_f", "variant": "pep-worst",
         "extra": {"exercised": True, "pep_worst": [{"target": 10.0, "source": "F(mu_f, L_f)", "rho_pep": 0.8543298,
                                                     "rho_instance": 0.8543295, "V1_difference": 2e-7,
                                                     "residual": 8e-4, "D": 17}]}},
    ]}


def test_pep_table_has_both_factors_per_point():
    md = _md(pep_section(_doc()))
    assert "| consensus | path 3 | 1 | 10 | 100 | 0.854330 | 0.943111 |" in md
    assert "+0.088781" in md  # the margin ρ_thm − ρ_PEP
    assert "certified (PEP)" in md and "pep.consensus.iterations.kappa_W" in md
    assert "| consensus | kappa_f | 10 | F(mu_f, L_f) | 0.854330 | — | 0.854329 |" in md  # 0.8543295 rounds down


def test_not_exercised_list():
    md = _md(not_exercised_section(_doc()))
    assert "Upper bounds not exercised (1 of 3)" in md
    assert "T1.consensus.grad.kappa_f.upper@random-consensus+logcosh" in md
    assert "0.218 ± 0.041" in md and "| 0.500 | 0.380 |" in md
    assert "T1.consensus.grad.kappa_f.upper@random-consensus]" not in md  # an exercised pass is not listed
    empty = _md(not_exercised_section({"claims": _doc()["claims"][3:]}))
    assert "None in this run." in empty


def test_no_pep_results_no_section():
    assert pep_section({"claims": []}) == []
