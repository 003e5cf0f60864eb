"""``pmparse site``: write the library as a static site, rewriting only what changed.

Layout of a site folder::

    DIR/index.html                    every card, grouped by root-cause category, with the search box
    DIR/cards/IL-0001.html            one page per card
    DIR/by/component.html             the values of a grouping with their counts (also root-cause,
                                      contributing-factor, organisation, year)
    DIR/by/component/dns.html         the cards of one value
    DIR/search-index.js               the words of every card, for the search box
    DIR/assets/site.css, site.js      the style, the search script and the icon (shipped in the package)
    DIR/.pmparse-site.json            the manifest: what each card page was made from

A card page is rendered again only when something it shows may have changed: its record file,
its pending suggestion (with the base and rejections that decide what is still open), its source
file, or the generator itself (this package's code and assets, the pmparse version, the taxonomy's
names). The manifest keeps a digest of those per card, with the card's row, so a rebuild after one
record changed parses and renders that record alone; the index and groupings are rendered from the
rows and, like every file, written only when their bytes differ from the file on disk.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from pmparse import __version__
from pmparse.card.schema import FACT_FIELDS, Card
from pmparse.errors import RecordError, UnsafePathError, UsageError
from pmparse.library.records import card_data, source_text_of
from pmparse.library.folder import library_root, record_files_by_id
from pmparse.library.anchored import places_of
from pmparse.library.places import SourcePlaces
from pmparse.library.statefiles import regular_text
from pmparse.library.store import Library
from pmparse.library.validate import card_problems, hidden_records
from pmparse.paths import inside
from pmparse.review.compare import value_hash
from pmparse.review.rejections import load_rejections
from pmparse.review.pending import open_diff
from pmparse.rules.taxonomy import load_taxonomy
from pmparse.site import pages
from pmparse.site.view import Anchors, field_views, invalid_summary, summary
from pmparse.util import atomic_write, read_regular_file, text_sha256, write_errors

MANIFEST = ".pmparse-site.json"

#: Version of the manifest's format; another version is ignored (every page is rendered again).
MANIFEST_VERSION = 4  # 3: each card's validate problems; 4: the source only as "same" or "other"


ASSETS = ("site.css", "site.js", "favicon.svg")


@dataclass
class SiteReport:
    """What a build did.

    Attributes:
        cards: Cards in the site (invalid records included).
        invalid: ``path: reason`` of each record that does not parse or validate (it gets a page
            saying so), and ``path:line: field: reason`` of each problem ``pmparse validate`` finds
            in a record that reads (its card keeps its page), and of each record file another file
            of its id hides (it has no page).
        rendered: Card pages rendered in this build (the others were known unchanged).
        written: Files written because they were new or their bytes changed, relative to the site.
        unchanged: Files whose bytes were already right.
        removed: Files of an earlier build no longer part of the site, removed.
        refused: Manifest entries left alone because they do not name a plain file inside the site
            (``..``, an absolute name, a symbolic link on the way): a site folder from someone else
            must not make a build delete anything outside it.
    """

    cards: int = 0
    invalid: list[str] = field(default_factory=list)
    rendered: int = 0
    written: list[str] = field(default_factory=list)
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


def asset_text(name: str) -> str:
    """A file of the site's assets, as shipped in the package."""
    return resources.files("pmparse.site").joinpath("assets", name).read_text(encoding="utf-8")


def generator_digest(names: dict[str, str]) -> str:
    """Digest of what shapes every page besides the library: this package's modules and assets,
    the pmparse version and the taxonomy's names. A new one renders every page again."""
    digest = hashlib.sha256(f"{__version__}\n{MANIFEST_VERSION}\n".encode())
    digest.update(json.dumps(names, sort_keys=True).encode())
    package = resources.files("pmparse.site")
    for name in sorted(p.name for p in package.iterdir() if p.name.endswith(".py")):
        digest.update(name.encode() + b"\0" + package.joinpath(name).read_bytes())
    for name in ASSETS:
        digest.update(name.encode() + b"\0" + package.joinpath("assets", name).read_bytes())
    return digest.hexdigest()


