"""The few helpers every stage shares: an atomic file write, the digest of a text, and text made
safe for a terminal."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import tempfile
from pathlib import Path
from typing import Iterator, TypeVar

_Model = TypeVar("_Model")

#: What a terminal acts on instead of showing: C0 controls but tab and newline, DEL, C1 controls
#: (ESC starts CSI and OSC sequences that clear the screen or set the window title; CR rewrites a
#: line), and the bidirectional overrides that reorder what a line seems to say. The CLI prints
#: them escaped (:func:`shown`); ``validate`` warns about records holding them.
#: The bidirectional embedding, override and isolate controls among them (the site escapes these).
BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")
CONTROL_CHARACTERS = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{BIDI_CONTROLS.pattern[1:-1]}]")
#: :data:`CONTROL_CHARACTERS` with the line break and the tab: for a message that is one line by design.
LINE_CONTROL_CHARACTERS = re.compile(f"[\t\n{CONTROL_CHARACTERS.pattern[1:-1]}]")


#: The largest source file read back for a record (its evidence, the site's source view): a
#: record names its source by path, and a record edited by hand or shared may name any file.
SOURCE_READ_LIMIT = 128 * 1024 * 1024

#: The largest ``--max-bytes``: a record holds its source's text, escaped (a quote or a backslash
#: written as two characters), and records are read back up to 128 MiB
#: (:data:`pmparse.library.statefiles.RECORD_READ_LIMIT`). Measured on reports written for the
#: tests, a record was up to 3.8 times its source (a report on one line) and a base 3.0 times, so
#: a quarter of the read limit; a record that would still be larger is not written, its input fails.
MAX_BYTES_LIMIT = 32 * 1024 * 1024


def read_descriptor(fd: int, limit: int) -> bytes | None:
    """The bytes left in the open file ``fd``, or None when there are more than ``limit`` (never
    read further: a file that grows while it is read stays bounded).

    Raises:
        OSError: the read failed.
    """
    chunks, total = [], 0
    while total <= limit:
        chunk = os.read(fd, min(1 << 20, limit + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return None if total > limit else b"".join(chunks)


def read_regular_file(path: str | Path, limit: int = SOURCE_READ_LIMIT) -> bytes | None:
    """The bytes of ``path`` when it is a regular file of at most ``limit`` bytes, else None.

    A path a record names may be a device (``/dev/zero`` never ends), a FIFO (an open for
    reading waits for a writer for ever) or a huge file: it is opened without blocking, checked
    to be a regular file on the open descriptor (no swap between a check and the read), and read
    no further than ``limit``. Missing or unreadable files are None as well.
    """
    try:
        return read_limited(path, limit)
    except (OSError, ValueError):  # ValueError: a NUL in the path
        return None


class FileTooLarge(OSError):
    """A file larger than a reader's limit (:func:`read_limited`), never read.

    Attributes:
        size: Its size in bytes.
    """

    def __init__(self, size: int) -> None:
        super().__init__(f"a file of {size:,} bytes")
        self.size = size


def read_limited(path: str | Path, limit: int) -> bytes:
    """The bytes of the regular file ``path``, read no further than ``limit``: a file that came
    with a library from someone else (a model's weights or settings) may be of gigabytes, or a
    FIFO that would block the command for ever.

    Raises:
        FileTooLarge: larger than ``limit`` (also when it grew while read).
        OSError: missing (``FileNotFoundError``), unreadable, or not a regular file.
    """
    import stat

    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = {"p": "a FIFO", "d": "a folder", "c": "a device", "b": "a device", "s": "a socket"}
            raise OSError(f"{kind.get(stat.filemode(info.st_mode)[0], 'a special file')}, not a regular file")
        if info.st_size > limit:
            raise FileTooLarge(info.st_size)
        data = read_descriptor(fd, limit)
        if data is None:
            raise FileTooLarge(limit + 1)
        return data
    finally:
        os.close(fd)


def available_cores() -> int:
    """How many CPU cores this process may use (the default number of jobs)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def temporary_prefix(path: Path) -> str:
    """The start of a temporary file's name beside ``path``: ``.`` + its name (cut short: a name
    near the system's limit of 255 bytes must leave room for mkstemp's characters and ``.tmp``)."""
    return f".{path.name[:100]}."


@contextlib.contextmanager
def write_errors(path: Path | str, what: str) -> Iterator[None]:
    """Turn an OSError while writing ``what`` into a :class:`~pmparse.errors.WriteError` naming
    ``path`` and the system's reason (no space left on device, file name too long)."""
    from pmparse.errors import WriteError

    try:
        yield
    except OSError as exc:
        reason = exc.strerror or str(exc)
        reason = reason[:1].lower() + reason[1:]
        if exc.filename and str(exc.filename) != str(path):
            reason += f" ({exc.filename})"
        raise WriteError(f"expected to write {what}, found {reason}", str(path)) from exc


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that readers see the old file or the new one, never a part.

    The text goes to a temporary file in the same folder, is flushed to disk, then renamed over
    the target (rename is atomic within one file system).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=temporary_prefix(path), suffix=".tmp", dir=path.parent)
    try:
        # mkstemp makes the file private (0600); a record is for people to read and edit, so it
        # keeps the mode of the file it replaces, or gets what the umask gives a new file
        try:
            mode = os.stat(path).st_mode & 0o777
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def newlines(text: str) -> str:
    """``text`` with every line break a ``\\n``, as Python's text mode reads a file.

    A CRLF (Windows, or a git checkout with ``core.autocrlf``) and a lone CR (classic Mac) are
    each one ``\\n``. A source is read this way, so the same report checked out on two systems
    is one text: the same sha256, the same evidence offsets.
    """
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def text_sha256(raw: bytes) -> str:
    """sha256 of the text a UTF-8 source's bytes read as (:func:`newlines`), without decoding.

    Equal to ``sha256_text(newlines(raw.decode("utf-8")))``: in UTF-8 the byte 0x0D is only ever
    a carriage return.
    """
    if b"\r" in raw:
        raw = raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return hashlib.sha256(raw).hexdigest()


