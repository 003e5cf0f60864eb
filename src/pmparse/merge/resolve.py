"""``pmparse resolve``: two curators' new records merged by git into one id, kept apart again.

Ids are given in each checkout, so two curators who each convert a new file both give it the next
free id, and ``git merge`` leaves ``IL-0017.yaml`` (and its base, maybe its rejection memory)
holding both records between conflict markers. When the two sides are records of different
sources, the first side ("ours") keeps the id and the other side becomes a new record under the
next free id, with the state files of its side (base, pending suggestion, rejection memory, draft
decisions): both incidents keep their review work. Two sides of one source are a real edit
conflict: nothing is changed and a person chooses (docs/record-format.md, "Sharing a library
through git"). A record kept as ``IL-0017.yaml`` on one side and ``IL-0017.json`` on the other is
merged by git without markers, into two records of one id: it is split the same way. State files
conflicted under a record without markers are :mod:`pmparse.merge.merged_state`'s.

Each record is resolved as a whole: what it writes is first kept as a *journal* in
``.pmparse/intent/`` (git ignores it), then written file by file, the conflicted record last. A
run killed midway leaves that record conflicted (or, for two files of one id, the other file in
place), and the next ``resolve`` writes the journal again before anything else
(:mod:`pmparse.merge.journal`).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from pmparse.card.schema import Card
from pmparse.errors import PmparseError, RecordError, UsageError
from pmparse.merge.conflicts import holds_conflict
from pmparse.merge.journal import KINDS, finish_journals, journalled, record_text
from pmparse.merge.outcome import Resolution, ResolveReport
from pmparse.merge.git_sides import deletion_notes, removal_to_stage, sides_of, told_by_conflicts
from pmparse.library.draft_state import DraftState
from pmparse.library.folder import RECORD_FILE, library_root, record_files_by_id
from pmparse.library.lock import write_lock
from pmparse.merge.merged_state import (anchor_note, finished_drafts, merge_drafts, merge_rejections,
                                          model_notes, pmparses, settle_draft)
from pmparse.merge.merged_state import parse_state as _parse_state
from pmparse.library.records import card_data, dumps, format_of, loads
from pmparse.library.store import Library
from pmparse.review.rejections import Rejections
from pmparse.util import write_errors

#: A record's own id line, as pmparse writes it or a person would (YAML: quoted or not).
_ID_LINE = {"yaml": r"(?m)^id:[ \t]*([\"']?){old}\1(?=[ \t]*(?:#.*)?\r?$)",
            "json": r"(?m)^[ \t]*\"id\"[ \t]*:[ \t]*\"{old}\""}


@dataclass
class _Side:
    """One side of a conflicted record: its card and text, and its state files' texts by kind."""

    card: Card
    text: str
    states: dict[str, str] = field(default_factory=dict)

    @property
    def shas(self) -> set[str]:
        """The source texts this side's cards were read from: its rejections and drafts name one."""
        shas = {self.card.source.sha256}
        for kind in ("base", "pending"):
            if kind in self.states:
                shas.add((json.loads(self.states[kind]).get("source") or {}).get("sha256"))
        return shas


