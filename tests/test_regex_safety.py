"""No regex of pmparse costs more than linear time on hostile text.

Every regex pmparse can run over input text is collected: compiled patterns held by module
globals (alone or in lists, tuples and dicts), patterns written inline in ``re.search(...)``-style
calls (found in the source with ``ast``), and the regexes of the packaged rule tables. Each runs
over long adversarial strings (runs of one character or a short unit, with and without a
character that makes the match fail at the end) the way the code calls it (``match`` when the
code only ever matches at a position, otherwise a scan from every position with ``finditer``),
in a forked process with a generous time budget per string: a linear pattern needs
milliseconds, a catastrophic one minutes. The budget is a timeout, not a timing assertion.
"""

from __future__ import annotations

import ast
import importlib
import multiprocessing
import pkgutil
import re
import sys
from pathlib import Path

import pytest

import pmparse

#: Seconds one pattern may take on one string (a linear pattern needs milliseconds).
BUDGET = 2.0
#: Length of the adversarial strings.
LENGTH = 20_000

UNITS = [
    " ", "\t", "\n", "\r\n", "#", "*", "|", "-", "=", "_", "`", "~", ":", ".", ",", "0", "9", "a", "A", "é",
    "(", ")", "[", "<", "/", "'", "%",
    "# ", "* ", "- ", "| ", "1.", "1:", "a ", "a.", "A. ", "**", "__", "a:", "12:00 ", "2020-", "-a",
    "for 1 hour and ", "- a\n", "# a\n", "e.g. ", "Root cause: ", "**a**", " \n",
]


