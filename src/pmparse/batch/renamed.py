"""A source renamed and edited in one go: which gone record's file a new file is.

A file renamed with its text unchanged is found again by its sha256, and a file edited in place
by its name (:meth:`pmparse.library.store.Library.find`); a file both renamed and edited was
neither, and got a new record while the old one, a person's reviewed edits in it, pointed at a
file that was gone. ``convert`` pairs them only when nothing else could be meant
(:func:`pairs`): the old record's file is gone from what the batch read, exactly one new file of
the batch holds most of the words the old record's evidence said (:func:`evidence_share`), and
that new file is close to no other gone record. The pair is then an amendment of the old record.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable, Mapping

from pmparse.card.schema import Card
from pmparse.library.store import Library
from pmparse.locations import is_url, split_location
from pmparse.util import read_regular_file

#: The item fields whose evidence tells a record's text.
ITEM_FIELDS = ("symptoms", "trigger", "root_cause", "contributing_factors", "detection", "remediation",
               "action_items", "lessons")

#: The share of the runs of words of an old record's evidenced items (:func:`evidence_share`) a new
#: text must hold to be taken for its source renamed and edited. Measured on 2026-12-07 over the
#: 809 corpus records that say enough: their own source with one word changed in each of a third
#: of its lines holds at least 0.65 (99% of them 0.8 or more; with half its lines 0.52, 99% 0.7),
#: while of 7,874 pairs of two reports of one folder 8 reach 0.6, each a report holding much of
#: the other (a copy, a day's summary and its parts) and 11 more 0.3.
PAIR_SHARE = 0.6

#: Fewer evidenced characters than this tell nothing: a record of two short items matches many files.
MIN_EVIDENCE_CHARS = 200

_WORD = re.compile(r"\w+")


#: Words in a row that count as one stretch of an old record's evidence found again.
SHINGLE = 4


def _shingles(text: str) -> set[tuple[str, ...]]:
    """``text``'s runs of :data:`SHINGLE` words in lower case (markup, punctuation and line breaks
    dropped: an item's text is its evidence with white space folded and markup read); a shorter
    text is one run."""
    words = _WORD.findall(text.lower())
    return {tuple(words[i:i + SHINGLE]) for i in range(max(1, len(words) - SHINGLE + 1))} if words else set()


def evidence_share(card: Card, text: str) -> float | None:
    """The share of the runs of words of ``card``'s evidenced items that ``text`` holds (an edit
    loses the runs it touches, not its whole item); None when the record says too little
    (:data:`MIN_EVIDENCE_CHARS`) to tell."""
    return _share(card, _shingles(text))


def _share(card: Card, held: set[tuple[str, ...]]) -> float | None:
    """:func:`evidence_share` against a text's runs of words already cut (:func:`_shingles`)."""
    items = [item.text for name in ITEM_FIELDS for item in getattr(card, name) if item.evidence]
    if sum(len(item) for item in items) < MIN_EVIDENCE_CHARS:
        return None
    wanted = set().union(*(_shingles(item) for item in items))
    if not wanted:
        return None
    return len(wanted & held) / len(wanted)


def close(card: Card, text: str) -> bool:
    """Whether ``text`` is close enough to ``card``'s source to be it renamed and edited."""
    return _close(card, _shingles(text))


def _close(card: Card, held: set[tuple[str, ...]]) -> bool:
    share = _share(card, held)
    return share is not None and share >= PAIR_SHARE


