"""Where a library's sources are: one file and one folder for each source, whatever spelling reached it.

A record's ``source.location`` is the path a source was first read by (or its URL). A relative
location is read from the library's *anchor*, the folder its first ``convert`` ran in, written to
``LIBRARY/.pmparse/anchor.json`` relative to the library's folder (a library copied or cloned
with its sources reads them where they now are): without it the same relative name read from two
folders was one source (a second folder's ``pm/x.md`` rewrote the first folder's record, and the
two took turns in it), and a file named from elsewhere found no record. A relative name a ``convert`` run in another
folder is given is recorded by its absolute path, so every location names one file.

From a location this gives the file it names (:meth:`SourcePlaces.path`), that file's identity
(device and inode: ``a/x.md``, ``./a/x.md``, an absolute path, a link to it or to its folder are
one file) and its *place* (:meth:`SourcePlaces.place`), the one spelling the folder scope of a
publisher (:mod:`pmparse.batch.publisher`) is read from.
"""

from __future__ import annotations

import json
import logging
import os
import stat
from pathlib import Path
from typing import Callable, Collection, Iterable, Mapping

from pmparse.errors import UnsafePathError
from pmparse.locations import entry_location, is_url, split_location, url_parts
from pmparse.paths import SUPPORTED_SUFFIXES, inside, real_path as _real
from pmparse.util import atomic_write, read_regular_file, text_sha256

#: Where a library keeps its anchor: the folder its relative locations are read from.
ANCHOR_FILE = ".pmparse/anchor.json"


#: Reads the text sha256 of a page or PDF (``path``, its bytes), whose record's sha256 is of the
#: text extracted, which its bytes cannot show; None: not such a file, or unreadable. ``convert``
#: gives one (extraction is :mod:`pmparse.ingest`'s, which this package does not import).
ExtractedSha = Callable[[str, bytes], "str | None"]

_log = logging.getLogger(__name__)
_named_gone: set[tuple[str, str]] = set()  # (library, anchor): each gone anchor named once a process


#: The largest anchor file read: it holds one path (a library from someone else may hold anything).
ANCHOR_LIMIT = 64 * 1024


def _read_anchor(root: Path) -> str | None:
    """The anchor a library recorded, as an absolute folder, or None (none yet, or one pmparse
    cannot use).

    The file names the folder relative to the library's own (``..`` for a library kept beside its
    sources), so a library copied, moved or cloned with its sources reads them from their new
    place; an absolute folder (a library and sources on different drives) is read as it is.

    A library may come from someone else: the file is read only when it is a regular file of at
    most :data:`ANCHOR_LIMIT` bytes (a FIFO there waited for a writer for ever, a huge file filled
    memory), and its folder is used only when it is a string without NUL.
    """
    try:
        raw = read_regular_file(inside(root, ANCHOR_FILE), ANCHOR_LIMIT)
        data = json.loads(raw.decode("utf-8")) if raw is not None else None
    except (ValueError, UnsafePathError):
        return None  # unreadable, or behind a planted link: relative names read from here
    folder = data.get("folder") if isinstance(data, dict) else None
    if not isinstance(folder, str) or not folder or "\0" in folder:
        return None
    return folder if os.path.isabs(folder) else os.path.normpath(os.path.join(_real(str(root)), folder))


def _anchor_text(root: Path, anchor: str) -> str:
    """What :func:`_read_anchor` reads back as ``anchor``: the folder relative to the library's."""
    try:
        return os.path.relpath(_real(anchor), _real(str(root)))
    except ValueError:
        return anchor  # another drive (Windows): no relative path leads there


#: Folders of the system no report is kept in: their files (``/proc/self/environ``, ``/etc/shadow``)
#: are never read back as a record's source. macOS spells them with links resolved (``/etc`` and
#: ``/var/run`` lead into ``/private``; ``/private/var/db`` holds its user records) and its file
#: system ignores case, so they are compared in lower case.
SYSTEM_FOLDERS = ("/proc", "/sys", "/dev", "/etc", "/run", "/boot",
                  "/private/etc", "/private/var/run", "/private/var/db", "/system")


def plausible_source(path: str, library: str | Path | None = None) -> bool:
    """True when ``path`` may be read back as the source of a record of the library at ``library``.

    A library may come from someone else, and its records name their sources: a record naming
    ``~/.ssh/id_ed25519`` made ``site`` hash the key into its manifest. A source is read back only
    when its name (links resolved) is not hidden, it is not in a system folder
    (:data:`SYSTEM_FOLDERS`), and either it has a report's ending (``.md``, ``.html``, ``.pdf``:
    wherever it is, as ``convert`` reads a report under ``~/.local/share/...``) or no folder on
    its way is hidden (``.ssh``, ``.aws``, ``.config``: ``convert`` reads a ``.log`` it is given,
    and keys and credentials have no report's ending). ``library`` is kept for callers: the
    rule no longer depends on where the library is (one in a hidden folder made its neighbours
    plausible). Whatever is read is still compared with the record's sha256 before anything is
    taken from it.
    """
    real = _real(path)
    folder, name = os.path.split(real)
    if not name or name.startswith(".") or any(real.lower().startswith(system + os.sep) for system in SYSTEM_FOLDERS):
        return False
    if name.lower().endswith(SUPPORTED_SUFFIXES):
        # a report's ending: convert read such a file wherever it was given, a repository under a
        # hidden folder (~/.local/share/...) included; no key or credentials file has one
        return True
    # another ending or none is what convert reads when named (a .log): keys and credentials
    # (~/.ssh/id_ed25519, ~/.aws/credentials) are such files, kept in hidden folders: any on its
    # whole way counts (a library kept in ~/.config made ~/.config/gcloud/... plausible)
    return not any(part.startswith(".") and part not in (".", "..") for part in folder.split(os.sep))