def sha256_text(text: str) -> str:
    """sha256 hex digest of ``text`` encoded as UTF-8 (lone surrogates pass, so any str has one)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def model_lines(path: Path, model: type[_Model], error: type[Exception], kind: str) -> Iterator[tuple[int, _Model]]:
    """``(line number, parsed line)`` of a JSON-lines file, each line validated as ``model``.

    Blank lines are skipped. A generator: a bad line raises when it is reached, so a caller that
    must not act on part of a bad file collects the lines first.

    Args:
        path: The file.
        model: A pydantic model class.
        error: The typed error raised, called as ``error(message, str(path))``.
        kind: What a line is, for messages ("gold document", "team label line").

    Raises:
        error: the file is unreadable or not UTF-8, or a line is not a valid ``kind``.
    """
    from pydantic import ValidationError

    try:
        content = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        # the error names the path already: the reason alone, not the path again
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise error(f"expected a readable UTF-8 file of {kind}s, found {reason}", str(path)) from exc
    for number, line in enumerate(content.splitlines(), 1):
        if not line.strip():
            continue
        try:
            parsed = model.model_validate_json(line)
        except ValidationError as exc:
            from pmparse.yaml_problems import validation_summary

            # one line: pydantic's own message spans several, with its web address
            found = validation_summary(exc).removeprefix("(file): ")
            raise error(f"line {number}: expected a {kind}, found {found}", str(path)) from exc
        yield number, parsed


def shown(text: object, one_line: bool = False) -> str:
    """``text`` as it may reach a terminal: every control character written as an escape (``\\x1b``).

    The one place terminal output is made safe: source text, titles and file names come from
    pages and folders of other people, and a page must not be able to hide or fake what the
    reviewer is accepting. Records keep the text; only what is printed is escaped.

    Args:
        text: What is printed.
        one_line: Escape line breaks and tabs too (``\\x0a``): for a message that is one line by
            design (a failure, a warning, a problem), where a file name or a record's value
            holding a line break would otherwise print a line of its own choosing.
    """
    pattern = LINE_CONTROL_CHARACTERS if one_line else CONTROL_CHARACTERS
    return pattern.sub(escape, str(text))


def escape(match: re.Match) -> str:
    """The escape :func:`shown` writes for the character ``match`` holds: ``\\x1b``, ``\\u202e``."""
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