def resolve_library(path: str | Path) -> ResolveReport:
    """Split every record git merged from two curators' new records (see the module's text).

    Args:
        path: The library folder.

    Returns:
        What was done with each record holding conflict markers, and which state files are left.

    Raises:
        UsageError: ``path`` is no library, or another process holds its lock.
        WriteError: a file of the library cannot be written (a full disk).
    """
    root = library_root(path)
    report = ResolveReport()
    # a write that fails (a full disk) ends the run: the record it was splitting stays conflicted
    # beside its journal, which the next run finishes
    with write_lock(root), write_errors(root, "the library"):
        # a split a killed run left half done is said again: that run never told its new id
        report.records.extend(finish_journals(root))
        library = Library.open(root)
        done = {r.card_id for r in report.records if r.outcome == "refused"}  # a begun split, edited since
        for card_id, paths in record_files_by_id(root).items():
            if card_id in done:
                continue
            texts = {path: record_text(path) for path in paths}
            conflicted = [path for path in paths if texts[path] is not None and holds_conflict(texts[path])]
            if conflicted or len(paths) > 1:
                done.add(card_id)
            try:
                for path in conflicted:
                    report.records.append(_resolve(library, path, texts[path]))
                if len(paths) > 1 and not conflicted:
                    # git merged a record kept as .yaml on one side and .json on the other
                    # without a marker: two records of one id, the library reads one
                    report.records.append(_resolve_two_files(library, card_id, paths, texts))
            except PmparseError as exc:
                report.records.append(Resolution(card_id, "refused", message=str(exc)))
        for kind in KINDS:
            for card_id in _state_ids(library, kind):
                state = library.state_path(kind, card_id)
                held = record_text(state)
                if card_id in done or held is None or not holds_conflict(held):
                    continue
                name = f".pmparse/{kind}/{card_id}.json"
                if kind == "rejected":
                    try:
                        if merge_rejections(state, held):
                            report.merged.append(f"{card_id}: rejections of both sides kept ({name})")
                            continue
                    except RecordError as exc:
                        report.records.append(Resolution(card_id, "refused", message=f"{card_id}: {exc}"))
                        continue
                if kind == "drafts":
                    try:
                        merged, why = merge_drafts(state, held, name, settle=lambda data, card_id=card_id: settle_draft(
                            library, card_id, data))
                    except RecordError as exc:
                        report.records.append(Resolution(card_id, "refused", message=f"{card_id}: {exc}"))
                        continue
                    if merged and not state.exists():
                        report.merged.append(f"{card_id}: draft decisions of both sides kept, every field decided: "
                                             f"marked reviewed, {name} removed{removal_to_stage(root, name)}")
                        continue
                    if merged:
                        report.merged.append(f"{card_id}: draft decisions of both sides kept ({name})")
                        continue
                    if why is not None:
                        report.notes.append(why)
                        continue
                report.unsettled.append(name)
        # a draft finished on one side and partly decided on the other merges without a marker
        removed, notes = finished_drafts(library, [i for i in _state_ids(library, "drafts") if i not in done])
        report.merged.extend(removed)
        report.notes.extend(notes.values())
        # no marker tells a record deleted on one side and edited on the other (a draft named above aside)
        report.notes.extend(deletion_notes(root, skip=set(notes)))
        report.notes.extend(model_notes(root))
        report.notes.extend(note for note in [anchor_note(root)] if note is not None)
    return report


def _resolve(library: Library, path: Path, text: str) -> Resolution:
    card_id, fmt = path.stem, format_of(path)
    ours_text, theirs_text, whole = sides_of(path, text)
    # either id at first: a record renamed on one side (file and id line) and edited on the other
    # is an edit conflict of one source, not a side that cannot be read
    ours = _Side(_side_card(ours_text, fmt, path, "first (ours) side", any_id=True), ours_text)
    theirs = _Side(_side_card(theirs_text, fmt, path, "second (theirs) side", any_id=True), theirs_text)
    o, t = ours.card.source, theirs.card.source
    one = _one_source(ours, theirs)
    if one is not None and not whole and not told_by_conflicts(text, str(path), o, t):
        # the line that makes them one may be a line only one side changed, which git merged into
        # both (one curator amended the source in place, the other gave the id to a new file)
        return Resolution(card_id, "untold", message=(
            f"{card_id}: both sides read as records of one source ({one}), but only through lines git merged "
            "outside its conflicts, which may be one side's alone: run 'pmparse resolve' before the merge is "
            "committed (git's index then holds each side whole), or keep one side of each conflict, or both "
            "edits, by hand (nothing changed)"))
    if one is not None:
        renamed = [(which, side.card.id) for which, side in (("ours", ours), ("theirs", theirs))
                   if side.card.id != card_id]
        return Resolution(card_id, "same source", message=(
            f"{card_id}: both sides are records of one source ({one})"
            + "".join(f", {which} still under id {old} (renamed on one side)" for which, old in renamed)
            + ": keep one side of each conflict, or both edits, by hand"
            + (f", the id line saying {card_id}" if renamed else "") + " (nothing changed)"))
    for side, which in ((ours, "first (ours) side"), (theirs, "second (theirs) side")):
        _check_id(side.card, path, which)  # each side is split under an id: the file's
    _share_states(library, card_id, ours, theirs)
    new_id = _free_id(library)
    steps = _moves(library, card_id, ours, theirs, new_id, f"{new_id}{path.suffix}", fmt, str(path))
    steps.append((path.name, ours_text))  # last: until it is written the record stays conflicted
    message = f"{card_id}: kept ours ({o.location}); theirs ({t.location}) is now {new_id}"
    return journalled(library, card_id, path.name, text, steps, new_id, message)


