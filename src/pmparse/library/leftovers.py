"""What a killed run leaves in a library, and the suggestions of records a person deleted,
removed by the next run that holds the write lock."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from pmparse.paths import inside

if TYPE_CHECKING:
    from pmparse.library.store import Library

#: The folders of ``.pmparse/`` that hold state files.
STATE_KINDS = ("base", "drafts", "intent", "pending", "rejected")

#: A temporary file of atomic_write: ``.`` + the file it replaces + mkstemp's 8 characters + ``.tmp``.
_TEMPORARY = re.compile(r"^\.(?:IL-\d{4}\.(?:yaml|yml|json)|index\.json)\.[A-Za-z0-9_]{8}\.tmp$")


def remove_temporaries(root: Path) -> list[str]:
    """Remove the temporary files a killed run left in the library at ``root``
    (``.IL-0001.yaml.k3j_x9a2.tmp``, from :func:`~pmparse.util.atomic_write`), which no later run
    would otherwise ever remove. Call with the write lock held, so no running writer's file is
    taken. Only pmparse's own names are touched, in the library and its state folders.

    Returns:
        The removed files, relative to the library.

    Raises:
        UnsafePathError: ``.pmparse/`` or one of its folders is a symbolic link.
    """
    removed = []
    for rel in ["", ".pmparse", *(f".pmparse/{kind}" for kind in STATE_KINDS)]:
        folder = inside(root, rel) if rel else root
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue  # missing, or not a folder: nothing of ours there
        for name in names:
            if _TEMPORARY.match(name):
                try:
                    os.unlink(folder / name)  # a link among them is removed itself, never followed
                except OSError:
                    continue
                removed.append(f"{rel}/{name}" if rel else name)
    return removed


def pending_files(library: Library) -> list[str]:
    """Ids of the pending suggestions in the library's state, sorted, whether or not their record
    is there."""
    folder = library.state_dir / "pending"
    if not folder.is_dir():
        return []
    return sorted(p.stem for p in folder.glob("IL-*.json") if p.is_file())


def orphan_pending_ids(library: Library) -> list[str]:
    """Ids of pending suggestions whose record file is gone (a person deleted the record, or
    renamed its file), or whose id another source's record now holds (renamed by hand onto the
    id of a deleted one: :meth:`~pmparse.library.state.LibraryState.of_another_source`): they wait
    for nothing, yet ``diff`` and ``review`` reported each as a record to repair, exit 1, for good,
    or offered the other source's suggestion for the record. A writer drops them
    (:func:`drop_orphan_pending`); if the source is converted again it gets a record, and a
    suggestion where one is due, anew."""
    return [card_id for card_id in pending_files(library)
            if card_id not in library.entries or library.stray_state("pending", card_id)]


def drop_orphan_pending(library: Library) -> None:
    """Remove the pending suggestions of records that are gone; call with the write lock held."""
    for card_id in orphan_pending_ids(library):
        library.drop_state("pending", card_id)
