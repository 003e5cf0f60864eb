"""Field labeler: decides which card field each unit belongs to.

Evidence comes from two places: the section a unit stands in (a mapped heading is strong
evidence) and, when the unit classifier ran before this component, its calibrated probabilities
(``doc.spans["units"].attrs["probs"]``, one dict per unit). A heading is evidence, not a veto: a
confident model can move a unit out of its section's field, and a unit the model is unsure of is
left out rather than guessed.

Writes ``doc.spans["fields"]`` (label: the field) with ``attrs["scores"]`` (confidence per span).
"""

from __future__ import annotations

import bisect

import numpy as np
from spacy.language import Language
from spacy.tokens import Doc

from pmparse.card.schema import TEXT_FIELDS
from pmparse.errors import ModelError
from pmparse.nlp.components.item_content import link_only, placeholder_only, short_action
from pmparse.nlp.components.units import item_bounds, markup_regions, says_nothing
from pmparse.nlp.lines import doc_text, shared_lines

#: ``(scores, probabilities)``: increasing scores and the probability each is right.
Calibration = tuple[list[float], list[float]]


def unit_sections(doc: Doc) -> list[tuple[str, float]]:
    """For each unit of ``doc.spans["units"]``, the label and confidence of its section."""
    sections = doc.user_data.get("pmparse_sections", [])
    starts = [s[0] for s in sections]
    result = []
    for unit in doc.spans.get("units", []):
        i = bisect.bisect_right(starts, unit.start_char) - 1
        # sections nest: the innermost one holding the unit is the last that starts before it and
        # has not ended yet
        label, confidence = "preamble", 0.0
        while i >= 0:
            start, end, lab, conf = sections[i]
            if start <= unit.start_char < end:
                label, confidence = lab, conf
                break
            i -= 1
        result.append((label, confidence))
    return result


def labelled_starts(doc: Doc, starts: list[int]) -> list[int]:
    """For each item start, where the label that opens its line starts ("Mitigation: [retry
    fetches](...)": the sectionizer's heading "Mitigation:" is no word of the unit after it), or
    the start itself when no heading ends on its line just before it. Whether a short link is the
    field's item depends on a heading's words before it (:func:`link_only`)."""
    text = doc_text(doc)
    ends = sorted((span.end_char, span.start_char) for span in doc.spans.get("headings", []))
    keys = [end for end, _ in ends]
    found = []
    for start in starts:
        k = bisect.bisect_right(keys, start) - 1
        if k >= 0 and not text[ends[k][0]:start].strip(" \t"):
            found.append(ends[k][1])
        else:
            found.append(start)
    return found


#: Follow-up fields: written after the incident, rarely inside a Summary or Timeline.
FOLLOW_UP = ("action_items", "lessons")


def calibrated(score: float, calibration: Calibration | None) -> float:
    """The probability that a unit given a field at ``score`` is right, read off the calibration
    fitted on held-out sources (``(scores, probabilities)`` knots, interpolated); ``score`` itself
    when there is none."""
    if not calibration or not calibration[0]:
        return score
    return float(np.interp(score, calibration[0], calibration[1]))


def decide(section_label: str, section_conf: float, probs: dict[str, float] | None,
           heading_weight: float, threshold: float, followup_weight: float = 1.0,
           headed: bool = False, opening: bool = False,
           calibration: Calibration | None = None) -> tuple[str | None, float]:
    """Combine section evidence and model probabilities for one unit.

    Without model probabilities a mapped heading decides alone. With them:

    * under a heading mapped to a field, each label's score is ``(1 - heading_weight) * p`` plus
      ``heading_weight * section_conf`` for the heading's field: the heading wins unless the model
      is confidently sure of another field, or of ``none``;
    * elsewhere the field with the highest probability is taken. In sections whose heading names
      no field (Summary, Timeline), and anywhere outside mapped sections of a headed document,
      the follow-up fields' probabilities are first multiplied by ``followup_weight``: a report
      with field headings files its action items and lessons under their own headings, and
      "we will keep monitoring" in a timeline is narration. So are they in the opening part of
      a document without field headings (``opening``): reports tell what happened first and
      what to do about it and what was learnt at the end;
    * a field scoring below ``threshold`` is left out.

    Args:
        section_label: The unit's section label (a field, ``none``, ``unknown``, ``preamble``).
        section_conf: Confidence of that section's heading mapping.
        probs: Model probabilities per field plus ``none``; None when no model ran.
        heading_weight: How much a mapped heading counts against the model (0 to 1).
        threshold: Least score to keep a field.
        followup_weight: Weight of action items and lessons in Summary/Timeline-like sections.
        headed: Whether the unit's document has at least one heading mapped to a field.
        opening: Whether the unit stands in the opening part of a document with no heading
            mapped to a field (see :func:`label_fields`).
        calibration: Knots mapping a score to the probability it is right (:func:`calibrated`);
            with them the confidence is that probability and ``threshold`` applies to it.

    Returns:
        ``(field, confidence)``; field None means the unit feeds no field.
    """
    heading_field = section_label if section_label in TEXT_FIELDS else None
    if probs is None:
        if heading_field is None:
            return None, 0.0
        return heading_field, section_conf
    if heading_field is not None:
        scores = {name: weighed(p, name, heading_field, section_conf, heading_weight) for name, p in probs.items()}
        scores.setdefault(heading_field, heading_weight * section_conf)
    else:
        scores = {name: p for name, p in probs.items() if name in TEXT_FIELDS}
        if section_label == "none" or headed or opening:
            for name in FOLLOW_UP:
                if name in scores:
                    scores[name] *= followup_weight
    if not scores:
        return None, 0.0
    best = max(scores, key=scores.get)
    if best not in TEXT_FIELDS:
        return None, 0.0
    confidence = calibrated(min(1.0, scores[best]), calibration)
    if confidence < threshold:
        return None, 0.0
    return best, confidence


