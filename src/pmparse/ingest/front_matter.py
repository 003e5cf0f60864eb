"""Front matter that is not YAML: TOML between ``+++`` lines (Zola, Hugo) and a JSON object (Hugo).

YAML front matter (``---``) is read by :func:`pmparse.ingest.read.parse_front_matter`, which calls
:func:`parse_other` when a text does not open with ``---``. Only top-level values are read: scalars
as strings, and lists of scalars (authors, tags) joined with ", ".
"""

from __future__ import annotations

import datetime as _dt
import json
import re
import sys

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

_TOML_OPEN = re.compile(r"\A(?:\ufeff)?\+\+\+[ \t]*\r?\n")
_TOML_CLOSE = re.compile(r"^\+\+\+[ \t]*\r?$", re.MULTILINE)
_JSON_OPEN = re.compile(r"\A(?:\ufeff)?\{[ \t]*\r?\n")
#: A line no TOML block holds: not indented, no comment, table, quoted key, string or closing bracket
#: (nor the closing '+++'), and no '=' within 200 characters (a key); prose has one (bounded per line).
_NOT_TOML_LINE = re.compile(r"^(?![ \t#\[\]}\"'+\r\n])(?![^\n=]{0,200}=)", re.MULTILINE)


#: Most digits of an integer written as a value: Python refuses to write one of over 4,300 as text
#: (a ValueError that failed the whole file), and no date, count or name needs more.
MAX_DIGITS = 100


