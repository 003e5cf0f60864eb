"""Record files: a card as YAML or JSON, read and written the same way everywhere."""

from __future__ import annotations

import difflib
import io
import json
import math
import re
from collections import Counter
from pathlib import Path
from typing import Literal

import yaml
from pydantic import ValidationError

from pmparse.card.schema import TEXT_FIELDS, Card
from pmparse.errors import RecordError
from pmparse.library import yaml_text
from pmparse.library.places import SourcePlaces
from pmparse.library.statefiles import read_record_text
from pmparse.util import newlines, read_regular_file, sha256_text
from pmparse.yaml_problems import (CalendarLoader, expanded_size, line_of, merge_conflict_line,
                                   merge_conflict_reason, syntax_error)

RecordFormat = Literal["yaml", "json"]


class DuplicateKeyError(yaml.constructor.ConstructorError):
    """A mapping of a record names one key twice (YAML readers keep the last, silently)."""


class AliasBombError(yaml.constructor.ConstructorError):
    """A record's aliases expand to more values than its text has characters, or refer to
    themselves (a "billion laughs": a small file that becomes millions of values once read)."""


#: Where an anchor may start: a node's properties follow the start of the text, white space, a
#: flow indicator or a flow mapping's colon (``{"a":&x [1]}``); an ``&`` anywhere else is text.
#: (It may match text too: the check then runs for nothing.)
_ANCHOR = re.compile(r"(?:^|[\s\[{,:])&")


class _RecordLoader(CalendarLoader):  # type: ignore[misc,valid-type]
    """The safe loader, refusing a key given twice in one mapping and aliases that expand the
    record past its own size.

    A second ``title:`` line a person adds above the first would otherwise be dropped without a
    word (the last one wins), and the record would read as pmparse's own, to be rewritten.

    YAML shares an aliased value, but the card schema, the comparison and every writer walk it
    once per reference: a 1.3 MB record of one list of 20,000 evidence stretches aliased by
    20,000 items took over 7 GB before ``validate`` was stopped. Written out without aliases a
    value takes at least a character, so a record whose expansion stays within its length costs
    no more than that record written plainly; one that expands further is refused.
    """

    def __init__(self, stream) -> None:  # noqa: ANN001 - PyYAML's signature
        super().__init__(stream)
        # without an anchor no value is shared, so nothing can expand: no walk (most records)
        text = stream.decode("utf-8", "replace") if isinstance(stream, bytes) else stream
        self._budget = len(stream) if isinstance(text, str) and _ANCHOR.search(text) else None

    def construct_document(self, node):  # noqa: ANN001, ANN201 - PyYAML's signature
        if self._budget is not None:
            size = expanded_size(node)
            if size is None or size > self._budget:
                raise AliasBombError(
                    None, None, "expected a record whose aliases expand to at most one value per character "
                    f"({self._budget}), found " + ("aliases that refer to themselves" if size is None
                                                   else f"aliases that expand to {size} values"),
                    node.start_mark)
        return super().construct_document(node)

    def construct_mapping(self, node, deep=False):  # noqa: ANN001, ANN201 - PyYAML's signature
        first: dict = {}
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = (key_node.tag, key_node.value)
            if key in first:
                raise DuplicateKeyError(
                    None, None, f"expected each key once in a mapping, found {key_node.value!r} again "
                    f"(first at line {first[key] + 1}; the reader would keep only the last)", key_node.start_mark)
            first[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep=deep)


def _json_pairs(pairs: list) -> dict:
    data = dict(pairs)
    if len(data) < len(pairs):  # a key given twice: name the first key that has a twin
        counts = Counter(key for key, _ in pairs)
        key = next(key for key, _ in pairs if counts[key] > 1)
        raise ValueError(f"expected each key once in an object, found {key!r} twice")
    return data


