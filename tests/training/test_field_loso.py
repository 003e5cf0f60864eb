"""Leave-one-source-out measurement: what counts as a right item, and what tuning maximises."""

from __future__ import annotations

import numpy as np

from pmparse.card.schema import TEXT_FIELDS
from pmparse.training.field_loso import _HeldOut, _objective, unit_coverage, unit_gold_label, unit_right


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

def _f1(macro: float, **fields: float) -> dict:
    return {"macro_f1": macro, **{name: fields.get(name, 0.5) for name in TEXT_FIELDS}}


def test_macro_f1_is_not_traded_for_a_tiny_shortfall_against_headings():
    headings = {name: 0.5 for name in TEXT_FIELDS} | {"action_items": 0.78}
    low_threshold = _objective(_f1(0.46), _f1(0.48, action_items=0.765), headings)
    high_threshold = _objective(_f1(0.34), _f1(0.41, action_items=0.77), headings)
    assert low_threshold > high_threshold


def test_a_field_far_below_its_headings_costs_more_than_a_little_macro():
    headings = {name: 0.5 for name in TEXT_FIELDS} | {"lessons": 0.9}
    above = _objective(_f1(0.45), _f1(0.47, lessons=0.9), headings)
    below = _objective(_f1(0.45), _f1(0.48, lessons=0.3), headings)
    assert above > below
