"""Comparing a record with pmparse's new suggestion for it and merging the fields a person takes
(pmparse.review.compare), and ``pmparse diff`` over records of the shared corpus."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from pmparse.batch.convert import convert
from pmparse.card.schema import Item, Pipeline, Support
from pmparse.cli import main
from pmparse.cli.render import evidence_sentence, render_folded, render_patch, render_text
from pmparse.library.records import card_data, dumps, loads
from pmparse.review.compare import compare, merge, same_reading
from pmparse.review.pending import diff_paths
from tests.helpers import CORE_DNS, INOTIFY, convert_with_other_model
from tests.queue_cards import PLACES, TEXT, item as _item, make


def test_three_way_compare_tells_updates_conflicts_and_kept_edits(tmp_path):
    base = make(tmp_path, symptoms=[_item("The billing queue stopped draining at noon.")], date="2024-05-01")
    # the person edited organisation and date; pmparse now changes symptoms, date and root cause
    record = base.model_copy(update={"organisation": "Billing team", "date": "2024-05-02"})
    suggestion = base.model_copy(update={
        "symptoms": [_item("The billing queue stopped draining at noon."), _item("Invoices piled up for two hours.")],
        "date": "2024-04-30",
        "root_cause": [_item("A retry loop held every worker on one poisoned message.")],
    })
    diff = compare(record, suggestion, base, places=PLACES)
    kinds = {c.field: c.kind for c in diff.changes}
    assert kinds == {"date": "conflict", "symptoms": "update", "root_cause": "update"}
    assert diff.kept == ["organisation"]
    assert "trigger" in diff.unchanged and "organisation" not in diff.unchanged
    # without a base every difference is a plain change, the person's edit included
    assert {c.field: c.kind for c in compare(record, suggestion, places=PLACES).changes} == {
        "organisation": "change", "date": "change", "symptoms": "change", "root_cause": "change"}
    # a rejected value is not proposed
    diff = compare(record, suggestion, base, lambda name, value: name == "symptoms", places=PLACES)
    assert diff.rejected == ["symptoms"] and "symptoms" not in [c.field for c in diff.changes]


def test_merge_takes_the_field_and_its_support(tmp_path):
    record = make(tmp_path, support={"organisation": Support(confidence=0.5, origin="text")})
    suggestion = make(tmp_path, organisation="Billing Ltd", components=["queue"],
                      support={"organisation": Support(confidence=0.9, origin="front_matter"),
                               "components.queue": Support(confidence=0.7, origin="text")},
                      pipeline=Pipeline(version="0.1.0", model="m2"))
    merged = merge(record, suggestion, ["components"], places=PLACES)
    assert merged.components == ["queue"] and merged.organisation == "Billing"
    assert merged.support["organisation"].confidence == 0.5 and "components.queue" in merged.support
    assert merged.pipeline.model == "m2"
    assert merge(record, suggestion, [], places=PLACES).pipeline.model is None


# --- on records made from the shared corpus --------------------------------------------------------

@pytest.fixture()
def pending_library(corpus_root, tmp_path, monkeypatch):
    """Two corpus records, one edited by hand, both re-converted by another model."""
    sources = [str(corpus_root / CORE_DNS), str(corpus_root / INOTIFY)]
    library = tmp_path / "lib"
    assert convert(sources, library).counts["converted"] == 2
    record = library / "IL-0001.yaml"
    text = record.read_text(encoding="utf-8")
    assert "\ndate: '2020-02-03'\n" in text
    record.write_text(text.replace("\ndate: '2020-02-03'\n", "\n# confirmed with the on-call notes\ndate: '2020-02-04'\n"),
                      encoding="utf-8")
    (library / "IL-0002.yaml").write_text((library / "IL-0002.yaml").read_text(encoding="utf-8").replace(
        "status: suggested", "status: reviewed"), encoding="utf-8")
    report = convert_with_other_model(monkeypatch, tmp_path, sources, library)
    assert [r.status for r in report.results] == ["pending", "pending"]
    return library


def test_diff_library_shows_changes_with_evidence_and_folds_the_rest(pending_library):
    result = CliRunner().invoke(main, ["diff", str(pending_library)])
    assert result.exit_code == 1, result.output
    out = result.output
    assert "\x1b[" not in out  # not a terminal: plain
    assert out.count("diff IL-000") == 2 and "+++ .pmparse/pending/IL-0001.json (pmparse 0.1.0, test-model-2)" in out
    assert "@@ root_cause @@ pmparse changed its suggestion" in out and "@@ lessons @@" in out
    assert "kept as a person left them, pmparse unchanged: date" in out
    assert "@@ date @@" not in out  # the person's edit is never proposed for reverting
    # each suggested item is followed by its evidence sentence, read from the source, and confidence
    report = diff_paths([str(pending_library)])
    diff = report.diffs[0]
    source = Path(diff.suggestion.source.location).read_text(encoding="utf-8")
    first = diff.suggestion.root_cause[0]
    ev = first.evidence[0]
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if re.fullmatch(rf"\+\[\d+\] {re.escape(first.text)}", line))
    assert lines[at + 1] == (f"    evidence line {source.count(chr(10), 0, ev.start) + 1}, confidence {first.confidence:.2f}: "
                             f"{evidence_sentence(source, ev.start, ev.end)}")
    assert any(line.startswith("  ") and "fields unchanged:" in line and "symptoms" in line for line in lines)


def test_diff_json_and_colour(pending_library):
    runner = CliRunner()
    result = runner.invoke(main, ["diff", str(pending_library), "--format", "json"])
    assert result.exit_code == 1
    data = json.loads(result.output)
    first = data["records"][0]
    assert first["id"] == "IL-0001" and first["kept"] == ["date"]
    fields = {c["field"]: c for c in first["changes"]}
    assert {"root_cause", "remediation", "action_items", "lessons"} <= set(fields) and "date" not in fields
    assert fields["lessons"]["suggestion"] == [] and fields["lessons"]["kind"] == "update"
    evidence = fields["root_cause"]["evidence"]
    assert evidence and all(e["sentence"] and e["confidence"] is not None and e["line"] for e in evidence)
    assert data["records"][1]["id"] == "IL-0002" and data["errors"] == []
    coloured = runner.invoke(main, ["diff", str(pending_library), "--color"])
    assert "\x1b[" in coloured.output


def test_patch_applies_with_git_and_keeps_the_human_lines(pending_library, tmp_path):
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed")
    result = CliRunner().invoke(main, ["diff", str(pending_library), "--patch"])
    assert result.exit_code == 1 and result.output.startswith("diff --git a/IL-0001.yaml b/IL-0001.yaml\n")
    repo = tmp_path / "repo"
    shutil.copytree(pending_library, repo)
    subprocess.run([git, "init", "-q", str(repo)], check=True)
    (tmp_path / "all.patch").write_text(result.output, encoding="utf-8")
    subprocess.run([git, "apply", "--check", str(tmp_path / "all.patch")], cwd=repo, check=True)
    subprocess.run([git, "apply", str(tmp_path / "all.patch")], cwd=repo, check=True)
    report = diff_paths([str(pending_library)])
    for diff in report.diffs:
        applied = (repo / diff.record_path.name).read_text(encoding="utf-8")
        expected = merge(diff.record, diff.suggestion, [c.field for c in diff.changes], places=diff.places)
        assert card_data(loads(applied, "yaml", "x")) == card_data(expected)
    assert "# confirmed with the on-call notes\ndate: '2020-02-04'\n" in (repo / "IL-0001.yaml").read_text()
    # once applied, nothing is left to propose
    assert render_patch(diff_paths([str(repo)])) == ""
    assert render_text(diff_paths([str(repo)])) == ""


def test_diff_two_record_files(pending_library, tmp_path):
    runner = CliRunner()
    a = pending_library / "IL-0001.yaml"
    b = tmp_path / "suggested.json"
    shutil.copy(pending_library / ".pmparse" / "pending" / "IL-0001.json", b)
    result = runner.invoke(main, ["diff", str(a), str(b)])
    assert result.exit_code == 1
    assert f"+++ {b} (pmparse 0.1.0, test-model-2)" in result.output
    # no base between two files: the person's date edit shows as a change
    lines = result.output.splitlines()
    assert "@@ date @@" in lines and "-2020-02-04" in lines and "+2020-02-03" in lines
    same = runner.invoke(main, ["diff", str(a), str(a)])
    assert same.exit_code == 0 and same.output == "no differences: the two records agree on every field\n"


def test_two_record_files_of_other_sources_are_said_to_be_so_without_review_words(pending_library, tmp_path):
    record = loads((pending_library / "IL-0001.yaml").read_text(encoding="utf-8"), "yaml", "x")
    other = record.model_copy(update={"source": record.source.model_copy(
        update={"location": "elsewhere/other.md", "sha256": "0" * 64})})
    b = tmp_path / "IL-0009.yaml"
    b.write_text(dumps(other), encoding="utf-8")
    result = CliRunner().invoke(main, ["diff", str(pending_library / "IL-0001.yaml"), str(b)])
    assert "the two records were read from different sources (" in result.output
    assert "elsewhere/other.md)" in result.output
    assert "once a field is accepted" not in result.output, result.output


def test_diff_usage_errors_exit_two(pending_library, tmp_path):
    runner = CliRunner()
    record = str(pending_library / "IL-0001.yaml")
    assert runner.invoke(main, ["diff", record]).exit_code == 2
    assert runner.invoke(main, ["diff", str(tmp_path / "missing")]).exit_code == 2
    assert runner.invoke(main, ["diff", str(pending_library), "--patch", "--format", "json"]).exit_code == 2
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: [", encoding="utf-8")
    result = runner.invoke(main, ["diff", record, str(bad)])
    assert result.exit_code == 2 and "bad.yaml" in result.output
    assert runner.invoke(main, ["diff", "--help"]).exit_code == 0
    assert runner.invoke(main, ["review", "--help"]).exit_code == 0
    # a library without pending suggestions has no differences
    empty = tmp_path / "empty"
    (empty / ".pmparse").mkdir(parents=True)
    assert runner.invoke(main, ["diff", str(empty)]).exit_code == 0
    # a folder pmparse never wrote to is not a library: a mistyped path is not "no differences"
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("not a record\n", encoding="utf-8")
    for command in (["diff", str(other)], ["validate", str(other)], ["review", str(other), "--accept-all"]):
        result = runner.invoke(main, command + (["--reviewer", "ann"] if command[0] == "review" else []))
        assert result.exit_code == 2 and "expected a library folder" in result.output, command


def test_reanchor_evidence_moves_supports_by_their_old_characters_or_marks_them():
    from pmparse.review.anchor import reanchor_evidence

    old_text = "Acme ran the API. The outage lasted 40 minutes."
    new_text = "Update: fixed a typo.\nAcme ran the API. The outage lasted 40 minutes."
    shift = new_text.index("Acme")
    data = {
        "source": {"sha256": "a" * 64},
        "organisation": "Acme (edited)",
        "duration_minutes": 40,
        "symptoms": [{"text": "Gone sentence.", "evidence": [{"start": 0, "end": 4}], "confidence": 1.0}],
        "support": {
            "organisation": {"evidence": [{"start": 0, "end": 4}], "confidence": 0.9, "origin": "text"},
            "duration_minutes": {"evidence": [{"start": 18, "end": 47}], "confidence": 0.9, "origin": "text"},
            "components.dns": {"evidence": [{"start": 5, "end": 8}], "confidence": 0.5, "origin": "model"},
        },
    }
    suggestion = {name: [] for name in ("symptoms", "trigger", "root_cause", "contributing_factors", "detection",
                                        "remediation", "action_items", "lessons")}
    suggestion.update({"organisation": "Acme", "duration_minutes": 40, "support": {
        "organisation": {"evidence": [{"start": shift, "end": shift + 4}], "confidence": 0.9, "origin": "text"},
        "duration_minutes": {"evidence": [{"start": 1, "end": 2}], "confidence": 0.9, "origin": "text"}}})
    keep = ["organisation", "duration_minutes", "symptoms", "components"]
    reanchor_evidence(data, old_text, new_text, suggestion, keep)
    # same value as the suggestion: its evidence; an edited value: the old characters found again
    assert data["support"]["duration_minutes"]["evidence"] == [{"start": 1, "end": 2}]
    assert data["support"]["organisation"]["evidence"] == [{"start": shift, "end": shift + 4}]
    assert data["support"]["components.dns"]["evidence"] == [{"start": shift + 5, "end": shift + 8}]
    assert data["symptoms"][0]["evidence"] == [{"start": 0, "end": 4, "sha256": "a" * 64}]
    # without the old text nothing can be found again: the support is marked, not guessed
    data["support"]["organisation"]["evidence"] = [{"start": 0, "end": 4}]
    data["organisation"] = "Other"
    reanchor_evidence(data, None, new_text, suggestion, keep)
    assert data["support"]["organisation"]["evidence"] == [{"start": 0, "end": 4, "sha256": "a" * 64}]


def test_an_amended_source_moves_same_words_and_keeps_a_person_edit_pmparse_did_not_change(tmp_path):
    shift = 7
    base = make(tmp_path, symptoms=[_item("The billing queue stopped draining at noon.")],
                root_cause=[_item("A retry loop held every worker on one poisoned message.")])
    # the person rewrote the root cause; the source then gained a line at the top
    mine = [Item(text="Workers retried one bad message forever.", evidence=base.root_cause[0].evidence,
                 confidence=0.9)]
    record = base.model_copy(update={"root_cause": mine})

    def moved(items, confidence=None):
        return [item.model_copy(update={"evidence": [ev.model_copy(update={"start": ev.start + shift, "end": ev.end + shift})
                                                     for ev in item.evidence],
                                        "confidence": confidence or item.confidence}) for item in items]

    amended = base.source.model_copy(update={"sha256": "0" * 64})
    suggestion = base.model_copy(update={"source": amended, "symptoms": moved(base.symptoms, 0.7),
                                         "root_cause": moved(base.root_cause),
                                         "trigger": [_item("The dead-letter queue was switched off.")]})
    diff = compare(record, suggestion, base, places=PLACES)
    # the same words elsewhere (a new confidence too) are no decision; the person's root cause is
    # kept: pmparse's words for it did not change, only where they stand
    assert diff.moved == ["symptoms"] and diff.kept == ["root_cause"]
    assert [c.field for c in diff.changes] == ["trigger"] and diff.open
    # without an amendment the same difference in evidence is a change to decide
    same = suggestion.model_copy(update={"source": base.source})
    assert "symptoms" in [c.field for c in compare(record, same, base, places=PLACES).changes]
    # following the new text takes the moved field whole and leaves the person's words alone
    followed = merge(record, suggestion, [], follow=True, places=PLACES)
    assert followed.symptoms == suggestion.symptoms and followed.source.sha256 == "0" * 64
    assert [i.text for i in followed.root_cause] == ["Workers retried one bad message forever."]
    assert followed.trigger == []
    # with nothing taken and no follow the record stays as it is
    assert merge(record, suggestion, [], places=PLACES) == record


def test_other_confidences_for_the_same_items_are_nothing_to_decide(tmp_path):
    """A retrained model (``train --library``) reads the same items with other confidences: no
    change to review, and no proposal to undo a person's edit."""
    accepted = [_item("A retry loop held every worker on one poisoned message.", 0.62)]
    base = make(tmp_path, root_cause=accepted, symptoms=[_item("Invoices piled up for two hours.", 0.7)])
    record = base.model_copy(update={"status": "reviewed",
                                     "symptoms": [_item("The billing queue stopped draining at noon.", 0.7)]})
    suggestion = base.model_copy(update={
        "root_cause": [_item("A retry loop held every worker on one poisoned message.", 0.91)],
        "symptoms": [_item("Invoices piled up for two hours.", 0.55)],
        "trigger": [_item("The dead-letter queue was switched off.", 0.4)],
    })
    diff = compare(record, suggestion, base, places=PLACES)
    assert diff.rescored == ["root_cause"]
    assert diff.kept == ["symptoms"]  # the person's edit stands: pmparse's reading is the base's
    assert [c.field for c in diff.changes] == ["trigger"]
    assert "the same items, other confidences" in "\n".join(render_folded(diff))
    # other words, other evidence or another origin are a new reading, whatever the confidence
    moved = base.model_copy(update={"root_cause": [_item("A retry loop held every worker", 0.62)]})
    assert [c.field for c in compare(record, moved, base, places=PLACES).changes] == ["root_cause"]
    assert not same_reading([{"text": "a", "evidence": [], "confidence": 1.0, "origin": "person"}],
                            [{"text": "a", "evidence": [], "confidence": 1.0, "origin": "model"}])