def weighed(p: float, name: str, heading_field: str | None, section_conf: float, heading_weight: float) -> float:
    """A unit's score for field ``name`` from the model's probability ``p``: under a heading mapped
    to a field, ``(1 - heading_weight) * p``, plus ``heading_weight * section_conf`` for the
    heading's own field; elsewhere ``p``."""
    if heading_field is None:
        return p
    return (1.0 - heading_weight) * p + (heading_weight * section_conf if name == heading_field else 0.0)


def likeliest_unit(doc: Doc, field: str, floor: float, heading_weight: float, skip: set[int],
                   sections: list[tuple[str, float]] | None = None) -> tuple[int, float] | None:
    """The unit most likely to state ``field`` and its score, when that reaches ``floor``.

    A unit's score is its probability for the field, weighed with its heading as in
    :func:`decide`; units whose index is in ``skip`` (those the caller keeps in their field) are
    passed over.
    ``sections``: :func:`unit_sections` of ``doc``, when the caller has them already.
    None without model probabilities or below the floor.
    """
    probs = doc.spans["units"].attrs.get("probs") if "units" in doc.spans else None
    if probs is None or floor <= 0:
        return None
    best: tuple[int, float] | None = None
    for i, (label, conf) in enumerate(sections if sections is not None else unit_sections(doc)):
        if i in skip or i >= len(probs):
            continue
        p = weighed(probs[i].get(field, 0.0), field, label if label in TEXT_FIELDS else None, conf, heading_weight)
        if p >= floor and (best is None or p > best[1]):
            best = (i, p)
    return best