def _bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def _source_sha(location: str | None, places: SourcePlaces) -> str | None:
    if not location:
        return None
    # an entry of a many-incident file is read from the whole file, as its record's text is (a
    # relative location from the library's anchor); a file that is no plausible source of the
    # library (a key a record names), a device, a FIFO or a huge file is never read
    path = places.readable(location)
    data = read_regular_file(path) if path is not None else None
    return None if data is None else text_sha256(data)


def record_files(root: Path) -> dict[str, Path]:
    """The record file of each id, as :meth:`Library.scan` picks them (sorted names, the last wins)."""
    return {card_id: paths[-1] for card_id, paths in record_files_by_id(root).items()}


def record_key(states: Library, card_id: str, path: Path, generator: str) -> str:
    """Digest of a record file and its state (its base, which tells a fact a person set by hand;
    its pending suggestion, with the rejections that decide what of it is still open), under one
    generator."""
    digest = hashlib.sha256(generator.encode() + b"\0" + path.name.encode())
    pending = states.state_path("pending", card_id)
    parts = [_bytes(path), _bytes(pending), _bytes(states.state_path("base", card_id))]
    if pending.is_file():
        parts += [_bytes(states.state_path(kind, card_id)) for kind in ("intent", "rejected")]
    for part in parts:
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()


def source_key(location: str | None, places: SourcePlaces, sha256: str | None) -> str:
    """Whether a record's source file holds the text the card was made from (the page shows that
    text only then): ``"same"`` when its text (line breaks as read) has the record's ``sha256``,
    else ``"other"``.

    ``places``: the library's, which read a relative location from its anchor. Nothing else of
    the file is kept: a digest of its bytes in the site's manifest told anyone who got the site a
    digest of whatever file a record named (a key, ``/proc/self/environ``).
    """
    return "same" if sha256 is not None and _source_sha(location, places) == sha256 else "other"


class _Scanned:
    """The library scanned once, when a pending suggestion must be compared (a plain build never
    needs it: it reads record files itself and skips those that did not change)."""

    def __init__(self, root: Path) -> None:
        self.states = Library(root)  # state paths only: no scan
        self._library: Library | None = None
        # relative source locations are read from the library's anchor, wherever site runs
        self.places = places_of(root)

    @property
    def library(self) -> Library:
        if self._library is None:
            self._library = Library.open(self.states.root)
        return self._library


def render_card(scanned: _Scanned, card_id: str, path: Path, names: dict[str, str]
                ) -> tuple[dict, str, tuple[str, str] | None, list[str]]:
    """``(summary, page, (source location, its sha256), problems)`` of one record; a record that cannot be read
    gets a row and a page that say why. ``problems`` are what ``pmparse validate`` finds wrong with
    a record that reads (:func:`pmparse.library.validate.card_problems`), as it prints them: the
    card keeps its page (an item whose evidence no longer says its words is shown as edited by
    hand), and the build lists them and exits 1, as validate does."""
    try:
        card = Library.read(path)
        record_text = path.read_text(encoding="utf-8")
    except RecordError as exc:
        return invalid_summary(card_id, exc.message), pages.invalid_page(card_id, exc.message), None, []
    except (OSError, UnicodeDecodeError) as exc:  # gone or changed since it was read
        return invalid_summary(card_id, str(exc)), pages.invalid_page(card_id, str(exc)), None, []
    problems = [str(problem) for problem in card_problems(str(path), card, record_text, places=scanned.places)]
    text = source_text_of(card, scanned.places)
    anchors = Anchors(None if text is None else len(text), card.source.sha256)
    suggestion, entry, changes, note, open_ = None, None, [], None, False
    if scanned.states.state_path("pending", card_id).is_file():
        library = scanned.library
        suggestion, entry = library.read_state("pending", card_id), library.entries.get(card_id)
    if suggestion is not None and entry is not None:
        try:
            diff = open_diff(library, entry, suggestion)
        except RecordError as exc:
            note = f"A pending suggestion could not be compared with the record: {exc.message}"
        else:
            changes, open_ = diff.changes, diff.open
            if diff.changes:
                note = (f"A newer suggestion waits for review: {len(diff.changes)} field(s), shown as pending "
                        "beside the record's values.")
            if diff.source_changed:
                note = (note or "A newer suggestion waits for review.") + (
                    " It was made from an amended source text: its evidence indexes that text, not the one below.")
    base = scanned.states.read_state("base", card_id)
    views = field_views(card, names, anchors, suggestion if changes else None, changes, text, base,
                        _refused_facts(scanned.states, card_id, base))
    return (summary(card, names, open_), pages.card_page(card, text, views, anchors, note),
            (card.source.location, card.source.sha256), problems)


