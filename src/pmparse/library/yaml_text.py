"""A record's YAML written as text: the bytes PyYAML's emitter writes, without its node graph.

Serialising a record through PyYAML built a node per value (``records._node``), then libyaml's
emitter called back into Python twice per scalar; that was two thirds of writing a record. A
record's data is a closed schema (mappings with string keys, lists, flow lists, strings, ints,
floats, bools, null), so this module writes the text PyYAML's emitter writes for it directly: the
emitter's state (column, indent, whether the last thing written was a space or an indentation)
is kept as PyYAML keeps it, and each scalar is styled by PyYAML's rules (``analyze_scalar`` and
``choose_scalar_style``, here as a few regex scans) and written by a port of its writer, with a
shortcut where a string cannot fold. Anything else raises :class:`NotCovered` and the caller
hands the data to PyYAML. ``tests/library/test_yaml_text.py`` checks the bytes against PyYAML's
emitter with hypothesis, and ``tests/library/test_records.py`` on corpus records.

Options are the records': block style, keys unsorted, ``allow_unicode``, indent 2, line
break ``\\n``, and the width the caller gives.
"""

from __future__ import annotations

import math
import re

import yaml


class FlowList(list):
    """A list dumped in YAML flow style (evidence offsets stay on one line)."""


class NotCovered(Exception):
    """Data this writer does not reproduce (a container met twice, a key that is not a short
    one-line string, a type outside a record's); PyYAML writes it."""


_BREAKS = "\n\x85\u2028\u2029"
_STR, _FLOAT = "tag:yaml.org,2002:str", "tag:yaml.org,2002:float"

# analyze_scalar with allow_unicode, as scans (see records._SPECIAL for the character classes)
_SPECIAL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufeff\ufffe\uffff\U0010ffff]")
_LINE_BREAK = re.compile("[\n\x85\u2028\u2029]")
_SPACE_BREAK = re.compile(" [\n\x85\u2028\u2029]")
_BREAK_SPACE = re.compile("[\n\x85\u2028\u2029] ")
_WSC = "[\\x00 \\t\\r\\n\\x85\\u2028\\u2029]"  # analyze_scalar's whitespace beside an indicator
# an indicator that forbids a plain scalar in block context: a leading indicator character, a
# document marker, a leading "?", ":" or "-" before whitespace, ": " anywhere, " #" anywhere
_BLOCK_INDICATOR = re.compile("^(?:[#,\\[\\]{}&*!|>'\"%@`]|---|\\.\\.\\.|[?:\\-](?=" + _WSC + "|\\Z))"
                              "|:(?=" + _WSC + "|\\Z)|" + _WSC + "#")
# in flow context also any of ",?[]{}:" anywhere
_FLOW_INDICATOR = re.compile("[,?\\[\\]{}:]|^(?:[#&*!|>'\"%@`]|---|\\.\\.\\.|-(?=" + _WSC + "|\\Z))"
                             "|" + _WSC + "#")
_SPACES = re.compile(" +")

_IMPLICIT = yaml.SafeDumper.yaml_implicit_resolvers
_PATH_RESOLVERS = bool(yaml.SafeDumper.yaml_path_resolvers)


def plain_tag(value: str) -> str:
    """The tag a plain scalar ``value`` reads back as (``Resolver.resolve`` with implicit
    ``(True, False)``, the dumper having no path resolvers)."""
    resolvers = _IMPLICIT.get(value[0] if value else "", []) + _IMPLICIT.get(None, [])
    for tag, regexp in resolvers:
        if regexp.match(value):
            return tag
    return _STR


def analysis(text: str) -> tuple[bool, bool, bool, bool, bool, bool]:
    """``(empty, multiline, allow_flow_plain, allow_block_plain, allow_single_quoted,
    allow_block)`` of PyYAML's ``Emitter.analyze_scalar(text)`` with ``allow_unicode``."""
    if not text:
        return True, False, False, True, True, False
    flow_plain = block_plain = single = block = True
    first, last = text[0], text[-1]
    if first in " \n\x85\u2028\u2029" or last in " \n\x85\u2028\u2029":
        flow_plain = block_plain = False
    if last == " ":
        block = False
    if _BREAK_SPACE.search(text):
        flow_plain = block_plain = single = False
    if _SPACE_BREAK.search(text) or _SPECIAL.search(text):
        flow_plain = block_plain = single = block = False
    multiline = _LINE_BREAK.search(text) is not None
    if multiline:
        flow_plain = block_plain = False
    if flow_plain and _FLOW_INDICATOR.search(text):
        flow_plain = False
    if block_plain and _BLOCK_INDICATOR.search(text):
        block_plain = False
    return False, multiline, flow_plain, block_plain, single, block


