"""The tag model's generated card: what it says follows the settings and row counts it is given."""

from __future__ import annotations

from pmparse.training.tags.card import model_card
from pmparse.training.tags.inputs import TagSettings


def _summary(examples=None, **settings) -> dict:
    # what train() hands the card when it skips the cross-validation (--no-eval)
    examples = examples or {"gold": 2, "team": 1, "team_spans": 1, "field_card": 3, "field_card_spans": 2}
    return {"model": "m/weights.npz", "size_bytes": 10, "team_skipped": [], "skipped": [], "classifiers": [],
            "examples": examples,
            "label_counts": {}, "component_candidates": 4, "field_model": True,
            "component_team": {"documents": 1, "candidates": 2, "skipped": []},
            "settings": TagSettings(**settings).as_dict()}


def test_the_card_names_the_annotated_card_rows_only_when_they_train():
    on = model_card(_summary())
    assert "(`corpus/field_spans`): 5 rows" in on
    off = model_card(_summary(field_cards=False, examples={"gold": 2, "team": 1, "team_spans": 1}))
    assert "corpus/field_spans" not in off
    assert "(`corpus/root_cause_spans`): 2 rows" in on and "(`corpus/root_cause_spans`): 2 rows" in off


def test_the_card_states_the_decisions_its_settings_make():
    assert "else `unknown`; at most 2 root causes" in model_card(_summary())
    plain = model_card(_summary(unsure_unknown=False, max_root_causes=0))
    assert "else none." in plain and "at most" not in plain


def test_the_card_stays_short():
    assert len(model_card(_summary()).encode()) < 6_000
