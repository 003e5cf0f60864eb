"""Field-by-field differences between a record and a suggestion, for people and for tools.

Three versions of a card can meet here: the **base** (what pmparse last wrote or what a person last
decided on, ``LIBRARY/.pmparse/base``), the **record** a person reads and edits, and a new
**suggestion** (``LIBRARY/.pmparse/pending``). Comparing all three tells a field pmparse changed
(``update``) from a field a person edited that pmparse now suggests otherwise (``conflict``) and from
a person's edit that pmparse did not touch (kept, never proposed). Without a base every difference
is a plain ``change``.

Records are rewritten by splicing: only the top-level keys whose values change are replaced in the
record's text, so comments and formatting a person added elsewhere survive byte for byte.
"""

from __future__ import annotations

import copy
import difflib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Literal

from pydantic import ValidationError

from pmparse.card.schema import FACT_FIELDS, TAG_FIELDS, TEXT_FIELDS, Card
from pmparse.card.title import RESTATED_FACTS, restates
from pmparse.errors import RecordError, UsageError
from pmparse.library.anchored import places_of
from pmparse.library.items import same_words
from pmparse.library.places import SourcePlaces
from pmparse.library.statefiles import read_record_text
from pmparse.library.records import card_data, dumps, format_of, loads, source_text_of
from pmparse.review.anchor import REVIEW_FIELDS, reanchor, reanchor_evidence, person_items
from pmparse.util import sha256_text

ChangeKind = Literal["change", "update", "conflict"]

@dataclass
class FieldChange:
    """One field whose suggested value differs from the record's.

    Attributes:
        field: The card field.
        kind: ``update`` (pmparse changed a field the person had not touched), ``conflict`` (the
            record differs from what pmparse last suggested, and pmparse now suggests something
            else) or ``change`` (no base known).
        record: The record's value (plain JSON data).
        suggestion: The suggested value.
        base: The base value, when a base is known.
        linked: For the title: the facts also changing that the suggested title (or the
            record's) says in words; a review decides them with the title (:func:`link_title`).
    """

    field: str
    kind: ChangeKind
    record: Any
    suggestion: Any
    base: Any = None
    linked: list[str] = field(default_factory=list)


@dataclass
class CardDiff:
    """Differences between one record and one suggestion.

    Attributes:
        id: The record id.
        record: The record as it stands.
        suggestion: The suggested card.
        base: The base card, when known.
        record_path: The record file.
        record_text: The record file's text, as read.
        suggestion_label: How to name the suggestion in headers.
        places: The record's library's places: its source texts are read from them (a relative
            location from the library's anchor) to show evidence and move it onto an amended text.
        suggestion_places: The places of the suggestion's own library, when it is a record file
            of another library (``pmparse diff A B``): its evidence is shown from its text read
            there; None: :attr:`places`.
        changes: Fields to review, in card order.
        unchanged: Fields equal in record and suggestion.
        moved: Text fields whose items say the same words as the suggestion's, found elsewhere in
            an amended source (their evidence, and perhaps the confidence, differ): nothing to
            decide; they move with the record onto the new text (:func:`merge` with ``follow``).
        rescored: Text fields whose items are the record's, word for word and at the same offsets,
            with other confidences (a retrained or library model read the text the same way):
            nothing to decide, and the record keeps the confidences it was decided with.
        kept: Fields a person edited that pmparse did not change (never proposed).
        rejected: Fields whose suggestion was rejected or edited before (never proposed again).
        two_files: Two record files compared (``pmparse diff A B``), not a record and its suggestion.
        draft: A draft offered against nothing (``review --drafts``): ``unchanged`` are the fields
            the draft leaves empty.
    """

    id: str
    record: Card
    suggestion: Card
    base: Card | None
    record_path: Path
    record_text: str
    suggestion_label: str
    places: SourcePlaces
    changes: list[FieldChange] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    moved: list[str] = field(default_factory=list)
    rescored: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    two_files: bool = False
    draft: bool = False
    suggestion_places: SourcePlaces | None = None

    def suggestion_text(self) -> str | None:
        """The source text the suggestion's offsets index, read from the suggestion's library
        (:attr:`suggestion_places`, else :attr:`places`), or None when it cannot be had unchanged."""
        return source_text_of(self.suggestion, self.suggestion_places or self.places)

    @property
    def source_changed(self) -> bool:
        """True when the suggestion was made from a different source text than the record."""
        return self.record.source.sha256 != self.suggestion.source.sha256

    @property
    def open(self) -> bool:
        """True when something waits for a person: a field to decide, or an amended source the
        record has not followed yet (settled by the review that reaches it)."""
        return bool(self.changes) or self.source_changed


