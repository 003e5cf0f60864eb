"""Library records: one human-editable file per card, written atomically.

Layout of a library folder::

    LIBRARY/IL-0001.yaml            the record a person reads and edits (or .json)
    LIBRARY/.pmparse/base/IL-0001.json     what pmparse last wrote, to tell human edits apart
    LIBRARY/.pmparse/intent/IL-0001.json   a base about to replace the old one (see Library.write)
    LIBRARY/.pmparse/index.json            scan cache: what each record file held at its last stat
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
from collections import OrderedDict
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


#: Cards kept parsed at a time; the index itself holds only a few strings per record.
CARD_CACHE = 256
#: Version of ``.pmparse/index.json``; another version is ignored (and rebuilt).
INDEX_VERSION = 1


@dataclass
class Entry:
    """What the library knows of one record file without parsing it again.

    The card itself is read from the file when asked for (:attr:`card`) and only a few recent
    ones stay parsed, so memory does not grow with the library.

    Attributes:
        id: The record id (``IL-0001``).
        path: The record file.
        error: Why the record is invalid, or None.
        sha256: Its source's sha256, as far as the file can be read.
        location: Its source's path or URL, as far as the file can be read.
        url: Its source's public address, or None.
        version: The pmparse version that made it.
        model: The field model that made it, or None.
    """

    id: str
    path: Path
    error: str | None = None
    sha256: str | None = None
    location: str | None = None
    url: str | None = None
    version: str | None = None
    model: str | None = None
    library: Library | None = field(default=None, repr=False, compare=False)

    @property
    def card(self) -> Card | None:
        """The record's card (parsed on demand), or None when the record is invalid."""
        if self.error is not None or self.library is None:
            return None
        return self.library.card_of(self)

    def summary(self) -> list:
        """The cached fields, for ``.pmparse/index.json``."""
        return [self.id, self.error, self.sha256, self.location, self.url, self.version, self.model]


_SUMMARY = ("id", "error", "sha256", "location", "url", "version", "model")


def _entry_from_card(card: Card, path: Path, library: Library) -> Entry:
    return Entry(card.id, path, None, card.source.sha256, card.source.location, card.source.url,
                 card.pipeline.version, card.pipeline.model, library)


def _still_there(location: str | None) -> bool:
    """True when ``location`` is a file that exists (URLs and stdin never count as there)."""
    if not location or location == "-" or location.startswith(("http://", "https://")):
        return False
    try:
        return os.path.isfile(location)
    except (OSError, ValueError):
        return False


