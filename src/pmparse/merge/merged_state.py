"""State files git left with conflict markers under a record that holds none (``pmparse resolve``).

Two curators who worked on one record (each turned down or decided fields of one draft), or who
each trained the library's model or converted from another folder, leave the record settled but
its state files in conflict. Each side's decisions are kept where keeping both loses nothing: a
rejection is asked only of the suggestion it names, and a draft decision only of its field. Two
decisions of one field that differ (or that each hold a value of its own), decisions a record
reviewed on the other side does not follow, two models and two anchors are a person's to choose:
these give the line that says which and how.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from collections.abc import Callable

from pydantic import BaseModel, ValidationError

from pmparse.errors import RecordError, StateFileError, UsageError
from pmparse.merge.conflicts import holds_conflict, split_sides
from pmparse.merge.git_sides import merge_revisions, removal_to_stage, repo_name, text_at
from pmparse.library.places import ANCHOR_FILE
from pmparse.library.draft_state import DRAFTS, DraftState, unfollowed
from pmparse.library.records import card_data, format_of, loads
from pmparse.library.statefiles import regular_text, state_fits
from pmparse.library.store import Library
from pmparse.review.apply import every_field_decided, mark_reviewed, rewrite_record
from pmparse.review.drafts import load_draft_state
from pmparse.review.rejections import Rejections
from pmparse.util import atomic_write

#: The draft decisions whose value is the curator's own (held by the record only): two of one
#: field agree only when they are one decision.
_OWN_VALUES = ("edited", "items")

#: Why a merged rejection memory is refused, and what a person can do.
_TOO_LARGE = ("both sides' rejections together; left with its conflict markers: keep one side of the conflict, "
              "or remove the oldest rejections (their suggestions may then be offered again), by hand")

#: Why merged draft decisions are refused, and what a person can do.
_DRAFTS_TOO_LARGE = ("both sides' draft decisions together; left with its conflict markers: keep one side of the "
                     "conflict by hand (review --drafts then asks the other side's fields again)")

#: The library's own model's folder (``pmparse train --library``), relative to the library.
MODEL_FOLDER = ".pmparse/model"


def parse_state(text: str, path: Path) -> dict:
    """One side of a state file as a JSON object.

    Raises:
        UsageError: not JSON, or not an object (the message names ``path``).
    """
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise UsageError(f"expected each side of the conflict to be JSON, found {exc}; settle this file by "
                         "hand", str(path)) from None
    if not isinstance(data, dict):
        raise UsageError(f"expected a JSON object, found {type(data).__name__}; settle this file by hand", str(path))
    return data


def pmparses(model: type[BaseModel], data: dict) -> bool:
    """Whether ``data`` is a state file as pmparse writes it (``model``: a rejection memory, draft
    decisions): one from someone else's library may hold anything its readers do not expect."""
    try:
        model.model_validate(data)
    except ValidationError:
        return False
    return True


def _canonical(entry: dict) -> str:
    return json.dumps(entry, sort_keys=True, ensure_ascii=True)


def _sides(text: str, path: Path) -> tuple[dict, dict] | None:
    """Both sides of a conflicted state file as JSON objects, or None when they cannot be read."""
    try:
        ours, theirs = (parse_state(half, path) for half in split_sides(text, str(path)))
    except UsageError:
        return None
    return ours, theirs


def merge_rejections(path: Path, text: str) -> bool:
    """Keep every rejection of a memory both sides added to (two curators turned down fields of one
    record): each is asked only of the suggestion it names, so keeping both loses nothing. False,
    and nothing written, when its markers or sides cannot be read.

    Raises:
        RecordError: both sides' rejections together would make a memory larger than pmparse
            reads back (the file named, with the size); nothing is written, the file keeps its
            markers.
    """
    sides = _sides(text, path)
    if sides is None or not all(pmparses(Rejections, side) for side in sides):
        return False
    # a side the model reads may leave out its empty list: looked up, it stopped the run (KeyError)
    ours, theirs = ({"rejected": [], **side} for side in sides)
    # by a canonical text, not a list's `in`: each of theirs looked for in all of ours took hours
    # for a memory of 200,000 (one from a branch of someone else's), the library's lock held
    known = {_canonical(entry) for entry in ours["rejected"]}
    kept = ours["rejected"] + [entry for entry in theirs["rejected"] if _canonical(entry) not in known]
    # as review checks a memory before it writes one (memory_fits): one past the limit would be
    # refused, or passed over and its rejections forgotten, by every later command
    text = state_fits(path, json.dumps({**ours, "rejected": kept}, indent=2, ensure_ascii=False) + "\n", _TOO_LARGE)
    atomic_write(path, text)
    return True


