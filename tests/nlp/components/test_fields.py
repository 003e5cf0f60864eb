from __future__ import annotations

import pytest
import spacy

from pmparse.card.schema import TEXT_FIELDS
from pmparse.nlp.components.fields import decide, label_fields


def probs(**given: float) -> dict[str, float]:
    """A probability dict over every field plus none; unnamed labels share what is left."""
    names = list(TEXT_FIELDS) + ["none"]
    rest = [n for n in names if n not in given]
    left = max(0.0, 1.0 - sum(given.values()))
    return {n: given.get(n, left / len(rest)) for n in names}


def test_without_a_model_a_mapped_heading_decides_alone():
    assert decide("root_cause", 0.9, None, 0.5, 0.2) == ("root_cause", 0.9)
    assert decide("none", 0.9, None, 0.5, 0.2) == (None, 0.0)
    assert decide("preamble", 0.0, None, 0.5, 0.2) == (None, 0.0)


def test_mapped_heading_wins_when_the_model_is_unsure():
    field, confidence = decide("remediation", 0.9, probs(action_items=0.6, remediation=0.3), 0.5, 0.2)
    assert field == "remediation"
    assert confidence == pytest.approx(0.5 * 0.3 + 0.5 * 0.9)


def test_mapped_heading_is_not_a_veto_against_a_confident_model():
    # a remediation section holding a follow-up: the model is sure, the heading weighs little
    assert decide("remediation", 0.9, probs(action_items=0.97, remediation=0.01), 0.3, 0.2)[0] == "action_items"
    # the same unit with a heavier heading stays in the heading's field
    assert decide("remediation", 0.9, probs(action_items=0.97, remediation=0.01), 0.7, 0.2)[0] == "remediation"


def test_confident_none_empties_a_unit_under_a_mapped_heading():
    assert decide("lessons", 0.9, probs(none=0.99), 0.3, 0.2) == (None, 0.0)


def test_unmapped_sections_take_the_models_best_field_above_the_threshold():
    assert decide("preamble", 0.0, probs(symptoms=0.55, none=0.4), 0.5, 0.2) == ("symptoms", pytest.approx(0.55))
    # below the threshold the field stays empty even when "none" is not the most probable label
    assert decide("preamble", 0.0, probs(symptoms=0.18, detection=0.17, none=0.1), 0.5, 0.2) == (None, 0.0)
    # "none" itself is never a field: a unit the model calls none leaves every field below the threshold
    assert decide("unknown", 0.0, probs(none=0.9), 0.5, 0.2) == (None, 0.0)


def test_followup_weight_in_summary_and_timeline_sections():
    p = probs(action_items=0.5, remediation=0.3, none=0.1)
    assert decide("none", 0.9, p, 0.5, 0.2, followup_weight=1.0)[0] == "action_items"
    assert decide("none", 0.9, p, 0.5, 0.2, followup_weight=0.0)[0] == "remediation"
    # a heading-less document keeps its follow-ups
    assert decide("preamble", 0.0, p, 0.5, 0.2, followup_weight=0.0)[0] == "action_items"
    # outside mapped sections of a headed document they are weighted down too
    assert decide("preamble", 0.0, p, 0.5, 0.2, followup_weight=0.0, headed=True)[0] == "remediation"

    # in the opening part of a document without field headings they are weighted down as well
    assert decide("preamble", 0.0, p, 0.5, 0.2, followup_weight=0.0, opening=True)[0] == "remediation"
    assert decide("preamble", 0.0, p, 0.5, 0.2, followup_weight=1.0, opening=True)[0] == "action_items"


HEADINGLESS = """Checkout went down on Friday.

The new release doubled the size of every cart object, so the cache filled up.

We restarted the cache nodes and pages came back.

We will add an alert on the cache's memory.

Looking back, a staged rollout would have caught it early.
"""


