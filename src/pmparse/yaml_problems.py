"""One-line messages for a YAML or JSON file a person wrote: the line and the reason of a syntax
error, and of each value that does not fit its schema (PyYAML's and pydantic's own messages span
several lines, name ``<unicode string>`` and link to a web page)."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Callable

import yaml
from pydantic import ValidationError


def _calendar_timestamp(loader: yaml.constructor.SafeConstructor, node: yaml.ScalarNode) -> object:
    """A YAML timestamp, or a YAML error at its line when it is shaped like a date but names no
    calendar day (``2018-13-01``, ``2019-02-29``).

    PyYAML raises ValueError there, which no ``except yaml.YAMLError`` catches: a date a person
    typed unquoted into a record, a settings file or an edit in ``review`` stopped every command
    with a traceback instead of naming the file and the line.
    """
    try:
        return yaml.constructor.SafeConstructor.construct_yaml_timestamp(loader, node)
    except ValueError as exc:
        raise yaml.constructor.ConstructorError(
            None, None, f"expected a calendar date, found {node.value!r} ({exc}; quote it to keep it as text)",
            node.start_mark) from exc


#: How deep a YAML file pmparse reads may nest (a record nests 5 levels, a settings file 1).
MAX_DEPTH = 1000

#: What opens a level of nesting within a line; nesting by indentation alone makes each line
#: longer than the last, so 20,000 levels take 200 million characters.
_OPENERS = ("[", "{", "- ", "? ", "-\t", "?\t")


class NestingError(yaml.YAMLError):
    """A YAML text nested deeper than :data:`MAX_DEPTH`."""


def check_depth(text: object, limit: int = MAX_DEPTH) -> None:
    """Refuse YAML nested deeper than ``limit`` before a loader builds it.

    libyaml's loader crashed the process (a segmentation fault, no message) on a record holding
    ``lessons: [[[[...`` 50,000 deep or ``- - - ...``: every command that read the library died,
    ``validate`` included; the pure-Python loader raised RecursionError, a traceback. A text with
    fewer openers than ``limit`` cannot nest that deep (no cost beyond counting); else the depth
    is measured on the parser's events, which involve no recursion.

    Raises:
        NestingError: nested deeper than ``limit``.
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if not isinstance(text, str):
        return
    # one-character counts run at memchr speed, two-character ones about a third of it: the
    # characters bound the openers from above ("- " and "-\t" each hold a "-" of their own), so
    # most texts are passed on four fast counts (7.7 against 26 ms over a converted library's
    # 881 records, 5.3 MB)
    if text.count("[") + text.count("{") + text.count("-") + text.count("?") <= limit:
        return
    if sum(text.count(opener) for opener in _OPENERS) <= limit:
        return
    depth = 0
    try:
        for event in yaml.parse(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                depth += 1
                if depth > limit:
                    raise _too_deep(limit, event.start_mark)
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                depth -= 1
    except NestingError:
        raise
    except yaml.YAMLError as exc:
        # PyYAML 6.0.4's libyaml refuses more than 1,000 levels itself, and its scanner reads far
        # enough ahead that the refusal comes before the events reach ``limit``: a text the C
        # parser calls too deep is deeper than any limit here, and the pure-Python loader that
        # comes next would recurse past Python's frames on it
        if "maximum nesting depth" in str(exc):
            raise _too_deep(limit, getattr(exc, "problem_mark", None)) from None
        return  # the loader names the syntax error


def _too_deep(limit: int, mark) -> NestingError:  # noqa: ANN001 - PyYAML's Mark, or None
    """The error of a text nested deeper than ``limit``, at ``mark``'s line when known."""
    where = f" (line {mark.line + 1})" if mark is not None else ""
    return NestingError(f"expected values nested at most {limit} levels deep, found deeper{where}")


#: How deep a text the pure-Python loader is given may nest: it recurses about twice per level,
#: so past about 450 levels (of Python's 1000 frames) it raised RecursionError, a traceback,
#: well within :data:`MAX_DEPTH`. Its texts (a folder's settings, a field edited in review) nest
#: a few levels.
PURE_MAX_DEPTH = 100


class PureCalendarLoader(yaml.SafeLoader):
    """PyYAML's pure-Python safe loader (``yaml.safe_load``'s), a date that is no calendar day a
    YAML error, a text nested past :data:`PURE_MAX_DEPTH` refused (:func:`check_depth`)."""

    def __init__(self, stream) -> None:  # noqa: ANN001 - PyYAML's signature
        check_depth(stream, PURE_MAX_DEPTH)
        super().__init__(stream)


PureCalendarLoader.add_constructor("tag:yaml.org,2002:timestamp", _calendar_timestamp)


class CalendarLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """libyaml's safe loader when PyYAML was built with it (else the pure one), a date that is no
    calendar day a YAML error, a text nested past :data:`MAX_DEPTH` refused (:func:`check_depth`)."""

    def __init__(self, stream) -> None:  # noqa: ANN001 - PyYAML's signature
        check_depth(stream)
        super().__init__(stream)


CalendarLoader.add_constructor("tag:yaml.org,2002:timestamp", _calendar_timestamp)


#: The first line of a conflict git leaves in a file both sides of a merge changed. At the start of
#: a line no record pmparse writes (YAML or JSON) holds it: its values are indented or quoted.
_CONFLICT_START = re.compile(r"^<{7}(?: |$)", re.M)


def merge_conflict_line(text: str) -> int | None:
    """The line (from 1) where ``text`` holds git's conflict markers (``<<<<<<< HEAD``), or None.

    A library shared through git is left so by a merge both curators' changes reach (two records
    given one id, one field edited on both sides): YAML said "could not find expected ':'", and
    convert took the record for whichever side's source it read first.
    """
    match = _CONFLICT_START.search(text)
    return None if match is None else text.count("\n", 0, match.start()) + 1


def merge_conflict_reason(line: int) -> str:
    """What a record or state file left mid-merge is, and what to do (a sentence to follow a file name)."""
    return (f"found an unfinished merge (git conflict markers from line {line}): keep one side of each "
            "conflict, or both edits, and remove the markers")


def syntax_error(exc: Exception) -> tuple[int | None, str]:
    """The line (1-based) and a one-line reason of a YAML or JSON syntax error.

    PyYAML's message spans several lines and names ``<unicode string>``; a person repairing the
    record needs the line, the problem and what it was inside ("a flow sequence started at line 6").
    """
    if isinstance(exc, json.JSONDecodeError):
        return exc.lineno, f"{exc.msg} (column {exc.colno})"
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None)
    if mark is None or not problem:
        return None, " ".join(str(exc).split())
    reason = f"{problem} (column {mark.column + 1})"
    context, context_mark = getattr(exc, "context", None), getattr(exc, "context_mark", None)
    if context:
        reason += f", {context}" + (f" at line {context_mark.line + 1}, column {context_mark.column + 1}"
                                     if context_mark is not None else "")
    return mark.line + 1, reason


def line_of(text: str, loc: tuple) -> int | None:
    """The line (from 1) of the value at ``loc`` (keys and list indexes, as pydantic names a
    problem) in a record's text; None for a value the text does not hold (a field left out) or
    text that cannot be composed. JSON is read as the YAML it also is.

    The text is composed once for all the problems of one file, and each mapping's keys are
    looked up in a table made once: composing it again for every problem took over a minute for
    a 41 kB record of 20,000 invalid items.
    """
    node = _composed(text)
    for step in loc:
        if isinstance(node, yaml.MappingNode):
            node = _keys_of(node).get(str(step))
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int) and 0 <= step < len(node.value):
            node = node.value[step]
        else:
            return None
    return node.start_mark.line + 1 if node is not None else None


@lru_cache(maxsize=4)
def _composed(text: str) -> yaml.Node | None:
    try:
        return yaml.compose(text, Loader=yaml.SafeLoader)
    except (yaml.YAMLError, RecursionError):
        # the pure-Python composer recurses per level of nesting: a value nested deeper than it
        # can follow (one the record loader read) is named without its line, not a traceback
        return None


def _keys_of(node: yaml.MappingNode) -> dict[str, yaml.Node]:
    """The values of a mapping node by key (the first of a key given twice), made once per node."""
    keys = getattr(node, "_pmparse_keys", None)
    if keys is None:
        keys = {}
        for key, value in node.value:
            keys.setdefault(key.value if isinstance(key, yaml.ScalarNode) else None, value)
        node._pmparse_keys = keys  # type: ignore[attr-defined]
    return keys


def syntax_problem(exc: Exception) -> str:
    """A syntax error as one line: ``a syntax error at line N: reason`` (:func:`syntax_error`)."""
    line, reason = syntax_error(exc)
    return f"a syntax error{f' at line {line}' if line is not None else ''}: {reason}"


def validation_summary(exc: ValidationError, text: str | None = None, most: int | None = 3,
                       unknown: Callable[[str], str] | None = None) -> str:
    """A schema error as one line: each problem as ``line N: key.path: reason`` (the line when
    ``text`` holds the value), the first ``most`` of them (None: all) and how many more. Unknown
    keys come first: a misspelt key is often why a required one is missing; ``unknown`` words
    their problem from the key (``key: not a known key`` without it)."""
    problems = []
    errors = sorted(exc.errors(), key=lambda error: error["type"] != "extra_forbidden")
    for error in errors[:most]:
        key = ".".join(str(part) for part in error["loc"]) or "(file)"
        at = line_of(text, error["loc"]) if text is not None else None
        if error["type"] != "extra_forbidden":
            problem = f"{key}: {error['msg']}"
        else:
            problem = unknown(key) if unknown is not None else f"{key}: not a known key"
        problems.append(f"{f'line {at}: ' if at is not None else ''}{problem}")
    more = exc.error_count() - len(problems)
    return "; ".join(problems) + (f"; and {more} more" if more > 0 else "")


def expanded_size(root: yaml.Node) -> int | None:
    """How many nodes ``root`` stands for with every alias written out, counted with each shared
    node's size memoised (linear in the distinct nodes); None when a node contains itself.

    Iterative, as the composer may hand over a value nested thousands of levels deep.
    """
    sizes: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            on_path.discard(key)
            children = _children(node)
            sizes[key] = 1 + sum(sizes[id(child)] for child in children)
            continue
        if key in sizes:
            continue
        if key in on_path:
            return None
        on_path.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in sizes)
    return sizes[id(root)]


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []
