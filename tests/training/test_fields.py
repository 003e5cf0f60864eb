from __future__ import annotations

import hashlib
import json
import os
import random
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from pmparse.cli import main
from pmparse.evaluation.floors import check_floors
from pmparse.ingest.read import ingest, ingest_bytes
from pmparse.nlp.components.classifier import LABELER_KEYS, META_FILE, MODEL_FILE, UnitModel, unit_rows
from pmparse.nlp.pipeline import DEFAULT_MODEL_DIR, PipelineConfig, build
from pmparse.rules.cues import load_cues
from pmparse.training.field_labels import analyse_structure, build_dataset, timeline_triggers, weak_label, weak_labels
from pmparse.training.field_loso import LOSO_FLOORS_PATH
from pmparse.training.fields import VARIANTS, fit, gold_paths, train
from pmparse.training.spans import TrainingSpans

SERVICES = ["billing", "search", "login", "upload", "checkout", "report", "queue", "mail"]
PHRASES = {
    "symptoms": ["Customers saw server errors on the {s} page.", "The {s} service was unavailable for {n} minutes.",
                 "Requests to {s} timed out for most users."],
    "root_cause": ["The root cause was a missing index on the {s} table.", "A bug in the {s} retry code caused a loop."],
    "detection": ["An alert fired when the {s} error rate rose.", "The on-call engineer was paged by the {s} monitor."],
    "remediation": ["We restarted the {s} workers.", "The team rolled back the {s} release."],
    "action_items": ["Add a load test for {s}.", "Document the {s} failover runbook."],
    "lessons": ["We learned that {s} needs spare capacity.", "Staged rollouts would have limited the {s} damage."],
}


def postmortem(rng: random.Random, number: int) -> str:
    """A small headed postmortem written for these tests (no corpus text)."""

    def say(field: str) -> str:
        return rng.choice(PHRASES[field]).format(s=rng.choice(SERVICES), n=rng.randint(5, 90))

    return "\n".join([
        f"# Incident {number}", "", "## Summary", "", say("symptoms") + " " + say("root_cause"), "",
        "## Impact", "", f"- {say('symptoms')}", f"- {say('symptoms')}", "",
        "## Timeline", "", f"- 10:{number % 60:02d} engineers looked at the {rng.choice(SERVICES)} dashboards together",
        f"- 10:{(number + 5) % 60:02d} {say('detection')}", "",
        "## Root cause", "", say("root_cause"), "", "## Detection", "", say("detection"), "",
        "## Resolution", "", say("remediation"), " " + say("remediation"), "",
        "## Action items", "", f"- {say('action_items')}", f"- {say('action_items')}", "",
        "## Lessons learned", "", f"- {say('lessons')}", "",
        "## Stats", "", f"- Duration of the whole incident {rng.randint(10, 99)} minutes counted", ""])


@pytest.fixture(scope="module")
def tiny_corpus(tmp_path_factory) -> Path:
    """Twelve written postmortems in two manifest sources, plus a gold folder naming one of them."""
    root = tmp_path_factory.mktemp("corpus")
    rng = random.Random(7)
    for i in range(12):
        path = root / ("dfds" if i % 2 else "posthog") / f"pm-{i:02d}.md"
        path.parent.mkdir(exist_ok=True)
        path.write_text(postmortem(rng, i), encoding="utf-8")
    gold = root.parent / f"{root.name}-gold"
    gold.mkdir()
    (gold / "g.jsonl").write_text(json.dumps({"id": "posthog/pm-00", "path": "posthog/pm-00.md"}) + "\n")
    return root


def structure(text: str):
    return analyse_structure(build(PipelineConfig()), ingest_bytes(text.encode(), "t.md"))


def test_weak_label_rules():
    cues = load_cues()
    # page chrome and template questions are no field wherever they stand
    assert weak_label("Terms of Use", "lessons", "conclusions", cues) == ("none", 1.0)
    assert weak_label("Did the alert fire in time?", "detection", "detection", cues) == ("none", 1.0)
    # a mapped heading labels its units
    assert weak_label("The disk filled up on the primary.", "root_cause", "root cause", cues) == ("root_cause", 1.0)
    # follow-up work filed under Resolution becomes an action item
    assert weak_label("We will add an alert on disk usage.", "remediation", "resolution", cues)[0] == "action_items"
    # a broad heading keeps its field at a low weight unless another cue claims the unit
    assert weak_label("The disk filled up on the primary.", "lessons", "conclusions", cues) == ("lessons", 0.3)
    assert weak_label("We restarted the primary and it recovered.", "lessons", "conclusions", cues)[0] == "remediation"
    # Summary / Timeline: cues label, unclaimed narration is none, unclaimed summary text unlabelled
    assert weak_label("An engineer was paged at 10:05.", "none", "timeline", cues)[0] == "detection"
    assert weak_label("Engineers looked at the dashboards together.", "none", "timeline", cues)[0] == "none"
    assert weak_label("The platform serves many teams.", "none", "summary", cues) is None
    assert weak_label("The platform serves many teams.", "preamble", "", cues) is None
    # metadata headings hold no incident content
    assert weak_label("Alice and Bob joined the call.", "none", "attendees", cues) == ("none", 1.0)


