"""Tag-model rows from the annotated cards of ``corpus/field_spans`` lines."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from pmparse.errors import LabelError
from pmparse.training.tags.field_cards import CARD, CARD_SPANS, field_card_examples
from pmparse.training.tags.inputs import TagSettings, analysed_docs
from pmparse.training.tags.labels import category_problem
from pmparse.training.tags.train import build_examples
from tests.helpers import write_jsonl, write_tree

REPORT = "\n".join([
    "# Login failures", "", "Members could not sign in for an hour.", "",
    "An expired certificate on the identity proxy broke every handshake.", "",
    "We renewed it and added an expiry alert.", ""])
PAGE = ("<html><head><title>Login failures</title></head><body><article><h1>Login failures</h1>"
        "<p>Members could not sign in for an hour.</p>"
        "<p>An expired certificate on the identity proxy broke every handshake.</p>"
        "<p>We renewed it and added an expiry alert.</p></article></body></html>")


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _line(path: str, card: dict, text: str = REPORT, spans=None) -> dict:
    cause = (text.index("An expired"), text.index("handshake.") + len("handshake."))
    return {"id": f"train/{path}", "path": path, "sha256": _sha(text), "annotated": ["root_cause"],
            "spans": spans if spans is not None else [{"field": "root_cause", "start": cause[0], "end": cause[1]}],
            "card": card, "annotator": "t1"}


@pytest.fixture
def corpus(tmp_path) -> Path:
    return write_tree(tmp_path / "corpus", {"team/a.md": REPORT, "team/b.md": REPORT, "team/page.html": PAGE,
                                            "gold/g.md": REPORT})


def test_a_card_gives_a_row_over_the_focus_and_one_over_the_annotated_cause(tmp_path, corpus, taxonomy):
    card = {"root_cause_categories": ["expiry_or_time"], "contributing_factor_categories": ["monitoring_gap"]}
    files = [write_jsonl(tmp_path, "batch_x.jsonl", _line("team/a.md", card))]
    rows = field_card_examples(corpus, taxonomy, 0.5, set(), files=files)
    assert [(ex.group, ex.source) for ex in rows] == [("team/a.md", CARD), ("team/a.md", CARD_SPANS)]
    focus_row, span_row = rows
    assert focus_row.labels["root_cause_categories.expiry_or_time"] == 1
    assert focus_row.labels["root_cause_categories.software_bug"] == 0
    assert focus_row.labels["contributing_factor_categories.monitoring_gap"] == 1
    assert span_row.focus == "An expired certificate on the identity proxy broke every handshake."
    # the stretch holds the cause only: contributing factors stay unknown on that row
    assert set(span_row.labels) == {k for k in focus_row.labels if k.startswith("root_cause_categories.")}
    assert span_row.weight == 0.5 and span_row.whole == focus_row.whole


def test_a_group_the_card_does_not_state_is_neither_positive_nor_negative(tmp_path, corpus, taxonomy):
    files = [write_jsonl(tmp_path, "batch_x.jsonl", _line("team/a.md", {"root_cause_categories": ["software_bug"]}),
                         _line("team/b.md", {"organisation": "Acme"}))]
    warnings: list[str] = []
    rows = field_card_examples(corpus, taxonomy, 1.0, set(), files=files, spans=False, warn=warnings.append)
    assert [ex.group for ex in rows] == ["team/a.md"]
    assert not any(k.startswith("contributing_factor_categories.") for k in rows[0].labels)
    assert warnings == ["annotated cards: skipped team/b.md: its card states no category"]


def test_excluded_documents_and_markup_spans_are_left_out(tmp_path, corpus, taxonomy):
    card = {"root_cause_categories": ["software_bug"]}
    files = [write_jsonl(tmp_path, "batch_x.jsonl", _line("gold/g.md", card), _line("team/a.md", card),
                         _line("team/page.html", card, PAGE))]
    rows = field_card_examples(corpus, taxonomy, 1.0, {"gold/g.md"}, files=files)
    # an HTML page's offsets index its markup, not the text the model reads: no span row for it
    assert [(ex.group, ex.source) for ex in rows] == [("team/a.md", CARD), ("team/a.md", CARD_SPANS),
                                                       ("team/page.html", CARD)]
    assert [ex.group for ex in field_card_examples(corpus, taxonomy, 1.0, set(), {_sha(REPORT)}, files=files)] == [
        "team/page.html"]


@pytest.mark.parametrize("card, expected", [
    ({"root_cause_categories": ["cosmic_rays"]}, "unknown ids ['cosmic_rays']"),
    ({"root_cause_categories": ["unknown", "software_bug"]}, "`unknown` alone"),
    ({"contributing_factor_categories": ["luck"]}, "unknown ids ['luck']"),
])
def test_a_card_with_ids_the_taxonomy_lacks_stops_training(tmp_path, corpus, taxonomy, card, expected):
    assert expected in category_problem(card, taxonomy)
    files = [write_jsonl(tmp_path, "batch_x.jsonl", _line("team/a.md", card))]
    with pytest.raises(LabelError, match="train/team/a.md"):
        field_card_examples(corpus, taxonomy, 1.0, set(), files=files)


def test_build_examples_leaves_a_team_labelled_document_to_its_label_line(tmp_path, corpus, taxonomy):
    team_line = {"path": "team/a.md", "sha256": _sha(REPORT), "root_cause_categories": ["operator_error"],
                 "contributing_factor_categories": [], "evidence": [], "annotator": "c1"}
    labels = write_jsonl(tmp_path, "labels.jsonl", team_line)
    card = {"root_cause_categories": ["expiry_or_time"]}
    cards = write_jsonl(tmp_path, "batch_x.jsonl", _line("team/a.md", card), _line("team/b.md", card))
    gold = [{"id": "gold/g", "path": "gold/g.md", "card": {"root_cause_categories": ["software_bug"]}}]
    docs = analysed_docs([corpus / "gold/g.md"])
    kwargs = dict(label_files=[labels], span_files=[], card_files=[cards])
    on, _ = build_examples(corpus, taxonomy, TagSettings(written_cards=False), gold, docs, **kwargs)
    rows = [(ex.group, ex.source) for ex in on if ex.source in ("team", CARD, CARD_SPANS)]
    assert rows == [("team/a.md", "team"), ("team/b.md", CARD), ("team/b.md", CARD_SPANS)]
    off, _ = build_examples(corpus, taxonomy, TagSettings(field_cards=False), gold, docs, **kwargs)
    assert [ex for ex in off if ex.source in (CARD, CARD_SPANS)] == []