def _resolve_two_files(library: Library, card_id: str, paths: list[Path], texts: dict) -> Resolution:
    """Two record files of one id and other formats (``IL-0017.yaml``, ``IL-0017.json``): git
    merged them without a marker, since their names differ. The side whose base or pending
    suggestion is the first of its conflict (ours) keeps the id, else the file the library reads;
    the other file becomes the next free id in its own format, with its state files."""
    if len(paths) != 2 or any(texts[path] is None for path in paths):
        raise UsageError(f"expected two readable record files of {card_id}, found "
                         f"{', '.join(path.name for path in paths)}; keep one by hand", str(library.root))
    sides = [_Side(_side_card(texts[path], format_of(path), path, "record", stem=card_id), texts[path])
             for path in paths]
    one = _one_source(*sides)
    if one is not None:
        return Resolution(card_id, "same source", message=(
            f"{card_id}: {paths[0].name} and {paths[1].name} are both records of one source ({one}): keep one "
            "file and remove the other by hand (nothing changed)"))
    first = _first_conflicted_source(library, card_id)
    mine = [i for i, side in enumerate(sides) if first is not None and (
        first.get("sha256") == side.card.source.sha256 or first.get("location") == side.card.source.location)]
    kept = mine[0] if len(mine) == 1 else len(paths) - 1  # the file the library reads
    ours, theirs = sides[kept], sides[1 - kept]
    ours_path, theirs_path = paths[kept], paths[1 - kept]
    _share_states(library, card_id, ours, theirs)
    _check_owners(library, card_id, ours, theirs)
    new_id = _free_id(library)
    new_name = f"{new_id}{theirs_path.suffix}"
    steps = _moves(library, card_id, ours, theirs, new_id, new_name, format_of(theirs_path), str(theirs_path))
    steps.append((theirs_path.name, None))  # last: until it is gone the id stays held twice
    message = (f"{card_id}: kept {ours_path.name} ({ours.card.source.location}); {theirs_path.name} "
               f"({theirs.card.source.location}) is now {new_name}")
    return journalled(library, card_id, theirs_path.name, theirs.text, steps, new_id, message)


def _check_owners(library: Library, card_id: str, *sides: _Side) -> None:
    """Each side's base, pending suggestion and draft decisions are of its record's source: a
    conflict's sides are given by their place, which a record file without markers does not tell.

    Raises:
        UsageError: a state file of the other side's source (nothing written).
    """
    for side in sides:
        for kind, text in side.states.items():
            data = _parse_state(text, library.state_path(kind, card_id))
            if kind == "drafts":
                mine = data.get("sha256") in side.shas
            elif kind in ("base", "pending"):
                source = data.get("source") or {}
                mine = (source.get("sha256") == side.card.source.sha256
                        or source.get("location") == side.card.source.location)
            else:
                continue  # a rejection is asked only of the suggestion it names
            if not mine:
                raise UsageError(f"expected each side of the conflict to be of one record's source, found the "
                                 f"{kind} of {side.card.source.location} of another; settle this file by hand",
                                 str(library.state_path(kind, card_id)))


def _one_source(ours: _Side, theirs: _Side) -> str | None:
    """How the two sides are records of one source (its location, or the one text at both
    locations), or None when they are of different sources."""
    o, t = ours.card.source, theirs.card.source
    if o.sha256 == t.sha256:
        return o.location if o.location == t.location else f"the same text at {o.location} and {t.location}"
    if o.location == t.location and o.location != "-":
        return o.location
    return None


def _first_conflicted_source(library: Library, card_id: str) -> dict | None:
    """The source named by the first side (ours) of a conflicted base or pending suggestion."""
    for kind in ("base", "pending"):
        state = library.state_path(kind, card_id)
        text = record_text(state)
        sides = sides_of(state, text) if text is not None and holds_conflict(text) else None
        if sides is not None:
            source = _parse_state(sides[0], state).get("source")
            return source if isinstance(source, dict) else None
    return None


def _moves(library: Library, card_id: str, ours: _Side, theirs: _Side, new_id: str, new_name: str, fmt: str,
           where: str) -> list:
    """The journal's steps but the last: theirs and its state files under ``new_id``, then the
    state files ``card_id`` keeps (ours')."""
    steps = [(f".pmparse/{kind}/{new_id}.json", _renamed_state(kind, state, new_id))
             for kind, state in theirs.states.items()]
    steps.append((new_name, _renamed_record(theirs, fmt, new_id, where)))
    for kind in KINDS:
        now = record_text(library.state_path(kind, card_id))
        kept = ours.states.get(kind)
        if now != kept:
            steps.append((f".pmparse/{kind}/{card_id}.json", kept))
    return steps



def _side_card(text: str, fmt: str, path: Path, which: str, stem: str | None = None, any_id: bool = False) -> Card:
    """``which`` side's card; ``stem`` given, ``text`` is a whole record file of that id; ``any_id``:
    of whatever id it holds."""
    what = "each record of the id" if stem else "each side of the conflict"
    try:
        card = loads(text, fmt, str(path))
    except RecordError as exc:
        raise UsageError(f"expected {what} to be a valid record, found the {which} "
                         f"invalid: {exc.message}; settle this file by hand", str(path)) from None
    if not any_id:
        _check_id(card, path, which, stem)
    return card


