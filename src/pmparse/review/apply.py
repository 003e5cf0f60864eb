"""Writing a reviewer's decisions: a record's accepted, edited or item-by-item fields, a rejected
suggestion remembered, the base advanced, and a draft's decided fields (``review --drafts``).

Each write replaces one file atomically and touches only the record's lines that change
(:func:`pmparse.library.splice.splice`), so a review stopped at any point leaves every record
either as it was or with the decisions made. The walk that asks for them is
:mod:`pmparse.review.session`; ``diff --patch`` shows the same text unwritten (:func:`patched_text`).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from pmparse.card.schema import Card
from pmparse.library.draft_state import DRAFTS, DraftDecision, DraftField, DraftState
from pmparse.library.records import card_data, dumps, format_of, loads, source_text_of
from pmparse.library.splice import splice
from pmparse.library.statefiles import state_fits, writable
from pmparse.library.store import Entry, Library
from pmparse.review.anchor import REVIEW_FIELDS, reanchor_evidence
from pmparse.review.compare import CardDiff, FieldChange, item_changes, item_key, merge, picked_items, read_text, support_keys
from pmparse.review.drafts import empty_value, load_draft_state
from pmparse.review.rejections import memory_fits, remember
from pmparse.util import atomic_write


def _next_base(library: Library, suggestion: Card, name: str) -> Card | None:
    """The base advanced by one field, or None (no base), checked against the state files' limit.

    Called before the record is written: a base refused after it left the record holding the
    decision and the base not, so the next ``convert`` read the field as a person's edit.

    Raises:
        RecordError: the base would be larger than a state file may be (nothing is written).
    """
    base = library.read_state("base", suggestion.id)
    if base is None:
        return None
    return state_fits_base(library, merge(base, suggestion, [name], places=library.places))


def state_fits_base(library: Library, base: Card) -> Card:
    """``base`` when written as the record's base it stays within the state files' limit.

    Raises:
        RecordError: it would be larger (the file named; nothing is written).
    """
    state_fits(library.state_path("base", base.id), dumps(base, "json"))
    return base


def _write_base(library: Library, base: Card | None) -> None:
    if base is not None:
        library.write_state("base", base)


def accept_field(library: Library, entry: Entry, suggestion: Card, name: str, by: str, at: str,
                 value: Any = None, edited: bool = False, made: Card | None = None, mark: bool = True) -> Card:
    """Take one field from the suggestion (or the reviewer's ``value`` when ``edited``) into the record.

    Only the record's lines of that field (and of status, review mark, source and pipeline when
    they change) are rewritten; the file is replaced atomically. ``made`` is the suggestion as
    pmparse made it when ``suggestion`` is what the review offered (:func:`pmparse.review.pending.open_diff`: less items
    turned down, onto a person's item edits): the base and the memory take pmparse's reading, so
    the same reading converted again is nothing new. ``mark`` False leaves the record's status and
    review mark as they are (a draft field decided while others of the draft are still open).

    Returns:
        The record as written.

    Raises:
        RecordError: the record cannot be read, or the edited value does not fit the schema.
    """
    def take(current: Card) -> Card:
        taken = merge(current, suggestion, [name], {name: value} if edited else None, places=library.places)
        return mark_reviewed(taken, by, at) if mark else taken

    base = _next_base(library, made or suggestion, name)  # before the record: both written or neither
    if edited:
        memory_fits(library, made or suggestion, name, by, at, suggestion)  # the record, base and memory: all or none
    new = rewrite_record(library, entry, suggestion, take)
    assert new is not None  # take always gives a card
    if mark:
        library.drop_state(DRAFTS, entry.id)  # a whole reviewed card: its draft decisions say no more
    _write_base(library, base)
    if edited:
        remember(library, made or suggestion, name, "edited", by, at, card_data(new)[name])
    return new


def accept_items(library: Library, entry: Entry, suggestion: Card, name: str, accepted: set[int] | frozenset[int],
                 by: str, at: str, made: Card | None = None, draft: bool = False) -> Card:
    """Decide a text field item by item: the record keeps its own items as they are, loses the
    drops accepted and gains the adds accepted (each the suggestion's item, its origin, evidence
    and confidence as suggested); the refused adds are remembered item by item.

    ``accepted`` holds the numbers (:func:`pmparse.review.compare.item_changes`, in the hunk's
    order) of the item changes taken; ``suggestion`` and ``made`` are as in :func:`accept_field`.
    The record is marked reviewed and rewritten at once, atomically, as an accept is. Taking every
    change is an accept, refusing every one a reject: use those for them. With ``draft`` the record
    is a draft whose field holds the suggestion itself: the person's record starts from nothing
    (every suggested item is an add) and its status and review mark stay (``review --drafts``).

    Returns:
        The record as written.

    Raises:
        RecordError: the record cannot be read or written.
    """
    refused: list[dict] = []

    def take(current: Card) -> Card:
        data = card_data(current)
        if draft:
            data[name] = []  # the draft's items are the suggestion's, not a person's
        if current.source.sha256 != suggestion.source.sha256:
            # an amended source: the record's own items move onto the text the suggestion read,
            # as a field kept by an accept elsewhere does (reanchor_evidence)
            reanchor_evidence(data, source_text_of(current, library.places), source_text_of(suggestion, library.places),
                              card_data(suggestion), [name])
        offered = card_data(suggestion)[name]
        change = FieldChange(name, "change", data[name], offered)
        refused.extend(c.item for c in item_changes(change) if c.kind == "add" and c.number not in accepted)
        taken = merge(current, suggestion, [name], taken={name: picked_items(data[name], offered, accepted)},
                      places=library.places)
        return taken if draft else mark_reviewed(taken, by, at)

    base = _next_base(library, made or suggestion, name)  # before the record: both written or neither
    memory_fits(library, made or suggestion, name, by, at, suggestion)  # the record, base and memory: all or none
    new = rewrite_record(library, entry, suggestion, take)
    assert new is not None  # take always gives a card
    if not draft:
        library.drop_state(DRAFTS, entry.id)  # a whole reviewed card: its draft decisions say no more
    _write_base(library, base)
    # remembered even when only drops were refused: the value as made is then turned down as a
    # whole (a library without a base would otherwise offer the same drops again)
    remember(library, made or suggestion, name, "rejected", by, at, card_data(new)[name],
             items=[item_key(item) for item in refused])
    return new


def mark_reviewed(card: Card, by: str, at: str) -> Card:
    """The card marked reviewed by ``by`` at ``at``."""
    return Card.model_validate({**card_data(card), "status": "reviewed", "reviewed": {"by": by, "at": at}})


def rewrite_record(library: Library, entry: Entry, suggestion: Card, change: Callable[[Card], Card | None]) -> Card | None:
    """Read a record, make its new card with ``change`` (None: leave it as it is), keep the
    record's own public address (:func:`keep_own_address`), and write only the lines that change,
    atomically. Returns the card written, or None."""
    text = read_text(entry.path)
    fmt = format_of(entry.path)
    current = loads(text, fmt, str(entry.path))
    taken = change(current)
    if taken is None:
        return None
    new = keep_own_address(current, library.read_state("base", current.id), suggestion, taken)
    # a record grown past what pmparse reads back was written, then refused by every command
    atomic_write(entry.path, writable(entry.path, splice(text, fmt, new)))
    library.add(new, entry.path)
    if new.source.sha256 != current.source.sha256:
        _follow_draft_state(library, new.id, current.source.sha256, new.source.sha256)
    return new


def _follow_draft_state(library: Library, card_id: str, old: str, new: str) -> None:
    """A partly reviewed draft's decisions follow its record onto an amended source text.

    The fields decided hold the person's values, whose evidence moved with the record: without
    this, the state still names the old text, so ``train --library`` no longer counts the kept
    fields and ``review --drafts`` no longer asks the open ones (the record stays a person's, its
    state file a leftover). Written after the record: a crash in between leaves the old sha256,
    read as no decision, which overwrites nothing.
    """
    state = load_draft_state(library, card_id)
    if state is not None and state.sha256 == old:
        state.sha256 = new
        _write_draft_state(library, card_id, state)


def _write_draft_state(library: Library, card_id: str, state: DraftState) -> None:
    atomic_write(library.state_path(DRAFTS, card_id), state.model_dump_json(indent=2) + "\n")


def follow_source(library: Library, entry: Entry, suggestion: Card) -> Card | None:
    """Move a record whose every field is decided onto the amended source its suggestion read.

    Its values stay as they are; their evidence moves onto the new text (words found nowhere keep
    their offsets, marked with the old text's sha256), and its source and pipeline become the
    suggestion's. The status and review mark stay: nothing was decided here. Only the record's
    lines that change are rewritten, atomically.

    Returns:
        The record as written, or None when it already reads the suggestion's text.
    """
    return rewrite_record(library, entry, suggestion, lambda current: None if current.source.sha256 == suggestion.source.sha256
                    else merge(current, suggestion, [], follow=True, places=library.places))


def _decided(name: str, also: Sequence[str]) -> list[str]:
    """The fields whose rejections one decision on ``name`` writes from here on: a title turned
    down takes the facts it restates (``also``) with it; each of those, decided in its turn, only itself."""
    return [name] if name in also else [name, *also]


def reject_field(library: Library, suggestion: Card, name: str, by: str, at: str, also: Sequence[str] = ()) -> None:
    """Turn a suggested field down: the record stays as it is, the suggestion is remembered.
    ``also``: the fields decided with it (:func:`_decided`), whose rejections must fit beside its own."""
    # both checked before either is written: a memory too large to read back was written after
    # the base advanced, and its rejections were then forgotten
    base = _next_base(library, suggestion, name)
    memory_fits(library, suggestion, _decided(name, also), by, at)
    # the base first: should the process die before the memory is written, the base alone
    # already keeps the field from being proposed again or refreshed in place
    _write_base(library, base)
    entry = library.entries.get(suggestion.id)
    remember(library, suggestion, name, "rejected", by, at,
             card_data(entry.card)[name] if entry is not None and entry.card is not None else None)


def note_decision(library: Library, card_id: str, made: Card, name: str, decision: DraftDecision,
                  by: str, at: str) -> Card | None:
    """Remember a decided draft field; once every field the draft suggested is decided, mark the
    record reviewed (only its status and review lines rewritten) and forget the draft state.

    The record is written before the state goes, so a crash in between leaves a reviewed record
    with a state that says no more than it does (read as decided fields of a reviewed card).

    Returns:
        The record as written when it was marked reviewed, else None.

    Raises:
        RecordError: the record cannot be read or written.
    """
    state = load_draft_state(library, card_id)
    if state is None or state.sha256 != made.source.sha256:
        state = DraftState(sha256=made.source.sha256)
    state.decided[name] = DraftField(decision=decision, by=by, at=at)
    if not every_field_decided(made, state.decided):
        _write_draft_state(library, card_id, state)
        return None
    entry = library.entries[card_id]
    new = rewrite_record(library, entry, made, lambda current: mark_reviewed(current, by, at))
    library.drop_state(DRAFTS, card_id)
    return new


def every_field_decided(made: Card, decided) -> bool:
    """Whether ``decided`` (field names) holds every field the draft ``made`` suggested: the draft
    is then reviewed."""
    draft = card_data(made)
    return all(draft[name] in (None, []) or name in decided for name in REVIEW_FIELDS)


def drop_field(library: Library, entry: Entry, made: Card, name: str, by: str, at: str,
               also: Sequence[str] = ()) -> Card:
    """Drop a draft field: the record's value (the suggestion's) is emptied, its supports with
    it, then the suggestion is remembered as rejected (:func:`reject_field`, ``also`` as there).

    The record is written first: should the process die before the memory is, the record already
    differs from its base, so ``convert`` keeps the person's empty field (three-way).

    Raises:
        RecordError: the record cannot be read or written.
    """
    def emptied(current: Card) -> Card:
        data = card_data(current)
        for key in support_keys(name, data["support"]):
            del data["support"][key]
        data[name] = empty_value(name)
        return Card.model_validate(data)  # an empty field always fits the schema

    # the base and the memory reject_field writes fit: checked before the record
    _next_base(library, made, name)
    memory_fits(library, made, _decided(name, also), by, at)
    new = rewrite_record(library, entry, made, emptied)
    assert new is not None
    reject_field(library, made, name, by, at, also)
    return new


def keep_own_address(record: Card, base: Card | None, suggestion: Card, taken: Card) -> Card:
    """``taken`` (the record after a merge) with the record's own public address kept: one a
    person gave it (not the one pmparse gave last, which the base holds), or any when the
    suggestion offers none."""
    if suggestion.source.url is None or record.source.url != (base.source.url if base else None):
        return taken.model_copy(update={"source": taken.source.model_copy(update={"url": record.source.url})})
    return taken


def patched_text(diff: CardDiff, fields: list[str] | None = None) -> str:
    """The record text after taking ``fields`` (every change when None: the record then also
    follows an amended source) from the suggestion; the record's own address stays."""
    names = [c.field for c in diff.changes] if fields is None else fields
    new = keep_own_address(diff.record, diff.base, diff.suggestion,
                           merge(diff.record, diff.suggestion, names, follow=fields is None,
                                 places=diff.places))
    return splice(diff.record_text, format_of(diff.record_path), new)
