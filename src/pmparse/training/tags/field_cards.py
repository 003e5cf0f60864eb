"""Tag-model rows from the card facts of the all-field annotations (``corpus/field_spans``).

The annotators of the field model's training round (``eval/GUIDE.md``, "All-field training
round") also wrote each document's card by the "Card facts" rules gold cards follow, root-cause
categories included, by reading the source. Those documents are the only labelled ones of the five
sources added on 2026-12-01, whose team category labels (``corpus/category_labels``) predate them.
A document with a team label line or a gold card is left to that line or card.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterable

from pmparse.errors import LabelError
from pmparse.evaluation.gold import gold_text, load_gold
from pmparse.evaluation.gold_cards import Example, gold_labels
from pmparse.nlp.tag_reading import category_texts
from pmparse.rules.taxonomy import Taxonomy
from pmparse.training.field_annotations import annotation_files
from pmparse.training.tags.inputs import analysed_docs
from pmparse.training.tags.labels import category_problem, cause_row

#: Sources of the rows made here: the card's categories over the pipeline's focus, and its
#: categories over the annotated root-cause stretches.
CARD, CARD_SPANS = "field_card", "field_card_spans"

#: Suffixes whose annotation offsets index markup, not the text the tag model reads.
_MARKUP = (".html", ".htm")


def field_card_examples(root: Path, taxonomy: Taxonomy, weight: float, exclude: set[str],
                        exclude_shas: set[str] = frozenset(), files: Iterable[Path] | None = None, config=None,
                        spans: bool = True, warn: Callable[[str], None] | None = None) -> list[Example]:
    """Training rows of the annotated cards' categories (source :data:`CARD`).

    A card states a category group only when it has its key, so a card without
    ``contributing_factor_categories`` labels none of them, neither positive nor negative.

    Args:
        root: The corpus root.
        taxonomy: The taxonomy the ids belong to.
        weight: Sample weight of a row.
        exclude: Corpus paths left out (gold documents, documents with a team label line).
        exclude_shas: sha256 of texts left out (a copy of a gold document under another name).
        files: Annotation files; ``corpus/field_spans/batch_*.jsonl`` when None.
        config: The pipeline configuration the inputs are made with.
        spans: Also a row (source :data:`CARD_SPANS`) whose focus is the annotated root-cause
            stretches, labelled with the root-cause categories only (not for markup pages).
        warn: Called with each document left out and why.

    Raises:
        LabelError: a card names an id the taxonomy does not have or pairs ``unknown`` with a cause.
        GoldError: an annotation line is invalid or its text changed (sha256).
    """
    kept = []
    for doc in load_gold(list(files) if files is not None else annotation_files(), root):
        if doc.path is None or doc.path in exclude or doc.sha256 in exclude_shas:
            continue
        problem = category_problem(doc.card, taxonomy)
        if problem:
            raise LabelError(f"{doc.id}: {problem}", doc.path)
        labels = gold_labels(doc.card, taxonomy)
        if not labels:
            if warn:
                warn(f"annotated cards: skipped {doc.path}: its card states no category")
            continue
        kept.append((doc, labels))
    analysed = analysed_docs([root / doc.path for doc, _ in kept], config) if kept else []
    examples = []
    for (doc, labels), analysed_doc in zip(kept, analysed):
        focus, whole, _ = category_texts(analysed_doc)
        examples.append(Example(doc.path, focus, whole, labels, weight, CARD))
        causes = sorted((s.start, s.end) for s in doc.spans if s.field == "root_cause")
        if spans and causes and not doc.path.lower().endswith(_MARKUP):
            row = cause_row(doc.path, gold_text(doc, root), causes, whole, labels, weight, CARD_SPANS)
            if row is not None:
                examples.append(row)
    return examples
