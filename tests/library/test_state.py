"""The state kept beside each record in .pmparse/ (pmparse.library.state), through a Library."""

from __future__ import annotations

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
