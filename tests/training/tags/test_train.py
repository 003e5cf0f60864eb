"""Team category labels and the cross-validation folds, on files written for these tests (no training)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from pmparse.errors import LabelError, PmparseError
from pmparse.evaluation.gold_cards import Example
from pmparse.nlp.tag_reading import category_texts
from pmparse.training.tags import train as train_categories
from pmparse.training.tags.fit import cross_validate
from pmparse.training.tags.folds import row_folds, source_folds
from pmparse.training.tags.inputs import TagSettings, analysed_docs
from pmparse.training.tags.labels import read_team_labels, team_examples, team_labels_of
from tests.helpers import write_jsonl, write_tree


REPORT = "\n".join([
    "# Checkout errors", "", "## Summary", "",
    "Customers saw server errors on the checkout page for forty minutes.", "",
    "## Root cause", "", "A bug in the retry code of the checkout service caused an endless loop.", "",
    "## Resolution", "", "We rolled back the release.", ""])
OTHER = REPORT.replace("checkout", "search")


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _line(path: str = "acme/one.md", text: str = REPORT, **changes) -> dict:
    row = {"path": path, "sha256": _sha(text), "root_cause_categories": ["software_bug"],
           "contributing_factor_categories": ["testing_gap"],
           "evidence": [{"label": "root_cause_categories.software_bug", "start": 10, "end": 20}], "annotator": "t1"}
    row.update(changes)
    return row



@pytest.fixture
def corpus(tmp_path) -> Path:
    return write_tree(tmp_path / "corpus", {"acme/one.md": REPORT, "acme/two.md": OTHER, "gold/g.md": REPORT})


# --- reading and validating ----------------------------------------------------------------


def test_a_valid_line_gives_full_labels(tmp_path, taxonomy):
    read = read_team_labels([write_jsonl(tmp_path, "a.jsonl", _line(), "")], taxonomy)
    assert [label.path for label in read.labels] == ["acme/one.md"] and read.skipped == []
    labels = team_labels_of(read.labels[0], taxonomy)
    # every id of both groups is labelled, like a gold card: absent ids are negatives
    assert {k for k in labels} == {t.key for g in train_categories.CATEGORY_GROUPS for t in taxonomy.groups[g]}
    assert {k for k, v in labels.items() if v} == {"root_cause_categories.software_bug",
                                                   "contributing_factor_categories.testing_gap"}


@pytest.mark.parametrize("row, message", [
    ("{not json", "expected a category label line"),
    (_line(root_cause_categories=["gremlins"]), "unknown ids ['gremlins']"),
    (_line(contributing_factor_categories=["software_bug"]), "unknown ids ['software_bug']"),
    (_line(root_cause_categories=[]), "expected a category label line"),
    (_line(root_cause_categories=["unknown", "software_bug"]), "`unknown` alone"),
    (_line(root_cause_category=["software_bug"]), "expected a category label line"),  # misspelt key
    ({k: v for k, v in _line().items() if k != "contributing_factor_categories"}, "expected a category label line"),
    (_line(sha256="abc"), "expected a category label line"),
    (_line(path="/etc/passwd"), "relative to the corpus root"),
    (_line(path="acme/../../secret.md"), "relative to the corpus root"),
    (_line(path="./acme/one.md"), "relative to the corpus root"),  # would slip past the gold check
    (_line(path="acme//one.md"), "relative to the corpus root"),
    (_line(evidence=[{"label": "root_cause_categories.capacity_exhaustion", "start": 0, "end": 5}]),
     "evidence for one of the line's labels"),
    (_line(evidence=[{"label": "root_cause_categories.software_bug", "start": 9, "end": 5}]), "start < end"),
])
def test_an_invalid_line_is_a_typed_error_naming_file_and_line(tmp_path, taxonomy, row, message):
    path = write_jsonl(tmp_path, "a.jsonl", _line(path="acme/two.md", text=OTHER), row)
    with pytest.raises(LabelError, match="line 2") as caught:
        read_team_labels([path], taxonomy)
    assert message in str(caught.value) and caught.value.path == str(path)
    assert isinstance(caught.value, PmparseError)


def test_a_document_labelled_twice_keeps_the_first_line_in_file_order(tmp_path, taxonomy):
    first = write_jsonl(tmp_path, "batch_a.jsonl", _line())
    second = write_jsonl(tmp_path, "batch_b.jsonl", _line(root_cause_categories=["configuration_change"], evidence=[], annotator="t2"))
    read = read_team_labels([second, first], taxonomy)
    assert [label.annotator for label in read.labels] == ["t1"]
    assert len(read.skipped) == 1 and "batch_b.jsonl:1" in read.skipped[0] and "batch_a.jsonl:1" in read.skipped[0]


# --- training rows --------------------------------------------------------------------------


def test_team_rows_are_made_like_gold_rows_and_bad_sources_are_skipped(tmp_path, corpus, taxonomy):
    path = write_jsonl(tmp_path, "a.jsonl",
                  _line(),
                  _line(path="acme/two.md", text="an older version of the file"),  # sha256 differs
                  _line(path="acme/gone.md"),  # missing file
                  _line(path="gold/g.md"))  # a gold document
    warnings: list[str] = []
    examples, skipped = team_examples(corpus, taxonomy, 0.5, {"gold/g.md"}, [path], warn=warnings.append)
    assert [(ex.group, ex.source, ex.weight) for ex in examples] == [("acme/one.md", "team", 0.5)]
    focus, whole, _ = category_texts(analysed_docs([corpus / "acme/one.md"])[0])
    assert (examples[0].focus, examples[0].whole) == (focus, whole)  # the inputs a gold row gets
    assert "endless loop" in examples[0].focus
    assert examples[0].labels["root_cause_categories.software_bug"] == 1
    assert examples[0].labels["root_cause_categories.unknown"] == 0
    assert len(skipped) == 3 and len(warnings) == 3
    assert any("acme/two.md" in s and "sha256" in s for s in skipped)
    assert any("acme/gone.md" in s for s in skipped)
    assert any("gold/g.md" in s and "gold" in s for s in skipped)


def test_evidence_outside_an_unchanged_text_is_an_error(tmp_path, corpus, taxonomy):
    path = write_jsonl(tmp_path, "a.jsonl", _line(evidence=[{"label": "root_cause_categories.software_bug",
                                                        "start": 5, "end": len(REPORT) + 1}]))
    with pytest.raises(LabelError, match="inside the text") as caught:
        team_examples(corpus, taxonomy, 1.0, set(), [path])
    assert caught.value.path == str(path) and "line 1:" in str(caught.value) and "acme/one.md" in str(caught.value)


def test_no_label_files_no_rows(tmp_path, corpus, taxonomy):
    assert team_examples(corpus, taxonomy, 1.0, set(), []) == ([], [])


# --- folds ----------------------------------------------------------------------------------

GOLD = [{"path": "acme/g1.md"}, {"path": "acme/g2.md"}, {"path": "beta/g3.md"}, {"path": "beta/g4.md"}]


def _examples() -> list[Example]:
    rows = [Example(row["path"], "f", "w", {"root_cause_categories.software_bug": i % 2})
            for i, row in enumerate(GOLD)]
    rows.append(Example("acme/team.md", "f", "w", {"root_cause_categories.software_bug": 1}, source="team"))
    rows.append(Example("beta/team.md", "f", "w", {"root_cause_categories.software_bug": 0}, source="team"))
    rows.append(Example("icco/1", "f", "w", {"root_cause_categories.software_bug": 1}, source="icco"))
    for ex in rows[:4]:
        ex.source = "gold"
    return rows


def test_document_folds_hold_out_gold_documents_only():
    folds = row_folds(_examples(), GOLD, {0: 0, 1: 1, 2: 0, 3: 1})
    assert folds == {"acme/g1.md": 0, "acme/g2.md": 1, "beta/g3.md": 0, "beta/g4.md": 1}


def test_source_folds_hold_out_every_row_of_a_source():
    assert source_folds(GOLD) == {"acme": 0, "beta": 1}
    folds = row_folds(_examples(), GOLD)
    assert folds == {"acme/g1.md": 0, "acme/g2.md": 0, "beta/g3.md": 1, "beta/g4.md": 1, "acme/team.md": 0,
                     "beta/team.md": 1}  # icco has no gold source: it trains in every fold


@pytest.mark.parametrize("by_source", [False, True])
def test_cross_validation_tests_gold_rows_and_trains_team_rows_outside_their_fold(patch_all, monkeypatch, by_source):
    examples = _examples()
    seen: list[tuple[set[str], set[str]]] = []

    class Stub:
        def __init__(self, train):
            self.train = train

        def predict_rows(self, rows):
            return [{"root_cause_categories.software_bug": 0.9} for _ in rows]

    def fake_fit(train, rows, taxonomy, settings, name="categories", hashed=None):
        seen.append(({ex.group for ex in train}, set()))
        return Stub(train)

    patch_all(train_categories, "fit", fake_fit)
    folds = row_folds(examples, GOLD, None if by_source else {0: 0, 1: 1, 2: 0, 3: 1})
    probs = cross_validate(examples, np.full((len(examples), 3), "", dtype=object), None, TagSettings(), folds)
    assert [bool(p) for p in probs] == [True] * 4 + [False] * 3  # only gold rows are scored
    assert len(seen) == 2
    for (trained, _), held in zip(seen, (0, 1)):
        tested = {g for g, f in folds.items() if f == held and not g.endswith("team.md")}
        assert not trained & tested and "icco/1" in trained
        if by_source:  # the held-out source's team row leaves training with it
            assert ("acme/team.md" in trained) == (held == 1) and ("beta/team.md" in trained) == (held == 0)
        else:  # team rows train in every fold
            assert {"acme/team.md", "beta/team.md"} <= trained


def _fitting_rows() -> tuple[list[Example], np.ndarray]:
    """Rows a real fit learns from: three sources, one category told by its words."""
    bug = ["A bug in the {} code looped forever.", "The {} release held a coding error.",
           "A null check was missing in the {} service."]
    other = ["A power cut took the {} racks down.", "The {} disk filled up overnight.",
             "A storm cut the {} site off."]
    examples, rows = [], []
    for s, source in enumerate(("acme", "beta", "gamma")):
        for i in range(8):
            text = (bug if i % 2 else other)[(i + s) % 3].format(f"{source} {i}")
            examples.append(Example(f"{source}/{i}.md", text, text + " Customers saw errors.",
                                    {"root_cause_categories.software_bug": i % 2}))
            rows.append([text, text + " Customers saw errors.", ""])
    return examples, np.array(rows, dtype=object)


def test_folds_fitted_in_worker_processes_give_the_same_probabilities(taxonomy):
    examples, rows = _fitting_rows()
    folds = {ex.group: k for k, name in enumerate(("acme", "beta", "gamma"))
             for ex in examples if ex.group.startswith(name)}
    alone = cross_validate(examples, rows, taxonomy, TagSettings(), folds, jobs=1)
    together = cross_validate(examples, rows, taxonomy, TagSettings(), folds, jobs=2)
    assert all(p for p in alone) and together == alone
    # the bug reports are told apart held out: the model learnt something, not a constant
    key = "root_cause_categories.software_bug"
    assert np.mean([p[key] for p, ex in zip(alone, examples) if ex.labels[key]]) > \
        np.mean([p[key] for p, ex in zip(alone, examples) if not ex.labels[key]])


def test_evidence_rows_train_on_the_annotators_stretches(tmp_path, corpus, taxonomy):
    path = write_jsonl(tmp_path, "a.jsonl", _line(evidence=[{"label": "root_cause_categories.software_bug", "start": 60,
                                                        "end": 80}, {"label": "contributing_factor_categories."
                                                                     "testing_gap", "start": 2, "end": 10}]))
    examples, _ = team_examples(corpus, taxonomy, 1.0, set(), [path], evidence=True)
    assert [ex.source for ex in examples] == ["team", "team_evidence"]
    assert examples[1].focus == REPORT[2:10] + "\n" + REPORT[60:80]
    assert examples[1].labels == examples[0].labels and examples[1].whole == examples[0].whole


def test_train_categories_stops_on_a_bad_label_file_before_training(patch_all, tmp_path, corpus, monkeypatch):
    from click.testing import CliRunner

    from pmparse.cli import main

    def no_pipeline(*args, **kwargs):
        raise AssertionError("the pipeline ran before the labels were checked")

    patch_all(train_categories, "analysed_docs", no_pipeline)
    gold = write_jsonl(tmp_path, "gold.jsonl", {"id": "gold/g", "path": "gold/g.md", "card": {}})
    labels = write_jsonl(tmp_path, "batch.jsonl", _line(root_cause_categories=["gremlins"]))
    result = CliRunner().invoke(main, ["train-categories", "--corpus", str(corpus), "--gold", str(gold), "--labels",
                                       str(labels), "-o", str(tmp_path / "model")])
    assert result.exit_code == 2
    assert "batch.jsonl: line 1: expected root_cause_categories ids of the taxonomy" in result.output
    assert not (tmp_path / "model").exists()


def test_a_copy_of_a_gold_document_under_another_name_is_not_a_team_row(tmp_path, corpus, taxonomy):
    path = write_jsonl(tmp_path, "a.jsonl", _line())
    gold_sha = json.loads(path.read_text().splitlines()[0])["sha256"]
    examples, skipped = team_examples(corpus, taxonomy, 0.5, set(), [path], gold_shas={gold_sha})
    assert examples == [] and "gold" in skipped[0]


def test_a_label_file_that_is_not_utf8_is_a_label_error(tmp_path, taxonomy):
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"\xff\xfe not utf-8")
    with pytest.raises(LabelError, match="UTF-8"):
        read_team_labels([bad], taxonomy)


# --- agreement of two label passes ------------------------------------------------------------


def test_label_agreement_compares_the_documents_both_passes_labelled(tmp_path, taxonomy):
    from click.testing import CliRunner

    from pmparse.cli import main
    from pmparse.training.tags.agreement import label_agreement

    first = write_jsonl(tmp_path, "first.jsonl", _line(),
                   _line(path="acme/two.md", text=OTHER, root_cause_categories=["configuration_change"],
                         contributing_factor_categories=[], evidence=[]),
                   _line(path="acme/three.md", annotator="t1"))  # not in the second pass
    second = write_jsonl(tmp_path, "second.jsonl", _line(annotator="s1"),
                    _line(path="acme/two.md", text=OTHER, root_cause_categories=["operator_error"],
                          contributing_factor_categories=["process"], evidence=[], annotator="s1"))
    agreement = label_agreement(read_team_labels([first], taxonomy), read_team_labels([second], taxonomy))
    assert agreement["documents"] == 2
    root = agreement["root_cause_categories"]
    assert root["exact"] == 0.5 and root["f1"] == 0.5  # one of two causes agreed
    factors = agreement["contributing_factor_categories"]
    assert factors["exact"] == 0.5 and factors["precision"] == 0.5 and factors["recall"] == 1.0
    result = CliRunner().invoke(main, ["train-categories", "--labels", str(first), "--agreement", str(second)])
    assert result.exit_code == 0 and "on 2 documents" in result.output and "| root cause categories | 0.500" in result.output


def test_component_cross_validation_keeps_the_most_likely_candidate_when_none_is_sure():
    from pmparse.training.tags.fit import ComponentData, cv_components

    rng = np.random.default_rng(0)
    docs = np.repeat(np.arange(6), 3)  # six documents, three candidates each
    y = np.tile([1, 0, 0], 6)
    x = np.column_stack([y + rng.normal(0, 0.1, len(y)), rng.normal(0, 1, len(y))])
    keys = [f"components.{name}" for name in ("cache", "dns", "network")] * 6
    data = ComponentData(x, y, docs, keys, {i: {"cache"} for i in range(6)})
    folds = {i: i % 3 for i in range(6)}
    # a threshold nothing reaches: no component at all, or the most likely one of each document
    never = cv_components(data, TagSettings(component_threshold=1.01, component_keep_best=False), folds)
    assert never["recall"] == 0.0
    best = cv_components(data, TagSettings(component_threshold=1.01, component_keep_best=True), folds)
    assert best["precision"] == best["recall"] == 1.0


# --- component labels -----------------------------------------------------------------------


def _component_line(path: str = "acme/one.md", text: str = REPORT, **changes) -> dict:
    row = {"path": path, "sha256": _sha(text), "components": ["web_application"],
           "evidence": [{"label": "components.web_application", "start": 30, "end": 60}], "annotator": "k1"}
    row.update(changes)
    return row


def test_a_valid_component_line_is_read_and_an_empty_list_means_none_involved(tmp_path, taxonomy):
    from pmparse.training.tags.labels import read_component_labels

    path = write_jsonl(tmp_path, "batch_k1.jsonl", _component_line(),
                  _component_line(path="acme/two.md", text=OTHER, components=[], evidence=[]))
    read = read_component_labels([path], taxonomy)
    assert [(label.path, label.components) for label in read.labels] == [("acme/one.md", ["web_application"]),
                                                                          ("acme/two.md", [])]


@pytest.mark.parametrize("row, message", [
    (_component_line(components=["flux_capacitor"], evidence=[]), "expected component ids of the taxonomy"),
    (_component_line(evidence=[{"label": "components.dns", "start": 1, "end": 5}]), "found 'components.dns'"),
    (_component_line(evidence=[{"label": "components.web_application", "start": 9, "end": 9}]), "start < end"),
    (_component_line(path="../acme/one.md"), "plain path"),
    ({**_component_line(), "component": ["dns"]}, "expected a component label line"),
    ("{not json", "expected a component label line"),
])
def test_an_invalid_component_line_is_a_typed_error_naming_file_and_line(tmp_path, taxonomy, row, message):
    from pmparse.training.tags.labels import read_component_labels

    path = write_jsonl(tmp_path, "batch_k1.jsonl", _component_line(path="acme/two.md", text=OTHER), row)
    with pytest.raises(LabelError, match="line 2") as caught:
        read_component_labels([path], taxonomy)
    assert message in str(caught.value) and caught.value.path == str(path)


def test_team_component_documents_skip_gold_and_changed_sources(tmp_path, corpus, taxonomy):
    from pmparse.training.tags.fit import team_component_docs

    path = write_jsonl(tmp_path, "batch_k1.jsonl", _component_line(),
                  _component_line(path="acme/two.md", text="an older text"),  # sha256 differs
                  _component_line(path="gold/g.md"))  # a gold document
    warnings: list[str] = []
    docs, skipped = team_component_docs(corpus, taxonomy, {"gold/g.md"}, [path], warn=warnings.append)
    assert [(p, comps) for p, _, comps in docs] == [("acme/one.md", {"web_application"})]
    assert docs[0][1].text.startswith("# Checkout errors")
    assert len(skipped) == 2 and all(w.startswith("component labels: skipped") for w in warnings)


def test_component_rows_of_team_documents_train_but_are_never_scored(tmp_path, corpus, taxonomy):
    from pmparse.nlp.tag_reading import Matchers
    from pmparse.training.tags.fit import component_data
    from pmparse.training.tags.inputs import untagged_pipeline

    texts = {"acme/db.md": "# Slow pages\n\nThe primary database ran out of connections, so the cache missed.\n",
             "beta/dns.md": "# Lookups failed\n\nThe DNS resolver dropped queries after a network change.\n"}
    for rel, text in texts.items():
        (corpus / rel).parent.mkdir(parents=True, exist_ok=True)
        (corpus / rel).write_text(text, encoding="utf-8")
    docs = analysed_docs([corpus / rel for rel in texts])
    gold = [{"path": "acme/db.md", "card": {"components": ["database"]}}]
    matchers = Matchers(untagged_pipeline(), taxonomy)
    ids = taxonomy.ids("components")
    alone = component_data(gold, docs[:1], matchers, ids)
    data = component_data(gold, docs[:1], matchers, ids, team=[("beta/dns.md", docs[1], {"dns"})])
    assert {k for k in alone.keys} >= {"components.database", "components.cache"}
    assert data.gold == alone.gold == {0: {"database"}}
    team = data.team_rows()
    assert team.sum() == len(data.y) - len(alone.y) > 0
    labelled = {data.keys[i]: int(data.y[i]) for i in np.where(team)[0]}
    assert labelled["components.dns"] == 1 and labelled.get("components.network") == 0
    assert set(data.doc[team]) == {1} and {data.source[i] for i in np.where(team)[0]} == {"beta"}


@pytest.mark.parametrize("by_source", [False, True])
def test_component_cross_validation_holds_out_team_rows_with_their_source(patch_all, monkeypatch, by_source):
    from pmparse.training.tags.fit import ComponentData, cv_components

    trained: list[set[int]] = []
    real_fit = train_categories.fit_components

    def spy(data, settings, rows=None):
        trained.append({int(data.doc[r]) for r in rows})
        return real_fit(data, settings, rows)

    patch_all(train_categories, "fit_components", spy)
    docs = np.repeat(np.arange(6), 2)  # gold 0-3 (sources a, a, b, b), team 4 (a) and 5 (b)
    y = np.tile([1, 0], 6)
    x = np.column_stack([y + 0.1 * np.arange(12) % 0.3, np.ones(12)])
    keys = ["components.cache", "components.dns"] * 6
    data = ComponentData(x, y, docs, keys, {i: {"cache"} for i in range(4)}, ["a"] * 4 + ["b"] * 4 + ["a", "a", "b", "b"])
    folds = {0: 0, 1: 0, 2: 1, 3: 1}
    scores = cv_components(data, TagSettings(), folds, {"a": 0, "b": 1} if by_source else None)
    assert len(trained) == 2 and scores["f1"] == 1.0
    for held, seen in zip((0, 1), trained):
        assert not seen & {d for d, f in folds.items() if f == held}
        if by_source:
            assert (4 in seen) == (held == 1) and (5 in seen) == (held == 0)
        else:
            assert {4, 5} <= seen


def test_component_agreement_compares_two_passes_and_the_cli_prints_it(tmp_path, taxonomy):
    from click.testing import CliRunner

    from pmparse.cli import main
    from pmparse.training.tags.agreement import component_agreement
    from pmparse.training.tags.labels import read_component_labels

    first = write_jsonl(tmp_path, "batch_k1.jsonl", _component_line(components=["web_application", "database"]),
                   _component_line(path="acme/two.md", text=OTHER, components=["search"], evidence=[]))
    second = write_jsonl(tmp_path, "second.jsonl", _component_line(annotator="cs1"),
                    _component_line(path="acme/two.md", text=OTHER, components=["search"], evidence=[],
                                    annotator="cs1"))
    agreement = component_agreement(read_component_labels([first], taxonomy),
                                    read_component_labels([second], taxonomy))
    scores = agreement["components"]
    assert agreement["documents"] == 2 and scores["exact"] == 0.5
    assert scores["precision"] == 1.0 and scores["recall"] == pytest.approx(2 / 3, abs=1e-3)
    runner = CliRunner()
    result = runner.invoke(main, ["train-categories", "--component-labels", str(first), "--component-agreement",
                                  str(second)])
    assert result.exit_code == 0 and "on 2 documents" in result.output and "| components | 0.800" in result.output
    both = runner.invoke(main, ["train-categories", "--agreement", str(second), "--component-agreement", str(second)])
    assert both.exit_code == 2 and "found both" in both.output
    crossed = runner.invoke(main, ["train-categories", "--labels", str(first), "--component-agreement", str(second)])
    assert crossed.exit_code == 2 and "crossed" in crossed.output
    elsewhere = write_jsonl(tmp_path, "other.jsonl", _component_line(path="beta/three.md", annotator="cs1"))
    none_shared = runner.invoke(main, ["train-categories", "--component-labels", str(first), "--component-agreement",
                                       str(elsewhere)])
    assert none_shared.exit_code == 2 and "found none in" in none_shared.output and "other.jsonl" in none_shared.output


def test_train_scores_components_with_team_rows_held_out_by_source_only_in_the_source_run(patch_all, tmp_path, monkeypatch):
    """The wiring of train(): team component labels reach the component data, and only the
    leave-one-source-out run hands cv_components the source folds (else team rows of the held-out
    source would train in its fold)."""
    from pmparse.training.tags.fit import ComponentData
    from pmparse.training.tags.train import train

    texts = {"acme/g1.md": "# Slow\n\nThe primary database ran out of connections.\n",
             "beta/g2.md": "# Lookups\n\nThe DNS resolver dropped queries.\n",
             "acme/t1.md": "# Cache\n\nThe cache cluster evicted every key.\n"}
    root = tmp_path / "corpus"
    for rel, text in texts.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    gold = write_jsonl(tmp_path, "gold.jsonl",
                  {"id": "acme/g1", "path": "acme/g1.md", "sha256": _sha(texts["acme/g1.md"]),
                   "card": {"root_cause_categories": ["capacity_exhaustion"], "components": ["database"]}},
                  {"id": "beta/g2", "path": "beta/g2.md", "sha256": _sha(texts["beta/g2.md"]),
                   "card": {"root_cause_categories": ["software_bug"], "components": ["dns"]}})
    labels = write_jsonl(tmp_path, "labels.jsonl")  # no category labels
    components = write_jsonl(tmp_path, "batch_k1.jsonl", _component_line(path="acme/t1.md", text=texts["acme/t1.md"],
                                                                       components=["cache"], evidence=[]))
    calls: list[tuple[ComponentData, dict | None]] = []

    def spy(data, settings, fold_of, source_fold=None):
        calls.append((data, source_fold))
        return {"precision": 1.0, "recall": 1.0, "f1": 1.0, "macro_f1": 1.0}

    report = {group: {"precision": 0.5, "recall": 0.5, "f1": 0.5, "macro_f1": 0.5} for group in
              ("root_cause_categories", "contributing_factor_categories")}
    report["root_cause_primary"] = {"documents": 1, "share": 1.0}
    patch_all(train_categories, "cv_components", spy)
    patch_all(train_categories, "cross_validate", lambda examples, *a, **k: [{} for _ in examples])
    patch_all(train_categories, "cv_report", lambda *a, **k: {name: dict(v) for name, v in report.items()})
    patch_all(train_categories, "model_card", lambda summary: "card")
    settings = TagSettings(repeats=1, min_positives=100, written_cards=False)
    summary = train(tmp_path / "model", str(root), [gold], settings, label_files=[labels],
                    component_label_files=[components], card_files=[])
    assert summary["component_team"]["documents"] == 1 and summary["component_candidates"] == 2
    assert len(calls) == 2
    (by_documents, none), (by_sources, folds) = calls
    assert none is None and folds == {"acme": 0, "beta": 1}
    team = by_sources.team_rows()
    assert [by_sources.keys[i] for i in range(len(team)) if team[i]] == ["components.cache"]
    assert [by_sources.source[i] for i in range(len(team)) if team[i]] == ["acme"]


def test_label_and_gold_path_patterns_name_the_corpus_file(tmp_path, corpus, taxonomy):
    from pmparse.evaluation.gold_cards import read_gold
    from pmparse.training.tags.labels import labelled_texts

    (corpus / "acme" / "two-more.md").write_text(OTHER, encoding="utf-8")  # "acme/t*.md" now matches two
    labels = write_jsonl(tmp_path, "a.jsonl", _line(path="acme/o*.md"), _line(path="acme/t*.md", text=OTHER))
    kept, skipped = labelled_texts(corpus, read_team_labels([labels], taxonomy), set())
    assert [(label.path, text) for label, text in kept] == [("acme/one.md", REPORT)]
    assert skipped == ["acme/t*.md: expected one corpus file to match, found none or several"]
    # a gold document named by a pattern is still recognised as gold
    assert labelled_texts(corpus, read_team_labels([labels], taxonomy), {"acme/one.md"})[0] == []
    gold = write_jsonl(tmp_path, "gold.jsonl", {"id": "gold/g", "path": "gold/*.md", "card": {}})
    assert read_gold([gold])[0]["path"] == "gold/*.md"
    assert read_gold([gold], corpus)[0]["path"] == "gold/g.md"


def test_span_rows_train_root_cause_categories_on_the_annotated_cause(tmp_path, corpus, taxonomy):
    path = write_jsonl(tmp_path, "a.jsonl", _line(), _line(path="acme/two.md", text=OTHER))
    cause = (REPORT.index("A bug"), REPORT.index("endless loop.") + len("endless loop."))
    examples, _ = team_examples(corpus, taxonomy, 0.5, set(), [path],
                                spans={"acme/one.md": [cause], "acme/two.md": []})
    assert [(ex.group, ex.source) for ex in examples] == [("acme/one.md", "team"), ("acme/one.md", "team_spans"),
                                                           ("acme/two.md", "team")]
    row = examples[1]
    assert row.focus == REPORT[cause[0]:cause[1]] and row.weight == 0.5 and row.whole == examples[0].whole
    # only root-cause labels: the contributing factors are not in that focus, so they stay unknown
    assert row.labels and all(k.startswith("root_cause_categories.") for k in row.labels)
    assert row.labels == {k: v for k, v in examples[0].labels.items() if k.startswith("root_cause_categories.")}


def test_build_examples_reads_spans_only_when_asked_and_never_for_gold(tmp_path, corpus, taxonomy):
    from pmparse.training.tags.inputs import TagSettings, analysed_docs
    from pmparse.training.tags.train import build_examples

    labels = write_jsonl(tmp_path, "a.jsonl", _line())
    cause = {"field": "root_cause", "start": REPORT.index("A bug"), "end": REPORT.index("endless loop.") + 13}
    spans = write_jsonl(tmp_path, "s.jsonl", *({"id": f"train/{p[:-3]}", "path": p, "sha256": _sha(REPORT),
                                                "annotated": ["root_cause"], "spans": [cause], "annotator": "t1"}
                                               for p in ("gold/g.md", "acme/one.md")))
    # (no sha256 on the gold line: the fixture's gold file has the same text as acme/one.md)
    gold = [{"id": "gold/g", "path": "gold/g.md", "card": {"root_cause_categories": ["software_bug"]}}]
    docs = analysed_docs([corpus / "gold/g.md"])
    warnings: list[str] = []
    files = dict(label_files=[labels], span_files=[spans], card_files=[])
    on, _ = build_examples(corpus, taxonomy, TagSettings(written_cards=False), gold, docs, warn=warnings.append, **files)
    off, _ = build_examples(corpus, taxonomy, TagSettings(team_spans=False, written_cards=False), gold, docs, **files)
    rows = [(ex.group, ex.source) for ex in on if ex.source.startswith(("team", "gold"))]
    assert ("acme/one.md", "team_spans") in rows and ("gold/g.md", "team_spans") not in rows
    assert any("gold/g.md: a gold" in w for w in warnings)
    assert [ex for ex in off if ex.source == "team_spans"] == []
    assert len(on) == len(off) + 1


def test_cli_train_categories_no_spans_and_no_cards_turn_their_rows_off(patch_all, tmp_path, monkeypatch):
    from click.testing import CliRunner

    from pmparse.cli import main

    seen = {}

    def fake_train(output, corpus, gold_files, settings, *args, **kwargs):
        seen["team_spans"], seen["field_cards"] = settings.team_spans, settings.field_cards
        raise LabelError("stopped here", "x")

    patch_all(train_categories, "train", fake_train)
    for args, spans, cards in (([], True, True), (["--no-spans"], False, True), (["--no-cards"], True, False)):
        result = CliRunner().invoke(main, ["train-categories", "--no-eval", *args])
        assert result.exit_code == 2 and seen == {"team_spans": spans, "field_cards": cards}


def test_the_primary_root_cause_is_the_most_probable_category_chosen_and_is_scored_held_out():
    from pmparse.evaluation.gold_cards import Example
    from pmparse.training.tags.fit import cv_report, primary_of
    from pmparse.training.tags.inputs import TagSettings

    probs = {"root_cause_categories.software_bug": 0.6, "root_cause_categories.configuration_change": 0.9,
             "root_cause_categories.capacity_exhaustion": 0.95}
    assert primary_of(probs, {"software_bug", "configuration_change"}) == "configuration_change"
    assert primary_of(probs, set()) is None

    def gold(path: str, *named: str) -> Example:
        return Example(path, "focus", "whole", {f"root_cause_categories.{n}": 1 for n in named})

    examples = [gold("a/1.md", "configuration_change"), gold("a/2.md", "capacity_exhaustion", "software_bug"),
                gold("b/3.md"), Example("b/4.md", "f", "w", {"root_cause_categories.software_bug": 1}, source="team")]
    sure = {"root_cause_categories.configuration_change": 0.97, "root_cause_categories.software_bug": 0.96}
    report = cv_report(examples, [sure, sure, sure, sure], TagSettings())
    # the first is right, the second's primary (configuration change) is not the gold's; the third
    # names no category and the team row is not gold: two documents count
    assert report["root_cause_primary"] == {"documents": 2, "share": 0.5}
