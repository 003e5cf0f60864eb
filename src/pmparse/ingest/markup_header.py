"""The metadata reStructuredText and AsciiDoc write in their own syntax, read as front matter.

A ``.rst`` file states its date and authors in a field list at the top (docutils' bibliographic
fields after the title, Pelican's ``:date:`` and ``:tags:``, Sphinx's file-wide fields before it);
an ``.adoc`` file in its header: the ``= Title`` line, an author line, a revision line
(``v1.0, 2024-03-02``) and ``:name: value`` attribute entries, up to the first blank line.
:func:`parse_markup_header` reads either into the values YAML front matter gives (``title``,
``date``, ``author``, ``organization`` ...) with the region the header occupies, ``(0, end)``, so
evidence offsets point into the file as they do for YAML. The region holds the title when the title
opens it, and the title is then one of the values.

Hostile input is bounded as the YAML reader is: at most :data:`MAX_HEADER_LINES` lines and the
caller's character limit are looked at, a line is cut at :data:`MAX_LINE` characters before any
pattern sees it, and every pattern is anchored at the line's start with bounded repeats. What does
not read (a line too long, a value that is no date, an attribute reference) is a warning.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pmparse.ingest.front_matter import scalar

Dialect = Literal["rst", "adoc"]

#: Longest header line read; a longer one ends the header with a warning.
MAX_LINE = 2000
#: Most lines a header may take (a docinfo block or AsciiDoc header is a few lines).
MAX_HEADER_LINES = 200

#: The names ingest reads as markdown (``read.MD_SUFFIXES``) whose header is their own syntax.
_DIALECTS: dict[str, Dialect] = {".rst": "rst", ".adoc": "adoc", ".asciidoc": "adoc"}
#: Keys whose value names a day: one without a year is warned about (it gives the card no date).
_DATE_KEYS = ("date", "revdate", "modified", "incident_date", "started", "start")
_YEAR = re.compile(r"(?<!\d)(?:1[89]|2[01])\d\d(?!\d)")

# reStructuredText: a field (":date: 2024-03-02"; docutils allows spaces in the name, not a colon
# or a space at either end), and explicit markup (a comment, a target, a directive)
_RST_FIELD = re.compile(r":(?![ \t])([^:`\n]{1,60}?)(?<![ \t\\]):(?:[ \t]|$)")
#: Characters a section title's adornment may repeat (docutils: any printable non-alphanumeric ASCII).
_RST_ADORNERS = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_RST_EXPLICIT = re.compile(r"\.\.(?:[ \t]|$)")

# AsciiDoc: the document title, an attribute entry (":name: value", ":name!:" unsets), a comment
# line (not a "////" block), an author ("First Middle Last <email>"; several joined by "; ")
_ADOC_TITLE = re.compile(r"=[ \t]+(\S[^\n]{0,1999})")
_ADOC_ATTRIBUTE = re.compile(r":(!?)([A-Za-z0-9_][A-Za-z0-9_-]{0,60})(!?):(?:[ \t]+|$)")
_ADOC_COMMENT = re.compile(r"//(?!//)")
_ADOC_AUTHOR = re.compile(r"(\w[\w'.-]{0,60}(?: {1,4}\w[\w'.-]{0,60}){0,2})(?: {1,4}<([^<>\s]{1,200})>)?")
_ADOC_REVISION = re.compile(r"(?:v?(\d[\w.-]{0,30}),[ \t]{0,40})?([^:\n]{1,80}?)[ \t]{0,40}"
                            r"(?::[ \t]{0,40}([^\n]{0,500}))?")
_ADOC_VERSION = re.compile(r"v\d[\w.-]{0,30}")
_ADOC_REFERENCE = re.compile(r"\{[\w-]{1,60}\}")


def dialect_of(location: str) -> Dialect | None:
    """``rst`` or ``adoc`` for a file (or URL) named so; None for every other name (markdown's
    ``:date:`` line is prose, not a field)."""
    return _DIALECTS.get(Path(location.split("?", 1)[0].split("#", 1)[0]).suffix.lower())


class _Lines:
    """The text's lines from its start, each cut to :data:`MAX_LINE` characters, within ``limit``."""

    def __init__(self, text: str, limit: int):
        self.text, self.limit = text, min(len(text), limit)
        self.starts = [1 if text.startswith("\ufeff") else 0]  # the start of each line found so far
        self.last = False  # whether the last line is found: asked past it, the tail is not searched again

    def start(self, index: int) -> int | None:
        """Where line ``index`` starts; None past the end or past :data:`MAX_HEADER_LINES`."""
        if index >= MAX_HEADER_LINES:
            return None
        while len(self.starts) <= index:
            end = -1 if self.last else self.text.find("\n", self.starts[-1], self.limit)
            if end < 0:
                self.last = True
                return None
            self.starts.append(end + 1)
        return self.starts[index] if self.starts[index] < self.limit else None

    def get(self, index: int) -> tuple[str, bool] | None:
        """Line ``index`` (no line break) and whether it was longer than the cut; None past the end."""
        start = self.start(index)
        if start is None:
            return None
        end = self.text.find("\n", start, min(self.limit, start + MAX_LINE + 2))
        if end < 0:
            end = min(self.limit, start + MAX_LINE + 1)
        line = self.text[start:end].rstrip("\r")
        return line[:MAX_LINE], len(line) > MAX_LINE

    def end_of(self, index: int) -> int:
        """Offset just past line ``index`` and its line break."""
        end = self.text.find("\n", self.starts[index], self.limit)
        return end + 1 if end >= 0 else self.limit


