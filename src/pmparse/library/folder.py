"""Which folder is a library: the check every command that reads one makes, the folder
``convert`` may create or write a new library into, and the records whose source file left it."""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path
from typing import Callable

from pmparse.errors import PmparseError, UsageError
from pmparse.library.lock import GITIGNORE, write_lock
from pmparse.library.statefiles import regular_text
from pmparse.locations import is_url, split_location

#: A record file's name: its id and format.
RECORD_FILE = re.compile(r"^IL-([0-9]{4})\.(yaml|yml|json)\Z")

#: The error of a record file holding another id than its name, as Library.read words it.
_ID_MISMATCH = re.compile(r"id: expected \S+ \(the file name\), found IL-([0-9]{4})")


def record_files_by_id(root: Path) -> dict[str, list[Path]]:
    """The record files of each id in the library at ``root``, sorted by name: the library reads
    the last (:meth:`pmparse.library.store.Library.scan`), another hides behind it."""
    found: dict[str, list[Path]] = {}
    for path in sorted(root.iterdir()):
        match = RECORD_FILE.match(path.name)
        if match and path.is_file():
            found.setdefault(f"IL-{match.group(1)}", []).append(path)
    return found


def held_number(error: str | None) -> int:
    """The number of the id inside a record file whose ``error`` says it is not the file's name,
    else 0. A record renamed by hand to a free lower number is read as invalid under its name,
    but the id inside is still its own: were it given to a new source, a second record would hold
    it and ``convert`` would drop the renamed record's draft decisions, pending suggestion and
    rejection memory as a deleted record's (:meth:`pmparse.library.store.Library.next_id`)."""
    held = _ID_MISMATCH.fullmatch(error or "")
    return int(held.group(1)) if held else 0


def looks_like_library(root: Path) -> bool:
    """True when ``root`` is a folder pmparse wrote to: it has ``.pmparse/`` or a record file."""
    if not root.is_dir():
        return False
    if (root / ".pmparse").is_dir():
        return True
    return any(RECORD_FILE.match(path.name) for path in root.iterdir())


def library_root(path: str | Path) -> Path:
    """``path`` as a library folder, for the commands that read one (validate, diff, review,
    site, export, train --library): one message for a mistyped path, saying what a library is
    and what was found instead.

    Raises:
        UsageError: ``path`` is missing, a file, or a folder pmparse never wrote to.
    """
    root = Path(path)
    if looks_like_library(root):
        return root
    found = ("nothing at that path" if not root.exists() else "a file" if not root.is_dir()
             else "a folder with neither (pmparse convert ... -o FOLDER makes one)")
    raise UsageError(f"expected a library folder (records IL-0001.yaml ... or .pmparse/), found {found}", str(root))


def check_new_library_folder(path: Path) -> None:
    """Refuse an existing folder that holds files and is no library (``-o docs`` or ``-o .`` by
    mistake): records and ``.pmparse/`` would be written among someone's files. Hidden files (a
    fresh git repository) do not count; a curator adopts a folder by creating ``.pmparse/`` in it.

    Raises:
        UsageError: ``path`` is such a folder.
    """
    if not path.is_dir() or looks_like_library(path):
        return
    others = sorted(p.name for p in path.iterdir() if not p.name.startswith("."))
    if others:
        shown = ", ".join(others[:3]) + (" ..." if len(others) > 3 else "")
        raise UsageError("expected a library folder (records IL-0001.yaml ... or .pmparse/), a new or an empty "
                         f"folder, found one holding other files ({shown}); give -o another folder, or create "
                         f"{path / '.pmparse'} to keep records beside them", str(path))


def remove_if_unused(path: Path) -> None:
    """Remove a library folder this batch created and wrote no record to (every input failed or
    was skipped: a mistyped path), so no empty library is left behind.

    Only the batch's own bookkeeping is deleted (``.pmparse/lock``, ``.pmparse/index.json``, the
    ``.pmparse/.gitignore`` the lock wrote, as it wrote it), and
    folders only with ``rmdir``, which refuses one that is not empty: a file anyone else put there
    in the meantime stops the removal instead of being lost."""
    if not path.is_dir():
        return
    try:
        # the lock again, held from the check to the last rmdir: a convert started beside this one
        # may hold it already (its lock file is not unlinked under it), and none starts midway
        with write_lock(path):
            if any(RECORD_FILE.match(p.name) for p in path.iterdir()):
                return
            state = path / ".pmparse"
            entries = list(state.iterdir()) if state.is_dir() else []
            if any(p.name not in ("lock", "index.json") and not _our_gitignore(p)
                   and not (p.is_dir() and not any(p.iterdir())) for p in entries):
                return  # a suggestion or memory of some record: not this batch's to remove
            if any(p.name != ".pmparse" for p in path.iterdir()):
                return
            for entry in entries:
                if entry.is_dir() and not entry.is_symlink():
                    entry.rmdir()
                else:
                    entry.unlink()
            if state.is_dir():
                state.rmdir()
            path.rmdir()
    except (OSError, PmparseError):
        pass  # best effort (another process holds the lock): a folder left behind is harmless