def merge_drafts(path: Path, text: str, name: str,
                 settle: Callable[[dict], bool] | None = None) -> tuple[bool, str | None]:
    """Keep both sides' decisions of one draft's fields (two curators each reviewed fields of one
    draft): each side decided its own fields, and a field both decided alike is kept once (ours).

    Args:
        path: The drafts file holding conflict markers.
        text: Its text.
        name: How messages name it.
        settle: Given the merged decisions, marks the record reviewed when they decide every
            field of its draft (:func:`settle_draft`); the file then goes instead of being written.

    Returns:
        ``(True, None)`` when merged and written; else nothing is written and ``(False, why)``, a
        line naming ``name``: decisions of two source texts, a field decided differently, or one
        each side edited or decided item by item (two values the decisions do not hold, so not
        known to agree); ``why`` is None when the sides cannot be read at all.

    Raises:
        RecordError: both sides' decisions together would make a file larger than pmparse reads
            back (the file named, with the size); nothing is written, the record is not marked
            and the file keeps its markers.
    """
    sides = _sides(text, path)
    if sides is None or not all(pmparses(DraftState, side) for side in sides):
        return False, None
    ours, theirs = ({"decided": {}, **side} for side in sides)
    if ours.get("sha256") != theirs.get("sha256"):
        return False, (f"{name}: the two sides decided fields of drafts of two source texts (the source was "
                       "amended on one side): keep one side of the conflict by hand")
    differ = sorted(field for field, decision in theirs["decided"].items()
                    if field in ours["decided"] and _decision(ours["decided"][field]) != _decision(decision))
    own = sorted(field for field, decision in theirs["decided"].items()
                 if field not in differ and field in ours["decided"] and _decision(decision) in _OWN_VALUES
                 and ours["decided"][field] != decision)
    said = []
    if differ:
        # the record git merged holds one side's value (or both edits): which decision stands is
        # the curators' to say, and the record must then agree with it
        said.append("the two sides decided " + ", ".join(
            f"{field} differently ({_decision(ours['decided'][field])}, {_decision(theirs['decided'][field])})"
            for field in differ))
    if own:
        # an edit or an item-by-item answer is the curator's own value, which lives in the record
        # alone: git merged the two sides' lines of it (a mix neither made, or one side's), and
        # the decisions do not say whether the two values were one
        both = ", ".join(f"{field} ({_decision(ours['decided'][field])} by {_by(ours['decided'][field])}, "
                         f"{_decision(theirs['decided'][field])} by {_by(theirs['decided'][field])})" for field in own)
        said.append(f"the two sides each gave field(s) of draft {path.stem} their own value: {both}; which value "
                    "stands cannot be told from the decisions")
    if said:
        # named together: a curator who keeps one side for one field must know of every other
        return False, (f"{name}: {'; '.join(said)}: keep one side of the conflict by hand, and the record's "
                       "field(s) as that side left them")
    decided = {**ours["decided"], **{k: v for k, v in theirs["decided"].items() if k not in ours["decided"]}}
    # checked before anything is written, the record's mark included, as a merged rejection
    # memory is: one past the limit would be refused, or passed over and its decisions forgotten,
    # by every later command (all or none: the record, the decisions)
    merged = state_fits(path, json.dumps({**ours, "decided": decided}, indent=2, ensure_ascii=False) + "\n",
                        _DRAFTS_TOO_LARGE)
    if settle is not None and settle({**ours, "decided": decided}):
        # removed after the record is marked: a run killed in between leaves this file conflicted,
        # and the next run merges it again and finds the record already marked
        path.unlink(missing_ok=True)
        return True, None
    atomic_write(path, merged)
    return True, None


