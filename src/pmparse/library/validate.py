"""Checking a library's records: each file, line and reason, and what of a broken record can be saved."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import yaml
from pydantic import ValidationError

from pmparse.card.schema import TEXT_FIELDS, Card, Evidence, Item
from pmparse.errors import RecordError, StateFileError, UnsafePathError
from pmparse.library.folder import library_root, record_files_by_id
from pmparse.library.anchored import places_of
from pmparse.library.draft_state import DRAFTS, disagreement, read_draft_state, unfollowed
from pmparse.library.orphans import stray_states
from pmparse.library.places import SourcePlaces
from pmparse.library.statefiles import read_record_text, regular_text
from pmparse.library.store import Library
from pmparse.library.records import field_path, format_of, loads, parse_data, problem_text, source_text_of
from pmparse.paths import inside
from pmparse.util import CONTROL_CHARACTERS
from pmparse.yaml_problems import line_of, merge_conflict_line, merge_conflict_reason, syntax_error


@dataclass(frozen=True)
class Problem:
    """One reason a record is invalid: ``file: field: reason``, or ``file:line: field: reason``
    when the line is known (a syntax error, a value of the wrong type, an item's evidence)."""

    file: str
    field: str
    reason: str
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        return f"{where}: {self.field}: {self.reason}"


def _pending_note(root: Path, card_id: str) -> str:
    pending = root / ".pmparse" / "pending" / f"{card_id}.json"
    if not pending.is_file():
        return ""
    return f"; a suggestion waits for review in .pmparse/pending/{pending.name} (repair the record, then run `pmparse review`)"


def validate_library(root: str | Path, warn: Callable[[str], None] | None = None) -> tuple[int, list[Problem]]:
    """Check every record of a library.

    Checks the schema, that the file name matches the id, that ids are unique, and that every
    evidence offset lies inside the text and every item's evidence says words of its text, when
    the text is at hand (the record's extracted text,
    or the source file when its sha256 still matches). Stretches marked with an earlier text's
    sha256 (kept through a review after the source was amended) are not checked against it.

    Args:
        root: The library folder.
        warn: Called with ``file: field: note`` for what is valid but worth a look: text holding
            control characters (a terminal would act on them; pmparse prints them escaped).

    Returns:
        ``(records_checked, problems)``.
    """
    root = library_root(root)
    places = places_of(root)
    problems: list[Problem] = []
    seen: dict[str, str] = {}
    checked = 0
    for path in sorted(root.iterdir()):
        if not path.is_file() or path.suffix not in (".yaml", ".yml", ".json") or path.name.startswith("."):
            continue
        checked += 1
        try:
            text = read_record_text(path)
            data = parse_data(text, format_of(path))
        except (json.JSONDecodeError, yaml.YAMLError) as exc:
            conflict = merge_conflict_line(text)
            if conflict is not None:
                problems.append(Problem(path.name, "(record)", merge_conflict_reason(conflict), conflict))
                continue
            line, reason = syntax_error(exc)
            problems.append(Problem(path.name, "(record)", f"not readable as {format_of(path).upper()}: {reason}"
                                    + _pending_note(root, path.stem), line))
            continue
        except ValueError as exc:  # a JSON key given twice
            problems.append(Problem(path.name, "(record)", f"{exc}{_pending_note(root, path.stem)}"))
            continue
        except (OSError, UnicodeDecodeError) as exc:
            problems.append(Problem(path.name, "(record)", f"not readable as {format_of(path).upper()}: {exc}"))
            continue
        try:
            card = Card.model_validate(data)
        except ValidationError as exc:
            # a field a person wrote by hand with the wrong type: the line of its value, and the
            # suggestion that waits beside the record, as for a syntax error
            note = _pending_note(root, path.stem)
            problems.extend(Problem(path.name, field_path(e["loc"]), problem_text(e) + note, line_of(text, e["loc"]))
                            for e in exc.errors())
            continue
        problems.extend(card_problems(path.name, card, text, places=places))
        if card.id in seen:
            problems.append(Problem(path.name, "id", f"{card.id} is also used by {seen[card.id]}"))
        seen.setdefault(card.id, path.name)
        if warn is not None:
            for where, found in _controls(data):
                warn(f"{path.name}: {where}: holds control characters ({found}); kept, shown escaped")
    if warn is not None and (Path(root) / ".pmparse").is_dir():
        # what a record renamed or deleted by hand left in .pmparse/: no record's problem (each
        # record is valid without it), but work of the curator's that no command reads where it is.
        # Only where a state folder exists: opening the library writes its scan cache, and a check
        # must not make .pmparse/ in a folder of record files alone
        try:
            strays = stray_states(Library.open(root))
        except (UnsafePathError, StateFileError):
            strays = []  # a scan cache or state folder that is a link out: every writer refuses it, naming it
        for stray in strays:
            warn(str(stray))
    return checked, problems


def card_problems(file: str, card: Card, record_text: str | None = None, *, places: SourcePlaces) -> list[Problem]:
    """What is wrong with a record that parses and fits the schema: its file name against its
    id, its evidence against the source text when the text is at hand (an offset past the text's
    end, an item's evidence that does not say its words), and, marked reviewed, its fields against
    the draft decisions left beside it (a decision the record does not follow).

    ``validate``, ``export`` and ``site`` all ask this one function, so a record one of them calls
    invalid is invalid for all three (``export`` and ``site`` still show such a card, its words
    being sound, and list the problem and exit 1 as ``validate`` does).

    Args:
        file: The record's file name (its stem should be the id).
        card: The record.
        record_text: The record file's text, for the line of each evidence problem.
        places: The library's places: a relative source location is read from its anchor, and
            the draft decisions from its root.
    """
    problems = []
    stem = Path(file).stem
    if stem != card.id:
        problems.append(Problem(file, "id", f"expected {stem} (the file name), found {card.id}"))
    source_text = source_text_of(card, places)
    if source_text is not None:
        for name, ev in card.evidence_spans():
            # a stretch marked with an earlier text's sha256 indexes that text, not this one
            if ev.current and ev.end > len(source_text):
                problems.append(Problem(file, name, f"evidence {ev.start}-{ev.end} ends past the text "
                                        f"({len(source_text)} characters)"))
        problems.extend(_unspelled(file, card, source_text, record_text))
    if places.root is not None:
        problems.extend(_unfollowed_decisions(places.root, file, card, record_text))
    return problems


def _unfollowed_decisions(root: Path, file: str, card: Card, record_text: str | None) -> list[Problem]:
    """A problem for each decision of a reviewed record's draft decisions' file the record does
    not follow (:func:`pmparse.library.draft_state.unfollowed`): one curator finished the draft
    while another decided some of its fields, merged by git without a conflict, or the draft was
    finished by hand after some of its fields were decided. ``resolve`` names the same after a
    merge; a file the record follows in every field says nothing lost, and is no problem.

    Args:
        root: The library folder.
        file: The record's file name.
        card: The record.
        record_text: The record file's text, for the line of each field.
    """
    name = f".pmparse/{DRAFTS}/{card.id}.json"
    if card.status != "reviewed":
        return []  # a draft still open keeps its decisions beside it
    try:
        # read where the library's own state is read (Library.state_path): not through a link
        state = read_draft_state(inside(root, name))
        # most reviewed records have no decisions left: their base is not read
        made_text = regular_text(inside(root, f".pmparse/base/{card.id}.json")) if state is not None else None
        made = loads(made_text, "json", "base") if made_text is not None else None
    except (StateFileError, RecordError, UnsafePathError):
        return []  # a state file too large, broken or behind a link: not decisions a person can follow
    lost = unfollowed(card, made, state) if made is not None else None
    return [Problem(file, field_name, f"the record is marked reviewed, but its draft decisions ({name}) do not "
                    f"agree: {disagreement(field)} (decided on one side of a git merge while the other finished "
                    f"the draft, or before it was finished by hand): check the field, then remove {name}",
                    line_of(record_text, (field_name,)) if record_text is not None else None)
            for field_name, field in lost or []]


def hidden_records(root: Path) -> list[Problem]:
    """A problem for each record file another file of its id hides: of ``IL-0002.json`` and
    ``IL-0002.yaml`` the library reads the last name (:meth:`pmparse.library.store.Library.scan`),
    so ``export`` and ``site`` never see the other. ``validate`` calls such a library invalid (an id
    used twice); ``export`` and ``site`` ask this, so they say so too and name the file left out
    rather than drop it without a word.

    Args:
        root: The library folder; each problem names a file as ``root / name``.
    """
    return [Problem(str(path), "id", f"{card_id} is also used by {paths[-1].name}, the file read (this one is left out)")
            for card_id, paths in record_files_by_id(root).items() for path in paths[:-1]]


def unspelled_evidence(item: Item, text: str) -> list[Evidence]:
    """The stretches of an item's evidence that index ``text`` (its record's current source) and
    do not say, white space aside, words of the item's text: what a hand edit of the item's words
    leaves under them (the model's offsets, for the words it read there)."""
    words = " ".join(item.text.split())
    out = []
    for ev in item.evidence:
        if not ev.current or ev.end > len(text):
            continue
        said = " ".join(text[ev.start:ev.end].split())
        if said and said not in words:
            out.append(ev)
    return out


def _unspelled(file: str, card: Card, text: str, record_text: str | None = None) -> list[Problem]:
    """Items whose evidence does not say words of their text: each stretch of the current source
    must read, white space aside, as part of the item's text (an item edited by hand keeps the
    model's offsets under words they no longer say: mark it ``origin: person`` and drop them).
    With the record file's text, each problem names the line of the item's evidence, as
    ``validate`` promises where the line is known (the curator goes there to make the item theirs)."""
    problems = []
    for name in TEXT_FIELDS:
        for number, item in enumerate(getattr(card, name), 1):
            for ev in unspelled_evidence(item, text):
                said = " ".join(text[ev.start:ev.end].split())
                shown = said if len(said) <= 60 else said[:57] + "..."
                line = line_of(record_text, (name, number - 1, "evidence")) if record_text is not None else None
                problems.append(Problem(file, f"{name}[{number}]", f"evidence {ev.start}-{ev.end} says "
                                        f"{shown!r}, not words of the item's text (edited by hand? make the item "
                                        "yours: `origin: person`, `confidence: 1.0`, `evidence: []`)", line))
    return problems


def _controls(value: Any, where: str = "") -> list[tuple[str, str]]:
    """``(field, the control characters found as code points)`` of each string in a record's data that holds any."""
    if isinstance(value, str):
        found = sorted(set(CONTROL_CHARACTERS.findall(value)))
        return [(where or "(record)", " ".join(f"U+{ord(c):04X}" for c in found))] if found else []
    if isinstance(value, dict):
        return [hit for key, item in value.items() for hit in _controls(item, f"{where}.{key}" if where else str(key))]
    if isinstance(value, list):
        return [hit for number, item in enumerate(value, 1) for hit in _controls(item, f"{where}[{number}]")]
    return []
