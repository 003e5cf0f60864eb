"""The library's own files as pmparse reads and writes them: state files written only when their
data changes (a library shared through git gets no changed file from a run that has nothing new:
docs/record-format.md, "Sharing a library through git"), and state and record files read bounded
(a library from someone else may hold a file of gigabytes)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from pmparse.errors import RecordError, StateFileError
from pmparse.util import atomic_write, read_descriptor


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
    state_fits(path, text)
    held = regular_text(path)
    if held is not None and held != text:
        try:
            if json.loads(held) == json.loads(text):
                return held
        except ValueError:
            pass
    atomic_write(path, text)
    return text


#: The largest state file read (a base, a pending suggestion, a rejection memory, the index, a
#: site's manifest). pmparse's own are at most a card whose text came from a source of
#: ``--max-bytes`` (20 MiB by default), escaped as JSON: a library from someone else may hold
#: a state file of gigabytes, which was read whole.
STATE_READ_LIMIT = 128 * 1024 * 1024


def state_fits(path: Path, text: str, why: str = "a source too large for one record") -> str:
    """``text`` when written to the state file ``path`` it stays within :data:`STATE_READ_LIMIT`.

    Called before a record is written whose state file follows it (a base): a state refused
    after its record was written left the two disagreeing.

    Raises:
        RecordError: the file would be larger (named, with its size; nothing is written).
    """
    return writable(path, text, STATE_READ_LIMIT, "state file", why)


def regular_text(path: Path, limit: int = STATE_READ_LIMIT) -> str | None:
    """The text of a regular file, or None (missing, a link, not a regular file, unreadable, not UTF-8).

    Raises:
        StateFileError: the file is larger than ``limit`` bytes (named, with its size); it is
            never read past the limit.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    except (OSError, ValueError):
        return None  # missing, a link (O_NOFOLLOW), a NUL in the name
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None  # a FIFO waits for a writer for ever, a device never ends
        if info.st_size > limit:
            raise _too_large(path, info.st_size, limit)
        data = read_descriptor(fd, limit)
        if data is None:
            raise _too_large(path, os.fstat(fd).st_size, limit)  # it grew while read
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    finally:
        os.close(fd)


def _too_large(path: Path, size: int, limit: int) -> StateFileError:
    return StateFileError(f"expected a state file of at most {limit // (1 << 20)} MiB (pmparse writes none larger), "
                          f"found {size:,} bytes (a library or site from someone else? remove the file)", str(path))


#: The largest record file read: pmparse's own hold at most a source's text of ``--max-bytes``
#: (20 MiB by default) with its items; a record of gigabytes from someone else was read whole.
RECORD_READ_LIMIT = 128 * 1024 * 1024


class RecordTooLarge(OSError):
    """A record file larger than :data:`RECORD_READ_LIMIT` (an ``OSError``: a file that cannot be
    read, as every reader of records already handles one)."""

    def __str__(self) -> str:
        return str(self.args[0])


def read_record_text(path: Path, newline: str | None = None) -> str:
    """A record file's text, read as :meth:`Path.read_text` does (``newline=""``: line endings kept).

    Raises:
        RecordTooLarge: larger than :data:`RECORD_READ_LIMIT`, never read.
        OSError, UnicodeDecodeError: unreadable, not UTF-8.
    """
    with open(path, encoding="utf-8", newline=newline) as handle:
        size = os.fstat(handle.fileno()).st_size
        text = None
        if size <= RECORD_READ_LIMIT:
            # asked for the limit at once, Python reserves a buffer of the limit (128 MiB) for every
            # read; a file has no more characters than bytes, so one over its size says it grew
            text = handle.read(size + 1)
            if len(text) > size:
                text += handle.read(RECORD_READ_LIMIT + 1 - len(text))
        if text is None or len(text) > RECORD_READ_LIMIT:
            raise RecordTooLarge(f"a file of {size:,} bytes, larger than the {RECORD_READ_LIMIT >> 20} MiB "
                                 "a record may be")
        return text


def writable(path: Path, text: str, limit: int | None = None, kind: str = "record",
             why: str = "a source too large for one record") -> str:
    """``text`` when written to ``path`` it stays within what pmparse reads back.

    A record holds its source's text (an HTML page's or PDF's extracted text twice: whole and in
    its items), escaped: a huge source could give a record every later command refuses.

    Args:
        limit: The largest file read back (default :data:`RECORD_READ_LIMIT`).
        kind: What the file is, as the message names it.
        why: What makes it that large, as the message says.

    Raises:
        RecordError: the file would be larger than ``limit`` (nothing is written).
    """
    limit = RECORD_READ_LIMIT if limit is None else limit
    # a character is 1 to 4 bytes: encoded only when it may be over
    size = len(text.encode("utf-8")) if len(text) * 4 > limit else len(text)
    if size > limit:
        raise RecordError(f"expected a {kind} of at most {limit:,} bytes (the most pmparse reads back), "
                          f"found {size:,} bytes: {why}", str(path))
    return text
