from __future__ import annotations

import hashlib
import json

import pytest
from click.testing import CliRunner

from pmparse.card.schema import TEXT_FIELDS
from pmparse.cli import main
from pmparse.errors import GoldError
from pmparse.evaluation.evaluate import evaluate, systems_for
from pmparse.evaluation.floors import FLOORS_PATH, check_floors, new_floors
from pmparse.evaluation.gold import GoldDoc, gold_text, load_gold, remove_ranges
from pmparse.evaluation.metrics import prf, score_spans, summarise, token_bounds, token_mask

TEXT = ("# Queue outage\n\n## Impact\n\nJobs waited in the queue for an hour.\n\n"
        "## Root cause\n\nA worker pool limit was set to zero by a typo.\n\n"
        "## Action items\n\n- Validate pool limits before deploys\n")


def inline_doc(**extra) -> dict:
    start = TEXT.index("Jobs")
    cause = TEXT.index("A worker")
    action = TEXT.index("Validate")
    data = {"id": "team/queue", "text": TEXT, "sha256": hashlib.sha256(TEXT.encode()).hexdigest(),
            "annotated": list(TEXT_FIELDS),
            "spans": [{"field": "symptoms", "start": start, "end": TEXT.index("hour.") + 5},
                      {"field": "root_cause", "start": cause, "end": TEXT.index("typo.") + 5},
                      {"field": "action_items", "start": action, "end": len(TEXT) - 1}]}
    data.update(extra)
    return data


def eval_inline_gold(tmp_path):
    """``(gold file, result)`` of ``pmparse eval`` (headed, rules only) on a file of :func:`inline_doc`."""
    path = tmp_path / "g.jsonl"
    path.write_text(json.dumps(inline_doc()) + "\n")
    return path, CliRunner().invoke(main, ["eval", "--gold", str(path), "--variant", "headed", "--rules-only",
                                           "--rounds", "10"])


def test_token_mask_counts_tokens_inside_spans():
    text = "alpha beta gamma delta"
    tokens = token_bounds(text)
    assert token_mask(tokens, [(6, 16)]).tolist() == [False, True, True, False]
    # a span cutting a token in half does not claim it
    assert token_mask(tokens, [(7, 16)]).tolist() == [False, False, True, False]


def test_score_spans_and_prf():
    text = "one two three four five"
    score = score_spans("d", "s", text, ["symptoms", "lessons"], {"symptoms": [(0, 13)]}, {"symptoms": [(4, 18)], "lessons": [(19, 23)]})
    assert score.counts["symptoms"] == (2, 1, 1)
    assert score.counts["lessons"] == (0, 1, 0)
    assert prf(2, 1, 1) == pytest.approx((2 / 3, 2 / 3, 2 / 3))
    assert prf(0, 0, 0) == (0.0, 0.0, 0.0)


def test_summary_micro_macro_and_intervals():
    scores = [score_spans("a/1", "a", "x y", ["symptoms"], {"symptoms": [(0, 3)]}, {"symptoms": [(0, 3)]}),
              score_spans("b/1", "b", "x y", ["symptoms"], {"symptoms": [(0, 3)]}, {})]
    result = summarise(scores, rounds=50)
    assert result["fields"]["symptoms"]["f1"] == pytest.approx(2 / 3)
    assert result["per_source"]["a"]["fields"]["symptoms"] == 1.0
    assert result["per_source"]["b"]["fields"]["symptoms"] == 0.0
    low, high = result["interval95"]["symptoms"]
    assert 0.0 <= low <= 2 / 3 <= high <= 1.0
    assert result["worst"]["symptoms"][0]["id"] == "b/1"
    # only symptoms is annotated: the macro average is over it alone, in the intervals too
    assert result["macro_f1"] == pytest.approx(2 / 3)
    assert result["per_source"]["a"]["macro_f1"] == 1.0
    assert result["interval95"]["macro_f1"] == pytest.approx(result["interval95"]["symptoms"])