def scalar(value: object) -> str | None:
    """A front matter value as a string: scalars, and lists of scalars joined; None for the rest
    (an integer of more than :data:`MAX_DIGITS` digits among them)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (str, int, float, _dt.date, _dt.datetime, _dt.time)):
        if too_long(value):
            return None
        text = text_of(value).strip()
        return text[:500] or None
    if isinstance(value, list) and value and all(isinstance(v, (str, int, float)) and not isinstance(v, bool)
                                                 for v in value):
        text = ", ".join(text_of(v).strip() for v in value if not too_long(v) and text_of(v).strip())
        return text[:500] or None
    return None


def text_of(value: object) -> str:
    """``str(value)`` with escaped UTF-16 surrogates made whole: a pair (``"\\ud83d\\ude80"``, which
    YAML decodes one escape at a time) becomes its character and a lone one U+FFFD.

    A lone surrogate cannot be written as UTF-8: a title holding one failed the card's validation,
    and the file as 'internal'.
    """
    text = str(value)
    if not _SURROGATE.search(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


_SURROGATE = re.compile("[\ud800-\udfff]")


def too_long(value: object) -> bool:
    """Whether ``value`` is an integer of more than :data:`MAX_DIGITS` decimal digits (told from its
    bits, since writing it out is what fails)."""
    return isinstance(value, int) and value.bit_length() > MAX_DIGITS * 3.33


def _values(data: dict) -> dict[str, str]:
    values: dict[str, str] = {}
    for key, value in data.items():
        text = scalar(value)
        if text is not None:
            values[text_of(key).lower()] = text
    # Zola keeps tags under [taxonomies] and authors under [extra]: one level down, when the top lacks them
    for table in ("taxonomies", "extra", "params"):
        nested = data.get(table)
        if isinstance(nested, dict):
            for key, value in nested.items():
                text = scalar(value)
                if text is not None:
                    values.setdefault(text_of(key).lower(), text)
    return values


def _block_end(text: str, end: int) -> int:
    if text[end:end + 2] == "\r\n":
        return end + 2
    return end + 1 if text[end:end + 1] == "\n" else end


def parse_other(text: str, limit: int) -> tuple[dict[str, str], tuple[int, int] | None, str | None]:
    """TOML (``+++``) or JSON front matter at the start of ``text``, read as
    :func:`pmparse.ingest.read.parse_front_matter` reads YAML: ``(values, region, warning)``.

    Args:
        text: The source text.
        limit: Largest block read, in characters.
    """
    opening = _TOML_OPEN.match(text)
    if opening:
        closing = _TOML_CLOSE.search(text, opening.end(), opening.end() + limit)
        if not closing:
            # a block closed past the limit is masked unread when it holds no line of prose: a block
            # left open before a long report with a '+++' line in it is text, as YAML's is
            values, region, warning = oversized(text, _TOML_CLOSE, opening.end(), limit)
            if region is None or _NOT_TOML_LINE.search(text, opening.end(), region[1] - 1) is not None:
                return {}, None, None
            return values, region, warning
        region = (0, _block_end(text, closing.end()))
        try:
            data = tomllib.loads(text[opening.end():closing.start()])
        except RecursionError:
            return {}, region, DEEP
        except ValueError as exc:  # TOMLDecodeError, or an integer of over 4,300 digits
            return {}, region, f"front matter is not valid TOML ({exc}); ignored"
        return _values(data), region, None
    if _JSON_OPEN.match(text):
        start = text.index("{")
        try:
            data, end = _JSON.raw_decode(text[:limit], start)
        except RecursionError:
            # the reader gave up before the block's end: the end is found without it (a hostile
            # case only, so the whole text may be scanned: about 0.06 s a megabyte)
            end = _json_end(text, start, len(text))
            if end is None:
                return {}, None, None
            end = _block_end(text, end)
            return {}, (0, end), DEEP if end <= limit else _too_large(end, limit)
        except json.JSONDecodeError:
            # a text that opens with a brace need not be front matter; one that is, past the limit,
            # is masked unread as YAML's and TOML's are (the reader is linear, in C)
            return _json_past_limit(text, start, limit) if len(text) > limit else ({}, None, None)
        if not isinstance(data, dict):
            return {}, None, None
        return _values(data), (0, _block_end(text, end)), None
    return {}, None, None


def _json_past_limit(text: str, start: int, limit: int) -> tuple[dict[str, str], tuple[int, int] | None, str | None]:
    """A JSON object at ``start`` that ends past ``limit`` characters: masked with a warning."""
    try:
        data, end = _JSON.raw_decode(text, start)
    except RecursionError:
        found = _json_end(text, start, len(text))
        if found is None:
            return {}, None, None
        data, end = {}, found
    except json.JSONDecodeError:
        return {}, None, None
    if not isinstance(data, dict):
        return {}, None, None
    end = _block_end(text, end)
    return {}, (0, end), _too_large(end, limit)


def _too_large(end: int, limit: int) -> str:
    return (f"front matter runs to {end:,} characters, more than {limit:,} characters pmparse reads: "
            "ignored, and masked from the text")


def oversized(text: str, closing: re.Pattern, start: int, limit: int) -> tuple[dict[str, str], tuple[int, int] | None,
                                                                           str | None]:
    """A block that ``closing`` closes only past ``limit`` characters: masked unread, with a warning.

    A 100 kB title or a 12 MB block was read as the report's prose (its keys as sentences), and
    YAML's was said never to be closed. The closing line is looked for with one linear search.

    Returns:
        ``({}, region, warning)``, or ``({}, None, None)`` when no line closes the block.
    """
    found = closing.search(text, start)
    if found is None:
        return {}, None, None
    end = _block_end(text, found.end())
    return {}, (0, end), _too_large(end, limit)


#: The warning for a block nested past what its reader recurses through (YAML's says the same).
DEEP = "front matter is nested too deeply to read; ignored"


def _json_int(digits: str) -> int | None:
    # an integer of over 4,300 digits made int() raise a ValueError that failed the whole file
    return int(digits) if len(digits) <= MAX_DIGITS else None


_JSON = json.JSONDecoder(parse_int=_json_int)


def _json_end(text: str, start: int, limit: int) -> int | None:
    """Offset just past the JSON value opening at ``start`` (brackets counted outside strings),
    within ``limit`` characters; None when it does not close there."""
    depth, in_string, escaped = 0, False, False
    for index in range(start, min(len(text), limit)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
            if depth == 0:
                return index + 1
    return None
