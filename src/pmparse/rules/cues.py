"""Field cues (``resources/cues.yaml``): phrases that hint at a card field.

The same table labels training units in ``pmparse train`` (weak supervision) and gives the unit
classifier features, so a model records the table's version and refuses another one.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from pmparse.card.schema import TEXT_FIELDS
from pmparse.errors import RulesError
from pmparse.rules.headings import check_regexes, load_yaml
from pmparse.yaml_problems import validation_summary

#: Cue names that are not fields: page chrome and template prompts.
CHROME = "chrome"
PROMPT = "prompt"


class CueHeadings(BaseModel):
    """Regexes over normalised headings used by weak labelling."""

    model_config = ConfigDict(extra="forbid")
    metadata: str = Field(description="Headings whose units hold no incident content.")
    broad: str = Field(description="Mapped headings whose units hold a mix of every field.")
    narrative: str = Field(description="Narration headings (timeline, background) whose unclaimed units are no field.")

    @field_validator("metadata", "broad", "narrative")
    @classmethod
    def _regex(cls, value: str) -> str:
        return check_regexes([value])[0]


class CueTimeline(BaseModel):
    """Training-only labelling function for triggers told in a timeline (never run on units at
    conversion time, so it costs nothing there)."""

    model_config = ConfigDict(extra="forbid")
    heading: str = Field(description="Normalised headings of timeline sections (a subset of the narrative ones).")
    note: str = Field(description="Timeline units that are notes about the timeline itself (time zone, order).")
    event: str = Field(description="A change, action or event that can set a failure off (searched lowercased).")
    window: int = Field(ge=1, description="How many substantive units at the start of a timeline are looked at.")
    min_words: int = Field(ge=1, description="Fewer words than this and a unit is not a timeline event.")

    @field_validator("heading", "note", "event")
    @classmethod
    def _regex(cls, value: str) -> str:
        return check_regexes([value])[0]


class CueWeights(BaseModel):
    """Sample weights of weak labels by how they were obtained."""

    model_config = ConfigDict(extra="forbid")
    heading: float = Field(gt=0, description="Unit under a heading mapped to a field.")
    broad_heading: float = Field(gt=0, description="Unit under a broad heading that no other cue claims.")
    reassigned: float = Field(gt=0, description="Unit moved from its heading's field by a cue.")
    cue: float = Field(gt=0, description="Unit outside mapped sections labelled by a cue.")
    narrative_none: float = Field(gt=0, description="Unclaimed unit of a narration section, labelled no field.")
    timeline_trigger: float = Field(gt=0, description="First change event of a timeline, labelled trigger.")
    chrome: float = Field(gt=0, description="Page chrome or template prompt, labelled no field.")


class CueRules(BaseModel):
    """The cue table."""

    model_config = ConfigDict(extra="forbid")
    version: int = Field(ge=1, description="Bumped on every change; models record it.")
    priority: list[str] = Field(description="Order in which fields are tried when several cues fire.")
    fields: dict[str, list[str]] = Field(description="Field to regexes searched in the unit text.")
    chrome: list[str] = Field(description="Regexes of page chrome, bare links and status words.")
    prompts: list[str] = Field(description="Regexes of report-template questions.")
    headings: CueHeadings = Field(description="Heading classes for weak labelling.")
    timeline: CueTimeline = Field(description="Trigger labelling function over timelines (training only).")
    weights: CueWeights = Field(description="Weak label sample weights.")

    @field_validator("fields")
    @classmethod
    def _field_regexes(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        for regexes in value.values():
            check_regexes(regexes)
        return value

    @field_validator("chrome", "prompts")
    @classmethod
    def _regexes(cls, value: list[str]) -> list[str]:
        return check_regexes(value)

    @model_validator(mode="after")
    def _every_field(self) -> CueRules:
        if set(self.fields) != set(TEXT_FIELDS):
            raise ValueError(f"expected cues for exactly {list(TEXT_FIELDS)}, found {sorted(self.fields)}")
        if sorted(self.priority) != sorted(TEXT_FIELDS):
            raise ValueError(f"expected priority to list every field once, found {self.priority}")
        return self


def lowercase_pattern(pattern: str) -> str:
    """``pattern`` for lowercased text: literal letters lowercased, escapes (``\\S``, ``\\W``) kept."""
    out, i = [], 0
    while i < len(pattern):
        if pattern[i] == "\\":
            out.append(pattern[i:i + 2])
            i += 2
            continue
        out.append(pattern[i].lower())
        i += 1
    return "".join(out)


def _structure(pattern: str):
    """``(index, character, depth)`` of each character of ``pattern`` that is neither escaped nor
    inside a character class; ``depth`` counts the groups open around it (a ``)`` is counted
    closed, a ``(`` not yet open)."""
    depth, i, in_class = 0, 0, False
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            if pattern[i + 1:i + 2] == "^":
                i += 1
            if pattern[i + 1:i + 2] == "]":  # a ] right after [ or [^ is a literal
                i += 1
        else:
            depth -= char == ")"
            yield i, char, depth
            depth += char == "("
        i += 1


def _group_end(pattern: str) -> int | None:
    """Index of the parenthesis closing the group ``pattern`` opens with (None when unbalanced)."""
    return next((i for i, char, depth in _structure(pattern) if char == ")" and depth == 0), None)


def _top_alternatives(body: str) -> list[str]:
    """``body`` split at the ``|`` that are not inside a group or class."""
    cuts = [i for i, char, depth in _structure(body) if char == "|" and depth == 0]
    return [body[a + 1:b] for a, b in zip([-1, *cuts], [*cuts, len(body)])]


_PLAIN_FIRST = re.compile(r"[a-z0-9](?![?*+{])")
_BACKREFERENCE = re.compile(r"\\[1-9]|\(\?P=")
_NAMED_GROUP = re.compile(r"\?P<\w+>")


def word_start_skip(pattern: str) -> str:
    """``pattern`` with its leading ``\\b`` moved after the first character, where that is sure.

    Python's ``re`` skips ahead to the characters a match may start with only when the pattern
    opens with a literal (or a group of alternatives each opening with one); a leading ``\\b``
    hides them, and the engine then tries every position (most of a tagger's time went there).
    ``\\bword`` becomes ``w(?<!\\w.)ord``: the look-behind, one character later, asks what
    ``\\b`` asked (the character before ``w`` is not a word character). Done for ``\\b``
    followed by a lowercase letter or digit, or by a group whose every alternative opens with
    one (not made optional by a quantifier); any other pattern is returned unchanged.
    """
    if not pattern.startswith("\\b") or "(?#" in pattern:
        # (a comment may stand between an atom and its quantifier: not worth reading around)
        return pattern
    rest = pattern[2:]
    if _PLAIN_FIRST.match(rest):
        return rest[0] + "(?<!\\w.)" + rest[1:]
    opener = "(?:" if rest.startswith("(?:") else "(" if rest.startswith("(") and not rest.startswith("(?") else None
    if opener is None:
        return pattern
    end = _group_end(rest)
    if end is None or rest[end + 1:end + 2] in ("?", "*", "+", "{"):
        return pattern
    alternatives = _top_alternatives(rest[len(opener):end])
    if not all(_PLAIN_FIRST.match(a) for a in alternatives):
        return pattern
    body = "|".join(a[0] + "(?<!\\w.)" + a[1:] for a in alternatives)
    return opener + body + rest[end:]


#: What Python's ``re`` matches to an ASCII letter under IGNORECASE besides its two cases.
_CASE_VARIANTS = {"i": "\u0130\u0131", "k": "\u212a", "s": "\u017f"}


def caseless_word_start(pattern: str) -> str:
    """``pattern`` (for IGNORECASE) opening with a character class ``re`` can skip ahead to, where that is sure.

    Python's ``re`` skips to the characters a match may start with only when they are not cased
    under IGNORECASE, so ``\\b(?:for|during)`` compiled with it tries every position of a text.
    ``\\b(?:for|during)x`` becomes ``(?-i:[FfDd])(?<!\\w.)(?:(?<=f)or|(?<=d)uring)x``: the class
    (every character IGNORECASE matches to one of the first letters, case-sensitive so ``re``
    can skip) takes the first character, the look-behind one character later asks what ``\\b``
    asked, and each alternative checks its own first letter looking back (under IGNORECASE, as
    before). Done when the pattern is ``\\b`` then a plain letter, or ``\\b`` then one group of
    alternatives, each opening with a plain letter or with such a group; any other pattern is
    returned unchanged.
    """
    if not pattern.startswith("\\b") or "(?#" in pattern or len(_top_alternatives(pattern)) != 1:
        return pattern
    letters: set[str] = set()
    if _PLAIN_FIRST.match(pattern[2:]) and pattern[2].isalpha():
        # one first letter: the class alone asks it (``\\bfor`` -> ``(?-i:[Ff])(?<!\\w.)or``)
        letters.add(pattern[2])
        body: str | None = pattern[3:]
    elif pattern.startswith("\\b(?:"):
        body = _first_letters_behind(pattern[2:], letters)
    else:
        body = None
    if body is None or not letters:
        return pattern
    return _caseless_class(letters) + "(?<!\\w.)" + body


def _caseless_class(letters: set[str]) -> str:
    """A case-sensitive class of every character IGNORECASE matches to one of ``letters``."""
    chars = "".join(sorted({c for letter in letters for c in letter.lower() + letter.upper()
                            + _CASE_VARIANTS.get(letter.lower(), "")}))
    return "(?-i:[" + chars + "])"


def caseless_start(pattern: str) -> str:
    """``pattern`` (for IGNORECASE), a group of alternatives each opening with a plain letter,
    opening with a character class ``re`` can skip ahead to instead.

    :func:`caseless_word_start` without the word boundary: ``(?:jan|feb)`` becomes
    ``(?-i:[FfJj])(?:(?<=j)an|(?<=f)eb)``, the class taking the first character and each
    alternative checking its own first letter looking back. Any other pattern is returned unchanged.
    """
    if not pattern.startswith("(?:") or "(?#" in pattern or len(_top_alternatives(pattern)) != 1:
        return pattern
    letters: set[str] = set()
    body = _first_letters_behind(pattern, letters)
    if body is None or not letters:
        return pattern
    return _caseless_class(letters) + body


def _first_letters_behind(group: str, letters: set[str]) -> str | None:
    """``group`` (opening with ``(?:``) with each alternative's first letter read by a look-behind
    instead (see :func:`caseless_word_start`); the letters join ``letters``. None when unsure."""
    end = _group_end(group)
    if end is None or group[end + 1:end + 2] in ("?", "*", "+", "{"):
        return None
    rewritten = []
    for alternative in _top_alternatives(group[3:end]):
        if alternative.startswith("(?:"):
            inner = _first_letters_behind(alternative, letters)
            if inner is None:
                return None
            rewritten.append(inner)
        elif _PLAIN_FIRST.match(alternative) and alternative[0].isalpha():
            letters.add(alternative[0])
            rewritten.append("(?<=" + alternative[0] + ")" + alternative[1:])
        else:
            return None
    return "(?:" + "|".join(rewritten) + ")" + group[end + 1:]


def without_captures(pattern: str) -> str:
    """``pattern`` with every capturing group made non-capturing (``(x)``, ``(?P<n>x)`` -> ``(?:x)``).

    It matches where ``pattern`` matches. For the shared cue scan: ``re`` records where each
    capturing group starts and ends, and an alternative opening with a group cannot be passed
    over by its first letter (a capture opens it), so the capture-free scan ran in less than
    half the time. Not for a pattern that refers back to its groups (``\\1``, ``(?P=name)``):
    the caller keeps those.
    """
    out, last = [], 0
    for i, char, _ in _structure(pattern):
        if char != "(":
            continue
        named = _NAMED_GROUP.match(pattern, i + 1)
        if named is not None:
            out.append(pattern[last:i + 1] + "?:")
            last = named.end()
        elif pattern[i + 1:i + 2] != "?":
            out.append(pattern[last:i + 1] + "?:")
            last = i + 1
    return "".join(out) + pattern[last:]


def _any_of(patterns: list[str]) -> re.Pattern | None:
    """One case-sensitive regex over lowercased text matching where any of ``patterns`` matches
    case-insensitively (None for no patterns).

    Python's ``re`` runs these alternations of words two to three times faster without
    IGNORECASE, so the text is lowercased once instead (the same answer for any text whose
    lowercase keeps its length, which is all but a few exotic letters). The patterns were
    validated one by one; named groups would clash in the alternation, so they are made
    anonymous first (the cues only ask whether something matches).
    """
    if not patterns:
        return None
    parts = [lowercase_pattern(re.sub(r"\(\?P<\w+>", "(?:", p)) for p in patterns]
    return re.compile("|".join(f"(?:{p})" for p in parts))


class Cues:
    """Compiled cue table.

    Args:
        rules: The validated table.
    """

    def __init__(self, rules: CueRules) -> None:
        self.rules = rules
        self.version = rules.version
        self.priority = list(rules.priority)
        # The field patterns that open with \b share one scan, \b(?:p1|p2|...): each of twelve
        # scans of a unit paid the engine's try at every position (they are most of the unit
        # classifier's time). Where the shared scan matches, the patterns whose cues have not
        # fired are asked at that position alone (see hits). The other patterns keep one
        # alternation per cue.
        shared: list[tuple[int, str]] = []
        rest: dict[str, list[str]] = {name: [] for name in rules.priority}
        for index, name in enumerate(rules.priority):
            for pattern in rules.fields[name]:
                low = lowercase_pattern(re.sub(r"\(\?P<\w+>", "(?:", pattern))
                body = low[2:]
                if low.startswith("\\b") and len(_top_alternatives(body)) == 1 and not _BACKREFERENCE.search(body):
                    shared.append((index, body))
                else:
                    rest[name].append(pattern)
        self._fields = [(name, _any_of(rest[name])) for name in rules.priority]
        # without captures: where the scan matches, the patterns are asked there one by one anyway
        self._shared = re.compile("\\b(?:" + "|".join(without_captures(body) for _, body in shared) + ")") \
            if shared else None
        self._opening = [re.compile("\\b" + without_captures(body)) for _, body in shared]
        self._cue_of = [index for index, _ in shared]
        self._chrome = _any_of(rules.chrome)
        self._prompts = _any_of(rules.prompts)
        self.metadata = re.compile(rules.headings.metadata)
        self.broad = re.compile(rules.headings.broad)
        self.narrative = re.compile(rules.headings.narrative)
        self.timeline = rules.timeline
        self.timeline_heading = re.compile(rules.timeline.heading)
        self.timeline_note = re.compile(rules.timeline.note)
        self.trigger_event = re.compile(lowercase_pattern(rules.timeline.event))
        self.weights = rules.weights

    def hits(self, text: str) -> list[str]:
        """Names of the cues firing in ``text``: fields in priority order, then chrome and prompt."""
        folded = " ".join(text.lower().split())
        fired = [False] * len(self.priority)
        if self._shared is not None:
            pending = set(self._cue_of)
            search, pos = self._shared.search, 0
            while pending:
                match = search(folded, pos)
                if match is None:
                    break
                at = match.start()
                # some pattern matches here: every one whose cue has not fired yet is asked here
                for opening, cue in zip(self._opening, self._cue_of):
                    if not fired[cue] and opening.match(folded, at):
                        fired[cue] = True
                pending = {cue for cue in pending if not fired[cue]}
                pos = at + 1
        for index, (_, regex) in enumerate(self._fields):
            if not fired[index] and regex is not None and regex.search(folded):
                fired[index] = True
        found = [name for name, hit in zip(self.priority, fired) if hit]
        if self._chrome is not None and self._chrome.search(folded):
            found.append(CHROME)
        if self._prompts is not None and self._prompts.search(folded):
            found.append(PROMPT)
        return found

    def is_chrome(self, text: str) -> bool:
        """Whether ``text`` is page chrome (a wiki footer line, a bare link, a status word)."""
        return self._chrome is not None and self._chrome.search(" ".join(text.lower().split())) is not None


@functools.lru_cache(maxsize=4)
def load_cues(path: Path | None = None) -> Cues:
    """Load and validate the cue table.

    Args:
        path: A replacement table; the packaged one when None.

    Raises:
        RulesError: the file is unreadable or invalid.
    """
    where, data, text = load_yaml("cues.yaml", Path(path) if path else None)
    try:
        return Cues(CueRules.model_validate(data))
    except ValidationError as exc:
        raise RulesError(f"invalid cue rules: {validation_summary(exc, text)}", where) from exc