def string_style(text: str, flow: bool, simple_key: bool) -> str:
    """The style PyYAML's ``choose_scalar_style`` gives a record's string: ``''`` plain, ``'``,
    ``"`` or ``|`` (the representer asks for a literal block when the text has a line feed)."""
    empty, multiline, flow_plain, block_plain, single, block = analysis(text)
    if "\n" in text:  # requested "|": a literal block where allowed, else double-quoted
        return "|" if not flow and not simple_key and block else '"'
    if (not (simple_key and (empty or multiline)) and (flow_plain if flow else block_plain)
            and plain_tag(text) == _STR):
        return ""
    if single and not (simple_key and multiline):
        return "'"
    return '"'


def float_text(data: float) -> str:
    """``SafeRepresenter.represent_float``'s text."""
    if data != data:
        return ".nan"
    if math.isinf(data):
        return ".inf" if data > 0 else "-.inf"
    value = repr(data).lower()
    if "." not in value and "e" in value:
        value = value.replace("e", ".0e", 1)
    return value


#: Strings up to this length have their style remembered per context (a record's keys and
#: short values repeat), at most this many.
_STYLE_CACHED = 64
_STYLE_CACHE_SIZE = 50_000
_styles: dict = {}

_ESCAPES = {"\0": "0", "\x07": "a", "\x08": "b", "\x09": "t", "\x0A": "n", "\x0B": "v", "\x0C": "f",
            "\x0D": "r", "\x1B": "e", '"': '"', "\\": "\\", "\x85": "N", "\xA0": "_", "\u2028": "L",
            "\u2029": "P"}


