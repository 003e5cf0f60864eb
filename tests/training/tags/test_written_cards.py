"""Tag-model rows from the category facts of the team's written postmortems (corpus/written)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pmparse.errors import LabelError
from pmparse.evaluation.corpus import source_of
from pmparse.evaluation.gold import load_gold
from pmparse.training.tags.folds import row_folds
from pmparse.training.tags.inputs import TagSettings, analysed_docs
from pmparse.training.tags.written_cards import (
    CATEGORIES_FILE,
    WRITTEN_CARD,
    WRITTEN_CARD_SPANS,
    read_written_categories,
    written_card_examples,
)
from pmparse.training.tags.train import build_examples
from pmparse.training.written import build_rows
from tests.helpers import write_jsonl, write_tree

SOURCE = """Two invented postmortems.

=== written: cert-one ===
# Login failures

{sy}Members could not sign in for an hour.{/sy}

{rc}An expired certificate on the identity proxy broke every handshake.{/rc} {cf}The expiry alert had been muted.{/cf}

{re}We renewed it.{/re}

=== written: pool-two ===
# Slow checkout

{rc}The connection pool was sized for an ordinary day and ran out under the sale's traffic.{/rc}
"""

CERT, POOL = "written/team/cert-one", "written/team/pool-two"


@pytest.fixture
def written(tmp_path) -> Path:
    folder = tmp_path / "written"
    folder.mkdir()
    (folder / "team.md").write_text(SOURCE, encoding="utf-8")
    return write_jsonl(folder, "written.jsonl", *build_rows(folder))


def _line(doc_id: str, causes: list[str], factors: list[str] | None = None, **extra) -> dict:
    return {"id": doc_id, "root_cause_categories": causes, "contributing_factor_categories": factors or [],
            "annotator": "c1", **extra}


def test_each_written_document_gives_a_row_over_the_focus_and_one_over_its_root_cause(tmp_path, written, taxonomy):
    categories = write_jsonl(tmp_path, "categories.jsonl", _line(CERT, ["expiry_or_time"], ["monitoring_gap"]),
                             _line(POOL, ["capacity_exhaustion"]))
    rows = written_card_examples(taxonomy, 0.5, categories, written)
    assert [(ex.group, ex.source) for ex in rows] == [(CERT, WRITTEN_CARD), (CERT, WRITTEN_CARD_SPANS),
                                                       (POOL, WRITTEN_CARD), (POOL, WRITTEN_CARD_SPANS)]
    focus_row, span_row = rows[:2]
    # full root-cause labels, like a gold card: every root-cause id, present 1 and absent 0; the
    # contributing factors label nothing (neither positive nor negative)
    assert focus_row.labels["root_cause_categories.expiry_or_time"] == 1
    assert focus_row.labels["root_cause_categories.software_bug"] == 0
    assert set(focus_row.labels) == {f"root_cause_categories.{i}" for i in taxonomy.ids("root_cause_categories")}
    # analysed from the inline text: the pipeline's focus and whole text are those of the document
    assert "identity proxy" in focus_row.whole and "Slow checkout" not in focus_row.whole
    # the writer's {rc} stretch, with root-cause labels only (it does not hold the factors)
    assert span_row.focus == "An expired certificate on the identity proxy broke every handshake."
    assert set(span_row.labels) == {k for k in focus_row.labels if k.startswith("root_cause_categories.")}
    assert all(ex.weight == 0.5 for ex in rows)
    assert rows[3].focus.startswith("The connection pool was sized")
    no_spans = written_card_examples(taxonomy, 1.0, categories, written, spans=False)
    assert [ex.source for ex in no_spans] == [WRITTEN_CARD, WRITTEN_CARD]


def test_a_document_without_a_category_line_is_left_out_with_a_warning(tmp_path, written, taxonomy):
    categories = write_jsonl(tmp_path, "categories.jsonl", _line(POOL, ["capacity_exhaustion"]))
    warnings: list[str] = []
    rows = written_card_examples(taxonomy, 1.0, categories, written, warn=warnings.append)
    assert {ex.group for ex in rows} == {POOL}
    assert warnings == [f"written cards: skipped {CERT}: no line in categories.jsonl"]


@pytest.mark.parametrize("line, expected", [
    (_line(CERT, ["cosmic_rays"]), "unknown ids ['cosmic_rays']"),
    (_line(CERT, ["unknown", "software_bug"]), "`unknown` alone"),
    (_line(CERT, ["software_bug"], ["luck"]), "unknown ids ['luck']"),
    (_line(CERT, []), "expected a written category line"),
    (_line(CERT, ["software_bug"], rootcause=["x"]), "expected a written category line"),
    ("not json", "expected a written category line"),
])
def test_a_bad_category_line_stops_training_naming_the_file_and_line(tmp_path, written, taxonomy, line, expected):
    categories = write_jsonl(tmp_path, "categories.jsonl", _line(POOL, ["capacity_exhaustion"]), line)
    with pytest.raises(LabelError, match=r"line 2: .*") as raised:
        written_card_examples(taxonomy, 1.0, categories, written)
    assert expected in str(raised.value) and "categories.jsonl" in str(raised.value)
    if isinstance(line, dict) and line["root_cause_categories"] and "rootcause" not in line:
        assert CERT in str(raised.value)


def test_a_document_labelled_twice_or_not_written_stops_training(tmp_path, written, taxonomy):
    twice = write_jsonl(tmp_path, "twice.jsonl", _line(CERT, ["software_bug"]), _line(CERT, ["expiry_or_time"]))
    with pytest.raises(LabelError, match=f"found {CERT} again"):
        read_written_categories(twice, taxonomy)
    stray = write_jsonl(tmp_path, "stray.jsonl", _line("written/team/no-such-doc", ["software_bug"]))
    with pytest.raises(LabelError, match="no-such-doc"):
        written_card_examples(taxonomy, 1.0, stray, written)


def test_written_rows_train_in_every_fold_and_only_when_on(tmp_path, written, taxonomy):
    corpus = write_tree(tmp_path / "corpus", {"gold/g.md": SOURCE.split("=== written: cert-one ===")[1]})
    categories = write_jsonl(tmp_path, "categories.jsonl", _line(CERT, ["expiry_or_time"]),
                             _line(POOL, ["capacity_exhaustion"]))
    gold = [{"id": "gold/g", "path": "gold/g.md", "card": {"root_cause_categories": ["software_bug"]}}]
    docs = analysed_docs([corpus / "gold/g.md"])
    kwargs = dict(label_files=[], span_files=[], card_files=[], written_categories=categories, written_file=written)
    off, _ = build_examples(corpus, taxonomy, TagSettings(written_cards=False), gold, docs, **kwargs)
    assert not [ex for ex in off if ex.source in (WRITTEN_CARD, WRITTEN_CARD_SPANS)]
    on, _ = build_examples(corpus, taxonomy, TagSettings(written_cards=True), gold, docs, **kwargs)
    mine = [ex for ex in on if ex.source in (WRITTEN_CARD, WRITTEN_CARD_SPANS)]
    assert len(mine) == 4 and all(ex.weight == TagSettings().team_weight for ex in mine)
    # neither cross-validation holds them out: their groups are in neither fold map
    assert {source_of(ex.group) for ex in mine} == {"written"}
    for folds in (row_folds(on, gold), row_folds(on, gold, {0: 0})):
        assert "gold/g.md" in folds and not {ex.group for ex in mine} & set(folds)


def test_the_committed_categories_label_every_written_postmortem(taxonomy):
    # fast: reads the files only (no pipeline); every written document has one valid line
    labels = read_written_categories(CATEGORIES_FILE, taxonomy)
    written_ids = [g.id for g in load_gold([CATEGORIES_FILE.parent / "written.jsonl"])]
    assert sorted(labels) == sorted(written_ids) and len(labels) == 150
    assert all(label.annotator == "c1" and 1 <= len(label.root_cause_categories) <= 2 for label in labels.values())
    lines = CATEGORIES_FILE.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["id"] for line in lines] == written_ids


def test_agreement_compares_the_documents_both_passes_labelled():
    from pmparse.training.tags.written_cards import WrittenCategories, written_agreement

    def label(doc_id, causes, factors=()):
        return WrittenCategories(id=doc_id, root_cause_categories=causes, contributing_factor_categories=list(factors),
                                 annotator="x")

    first = {"a": label("a", ["software_bug", "dependency_failure"], ["design"]), "b": label("b", ["expiry_or_time"]),
             "c": label("c", ["capacity_exhaustion"])}
    second = {"a": label("a", ["dependency_failure", "software_bug"], ["design"]),
              "b": label("b", ["configuration_change"]), "z": label("z", ["unknown"])}
    found = written_agreement(first, second)
    assert found["documents"] == 2  # "c" and "z" were labelled by one pass only
    assert found["root_cause_categories"]["exact"] == 0.5 and found["contributing_factor_categories"]["exact"] == 1.0
    # micro: 2 ids agree, 1 only in each pass
    assert found["root_cause_categories"]["f1"] == pytest.approx(2 / 3, abs=1e-3)
    assert found["primary"] == 0.0 and found["primary_in_other"] == 0.5


def test_the_committed_second_pass_is_valid_and_covers_written_documents(taxonomy):
    from pmparse.training.tags.written_cards import SECOND_PASS_FILE

    second = read_written_categories(SECOND_PASS_FILE, taxonomy)
    first = read_written_categories(CATEGORIES_FILE, taxonomy)
    assert len(second) == 20 and set(second) <= set(first)
    assert all(label.annotator == "c2" for label in second.values())