def is_relative_file(location: str) -> bool:
    """True when ``location`` is a relative path (not standard input, not a URL)."""
    return location != "-" and not is_url(location) and not os.path.isabs(split_location(location)[0])


class SourcePlaces:
    """The files and folders a library's source locations name.

    Args:
        anchor: The absolute folder relative locations are read from.
        recorded: Whether the library recorded it (else it is the folder this process runs in,
            which :meth:`pin` records once a relative location is known to be read from it).
        root: The library's folder, which tells the folders its sources plausibly are in
            (:func:`plausible_source`); None: any folder.
    """

    def __init__(self, anchor: str, recorded: bool = False, root: Path | None = None,
                 extracted_sha: ExtractedSha | None = None) -> None:
        self.anchor = anchor
        self.recorded = recorded
        self.root = root
        self.extracted_sha = extracted_sha
        #: The recorded anchor folder when it is gone and stays the anchor (nothing here holds a
        #: text of the library), else None.
        self.gone_anchor: str | None = None
        self._here = _real(os.getcwd())
        self.anchor_is_here = _real(anchor) == self._here
        self._places: dict[str, str] = {}
        self._folders: dict[str, str] = {}
        self._digests: dict[str, str | None] = {}  # holds_text's, by path

    @classmethod
    def of_library(cls, root: Path, locations: Mapping[str, str | None] | None = None,
                   extracted_sha: ExtractedSha | None = None) -> SourcePlaces:
        """The places of the library at ``root``: its recorded anchor, else this process's folder.

        ``locations``: the library's source locations, each with its record's sha256. A recorded
        anchor folder that is gone (the library moved with its sources, or cloned on another
        machine) is the library's anchor no more where one of its relative locations is a file
        from this folder that holds a text its records were read from (:meth:`holds_text`):
        relative names are read from here, which :meth:`pin` records, as a library without an
        anchor adopts a folder (read from the gone folder, each was taken for a file gone: an
        unchanged file's record moved to an absolute name, an amended one got a second record).
        Else it stays the anchor (a folder not mounted for now: relative names given here are
        recorded absolute, and are not mixed with the anchor's), and a warning names it with what
        to do, once a process (:attr:`gone_anchor`): every source read from there was missing
        without a word. ``extracted_sha``: how a page's or PDF's text sha256 is read
        (:data:`ExtractedSha`); without it such a file is no evidence of the folder.
        """
        anchor = _read_anchor(root)
        here = cls(os.path.abspath(os.getcwd()), root=root, extracted_sha=extracted_sha)
        if anchor is None:
            return here
        places = cls(anchor, True, root, extracted_sha)
        if not os.path.isdir(anchor):
            found = dict((locations or {}).items())
            known = {sha for sha in found.values() if sha}
            if any(here.holds_text(location, known) for location in found):
                return here
            relative = sum(1 for location in found if is_relative_file(location))
            if relative:
                places.gone_anchor = anchor
                if (str(root), anchor) not in _named_gone:
                    _named_gone.add((str(root), anchor))
                    _log.warning(f"{root}: the library's anchor folder {anchor} is gone: {relative} source "
                                 "location(s) are read from there and found missing; run `pmparse convert` from "
                                 "the folder that now holds its sources (the library adopts it), or put the "
                                 "folder back")
        return places

    def path(self, location: str) -> str:
        """The file a location names, as a path from this process's folder (an entry's key
        dropped); a URL or ``-`` as it is."""
        path = split_location(location)[0]
        if path == "-" or is_url(path) or os.path.isabs(path) or self.anchor_is_here:
            return path
        return os.path.join(self.anchor, path)

    def readable(self, location: str | None) -> str | None:
        """The path to read a record's source back from (:meth:`path`), or None: a URL, ``-``, or
        a file that is no plausible source of this library (:func:`plausible_source`)."""
        if not location or location == "-" or is_url(location):
            return None
        path = self.path(location)
        return path if plausible_source(path, self.root) else None

    def holds_text(self, location: str, known: Collection[str]) -> bool:
        """True when ``location`` is relative and names a file (a plausible source, read from the
        anchor) whose text (:func:`~pmparse.util.text_sha256`) has one of the ``known`` sha256 (its
        library's records'): the evidence that the anchor is the folder the library's relative
        names were read from (the file holds a text the library was made from, its record's or,
        amended since, a newer record's). A file of the same name that holds another text (an ``index.md``,
        ``2023/outage.md`` in another folder) is none."""
        if not known or not is_relative_file(location):
            return False
        path = self.readable(location)
        if path is None:
            return False
        if path not in self._digests:
            # each file once: the entries of a many-incident file amended since all name it
            data = read_regular_file(path)
            digest = None if data is None else text_sha256(data)
            if data is not None and digest not in known and self.extracted_sha is not None:
                # a page's or PDF's record holds the sha256 of the text extracted from it
                digest = self.extracted_sha(path, data)
            self._digests[path] = digest
        return self._digests[path] in known

    def is_file(self, location: str | None) -> bool:
        """True when ``location`` names a file that exists (an entry's file; a URL or ``-`` never)."""
        if not location or location == "-" or is_url(location):
            return False
        try:
            return os.path.isfile(self.path(location))
        except (OSError, ValueError):
            return False

    def spelling(self, given: str) -> str:
        """The location of a path given to ``convert``: normalised (``./pm/a.md`` and ``pm//a.md``
        are ``pm/a.md``), and absolute when it is relative and ``convert`` runs in a folder other
        than the anchor (read from the anchor, the name would be another file's) or when it is a
        file named ``-`` in this folder (the name of standard input)."""
        location = os.path.normpath(given)
        if location == "-":
            # a file named "-" ("./-", what "convert ." gives for it): "-" is standard input,
            # which was read instead of the file
            return os.path.abspath(location)
        if self.anchor_is_here or os.path.isabs(location):
            return location
        return os.path.abspath(location)

    def identity(self, location: str) -> tuple[int, int] | None:
        """The device and inode of the regular file a location names; None for a URL, ``-``, a
        missing file or anything else."""
        path = self.path(location)
        if path == "-" or is_url(path):
            return None
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            return None
        # st_ino identifies a file only when it is not 0 (some file systems give 0 for every
        # file): taken as it is, every file there was one file, and all but a batch's first input dropped
        return (st.st_dev, st.st_ino) if stat.S_ISREG(st.st_mode) and st.st_ino else None

    def place(self, location: str) -> str:
        """The one spelling of a location, whatever spelling reached it: a path's absolute path in
        its folder's real path (links to folders resolved, relative names read from the anchor), a URL with its scheme and host
        in lower case and no trailing ``/`` (``https://h/post/`` is ``https://h/post``; the site's
        root stays ``https://h/``) nor fragment; an entry's key is kept."""
        found = self._places.get(location)
        if found is None:
            found = self._places[location] = self._place(location)
        return found

    def _place(self, location: str) -> str:
        path, key = split_location(location)
        if path == "-":
            return location
        if is_url(path):
            parts = url_parts(path)
            if parts is None:
                return location
            query = f"?{parts.query}" if parts.query else ""
            path = f"{parts.scheme.lower()}://{parts.netloc.lower()}{parts.path.rstrip('/') or '/'}{query}"
        else:
            path = self._real_file(self.path(path))
        return entry_location(path, key) if key is not None else path

    def _real_file(self, path: str) -> str:
        """``path`` in its folder's real path (one per folder: a library's records share few
        folders). A file that is itself a link keeps its own folder: the folder a curator put a
        link in is the report's folder (reports kept in one store folder and linked into a folder
        per publisher were, resolved, all the store's, one publisher's review naming another's)."""
        folder, name = os.path.split(path)
        real = self._folders.get(folder)
        if real is None:
            real = self._folders[folder] = _real(folder or os.curdir)
        return os.path.join(real, name)

    def pin(self, root: Path, before: Mapping[str, str | None], now: Iterable[str],
            confirmed: Collection[str] = ()) -> None:
        """Record the anchor in the library at ``root`` once it holds a relative location.

        ``before``: the locations the library held when opened, each with its record's sha256;
        ``now``: those it holds. A library written before anchors were recorded adopts this folder
        only when one of its relative locations is a file from here holding a text the library was
        made from (:meth:`holds_text`): a file of the same name is no evidence (run from the wrong folder,
        one ``index.md`` anchored the library there for good). Else nothing is recorded: relative
        names stay read from the folder each command runs in, and ``convert`` names a record such
        a file may be (:class:`pmparse.batch.convert._SameFiles`). ``confirmed``: locations this
        run read by that name the text its record was made from (an HTML page's or a PDF's sha256
        is of the text extracted, which its bytes cannot show), evidence too."""
        if self.recorded or not root.is_dir():
            return
        old = [location for location in before if is_relative_file(location)]
        known = {sha for sha in before.values() if sha}
        if old and not any(location in confirmed or self.holds_text(location, known) for location in old):
            return
        if not any(is_relative_file(location) for location in now):
            return
        target = inside(root, ANCHOR_FILE)
        try:
            atomic_write(target, json.dumps({"folder": _anchor_text(root, self.anchor)}, ensure_ascii=True) + "\n")
        except (OSError, ValueError, UnsafePathError):
            return  # a read-only library: relative names stay read from the folder convert runs in
        self.recorded = True

