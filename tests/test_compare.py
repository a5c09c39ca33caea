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


def test_rtol_lists_rounding_apart_and_keeps_a_changed_status_or_count(doc, tmp_path, capsys):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(doc))
    rounded = _rerun(doc)
    first = next(c for c in rounded["claims"] if isinstance(c.get("measured"), float) and c["measured"])
    first["measured"] *= 1 + 1e-12
    first["detail"] = first["detail"] + " 0.12345678901"  # a text that differs by more than a number: not rounding
    b.write_text(json.dumps(rounded))
    assert main([str(a), str(b)]) == 1  # without --rtol every float counts
    capsys.readouterr()
    assert main([str(a), str(b), "--rtol", "1e-9"]) == 0
    out = capsys.readouterr().out
    assert "rounding-only differences (floats within rtol 1e-09): 1 in 1 results" in out
    assert f"rounding: {first['id']} measured" in out and f"text: {first['id']} detail" in out
    assert main([str(a), str(b), "--rtol", "1e-13"]) == 1  # negative control: beyond the tolerance it is a change
    # a status, an integer and a text whose words changed are never rounding
    for change in ({"status": "fail"}, {"measured": "changed"}):
        other = _rerun(doc)
        c = next(c for c in other["claims"] if c["status"] == "pass")
        c.update(change)
        assert not any(d.rounding for d in compare_results(doc, other, rtol=0.5) if d.id == c["id"])
    assert main([str(a), str(b), "--rtol", "0"]) == 2 and main([str(a), str(b), "--rtol", "x"]) == 2


def test_relative_difference_reads_numbers_in_text():
    from mixbounds.checks.run.compare import relative_difference
    assert relative_difference("slope 0.515 counts [214.57728857206817]", "slope 0.515 counts [214.5772885720682]") \
        == pytest.approx(1.3e-16, rel=0.1)
    assert relative_difference("3 of 4 used", "4 of 4 used") == float("inf")  # integers in a text are exact
    assert relative_difference({"a": [1.0, 2.0]}, {"a": [1.0, 2.0, 3.0]}) == float("inf")
    assert relative_difference({"a": 1}, {"a": 2}) == float("inf") and relative_difference(True, 1.0) == float("inf")
