"""Checking a library's records: each file, line and reason, and what of a broken record can be saved."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import yaml
from pydantic import ValidationError

from pmparse.card.schema import Card
from pmparse.errors import RecordError
from pmparse.library.records import _SAFE_LOADER, _loc, format_of, source_text_of
from pmparse.library.store import looks_like_library


@dataclass(frozen=True)
class Problem:
    """One reason a record is invalid: ``file: field: reason``."""

    file: str
    field: str
    reason: str

    def __str__(self) -> str:
        return f"{self.file}: {self.field}: {self.reason}"


def validate_library(root: str | Path) -> tuple[int, list[Problem]]:
    """Check every record of a library.

    Checks the schema, that the file name matches the id, that ids are unique, and that every
    evidence offset lies inside the text when the text is at hand (the record's extracted text,
    or the source file when its sha256 still matches). Stretches marked with an earlier text's
    sha256 (kept through a review after the source was amended) are not checked against it.

    Returns:
        ``(records_checked, problems)``.
    """
    root = Path(root)
    if not root.is_dir():
        raise RecordError("expected a library folder, found none", str(root))
    if not looks_like_library(root):
        raise RecordError("expected a library folder (IL-0001.yaml records or .pmparse/), found neither", str(root))
    problems: list[Problem] = []
    seen: dict[str, str] = {}
    checked = 0
    for path in sorted(root.iterdir()):
        if not path.is_file() or path.suffix not in (".yaml", ".yml", ".json") or path.name.startswith("."):
            continue
        checked += 1
        try:
            text = path.read_text(encoding="utf-8")
            data = json.loads(text) if path.suffix == ".json" else yaml.load(text, Loader=_SAFE_LOADER)
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, yaml.YAMLError) as exc:
            problems.append(Problem(path.name, "(record)", f"not readable as {format_of(path).upper()}: {exc}"))
            continue
        try:
            card = Card.model_validate(data)
        except ValidationError as exc:
            problems.extend(Problem(path.name, _loc(e["loc"]), e["msg"]) for e in exc.errors())
            continue
        if path.stem != card.id:
            problems.append(Problem(path.name, "id", f"expected {path.stem} (the file name), found {card.id}"))
        if card.id in seen:
            problems.append(Problem(path.name, "id", f"{card.id} is also used by {seen[card.id]}"))
        seen.setdefault(card.id, path.name)
        source_text = source_text_of(card)
        if source_text is not None:
            for name, ev in card.evidence_spans():
                # a stretch marked with an earlier text's sha256 indexes that text, not this one
                if ev.current and ev.end > len(source_text):
                    problems.append(Problem(path.name, name, f"evidence {ev.start}-{ev.end} ends past the text ({len(source_text)} characters)"))
    return checked, problems