class _Header:
    """What a header reader found: values, how many fields (or attributes, author and revision
    lines) it read, and warnings."""

    def __init__(self, dialect: Dialect):
        self.dialect = dialect
        self.values: dict[str, str] = {}
        self.fields = 0
        self.warnings: list[str] = []

    def put(self, key: str, raw: str, line: int) -> None:
        """Keep ``raw`` under ``key`` (lower case, spaces as ``_``), warning about an odd value."""
        key = "_".join(key.lower().split())
        shown = f":{key}:" if self.dialect == "rst" else f"attribute :{key}:"
        kind = "reStructuredText field" if self.dialect == "rst" else "AsciiDoc"
        value = scalar(" ".join(raw.split()))
        if value is None:
            return
        if self.dialect == "adoc" and _ADOC_REFERENCE.search(value):
            self.warnings.append(f"{kind} {shown} on line {line + 1} refers to another attribute ({value[:60]!r}), "
                                 "which pmparse does not resolve: ignored")
            return
        if key in _DATE_KEYS and not _YEAR.search(value):
            self.warnings.append(f"{kind} {shown} on line {line + 1} is {value[:60]!r}, which names no year: "
                                 "the date is looked for in the text")
        self.values[key] = value

    def long_line(self, line: int) -> None:
        """Warn that the header stops at line ``line``, longer than :data:`MAX_LINE`."""
        self.warnings.append(f"line {line + 1} of the {self.name} is longer than {MAX_LINE} characters: "
                             "the header is read up to it")

    def cut(self, index: int) -> None:
        """Warn when reading stopped at :data:`MAX_HEADER_LINES` (``index`` the line it stopped at)."""
        if index >= MAX_HEADER_LINES and self.fields:
            self.warnings.append(f"the {self.name} runs past {MAX_HEADER_LINES} lines: read up to there")

    @property
    def name(self) -> str:
        return "field list" if self.dialect == "rst" else "AsciiDoc header"


