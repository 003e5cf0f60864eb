"""What the site shows of a card: its index row (a summary of plain data, cached between builds)
and the pieces of its page (values, evidence links, pending suggestions, the source text).

A card's **status** is its record's: ``suggested`` (pmparse's draft) or ``reviewed`` (a person
decided). A record may also have a **pending** suggestion (``LIBRARY/.pmparse/pending``): what
pmparse would now change in a record a person touched. Its page shows each pending field beside
the record's value, with what the review would call it (``update``, ``conflict``, ``change``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pmparse.card.schema import TAG_FIELDS, TEXT_FIELDS, Card, Evidence
from pmparse.review.compare import FieldChange
from pmparse.site.highlight import Span
from pmparse.site.html import FILLABLE, humanise

#: Words of the search index: what the page's script splits a query into (see assets/site.js).
_WORD = re.compile(r"\w+")


def year_of(card: Card) -> str | None:
    """The incident's year (``2017``), or None."""
    return card.date[:4] if card.date else None


def filled(card: Card) -> int:
    """How many of the card's fields hold a value (of :data:`~pmparse.site.html.FILLABLE`)."""
    return sum(1 for name in FILLABLE if getattr(card, name) not in (None, [], ""))


def tag_name(names: dict[str, str], group: str, taxon_id: str) -> str:
    """The display name of a tag: the taxonomy's, else the id made readable."""
    return names.get(f"{group}.{taxon_id}") or humanise(taxon_id)


def search_words(card: Card, names: dict[str, str]) -> str:
    """Every distinct lower-case word of the card's title, facts, items and tag names, sorted, one
    space apart: the search box matches a query's words as prefixes of these."""
    texts = [card.id, card.title or "", card.organisation or "", card.date or ""]
    for name in TEXT_FIELDS:
        texts.extend(item.text for item in getattr(card, name))
    for group in TAG_FIELDS:
        texts.extend(tag_name(names, group, t) for t in getattr(card, group))
    return " ".join(sorted({w.lower() for text in texts for w in _WORD.findall(text)}))


def summary(card: Card, names: dict[str, str], pending: bool) -> dict:
    """The card's row in the index, groupings and search index (plain data: it is cached)."""
    return {
        "id": card.id,
        "title": card.title,
        "organisation": card.organisation,
        "year": year_of(card),
        "status": card.status,
        "pending": pending,
        "filled": filled(card),
        "components": list(card.components),
        "root_cause_categories": list(card.root_cause_categories),
        "contributing_factor_categories": list(card.contributing_factor_categories),
        "words": search_words(card, names),
        "error": None,
    }


def invalid_summary(card_id: str, error: str) -> dict:
    """The row of a record that does not parse or validate: listed, with its reason, never hidden."""
    return {"id": card_id, "title": None, "organisation": None, "year": None, "status": "invalid",
            "pending": False, "filled": 0, "components": [], "root_cause_categories": [],
            "contributing_factor_categories": [], "words": card_id.lower(), "error": error}


@dataclass
class Link:
    """One evidence stretch of an item: where its mark is, or why it has none.

    Attributes:
        anchor: The id of the stretch's anchor in the page's source text, or None.
        start: Its first offset.
        end: One past its last offset.
        note: Why there is no mark (an earlier text, a source that cannot be read), or None.
    """

    anchor: str | None
    start: int
    end: int
    note: str | None = None


@dataclass
class Shown:
    """One value as the page lists it: an item's text or a tag or fact, with its support.

    Attributes:
        text: What is shown.
        confidence: The pipeline's confidence, or None when the record has none for it.
        links: Its evidence.
        detail: A second line (a tag's id, a support's origin), or None.
    """

    text: str
    confidence: float | None
    links: list[Link] = field(default_factory=list)
    detail: str | None = None


@dataclass
class FieldView:
    """One field of a card page: the record's values and, when there is one, the pending suggestion.

    Attributes:
        name: The card field.
        values: The record's values.
        pending: The suggested values, or None when nothing is pending for this field.
        kind: The pending change's kind (``update``, ``conflict``, ``change``), or None.
    """

    name: str
    values: list[Shown]
    pending: list[Shown] | None = None
    kind: str | None = None


class Anchors:
    """Collects the spans to mark and gives every stretch a unique anchor id."""

    def __init__(self, text_length: int | None, sha256: str) -> None:
        self.spans: list[Span] = []
        self._length = text_length
        self._sha = sha256

    def link(self, ev: Evidence, field_name: str, anchor: str, pending: bool = False,
             source_sha: str | None = None) -> Link:
        """The link of one stretch, marking it when the page's source text is the text it indexes."""
        indexes = ev.sha256 or source_sha or self._sha
        if indexes != self._sha:
            return Link(None, ev.start, ev.end, "in another version of the source text")
        if self._length is None:
            return Link(None, ev.start, ev.end, "the source text cannot be read")
        if ev.end > self._length:
            return Link(None, ev.start, ev.end, "outside the source text")
        self.spans.append(Span(ev.start, ev.end, field_name, anchor, pending))
        return Link(anchor, ev.start, ev.end)