def _refused_facts(states: Library, card_id: str, base: Card | None) -> frozenset[str]:
    """The facts whose base value a person turned down in a review (a reject advances the base to
    the suggestion refused): the record's value there is pmparse's earlier reading, kept, not a
    value set by hand, also once the record followed an amended source and that reading's
    evidence indexes the earlier text."""
    if base is None:
        return frozenset()
    try:
        memory = load_rejections(states, card_id)
    except RecordError:
        return frozenset()
    data = card_data(base)
    return frozenset(r.field for r in memory.rejected if r.decision == "rejected" and r.field in FACT_FIELDS
                     and r.sha256 == base.source.sha256 and r.value_sha256 == value_hash(data[r.field]))


class _Writer:
    """Writes site files whose bytes differ from the file on disk, and remembers what it wrote."""

    def __init__(self, root: Path, report: SiteReport) -> None:
        self.root = root
        self.report = report
        self.files: dict[str, str] = {}

    def put(self, rel: str, text: str) -> None:
        # a folder of the site replaced by a link (by -> elsewhere) must not carry pages out of it
        path = inside(self.root, rel)
        data = text.encode("utf-8")
        self.files[rel] = hashlib.sha256(data).hexdigest()
        if _bytes(path) == data:
            self.report.unchanged += 1
            return
        atomic_write(path, text)
        self.report.written.append(rel)

    def keep(self, rel: str, digest: str) -> None:
        self.files[rel] = digest
        self.report.unchanged += 1


def _read_manifest(path: Path, generator: str) -> tuple[dict, dict]:
    """``(cards, files)`` of the last build; cards only when it was made by this generator."""
    try:
        text = regular_text(path)  # a manifest of gigabytes stops the build, named
        if text is None:
            return {}, {}
        data = json.loads(text)
        files = {str(k): str(v) for k, v in data["files"].items()}
        if data.get("version") != MANIFEST_VERSION or data.get("generator") != generator:
            return {}, files
        return {str(k): v for k, v in data["cards"].items() if isinstance(v, dict) and isinstance(v.get("key"), str)
                and isinstance(v.get("source"), str) and isinstance(v.get("summary"), dict)
                and isinstance(v.get("problems"), list) and all(isinstance(p, str) for p in v["problems"])
                and (v.get("location") is None or isinstance(v.get("location"), str))
                and (v.get("sha256") is None or isinstance(v.get("sha256"), str))}, files
    except (OSError, UnicodeDecodeError, ValueError, TypeError, KeyError, AttributeError, RecursionError):
        # a manifest nested past the recursion limit (a hostile copy of the site) is none either
        return {}, {}


def _manifest_text(generator: str, cards: dict, files: dict) -> str:
    data = {"version": MANIFEST_VERSION, "generator": generator, "cards": cards, "files": files}
    return json.dumps(data, ensure_ascii=True, sort_keys=True, separators=(",", ":")) + "\n"


