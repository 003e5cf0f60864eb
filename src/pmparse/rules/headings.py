"""Versioned rule data from package resources, validated on load.

Rules are data, not code: heading synonyms (``resources/headings.yaml``) and the taxonomy
(``resources/taxonomy.yaml``) ship inside the package and are read with :mod:`importlib.resources`.
A broken resource raises :class:`~pmparse.errors.RulesError` naming the entry at fault.
"""

from __future__ import annotations

import functools
import re
from importlib import resources
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from pmparse.card.schema import TEXT_FIELDS
from pmparse.errors import RulesError
from pmparse.yaml_problems import syntax_problem, validation_summary

FieldOrNone = Literal[
    "symptoms",
    "trigger",
    "root_cause",
    "contributing_factors",
    "detection",
    "remediation",
    "action_items",
    "lessons",
    "none",
]


def check_regexes(values: list[str]) -> list[str]:
    """Validator helper for rule files: every value must compile as a Python regex.

    Raises:
        ValueError: naming the first regex that does not compile.
    """
    for value in values:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"regex {value!r} does not compile: {exc}") from exc
    return values


class HeadingPattern(BaseModel):
    """A regex over a normalised heading, and the field it maps to."""

    model_config = ConfigDict(extra="forbid")
    field: FieldOrNone = Field(description="Card field, or 'none' for known unmapped headings.")
    regex: str = Field(description="Python regex searched in the normalised heading.")

    @field_validator("regex")
    @classmethod
    def _compiles(cls, value: str) -> str:
        return check_regexes([value])[0]


class HeadingRules(BaseModel):
    """The heading synonym table."""

    model_config = ConfigDict(extra="forbid")
    version: int = Field(ge=1, description="Bumped on every change of the table.")
    synonyms: dict[FieldOrNone, list[str]] = Field(description="Exact normalised headings per field.")
    patterns: list[HeadingPattern] = Field(default_factory=list, description="Fallback regexes, in order.")

    @field_validator("synonyms")
    @classmethod
    def _unique(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        seen: dict[str, str] = {}
        for field, names in value.items():
            for name in names:
                norm = normalise_heading(name)
                if norm != name:
                    raise ValueError(f"synonym {name!r} of {field} is not in normal form (expected {norm!r})")
                if norm in seen and seen[norm] != field:
                    raise ValueError(f"synonym {name!r} maps to both {seen[norm]} and {field}")
                seen[norm] = field
        return value


_NUMBERING = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[ivx]+\.|[a-z]\))\s+")
_PARENS = re.compile(r"\([^()]{0,200}\)|\[[^\[\]]{0,200}\]")
_MARKUP = re.compile(r"[*_`#=~]+")
_SPACES = re.compile(r"\s+")
_EDGE = re.compile(r"^[\s:.\-–—?!]+|[\s:.\-–—?!]+$")


@functools.lru_cache(maxsize=8192)  # templates repeat their headings, and lookups repeat per label
def normalise_heading(text: str) -> str:
    """The normal form of a heading used for synonym lookup.

    Args:
        text: A heading as written, e.g. ``"## 3. Root Cause(s):"``.

    Returns:
        Lower-case words without numbering, markup, parentheses or edge punctuation,
        e.g. ``"root cause"``.
    """
    value = _MARKUP.sub(" ", text.lower())
    value = _PARENS.sub(" ", value)
    value = value.replace("&", " and ").replace("’", "'")
    value = _SPACES.sub(" ", value).strip()
    value = _NUMBERING.sub("", value)
    value = _EDGE.sub("", value)
    return _SPACES.sub(" ", value).strip()


class HeadingTable:
    """Looks up the card field of a heading.

    Args:
        rules: The validated synonym table.
    """

    def __init__(self, rules: HeadingRules) -> None:
        self.rules = rules
        self.version = rules.version
        self._exact = {name: field for field, names in rules.synonyms.items() for name in names}
        self._patterns = [(re.compile(p.regex), p.field) for p in rules.patterns]

    def lookup(self, heading: str) -> tuple[str | None, float] | None:
        """Map a heading to a field.

        Args:
            heading: The heading as written.

        Returns:
            ``(field, confidence)`` where field is ``None`` for a known heading without a field
            (Summary, Timeline), or ``None`` when the table does not know the heading.
        """
        norm = _written_out(normalise_heading(heading))
        if not norm:
            return None
        if norm in self._exact:
            field = self._exact[norm]
            return (None if field == "none" else field, 0.9)
        for regex, field in self._patterns:
            if regex.search(norm):
                return (None if field == "none" else field, 0.75)
        return None

    def is_known(self, heading: str) -> bool:
        """True when the normalised heading is an exact synonym of the table."""
        return _written_out(normalise_heading(heading)) in self._exact


#: A pronoun's contraction in a heading ("What we're doing about it", "What we’ve changed"): the
#: table writes it out. Only after a pronoun: "Zorbq's response" is a name's. A negation ("didn't")
#: is left as written: the table holds both forms.
_CONTRACTION = re.compile(r"\b(we|they|you|i)'(re|ve|ll)\b")
_WRITTEN_OUT = {"re": "are", "ve": "have", "ll": "will"}


