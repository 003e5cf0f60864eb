"""Card assembly: an analysed Doc becomes a :class:`~pmparse.card.schema.Card`.

Only what the Doc holds goes in: a field with no labelled units stays empty, a fact with no
evidence stays None. Nothing is guessed here.
"""

from __future__ import annotations

import re

from spacy.tokens import Doc

from pmparse.card.schema import TEXT_FIELDS, Card, Evidence, Item, Pipeline, Source, SourceEntry, Support
from pmparse.card.title import MAX_LENGTH, make_title, shorten
from pmparse.ingest.read import Ingested
from pmparse.nlp.lines import doc_text

_WS = re.compile(r"\s+")
#: Most items of one field; later ones are left out with a warning (the corpus's most, 239, are a
#: wiki page's detection lines; a hostile file whose every line reads as a root cause gave 28,000
#: per MB).
MAX_ITEMS = 500


def collapse(text: str) -> str:
    """``text`` with runs of white space folded to one space and the edges trimmed."""
    return _WS.sub(" ", text).strip()


def _support(fact: dict) -> Support:
    return Support(
        evidence=[Evidence(start=s, end=e) for s, e in fact.get("evidence", []) if e > s],
        confidence=round(float(fact["confidence"]), 3),
        origin=fact["origin"],
    )


def field_items(doc: Doc) -> dict[str, list[Item]]:
    """The items of each text field, in text order, from ``doc.spans["fields"]``.

    A unit saying the words (white space folded, case aside) of an earlier item of the same field
    is not that field's item again (an alert pasted eleven times is one detection item, at the
    evidence of its first time, with the higher of their confidences): several stretches of one
    item's evidence are pieces that together say its words, not copies of them. At most
    :data:`MAX_ITEMS` per field: how many more there were is kept in
    ``doc.user_data["pmparse_items_left_out"]`` (a warning of the conversion).
    """
    found: dict[str, dict[str, Item]] = {name: {} for name in TEXT_FIELDS}
    if "fields" not in doc.spans:
        return {name: [] for name in TEXT_FIELDS}
    group = doc.spans["fields"]
    scores = group.attrs.get("scores", [1.0] * len(group))
    whole = doc_text(doc)
    for span, score in sorted(zip(group, scores), key=lambda pair: pair[0].start_char):
        # a slice of the cached text: Span.text rebuilds the string token by token
        text = collapse(whole[span.start_char:span.end_char])
        if not text or span.label_ not in found:
            continue
        items, key = found[span.label_], text.casefold()
        if key in items:
            first = items[key]
            if float(score) > first.confidence:
                items[key] = first.model_copy(update={"confidence": float(score)})
            continue
        if len(items) >= MAX_ITEMS:
            dropped = doc.user_data.setdefault("pmparse_items_left_out", {})
            dropped[span.label_] = dropped.get(span.label_, 0) + 1
            continue
        items[key] = Item(text=text, evidence=[Evidence(start=span.start_char, end=span.end_char)],
                          confidence=float(score))
    return {name: list(items.values()) for name, items in found.items()}


def build_card(doc: Doc, source: Ingested, card_id: str, pipeline: dict[str, str | None]) -> Card:
    """Assemble the card of an analysed Doc.

    Args:
        doc: The Doc after the whole pipeline ran.
        source: The ingested source the Doc was made from.
        card_id: The library id to give the card.
        pipeline: pmparse version and model name (:func:`pmparse.nlp.pipeline.version_info`).
    """
    facts = doc.user_data.get("pmparse_facts", {})
    support: dict[str, Support] = {}
    values: dict[str, object] = {}
    for name in ("organisation", "date", "duration_minutes"):
        if name in facts and facts[name].get("value") not in (None, ""):
            values[name] = facts[name]["value"]
            support[name] = _support(facts[name])
    own = facts.get("source_title")
    own_title = collapse(str(own.get("value") or "")) if own else ""
    if own_title:
        # the author's own title is the card's: a generated one never takes its place
        values["title"] = shorten(own_title, MAX_LENGTH)
        support["title"] = _support(own)
    tags: dict[str, list[str]] = {"components": [], "root_cause_categories": [], "contributing_factor_categories": []}
    for key, fact in doc.user_data.get("pmparse_tags", {}).items():
        group, _, taxon = key.partition(".")
        if group in tags:
            tags[group].append(taxon)
            support[key] = _support(fact)
    card = Card(
        id=card_id,
        source=Source(
            location=source.location,
            url=doc.user_data.get("pmparse_url"),
            sha256=source.sha256,
            format=source.format,
            extracted_text=source.text if source.extracted else None,
        ),
        pipeline=Pipeline(**pipeline),
        support=support,
        **values,  # type: ignore[arg-type]
        **field_items(doc),
        **tags,
    )
    if card.title is None:
        # no author's title: one built from the card's facts and tags, never a sentence cut from
        # the body (an opening clause read as a title claimed what the card did not say)
        card.title = make_title(card, doc.user_data.get("pmparse_tag_names"), doc.user_data.get("pmparse_tag_phrases"))
        if card.title is not None:
            card.support["title"] = Support(confidence=0.4, origin="generated")
    return card


def place_entry(card: Card, whole: Ingested, key: str, heading: str, start: int, end: int) -> Card:
    """The card of one entry of a many-incident file, made to index the whole file.

    The card was built from the entry's text alone (offsets from ``start``); its evidence is moved
    by ``start``, its source becomes the whole file's (sha256, and the extracted text when the
    file's text is not the file itself), and its location names the entry
    (:func:`pmparse.ingest.read.entry_location`), which keeps it apart from the file's other entries.
    """
    from pmparse.locations import entry_location

    for _, evidence in card.evidence_spans():
        if evidence.current:
            # end first: the validator checks end > start after each assignment
            evidence.end += start
            evidence.start += start
    source = card.source.model_copy(update={
        "location": entry_location(whole.location, key),
        "sha256": whole.sha256,
        "extracted_text": whole.text if whole.extracted else None,
        "entry": SourceEntry(key=key, heading=heading, start=start, end=end),
    })
    return card.model_copy(update={"source": source})
