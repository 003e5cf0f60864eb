"""The state pmparse keeps beside each record of a library, in ``.pmparse/``: its base (what
pmparse last wrote), an intent (a base about to replace it), a pending suggestion, the rejection
memory and draft decisions; read, written and dropped one file at a time, with the stamps of bases
and pending suggestions kept in the scan cache (:class:`pmparse.library.store.Library` holds them).
"""

from __future__ import annotations

import os
from pathlib import Path

from pmparse.card.schema import Card
from pmparse.errors import RecordError
from pmparse.library.records import card_data, dumps, loads
from pmparse.library.statefiles import file_key as _file_key, regular_text, write_unless_held
from pmparse.paths import inside
from pmparse.util import sha256_text

#: What :meth:`LibraryState.state_stamp` gives for a state card (a row of the scan cache).
STAMP = ("sha256", "version", "model", "fingerprint", "location", "url", "settled")

#: The state kinds whose stamps are kept.
STAMPED = ("base", "pending")
#: Every kind of state file kept for one record, by its id (``.pmparse/<kind>/<id>.json``).
STATE_KINDS = ("base", "pending", "rejected", "drafts")


def state_digest(text: str) -> str:
    """A state file's text as its stamp remembers it (its sha256)."""
    return sha256_text(text)


class LibraryState:
    """A library's state files, per record id and kind (mixed into
    :class:`pmparse.library.store.Library`, which holds the scan cache these stamps are kept in)."""

    root: Path
    entries: dict  # id -> its Entry (store.py, which imports this module)
    _states: dict[str, tuple[list[int], list, str]]
    _index_dirty: bool

    def finish_writes(self) -> list[str]:
        """Finish what a killed run left between a record and its base: call with the write lock held.

        An intent whose record on disk is that intent is renamed over the base (the run died
        after writing the record); any other intent is dropped (it died before, so the old base
        still describes the record). Without this an intent stayed for good and every later run
        read the base through it.

        Returns:
            The ids whose intent became their base.
        """
        folder = inside(self.root, ".pmparse/intent")  # its files are moved and deleted: no link out
        if not folder.is_dir():
            return []
        finished = []
        for path in sorted(folder.glob("IL-*.json")):
            card_id = path.stem
            if self._held_intent(card_id) is not None:
                base = self.state_path("base", card_id)
                base.parent.mkdir(parents=True, exist_ok=True)
                os.replace(path, base)  # its stamp is read from the file when asked, as after write()
                finished.append(card_id)
            else:
                path.unlink(missing_ok=True)
        return finished

    def state_path(self, kind: str, card_id: str) -> Path:
        """Path of a state file of ``kind`` (``base``, ``pending``, ``rejected``) for a card.

        Raises:
            UnsafePathError: ``.pmparse/`` or its ``kind`` folder or the file is a symbolic link: a
                library from someone else must not make pmparse write or remove files elsewhere.
        """
        return inside(self.root, f".pmparse/{kind}/{card_id}.json")

    def write_state(self, kind: str, card: Card, settled: bool = False, data: dict | None = None) -> Path:
        """Store a card as state of ``kind``.

        Args:
            kind: ``base``, ``pending`` or ``rejected``.
            card: The card.
            settled: For a base: it is a whole suggestion nothing is left to decide about (a
                review finished, or a suggestion that proposed nothing open), so its stamp tells
                that its source was read by its pipeline (:meth:`state_stamp`). A base advanced
                field by field, or moved, is not.
            data: ``card_data(card)`` when the caller has it already.
        """
        path = self.state_path(kind, card.id)
        text = dumps(card, "json", data)
        text = write_unless_held(path, text)  # the same data in another key order is left as it is
        if kind == "base":
            # a base written now supersedes whatever a run cut short left as intent
            try:
                self.state_path("intent", card.id).unlink()
            except FileNotFoundError:
                pass
        if kind in STAMPED:
            self._remember_stamp(kind, card.id, path, card, state_digest(text), settled)
        return path

    def state_stamp(self, kind: str, card_id: str) -> tuple | None:
        """``(sha256, version, model, fingerprint, location, url, settled)`` of a ``base`` or
        ``pending`` card: what pmparse last read from the record's source, or None when there is
        none (or, for a base, while a write left its intent behind).

        ``settled`` is true only for a base this process (or one whose index is kept) wrote as
        settled (:meth:`write_state`); read back from the file alone it is false. Cached in
        ``.pmparse/index.json`` by the file's stat key, as records are: an up-to-date check asks
        for every input, and parsing each state card would cost more than a scan.
        """
        path = self.state_path(kind, card_id)
        name = f"{kind}/{card_id}"
        if kind == "base" and self.state_path("intent", card_id).exists():
            return None  # a run died between a record and its base: which one holds is unknown
        key = _file_key(path)
        if key is None:
            if self._states.pop(name, None) is not None:
                self._index_dirty = True
            return None
        hit = self._states.get(name)
        if hit is not None and hit[0] == key:
            stamp = tuple(hit[1])
        else:
            text = regular_text(path)
            try:
                card = loads(text or "", "json", str(path))
            except RecordError:
                self._states.pop(name, None)
                self._index_dirty = True
                return None
            stamp = self._remember_stamp(kind, card_id, path, card, state_digest(text))
        if stamp is not None and self.of_another_source(card_id, stamp[4], stamp[0]):
            return None  # another record's, left under this id (see of_another_source)
        return stamp

    def _remember_stamp(self, kind: str, card_id: str, path: Path, card: Card, digest: str,
                        settled: bool = False) -> tuple | None:
        key = _file_key(path)
        if key is None:
            return None
        stamp = [card.source.sha256, card.pipeline.version, card.pipeline.model, card.pipeline.fingerprint,
                 card.source.location, card.source.url, kind == "pending" or settled]
        self._states[f"{kind}/{card_id}"] = (key, stamp, digest)
        self._index_dirty = True
        return tuple(stamp)

    def read_state(self, kind: str, card_id: str) -> Card | None:
        """A stored state card, or None when there is none (or it is unreadable).

        The ``base`` of a record is the intent a write left behind when the record on disk is
        that intent (the run died after writing the record, before renaming the intent), else
        the stored base. Nothing is changed on disk here: another process may be in the middle
        of that write, and the next write replaces the intent anyway.
        """
        if kind == "base":
            intent = self._held_intent(card_id)
            if intent is not None:
                return intent
        card = self._read_card(self.state_path(kind, card_id))
        if card is not None and kind in STAMPED and self.of_another_source(card_id, card.source.location,
                                                                           card.source.sha256):
            return None  # another record's, left under this id (see of_another_source)
        return card

    def of_another_source(self, card_id: str, location: str | None, sha256: str | None) -> bool:
        """Whether a base or pending card made from the source ``location`` with the text
        ``sha256`` lies under the id of a record of another source: neither its name nor its text
        is the record's (pmparse moves a record's base with it to a new name of the same text, and
        to a new text at the same name).

        A curator who deleted a record and renamed another onto its id by hand left the deleted
        one's state there: its waiting suggestion was offered for the renamed record (another
        source's items, with offsets into another text) and its base taken for what pmparse last
        wrote of it. Such a card is none of the record's: read, it is no state at all
        (:meth:`read_state`), and ``validate`` names it (:func:`pmparse.library.orphans.stray_states`).
        """
        entry = self.entries.get(card_id)
        if entry is None or entry.location is None or entry.sha256 is None:
            return False
        return location != entry.location and sha256 != entry.sha256

    def stray_state(self, kind: str, card_id: str) -> bool:
        """Whether the base or pending card of ``card_id`` is another source's (:meth:`of_another_source`)."""
        if kind not in STAMPED:
            return False
        path = self.state_path(kind, card_id)
        hit = self._states.get(f"{kind}/{card_id}")
        if hit is not None and hit[0] == _file_key(path):
            # its stamp in the scan cache: validate asks this of every record's base
            return self.of_another_source(card_id, hit[1][4], hit[1][0])
        card = self._read_card(path)
        return card is not None and self.of_another_source(card_id, card.source.location, card.source.sha256)

    def _held_intent(self, card_id: str) -> Card | None:
        """The intent a killed write left for ``card_id`` when the record on disk holds it, else None."""
        intent = self._read_card(self.state_path("intent", card_id))
        entry = self.entries.get(card_id)
        if intent is not None and entry is not None and entry.card is not None \
                and card_data(entry.card) == card_data(intent):
            return intent
        return None

    @staticmethod
    def _read_card(path: Path) -> Card | None:
        text = regular_text(path)
        if text is None:
            return None
        try:
            return loads(text, "json", str(path))
        except RecordError:
            return None

    def drop_state(self, kind: str, card_id: str) -> None:
        """Remove a state file if it exists."""
        try:
            self.state_path(kind, card_id).unlink()
        except FileNotFoundError:
            pass
        if self._states.pop(f"{kind}/{card_id}", None) is not None:
            self._index_dirty = True
