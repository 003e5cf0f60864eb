"""Two curators' new records merged by git into one id, kept apart (pmparse.merge.resolve).

The merged files are written here as git writes an add/add conflict of two files with no line in
common (one conflict holding each whole file); tests/cli/test_resolve.py runs git itself.
"""

from __future__ import annotations

import errno
import json

import pytest

from pmparse.errors import WriteError
from pmparse.merge import journal as journal_module
from pmparse.merge.resolve import resolve_library
from pmparse.library.shared import unfinished_merges
from pmparse.library.store import Library
from pmparse.library.validate import validate_library
from tests.curators import KILN, PUMP
from tests.merge.sides import conflict as _conflict, curator as _curator, merge_as_git as _merge


def _files(lib) -> dict:
    return {str(p.relative_to(lib)): p.read_bytes() for p in lib.rglob("*")
            if p.is_file() and p.name not in ("index.json", "lock")}


def test_theirs_becomes_the_next_id_with_its_base_and_rejections(tmp_path, monkeypatch):
    ours = _curator(tmp_path, monkeypatch, "kiln", KILN)
    theirs = _curator(tmp_path, monkeypatch, "pump", PUMP, reject=True)
    theirs_record = (theirs / "lib" / "IL-0001.yaml").read_text(encoding="utf-8")
    theirs_rejected = (theirs / "lib" / ".pmparse" / "rejected" / "IL-0001.json").read_bytes()
    ours_record = (ours / "lib" / "IL-0001.yaml").read_bytes()
    lib = _merge(ours, theirs)
    monkeypatch.chdir(ours)
    report = resolve_library(lib)
    assert [(r.card_id, r.outcome, r.new_id) for r in report.records] == [("IL-0001", "split", "IL-0002")]
    assert report.records[0].message == "IL-0001: kept ours (pm/kiln.md); theirs (pm/pump.md) is now IL-0002"
    assert (lib / "IL-0001.yaml").read_bytes() == ours_record
    # theirs keeps its text but for its id
    assert (lib / "IL-0002.yaml").read_text(encoding="utf-8") == theirs_record.replace("id: IL-0001", "id: IL-0002")
    state = lib / ".pmparse"
    assert json.loads((state / "base" / "IL-0002.json").read_text(encoding="utf-8"))["source"]["location"] == "pm/pump.md"
    assert json.loads((state / "base" / "IL-0001.json").read_text(encoding="utf-8"))["source"]["location"] == "pm/kiln.md"
    # the rejection only theirs made (no conflict: ours had none) goes with theirs, as do its draft decisions
    assert (state / "rejected" / "IL-0002.json").read_bytes() == theirs_rejected
    assert not (state / "rejected" / "IL-0001.json").exists()
    assert (state / "drafts" / "IL-0002.json").is_file() and not (state / "drafts" / "IL-0001.json").exists()
    assert not list((state / "intent").glob("resolve-*"))
    checked, problems = validate_library(lib)
    assert (checked, problems) == (2, [])
    assert unfinished_merges(Library.open(lib)) == []


def test_json_records_and_a_rejection_of_ours_stay_where_they_are(tmp_path, monkeypatch):
    ours = _curator(tmp_path, monkeypatch, "kiln", KILN, fmt="json", reject=True)
    theirs = _curator(tmp_path, monkeypatch, "pump", PUMP, fmt="json")
    ours_rejected = (ours / "lib" / ".pmparse" / "rejected" / "IL-0001.json").read_bytes()
    lib = _merge(ours, theirs)
    monkeypatch.chdir(ours)
    assert [r.outcome for r in resolve_library(lib).records] == ["split"]
    assert json.loads((lib / "IL-0002.json").read_text(encoding="utf-8"))["id"] == "IL-0002"
    assert (lib / ".pmparse" / "rejected" / "IL-0001.json").read_bytes() == ours_rejected
    assert not (lib / ".pmparse" / "rejected" / "IL-0002.json").exists()
    assert validate_library(lib) == (2, [])


