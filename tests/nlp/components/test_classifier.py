from __future__ import annotations

import json

import numpy as np
import pytest

from pmparse.errors import ModelError
from pmparse.nlp.components.classifier import (
    META_FILE,
    UnitClassifier,
    UnitModel,
    UnitText,
    labeler_settings,
    rows_for,
    smooth,
    unit_shape,
)


def test_smooth_weight_zero_returns_the_probabilities():
    probs = np.array([[0.7, 0.3], [0.2, 0.8]])
    assert smooth(probs, np.array([[0.9, 0.1], [0.1, 0.9]]), 0.0) is probs


def test_smooth_pulls_a_lone_flip_into_its_run():
    sticky = np.array([[0.95, 0.05], [0.05, 0.95]])
    probs = np.array([[0.9, 0.1], [0.9, 0.1], [0.4, 0.6], [0.9, 0.1], [0.9, 0.1]])
    post = smooth(probs, sticky, 1.0)
    assert np.allclose(post.sum(axis=1), 1.0)
    assert post[2].argmax() == 0  # the middle unit follows its neighbours
    # with uniform transitions nothing moves
    flat = smooth(probs, np.full((2, 2), 0.5), 1.0)
    assert np.allclose(flat, probs / probs.sum(axis=1, keepdims=True))


def test_smooth_divides_out_priors_only_as_far_as_the_weight_goes():
    probs = np.array([[0.6, 0.4]])
    flat = np.full((2, 2), 0.5)
    priors = np.array([0.8, 0.2])
    full = smooth(probs, flat, 1.0, priors)
    # one unit, uniform transitions: the posterior is probs / priors, renormalised
    expected = np.array([0.6 / 0.8, 0.4 / 0.2])
    assert np.allclose(full[0], expected / expected.sum())
    slight = smooth(probs, flat, 0.1, priors)
    assert abs(slight[0, 0] - 0.6) < abs(full[0, 0] - 0.6)


def test_unit_shape_flags():
    assert "__modal" in unit_shape("We will add an alert", "list_item", 0.9, True)
    assert "__imperative" in unit_shape("Add an alert on queue depth", "list_item", 0.9, False)
    assert "__time" in unit_shape("14:02 the deploy started", "timeline", 0.2, False)
    assert "__pos4" in unit_shape("x y", "sentence", 0.99, False)
    assert "__first" not in unit_shape("x y", "sentence", 0.5, False)


def test_rows_carry_cues_and_neighbours_but_no_heading():
    units = [UnitText("The pods were restarted and service was restored.", "sentence", 10),
             UnitText("We will add an alert for memory.", "list_item", 80)]
    rows = rows_for(units, 120)
    assert rows[0][0] == "The pods were restarted and service was restored."
    assert "lf_remediation" in rows[0][1].split()
    assert "n_lf_action_items" in rows[0][1].split()
    assert "p_lf_remediation" in rows[1][1].split()
    assert "n_alert" in rows[0][1].split() and "p_pods" in rows[1][1].split()


def tiny_model(tmp_path=None) -> UnitModel:
    from pmparse.training.field_labels import DocExamples
    from pmparse.training.fields import FieldSettings, fit

    texts = [("Users could not log in and pages returned errors.", "symptoms"),
             ("The checkout service was unavailable for an hour.", "symptoms"),
             ("We restarted the database and service was restored.", "remediation"),
             ("The team rolled back the release to recover.", "remediation"),
             ("Add an alert on queue depth.", "action_items"),
             ("We will document the failover steps.", "action_items")]
    units = [UnitText(t, "sentence", 20 * i) for i, (t, _) in enumerate(texts)]
    example = DocExamples("doc.md", "team", rows_for(units, 200), [(label, 1.0) for _, label in texts])
    return fit([example], seed=0, settings=FieldSettings(sequence_weight=0.3)).model


def test_component_writes_probabilities_for_every_unit():
    from pmparse.ingest.read import ingest_bytes
    from pmparse.nlp.pipeline import PipelineConfig, build
    from pmparse.training.field_labels import analyse_structure

    nlp = build(PipelineConfig())
    text = "Users could not log in.\n\nWe restarted the database.\n\n- Add an alert on disk space\n"
    doc = analyse_structure(nlp, ingest_bytes(text.encode(), "x.md"))
    model = tiny_model()
    doc = UnitClassifier(model)(doc)
    probs = doc.spans["units"].attrs["probs"]
    assert len(probs) == len(doc.spans["units"]) == 3
    for p in probs:
        assert set(p) == set(model.labels)
        assert sum(p.values()) == pytest.approx(1.0)


def test_saved_model_round_trips_and_rejects_another_cue_version(tmp_path):
    from pmparse.training.fields import TrainResult, save

    model = tiny_model()
    save(TrainResult(model, {}, 1), tmp_path / "m")
    loaded = UnitModel.load(tmp_path / "m")
    assert loaded.labels == model.labels and loaded.sequence_weight == 0.3
    assert np.allclose(loaded.priors, model.priors)
    assert labeler_settings(tmp_path / "m") == model.labeler
    meta_path = tmp_path / "m" / META_FILE
    meta = json.loads(meta_path.read_text())
    meta["cues_version"] = 999
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(ModelError, match="cue table"):
        UnitModel.load(tmp_path / "m")


