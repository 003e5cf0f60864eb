"""The category floors a training run is checked against, on both ways of holding out (no training:
summaries written for these tests)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pmparse.cli.train_categories import train_categories_text
from pmparse.errors import PmparseError
from pmparse.training.tags import card as tag_card
from pmparse.training.tags import train as train_categories


def _summary(rc_sources: float = 0.59, components_documents: float = 0.72, primary_sources: float = 0.65) -> dict:
    report = {"root_cause_categories": {"macro_f1": rc_sources, "f1": 0.58},
              "contributing_factor_categories": {"macro_f1": 0.46, "f1": 0.5}, "components": {"f1": 0.70},
              "root_cause_primary": {"documents": 10, "share": primary_sources}}
    mean = {"root_cause_categories": {"macro_f1": 0.593, "f1": 0.597},
            "contributing_factor_categories": {"macro_f1": 0.517, "f1": 0.57}, "components": {"f1": components_documents},
            "root_cause_primary": {"share": 0.74}}
    return {"cv_sources": report, "cv_mean": mean, "cv": {"root_cause_categories": {}}}


def test_category_floors_are_checked_on_both_ways_of_holding_out():
    figures = tag_card.cv_figures(_summary())
    assert figures["sources"]["root_cause_macro_f1"] == 0.59 and figures["documents"]["components_f1"] == 0.72
    floors, lowered = tag_card.new_category_floors(figures, {}, allow_lower=False)
    assert floors["floors"]["sources"]["root_cause_macro_f1"] == 0.59 and not lowered
    assert tag_card.check_category_floors(figures, floors) == []
    worse = tag_card.cv_figures(_summary(rc_sources=0.55, components_documents=0.705))
    failures = tag_card.check_category_floors(worse, floors)
    # 0.55 is more than the 0.02 margin under 0.59; 0.705 is within it under 0.72
    assert len(failures) == 1 and "sources held out: root_cause_macro_f1" in failures[0]


def test_the_primary_root_cause_share_is_floored_on_both_ways_of_holding_out():
    figures = tag_card.cv_figures(_summary())
    assert figures["sources"]["root_cause_primary"] == 0.65 and figures["documents"]["root_cause_primary"] == 0.74
    floors, _ = tag_card.new_category_floors(figures, {}, allow_lower=False)
    failures = tag_card.check_category_floors(tag_card.cv_figures(_summary(primary_sources=0.6)), floors)
    assert len(failures) == 1 and "sources held out: root_cause_primary" in failures[0]


def test_lowering_a_category_floor_takes_allow_lower():
    floors, _ = tag_card.new_category_floors(tag_card.cv_figures(_summary()), {}, False)
    worse = tag_card.cv_figures(_summary(rc_sources=0.5))
    kept, lowered = tag_card.new_category_floors(worse, floors, allow_lower=False)
    assert kept["floors"]["sources"]["root_cause_macro_f1"] == 0.59 and lowered
    down, _ = tag_card.new_category_floors(worse, floors, allow_lower=True)
    assert down["floors"]["sources"]["root_cause_macro_f1"] == 0.5


def test_a_floor_check_trains_into_a_temporary_folder_and_exits_1_below_a_floor(patch_all, monkeypatch, tmp_path):
    seen = {}

    def fake_train(output, *args, **kwargs):
        seen["output"] = output
        return {**_summary(rc_sources=0.4), "model": str(Path(output) / "weights.npz")}

    patch_all(train_categories, "train", fake_train)
    patch_all("pmparse.training.tags.card.figures_markdown", lambda summary: "figures")
    floors = tmp_path / "floors.json"
    floors.write_text(json.dumps({"margin": 0.02, "floors": {"sources": {"root_cause_macro_f1": 0.58}}}))
    patch_all("pmparse.training.tags.card.FLOORS_PATH", floors)
    text, notes, code = train_categories_text(None, None, None, 0, None, True, None, check=True)
    assert code == 1 and "BELOW FLOOR" in text and notes == []
    assert seen["output"] is not None and not Path(seen["output"]).exists()  # a scratch folder, removed
    assert Path(seen["output"]).resolve() != train_categories.DEFAULT_MODEL_DIR.resolve()
    with pytest.raises(PmparseError):
        train_categories_text(None, None, None, 0, None, False, None, check=True)
    with pytest.raises(PmparseError):
        train_categories_text(None, None, None, 0, None, True, None, allow_lower=True)


def test_a_figure_of_exactly_two_decimals_is_its_own_floor():
    figures = {"sources": {"root_cause_f1": 0.58, "components_f1": 0.29}}
    floors, lowered = tag_card.new_category_floors(figures, {"floors": {"sources": {"root_cause_f1": 0.58}}},
                                                           allow_lower=False)
    assert floors["floors"]["sources"] == {"root_cause_f1": 0.58, "components_f1": 0.29} and not lowered


def test_a_floor_check_without_floors_fails(patch_all, monkeypatch, tmp_path):
    patch_all(train_categories, "train", lambda output, *a, **k: {**_summary(), "model": "x"})
    patch_all("pmparse.training.tags.card.figures_markdown", lambda summary: "figures")
    patch_all("pmparse.training.tags.card.FLOORS_PATH", tmp_path / "missing.json")
    text, _, code = train_categories_text(None, None, None, 0, None, True, None, check=True)
    assert code == 1 and "expected floors" in text