def test_rejections_both_curators_made_are_each_kept_with_their_record(tmp_path, monkeypatch):
    ours = _curator(tmp_path, monkeypatch, "kiln", KILN, reject=True)
    theirs = _curator(tmp_path, monkeypatch, "pump", PUMP, reject=True)
    memories = [json.loads((home / "lib/.pmparse/rejected/IL-0001.json").read_text(encoding="utf-8"))
                for home in (ours, theirs)]
    lib = _merge(ours, theirs)
    monkeypatch.chdir(ours)
    assert [r.new_id for r in resolve_library(lib).records] == ["IL-0002"]
    kept = [json.loads((lib / f".pmparse/rejected/{card_id}.json").read_text(encoding="utf-8"))
            for card_id in ("IL-0001", "IL-0002")]
    assert kept == memories and memories[0] != memories[1]


def test_two_sides_of_one_source_are_left_for_a_person(tmp_path, monkeypatch):
    ours = _curator(tmp_path, monkeypatch, "kiln", KILN)
    theirs = _curator(tmp_path, monkeypatch, "kiln2", KILN)
    # the same file converted in both checkouts, one record edited by hand
    (theirs / "pm" / "kiln2.md").rename(theirs / "pm" / "kiln.md")
    record = theirs / "lib" / "IL-0001.yaml"
    record.write_text(record.read_text(encoding="utf-8").replace("pm/kiln2.md", "pm/kiln.md")
                      .replace("title: Kiln overheated", "title: Kiln ran hot"), encoding="utf-8")
    lib = _merge(ours, theirs)
    before = _files(lib)
    report = resolve_library(lib)
    assert [(r.outcome, r.new_id) for r in report.records] == [("same source", None)]
    assert "one source (pm/kiln.md)" in report.records[0].message
    assert _files(lib) == before


def test_one_text_at_two_paths_is_left_for_a_person_naming_both_paths(tmp_path, monkeypatch):
    ours = _curator(tmp_path, monkeypatch, "kiln", KILN)
    theirs = _curator(tmp_path, monkeypatch, "oven", KILN)  # the same report, saved under another name
    lib = _merge(ours, theirs)
    before = _files(lib)
    report = resolve_library(lib)
    assert [r.outcome for r in report.records] == ["same source"]
    assert report.records[0].message == (
        "IL-0001: both sides are records of one source (the same text at pm/kiln.md and pm/oven.md): keep one "
        "side of each conflict, or both edits, by hand (nothing changed)")
    assert _files(lib) == before


def _killed(monkeypatch, lib, *, last_step: bool) -> None:
    """One ``resolve`` run killed after its journal's steps were applied, all of them or all but
    the last (``last_step``)."""
    real = journal_module._apply

    def dies(root, steps):
        real(root, steps if last_step else steps[:-1])
        raise KeyboardInterrupt

    monkeypatch.setattr(journal_module, "_apply", dies)
    with pytest.raises(KeyboardInterrupt):
        resolve_library(lib)
    monkeypatch.setattr(journal_module, "_apply", real)


def _two_formats(tmp_path, monkeypatch):
    """Ours converted a file as YAML, theirs another as JSON, both under IL-0001: git merges the two
    record files without markers, and their bases (and other state files) into one conflict."""
    ours = _curator(tmp_path, monkeypatch, "kiln", KILN)
    theirs = _curator(tmp_path, monkeypatch, "pump", PUMP, fmt="json", reject=True)
    lib = _merge(ours, theirs)
    monkeypatch.chdir(ours)
    return lib