class _Writer:
    """PyYAML's ``Emitter`` for one record: its state and writers, driven by the data's shape
    instead of events (the ``expect_*`` states become the ``_block_*``/``_flow_*`` methods)."""

    __slots__ = ("out", "column", "whitespace", "indention", "indent", "flow_level", "open_ended",
                 "best_width", "seen")

    def __init__(self, width: int) -> None:
        self.out: list[str] = []
        self.column = 0
        self.whitespace = True
        self.indention = True
        self.indent: int | None = None
        self.flow_level = 0
        self.open_ended = False
        self.best_width = width if width and width > 4 else 80
        self.seen: set[int] = set()

    # -- the emitter's primitives ------------------------------------------------------------

    def indicator(self, indicator: str, need_whitespace: bool, whitespace: bool = False,
                  indention: bool = False) -> None:
        data = indicator if self.whitespace or not need_whitespace else " " + indicator
        self.whitespace = whitespace
        self.indention = self.indention and indention
        self.column += len(data)
        self.open_ended = False
        self.out.append(data)

    def write_indent(self) -> None:
        indent = self.indent or 0
        if not self.indention or self.column > indent or (self.column == indent and not self.whitespace):
            self.line_break()
        if self.column < indent:
            self.whitespace = True
            self.out.append(" " * (indent - self.column))
            self.column = indent

    def line_break(self, data: str = "\n") -> None:
        self.whitespace = True
        self.indention = True
        self.column = 0
        self.out.append(data)

    # -- nodes ------------------------------------------------------------------------------

    def node(self, data: object, mapping: bool = False) -> None:
        kind = type(data)
        if kind is dict or kind is list or kind is FlowList:
            if id(data) in self.seen:
                raise NotCovered  # PyYAML writes an anchor and an alias
            self.seen.add(id(data))
            if kind is dict:
                if self.flow_level or not data:
                    self._flow_mapping(data)  # type: ignore[arg-type]
                else:
                    self._block_mapping(data)  # type: ignore[arg-type]
            elif self.flow_level or kind is FlowList or not data:
                self._flow_sequence(data)  # type: ignore[arg-type]
            else:
                self._block_sequence(data, mapping)  # type: ignore[arg-type]
        else:
            self.scalar(data, False)

    def _key(self, key: object) -> None:
        # check_simple_key: a one-line, non-empty string under 128 characters; any other key
        # is written as "? key", which no record has
        if type(key) is not str or not key or len(key) >= 128 or _LINE_BREAK.search(key):
            raise NotCovered
        self.scalar(key, True)

    def _block_mapping(self, data: dict) -> None:
        outer = self.indent
        self.indent = 0 if outer is None else outer + 2
        out = self.out
        for key, value in data.items():
            self.write_indent()
            if _plain_key(key):  # write_plain of a key that cannot fold, then the ":" indicator
                if not self.whitespace:
                    out.append(" ")
                    self.column += 1
                out.append(key + ":")
                self.column += len(key) + 1
                self.whitespace = self.indention = self.open_ended = False
            else:
                self._key(key)
                self.indicator(":", False)
            kind = type(value)
            if kind is int and value >= 0:  # the plain writer after ":": a space, then the digits
                digits = int.__repr__(value)
                out.append(" " + digits)
                self.column += 1 + len(digits)
            elif kind is FlowList:
                self._flow_list(value)
            elif kind is str or kind is float or value is None:
                self.scalar(value, False)
            else:
                self.node(value, mapping=True)
        self.indent = outer

    def _flow_list(self, data: list) -> None:
        """A flow list of scalars or of flow mappings of them (evidence, categories) written in
        one piece when it ends before the width (then no item can start past it, and PyYAML's
        checks before each item and key never break the line), else by :meth:`node`."""
        text = _flow_text(data, self.seen)
        if text is None or self.column + 1 + len(text) > self.best_width + 1:
            self.node(data, mapping=True)
            return
        self.seen.add(id(data))
        self.seen.update(id(item) for item in data if type(item) is dict)
        if self.whitespace:
            self.out.append(text)
            self.column += len(text)
        else:
            self.out.append(" " + text)
            self.column += 1 + len(text)
        self.whitespace = self.indention = self.open_ended = False

    def _block_sequence(self, data: list, mapping: bool) -> None:
        outer = self.indent
        if outer is None:
            self.indent = 0
        elif not (mapping and not self.indention):  # indentless in a mapping
            self.indent = outer + 2
        for item in data:
            self.write_indent()
            self.indicator("-", True, indention=True)
            self.node(item)
        self.indent = outer

    def _flow_sequence(self, data: list) -> None:
        self.indicator("[", True, whitespace=True)
        self.flow_level += 1
        outer = self.indent
        self.indent = 2 if outer is None else outer + 2
        for index, item in enumerate(data):
            if index:
                self.indicator(",", False)
            if self.column > self.best_width:
                self.write_indent()
            self.node(item)
        self.indent = outer
        self.flow_level -= 1
        self.indicator("]", False)

    def _flow_mapping(self, data: dict) -> None:
        self.indicator("{", True, whitespace=True)
        self.flow_level += 1
        outer = self.indent
        self.indent = 2 if outer is None else outer + 2
        for index, (key, value) in enumerate(data.items()):
            if index:
                self.indicator(",", False)
            if self.column > self.best_width:
                self.write_indent()
            self._key(key)
            self.indicator(":", False)
            self.node(value, mapping=True)
        self.indent = outer
        self.flow_level -= 1
        self.indicator("}", False)

    # -- scalars ----------------------------------------------------------------------------

    def scalar(self, data: object, simple_key: bool) -> None:
        kind = type(data)
        if kind is str:
            text: str = data  # type: ignore[assignment]
            if len(text) <= _STYLE_CACHED:
                key = (text, self.flow_level > 0, simple_key)
                style = _styles.get(key)
                if style is None:
                    style = string_style(text, self.flow_level > 0, simple_key)
                    if len(_styles) < _STYLE_CACHE_SIZE:
                        _styles[key] = style
            else:
                style = string_style(text, self.flow_level > 0, simple_key)
        else:
            if kind is int:
                text = int.__repr__(data)  # type: ignore[arg-type]
            elif kind is float:
                text = float_text(data)  # type: ignore[arg-type]
                if plain_tag(text) != _FLOAT:
                    raise NotCovered  # PyYAML would write the tag
            elif data is None:
                text = "null"
            elif data is True:
                text = "true"
            elif data is False:
                text = "false"
            else:
                raise NotCovered
            style = ""  # numbers, booleans and null read back as themselves when plain
        outer = self.indent  # expect_scalar's increase_indent(flow=True)
        self.indent = 2 if outer is None else outer + 2
        split = not simple_key
        if style == "":
            self.plain(text, split)
        elif style == "'":
            self.single_quoted(text, split)
        elif style == "|":
            self.literal(text)
        else:
            self.double_quoted(text, split)
        self.indent = outer

    def plain(self, text: str, split: bool) -> None:
        """``write_plain`` for a one-line text (PyYAML never writes a multi-line plain scalar)."""
        if not text:
            return
        if not self.whitespace:
            self.out.append(" ")
            self.column += 1
        self.whitespace = False
        self.indention = False
        column = self.column
        # a single space is replaced by a line break once the column passes the width
        if not split or column + len(text) <= self.best_width + 1 or " " not in text:
            self.out.append(text)
            self.column = column + len(text)
            return
        start = 0
        for match in _SPACES.finditer(text):
            at = match.start()
            if match.end() - at == 1 and column + (at - start) > self.best_width:
                self.out.append(text[start:at])
                self.column = column + (at - start)
                self.write_indent()
                self.whitespace = False
                self.indention = False
                column, start = self.column, at + 1
        self.out.append(text[start:])
        self.column = column + len(text) - start

    def single_quoted(self, text: str, split: bool) -> None:
        """``write_single_quoted``: quotes doubled, folded at a single inner space past the width."""
        self.indicator("'", True)
        if _LINE_BREAK.search(text):
            self._single_quoted_lines(text, split)
        else:
            column = self.column
            if not split or column + len(text) + text.count("'") <= self.best_width + 1:
                self.out.append(text.replace("'", "''"))
                self.column = column + len(text) + text.count("'")
            else:
                start, last = 0, len(text) - 1
                for match in _SPACES.finditer(text):
                    at = match.start()
                    if match.end() - at != 1 or at == 0 or at == last:
                        continue
                    part = text[start:at]
                    width = len(part) + part.count("'")
                    if column + width > self.best_width:
                        self.out.append(part.replace("'", "''"))
                        self.column = column + width
                        self.write_indent()
                        column, start = self.column, at + 1
                part = text[start:]
                self.out.append(part.replace("'", "''"))
                self.column = column + len(part) + part.count("'")
        self.indicator("'", False)

    def _single_quoted_lines(self, text: str, split: bool) -> None:
        # PyYAML's loop as it is: a single-quoted string with line breaks (NEL, U+2028 or U+2029
        # without a line feed) is rare
        spaces = breaks = False
        start = end = 0
        while end <= len(text):
            ch = text[end] if end < len(text) else None
            if spaces:
                if ch is None or ch != " ":
                    if (start + 1 == end and self.column > self.best_width and split
                            and start != 0 and end != len(text)):
                        self.write_indent()
                    else:
                        self.out.append(text[start:end])
                        self.column += end - start
                    start = end
            elif breaks:
                if ch is None or ch not in _BREAKS:
                    if text[start] == "\n":
                        self.line_break()
                    for br in text[start:end]:
                        self.line_break(br)
                    self.write_indent()
                    start = end
            elif ch is None or ch in " \n\x85\u2028\u2029'":
                if start < end:
                    self.out.append(text[start:end])
                    self.column += end - start
                    start = end
            if ch == "'":
                self.out.append("''")
                self.column += 2
                start = end + 1
            if ch is not None:
                spaces = ch == " "
                breaks = ch in _BREAKS
            end += 1

    def double_quoted(self, text: str, split: bool) -> None:
        """``write_double_quoted`` as PyYAML has it (escapes, folding with a backslash)."""
        self.indicator('"', True)
        start = end = 0
        length = len(text)
        while end <= length:
            ch = text[end] if end < length else None
            if (ch is None or ch in '"\\\x85\u2028\u2029\ufeff'
                    or not ("\x20" <= ch <= "\x7e" or "\xa0" <= ch <= "\ud7ff" or "\ue000" <= ch <= "\ufffd")):
                if start < end:
                    self.out.append(text[start:end])
                    self.column += end - start
                    start = end
                if ch is not None:
                    if ch in _ESCAPES:
                        data = "\\" + _ESCAPES[ch]
                    elif ch <= "\xff":
                        data = "\\x%02X" % ord(ch)
                    elif ch <= "\uffff":
                        data = "\\u%04X" % ord(ch)
                    else:
                        data = "\\U%08X" % ord(ch)
                    self.out.append(data)
                    self.column += len(data)
                    start = end + 1
            if (0 < end < length - 1 and (ch == " " or start >= end)
                    and self.column + (end - start) > self.best_width and split):
                data = text[start:end] + "\\"
                if start < end:
                    start = end
                self.out.append(data)
                self.column += len(data)
                self.write_indent()
                self.whitespace = False
                self.indention = False
                if text[start] == " ":
                    self.out.append("\\")
                    self.column += 1
            end += 1
        self.indicator('"', False)

    def literal(self, text: str) -> None:
        """``write_literal``: each line at the scalar's indent, empty lines left empty."""
        hints = ""
        if text[0] in " \n\x85\u2028\u2029":
            hints += "2"
        if text[-1] not in _BREAKS:
            hints += "-"
        elif len(text) == 1 or text[-2] in _BREAKS:
            hints += "+"
        self.indicator("|" + hints, True)
        if hints[-1:] == "+":
            self.open_ended = True
        self.line_break()
        if "\x85" in text or "\u2028" in text or "\u2029" in text:
            self._literal_lines(text)
            return
        pad = " " * (self.indent or 0)
        body = "\n".join([pad + line if line else "" for line in text.split("\n")])
        self.out.append(body if text[-1] == "\n" else body + "\n")
        self.line_break("")  # the text ends at the start of a line

    def _literal_lines(self, text: str) -> None:
        # PyYAML's loop as it is, for texts with line breaks other than the line feed (rare)
        breaks = True
        start = end = 0
        while end <= len(text):
            ch = text[end] if end < len(text) else None
            if breaks:
                if ch is None or ch not in _BREAKS:
                    for br in text[start:end]:
                        self.line_break(br)
                    if ch is not None:
                        self.write_indent()
                    start = end
            elif ch is None or ch in _BREAKS:
                self.out.append(text[start:end])
                if ch is None:
                    self.line_break()
                start = end
            if ch is not None:
                breaks = ch in _BREAKS
            end += 1


