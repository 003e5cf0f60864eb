"""The state kept beside each record in .pmparse/ (pmparse.library.state), through a Library: state
folders that are symbolic links (nothing written or created outside), state nested too deep, and the
intent a run killed between a record and its base leaves."""

from __future__ import annotations

import os

import pytest

import pmparse.library.store as record_module
from pmparse.errors import UnsafePathError
from pmparse.library.records import card_data, dumps
from pmparse.library.store import Library, is_edited
from pmparse.util import atomic_write
from tests.helpers import text_card
from tests.library.cards import make_card


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


class Killed(BaseException):
    """Stands for SIGKILL: nothing after it in the process runs."""


def test_a_run_killed_before_the_record_was_written_keeps_the_old_base(patch_all, tmp_path, monkeypatch):
    library = Library.open(tmp_path)
    library.write(make_card(), "yaml")
    newer = make_card().model_copy(update={"organisation": "Newer Org"})
    real = record_module.atomic_write

    def die_on_the_record(path, text):
        if path.name == "IL-0001.yaml":
            raise Killed
        real(path, text)

    patch_all(record_module, "atomic_write", die_on_the_record)
    with pytest.raises(Killed):
        library.write(newer, "yaml")
    patch_all(record_module, "atomic_write", real)
    reopened = Library.open(tmp_path)
    entry = reopened.entries["IL-0001"]
    assert entry.card.organisation == "Example Org"
    # the record is still pmparse's own, so the next run may refresh it
    assert reopened.read_state("base", "IL-0001") == entry.card and not is_edited(reopened, entry)
    # reading changes nothing on disk (another process may be writing); the next write settles it
    assert reopened.state_path("intent", "IL-0001").exists()
    reopened.write(newer, "yaml")
    assert not reopened.state_path("intent", "IL-0001").exists()
    assert Library.open(tmp_path).read_state("base", "IL-0001") == newer


def test_a_run_killed_after_the_record_was_written_finishes_the_base(tmp_path):
    library = Library.open(tmp_path)
    library.write(make_card(), "yaml")
    newer = make_card().model_copy(update={"organisation": "Newer Org"})
    # what write() had done when the kill came: the intent and the record, not the rename
    library.write_state("intent", newer)
    atomic_write(tmp_path / "IL-0001.yaml", dumps(newer, "yaml"))
    reopened = Library.open(tmp_path)
    entry = reopened.entries["IL-0001"]
    assert reopened.read_state("base", "IL-0001") == newer and not is_edited(reopened, entry)


def test_finishing_writes_renames_an_intent_its_record_holds_and_drops_any_other(tmp_path):
    library = Library.open(tmp_path)
    library.write(make_card(), "yaml")
    library.write(make_card().model_copy(update={"id": "IL-0002"}), "yaml")
    newer = make_card().model_copy(update={"organisation": "Newer Org"})
    library.write_state("intent", newer)  # IL-0001: killed after its record was written
    atomic_write(tmp_path / "IL-0001.yaml", dumps(newer, "yaml"))
    library.write_state("intent", newer.model_copy(update={"id": "IL-0002"}))  # IL-0002: killed before
    reopened = Library.open(tmp_path)
    assert reopened.finish_writes() == ["IL-0001"]
    assert not list((tmp_path / ".pmparse" / "intent").iterdir())
    again = Library.open(tmp_path)
    assert again.read_state("base", "IL-0001") == newer and not is_edited(again, again.entries["IL-0001"])
    assert again.read_state("base", "IL-0002") == make_card().model_copy(update={"id": "IL-0002"})
    assert again.state_stamp("base", "IL-0001") is not None  # no longer a write cut short
    assert again.finish_writes() == []


def test_a_person_edit_made_after_a_killed_run_stays_a_person_edit(tmp_path):
    library = Library.open(tmp_path)
    library.write(make_card(), "yaml")
    library.write_state("intent", make_card().model_copy(update={"organisation": "Newer Org"}))  # killed before the record
    atomic_write(tmp_path / "IL-0001.yaml", dumps(make_card().model_copy(update={"organisation": "Edited by hand"}), "yaml"))
    reopened = Library.open(tmp_path)
    assert reopened.read_state("base", "IL-0001") == make_card()
    assert is_edited(reopened, reopened.entries["IL-0001"])
