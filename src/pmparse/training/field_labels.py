"""The field model's training rows: units of the corpus with the weak labels their headings give."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pmparse.card.schema import TEXT_FIELDS
from pmparse.evaluation.corpus import incident_files, load_manifest
from pmparse.ingest.read import ingest
from pmparse.nlp.components.classifier import NONE, unit_rows
from pmparse.nlp.components.fields import unit_sections
from pmparse.nlp.pipeline import PipelineConfig, build, make_doc
from pmparse.rules.cues import CHROME, PROMPT, Cues, load_cues
from pmparse.rules.headings import normalise_heading
from pmparse.training.spans import TrainingSpans, relabel_root_cause

MODEL_NAME = "pmparse-units"

MODEL_VERSION = 3

_STRUCTURE = ("pmparse_sectionizer", "pmparse_units")

_FOLLOWUP_MOVES = {"remediation", "root_cause", "symptoms", "detection"}

WeakLabel = tuple[str, float]


@dataclass
class DocExamples:
    """The units of one training document with their weak labels (None = unlabelled)."""

    path: str
    source: str
    rows: list[tuple[str, str]]
    labels: list[WeakLabel | None]
    offsets: list[tuple[int, int]] = field(default_factory=list)
    sha256: str = ""
    #: ``(heading as written, {label: units})``: each heading of the document with the labels of
    #: the units it is the nearest heading of (what the heading model learns; annotated documents only)
    headings: list[tuple[str, dict[str, int]]] = field(default_factory=list)


def weak_label(text: str, section: str, heading: str, cues: Cues) -> WeakLabel | None:
    """Weak label and sample weight of one unit (see the module docstring), or None.

    Args:
        text: The unit's text.
        section: Label of the unit's section (a field, ``none``, ``unknown``, ``preamble``).
        heading: Normalised text of the nearest heading before the unit ("" when none).
        cues: The cue table.
    """
    weights = cues.weights
    hits = cues.hits(text)
    if CHROME in hits or PROMPT in hits:
        return NONE, weights.chrome
    first = next((name for name in hits if name in TEXT_FIELDS), None)
    if section in TEXT_FIELDS:
        broad = bool(cues.broad.match(heading))
        if broad and first is not None and first != section:
            return first, weights.cue
        if section in _FOLLOWUP_MOVES and first == "action_items":
            return "action_items", weights.reassigned
        if section == "root_cause" and "contributing_factors" in hits:
            return "contributing_factors", weights.reassigned
        return section, weights.broad_heading if broad else weights.heading
    if section == "none" and cues.metadata.match(heading):
        return NONE, weights.chrome
    if first is not None:
        return first, weights.cue
    if cues.narrative.match(heading):
        return NONE, weights.narrative_none
    return None

#: Weak labels that end the search for a timeline's trigger: the incident is under way.
_UNDER_WAY = {"detection", "symptoms", "remediation", "root_cause"}

_WORD = re.compile(r"[^\W\d_]{2,}")


def timeline_triggers(units: list[tuple[str, str, str, str]], labels: list[WeakLabel | None],
                      cues: Cues) -> list[WeakLabel | None]:
    """Labels with the trigger labelling function applied (see ``timeline`` in ``cues.yaml``).

    Args:
        units: ``(text, kind, section, heading)`` of each unit of a document, in order.
        labels: Their weak labels from :func:`weak_label`.
        cues: The cue table.

    Returns:
        A copy of ``labels`` where, in each run of timeline units (under a timeline heading, or
        timeline entries outside mapped sections), the first of its first ``window`` substantive
        units that tells a change or event is ``trigger`` -- unless a unit the incident is under
        way in (detection, symptom, remediation or root cause label) comes first, or another
        cue already claims that unit.
    """
    rules = cues.timeline
    out = list(labels)
    in_run, seen, done = False, 0, False
    for i, (text, kind, section, heading) in enumerate(units):
        timeline = section not in TEXT_FIELDS and (bool(cues.timeline_heading.match(heading)) or kind == "timeline")
        if not timeline:
            in_run = False
            continue
        if not in_run:
            in_run, seen, done = True, 0, False
        label = labels[i][0] if labels[i] is not None else None
        if done or (labels[i] is not None and labels[i][1] >= cues.weights.chrome and label == NONE):
            continue  # page chrome inside the timeline
        folded = " ".join(text.lower().split())
        if len(_WORD.findall(folded)) < rules.min_words or cues.timeline_note.match(folded):
            continue
        seen += 1
        if label in _UNDER_WAY or seen > rules.window:
            done = True
            continue
        if label in (None, NONE, "trigger") and cues.trigger_event.search(folded):
            out[i] = ("trigger", cues.weights.timeline_trigger)
            done = True
    return out


def weak_labels(doc, cues: Cues | None = None) -> list[WeakLabel | None]:
    """Weak label of each unit of a Doc the sectionizer and unit splitter ran on."""
    cues = cues or load_cues()
    headings = sorted((h.start_char, normalise_heading(h.text)) for h in doc.spans.get("headings", []))
    starts = [start for start, _ in headings]
    labels, units = [], []
    for unit, (section, _) in zip(doc.spans["units"], unit_sections(doc)):
        i = int(np.searchsorted(starts, unit.start_char, side="right")) - 1
        heading = headings[i][1] if i >= 0 else ""
        labels.append(weak_label(unit.text, section, heading, cues))
        units.append((unit.text, unit.label_, section, heading))
    return timeline_triggers(units, labels, cues)


def structure_pipeline():
    """The conversion pipeline (rules only): training and tuning run its first two stages."""
    return build(PipelineConfig())


def analyse_structure(nlp, source):
    """Sections and units of one ingested source (the rest of the pipeline is not run)."""
    doc = make_doc(nlp, source)
    for name, component in nlp.pipeline:
        if name in _STRUCTURE:
            doc = component(doc)
    return doc


def structured_docs(root: Path, exclude: set[str], nlp):
    """``(source, rel, ingested, doc, offsets)`` of every corpus incident file not in ``exclude``
    that has units: its sections and units only (:func:`analyse_structure`), offsets per unit."""
    for source, rel in incident_files(root, load_manifest()):
        if rel in exclude:
            continue
        ingested = ingest(str(root / rel))
        doc = analyse_structure(nlp, ingested)
        if "units" not in doc.spans or not len(doc.spans["units"]):
            continue
        yield source, rel, ingested, doc, [(unit.start_char, unit.end_char) for unit in doc.spans["units"]]


def build_dataset(root: Path, exclude: set[str], nlp=None, spans: TrainingSpans | None = None,
                  warn=None) -> list[DocExamples]:
    """Weakly labelled units of every corpus incident file not in ``exclude`` (gold paths).

    ``spans``: the team's annotated root-cause stretches (:mod:`pmparse.training.spans`); a
    document that has them takes its root-cause labels from them (:func:`relabel_root_cause`),
    unless its ingested text is not the annotated one (HTML extracted, say): then ``warn`` is told.
    """
    nlp = nlp or structure_pipeline()
    cues = load_cues()
    examples = []
    for source, rel, ingested, doc, offsets in structured_docs(root, exclude, nlp):
        labels = weak_labels(doc, cues)
        if spans is not None and rel in spans.spans:
            if ingested.sha256 == spans.shas.get(rel):
                labels = relabel_root_cause(labels, offsets, spans.spans[rel])
            elif warn is not None:
                warn(f"root-cause spans: skipped {rel}: expected the ingested text to be the annotated one, "
                     "found another (its offsets would not fit)")
        examples.append(DocExamples(rel, source, unit_rows(doc, cues), labels, offsets, ingested.sha256))
    return examples

#: Version of the dataset file :func:`write_dataset` writes.
DATASET_VERSION = 1


def write_dataset(examples: list[DocExamples], path: Path) -> int:
    """Write the weakly labelled training units as JSON lines, by offset: no corpus text.

    The first line says what the file is; then one line per document: its corpus path, the
    sha256 of its ingested text (the offsets index that text) and ``[start, end, label, weight]``
    of every labelled unit (unlabelled units are left out). The file is written atomically.

    Returns:
        The number of labelled units written.
    """
    from pmparse.util import atomic_write

    lines = [json.dumps({"pmparse_dataset": DATASET_VERSION, "model": MODEL_NAME, "model_version": MODEL_VERSION,
                         "cues_version": load_cues().version,
                         "about": "weak field labels of corpus units, by character offset into the ingested text; "
                                  "pmparse train --dataset writes it"})]
    written = 0
    for example in examples:
        units = [[start, end, label[0], round(label[1], 4)]
                 for (start, end), label in zip(example.offsets, example.labels) if label is not None]
        written += len(units)
        lines.append(json.dumps({"path": example.path, "source": example.source, "sha256": example.sha256,
                                 "units": units}))
    atomic_write(Path(path), "\n".join(lines) + "\n")
    return written
