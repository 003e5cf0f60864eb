"""The tag model's generated card: what it says follows the settings and row counts it is given."""

from __future__ import annotations

from pmparse.training.tags.card import model_card
from pmparse.training.tags.inputs import TagSettings


def _summary(**settings) -> dict:
    # what train() hands the card when it skips the cross-validation (--no-eval)
    return {"model": "m/weights.npz", "size_bytes": 10, "team_skipped": [], "skipped": [], "classifiers": [],
            "examples": {"gold": 2, "team": 1, "team_spans": 1, "field_card": 3, "field_card_spans": 2},
            "label_counts": {}, "component_candidates": 4, "field_model": True,
            "component_team": {"documents": 1, "candidates": 2, "skipped": []},
            "settings": TagSettings(**settings).as_dict()}


def test_the_card_names_the_annotated_card_rows_only_when_they_train():
    on = model_card(_summary())
    assert "(`corpus/field_spans`, 3 documents" in on and "stretches (2 rows" in on
    off = model_card(_summary(field_cards=False))
    assert "corpus/field_spans" not in off
    assert "`corpus/root_cause_spans`, 1 rows" in on and "`corpus/root_cause_spans`, 1 rows" in off
