"""Library records: one human-editable file per card, written atomically.

Layout of a library folder::

    LIBRARY/IL-0001.yaml            the record a person reads and edits (or .json)
    LIBRARY/.pmparse/base/IL-0001.json     what pmparse last wrote, to tell human edits apart
    LIBRARY/.pmparse/intent/IL-0001.json   a base about to replace the old one (see Library.write)
    LIBRARY/.pmparse/pending/IL-0001.json  a newer suggestion waiting for review
    LIBRARY/.pmparse/rejected/IL-0001.json suggestions a person rejected (pmparse.review)

A record is rewritten by pmparse only while it is an unreviewed suggestion that nobody edited;
otherwise a new suggestion goes to ``pending`` and ``pmparse review`` decides.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import yaml
from pydantic import ValidationError

from .errors import RecordError
from .schema import TEXT_FIELDS, Card

RecordFormat = Literal["yaml", "json"]
_ID_FILE = re.compile(r"^IL-(\d{4})\.(yaml|yml|json)$")
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _FlowList(list):
    """A list dumped in YAML flow style (evidence offsets stay on one line)."""


class _Dumper(yaml.SafeDumper):
    """Block style for the record, flow style for evidence, literal blocks for multi-line text."""


def _represent_flow(dumper: yaml.SafeDumper, data: _FlowList) -> yaml.Node:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=True)


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.Node:
    style = "|" if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_Dumper.add_representer(_FlowList, _represent_flow)
_Dumper.add_representer(str, _represent_str)


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


def dumps(card: Card, fmt: RecordFormat = "yaml") -> str:
    """Serialise a card; the same card always gives the same text."""
    data = card_data(card)
    if fmt == "json":
        return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    return yaml.dump(_flowed(data), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100,
                     default_flow_style=False)


def loads(text: str, fmt: RecordFormat, where: str) -> Card:
    """Parse and validate a record's text.

    Raises:
        RecordError: not parseable, or not a valid card (message lists ``field: reason``).
    """
    try:
        data = json.loads(text) if fmt == "json" else yaml.load(text, Loader=_SAFE_LOADER)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise RecordError(f"expected a {fmt.upper()} record, found a syntax error: {exc}", where) from exc
    if not isinstance(data, dict):
        raise RecordError(f"expected a mapping of card fields, found {type(data).__name__}", where)
    try:
        return Card.model_validate(data)
    except ValidationError as exc:
        raise RecordError("; ".join(f"{_loc(e['loc'])}: {e['msg']}" for e in exc.errors()), where) from exc


def _loc(loc: tuple) -> str:
    return ".".join(str(part) for part in loc) or "(record)"


def format_of(path: Path) -> RecordFormat:
    """The record format a file name implies."""
    return "json" if path.suffix == ".json" else "yaml"


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that readers see the old file or the new one, never a part.

    The text goes to a temporary file in the same folder, is flushed to disk, then renamed over
    the target (rename is atomic within one file system).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        # mkstemp makes the file private (0600); a record is for people to read and edit, so it
        # keeps the mode of the file it replaces, or gets what the umask gives a new file
        try:
            mode = os.stat(path).st_mode & 0o777
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


@dataclass
class Entry:
    """What the library knows of one record file."""

    id: str
    path: Path
    card: Card | None
    error: str | None = None


@dataclass
class Library:
    """A folder of records.

    Args:
        root: The library folder (created on first write).
    """

    root: Path
    entries: dict[str, Entry] = field(default_factory=dict)
    by_sha: dict[str, str] = field(default_factory=dict)
    by_location: dict[str, str] = field(default_factory=dict)
    _max_number: int = 0

    @classmethod
    def open(cls, root: str | Path) -> Library:
        """Scan a library folder (which may not exist yet)."""
        library = cls(Path(root))
        library.scan()
        return library

    @property
    def state_dir(self) -> Path:
        """Where pmparse keeps its own state (bases, pending suggestions, rejections)."""
        return self.root / ".pmparse"

    def scan(self) -> None:
        """Read every record file, indexing ids, source hashes and locations."""
        self.entries.clear()
        self.by_sha.clear()
        self.by_location.clear()
        self._max_number = 0
        if not self.root.is_dir():
            return
        for path in sorted(self.root.iterdir()):
            match = _ID_FILE.match(path.name)
            if not match or not path.is_file():
                continue
            self._max_number = max(self._max_number, int(match.group(1)))
            card_id = f"IL-{match.group(1)}"
            try:
                card = self.read(path)
            except RecordError as exc:
                self.entries[card_id] = Entry(card_id, path, None, exc.message)
                # a record a person broke by hand still owns its source: index what can be read of
                # it, so convert holds a suggestion for review instead of minting a second record
                sha, location = _source_keys(path)
                if sha:
                    self.by_sha.setdefault(sha, card_id)
                if location:
                    self.by_location.setdefault(location, card_id)
                continue
            self.add(card, path)

    def add(self, card: Card, path: Path) -> None:
        """Index a card written at ``path``."""
        self.entries[card.id] = Entry(card.id, path, card)
        self.by_sha[card.source.sha256] = card.id
        self.by_location[card.source.location] = card.id
        number = int(card.id[3:])
        self._max_number = max(self._max_number, number)

    @staticmethod
    def read(path: Path) -> Card:
        """Load one record file.

        Raises:
            RecordError: unreadable or invalid.
        """
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise RecordError(f"expected a readable UTF-8 record, found {exc}", str(path)) from exc
        card = loads(text, format_of(path), str(path))
        if path.stem != card.id:
            raise RecordError(f"id: expected {path.stem} (the file name), found {card.id}", str(path))
        return card

    def next_id(self) -> str:
        """The next free id: one more than the highest in the library."""
        if self._max_number >= 9999:
            raise RecordError("expected a free id, found IL-9999 already used", str(self.root))
        self._max_number += 1
        return f"IL-{self._max_number:04d}"

    def find(self, sha256: str, location: str) -> Entry | None:
        """The record made from this source: same text (sha256) or same path/URL."""
        card_id = self.by_sha.get(sha256) or self.by_location.get(location)
        return self.entries.get(card_id) if card_id else None

    def path_for(self, card_id: str, fmt: RecordFormat) -> Path:
        """Where the record of ``card_id`` is written in ``fmt``."""
        return self.root / f"{card_id}.{'json' if fmt == 'json' else 'yaml'}"

    def write(self, card: Card, fmt: RecordFormat, path: Path | None = None) -> Path:
        """Write a record and remember it as pmparse's base (what pmparse last wrote).

        The record and its base are two files, and a process killed between two writes must not
        leave them disagreeing: a base newer than its record would make pmparse call the record
        a person's edit and never refresh it. So the new base is first written as an *intent*,
        then the record, then the intent is renamed over the base; :meth:`read_state` settles an
        intent left by a killed run by comparing it with the record on disk.
        """
        path = path or self.path_for(card.id, fmt)
        text = dumps(card, format_of(path))
        intent = self.write_state("intent", card)
        atomic_write(path, text)
        base = self.state_path("base", card.id)
        base.parent.mkdir(parents=True, exist_ok=True)
        os.replace(intent, base)
        self.add(card, path)
        return path

    def state_path(self, kind: str, card_id: str) -> Path:
        """Path of a state file of ``kind`` (``base``, ``pending``, ``rejected``) for a card."""
        return self.state_dir / kind / f"{card_id}.json"

    def write_state(self, kind: str, card: Card) -> Path:
        """Store a card as state of ``kind``."""
        path = self.state_path(kind, card.id)
        atomic_write(path, dumps(card, "json"))
        return path

    def read_state(self, kind: str, card_id: str) -> Card | None:
        """A stored state card, or None when there is none (or it is unreadable)."""
        if kind == "base":
            self._settle_intent(card_id)
        path = self.state_path(kind, card_id)
        if not path.is_file():
            return None
        try:
            return loads(path.read_text(encoding="utf-8"), "json", str(path))
        except (OSError, RecordError):
            return None

    def _settle_intent(self, card_id: str) -> None:
        """Finish or undo a base change a killed :meth:`write` left behind."""
        intent_path = self.state_path("intent", card_id)
        if not intent_path.is_file():
            return
        try:
            intent = loads(intent_path.read_text(encoding="utf-8"), "json", str(intent_path))
        except (OSError, UnicodeDecodeError, RecordError):
            intent = None
        entry = self.entries.get(card_id)
        if intent is not None and entry is not None and entry.card is not None \
                and card_data(entry.card) == card_data(intent):
            # the record was written, the rename of its base was not: finish it
            base = self.state_path("base", card_id)
            base.parent.mkdir(parents=True, exist_ok=True)
            os.replace(intent_path, base)
        else:
            # the record never got this text: the old base still describes it
            self.drop_state("intent", card_id)

    def drop_state(self, kind: str, card_id: str) -> None:
        """Remove a state file if it exists."""
        try:
            self.state_path(kind, card_id).unlink()
        except FileNotFoundError:
            pass


def _source_keys(path: Path) -> tuple[str | None, str | None]:
    """``(sha256, location)`` of an invalid record's source, as far as the file can be parsed."""
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text) if path.suffix == ".json" else yaml.load(text, Loader=_SAFE_LOADER)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, yaml.YAMLError):
        return None, None
    source = data.get("source") if isinstance(data, dict) else None
    if not isinstance(source, dict):
        return None, None
    sha, location = source.get("sha256"), source.get("location")
    return (sha if isinstance(sha, str) else None, location if isinstance(location, str) else None)


def is_edited(library: Library, entry: Entry) -> bool:
    """True when a person changed the record since pmparse wrote it (or marked it reviewed)."""
    if entry.card is None:
        return True
    if entry.card.status == "reviewed":
        return True
    base = library.read_state("base", entry.id)
    if base is None:
        # no memory of what pmparse wrote: treat the record as a person's
        return True
    return card_data(base) != card_data(entry.card)


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
    or the source file when its sha256 still matches).

    Returns:
        ``(records_checked, problems)``.
    """
    root = Path(root)
    if not root.is_dir():
        raise RecordError("expected a library folder, found none", str(root))
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
                if ev.end > len(source_text):
                    problems.append(Problem(path.name, name, f"evidence {ev.start}-{ev.end} ends past the text ({len(source_text)} characters)"))
    return checked, problems


def source_text_of(card: Card) -> str | None:
    """The text a card's offsets index, when it can be had unchanged."""
    if card.source.extracted_text is not None:
        return card.source.extracted_text
    from .ingest import sha256_text

    try:
        with open(card.source.location, encoding="utf-8", newline="") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError):
        return None
    return text if sha256_text(text) == card.source.sha256 else None
