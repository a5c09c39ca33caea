"""The results differ (mixbounds.checks.run.compare): timings ignored, a changed status or number reported."""

from __future__ import annotations

import copy
import json

import pytest
from mixbounds.checks.run._selftest import fake_document
from mixbounds.checks.run.compare import DOCUMENT, compare_results, main


@pytest.fixture(scope="module")
def doc():
    return fake_document()


def _rerun(doc: dict) -> dict:
    """The same document as another run writes it: other timings, code version, paths and timestamps."""
    b = copy.deepcopy(doc)
    b["wall_time"], b["started"], b["finished"] = 99.0, "2000-01-01T00:00:00+00:00", "2000-01-01T00:01:00+00:00"
    b["versions"]["code_version"], b["stats"]["cache"], b["command"] = "other", "/elsewhere/.cache", "mixbounds verify"
    for c in b["claims"]:
        c["seconds"] = c.get("seconds", 0.0) + 1.5
        for p in c.get("points") or []:
            if isinstance(p, dict):
                p["seconds"] = 7.0
    return b


def test_a_rerun_with_other_timings_is_the_same(doc):
    assert len(doc["claims"]) > 3
    assert compare_results(doc, _rerun(doc)) == []


def test_a_changed_status_is_reported(doc):
    b = _rerun(doc)
    c = next(c for c in b["claims"] if c["status"] == "pass")
    c["status"] = "fail"
    diffs = compare_results(doc, b)
    assert [(d.id, d.field, d.a, d.b) for d in diffs if d.id == c["id"]] == [(c["id"], "status", "pass", "fail")]
    b["summary"] = dict(b["summary"], exit_code=1)  # as the run would have summarized it
    assert any(d.id == DOCUMENT and d.field == "summary" for d in compare_results(doc, b))


def test_a_changed_number_a_missing_result_and_text(doc):
    b = _rerun(doc)
    first, last = b["claims"][0], b["claims"][-1]
    first["measured"] = float(first["measured"]) * (1 + 2 ** -52) if first["measured"] else 1e-300
    first["detail"] = first["detail"] + " (reworded)"
    b["claims"].remove(last)
    diffs = compare_results(doc, b)
    fields = {(d.id, d.field) for d in diffs}
    assert (first["id"], "measured") in fields and (last["id"], "presence") in fields
    text = [d for d in diffs if d.text_only]
    assert [(d.id, d.field) for d in text] == [(first["id"], "detail")]
    # the text of a finding inside a result is text as well; its numbers are not
    b = _rerun(doc)
    withf = next(c for c in b["claims"] if c.get("findings"))
    withf["findings"][0]["detail"] += " (reworded)"
    assert [d.text_only for d in compare_results(doc, b) if d.id == withf["id"]] == [True]
    withf["findings"][0]["measured"] = "changed"
    assert [d.text_only for d in compare_results(doc, b) if d.id == withf["id"]] == [False]


def test_the_command_exits_1_on_a_change_and_0_on_text_only(doc, tmp_path, capsys):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(doc))
    same = _rerun(doc)
    same["claims"][0]["label"] = "renamed"
    b.write_text(json.dumps(same))
    assert main([str(a), str(b)]) == 0
    assert "text-only differences (detail, label, statement): 1 in 1 results" in capsys.readouterr().out
    changed = _rerun(doc)
    changed["claims"][1]["ci"] = [0.0, 1.0]
    b.write_text(json.dumps(changed))
    assert main([str(a), str(b)]) == 1
    assert f"{changed['claims'][1]['id']} ci:" in capsys.readouterr().out
    assert main([str(a)]) == 2 and main([str(a), str(tmp_path / "missing.json")]) == 2
