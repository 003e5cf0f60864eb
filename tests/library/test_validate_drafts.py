"""validate names a reviewed record whose draft decisions' file holds a decision the record does
not follow: the record, the field and the disagreement, as ``resolve`` names it after a merge
(texts written for these tests)."""

from __future__ import annotations

import json

from tests.curators import run_pmparse

_REPORT = ("# Greenhouse vents stuck on 2030-04-09\n\nSeedlings wilted for two hours.\n\n## Root cause\n\n"
           "A vent motor lost its calibration after a power cut.\n")


def _draft(tmp_path, monkeypatch, *decisions):
    """A library of one draft (IL-0001) whose fields ann decided with ``decisions`` (review
    options), its draft left open; its record file."""
    (tmp_path / "pm").mkdir()
    (tmp_path / "pm" / "vents.md").write_text(_REPORT, encoding="utf-8")
    result = run_pmparse(monkeypatch, tmp_path, "convert", "pm", "-o", "lib", "--rules-only", "-j", "1")
    assert result.exit_code == 0, result.output
    result = run_pmparse(monkeypatch, tmp_path, "review", "lib", "--drafts", "--reviewer", "ann", *decisions)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "lib" / ".pmparse" / "drafts" / "IL-0001.json").exists()
    return tmp_path / "lib" / "IL-0001.yaml"


def _finished_by_hand(record, old: str = "", new: str = ""):
    text = record.read_text(encoding="utf-8")
    assert "status: suggested\n" in text and old in text
    record.write_text(text.replace("status: suggested\n", "status: reviewed\n").replace(old, new), encoding="utf-8")


def test_a_reviewed_record_that_does_not_follow_a_kept_decision_is_named_with_field_and_line(tmp_path, monkeypatch):
    record = _draft(tmp_path, monkeypatch, "--accept", "title")
    _finished_by_hand(record, "title: Greenhouse vents stuck", "title: The vents would not open")
    line = 1 + next(n for n, text in enumerate(record.read_text(encoding="utf-8").splitlines())
                    if text.startswith("title:"))

    result = run_pmparse(monkeypatch, tmp_path, "validate", "lib")

    assert result.exit_code == 1, result.output
    assert (f"IL-0001.yaml:{line}: title: the record is marked reviewed, but its draft decisions "
            "(.pmparse/drafts/IL-0001.json) do not agree: kept by ann, but the record no longer holds the draft's "
            "value (decided on one side of a git merge while the other finished the draft, or before it was "
            "finished by hand): check the field, then remove .pmparse/drafts/IL-0001.json") in result.output, \
        result.output
    assert "1 records checked, 1 invalid" in result.output


def test_a_reviewed_record_holding_a_value_dropped_in_its_decisions_is_named(tmp_path, monkeypatch):
    record = _draft(tmp_path, monkeypatch, "--reject", "root_cause")
    _finished_by_hand(record)
    # bo's decisions as a merge would bring them: the title dropped, which the record still holds
    path = tmp_path / "lib" / ".pmparse" / "drafts" / "IL-0001.json"
    drafts = json.loads(path.read_text(encoding="utf-8"))
    drafts["decided"]["title"] = {**drafts["decided"]["root_cause"], "by": "bo"}
    path.write_text(json.dumps(drafts), encoding="utf-8")

    result = run_pmparse(monkeypatch, tmp_path, "validate", "lib")

    assert result.exit_code == 1, result.output
    assert (": title: the record is marked reviewed, but its draft decisions (.pmparse/drafts/IL-0001.json) do not "
            "agree: dropped by bo, but the record holds a value") in result.output, result.output
    assert "root_cause" not in result.output, result.output  # dropped, and empty in the record


def test_a_reviewed_record_that_follows_its_decisions_is_valid(tmp_path, monkeypatch):
    record = _draft(tmp_path, monkeypatch, "--accept", "title", "--reject", "root_cause")
    _finished_by_hand(record)
    result = run_pmparse(monkeypatch, tmp_path, "validate", "lib")
    assert result.exit_code == 0, result.output
    assert "1 records checked, 0 invalid" in result.output


def test_a_draft_still_open_beside_its_decisions_is_valid(tmp_path, monkeypatch):
    _draft(tmp_path, monkeypatch, "--reject", "root_cause")
    result = run_pmparse(monkeypatch, tmp_path, "validate", "lib")
    assert result.exit_code == 0, result.output


def test_export_calls_such_a_record_invalid_as_validate_does_and_still_exports_it(tmp_path, monkeypatch):
    record = _draft(tmp_path, monkeypatch, "--accept", "title")
    _finished_by_hand(record, "title: Greenhouse vents stuck", "title: The vents would not open")
    result = run_pmparse(monkeypatch, tmp_path, "export", "lib", "-o", "cards.jsonl")
    assert result.exit_code == 1, result.output
    assert ": title: the record is marked reviewed, but its draft decisions" in result.output, result.output
    rows = (tmp_path / "cards.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(rows) == 1 and json.loads(rows[0])["title"].startswith("The vents would not open")