def adversarial_strings() -> list[tuple[str, str]]:
    """``(description, text)`` pairs: each unit repeated to LENGTH, then the same with a failing end."""
    found = []
    for unit in UNITS:
        run = (unit * (LENGTH // len(unit) + 1))[:LENGTH]
        found.append((f"{unit!r} x {LENGTH // len(unit)}", run))
        found.append((f"{unit!r} x {LENGTH // len(unit)} + '\\u2603'", run + "\u2603"))
    return found


def _modules() -> list:
    modules = []
    for info in pkgutil.walk_packages(pmparse.__path__, "pmparse."):
        modules.append(importlib.import_module(info.name))
    return modules


def _patterns_in(value, depth: int = 0):
    if isinstance(value, re.Pattern):
        yield value
    elif depth < 2 and isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            yield from _patterns_in(item, depth + 1)
    elif depth < 2 and isinstance(value, dict):
        for item in value.values():
            yield from _patterns_in(item, depth + 1)


_RE_FUNCTIONS = {"compile", "match", "search", "fullmatch", "finditer", "findall", "sub", "subn", "split"}
#: Methods that try a pattern at one position only; every other use scans all positions.
_ANCHORED = {"match", "fullmatch"}

#: Patterns the code only applies to strings it has cut to a bound: tested at that bound.
BOUNDED = {
    # facts.find_title matches a line it first cuts to 201 characters
    r"^(?:#{1,6}\s+|=+\s*)?(.+?)(?:\s*=+)?\s*$": 201,
}

#: Known slow patterns in modules being rewritten by their owners (issue 7 report): each is a
#: strict xfail, so the test fails as soon as one is fixed and its entry can go.
KNOWN_SLOW: dict[str, str] = {}


def _flags(node: ast.AST) -> int | None:
    """The value of a flags argument made of ``re.X`` names joined by ``|`` (None otherwise)."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "re":
        return getattr(re, node.attr, None)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = _flags(node.left), _flags(node.right)
        return None if left is None or right is None else left | right
    return None


def inline_patterns(path: Path) -> list[tuple[str, re.Pattern, str]]:
    """Patterns written as string literals in ``re.<function>(...)`` calls of one source file.

    Returns:
        ``(name, pattern, how)``; how is ``match``, ``fullmatch`` or ``scan``.
    """
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "re"
                and node.func.attr in _RE_FUNCTIONS and node.args):
            continue
        first = node.args[0]
        if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
            continue
        flags = 0
        flag_arg = next((kw.value for kw in node.keywords if kw.arg == "flags"), None)
        position = {"compile": 1, "match": 2, "search": 2, "fullmatch": 2, "finditer": 2, "findall": 2,
                    "split": 3, "sub": 4, "subn": 4}[node.func.attr]
        if flag_arg is None and len(node.args) > position:
            flag_arg = node.args[position]
        if flag_arg is not None:
            value = _flags(flag_arg)
            if value is None:
                continue
            flags = value
        how = node.func.attr if node.func.attr in _ANCHORED else "scan"
        found.append((f"{path.stem}:{node.lineno}", re.compile(first.value, flags), how))
    return found


def _uses(module) -> dict[str, set[str]]:
    """For each module-level name, the ``re.Pattern`` methods the module calls on it."""
    uses: dict[str, set[str]] = {}
    try:
        tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    except (OSError, TypeError):
        return uses
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            uses.setdefault(node.value.id, set()).add(node.attr)
    return uses


def collect_patterns() -> dict[str, tuple[re.Pattern, str]]:
    """Every regex pmparse may run over input text, by a readable id, with how it is applied."""
    patterns: dict[str, tuple[re.Pattern, str]] = {}
    seen: set[tuple[str, int]] = set()

    def add(name: str, pattern: re.Pattern, how: str = "scan") -> None:
        key = (pattern.pattern, pattern.flags)
        if key not in seen:
            seen.add(key)
            patterns[name] = (pattern, how)

    for module in _modules():
        uses = _uses(module)
        for name, value in sorted(vars(module).items()):
            methods = uses.get(name, set()) & (_RE_FUNCTIONS - {"compile"})
            anchored = isinstance(value, re.Pattern) and len(methods) == 1 and methods <= _ANCHORED
            how = methods.pop() if anchored else "scan"
            for i, pattern in enumerate(_patterns_in(value)):
                suffix = "" if isinstance(value, re.Pattern) else f"[{i}]"
                add(f"{module.__name__}.{name}{suffix}", pattern, how if not suffix else "scan")
    root = Path(pmparse.__file__).parent
    for path in sorted(root.rglob("*.py")):
        for name, pattern, how in inline_patterns(path):
            add(f"inline {name}", pattern, how)
    from pmparse.rules.headings import load_headings

    for i, (pattern, _field) in enumerate(load_headings()._patterns):
        add(f"headings.yaml pattern {i}", pattern)
    keywords = sys.modules.get("pmparse.nlp.components.keywords")
    if keywords is not None and hasattr(keywords, "load_keywords"):
        for i, (_field, pattern) in enumerate(keywords.load_keywords()):
            add(f"keywords.yaml pattern {i}", pattern)
    return patterns


PATTERNS = collect_patterns()
STRINGS = adversarial_strings()


def _run(pattern: re.Pattern, how: str, strings: list[tuple[str, str]], conn) -> None:
    limit = BOUNDED.get(pattern.pattern)
    for i, (_, text) in enumerate(strings):
        if limit is not None:
            text = text[:limit]
        if how == "match":
            pattern.match(text)
        elif how == "fullmatch":
            pattern.fullmatch(text)
        else:
            for _ in pattern.finditer(text):
                pass
        conn.send(i)
    conn.close()


def test_the_collection_finds_the_patterns_of_every_stage():
    names = " ".join(PATTERNS)
    for expected in ("pmparse.nlp.components.units._BOUNDARY", "pmparse.nlp.components.sectionizer._ATX",
                     "pmparse.nlp.lines._LINE", "pmparse.ingest.read._FRONT_MATTER_END", "pmparse.nlp.tokenizer._RISKY",
                     "inline ", "headings.yaml pattern"):
        assert expected in names
    assert PATTERNS["pmparse.nlp.components.sectionizer._ATX"][1] == "match"
    assert PATTERNS["pmparse.nlp.components.units._BOUNDARY"][1] == "scan"
    assert len(PATTERNS) > 40


def test_a_catastrophic_pattern_is_caught():
    """The harness itself: a nested quantifier runs out of budget on a failing run."""
    context = multiprocessing.get_context("fork")
    parent, child = context.Pipe(duplex=False)
    process = context.Process(target=_run, args=(re.compile(r"(a+)+$"), "match", [("a", "a" * 40 + "!")], child),
                              daemon=True)
    process.start()
    child.close()
    try:
        assert not parent.poll(BUDGET)
    finally:
        process.kill()
        process.join()


def _params():
    for name in sorted(PATTERNS):
        marks = [pytest.mark.xfail(reason=KNOWN_SLOW[name], strict=True)] if name in KNOWN_SLOW else []
        yield pytest.param(name, marks=marks, id=name)


@pytest.mark.skipif(sys.platform != "linux", reason="needs fork to share the compiled patterns cheaply")
@pytest.mark.parametrize("name", list(_params()))  # a list: pytest is dropping generator support
def test_regex_runs_in_linear_time_on_hostile_text(name):
    pattern, how = PATTERNS[name]
    context = multiprocessing.get_context("fork")
    parent, child = context.Pipe(duplex=False)
    process = context.Process(target=_run, args=(pattern, how, STRINGS, child), daemon=True)
    process.start()
    child.close()
    try:
        for i, (description, _) in enumerate(STRINGS):
            if not parent.poll(BUDGET):
                pytest.fail(f"{name} ({pattern.pattern!r}, {how}) took more than {BUDGET} s on {description}")
            assert parent.recv() == i
    finally:
        process.kill()
        process.join()