def test_weak_labels_of_a_document_and_no_heading_text_in_rows():
    text = ("# Outage\n\n## Summary\n\nThe service was unavailable for an hour.\n\n"
            "## Root cause\n\nThe pool limit was zero.\n\n## Follow-ups\n\n- Validate pool limits on deploy\n")
    doc = structure(text)
    labels = weak_labels(doc)
    assert [label[0] if label else None for label in labels] == ["symptoms", "root_cause", "action_items"]
    # labels come from headings: their words must not reach the model
    rows = unit_rows(doc)
    assert not any("cause" in text or "follow" in context.lower() for text, context in rows)


def test_timeline_trigger_labels_the_first_change_before_detection():
    text = ("# Outage\n\n## Timeline\n\nAll times below are in UTC.\n\n"
            "- 09:58 the nightly job pushed the new proxy settings to every region\n"
            "- 10:03 an alert fired for the checkout error rate\n"
            "- 10:20 the team reverted the proxy settings\n")
    labels = weak_labels(structure(text))
    assert [label[0] if label else None for label in labels] == ["none", "trigger", "detection", "remediation"]
    assert labels[1][1] == load_cues().weights.timeline_trigger


def test_timeline_trigger_stops_once_the_incident_is_under_way():
    cues = load_cues()
    units = [("10:03 an alert fired for the checkout error rate", "timeline", "none", "timeline"),
             ("10:05 the cache nodes were restarted one by one", "timeline", "none", "timeline")]
    labels = [weak_label(text, section, heading, cues) for text, _, section, heading in units]
    assert [label[0] for label in timeline_triggers(units, labels, cues)] == ["detection", "remediation"]
    # only the first change of a run, only within its first units, never over another cue
    units = [("The platform team looked at dashboards for a while", "timeline", "none", "timeline"),
             ("The deploy of release 41 started in the second region", "timeline", "none", "timeline"),
             ("The deploy of release 42 started in the third region", "timeline", "none", "timeline")]
    labels = [weak_label(text, section, heading, cues) for text, _, section, heading in units]
    assert [label[0] for label in timeline_triggers(units, labels, cues)] == ["none", "trigger", "none"]
    far = [("Engineers chatted about lunch plans and the weather", "timeline", "none", "timeline")] * 3 + units[1:2]
    labels = [weak_label(text, section, heading, cues) for text, _, section, heading in far]
    assert all(label[0] == "none" for label in timeline_triggers(far, labels, cues))
    # a change told under a mapped heading keeps that heading's field
    mapped = [("The deploy of release 41 started in the second region", "sentence", "remediation", "resolution")]
    labels = [weak_label(mapped[0][0], "remediation", "resolution", cues)]
    assert timeline_triggers(mapped, labels, cues) == labels


def test_build_dataset_excludes_gold_documents(tiny_corpus, tmp_path):
    exclude = gold_paths(tiny_corpus.parent / f"{tiny_corpus.name}-gold")
    assert exclude == {"posthog/pm-00.md"}
    # a gold path pattern excludes the file it names
    (tmp_path / "g.jsonl").write_text(json.dumps({"id": "posthog/pm-00", "path": "posthog/pm-00*.md"}) + "\n")
    assert gold_paths(tmp_path, tiny_corpus) == {"posthog/pm-00.md"}
    examples = build_dataset(tiny_corpus, exclude)
    assert len(examples) == 11 and "posthog/pm-00.md" not in {e.path for e in examples}
    assert {e.source for e in examples} == {"dfds", "posthog"}
    counts = {label[0] for e in examples for label in e.labels if label}
    assert {"symptoms", "root_cause", "detection", "remediation", "action_items", "lessons", "none"} <= counts


