"""Two values of a text field compared by the words their items say (pmparse.library.items)."""

from __future__ import annotations

from pmparse.library.items import same_words


def _item(text: str, start: int, confidence: float) -> dict:
    return {"text": text, "evidence": [{"start": start, "end": start + len(text)}], "confidence": confidence}


def test_items_saying_the_same_words_elsewhere_are_the_same_words():
    moved = [_item("Restart the broker", 40, 0.7), _item("Add a disk alert", 90, 0.6)]
    first = [_item("Restart the broker", 10, 0.9), _item("Add a disk alert", 60, 0.8)]
    assert same_words("action_items", first, moved)


def test_other_words_or_order_are_not_the_same_words():
    first = [_item("Restart the broker", 10, 0.9), _item("Add a disk alert", 60, 0.8)]
    assert not same_words("action_items", first, list(reversed(first)))
    assert not same_words("action_items", first, first[:1])


def test_a_fact_is_never_compared_by_items():
    assert not same_words("title", "Queue stalled", "Queue stalled")