def parse_data(text: str, fmt: RecordFormat) -> object:
    """The plain data of a record's text, a key given twice in one mapping refused.

    Raises:
        json.JSONDecodeError, yaml.YAMLError: not parseable
            (:func:`pmparse.yaml_problems.syntax_error` says where).
        ValueError: a JSON object names a key twice, or nests past Python's recursion limit.
    """
    if fmt == "json":
        try:
            return json.loads(text, object_pairs_hook=_json_pairs)
        except RecursionError:
            # "[[[[..." 100,000 deep: json raises no decode error, and validate, which calls this
            # directly, ended on a traceback (YAML is refused before loading: check_depth)
            raise ValueError("expected a JSON record, found values nested too deep to read") from None
    return yaml.load(text, Loader=_RecordLoader)


_FlowList = yaml_text.FlowList


class _NeedsPythonEmitter(Exception):
    """A string libyaml would fold differently from PyYAML's emitter (see ``_represent_str``)."""


#: Scalars up to this length have their resolved tag remembered, at most this many of them (a
#: record's keys, numbers and short values repeat; its long texts do not).
_RESOLVE_CACHED = 64
_RESOLVE_CACHE_SIZE = 50_000

#: Strings shorter than this fit on a line at the record's width of 100 and fold the same way in both.
_FOLDABLE = 60

_ASTRAL = re.compile("[\U00010000-\U0010FFFF]")

# What PyYAML's ``analyze_scalar`` (with ``allow_unicode``) reads of a string, as three scans in C:
# it walked every character in Python, a third of the time of serialising a record. Its "special
# characters" (only a double-quoted string holds them): a tab, the other control characters but
# the line feed, DEL and the C1 controls but NEL, lone surrogates, the byte order mark, U+FFFE,
# U+FFFF and U+10FFFF. A line break is a line feed, NEL, U+2028 or U+2029.
_SPECIAL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufeff\ufffe\uffff\U0010ffff]")
_SPACE_BREAK = re.compile(" [\n\x85\u2028\u2029]")
_BREAK_SPACE = re.compile("[\n\x85\u2028\u2029] ")


def _quotable(data: str, multiline: bool) -> bool:
    """``analyze_scalar(data).allow_block`` when ``multiline``, else ``.allow_single_quoted``: a
    block may not end with a space, and neither holds a special character or a space before a
    line break; a single-quoted string may not hold a space after one either."""
    if _SPECIAL.search(data) or _SPACE_BREAK.search(data):
        return False
    return not data.endswith(" ") if multiline else not _BREAK_SPACE.search(data)


def _represent_flow(dumper: yaml.SafeDumper, data: _FlowList) -> yaml.Node:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=True)


def _libyaml_style(data: str) -> str | None:
    """The style a record's string is written in (a literal block when it has lines), checked to
    give PyYAML's bytes on libyaml.

    Raises:
        _NeedsPythonEmitter: libyaml would write ``data`` otherwise than PyYAML.
    """
    multiline = "\n" in data
    if _ASTRAL.search(data):
        raise _NeedsPythonEmitter  # libyaml escapes characters beyond U+FFFF, PyYAML writes them
    # libyaml folds a long double-quoted string at other places than PyYAML (which also breaks
    # after an escape); plain, single-quoted and literal text they fold alike. A string goes
    # double-quoted when it has lines but cannot be a literal block, or has characters a
    # single-quoted one cannot hold: only such a record takes the Python emitter
    if len(data) >= _FOLDABLE and not _quotable(data, multiline):
        raise _NeedsPythonEmitter
    return "|" if multiline else None


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.Node:
    if _CDumper is not None and isinstance(dumper, _CDumper):
        style = _libyaml_style(data)
    else:
        style = "|" if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


class _Dumper(yaml.SafeDumper):
    """Block style for the record, flow style for evidence, literal blocks for multi-line text."""


_Dumper.add_representer(_FlowList, _represent_flow)
_Dumper.add_representer(str, _represent_str)

