"""Reviewing pending suggestions field by field: accept, reject, edit, skip or quit, like ``git add -p``.

A decision is written the moment it is made, each file atomically, so a review stopped at any
point (quit, Ctrl-C, a killed process) leaves every record either as it was or with the accepted
fields, never half-written:

- **accept** (or **edit**, which accepts a value the reviewer changed in ``$EDITOR``) rewrites only
  that record, only the accepted field's lines (:func:`pmparse.library.splice.splice`), and marks it
  ``reviewed`` by whom and when;
- **reject** leaves the record alone and remembers the suggestion in
  ``LIBRARY/.pmparse/rejected/IL-0001.json``, keyed by source sha256, model version, field and a
  hash of the suggested value, so ``convert`` does not propose it again;
- **items** (a text field decided item by item) takes the record's items as they are, less the
  drops accepted, plus the adds accepted, and remembers the refused adds item by item, so
  ``convert`` proposes none of them again;
- **skip** leaves the field pending.

The writes themselves are :mod:`pmparse.review.apply`'s.

With ``drafts`` the same decisions walk the drafts ``convert`` wrote that nobody touched, each as
an empty person's record with the draft as its suggestion (:mod:`pmparse.review.drafts`).

For every decided field the base (``LIBRARY/.pmparse/base``) takes the suggested value: the base
holds, per field, the latest pmparse value a person has seen, which keeps three-way comparisons
honest. When nothing is left to decide, the suggestion becomes the base and the pending file goes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from pmparse.card.schema import Card
from pmparse.errors import RecordError, UsageError
from pmparse.library.leftovers import drop_orphan_pending, remove_temporaries
from pmparse.library.orphans import follow_renames
from pmparse.library.lock import write_lock
from pmparse.library.records import card_data
from pmparse.library.folder import library_root
from pmparse.library.shared import refuse_unfinished_merge
from pmparse.library.store import Library
from pmparse.review.apply import (accept_field, accept_items, drop_field, follow_source, note_decision,
                                  reject_field, state_fits_base)
from pmparse.review.compare import CardDiff, FieldChange, item_changes, merge
from pmparse.review.drafts import changed_since_asked, open_draft, open_drafts
from pmparse.review.decisions import (Action, Ask, Decision, field_names, item_options, now_iso, reviewer_name,
                                      scripted)
from pmparse.review.pending import load_pending, open_diff, pending_ids
from pmparse.util import write_errors


def finish_if_done(library: Library, card_id: str, suggestion: Card) -> bool:
    """Drop a pending suggestion once it proposes nothing more; it becomes the base.

    A record made from an older text of an amended source follows the new text first
    (:func:`follow_source`): every field is decided, so the record now reads the text its
    suggestion was made from. The record is written before the base, so a crash in between
    leaves the suggestion pending and the next review finishes it.

    Returns:
        True when the suggestion was settled, False when fields are left to review.
    """
    entry = library.entries[card_id]
    if open_diff(library, entry, suggestion).changes:
        return False
    # the base is the suggestion as made, items turned down included: train --library reads a
    # rejected value back from it
    state_fits_base(library, suggestion)  # before follow_source writes the record: both or neither
    follow_source(library, entry, suggestion)
    library.write_state("base", suggestion, settled=True)
    library.drop_state("pending", card_id)
    return True


@dataclass
class Outcome:
    """What was decided for one field of one record."""

    id: str
    field: str
    action: Action
    items: frozenset[int] = frozenset()  # for ``items``: the numbers of the item changes taken


@dataclass
class ReviewReport:
    """Results of one review session.

    Attributes:
        outcomes: Decisions, in the order they were made (``settled``: a field not asked about
            because it only moves with the record onto an amended source: its words are the
            suggestion's).
        errors: Pending suggestions that could not be reviewed, with the reason.
        still_pending: Records with fields left to review (a record that cannot be read, with
            its suggestion still on disk, included: it waits until the record is repaired).
        quit: True when the reviewer quit before the end.
        interrupted: True when Ctrl-C stopped the review; every decision made before it is kept.
    """

    outcomes: list[Outcome] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    still_pending: list[str] = field(default_factory=list)
    quit: bool = False
    interrupted: bool = False

    def count(self, action: Action) -> int:
        """How many fields got ``action``."""
        return sum(outcome.action == action for outcome in self.outcomes)


def review(library_dir: str | Path, accept: tuple[str, ...] | list[str] = (), reject: tuple[str, ...] | list[str] = (),
           accept_all: bool = False, reviewer: str | None = None, records: tuple[str, ...] | list[str] = (),
           ask: Ask | None = None, now: Callable[[], str] = now_iso, order: str = "record",
           items: tuple[str, ...] | list[str] = (), drafts: bool = False) -> ReviewReport:
    """Walk the pending suggestions of a library field by field and apply each decision at once.

    Args:
        library_dir: The library folder.
        accept: Fields to accept (names, or comma-separated lists of names).
        reject: Fields to reject.
        accept_all: Accept every field not rejected.
        reviewer: Who reviews; when None, ``$USER``, else the account name, else the uid
            (:func:`reviewer_name`).
        records: Only these record ids (all pending records when empty).
        ask: Asks a person about each field (interactive review); None to use the options.
        now: The time of a decision, ISO 8601.
        order: ``record`` (record by record, in id order) or ``uncertain`` (the least certain
            suggestion first, across records: :func:`uncertainty`).
        items: ``FIELD:N[,N...]``: decide that list field item by item in every pending record,
            taking the item changes numbered N (:func:`pmparse.review.compare.item_changes`, as
            ``diff --format json`` numbers them) and refusing the others.
        drafts: Walk the drafts instead (records ``convert`` wrote that nobody touched): each
            field they suggest, offered against nothing (:mod:`pmparse.review.drafts`).

    Raises:
        UsageError: no library folder, unknown fields, a field both accepted and rejected, no
            decision source, a record id without a pending suggestion (a draft with ``drafts``), or
            another pmparse process writing the library.
    """
    root = library_root(library_dir)
    accepted, rejected = field_names(accept, "--accept"), field_names(reject, "--reject")
    if order not in ("record", "uncertain"):
        raise UsageError(f"expected order 'record' or 'uncertain', found {order!r}")
    if accepted & rejected:
        raise UsageError(f"expected a field to be accepted or rejected, found both for {', '.join(sorted(accepted & rejected))}")
    by_items = item_options(items)
    if set(by_items) & (accepted | rejected):
        raise UsageError("expected a field to be accepted, rejected or decided item by item, found both for "
                         f"{', '.join(sorted(set(by_items) & (accepted | rejected)))}")
    if ask is None:
        if not (accepted or rejected or accept_all or by_items):
            raise UsageError("expected --accept, --reject, --items or --accept-all (or an interactive review)")
        ask = scripted(accepted, rejected, accept_all, by_items)
    by = reviewer_name(reviewer)
    with write_lock(root):
        library = Library.open(root)
        refuse_unfinished_merge(library)
        library.finish_writes()
        remove_temporaries(library.root)  # what a killed run left half written
        follow_renames(library)  # a record renamed by hand: its state first, before any is read or dropped
        drop_orphan_pending(library)
        try:
            # a full disk or a record name too long for it: one line naming the file, not a traceback
            with write_errors(root, "the reviewed records"):
                return _review(library, records, ask, by, now, order, by_items, drafts)
        finally:
            library.save_index()  # the stamps of the bases a review settled


def _review(library: Library, records, ask: Ask, by: str, now: Callable[[], str], order: str = "record",
            by_items: dict[str, frozenset[int]] | None = None, drafts: bool = False) -> ReviewReport:
    """The decisions of :func:`review`, with the library's write lock held."""
    # each draft is opened once: listing a draft compares it with what convert made, and
    # asking it compared it again (review --drafts did the work of every draft twice)
    opened = open_drafts(library) if drafts else None
    ids = list(opened) if opened is not None else pending_ids(library)
    unknown = sorted(set(records) - set(ids))
    if unknown:
        what = "drafts with a field to decide (status: suggested, untouched)" if drafts \
            else "records with a pending suggestion"
        raise UsageError(f"expected {what}, found none for {', '.join(unknown)}")
    if records:
        ids = [card_id for card_id in ids if card_id in set(records)]
    if by_items:
        _check_item_numbers(library, ids, by_items, drafts, opened)
    report = ReviewReport()
    try:
        _decide_each(library, ids, ask, by, now, report, order, drafts, opened)
    except KeyboardInterrupt:
        # every decision is written as it is made: the report says what was done, the rest waits
        report.interrupted = True
        counted = set(report.still_pending)
        report.still_pending.extend(card_id for card_id in ids if card_id not in counted and (
            open_draft(library, library.entries[card_id]) is not None if drafts
            else library.state_path("pending", card_id).is_file()))
    return report


def _check_item_numbers(library: Library, ids: list[str], by_items: dict[str, frozenset[int]],
                        drafts: bool = False, opened: dict | None = None) -> None:
    """Refuse ``--items`` numbers a record's field does not have before anything is written.

    The numbers apply to the field in every record reviewed; checked only as each record came up,
    a number one later record lacks stopped the review with a usage error after the earlier records
    were already decided, and a script reading exit 2 as "nothing done" would be wrong. A record
    that cannot be read is left to the review, which reports it.

    Raises:
        UsageError: a named number is not among a record's item changes of that field, or no
            record reviewed changes the field at all.
    """
    wrong = []
    read, changing = 0, set()
    for card_id in ids:
        try:
            diff = _open(library, card_id, drafts, opened)[0]
        except RecordError:
            continue
        read += 1
        for change in diff.changes:
            if change.field in by_items:
                changing.add(change.field)
                numbers = {c.number for c in item_changes(change)}
                extra = sorted(by_items[change.field] - numbers)
                if extra:
                    wrong.append(f"{card_id}: {change.field}: {_expected_numbers(numbers, extra)}")
    if read:
        # numbers for a field no reviewed record changes name nothing: the review decided nothing
        # and exited 0, which a script reads as "those items taken"
        wrong.extend(f"{field}: expected a pending change of this field, found none in the {read} record(s) reviewed"
                     for field in sorted(set(by_items) - changing))
    if wrong:
        raise UsageError("; ".join(wrong) + " (nothing was written)")


def _expected_numbers(numbers: set[int], extra: list[int]) -> str:
    """Why ``--items`` cannot take the numbers ``extra`` of a field whose item changes are
    ``numbers`` (none: only its evidence or confidences change, a decision for --accept or --reject)."""
    if not numbers:
        return "expected a field whose items change, found only its evidence or confidences changing " \
               "(decide it with --accept or --reject)"
    return f"expected item numbers among 1-{len(numbers)}, found {', '.join(map(str, extra))}"


def _decide_each(library: Library, ids: list[str], ask: Ask, by: str, now: Callable[[], str],
                 report: ReviewReport, order: str, drafts: bool = False, opened: dict | None = None) -> None:
    plans = []
    for number, card_id in enumerate(ids):
        if report.quit:
            report.still_pending.extend(ids[number:])
            break
        plan = _plan(library, card_id, ask, report, drafts, opened)
        if plan is None:
            continue
        if order == "uncertain":
            plans.append(plan)  # asked once every record's questions are known
            continue
        try:
            for position, change in enumerate(plan[2], 1):
                if not _ask_one(library, plan, change, ask, position, len(plan[2]), by, now, report):
                    break
            _close(library, plan, report)
        except RecordError as exc:
            _broken(library, card_id, exc, ask, report)
    if plans:
        # the least certain suggestion first, whichever record it is in: a review cut short has
        # then decided what the model knew least (what pmparse train --library learns most from)
        questions = sorted(((uncertainty(plan[1].suggestion, change), n, plan, change)
                            for n, plan in enumerate(plans) for change in plan[2]), key=lambda q: q[:2])
        failed: set[str] = set()
        for position, (_, _, plan, change) in enumerate(questions, 1):
            if plan[0] in failed:
                continue
            try:
                if not _ask_one(library, plan, change, ask, position, len(questions), by, now, report):
                    break
            except RecordError as exc:
                failed.add(plan[0])
                _broken(library, plan[0], exc, ask, report)
        for plan in plans:
            if plan[0] not in failed:
                try:
                    _close(library, plan, report)
                except RecordError as exc:
                    _broken(library, plan[0], exc, ask, report)


def uncertainty(suggestion: Card, change: FieldChange) -> float:
    """How sure pmparse is of a suggested field: the least confidence of its items (text fields)
    or of its support (facts, tags); 1.0 when nothing says."""
    data = card_data(suggestion)
    value = data.get(change.field)
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return min(float(item.get("confidence", 1.0)) for item in value)
    keys = [change.field] + [f"{change.field}.{v}" for v in value] if isinstance(value, list) else [change.field]
    found = [suggestion.support[key].confidence for key in keys if key in suggestion.support]
    return min(found) if found else 1.0


def _open(library: Library, card_id: str, drafts: bool, opened: dict | None = None) -> tuple[CardDiff, Card]:
    """What one record asks and the suggestion as made: its pending suggestion's diff, or with
    ``drafts`` its draft's (:func:`pmparse.review.drafts.open_draft`), taken from ``opened`` (the
    drafts as listed, :func:`pmparse.review.drafts.open_drafts`) when it holds the record.

    Raises:
        RecordError: the record or its suggestion cannot be read, or the draft has nothing to ask
            any more.
    """
    if drafts and opened is not None and card_id in opened:
        return opened[card_id]
    if drafts:
        entry = library.entries.get(card_id)
        opened = open_draft(library, entry) if entry is not None else None
        if opened is None:
            raise RecordError("expected a draft with a field to decide, found none", card_id)
        return opened
    entry, suggestion = load_pending(library, card_id)
    return open_diff(library, entry, suggestion), suggestion


def _plan(library: Library, card_id: str, ask: Ask, report: ReviewReport, drafts: bool = False,
          opened: dict | None = None):
    """``(card_id, diff, questions, suggestion, drafts)`` of one pending record (or draft), or
    None when it cannot be read (the error is reported, the suggestion kept)."""
    try:
        diff, suggestion = _open(library, card_id, drafts, opened)
    except RecordError as exc:
        _broken(library, card_id, exc, ask, report)
        return None
    notice = getattr(ask, "notice", None)
    if notice is not None and not diff.changes and diff.source_changed:
        notice(diff)  # nothing to ask, but a person should see that the source changed
    # the facts a changing title says in words are decided with it (compare.link_title)
    tied = {name for change in diff.changes for name in change.linked}
    # the suggestion as made: the base takes it (a base holding the record's items merged in
    # would make pmparse's same reading look new next time); an accept takes diff.suggestion
    return card_id, diff, [change for change in diff.changes if change.field not in tied], suggestion, drafts


def _ask_one(library: Library, plan, change: FieldChange, ask: Ask, position: int, total: int, by: str,
             now: Callable[[], str], report: ReviewReport) -> bool:
    """Ask about one field and apply the answer at once; False when the reviewer quits.

    Raises:
        RecordError: the record cannot be read or written.
    """
    card_id, diff, _, made, drafts = plan
    decision = ask(diff, change, position, total)
    if decision.action == "edit" and edit_changes_nothing(diff, change.field, decision.value):
        # saved as shown: the person took the suggestion; counted and remembered as an edit it
        # said they had replaced it (an "edited" rejection, a draft field "edited")
        decision = Decision("accept")
    if decision.action == "quit":
        report.quit = True
        return False
    if drafts:
        _decide_draft(library, card_id, diff, change, decision, by, now, report, made)
        return True
    if decision.action == "items":
        decision = _whole_or_items(card_id, change, decision)
        if decision.action == "items":
            accept_items(library, library.entries[card_id], diff.suggestion, change.field, decision.items, by, now(),
                         made=made)
            report.outcomes.append(Outcome(card_id, change.field, "items", decision.items))
            return True
    for name in [change.field, *change.linked]:
        edited = decision.action == "edit" and name == change.field
        action = "accept" if decision.action == "edit" and not edited else decision.action
        if action in ("accept", "edit"):
            # on an amended source this moves the record onto the new text; the fields still
            # asked about differ in their words, so they stay open
            # the record takes what was offered (diff.suggestion); the base what pmparse read
            accept_field(library, library.entries[card_id], diff.suggestion, name, by, now(),
                         decision.value if edited else None, edited=edited, made=made)
        elif action == "reject":
            reject_field(library, made, name, by, now(), also=change.linked)
        report.outcomes.append(Outcome(card_id, name, action))
    return True


def edit_changes_nothing(diff: CardDiff, name: str, value: Any) -> bool:
    """Whether a person's edit of field ``name`` writes what taking the suggestion writes (the
    editor saved the value as shown, or with only its layout changed)."""
    try:
        edited = merge(diff.record, diff.suggestion, [name], {name: value}, places=diff.places)
    except RecordError:
        return False  # not a value the field takes: the edit itself says so
    return card_data(edited)[name] == card_data(merge(diff.record, diff.suggestion, [name], places=diff.places))[name]


def _whole_or_items(card_id: str, change: FieldChange, decision: Decision) -> Decision:
    """An item-by-item answer as it is applied: every item change taken is the whole suggestion
    (an accept), none taken a reject (the same records and memories as y and n), else the items.

    Raises:
        UsageError: item numbers the field does not have.
    """
    numbers = {c.number for c in item_changes(change)}
    if set(decision.items) - numbers:
        extra = sorted(set(decision.items) - numbers)
        raise UsageError(f"{card_id}: {change.field}: {_expected_numbers(numbers, extra)}")
    if numbers <= decision.items or not decision.items & numbers:
        return Decision("accept" if decision.items and numbers <= decision.items else "reject")
    return decision


def _decide_draft(library: Library, card_id: str, diff: CardDiff, change: FieldChange, decision: Decision, by: str,
                  now: Callable[[], str], report: ReviewReport, made: Card) -> None:
    """Apply a person's answer about a draft field (and the facts its title says), through the
    decisions of pending suggestions (:mod:`pmparse.review.drafts`).

    Raises:
        RecordError: the record cannot be read or written.
        UsageError: item numbers the field does not have.
    """
    changed = [] if decision.action == "skip" else \
        changed_since_asked(library, library.entries[card_id], made, [change.field, *change.linked])
    if decision.action == "skip" or changed:
        if changed:  # the answer was to the draft as shown: the record's words now are a person's
            report.errors.append(f"{card_id}: {', '.join(changed)} changed since it was asked (by hand, or by "
                                 "convert): nothing of it was written; run review --drafts again")
        report.outcomes.extend(Outcome(card_id, name, "skip") for name in [change.field, *change.linked])
        return
    if decision.action == "items":
        decision = _whole_or_items(card_id, change, decision)
        if decision.action == "items":
            at = now()
            accept_items(library, library.entries[card_id], made, change.field, decision.items, by, at, draft=True)
            note_decision(library, card_id, made, change.field, "items", by, at)
            report.outcomes.append(Outcome(card_id, change.field, "items", decision.items))
            return
    for name in [change.field, *change.linked]:
        edited = decision.action == "edit" and name == change.field
        action = "accept" if decision.action == "edit" and not edited else decision.action
        at = now()
        if action == "reject":
            drop_field(library, library.entries[card_id], made, name, by, at, also=change.linked)
            note_decision(library, card_id, made, name, "dropped", by, at)
        else:
            # kept: the record's words stay; an edit takes the person's value
            accept_field(library, library.entries[card_id], made, name, by, at,
                         decision.value if edited else None, edited=edited, mark=False)
            note_decision(library, card_id, made, name, "edited" if edited else "kept", by, at)
        report.outcomes.append(Outcome(card_id, name, action))


def _close(library: Library, plan, report: ReviewReport) -> None:
    """Settle a record whose questions were asked (or leave it pending).

    Raises:
        RecordError: the record cannot be read any more.
    """
    card_id, diff, _, suggestion, drafts = plan
    if drafts:
        if open_draft(library, library.entries[card_id]) is not None:
            report.still_pending.append(card_id)  # fields of the draft were skipped
        return
    done = finish_if_done(library, card_id, suggestion)
    if library.entries[card_id].sha256 == suggestion.source.sha256:
        # same words found elsewhere in an amended source: they moved with the record (an accept
        # moved it, or every field was decided); else they wait with it
        report.outcomes.extend(Outcome(card_id, name, "settled") for name in diff.moved)
    if not done:
        report.still_pending.append(card_id)


def _broken(library: Library, card_id: str, exc: RecordError, ask: Ask | None, report: ReviewReport) -> None:
    report.errors.append(str(exc))
    if library.state_path("pending", card_id).is_file():
        # a record hand-edited into invalid YAML: the suggestion stays on disk and counts, so a
        # person can repair the record and review it then (nothing is lost)
        report.still_pending.append(card_id)
        show = getattr(ask, "broken", None)
        if show is not None:
            show(card_id, str(exc), library.read_state("pending", card_id))