_plain_keys: dict = {}


def _plain_key(key: object) -> bool:
    """Whether ``key`` is a block mapping's simple key written plain (as it is)."""
    plain = _plain_keys.get(key)
    if plain is None:
        plain = (type(key) is str and 0 < len(key) <= _STYLE_CACHED and not _LINE_BREAK.search(key)
                 and string_style(key, False, True) == "")
        if len(_plain_keys) < _STYLE_CACHE_SIZE:
            _plain_keys[key] = plain
    return plain


_flow_items: dict = {}


def _flow_item(data: object) -> str | None:
    """A flow collection's scalar item as written plain, or None when it is not one."""
    kind = type(data)
    if kind is int:
        return int.__repr__(data)  # type: ignore[arg-type]
    if kind is str and len(data) <= _STYLE_CACHED:  # type: ignore[arg-type]
        text = _flow_items.get(data)
        if text is None:
            text = data if string_style(data, True, False) == "" else ""  # type: ignore[arg-type]
            if len(_flow_items) < _STYLE_CACHE_SIZE:
                _flow_items[data] = text
        return text or None
    return None


def _flow_text(data: list, seen: set) -> str | None:
    """``[a, b]`` or ``[{k: v, k: v}, ...]`` as PyYAML writes it on one line, or None where an
    item or key is not a plain scalar (then the emitter's own path decides)."""
    if not data or id(data) in seen:
        return None
    parts, mine = [], set()
    for item in data:
        if type(item) is dict:
            if not item or id(item) in seen or id(item) in mine:
                return None
            mine.add(id(item))
            pairs = []
            for key, value in item.items():
                if not (type(key) is str and _flow_item(key) is not None and _plain_key(key)):
                    return None
                text = _flow_item(value)
                if text is None:
                    return None
                pairs.append(key + ": " + text)
            parts.append("{" + ", ".join(pairs) + "}")
        else:
            text = _flow_item(item)
            if text is None:
                return None
            parts.append(text)
    return "[" + ", ".join(parts) + "]"


def dump_record(data: dict, width: int) -> str:
    """``yaml.dump(data, Dumper=records._Dumper, sort_keys=False, allow_unicode=True,
    default_flow_style=False, width=width)``, the same text, for a record's data.

    Raises:
        NotCovered: data outside a record's schema (PyYAML writes it).
    """
    if type(data) is not dict or not data or _PATH_RESOLVERS:  # plain_tag assumes no path resolvers
        raise NotCovered
    writer = _Writer(width)
    writer.node(data)
    # expect_document_end, then the stream's end: an open-ended last scalar (a literal block
    # keeping its final line breaks) is closed with "..."
    writer.indent = None
    writer.write_indent()
    if writer.open_ended:
        writer.indicator("...", True)
        writer.write_indent()
    return "".join(writer.out)