@dataclass
class DiffReport:
    """What ``pmparse diff`` found.

    Attributes:
        diffs: One entry per compared record (also those without changes).
        errors: Pending suggestions that could not be compared, with the reason.
    """

    diffs: list[CardDiff] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def has_changes(self) -> bool:
        """True when any record has a field to review, or an amended source to follow."""
        return any(d.open for d in self.diffs)


def value_hash(value: Any) -> str:
    """sha256 of a field value in canonical JSON (what a rejection remembers)."""
    canonical = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return sha256_text(canonical)


def compare(record: Card, suggestion: Card, base: Card | None = None,
            is_rejected: Callable[[str, Any], bool] | None = None, record_path: Path | None = None,
            record_text: str | None = None, suggestion_label: str = "suggestion", *,
            places: SourcePlaces) -> CardDiff:
    """Compare a record with a suggestion, field by field, aware of the base.

    Args:
        record: The record as a person left it.
        suggestion: The new suggestion.
        base: What pmparse last wrote (or a person last decided on); None when unknown.
        is_rejected: ``(field, suggested_value) -> bool``, true for suggestions already rejected.
        record_path: The record file (for headers and patches).
        record_text: The record file's text (for patches); the canonical dump when None.
        suggestion_label: How headers name the suggestion.
        places: The record's library's places (:attr:`CardDiff.places`).
    """
    rec, sug = card_data(record), card_data(suggestion)
    old = card_data(base) if base is not None else None
    amended = record.source.sha256 != suggestion.source.sha256
    base_amended = base is not None and base.source.sha256 != suggestion.source.sha256
    diff = CardDiff(record.id, record, suggestion, base, record_path or Path(f"{record.id}.yaml"),
                    record_text if record_text is not None else dumps(record), suggestion_label, places)
    for name in REVIEW_FIELDS:
        if rec[name] == sug[name]:
            diff.unchanged.append(name)
        elif not amended and same_reading(rec[name], sug[name]):
            diff.rescored.append(name)
        elif amended and same_words(name, rec[name], sug[name]):
            diff.moved.append(name)
        elif is_rejected is not None and is_rejected(name, sug[name]):
            diff.rejected.append(name)
        elif old is not None and (sug[name] == old[name] or (
                base_amended and same_words(name, old[name], sug[name])) or (
                not base_amended and same_reading(old[name], sug[name]))):
            # pmparse did not change its mind (on an amended text: its words are the same; on the
            # same text: its items, whatever their confidences)
            diff.kept.append(name)
        else:
            kind: ChangeKind = "change" if old is None else ("update" if rec[name] == old[name] else "conflict")
            diff.changes.append(FieldChange(name, kind, rec[name], sug[name], None if old is None else old[name]))
    link_title(diff)
    return diff


def link_title(diff: CardDiff) -> None:
    """Tie the facts a title restates to the title's change, so a review decides them together.

    A suggested title "... lasting 31 minutes" accepted without its duration (or a duration of
    41 accepted under the record's "lasting 31 minutes") would leave a record that contradicts
    itself. Only facts that change are tied, and only to a title that changes too.
    """
    changes = {change.field: change for change in diff.changes}
    title = changes.get("title")
    if title is None:
        return
    title.linked = [name for name in RESTATED_FACTS if name in changes and (
        restates(title.suggestion, name, changes[name].suggestion) or restates(title.record, name, changes[name].record))]


def is_items(value: Any) -> bool:
    """True when a field value (plain JSON) is a text field's list of items."""
    return isinstance(value, list) and all(isinstance(item, dict) and "text" in item for item in value)


def without_confidences(value: Any) -> Any:
    """A field value with its items' confidences left out (other values as they are)."""
    if is_items(value):
        return [{k: v for k, v in item.items() if k != "confidence"} for item in value]
    return value


