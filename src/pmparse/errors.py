"""Typed errors raised by the pmparse library.

Every error says what was expected and what was found, and names the file when there is one.
The CLI maps them to exit codes (see :mod:`pmparse.cli`).
"""

from __future__ import annotations


class PmparseError(Exception):
    """Base class of every error pmparse raises on purpose.

    Args:
        message: What was expected and what was found.
        path: The file or record concerned, when there is one.
    """

    def __init__(self, message: str, path: str | None = None) -> None:
        self.message = message
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)


class InputError(PmparseError):
    """An input file cannot be turned into text."""

    kind = "input"


class EmptyInputError(InputError):
    """The input holds no text."""

    kind = "empty"


class BinaryInputError(InputError):
    """The input looks like binary data (NUL bytes)."""

    kind = "binary"


class DecodeInputError(InputError):
    """The input is not valid UTF-8."""

    kind = "encoding"


class TooLargeInputError(InputError):
    """The input is larger than the configured limit."""

    kind = "too-large"


class MalformedInputError(InputError):
    """The input's markup cannot be parsed into text."""

    kind = "malformed"


class UnreadableInputError(InputError):
    """The input cannot be read (missing, a directory, no permission, broken link)."""

    kind = "unreadable"


class FetchInputError(InputError):
    """A URL cannot be downloaded (no connection, a timeout, an HTTP error status, a redirect loop)."""

    kind = "fetch"


class UnsupportedInputError(InputError):
    """The input is of a kind pmparse does not read (a content type that is not text, HTML or PDF)."""

    kind = "unsupported"


class PdfInputError(InputError):
    """A PDF holds no text pmparse can read (scanned pages, encrypted, truncated)."""

    kind = "pdf"


class RulesError(PmparseError):
    """A rules resource (headings, taxonomy, patterns) is invalid."""


class RecordError(PmparseError):
    """A record file is invalid or cannot be written."""


class ModelError(PmparseError):
    """A trained model is missing, corrupt or of the wrong version."""


class GoldError(PmparseError):
    """A gold annotation file is invalid or does not match its source."""


class LabelError(PmparseError):
    """A team label file (``corpus/category_labels/*.jsonl``, ``corpus/component_labels/*.jsonl``) has a
    line that is not a valid label."""


class WriteError(PmparseError):
    """A file pmparse writes cannot be written: the disk is full, the name is too long, no
    permission. The command ends with one line saying so and exit code 1."""


class UsageError(PmparseError):
    """The caller asked for something impossible (bad option combination, missing folder)."""


class UnsafePathError(PmparseError):
    """A path pmparse would write or delete leads outside its folder (``..``, an absolute name, or a
    symbolic link on the way), as a site or library from an untrusted source may hold."""


class StateFileError(PmparseError):
    """A library's state file (``.pmparse/``) or a site's manifest is larger than pmparse ever
    writes one: a library or site from someone else. The command stops, naming the file."""