if hasattr(yaml, "CSafeDumper"):
    class _CDumper(yaml.CSafeDumper):
        """``_Dumper`` on libyaml's emitter, about four times faster.

        libyaml's serializer asks :meth:`resolve` twice for every scalar (whether it would read
        back as a plain and as a quoted string) and steps the path resolvers in and out of every
        node. A record's scalars repeat (keys, offsets, field values) and the dumper has no path
        resolvers, so a short scalar's answers are remembered (they depend on its value and the
        class's implicit resolvers alone) and the steps return at once: the same tags, with fewer
        calls back into Python for each of a record's several hundred scalars.
        """

        _resolved: dict = {}

        def resolve(self, kind, value, implicit):  # noqa: ANN001, ANN201 - PyYAML's signature
            if kind is not yaml.ScalarNode or len(value) > _RESOLVE_CACHED:
                return super().resolve(kind, value, implicit)
            key = (value, implicit)
            tag = self._resolved.get(key)
            if tag is None:
                tag = super().resolve(kind, value, implicit)
                if len(self._resolved) < _RESOLVE_CACHE_SIZE:
                    self._resolved[key] = tag
            return tag

        if not yaml.CSafeDumper.yaml_path_resolvers:  # PyYAML's own methods return at once then
            def descend_resolver(self, current_node, current_index):  # noqa: ANN001, ANN201
                return None

            def ascend_resolver(self):  # noqa: ANN201
                return None

    _CDumper.add_representer(_FlowList, _represent_flow)
    _CDumper.add_representer(str, _represent_str)
else:  # pragma: no cover - PyYAML built without libyaml
    _CDumper = None  # type: ignore[assignment,misc]


class _SharedContainer(Exception):
    """A list or mapping met twice in the data (PyYAML would write an anchor and an alias)."""


_SCALARS = (str, int, float, bool, type(None))
_STR_TAG, _INT_TAG = "tag:yaml.org,2002:str", "tag:yaml.org,2002:int"


def _node(dumper, data: object, seen: set[int]) -> yaml.Node:
    """The node PyYAML's representer makes of ``data`` with ``default_flow_style=False`` and
    unsorted keys, without its per-object dispatch and alias bookkeeping (a record's data is
    plain mappings, lists and scalars, none met twice): serialising a record spent most of its
    time there. Scalars go through the dumper's own representers.

    Raises:
        _SharedContainer: a container is met twice, or a type other than the record's.
    """
    kind = type(data)
    if kind is str:  # _represent_str on libyaml, without the representer's call: most nodes are strings
        return yaml.ScalarNode(_STR_TAG, data, style=_libyaml_style(data))
    if kind is int:  # SafeRepresenter.represent_int
        return yaml.ScalarNode(_INT_TAG, str(data))
    if kind in _SCALARS:
        return dumper.yaml_representers[kind](dumper, data)
    if kind is not dict and kind is not list and kind is not _FlowList or id(data) in seen:
        raise _SharedContainer
    seen.add(id(data))
    if kind is dict:
        return yaml.MappingNode("tag:yaml.org,2002:map", [(_node(dumper, k, seen), _node(dumper, v, seen))
                                                          for k, v in data.items()], flow_style=False)
    return yaml.SequenceNode("tag:yaml.org,2002:seq", [_node(dumper, item, seen) for item in data],
                             flow_style=kind is _FlowList)


def _dump_libyaml(data: object, width: int) -> str:
    """``yaml.dump(data, Dumper=_CDumper, ...)`` for a record's data, its nodes made by :func:`_node`.

    Raises:
        _NeedsPythonEmitter: a string libyaml would write otherwise than PyYAML.
        _SharedContainer: data the shortcut does not cover (``yaml.dump`` writes it).
    """
    stream = io.StringIO()
    dumper = _CDumper(stream, default_flow_style=False, width=width, allow_unicode=True, sort_keys=False)
    try:
        node = _node(dumper, data, set())  # made before anything is written: a refusal leaves nothing behind
        dumper.open()
        dumper.serialize(node)
        dumper.close()
    finally:
        dumper.dispose()
    return stream.getvalue()


