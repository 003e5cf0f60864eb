"""State files are read bounded (src/pmparse/library/statefiles.py)."""

from __future__ import annotations

import os

import pytest

from pmparse.errors import StateFileError
from pmparse.library.statefiles import STATE_READ_LIMIT, regular_text
from tests.hang_guard import fifo_guard


def test_a_state_file_over_the_limit_is_refused_unread_and_named(tmp_path):
    path = tmp_path / "IL-0001.json"
    with open(path, "wb") as handle:
        handle.truncate(STATE_READ_LIMIT + 1)  # sparse: no disk, and reading it whole took its size in memory
    with pytest.raises(StateFileError, match="at most 128 MiB") as caught:
        regular_text(path)
    assert caught.value.path == str(path)
    small = tmp_path / "small.json"
    small.write_text("{}", encoding="utf-8")
    with pytest.raises(StateFileError):
        regular_text(small, limit=1)


def test_a_link_a_fifo_or_bytes_that_are_not_utf8_are_no_state(tmp_path):
    (tmp_path / "real.json").write_text("{}", encoding="utf-8")
    os.symlink(tmp_path / "real.json", tmp_path / "link.json")
    os.mkfifo(tmp_path / "fifo.json")
    (tmp_path / "latin.json").write_bytes(b"\xe9")
    assert regular_text(tmp_path / "real.json") == "{}"
    with fifo_guard(tmp_path / "fifo.json"):
        for name in ("link.json", "fifo.json", "latin.json", "missing.json"):
            assert regular_text(tmp_path / name) is None, name


def test_the_largest_max_bytes_keeps_a_record_of_its_text_readable():
    # a record holds its source's text, a quote or backslash written as two characters
    from pmparse.library.statefiles import RECORD_READ_LIMIT
    from pmparse.util import MAX_BYTES_LIMIT, SOURCE_READ_LIMIT

    # measured: a record up to 3.8 times its source (one long line), a base 3.0 times
    assert 4 * MAX_BYTES_LIMIT <= RECORD_READ_LIMIT and MAX_BYTES_LIMIT <= SOURCE_READ_LIMIT


def test_a_small_record_is_read_without_reserving_room_for_the_largest(tmp_path):
    # reading up to the limit in one call made Python reserve a buffer of the limit's size (128 MiB)
    # for every record read, whatever the file's size
    import tracemalloc

    from pmparse.library.statefiles import read_record_text

    record = tmp_path / "IL-0001.yaml"
    record.write_text("id: IL-0001\ntitle: A queue that stalled\n" * 200, encoding="utf-8")
    tracemalloc.start()
    try:
        text = read_record_text(record)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert text == record.read_text(encoding="utf-8")
    assert peak < 1 << 20


def test_a_record_that_grows_while_it_is_read_is_read_whole(tmp_path, monkeypatch):
    from pmparse.library import statefiles

    record = tmp_path / "IL-0001.yaml"
    record.write_text("id: IL-0001\n", encoding="utf-8")
    real_fstat = os.fstat

    def stale_fstat(fd):
        # the size as it was a moment before another writer appended to the file
        result = real_fstat(fd)
        return os.stat_result((*result[:6], 4, *result[7:]))

    monkeypatch.setattr(statefiles.os, "fstat", stale_fstat)
    assert statefiles.read_record_text(record) == "id: IL-0001\n"