def settle_draft(library: Library, card_id: str, data: dict) -> bool:
    """Mark a draft reviewed when both sides' decisions (``data``, a merged drafts file) decide
    every field it suggested, as ``review --drafts`` marks one whose last field is decided
    (:func:`pmparse.review.apply.note_decision`): neither side's review saw them all, and no later
    review asks a draft with nothing left, so it would stay ``suggested`` for good. The last
    decision's reviewer and time are the review's. Only the record's status and review lines
    are rewritten.

    Returns:
        True when the record is (now) marked reviewed; False, nothing written, when a field is
        left, the decisions are of another source text, or the record cannot be read.
    """
    try:
        state = DraftState.model_validate(data)
        made = library.read_state("base", card_id)
        entry = library.entries.get(card_id)
        if not state.decided or made is None or entry is None or entry.card is None:
            return False
        if not state.sha256 == made.source.sha256 == entry.card.source.sha256:
            return False
        if not every_field_decided(made, state.decided):
            return False
        last = max(state.decided.values(), key=lambda decision: decision.at)
        rewrite_record(library, entry, made, lambda current: None if current.status == "reviewed"
                       else mark_reviewed(current, last.by, last.at))
    except (ValidationError, RecordError):
        return False
    return True


def finished_drafts(library: Library, card_ids: list[str]) -> tuple[list[str], dict[str, str]]:
    """Settle the draft decisions' file (no markers) of each record of ``card_ids`` marked
    reviewed: one curator finished the draft (the file went) while another decided some of its
    fields (the file came), and git merged the record and the file without a conflict; or a
    curator finished it by hand (``status: reviewed``), which leaves the file, after deciding some
    of its fields: the files cannot tell which.

    A file whose every decision the record follows is the finished draft's leftover: it is
    removed, as ``review`` removes it when it finishes a draft (a later command would read it as
    decisions still to keep). One holding a decision the record does not follow
    (:func:`pmparse.library.draft_state.unfollowed`) is kept and named: what was lost is a
    person's to check. The finished side's own decision of a field is nowhere (its file went
    when it finished), but a merge at hand still holds its record: a field it held otherwise than
    the merged record (kept by the finisher, dropped or edited by the other side, which git
    merged into the latter) is named and the file kept, rather than removed as agreed
    (:func:`_finisher_overridden`); without the merge's commits that is not told (docs/review.md).

    Returns:
        ``(removed, notes)``: a line for each file removed, and one for each kept for a person, by
        its record's id.
    """
    removed: list[str] = []
    notes: dict[str, str] = {}
    for card_id in card_ids:
        entry = library.entries.get(card_id)
        card = entry.card if entry is not None else None
        made = library.read_state("base", card_id)
        try:
            state = load_draft_state(library, card_id)  # None: none, or not read as draft decisions
        except StateFileError:
            continue  # too large to read: said where the conflicted files are
        lost = None if card is None or made is None or state is None else unfollowed(card, made, state)
        if lost is None:
            continue
        name = f".pmparse/{DRAFTS}/{card_id}.json"
        overridden = _finisher_overridden(library, entry.path, card, state) if not lost else None
        if overridden is not None:
            revision, fields = overridden
            said = ", ".join(f"{field_name}: the side that finished the draft ({revision}) holds a value the other "
                             f"side's draft decisions {_past(state.decided[field_name].decision)} (by "
                             f"{state.decided[field_name].by})" for field_name in fields)
            shown = repo_name(entry.path) or entry.path.name
            notes[card_id] = (f"{card_id}: {said}; git merged the other side's without a conflict, and the finished "
                              "review keeps no decision per field: keep the merged value, or take the finisher's "
                              f"from 'git show {revision}:{shown}', then remove {name}")
            continue
        if not lost:
            library.drop_state(DRAFTS, card_id)
            # a file both sides held before one finished the draft is git's modify/delete conflict
            removed.append(f"{card_id}: marked reviewed, and its draft decisions agree with it: the draft is "
                           f"finished, {name} removed{removal_to_stage(library.root, name)}")
            continue
        # the files cannot tell a merge (one curator finished, another decided) from a draft
        # finished by hand after some of its fields were decided: both named
        said = ", ".join(f"{field_name} ({field.decision} by {field.by})" for field_name, field in lost)
        notes[card_id] = (f"{card_id} is marked reviewed, but its draft decisions hold field(s) the record does not "
                          f"follow: {said} (decided on one side of a git merge while the other finished the draft, "
                          f"or before it was finished by hand): check those fields of {entry.path.name}, then "
                          f"remove {name}")
    return removed, notes