def parse_markup_header(text: str, dialect: Dialect, limit: int) -> tuple[dict[str, str], tuple[int, int] | None,
                                                                           list[str]]:
    """The metadata at the top of a reStructuredText or AsciiDoc text, as front matter.

    Args:
        text: The source text.
        dialect: ``rst`` or ``adoc`` (see :func:`dialect_of`).
        limit: Most characters looked at.

    Returns:
        ``(values, region, warnings)``: values as :func:`pmparse.ingest.read.parse_front_matter`
        gives them (the title among them when the header holds it), the header's ``(0, end)``
        offsets (None when the text states no field or attribute: a title alone is a heading, read
        as before), and warnings about what was not read.
    """
    lines = _Lines(text, limit)
    header = _Header(dialect)
    last = _read_rst(lines, header) if dialect == "rst" else _read_adoc(lines, header)
    if last is None or not header.fields:
        return {}, None, header.warnings
    return header.values, (0, lines.end_of(last)), header.warnings


# --- reStructuredText ---------------------------------------------------------------------------


def _adornment(line: str) -> bool:
    """Whether ``line`` is a title's over- or underline: one punctuation character, repeated."""
    line = line.rstrip()
    return len(line) >= 2 and line[0] in _RST_ADORNERS and line == line[0] * len(line)


def _rst_title(lines: _Lines, index: int) -> tuple[str, int] | None:
    """A section title at line ``index`` (underlined, or over- and underlined): its text and the
    index of its last line."""
    first, second, third = lines.get(index), lines.get(index + 1), lines.get(index + 2)
    if first is None or second is None or first[1] or second[1]:
        return None
    if _adornment(first[0]) and third is not None and not third[1]:
        title = second[0].strip()
        if title and third[0].rstrip() == first[0].rstrip() and len(title) <= len(first[0].rstrip()):
            return title, index + 2
        return None
    title = first[0].rstrip()
    underline = second[0].rstrip()
    if (title and not title[0].isspace() and not _RST_FIELD.match(title) and not _adornment(title)
            and _adornment(underline) and (len(underline) >= len(title) or len(underline) >= 4)):
        return title, index + 1
    return None


def _blank(line: tuple[str, bool] | None) -> bool:
    return line is not None and not line[0].strip()


def _read_rst(lines: _Lines, header: _Header) -> int | None:
    """Read an rst field list at the top (or under the title and subtitle); the index of its last line."""
    index, explicit = 0, False
    while (line := lines.get(index)) is not None:
        # blank lines, comments and targets (".. _label:") with their indented lines come before
        if _RST_EXPLICIT.match(line[0]):
            explicit = True
        elif not (_blank(line) or (explicit and line[0][:1] in " \t")):
            break
        index += 1
    titles = []
    for _ in range(2):  # the title, then a subtitle
        found = _rst_title(lines, index)
        if found is None:
            break
        titles.append(found[0])
        index = found[1] + 1
        while _blank(lines.get(index)):
            index += 1
    last = None
    key, raw, key_line = None, "", 0
    while (line := lines.get(index)) is not None:
        content, long = line
        field = _RST_FIELD.match(content)
        if field is None and not (key is not None and content[:1] in " \t" and content.strip()):
            if content.strip():
                break
            ahead = index + 1  # a blank line: the list goes on when a field or an indented line follows
            while _blank(lines.get(ahead)):
                ahead += 1
            following = lines.get(ahead)
            if following is None or not (_RST_FIELD.match(following[0]) or following[0][:1] in " \t"):
                break
            index = ahead
            continue
        if long:
            header.long_line(index)
            break
        if field is not None:
            if key is not None:
                header.put(key, raw, key_line)
            key, raw, key_line = field.group(1), content[field.end():], index
            header.fields += 1
        else:
            raw += " " + content
        last = index
        index += 1
    else:
        header.cut(index)
    if key is not None:
        header.put(key, raw, key_line)
    if last is not None and titles and "title" not in header.values:
        header.values["title"] = titles[0]
        if len(titles) > 1:
            header.values.setdefault("subtitle", titles[1])
    return last


# --- AsciiDoc -----------------------------------------------------------------------------------


