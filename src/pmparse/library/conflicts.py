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
gives a side that is no valid record is refused by the caller (:mod:`pmparse.library.resolve`).
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


def _lines(text: str) -> list[str]:
    """``text``'s lines as git reads them, each with its line break: split at ``\n`` only (a
    value's U+2028 or form feed is no line break to git)."""
    return re.findall(r"[^\n]*\n|[^\n]+\Z", text)


def holds_conflict(text: str) -> bool:
    """Whether ``text`` holds a line that opens a conflict (``<<<<<<<`` at a line's start)."""
    return any(marker_kind(line) == "<" for line in _lines(text))


def split_sides(text: str, where: str) -> tuple[str, str] | None:
    """The text of each side of a file git left mid-merge: ``(ours, theirs)``, each line with its
    own line break (CRLF stays CRLF); None when ``text`` holds no conflict.

    Raises:
        UsageError: a marker where git writes none (the message names ``where`` and the line).
    """
    if not holds_conflict(text):
        return None
    lines = _lines(text)
    ours: list[str] = []
    theirs: list[str] = []
    state, opened = _OUTSIDE, 0
    for number, line in enumerate(lines, start=1):
        kind = marker_kind(line)
        if kind is None:
            if state in (_OUTSIDE, _OURS):
                ours.append(line)
            if state in (_OUTSIDE, _THEIRS):
                theirs.append(line)
            continue  # the ancestor's lines are neither side's
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
    if state != _OUTSIDE:
        raise UsageError(f"expected the conflict opened at line {opened} to end with '>>>>>>>', found the end "
                         "of the file; settle this file by hand", where)
    return "".join(ours), "".join(theirs)
