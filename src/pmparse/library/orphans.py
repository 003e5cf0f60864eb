"""State files that belong to no record: what a record file renamed, or its ``id:`` changed, by
hand leaves in ``.pmparse/`` under its old id (base, pending suggestion, rejection memory, draft
decisions), and what a deleted record leaves under an id another record was then renamed onto.

pmparse keeps a record's state by id, and a person's rename moves only the record. The state
follows a rename pmparse can prove (:func:`follow_renames`, run by each writer before it reads
any state): the old id has no record, its base (else its pending suggestion) names the very
source and text of exactly one record, and that record has no state file of its own. Then nothing
but the id tells the two apart, and leaving the state behind loses the curator's work: the
record read as a person's without a base, every rejected suggestion offered again, every decided
draft field asked again. Anything less certain is only named (:func:`stray_states`, which
``validate`` prints): which record, if any, the files belong to is the curator's call.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pmparse.errors import StateFileError
from pmparse.library.draft_state import DRAFTS, read_draft_state
from pmparse.library.records import dumps
from pmparse.library.state import STATE_KINDS
from pmparse.library.statefiles import regular_text
from pmparse.util import atomic_write

if TYPE_CHECKING:
    from pmparse.library.store import Library

_log = logging.getLogger(__name__)

#: The state kinds kept for a record, in the order they are named.
KINDS = STATE_KINDS


@dataclass(frozen=True)
class Stray:
    """State files under one id that belong to no record there.

    Attributes:
        card_id: The id the files are kept under.
        files: The files, relative to the library (``.pmparse/base/IL-0001.json``).
        heir: The record proven to be the one renamed (same source, same text, no state of its
            own), for files whose id has no record; its state follows it at the next ``convert``
            or ``review``.
        record: The record file now under ``card_id``, of another source than the files, or None
            when no record holds the id.
        successor: The one record of the same source and text that has state of its own (the
            source converted again after its record was deleted), where no heir is proven.
    """

    card_id: str
    files: tuple[str, ...]
    heir: str | None = None
    record: str | None = None
    successor: str | None = None

    def __str__(self) -> str:
        files = ", ".join(self.files)
        if self.record is not None:
            return (f"{files}: of another source than {self.record}, the record now under {self.card_id} (a record "
                    f"this id held before was deleted, and another renamed onto its id by hand?): pmparse reads none "
                    f"of it for {self.record}; rename the files to the id of the record they belong to, or remove them")
        if self.heir is not None:
            return (f"{files}: no record is {self.card_id}; {self.heir} holds the same source and text (renamed by "
                    f"hand?): the next 'pmparse convert' or 'pmparse review' moves them to {self.heir}")
        if self.successor is not None:
            return (f"{files}: no record is {self.card_id}; {self.successor} holds the same source and text with state "
                    "of its own (converted again after a deletion?): remove them")
        return (f"{files}: no record is {self.card_id} (deleted, or renamed by hand?): rename the files to the "
                "record's new id, or remove them if the record was deleted")


def _held_kinds(library: Library) -> dict[str, list[str]]:
    """The kinds of state file each id has, by id."""
    held: dict[str, list[str]] = {}
    for kind in KINDS:
        try:
            names = sorted(os.listdir(library.state_dir / kind))
        except OSError:
            continue
        for name in names:
            if name.startswith("IL-") and name.endswith(".json") and len(name) == len("IL-0001.json"):
                held.setdefault(name[:-5], []).append(kind)
    return held


def _source_of(library: Library, card_id: str, kinds: list[str]) -> tuple[str | None, str | None]:
    """``(location, sha256)`` the state of an id with no record was made from: its base's, else its
    pending suggestion's, else its draft decisions' text alone."""
    for kind in ("base", "pending"):
        card = library.read_state(kind, card_id) if kind in kinds else None
        if card is not None:
            return card.source.location, card.source.sha256
    if DRAFTS in kinds:
        state = read_draft_state(library.state_path(DRAFTS, card_id))
        if state is not None:
            return None, state.sha256
    return None, None


def _alien_drafts(library: Library, card_id: str, sha256: str | None) -> bool:
    """Whether the draft decisions of ``card_id`` were made of another text than its record's and
    its own base's (the decisions of a record this id held before)."""
    state = read_draft_state(library.state_path(DRAFTS, card_id))
    if state is None or sha256 is None or state.sha256 == sha256:
        return False
    base = library.read_state("base", card_id)
    return base is None or base.source.sha256 != state.sha256