def test_followup_opening_weighs_down_follow_ups_early_in_a_headingless_document():
    from pmparse.ingest.read import ingest_bytes
    from pmparse.nlp.pipeline import PipelineConfig, build
    from pmparse.training.field_labels import analyse_structure

    doc = analyse_structure(build(PipelineConfig()), ingest_bytes(HEADINGLESS.encode(), "cart.txt"))
    assert len(doc.spans["units"]) == 5
    # the model is torn between a follow-up and another field on every unit
    unit_probs = [probs(action_items=0.5, symptoms=0.3, none=0.2), probs(lessons=0.5, root_cause=0.3, none=0.2),
                  probs(action_items=0.5, remediation=0.3, none=0.2), probs(action_items=0.6, remediation=0.3),
                  probs(lessons=0.6, action_items=0.2, none=0.2)]
    doc.spans["units"].attrs["probs"] = unit_probs
    label_fields(doc, heading_weight=0.5, threshold=0.2, followup_weight=0.0, followup_opening=0.5)
    # the first half of the units (2.5 of 5: units 0-2) lose their follow-ups, the rest keep them
    assert [s.label_ for s in doc.spans["fields"]] == ["symptoms", "root_cause", "remediation", "action_items",
                                                     "lessons"]
    label_fields(doc, heading_weight=0.5, threshold=0.2, followup_weight=0.0, followup_opening=0.0)
    assert [s.label_ for s in doc.spans["fields"]] == ["action_items", "lessons", "action_items", "action_items",
                                                     "lessons"]
    # a document with a field heading is left to the section rules
    headed = doc_with_probs([probs(action_items=0.9), probs(root_cause=0.7), probs(action_items=0.9)])
    label_fields(headed, heading_weight=0.5, threshold=0.2, followup_weight=1.0, followup_opening=1.0)
    assert [s.label_ for s in headed.spans["fields"]] == ["action_items", "root_cause", "action_items"]


TEXT = """# Cache outage

Users saw slow pages for an hour.

## Root cause

The cache size was set to zero.

## Action items

- Add a check for the cache size
"""


def doc_with_probs(unit_probs):
    from pmparse.ingest.read import ingest_bytes
    from pmparse.nlp.pipeline import PipelineConfig, build
    from pmparse.training.field_labels import analyse_structure

    nlp = build(PipelineConfig())
    doc = analyse_structure(nlp, ingest_bytes(TEXT.encode(), "cache.md"))
    if unit_probs is not None:
        doc.spans["units"].attrs["probs"] = unit_probs
    return doc


def test_label_fields_without_probabilities_follows_headings():
    doc = doc_with_probs(None)
    label_fields(doc)
    assert [(s.label_, s.text) for s in doc.spans["fields"]] == [
        ("root_cause", "The cache size was set to zero."),
        ("action_items", "Add a check for the cache size"),
    ]
    assert doc.spans["fields"].attrs["scores"] == [0.9, 0.9]


def test_label_fields_with_probabilities_reads_the_preamble_too():
    unit_probs = [probs(symptoms=0.8), probs(root_cause=0.7), probs(action_items=0.9)]
    doc = doc_with_probs(unit_probs)
    label_fields(doc, heading_weight=0.5, threshold=0.2, followup_weight=0.0)
    assert [s.label_ for s in doc.spans["fields"]] == ["symptoms", "root_cause", "action_items"]
    assert all(0.0 < score <= 1.0 for score in doc.spans["fields"].attrs["scores"])


def test_a_header_row_or_a_time_zone_note_is_never_an_item_however_sure_the_model():
    from pmparse.ingest.read import ingest_bytes
    from pmparse.nlp.pipeline import PipelineConfig, build
    from pmparse.training.field_labels import analyse_structure

    text = ("# Queue stall\n\nTimes are in PDT.\n\n| Time | Event |\n| --- | --- |\n"
            "| 10:00 | The queue stalled on every worker |\n")
    doc = analyse_structure(build(PipelineConfig()), ingest_bytes(text.encode(), "q.md"))
    assert [s.text for s in doc.spans["units"]] == ["Times are in PDT.", "Time | Event",
                                                    "10:00 | The queue stalled on every worker"]
    doc.spans["units"].attrs["probs"] = [probs(symptoms=0.9), probs(symptoms=0.9), probs(symptoms=0.9)]
    label_fields(doc, heading_weight=0.5, threshold=0.2, root_cause_floor=0.1)
    assert [(s.label_, s.text) for s in doc.spans["fields"]] == [
        ("symptoms", "The queue stalled on every worker")]
    # nor the root cause of last resort
    doc.spans["units"].attrs["probs"] = [probs(root_cause=0.3), probs(root_cause=0.3), probs(none=0.9)]
    label_fields(doc, heading_weight=0.5, threshold=0.5, root_cause_floor=0.1)
    assert list(doc.spans["fields"]) == []


