"""The two sides git keeps of a file it left conflicted mid-merge (``pmparse resolve``).

A conflicted file's markers hold each side's own lines only where the two sides differ; a line
only one side changed from their common ancestor is merged cleanly and stands outside the
conflicts, in both sides as :func:`pmparse.merge.conflicts.split_sides` reads them. A record both
curators replaced (one amended its source in place, the other gave its id to a new file) then
reads as two records of the one location only the second changed, the first with the second's
categories. While the merge is unfinished git's index holds each side's whole file (stages 2 and
3): what each side really holds. A file one side deleted and the other edited holds no marker:
git leaves the edited file in place, unmerged, which only its index tells (:func:`deletion_notes`).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from collections.abc import Collection
from pathlib import Path

from pmparse.card.schema import Source
from pmparse.errors import UsageError
from pmparse.library.statefiles import RECORD_READ_LIMIT
from pmparse.merge.conflicts import conflicts_of, split_sides
from pmparse.merge.journal import KINDS

#: Longest wait for one ``git cat-file`` (a blob read from a local index).
_TIMEOUT_S = 60


def sides_of(path: Path, text: str) -> tuple[str, str, bool]:
    """Ours and theirs of a conflicted file, and whether each is its side's whole file: git's
    index's stages while the merge is unfinished (:func:`git_sides`), else the sides the markers
    give (each holding every line git merged, :func:`split_sides`).

    Raises:
        UsageError: a marker where git writes none (the message names ``path``).
    """
    marked = split_sides(text, str(path))  # markers out of order are refused either way
    whole = git_sides(path, text)
    if whole is not None:
        return whole[0], whole[1], True
    return marked[0], marked[1], False


def told_by_conflicts(text: str, where: str, ours: Source, theirs: Source) -> bool:
    """Whether the source line that makes two sides read from markers one source (its sha256,
    else its location) lies in a conflict on both sides: each side's own line, not one git merged
    into both."""
    conflicts = conflicts_of(text, where) or []
    mine, other = ("".join(side) for side in zip(*conflicts)) if conflicts else ("", "")
    if ours.sha256 == theirs.sha256 and ours.sha256 in mine and theirs.sha256 in other:
        return True
    return ours.location == theirs.location and ours.location in mine and theirs.location in other


def git_sides(path: Path, text: str) -> tuple[str, str] | None:
    """Ours and theirs as git's index holds them while ``path`` is unmerged, or None: no git, no
    work tree, the merge committed or aborted, a side deleted, a side not UTF-8 or larger than a
    record may be, or ``text`` (the file now) holding a conflict side its stage does not (edited
    by hand since git wrote it: its markers are then what a person left, and read as they are).
    """
    sides = tuple(_stage(path, stage) for stage in (2, 3))
    if sides[0] is None or sides[1] is None:
        return None
    try:
        conflicts = conflicts_of(text, str(path)) or []
    except UsageError:
        return None
    if not all(mine in sides[0] and other in sides[1] for mine, other in conflicts):
        return None
    return sides[0], sides[1]


def _stage(path: Path, stage: int) -> str | None:
    """One stage of ``path`` in the index of the git work tree holding it, or None."""
    return text_at(path, f":{stage}")


def merge_revisions(folder: Path) -> tuple[str, str] | None:
    """The two sides of the merge the git work tree holding ``folder`` is in (``HEAD`` and
    ``MERGE_HEAD``, unfinished or made with ``--no-commit``) or has just committed (``HEAD^1`` and
    ``HEAD^2``: a merge without a conflict commits at once), ours first; None otherwise."""
    if _run(folder, "rev-parse", "-q", "--verify", "MERGE_HEAD") is not None:
        return "HEAD", "MERGE_HEAD"
    if _run(folder, "rev-parse", "-q", "--verify", "HEAD^2") is not None:
        return "HEAD^1", "HEAD^2"
    return None


def repo_name(path: Path) -> str | None:
    """``path`` as ``git show REV:NAME`` names it (from the top of its work tree), or None."""
    top = _run(path.parent, "rev-parse", "--show-toplevel")
    try:
        return Path(os.path.relpath(path.resolve(), top.decode("utf-8").strip())).as_posix() if top else None
    except (UnicodeDecodeError, ValueError):
        return None


def text_at(path: Path, revision: str) -> str | None:
    """``path``'s text at ``revision`` (a commit, or ``:N`` for a stage of the index) of the git
    work tree holding it, or None: no git, not there, not UTF-8, or larger than a record may be.

    Its size is asked first: a repository handed over may hold a blob of gigabytes at a stage,
    which a read would take into memory whole before any check of its length.
    """
    name = f"{revision}:./{path.name}"  # relative to the file's folder: the work tree's root need not be known
    size = _git(path, "-s", name)
    if size is None or not size.strip().isdigit() or int(size) > RECORD_READ_LIMIT:
        return None
    blob = _git(path, "blob", name)
    if blob is None or len(blob) > RECORD_READ_LIMIT:
        return None
    try:
        return blob.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _git(path: Path, *args: str) -> bytes | None:
    """The output of ``git cat-file ARGS`` in the folder of ``path``, or None when it fails."""
    return _run(path.parent, "cat-file", *args)


def _run(folder: Path, *args: str) -> bytes | None:
    """The output of ``git ARGS`` run in ``folder``, or None when it fails."""
    try:
        # no optional lock and no fsmonitor: a read of the index that starts nothing else
        done = subprocess.run(["git", "-c", "core.fsmonitor=false", *args],
                              cwd=folder, capture_output=True, timeout=_TIMEOUT_S,
                              env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"}, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None  # no git installed, a folder gone, a hung git
    return done.stdout if done.returncode == 0 else None


def removal_to_stage(root: Path, rel: str) -> str:
    """What to add to the line saying ``resolve`` removed ``rel`` (a path relative to the library
    ``root``) that git's index still holds unmerged: the file is gone, but git refuses the merge's
    commit until the removal is staged. pmparse never writes git's index (what is staged is the
    curator's), so the line names the command. Empty when git does not list it (no git, no merge
    in progress, a file git merged cleanly).
    """
    listed = _run(root, "ls-files", "-u", "-z", "--", rel)
    if not listed:
        return ""
    return (f"; git still lists it as unmerged: run 'git rm -q -- {shlex.quote(str(root / rel))}' (or 'git add -A') "
            "before committing the merge")


#: A record file, or a state file of one record, relative to the library: what a deletion names.
_RECORD_OR_STATE = re.compile(rf"(?:\.pmparse/(?:{'|'.join(KINDS)})/(IL-[0-9]{{4}})\.json"
                              r"|(IL-[0-9]{4})\.(?:yaml|yml|json))")


def deletion_notes(root: Path, skip: Collection[str] = ()) -> list[str]:
    """A line for each record (but the ids of ``skip``, named otherwise) whose record or state
    files git's index holds unmerged with one side deleted (one curator removed the record, the
    other edited it): git left the edited files in place without a marker, so nothing else here
    tells the merge is unfinished on them; which stands is a person's choice. Empty without git
    or a merge in progress."""
    listed = _run(root, "ls-files", "-u", "-z", "--", ".")
    stages: dict[str, set[str]] = {}
    for entry in (listed or b"").decode("utf-8", "replace").split("\0"):
        info, _, rel = entry.partition("\t")
        if rel and len(info.split()) == 3:
            stages.setdefault(rel, set()).add(info.split()[2])
    by_id: dict[str, tuple[str, list[str]]] = {}
    for rel, held in sorted(stages.items()):
        match = _RECORD_OR_STATE.fullmatch(rel)
        deleted = "ours" if "2" not in held else "theirs" if "3" not in held else None
        card_id = match and (match.group(1) or match.group(2))
        if card_id is None or card_id in skip or deleted is None or not (root / rel).is_file():
            continue
        by_id.setdefault(card_id, (deleted, []))[1].append(rel)
    notes = []
    for card_id, (deleted, rels) in sorted(by_id.items()):
        rels.sort(key=lambda rel: (rel.startswith("."), rel))  # the record first
        paths = " ".join(shlex.quote(str(root / rel)) for rel in rels)
        notes.append(f"{card_id}: deleted on one side ({deleted}) and edited on the other, whose files git left in "
                     f"place ({', '.join(rels)}): keep the edit ('git add -- {paths}') or the deletion "
                     f"('git rm -- {paths}')")
    return notes
