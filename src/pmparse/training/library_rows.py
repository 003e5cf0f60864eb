"""Training rows from a curator's work: the reviewed records of a library (``pmparse train --library``).

What a record teaches, per unit of its source (units as ``convert`` splits them):

* an item a person accepted or wrote (a card ``status: reviewed``, or an item ``origin: person``) makes
  the units its evidence covers (half of their characters or more,
  :data:`pmparse.training.spans.COVER_SHARE`) rows of its field;
* a card marked reviewed counts as a whole: the units of its source no item covers are ``none``
  (the curator read the card and left them out);
* a suggested item a person rejected (``.pmparse/rejected``, its value read back from the base,
  which holds every decided suggestion) makes its units negatives of that field ("not this
  field"), unless the record still holds the item or a person put the unit in a field;
* a field of a draft a person kept, edited or decided item by item (``review --drafts``, while
  other fields of the draft are still open) counts as accepted, one they dropped as rejected;
* suggestions nobody touched teach nothing: a draft is not a decision.

A record whose source is gone or changed since it was read (another sha256) is left out, with a
note: its offsets index a text this run cannot read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pmparse.card.schema import TEXT_FIELDS, Card
from pmparse.errors import InputError, RecordError
from pmparse.ingest.read import DEFAULT_MAX_BYTES, ingest_bytes
from pmparse.library.records import card_data
from pmparse.library.store import Library
from pmparse.library.places import SourcePlaces
from pmparse.nlp.components.classifier import NONE, unit_rows
from pmparse.review.compare import value_hash
from pmparse.review.drafts import decided_fields
from pmparse.review.rejections import load_rejections
from pmparse.rules.cues import load_cues
from pmparse.training.field_labels import analyse_structure, structure_pipeline
from pmparse.training.spans import covered
from pmparse.util import read_regular_file, text_sha256

#: The prefix of a negative row's label: ``not:root_cause`` is "any label but root cause".
NOT = "not:"


@dataclass
class LibraryDoc:
    """The units of one reviewed record's source with what the curator said of them.

    Attributes:
        id: The record id.
        doc: The source's Doc (sections and units only), for cross-fitted calibration.
        rows: Model input of each labelled unit.
        labels: Its label: a field, ``none``, or ``not:FIELD`` (a rejected suggestion).
        units: Index of each row's unit in ``doc.spans["units"]``.
        whole: The card was reviewed as a whole (every unit's label is known).
    """

    id: str
    doc: object
    rows: list[tuple[str, str]] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    units: list[int] = field(default_factory=list)
    whole: bool = False


@dataclass
class LibraryRows:
    """What a library teaches, and what was left out and why."""

    docs: list[LibraryDoc] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def count(self, kind: str) -> int:
        """Rows that are fields (``field``), ``none``, or negatives (``negative``)."""
        labels = [label for doc in self.docs for label in doc.labels]
        if kind == "field":
            return sum(label in TEXT_FIELDS for label in labels)
        if kind == "negative":
            return sum(label.startswith(NOT) for label in labels)
        return sum(label == NONE for label in labels)


def _stretches(items: list[dict]) -> list[tuple[int, int]]:
    """Evidence stretches of items that index the card's own source text."""
    return [(ev["start"], ev["end"]) for item in items for ev in item.get("evidence", []) if not ev.get("sha256")]


def _positives(card: Card, decided: frozenset[str] | set[str] = frozenset()) -> dict[str, list[tuple[int, int]]]:
    """Per field, the stretches a person stands behind: every item of a reviewed card, of a draft
    field a person kept, edited or decided item by item (``decided``, ``review --drafts``), and a
    person's items of any other."""
    data = card_data(card)
    reviewed = card.status == "reviewed"
    return {name: _stretches([item for item in data[name]
                              if reviewed or name in decided or item.get("origin") == "person"])
            for name in TEXT_FIELDS}


def _rejected(library: Library, card: Card) -> dict[str, list[tuple[int, int]]]:
    """Per field, the stretches of suggested items a person turned down for this source text.

    The rejection memory keeps a hash of the value only; the base holds the decided suggestion's
    value (a review advances it), so a rejection whose hash the base's value still has gives its
    items. Items the record still holds are the person's to keep, not negatives.
    """
    try:
        memory = load_rejections(library, card.id)
    except RecordError:
        return {}
    base = library.read_state("base", card.id)
    if base is None or base.source.sha256 != card.source.sha256:
        return {}
    base_data, record = card_data(base), card_data(card)
    out: dict[str, list[tuple[int, int]]] = {}
    for rejection in memory.rejected:
        name = rejection.field
        if name not in TEXT_FIELDS or rejection.sha256 != card.source.sha256:
            continue
        if value_hash(base_data[name]) != rejection.value_sha256:
            continue  # the base moved on since: the rejected value is not known any more
        kept = {json_key(item) for item in record[name]}
        out.setdefault(name, []).extend(_stretches([i for i in base_data[name] if json_key(i) not in kept]))
    return out


def json_key(item: dict) -> tuple:
    """What makes two items the same for a rejection: their words and evidence."""
    return item["text"], tuple((ev["start"], ev["end"]) for ev in item.get("evidence", []))


def unit_targets(offsets: list[tuple[int, int]], positives: dict[str, list[tuple[int, int]]],
                 negatives: dict[str, list[tuple[int, int]]], whole: bool) -> list[list[str]]:
    """The labels of each unit (a list: a unit two fields cover is a row of each).

    Args:
        offsets: ``(start, end)`` of each unit.
        positives: Stretches per field a person stands behind.
        negatives: Stretches per field a person rejected.
        whole: The card was reviewed as a whole: a unit no positive covers is ``none``.
    """
    inside = {name: covered(offsets, spans) for name, spans in positives.items() if spans}
    against = {name: covered(offsets, spans) for name, spans in negatives.items() if spans}
    out = []
    for i in range(len(offsets)):
        labels = [name for name in TEXT_FIELDS if name in inside and inside[name][i]]
        if not labels:
            # a rejected unit nobody put elsewhere: "not that field" says more than none (it may
            # be another field the curator did not fill in), unless the whole card says none
            labels = [NONE] if whole else [NOT + name for name in TEXT_FIELDS if name in against and against[name][i]]
        out.append(labels)
    return out


def _read_source(card: Card, notes: list[str], places: SourcePlaces):
    """The source text a record's offsets index, or None (with a note) when it cannot be read again.

    ``places``: the library's; a relative location is read from its anchor (the folder of its
    first ``convert``), wherever ``train --library`` runs. A record may name any file (a library
    from someone else): only a plausible source of the library is read
    (:meth:`SourcePlaces.readable`), no more than ``convert`` reads, and a text file's sha256 is
    compared before it is ingested; an HTML page or a PDF, whose sha256 is that of the text
    extracted, is compared once extracted. A file that is not the record's says nothing of
    itself: no reading error of it (a byte, an offset) reaches the notes.
    """
    if not places.is_file(card.source.location):
        notes.append(f"{card.id}: left out: its source {card.source.location} is not a file "
                     f"(relative names are read from {places.anchor})")
        return None
    path = places.readable(card.source.location)
    if path is None:
        notes.append(f"{card.id}: left out: its source {card.source.location} is not read: no plausible source "
                     "(a hidden file, a system folder's, or one of no report's ending under a hidden folder)")
        return None
    raw = read_regular_file(path, DEFAULT_MAX_BYTES)
    if raw is None or (card.source.extracted_text is None and text_sha256(raw) != card.source.sha256):
        notes.append(f"{card.id}: left out: its source changed since the record was read (convert and review it again)")
        return None
    try:
        ingested = ingest_bytes(raw, path)
    except InputError as exc:
        notes.append(f"{card.id}: left out: its source changed since the record was read ({exc.kind})")
        return None
    if ingested.sha256 != card.source.sha256:
        notes.append(f"{card.id}: left out: its source changed since the record was read (convert and review it again)")
        return None
    return ingested


def library_rows(library_dir: str | Path | Library, nlp=None) -> LibraryRows:
    """The training rows of every record of a library a person reviewed, edited or rejected from
    (``library_dir``: its folder, or the library already opened).

    Raises:
        UsageError: ``library_dir`` is not a library folder (from :meth:`Library.open`'s caller).
    """
    library = library_dir if isinstance(library_dir, Library) else Library.open(library_dir)
    nlp = nlp or structure_pipeline()
    cues = load_cues()
    found = LibraryRows()
    for card_id in sorted(library.entries):
        card = library.entries[card_id].card
        if card is None:
            found.notes.append(f"{card_id}: left out: not a valid record")
            continue
        kept = {name for name, decision in decided_fields(library, card).items() if decision != "dropped"}
        positives, negatives = _positives(card, kept), _rejected(library, card)
        whole = card.status == "reviewed"
        if not whole and not any(positives.values()) and not any(negatives.values()):
            continue  # an untouched draft: nothing decided
        ingested = _read_source(card, found.notes, library.places)
        if ingested is None:
            continue
        doc = analyse_structure(nlp, ingested)
        units = list(doc.spans["units"]) if "units" in doc.spans else []
        entry = card.source.entry
        offsets = [(u.start_char, u.end_char) for u in units]
        rows = unit_rows(doc, cues)
        example = LibraryDoc(card_id, doc, whole=whole)
        for i, labels in enumerate(unit_targets(offsets, positives, negatives, whole)):
            if entry is not None and not entry.start <= offsets[i][0] < entry.end:
                continue  # another incident of the same file: this card says nothing of it
            for label in labels:
                example.rows.append(rows[i])
                example.labels.append(label)
                example.units.append(i)
        if example.rows:
            found.docs.append(example)
    return found


#: A heading is learnt when this share of the units under it, in this many reviewed records at
#: least, are one field (and at least :data:`HEADING_MIN_UNITS` units).
HEADING_SHARE = 0.7
HEADING_MIN_DOCS = 2
HEADING_MIN_UNITS = 2


def learned_headings(docs: list[LibraryDoc]) -> dict[str, str]:
    """Headings the packaged table does not know that a publisher uses for one field, read off
    the cards reviewed as a whole: ``{normalised heading: field}``.

    A publisher's template names its sections its own way ("How we found out", "Follow-up"); the
    heading rules ignore such headings, while the curator's cards say what stands under them.
    """
    import bisect
    from collections import Counter

    from pmparse.nlp.components.fields import unit_sections
    from pmparse.rules.headings import normalise_heading

    votes: dict[str, Counter] = {}
    seen_in: dict[str, set[str]] = {}
    for example in docs:
        if not example.whole:
            continue
        doc = example.doc
        headings = sorted((h.start_char, normalise_heading(h.text)) for h in doc.spans.get("headings", []))
        starts = [start for start, _ in headings]
        label_of: dict[int, str] = {}
        for unit, label in zip(example.units, example.labels):
            label_of.setdefault(unit, label)
        for i, (unit, (section, _)) in enumerate(zip(doc.spans["units"], unit_sections(doc))):
            j = bisect.bisect_right(starts, unit.start_char) - 1
            if section != "unknown" or j < 0 or not headings[j][1] or i not in label_of:
                continue
            votes.setdefault(headings[j][1], Counter())[label_of[i]] += 1
            seen_in.setdefault(headings[j][1], set()).add(example.id)
    learned = {}
    for heading, counter in sorted(votes.items()):
        label, n = counter.most_common(1)[0]
        if (label in TEXT_FIELDS and n >= HEADING_MIN_UNITS and n >= HEADING_SHARE * sum(counter.values())
                and len(seen_in[heading]) >= HEADING_MIN_DOCS):
            learned[heading] = label
    return learned
