"""The held-out figures split by style, heading status and source group (issue 34)."""

from __future__ import annotations

import numpy as np

from pmparse.card.schema import TEXT_FIELDS
from pmparse.evaluation.corpus import hold_out_groups, load_manifest, source_styles
from pmparse.training.field_breakdown import (
    f1_table,
    group_calibration,
    heading_status,
    status_counts,
    status_f1,
    style_f1,
)


def test_grouped_sources_are_held_out_together_and_styles_come_from_the_manifest():
    groups = hold_out_groups(load_manifest())
    assert groups["usdr-univaf"] == groups["edgi-web-monitoring"] == "edgi-usdr"
    assert groups["dfds"] == "dfds"
    styles = source_styles(load_manifest())
    assert styles["homebrew-blog"] == "free-form" and styles["wikitech"] == "templated"
    assert sum(style == "free-form" for style in styles.values()) == 14


def test_heading_status_takes_the_innermost_section():
    # tokens at 0, 10, 20, 30, 40; preamble 0-10, an unknown heading's body 10-50 holding a known one at 30-40
    tokens = np.array([[0, 5], [10, 15], [20, 25], [30, 35], [40, 45]])
    sections = [(0, 10, "preamble", 0.0), (10, 50, "unknown", 0.0), (30, 40, "remediation", 0.9)]
    assert heading_status(tokens, sections).tolist() == [0, 2, 2, 1, 2]
    assert heading_status(tokens, []).tolist() == [0] * 5


def test_status_counts_score_each_status_on_its_own_tokens():
    status = np.array([1, 1, 2, 2])
    empty = np.zeros(4, dtype=bool)
    gold = {name: empty for name in TEXT_FIELDS} | {"trigger": np.array([True, False, True, True])}
    predicted = {name: empty for name in TEXT_FIELDS} | {"trigger": np.array([True, True, False, True])}
    counts = status_counts(gold, predicted, status)
    assert counts["known_heading"]["trigger"] == [1, 1, 0]
    assert counts["unknown_heading"]["trigger"] == [1, 0, 1]
    f1 = status_f1([counts], [status[gold["trigger"]]])
    # only trigger has gold words: the macro is its F1, not diluted by seven empty fields
    assert f1["unknown_heading"]["macro_f1"] == 2 / 3
    assert f1["unknown_heading"]["gold_tokens"] == 2 and f1["known_heading"]["share"] == round(1 / 3, 3)


def test_style_f1_sums_counts_per_style_and_macro_over_eight_fields():
    counts = {name: (0, 0, 0) for name in TEXT_FIELDS} | {"lessons": (2, 0, 0)}
    found = style_f1([("posthog", counts), ("homebrew-blog", counts), ("dfds", counts)],
                     {"posthog": "free-form", "homebrew-blog": "free-form"})
    assert found["free-form"]["documents"] == 2 and found["templated"]["documents"] == 1
    assert found["templated"]["lessons"] == 1.0 and found["templated"]["macro_f1"] == 1 / 8
    assert f1_table({}, only_gold=True)["macro_f1"] == 0.0


def test_style_f1_of_documents_annotating_one_field_averages_that_field_alone():
    # train --loso --dev eval/dev/root_cause.jsonl printed a style macro of 0.044 for a root-cause F1
    # of 0.349: seven fields no document annotates were averaged in as zeros
    found = style_f1([("dfds", {"root_cause": (1, 1, 0)}), ("posthog", {"root_cause": (1, 0, 1)})],
                     {"posthog": "free-form"})
    assert found["templated"]["macro_f1"] == found["templated"]["root_cause"] == 2 / 3
    assert found["free-form"]["macro_f1"] == 2 / 3


def test_group_calibration_keeps_groups_of_five_documents_and_splits_styles():
    pairs = [("a", 0.9, True), ("a", 0.85, False), ("b", 0.5, True)]
    found = group_calibration(pairs, {"a": 5, "b": 4}, {"a": "templated", "b": "free-form"})
    assert list(found["groups"]) == ["a"]
    assert found["groups"]["a"]["precision_at_0.8"] == 0.5 and found["groups"]["a"]["documents"] == 5
    assert set(found["styles"]) == {"templated", "free-form"}