def test_same_seed_same_corpus_same_model(tiny_corpus, tmp_path):
    gold = tiny_corpus.parent / f"{tiny_corpus.name}-gold"
    first = train(tiny_corpus, tmp_path / "a", gold, seed=3)
    second = train(tiny_corpus, tmp_path / "b", gold, seed=3)
    assert first.label_counts == second.label_counts
    a, b = UnitModel.load(tmp_path / "a"), UnitModel.load(tmp_path / "b")
    # the same bytes, not merely close weights
    assert (tmp_path / "a" / MODEL_FILE).read_bytes() == (tmp_path / "b" / MODEL_FILE).read_bytes()
    assert np.array_equal(a.estimator.head.coef_t, b.estimator.head.coef_t)
    doc = structure(postmortem(random.Random(99), 99))
    assert a.predict_doc(doc) == b.predict_doc(doc)
    meta_a = json.loads((tmp_path / "a" / META_FILE).read_text())
    meta_b = json.loads((tmp_path / "b" / META_FILE).read_text())
    assert meta_a == meta_b and meta_a["seed"] == 3


def test_save_load_round_trip_keeps_predictions(tiny_corpus, tmp_path):
    gold = tiny_corpus.parent / f"{tiny_corpus.name}-gold"
    result = train(tiny_corpus, tmp_path / "m", gold, seed=0)
    loaded = UnitModel.load(tmp_path / "m")
    doc = structure(postmortem(random.Random(5), 5))
    before = result.model.predict_doc(doc)
    after = loaded.predict_doc(doc)
    assert [max(p, key=p.get) for p in before] == [max(p, key=p.get) for p in after]
    assert np.allclose([list(p.values()) for p in before], [list(p.values()) for p in after], atol=1e-5)
    meta = json.loads((tmp_path / "m" / META_FILE).read_text())
    assert meta["cues_version"] == load_cues().version and len(meta["weights_sha256"]) == 64
    assert meta["documents"] == 11 and meta["sources"] == ["dfds", "posthog"]
    # no temporary folder is left beside the model
    assert sorted(p.name for p in (tmp_path).iterdir()) == ["m"]


def test_a_calibration_goes_through_the_model_meta_into_the_pipelines_labeler(tiny_corpus, tmp_path):
    from pmparse.nlp.components.classifier import labeler_settings

    gold = tiny_corpus.parent / f"{tiny_corpus.name}-gold"
    # a calibration that says every unit is right half the time: each field's confidence is 0.5
    calibration = {"knots": [[0.0, 1.0], [0.5, 0.5]], "threshold": 0.4, "figures": {"headed": {"ece": 0.1}}}
    train(tiny_corpus, tmp_path / "m", gold, seed=0, calibration=calibration)
    meta = json.loads((tmp_path / "m" / META_FILE).read_text())
    assert meta["calibration"] == calibration["knots"] and meta["calibration_figures"] == calibration["figures"]
    assert meta["settings"]["threshold"] == 0.4
    assert labeler_settings(tmp_path / "m")["calibration"] == calibration["knots"]
    from pmparse.nlp.pipeline import analyse

    nlp = build(PipelineConfig(model_dir=str(tmp_path / "m")))
    doc = analyse(nlp, ingest_bytes(b"Customers saw server errors on the login page.\n\nWe restarted the login workers.\n",
                                    "in.md"))
    scores = doc.spans["fields"].attrs["scores"]
    assert scores and all(score == 0.5 for score in scores)


def test_fit_needs_two_labels():
    from pmparse.errors import UsageError
    from pmparse.training.field_labels import DocExamples

    with pytest.raises(UsageError, match="two labels"):
        fit([DocExamples("d", "s", [("a b", "c")], [("symptoms", 1.0)])])


def test_cli_train_writes_a_model_convert_can_use(patch_all, tiny_corpus, tmp_path, monkeypatch):
    import pmparse.training.fields as train_module

    patch_all(train_module, "GOLD_DIR", tiny_corpus.parent / f"{tiny_corpus.name}-gold")
    runner = CliRunner()
    result = runner.invoke(main, ["train", "--corpus", str(tiny_corpus), "--out", str(tmp_path / "m"), "--seed", "1",
                                  "--labels", "weak", "--no-written"])
    assert result.exit_code == 0, result.output
    assert "11 documents from 2 sources" in result.output
    assert (tmp_path / "m" / MODEL_FILE).is_file()
    source = tmp_path / "in.md"
    source.write_text("Customers saw server errors on the login page.\n\nWe restarted the login workers.\n")
    result = runner.invoke(main, ["convert", str(source), "-o", str(tmp_path / "lib"), "--model", str(tmp_path / "m"),
                                  "--no-progress"])
    assert result.exit_code == 0, result.output
    record = (tmp_path / "lib").glob("IL-*.yaml").__next__().read_text()
    assert "pmparse-units-v3" in record


