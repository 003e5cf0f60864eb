"""The two sides of a file git left with conflict markers (``pmparse resolve``).

git writes a conflict as ``<<<<<<< ours``, the first side's lines, ``=======``, the other side's
lines and ``>>>>>>> theirs``; the ``diff3`` and ``zdiff3`` styles put ``||||||| base`` and the
common ancestor's lines before ``=======``. Lines outside the conflicts are both sides'.

A marker is a line that *starts* with seven ``<``, ``|``, ``=`` or ``>`` (then a space and a label,
or nothing; ``=======`` alone): an indented one is a value's text. Every line of a block scalar in
a record is indented (YAML requires it under a key; pmparse also indents a quoted value's folded
lines), so a marker-looking line at the start of a line is taken for git's. One where git would
not write a marker (a second ``=======``, a ``>>>>>>>`` outside a conflict, a conflict never
closed) cannot be told apart from a person's text and is refused; a split that looks right but
gives a side that is no valid record is refused by the caller (:mod:`pmparse.merge.resolve`).
"""

from __future__ import annotations

import re

from pmparse.errors import UsageError

#: A marker line without its line break: its kind is its first character.
_MARKER = re.compile(r"(?:<{7}|\|{7}|>{7})(?: .*)?|={7}", re.S)

_NAMES = {"<": "'<<<<<<<' (a conflict's start)", "|": "'|||||||' (the common ancestor's lines)",
          "=": "'=======' (between the two sides)", ">": "'>>>>>>>' (a conflict's end)"}

# what each marker may follow: the state it is read in, and the state it leads to
_OUTSIDE, _OURS, _BASE, _THEIRS = range(4)
_NEXT = {(_OUTSIDE, "<"): _OURS, (_OURS, "|"): _BASE, (_OURS, "="): _THEIRS, (_BASE, "="): _THEIRS,
         (_THEIRS, ">"): _OUTSIDE}


def marker_kind(line: str) -> str | None:
    """``<``, ``|``, ``=`` or ``>`` when ``line`` (with or without its line break) is a conflict
    marker, else None."""
    bare = line.rstrip("\n")
    bare = bare[:-1] if bare.endswith("\r") else bare
    return bare[0] if _MARKER.fullmatch(bare) else None


#: A marker line in a whole text, as :func:`marker_kind` reads a line: git splits lines at ``\n``
#: only (a value's U+2028 or form feed is no line break to git), and one ``\r`` before it is the
#: line break's (CRLF).
_MARKER_LINE = re.compile(r"^(?:(?:<{7}|\|{7}|>{7})(?: [^\n]*)?|={7})\r?$", re.M)


def holds_conflict(text: str) -> bool:
    """Whether ``text`` holds a line that opens a conflict (``<<<<<<<`` at a line's start)."""
    return any(match.group()[0] == "<" for match in _MARKER_LINE.finditer(text))


def split_sides(text: str, where: str) -> tuple[str, str] | None:
    """The text of each side of a file git left mid-merge: ``(ours, theirs)``, each line with its
    own line break (CRLF stays CRLF); None when ``text`` holds no conflict.

    A side read so holds every line outside the conflicts, which in a three-way merge may be a
    line only the *other* side changed (git took it cleanly): it is the merge's text with that
    side's conflicts, not always the side's file (:mod:`pmparse.merge.git_sides`).

    Raises:
        UsageError: a marker where git writes none (the message names ``where`` and the line).
    """
    runs = _runs(text, where)
    if runs is None:
        return None
    # the ancestor's lines are neither side's
    ours = "".join(run for state, run in runs if state in (_OUTSIDE, _OURS))
    theirs = "".join(run for state, run in runs if state in (_OUTSIDE, _THEIRS))
    return ours, theirs


def conflicts_of(text: str, where: str) -> list[tuple[str, str]] | None:
    """Each conflict of a file git left mid-merge as ``(ours' lines, theirs' lines)``, in order;
    None when ``text`` holds no conflict.

    Raises:
        UsageError: a marker where git writes none, as :func:`split_sides`.
    """
    runs = _runs(text, where)
    if runs is None:
        return None
    found: list[tuple[str, str]] = []
    for state, run in runs:
        if state == _OURS:
            found.append((run, ""))
        elif state == _THEIRS:
            found[-1] = (found[-1][0], run)
    return found


def _runs(text: str, where: str) -> list[tuple[int, str]] | None:
    """The runs of lines between markers, each with the state it is read in, as slices of the
    text: a list of every line held a string each (a record of 128 MiB of short lines took
    4.7 GB). None when ``text`` holds no conflict."""
    if not holds_conflict(text):
        return None
    runs: list[tuple[int, str]] = []
    state, opened = _OUTSIDE, 0
    at, number, counted = 0, 1, 0  # where the current run starts; the line number of ``counted``
    for match in _MARKER_LINE.finditer(text):
        runs.append((state, text[at:match.start()]))
        number += text.count("\n", counted, match.start())
        counted = match.start()
        kind = match.group()[0]
        following = _NEXT.get((state, kind))
        if following is None:
            where_now = ("outside a conflict" if state == _OUTSIDE
                         else f"inside the conflict opened at line {opened}")
            raise UsageError(f"expected git's conflict markers in the order '<<<<<<<', ['|||||||'], '=======', "
                             f"'>>>>>>>', found {_NAMES[kind]} at line {number} {where_now}; settle this "
                             "file by hand", where)
        if kind == "<":
            opened = number
        state = following
        at = match.end() + 1 if text.startswith("\n", match.end()) else match.end()
    if state != _OUTSIDE:
        raise UsageError(f"expected the conflict opened at line {opened} to end with '>>>>>>>', found the end "
                         "of the file; settle this file by hand", where)
    runs.append((_OUTSIDE, text[at:]))
    return runs
