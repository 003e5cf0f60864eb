"""Training rows from annotated content: a unit takes the fields that cover half of it."""

from __future__ import annotations

import hashlib
import json

from pmparse.nlp.components.classifier import NONE
from pmparse.training.field_annotations import annotated_examples, unit_labels

TEXT = ("# Queue outage\n\n"
        "A deploy at noon changed the queue's retry limit.\n\n"
        "Messages piled up and checkout slowed for everyone.\n\n"
        "We rolled the deploy back and the backlog drained.\n\n"
        "Thanks to everyone who helped.\n")


def _span(field: str, phrase: str) -> dict:
    start = TEXT.index(phrase)
    return {"field": field, "start": start, "end": start + len(phrase)}


def test_a_unit_takes_every_field_covering_half_of_it_and_none_otherwise():
    units = [(0, 10), (10, 20), (20, 30)]
    spans = {"trigger": [(0, 10)], "root_cause": [(0, 6)], "symptoms": [(10, 14)]}
    assert unit_labels(units, spans) == [[("trigger", 1.0), ("root_cause", 1.0)], [(NONE, 1.0)], [(NONE, 1.0)]]
    assert unit_labels([(10, 20)], {"symptoms": [(10, 15)]}) == [[("symptoms", 1.0)]]


def test_annotated_documents_become_unit_rows_and_html_offsets_are_carried_over(tmp_path):
    root = tmp_path / "corpus"
    (root / "team").mkdir(parents=True)
    (root / "team" / "queue.md").write_text(TEXT, encoding="utf-8", newline="")
    paragraphs = [line for line in TEXT.splitlines()[1:] if line]
    page = "<html><body><h1>Queue outage</h1>" + "".join(f"<p>{p}</p>" for p in paragraphs) + "</body></html>"
    (root / "team" / "page.html").write_text(page, encoding="utf-8", newline="")
    sha = hashlib.sha256(TEXT.encode("utf-8")).hexdigest()
    fields = ["symptoms", "trigger", "root_cause", "contributing_factors", "detection", "remediation",
              "action_items", "lessons"]
    trigger = _span("trigger", "A deploy at noon changed the queue's retry limit.")
    on_markup = page.index(TEXT[trigger["start"]:trigger["end"]])  # the page's annotation indexes its markup
    lines = [
        {"id": "train/team/queue", "path": "team/queue.md", "sha256": sha, "annotated": fields,
         "spans": [trigger,
                   _span("symptoms", "Messages piled up and checkout slowed for everyone."),
                   _span("remediation", "We rolled the deploy back and the backlog drained.")], "annotator": "t1"},
        {"id": "train/team/page", "path": "team/page.html",
         "sha256": hashlib.sha256(page.encode()).hexdigest(), "annotated": fields,
         "spans": [{**trigger, "start": on_markup, "end": on_markup + trigger["end"] - trigger["start"]}],
         "annotator": "t1"},
    ]
    batch = tmp_path / "batch_t1.jsonl"
    batch.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    examples = annotated_examples(root, [batch])
    assert [e.path for e in examples] == ["team/queue.md", "team/page.html"]
    by_text = {row[0]: label[0] for row, label in zip(examples[0].rows, examples[0].labels)}
    assert by_text["A deploy at noon changed the queue's retry limit."] == "trigger"
    assert by_text["We rolled the deploy back and the backlog drained."] == "remediation"
    assert by_text["Thanks to everyone who helped."] == NONE
    assert examples[0].source == "team"
    on_page = {row[0]: label[0] for row, label in zip(examples[1].rows, examples[1].labels)}
    assert on_page["A deploy at noon changed the queue's retry limit."] == "trigger"
    assert on_page["We rolled the deploy back and the backlog drained."] == NONE
    # a document held out (gold, development) never trains
    assert annotated_examples(root, [batch], exclude={"team/queue.md", "team/page.html"}) == []
    assert [e.path for e in annotated_examples(root, [batch], exclude={"team/queue.md"})] == ["team/page.html"]