def _check_output(root: Path, out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise UsageError("expected a folder for the site, found a file", str(out))
    if out.resolve() == root.resolve():
        raise UsageError("expected a site folder other than the library itself, found the library", str(out))
    if out.is_dir() and not (out / MANIFEST).is_file() and any(out.iterdir()):
        raise UsageError(f"expected an empty folder or a site pmparse built (with {MANIFEST}), found other "
                         "files; give a new folder", str(out))


def build_site(library_root: str | Path, out: str | Path, force: bool = False) -> SiteReport:
    """Write the site of a library into ``out``.

    Args:
        library_root: The library folder.
        out: The site folder: new, empty, or one this function built before.
        force: Render every card page again, whatever the manifest says.

    Raises:
        UsageError: ``library_root`` is not a library, or ``out`` is not a folder the site may be
            written to.
        WriteError: a file of the site cannot be written (a full disk).
    """
    root, out = Path(library_root), Path(out)
    with write_errors(out, "the site"):
        return _build(root, out, force)


def _build(root: Path, out: Path, force: bool) -> SiteReport:
    library_root(root)
    _check_output(root, out)
    names = load_taxonomy().names()
    generator = generator_digest(names)
    manifest_path = inside(out, MANIFEST)  # a link (to /dev/zero, or out of the site) is refused, never read
    known, old_files = ({}, _read_manifest(manifest_path, generator)[1]) if force \
        else _read_manifest(manifest_path, generator)
    scanned = _Scanned(root)
    report = SiteReport()
    writer = _Writer(out, report)
    cards: dict[str, dict] = {}
    started = False
    files = record_files(root)
    for card_id, path in files.items():
        key = record_key(scanned.states, card_id, path, generator)
        rel = f"cards/{card_id}.html"
        hit = known.get(card_id)
        if hit is not None and hit["key"] == key \
                and hit["source"] == source_key(hit["location"], scanned.places, hit.get("sha256")) \
                and rel in old_files and (out / rel).is_file():
            cards[card_id] = hit
            writer.keep(rel, old_files[rel])
            continue
        if not started:
            # until this build ends, no page may be trusted from the manifest (a build cut short
            # leaves pages newer than it); its file list still tells which files are the site's
            out.mkdir(parents=True, exist_ok=True)
            atomic_write(manifest_path, _manifest_text(generator, {}, old_files))
            started = True
        row, html, source, problems = render_card(scanned, card_id, path, names)
        location, sha = source if source is not None else (None, None)
        report.rendered += 1
        writer.put(rel, html)
        # the problems are kept with the page: a rebuild that keeps the page still lists them
        cards[card_id] = {"key": key, "source": source_key(location, scanned.places, sha), "location": location,
                          "sha256": sha,
                          "summary": row, "problems": problems}
    summaries = {i: c["summary"] for i, c in cards.items()}
    report.cards = len(summaries)
    report.invalid = [line for i, s in sorted(summaries.items()) for line in
                      ([f"{files[i]}: {s['error']}"] if s["error"] is not None else cards[i]["problems"])]
    report.invalid += [str(problem) for problem in hidden_records(root)]  # a second file of an id: no page
    grouped = pages.all_groups(summaries, names)  # once: the index and every facet page read them
    writer.put("index.html", pages.index_page(summaries, names, grouped))
    writer.put("search-index.js", pages.search_index(summaries))
    for name in ASSETS:
        writer.put(f"assets/{name}", asset_text(name))
    for facet in pages.FACETS:
        writer.put(f"by/{facet.key}.html", pages.facet_index_page(facet, summaries, names, grouped[facet.key]))
        for group in grouped[facet.key]:
            writer.put(f"by/{facet.key}/{group.file}", pages.group_page(facet, group, summaries))
    for rel in sorted(set(old_files) - set(writer.files)):
        _remove(out, rel, report)
    text = _manifest_text(generator, cards, writer.files)
    if _bytes(manifest_path) != text.encode("utf-8"):
        atomic_write(manifest_path, text)
    report.written.sort()
    return report


def _remove(out: Path, rel: str, report: SiteReport) -> None:
    """Remove a file an earlier build wrote, and the folders it leaves empty (never ``out`` itself).

    The manifest is read from the site folder, which may come from someone else: an entry that is
    not a plain name inside the site, or that reaches its file through a symbolic link (or is one),
    is refused, never followed.
    """
    try:
        path = inside(out, rel)
    except UnsafePathError:
        report.refused.append(rel)
        return
    try:
        path.unlink()
    except FileNotFoundError:
        return
    except OSError:
        report.refused.append(rel)  # a folder, or not ours to remove: left as it is
        return
    report.removed.append(rel)
    parent = path.parent
    while parent != out:
        try:
            os.rmdir(parent)
        except OSError:
            break
        parent = parent.parent