#: What a card page says of an item whose words a person changed in the record file by hand.
EDITED_BY_HAND = ("edited by hand: the evidence and confidence the record keeps were pmparse's for other words "
                  "(pmparse validate lists such items)")


def _items(card: Card, name: str, anchors: Anchors, prefix: str, pending: bool,
           text: str | None = None) -> list[Shown]:
    from pmparse.library.validate import unspelled_evidence

    shown = []
    for i, item in enumerate(getattr(card, name), 1):
        if text is not None and unspelled_evidence(item, text):
            # the model's offsets and confidence under a person's words: neither is shown as theirs
            shown.append(Shown(item.text, None, [], EDITED_BY_HAND))
            continue
        links = [anchors.link(ev, name, f"{prefix}{name}-{i}-{j}", pending, card.source.sha256)
                 for j, ev in enumerate(item.evidence, 1)]
        shown.append(Shown(item.text, item.confidence, links))
    return shown


def _supported(card: Card, key: str, text: str, name: str, anchors: Anchors, prefix: str, pending: bool,
               detail: str | None = None) -> Shown:
    support = card.support.get(key)
    if support is None:
        return Shown(text, None, [], detail)
    slug = key.replace(".", "-")
    links = [anchors.link(ev, name, f"{prefix}{slug}-{j}", pending, card.source.sha256)
             for j, ev in enumerate(support.evidence, 1)]
    origin = f"from {support.origin}"
    return Shown(text, support.confidence, links, f"{detail}; {origin}" if detail else origin)


def _set_by_hand(card: Card, name: str, base: Card | None, refused: frozenset[str] = frozenset()) -> str | None:
    """What pmparse last wrote for fact ``name`` when a person changed its value in the record
    file by hand, leaving pmparse's support for that value under theirs (the value differs from
    the base's, the support is the base's); else None. ``refused`` names the facts whose base value
    a person turned down in a review: the record's value there is pmparse's earlier reading, kept."""
    if base is None or name in refused or getattr(base, name) == getattr(card, name):
        return None
    support = card.support.get(name)
    if support is None:
        return None
    # pmparse's support left under the person's value: the base's as it was, or, once the record
    # followed an amended source, pmparse's reading of the earlier text kept with its sha256
    earlier = bool(support.evidence) and not any(ev.current for ev in support.evidence)
    if support != base.support.get(name) and not earlier:
        return None
    before = getattr(base, name)
    return "nothing" if before in (None, "") else str(before)


def field_values(card: Card, name: str, names: dict[str, str], anchors: Anchors, pending: bool = False,
                 text: str | None = None, base: Card | None = None,
                 refused: frozenset[str] = frozenset()) -> list[Shown]:
    """What a page lists for one field of ``card`` (the record's, or a pending suggestion's);
    ``text``, the source text the record indexes, finds items a person reworded by hand, and
    ``base``, what pmparse last wrote for the record, facts a person set by hand (less the facts
    ``refused``, whose base value a person turned down)."""
    prefix = "p-" if pending else "ev-"
    if name in TEXT_FIELDS:
        return _items(card, name, anchors, prefix, pending, text)
    if name in TAG_FIELDS:
        return [_supported(card, f"{name}.{t}", tag_name(names, name, t), name, anchors, prefix, pending, t)
                for t in getattr(card, name)]
    value = getattr(card, name)
    if value in (None, ""):
        return []
    shown = f"{value} minutes" if name == "duration_minutes" else str(value)
    before = None if pending else _set_by_hand(card, name, base, refused)
    if before is not None:
        # pmparse's confidence and evidence were for the value it found, not the person's
        return [Shown(shown, None, [], f"set by hand (pmparse had {before}; the record's evidence and "
                                       "confidence were for that)")]
    return [_supported(card, name, shown, name, anchors, prefix, pending)]


def field_views(card: Card, names: dict[str, str], anchors: Anchors, suggestion: Card | None,
                changes: list[FieldChange], text: str | None = None, base: Card | None = None,
                refused: frozenset[str] = frozenset()) -> list[FieldView]:
    """Every field of a card page, in card order, each with its pending suggestion if any
    (``text``: the source text the record indexes, when it can be read; ``base``: what pmparse
    last wrote for the record; ``refused``: the facts whose base value a person turned down)."""
    pending = {change.field: change.kind for change in changes}
    views = []
    for name in FILLABLE:
        view = FieldView(name, field_values(card, name, names, anchors, text=text, base=base, refused=refused))
        if suggestion is not None and name in pending:
            view.pending = field_values(suggestion, name, names, anchors, pending=True)
            view.kind = pending[name]
        views.append(view)
    return views