def test_a_run_killed_before_a_record_of_another_format_is_removed_is_finished_by_the_next(tmp_path, monkeypatch):
    lib = _two_formats(tmp_path, monkeypatch)
    _killed(monkeypatch, lib, last_step=False)  # dies at the last step
    assert (lib / "IL-0001.json").is_file()
    report = resolve_library(lib)
    assert [(r.outcome, r.new_id, r.message) for r in report.records] == [
        ("split", "IL-0002", "IL-0001: kept IL-0001.yaml (pm/kiln.md); IL-0001.json (pm/pump.md) is now IL-0002.json")]
    assert sorted(p.name for p in lib.glob("IL-*")) == ["IL-0001.yaml", "IL-0002.json"]
    assert (lib / ".pmparse" / "rejected" / "IL-0002.json").is_file()
    assert not list((lib / ".pmparse" / "intent").glob("resolve-*"))
    assert validate_library(lib) == (2, [])


def test_a_run_killed_after_removing_a_record_of_another_format_is_reported_by_the_next(tmp_path, monkeypatch):
    lib = _two_formats(tmp_path, monkeypatch)
    _killed(monkeypatch, lib, last_step=True)  # dies before the journal is removed
    assert [(r.outcome, r.new_id) for r in resolve_library(lib).records] == [("split", "IL-0002")]
    assert not list((lib / ".pmparse" / "intent").glob("resolve-*"))
    assert validate_library(lib) == (2, [])


def test_a_base_of_neither_record_file_is_refused_and_nothing_changes(tmp_path, monkeypatch):
    lib = _two_formats(tmp_path, monkeypatch)
    base = lib / ".pmparse" / "base" / "IL-0001.json"
    # the first side's base names a source neither record is of: whose is which cannot be told
    text = base.read_text(encoding="utf-8")
    ours = text[text.index("<<<<<<< HEAD\n") + 13:text.index("=======\n")]
    stray = json.loads(ours)
    stray["source"] = {**stray["source"], "location": "pm/elsewhere.md", "sha256": "0" * 64}
    base.write_text(text.replace(ours, json.dumps(stray, indent=2) + "\n"), encoding="utf-8")
    before = _files(lib)
    report = resolve_library(lib)
    assert [r.outcome for r in report.records] == ["refused"]
    assert "found the base of pm/kiln.md of another" in report.records[0].message
    assert str(base) in report.records[0].message
    assert _files(lib) == before


def test_a_side_that_is_no_record_is_refused_and_nothing_changes(tmp_path, monkeypatch):
    ours = _curator(tmp_path, monkeypatch, "kiln", KILN)
    theirs = _curator(tmp_path, monkeypatch, "pump", PUMP)
    record = theirs / "lib" / "IL-0001.yaml"
    record.write_text(record.read_text(encoding="utf-8").replace("status: suggested", "status: [maybe"),
                      encoding="utf-8")
    lib = _merge(ours, theirs)
    before = _files(lib)
    report = resolve_library(lib)
    assert [r.outcome for r in report.records] == ["refused"]
    assert "second (theirs) side invalid" in report.records[0].message
    assert _files(lib) == before


def test_a_base_side_that_is_no_card_is_refused_naming_the_base(tmp_path, monkeypatch):
    ours = _curator(tmp_path, monkeypatch, "kiln", KILN)
    theirs = _curator(tmp_path, monkeypatch, "pump", PUMP)
    base = theirs / "lib" / ".pmparse" / "base" / "IL-0001.json"
    base.write_text(base.read_text(encoding="utf-8").replace('"status": "suggested"', '"status": "maybe"'),
                    encoding="utf-8")
    lib = _merge(ours, theirs)
    before = _files(lib)
    report = resolve_library(lib)
    assert [r.outcome for r in report.records] == ["refused"]
    assert str(lib / ".pmparse" / "base" / "IL-0001.json") in report.records[0].message
    assert _files(lib) == before


