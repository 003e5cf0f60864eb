"""Library records: one human-editable file per card, written atomically.

Layout of a library folder::

    LIBRARY/IL-0001.yaml            the record a person reads and edits (or .json)
    LIBRARY/.pmparse/base/IL-0001.json     what pmparse last wrote, to tell human edits apart
    LIBRARY/.pmparse/intent/IL-0001.json   a base about to replace the old one (see Library.write)
    LIBRARY/.pmparse/index.json            scan cache: what each record file held at its last stat
    LIBRARY/.pmparse/lock                  held by the one process writing the library (write_lock)
    LIBRARY/.pmparse/pending/IL-0001.json  a newer suggestion waiting for review
    LIBRARY/.pmparse/rejected/IL-0001.json suggestions a person rejected (pmparse.review.rejections)
    LIBRARY/.pmparse/model/                the library's own field model (pmparse train --library)

A record is rewritten by pmparse only while it is an unreviewed suggestion that nobody edited;
otherwise a new suggestion goes to ``pending`` and ``pmparse review`` decides. The files under
``.pmparse/`` of each record are read and written by :mod:`pmparse.library.state`.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

from pmparse import __version__
from pmparse.card.schema import SCHEMA_VERSION, Card
from pmparse.errors import RecordError, StateFileError
from pmparse.library.folder import RECORD_FILE, held_number
from pmparse.library.places import ExtractedSha, SourcePlaces
from pmparse.library.state import STAMP, STAMPED, LibraryState, state_digest
from pmparse.library.statefiles import file_key as _file_key, read_record_text, regular_text, writable
from pmparse.library.records import RecordFormat, card_data, dumps, format_of, loads, source_keys
from pmparse.locations import split_location
from pmparse.paths import inside
from pmparse.util import atomic_write


#: Cards kept parsed at a time; the index itself holds only a few strings per record.
CARD_CACHE = 256

#: Version of ``.pmparse/index.json``; another version is ignored (and rebuilt). 2: an invalid
#: record's summary holds the source salvaged from its text; 3: summaries hold the pipeline
#: fingerprint; 4: stamps of base and pending cards; 5: stamps say whether a base is settled and
#: carry their file's digest; 6: summaries hold the record's status.
INDEX_VERSION = 6


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
        fingerprint: The pipeline fingerprint that made it (``Pipeline.fingerprint``), or None.
        status: ``suggested`` or ``reviewed``, as far as the file can be read.
    """

    id: str
    path: Path
    error: str | None = None
    sha256: str | None = None
    location: str | None = None
    url: str | None = None
    version: str | None = None
    model: str | None = None
    fingerprint: str | None = None
    status: str | None = None
    library: Library | None = field(default=None, repr=False, compare=False)

    @property
    def card(self) -> Card | None:
        """The record's card (parsed on demand), or None when the record is invalid."""
        if self.error is not None or self.library is None:
            return None
        return self.library.card_of(self)

    def summary(self) -> list:
        """The cached fields, for ``.pmparse/index.json``."""
        return [self.id, self.error, self.sha256, self.location, self.url, self.version, self.model,
                self.fingerprint, self.status]

_SUMMARY = ("id", "error", "sha256", "location", "url", "version", "model", "fingerprint", "status")


def _entry_from_card(card: Card, path: Path, library: Library) -> Entry:
    return Entry(card.id, path, None, card.source.sha256, card.source.location, card.source.url,
                 card.pipeline.version, card.pipeline.model, card.pipeline.fingerprint, card.status, library)


#: A file changed this close (ns) before the index was written may change again within the same
#: clock tick without its key changing (git's "racy" entries): such entries are not trusted.
_RACY_NS = 2_000_000_000


def _index_header() -> dict:
    # another pmparse or schema may read records differently: its cached summaries are not reused
    return {"version": INDEX_VERSION, "pmparse": __version__, "schema": SCHEMA_VERSION}