def _finisher_overridden(library: Library, path: Path, card, state) -> tuple[str, list[str]] | None:
    """The fields of a reviewed record whose draft decisions it all follows where the side that
    finished the draft held another value than the merged record: git took the other side's drop
    or edit into the finished record without a conflict (a decision the record follows is not
    lost, but the finisher's own answer, which no file keeps, is). Told from the merge's two
    commits (:func:`pmparse.merge.git_sides.merge_revisions`): the finisher is the side whose
    record is reviewed and which holds no decisions' file.

    Returns:
        ``(the finisher's revision, the fields)``, or None when none (or no merge is at hand).
    """
    revisions = merge_revisions(path.parent)
    if revisions is None or card is None:
        return None
    decisions = library.state_path(DRAFTS, path.stem)
    holders = [revision for revision in revisions if text_at(decisions, revision) is not None]
    if len(holders) != 1:
        return None  # both sides decided fields, or neither: not one finishing while the other decided
    (finisher,) = [revision for revision in revisions if revision not in holders]
    text = text_at(path, finisher)
    try:
        finished = loads(text, format_of(path), f"{finisher}:{path.name}") if text is not None else None
    except RecordError:
        return None
    if finished is None or finished.status != "reviewed":
        return None
    theirs, merged = card_data(finished), card_data(card)
    fields = [field_name for field_name in state.decided if theirs.get(field_name) != merged.get(field_name)]
    return (finisher, fields) if fields else None


def _past(decision: str) -> str:
    return "decided item by item" if decision == "items" else decision


def _decision(entry) -> str:
    return str(entry.get("decision")) if isinstance(entry, dict) else repr(entry)


def _by(entry) -> str:
    return str(entry.get("by")) if isinstance(entry, dict) else "?"


def model_notes(root: Path) -> list[str]:
    """A line for each file of the library's own model holding conflict markers: two curators who
    each ran ``train --library`` committed two models, and git merged their settings line by line
    (the weights, binary, stay one side's). No mix of the two is a model; ``convert`` refuses it."""
    folder = root / MODEL_FOLDER
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    notes = []
    for name in names:
        text = _held(folder / name)
        if text is not None and holds_conflict(text):
            # training again alone would not do: a library with too few reviews trains nothing
            # and the mixed model would stay
            notes.append(f"{MODEL_FOLDER}/{name} holds conflict markers (two library models trained apart): keep "
                         f"one side's whole model folder ('git checkout --ours -- {root / MODEL_FOLDER}', or "
                         f"--theirs) or remove it ('git rm -r -- {root / MODEL_FOLDER}'), then run 'pmparse train "
                         f"--library {root}' again if you want one trained on both sides' reviews")
    return notes


def anchor_note(root: Path) -> str | None:
    """A line when the library's anchor holds conflict markers: two checkouts that converted from
    other folders each wrote theirs. Only a person knows where the sources now are."""
    path = root / ANCHOR_FILE
    text = _held(path)
    if text is None or not holds_conflict(text):
        return None
    sides = _sides(text, path)
    folders = [side.get("folder") for side in sides] if sides else []
    named = (f" (ours {folders[0]!r}, theirs {folders[1]!r})" if all(isinstance(f, str) for f in folders) and folders
             else "")
    return (f"{ANCHOR_FILE} holds conflict markers: keep the side naming the folder the sources are read from, "
            f"relative to the library{named}")


def _held(path: Path) -> str | None:
    """A regular file's text, or None (missing, a link, binary, too large to be a setting)."""
    try:
        return regular_text(path)
    except StateFileError:
        return None
