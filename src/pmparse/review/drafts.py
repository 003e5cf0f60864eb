"""Reviewing drafts (``pmparse review --drafts``): a record ``convert`` wrote that nobody touched,
walked field by field as if it were an empty person's record with the draft as its suggestion.

Each non-empty field of the draft is offered against nothing, and the answer goes through the same
decision code as a pending suggestion's (:mod:`pmparse.review.apply`, which also writes what is
particular to a draft: ``note_decision``, ``drop_field``; this module only reads drafts):

- **keep** (``y``): the record keeps the value (``accept_field``, a no-op on its words); the field
  is the person's from now on;
- **drop** (``n``): the field is emptied in the record and the value remembered in the rejection
  memory (``reject_field``), so ``convert`` does not propose it again for this source and model;
- **edit** (``e``) and **items** (``i``): the record takes the person's value, or the items taken,
  and the refused items are remembered (``accept_field`` with an edit, ``accept_items``);
- **skip** and **quit** write nothing: the field stays the draft's.

What was decided of a draft whose other fields are still open is kept in
``LIBRARY/.pmparse/drafts/IL-0001.json`` (field, decision, by whom and when, and the source sha256
the draft was read from). The record keeps ``status: suggested`` until every field the draft
suggested is decided; it is then marked ``reviewed`` (by whom and when) and the file goes. While
the file exists the record counts as a person's (:func:`pmparse.library.store.is_edited`): a later
``convert`` no longer refreshes it in place but compares three ways with the base (the draft as
made), so what the person kept, dropped or took item by item is never overwritten nor proposed
again, and what pmparse suggests anew waits for review as for any reviewed record;
``train --library`` reads the decided fields (:func:`decided_fields`).
"""

from __future__ import annotations

from typing import Any

from pmparse.card.schema import FACT_FIELDS, Card
from pmparse.library.draft_state import DRAFTS, DraftDecision, DraftState, read_draft_state
from pmparse.library.records import card_data, format_of, loads
from pmparse.library.store import Entry, Library
from pmparse.review.anchor import REVIEW_FIELDS
from pmparse.review.compare import CardDiff, support_keys, compare, link_title, read_text


def load_draft_state(library: Library, card_id: str) -> DraftState | None:
    """A record's draft decisions, or None when there are none (or the file is unreadable:
    the record is then a person's, as any record a person touched)."""
    return read_draft_state(library.state_path(DRAFTS, card_id))


def decided_fields(library: Library, card: Card) -> dict[str, DraftDecision]:
    """The fields of a partly reviewed draft a person decided, for this source text: ``{field: decision}``."""
    state = load_draft_state(library, card.id)
    if state is None or state.sha256 != card.source.sha256:
        return {}
    return {name: field.decision for name, field in state.decided.items()}


def empty_value(name: str) -> Any:
    """A field's value when it holds nothing: None for the title and facts, else an empty list."""
    return None if name in FACT_FIELDS or name == "title" else []


def open_draft(library: Library, entry: Entry) -> tuple[CardDiff, Card] | None:
    """What a draft still asks: its open fields, each pmparse's suggestion against nothing, and
    the draft as pmparse made it (its base); None when the record is no draft.

    A draft is a valid record with ``status: suggested`` and no pending suggestion whose fields are
    still the ones ``convert`` wrote (its base), apart from the ones decided here. A record a person
    edited by hand is theirs, as before: ``review`` asks about what ``convert`` suggests anew for it.
    """
    card = entry.card
    if card is None or card.status != "suggested" or library.state_path("pending", entry.id).is_file():
        return None
    made = library.read_state("base", entry.id)
    if made is None or made.source.sha256 != card.source.sha256:
        return None
    decided = decided_fields(library, card)
    record, draft = card_data(card), card_data(made)
    if not decided and record != draft:
        return None  # edited by hand
    asked = [name for name in REVIEW_FIELDS
             if name not in decided and draft[name] not in (None, []) and record[name] == draft[name]]
    if not asked:
        return None
    # the person's record: the draft with its open fields empty (their supports with them)
    person = dict(record)
    person["support"] = {key: value for key, value in record["support"].items()
                         if not any(key in support_keys(name, record["support"]) for name in asked)}
    for name in asked:
        person[name] = empty_value(name)
    diff = compare(Card.model_validate(person), made, None, None, entry.path, read_text(entry.path),
                   f"draft {entry.id} (what convert suggested)", places=library.places)
    diff.changes = [change for change in diff.changes if change.field in asked]
    for change in diff.changes:
        change.linked = []
    link_title(diff)
    diff.draft = True
    diff.unchanged = [name for name in REVIEW_FIELDS if draft[name] in (None, [])]
    diff.kept = sorted(decided, key=REVIEW_FIELDS.index)
    return diff, made


def changed_since_asked(library: Library, entry: Entry, made: Card, names: list[str]) -> list[str]:
    """The fields of ``names`` a draft's answer must no longer write: the record's file, read
    now, holds another value than the draft's (edited by hand, or refreshed by ``convert``, while
    the question waited), or a pending suggestion came meanwhile (the draft is then asked by the
    plain review). A keep would write the draft's words over the person's, a drop or items answer
    would empty them.

    Raises:
        RecordError: the record cannot be read any more.
    """
    if library.state_path("pending", entry.id).is_file():
        return list(names)
    now = card_data(loads(read_text(entry.path), format_of(entry.path), str(entry.path)))
    draft = card_data(made)
    return [name for name in names if now[name] != draft[name]]


def draft_ids(library: Library) -> list[str]:
    """Ids of the library's drafts with a field to decide, sorted."""
    return list(open_drafts(library))


def open_drafts(library: Library) -> dict[str, tuple[CardDiff, Card]]:
    """Each draft with a field to decide, by id (sorted), opened (:func:`open_draft`): a review
    asks from what was opened to list it, rather than comparing every draft again."""
    opened = ((card_id, open_draft(library, library.entries[card_id])) for card_id in sorted(library.entries))
    return {card_id: draft for card_id, draft in opened if draft is not None}
