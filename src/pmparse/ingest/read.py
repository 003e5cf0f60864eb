"""Ingest: a raw file becomes text plus structure.

The text returned here is what every evidence offset indexes. For ``.txt`` and ``.md`` input it is
the file itself, decoded as UTF-8 with each line break (CRLF, a lone CR) one ``\\n``, as Python's
text mode reads it; for HTML it is the main text
extracted by trafilatura (as markdown, so headings and lists survive), and the record keeps it.

Nothing in this module guesses: a file that cannot be read as UTF-8 text raises a typed
:class:`~pmparse.errors.InputError` naming the file and the reason, and the caller moves on.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Literal
from urllib.parse import quote

import yaml

from pmparse.errors import (
    BinaryInputError,
    DecodeInputError,
    EmptyInputError,
    MalformedInputError,
    PdfInputError,
    TooLargeInputError,
    UnreadableInputError,
)
from pmparse.ingest.front_matter import DEEP, oversized, parse_other, scalar, text_of
from pmparse.ingest.hostile import front_matter_warnings, html_warnings, lost_html_text, unclosed_front_matter
from pmparse.ingest.markup_header import dialect_of, parse_markup_header
from pmparse.ingest.pdf import extract_pdf, is_pdf
from pmparse.locations import is_url
from pmparse.util import newlines, sha256_text

#: Default size limit of one input; ``convert --max-bytes`` changes it.
DEFAULT_MAX_BYTES = 20 * 1024 * 1024

#: Most lines of text an input may have. The analysis keeps about 0.5-1.2 KB per line (each line
#: a unit with its features), so 20 MiB of two-character lines would need 3-6 GB; the corpus's
#: longest postmortem has 1,503 lines, and 200,000 keep a worker near 300 MB.
MAX_LINES = 200_000

#: Most tags (counted as '<') an HTML page may hold: a postmortem has a few thousand; the extractor
#: needs about 6 s and 120 MB per 100,000.
MAX_HTML_TAGS = 200_000

#: Front matter larger than this is not parsed (it is still masked from prose).
MAX_FRONT_MATTER = 64 * 1024

#: Front matter nested deeper than this is not read (YAML's composer recurses once per level).
MAX_FRONT_MATTER_DEPTH = 64

Format = Literal["txt", "md", "html", "pdf"]

MD_SUFFIXES = {".md", ".markdown", ".mdown", ".mkd", ".mdx", ".qmd", ".erb", ".rst", ".adoc", ".asciidoc"}
_HTML_SUFFIXES = {".html", ".htm", ".xhtml"}
_FRONT_MATTER = re.compile(r"\A(?:\ufeff)?---[ \t]*\r?\n")
_FRONT_MATTER_END = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.MULTILINE)
#: A line no YAML block holds at its top level: not indented, no comment, list item or key (a
#: colon within 200 characters); prose after a '---' thematic break has one (bounded per line).
_NOT_YAML_LINE = re.compile(r"^(?![ \t#\-.\r\n])(?![^\n:]{0,200}:(?:[ \t]|\r?$))", re.MULTILINE)
_ERB_TAG = re.compile(r"<%[^%]{0,4000}%>")
_HTML_SNIFF = re.compile(r"\A\s*(?:<!doctype html|<html|<head|<body|<article|<div|<p>)", re.IGNORECASE)
#: A whole HTML page, whatever the file is called: markdown may open with a ``<div>``, never so.
#: An XHTML page opens with its XML declaration, and a saved page with the browser's comment
#: ("<!-- saved from url=... -->") before its doctype or ``<html>``.
_HTML_PAGE = re.compile(r"\A\ufeff?\s*(?:<\?xml\s[^<>]{0,200}\?>\s*)?(?:<!--(?:(?!-->).){0,500}-->\s*){0,3}"
                        r"(?:<!doctype html|<html[\s>])", re.IGNORECASE | re.DOTALL)



def normal_url(location: str) -> str:
    """An http(s) address with its scheme in lower case (the spelling records and lookups use)."""
    scheme, sep, rest = location.partition("://")
    return f"{scheme.lower()}{sep}{rest}" if is_url(location) else location


def join_url(base: str, relative: str) -> str:
    """``base`` (an address of a folder) joined with a relative file path, each segment percent-encoded."""
    parts = relative.replace(os.sep, "/").split("/")
    return base.rstrip("/") + "/" + "/".join(quote(part) for part in parts)


@dataclass
class Ingested:
    """A source turned into text.

    Attributes:
        location: Path or URL of the source, ``-`` for standard input.
        text: The text that evidence offsets index.
        format: How it was read: ``txt``, ``md``, ``html`` or ``pdf``.
        sha256: sha256 of ``text`` encoded as UTF-8.
        extracted: True when ``text`` is not the file itself (HTML, PDF, a URL), so records keep it.
        front_matter: Scalar values of a front matter block (YAML, TOML, JSON, or the field list
            or header attributes of a ``.rst`` or ``.adoc`` file), as strings.
        masked: ``(start, end)`` regions that are not prose (front matter, template tags).
        meta: Facts found by the extractor (HTML title, date, site name).
        warnings: Problems that did not stop the conversion.
        url: Public address of the source, when known (see :func:`source_url`).
    """

    location: str
    text: str
    format: Format
    sha256: str
    extracted: bool = False
    front_matter: dict[str, str] = field(default_factory=dict)
    masked: list[tuple[int, int]] = field(default_factory=list)
    meta: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    url: str | None = None


def detect_format(location: str, raw: bytes | None = None) -> Format:
    """Choose how to read a source from its name, or its first bytes for standard input; a whole
    HTML page is read as HTML whatever its name."""
    suffixes = [s.lower() for s in Path(location).suffixes]
    if (raw is not None and is_pdf(raw)) or suffixes[-1:] == [".pdf"]:
        return "pdf"
    if any(s in _HTML_SUFFIXES for s in suffixes[-1:]) or (raw is not None and is_html_page(raw)):
        # a saved page named .md or .txt read as markup gave '<!DOCTYPE html>' as its title and
        # 'DOCTYPE' as its publisher, and its whole markup as one item
        return "html"
    if suffixes and suffixes[-1] in MD_SUFFIXES:
        return "md"
    if suffixes and suffixes[-1] == ".txt":
        return "txt"
    if raw is not None:
        head = raw[:2048].decode("utf-8", "ignore")
        if _HTML_SNIFF.match(head):
            return "html"
        if re.search(r"^#{1,6} \S", head, re.MULTILINE) or head.startswith("---"):
            return "md"
    return "txt"


def is_html_page(raw: bytes) -> bool:
    """Whether ``raw`` is a whole HTML page (it opens with a doctype or ``<html>``)."""
    return _HTML_PAGE.match(raw[:2048].decode("utf-8", "ignore")) is not None


def read_bytes(location: str, max_bytes: int = DEFAULT_MAX_BYTES, stdin: BinaryIO | None = None) -> bytes:
    """Read a source's bytes, refusing what is not a readable regular file within the limit.

    Args:
        location: A path, or ``-`` for standard input.
        max_bytes: Largest accepted size.
        stdin: Stream to read for ``-`` (defaults to ``sys.stdin.buffer``).

    Raises:
        UnreadableInputError: missing, a directory, a broken link, no permission.
        TooLargeInputError: larger than ``max_bytes``.
    """
    if location == "-":
        stream = stdin if stdin is not None else sys.stdin.buffer
        raw = stream.read(max_bytes + 1)
    else:
        try:
            info = os.stat(location)
        except FileNotFoundError as exc:
            reason = "a broken symbolic link" if os.path.islink(location) else "no such file"
            raise UnreadableInputError(f"expected a readable file, found {reason}", location) from exc
        except OSError as exc:
            raise UnreadableInputError(f"expected a readable file, found {exc.strerror}", location) from exc
        if stat.S_ISDIR(info.st_mode):
            raise UnreadableInputError("expected a file, found a directory", location)
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableInputError("expected a regular file, found a special file", location)
        if info.st_size > max_bytes:
            raise TooLargeInputError(
                f"expected at most {max_bytes} bytes (--max-bytes), found {info.st_size}", location
            )
        try:
            with open(location, "rb") as handle:
                # asked for max_bytes at once, Python reserves that much for every input; a byte
                # past the size the file had says it grew, and the rest is read up to the limit
                raw = handle.read(info.st_size + 1)
                if len(raw) > info.st_size:
                    raw += handle.read(max_bytes + 1 - len(raw))
        except OSError as exc:
            raise UnreadableInputError(f"expected a readable file, found {exc.strerror}", location) from exc
    if len(raw) > max_bytes:
        raise TooLargeInputError(f"expected at most {max_bytes} bytes (--max-bytes), found more", location)
    return raw


_WIDE_BOMS = ((b"\xff\xfe\x00\x00", "UTF-32LE"), (b"\x00\x00\xfe\xff", "UTF-32BE"),
              (b"\xff\xfe", "UTF-16LE"), (b"\xfe\xff", "UTF-16BE"))


def _wide_encoding(raw: bytes) -> str | None:
    """The UTF-16/32 encoding ``raw`` is in, told by its byte order mark or, for UTF-16 without
    one, by a NUL in every other byte of its start (ASCII text saved as UTF-16); None otherwise."""
    for bom, name in _WIDE_BOMS:
        if raw.startswith(bom):
            return f"{name} (byte order mark)"
    head = raw[:400]
    if len(head) >= 8:
        even, odd = head[0::2], head[1::2]
        if odd.count(0) >= 0.9 * len(odd) and not even.count(0):
            return "UTF-16LE (no byte order mark)"
        if even.count(0) >= 0.9 * len(even) and not odd.count(0):
            return "UTF-16BE (no byte order mark)"
    return None


def decode_text(raw: bytes, location: str) -> str:
    """Decode bytes as UTF-8 text, each line break read as ``\\n`` (:func:`pmparse.util.newlines`).

    A CRLF file (a git checkout with ``core.autocrlf``) is the same text as its LF twin, so its
    sha256 and evidence offsets do not depend on the system that checked it out; offsets index
    the file as Python's text mode reads it.

    Raises:
        EmptyInputError: no bytes, or only white space.
        BinaryInputError: NUL bytes, which text never holds.
        DecodeInputError: not valid UTF-8 (the message gives the byte offset), or UTF-16/32.
    """
    # a byte order mark is not text either: a file of a BOM and white space is as empty as one without
    if not raw.removeprefix(b"\xef\xbb\xbf").strip():
        raise EmptyInputError("expected text, found an empty file" if not raw else "expected text, found only white space", location)
    wide = _wide_encoding(raw)
    if wide is not None:
        raise DecodeInputError(
            f"expected UTF-8 text, found {wide} text (re-encode the file as UTF-8, e.g. with "
            f"iconv -f {wide.split()[0].lower()} -t utf-8)",
            location,
        )
    nul = raw.find(b"\x00")
    if nul >= 0:
        raise BinaryInputError(f"expected text, found binary data (NUL byte at offset {nul})", location)
    try:
        return newlines(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise DecodeInputError(
            f"expected UTF-8 text, found byte 0x{raw[exc.start]:02x} at offset {exc.start} "
            "(re-encode the file as UTF-8, e.g. with iconv -f latin1 -t utf-8)",
            location,
        ) from exc


def _nesting_exceeds(body: str, limit: int) -> bool:
    """True when the YAML in ``body`` nests collections more than ``limit`` deep.

    Brackets are counted first: YAML's scanner reads a whole line of ``[[[[`` ahead with work
    per open level before it yields any event, so deep flow nesting is refused on the characters
    alone. Block nesting is then checked on parser events (no recursion), stopping at the first
    level past the limit.
    """
    if body.count("[") + body.count("{") > limit:
        depth = 0
        for char in body:
            if char in "[{":
                depth += 1
                if depth > limit:
                    return True
            elif char in "]}":
                depth = max(0, depth - 1)
    depth = 0
    loader = yaml.SafeLoader(body)
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > limit:
                    return True
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
        return False
    finally:
        loader.dispose()


#: The tags of the values front matter is read from (a plain value resolves to one of them).
_SCALAR_TAGS = frozenset(f"tag:yaml.org,2002:{name}" for name in ("str", "int", "float", "bool", "null", "timestamp"))
_SEQUENCE = "tag:yaml.org,2002:seq"
_MAPPING = "tag:yaml.org,2002:map"


def _kind(node: yaml.Node) -> str:
    """What a YAML node holds, told from its tag: it is never built (a block of one 5,000-digit
    integer or of '2021-02-30' raised ValueError, and failed the file as 'internal')."""
    if isinstance(node, yaml.SequenceNode):
        return "list"
    standard, _, name = node.tag.rpartition(":")
    return name if standard == "tag:yaml.org,2002" else "tagged value"


def _front_matter_values(body: str) -> tuple[dict[str, str] | None, str | None]:
    """Top-level scalar values of a YAML mapping, without building anything else.

    The document is composed into nodes (aliases stay references, so composing costs linear
    time) and only scalar values of the top-level mapping are constructed. Nothing walks nested
    or aliased structure and merge keys (``<<``) are never flattened, so an alias or merge-key
    bomb costs nothing; a scalar YAML cannot construct (``2020-02-30``) keeps its text.

    Returns:
        ``(values, problem)``: values is None when the block holds no mapping, and problem then
        names what it holds instead.
    """
    if _nesting_exceeds(body, MAX_FRONT_MATTER_DEPTH):
        return None, f"front matter is nested more than {MAX_FRONT_MATTER_DEPTH} levels deep; ignored"
    loader = yaml.SafeLoader(body)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, None
        if not isinstance(node, yaml.MappingNode):
            return None, f"front matter is a {_kind(node)}, expected a mapping; ignored"
        if node.tag != _MAPPING:
            # a tagged mapping ('!vault' on the line before its keys) is not read, as a tagged value
            # is not (hostile.front_matter_warnings names the tag)
            return {}, None
        values: dict[str, str] = {}
        for key_node, value_node in node.value:
            if not (isinstance(key_node, yaml.ScalarNode) and key_node.tag == "tag:yaml.org,2002:str"):
                continue
            if isinstance(value_node, yaml.SequenceNode) and value_node.tag == _SEQUENCE and all(
                    isinstance(item, yaml.ScalarNode) and item.tag in _SCALAR_TAGS for item in value_node.value[:50]):
                # a list of authors or tags: its plain items, never anything nested, aliased or tagged
                text = scalar([item.value for item in value_node.value[:50]])
                if text is not None:
                    values[text_of(key_node.value).lower()] = text
                continue
            if not (isinstance(value_node, yaml.ScalarNode) and value_node.tag in _SCALAR_TAGS):
                # a tag pmparse never builds (hostile.front_matter_warnings says its value is
                # ignored): '!!python/object/apply:os.system [cmd]' gave the command as the title
                continue
            try:
                value = loader.construct_object(value_node)
            except Exception:  # noqa: BLE001 - YAML's constructors for its own tags raise ValueError,
                # KeyError ('!!bool maybe'), AttributeError ('!!timestamp soon') and IndexError
                # ("!!int ''"): a value that cannot be built keeps its text, whatever the error
                value = value_node.value
            found = scalar(value)
            if found is not None:
                values[text_of(key_node.value).lower()] = found
        return values, None
    finally:
        loader.dispose()


#: A line at the left margin that is no comment, list item or document marker: a top-level key.
_TOP_LEVEL_LINE = re.compile(r"^(?=[^ \t\r\n#\-.])", re.MULTILINE)


def _bounded_start(window: str) -> dict[str, str]:
    """The scalar values of the top-level keys that begin and end in ``window``, the first
    :data:`MAX_FRONT_MATTER` characters of a YAML block past the limit (a title and a date before
    a long list of redirects or a 100 kB field kept their card).

    The window is cut before its last top-level key, whose value may run past it, and read as a
    block within the limit is read (:func:`_front_matter_values`: no nesting past its depth, no
    alias expanded, no tag built), so it costs no more than such a block. A window that does not
    read as YAML (a cut through a quoted scalar or a flow collection) gives nothing.
    """
    starts = [m.start() for m in _TOP_LEVEL_LINE.finditer(window)]
    if len(starts) < 2:
        return {}
    try:
        values, _ = _front_matter_values(window[: starts[-1]])
    except (yaml.YAMLError, RecursionError):
        return {}
    return values or {}


def parse_front_matter(text: str) -> tuple[dict[str, str], tuple[int, int] | None, str | None]:
    """Find and parse a front matter block at the start of ``text``: YAML (``---``), TOML (``+++``)
    or JSON (:func:`pmparse.ingest.front_matter.parse_other`).

    Returns:
        ``(values, region, warning)``: scalar top-level values as strings, the block's
        ``(start, end)`` offsets (None without a block), and a warning when it is not valid YAML
        or not a mapping (the block is then still masked and the body still converts).
    """
    opening = _FRONT_MATTER.match(text)
    if not opening:
        return parse_other(text, MAX_FRONT_MATTER)
    closing = _FRONT_MATTER_END.search(text, opening.end(), opening.end() + MAX_FRONT_MATTER)
    if not closing:
        # a block past the limit is masked, when it reads as one: '---' then a key, and no line
        # of prose before the closing line (a thematic break before a long text is text); only
        # its first MAX_FRONT_MATTER characters are read
        if not unclosed_front_matter(text):
            return {}, None, None
        _, region, _ = oversized(text, _FRONT_MATTER_END, opening.end(), MAX_FRONT_MATTER)
        if region is None or _NOT_YAML_LINE.search(text, opening.end(), region[1] - 1) is not None:
            return {}, None, None
        return _bounded_start(text[opening.end() : opening.end() + MAX_FRONT_MATTER]), region, (
            f"front matter runs to {region[1]:,} characters, more than {MAX_FRONT_MATTER:,} characters pmparse "
            f"reads: the keys within its first {MAX_FRONT_MATTER:,} are read, the rest ignored, and the whole "
            "block masked from the text")
    end = closing.end()
    if text[end : end + 2] == "\r\n":
        end += 2
    elif text[end : end + 1] == "\n":
        end += 1
    body = text[opening.end() : closing.start()]
    try:
        values, problem = _front_matter_values(body)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        return {}, (0, end), f"front matter is not valid YAML{where}; ignored"
    except RecursionError:
        return {}, (0, end), DEEP
    if values is None:
        return {}, (0, end), problem
    return values, (0, end), None


def extract_html(raw_text: str, location: str) -> tuple[str, dict[str, str]]:
    """Main text of an HTML page, as markdown, with the extractor's metadata.

    Raises:
        MalformedInputError: the extractor fails or finds no main text, or the HTML parser drops
            much of the page's visible text (too deep, or a text node too large).
        TooLargeInputError: more than :data:`MAX_HTML_TAGS` tags.
    """
    import trafilatura  # imported here: it costs start-up time and only HTML needs it

    tags = raw_text.count("<")
    if tags > MAX_HTML_TAGS:
        raise TooLargeInputError(f"expected HTML of at most {MAX_HTML_TAGS:,} tags, found {tags:,} (extraction "
                                 "time and memory grow faster than the page: 10 MB of <br> took minutes and 2 GB)",
                                 location)
    lost = lost_html_text(raw_text)
    if lost is not None:
        raise MalformedInputError(lost, location)

    try:
        result = trafilatura.bare_extraction(
            raw_text,
            with_metadata=True,
            include_formatting=True,
            include_comments=False,
            include_tables=True,
            favor_recall=True,
        )
    except RecursionError as exc:
        raise MalformedInputError("expected parseable HTML, found nesting too deep to parse", location) from exc
    except Exception as exc:  # lxml and trafilatura raise many types on broken markup
        raise MalformedInputError(f"expected parseable HTML, found {type(exc).__name__}: {exc}", location) from exc
    text = _UNESCAPE.sub(r"\1", (getattr(result, "text", None) or "").strip()) if result is not None else ""
    if not text:
        raise MalformedInputError("expected HTML with a main text, found none the extractor could use", location)
    meta = {}
    for key in ("title", "date", "sitename", "hostname", "url"):
        value = getattr(result, key, None)
        if value:
            meta[key] = str(value)
    return _page_header(raw_text, text) + text + "\n", meta


_SPACES = re.compile(r"\s+")
#: The extractor's markdown escapes of the page's own characters ("event\_payload", "2\*3",
#: "\[jobs\]", "\`"): the page wrote the character, and a card quoting it should too. Its own
#: markup (emphasis, code, links) is written unescaped and stays.
_UNESCAPE = re.compile(r"\\([_*`\[\]])")


def _page_header(raw_text: str, text: str) -> str:
    """The page's H1 and the date beside it, as markdown, when the extracted main text lacks them.

    A rendered markdown post keeps its title and date in a header above the article, which the
    extractor leaves out: without them the card has no title evidence and often no date. They are
    put back in front of the main text, in the words the page shows (the ``<time>`` element's).
    """
    from lxml import html as lxml_html

    try:
        tree = lxml_html.fromstring(raw_text[:2_000_000])
    except Exception:  # lxml raises many types on broken markup; the main text is read already
        return ""
    h1 = next((_SPACES.sub(" ", node.text_content()).strip() for node in tree.iter("h1")), "")
    if not h1 or len(h1) > 300 or h1 in text[:2000]:
        return ""
    header = f"# {h1}\n\n"
    stamp = next((_SPACES.sub(" ", node.text_content()).strip() or node.get("datetime", "")
                  for node in tree.iter("time")), "")
    if stamp and len(stamp) <= 100 and stamp not in text[:2000]:
        header += f"{stamp}\n\n"
    return header


def ingest_bytes(raw: bytes, location: str, fmt: Format | None = None) -> Ingested:
    """Turn a source's bytes into :class:`Ingested` text.

    Args:
        raw: The file's bytes.
        location: Path or URL, used in messages and the record.
        fmt: Force a format; detected from the name (or content for stdin) when None.
    """
    if is_pdf(raw):
        fmt = "pdf"  # whatever its name says: a PDF read as text gives "%PDF-1.4 1 0 obj" as a trigger
    fmt = fmt or detect_format(location, raw)
    if fmt == "pdf":
        if not is_pdf(raw):
            raise PdfInputError("expected a PDF (a file starting with %PDF-), found other data", location)
        text = _few_lines(extract_pdf(raw, location), location)
        return Ingested(location=location, text=text, format="pdf", sha256=sha256_text(text), extracted=True)
    text = decode_text(raw, location)
    meta: dict[str, str] = {}
    extracted = False
    values, region, warning = parse_front_matter(text)
    page = text
    if fmt == "html":
        # a site generator's HTML page may open with front matter (Jekyll): it is read, and only
        # the page after it is extracted, so the extracted text offsets index holds none of it
        text, meta = extract_html(text[region[1]:] if region else text, location)
        extracted = True
        region = None
    text = _few_lines(text, location)
    ingested = Ingested(location=location, text=text, format=fmt, sha256=sha256_text(text), extracted=extracted, meta=meta)
    if extracted:
        ingested.warnings.extend(html_warnings(page, text))
    header_warnings: list[str] | None = None
    if region is None and not warning and fmt == "md" and (dialect := dialect_of(location)) is not None:
        # reStructuredText's field list and AsciiDoc's header attributes are this file's front matter
        values, region, header_warnings = parse_markup_header(text, dialect, MAX_FRONT_MATTER)
    ingested.front_matter = values
    if region is not None:
        ingested.masked.append(region)
    if warning:
        ingested.warnings.append(warning)
    elif header_warnings is not None:
        ingested.warnings.extend(header_warnings)
        if region is None and (unclosed := unclosed_front_matter(text)):
            ingested.warnings.append(unclosed)
    elif region is not None:
        ingested.warnings.extend(front_matter_warnings(text[region[0]:region[1]]))
    elif unclosed := unclosed_front_matter(text):
        ingested.warnings.append(unclosed)
    ingested.masked.extend(m.span() for m in _ERB_TAG.finditer(text))
    return ingested


def _few_lines(text: str, location: str) -> str:
    """``text`` when it has at most :data:`MAX_LINES` lines.

    Raises:
        TooLargeInputError: more lines than that.
    """
    # lines as the analysis splits them (nlp.lines): at each newline, a last line only when
    # text follows the last newline, so a file of exactly MAX_LINES lines passes
    lines = text.count("\n") + (not text.endswith("\n"))
    if lines > MAX_LINES:
        raise TooLargeInputError(f"expected at most {MAX_LINES:,} lines of text, found {lines:,} (a log or data "
                                 "pasted whole? convert the report's own part)", location)
    return text


def ingest(location: str, max_bytes: int = DEFAULT_MAX_BYTES, fmt: Format | None = None, stdin: BinaryIO | None = None,
           fetch_settings=None) -> Ingested:
    """Read and ingest one source (a path, ``-`` for standard input, or an http(s) URL).

    A URL is downloaded (:func:`pmparse.ingest.fetch.fetch`, with ``fetch_settings``), read as its
    content type says, and cited as the source's ``url``; its text is always kept in the record,
    since there is no file to read it back from.

    Raises:
        InputError: a subclass naming the file and what was wrong with it.
    """
    if is_url(location):
        from pmparse.ingest.fetch import fetch

        raw, fetched = fetch(location, max_bytes, fetch_settings)
        source = ingest_bytes(raw, location, fmt or fetched)  # type: ignore[arg-type]
        source.extracted, source.url = True, location
        return source
    raw = read_bytes(location, max_bytes, stdin)
    return ingest_bytes(raw, location, fmt)


def extracted_sha256(location: str, raw: bytes) -> str | None:
    """The sha256 a record of the page or PDF ``raw`` (read from ``location``) holds: that of its
    extracted text, which its bytes cannot show; None for another format or a file that cannot
    be read as its name says (:data:`pmparse.library.places.ExtractedSha`)."""
    if detect_format(location, raw) not in ("html", "pdf") and not is_pdf(raw):
        return None  # its bytes are its text: what they showed is all there is
    try:
        ingested = ingest_bytes(raw, location)
    except Exception:  # a file that cannot be read as a page or PDF is no evidence (what is wrong: convert says)
        return None
    return ingested.sha256 if ingested.extracted else None
