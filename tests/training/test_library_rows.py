"""What ``train --library`` reads of a record's source (src/pmparse/training/library_rows.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pmparse.card.schema import Card
from pmparse.library.store import Library
from pmparse.training.library_rows import library_rows
from pmparse.util import sha256_text
from tests.helpers import text_card

TEXT = "# Outage\n\nThe database failed when its disk filled.\n"


def _reviewed(lib: Path, location: Path, sha256: str) -> None:
    card = text_card("IL-0001", TEXT, title="Outage", root_cause=[(10, 50, 0.9)])
    data = card.model_dump(mode="json")
    data["status"] = "reviewed"
    data["source"].update(location=str(location), format="md", extracted_text=None, sha256=sha256)
    Library(lib).write(Card.model_validate(data), "yaml")


def test_a_source_whose_sha256_differs_says_nothing_of_itself(tmp_path):
    # the record's sha256 is compared before the file is ingested: ingesting it first printed a
    # byte of whatever file a record named, and its offset ("found byte 0xe9 at offset 4")
    (tmp_path / "reports").mkdir()
    other = tmp_path / "reports" / "notes.md"
    other.write_bytes(b"caf\xe9 and other private words\n")
    _reviewed(tmp_path / "lib", other, sha256_text(TEXT))
    found = library_rows(tmp_path / "lib")
    assert found.docs == []
    assert len(found.notes) == 1 and "changed since the record was read" in found.notes[0]
    assert "0xe9" not in found.notes[0] and "offset" not in found.notes[0]


def test_a_file_no_folder_walk_picks_is_not_read_even_when_its_sha256_is_the_records(tmp_path):
    (tmp_path / ".ssh").mkdir()
    key = tmp_path / ".ssh" / "id_test"
    key.write_text(TEXT, encoding="utf-8")
    _reviewed(tmp_path / "lib", key, sha256_text(TEXT))
    found = library_rows(tmp_path / "lib")
    assert found.docs == [] and "is not read" in found.notes[0]


@pytest.mark.parametrize("line_break", ["\n", "\r\n"], ids=["as read", "a crlf checkout"])
def test_a_plausible_source_holding_the_records_text_is_learnt_from(tmp_path, line_break):
    # "\r\n": a curator whose git checks the sources out with core.autocrlf: the file's bytes are
    # not the text the record was read from, but its text is; train --library left it out as changed
    (tmp_path / "reports").mkdir()
    source = tmp_path / "reports" / "outage.md"
    source.write_bytes(TEXT.replace("\n", line_break).encode("utf-8"))
    _reviewed(tmp_path / "lib", source, sha256_text(TEXT))
    found = library_rows(tmp_path / "lib")
    assert found.notes == [] and [doc.id for doc in found.docs] == ["IL-0001"]
