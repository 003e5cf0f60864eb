"""The field model's training rows from annotated content: corpus units with the field a person
marked them with (``corpus/field_spans``), instead of the field their heading names.

Annotators marked, on documents that are not gold, every stretch stating each of the eight
fields (``eval/GUIDE.md``, "All-field training round"). A unit takes a field when the field's
stretches cover at least half of its characters (:data:`pmparse.training.spans.COVER_SHARE`);
a unit covered by two fields (a sentence that is both the trigger and the root cause) is a row of
each; a unit no stretch covers is ``none``: the annotator read it and found no field in it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Iterable

from pmparse.card.schema import TEXT_FIELDS
from pmparse.errors import GoldError
from pmparse.evaluation.corpus import REPO_ROOT
from pmparse.evaluation.gold import GoldDoc, gold_text, load_gold
from pmparse.evaluation.metrics import scoring_view
from pmparse.ingest.read import ingest_bytes
from pmparse.nlp.components.classifier import NONE, unit_rows
from pmparse.rules.cues import load_cues
from pmparse.training.field_labels import DocExamples, WeakLabel, analyse_structure, structure_pipeline
from pmparse.training.spans import COVER_SHARE, covered

ANNOTATIONS_DIR = REPO_ROOT / "corpus" / "field_spans"

#: The built lines of the postmortems the team wrote (:mod:`pmparse.training.written`).
WRITTEN_FILE = REPO_ROOT / "corpus" / "written" / "written.jsonl"

def annotation_files(folder: Path = ANNOTATIONS_DIR) -> list[Path]:
    """The first-pass annotation files of ``folder`` (``batch_*.jsonl``), sorted."""
    return sorted(Path(folder).glob("batch_*.jsonl")) if Path(folder).is_dir() else []


def unit_labels(offsets: list[tuple[int, int]], spans: dict[str, list[tuple[int, int]]],
                share: float = COVER_SHARE) -> list[list[WeakLabel]]:
    """The labels of each unit: every field whose stretches cover ``share`` of it, else ``none``.

    Args:
        offsets: ``(start, end)`` of each unit.
        spans: Annotated stretches per field.
        share: Least covered share of a unit's characters.
    """
    inside = {name: covered(offsets, spans.get(name, []), share) for name in TEXT_FIELDS}
    return [[(name, 1.0) for name in TEXT_FIELDS if inside[name][i]] or [(NONE, 1.0)] for i in range(len(offsets))]


def annotated_examples(root: Path, files: Iterable[Path] | None = None, exclude: set[str] = frozenset(),
                       nlp=None, features: tuple[str, ...] = ()) -> list[DocExamples]:
    """Labelled units of every annotated document not in ``exclude`` (corpus paths).

    A document annotated in several fields' worth of labels becomes one :class:`DocExamples` whose
    units may repeat (once per label). An HTML page's stretches index its markup; they are
    carried over to the extracted text the units index (:func:`~pmparse.evaluation.metrics.scoring_view`).
    ``features``: optional row features (``headings`` only for :func:`shows_headings` documents).

    Raises:
        GoldError: an annotation line is invalid or its text changed (sha256).
    """
    nlp = nlp or structure_pipeline()
    cues = load_cues()
    examples = []
    docs: list[GoldDoc] = load_gold(list(files) if files is not None else annotation_files(), root)
    for g in docs:
        if g.path is None or g.path in exclude:
            continue
        example = _doc_examples(g, gold_text(g, root), nlp, cues, features=features)
        if example is not None:
            examples.append(example)
    return examples


def written_examples(files: Iterable[Path] | None = None, weight: float = 1.0, nlp=None,
                     features: tuple[str, ...] = ()) -> list[DocExamples]:
    """Labelled units of the postmortems the team wrote (inline texts, source ``written``), each
    row weighted ``weight``; they are never gold, so every fold trains on them.

    Raises:
        GoldError: a file is missing, a line is invalid or its text does not match its sha256.
    """
    files = list(files) if files is not None else [WRITTEN_FILE]
    for path in files:
        if not Path(path).is_file():
            raise GoldError("expected the built written postmortems (PYTHONPATH=src python "
                            "eval/written_postmortems.py), found no file", str(path))
    nlp = nlp or structure_pipeline()
    cues = load_cues()
    examples = []
    for g in load_gold(files):
        if g.text is None:
            continue
        example = _doc_examples(g, gold_text(g, None), nlp, cues, weight, features)
        if example is not None:
            examples.append(example)
    return examples


def shows_headings(name: str) -> bool:
    """Whether a training document's rows show its headings to a model with ``headings`` row features: half
    of the documents, fixed by their name, so the model learns to read units both with their
    headings and without (the heading-stripped text and heading-less reports it will meet)."""
    return hashlib.sha256(name.encode("utf-8")).digest()[0] % 2 == 0


def _doc_examples(g: GoldDoc, text: str, nlp, cues, weight: float = 1.0,
                  features: tuple[str, ...] = ()) -> DocExamples | None:
    """One annotated document's labelled units (None when it has no units)."""
    name = g.path or f"{g.id}.md"
    ingested = ingest_bytes(text.encode("utf-8"), name)
    doc = analyse_structure(nlp, ingested)
    if "units" not in doc.spans or not len(doc.spans["units"]):
        return None
    offsets = [(u.start_char, u.end_char) for u in doc.spans["units"]]
    if "headings" in features and not shows_headings(name):
        features = tuple(f for f in features if f != "headings")
    rows = unit_rows(doc, cues, features)
    # an HTML page's offsets index its markup: carried over to the text the units index
    _, spans = scoring_view(g, text, ingested.text if ingested.extracted else None)
    labels = unit_labels(offsets, spans)
    # one row per (unit, label); the sequence transitions read consecutive first labels
    flat_rows, flat_labels, flat_offsets = [], [], []
    for row, found, where in zip(rows, labels, offsets):
        for label in found:
            flat_rows.append(row)
            flat_labels.append((label[0], label[1] * weight))
            flat_offsets.append(where)
    from pmparse.training.heading_model import heading_label_counts

    headings = heading_label_counts(doc, offsets, [[label for label, _ in found] for found in labels])
    return DocExamples(name, g.source, flat_rows, flat_labels, flat_offsets, ingested.sha256, headings)