def test_a_field_no_document_annotates_shows_no_figure_in_the_table():
    # a development file annotating root cause alone printed 0.000 for the seven other fields
    from pmparse.evaluation.metrics import markdown_table

    scores = [score_spans("a/1", "a", "x y z", ["root_cause"], {"root_cause": [(0, 3)]}, {"root_cause": [(0, 1)]})]
    report = {"pipeline": summarise(scores, rounds=20)}
    assert report["pipeline"]["fields"]["symptoms"]["documents"] == 0
    assert report["pipeline"]["fields"]["root_cause"]["documents"] == 1
    table = markdown_table(report, "dev")
    assert "| symptoms | - |" in table and "| root_cause | 0.667 |" in table
    assert "Worst documents (pipeline): root_cause: a/1 0.67" in table and "symptoms:" not in table


def test_gold_validation_and_sha_check(tmp_path):
    path = tmp_path / "g.jsonl"
    path.write_text(json.dumps(inline_doc()) + "\n")
    doc = load_gold([path])[0]
    assert gold_text(doc, None) == TEXT
    path.write_text(json.dumps(inline_doc(sha256="0" * 64)) + "\n")
    with pytest.raises(GoldError, match="sha256"):
        gold_text(load_gold([path])[0], None)
    path.write_text(json.dumps(inline_doc(spans=[{"field": "vibes", "start": 0, "end": 3}])) + "\n")
    with pytest.raises(GoldError, match="line 1"):
        load_gold([path])


@pytest.mark.parametrize("start, end", [(10, len(TEXT) + 5), (12, 12), (20, 15)])
def test_a_gold_span_outside_its_text_or_empty_is_refused(tmp_path, start, end):
    # a span ending past the text was scored as whatever the slice held, in silence
    path = tmp_path / "g.jsonl"
    path.write_text(json.dumps(inline_doc(spans=[{"field": "lessons", "start": start, "end": end}])) + "\n")
    with pytest.raises(GoldError, match=f"lessons {start}-{end}"):
        gold_text(load_gold([path])[0], None)


def test_a_gold_file_s_bad_line_is_named_in_one_line(tmp_path):
    # pydantic's message spanned several lines and carried its web address
    path = tmp_path / "g.jsonl"
    path.write_text('{"id": "x"\n')
    with pytest.raises(GoldError) as info:
        load_gold([path])
    message = str(info.value)
    assert "\n" not in message and "pydantic" not in message, message
    assert message.startswith(f"{path}: line 1: expected a gold document, found Invalid JSON"), message


def test_heading_rules_score_their_sections_and_keywords_differ():
    doc = GoldDoc.model_validate(inline_doc())
    report = evaluate([doc], None, systems_for(None), rounds=20)
    assert report["headings"]["fields"]["symptoms"]["f1"] == 1.0
    assert report["headings"]["fields"]["action_items"]["f1"] == 1.0
    assert report["keywords"]["macro_f1"] != report["headings"]["macro_f1"]


def test_remove_ranges():
    assert remove_ranges("abcdefgh", [(1, 3), (5, 6)]) == "adegh"


def test_floors_check_and_lowering_needs_a_flag():
    results = {"headed": {"pipeline": {"fields": {n: {"f1": 0.5} for n in TEXT_FIELDS}, "macro_f1": 0.5}}}
    floors = {"margin": 0.02, "floors": {"headed": {"symptoms": 0.6, "lessons": 0.51, "macro_f1": 0.4}}}
    failures = check_floors(results, floors)
    assert len(failures) == 1 and failures[0].startswith("headed: symptoms")
    updated, lowered = new_floors(results, floors, allow_lower=False)
    assert updated["floors"]["headed"]["symptoms"] == 0.6 and lowered
    updated, lowered = new_floors(results, floors, allow_lower=True)
    # a lowering run names what it lowered, as the tag floors do
    assert updated["floors"]["headed"]["symptoms"] == 0.5 and lowered == ["headed: symptoms: 0.60 -> 0.50",
                                                                    "headed: lessons: 0.51 -> 0.50"]
    assert updated["floors"]["headed"]["macro_f1"] == 0.5


