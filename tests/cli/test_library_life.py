"""A library over time (convert, review, sources changing, convert again): what a curator is told.

Found by walking a library's life end to end with the CLI (helper session walk-13).
"""

from __future__ import annotations

import errno
import os
import re

from click.testing import CliRunner

from pmparse.cli import main

REPORT = "# Queue stalled\n\nThe queue stalled for 20 minutes.\n\nRoot cause: a full disk on the broker.\n"


def read_only(monkeypatch, folder) -> None:
    """Every file or folder made under ``folder`` fails as on a read-only file system (tests run as
    root, which chmod does not stop: the refusal is simulated where the system call is made)."""
    real_open, real_mkdir = os.open, os.mkdir
    under = os.path.abspath(folder)

    def refused(path) -> bool:
        return os.path.abspath(path) == under or os.path.abspath(path).startswith(under + os.sep)

    def guarded_open(path, flags, *args, **kwargs):
        if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT) and refused(path):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
        return real_open(path, flags, *args, **kwargs)

    def guarded_mkdir(path, *args, **kwargs):
        if refused(path):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
        return real_mkdir(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", guarded_open)
    monkeypatch.setattr(os, "mkdir", guarded_mkdir)


def test_a_read_only_library_is_one_line_naming_the_folder_and_exit_1(tmp_path, monkeypatch):
    (tmp_path / "r.md").write_text(REPORT, encoding="utf-8")
    runner = CliRunner()
    lib = tmp_path / "lib"
    assert runner.invoke(main, ["convert", str(tmp_path / "r.md"), "-o", str(lib), "--rules-only", "-j", "1"]
                         ).exit_code == 0
    (tmp_path / "r.md").write_text(REPORT + "\nWe added an alert on disk use.\n", encoding="utf-8")
    before = {p: p.read_bytes() for p in lib.rglob("*") if p.is_file()}
    read_only(monkeypatch, lib)
    # a library folder someone else owns, or a read-only mount: a file pmparse cannot write (exit
    # 1, docs/cli.md), not a usage error, and never a traceback
    for args in (["convert", str(tmp_path / "r.md"), "-o", str(lib), "--rules-only", "-j", "1"],
                 ["review", str(lib), "--drafts", "--accept-all"]):
        result = runner.invoke(main, args)
        assert result.exit_code == 1, result.output
        assert "Traceback" not in result.output and not isinstance(result.exception, OSError)
        assert f"pmparse: {lib}: expected a library folder pmparse can write" in result.output, result.output
        assert "read-only file system" in result.output
    assert {p: p.read_bytes() for p in lib.rglob("*") if p.is_file()} == before


def test_a_new_library_under_a_read_only_folder_is_one_line_not_a_traceback(tmp_path, monkeypatch):
    (tmp_path / "r.md").write_text(REPORT, encoding="utf-8")
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    read_only(monkeypatch, shelf)
    result = CliRunner().invoke(main, ["convert", str(tmp_path / "r.md"), "-o", str(shelf / "lib"),
                                       "--rules-only", "-j", "1"])
    assert result.exit_code == 1, result.output
    assert not isinstance(result.exception, OSError), result.exception
    assert f"pmparse: {shelf / 'lib'}: expected a library folder pmparse can write" in result.output


def test_a_source_gone_from_a_converted_folder_is_named_and_its_record_kept(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pm").mkdir()
    (tmp_path / "pm" / "queue.md").write_text(REPORT, encoding="utf-8")
    (tmp_path / "pm" / "dns.md").write_text("# DNS outage\n\nNames did not resolve for an hour.\n", encoding="utf-8")
    runner = CliRunner()
    args = ["convert", "pm", "-o", "lib", "--rules-only", "-j", "1"]
    assert runner.invoke(main, args).exit_code == 0
    queue = next(p for p in (tmp_path / "lib").glob("IL-*.yaml") if "pm/queue.md" in p.read_text(encoding="utf-8"))
    kept = queue.read_bytes()
    # renamed and edited in one go: neither name nor text finds the record, the file gets a new one
    (tmp_path / "pm" / "queue.md").rename(tmp_path / "pm" / "queue-2024.md")
    with open(tmp_path / "pm" / "queue-2024.md", "a", encoding="utf-8") as out:
        out.write("\nWe now alert on broker disk use.\n")
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "1 converted, 0 updated, 1 unchanged" in result.output
    notes = [line for line in result.output.splitlines() if line.startswith("note: ")]
    assert len(notes) == 1 and f"{queue.stem} (pm/queue.md)" in notes[0] and "source is gone" in notes[0], notes
    assert queue.read_bytes() == kept  # told, never removed: the curator decides
    # run again: said again until the curator acts; a file alone names no folder, so nothing then
    assert "source is gone" in runner.invoke(main, args).output
    alone = runner.invoke(main, ["convert", "pm/dns.md", "-o", "lib", "--rules-only", "-j", "1"])
    assert alone.exit_code == 0 and "note: " not in alone.output, alone.output
    # a file renamed with the same text is found again by its text: nothing is gone
    (tmp_path / "pm" / "dns.md").rename(tmp_path / "pm" / "dns-2024.md")
    queue.unlink()
    moved = runner.invoke(main, args)
    assert "1 updated" in moved.output and "note: " not in moved.output, moved.output


def test_a_source_gone_from_a_converted_glob_is_named_as_from_a_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pm" / "2024").mkdir(parents=True)
    (tmp_path / "pm" / "queue.md").write_text(REPORT, encoding="utf-8")
    (tmp_path / "pm" / "dns.md").write_text("# DNS outage\n\nNames did not resolve for an hour.\n", encoding="utf-8")
    (tmp_path / "pm" / "2024" / "disk.md").write_text("# Disk full\n\nThe disk filled up.\n", encoding="utf-8")
    (tmp_path / "pm" / "2024" / "cert.md").write_text("# Certificate expired\n\nLogins failed.\n", encoding="utf-8")
    (tmp_path / "other.md").write_text("# Other\n\nSomething else broke.\n", encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(main, ["convert", "pm", "other.md", "-o", "lib", "--rules-only", "-j", "1"]).exit_code == 0
    for name in ("pm/queue.md", "pm/2024/disk.md", "other.md"):
        os.unlink(name)
    # a glob names the files it finds as a folder does: a file it would have found, now gone, and
    # one under a folder it finds, are named; a file no pattern covers is not
    for pattern, gone in (("pm/*.md", ["pm/queue.md"]), ("pm/*", ["pm/queue.md", "pm/2024/disk.md"]),
                          ("pm/**/*.md", ["pm/queue.md", "pm/2024/disk.md"]), ("pm/d*.md", [])):
        result = runner.invoke(main, ["convert", pattern, "-o", "lib", "--rules-only", "-j", "1"])
        assert result.exit_code == 0, result.output
        notes = [line for line in result.output.splitlines() if line.startswith("note: ")]
        named = sorted(re.findall(r"\((pm/[^)]*|other\.md)\)", " ".join(notes)))
        assert named == sorted(gone), (pattern, result.output)


ACTIONS = """# Queue stalled on the broker

The job queue stopped delivering messages for forty minutes.

## Root cause

A full disk on the broker host stopped it from accepting writes.

## Action items

- Alert when the broker disk passes eighty percent.
- Rotate the broker logs every day.
- Move the broker data to a larger volume.
"""


def _reviewed_record(tmp_path, monkeypatch):
    """Record IL-0001 of ``r.md`` (ACTIONS, run from ``tmp_path``) with its draft accepted whole:
    the CliRunner, the convert command, the record's path and its data."""
    import yaml

    monkeypatch.chdir(tmp_path)
    (tmp_path / "r.md").write_text(ACTIONS, encoding="utf-8")
    runner = CliRunner()
    convert = ["convert", "r.md", "-o", "lib", "--rules-only", "-j", "1"]
    assert runner.invoke(main, convert).exit_code == 0
    assert runner.invoke(main, ["review", "lib", "--drafts", "--accept-all"]).exit_code == 0
    record = tmp_path / "lib" / "IL-0001.yaml"
    card = yaml.safe_load(record.read_text(encoding="utf-8"))
    return runner, convert, record, card


def test_an_amended_source_offers_only_pmparse_change_never_a_persons_edit_undone(tmp_path, monkeypatch):
    import json

    import yaml

    runner, convert, record, card = _reviewed_record(tmp_path, monkeypatch)
    assert [i["text"] for i in card["action_items"]] == [
        "Alert when the broker disk passes eighty percent.", "Rotate the broker logs every day.",
        "Move the broker data to a larger volume."]
    # the curator rewords the first action item and deletes the second
    card["action_items"][:2] = [{"text": "Page the on-call engineer when the broker disk is nearly full.",
                                 "evidence": [], "confidence": 1.0, "origin": "person"}]
    record.write_text(yaml.safe_dump(card, sort_keys=False, allow_unicode=True), encoding="utf-8")
    # then the team amends the report: a line above (every offset moves) and a new action item
    (tmp_path / "r.md").write_text(ACTIONS.replace("broker\n\n", "broker\n\nUpdated on the second day.\n\n", 1)
                                   + "- Add a second broker in another zone.\n", encoding="utf-8")
    assert "1 pending review" in runner.invoke(main, convert).output
    shown = runner.invoke(main, ["diff", "lib", "--format", "json"])
    assert shown.exit_code == 1, shown.output
    changes = {c["field"]: c for d in json.loads(shown.output)["records"] for c in d["changes"]}
    # pmparse's change alone: the new item, not the reworded one in pmparse's words nor the deleted one
    assert [(i["kind"], i["item"]) for i in changes["action_items"]["items"]] == [
        ("add", "Add a second broker in another zone.")], changes["action_items"]
    result = runner.invoke(main, ["review", "lib", "--accept", "action_items"])
    assert result.exit_code == 0, result.output
    items = yaml.safe_load(record.read_text(encoding="utf-8"))["action_items"]
    assert [i["text"] for i in items] == ["Page the on-call engineer when the broker disk is nearly full.",
                                          "Move the broker data to a larger volume.",
                                          "Add a second broker in another zone."]
    assert items[0]["origin"] == "person" and items[0]["evidence"] == []
    # the record follows the new text: every kept item's evidence says its words there
    assert runner.invoke(main, ["validate", "lib"]).exit_code == 0
    text = (tmp_path / "r.md").read_text(encoding="utf-8")
    assert [text[i["evidence"][0]["start"]:i["evidence"][0]["end"]] for i in items[1:]] == [
        i["text"] for i in items[1:]]
    # and a later run proposes nothing again
    assert "0 pending review" in runner.invoke(main, convert + ["--force"]).output


def _reviewed_with_a_suggestion_waiting(tmp_path, monkeypatch):
    """A reviewed record IL-0001 of ``pm/r.md`` (run from ``tmp_path``) whose amended source left
    a suggestion pending: the CliRunner, the convert command and the record's path."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pm").mkdir()
    (tmp_path / "pm" / "r.md").write_text(ACTIONS, encoding="utf-8")
    runner = CliRunner()
    convert = ["convert", "pm", "-o", "lib", "--rules-only", "-j", "1"]
    assert runner.invoke(main, convert).exit_code == 0
    record = tmp_path / "lib" / "IL-0001.yaml"
    record.write_text(record.read_text(encoding="utf-8").replace("status: suggested", "status: reviewed"),
                      encoding="utf-8")
    with open(tmp_path / "pm" / "r.md", "a", encoding="utf-8") as out:
        out.write("- Add a second broker in another zone.\n")
    assert "1 pending review" in runner.invoke(main, convert).output
    return runner, convert, record


def test_a_deleted_record_leaves_no_suggestion_waiting_and_comes_back_a_fresh_draft(tmp_path, monkeypatch):
    runner, convert, record = _reviewed_with_a_suggestion_waiting(tmp_path, monkeypatch)
    # the curator decides the incident leaves the library: no record is left to repair
    record.unlink()
    for args in (["diff", "lib"], ["review", "lib", "--accept-all"]):
        result = runner.invoke(main, args)
        assert result.exit_code == 0, (args, result.output)
        assert "repaired" not in result.output and "found none" not in result.output, result.output
    assert not (tmp_path / "lib" / ".pmparse" / "pending" / "IL-0001.json").exists()
    # converted again, the source's record is a fresh draft under the same id, for review --drafts
    again = runner.invoke(main, convert)
    assert "1 converted" in again.output and record.exists(), again.output
    drafts = runner.invoke(main, ["review", "lib", "--drafts", "--record", "IL-0001", "--accept", "title"])
    assert drafts.exit_code == 0, drafts.output
    assert "status: suggested" in record.read_text(encoding="utf-8")


def test_a_record_deleted_with_its_suggestion_waiting_and_converted_again_is_a_draft(tmp_path, monkeypatch):
    runner, convert, record = _reviewed_with_a_suggestion_waiting(tmp_path, monkeypatch)
    record.unlink()
    # no diff or review in between: the next convert makes the fresh draft at once
    assert "1 converted" in runner.invoke(main, convert).output
    assert not (tmp_path / "lib" / ".pmparse" / "pending" / "IL-0001.json").exists()
    drafts = runner.invoke(main, ["review", "lib", "--drafts", "--record", "IL-0001", "--accept", "title"])
    assert drafts.exit_code == 0, drafts.output


def test_a_field_a_person_edited_that_a_new_model_only_rescored_is_kept_not_unchanged(tmp_path):
    from pmparse.library.store import Library
    from pmparse.review.pending import pending_diffs
    from tests.helpers import text_card

    text = "The broker disk filled up. Writes were refused for an hour. Nobody was paged."
    lib = tmp_path / "lib"
    library = Library.open(lib)
    library.write(text_card("IL-0001", text, root_cause=[(0, 26, 0.8), (27, 58, 0.6)]), "yaml")
    record = lib / "IL-0001.yaml"
    edited = record.read_text(encoding="utf-8").replace(
        "- text: The broker disk filled up.\n  evidence: [{start: 0, end: 26}]\n  confidence: 0.8\n",
        "- text: The broker's data disk filled up.\n  evidence: []\n  confidence: 1.0\n  origin: person\n")
    assert edited != record.read_text(encoding="utf-8")
    record.write_text(edited, encoding="utf-8")
    # a retrained model reads the same items of the same text with other confidences
    library.write_state("pending", text_card("IL-0001", text, root_cause=[(0, 26, 0.7), (27, 58, 0.5)]))
    diff = pending_diffs(lib).diffs[0]
    assert diff.changes == [] and "root_cause" in diff.kept and "root_cause" not in diff.unchanged


def test_validate_names_the_line_of_an_item_edited_by_hand_under_the_models_evidence(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "r.md").write_text(ACTIONS, encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(main, ["convert", "r.md", "-o", "lib", "--rules-only", "-j", "1"]).exit_code == 0
    record = tmp_path / "lib" / "IL-0001.yaml"
    text = record.read_text(encoding="utf-8")
    assert text.count("- text: Rotate the broker logs every day.\n") == 1
    record.write_text(text.replace("- text: Rotate the broker logs every day.\n",
                                   "- text: Rotate and compress the broker logs hourly.\n"), encoding="utf-8")
    line = text.splitlines().index("- text: Rotate the broker logs every day.") + 2  # its evidence, from 1
    result = runner.invoke(main, ["validate", "lib"])
    assert result.exit_code == 1
    # 'file:line: field: reason' (docs/cli.md, "the line where known"): the curator goes there
    assert f"IL-0001.yaml:{line}: action_items[2]: evidence " in result.output, result.output


def test_a_tag_a_person_added_is_not_offered_away_when_pmparse_adds_others(tmp_path, monkeypatch):
    import json

    import yaml

    runner, convert, record, card = _reviewed_record(tmp_path, monkeypatch)
    before = card["components"]
    assert before and "block_storage" not in before
    card["components"] = before + ["block_storage"]  # the curator's own tag
    record.write_text(yaml.safe_dump(card, sort_keys=False, allow_unicode=True), encoding="utf-8")
    with open(tmp_path / "r.md", "a", encoding="utf-8") as out:
        out.write("\nThe DNS resolver for the broker hosts also timed out, so the database replicas lost "
                  "their connection.\n")
    assert "1 pending review" in runner.invoke(main, convert).output
    changes = {c["field"]: c for d in json.loads(runner.invoke(main, ["diff", "lib", "--format", "json"]).output)
               ["records"] for c in d["changes"]}
    offered = changes["components"]["suggestion"]
    added = [tag for tag in offered if tag not in before + ["block_storage"]]
    assert added and "block_storage" in offered, changes["components"]
    assert runner.invoke(main, ["review", "lib", "--accept", "components"]).exit_code == 0
    after = yaml.safe_load(record.read_text(encoding="utf-8"))
    assert after["components"] == before + ["block_storage"] + added
    assert {key for key in after["support"] if key.startswith("components.")} <= {
        f"components.{tag}" for tag in after["components"]}
    assert runner.invoke(main, ["validate", "lib"]).exit_code == 0


def test_a_persons_edit_survives_an_amended_source_after_a_review_left_a_field_pending(tmp_path):
    from pmparse.library.store import Library
    from pmparse.review.pending import pending_diffs
    from pmparse.review.session import review
    from tests.helpers import text_card

    # a review that decides some fields and leaves one pending gives the base the new text while
    # the record stays on the old one: the next amendment must still merge, not offer the field whole
    first = "Disk full. Add an alert on disk use. Rotate logs daily. Move data to a larger volume."
    second = "Updated later. " + first
    third = second + " Add a second broker."
    items = ("Add an alert on disk use.", "Rotate logs daily.", "Move data to a larger volume.")

    def spans(text, *parts):
        return [(text.index(p), text.index(p) + len(p), 0.9) for p in parts]

    lib = tmp_path / "lib"
    library = Library.open(lib)
    base = text_card("IL-0001", first, title="Disk full", action_items=spans(first, *items),
                     root_cause=spans(first, "Disk full."))
    library.write(base, "yaml")
    library.write_state("base", base)
    record = lib / "IL-0001.yaml"
    text = record.read_text(encoding="utf-8")
    reworded = text.replace("- text: Rotate logs daily.\n", "- text: Rotate and compress logs hourly.\n"
                            "  origin: person\n", 1)
    assert reworded != text
    record.write_text(reworded, encoding="utf-8")
    library.write_state("pending", text_card("IL-0001", second, title="Disk full on the broker",
                                             action_items=spans(second, *items, "Updated later."),
                                             root_cause=spans(second, "Disk full.")))
    review(lib, reject=["action_items"], reviewer="curator")  # the title stays pending
    # the rejected field is not asked again, nor turned into a drop of the items the person kept
    waiting = pending_diffs(lib).diffs[0]
    assert [c.field for c in waiting.changes] == ["title"], [(c.field, c.suggestion) for c in waiting.changes]
    library = Library.open(lib)
    assert library.read_state("base", "IL-0001").source.sha256 != Library.open(lib).entries["IL-0001"].sha256
    library.write_state("pending", text_card("IL-0001", third, title="Disk full on the broker",
                                             action_items=spans(third, *items, "Add a second broker.")))
    changes = {c.field: c for c in pending_diffs(lib).diffs[0].changes}
    # pmparse's change alone: its new item, never the person's reworded item in pmparse's words
    assert [i["text"] for i in changes["action_items"].suggestion] == [
        "Add an alert on disk use.", "Rotate and compress logs hourly.", "Move data to a larger volume.",
        "Add a second broker."], changes["action_items"].suggestion
    # a field the person left as pmparse wrote it still takes pmparse's drop
    assert changes["root_cause"].suggestion == []


def _converted_from_the_parent_then_amended(tmp_path, monkeypatch) -> CliRunner:
    """``pm/queue.md`` converted into ``lib`` from ``tmp_path``, then amended."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pm").mkdir()
    (tmp_path / "pm" / "queue.md").write_text(REPORT, encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(main, ["convert", "pm", "-o", "lib", "--rules-only", "-j", "1"]).exit_code == 0
    with open(tmp_path / "pm" / "queue.md", "a", encoding="utf-8") as out:
        out.write("\nWe now alert on broker disk use.\n")
    return runner


def test_a_record_read_from_another_folder_is_not_called_gone_beside_its_namesake_warning(tmp_path, monkeypatch):
    runner = _converted_from_the_parent_then_amended(tmp_path, monkeypatch)
    # a library written before it recorded its anchor (the folder its relative names are read from)
    (tmp_path / "lib" / ".pmparse" / "anchor.json").unlink()
    # run from inside the folder, the relative name the record holds is not found from here: the
    # warning says to run from the first folder and delete the new record; a note that the first
    # record's source is gone ("delete the record") told the curator to delete the reviewed one
    monkeypatch.chdir(tmp_path / "pm")
    result = runner.invoke(main, ["convert", ".", "-o", "../lib", "--rules-only", "-j", "1"])
    assert result.exit_code == 0, result.output
    assert "IL-0001 was read from 'pm/queue.md'" in result.output, result.output
    assert "source is gone" not in result.output, result.output


def test_a_record_read_by_a_relative_name_is_found_again_from_inside_its_folder(tmp_path, monkeypatch):
    # the library records the folder its relative names are read from: converted from inside the
    # folder, the amended file is the record's source, with no warning and no second record
    runner = _converted_from_the_parent_then_amended(tmp_path, monkeypatch)
    monkeypatch.chdir(tmp_path / "pm")
    result = runner.invoke(main, ["convert", ".", "-o", "../lib", "--rules-only", "-j", "1"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == ["0 converted, 1 updated, 0 unchanged, 0 pending review, 0 failed"]
    assert sorted(p.name for p in (tmp_path / "lib").glob("IL-*")) == ["IL-0001.yaml"]


def test_an_entry_gone_from_a_log_in_a_converted_folder_is_named_and_its_record_kept(tmp_path, monkeypatch):
    from tests.nlp.incident_logs import LOG

    monkeypatch.chdir(tmp_path)
    (tmp_path / "pm").mkdir()
    (tmp_path / "pm" / "log.md").write_text(LOG, encoding="utf-8")
    runner = CliRunner()
    args = ["convert", "pm", "-o", "lib", "--rules-only", "-j", "1"]
    assert "3 converted" in runner.invoke(main, args).output
    old = next(p for p in (tmp_path / "lib").glob("IL-*.yaml") if "Dashboards blank" in p.read_text(encoding="utf-8"))
    location = next(line.split(": ", 1)[1] for line in old.read_text(encoding="utf-8").splitlines()
                    if line.strip().startswith("location: "))
    assert location.startswith("pm/log.md#entry-")
    kept = old.read_bytes()
    # the entry's heading reworded: its key is new, so it gets a record of its own, the old one orphaned
    (tmp_path / "pm" / "log.md").write_text(LOG.replace("Dashboards blank", "Dashboards went blank"), encoding="utf-8")
    result = runner.invoke(main, args)
    assert result.exit_code == 0 and "1 converted" in result.output, result.output
    notes = [line for line in result.output.splitlines() if line.startswith("note: ")]
    assert len(notes) == 1 and f"{old.stem} ({location})" in notes[0] and "source is gone" in notes[0], result.output
    assert old.read_bytes() == kept
    # said again until the curator acts (the orphan's text is not the log's: the log is read again)
    assert f"{old.stem} ({location})" in runner.invoke(main, args).output
