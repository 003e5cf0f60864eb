"""The tagger's category and component models: training, the model file, and the tags they decide, on
text written for these tests."""

from __future__ import annotations

import json

import numpy as np
import pytest
import spacy

from pmparse.errors import ModelError
from pmparse.evaluation.gold_cards import Example
from pmparse.ingest.read import ingest_bytes
from pmparse.nlp.component_candidates import (
    CANDIDATE_REGIONS,
    candidate_rows,
    candidate_width,
    component_candidates,
)
from pmparse.nlp.components.tagger import CategoryModel, Tagger
from pmparse.nlp.linear import Logistic
from pmparse.nlp.pipeline import PipelineConfig, analyse, get
from pmparse.nlp.tag_reading import Matchers, cue_vocabulary, model_rows
from pmparse.rules.taxonomy import load_taxonomy
from pmparse.training.tags.features import make_features, own_cue_mask
from pmparse.training.tags.fit import decide, fit
from pmparse.training.tags.inputs import TagSettings


# --- training and the model file ------------------------------------------------------------

BUG = "A code change introduced a bug: a null pointer exception crashed the worker after the release."
CONFIG = "A configuration change set the wrong flag value in the settings file and the service misbehaved."


def _tiny_model() -> CategoryModel:
    taxonomy = load_taxonomy()
    rows_text, examples = [], []
    for i in range(6):
        for text, key in ((BUG, "root_cause_categories.software_bug"), (CONFIG, "root_cause_categories.configuration_change")):
            labels = {k: 0 for k in ("root_cause_categories.software_bug", "root_cause_categories.configuration_change")}
            labels[key] = 1
            examples.append(Example(f"doc{i}{key}", f"{text} Variant {i}.", text, labels))
            rows_text.append((f"{text} Variant {i}.", text))
    rows = model_rows(Matchers(spacy.blank("en"), taxonomy), rows_text)
    return fit(examples, rows, taxonomy, TagSettings(), "tags-test")


def test_fit_predicts_and_decides():
    model = _tiny_model()
    assert model.keys == ["root_cause_categories.configuration_change", "root_cause_categories.software_bug"]
    assert "root_cause_categories.hardware_failure" in model.meta["skipped"]
    rows = model_rows(Matchers(spacy.blank("en"), load_taxonomy()), [(BUG, BUG), (CONFIG, CONFIG)])
    bug, config = model.predict_rows(rows)
    assert bug["root_cause_categories.software_bug"] > bug["root_cause_categories.configuration_change"]
    assert config["root_cause_categories.configuration_change"] > config["root_cause_categories.software_bug"]
    assert decide(bug, TagSettings(threshold=0.5, fallback=0.0, cue_gate=0.99))["root_cause_categories"] == {"software_bug"}


def test_each_classifier_reads_only_its_own_cue_counts():
    taxonomy = load_taxonomy()
    vocab = cue_vocabulary(taxonomy)
    rows = model_rows(Matchers(spacy.blank("en"), taxonomy), [(BUG, BUG), (CONFIG, CONFIG)])
    features = make_features(taxonomy, 10).fit(rows)
    width = features.transform(rows).shape[1]
    mask = own_cue_mask(features, taxonomy, "root_cause_categories.software_bug", width)
    cues = features.output_indices_["cues"]
    assert mask[: cues.start].all()  # every text feature is kept
    kept = [vocab[j] for j in range(len(vocab)) if mask[cues.start + j]]
    assert kept == ["f__root_cause_categories.software_bug", "w__root_cause_categories.software_bug"]
    # the fitted model: another category's cue count changes that category only
    model = _tiny_model()
    plain, cued = model.predict_rows([[BUG, BUG, ""], [BUG, BUG, "f__root_cause_categories.configuration_change"]])
    assert plain["root_cause_categories.software_bug"] == pytest.approx(cued["root_cause_categories.software_bug"])
    assert plain["root_cause_categories.configuration_change"] != cued["root_cause_categories.configuration_change"]
    # without own_cues every classifier reads every cue count
    taxonomy_rows = [(f"{text} Variant {i}.", text) for i in range(6) for text in (BUG, CONFIG)]
    examples = [Example(f"doc{i}", f, w, {"root_cause_categories.software_bug": int(w == BUG)})
                for i, (f, w) in enumerate(taxonomy_rows)]
    shared = fit(examples, model_rows(Matchers(spacy.blank("en"), taxonomy), taxonomy_rows), taxonomy,
                 TagSettings(own_cues=False))
    plain, cued = shared.predict_rows([[BUG, BUG, ""], [BUG, BUG, "f__root_cause_categories.configuration_change"]])
    assert plain["root_cause_categories.software_bug"] != pytest.approx(cued["root_cause_categories.software_bug"])