def test_a_reviewed_record_rescored_by_a_new_model_waits_for_nothing(tmp_path, monkeypatch):
    """The curator's loop after ``train --library``: a reviewed record whose new suggestion only
    changes confidences is not put up for review again (convert counts it unchanged)."""
    from pmparse.library.store import Library

    source = tmp_path / "reports" / "queue.md"
    source.parent.mkdir()
    source.write_text(TEXT, encoding="utf-8")
    library = tmp_path / "lib"
    assert convert([str(source)], library).counts["converted"] == 1
    record = library / "IL-0001.yaml"
    text = record.read_text(encoding="utf-8").replace("status: suggested", "status: reviewed")  # a curator's mark
    assert text.count("confidence:") >= 2
    record.write_text(text, encoding="utf-8")

    import pmparse.batch.pool as pool

    real = pool.suggest_cards

    def rescored(*args, **kwargs):  # the same reading, every confidence lowered
        out = real(*args, **kwargs)
        for card, _ in out:
            for name in ("symptoms", "trigger", "root_cause", "contributing_factors", "detection",
                         "remediation", "action_items", "lessons"):
                for item in getattr(card, name):
                    item.confidence = round(item.confidence * 0.8, 3)
        return out

    monkeypatch.setattr(pool, "suggest_cards", rescored)
    for module in ("pmparse.batch.pool", "pmparse.batch.suggest"):
        monkeypatch.setattr(f"{module}.version_info", lambda nlp: {"version": "0.1.0", "model": "test-model-2"})
    report = convert([str(source)], library)
    monkeypatch.undo()
    assert [r.status for r in report.results] == ["unchanged"]
    assert Library.open(library).read_state("pending", "IL-0001") is None
    assert record.read_text(encoding="utf-8") == text


def test_a_patch_applied_with_git_settles_the_pending_suggestions(pending_library, tmp_path, corpus_root,
                                                                   monkeypatch):
    """After `diff --patch | git apply`, `diff` finds nothing to propose; the next convert of the
    same sources counts nothing pending either, and leaves no suggestion for review to clear."""
    from pmparse.library.store import Library

    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed")
    patch = CliRunner().invoke(main, ["diff", str(pending_library), "--patch"]).output
    (tmp_path / "all.patch").write_text(patch, encoding="utf-8")
    subprocess.run([git, "apply", str(tmp_path / "all.patch")], cwd=pending_library, check=True)
    assert CliRunner().invoke(main, ["diff", str(pending_library)]).exit_code == 0
    sources = [str(corpus_root / CORE_DNS), str(corpus_root / INOTIFY)]
    report = convert_with_other_model(monkeypatch, tmp_path, sources, pending_library)
    assert [r.status for r in report.results] == ["unchanged", "unchanged"]
    library = Library.open(pending_library)
    assert [library.read_state("pending", i) for i in ("IL-0001", "IL-0002")] == [None, None]
    assert "# confirmed with the on-call notes\ndate: '2020-02-04'\n" in (pending_library / "IL-0001.yaml").read_text()
