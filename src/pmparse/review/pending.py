"""What pending suggestions still propose: each compared with its record, the record's base,
a person's edits and the rejections remembered considered (what ``pmparse diff`` shows, what
``convert`` asks before it stores a suggestion, and what a review walks: :mod:`pmparse.review.session`).
"""

from __future__ import annotations

from pathlib import Path

from pmparse.card.schema import TEXT_FIELDS, Card
from pmparse.errors import RecordError, UsageError
from pmparse.library.folder import library_root
from pmparse.library.leftovers import orphan_pending_ids, pending_files
from pmparse.library.records import card_data
from pmparse.library.shared import held_twice, ids_held_twice
from pmparse.library.store import Entry, Library
from pmparse.review.anchor import REVIEW_FIELDS
from pmparse.review.compare import CardDiff, DiffReport, compare, diff_files, link_title, onto_persons_edits, read_text
from pmparse.review.rejections import adds_nothing, load_rejections, rejected_check, without_rejected_items


def open_diff(library: Library, entry: Entry, suggestion: Card) -> CardDiff:
    """What a suggestion still proposes for a record: its base, edits and rejections considered.

    Raises:
        RecordError: the record is invalid, or its rejection memory is.
    """
    if entry.card is None:
        raise RecordError(f"expected a valid record to compare, found: {entry.error}", str(entry.path))
    text = read_text(entry.path)
    base = library.read_state("base", entry.id)
    memory = load_rejections(library, entry.id)
    # items turned down inside another value of their field are not proposed again either; a
    # field left with nothing new beside the record's items is rejected, not a proposal to delete
    suggestion, filtered = without_rejected_items(memory, suggestion, entry.card)
    three_way = _one_text(entry.card, base, suggestion)
    merged: set[str] = set()
    if base is not None:
        suggestion, merged = onto_persons_edits(entry.card, base, suggestion, places=library.places)
    else:
        # no base (a library copied without .pmparse/, a base deleted): the record's own items
        # stand for pmparse's last reading, its person's items for the person's edits, so an
        # item a person wrote or reworded is not offered for removal (the whole suggested field
        # was). What a person deleted cannot be told without a base: it is offered again
        suggestion, merged = onto_persons_edits(entry.card, _pipelines_part(entry.card), suggestion,
                                                stand_in=True, places=library.places)
    check = rejected_check(memory, suggestion)
    label = f".pmparse/pending/{entry.id}.json"
    diff = compare(entry.card, suggestion, base, check, entry.path, text, label, places=library.places)
    # where the three-way merge above kept the person's items (all fields when record, base and
    # suggestion read one text), a field that only lacks items the base holds is pmparse's drop
    # to offer
    emptied = [c.field for c in diff.changes if c.field in filtered and not three_way and c.field not in merged
               and adds_nothing(c.record, c.suggestion)]
    # a field the merge left as the person has it (pmparse only rescored it, or read nothing new
    # beside their items) is theirs: "unchanged" told a curator their edit was not there
    theirs = [name for name in diff.unchanged if name in merged]
    if theirs:
        diff.unchanged = [name for name in diff.unchanged if name not in theirs]
        diff.kept = [name for name in REVIEW_FIELDS if name in diff.kept or name in theirs]
    if emptied:
        diff.changes = [c for c in diff.changes if c.field not in emptied]
        diff.rejected = [name for name in REVIEW_FIELDS if name in diff.rejected or name in emptied]
        link_title(diff)
    return diff


def _pipelines_part(record: Card) -> Card:
    """The record less the text items a person wrote (``origin: person``): what pmparse wrote of
    it, as far as the record alone tells."""
    data = card_data(record)
    for name in TEXT_FIELDS:
        data[name] = [item for item in data[name] if item.get("origin") != "person"]
    return Card.model_validate(data)


def _one_text(record: Card, base: Card | None, suggestion: Card) -> bool:
    """Whether the record, its base and the suggestion read one text (their offsets compare)."""
    return base is not None and record.source.sha256 == base.source.sha256 == suggestion.source.sha256


def pending_ids(library: Library) -> list[str]:
    """Ids of records with a pending suggestion, sorted (a suggestion whose record is gone, or of
    another source than the record now under its id, is none:
    :func:`pmparse.library.leftovers.orphan_pending_ids`)."""
    orphans = set(orphan_pending_ids(library))
    return [card_id for card_id in pending_files(library) if card_id not in orphans]


def load_pending(library: Library, card_id: str) -> tuple[Entry, Card]:
    """A record and its pending suggestion.

    Raises:
        RecordError: the suggestion is unreadable, or its record is missing or invalid.
    """
    where = str(library.state_path("pending", card_id))
    suggestion = library.read_state("pending", card_id)
    if suggestion is None:
        raise RecordError("expected a valid pending suggestion, found an unreadable or invalid file", where)
    entry = library.entries.get(card_id)
    if entry is None:
        raise RecordError(f"expected a record {card_id} for this suggestion, found none", where)
    if entry.card is None:
        raise RecordError(f"expected a valid record to compare, found: {entry.error}", str(entry.path))
    return entry, suggestion


def pending_diffs(library_dir: str | Path) -> DiffReport:
    """Every pending suggestion of a library, compared with its record.

    Raises:
        UsageError: ``library_dir`` is not a folder.
    """
    root = library_root(library_dir)
    library = Library.open(root)
    twice = ids_held_twice(root)  # a suggestion compared with the one file read, the other left out
    report = DiffReport(errors=[f"{root}: {held_twice(root, card_id, paths)}" for card_id, paths in twice.items()])
    for card_id in (card_id for card_id in pending_ids(library) if card_id not in twice):
        try:
            entry, suggestion = load_pending(library, card_id)
            report.diffs.append(open_diff(library, entry, suggestion))
        except RecordError as exc:
            report.errors.append(str(exc))
    return report


def diff_paths(paths: list[str] | tuple[str, ...]) -> DiffReport:
    """What ``pmparse diff`` compares: a library's pending suggestions, or two record files.

    Raises:
        UsageError: neither one library folder nor two record files were given.
        RecordError: one of two record files is unreadable or invalid.
    """
    if len(paths) == 1 and Path(paths[0]).is_file():
        # one record file: the other half of a pair is missing, not a library
        raise UsageError("expected a library folder (records IL-0001.yaml ... or .pmparse/), found a file; diff "
                         "also compares two record files: pmparse diff A B (B read as a suggestion for A)",
                         str(paths[0]))
    if len(paths) == 1:
        return pending_diffs(paths[0])
    if len(paths) == 2 and all(Path(p).is_file() for p in paths):
        return DiffReport([diff_files(*paths)])
    missing = [p for p in paths if not Path(p).exists()]
    found = f"nothing at {', '.join(missing)}" if missing else f"{len(paths)} path(s)"
    raise UsageError(f"expected a library folder or two record files, found {found}")