def _dump(data: object, **options: object) -> str:
    """YAML text of ``data``: a record's written directly (:mod:`.yaml_text`), other data
    through PyYAML (:func:`_dump_pyyaml`), the same bytes."""
    if set(options) == {"width"} and type(data) is dict:
        try:
            return yaml_text.dump_record(data, options["width"])  # type: ignore[arg-type]
        except yaml_text.NotCovered:
            pass
    return _dump_pyyaml(data, **options)


def _dump_pyyaml(data: object, **options: object) -> str:
    """YAML text of ``data`` through PyYAML: libyaml when it is there and gives the Python
    emitter's bytes, else the Python emitter (the reference :mod:`.yaml_text` is tested against)."""
    options.update(sort_keys=False, allow_unicode=True, default_flow_style=False)
    if _CDumper is not None:
        try:
            try:
                if set(options) == {"sort_keys", "allow_unicode", "default_flow_style", "width"}:
                    return _dump_libyaml(data, options["width"])  # type: ignore[arg-type]
            except _SharedContainer:
                pass
            return yaml.dump(data, Dumper=_CDumper, **options)
        except _NeedsPythonEmitter:
            pass
    return yaml.dump(data, Dumper=_Dumper, **options)


def card_data(card: Card) -> dict:
    """The card as plain data, in schema key order."""
    return card.model_dump(mode="json")


def _flowed(data: dict) -> dict:
    data = dict(data)
    for name in TEXT_FIELDS:
        data[name] = [dict(item, evidence=_FlowList(item["evidence"])) for item in data.get(name, [])]
    data["support"] = {k: dict(v, evidence=_FlowList(v["evidence"])) for k, v in data.get("support", {}).items()}
    for name in ("components", "root_cause_categories", "contributing_factor_categories"):
        data[name] = _FlowList(data.get(name, []))
    return data


def flow_text(items: list) -> str:
    """A list in YAML flow style on one line (an item's evidence: ``[{start: 1, end: 9}]``)."""
    return _dump(_FlowList(items), width=10**9).strip()


class _NotPlainJson(Exception):
    """Data :func:`_json_text` does not cover (``json.dumps`` writes it)."""


_encode_str = json.encoder.encode_basestring  # what json.dumps uses with ensure_ascii=False (C)


def _json_node(data: object, indent: str) -> str:
    """``json.dumps(data, ensure_ascii=False, indent=2)`` of one value whose lines start with
    ``indent`` (a line break and the spaces of its depth).

    Raises:
        _NotPlainJson: a type other than a record's (str, int, float, bool, None, list, dict with
            string keys), or a float ``json`` would write as NaN or Infinity.
    """
    kind = type(data)
    if kind is str:
        return _encode_str(data)
    if kind is dict:
        if not data:
            return "{}"
        inner = indent + "  "
        parts = []
        for key, value in data.items():
            if type(key) is not str:
                raise _NotPlainJson
            parts.append(_encode_str(key) + ": " + _json_node(value, inner))
        return "{" + inner + ("," + inner).join(parts) + indent + "}"
    if kind is list:
        if not data:
            return "[]"
        inner = indent + "  "
        return "[" + inner + ("," + inner).join([_json_node(item, inner) for item in data]) + indent + "]"
    if kind is int:
        return int.__repr__(data)
    if data is None:
        return "null"
    if data is True:
        return "true"
    if data is False:
        return "false"
    if kind is float and math.isfinite(data):
        return float.__repr__(data)
    raise _NotPlainJson


