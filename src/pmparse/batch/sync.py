"""Writing a new suggestion into the library, for ``convert``: a new record, a pending suggestion
beside a reviewed one, or a moved source. Suggestions are made by :mod:`pmparse.batch.suggest`;
what one still proposes to a person is the review's to tell (:func:`pmparse.review.pending.open_diff`)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pmparse.card.schema import Card
from pmparse.errors import RecordError
from pmparse.library.records import RecordFormat, card_data, dumps, format_of, loads
from pmparse.library.splice import splice
from pmparse.library.statefiles import state_fits, writable
from pmparse.library.store import Entry, Library, is_edited
from pmparse.review.compare import read_text
from pmparse.review.pending import open_diff
from pmparse.util import atomic_write

Status = Literal["converted", "updated", "unchanged", "pending", "skipped", "failed"]


def store(library: Library, card: Card, fmt: RecordFormat, force: bool = False,
          renamed: Entry | None = None) -> tuple[Status, str]:
    """Put a suggestion into the library without ever overwriting a person's work.

    Args:
        renamed: The record whose gone file ``card``'s source is, renamed and edited (its text
            cannot find it: :mod:`pmparse.batch.renamed` tells): the suggestion amends it, and
            a person's record first follows the new name.

    Returns:
        ``(status, record_path)``.
    """
    entry = library.find(card.source.sha256, card.source.location) or renamed
    if entry is None:
        card = card.model_copy(update={"id": library.next_id()})
        # the id of a record a person deleted comes back when it was the highest: its draft
        # decisions were about that record, and read with this one's (same source, same sha256)
        # they made a fresh draft a person's (never refreshed) and kept review --drafts from
        # asking the fields decided there. Dropped before the record is written: a crash between
        # leaves no state, never a stale one
        library.drop_state("drafts", card.id)
        # so is a suggestion that waited for the deleted record: beside the fresh draft it made
        # review --drafts pass the draft over ("found none") and review compare it with a text
        # the new record never had
        library.drop_state("pending", card.id)
        # and so is its rejection memory (same source, same model): the new record's review
        # passed over what the deleted record's curator turned down, train --library read it as
        # this record's, and the site took a fact set by hand for a refusal kept
        library.drop_state("rejected", card.id)
        return "converted", str(library.write(card, fmt))
    card = card.model_copy(update={"id": entry.id})
    moved = False
    last = library.read_state("base", entry.id) if entry.card is not None else None
    # a new public address is pmparse's to give only where the record still holds the one
    # pmparse gave it last (a person's own address, or none given this time, stays)
    new_url = (card.source.url is not None and last is not None and last.source.url != card.source.url
               and entry.url == last.source.url)
    new_name = entry.location != card.source.location and (entry.sha256 == card.source.sha256 or entry is renamed)
    if entry.card is not None and (new_name or new_url) and is_edited(library, entry):
        # the same text under a new name (the old one is gone: see Library.find), or renamed and
        # edited, or a new public address (--url-base, also for an amended text): the record
        # follows it, a person's edits untouched
        relocate(library, entry, card, new_url, new_name)
        moved = True
    # nothing new when the suggestion equals what pmparse last wrote for this record (a record a
    # person's edit left invalid is not that: the suggestion waits beside it, see _finish); a
    # move may have given the base a new address
    base = last if entry.card is not None and not moved else library.read_state("base", entry.id)
    edited = is_edited(library, entry)  # read once: it reads the base
    behind = edited and entry.sha256 != card.source.sha256  # a person's record with a text to follow
    if (base is not None and card_data(base) == card_data(card) and not force and entry.error is None
            and not behind):
        waiting = _keep_pending_of_this_text(library, entry.id, card)
        if moved or edited:
            library.write_state("base", card, settled=True)  # read by this pipeline: nothing to decide
        return ("pending" if waiting else "updated" if moved else "unchanged"), str(entry.path)
    if edited:
        # a suggestion that proposes nothing open (only fields a person kept, or rejected before
        # for this source and model version) is not stored for review again; one made from an
        # amended text is, even with no field to decide: the review that reaches it moves the
        # record onto the new text, and until then the record says which text it was made from
        if entry.card is not None and not open_diff(library, entry, card).open:
            waiting = _keep_pending_of_this_text(library, entry.id, card)
            # the base takes the suggestion, as when a review settles one: its values are the
            # record's, the person's kept ones or ones rejected before, and its stamp tells the
            # next run that this source was read by this pipeline
            library.write_state("base", card, settled=True)
            return ("pending" if waiting else "updated" if moved else "unchanged"), str(entry.path)
        library.write_state("pending", card)
        return "pending", str(entry.path)
    library.drop_state("pending", entry.id)
    if not moved and entry.error is None and _record_holds(entry.path, card):
        # --force read the source again and pmparse wrote the same bytes: "updated" told a curator
        # the draft had changed. The record is left alone (a site rebuild sees it unchanged); only
        # a base that says otherwise is brought up to date
        if base is None or card_data(base) != card_data(card):
            library.write(card, fmt, entry.path)
        return "unchanged", str(entry.path)
    return "updated", str(library.write(card, fmt, entry.path))


def _record_holds(path: Path, card: Card) -> bool:
    """Whether the record file at ``path`` already holds ``card`` byte for byte (as
    :meth:`Library.write` would write it), up to its line breaks: a checkout with
    ``core.autocrlf`` gives it CRLF ones, and pmparse writes no other carriage return in a record."""
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read() == dumps(card, format_of(path))
    except (OSError, UnicodeDecodeError):
        return False


def _keep_pending_of_this_text(library: Library, card_id: str, card: Card) -> bool:
    """Drop a waiting suggestion made from another text than ``card``'s (an amendment since
    withdrawn); keep one another pipeline made from the same text while it proposes something
    (:func:`still_waiting`): it is a person's to decide. Returns True when a suggestion still waits."""
    pending = library.state_stamp("pending", card_id)
    if pending is None:
        return False
    if pending[0] != card.source.sha256 or pending[4] != card.source.location:
        library.drop_state("pending", card_id)
        return False
    return still_waiting(library, card_id)


