"""State files written only when their data changes: a library shared through git gets no
changed file from a run that has nothing new (docs/record-format.md, "Sharing a library through
git")."""

from __future__ import annotations

import json
from pathlib import Path

from pmparse.util import atomic_write


def file_key(path: Path) -> list[int] | None:
    """What tells that a file changed: replacing, editing or re-permissioning it changes one of these."""
    try:
        st = path.stat()
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino]


def write_unless_held(path: Path, text: str) -> str:
    """Write a JSON state file, unless it already holds the same data in another key order.

    The first convert after a review wrote each reviewed record's base again with the same data,
    its keys in another order: a changed file in every clone that ran it, and a conflict at the
    next pull.

    Returns:
        The text the file now holds.
    """
    held = regular_text(path)
    if held is not None and held != text:
        try:
            if json.loads(held) == json.loads(text):
                return held
        except ValueError:
            pass
    atomic_write(path, text)
    return text


def regular_text(path: Path) -> str | None:
    """The text of a regular file, or None (missing, a link, unreadable)."""
    try:
        if path.is_symlink() or not path.is_file():
            return None
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