def test_a_run_killed_before_the_record_is_written_is_finished_by_the_next(tmp_path, monkeypatch):
    ours = _curator(tmp_path, monkeypatch, "kiln", KILN)
    theirs = _curator(tmp_path, monkeypatch, "pump", PUMP, reject=True)
    lib = _merge(ours, theirs)
    conflicted = (lib / "IL-0001.yaml").read_bytes()
    real = journal_module.atomic_write

    def dies_at_the_record(path, text):
        if path.name == "IL-0001.yaml":
            raise KeyboardInterrupt
        real(path, text)

    monkeypatch.setattr(journal_module, "atomic_write", dies_at_the_record)
    with pytest.raises(KeyboardInterrupt):
        resolve_library(lib)
    # the record is still the conflicted one: convert and review still refuse to run
    assert (lib / "IL-0001.yaml").read_bytes() == conflicted
    assert unfinished_merges(Library.open(lib))
    monkeypatch.setattr(journal_module, "atomic_write", real)
    report = resolve_library(lib)
    # the journal was finished first: theirs is IL-0002 once, not again as IL-0003, and the run
    # says so (the curator whose run was killed never saw the new id)
    assert [(r.card_id, r.outcome, r.new_id, r.message) for r in report.records] == [
        ("IL-0001", "split", "IL-0002", "IL-0001: kept ours (pm/kiln.md); theirs (pm/pump.md) is now IL-0002")]
    assert sorted(p.name for p in lib.glob("IL-*")) == ["IL-0001.yaml", "IL-0002.yaml"]
    assert (lib / ".pmparse" / "rejected" / "IL-0002.json").is_file()
    assert validate_library(lib) == (2, [])


def _disk_full_at_the_record(monkeypatch):
    """resolve's writes fail with a full disk at the conflicted record (the last it writes); the
    real writer is returned, to put back."""
    real = journal_module.atomic_write

    def full_at_the_record(path, text):
        if path.name == "IL-0001.yaml":
            raise OSError(errno.ENOSPC, "No space left on device")
        real(path, text)

    monkeypatch.setattr(journal_module, "atomic_write", full_at_the_record)
    return real


def test_a_full_disk_is_a_write_error_naming_the_library_and_the_next_run_finishes(tmp_path, monkeypatch):
    ours = _curator(tmp_path, monkeypatch, "kiln", KILN)
    theirs = _curator(tmp_path, monkeypatch, "pump", PUMP)
    lib = _merge(ours, theirs)
    conflicted = (lib / "IL-0001.yaml").read_bytes()
    real = _disk_full_at_the_record(monkeypatch)
    with pytest.raises(WriteError) as caught:
        resolve_library(lib)
    assert "no space left on device" in str(caught.value) and str(lib) in str(caught.value)
    assert (lib / "IL-0001.yaml").read_bytes() == conflicted
    monkeypatch.setattr(journal_module, "atomic_write", real)
    assert [r.new_id for r in resolve_library(lib).records] == ["IL-0002"]
    assert validate_library(lib) == (2, [])


def test_the_new_id_passes_over_state_a_deleted_record_left(tmp_path, monkeypatch):
    ours = _curator(tmp_path, monkeypatch, "kiln", KILN)
    theirs = _curator(tmp_path, monkeypatch, "pump", PUMP)
    lib = _merge(ours, theirs)
    leftover = lib / ".pmparse" / "rejected" / "IL-0002.json"
    leftover.parent.mkdir(exist_ok=True)
    leftover.write_text('{"version": 1, "rejected": []}\n', encoding="utf-8")
    assert [r.new_id for r in resolve_library(lib).records] == ["IL-0003"]
    assert leftover.read_text(encoding="utf-8") == '{"version": 1, "rejected": []}\n'


def test_a_state_file_conflicted_under_a_record_that_is_not_is_named(tmp_path, monkeypatch):
    home = _curator(tmp_path, monkeypatch, "kiln", KILN)
    base = home / "lib" / ".pmparse" / "base" / "IL-0001.json"
    text = base.read_text(encoding="utf-8")
    base.write_text(_conflict(text, text.replace('"suggested"', '"reviewed"')), encoding="utf-8")
    report = resolve_library(home / "lib")
    assert report.records == [] and report.unsettled == [".pmparse/base/IL-0001.json"]


