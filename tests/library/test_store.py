"""Records written by a Library (pmparse.library.store): one larger than the library reads back is
not written."""

from __future__ import annotations

import pytest

from pmparse.library.store import Library
from tests.helpers import text_card


@pytest.mark.parametrize("limit", ["RECORD_READ_LIMIT", "STATE_READ_LIMIT"])
def test_a_record_larger_than_the_library_reads_back_is_not_written(tmp_path, monkeypatch, limit):
    # records and state files are read back up to 128 MiB: a larger one, written from a huge
    # source, was a record every later command refused (limits made small to test it)
    from pmparse.errors import RecordError
    from pmparse.library import statefiles

    monkeypatch.setattr(statefiles, limit, 4000)
    text = "The queue stopped accepting writes for an hour. " * 100
    card = text_card("IL-0001", text, root_cause=[(0, len(text), 0.9)])
    library = Library.open(tmp_path / "lib")
    with pytest.raises(RecordError, match=r"IL-0001\.(yaml|json): expected .* at most .*found [\d,]+ bytes"):
        library.write(card, "yaml")
    written = [p.relative_to(tmp_path / "lib").as_posix() for p in (tmp_path / "lib").rglob("*") if p.is_file()]
    assert [p for p in written if "IL-0001" in p] == []