def test_eval_cli_on_inline_gold(tmp_path, corpus_root):
    path = tmp_path / "g.jsonl"
    card = {"organisation": "Acme", "root_cause_categories": ["configuration_change"]}
    path.write_text(json.dumps(inline_doc(card=card)) + "\n")
    result = CliRunner().invoke(main, ["eval", "--gold", str(path), "--variant", "headed", "--rules-only",
                                       "--rounds", "20", "--report", str(tmp_path / "r.json")])
    assert result.exit_code == 0, result.output
    assert "| symptoms | 1.000 | 1.000 |" in result.output
    report = json.loads((tmp_path / "r.json").read_text())
    assert set(report["headed"]) == {"pipeline", "headings", "keywords"}
    assert "| organisation, text alone without the source URL (exact) |" in result.output
    assert "Root-cause categories, rows gold, columns predicted" in result.output
    assert "organisation_text_only" in report["headed"]["pipeline"]["facts"]


def test_eval_says_what_it_scores_on_stderr_and_keeps_stdout_the_report(tmp_path, corpus_root):
    # a minute of silence looked hung; the report on standard output stays what it was
    path, result = eval_inline_gold(tmp_path)
    assert result.exit_code == 0, result.output
    assert "eval: headed: scoring 1 gold document (pipeline, headings, keywords)" in result.stderr
    assert "scoring" not in result.stdout and "| symptoms |" in result.stdout


def test_committed_floors_hold(corpus_root):
    """The pipeline stays above the floors in eval/baseline.json (noise margin included)."""
    from pmparse.evaluation.evaluate import run_eval
    from pmparse.nlp.pipeline import pipeline_config

    floors = json.loads(FLOORS_PATH.read_text())
    results = run_eval(None, str(corpus_root), pipeline_config().model_dir, list(floors["floors"]), rounds=20,
                       with_facts=False)
    assert check_floors(results, floors) == []


