"""Source locations as records store them: a path or URL, and ``#entry-KEY`` for one incident of a
file that holds many. Every stage reads them, so they belong to none."""

from __future__ import annotations

import re
from urllib.parse import SplitResult, urlsplit

#: What separates a file's location from the key of one of its entries (a file of many incidents).
ENTRY_MARK = "#entry-"
_ENTRY_KEY = re.compile(r"\d{4}-\d{2}-\d{2}-[0-9a-f]{8}(?:-\d+)?")


def entry_location(location: str, key: str) -> str:
    """The location of one entry of a many-incident file: ``path#entry-KEY`` (a URL fragment for a URL)."""
    return f"{location}{ENTRY_MARK}{key}"


def split_location(location: str) -> tuple[str, str | None]:
    """``(file location, entry key)`` of a location; the key is None for a whole file (a ``#`` in a
    file name that is not followed by an entry key stays part of the name)."""
    head, mark, key = location.rpartition(ENTRY_MARK)
    if mark and _ENTRY_KEY.fullmatch(key):
        return head, key
    return location, None

def is_url(location: str) -> bool:
    """True when ``location`` is an http(s) address rather than a path (a scheme is case-insensitive:
    ``HTTP://`` is an address too)."""
    return location[:8].lower().startswith(("http://", "https://"))


def url_parts(location: str) -> SplitResult | None:
    """The parts of an http(s) address; None for a path, or for an address that does not parse (a
    bracketed host that is no IPv6 address, ``https://[::1/x``, or a port out of range), which
    ``urlsplit`` answers with a ValueError wherever it is read."""
    if not is_url(location):
        return None
    try:
        parts = urlsplit(location)
        parts.port  # noqa: B018 - read for its check: a port out of range raises here
    except ValueError:
        return None
    return parts