def test_a_timeline_tables_row_is_an_item_without_its_time_cell():
    from pmparse.ingest.read import ingest_bytes
    from pmparse.nlp.pipeline import PipelineConfig, build
    from pmparse.training.field_labels import analyse_structure

    # a table without outer pipes: the row's first sentence carries the time cell in its unit
    text = ("# Queue stall\n\n## Timeline\n\nTime  | State\n---   | ---\n"
            "09:12 | The billing queue stopped taking jobs. Workers were restarted by hand.\n"
            "2031-04-20 10:40 UTC | Every worker drained its backlog again\n"
            "2031-04-20 | 10:52 | The owners paged the storage team\n"
            "2031-04-20   10:58 | Billing resumed for every tenant\n\n"
            "11:02: The owners were told about the stall.\n")
    doc = analyse_structure(build(PipelineConfig()), ingest_bytes(text.encode(), "q.md"))
    units = [s.text for s in doc.spans["units"]]
    assert "09:12 | The billing queue stopped taking jobs." in units  # the model reads the row as it was trained
    doc.spans["units"].attrs["probs"] = [probs(symptoms=0.9) for _ in units]
    label_fields(doc, heading_weight=0.5, threshold=0.2)
    items = [s.text for s in doc.spans["fields"]]
    assert "The billing queue stopped taking jobs." in items
    assert "Workers were restarted by hand." in items
    assert "Every worker drained its backlog again" in items
    assert "The owners paged the storage team" in items and "Billing resumed for every tenant" in items
    assert not any("|" in item for item in items)
    # a timeline line's own clock time, not a table's cell, stays in its item
    assert "11:02: The owners were told about the stall." in items


def test_a_time_cell_without_a_blank_after_its_pipe_never_cuts_the_items_first_word():
    from pmparse.ingest.read import ingest_bytes
    from pmparse.nlp.pipeline import PipelineConfig, build
    from pmparse.training.field_labels import analyse_structure

    # "09:12|The" is one token: the item may keep its cell, never lose its first word
    text = ("# Queue stall\n\n## Timeline\n\nTime|State\n---|---\n"
            "09:12|The billing queue stopped taking jobs\n"
            "**10:40**|(API) workers drained their backlog\n"
            "10:52 |Owners paged the storage team\n"
            "11:02 | Billing resumed for every tenant\n")
    doc = analyse_structure(build(PipelineConfig()), ingest_bytes(text.encode(), "q.md"))
    doc.spans["units"].attrs["probs"] = [probs(symptoms=0.9) for _ in doc.spans["units"]]
    label_fields(doc, heading_weight=0.5, threshold=0.2)
    items = [s.text for s in doc.spans["fields"]]
    for words in ("The billing queue stopped taking jobs", "(API) workers drained their backlog",
                  "Owners paged the storage team"):
        assert any(item.endswith(words) for item in items), (words, items)
    assert "Billing resumed for every tenant" in items  # a cell the tokens separate still goes


def test_an_item_leaves_out_markup_lines_labels_and_what_says_nothing():
    from pmparse.ingest.read import ingest_bytes
    from pmparse.nlp.pipeline import PipelineConfig, build
    from pmparse.training.field_labels import analyse_structure

    text = ("# Queue stall\n\n## What happened\n\n<!-- spellcheck:ignore zorbq -->\nThe zorbq queue stalled.\n\n"
            "[Final message]\nWorkers were restarted by hand.\n</div>\n\n![depth graph](depth.png)\n\n"
            "Again, our apologies for the stall.\n\nMuch love,\n\nJo and the Zorbq team.\n")
    doc = analyse_structure(build(PipelineConfig()), ingest_bytes(text.encode(), "q.md"))
    doc.spans["units"].attrs["probs"] = [probs(symptoms=0.9) for _ in doc.spans["units"]]
    label_fields(doc, heading_weight=0.5, threshold=0.2)
    assert [s.text for s in doc.spans["fields"]] == ["The zorbq queue stalled.", "Workers were restarted by hand."]


def test_label_fields_on_an_empty_doc():
    nlp = spacy.blank("en")
    doc = nlp("")
    label_fields(doc)
    assert len(doc.spans["fields"]) == 0