def stray_states(library: Library) -> list[Stray]:
    """Every id's state files that belong to no record there, by id: those of an id no record
    holds, with the record proven renamed from it where there is one; and a base, pending
    suggestion or draft decisions of another source than the record now under its id
    (:meth:`~pmparse.library.state.LibraryState.of_another_source`), which no command reads for it.
    A rejection memory under a record is not judged: each rejection is asked only of the text it
    names.
    """
    held = _held_kinds(library)
    strays: list[Stray] = []
    claims: dict[str, list[str]] = {}
    for card_id, kinds in sorted(held.items()):
        entry = library.entries.get(card_id)
        try:
            if entry is None:
                location, sha256 = _source_of(library, card_id, kinds)
                same = [other.id for other in library.entries.values()
                        if other.error is None and other.sha256 == sha256 and sha256 is not None
                        and (location is None or other.location == location)]
                heir = same[0] if len(same) == 1 and same[0] not in held else None
                if heir is not None:
                    claims.setdefault(heir, []).append(card_id)
                successor = same[0] if len(same) == 1 and heir is None else None
                strays.append(Stray(card_id, tuple(f".pmparse/{kind}/{card_id}.json" for kind in kinds), heir,
                                    successor=successor))
                continue
            alien = [kind for kind in ("base", "pending") if kind in kinds and library.stray_state(kind, card_id)]
            if DRAFTS in kinds and _alien_drafts(library, card_id, entry.sha256):
                alien.append(DRAFTS)
        except StateFileError:
            continue  # too large to read: the command that reads it names it
        if alien:
            strays.append(Stray(card_id, tuple(f".pmparse/{kind}/{card_id}.json" for kind in alien),
                                record=entry.path.name))
    # two ids whose state names one record: which was renamed cannot be told
    return [Stray(s.card_id, s.files) if s.heir is not None and len(claims[s.heir]) > 1 else s for s in strays]


def follow_renames(library: Library) -> list[str]:
    """Move the state of each record renamed by hand to its new id, where pmparse can prove the
    rename (:func:`stray_states`' heirs): a base and pending suggestion rewritten with the new id,
    a rejection memory and draft decisions as they are (they name no id). Call with the write lock
    held, before any state is read. Each move is logged as a warning, naming both ids.

    Returns:
        A line for each record whose state followed it.
    """
    moved = []
    for stray in stray_states(library):
        if stray.heir is None:
            continue
        old, new = stray.card_id, stray.heir
        texts = {}
        try:
            for kind in (rel.split("/")[1] for rel in stray.files):
                if kind in ("base", "pending"):
                    card = library.read_state(kind, old)
                    texts[kind] = None if card is None else dumps(card.model_copy(update={"id": new}), "json")
                else:
                    texts[kind] = regular_text(library.state_path(kind, old))  # they name no id
        except StateFileError:
            continue  # too large to read: the command that reads it names it
        if any(text is None for text in texts.values()):
            continue  # a file not read as pmparse writes it (a link, broken JSON): left, and named
        # every file written under the new id before any old one goes: a run killed between leaves
        # both, and the next run names them (the heir then has state of its own) rather than guess
        for kind, text in texts.items():
            target = library.state_path(kind, new)
            target.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(target, text)
        kinds = list(texts)
        for kind in kinds:
            library.drop_state(kind, old)
        line = (f"{old} was renamed by hand to {new} (same source and text): its state files follow it "
                f"({', '.join(kind for kind in kinds)} now under {new})")
        _log.warning(f"{library.root}: {line}")
        moved.append(line)
    return moved