def test_weights_of_another_training_refuse_to_load(tmp_path):
    from pmparse.nlp.model_files import load_arrays, save_arrays
    from pmparse.training.fields import TrainResult, save

    save(TrainResult(tiny_model(), {}, 1), tmp_path / "m")
    weights = tmp_path / "m" / "weights.npz"
    arrays = load_arrays(weights)
    arrays["head.intercept"] = arrays["head.intercept"] + 1.0
    # well-formed weights, but not the ones meta.json was written with
    save_arrays(weights, arrays)
    with pytest.raises(ModelError, match="sha256"):
        UnitModel.load(tmp_path / "m")


def test_saving_an_unexported_estimator_is_refused(tmp_path):
    model = tiny_model()
    model.estimator = object()
    with pytest.raises(ModelError, match="TextClassifier"):
        model.save(tmp_path / "m")


def test_missing_model_is_a_model_error(tmp_path):
    with pytest.raises(ModelError):
        UnitModel.load(tmp_path)


def test_a_huge_document_is_scored_in_batches_that_give_the_same_probabilities(monkeypatch):
    from pmparse.ingest.read import ingest_bytes
    from pmparse.nlp.components import classifier as module
    from pmparse.nlp.pipeline import analyse, get, pipeline_config

    config = pipeline_config()
    if config.model_dir is None:
        pytest.skip("no bundled field model")
    nlp = get(config)
    text = "".join(f"## Section {n}\n\nThe worker pool {n} ran dry. We raised its limit to {n + 4}.\n\n" for n in range(60))
    doc = analyse(nlp, ingest_bytes(text.encode("utf-8"), "batches.md"))
    model = nlp.get_pipe("pmparse_unit_classifier").model
    whole = model.raw_probs(doc)
    assert len(whole) > 100
    monkeypatch.setattr(module, "PREDICT_BATCH", 7)
    np.testing.assert_array_equal(model.raw_probs(doc), whole)
    monkeypatch.setattr(module, "PREDICT_BATCH", 512)
    monkeypatch.setattr(module, "PREDICT_CHARS", 300)
    np.testing.assert_array_equal(model.raw_probs(doc), whole)


def test_heading_context_gives_each_unit_its_heading_words_and_table_role():
    from pmparse.ingest.read import ingest_bytes
    from pmparse.nlp.components.classifier import heading_context, unit_rows
    from pmparse.nlp.pipeline import PipelineConfig, build
    from pmparse.training.field_labels import analyse_structure

    text = "Intro words are here.\n\n## Root cause\n\nThe disk filled up.\n\n### 10:02\n\nWe restarted the host.\n"
    doc = analyse_structure(build(PipelineConfig()), ingest_bytes(text.encode(), "x.md"))
    found = heading_context(doc)
    assert found == [["__sec_preamble"], ["h_root", "h_cause", "__sec_root_cause"], ["__h_clock", "__sec_root_cause"]]
    # a section the heading model mapped reads as unknown: the unit model learnt the table's roles
    doc.user_data["pmparse_learned_sections"] = [(text.index("The disk"), len(text))]
    assert heading_context(doc)[1][-1] == "__sec_unknown"
    assert "h_root" in unit_rows(doc, features=("headings",))[1][1].split()
    assert "h_root" not in unit_rows(doc)[1][1].split()


def test_half_of_the_training_documents_show_their_headings():
    from pmparse.training.field_annotations import shows_headings

    shown = [shows_headings(f"source/doc-{i}.md") for i in range(400)]
    assert shows_headings("source/doc-1.md") == shown[1]
    assert 160 < sum(shown) < 240


def test_document_context_reads_a_wider_window_and_the_documents_voice():
    from pmparse.nlp.components.classifier import document_context

    units = [UnitText("We restarted the pods and service was restored.", "sentence", 0),
             UnitText("It was quiet.", "sentence", 50),
             UnitText("Nothing happened here.", "sentence", 70),
             UnitText("The outage happened because the disk filled up.", "sentence", 90)]
    found = document_context(units)
    assert "b_lf_remediation" in found[3] and "b_lf_remediation" not in found[1]  # the neighbour is read already
    assert "__causal" in found[3] and "__causal" not in found[0]
    assert "__doc_past" in found[0] and "__doc_we" not in found[0]


@pytest.mark.parametrize("change, found", [
    ({"labeler": {"threshold": "x"}}, "expected numeric labeler settings"),
    ({"labeler": ["threshold"]}, "expected numeric labeler settings"),
    ({"calibration": [["a"]]}, "expected calibration knots"),
    ({"calibration": [["a", "b"], [0.1, 0.2]]}, "expected numeric labeler settings"),
])
def test_labeler_settings_that_are_not_numbers_name_the_meta_file(tmp_path, change, found):
    # a library's own model from someone else: these ended in a spaCy or labeler error naming no file
    (tmp_path / "meta.json").write_text(json.dumps({"labeler": {"threshold": 0.2}, **change}), encoding="utf-8")
    with pytest.raises(ModelError, match=found) as caught:
        labeler_settings(tmp_path)
    assert caught.value.path == str(tmp_path / "meta.json")