def _json_text(data: object) -> str:
    """``json.dumps(data, ensure_ascii=False, indent=2)``, the same text: the standard encoder
    writes indented JSON in pure Python, a generator per container (its C encoder does not
    indent); this builds each container's text in one join."""
    try:
        return _json_node(data, "\n")
    except _NotPlainJson:
        return json.dumps(data, ensure_ascii=False, indent=2)


def dumps(card: Card, fmt: RecordFormat = "yaml", data: dict | None = None) -> str:
    """Serialise a card; the same card always gives the same text.

    Args:
        card: The card.
        fmt: ``yaml`` or ``json``.
        data: ``card_data(card)`` when the caller has it already (a record and its base are
            written from the same data); not changed.
    """
    if data is None:
        data = card_data(card)
    if fmt == "json":
        return _json_text(data) + "\n"
    return _dump(_flowed(data), width=100)


def loads(text: str, fmt: RecordFormat, where: str) -> Card:
    """Parse and validate a record's text.

    Raises:
        RecordError: not parseable, or not a valid card (message lists ``field: reason``).
    """
    try:
        data = parse_data(text, fmt)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        conflict = merge_conflict_line(text)
        if conflict is not None:
            raise RecordError(f"expected a {fmt.upper()} record, {merge_conflict_reason(conflict)}", where) from exc
        line, reason = syntax_error(exc)
        at = f" at line {line}" if line is not None else ""
        found = ("a key given twice" if isinstance(exc, DuplicateKeyError)
                 else "aliases that expand it" if isinstance(exc, AliasBombError) else "a syntax error")
        raise RecordError(f"expected a {fmt.upper()} record, found {found}{at}: {reason}", where) from exc
    except ValueError as exc:  # a JSON key given twice (json names no line for it)
        raise RecordError(f"{exc}", where) from exc
    except RecursionError as exc:
        # "[[[[..." 100,000 deep: a state file or record from someone else's library
        raise RecordError(f"expected a {fmt.upper()} record, found values nested too deep to read", where) from exc
    if not isinstance(data, dict):
        raise RecordError(f"expected a mapping of card fields, found {type(data).__name__}", where)
    try:
        return Card.model_validate(data)
    except ValidationError as exc:
        # the line of each value, as validate gives it: a person repairs the file by it
        problems = []
        for error in exc.errors():
            line = line_of(text, error["loc"])
            problems.append(f"{f'line {line}: ' if line is not None else ''}{field_path(error['loc'])}: {problem_text(error)}")
        raise RecordError("; ".join(problems), where) from exc


def problem_text(error: dict) -> str:
    """The reason of one schema problem of a record; a key the card does not have is named as such.

    pydantic says "Extra inputs are not permitted" of a misspelt key (``titel:``), which did not
    tell a person that the key is the problem, nor which one was meant.
    """
    if error["type"] != "extra_forbidden":
        return error["msg"]
    loc = error["loc"]
    if len(loc) == 1:
        close = difflib.get_close_matches(str(loc[0]), list(Card.model_fields), n=1)
        return "not a card field" + (f" (did you mean {close[0]}?)" if close else "")
    return "not a key this value has"


def field_path(loc: tuple) -> str:
    """A validation error's location as a dotted field path (``root_cause.0.text``); ``(record)`` for the whole."""
    return ".".join(str(part) for part in loc) or "(record)"


def format_of(path: Path) -> RecordFormat:
    """The record format a file name implies."""
    return "json" if path.suffix == ".json" else "yaml"