def test_rejections_both_sides_added_to_a_settled_record_are_all_kept(tmp_path, monkeypatch):
    home = _curator(tmp_path, monkeypatch, "kiln", KILN, reject=True)
    memory = home / "lib" / ".pmparse" / "rejected" / "IL-0001.json"
    ours = json.loads(memory.read_text(encoding="utf-8"))
    theirs = {**ours, "rejected": [{**ours["rejected"][0], "field": "title", "by": "other"}]}
    # each curator turned down a field of the same record: git leaves their memories in one conflict
    memory.write_text(_conflict(json.dumps(ours, indent=2) + "\n", json.dumps(theirs, indent=2) + "\n"),
                      encoding="utf-8")
    report = resolve_library(home / "lib")
    assert report.unsettled == [] and report.records == []
    assert report.merged == ["IL-0001: rejections of both sides kept (.pmparse/rejected/IL-0001.json)"]
    assert json.loads(memory.read_text(encoding="utf-8"))["rejected"] == ours["rejected"] + theirs["rejected"]
    assert unfinished_merges(Library.open(home / "lib")) == []


def test_a_journal_that_cannot_be_finished_is_kept_and_theirs_is_not_made_twice(tmp_path, monkeypatch):
    ours = _curator(tmp_path, monkeypatch, "kiln", KILN)
    theirs = _curator(tmp_path, monkeypatch, "pump", PUMP)
    lib = _merge(ours, theirs)
    real = _disk_full_at_the_record(monkeypatch)
    for _ in range(2):  # the disk is still full when the curator runs it again
        with pytest.raises(WriteError):
            resolve_library(lib)
    assert list((lib / ".pmparse" / "intent").glob("resolve-*"))
    monkeypatch.setattr(journal_module, "atomic_write", real)
    assert [r.new_id for r in resolve_library(lib).records] == ["IL-0002"]
    assert sorted(p.name for p in lib.glob("IL-*")) == ["IL-0001.yaml", "IL-0002.yaml"]
    assert validate_library(lib) == (2, [])


def test_a_run_killed_after_its_last_write_is_reported_by_the_next(tmp_path, monkeypatch):
    ours = _curator(tmp_path, monkeypatch, "kiln", KILN)
    theirs = _curator(tmp_path, monkeypatch, "pump", PUMP)
    lib = _merge(ours, theirs)
    _killed(monkeypatch, lib, last_step=True)  # dies before the journal is removed
    report = resolve_library(lib)
    assert [(r.outcome, r.new_id) for r in report.records] == [("split", "IL-0002")]
    assert not list((lib / ".pmparse" / "intent").glob("resolve-*"))


def test_a_run_killed_before_a_finished_draft_loses_its_decisions_file_is_finished_by_the_next(tmp_path, monkeypatch):
    from pathlib import Path

    from pmparse.review.anchor import REVIEW_FIELDS

    lib = _curator(tmp_path, monkeypatch, "kiln", KILN) / "lib"
    base = json.loads((lib / ".pmparse" / "base" / "IL-0001.json").read_text(encoding="utf-8"))
    fields = [name for name in REVIEW_FIELDS if base[name] not in (None, [])]
    assert "title" in fields and len(fields) > 1

    def decisions(names, by):
        return json.dumps({"version": 1, "sha256": base["source"]["sha256"], "decided": {
            name: {"decision": "kept", "by": by, "at": "2026-12-01T10:00:00+00:00"} for name in names}}) + "\n"

    # one curator kept the title, the other every other field: git merged their decisions' files
    drafts = lib / ".pmparse" / "drafts" / "IL-0001.json"
    drafts.parent.mkdir()
    others = [name for name in fields if name != "title"]
    drafts.write_text(_conflict(decisions(["title"], "ann"), decisions(others, "bo")), encoding="utf-8")
    real = Path.unlink

    def dies_at_the_drafts_file(self, *args, **kwargs):
        if self == drafts:
            raise KeyboardInterrupt
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "unlink", dies_at_the_drafts_file)
    with pytest.raises(KeyboardInterrupt):
        resolve_library(lib)
    monkeypatch.setattr(Path, "unlink", real)
    # the record is marked first; its decisions' file, still conflicted, is the next run's to finish
    assert "status: reviewed" in (lib / "IL-0001.yaml").read_text(encoding="utf-8")
    assert "<<<<<<<" in drafts.read_text(encoding="utf-8")
    report = resolve_library(lib)
    assert report.merged == ["IL-0001: draft decisions of both sides kept, every field decided: marked reviewed, "
                             ".pmparse/drafts/IL-0001.json removed"]  # no git: nothing to stage
    assert not drafts.exists() and report.notes == [] and report.unsettled == []
    record = (lib / "IL-0001.yaml").read_text(encoding="utf-8")
    assert "status: reviewed" in record and "at: '2026-12-01T10:00:00+00:00'" in record, record
    assert validate_library(lib) == (1, [])