def item_key(item: dict) -> str:
    """sha256 of one text item without its confidence: its words, evidence and origin."""
    return value_hash({k: v for k, v in item.items() if k != "confidence"})


def same_reading(record_value: Any, suggested_value: Any) -> bool:
    """True when two values of a text field hold the same items (words, evidence, origin) and
    differ at most in their confidences: a new model's reading of the same text, not a new one."""
    return (isinstance(record_value, list) and isinstance(suggested_value, list)
            and without_confidences(record_value) == without_confidences(suggested_value))


def three_way_items(record_value: list, base_value: list, suggested_value: list) -> list:
    """pmparse's change to a text field (base to suggestion), item by item, applied to the record's
    items as a person left them: items the suggestion adds are appended, items it no longer holds
    are dropped where the record still has them as pmparse wrote them, and every other item of the
    record (a person's, reworded or kept) stays where it is. Items are compared by their words,
    evidence and origin, not their confidence, so the three values must index the same text."""
    base_keys, suggested_keys = {item_key(i) for i in base_value}, {item_key(i) for i in suggested_value}
    dropped = base_keys - suggested_keys
    kept = [item for item in record_value if item_key(item) not in dropped]
    # an added item whose words the record already says (a person wrote that sentence in, and a
    # model trained on the library now reads it) is nothing new: never the same words twice
    said = {i["text"] for i in kept}
    return kept + [item for item in suggested_value if item_key(item) not in base_keys and item["text"] not in said]


def three_way_words(record_value: list, base_value: list, suggested_value: list, one_old_text: bool = True) -> list:
    """:func:`three_way_items` for a suggestion made from an amended text: the record and its base
    read the old text, the suggestion the new one, so pmparse's change (base to suggestion) is
    told by the items' words, their offsets no longer comparing. Items the suggestion no longer
    says are dropped where the record still has them as pmparse wrote them (same words, evidence
    and origin as the base's), items whose words the base did not say are appended, and every
    other item of the record (a person's, reworded or kept) stays where it is, its evidence still
    the old text's: the caller moves it onto the new one.

    ``one_old_text`` False: the base reads another text than the record (a review that decided
    some fields gave the base a newer text and left the record on its own), so a record's item is
    pmparse's as written when its words and origin are the base's, its offsets not comparing."""
    def written(item: dict) -> str:
        return item_key(item) if one_old_text else value_hash([item["text"], item.get("origin")])

    base_words, suggested_words = {i["text"] for i in base_value}, {i["text"] for i in suggested_value}
    dropped = {written(i) for i in base_value if i["text"] not in suggested_words}
    kept = [item for item in record_value if written(item) not in dropped]
    said = {i["text"] for i in kept}
    return kept + [item for item in suggested_value if item["text"] not in base_words and item["text"] not in said]