def still_waiting(library: Library, card_id: str) -> bool:
    """Whether the record's pending suggestion still proposes something to a person.

    One whose values were taken outside ``review`` (a patch from ``diff --patch`` applied with
    git, the same edits made by hand) proposes nothing: it becomes the base, as a review that
    reached it would settle it, and is dropped, so ``convert`` does not count it as pending and
    ``review`` has nothing to clear. A suggestion beside an invalid record, or one made from a
    newer text the record has not followed yet, still waits.
    """
    entry = library.entries.get(card_id)
    waiting = library.read_state("pending", card_id)
    if waiting is None:
        return False
    if entry is None or entry.card is None:
        return True
    try:
        if open_diff(library, entry, waiting).open:
            return True
    except RecordError:
        return True  # its rejection memory is unreadable: review says so
    library.write_state("base", waiting, settled=True)
    library.drop_state("pending", card_id)
    return False


def relocate(library: Library, entry, card: Card, new_url: bool = False, new_name: bool = True) -> None:
    """Give a person's record the name (``new_name``: same text) and, with ``new_url``, the
    public address of ``card``'s source; the rest of its source block stays (an amended text's
    sha256 is the suggestion's to bring, with its evidence).

    Only the record's ``source`` lines are rewritten; its fields, comments and review mark stay
    as they are. The offsets still hold: the text (sha256) is the same. A suggestion made from
    another name is dropped first, then the record is written, then the base's address: a failed
    write is done again by the next run.
    """
    text = read_text(entry.path)
    fmt = format_of(entry.path)
    current = loads(text, fmt, str(entry.path))
    pending = library.read_state("pending", entry.id)
    if new_name and pending is not None and pending.source.location != card.source.location:
        # made from the old name's text, which is no longer this record's source
        library.drop_state("pending", entry.id)
    source = current.source
    if new_name:
        # renamed and edited: the old text's sha256 (and extracted text, which the evidence
        # indexes) stays until a review moves the record onto the new one, as for any amendment
        source = (card.source if card.source.sha256 == current.source.sha256
                  else current.source.model_copy(update={"location": card.source.location}))
    source = source.model_copy(update={"url": card.source.url if new_url else current.source.url})
    moved = current.model_copy(update={"source": source})
    base = library.read_state("base", entry.id)
    if new_url and base is not None:
        base = base.model_copy(update={"source": base.source.model_copy(update={"url": card.source.url})})
        # checked before the record is written: a base refused after it left the two disagreeing
        state_fits(library.state_path("base", entry.id), dumps(base, "json"))
    atomic_write(entry.path, writable(entry.path, splice(text, fmt, moved)))
    library.add(moved, entry.path)
    if new_url and base is not None:
        # after the record: the base says which address pmparse gave last (not settled: only
        # its address changed)
        library.write_state("base", base)