def _written_out(norm: str) -> str:
    """``norm`` (a normal form, "’" already read as "'") with its pronouns' contractions written out;
    the lookup's only: the normal form stays what the models were trained on."""
    return _CONTRACTION.sub(lambda m: f"{m.group(1)} {_WRITTEN_OUT[m.group(2)]}", norm) if "'" in norm else norm


#: libyaml's safe loader when PyYAML was built with it: parsing the rule files with the pure
#: Python loader was a quarter of the pipeline's start-up.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


#: The largest rules file read from a path (the packaged ones are under 25 kB).
RULES_READ_LIMIT = 4 * 1024 * 1024


def load_yaml(name: str, path: Path | None) -> tuple[str, object, str]:
    """``(where, data, text)`` of a rules file: the packaged resource ``name``, or the file at ``path``.

    Raises:
        RulesError: The file cannot be read or is not valid YAML (one line: where and why).
    """
    from pmparse.util import FileTooLarge, read_limited

    where = str(path) if path is not None else f"pmparse/resources/{name}"
    try:
        raw = (resources.files("pmparse.resources").joinpath(name).read_text(encoding="utf-8") if path is None
               else read_limited(path, RULES_READ_LIMIT).decode("utf-8"))
    except FileTooLarge as exc:
        # a library's own headings.yaml comes with the library: one of gigabytes was read whole
        raise RulesError(f"expected a rules file of at most {RULES_READ_LIMIT >> 20} MiB, found {exc.size:,} bytes",
                         where) from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise RulesError(f"expected a readable UTF-8 YAML file, found {type(exc).__name__}: {exc}", where) from exc
    if path is not None:
        _check_shape(raw, where)
    try:
        return where, yaml.load(raw, Loader=SAFE_LOADER), raw
    except yaml.YAMLError as exc:
        raise RulesError(f"expected YAML, found {syntax_problem(exc)}", where) from exc


#: How deep a rules file given by path may nest (the packaged ones nest 4 levels).
MAX_RULES_DEPTH = 32


def _check_shape(raw: str, where: str) -> None:
    """Refuse a rules file nested past :data:`MAX_RULES_DEPTH` or whose aliases expand it past its size.

    A library's own ``headings.yaml`` comes with the library, from whoever shared it: libyaml's
    loader crashed the process (a segmentation fault) on 100,000 ``[``, and aliases nested ten
    by ten by ten make a small file stand for millions of values, each then validated.

    Raises:
        RulesError: naming the file and the limit.
    """
    from pmparse.yaml_problems import NestingError, check_depth, expanded_size

    try:
        check_depth(raw, MAX_RULES_DEPTH)
        if "&" in raw:
            for node in yaml.compose_all(raw, Loader=yaml.SafeLoader):
                size = expanded_size(node) if node is not None else 0
                if size is None or size > len(raw):
                    raise RulesError("expected aliases that expand the file to at most one value per character, "
                                     "found " + ("aliases that refer to themselves" if size is None
                                                 else f"{size} values"), where)
    except NestingError as exc:
        raise RulesError(f"expected YAML nested at most {MAX_RULES_DEPTH} levels deep, found deeper", where) from exc
    except yaml.YAMLError as exc:
        raise RulesError(f"expected YAML, found {syntax_problem(exc)}", where) from exc


def check_learnt_headings(path: Path) -> None:
    """Check a model folder's ``headings.yaml`` (``pmparse train --library`` writes it): the
    packaged table plus learnt synonyms, its regexes (``patterns``) the packaged ones.

    A library received from someone else carries this file; its regexes would be searched in
    every heading of every page converted into the library, and a regex that backtracks
    (``(a+)+$``) stalled each input until its timeout. Synonyms are matched as whole strings, so
    they may be learnt; regexes are not learnt, so any other than the packaged ones is refused.

    Raises:
        RulesError: unreadable, invalid, or with patterns other than the packaged ones.
    """
    where, data, _ = load_yaml("headings.yaml", Path(path))
    _, packaged, _ = load_yaml("headings.yaml", None)
    if isinstance(data, dict) and isinstance(packaged, dict) and data.get("patterns") != packaged.get("patterns"):
        raise RulesError("expected the packaged heading patterns (a library's model learns synonyms, never "
                         "regexes), found others: retrain with 'pmparse train --library' or remove the file", where)
    load_headings(Path(path))


@functools.lru_cache(maxsize=4)
def load_headings(path: Path | None = None) -> HeadingTable:
    """Load and validate the heading synonym table.

    Args:
        path: A replacement table; the packaged one when None.

    Raises:
        RulesError: when the file is unreadable or invalid.
    """
    where, data, text = load_yaml("headings.yaml", path)
    try:
        rules = HeadingRules.model_validate(data)
    except ValidationError as exc:
        raise RulesError(f"invalid heading rules: {validation_summary(exc, text)}", where) from exc
    missing = [f for f in TEXT_FIELDS if f not in rules.synonyms]
    if missing:
        raise RulesError(f"expected synonyms for every field, missing {missing}", where)
    return HeadingTable(rules)