def onto_persons_edits(record: Card, base: Card, suggestion: Card, stand_in: bool = False, *,
                       places: SourcePlaces) -> tuple[Card, set[str]]:
    """The suggestion with each text or tag field a person edited (the record's value differs from
    the base's; read on another text, in its words or origins) replaced by pmparse's change applied to the person's
    items, so a review offers what pmparse changed without undoing what the person did: an item or
    tag they deleted or reworded is not put back, one they added not taken away.

    On the record's text the items compare whole (:func:`three_way_items`).
    On an amended text they compare by their words (:func:`three_way_words`),
    only where pmparse now says other words than the base (a field it reads the same is the
    person's, as :func:`compare` says), and the record's items kept take
    their evidence on the new text as a field kept by the review does
    (:func:`pmparse.review.anchor.reanchor_evidence`): before, an amended source offered the
    person's reworded items back in pmparse's words and their deleted items again.

    ``stand_in``: ``base`` is no base but the record less its person's items (the base is lost),
    and :func:`compare` gets none: a field pmparse reads as that stand-in (or in its words, on an
    amended text) is merged too, since compare, without a base, would offer the suggestion's value
    whole against the record, the person's items away.

    ``places``: the library's, which read the source texts (a relative location from its anchor).

    Returns:
        The suggestion, and the names of the fields merged.
    """
    rec, old, new = card_data(record), card_data(base), card_data(suggestion)
    # a review that decided some fields and left others pending gives the base the newer text it
    # decided on while the record stays on its own: its items then compare with the base's by
    # their words and origin (before, no merge ran at all and such a field was offered whole)
    one_old_text = record.source.sha256 == base.source.sha256
    one_text = one_old_text and base.source.sha256 == suggestion.source.sha256
    merged: set[str] = set()
    for name in TEXT_FIELDS:
        if (new[name] == old[name] and not stand_in) or (
                rec[name] == old[name] if one_old_text else _as_written(rec[name], old[name])):
            continue
        if one_text:
            value = three_way_items(rec[name], old[name], new[name])
        elif [i["text"] for i in old[name]] == [i["text"] for i in new[name]] and not stand_in:
            continue
        else:
            value = three_way_words(rec[name], old[name], new[name], one_old_text)
            held = {"source": rec["source"], "support": {}, name: copy.deepcopy(value)}
            reanchor_evidence(held, source_text_of(record, places), source_text_of(suggestion, places), new, [name])
            value = held[name]
        if value != new[name]:
            new[name] = value
            merged.add(name)
    for name in TAG_FIELDS:
        # tags are words alone, on any text: pmparse's change (tags it adds, tags it no longer
        # gives) applied to the person's tags; before, the whole new value was offered, and a y to
        # take one new tag took back a tag the person added or put back one they removed
        if rec[name] == old[name] or new[name] == old[name]:
            continue
        gone = set(old[name]) - set(new[name])
        value = [tag for tag in rec[name] if tag not in gone]
        value += [tag for tag in new[name] if tag not in old[name] and tag not in value]
        if value != new[name]:
            new[name] = value
            # the support of a tag the value no longer holds would outlive it in the record
            new["support"] = {key: sup for key, sup in new["support"].items()
                              if key.partition(".")[0] != name or key.partition(".")[2] in value}
            merged.add(name)
    return (Card.model_validate(new) if merged else suggestion), merged


def _as_written(record_value: list, base_value: list) -> bool:
    """True when a text field's items are the base's, read on another text: the same words and
    origins in the same order (a person's edit changes one or the other)."""
    return [(i["text"], i.get("origin")) for i in record_value] == [(i["text"], i.get("origin")) for i in base_value]


@dataclass
class ItemChange:
    """One item a text field's hunk adds or drops, decided on its own (``review``'s answer ``i``).

    Attributes:
        number: Its place among the hunk's item changes, from 1, in the order the hunk shows them.
        kind: ``add`` (the suggestion holds it, the record not) or ``drop`` (the other way round).
        item: The item (plain JSON): the suggestion's for an add, the record's for a drop.
    """

    number: int
    kind: Literal["add", "drop"]
    item: dict