def _check_id(card: Card, path: Path, which: str, stem: str | None = None) -> None:
    """Refuse ``which`` side's card unless it holds the id of its file (``stem``: of that id)."""
    if card.id != (stem or path.stem):
        what = "each record of the id" if stem else "each side of the conflict"
        raise UsageError(f"expected {what} to hold id {stem or path.stem} (the file name), found "
                         f"{card.id} in the {which}; settle this file by hand", str(path))


def _share_states(library: Library, card_id: str, ours: _Side, theirs: _Side) -> None:
    """Give each side the state files of its record: a conflicted file's sides by their place, one
    file both sides did not write (one curator rejected a field, the other did not) by its source.

    Raises:
        UsageError: a state file whose markers cannot be read, or whose side cannot be told.
    """
    for kind in KINDS:
        state = library.state_path(kind, card_id)
        text = record_text(state)
        if text is None:
            continue
        sides = sides_of(state, text)[:2] if holds_conflict(text) else None
        for half in sides or (text,):
            data = _parse_state(half, state)
            model = {"rejected": Rejections, "drafts": DraftState}.get(kind)
            if model is not None and not pmparses(model, data):
                # its entries and source text are read to tell the sides: a rejection of a number,
                # a list for a sha256 stopped the whole run with a traceback
                raise UsageError(f"expected each side to be a {kind} file as pmparse writes it, found one that "
                                 "is not; settle this file by hand", str(state))
            if kind in ("base", "pending"):
                # checked before an id is given: its card is written again under the new id
                _side_card(half, "json", state, f"{kind} card")
        if sides is not None:
            for side, half in zip((ours, theirs), sides):
                side.states[kind] = half
            continue
        data = _parse_state(text, state)
        if kind == "rejected":
            _share_rejections(text, data, ours, theirs)
            continue
        if kind == "drafts":
            owners = [side for side in (ours, theirs) if data.get("sha256") in side.shas]
        else:
            source = data.get("source") or {}
            owners = [side for side in (ours, theirs) if source.get("location") == side.card.source.location]
        if len(owners) != 1:
            raise UsageError(f"expected a state file of one side's source, found one of "
                             f"{'both' if owners else 'neither'} ({ours.card.source.location}, "
                             f"{theirs.card.source.location}); settle this file by hand", str(state))
        owners[0].states[kind] = text


def _share_rejections(text: str, data: dict, ours: _Side, theirs: _Side) -> None:
    """Split a rejection memory only one side wrote by the source each rejection was of. One of
    neither side's texts (a source amended since) goes to both: it is asked only of that text."""
    entries = data.get("rejected") or []
    for side, other in ((ours, theirs), (theirs, ours)):
        mine = [e for e in entries if e.get("sha256") in side.shas or e.get("sha256") not in other.shas]
        if mine == entries:
            side.states["rejected"] = text
        elif mine:
            side.states["rejected"] = json.dumps({**data, "rejected": mine}, indent=2, ensure_ascii=False) + "\n"


def _renamed_state(kind: str, text: str, new_id: str) -> str:
    """A state file's text for the record's new id: a base or pending card names its id; a
    rejection memory and draft decisions do not."""
    if kind not in ("base", "pending"):
        return text
    card = loads(text, "json", kind)
    return dumps(card.model_copy(update={"id": new_id}), "json")


def _renamed_record(side: _Side, fmt: str, new_id: str, where: str) -> str:
    """The record's text with its ``id`` changed, nothing else (a person's comments and layout
    stay); written anew only when its id line is not one this finds."""
    old = side.card.id
    text, count = re.subn(_ID_LINE[fmt].format(old=old), lambda m: m.group(0).replace(old, new_id),
                          side.text, count=1)
    wanted = card_data(side.card.model_copy(update={"id": new_id}))
    try:
        if count and card_data(loads(text, fmt, where)) == wanted:
            return text
    except RecordError:
        pass
    return dumps(side.card.model_copy(update={"id": new_id}), fmt)


def _free_id(library: Library) -> str:
    """The next free id (:meth:`Library.next_id`), past any id a state file or record of another
    format still holds: nothing of another record is overwritten."""
    while True:
        card_id = library.next_id()
        taken = any((library.root / f"{card_id}.{ext}").exists() for ext in ("yaml", "yml", "json")) or any(
            library.state_path(kind, card_id).exists() for kind in (*KINDS, "intent"))
        if not taken:
            return card_id


def _state_ids(library: Library, kind: str) -> list[str]:
    try:
        names = sorted(os.listdir(library.state_dir / kind))
    except OSError:
        return []
    return [name[:-5] for name in names if RECORD_FILE.match(name) and name.endswith(".json")]
