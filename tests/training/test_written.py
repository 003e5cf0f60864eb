"""Postmortems the team wrote: inline field tags become plain text, offsets and training rows."""

from __future__ import annotations

import importlib.util
import json

import pytest

from pmparse.errors import GoldError
from pmparse.evaluation.corpus import REPO_ROOT
from pmparse.evaluation.gold import GoldDoc, gold_text, load_gold
from pmparse.nlp.components.classifier import NONE
from pmparse.training.field_annotations import WRITTEN_FILE, written_examples
from pmparse.training.written import build_rows, parse_document, parse_source

SOURCE = """Preamble that is no document.

=== written: queue-one ===
# Queue outage

{tr}A deploy at noon changed the queue's retry limit.{/tr} {sy}Messages piled up and checkout slowed.{/sy}

{tr}{rc}The new limit was read per worker, so each one retried forever.{/rc}{/tr}

Thanks to everyone who helped.

=== written: queue-two ===
{re} We rolled the deploy back. {/re}
"""


def test_tags_become_offsets_into_the_plain_text_and_nest_across_fields():
    docs = parse_source(SOURCE, "team.md")
    assert [d.slug for d in docs] == ["queue-one", "queue-two"]
    one = docs[0]
    assert "{" not in one.text and one.text.startswith("# Queue outage\n")
    found = {(name, one.text[start:end]) for name, start, end in one.spans}
    assert found == {("trigger", "A deploy at noon changed the queue's retry limit."),
                     ("symptoms", "Messages piled up and checkout slowed."),
                     ("trigger", "The new limit was read per worker, so each one retried forever."),
                     ("root_cause", "The new limit was read per worker, so each one retried forever.")}
    # whitespace inside the tags is not part of the stretch
    two = docs[1]
    name, start, end = two.spans[0]
    assert (name, two.text[start:end]) == ("remediation", "We rolled the deploy back.")


@pytest.mark.parametrize("marked, expected", [
    ("{xx}text{/xx}", "expected a field tag"),
    ("text{/rc}", "expected an open {rc}"),
    ("{rc}one {rc}two{/rc}", "opened twice"),
    ("{rc}never closed", "left open"),
    ("{rc}  {/rc}", "empty stretch"),
])
def test_bad_markup_is_refused_naming_the_document(marked, expected):
    with pytest.raises(GoldError, match=expected) as caught:
        parse_document(marked, "team.md#doc")
    assert caught.value.path == "team.md#doc"


def test_a_source_needs_separators_and_distinct_slugs():
    with pytest.raises(GoldError, match="found none"):
        parse_source("just text", "a.md")
    with pytest.raises(GoldError, match="twice"):
        parse_source("=== written: a ===\nx\n=== written: a ===\ny\n", "a.md")


def test_rows_are_gold_shaped_inline_documents_of_the_written_source(tmp_path):
    (tmp_path / "team.md").write_text(SOURCE, encoding="utf-8")
    (tmp_path / "README.md").write_text("=== written: not-a-doc ===\nignored\n", encoding="utf-8")
    rows = build_rows(tmp_path)
    assert [r["id"] for r in rows] == ["written/team/queue-one", "written/team/queue-two"]
    out = tmp_path / "written.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    docs = load_gold([out])
    assert all(isinstance(d, GoldDoc) and d.path is None and d.source == "written" for d in docs)
    assert len(docs[0].annotated) == 8
    assert gold_text(docs[0], None) == rows[0]["text"]  # the sha256 matches the inline text


def test_written_units_are_training_rows_weighted_as_asked(tmp_path):
    (tmp_path / "team.md").write_text(SOURCE, encoding="utf-8")
    out = tmp_path / "written.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in build_rows(tmp_path)), encoding="utf-8")
    examples = written_examples([out], weight=0.3)
    assert [e.source for e in examples] == ["written", "written"]
    labels = {row[0]: label for row, label in zip(examples[0].rows, examples[0].labels)}
    assert labels["Thanks to everyone who helped."] == (NONE, 0.3)
    both = [label for row, label in zip(examples[0].rows, examples[0].labels) if row[0].startswith("The new limit")]
    assert sorted(both) == [("root_cause", 0.3), ("trigger", 0.3)]


def test_the_built_file_is_current_with_its_sources():
    spec = importlib.util.spec_from_file_location("written_postmortems", REPO_ROOT / "eval" / "written_postmortems.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert WRITTEN_FILE.exists()
    assert module.main(["--check"]) == 0


def test_a_missing_built_file_is_a_typed_error_naming_it(tmp_path):
    with pytest.raises(GoldError, match="eval/written_postmortems.py") as caught:
        written_examples([tmp_path / "written.jsonl"])
    assert caught.value.path == str(tmp_path / "written.jsonl")
