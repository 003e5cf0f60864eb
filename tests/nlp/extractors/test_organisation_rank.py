"""Organisation candidates and their ranker, on texts written for these tests."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pmparse.errors import ModelError
from pmparse.nlp.extractors.organisation_rank import FEATURES, candidates, choose, load_ranker
from pmparse.training.organisation import fit, held_out, pick, rule_choice

_TEXT = ("# Zorbq Portal sign-in errors\n\n## Summary\n\nAt Zorbq Labs, we saw sign-in errors on the Zorbq Portal "
         "and the Zorbq Speech Service for 40 minutes on Monday. Our on-call engineer paged the team on Slack. "
         "Zorbq Labs rolled the change back.\n")


def _cands(text=_TEXT, location=""):
    title = (text.splitlines()[0][2:], [(2, len(text.splitlines()[0]))])
    return candidates(text, 0, location, title)


def test_candidates_come_from_the_whole_document_with_their_features():
    found = {c.value: c for c in _cands()}
    assert "Zorbq Labs" in found and found["Zorbq Labs"].features["rule_pick"] == 1.0
    assert found["Zorbq Labs"].features["self_reference"] >= 1.0 and found["Zorbq Labs"].origin == "self_reference"
    # a brand that prefixes several product names is a candidate of its own
    assert found["Zorbq"].features["brand_prefix"] > 0
    # never a weekday or the chat tool the team met in
    assert "Monday" not in found and "Slack" not in found
    assert all(len(c.vector()) == len(FEATURES) for c in found.values())


def test_a_guessed_address_owner_is_a_candidate():
    found = {c.value: c for c in _cands(location="https://github.com/zorbq-labs/reports/blob/main/a.md")}
    assert found["zorbq-labs"].features["url_guessed"] == 1.0 and found["zorbq-labs"].origin == "url"


def test_without_a_model_the_rules_choice_stands():
    fact = choose(_cands(), None)
    assert fact["value"] == "Zorbq Labs" and fact["origin"] == "self_reference"
    assert choose([], None) is None


def _rows():
    # two "sources": the self-referenced name is right, a repeated product name is not
    rows = []
    for group in ("a", "b", "c"):
        for n in range(6):
            text = _TEXT.replace("Zorbq", f"Q{group}{n}x")
            rows.append((_cands(text), f"Q{group}{n}x Labs", group))
    rows.append((_cands("# Notes\n\nNothing here names anyone at all.\n"), None, "c"))
    return rows


def test_the_ranker_learns_which_candidate_is_the_publisher_and_is_held_out_by_source():
    rows = _rows()
    ranker = fit(rows)
    assert pick(rows[0][0], ranker) == "Qa0x Labs"
    picks = held_out(rows)
    assert picks[:6] == [f"Qa{n}x Labs" for n in range(6)]
    assert [rule_choice(r[0]) for r in rows[:2]] == ["Qa0x Labs", "Qa1x Labs"]


def test_the_model_is_numbers_and_names_read_without_pickles(tmp_path):
    ranker = fit(_rows())
    ranker.save(tmp_path, {"trained": "test"})
    with np.load(tmp_path / "weights.npz", allow_pickle=False) as arrays:
        assert set(arrays.files) == {"weights", "mean", "scale"}
    loaded = load_ranker(tmp_path)
    cands = _rows()[0][0]
    assert np.allclose(loaded.scores(cands), ranker.scores(cands))
    fact = choose(cands, loaded)
    assert fact["value"] == "Qa0x Labs" and 0 < fact["confidence"] <= 1
    assert load_ranker(tmp_path / "none") is None
    meta = json.loads((tmp_path / "meta.json").read_text())
    (tmp_path / "meta.json").write_text(json.dumps({**meta, "features": ["other"]}))
    with pytest.raises(ModelError):
        load_ranker(tmp_path)
