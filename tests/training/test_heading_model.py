"""The heading model: its training rows, its fit and its files (issue 34)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import spacy

from pmparse.errors import ModelError
from pmparse.nlp.components.sectionizer import sectionize
from pmparse.nlp.heading_model import HeadingModel, has_heading_model
from pmparse.rules.headings import load_headings
from pmparse.training.heading_model import fit_heading_model, heading_label_counts, heading_rows


def test_heading_label_counts_give_each_heading_the_units_it_is_nearest_to():
    text = "Intro line.\n\n## Digging in\n\nA full disk.\n\nToo much logging.\n\n## Next steps\n\nAdd an alert.\n"
    doc = spacy.blank("en").make_doc(text)
    sectionize(doc, load_headings())
    offsets = [(text.index(s), text.index(s) + len(s)) for s in ("Intro line.", "A full disk.", "Too much logging.",
                                                                    "Add an alert.")]
    labels = [["none"], ["root_cause"], ["root_cause", "contributing_factors"], ["action_items"]]
    found = heading_label_counts(doc, offsets, labels)
    # the intro has no heading before it: it counts for none
    assert found == [("## Digging in", {"root_cause": 2, "contributing_factors": 1}),
                     ("## Next steps", {"action_items": 1})]


def test_heading_rows_merge_a_heading_across_documents_and_damp_repeats():
    pairs = [("## Root Cause", {"root_cause": 3, "none": 1}), ("Root cause:", {"root_cause": 2}), ("**", {"none": 1})]
    texts, labels, weights = heading_rows(pairs)
    assert texts == ["root cause", "root cause"] and labels == ["none", "root_cause"]
    scale = 1 + math.log(2)
    assert weights == pytest.approx([scale * 1 / 6, scale * 5 / 6])


PAIRS = ([("How we fixed it", {"remediation": 3}), ("Fixing it", {"remediation": 2}),
          ("The fix", {"remediation": 2}), ("Why it broke", {"root_cause": 3}), ("Why did it break", {"root_cause": 2}),
          ("The cause", {"root_cause": 2}), ("Timeline", {"none": 5}), ("Time line of events", {"none": 3})] * 2)


def test_fitted_heading_model_reads_new_phrasings_and_round_trips(tmp_path):
    model = fit_heading_model(PAIRS, c=10.0, min_confidence=0.4)
    assert model is not None
    assert model.field("## How we fixed things")[0] == "remediation"
    assert model.field("Why things broke")[0] == "root_cause"
    assert model.field("Timeline of the day") is None  # its likeliest label is none
    assert model.field("***") is None
    model.save(tmp_path)
    assert has_heading_model(tmp_path)
    again = HeadingModel.load(tmp_path)
    headings = ["How we fixed things", "Why", "A timeline"]
    assert np.allclose(again.probabilities(headings), model.probabilities(headings))
    assert again.min_confidence == 0.4 and HeadingModel.load(tmp_path, 0.9).min_confidence == 0.9


def test_a_heading_model_file_of_other_weights_is_refused(tmp_path):
    model = fit_heading_model(PAIRS)
    model.save(tmp_path)
    (tmp_path / "headings.npz").write_bytes(b"not weights")
    with pytest.raises(ModelError):
        HeadingModel.load(tmp_path)
    assert fit_heading_model([("Timeline", {"none": 2})]) is None