def test_model_round_trips_through_npz_and_tags_a_doc(tmp_path):
    model = _tiny_model()
    path = model.save(tmp_path)
    assert path.name == "weights.npz" and not list(tmp_path.glob("*.tmp"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["meta.json", "weights.npz"]
    loaded = CategoryModel.load(tmp_path)
    assert loaded.keys == model.keys and loaded.name == "tags-test"
    nlp = get(PipelineConfig(tagger=False))
    text = "# Checkout errors\n\n## Root cause\n\n" + BUG + "\n"
    doc = analyse(nlp, ingest_bytes(text.encode(), "notes/bug.md"))
    doc = Tagger(nlp, load_taxonomy(), loaded, 1.0, 0.5, 0.25)(doc)
    assert doc.cats["root_cause_categories.software_bug"] > doc.cats["root_cause_categories.configuration_change"]
    tag = doc.user_data["pmparse_tags"]["root_cause_categories.software_bug"]
    assert tag["origin"] == "model:tags-test"
    assert 0.0 < tag["confidence"] <= 1.0
    assert tag["evidence"] and BUG.startswith(text[tag["evidence"][0][0]:tag["evidence"][0][1]][:20])


def test_loading_a_missing_or_broken_model_raises_model_error(tmp_path):
    with pytest.raises(ModelError, match="found none"):
        CategoryModel.load(tmp_path)
    _tiny_model().save(tmp_path)
    meta = json.loads((tmp_path / "meta.json").read_text())
    del meta["weights_sha256"]
    (tmp_path / "meta.json").write_text(json.dumps(meta))
    (tmp_path / "weights.npz").write_bytes(b"not a zip archive")
    with pytest.raises(ModelError, match="unreadable"):
        CategoryModel.load(tmp_path)


def test_loading_a_model_of_another_format_raises_model_error(tmp_path):
    _tiny_model().save(tmp_path)
    meta = json.loads((tmp_path / "meta.json").read_text())
    meta["format"] = 99
    (tmp_path / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(ModelError, match="format"):
        CategoryModel.load(tmp_path)


def test_loading_refuses_pickled_object_arrays(tmp_path):
    _tiny_model().save(tmp_path)
    meta = json.loads((tmp_path / "meta.json").read_text())
    del meta["weights_sha256"]
    (tmp_path / "meta.json").write_text(json.dumps(meta))
    # an object array can only be read by unpickling it: loading must refuse, not run it
    np.savez(tmp_path / "weights.npz", **{"categories.coef": np.array([object()], dtype=object)})
    with pytest.raises(ModelError, match="unreadable"):
        CategoryModel.load(tmp_path)


def test_tagger_tags_unknown_when_no_cause_is_likely_enough():
    model = _tiny_model()
    text = "# Slow pages\n\n## Summary\n\nPages were slow for an hour and then fine again.\n"
    nlp = get(PipelineConfig(tagger=False))
    doc = analyse(nlp, ingest_bytes(text.encode(), "notes/slow.md"))
    model.meta["settings"]["unsure_unknown"] = True
    # thresholds nothing reaches: the card says the cause is unknown, as sure as the best cause was not
    tags = Tagger(nlp, load_taxonomy(), model, 1.0, 0.999, 0.999)(doc).user_data["pmparse_tags"]
    unknown = tags["root_cause_categories.unknown"]
    best = max(doc.cats[k] for k in model.keys if k.startswith("root_cause_categories."))
    assert unknown["confidence"] == pytest.approx(1 - best, abs=1e-3)
    assert not [k for k in tags if k.startswith("root_cause_categories.") and not k.endswith(".unknown")]
    # a model trained before the setting abstains
    model.meta["settings"].pop("unsure_unknown")
    doc = analyse(nlp, ingest_bytes(text.encode(), "notes/slow.md"))
    tags = Tagger(nlp, load_taxonomy(), model, 1.0, 0.999, 0.999)(doc).user_data["pmparse_tags"]
    assert not [k for k in tags if k.startswith("root_cause_categories.")]


def test_a_cause_found_by_a_rule_replaces_unknown():
    model = _tiny_model()  # knows software_bug and configuration_change only: other ids come from rules
    model.meta["settings"]["unsure_unknown"] = True
    text = "# Storage outage\n\n## Root cause\n\nA disk failure in the storage array took the volume offline.\n"
    nlp = get(PipelineConfig(tagger=False))
    doc = analyse(nlp, ingest_bytes(text.encode(), "notes/disk.md"))
    tags = Tagger(nlp, load_taxonomy(), model, 1.0, 0.999, 0.999)(doc).user_data["pmparse_tags"]
    causes = {k for k in tags if k.startswith("root_cause_categories.")}
    assert causes == {"root_cause_categories.hardware_failure"}
    assert tags["root_cause_categories.hardware_failure"]["origin"] == "taxonomy"


def test_tagger_limits_root_causes_as_the_model_was_trained():
    model = _tiny_model()
    text = "# Outage\n\n## Root cause\n\nA code change introduced a bug and a configuration change set the wrong flag.\n"
    nlp = get(PipelineConfig(tagger=False))

    def causes():
        doc = analyse(nlp, ingest_bytes(text.encode(), "notes/both.md"))
        tags = Tagger(nlp, load_taxonomy(), model, 1.0, 0.0, 0.0)(doc).user_data["pmparse_tags"]
        return {k for k in tags if k.startswith("root_cause_categories.")}

    # a model trained before the setting: every key over the threshold
    model.meta["settings"].pop("max_root_causes")
    assert causes() == {"root_cause_categories.software_bug", "root_cause_categories.configuration_change"}
    model.meta["settings"]["max_root_causes"] = 1
    assert len(causes()) == 1


def test_a_cause_found_by_a_rule_counts_against_the_limit():
    model = _tiny_model()  # knows software_bug and configuration_change: hardware_failure comes from a rule
    model.meta["settings"]["max_root_causes"] = 2
    text = ("# Outage\n\n## Root cause\n\nA code change introduced a bug, a configuration change set the wrong "
            "flag, and a disk failure took a replica offline.\n")
    nlp = get(PipelineConfig(tagger=False))
    doc = analyse(nlp, ingest_bytes(text.encode(), "notes/three.md"))
    tags = Tagger(nlp, load_taxonomy(), model, 1.0, 0.0, 0.0)(doc).user_data["pmparse_tags"]
    causes = {k: v["confidence"] for k, v in tags.items() if k.startswith("root_cause_categories.")}
    # the two model causes (probability over 0.4 at threshold 0) outrank the rule's 0.4
    assert len(causes) == 2 and "root_cause_categories.hardware_failure" not in causes
    model.meta["settings"]["max_root_causes"] = 3
    doc = analyse(nlp, ingest_bytes(text.encode(), "notes/three.md"))
    tags = Tagger(nlp, load_taxonomy(), model, 1.0, 0.0, 0.0)(doc).user_data["pmparse_tags"]
    assert "root_cause_categories.hardware_failure" in tags


# --- component model decisions --------------------------------------------------------------

COMPONENT_TEXT = ("# Slow pages\n\n## Summary\n\nPages were slow for an hour.\n\n## Root cause\n\n"
                  "The Postgres database ran out of connections while the cache was cold.\n")


def _component_model(intercept: float, coef_by_id: dict[str, float] | None = None, first_mention: bool = False):
    model = _tiny_model()
    ids = load_taxonomy().ids("components")
    coef = np.zeros(candidate_width(ids, first_mention))
    for taxon, weight in (coef_by_id or {}).items():
        coef[len(CANDIDATE_REGIONS) + 2 + ids.index(taxon)] = weight
    model.components = Logistic(coef, intercept)
    model.meta.update({"component_ids": ids, "component_threshold": 0.5, "component_first_mention": first_mention})
    return model


def _components(model) -> dict:
    nlp = get(PipelineConfig(tagger=False))
    doc = analyse(nlp, ingest_bytes(COMPONENT_TEXT.encode(), "notes/slow.md"))
    tags = Tagger(nlp, load_taxonomy(), model, 1.0, 0.5, 0.25)(doc).user_data["pmparse_tags"]
    return {k: v for k, v in tags.items() if k.startswith("components.")}


def test_component_model_keeps_the_most_likely_candidate_when_none_is_sure():
    # every candidate well below the threshold; the database a little more likely than the cache
    model = _component_model(-4.0, {"database": 1.0})
    assert _components(model) == {}  # a model trained before the setting
    model.meta["component_keep_best"] = True
    tags = _components(model)
    assert list(tags) == ["components.database"]
    assert tags["components.database"]["confidence"] < 0.5
    assert all(COMPONENT_TEXT[s:e].lower() in ("postgres", "database") for s, e in tags["components.database"]["evidence"])
    # a candidate over the threshold: the others are not added
    model = _component_model(4.0, {"database": -10.0})
    model.meta["component_keep_best"] = True
    assert list(_components(model)) == ["components.cache"]


def test_component_candidates_say_where_each_is_first_named():
    nlp = get(PipelineConfig(tagger=False))
    doc = analyse(nlp, ingest_bytes(COMPONENT_TEXT.encode(), "notes/slow.md"))
    candidates = component_candidates(doc, Matchers(nlp, load_taxonomy()))
    first = {k: v[2] for k, v in candidates.items()}
    assert first["components.database"] == pytest.approx(COMPONENT_TEXT.index("Postgres") / len(COMPONENT_TEXT))
    assert first["components.database"] < first["components.cache"] < 1
    ids = load_taxonomy().ids("components")
    keys, rows = candidate_rows(candidates, ids)
    keys_first, rows_first = candidate_rows(candidates, ids, first_mention=True)
    assert keys == keys_first and rows.shape[1] == candidate_width(ids) == rows_first.shape[1] - 1
    assert np.array_equal(rows, rows_first[:, :-1])
    assert rows_first[keys.index("components.database"), -1] == pytest.approx(first["components.database"])
    # the tagger reads the rows the model was trained on: a first-mention model with a weight on it
    middle = (first["components.database"] + first["components.cache"]) / 2
    model = _component_model(100.0 * middle, first_mention=True)
    model.components.coef[-1] = -100.0  # named before the middle: likely; after it: not
    assert list(_components(model)) == ["components.database"]
