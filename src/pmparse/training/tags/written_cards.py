"""Tag-model rows from the category facts of the postmortems the team wrote (``corpus/written``, issue 23).

The 150 written postmortems (``corpus/written/written.jsonl``, built by ``eval/written_postmortems.py``)
carry their fields marked by their writer; ``corpus/written/categories.jsonl`` gives each one its
root-cause and contributing-factor categories, read by hand under ``eval/GUIDE.md`` "Card facts".
They are text the team wrote in 14+ styles, so their rows train in every fold of both
cross-validations (their source, ``written``, is no gold source) and are never scored.

Only their root-cause categories label the rows (:data:`LABELLED_GROUPS`): with their
contributing-factor categories too, the source-held-out contributing-factor macro F1 fell from
0.474 to 0.432 (the writers' factors are stated more plainly than the corpus's); with root-cause
categories alone it fell only to 0.470 while root-cause macro F1 rose from 0.643 to 0.669 (tag
model card, "The team's written postmortems as rows").
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from pydantic import BaseModel, ConfigDict, Field

from pmparse.errors import LabelError
from pmparse.evaluation.gold import gold_text, load_gold
from pmparse.evaluation.gold_cards import Example, gold_labels
from pmparse.nlp.tag_reading import CATEGORY_GROUPS, category_texts
from pmparse.rules.taxonomy import Taxonomy
from pmparse.training.field_annotations import WRITTEN_FILE
from pmparse.training.tags.inputs import analysed_texts
from pmparse.training.tags.labels import category_problem, cause_row
from pmparse.util import model_lines

#: Sources of the rows made here: the categories over the pipeline's focus, and the root-cause
#: categories over the writer's root-cause stretches.
WRITTEN_CARD, WRITTEN_CARD_SPANS = "written_card", "written_card_spans"

#: The category groups the rows are labelled with; the contributing-factor categories of the file
#: are read and checked but label nothing (a row without the group's key labels none of its ids).
LABELLED_GROUPS = ("root_cause_categories",)

#: The category facts of the written postmortems, one line per document.
CATEGORIES_FILE = WRITTEN_FILE.parent / "categories.jsonl"

#: An independent second pass over a sample of them, for agreement.
SECOND_PASS_FILE = WRITTEN_FILE.parent / "categories_second_pass.jsonl"


class WrittenCategories(BaseModel):
    """One line of ``corpus/written/categories.jsonl``: the category facts of one written postmortem.

    Extra keys are refused: a misspelt ``root_cause_categories`` would otherwise leave a document
    with every category a negative.
    """

    model_config = ConfigDict(extra="forbid")
    id: str = Field(min_length=1, description="The document's id in written.jsonl (``written/<file>/<slug>``).")
    root_cause_categories: list[str] = Field(min_length=1, description="Root-cause ids, most important first.")
    contributing_factor_categories: list[str] = Field(description="Contributing-factor ids (may be empty).")
    annotator: str = Field(min_length=1, description="Who labelled it.")


def read_written_categories(path: Path, taxonomy: Taxonomy) -> dict[str, WrittenCategories]:
    """The category lines of ``path`` by document id, each checked.

    Raises:
        LabelError: the file is unreadable, a line is not a valid category line, names an id the
            taxonomy does not have, pairs ``unknown`` with another root cause, or labels a document
            twice (naming the file, line and document id).
    """
    out: dict[str, WrittenCategories] = {}
    for number, label in model_lines(path, WrittenCategories, LabelError, "written category line"):
        problem = category_problem({g: getattr(label, g) for g in CATEGORY_GROUPS}, taxonomy)
        if problem:
            raise LabelError(f"line {number}: {label.id}: {problem}", str(path))
        if label.id in out:
            raise LabelError(f"line {number}: expected each document once, found {label.id} again", str(path))
        out[label.id] = label
    return out


def written_card_examples(taxonomy: Taxonomy, weight: float, categories: Path | None = None,
                          written: Path | None = None, config=None, spans: bool = True,
                          warn: Callable[[str], None] | None = None) -> list[Example]:
    """Training rows of the written postmortems' categories (source :data:`WRITTEN_CARD`).

    Each document is analysed from its inline text (the pipeline without the tagger) and gives the
    inputs a gold document does (:func:`pmparse.nlp.tag_reading.category_texts`), labelled with
    every id of :data:`LABELLED_GROUPS` (present 1, absent 0).

    Args:
        taxonomy: The taxonomy the ids belong to.
        weight: Sample weight of a row.
        categories: The category file; ``corpus/written/categories.jsonl`` when None.
        written: The built written postmortems; ``corpus/written/written.jsonl`` when None.
        config: The pipeline configuration the inputs are made with.
        spans: Also a row (source :data:`WRITTEN_CARD_SPANS`) whose focus is the writer's root-cause
            stretches, labelled with the root-cause categories only.
        warn: Called with each document left out (no category line) and why.

    Raises:
        LabelError: a category line is invalid (:func:`read_written_categories`) or names a document
            the written file does not hold.
        GoldError: the written file is missing, a line is invalid or its text does not match its sha256.
    """
    categories = Path(categories) if categories is not None else CATEGORIES_FILE
    written = Path(written) if written is not None else WRITTEN_FILE
    labels_by_id = read_written_categories(categories, taxonomy)
    docs = [g for g in load_gold([written]) if g.text is not None]
    missing = sorted(set(labels_by_id) - {g.id for g in docs})
    if missing:
        raise LabelError(f"expected ids of {written.name}, found {len(missing)} it does not hold: {missing[:3]}",
                         str(categories))
    kept = []
    for g in docs:
        label = labels_by_id.get(g.id)
        if label is None:
            if warn:
                warn(f"written cards: skipped {g.id}: no line in {categories.name}")
            continue
        kept.append((g, gold_text(g, None), gold_labels({k: getattr(label, k) for k in LABELLED_GROUPS}, taxonomy)))
    analysed = analysed_texts([(f"{g.id}.md", text) for g, text, _ in kept], config) if kept else []
    examples = []
    for (g, text, labels), doc in zip(kept, analysed):
        focus, whole, _ = category_texts(doc)
        examples.append(Example(g.id, focus, whole, labels, weight, WRITTEN_CARD))
        causes = sorted((s.start, s.end) for s in g.spans if s.field == "root_cause")
        if spans:
            row = cause_row(g.id, text, causes, whole, labels, weight, WRITTEN_CARD_SPANS)
            if row is not None:
                examples.append(row)
    return examples


def written_agreement(first: dict[str, WrittenCategories], second: dict[str, WrittenCategories]) -> dict:
    """How two passes of the written postmortems' categories agree, on the documents both labelled.

    The first pass is the reference. Per category group: set scores (micro precision, recall, F1,
    macro F1) and ``exact``, the share given exactly the same ids; ``primary``: the share whose
    first root-cause ids are the same, and ``primary_in_other``: the share whose first pass's
    first root cause is among the second pass's.
    """
    from pmparse.training.tags.agreement import group_agreement

    pairs = [(first[i], second[i]) for i in second if i in first]
    result = group_agreement(pairs)
    n = len(pairs) or 1
    result["primary"] = sum(a.root_cause_categories[0] == b.root_cause_categories[0] for a, b in pairs) / n
    result["primary_in_other"] = sum(a.root_cause_categories[0] in b.root_cause_categories for a, b in pairs) / n
    return result