def label_fields(doc: Doc, heading_weight: float = 0.6, threshold: float = 0.5, followup_weight: float = 1.0,
                 followup_opening: float = 0.0, root_cause_floor: float = 0.0,
                 calibration: Calibration | None = None) -> None:
    """Label the units of ``doc`` with card fields into ``doc.spans["fields"]``.

    ``followup_opening`` is the share of a document's units, from its start, that count as its
    opening part when no heading of the document maps to a field: there action items and lessons
    are weighted by ``followup_weight`` (see :func:`decide`). When no unit reaches the root cause
    and ``root_cause_floor`` is above 0, the unit most likely to state it (:func:`likeliest_unit`,
    among units in no field, and units a heading put in another field while the model reads them
    as the root cause first) becomes the root cause, with its low score as its confidence: most
    reports state a cause somewhere, and the model's first choice at that floor was right more
    often than not on held-out sources (``models/fields/README.md``). ``calibration``: see
    :func:`decide`.
    """
    units = list(doc.spans.get("units", []))
    probs = doc.spans["units"].attrs.get("probs") if "units" in doc.spans else None
    sections = unit_sections(doc)
    headed = any(label in TEXT_FIELDS for label, _ in sections)
    spans, scores = [], []
    opening = 0 if headed else followup_opening * len(units)
    chosen: dict[int, tuple[str, float]] = {}
    text = doc_text(doc)
    # a printed page's text has no markup: "<alertbot>" there is a chat log's nick
    plain = doc.user_data.get("pmparse_format", "md") in ("txt", "pdf")
    markup = [] if plain else markup_regions(text, shared_lines(text))
    bounds = [item_bounds(text, unit.start_char, unit.end_char, markup) for unit in units]
    quiet = {i for i, (start, end) in enumerate(bounds) if says_nothing(text, start, end)
             or placeholder_only(text, start, end)}
    # too few words for a unit of any field, but work done or promised: "[P1] Cleanup", "Fixes #4521"
    short = {i for i in quiet if short_action(text, *bounds[i], "action_items")
             and not placeholder_only(text, *bounds[i])}
    labelled = labelled_starts(doc, [start for start, _ in bounds])
    for i, (unit, (label, conf)) in enumerate(zip(units, sections)):
        if i in quiet and i not in short:
            continue
        unit_probs = probs[i] if probs is not None and i < len(probs) else None
        field, confidence = decide(label, conf, unit_probs, heading_weight, threshold, followup_weight, headed,
                                   i < opening, calibration)
        # a link alone is an item of no field, a ticket's title of action items aside (link_only)
        if (field is not None and not link_only(text, labelled[i], bounds[i][1], field)
                and (i not in short or short_action(text, *bounds[i], field))):
            chosen[i] = (field, confidence)
    if root_cause_floor > 0 and not any(field == "root_cause" for field, _ in chosen.values()):
        # a unit a heading filed elsewhere stays a candidate when the model itself reads it as the
        # root cause ("the cause turned out to be ..." under Resolution)
        skip = quiet | {i for i in chosen
                        if probs is None or i >= len(probs) or max(probs[i], key=probs[i].get) != "root_cause"}
        skip |= {i for i, (start, end) in enumerate(bounds) if i not in skip and link_only(text, start, end, "root_cause")}
        found = likeliest_unit(doc, "root_cause", root_cause_floor, heading_weight, skip, sections)
        if found is not None:
            chosen[found[0]] = ("root_cause", calibrated(found[1], calibration))
    for i in sorted(chosen):
        # the item without the unit's markup lines, label line and time cells ("11:02 | "); only
        # where its words start and end a token: "09:12|The" is one token, and a contracted span
        # lost "The" (the item read "billing queue stopped"), so such a row keeps its cell, as before
        start, end = bounds[i]
        span = (doc.char_span(start, end) if (start, end) != (units[i].start_char, units[i].end_char)
                else None)
        spans.append(span if span is not None and len(span) else doc[units[i].start : units[i].end])
        spans[-1].label_ = chosen[i][0]
        scores.append(round(chosen[i][1], 3))
    doc.spans["fields"] = spans
    doc.spans["fields"].attrs["scores"] = scores


@Language.factory(
    "pmparse_field_labeler",
    default_config={"heading_weight": 0.6, "threshold": 0.5, "followup_weight": 1.0, "followup_opening": 0.0,
                    "root_cause_floor": 0.0, "calibration": []},
    assigns=["doc.spans"],
)
def make_field_labeler(nlp: Language, name: str, heading_weight: float, threshold: float, followup_weight: float,
                       followup_opening: float, root_cause_floor: float, calibration: list):
    """Create the field labeler.

    The pipeline passes the settings tuned with the field model (its ``meta.json``); the defaults
    here only matter for rules-only pipelines, where no probabilities exist and a mapped heading
    decides alone.

    Args:
        nlp: The pipeline.
        name: Component name.
        heading_weight: Weight of a mapped heading against the model, 0 to 1.
        threshold: Least confidence to keep a unit in a field.
        followup_weight: Weight of action items and lessons in Summary/Timeline-like sections.
        followup_opening: Share of a document without field headings, from its start, where
            action items and lessons are weighted by ``followup_weight`` too (0 = nowhere).
        root_cause_floor: Least score for the likeliest unit to become the root cause when no
            unit reaches it otherwise (0 = never).
        calibration: ``[scores, probabilities]`` knots fitted on held-out sources, or empty: the
            confidence is then the score.
    """
    knots = _knots(calibration)

    def field_labeler(doc: Doc) -> Doc:
        label_fields(doc, heading_weight, threshold, followup_weight, followup_opening, root_cause_floor, knots)
        return doc

    return field_labeler


def _knots(calibration: list) -> Calibration | None:
    """Checked calibration knots from a component config (``[]``: none)."""
    if not calibration:
        return None
    if (len(calibration) != 2 or len(calibration[0]) != len(calibration[1]) or not calibration[0]
            or any(b < a for a, b in zip(calibration[0], calibration[0][1:]))
            or any(not 0.0 <= y <= 1.0 for y in calibration[1])):
        raise ModelError("expected calibration knots [[increasing scores], [probabilities 0-1]] of one length, "
                         "found another shape")
    return [float(x) for x in calibration[0]], [float(y) for y in calibration[1]]
