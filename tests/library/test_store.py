"""A library's own state (.pmparse/) holding symbolic links: nothing is written or created outside."""

from __future__ import annotations

import os

import pytest

from pmparse.errors import UnsafePathError, UsageError
from pmparse.library.lock import write_lock
from pmparse.library.store import Library
from tests.helpers import text_card


@pytest.fixture()
def victim(tmp_path):
    folder = tmp_path / "victim"
    folder.mkdir()
    (folder / "IL-0001.json").write_text("keep me", encoding="utf-8")
    return folder


def contents(folder):
    return {p.name: p.read_text(encoding="utf-8") for p in folder.iterdir()}


@pytest.mark.parametrize("link", [".pmparse", ".pmparse/base", ".pmparse/intent"])
def test_a_state_folder_linked_elsewhere_gets_no_record_state_written_there(tmp_path, victim, link):
    lib = tmp_path / "lib"
    (lib / ".pmparse").mkdir(parents=True)
    if link == ".pmparse":
        os.rmdir(lib / ".pmparse")
    os.symlink(victim, lib / link)
    with pytest.raises(UnsafePathError, match="symbolic link"):
        library = Library.open(lib)
        library.write(text_card("IL-0001", "The database failed."), "yaml")
    assert contents(victim) == {"IL-0001.json": "keep me"}


def test_an_intent_folder_linked_elsewhere_is_not_emptied(tmp_path, victim):
    lib = tmp_path / "lib"
    (lib / ".pmparse").mkdir(parents=True)
    os.symlink(victim, lib / ".pmparse" / "intent")
    library = Library(lib)
    with pytest.raises(UnsafePathError):
        library.finish_writes()
    assert contents(victim) == {"IL-0001.json": "keep me"}


def test_a_dangling_lock_link_does_not_create_its_target(tmp_path):
    lib = tmp_path / "lib"
    (lib / ".pmparse").mkdir(parents=True)
    target = tmp_path / "created-by-pmparse"
    os.symlink(target, lib / ".pmparse" / "lock")
    with pytest.raises(UnsafePathError):
        with write_lock(lib):
            pass
    assert not target.exists() and not os.path.lexists(target)


def test_a_lock_that_cannot_be_opened_is_a_usage_error(tmp_path):
    lib = tmp_path / "lib"
    (lib / ".pmparse" / "lock").mkdir(parents=True)  # a folder where the lock file belongs
    with pytest.raises(UsageError, match="lock file"):
        with write_lock(lib):
            pass



#: JSON nested past Python's recursion limit: ``json.loads`` raises RecursionError, not a decode error.
DEEP = '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}"


@pytest.mark.parametrize("state", ["index.json", "base/IL-0001.json", "pending/IL-0001.json", "intent/IL-0001.json"])
def test_state_nested_too_deep_is_read_as_unreadable_state(tmp_path, state):
    # a library from someone else: its index is only a cache, its state files count as missing
    lib = tmp_path / "lib"
    library = Library.open(lib)
    library.write(text_card("IL-0001", "The database failed."), "yaml")
    library.save_index()
    path = lib / ".pmparse" / state
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(DEEP, encoding="utf-8")
    again = Library.open(lib)
    assert again.entries["IL-0001"].card.id == "IL-0001"
    kind = state.partition("/")[0]
    if kind in ("base", "pending"):
        assert again.read_state(kind, "IL-0001") is None


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
