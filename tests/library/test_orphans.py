"""State files that belong to no record (pmparse.library.orphans): named always, moved to a record
only where the rename is proven."""

from __future__ import annotations

import shutil

from pmparse.library.orphans import follow_renames, stray_states
from pmparse.library.store import Library
from tests.renamed_ids import library_of_three as _library
from tests.renamed_ids import ok as _ok
from tests.renamed_ids import rename as _rename


def test_a_deleted_record_s_state_is_named_with_no_record_to_follow(tmp_path, monkeypatch):
    lib = _library(tmp_path, monkeypatch)
    (lib / "IL-0002.yaml").unlink()
    library = Library.open(lib)
    (stray,) = stray_states(library)
    assert stray.card_id == "IL-0002" and stray.heir is None and stray.files == (".pmparse/base/IL-0002.json",)
    assert "remove them if the record was deleted" in str(stray)
    assert follow_renames(library) == [] and (lib / ".pmparse/base/IL-0002.json").exists()


def test_a_file_renamed_without_its_id_line_is_no_proven_rename(tmp_path, monkeypatch):
    lib = _library(tmp_path, monkeypatch)
    (lib / "IL-0001.yaml").rename(lib / "IL-0009.yaml")  # invalid: its id says IL-0001
    library = Library.open(lib)
    assert [(s.card_id, s.heir) for s in stray_states(library)] == [("IL-0001", None)]
    assert follow_renames(library) == []


def test_a_record_two_ids_state_names_is_no_proven_rename(tmp_path, monkeypatch):
    lib = _library(tmp_path, monkeypatch)
    base = lib / ".pmparse" / "base"
    shutil.copyfile(base / "IL-0001.json", base / "IL-0007.json")  # a second id naming the same text
    _rename(lib, "IL-0001", "IL-0009")
    library = Library.open(lib)
    assert sorted((s.card_id, s.heir) for s in stray_states(library)) == [("IL-0001", None), ("IL-0007", None)]
    assert follow_renames(library) == []


def test_a_renamed_record_with_state_of_its_own_is_left_and_named(tmp_path, monkeypatch):
    lib = _library(tmp_path, monkeypatch)
    _rename(lib, "IL-0001", "IL-0009")
    (lib / ".pmparse" / "rejected").mkdir(exist_ok=True)
    (lib / ".pmparse" / "rejected" / "IL-0009.json").write_text('{"rejected": []}\n', encoding="utf-8")
    library = Library.open(lib)
    assert [(s.card_id, s.heir) for s in stray_states(library)] == [("IL-0001", None)]
    assert follow_renames(library) == [] and (lib / ".pmparse/base/IL-0001.json").exists()


def test_a_deleted_record_s_state_beside_its_source_converted_again_says_to_remove_it(tmp_path, monkeypatch):
    lib = _library(tmp_path, monkeypatch)
    (lib / "IL-0003.yaml").unlink()  # the pump record deleted: its base stays
    _rename(lib, "IL-0002", "IL-0007")  # the highest now: the pump report's new record is IL-0008
    _ok(monkeypatch, tmp_path, "convert", "pm", "-o", "lib", "--rules-only", "-j", "1")
    library = Library.open(lib)
    by_id = {s.card_id: s for s in stray_states(library)}
    assert (lib / "IL-0008.yaml").exists() and by_id["IL-0003"].successor == "IL-0008", by_id
    assert "IL-0008 holds the same source and text with state of its own" in str(by_id["IL-0003"])


def test_validate_writes_nothing_into_a_folder_of_records_without_state(tmp_path, monkeypatch):
    # a folder of record files alone (copied out of a library, a checkout without .pmparse/): a
    # check must leave it as it was, not make .pmparse/ to look for stray state in
    lib = _library(tmp_path, monkeypatch)
    bare = tmp_path / "bare"
    bare.mkdir()
    shutil.copyfile(lib / "IL-0001.yaml", bare / "IL-0001.yaml")
    result = _ok(monkeypatch, tmp_path, "validate", "bare")
    assert "1 records checked, 0 invalid" in result.output
    assert sorted(p.name for p in bare.iterdir()) == ["IL-0001.yaml"]


def test_another_sources_record_under_a_deleted_records_id_takes_none_of_its_decisions(tmp_path, monkeypatch):
    # the highest record deleted by hand after a partial review: the next new record is given its
    # id again, and must start as pmparse's suggestion, not with the deleted record's decisions
    lib = _library(tmp_path, monkeypatch)
    _ok(monkeypatch, tmp_path, "review", "lib", "--drafts", "--record", "IL-0003", "--reviewer", "ann",
        "--reject", "root_cause", "--accept", "title")
    (lib / "IL-0003.yaml").unlink()
    (tmp_path / "pm" / "pump.md").unlink()
    (tmp_path / "pm" / "ferry.md").write_text(
        "# Ferry booking outage\n\n## Root cause\n\nA schema change dropped the seat index and every booking "
        "query scanned the whole table.\n\n## Action items\n\n- Review schema changes against the query plans.\n",
        encoding="utf-8")
    _ok(monkeypatch, tmp_path, "convert", "pm", "-o", "lib", "--rules-only", "-j", "1")
    record = (lib / "IL-0003.yaml").read_text(encoding="utf-8")
    assert "title: Ferry booking outage" in record and "status: suggested" in record
    assert "A schema change dropped the seat index" in record  # the deleted record's rejection is not its
    assert not (lib / ".pmparse" / "drafts" / "IL-0003.json").exists()
    assert not (lib / ".pmparse" / "rejected" / "IL-0003.json").exists()
    assert stray_states(Library.open(lib)) == []