def test_a_split_begun_by_a_killed_run_whose_record_was_edited_since_is_not_made_twice(tmp_path, monkeypatch):
    lib = _two_formats(tmp_path, monkeypatch)
    _killed(monkeypatch, lib, last_step=False)  # dies after theirs is written
    assert (lib / "IL-0002.json").is_file()
    # the curator corrects the record of another format, a plain record, before running resolve again
    theirs = lib / "IL-0001.json"
    theirs.write_text(theirs.read_text(encoding="utf-8").replace("Pump stalled", "Pump stalled twice"),
                      encoding="utf-8")
    before = _files(lib)
    report = resolve_library(lib)
    assert [(r.card_id, r.outcome) for r in report.records] == [("IL-0001", "refused")]
    assert "IL-0002.json" in report.records[0].message and "IL-0001.json" in report.records[0].message
    assert _files(lib) == before  # not split again: the pump incident is not made a third record
    assert "carry the change into IL-0002.json and remove IL-0001.json" in report.records[0].message
    # as told: theirs' state files went with the begun split, and the next run finishes it
    moved = lib / "IL-0002.json"
    moved.write_text(moved.read_text(encoding="utf-8").replace("Pump stalled", "Pump stalled twice"),
                     encoding="utf-8")
    theirs.unlink()
    report = resolve_library(lib)
    assert [(r.outcome, r.new_id) for r in report.records] == [("split", "IL-0002")]
    assert sorted(p.name for p in lib.glob("IL-*")) == ["IL-0001.yaml", "IL-0002.json"]
    assert (lib / ".pmparse" / "rejected" / "IL-0002.json").is_file()
    assert validate_library(lib) == (2, [])


def test_a_begun_split_whose_conflicted_record_was_edited_but_not_settled_is_not_made_twice(tmp_path, monkeypatch):
    ours = _curator(tmp_path, monkeypatch, "kiln", KILN)
    theirs = _curator(tmp_path, monkeypatch, "pump", PUMP)
    lib = _merge(ours, theirs)
    _killed(monkeypatch, lib, last_step=False)  # dies before the record
    record = lib / "IL-0001.yaml"
    record.write_text(record.read_text(encoding="utf-8").replace("Kiln overheated", "Kiln overheated again"),
                      encoding="utf-8")  # an edit inside the conflict, its markers kept
    before = _files(lib)
    report = resolve_library(lib)
    assert [(r.outcome, r.message) for r in report.records] == [("refused", (
        "IL-0001: a stopped resolve began to split it and wrote theirs as IL-0002.yaml, but IL-0001.yaml changed "
        "since: keep ours in IL-0001.yaml by hand, theirs being IL-0002.yaml"))]
    assert _files(lib) == before and not (lib / "IL-0003.yaml").exists()
