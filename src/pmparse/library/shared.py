"""A library shared through git: a merge left unfinished in it (docs/record-format.md, "Sharing
a library through git")."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from pmparse.errors import StateFileError, UsageError
from pmparse.library.folder import record_files_by_id
from pmparse.library.places import ANCHOR_FILE
from pmparse.library.statefiles import regular_text
from pmparse.yaml_problems import merge_conflict_line

if TYPE_CHECKING:
    from pmparse.library.store import Library

#: The state folders a merge can leave conflict markers in (the intent folder stays out of git).
_MERGED_STATE = ("base", "pending", "rejected", "drafts")


def unfinished_merges(library: Library) -> list[tuple[str, int]]:
    """Record and state files holding git's conflict markers, as ``(name, line)``; the name is
    relative to the library.

    A library shared through git is left so until a curator finishes a merge. A record there
    stood for whichever side's source its first ``source:`` block named (the other side's file got
    a second record), a base for none (its draft taken for a person's record). Only files the scan
    cache does not vouch for are read: git gives each file it writes a new stat key.
    """
    found = []
    for entry in sorted(library.entries.values(), key=lambda e: e.path.name):
        # a record the scan found invalid: a record that parses holds no markers, and asking a
        # valid one for its card parsed every record the scan cache vouched for, at every run
        if entry.error is not None:
            line = _conflict_in(entry.path, record=True)
            if line is not None:
                found.append((entry.path.name, line))
    for kind in _MERGED_STATE:
        folder = library.state_dir / kind
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            if not name.endswith(".json"):
                continue
            if library.vouches_for(kind, name[:-5]):
                continue
            line = _conflict_in(folder / name)
            if line is not None:
                found.append((f".pmparse/{kind}/{name}", line))
    # the anchor both curators' checkouts changed: unreadable, a convert wrote its own over the
    # markers without a word (the sources then read from whichever folder it ran in)
    line = _conflict_in(library.root / ANCHOR_FILE, record=True)  # one too large is no anchor: passed over
    if line is not None:
        found.append((ANCHOR_FILE, line))
    return found


def refuse_unfinished_merge(library: Library) -> None:
    """Stop a writer (``convert``, ``review``) before anything is written while a git merge is
    unfinished in the library (:func:`unfinished_merges`).

    Raises:
        UsageError: a record or state file holds conflict markers: which source the record stands
            for, or what pmparse last wrote, is the curator's to settle (two curators who each gave
            a new file the same id, which ``pmparse resolve`` settles; one record edited on both sides),
            or an id is held by two record files (:func:`refuse_ids_held_twice`).
    """
    found = unfinished_merges(library)
    if not found:
        refuse_ids_held_twice(library.root)
        return
    named = ", ".join(f"{name} (line {line})" for name, line in found[:5]) + (" ..." if len(found) > 5 else "")
    raise UsageError(f"expected a library whose git merge is finished, found an unfinished merge (git conflict "
                     f"markers) in {named}: two curators' new records given one id are kept apart by "
                     f"'pmparse resolve {library.root}'; otherwise keep one side of each conflict, or both edits, "
                     "remove the markers and run this again", str(library.root))


def ids_held_twice(root: Path) -> dict[str, list[Path]]:
    """The record files of each id two or more of them hold (``IL-0003.yaml`` and
    ``IL-0003.json``: git merged two curators' libraries without a marker, their names differing)."""
    return {card_id: paths for card_id, paths in record_files_by_id(root).items() if len(paths) > 1}


def held_twice(root: Path, card_id: str, paths: list[Path]) -> str:
    """What is wrong with an id two record files hold, and what to run."""
    return (f"expected one record file of {card_id}, found {' and '.join(path.name for path in paths)}: keep "
            f"them apart with 'pmparse resolve {root}' (two curators' records given one id), or remove one by hand")


def refuse_ids_held_twice(root: Path) -> None:
    """Stop a writer before anything is written while an id is held by two record files: the
    library reads one of them, so what it would write (a refreshed draft, a decision, a new
    suggestion) would go to one incident while the other is left out.

    Raises:
        UsageError: an id held by two record files (the message names both files).
    """
    twice = ids_held_twice(root)
    if twice:
        card_id, paths = next(iter(twice.items()))
        more = f" (and {len(twice) - 1} more id(s))" if len(twice) > 1 else ""
        raise UsageError(f"{held_twice(root, card_id, paths)}{more}, and run this again", str(root))


def _conflict_in(path: Path, record: bool = False) -> int | None:
    """The line of git's first conflict marker in a regular file, or None (also when unreadable,
    and when too large to read unless it is a state file: a ``record``, or the anchor).

    Raises:
        StateFileError: a state file (not a ``record``) too large to read.
    """
    try:
        text = regular_text(path)
    except StateFileError:
        if not record:
            raise
        return None  # a record too large to read is named invalid by the scan, the rest goes on
    return None if text is None else merge_conflict_line(text)