def _our_gitignore(path: Path) -> bool:
    """Whether ``path`` is the ``.pmparse/.gitignore`` :func:`write_lock` wrote, unchanged."""
    return path.name == ".gitignore" and regular_text(path) == GITIGNORE


def gone_sources(by_location: dict[str, str], folders: set[str], read: dict[str, set[str]] | None = None,
                 namesakes: set[str] | frozenset[str] = frozenset(),
                 patterns: set[str] | frozenset[str] = frozenset(),
                 path_of: Callable[[str], str] = lambda path: path) -> list[tuple[str, str]]:
    """``(record id, location)`` of each record read from a file under one of ``folders``
    (absolute) that is no longer there, the oldest record first; ``by_location`` is the library's
    record id of each source location (:attr:`pmparse.library.store.Library.by_location`).

    A file deleted, or renamed and edited in one go and not paired with its record
    (:mod:`pmparse.batch.renamed`: then it gets a new one), left its record behind without a word: a curator saw only
    ``1 converted`` and, in the site, two cards of one incident. Only folders named as inputs are
    looked in, so converting one file says nothing about the rest of the library.

    ``read`` gives, for each file of many incidents read this run, the locations it gave (its
    entries', or the file's own when it now reads as one incident): an entry record of that file
    at another location is gone too (the entry removed, or its heading reworded: a new key and
    a new record).

    ``namesakes`` are records a file of this run may be read as from another folder (a relative
    name not found from here): they are not gone, and the warning that names them says which
    record to keep (saying both asked the curator to delete the reviewed record and the new one).

    ``patterns`` are the globs named as inputs (absolute): a file one of them would have found, or
    one under a folder it would have found, is looked for as under a folder named (a curator who
    converts ``posts/*.md`` each time was never told of a deleted post).

    ``path_of`` gives the file a location names (a relative one read from the library's anchor:
    :meth:`pmparse.library.places.SourcePlaces.path`).
    """
    roots = [folder.rstrip(os.sep) + os.sep for folder in folders]
    read = read or {}
    out = []
    for location, card_id in sorted(by_location.items(), key=lambda item: (item[1], item[0])):
        path, key = split_location(location)
        if location == "-" or is_url(path) or not path or card_id in namesakes:
            continue
        file = path_of(path)
        where = os.path.abspath(file)
        if (any(where.startswith(root) for root in roots) or any(glob_covers(p, where) for p in patterns)) and (
                not os.path.lexists(file) or (key is not None and path in read and location not in read[path])):
            out.append((card_id, location))
    return out


def glob_named(item: str) -> set[str]:
    """``{item}`` made absolute when the input ``item`` is a glob (a wildcard, and nothing at that
    path: ``convert`` expands it), else an empty set."""
    if item == "-" or is_url(item) or os.path.lexists(item) or not re.search(r"[*?[]", item):
        return set()
    # a glob ending in a separator finds folders only: abspath would drop the separator that says so
    folders_only = item.endswith(os.sep) or bool(os.path.altsep and item.endswith(os.path.altsep))
    return {os.path.abspath(item) + (os.sep if folders_only else "")}


def glob_covers(pattern: str, path: str) -> bool:
    """Whether the glob ``pattern`` (absolute, ``**`` recursive, as ``convert`` expands it) finds
    ``path`` (absolute), or a folder above it (a folder found is converted whole). Tested on the
    names alone: the file may be gone. As :func:`glob.glob`, a wildcard finds no name starting
    with a dot, names compare as the system compares them (whatever their case on Windows), and a
    pattern ending in a separator finds folders only; as the walk of a folder found, no hidden
    name below that folder is converted."""
    parts = os.path.normcase(path).split(os.sep)
    wanted = os.path.normcase(pattern).split(os.sep)
    folders_only = len(wanted) > 1 and wanted[-1] == ""
    if folders_only:
        wanted = wanted[:-1]
    return any(_names_match(wanted, parts[:k]) and not any(name.startswith(".") for name in parts[k:])
               for k in range(1, len(parts) if folders_only else len(parts) + 1))


def _names_match(pattern: list[str], names: list[str]) -> bool:
    if not pattern:
        return not names
    if pattern[0] == "**":
        # zero or more folders, none hidden
        return any(_names_match(pattern[1:], names[k:]) for k in range(len(names) + 1)
                   if not any(name.startswith(".") for name in names[:k]))
    if not names or (names[0].startswith(".") and not pattern[0].startswith(".")):
        return False
    return fnmatch.fnmatchcase(names[0], pattern[0]) and _names_match(pattern[1:], names[1:])
