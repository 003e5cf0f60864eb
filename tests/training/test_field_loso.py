"""What counts as a right item when the field labeler's confidences are calibrated and measured."""

from __future__ import annotations

import numpy as np

from pmparse.training.field_loso import _HeldOut, unit_coverage, unit_gold_label, unit_right


def _item(text: str, gold: dict[str, list[tuple[int, int]]]) -> _HeldOut:
    return _HeldOut("t/1", "t", text, ["action_items", "trigger", "root_cause"], gold, None, None, np.zeros((0, 0)))


def test_a_link_target_does_not_count_against_a_unit_annotated_without_it():
    # the guide leaves markup out of spans: the annotator marked the words, not the link
    unit = "Add an alert on queue depth [ticket](https://tracker.example.org/projects/ops/issues/4711)"
    words = unit.index(" [ticket]")
    item = _item(unit, {"action_items": [(0, words)]})
    assert unit_coverage(item, 0, len(unit))["action_items"] == 6 / 7  # "ticket" is prose, the target is not
    assert unit_right(item, 0, len(unit), "action_items")
    assert unit_gold_label(item, 0, len(unit)) == "action_items"
    assert not unit_right(item, 0, len(unit), "lessons")


def test_a_unit_that_is_only_a_link_is_no_field():
    unit = "https://tracker.example.org/projects/ops/issues/4711"
    item = _item(unit, {})
    assert unit_gold_label(item, 0, len(unit)) == "none"
    assert not unit_right(item, 0, len(unit), "action_items")


def test_a_sentence_annotated_as_two_fields_is_right_in_either():
    unit = "The nightly deploy shipped a config that disabled the cache."
    item = _item(unit, {"trigger": [(0, len(unit))], "root_cause": [(0, len(unit))]})
    assert unit_right(item, 0, len(unit), "root_cause") and unit_right(item, 0, len(unit), "trigger")
    assert not unit_right(item, 0, len(unit), "symptoms")


def test_less_than_half_covered_is_wrong():
    unit = "We restarted the pods and then the team went home for the night."
    item = _item(unit, {"action_items": [(0, len("We restarted the pods"))]})
    assert not unit_right(item, 0, len(unit), "action_items")
    assert unit_gold_label(item, 0, len(unit)) == "none"