def _file_key(path: Path) -> list[int] | None:
    """What tells that a file changed: replacing or editing it changes at least one of these."""
    try:
        st = path.stat()
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_size, st.st_ino]


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
    _cards: OrderedDict = field(default_factory=OrderedDict, repr=False)
    _keys: dict[str, list[int]] = field(default_factory=dict, repr=False)
    _index_dirty: bool = False

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

    @property
    def index_path(self) -> Path:
        """The scan cache: per record file, its stat key and :meth:`Entry.summary`."""
        return self.state_dir / "index.json"

    def scan(self) -> None:
        """Index every record file: ids, source hashes and locations.

        A file whose stat key (modification time, size, inode) matches ``.pmparse/index.json`` is
        not parsed again: parsing a YAML record takes about 8 ms, a minute for a library of
        several thousand records before a resumed batch could start. Any other file is read and
        validated as before. The cache is only a shortcut: without it the result is the same.
        """
        self.entries.clear()
        self.by_sha.clear()
        self.by_location.clear()
        self._cards.clear()
        self._keys.clear()
        self._max_number = 0
        if not self.root.is_dir():
            return
        cached = self._read_index()
        self._index_dirty = False
        for path in sorted(self.root.iterdir()):
            match = _ID_FILE.match(path.name)
            if not match or not path.is_file():
                continue
            self._max_number = max(self._max_number, int(match.group(1)))
            card_id = f"IL-{match.group(1)}"
            key = _file_key(path)
            hit = cached.get(path.name)
            if key is not None and hit is not None and hit[0] == key and hit[1][0] == card_id:
                entry = Entry(path=path, library=self, **dict(zip(_SUMMARY, hit[1])))
                self._index(entry)
                self._keys[path.name] = key
                continue
            self._index_dirty = True
            try:
                card = self.read(path)
            except RecordError as exc:
                # a record a person broke by hand still owns its source: index what can be read of
                # it, so convert holds a suggestion for review instead of minting a second record
                sha, location = _source_keys(path)
                self._index(Entry(card_id, path, exc.message, sha, location, library=self))
            else:
                self._index(_entry_from_card(card, path, self))
                self._remember(card)
            if key is not None:
                self._keys[path.name] = key
        if set(cached) - set(self._keys):
            self._index_dirty = True
        self.save_index()

    def _index(self, entry: Entry) -> None:
        self.entries[entry.id] = entry
        if entry.error is None:
            self.by_sha[entry.sha256] = entry.id
            self.by_location[entry.location] = entry.id
        else:
            if entry.sha256:
                self.by_sha.setdefault(entry.sha256, entry.id)
            if entry.location:
                self.by_location.setdefault(entry.location, entry.id)

    def _read_index(self) -> dict[str, tuple[list[int], list]]:
        try:
            data = json.loads(self.index_path.read_text(encoding="utf-8"))
            if data.get("version") != INDEX_VERSION:
                return {}
            return {name: (list(key), list(summary)) for name, (key, summary) in data["records"].items()
                    if len(summary) == len(_SUMMARY)}
        except (OSError, UnicodeDecodeError, ValueError, TypeError, KeyError, AttributeError):
            return {}  # no cache, or one that cannot be trusted: every record is parsed

    def save_index(self) -> None:
        """Write the scan cache when it changed (a shortcut only: losing it costs a slower scan)."""
        if not self._index_dirty or not self.root.is_dir():
            return
        records = {name: [key, self.entries[f"IL-{name[3:7]}"].summary()] for name, key in sorted(self._keys.items())
                   if f"IL-{name[3:7]}" in self.entries}
        try:
            atomic_write(self.index_path, json.dumps({"version": INDEX_VERSION, "records": records},
                                                     ensure_ascii=False))
        except OSError:
            return  # a read-only library still works, it only scans slower
        self._index_dirty = False

    def add(self, card: Card, path: Path) -> None:
        """Index a card written at ``path``."""
        self._index(_entry_from_card(card, path, self))
        self._remember(card)
        key = _file_key(path)
        if key is not None:
            self._keys[path.name] = key
            self._index_dirty = True
        number = int(card.id[3:])
        self._max_number = max(self._max_number, number)

    def _remember(self, card: Card) -> None:
        self._cards[card.id] = card
        self._cards.move_to_end(card.id)
        while len(self._cards) > CARD_CACHE:
            self._cards.popitem(last=False)

    def card_of(self, entry: Entry) -> Card | None:
        """The card of ``entry``, parsed from its file unless one of the recent ones.

        A record that can no longer be read gets its error set and gives None.
        """
        card = self._cards.get(entry.id)
        if card is not None:
            self._cards.move_to_end(entry.id)
            return card
        try:
            card = self.read(entry.path)
        except RecordError as exc:
            entry.error = exc.message
            return None
        self._remember(card)
        return card

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
        """The record made from this source.

        A source is known by its path or URL. A record made from the same text (sha256) at a
        location that no longer exists is the same source moved or renamed; one whose file is
        still there is another source that happens to hold the same text (a copy), which gets
        its own record instead of taking turns with the first in one.
        """
        card_id = self.by_location.get(location)
        if card_id is None:
            other = self.by_sha.get(sha256)
            entry = self.entries.get(other) if other else None
            if entry is not None and not _still_there(entry.location):
                card_id = other
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
