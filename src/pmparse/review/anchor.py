"""Re-anchoring evidence: finding an item's words again when its source text has moved."""

from __future__ import annotations

import re
from typing import Any

from pmparse.card.schema import FACT_FIELDS, TAG_FIELDS, TEXT_FIELDS, Card
from pmparse.library.places import SourcePlaces
from pmparse.library.records import card_data, source_text_of

#: The fields a person reviews, in card order.
REVIEW_FIELDS: tuple[str, ...] = FACT_FIELDS + TEXT_FIELDS + TAG_FIELDS

# sentence ends, blank lines, and line breaks before list items, headings and table rows
BOUNDARY = re.compile(r"(?P<end>[.!?][\"')\]]*)\s+|\n(?:[ \t]*\n)*[ \t]*(?:[-*+]|\d+[.)])[ \t]+|\n[ \t]*\n\s*|\n(?=[ \t]*[#|])")

MARKER = re.compile(r"\s*(?:[-*+]|\d+[.)])[ \t]+")

WORDS = re.compile(r"\s+|[^\s]+")


def _words_pattern(text: str) -> re.Pattern[str] | None:
    words = text.split()
    return re.compile(r"\s+".join(re.escape(word) for word in words)) if words else None


def _nearest(matches: list[tuple[int, int]], hint: int) -> tuple[int, int] | None:
    return min(matches, key=lambda span: (abs(span[0] - hint), span[0])) if matches else None


def _spells(evidence: list, words: str, text: str) -> bool:
    """True when every stretch indexes ``text`` and together they say ``words``."""
    pieces = []
    for ev in evidence:
        if not isinstance(ev, dict) or ev.get("sha256") is not None:
            return False
        start, end = ev.get("start"), ev.get("end")
        if not isinstance(start, int) or not isinstance(end, int) or not 0 <= start < end <= len(text):
            return False
        pieces.append(text[start:end])
    return " ".join(pieces).split() == words.split()


def person_items(items: Any, suggested: list, text: str | None) -> Any:
    """A text field's items as a person edited them: each one's evidence spells its text.

    An item whose words its evidence still says (or, without the source text, that the suggestion
    holds as it is) stays the pipeline's. Any other is the person's: ``origin: person``,
    confidence 1.0, and as evidence the stretch of the source that says its words, when there
    is one, else none; the model's offsets and confidence never stay under words they do not
    say. Anything but a list of items is returned as it is (the schema then says what is wrong).
    """
    if not isinstance(items, list):
        return items
    out = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("text"), str) or not item["text"].split():
            out.append(item)
            continue
        words = " ".join(item["text"].split())
        evidence = item.get("evidence") if isinstance(item.get("evidence"), list) else []
        if item.get("origin") != "person" and evidence and (
                _spells(evidence, words, text) if text is not None else {**item, "text": words} in suggested):
            out.append({**item, "text": words})
            continue
        hint = evidence[0].get("start", 0) if evidence and isinstance(evidence[0], dict) else 0
        found = _locate_item(words, text, hint if isinstance(hint, int) else 0) if text is not None else None
        out.append({"text": words, "evidence": found or [], "confidence": 1.0, "origin": "person"})
    return out


def _locate_item(item_text: str, new_text: str, hint: int) -> list[dict] | None:
    """Where a unit's words stand in the new text (white space free to differ), nearest ``hint``."""
    pattern = _words_pattern(item_text)
    if pattern is None:
        return None
    span = _nearest([m.span() for m in pattern.finditer(new_text)], hint)
    return None if span is None else [{"start": span[0], "end": span[1]}]


def _locate_stretch(ev: dict, old_text: str | None, new_text: str | None) -> dict | None:
    """The same characters as ``old_text[ev]`` in the new text, nearest the old offset."""
    if old_text is None or new_text is None or ev["end"] > len(old_text):
        return None
    piece = old_text[ev["start"]:ev["end"]]
    spans, at = [], new_text.find(piece)
    while at != -1:
        spans.append((at, at + len(piece)))
        at = new_text.find(piece, at + 1)
    span = _nearest(spans, ev["start"])
    return None if span is None else {"start": span[0], "end": span[1]}


def _stale(evidence: list[dict], sha: str) -> list[dict]:
    return [ev if ev.get("sha256") else {**ev, "sha256": sha} for ev in evidence]


def reanchor_evidence(data: dict, old_text: str | None, new_text: str | None, suggestion: dict,
                      keep: list[str] | tuple[str, ...]) -> None:
    """Move the evidence of the fields ``keep`` of card ``data`` (plain JSON) onto a new source text.

    A text item takes the evidence of the suggestion's item with the same text (its field's
    first), else the stretch of ``new_text`` holding the same words nearest its old place; a
    fact's or tag's support takes the suggestion's evidence when the suggestion proposes the same
    value, else the same characters found again in ``new_text`` (only when the old text is known).
    A stretch found nowhere keeps its offsets, marked with the old text's sha256 (``Evidence.sha256``):
    the amended source no longer says it, and the card says so rather than point at other words.
    ``data`` is changed in place; its ``source`` is still the old one.
    """
    old_sha = data["source"]["sha256"]
    by_text: dict[str, list[dict]] = {}
    for name in TEXT_FIELDS:
        for item in suggestion[name]:
            by_text.setdefault(item["text"], item["evidence"])
    for name in TEXT_FIELDS:
        if name not in keep:
            continue
        own = {item["text"]: item["evidence"] for item in suggestion[name]}
        for item in data[name]:
            found = own.get(item["text"]) or by_text.get(item["text"])
            if found is None and new_text is not None:
                current = [ev for ev in item["evidence"] if not ev.get("sha256")]
                found = _locate_item(item["text"], new_text, current[0]["start"] if current else 0)
            item["evidence"] = [dict(ev) for ev in found] if found else _stale(item["evidence"], old_sha)
    for key, sup in data["support"].items():
        name = key.partition(".")[0]
        if name not in keep:
            continue
        theirs = suggestion["support"].get(key)
        same = theirs is not None and (name not in FACT_FIELDS or data[name] == suggestion[name])
        if same:
            sup["evidence"] = [dict(ev) for ev in theirs["evidence"]]
            continue
        moved = []
        for ev in sup["evidence"]:
            found = None if ev.get("sha256") else _locate_stretch(ev, old_text, new_text)
            moved.append(found if found is not None else _stale([ev], old_sha)[0])
        sup["evidence"] = moved


def reanchor(data: dict, record: Card, suggestion: Card, taken: list[str] | tuple[str, ...],
             places: SourcePlaces) -> None:
    """Move the evidence of every review field not in ``taken`` from ``record``'s source text onto
    ``suggestion``'s (:func:`reanchor_evidence`); ``data`` is the record's plain JSON, changed in place.
    ``places``: the library's, which read both texts (a relative location from its anchor)."""
    keep = [name for name in REVIEW_FIELDS if name not in taken]
    reanchor_evidence(data, source_text_of(record, places), source_text_of(suggestion, places), card_data(suggestion),
                      keep)
