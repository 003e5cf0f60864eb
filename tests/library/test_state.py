"""The state kept beside each record in .pmparse/ (pmparse.library.state), through a Library: state
folders that are symbolic links (nothing written or created outside), state nested too deep."""

from __future__ import annotations

import os

import pytest

from pmparse.errors import UnsafePathError
from pmparse.library.records import card_data
from pmparse.library.store import Library
from tests.helpers import text_card


def test_a_pending_suggestion_is_read_back_stamped_and_dropped(tmp_path):
    library = Library.open(tmp_path / "lib")
    card = text_card("IL-0001", "The disk of the broker filled up.")
    library.write(card, "yaml")
    library.write_state("pending", card)
    assert card_data(library.read_state("pending", "IL-0001")) == card_data(card)
    stamp = library.state_stamp("pending", "IL-0001")
    assert stamp[0] == card.source.sha256 and stamp[-1] is True  # a pending suggestion is whole
    library.drop_state("pending", "IL-0001")
    assert library.read_state("pending", "IL-0001") is None
    assert library.state_stamp("pending", "IL-0001") is None


def test_an_intent_the_record_holds_becomes_the_base(tmp_path):
    library = Library.open(tmp_path / "lib")
    card = text_card("IL-0001", "The disk of the broker filled up.")
    library.write(card, "yaml")
    library.drop_state("base", "IL-0001")
    library.write_state("intent", card)  # a run killed after writing the record, before the rename
    assert card_data(library.read_state("base", "IL-0001")) == card_data(card)
    assert library.finish_writes() == ["IL-0001"]
    assert not library.state_path("intent", "IL-0001").exists()
    assert card_data(library.read_state("base", "IL-0001")) == card_data(card)


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
