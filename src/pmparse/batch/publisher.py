"""A batch knows its publisher (issue 35): ``convert --organisation NAME``, a folder setting a
curator writes once, and a folder's consensus offered to its cards that name none.

- ``--organisation NAME`` names the publisher of every card of the batch (origin ``batch``).
- A ``.pmparse.yaml`` file in a source's folder, or in a folder above it, with ``organisation:
  NAME`` names the publisher of every card made from a file below it (origin ``setting``); the
  nearest file wins, and the batch option wins over it.
- Otherwise, when the library holds cards of the same folder that a person marked reviewed
  (issue 36, "facts too"), the publisher most of them name (more than half of those naming one) is
  given to the folder's new cards that name none, and replaces a publisher the person corrected
  away on a reviewed card of that folder (what pmparse had suggested there, before the person's
  edit), at confidence :data:`REVIEWED_CONFIDENCE` (origin ``reviewed``), with a warning naming
  the reviewed cards. A card naming another publisher by its own evidence keeps it. A folder named
  as a number or a date is its parent archive's (:func:`folder_of`), but a review in one of its
  folders says nothing to a card of another while most of the archive's other cards name other
  publishers of their own (:class:`Archive`): that archive is a catalogue of many publishers'
  reports filed by date, and a report of it naming none failed to name its own.
- Otherwise, when most cards of one folder stored so far in this batch name the same publisher
  with good confidence (at least :data:`CONSENSUS_CARDS` cards, more than half of them, each at
  :data:`CONSENSUS_CONFIDENCE` or more), that publisher is offered to the folder's next cards that
  name none, at confidence :data:`OFFERED_CONFIDENCE` (origin ``folder``), with a warning naming
  the cards it comes from: their evidence is the evidence. Results stay in input order, so a card
  read before its folder's consensus forms is not offered it (a ``.pmparse.yaml`` covers those).

The folder a file sits in says nothing by its name (see docs/facts-and-tags.md); these are what a
curator states, or what the folder's own texts say.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pmparse.card.schema import Card, Support
from pmparse.errors import UsageError

if TYPE_CHECKING:
    from pmparse.library.store import Library

#: The settings file a curator writes in a folder of postmortems.
SETTINGS_FILE = ".pmparse.yaml"
#: How many folders up a settings file is looked for.
SETTINGS_DEPTH = 8
#: The largest settings file read (it holds one line; a larger one is refused, not read).
SETTINGS_LIMIT = 64 * 1024
#: Fewest cards of one folder naming the same publisher before it is offered to the others.
CONSENSUS_CARDS = 3
#: Least confidence of a card's organisation for it to count towards a folder's consensus.
CONSENSUS_CONFIDENCE = 0.7
#: Confidence of a publisher offered from the folder's consensus.
OFFERED_CONFIDENCE = 0.4
#: Confidence of a publisher taken from the folder's reviewed cards: a person's word about other
#: reports of the same folder, not about this one.
REVIEWED_CONFIDENCE = 0.7


class FolderSettings(BaseModel):
    """What a curator says about every postmortem below a folder (``.pmparse.yaml``)."""

    # stripped before the length check: "organisation: '  '" named a publisher of two spaces
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)
    organisation: str | None = Field(default=None, min_length=1, description="The publisher of every report below.")


def folder_settings(location: str, cache: dict[str, FolderSettings | UsageError | str | None] | None = None,
                    ignored: list[str] | None = None, named: set[str] | frozenset[str] = frozenset()
                    ) -> tuple[FolderSettings, str] | None:
    """The nearest ``.pmparse.yaml`` above a source file, with its path; None when there is none.
    ``cache`` keeps each file's reading, a broken one's error too (read once a batch).

    A settings file anyone else could have written is passed over (:func:`untrusted`), and the
    search goes on above it; ``ignored`` gets a line naming each one passed over. In a folder the
    curator named as an input, or below one (``named``: absolute paths), a file another account
    owns is taken: the curator chose that folder's reports, a team's shared folder among them; one
    anyone may write is still passed over.

    Raises:
        UsageError: the nearest settings file is unreadable or invalid.
    """
    if not location or location == "-" or "://" in location:
        return None
    cache = {} if cache is None else cache
    folder = Path(os.path.abspath(location)).parent
    for _ in range(SETTINGS_DEPTH):
        path = folder / SETTINGS_FILE
        key = str(path)
        chosen = any(key.startswith(root.rstrip(os.sep) + os.sep) for root in named)
        slot = f"{key}\0chosen" if chosen else key  # the same file may be taken below a named folder only
        if slot not in cache:
            try:
                if not path.is_file():
                    cache[slot] = None
                else:
                    reason = untrusted(path, owner=not chosen)
                    cache[slot] = reason if reason is not None else _read(path)
            except UsageError as exc:
                cache[slot] = exc
        found = cache[slot]
        if isinstance(found, UsageError):
            raise found.with_traceback(None)  # the same error each time, not a growing traceback
        if isinstance(found, str):
            if ignored is not None:
                ignored.append(f"{key}: ignored, {found} (make it yours and not writable by others, "
                               "or give the publisher with --organisation)")
        elif found is not None:
            return found, key
        if folder.parent == folder:
            break
        folder = folder.parent
    return None


def untrusted(path: Path, owner: bool = True) -> str | None:
    """Why a settings file may be someone else's word rather than the curator's, or None
    (``owner``: whether another account's file counts as someone else's word).

    The search for a settings file goes up from each report past the folder the curator named
    (a folder of postmortems states its publisher once for every subfolder): up there a file in
    a folder anyone may write (``/tmp/.pmparse.yaml``), one anyone may change, or one another
    account owns would name the publisher of every card below it, or, broken, fail them all.
    Such a file is passed over, as git passes over a repository another account owns.
    """
    try:
        info, parent = path.stat(), path.parent.stat()
    except OSError:
        return None  # gone or unreadable: _read names the reason
    if parent.st_mode & stat.S_IWOTH:
        return "its folder is writable by every account"
    if info.st_mode & stat.S_IWOTH:
        return "it is writable by every account"
    uid = getattr(os, "geteuid", lambda: None)()
    if owner and uid is not None and info.st_uid not in (uid, 0):
        return "another account owns it"
    return None


def _read(path: Path) -> FolderSettings:
    """A folder's settings; a broken file is named in one line, with the line and the reason
    (PyYAML's and pydantic's own messages span several lines)."""
    from pmparse.util import read_regular_file
    from pmparse.yaml_problems import PureCalendarLoader, syntax_problem, validation_summary

    expected = "expected a settings file with `organisation: NAME`"
    raw = read_regular_file(path, SETTINGS_LIMIT)
    if raw is None:
        raise UsageError(f"{expected}, found one that is unreadable or larger than {SETTINGS_LIMIT // 1024} KiB",
                         str(path))
    try:
        text = raw.decode("utf-8")
        data = yaml.load(text, Loader=PureCalendarLoader)  # yaml.safe_load, a date that is no day an error
    except UnicodeDecodeError as exc:
        raise UsageError(f"{expected}, found it unreadable ({exc})", str(path)) from exc
    except yaml.YAMLError as exc:
        raise UsageError(f"{expected}, found {syntax_problem(exc)}", str(path)) from exc
    if data is None:
        return FolderSettings()
    if not isinstance(data, dict):
        raise UsageError(f"{expected}, found {'a list' if isinstance(data, list) else 'a single value'}", str(path))
    try:
        return FolderSettings.model_validate(data)
    except ValidationError as exc:
        found = validation_summary(exc, text, most=None,
                                   unknown=lambda key: f"{key!r} is not a setting (the one setting is `organisation: NAME`)")
        raise UsageError(f"{expected}, found {found}", str(path)) from exc


def with_organisation(card_json: str, name: str, origin: str, confidence: float) -> str:
    """The card (JSON) with ``name`` as its organisation, stated by ``origin`` (no evidence: the
    curator's word, or other cards')."""
    card = Card.model_validate_json(card_json)
    support = dict(card.support)
    support["organisation"] = Support(evidence=[], confidence=confidence, origin=origin)
    return card.model_copy(update={"organisation": name, "support": support}).model_dump_json()


@lru_cache(maxsize=16)
def organisation_of(card_json: str) -> tuple[str | None, float]:
    """The card's organisation and its confidence.

    Remembered for the last few cards: a batch asks twice of each card it stores (whether its
    folder's consensus is offered to it, then to count it towards that consensus). The JSON is a
    card the pipeline wrote, so it is read as plain JSON: validating the whole card for two values
    was about 2 % of a batch's time.
    """
    data = json.loads(card_json)
    support = (data.get("support") or {}).get("organisation")
    return data.get("organisation"), float(support["confidence"]) if support else 0.0


@dataclass
class Consensus:
    """The publishers the cards of each folder name, as the batch stores them."""

    named: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    totals: dict[str, int] = field(default_factory=dict)

    def add(self, location: str, organisation: str | None, confidence: float, card_id: str) -> None:
        """Count one stored card of the folder of ``location``."""
        folder = folder_of(location)
        self.totals[folder] = self.totals.get(folder, 0) + 1
        if organisation and confidence >= CONSENSUS_CONFIDENCE:
            self.named.setdefault(folder, {}).setdefault(organisation, []).append(card_id)

    def offer(self, location: str) -> tuple[str, list[str], int] | None:
        """The publisher most cards of the folder of ``location`` stored so far name, the ids of
        those cards and the folder's count, or None."""
        folder = folder_of(location)
        counts = self.named.get(folder, {})
        if not counts:
            return None
        name, ids = max(counts.items(), key=lambda kv: len(kv[1]))
        total = self.totals.get(folder, 0)
        if len(ids) >= CONSENSUS_CARDS and len(ids) * 2 > total:
            return name, ids, total
        return None


#: A folder named as a number or a date ("11", "2022", "2022-08", "2023_04_25") partitions its
#: parent's archive by time or sequence; it is no publisher of its own.
_PARTITION = re.compile(r"\d{1,4}(?:[-_.]\d{1,2}){0,2}")


def folder_of(location: str) -> str:
    """The folder whose reports share a publisher: the source location's folder (an entry's
    ``#entry-...`` dropped), above the folders that only partition an archive by number or date
    (``blog/2023/05/post.md`` and ``blog/2024/01/post.md`` are both ``blog``'s), so that what a
    curator settles on one month's report is the archive's word for the other months'.

    ``convert`` asks it of a location's place (:meth:`pmparse.library.places.SourcePlaces.place`,
    absolute, links resolved), so the folder does not depend on how the location was spelt.
    Only a folder with a name of its own is such an archive: above a relative location's top folder
    (``2023/post.md``, ``../2023/post.md``) stands whatever folder the curator converted from, which
    the record does not say (pooled into ``.``, one archive's year folders became the same folder as
    any other's, and as every file converted by a bare name), and above ``/2023`` only the
    filesystem's root.
    """
    folder = _own_folder(location)
    while _PARTITION.fullmatch(os.path.basename(folder)):
        parent = os.path.dirname(folder)
        if os.path.basename(parent) in ("", ".", ".."):
            break
        folder = parent
    return folder


#: Origins of a card's organisation that are not its own word: other cards' (reviewed, folder).
NOT_ITS_OWN = ("reviewed", "folder")


def own_organisation(card_json: str) -> str | None:
    """The publisher a card (JSON) names by its own word, not given from other cards; None when none."""
    data = json.loads(card_json)
    support = (data.get("support") or {}).get("organisation") or {}
    return _by_its_own_word(data.get("organisation"), support.get("origin"))


def _by_its_own_word(organisation: str | None, origin: str | None) -> str | None:
    """``organisation`` when its ``origin`` is the card's own word (:data:`NOT_ITS_OWN`), else None."""
    return None if origin in NOT_ITS_OWN else organisation or None


def _own_folder(location: str) -> str:
    return os.path.dirname(location.split("#entry-", 1)[0]) or "."


@dataclass
class Archive:
    """The publishers an archive's cards other than its reviewed ones name by their own word
    (:func:`own_organisation`), counted as they are read or stored, one count per card.

    Attributes:
        named: Each card's id and the publisher it names (case-folded), or None.
        counts: How many cards name each publisher (case-folded).
        stored: The library's cards, as ``(id, publisher or None)``, read the first time the archive
            is weighed (most batches never need it: parsing a large archive's records costs), a card
            counted before that, as the batch stored it, standing over its library record.
    """

    named: dict[str, str | None] = field(default_factory=dict)
    counts: Counter = field(default_factory=Counter)
    stored: Callable[[], Iterable[tuple[str, str | None]]] | None = None

    def set(self, card_id: str, organisation: str | None) -> None:
        """Count the card ``card_id`` naming ``organisation`` (a card counted before is recounted)."""
        if card_id in self.named and self.named[card_id] is not None:
            self.counts[self.named[card_id]] -= 1
        key = organisation.casefold() if organisation else None
        self.named[card_id] = key
        if key is not None:
            self.counts[key] += 1

    def mostly_others(self, names: set[str]) -> bool:
        """Whether more than half of the archive's cards name a publisher other than ``names``."""
        if self.stored is not None:
            read, self.stored = self.stored, None
            for card_id, organisation in read():
                if card_id not in self.named:
                    self.set(card_id, organisation)
        folded = {name.casefold() for name in names}
        others = sum(count for name, count in self.counts.items() if name not in folded)
        return others * 2 > len(self.named)


@dataclass
class Reviewed:
    """The publishers a person settled on the reviewed cards of each folder of a library.

    Attributes:
        cards: Per folder, each reviewed card as ``(id, location, publisher it names, publisher
            pmparse last suggested for it)``.
        addresses: Per reviewed card id, whose public address its source has
            (:func:`~pmparse.nlp.extractors.url_owner.address_key`), where it has one.
    """

    cards: dict[str, list[tuple[str, str, str, str | None]]] = field(default_factory=dict)
    addresses: dict[str, str] = field(default_factory=dict)

    def add(self, location: str, organisation: str | None, suggested: str | None, card_id: str,
            address: str | None = None) -> None:
        """Count one reviewed card: its source's ``location``, the publisher it names, the one
        pmparse last suggested for it (its base) and whose address its source has (``address``)."""
        if not organisation:
            return
        self.cards.setdefault(folder_of(location), []).append((card_id, location, organisation, suggested))
        if address:
            self.addresses[card_id] = address

    def choice(self, location: str, current: str | None, own: str | None = None,
               archive: Archive | None = None, from_address: str | None = None) -> tuple[str, list[str]] | None:
        """The publisher a new card of ``location``'s folder should name, with the reviewed cards
        it comes from; None when the card's own ``current`` stands (or the folder has none).

        ``archive``: what the folder's other cards name by their own word. When the card's own
        folder holds none of the reviewed cards (they are in other number- or date-named folders of
        its archive) and most of those cards name publishers other than the reviewed one and the
        ones corrected away, the reviews say nothing to it: a catalogue of many publishers'
        reports filed by year (its reviewed "Bell Labs" was given to the next years' reports
        naming none) is no one publisher's archive.

        ``from_address``: whose address the card's source has
        (:func:`~pmparse.nlp.extractors.url_owner.address_key`) when its ``current`` publisher is
        what that address gave (origin ``url``). The reviewed cards' publisher replaces it where
        one of those cards has the same owner's address: the curator read the same address and
        named its publisher otherwise ("Cloud Platform", a repository's name, for a ministry).

        ``own`` is the location of the card asked about (an entry's ``#entry-...`` kept): its own
        reviewed record is left out. A person's word on a card is the folder's word for its other
        cards; taken as pmparse's suggestion for the card itself, it would become the base the
        person's edit is compared with, the correction would be forgotten, and the next reading
        would propose the text's own name back over the person's.
        """
        counts: dict[str, list[str]] = {}
        corrected: dict[str, str] = {}
        here = False  # whether a reviewed card counted stands in the card's own folder
        at_address: dict[str, str] = {}  # the reviewed cards of the card's own address, and their publisher
        for card_id, card_location, organisation, suggested in self.cards.get(folder_of(location), []):
            if own is not None and card_location == own:
                continue
            here = here or _own_folder(card_location) == _own_folder(location)
            counts.setdefault(organisation, []).append(card_id)
            if from_address is not None and self.addresses.get(card_id) == from_address:
                at_address[card_id] = organisation
            if suggested and suggested != organisation:
                corrected[suggested] = organisation
        if not counts:
            return None
        name, ids = max(counts.items(), key=lambda kv: (len(kv[1]), kv[0]))
        if len(ids) * 2 <= sum(len(v) for v in counts.values()):
            return None  # the folder's reviewed cards disagree: no word for the others
        if current == name:
            return None
        if not here and archive is not None and archive.mostly_others({name, *corrected}):
            return None
        if current is None:
            return name, ids
        fixed = corrected.get(current)
        if fixed:
            return fixed, counts.get(fixed, ids)
        if any(i in at_address for i in ids):
            # the curator who kept the address's name on a card of that same address said it reads right
            kept = {o.casefold() for o in at_address.values()}
            return None if current.casefold() in kept else (name, ids)
        return None


class ReviewedCards:
    """The publishers a person settled on a library's reviewed cards, read a folder at a time: only
    the reviewed records of the folders a batch converts are parsed (with the base pmparse last
    wrote for each, to see what the person corrected), so a large library costs little.

    Its records' locations are taken by their place (:meth:`pmparse.library.places.SourcePlaces.place`),
    and so is every ``location`` its methods are given: a folder is one folder whatever spelling
    reached its files."""

    def __init__(self, library: Library) -> None:
        self.library = library
        self.found = Reviewed()
        self.by_folder: dict[str, list[str]] = {}
        self.others_by_folder: dict[str, list[str]] = {}
        for entry in library.entries.values():  # the scan's cached status and location: no parsing
            if entry.location:
                index = self.by_folder if entry.status == "reviewed" else self.others_by_folder
                index.setdefault(folder_of(library.places.place(entry.location)), []).append(entry.id)
        self.read: set[str] = set()
        self.archives: dict[str, Archive] = {}

    def of(self, location: str) -> Reviewed:
        """What the reviewed cards say, with the folder of ``location`` read."""
        folder = folder_of(location)
        if folder not in self.read:
            self.read.add(folder)
            for card_id in self.by_folder.get(folder, []):
                entry = self.library.entries.get(card_id)
                card = entry.card if entry is not None else None
                if card is None:
                    continue
                base = self.library.read_state("base", card_id)
                self.found.add(self.library.places.place(entry.location), card.organisation,
                               base.organisation if base is not None else None, card_id,
                               address_of(card.source.url or card.source.location))
        return self.found

    def archive(self, location: str) -> Archive | None:
        """What the other cards of ``location``'s folder name by their own word, for a folder
        holding reviewed cards (None for one holding none): the library's records, read once a
        batch when first weighed, and the cards the batch stores (:meth:`stored`)."""
        folder = folder_of(location)
        if not self.by_folder.get(folder):
            return None
        if folder not in self.archives:
            self.archives[folder] = Archive(stored=lambda: self._others(folder))
        return self.archives[folder]

    def _others(self, folder: str) -> Iterator[tuple[str, str | None]]:
        for card_id in self.others_by_folder.get(folder, []):
            entry = self.library.entries.get(card_id)
            card = entry.card if entry is not None else None
            if card is not None and card.status != "reviewed":
                support = card.support.get("organisation")
                yield card_id, _by_its_own_word(card.organisation, support.origin if support is not None else None)

    def stored(self, location: str, card_id: str, card_json: str) -> None:
        """Count a card the batch stored towards its folder's archive (one holding reviewed cards)."""
        archive = self.archive(location)
        entry = self.library.entries.get(card_id)
        if archive is not None and not (entry is not None and entry.status == "reviewed"):
            archive.set(card_id, own_organisation(card_json))


def address_of(location: str | None) -> str | None:
    """Whose public address ``location`` is (:func:`~pmparse.nlp.extractors.url_owner.address_key`)."""
    from pmparse.nlp.extractors.url_owner import address_key

    return address_key(location)


def address_given(card_json: str) -> str | None:
    """Whose address the card's source has, when the card's publisher is what that address gave
    (its support's origin ``url``); else None."""
    data = json.loads(card_json)
    support = (data.get("support") or {}).get("organisation") or {}
    if support.get("origin") != "url":
        return None
    source = data.get("source") or {}
    return address_of(source.get("url") or source.get("location"))


def location_of(card_json: str) -> str | None:
    """The source location a card (JSON) was read from: an entry's ``#entry-...`` included."""
    return Card.model_validate_json(card_json).source.location