def test_eval_plot_writes_a_png(tmp_path, corpus_root):
    pytest.importorskip("matplotlib")
    path = tmp_path / "g.jsonl"
    card = {"organisation": "Acme", "root_cause_categories": ["configuration_change"]}
    path.write_text(json.dumps(inline_doc(card=card)) + "\n")
    result = CliRunner().invoke(main, ["eval", "--gold", str(path), "--variant", "headed", "--rules-only",
                                       "--rounds", "10", "--plot", str(tmp_path / "f1.png")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "f1.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_eval_reads_the_public_address_of_corpus_documents_and_scores_text_alone_too():
    """A curator converts a checkout with --url-base: the eval does the same, and still reports the
    organisation found without the address."""
    from pmparse.evaluation.evaluate import public_addresses, score_system

    path_doc = GoldDoc.model_validate({"id": "dfds/PM2099-001", "path": "dfds/PM2099-001 - pool.md",
                                       "sha256": "0" * 64, "annotated": ["symptoms"], "spans": []})
    urls = public_addresses([path_doc, GoldDoc.model_validate(inline_doc())])
    assert list(urls) == ["dfds/PM2099-001"] and urls["dfds/PM2099-001"].startswith("https://github.com/dfds/")
    text = "# Node pool drained\n\n## Summary\n\nOur cluster lost every worker node for ten minutes.\n"
    doc = GoldDoc.model_validate(inline_doc(text=text, card={"organisation": "DFDS"}, spans=[],
                                            sha256=hashlib.sha256(text.encode()).hexdigest()))
    system = systems_for(None)[1]
    _, pairs, alone = score_system(system, [doc], {doc.id: text}, {doc.id: urls["dfds/PM2099-001"]})
    # the text never names DFDS: the figure on texts naming their publisher leaves it out
    assert pairs[0][1].organisation == "DFDS" and alone == [({"organisation": "DFDS", "_names_publisher": False}, None)]
    _, pairs, alone = score_system(system, [doc], {doc.id: text})
    assert pairs[0][1].organisation is None and alone[0][1] is None


def test_card_with_text_only_organisation_differs_only_by_the_address():
    from pmparse.evaluation.facts import card_with_text_only_organisation
    from pmparse.ingest.read import ingest_bytes
    from pmparse.nlp.pipeline import PipelineConfig, get

    text = "# Node pool drained\n\n## Summary\n\nOur cluster lost every worker node for ten minutes.\n"
    source = ingest_bytes(text.encode(), "PM2099-001 - pool.md")
    nlp = get(PipelineConfig())
    card, alone = card_with_text_only_organisation(nlp, source, "https://github.com/dfds/postmortems/blob/x/a.md")
    assert card.organisation == "DFDS" and alone is None
    assert card.source.url == "https://github.com/dfds/postmortems/blob/x/a.md"
    plain, same = card_with_text_only_organisation(nlp, source, None)
    assert plain.organisation is None and same is None


def test_a_gold_path_pattern_names_the_one_corpus_file_it_matches(tmp_path):
    from pmparse.evaluation.corpus import resolve_reference

    root = tmp_path / "corpus"
    (root / "acme").mkdir(parents=True)
    (root / "acme" / "PM-7 - Queue workers stalled for an hour.md").write_text(TEXT, encoding="utf-8")
    (root / "acme" / "PM-8 - Disk full.md").write_text("other", encoding="utf-8")
    (root / "acme" / "PM-8 - Disk full again.md").write_text("other", encoding="utf-8")
    assert resolve_reference(root, "acme/PM-7 - *.md") == "acme/PM-7 - Queue workers stalled for an hour.md"
    assert resolve_reference(root, "acme/PM-8 - *.md") is None  # two files: no single one
    assert resolve_reference(root, "acme/PM-9 - *.md") is None
    assert resolve_reference(root, "acme/no-such.md") == "acme/no-such.md"  # plain paths pass as written
    doc = {**inline_doc(), "path": "acme/PM-7 - *.md"}
    del doc["text"]
    path = tmp_path / "g.jsonl"
    path.write_text(json.dumps(doc) + "\n")
    assert load_gold([path])[0].path == "acme/PM-7 - *.md"  # the line as written, without a root
    resolved = load_gold([path], root)[0]
    assert resolved.path == "acme/PM-7 - Queue workers stalled for an hour.md"
    assert gold_text(load_gold([path])[0], root) == gold_text(resolved, root) == TEXT
    path.write_text(json.dumps({**doc, "path": "acme/PM-8 - *.md"}) + "\n")
    with pytest.raises(GoldError, match="expected one corpus file to match"):
        load_gold([path], root)
    with pytest.raises(GoldError, match="expected one corpus file to match"):
        gold_text(load_gold([path])[0], root)


def test_a_document_s_source_is_its_path_s_first_folder():
    from pmparse.evaluation.gold import GoldDoc

    dev = GoldDoc(id="dev/acme/2021-01-02", path="acme/2021-01-02 - *.md", sha256="0" * 64, annotated=[])
    assert dev.source == "acme"
    assert GoldDoc(id="acme/x", text="written here", sha256="0" * 64, annotated=[]).source == "acme"


def test_eval_of_one_gold_file_scores_the_stripped_variants_of_its_documents_alone(tmp_path, corpus_root):
    # the stripped variant scored the whole eval/stripped set beside a single --gold file
    from pmparse.evaluation.gold import GOLD_DIR, STRIPPED_DIR, load_gold

    name = next(p.name for p in sorted(STRIPPED_DIR.glob("*.jsonl")) if (GOLD_DIR / p.name).is_file())
    wanted = {doc.id for doc in load_gold([GOLD_DIR / name], corpus_root)}
    stripped = [doc for doc in load_gold([STRIPPED_DIR / name], corpus_root) if doc.id in wanted]
    result = CliRunner().invoke(main, ["eval", "--gold", str(GOLD_DIR / name), "--rules-only", "--rounds", "10",
                                       "--report", str(tmp_path / "r.json")])
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["stripped"]["pipeline"]["documents"] == len(stripped) > 0


def test_eval_of_a_curator_s_own_gold_file_skips_the_stripped_variant_it_has_none_of(tmp_path, corpus_root):
    # it printed a table of zeros over "stripped gold documents (0)"
    path = tmp_path / "g.jsonl"
    path.write_text(json.dumps(inline_doc()) + "\n")
    result = CliRunner().invoke(main, ["eval", "--gold", str(path), "--rules-only", "--rounds", "10"])
    assert result.exit_code == 0, result.output
    assert "stripped: skipped" in result.stderr
    assert "headed gold documents (1)" in result.stdout and "stripped gold documents" not in result.stdout
    alone = CliRunner().invoke(main, ["eval", "--gold", str(path), "--variant", "stripped", "--rules-only"])
    assert alone.exit_code == 2 and "--variant headed" in alone.stderr


@pytest.mark.parametrize("flag", ["--check-floors", "--update-floors"])
def test_eval_refuses_floors_for_one_gold_file(tmp_path, flag, patch_all):
    # --update-floors with --gold wrote one file's figures over the whole set's floors
    path = tmp_path / "g.jsonl"
    path.write_text(json.dumps(inline_doc()) + "\n")
    floors = tmp_path / "baseline.json"  # a copy: the run must not reach the project's floors
    floors.write_bytes(FLOORS_PATH.read_bytes())
    patch_all("pmparse.evaluation.floors.FLOORS_PATH", floors)
    result = CliRunner().invoke(main, ["eval", "--gold", str(path), flag, "--rules-only", "--rounds", "10"])
    assert result.exit_code == 2 and "whole gold set" in result.stderr
    assert floors.read_bytes() == FLOORS_PATH.read_bytes()


@pytest.mark.parametrize("option", ["--report", "--plot"])
def test_eval_says_in_one_line_when_its_report_cannot_be_written(tmp_path, corpus_root, option):
    # a report whose folder could not be made ended the run on a FileNotFoundError traceback
    path = tmp_path / "g.jsonl"
    path.write_text(json.dumps(inline_doc()) + "\n")
    (tmp_path / "file").write_text("a file where a folder should be", encoding="utf-8")
    target = tmp_path / "file" / "out"
    result = CliRunner().invoke(main, ["eval", "--gold", str(path), "--variant", "headed", "--rules-only",
                                       "--rounds", "10", option, str(target)])
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert f"pmparse: {target}: expected to write the" in result.stderr
    made = tmp_path / "new" / "folder" / "r.json"  # a missing folder is made, as for every file pmparse writes
    done = CliRunner().invoke(main, ["eval", "--gold", str(path), "--variant", "headed", "--rules-only",
                                     "--rounds", "10", "--report", str(made)])
    assert done.exit_code == 0 and json.loads(made.read_text())["headed"]


def test_eval_of_inline_gold_needs_no_corpus_nor_the_projects_checkout(tmp_path, monkeypatch):
    # run from a curator's own folder: no corpus beside it and no corpus/manifest.yaml above it,
    # eval stopped asking for a corpus (then for the manifest) that inline texts never read
    import pmparse.evaluation.corpus as corpus
    import pmparse.evaluation.evaluate as evaluate_module

    monkeypatch.delenv("PMPARSE_CORPUS", raising=False)
    monkeypatch.setattr(corpus, "REPO_ROOT", tmp_path / "nowhere")
    monkeypatch.setattr(evaluate_module, "DEFAULT_MANIFEST", tmp_path / "nowhere" / "manifest.yaml")
    monkeypatch.chdir(tmp_path)
    path, result = eval_inline_gold(tmp_path)
    assert result.exit_code == 0, result.output
    assert "headed gold documents (1)" in result.stdout
    # a gold file naming corpus paths still needs the corpus, and says so
    path.write_text(json.dumps({**inline_doc(text=None), "path": "team/queue.md"}) + "\n")
    result = CliRunner().invoke(main, ["eval", "--gold", str(path), "--variant", "headed", "--rules-only"])
    assert result.exit_code == 2 and "corpus" in result.stderr