def test_the_likeliest_unit_becomes_the_root_cause_only_when_none_reaches_it():
    from pmparse.nlp.components.fields import likeliest_unit

    # the model gives the cause sentence only 0.18 for root cause (heading-weighted), none wins
    unsure = [probs(symptoms=0.8), probs(root_cause=0.18, none=0.7), probs(action_items=0.9)]
    doc = doc_with_probs(unsure)
    label_fields(doc, heading_weight=0.5, threshold=0.2, followup_weight=0.0)
    assert [s.label_ for s in doc.spans["fields"]] == ["symptoms", "root_cause", "action_items"]  # the heading helps
    # without the heading's help the unit stays out, unless the floor lets the likeliest in
    doc.user_data["pmparse_sections"] = []
    label_fields(doc, heading_weight=0.5, threshold=0.2, followup_weight=0.0)
    assert [s.label_ for s in doc.spans["fields"]] == ["symptoms", "action_items"]
    label_fields(doc, heading_weight=0.5, threshold=0.2, followup_weight=0.0, root_cause_floor=0.15)
    assert [(s.label_, s.text) for s in doc.spans["fields"]] == [
        ("symptoms", "Users saw slow pages for an hour."), ("root_cause", "The cache size was set to zero."),
        ("action_items", "Add a check for the cache size")]
    assert doc.spans["fields"].attrs["scores"][1] == 0.18
    # below the floor, or with a root cause already found, nothing is added
    label_fields(doc, heading_weight=0.5, threshold=0.2, followup_weight=0.0, root_cause_floor=0.2)
    assert "root_cause" not in [s.label_ for s in doc.spans["fields"]]
    found = doc_with_probs([probs(root_cause=0.9), probs(root_cause=0.17, none=0.8), probs(action_items=0.9)])
    found.user_data["pmparse_sections"] = []
    label_fields(found, heading_weight=0.5, threshold=0.2, followup_weight=0.0, root_cause_floor=0.15)
    assert [s.label_ for s in found.spans["fields"]] == ["root_cause", "action_items"]
    # a unit already in a field is not taken, and without probabilities there is nothing to weigh
    assert likeliest_unit(found, "root_cause", 0.15, 0.5, {0, 1, 2}) is None
    assert likeliest_unit(doc_with_probs(None), "root_cause", 0.15, 0.5, set()) is None


def test_a_unit_the_model_reads_as_the_root_cause_may_leave_its_headings_field_for_it():
    # the action-items heading files the third unit, though the model reads it as the root cause
    # first; with no root cause anywhere, the floor takes it from the heading's field
    unit_probs = [probs(symptoms=0.8), probs(none=0.9), probs(root_cause=0.5, action_items=0.3)]
    doc = doc_with_probs(unit_probs)
    doc.user_data["pmparse_sections"] = [s for s in doc.user_data["pmparse_sections"] if s[2] != "root_cause"]
    label_fields(doc, heading_weight=0.5, threshold=0.2, followup_weight=0.0)
    assert [s.label_ for s in doc.spans["fields"]] == ["symptoms", "action_items"]
    label_fields(doc, heading_weight=0.5, threshold=0.2, followup_weight=0.0, root_cause_floor=0.15)
    assert [s.label_ for s in doc.spans["fields"]] == ["symptoms", "root_cause"]
    assert doc.spans["fields"].attrs["scores"][1] == 0.25  # weighed with the heading it left
    # a unit whose own first reading is its heading's field stays there
    doc = doc_with_probs([probs(symptoms=0.8), probs(none=0.9), probs(root_cause=0.3, action_items=0.5)])
    doc.user_data["pmparse_sections"] = [s for s in doc.user_data["pmparse_sections"] if s[2] != "root_cause"]
    label_fields(doc, heading_weight=0.5, threshold=0.2, followup_weight=0.0, root_cause_floor=0.15)
    assert [s.label_ for s in doc.spans["fields"]] == ["symptoms", "action_items"]


def test_a_calibrated_labeler_reports_the_calibrated_confidence_and_thresholds_on_it():
    from pmparse.nlp.components.fields import calibrated, decide

    knots = ([0.0, 0.5, 1.0], [0.0, 0.2, 0.9])
    assert calibrated(0.75, knots) == pytest.approx(0.55)
    assert calibrated(0.75, None) == 0.75
    probs = {"root_cause": 0.75, "none": 0.25}
    assert decide("preamble", 0.0, probs, 0.5, 0.5, calibration=knots) == ("root_cause", pytest.approx(0.55))
    assert decide("preamble", 0.0, probs, 0.5, 0.6, calibration=knots) == (None, 0.0)


def test_broken_calibration_knots_are_a_model_error():
    from pmparse.errors import ModelError
    from pmparse.nlp.components.fields import _knots

    assert _knots([]) is None
    with pytest.raises(ModelError):
        _knots([[0.5, 0.1], [0.2, 0.3]])
    with pytest.raises(ModelError):
        _knots([[0.1, 0.5], [0.2, 1.3]])