def source_keys(path: Path) -> tuple[str | None, str | None]:
    """``(sha256, location)`` of an invalid record's source, as far as the file can be parsed."""
    try:
        text = read_record_text(path)
    except (OSError, UnicodeDecodeError):
        return None, None
    try:
        data = json.loads(text) if path.suffix == ".json" else yaml.load(text, Loader=CalendarLoader)
    except (json.JSONDecodeError, yaml.YAMLError, RecursionError):  # RecursionError: JSON nested 100,000 deep
        # a slip elsewhere in the file (a person's edit) must not hide which source the record is
        # of, or the next convert would make that source a second record: read the source block
        # pmparse wrote line by line
        return _salvage_source_json(text) if path.suffix == ".json" else _salvage_source_lines(text)
    source = data.get("source") if isinstance(data, dict) else None
    if not isinstance(source, dict):
        return None, None
    sha, location = source.get("sha256"), source.get("location")
    return (sha if isinstance(sha, str) else None, location if isinstance(location, str) else None)

_SOURCE_BLOCK = re.compile(r"^source:[ \t]*\n((?:[ \t]+\S.*(?:\n|$))+)", re.M)

_SOURCE_KEY = re.compile(r"^[ \t]+(sha256|location):[ \t]*(.+?)[ \t]*$", re.M)


def _salvage_source_lines(text: str) -> tuple[str | None, str | None]:
    """``(sha256, location)`` from the indented ``source:`` block of a YAML record that does not parse."""
    block = _SOURCE_BLOCK.search(text)
    if block is None:
        return None, None
    try:
        # the block alone is YAML when the slip is elsewhere: a long location folded over two
        # lines reads back whole
        data = yaml.load("source:\n" + block.group(1), Loader=CalendarLoader)
        source = data.get("source") if isinstance(data, dict) else None
    except yaml.YAMLError:
        source = None
    if isinstance(source, dict):
        sha, location = source.get("sha256"), source.get("location")
        return (sha if isinstance(sha, str) else None, location if isinstance(location, str) else None)
    found: dict[str, str] = {}
    for key, raw in _SOURCE_KEY.findall(block.group(1)):
        try:
            value = yaml.load(raw, Loader=CalendarLoader)  # one scalar: quotes and escapes as written
        except yaml.YAMLError:
            continue
        if isinstance(value, str) and key not in found:
            found[key] = value
    return found.get("sha256"), found.get("location")

_JSON_SOURCE = re.compile(r'"source"\s*:\s*\{')

_JSON_SHA = re.compile(r'"sha256"\s*:\s*"([0-9a-f]{64})"')

_JSON_LOCATION = re.compile(r'"location"\s*:\s*("(?:[^"\\\n]|\\.)*")')


def _salvage_source_json(text: str) -> tuple[str | None, str | None]:
    """``(sha256, location)`` of a JSON record that does not parse, read from its ``source``
    object (evidence stretches before it may carry an earlier text's ``sha256``)."""
    starts = [m.end() for m in _JSON_SOURCE.finditer(text)]
    if not starts:
        return None, None
    sha = _JSON_SHA.search(text, starts[-1])
    location = _JSON_LOCATION.search(text, starts[-1])
    try:
        value = json.loads(location.group(1)) if location else None
    except json.JSONDecodeError:
        value = None
    return (sha.group(1) if sha else None, value if isinstance(value, str) else None)


def source_text_of(card: Card, places: SourcePlaces) -> str | None:
    """The text a card's offsets index, when it can be had unchanged.

    Args:
        card: The record.
        places: Its library's places (:attr:`pmparse.library.store.Library.places`,
            :func:`pmparse.library.anchored.places_of`): a relative location is read from the
            library's anchor, not from the folder this process runs in (run from inside the
            library, a command found no text: evidence went unchecked, unshown and unmoved).
    """
    if card.source.extracted_text is not None:
        return card.source.extracted_text
    # an entry of a many-incident file indexes the whole file (its location names the entry); the
    # record may name any path, so only a plausible source (places.readable), a regular file of
    # bounded size, is read, and only while its sha256 is the record's
    path = places.readable(card.source.location)
    data = read_regular_file(path) if path is not None else None
    if data is None:
        return None
    try:
        text = newlines(data.decode("utf-8"))
    except UnicodeDecodeError:
        return None
    return text if sha256_text(text) == card.source.sha256 else None