@dataclass
class Library(LibraryState):
    """A folder of records.

    Args:
        root: The library folder (created on first write).
        extracted_sha: How a page's or PDF's text sha256 is read (a moved anchor's evidence).
    """

    root: Path
    entries: dict[str, Entry] = field(default_factory=dict)
    by_location: dict[str, str] = field(default_factory=dict)
    _max_number: int = 0
    _cards: OrderedDict = field(default_factory=OrderedDict, repr=False)
    _keys: dict[str, list[int]] = field(default_factory=dict, repr=False)
    _rows: dict[str, list] = field(default_factory=dict, repr=False)
    _shas: dict[str, list[str]] = field(default_factory=dict, repr=False)
    _states: dict[str, tuple[list[int], list, str]] = field(default_factory=dict, repr=False)
    _index_dirty: bool = False
    _places: SourcePlaces | None = field(default=None, repr=False)
    extracted_sha: ExtractedSha | None = field(default=None, repr=False)

    @classmethod
    def open(cls, root: str | Path, extracted_sha: ExtractedSha | None = None) -> Library:
        """Scan a library folder (which may not exist yet); ``extracted_sha``: see the class."""
        library = cls(Path(root), extracted_sha=extracted_sha)
        library.scan()
        return library

    @property
    def state_dir(self) -> Path:
        """Where pmparse keeps its own state (bases, pending suggestions, rejections)."""
        return self.root / ".pmparse"

    @property
    def places(self) -> SourcePlaces:
        """Which file and folder each source location names (a relative one read from the anchor)."""
        if self._places is None:
            self._places = SourcePlaces.of_library(self.root, self.location_shas(), self.extracted_sha)
        return self._places

    def location_shas(self) -> dict[str, str | None]:
        """Each source location of the library with its record's sha256 (None: not known)."""
        return {location: getattr(self.entries.get(card_id), "sha256", None) for location, card_id in self.by_location.items()}

    @property
    def index_path(self) -> Path:
        """The scan cache: per record file, its stat key and :meth:`Entry.summary`."""
        return inside(self.root, ".pmparse/index.json")

    def scan(self) -> None:
        """Index every record file: ids, source hashes and locations.

        A file whose stat key (modification time, size, inode) matches ``.pmparse/index.json`` is
        not parsed again: parsing a YAML record takes about 8 ms, a minute for a library of
        several thousand records before a resumed batch could start. Any other file is read and
        validated as before. The cache is only a shortcut: without it the result is the same.
        """
        self.entries.clear()
        self.by_location.clear()
        self._cards.clear()
        self._keys.clear()
        self._rows.clear()
        self._shas.clear()
        self._states = {}
        self._max_number = 0
        if not self.root.is_dir():
            return
        cached, states, written = self._read_index()
        self._states = self._verified(states, written)
        self._index_dirty = False
        for path in sorted(self.root.iterdir()):
            match = RECORD_FILE.match(path.name)
            if not match or not path.is_file():
                continue
            self._max_number = max(self._max_number, int(match.group(1)))
            card_id = f"IL-{match.group(1)}"
            key = _file_key(path)
            hit = cached.get(path.name)
            if key is not None and hit is not None and hit[0] == key and hit[1][0] == card_id \
                    and key[0] < written - _RACY_NS:
                self._index(Entry(path=path, library=self, **dict(zip(_SUMMARY, hit[1]))))
                self._keys[path.name] = key
                continue
            self._index_dirty = True
            card, error, transient = self._load(path)
            if card is None:
                # a record a person broke by hand still owns its source: index what can be read of
                # it, so convert holds a suggestion for review instead of minting a second record
                sha, location = source_keys(path)
                self._index(Entry(card_id, path, error, sha, location, library=self))
            else:
                self._index(_entry_from_card(card, path, self))
                self._remember(card)
            if key is not None and not transient:
                self._keys[path.name] = key  # a failed read (permissions, I/O) is never cached
        if set(cached) - set(self._keys):
            self._index_dirty = True
        self.save_index()

    def _index(self, entry: Entry) -> None:
        previous = self.entries.get(entry.id)
        if previous is not None:
            # a record rewritten for a moved or amended source is no longer known by its old name
            # or text
            if previous.location != entry.location and self.by_location.get(previous.location) == entry.id:
                del self.by_location[previous.location]
            if previous.sha256 != entry.sha256 and entry.id in self._shas.get(previous.sha256, ()):
                self._shas[previous.sha256].remove(entry.id)
        self.entries[entry.id] = entry
        self._max_number = max(self._max_number, held_number(entry.error))  # a renamed record's id
        self._rows[entry.path.name] = entry.summary()
        if entry.sha256:
            ids = self._shas.setdefault(entry.sha256, [])
            if entry.id not in ids:
                ids.append(entry.id)
        if entry.error is None:
            self.by_location[entry.location] = entry.id
        elif entry.location:
            self.by_location.setdefault(entry.location, entry.id)

    def _forget(self, entry: Entry) -> None:
        """Drop an entry whose file is gone (a person deleted the record while the library was open)."""
        self.entries.pop(entry.id, None)
        self._cards.pop(entry.id, None)
        self._keys.pop(entry.path.name, None)
        self._rows.pop(entry.path.name, None)
        for key in [k for k, v in self.by_location.items() if v == entry.id]:
            del self.by_location[key]
        for ids in self._shas.values():
            if entry.id in ids:
                ids.remove(entry.id)
        self._index_dirty = True

    def _read_index(self) -> tuple[dict[str, tuple[list[int], list]], dict[str, tuple[list[int], list, str]],
                                   int]:
        """The cached record rows by file name, state stamps by ``kind/id``, and when the cache was
        written (ns)."""
        try:
            data = json.loads(regular_text(self.index_path) or "null")  # read bounded: over the limit, no cache
            if {k: data.get(k) for k in _index_header()} != _index_header():
                return {}, {}, 0
            rows = {name: (list(key), list(summary)) for name, (key, summary) in data["records"].items()
                    if len(summary) == len(_SUMMARY) and len(key) == 4 and all(isinstance(k, int) for k in key)
                    and all(value is None or isinstance(value, str) for value in summary)}
            written = int(data["written_ns"])
            states = {name: (list(key), list(stamp), str(digest)) for name, (key, stamp, digest) in data["states"].items()
                      if len(stamp) == len(STAMP) and len(key) == 4 and all(isinstance(k, int) for k in key)
                      and isinstance(stamp[6], bool) and name.partition("/")[0] in STAMPED
                      and re.fullmatch(r"IL-\d{4}", name.partition("/")[2])}
            return rows, states, written
        except (OSError, UnicodeDecodeError, ValueError, TypeError, KeyError, AttributeError, RecursionError,
                StateFileError):
            return {}, {}, 0  # no cache, or one that cannot be trusted: every record is parsed

    def _verified(self, states: dict[str, tuple[list[int], list, str]], written: int) -> dict:
        """The cached state rows that still hold: a file changed just before the index was written
        (its stat key could change again unseen) is trusted only if its text is the one hashed."""
        kept = {}
        for name, (key, stamp, digest) in states.items():
            if key[0] >= written - _RACY_NS:
                kind, _, card_id = name.partition("/")
                text = regular_text(self.state_path(kind, card_id))
                if text is None or state_digest(text) != digest:
                    continue
            kept[name] = (key, stamp, digest)
        return kept

    def vouches_for(self, kind: str, card_id: str) -> bool:
        """Whether the scan cache knows the state file of ``kind`` as it is now (its stat key)."""
        hit = self._states.get(f"{kind}/{card_id}")
        return hit is not None and hit[0] == _file_key(self.state_path(kind, card_id))

    def save_index(self) -> None:
        """Write the scan cache when it changed (a shortcut only: losing it costs a slower scan)."""
        if not self._index_dirty or not self.root.is_dir():
            return
        records = {name: [key, self._rows[name]] for name, key in sorted(self._keys.items()) if name in self._rows}
        states = {name: [key, stamp, digest] for name, (key, stamp, digest) in sorted(self._states.items())}
        data = {**_index_header(), "written_ns": time.time_ns(), "records": records, "states": states}
        try:
            # ASCII escapes: a location with an undecodable byte (a lone surrogate) cannot be UTF-8
            atomic_write(self.index_path, json.dumps(data, ensure_ascii=True))
        except (OSError, ValueError):
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

        A record that turned invalid gets its error set and gives None; a read that failed for
        another reason (permissions, I/O) gives None without marking the record invalid for good.
        """
        card = self._cards.get(entry.id)
        if card is not None:
            self._cards.move_to_end(entry.id)
            return card
        card, error, transient = self._load(entry.path)
        if card is None:
            entry.error = error
            if transient:
                # not cached: the next scan reads the file again
                self._keys.pop(entry.path.name, None)
            self._index_dirty = True
            return None
        self._remember(card)
        return card

    def _load(self, path: Path) -> tuple[Card | None, str | None, bool]:
        """``(card, error, transient)`` of a record file; ``transient`` when reading it failed."""
        try:
            return self.read(path), None, False
        except RecordError as exc:
            transient = isinstance(exc.__cause__, OSError)
            return None, exc.message, transient

    @staticmethod
    def read(path: Path) -> Card:
        """Load one record file.

        Raises:
            RecordError: unreadable or invalid.
        """
        try:
            text = read_record_text(path)
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

        A source is known by its path or URL (``convert`` normalises a path's spelling first). A
        record made from the same text (sha256) at a location that no longer exists is the same
        source moved or renamed; one whose file is still there is another source that happens to
        hold the same text (a copy), which gets its own record instead of taking turns with the
        first in one. The name wins: a file at a record's location is that record's source, also
        when it is a new file given a renamed file's old name (content cannot tell that from an
        amendment next to an archived copy of the old text). Standard input (``-``) has no name:
        it is known by its text alone, so two texts piped in are two sources and the same text
        piped again is the same one.
        """
        card_id = None if location == "-" else self.by_location.get(location)
        if card_id is None:
            for other in self._shas.get(sha256, ()):
                entry = self.entries.get(other)
                # an entry of a moved many-incident file is the entry of the same key, not any of its file's
                if entry is not None and (entry.location == "-" if location == "-"
                                          else not self.places.is_file(entry.location)
                                          and split_location(entry.location or "")[1] == split_location(location)[1]):
                    card_id = other
                    break
        entry = self.entries.get(card_id) if card_id else None
        if entry is not None and not entry.path.exists():
            self._forget(entry)  # deleted since the scan: the source gets a record anew
            return None
        return entry

    def path_for(self, card_id: str, fmt: RecordFormat) -> Path:
        """Where the record of ``card_id`` is written in ``fmt``."""
        return self.root / f"{card_id}.{'json' if fmt == 'json' else 'yaml'}"

    def write(self, card: Card, fmt: RecordFormat, path: Path | None = None) -> Path:
        """Write a record and remember it as pmparse's base (what pmparse last wrote).

        The record and its base are two files, and a process killed between two writes must not
        leave them disagreeing: a base newer than its record would make pmparse call the record
        a person's edit and never refresh it. So the new base is first written as an *intent*,
        then the record, then the intent is renamed over the base; :meth:`read_state` reads an
        intent left by a killed run as the base when the record on disk is that intent.
        """
        path = path or self.path_for(card.id, fmt)
        data = card_data(card)  # the record and its intent are written from one reading of the card
        text = writable(path, dumps(card, format_of(path), data))  # before the intent: nothing written
        base = self.state_path("base", card.id)  # checked before anything is written
        intent = self.write_state("intent", card, data=data)
        atomic_write(path, text)
        base.parent.mkdir(parents=True, exist_ok=True)
        os.replace(intent, base)
        self.add(card, path)
        return path


def is_edited(library: Library, entry: Entry) -> bool:
    """True when a person changed the record since pmparse wrote it (or marked it reviewed)."""
    if entry.card is None:
        return True
    if entry.card.status == "reviewed":
        return True
    if library.state_path("drafts", entry.id).is_file():
        # a draft a person decided fields of (review --drafts): theirs, though still a draft
        return True
    base = library.read_state("base", entry.id)
    if base is None:
        # no memory of what pmparse wrote: treat the record as a person's
        return True
    return card_data(base) != card_data(entry.card)