def test_cli_train_adds_the_written_postmortems_by_default(patch_all, tiny_corpus, tmp_path):
    import pmparse.training.fields as train_module
    from pmparse.training.field_annotations import WRITTEN_FILE

    patch_all(train_module, "GOLD_DIR", tiny_corpus.parent / f"{tiny_corpus.name}-gold")
    written = sum(1 for line in WRITTEN_FILE.read_text(encoding="utf-8").splitlines() if line.strip())
    result = CliRunner().invoke(main, ["train", "--corpus", str(tiny_corpus), "--out", str(tmp_path / "m"),
                                       "--labels", "weak"])
    assert result.exit_code == 0, result.output
    assert f"{11 + written} documents from 3 sources" in result.output
    meta = json.loads((tmp_path / "m" / "meta.json").read_text(encoding="utf-8"))
    assert "written postmortems (corpus/written) weighted 1" in meta["training"]


def test_cli_train_writes_the_dataset_by_offset_and_it_spells_the_labelled_units(patch_all, tiny_corpus, tmp_path, monkeypatch):
    import hashlib

    import pmparse.training.fields as train_module

    patch_all(train_module, "GOLD_DIR", tiny_corpus.parent / f"{tiny_corpus.name}-gold")
    dataset = tmp_path / "units.jsonl"
    result = CliRunner().invoke(main, ["train", "--corpus", str(tiny_corpus), "--out", str(tmp_path / "m"), "--labels", "weak",
                                       "--dataset", str(dataset), "--no-written"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in dataset.read_text().splitlines()]
    assert lines[0]["pmparse_dataset"] == 1 and len(lines) == 12
    assert lines[0]["cues_version"] == load_cues().version
    by_path = {line["path"]: line for line in lines[1:]}
    assert "posthog/pm-00.md" not in by_path  # the gold document stays out
    line = by_path["dfds/pm-01.md"]
    text = ingest(str(tiny_corpus / "dfds" / "pm-01.md")).text
    assert line["sha256"] == hashlib.sha256(text.encode()).hexdigest()
    labelled = {text[start:end]: label for start, end, label, _ in line["units"]}
    cause = text.split("## Root cause\n\n", 1)[1].split("\n", 1)[0]
    assert labelled[cause] == "root_cause"
    assert all(0 < weight <= 1 for *_, weight in line["units"])
    # no unit text is stored, only offsets
    assert cause not in dataset.read_text()


def test_cli_train_dataset_is_not_for_loso_and_needs_a_name(tmp_path):
    result = CliRunner().invoke(main, ["train", "--loso", "--dataset", str(tmp_path / "d.jsonl")])
    assert result.exit_code == 2 and "--dataset" in result.output
    result = CliRunner().invoke(main, ["train", "--dataset", ""])
    assert result.exit_code == 2 and "empty" in result.output


def test_cli_train_loso_options_need_loso():
    result = CliRunner().invoke(main, ["train", "--tune"])
    assert result.exit_code == 2
    assert "--loso" in result.output


# --- the committed model and its leave-one-source-out report -----------------------------------

LOSO_REPORT = DEFAULT_MODEL_DIR / "loso.json"


def test_bundled_model_is_small_and_matches_the_cue_table():
    assert (DEFAULT_MODEL_DIR / MODEL_FILE).is_file(), "the field model is a committed artifact (pmparse train)"
    assert (DEFAULT_MODEL_DIR / MODEL_FILE).stat().st_size <= 20 * 1024 * 1024
    meta = json.loads((DEFAULT_MODEL_DIR / META_FILE).read_text())
    assert meta["cues_version"] == load_cues().version
    assert set(meta["labels"]) >= {"none", "symptoms", "action_items"}
    model = UnitModel.load(DEFAULT_MODEL_DIR)
    assert model.labeler == {k: meta["settings"][k] for k in LABELER_KEYS}


def test_committed_loso_report_meets_its_floors_and_describes_the_bundled_model():
    report = json.loads(LOSO_REPORT.read_text())
    floors = json.loads(LOSO_FLOORS_PATH.read_text())
    assert set(floors["floors"]) == set(VARIANTS)
    assert check_floors({v: report[v] for v in VARIANTS}, floors) == []
    meta = json.loads((DEFAULT_MODEL_DIR / META_FILE).read_text())
    # the report was measured with the settings and cues the bundled model was trained with
    assert report["settings"] == meta["settings"]
    assert report["cues_version"] == meta["cues_version"] and report["seed"] == meta["seed"]


@pytest.mark.skipif(not os.environ.get("PMPARSE_SLOW"), reason="retrains 8 folds (minutes); set PMPARSE_SLOW=1")
def test_leave_one_source_out_meets_floors(corpus_root):
    from pmparse.cli.train_fields import run_train_command
    from pmparse.training.fields import WRITTEN_WEIGHT

    # what `pmparse train --loso --check-floors` runs by default: the written postmortems at their
    # weight and the heading model (the library function's defaults leave both out)
    output, code = run_train_command(str(corpus_root), None, 0, True, False, None, True, False, False, rounds=50,
                                     written=WRITTEN_WEIGHT, heading_model=True)
    assert code == 0, output


def test_write_boilerplate_lists_lines_recurring_outside_the_gold_set(tiny_corpus, tmp_path):
    import shutil

    from pmparse.nlp import boilerplate
    from pmparse.training.fields import write_boilerplate

    # a copy: the fixture's corpus is shared by the module's tests
    root = shutil.copytree(tiny_corpus, tmp_path / "corpus")
    gold = tiny_corpus.parent / f"{tiny_corpus.name}-gold"
    notice = "This sentence is a notice printed on every page of the site."
    for name in ("posthog/pm-00.md", "posthog/pm-02.md", "dfds/pm-01.md", "dfds/pm-03.md"):  # pm-00 is gold
        path = root / name
        path.write_text(path.read_text(encoding="utf-8") + "\n" + notice + "\n", encoding="utf-8")
    out = tmp_path / "b.json"
    write_boilerplate(root, out, gold, min_documents=3)
    digests, _ = boilerplate.load(str(out))
    assert boilerplate.digest(notice) in digests
    # the gold document (one of the four) does not count: three is still enough, four is not
    write_boilerplate(root, out, gold, min_documents=4)
    assert boilerplate.digest(notice) not in boilerplate.load(str(out))[0]


def test_cli_write_boilerplate_takes_no_training_options():
    result = CliRunner().invoke(main, ["train", "--write-boilerplate", "--loso"])
    assert result.exit_code == 2 and "--write-boilerplate" in result.output


def test_held_out_paths_resolve_patterns_and_refuse_bad_lines(tmp_path):
    from pmparse.errors import UsageError
    from pmparse.training.fields import held_out_paths

    root = tmp_path / "corpus"
    (root / "acme").mkdir(parents=True)
    (root / "acme" / "2021-01-02 - a long title of the report.md").write_text("x", encoding="utf-8")
    (root / "acme" / "2021-02-03.md").write_text("y", encoding="utf-8")
    dev = tmp_path / "dev.jsonl"
    dev.write_text('{"id": "a", "path": "acme/2021-01-02 - *.md"}\n\n{"id": "b", "path": "acme/2021-02-03.md"}\n',
                   encoding="utf-8")
    assert held_out_paths([dev], root) == {"acme/2021-01-02 - a long title of the report.md", "acme/2021-02-03.md"}
    for line, reason in (('{"id": "a", "path": "acme/2021-*.md"}', "matching none or several"),  # two files match
                         ('{"id": "a", "path": "acme/typo.md"}', "'acme/typo.md' missing"),
                         ("[1, 2]", "found list"), ('{"id": "a"}', "found dict without one"),
                         ("{oops", "expected JSON")):
        dev.write_text(line + "\n", encoding="utf-8")
        with pytest.raises(UsageError, match="dev.jsonl: line 1: .*" + reason):
            held_out_paths([dev], root)
    dev.write_text("\n", encoding="utf-8")
    with pytest.raises(UsageError, match="found none"):
        held_out_paths([dev], root)
    dev.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(UsageError, match="dev.jsonl: expected a readable UTF-8"):
        held_out_paths([dev], root)


# --- root-cause training spans and the development measure ----------------------------------


def _unit_at(example, start: int):
    return next(i for i, (a, b) in enumerate(example.offsets) if a <= start < b)


def test_build_dataset_takes_root_cause_from_training_spans(tiny_corpus):
    exclude = gold_paths(tiny_corpus.parent / f"{tiny_corpus.name}-gold")
    rel = "posthog/pm-02.md"
    text = (tiny_corpus / rel).read_text(encoding="utf-8")
    impact = text.index("## Impact")
    first_item = text.index("- ", impact) + 2
    span = (first_item, text.index("\n", first_item))
    sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
    plain = {e.path: e for e in build_dataset(tiny_corpus, exclude)}
    spanned = {e.path: e for e in build_dataset(tiny_corpus, exclude,
                                                spans=TrainingSpans(spans={rel: [span]}, shas={rel: sha}))}
    before, after = plain[rel], spanned[rel]
    unit = _unit_at(after, span[0])
    assert before.labels[unit][0] == "symptoms" and after.labels[unit] == ("root_cause", 1.0)
    # the units the Root cause heading labelled are read by the annotator as not the cause
    headed = [i for i, label in enumerate(before.labels) if label and label[0] == "root_cause"]
    assert headed and all(after.labels[i] is None for i in headed if i != unit)
    # other documents are unchanged
    assert all(plain[p].labels == spanned[p].labels for p in plain if p != rel)
    # spans annotated on another text than the one ingested are not applied, and the warning says so
    warnings: list[str] = []
    other = build_dataset(tiny_corpus, exclude, spans=TrainingSpans(spans={rel: [span]}, shas={rel: "0" * 64}),
                          warn=warnings.append)
    assert {e.path: e.labels for e in other} == {p: e.labels for p, e in plain.items()}
    assert len(warnings) == 1 and rel in warnings[0] and "ingested text" in warnings[0]


def test_leave_one_source_out_can_score_a_development_set_held_out_by_source(tiny_corpus, tmp_path):
    from pmparse.training.field_loso import leave_one_source_out, loso_markdown

    gold = tiny_corpus.parent / f"{tiny_corpus.name}-gold"
    lines = []
    for rel in ("posthog/pm-04.md", "dfds/pm-05.md"):
        text = (tiny_corpus / rel).read_text(encoding="utf-8")
        start = text.index("## Root cause") + len("## Root cause\n\n")
        lines.append({"id": "dev/" + rel[:-3], "path": rel, "sha256": hashlib.sha256(text.encode()).hexdigest(),
                      "annotated": ["root_cause"], "annotator": "x",
                      "spans": [{"field": "root_cause", "start": start, "end": text.index("\n", start)}]})
    dev = tmp_path / "dev.jsonl"
    dev.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    seen = []
    report = leave_one_source_out(tiny_corpus, gold, rounds=10, dev_files=[dev], on_held_out=seen.append)
    assert "stripped" not in report and report["scored"] == [str(dev)]
    # the held-out documents are handed over once, each with its fold's probabilities per unit
    assert len(seen) == 1 and {item.source for item in seen[0]["headed"]} == {"dfds", "posthog"}
    assert all(item.raw.shape[0] == len(item.doc.spans["units"]) for item in seen[0]["headed"])
    # each development document is scored by a model that saw neither it nor its source
    assert set(report["folds"]) == {"dfds", "posthog"}
    assert report["folds"]["dfds"]["train_documents"] == 4  # six posthog files less the gold and the dev one
    assert report["folds"]["posthog"]["train_documents"] == 5  # six dfds files less the dev one
    assert report["headed"]["pipeline"]["per_source"].keys() == {"dfds", "posthog"}
    assert report["headed"]["pipeline"]["fields"]["root_cause"]["f1"] > 0.5
    table = loso_markdown(report)
    assert "| root_cause |" in table and "| symptoms |" not in table and "headed" in table


@pytest.mark.parametrize("args, needle", [
    (["--dev", "README.md"], "--dev with --loso"),
    (["--loso", "--dev", "README.md", "--check-floors"], "--dev without --tune"),
    (["--loso", "--dev", "README.md", "--tune"], "--dev without --tune"),
    (["--loso", "--dev", "README.md", "--report", str(DEFAULT_MODEL_DIR / "loso.json")], "another --report"),
    (["--spans"], "--spans with an --out folder"),
    (["--spans", "--out", str(DEFAULT_MODEL_DIR)], "--spans with an --out folder"),
    (["--loso", "--spans", "--update-floors"], "--spans without --tune or --update-floors"),
    (["--loso", "--spans", "--report", str(DEFAULT_MODEL_DIR / "loso.json")], "another --report"),
])
def test_cli_train_dev_and_spans_never_touch_the_shipped_model_or_floors(args, needle):
    result = CliRunner().invoke(main, ["train", *args])
    assert result.exit_code == 2 and needle in result.output