def _item_walk(record_value: list, suggested_value: list):
    """The items of a text field's hunk in the order :func:`pmparse.cli.render.render_change` shows
    them: ``("keep", i)`` for a record item the suggestion says in the same words, ``("drop", i)``
    and ``("add", j)`` for the changes (a reworded item is a drop and an add, side by side)."""
    matcher = difflib.SequenceMatcher(a=[i["text"] for i in record_value], b=[i["text"] for i in suggested_value],
                                      autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            yield from (("keep", i) for i in range(i1, i2))
            continue
        paired = min(i2 - i1, j2 - j1) if op == "replace" else 0
        for k in range(paired):
            yield "drop", i1 + k
            yield "add", j1 + k
        yield from (("drop", i) for i in range(i1 + paired, i2))
        yield from (("add", j) for j in range(j1 + paired, j2))


def item_changes(change: FieldChange) -> list[ItemChange]:
    """The items a text field's hunk adds and drops, numbered in the hunk's order (none for a
    fact or a tag field: their value is one decision)."""
    if change.field not in TEXT_FIELDS or not is_items(change.record) or not is_items(change.suggestion):
        return []
    out = []
    for kind, index in _item_walk(change.record, change.suggestion):
        if kind != "keep":
            item = change.record[index] if kind == "drop" else change.suggestion[index]
            out.append(ItemChange(len(out) + 1, kind, item))
    return out


def picked_items(record_value: list, suggested_value: list, accepted: set[int] | frozenset[int]) -> list:
    """A text field after an item-by-item decision: the record's items as they are (the ones the
    suggestion says in the same words too), less the drops accepted, with the adds accepted where
    the suggestion has them. ``accepted`` holds :attr:`ItemChange.number` of the changes taken."""
    out, number = [], 0
    for kind, index in _item_walk(record_value, suggested_value):
        if kind == "keep":
            out.append(record_value[index])
            continue
        number += 1
        if kind == "drop" and number not in accepted:
            out.append(record_value[index])
        elif kind == "add" and number in accepted:
            out.append(suggested_value[index])
    return out


def support_keys(name: str, support: dict) -> list[str]:
    if name in FACT_FIELDS:
        return [name] if name in support else []
    if name in TAG_FIELDS:
        return [key for key in support if key.startswith(name + ".")]
    return []


def merge(record: Card, suggestion: Card, fields: list[str] | tuple[str, ...],
          values: dict[str, Any] | None = None, follow: bool = False, taken: dict[str, Any] | None = None, *,
          places: SourcePlaces) -> Card:
    """The record with ``fields`` taken from the suggestion (or from ``values``, a person's edit, or
    ``taken``, items each the record's or the suggestion's as they are: :func:`picked_items`, whose
    record items already index the suggestion's text).

    Supports of those facts and tags come along; once any field is taken (or with ``follow``, when
    every field was decided and the record keeps them all), the record's source and pipeline
    become the suggestion's (the taken evidence indexes the suggestion's source text). When that
    source text is not the record's (the source was amended), a text field whose items say the
    suggestion's words is taken whole (only its evidence and confidence differ: nothing a person
    decided), and the evidence of every other field kept is moved onto the new text
    (:func:`reanchor_evidence`), so no offset indexes a text the card no longer names. ``places``:
    the library's, which read the source texts (a relative location from its anchor).

    Raises:
        RecordError: an edited value does not fit the schema.
    """
    data, new = card_data(record), card_data(suggestion)
    amended = data["source"]["sha256"] != new["source"]["sha256"]
    if amended and (fields or follow):
        fields = list(fields) + [name for name in TEXT_FIELDS if name not in fields
                                 and same_words(name, data[name], new[name])]
    support = dict(data["support"])
    for name in fields:
        if name not in REVIEW_FIELDS:
            raise UsageError(f"expected one of {', '.join(REVIEW_FIELDS)}, found {name!r}")
        if taken and name in taken:
            data[name] = taken[name]
        elif values and name in values:
            # a person's edit: items whose words changed are theirs, not the model's reading
            data[name] = (person_items(values[name], new[name], source_text_of(suggestion, places))
                          if name in TEXT_FIELDS else values[name])
        else:
            data[name] = new[name]
        for key in support_keys(name, support):
            del support[key]
        for key in support_keys(name, new["support"]):
            support[key] = new["support"][key]
    data["support"] = support
    if fields or follow:
        if amended:
            reanchor(data, record, suggestion, fields, places)
        data["source"], data["pipeline"] = new["source"], new["pipeline"]
    try:
        return Card.model_validate(data)
    except ValidationError as exc:
        reasons = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        raise RecordError(f"expected a valid card after the change, found: {reasons}", record.id) from exc


def read_text(path: Path) -> str:
    """A record file's text exactly as stored (line endings kept), for splicing and patches.

    Raises:
        RecordError: unreadable or not UTF-8.
    """
    try:
        return read_record_text(path, newline="")
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(f"expected a readable UTF-8 record, found {exc}", str(path)) from exc


def _read_record(path: Path) -> tuple[Card, str]:
    text = read_text(path)
    return loads(text, format_of(path), str(path)), text


def diff_files(a: str | Path, b: str | Path) -> CardDiff:
    """Compare two record files, field by field (``b`` is read as a suggestion for ``a``); each
    one's source is read as its own library reads it (a relative location from its anchor).

    Raises:
        RecordError: a file is unreadable or not a valid card.
    """
    a, b = Path(a), Path(b)
    record, text = _read_record(a)
    suggestion, _ = _read_record(b)
    diff = compare(record, suggestion, record_path=a, record_text=text, suggestion_label=str(b),
                   places=places_of(a.parent))
    # B may be a record of another library, whose relative location names a file from its own
    # anchor: read from A's, it was another text (or none) and B's evidence went unshown
    diff.suggestion_places = places_of(b.parent)
    diff.two_files = True
    return diff
