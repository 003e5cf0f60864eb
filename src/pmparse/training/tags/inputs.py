"""What the tag model is trained on: its settings, the pipeline without the tagger, and the analysed gold documents."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from pmparse.evaluation.gold_cards import Example, gold_labels
from pmparse.nlp.tag_reading import FOCUS_FIELDS, category_texts
from pmparse.rules.taxonomy import Taxonomy
from pmparse.training.settings import TrainingSettings


class TagSettings(TrainingSettings):
    """Hyper-parameters of the category model.

    Attributes:
        extra_weight: Sample weight of icco and dfds Stats rows (partial labels).
        team_weight: Sample weight of team label rows (full labels, like gold).
        team_evidence: Also train on a row whose focus is a team line's evidence stretches.
        team_spans: Also train on a row whose focus is a document's annotated root-cause spans
            (``corpus/root_cause_spans``), labelled with its team root-cause categories only; it also
            switches the span rows of the annotated cards and of the written postmortems.
        field_cards: Also train on the categories of the all-field annotations' cards
            (``corpus/field_spans``) of documents with neither a gold card nor a team label line.
        written_cards: Also train on the category facts of the postmortems the team wrote
            (``corpus/written/categories.jsonl``, rows ``written_card`` and ``written_card_spans``,
            weighted ``team_weight``), labelled with their root-cause categories only; they train in
            every fold and are never scored (tag model card, "The team's written postmortems as rows").
        unsure_unknown: Tag root cause ``unknown`` when no root-cause category reaches
            ``fallback`` (see :func:`pmparse.nlp.components.tagger.decide_categories`).
        max_root_causes: Most root-cause categories a card gets, the most likely first (0: no limit).
        cue_needs_fallback: A cue-gated root cause needs the most likely one to reach ``fallback``
            when none reaches ``threshold`` (else the cause is ``unknown``).
        component_keep_best: When no component candidate reaches ``component_threshold``, keep the
            most likely one.
        component_first_mention: The component model also reads where a component is first named.
    """

    c: float = 4.0
    extra_weight: float = 1.0
    team_weight: float = 1.0
    team_evidence: bool = False
    team_spans: bool = True
    field_cards: bool = True
    written_cards: bool = True
    hash_bits: int = 14
    threshold: float = 0.4
    fallback: float = 0.25
    min_positives: int = 3
    seed: int = 0
    folds: int = 5
    component_c: float = 1.0
    component_threshold: float = 0.4
    cue_gate: float = 0.1
    repeats: int = 3
    own_cues: bool = True
    unsure_unknown: bool = True
    max_root_causes: int = 2
    cue_needs_fallback: bool = True
    component_keep_best: bool = True
    component_first_mention: bool = True


def untagged_pipeline(config=None):
    """The pipeline up to the facts (no tagger): what the tagger's inputs are made from."""
    from pmparse.nlp.pipeline import get, pipeline_config

    if config is None:
        config = pipeline_config()
    return get(dataclasses.replace(config, tagger=False))


def analysed_docs(paths: list[Path], config=None) -> list:
    """Docs of ``paths`` after the pipeline up to the facts (no tagger)."""
    from pmparse.ingest.read import ingest
    from pmparse.nlp.pipeline import analyse

    nlp = untagged_pipeline(config)
    return [analyse(nlp, ingest(str(path))) for path in paths]


def analysed_texts(named: list[tuple[str, str]], config=None) -> list:
    """Docs of inline texts (``(name, text)`` pairs; the name's suffix gives the format) after the
    pipeline up to the facts (no tagger): for text the team wrote, which has no corpus path."""
    from pmparse.ingest.read import ingest_bytes
    from pmparse.nlp.pipeline import analyse

    nlp = untagged_pipeline(config)
    return [analyse(nlp, ingest_bytes(text.encode("utf-8"), name)) for name, text in named]


def gold_examples(gold: list[dict], docs: list, taxonomy: Taxonomy) -> list[Example]:
    """Training rows of the gold documents (``docs``: their analysed Docs, in the same order)."""
    examples = []
    for row, doc in zip(gold, docs):
        focus, whole, _ = category_texts(doc)
        labels = gold_labels(row.get("card", {}), taxonomy)
        if not labels:
            continue
        examples.append(Example(row["path"], focus, whole, labels, 1.0, "gold"))
        # the annotated root-cause, trigger and contributing-factor spans: the same labels over a
        # cleaner focus; a training row only (cross-validation keeps it with its document)
        spans = sorted((s["start"], s["end"]) for s in row.get("spans", []) if s.get("field") in FOCUS_FIELDS)
        if spans:
            text = doc.text
            examples.append(Example(row["path"], "\n".join(text[a:b] for a, b in spans), whole, labels, 1.0,
                                    "gold_spans"))
    return examples
