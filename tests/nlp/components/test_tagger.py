"""Taxonomy, tagger and category decisions by rules and cues, on text written for these tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import spacy
from hypothesis import given
from hypothesis import strategies as st
from spacy.tokens import Span
from spacy.util import filter_spans

from pmparse.errors import RulesError
from pmparse.evaluation.gold_cards import gold_labels
from pmparse.ingest.read import ingest_bytes
from pmparse.nlp.component_candidates import keep_components, score_components
from pmparse.nlp.components.tagger import Tagger, decide_categories
from pmparse.nlp.pipeline import PipelineConfig, analyse, get
from pmparse.nlp.tag_reading import Matchers, cue_string, cue_vocabulary, longest_first
from pmparse.rules.taxonomy import load_taxonomy
from pmparse.training.tags.fit import decide
from pmparse.training.tags.inputs import TagSettings
from pmparse.training.tags.labels import icco_examples


ISSUE_IDS = {
    "root_cause_categories": ["hardware_failure", "power_or_facility", "software_bug", "configuration_change",
                              "capacity_exhaustion", "dependency_failure", "operator_error", "security_incident",
                              "expiry_or_time", "unknown"],
    "contributing_factor_categories": ["organisation", "process", "monitoring_gap", "automation", "testing_gap",
                                       "design", "documentation"],
    "components": ["database", "database_failover_manager", "cache", "message_queue", "object_storage",
                   "block_storage", "network", "dns", "load_balancer", "cdn", "kubernetes_control_plane",
                   "container_platform", "compute_node", "gpu_accelerator", "authentication", "certificates_tls",
                   "deployment_pipeline", "configuration_management", "monitoring_alerting", "logging",
                   "power_cooling", "backup", "search", "web_application"],
}


# --- taxonomy -------------------------------------------------------------------------------


def test_packaged_taxonomy_has_every_id_with_names_descriptions_and_synonyms():
    taxonomy = load_taxonomy()
    for group, ids in ISSUE_IDS.items():
        assert set(ids) <= set(taxonomy.ids(group)), group
        for taxon in taxonomy.groups[group]:
            assert taxon.name and taxon.description and taxon.synonyms, taxon.key
    names = taxonomy.names()
    assert names["root_cause_categories.hardware_failure"] == "Hardware failure"
    assert names["contributing_factor_categories.organisation"] == "Organisation"
    assert names["components.database_failover_manager"] == "Database failover manager"
    assert taxonomy.map_label("icco_categories", "config-change") == ("root_cause_categories.configuration_change",)


def _write(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "taxonomy.yaml"
    path.write_text(json.dumps(data), encoding="utf-8")  # JSON is YAML
    return path


def test_extend_adds_ids_and_synonyms(tmp_path):
    path = _write(tmp_path, {"version": 2, "mode": "extend", "groups": {"components": [
        {"id": "queue_worker", "name": "Queue worker", "description": "Consumers of job queues.",
         "synonyms": ["sidekiq"]},
        {"id": "database", "synonyms": ["vitessdb"]},
    ]}})
    taxonomy = load_taxonomy(path)
    assert taxonomy.version == "1+custom.2"
    assert "queue_worker" in taxonomy.ids("components")
    database = taxonomy.get("components", "database")
    assert "vitessdb" in database.synonyms and "postgres" in database.synonyms
    assert database.name == "Database"
    assert "software_bug" in taxonomy.ids("root_cause_categories")


def test_replace_keeps_only_the_file(tmp_path):
    path = _write(tmp_path, {"version": 1, "mode": "replace", "groups": {"components": [
        {"id": "mainframe", "name": "Mainframe", "description": "Big iron.", "synonyms": ["mainframe"]}]}})
    taxonomy = load_taxonomy(path)
    assert taxonomy.ids("components") == ["mainframe"]
    assert taxonomy.ids("root_cause_categories") == []
    assert taxonomy.version == "custom.1"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"version": 1, "groups": {"components": [{"id": "x", "name": "X", "description": "d",
                                                    "patterns": ["(unclosed"]}]}}, "does not compile"),
        ({"version": 1, "groups": {"components": [{"id": "Bad-Id", "name": "X", "description": "d"}]}},
         "lower_snake_case"),
        ({"version": 1, "groups": {"components": [{"id": "x", "name": "X", "description": "d"},
                                                   {"id": "x", "name": "Y", "description": "d"}]}}, "twice"),
        ({"version": 1, "groups": {"components": [{"id": "newthing", "synonyms": ["a"]}]}}, "expected a name"),
        ({"version": 1, "colour": "red"}, "colour: not a known key"),
        ({"version": 1, "label_maps": {"icco_categories": {"x": ["components.nope"]}}}, "unknown ids"),
        (["not", "a", "mapping"], "expected a mapping"),
    ],
)
def test_invalid_taxonomy_files_raise_rules_errors(tmp_path, data, message):
    with pytest.raises(RulesError, match=message) as info:
        load_taxonomy(_write(tmp_path, data))
    assert str(tmp_path) in str(info.value)


# --- components -----------------------------------------------------------------------------


def test_score_components_counts_by_region_and_once_per_unit():
    regions = {"title": [(0, 20)], "root_cause": [(30, 80)], "action_items": [(90, 120)]}
    matches = [("components.database", 2, 10), ("components.database", 35, 40), ("components.database", 50, 55),
               ("components.dns", 95, 98)]
    scores = score_components(matches, regions)
    assert scores["components.database"][0] == pytest.approx(1.5 + 1.0)
    assert "components.dns" not in scores
    assert keep_components(scores, 1.0, 0.0) == ["components.database"]
    scores["components.cache"] = (1.1, [])
    assert keep_components(scores, 1.0, 0.5) == ["components.database"]


def _tagged(text: str, name: str = "notes/report.md"):
    nlp = get(PipelineConfig(tagger=False))
    doc = analyse(nlp, ingest_bytes(text.encode(), name))
    tagger = Tagger(nlp, load_taxonomy(), None, 1.0, 0.5, 0.25)
    return tagger(doc)


def test_component_named_where_it_failed_is_a_tag_and_in_an_unrelated_line_is_not():
    text = ("# Orders were lost\n\n## Root cause\n\nThe Postgres database ran out of connections and "
            "the primary database refused writes.\n\n## Action items\n\n- Review the DNS runbook next quarter.\n")
    doc = _tagged(text)
    tags = doc.user_data["pmparse_tags"]
    assert "components.database" in tags
    assert "components.dns" not in tags
    evidence = tags["components.database"]["evidence"]
    assert evidence and all(text[s:e].lower() in ("postgres", "database", "primary database") for s, e in evidence)
    assert doc.user_data["pmparse_tag_names"]["components.database"] == "Database"


def test_without_a_model_categories_come_from_cues_in_the_focused_units():
    text = ("# Certificate trouble\n\n## Root cause\n\nThe TLS certificate of the edge had expired overnight.\n\n"
            "## Lessons learned\n\n- Spread knowledge of the renewal job.\n")
    doc = _tagged(text)
    tags = doc.user_data["pmparse_tags"]
    assert "root_cause_categories.expiry_or_time" in tags
    assert tags["root_cause_categories.expiry_or_time"]["origin"] == "taxonomy"
    assert doc.cats["root_cause_categories.expiry_or_time"] > 0


# --- decisions ------------------------------------------------------------------------------


def test_decide_categories_thresholds_fallback_cues_and_unknown():
    probs = {"root_cause_categories.software_bug": 0.7, "root_cause_categories.unknown": 0.6,
             "root_cause_categories.operator_error": 0.2, "contributing_factor_categories.process": 0.3}
    assert decide_categories(probs, "root_cause_categories", 0.5, None) == ["root_cause_categories.software_bug"]
    low = {"root_cause_categories.software_bug": 0.3, "root_cause_categories.operator_error": 0.1}
    assert decide_categories(low, "root_cause_categories", 0.5, 0.25) == ["root_cause_categories.software_bug"]
    assert decide_categories(low, "root_cause_categories", 0.5, 0.4) == []
    assert decide_categories(low, "root_cause_categories", 0.5, None, ["root_cause_categories.operator_error"],
                             0.1) == ["root_cause_categories.operator_error"]
    assert decide_categories(probs, "contributing_factor_categories", 0.5, None) == []


def test_an_unsure_root_cause_is_unknown_when_asked():
    low = {"root_cause_categories.software_bug": 0.3, "root_cause_categories.operator_error": 0.1}
    # nothing reaches the fallback: unknown instead of nothing
    assert decide_categories(low, "root_cause_categories", 0.5, 0.4, unsure_unknown=True) == [
        "root_cause_categories.unknown"]
    # a cause that reaches the fallback, or a cue-gated one, is kept as before
    assert decide_categories(low, "root_cause_categories", 0.5, 0.25, unsure_unknown=True) == [
        "root_cause_categories.software_bug"]
    assert decide_categories(low, "root_cause_categories", 0.5, 0.4, ["root_cause_categories.operator_error"], 0.1,
                             unsure_unknown=True) == ["root_cause_categories.operator_error"]
    # no fallback (contributing factors): never unknown
    assert decide_categories({"contributing_factor_categories.process": 0.1}, "contributing_factor_categories", 0.5,
                             None, unsure_unknown=True) == []


def test_root_causes_are_limited_to_the_most_likely():
    probs = {"root_cause_categories.software_bug": 0.9, "root_cause_categories.configuration_change": 0.6,
             "root_cause_categories.capacity_exhaustion": 0.5, "root_cause_categories.operator_error": 0.2}
    cues = ["root_cause_categories.operator_error"]
    every = decide_categories(probs, "root_cause_categories", 0.4, 0.25, cues, 0.1)
    assert every == ["root_cause_categories.software_bug", "root_cause_categories.configuration_change",
                     "root_cause_categories.capacity_exhaustion", "root_cause_categories.operator_error"]
    assert decide_categories(probs, "root_cause_categories", 0.4, 0.25, cues, 0.1, max_keys=2) == every[:2]
    # a cue-gated key is below the threshold: it goes last, the first to be cut
    assert decide_categories(probs, "root_cause_categories", 0.4, 0.25, cues, 0.1, max_keys=4) == every
    assert decide_categories(probs, "root_cause_categories", 0.4, 0.25, cues, 0.1, max_keys=0) == every
    # unknown beside a disclosed cause is dropped before the limit, not kept in a slot
    with_unknown = {**probs, "root_cause_categories.unknown": 0.95}
    assert decide_categories(with_unknown, "root_cause_categories", 0.4, 0.25, max_keys=2) == every[:2]


def test_a_cue_alone_does_not_outweigh_an_undisclosed_cause():
    low = {"root_cause_categories.software_bug": 0.2, "root_cause_categories.operator_error": 0.12}
    cues = ["root_cause_categories.operator_error"]
    # before: the cue at 0.12 is a cause, though even the best cause misses the fallback
    assert decide_categories(low, "root_cause_categories", 0.4, 0.25, cues, 0.1, unsure_unknown=True) == [
        "root_cause_categories.operator_error"]
    assert decide_categories(low, "root_cause_categories", 0.4, 0.25, cues, 0.1, unsure_unknown=True,
                             cue_needs_fallback=True) == ["root_cause_categories.unknown"]
    assert decide_categories(low, "root_cause_categories", 0.4, 0.25, cues, 0.1, cue_needs_fallback=True) == []
    # the best cause reaching the fallback: cue-gated causes count as before
    fair = {**low, "root_cause_categories.software_bug": 0.3}
    assert decide_categories(fair, "root_cause_categories", 0.4, 0.25, cues, 0.1, unsure_unknown=True,
                             cue_needs_fallback=True) == ["root_cause_categories.operator_error"]
    # a cause over the threshold: cue-gated causes join it as before
    high = {**low, "root_cause_categories.software_bug": 0.8}
    assert decide_categories(high, "root_cause_categories", 0.4, 0.25, cues, 0.1, unsure_unknown=True,
                             cue_needs_fallback=True) == ["root_cause_categories.software_bug",
                                                          "root_cause_categories.operator_error"]


def test_training_decisions_use_the_root_cause_limit_and_cue_rule():
    probs = {"root_cause_categories.software_bug": 0.9, "root_cause_categories.configuration_change": 0.6,
             "root_cause_categories.capacity_exhaustion": 0.5, "contributing_factor_categories.process": 0.9,
             "contributing_factor_categories.design": 0.8, "contributing_factor_categories.testing_gap": 0.7}
    decided = decide(probs, TagSettings())
    assert decided["root_cause_categories"] == {"software_bug", "configuration_change"}
    # contributing factors are not limited
    assert decided["contributing_factor_categories"] == {"process", "design", "testing_gap"}
    assert len(decide(probs, TagSettings(max_root_causes=0))["root_cause_categories"]) == 3
    low = {"root_cause_categories.software_bug": 0.2, "root_cause_categories.operator_error": 0.12}
    cues = {"root_cause_categories.operator_error"}
    assert decide(low, TagSettings(), cues)["root_cause_categories"] == {"unknown"}
    assert decide(low, TagSettings(cue_needs_fallback=False), cues)["root_cause_categories"] == {"operator_error"}


def test_cue_words_and_vocabulary():
    from collections import Counter

    text = cue_string(Counter({"root_cause_categories.software_bug": 7}), Counter({"components.x": 1}), cap=5)
    assert text.split().count("f__root_cause_categories.software_bug") == 5
    vocab = cue_vocabulary(load_taxonomy())
    assert "f__root_cause_categories.software_bug" in vocab and "w__contributing_factor_categories.design" in vocab
    assert not any("components." in word for word in vocab)


def test_gold_labels_and_icco_mapping(tmp_path):
    taxonomy = load_taxonomy()
    labels = gold_labels({"root_cause_categories": ["software_bug"]}, taxonomy)
    assert labels["root_cause_categories.software_bug"] == 1
    assert labels["root_cause_categories.operator_error"] == 0
    assert not any(k.startswith("contributing_factor_categories.") for k in labels)
    icco = tmp_path / "icco.jsonl"
    rows = [
        {"uuid": "a", "title": "Flag flip", "summary": "A flag change broke logins.", "categories": ["config-change"],
         "keywords": ["flag"]},
        {"uuid": "b", "title": "Generator", "summary": "The site lost power.", "categories": ["hardware"],
         "keywords": ["power loss"]},
        {"uuid": "c", "title": "No labels", "summary": "Something.", "categories": []},
    ]
    icco.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    first, second = icco_examples(icco, taxonomy, 0.5)
    assert first.labels["root_cause_categories.configuration_change"] == 1
    assert first.labels["root_cause_categories.hardware_failure"] == 0
    assert "root_cause_categories.software_bug" not in first.labels
    assert second.labels["root_cause_categories.power_or_facility"] == 1
    assert second.weight == 0.5 and second.source == "icco"


def test_taxonomy_file_extends_the_tags_of_convert(tmp_path):
    from pmparse.batch.suggest import suggest

    taxonomy = _write(tmp_path, {"version": 1, "mode": "extend", "groups": {"components": [
        {"id": "job_runner", "name": "Job runner", "description": "Background job processors.",
         "synonyms": ["sidekiq"]}]}})
    report = tmp_path / "report.md"
    report.write_text("# Sidekiq backlog\n\n## Root cause\n\nThe Sidekiq workers stopped picking up jobs after the "
                      "sidekiq upgrade.\n", encoding="utf-8")
    card, _ = suggest(str(report), PipelineConfig(taxonomy_path=str(taxonomy)))
    assert "job_runner" in card.components
    assert card.support["components.job_runner"].origin == "taxonomy"
    plain, _ = suggest(str(report), PipelineConfig())
    assert "job_runner" not in plain.components


def test_convert_refuses_an_invalid_taxonomy_before_reading_inputs(tmp_path):
    from click.testing import CliRunner

    from pmparse.cli import main

    bad = _write(tmp_path, {"version": 1, "colour": "red"})
    report = tmp_path / "report.md"
    report.write_text("# A report\n\nText.\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["convert", str(report), "-o", str(tmp_path / "lib"), "--taxonomy", str(bad)])
    assert result.exit_code == 2
    assert "invalid taxonomy" in result.output and str(bad) in result.output
    assert not (tmp_path / "lib").exists()


def test_taxonomy_patterns_match_case_insensitively_with_exact_offsets():
    matchers = Matchers(spacy.blank("en"), load_taxonomy())
    text = "Our ORCHESTRATOR demoted the MySQL primary. Then the Engineer RAN a cleanup script."
    doc = spacy.blank("en").make_doc(text)
    rc = matchers.matches(doc, "root_cause_categories")
    found = {(key, text[s:e]) for key, s, e in rc}
    assert ("root_cause_categories.operator_error", "Engineer RAN") in found
    comps = {(key, text[s:e]) for key, s, e in matchers.matches(doc, "components")}
    assert ("components.database_failover_manager", "ORCHESTRATOR") in comps
    # a letter whose lowercase is longer (U+0130) shifts lowercase offsets: the case-insensitive
    # patterns run on the text itself, and the offsets still point at the words
    shifted = "\u0130stanbul team: the Engineer RAN a cleanup script."
    doc = spacy.blank("en").make_doc(shifted)
    spans = [shifted[s:e] for key, s, e in matchers.matches(doc, "root_cause_categories")
             if key == "root_cause_categories.operator_error"]
    assert spans and set(spans) == {"Engineer RAN"}


_WORDS_DOC = spacy.blank("en").make_doc(" ".join(f"w{i}" for i in range(20)))


@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(0, 12), st.integers(1, 4)), max_size=12))
def test_longest_first_keeps_what_spacy_filter_spans_keeps(raw):
    doc = _WORDS_DOC  # made once: a blank pipeline per example would exceed hypothesis' deadline
    matches = [(key, start, start + width) for key, start, width in raw]
    spans = [Span(doc, start, end, label=key) for key, start, end in matches]
    expected = [(span.label_, span.start, span.end) for span in filter_spans(spans)]
    assert longest_first(matches) == expected


def test_one_phrase_pass_serves_every_group_of_a_doc():
    nlp = spacy.blank("en")
    matchers = Matchers(nlp, load_taxonomy())
    doc = nlp.make_doc("The database failover manager lost its disk after a power outage.")
    first = matchers.matches(doc, "components")
    assert matchers._last[0] is doc
    assert matchers.matches(doc, "components") == first
    # character offsets of whole phrases, the longest where two overlap ("database failover" over "database")
    assert [(key, doc.text[s:e]) for key, s, e in first] == [
        ("components.database_failover_manager", "database failover"), ("components.power_cooling", "power outage")]
    other = nlp.make_doc("Nothing relevant here.")
    assert matchers.matches(other, "components") == [] and matchers._last[0] is other


def test_category_texts_take_other_focus_units_and_keep_the_summary_beside_them():
    from pmparse.nlp.tag_reading import category_texts

    text = ("# Slow search\n\n## Summary\n\nSearch answered slowly for an hour.\n\n## Details\n\n"
            "A new index setting doubled the merge work. Nobody noticed the merge queue growing.\n")
    nlp = get(PipelineConfig(tagger=False))
    doc = analyse(nlp, ingest_bytes(text.encode(), "notes/search.md"))
    start = text.index("Nobody")
    chosen = [(start, text.index(".", start) + 1)]
    focus, whole, evidence = category_texts(doc, chosen)
    assert "Nobody noticed the merge queue growing." in focus and "Search answered slowly" in focus
    assert "A new index setting" not in focus and evidence == chosen and whole == text
    summary_only, _, fallback = category_texts(doc, [])
    assert "Search answered slowly" in summary_only and "Nobody" not in summary_only and fallback != []


def test_a_new_taxonomy_file_makes_convert_analyse_an_up_to_date_source_again(tmp_path):
    from pmparse.batch.convert import convert
    from pmparse.library.store import Library
    from pmparse.nlp.pipeline import pipeline_config

    report = tmp_path / "report.md"
    report.write_text("# Sidekiq backlog\n\n## Root cause\n\nThe Sidekiq workers stopped picking up jobs after the "
                      "sidekiq upgrade.\n", encoding="utf-8")
    lib = tmp_path / "lib"
    assert convert([str(report)], lib).counts["converted"] == 1
    assert convert([str(report)], lib).counts["unchanged"] == 1
    first = Library.read(lib / "IL-0001.yaml").pipeline.fingerprint
    taxonomy = _write(tmp_path, {"version": 1, "mode": "extend", "groups": {"components": [
        {"id": "job_runner", "name": "Job runner", "description": "Background job processors.",
         "synonyms": ["sidekiq"]}]}})
    config = PipelineConfig(taxonomy_path=str(taxonomy), model_dir=pipeline_config().model_dir)
    assert convert([str(report)], lib, config=config).counts["updated"] == 1
    card = Library.read(lib / "IL-0001.yaml")
    assert "job_runner" in card.components and card.pipeline.fingerprint not in (None, first)
    assert convert([str(report)], lib, config=config).counts["unchanged"] == 1
    # an edit of the same file is a new taxonomy too
    taxonomy.write_text(taxonomy.read_text(encoding="utf-8").replace("sidekiq", "resque"), encoding="utf-8")
    assert convert([str(report)], lib, config=config).counts["updated"] == 1
    assert "job_runner" not in Library.read(lib / "IL-0001.yaml").components


def test_a_text_with_nothing_to_read_gets_no_category(tmp_path):
    from collections import Counter

    from pmparse.batch.suggest import suggest
    from pmparse.nlp.pipeline import pipeline_config
    from pmparse.nlp.tag_reading import nothing_to_read

    assert nothing_to_read([], Counter()) and nothing_to_read([], Counter({"x": 0}))
    assert not nothing_to_read([(0, 5)], Counter()) and not nothing_to_read([], Counter({"f__x": 1}))
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\nThe quarterly planning meeting moved to Tuesday. Everyone should read the roadmap "
                     "draft before then.\n", encoding="utf-8")
    card, _ = suggest(str(notes), pipeline_config())
    # no disclosed cause is invented; at most the card says that none is disclosed
    assert set(card.root_cause_categories) <= {"unknown"} and card.contributing_factor_categories == []
    assert card.title is None or "caused by" not in card.title
    # one sentence that discloses a cause is enough to read one
    notes.write_text("# Notes\n\nThe quarterly planning meeting moved to Tuesday because a bad configuration change "
                     "took the calendar service down.\n", encoding="utf-8")
    card, _ = suggest(str(notes), pipeline_config())
    assert card.root_cause_categories


def test_a_new_pipeline_fingerprint_reads_every_rule_file_again(patch_all, monkeypatch):
    from pmparse.nlp import pipeline
    from pmparse.nlp.boilerplate import load as load_boilerplate
    from pmparse.nlp.components import facts
    from pmparse.rules.cues import load_cues
    from pmparse.rules.headings import load_headings
    from pmparse.rules.taxonomy import load_organisations

    config = PipelineConfig(tagger=False)
    stamp = pipeline.get(config).meta["pmparse_fingerprint"]
    loaders = (load_headings, load_taxonomy, load_organisations, load_cues, load_boilerplate)
    read = {loader: loader() for loader in loaders}
    assert all(loader() is read[loader] for loader in loaders)  # cached
    assert facts.GAZETTEERS
    gazetteers = dict(facts.GAZETTEERS)
    # a rule file rewritten while the process runs: the fingerprint changes, the pipeline is rebuilt
    patch_all(pipeline, "fingerprint", lambda config: "0123456789abcdef")
    nlp = pipeline.get(config)
    assert nlp.meta["pmparse_fingerprint"] == "0123456789abcdef"
    # every file is read again, not served from before the change
    assert all(loader() is not read[loader] for loader in loaders)
    # and again when the files go back and the pipeline built before is served from the cache
    again = {loader: loader() for loader in loaders}
    patch_all(pipeline, "fingerprint", lambda config: stamp)
    assert pipeline.get(config).meta["pmparse_fingerprint"] == stamp
    assert all(loader() is not again[loader] for loader in loaders)
    assert all(facts.GAZETTEERS[key] is not gazetteers[key] for key in facts.GAZETTEERS)


@pytest.mark.parametrize("text", [
    "The root cause was a failed disk.\n\n- we restarted it  twice\t(again)\n",
    "a " * 6000 + "\nRoot cause: " + "x" * 12000 + "\nthen a bug in the scheduler",  # overlong lines: coarse tokens
    "errors!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!! then recovery",  # a masked run
    "",
])
def test_matchers_make_doc_keeps_the_text_its_tokens_spell(text):
    nlp = get(PipelineConfig(tagger=False))
    matchers = Matchers(nlp, load_taxonomy())
    doc = matchers.make_doc(text)
    assert doc.user_data["pmparse_text"] == text == doc.text
    assert matchers.doc_cue_counts(doc) == matchers.doc_cue_counts(nlp.make_doc(text))


def test_each_category_cites_the_units_that_support_it():
    """Issue 35: every tag of a card cited the same few sentences."""
    from pmparse.api import extract

    text = ("# Checkout errors\n\n## Summary\n\nCheckout failed for 50 minutes on 2031-05-02.\n\n## Root cause\n\n"
            "A bug in the new release made the payment worker crash on every retry.\n\n"
            "The disk of the queue host filled up completely and ran out of space.\n\n"
            "## Detection\n\nNo alert fired: we had no monitoring of the worker's crash loop and learnt of it "
            "from customers.\n")
    card = extract(text)
    cited = {key: {text[e.start:e.end] for e in support.evidence} for key, support in card.support.items()
             if key.startswith(("root_cause_categories.", "contributing_factor_categories."))
             and not key.endswith(".unknown")}
    assert cited, "the card has categories"
    for key, units in cited.items():
        assert units, f"{key} cites no unit"
    # not the same sentences for every category
    assert len({frozenset(units) for units in cited.values()}) == len(cited) or len(cited) == 1