def _adoc_attribute(lines: _Lines, index: int, header: _Header) -> int | None:
    """An attribute entry at line ``index`` (its value may go on over lines ending in `` \\``): the
    index of its last line, or None when the line is none."""
    line = lines.get(index)
    match = _ADOC_ATTRIBUTE.match(line[0]) if line is not None else None
    if match is None:
        return None
    value, last = line[0][match.end():], index
    while value.endswith(" \\") and (following := lines.get(last + 1)) is not None and following[0].strip():
        value, last = value[:-2] + " " + following[0].strip(), last + 1
    header.fields += 1
    if not (match.group(1) or match.group(3)):  # ":name!:" unsets, and says nothing
        header.put(match.group(2), value, index)
    return last


def _adoc_people(line: str, header: _Header, index: int) -> bool:
    """Read an author line ("Ana Example <ana@example.org>; Bo Example"): whether it is one."""
    people = [part.strip() for part in line.split(";") if part.strip()]
    found = [_ADOC_AUTHOR.fullmatch(part) for part in people[:20]]
    if not found or len(people) > 20 or not all(found):
        return False
    header.values["author"] = found[0].group(1)
    header.values["authors"] = ", ".join(match.group(1) for match in found)
    if found[0].group(2):
        header.values["email"] = found[0].group(2)
    return True


def _adoc_revision(line: str, header: _Header, index: int) -> bool:
    """Read a revision line ("v1.0, 2024-03-02: remark", "2024-03-02", "v1.0"): whether it is one."""
    stripped = line.strip()
    if _ADOC_VERSION.fullmatch(stripped):
        header.values["revnumber"] = stripped[1:]
        return True
    match = _ADOC_REVISION.fullmatch(stripped)
    if match is None or not (match.group(1) or _YEAR.search(match.group(2))):
        return False
    if match.group(1):
        header.values["revnumber"] = match.group(1)
    header.put("revdate", match.group(2), index)
    if match.group(3):
        header.values["revremark"] = match.group(3).strip()
    return True


def _read_adoc(lines: _Lines, header: _Header) -> int | None:
    """Read an AsciiDoc header (attributes, ``= Title``, author, revision, attributes up to a blank
    line): the index of its last line."""
    index, last, title = 0, None, None
    while (line := lines.get(index)) is not None:
        if line[1]:
            header.long_line(index)
            return last
        if _blank(line) and title is None and last is None:
            index += 1
        elif _ADOC_COMMENT.match(line[0]):
            last, index = index, index + 1
        elif (end := _adoc_attribute(lines, index, header)) is not None:
            last, index = end, end + 1
        elif title is None and (match := _ADOC_TITLE.match(line[0])):
            title, last, index = match.group(1).rstrip(), index, index + 1
            index = _adoc_byline(lines, index, header)
            last = max(last, index - 1)
        else:
            break
    else:
        header.cut(index)
    if title is not None and header.fields:
        header.values.setdefault("title", title)
    if "revdate" in header.values:
        header.values.setdefault("date", header.values["revdate"])
    return last


def _adoc_byline(lines: _Lines, index: int, header: _Header) -> int:
    """Read the author and revision lines under the title from line ``index``: the line after them."""
    for reader in (_adoc_people, _adoc_revision):
        line = lines.get(index)
        if line is None or line[1] or not line[0].strip() or _ADOC_ATTRIBUTE.match(line[0]) \
                or _ADOC_COMMENT.match(line[0]):
            return index
        stripped = line[0].strip()
        if reader is _adoc_people and (stripped[:1].isdigit() or _ADOC_VERSION.match(stripped)) \
                and _adoc_revision(stripped, header, index):
            header.fields += 1  # a revision line without an author line above it
            return index + 1
        if reader(stripped, header, index):
            header.fields += 1
            index += 1
        elif reader is _adoc_people:
            header.warnings.append(f"line {index + 1}, under the AsciiDoc title, is neither an author line (names and "
                                   "an <email>) nor a revision line (v1.0, 2024-03-02): read as text")
            return index
    return index
