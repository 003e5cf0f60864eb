"""The places of a library a command reads without opening it: its record files read one by one
(``validate``, ``site``, ``diff A B``), their relative source locations from the library's anchor.

Apart from :mod:`pmparse.library.places`, which the store imports: this module imports the store.
"""

from __future__ import annotations

from pathlib import Path

from pmparse.errors import UnsafePathError
from pmparse.library.folder import record_files_by_id
from pmparse.library.places import SourcePlaces
from pmparse.library.records import source_keys
from pmparse.library.store import Library


class _Locations:
    """The source locations of the library at ``root`` with their records' sha256, scanned only
    when asked for: :meth:`SourcePlaces.of_library` asks for them only when the recorded anchor
    folder is gone."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def items(self):
        try:
            return Library.open(self.root).location_shas().items()
        except UnsafePathError:
            # a library from elsewhere whose scan cache is a link out: the scan refuses it, but a
            # command that reads records one by one never needed the cache (it stopped with exit
            # 2): read each record's location from its file instead
            return self._from_files()

    def _from_files(self):
        for paths in record_files_by_id(self.root).values():
            for path in paths:
                sha, location = source_keys(path)
                if location is not None:
                    yield location, sha


def places_of(root: str | Path) -> SourcePlaces:
    """The places of the library at ``root`` (:attr:`Library.places`) for a command that reads its
    record files itself: relative source locations are read from the library's anchor, as
    ``convert`` reads them, whatever folder the command runs in. The library is scanned only when
    its recorded anchor folder is gone (its relative names then read from where they are files)."""
    return SourcePlaces.of_library(Path(root), _Locations(Path(root)))  # type: ignore[arg-type]
