"""Tests of pmparse.util's JSON-lines reader."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ConfigDict

from pmparse.errors import GoldError
from pmparse.util import model_lines
from tests.hang_guard import fifo_guard


class _Line(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str


def test_lines_are_parsed_with_their_numbers_and_blank_lines_skipped(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text('{"id": "x"}\n\n{"id": "y"}\n', encoding="utf-8")
    assert [(n, line.id) for n, line in model_lines(path, _Line, GoldError, "line")] == [(1, "x"), (3, "y")]


@pytest.mark.parametrize("content, message", [
    ('{"id": "x"}\n{"id": "y", "extra": 1}\n', "line 2: expected a thing"),
    ("not json\n", "line 1: expected a thing"),
])
def test_a_bad_line_is_the_typed_error_naming_file_and_line(tmp_path, content, message):
    path = tmp_path / "a.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(GoldError, match=message) as caught:
        list(model_lines(path, _Line, GoldError, "thing"))
    assert caught.value.path == str(path)


@pytest.mark.parametrize("make", [lambda p: None, lambda p: p.write_bytes(b'{"id": "\\xff"}\xff\n')],
                         ids=["missing", "not utf-8"])
def test_an_unreadable_file_is_the_typed_error(tmp_path, make):
    path = tmp_path / "a.jsonl"
    make(path)
    with pytest.raises(GoldError, match="expected a readable UTF-8 file of things"):
        list(model_lines(path, _Line, GoldError, "thing"))


def test_only_a_regular_file_within_the_limit_is_read(tmp_path):
    import os

    from pmparse.util import read_regular_file

    (tmp_path / "a.md").write_bytes(b"four")
    os.mkfifo(tmp_path / "fifo")
    assert read_regular_file(tmp_path / "a.md") == b"four"
    assert read_regular_file(tmp_path / "a.md", limit=3) is None
    with fifo_guard(tmp_path / "fifo"):
        assert read_regular_file(tmp_path / "fifo") is None  # returns at once: no writer is waited for
    assert read_regular_file(tmp_path) is None
    assert read_regular_file(tmp_path / "missing") is None
    assert read_regular_file("a\0b") is None
    if os.path.exists("/dev/zero"):
        assert read_regular_file("/dev/zero") is None  # never ends: not read at all


def test_read_limited_refuses_a_larger_file_unread_and_a_fifo(tmp_path):
    import os

    from pmparse.util import FileTooLarge, read_limited

    (tmp_path / "small").write_bytes(b"12345")
    assert read_limited(tmp_path / "small", 5) == b"12345"
    with pytest.raises(FileTooLarge) as caught:
        read_limited(tmp_path / "small", 4)
    assert caught.value.size == 5
    os.mkfifo(tmp_path / "fifo")  # opened for reading without a writer, it blocked for ever
    with fifo_guard(tmp_path / "fifo"), pytest.raises(OSError, match="regular file"):
        read_limited(tmp_path / "fifo", 5)
    with pytest.raises(FileNotFoundError):
        read_limited(tmp_path / "missing", 5)
