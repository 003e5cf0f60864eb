"""The library's scan cache and lazy cards: only changed records parsed again, a broken cache ignored,
copied and moved sources."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pmparse.library.store as record_module
from pmparse.card.schema import Source
from pmparse.errors import RecordError
from pmparse.ingest.read import ingest
from pmparse.library.records import dumps
from pmparse.library.store import Library
from tests.library.cards import make_card


# --- the scan cache and lazy cards ------------------------------------------------------------


def _library_of(tmp_path, count: int) -> Library:
    library = Library.open(tmp_path)
    for i in range(1, count + 1):
        card = make_card(f"IL-{i:04d}").model_copy(
            update={"source": Source(location=f"reports/{i}.md", sha256=f"{i:064x}", format="md")})
        library.write(card, "yaml")
    # files written just before the index are not trusted (they could change again within the
    # same clock tick): age them, so the next scan caches them for good
    for path in tmp_path.glob("IL-*.yaml"):
        os.utime(path, ns=(time.time_ns() - 3_600 * 10**9,) * 2)
    return Library.open(tmp_path)


def _count_reads(monkeypatch) -> list:
    reads: list = []
    real = Library.read

    def counting(path):
        reads.append(path.name)
        return real(path)

    monkeypatch.setattr(Library, "read", staticmethod(counting))
    return reads


def test_reopening_a_library_parses_only_the_records_that_changed(tmp_path, monkeypatch):
    _library_of(tmp_path, 5)
    reads = _count_reads(monkeypatch)
    library = Library.open(tmp_path)
    assert reads == [] and sorted(library.entries) == [f"IL-{i:04d}" for i in range(1, 6)]
    assert library.find("3".rjust(64, "0"), "elsewhere").id == "IL-0003"
    edited = tmp_path / "IL-0002.yaml"
    edited.write_text(edited.read_text(encoding="utf-8").replace("Example Org", "Edited Org"), encoding="utf-8")
    (tmp_path / "IL-0005.yaml").unlink()
    library = Library.open(tmp_path)
    assert reads == ["IL-0002.yaml"] and "IL-0005" not in library.entries
    assert library.entries["IL-0002"].card.organisation == "Edited Org"  # parsed at the scan, kept
    assert library.entries["IL-0004"].card.organisation == "Example Org" and reads[-1] == "IL-0004.yaml"


def test_a_broken_or_foreign_scan_cache_is_ignored(tmp_path, monkeypatch):
    _library_of(tmp_path, 3)
    index = tmp_path / ".pmparse" / "index.json"
    for bad in ("{not json", '{"version": 99, "records": {}}', '{"version": 1, "records": {"IL-0001.yaml": 3}}'):
        index.write_text(bad, encoding="utf-8")
        reads = _count_reads(monkeypatch)
        library = Library.open(tmp_path)
        assert sorted(reads) == ["IL-0001.yaml", "IL-0002.yaml", "IL-0003.yaml"]
        assert library.find("2".rjust(64, "0"), "x").id == "IL-0002"
        monkeypatch.undo()


def test_a_record_broken_after_the_scan_reads_as_invalid(tmp_path):
    _library_of(tmp_path, 2)
    library = Library.open(tmp_path)
    (tmp_path / "IL-0001.yaml").write_text("id: [broken", encoding="utf-8")
    entry = library.entries["IL-0001"]
    assert entry.card is None and entry.error
    assert Library.open(tmp_path).entries["IL-0001"].error  # and the next scan agrees


def test_only_a_few_cards_stay_parsed(patch_all, tmp_path, monkeypatch):
    patch_all(record_module, "CARD_CACHE", 3)
    library = _library_of(tmp_path, 8)
    library = Library.open(tmp_path)
    cards = [entry.card for entry in library.entries.values()]
    assert [c.id for c in cards] == [f"IL-{i:04d}" for i in range(1, 9)]
    assert len(library._cards) == 3


def test_a_copy_of_a_source_gets_its_own_record_and_a_moved_one_keeps_its_record(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("a.md").write_text("same text", encoding="utf-8")
    Path("b.md").write_text("same text", encoding="utf-8")
    sha = ingest("a.md").sha256
    library = Library.open(tmp_path / "lib")
    card = make_card().model_copy(update={"source": Source(location="a.md", sha256=sha, format="md")})
    library.write(card, "yaml")
    assert library.find(sha, "a.md").id == "IL-0001"
    assert library.find(sha, "b.md") is None  # a.md still holds the text: b.md is another source
    Path("a.md").rename("c.md")
    assert library.find(sha, "c.md").id == "IL-0001"  # a.md is gone: c.md is a.md moved
    # a new file given the old name: the name wins (it could as well be a.md amended beside an
    # archived copy of its old text)
    Path("c.md").rename("d.md")
    Path("a.md").write_text("another text", encoding="utf-8")
    assert library.find(sha, "d.md") is None and library.find("f" * 64, "a.md").id == "IL-0001"


def test_records_written_just_before_the_index_are_read_again(tmp_path, monkeypatch):
    library = Library.open(tmp_path)
    library.write(make_card(), "yaml")
    library.save_index()
    reads = _count_reads(monkeypatch)
    Library.open(tmp_path)
    assert reads == ["IL-0001.yaml"]  # its time is within the racy window of the index


def test_a_moved_source_finds_its_record_even_when_a_copy_remains(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("a.md", "b.md"):
        Path(name).write_text("same text", encoding="utf-8")
    sha = ingest("a.md").sha256
    library = Library.open(tmp_path / "lib")
    for card_id, name in (("IL-0001", "a.md"), ("IL-0002", "b.md")):
        library.write(make_card(card_id).model_copy(
            update={"source": Source(location=name, sha256=sha, format="md")}), "yaml")
    Path("a.md").rename("c.md")
    assert Library.open(tmp_path / "lib").find(sha, "c.md").id == "IL-0001"


def test_a_failed_read_is_not_cached_as_an_invalid_record(tmp_path, monkeypatch):
    _library_of(tmp_path, 2)
    (tmp_path / ".pmparse" / "index.json").unlink()
    real = Library.read

    def flaky(path):
        if path.name == "IL-0001.yaml":
            raise RecordError("expected a readable UTF-8 record, found busy", str(path)) from OSError("busy")
        return real(path)

    monkeypatch.setattr(Library, "read", staticmethod(flaky))
    assert Library.open(tmp_path).entries["IL-0001"].error
    monkeypatch.undo()
    assert Library.open(tmp_path).entries["IL-0001"].card is not None


def test_a_location_with_an_undecodable_byte_does_not_break_the_index(tmp_path):
    # a hand-edited JSON record may carry an escaped lone surrogate, which no UTF-8 file can hold
    text = dumps(make_card(), "json").replace('"reports/x.md"', '"reports/caf\\udce9.md"')
    (tmp_path / "IL-0001.json").write_text(text, encoding="utf-8")
    for _ in range(2):  # the scan that writes the index, then the one that reads it
        entry = Library.open(tmp_path).entries["IL-0001"]
        assert entry.error and entry.location == "reports/caf\udce9.md"


def test_a_record_deleted_while_the_library_is_open_is_forgotten(tmp_path):
    library = _library_of(tmp_path, 2)
    (tmp_path / "IL-0001.yaml").unlink()
    assert library.find("1".rjust(64, "0"), "reports/1.md") is None
    assert "IL-0001" not in library.entries and library.find("2".rjust(64, "0"), "reports/2.md").id == "IL-0002"