def pairs(candidates: Mapping[str, Iterable[str]], gone: Mapping[str, str],
          kept: Mapping[str, Iterable[str]] | None = None) -> dict[str, tuple[str | None, str | None]]:
    """What each new location close to a gone record is: ``{location: (record id or None, note)}``.

    Args:
        candidates: Each new location of the batch with the records it is close to (:func:`close`).
        gone: The location of each record whose file is gone from what the batch read, by id.
        kept: Each new location with the records whose file is still there it is close to too
            (:attr:`GoneRecords.kept`, ``"IL-0002 (pm/c.md)"``): such a file pairs with none.

    A location is paired only when it is close to exactly one gone record and that record to no
    other new location: a record two new files are close to (a report split in two, a copy
    beside the rename) or a file close to two records is left for a person, and the note says
    which record lost its file. A record whose file is gone elsewhere than the batch read is none.
    Nor does a file close to a record whose file is still there: two reports of one template
    (the same stock detection, actions and lessons) are that close, and a withdrawn report's
    reviewed record then followed another incident.
    """
    close_to = {location: sorted(set(ids) & set(gone)) for location, ids in candidates.items()}
    claims: dict[str, list[str]] = {}
    for location, ids in close_to.items():
        for card_id in ids:
            claims.setdefault(card_id, []).append(location)
    out: dict[str, tuple[str | None, str | None]] = {}
    for location, ids in close_to.items():
        named = ", ".join(f"{card_id} ({gone[card_id]})" for card_id in ids)
        if not ids:
            out[location] = (None, None)
        elif len(ids) > 1:
            out[location] = (None, f"close to {named}, records whose files are gone: taken for none of them "
                                   "renamed and edited (which one it is, is a person's to say); they are kept as "
                                   "they are")
        elif (kept or {}).get(location):
            also = ", ".join((kept or {})[location])
            out[location] = (None, f"close to {named}, a record whose file is gone, but also to {also}, whose "
                                   "file is here: reports of one template are that close, so it is not taken for "
                                   "the gone one renamed and edited (which it is, is a person's to say); the "
                                   "record is kept as it is")
        elif len(claims[ids[0]]) > 1:
            others = ", ".join(other for other in claims[ids[0]] if other != location)
            out[location] = (None, f"close to {named}, a record whose file is gone, as {others} also is: taken "
                                   "for it renamed and edited by neither; the record is kept as it is")
        else:
            out[location] = (ids[0], f"{named} renamed and edited: its file is gone and this text holds its "
                                     "evidence's words: this file is now its source, and amends it")
    return out


class GoneRecords:
    """The records whose file was gone when the batch started, and the new files of the batch
    close to one of them.

    Args:
        library: The library the batch writes (read before it stores anything).
    """

    def __init__(self, library: Library) -> None:
        self._library = library
        self._gone: dict[str, Card] | None = None  # id: card, read at the first new file
        #: Each new location close to a gone record with the records whose file is still there it
        #: is close to too (``"IL-0002 (pm/c.md)"``): :func:`pairs` pairs it with none.
        self.kept: dict[str, list[str]] = {}

    def _records(self) -> dict[str, Card]:
        if self._gone is None:
            self._gone = {}
            for location, card_id in self._library.by_location.items():
                path, key = split_location(location)
                if location == "-" or is_url(path) or key is not None or self._library.places.is_file(location):
                    continue  # a many-incident file's entries are found by their keys: not paired here
                entry = self._library.entries.get(card_id)
                card = entry.card if entry is not None else None
                if card is not None:
                    self._gone[card_id] = card
        return self._gone

    def near(self, location: str, read_from: str | None, card: Callable[[], Card]) -> list[str]:
        """The gone records the new source at ``location`` is close to (:func:`close`), read from
        ``read_from`` when given; ``card`` gives its suggestion (parsed only when asked). Empty
        for a source the library already knows (by name or text) and for standard input or a URL."""
        path, key = split_location(location)
        if location == "-" or is_url(path) or key is not None or location in self._library.by_location:
            return []
        if not self._records():
            return []
        suggestion = card()
        if self._library.find(suggestion.source.sha256, location) is not None:
            return []  # the same text renamed: found by its sha256
        text = suggestion.source.extracted_text
        if text is None:
            data = read_regular_file(read_from or path)
            text = data.decode("utf-8", "replace") if data is not None else ""
        held = _shingles(text)  # cut once: compared with every gone record and, when near one, every other
        near = sorted(card_id for card_id, old in self._records().items() if _close(old, held))
        if near:
            # the records of this library now (this batch's included), the gone ones aside
            self.kept[location] = [f"{entry.id} ({entry.location})"
                                   for entry in sorted(self._library.entries.values(), key=lambda entry: entry.id)
                                   if entry.id not in self._records() and entry.card is not None
                                   and _close(entry.card, held)]
        return near
