"""Batch conversion: sources in, library records out.

Each source is ingested, analysed and assembled into a card on its own; a bad source becomes a
failed result naming the file and the reason, and the batch goes on.

With ``jobs > 1`` the analysis runs in a pool of worker processes. Each worker builds the
pipeline once and sends back only the card (as JSON) and its warnings, or the error. The parent
process alone reads and writes the library: it assigns ids and writes records in input order,
so the library is the same byte for byte whatever the number of jobs. Inputs are streamed and at
most a fixed window of them is in flight, so memory does not grow with the batch.

Interruptions are safe. Records are written atomically (temporary file, then rename), Ctrl-C
never lands between a record and pmparse's memory of it, and a source whose record is up to
date (same sha256, same pmparse version and model) is skipped without running the pipeline, so
running the same command again continues where an interrupted batch stopped.
"""

from __future__ import annotations

import itertools
import os
import signal
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import BinaryIO, Callable, Iterable, Iterator

from pmparse.batch import publisher
from pmparse.batch.errors_file import ErrorsFile
from pmparse.batch.inputs import SKIPPED, check_url_base, expand_inputs_relative, skip_reason
from pmparse.batch.pool import DEFAULT_TIMEOUT, InProcess, Outcome, Stamp, Task, WorkerPool, timed_extracted_sha256
from pmparse.batch.publishing import BatchPublishers
from pmparse.batch.renamed import GoneRecords, pairs
from pmparse.card.schema import Card
from pmparse.errors import InputError, RecordError, UsageError
from pmparse.ingest.fetch import FetchSettings
from pmparse.ingest.read import DEFAULT_MAX_BYTES, join_url, read_bytes
from pmparse.interrupts import Interrupts
from pmparse.library.leftovers import drop_orphan_pending, remove_temporaries
from pmparse.library.orphans import follow_renames
from pmparse.locations import is_url, split_location
from pmparse.library.lock import write_lock
from pmparse.library.records import RecordFormat
from pmparse.library.folder import check_new_library_folder, glob_named, gone_sources, remove_if_unused
from pmparse.library.shared import refuse_unfinished_merge
from pmparse.library.store import Entry, Library
from pmparse.batch.sync import Status, still_waiting, store
from pmparse.nlp.pipeline import PipelineConfig


@dataclass
class FileResult:
    """What happened to one input.

    Attributes:
        input: The path as given (or found in a folder), ``-`` for stdin.
        status: ``converted`` (new record), ``updated`` (suggestion refreshed in place),
            ``unchanged`` (record already up to date, or the suggestion proposes nothing a person
            has not already kept or rejected), ``pending`` (record reviewed or edited by a
            person: the new suggestion waits for review), ``skipped`` (not an incident report, or
            excluded: ``message`` says which), ``failed``.
        record: Path of the record written or kept.
        error_kind: For failures, the kind of error (``encoding``, ``binary``, ...).
        message: For failures, what was wrong.
        warnings: Problems that did not stop the conversion.
    """

    input: str
    status: Status
    record: str | None = None
    error_kind: str | None = None
    message: str | None = None
    warnings: list[str] = field(default_factory=list)


@dataclass
class ConvertReport:
    """Results of one batch, in input order.

    Attributes:
        results: Every input's result, when the batch keeps them (``keep_results``).
        counts: How many inputs ended in each status.
        interrupted: True when Ctrl-C (or SIGTERM, SIGHUP) stopped the batch before its end;
            every record written is complete, and running the same command again continues.
        signal: The number of the signal that stopped it (SIGINT when a KeyboardInterrupt came
            from elsewhere), or None.
        jobs: Worker processes used (1: in this process).
        keep_results: Whether ``results`` holds every result (False keeps memory flat).
        startup_seconds: Time spent building the pipeline or starting the workers.
        gone: ``(record id, location)`` of each record whose source left a folder this batch
            converted: its file deleted, or renamed and edited, or an entry its file no longer gives
            (:func:`pmparse.library.folder.gone_sources`); kept as it is. Empty when interrupted.
    """

    results: list[FileResult] = field(default_factory=list)
    counts: Counter = field(default_factory=Counter)
    interrupted: bool = False
    signal: int | None = None
    jobs: int = 1
    keep_results: bool = True
    startup_seconds: float = 0.0
    gone: list[tuple[str, str]] = field(default_factory=list)

    def add(self, result: FileResult) -> None:
        """Count a result (and keep it when the report keeps results)."""
        self.counts[result.status] += 1
        if self.keep_results:
            self.results.append(result)

    @property
    def done(self) -> int:
        """How many inputs were processed."""
        return sum(self.counts.values())

    @property
    def failed(self) -> list[FileResult]:
        """The inputs that failed (of the kept results)."""
        return [result for result in self.results if result.status == "failed"]


def _display(location: str) -> str:
    """``location`` as text that can be printed and written as UTF-8 (undecodable bytes escaped)."""
    try:
        location.encode("utf-8")
        return location
    except UnicodeEncodeError:
        return os.fsencode(location).decode("utf-8", "backslashreplace")


def _known(library: Library, location: str, url: str | None = None) -> tuple[Stamp, ...] | None:
    card_id = library.by_location.get(location)
    entry = library.entries.get(card_id) if card_id else None
    # the index's summary is enough to skip an input: parsing every record to resume a batch
    # would cost more than the conversion it saves
    if entry is None or entry.error is not None or entry.sha256 is None:
        return None
    stamps: list[Stamp] = []
    # a record a person reviewed is no longer one whole suggestion (an accepted field brings the
    # suggestion's source and pipeline along, the fields left undecided do not): its base or a
    # suggestion waiting for review tells what pmparse last read; a new public address is news
    if entry.status != "reviewed" and (url is None or entry.url == url):
        stamps.append((entry.sha256, entry.version, entry.model, entry.fingerprint))
    # a person's record keeps the stamp of the pipeline that made it: what pmparse last read
    # from this source is its base (a suggestion that proposed nothing open, a settled review)
    # or a suggestion waiting for review (stamps cached in the index, not parsed per input)
    for kind in ("base", "pending"):
        stamp = library.state_stamp(kind, entry.id)
        # a base counts only when it is a whole settled suggestion: one advanced field by field
        # by a review, or moved to a new name, says nothing of the fields not yet decided; and
        # only when the record reads its text (a library written before records followed their
        # amended sources has settled bases of texts its records never moved onto)
        if (stamp is not None and stamp[6] and stamp[4] == location and (url is None or stamp[5] == url)
                and (kind == "pending" or stamp[0] == entry.sha256)):
            stamps.append(stamp[:4])
    return tuple(stamps) or None


def _tasks(library: Library, inputs: Iterable[str], max_bytes: int, force: bool,
           stdin: BinaryIO | None, url_base: str | None = None, exclude: tuple[str, ...] = (),
           all_files: bool = False, fetch: FetchSettings | None = None,
           entries: dict[str, list[str]] | None = None) -> Iterator[Task]:
    entries = entries or {}
    same_files = _SameFiles(library)
    for location, problem, relative, skip in expand_inputs_relative(inputs):
        url = (join_url(url_base, relative) if url_base and location != "-" and not is_url(location)
               and problem is None else None)
        shown = _display(location)
        skip = skip or (skip_reason(location, relative, exclude, all_files) if problem is None else None)
        if problem is not None:
            yield Task(shown, problem=("missing", problem))
        elif skip is not None:
            yield Task(os.path.normpath(shown), problem=(SKIPPED, skip))
        elif shown != location:
            yield Task(shown, problem=("unreadable", "expected a file name in UTF-8, found undecodable bytes "
                                                     "(rename the file)"))
        elif location == "-":
            try:
                raw = read_bytes(location, max_bytes, stdin)
            except InputError as exc:
                yield Task(location, problem=(exc.kind, exc.message))
                continue
            yield Task(location, known=None if force else _known(library, location), raw=raw, check_content=not all_files)
        elif is_url(location):
            yield Task(location, known=None if force else _known(library, location), fetch=fetch, check_content=not all_files)
        else:
            # one spelling per path: "./pm/a.md" and "pm//a.md" are "pm/a.md" and find its record,
            # a relative name from another folder than the anchor is absolute (SourcePlaces.spelling),
            # and another name of a file the library or this batch already read is that name (_SameFiles)
            location = library.places.spelling(location)
            if location not in library.by_location and location not in entries:
                location = same_files.spelling(location)
            known = None if force else _known(library, location, url)
            if known is None and not force and location in entries:
                known = _known_entries(library, entries[location], url)
            namesake = None if location in library.by_location or location in entries else same_files.namesake(location)
            path = library.places.path(location)
            yield Task(location, known=known, url=url, check_content=not all_files, namesake=namesake,
                       read_from=path if path != location else None)


class _SameFiles:
    """The one name of each file: the library's name of a file it has a record of, or the name this
    batch first read it by, for an input naming that file otherwise.

    A curator who converted ``/home/me/pm`` and later runs ``convert pm`` from ``/home/me``, or
    goes through a link to the folder, names the same files; so does a batch given a file twice
    (``a/x.md /home/me/a/x.md``, a link and its target, a folder and a file in it): without this
    each name got a record of its own. A file is known by its device and inode, a relative location
    read from the library's anchor (:class:`pmparse.library.places.SourcePlaces`).
    """

    def __init__(self, library: Library):
        self._library = library
        self._by_file: dict[tuple[int, int], str] | None = None  # built at the first input it is asked about
        self._gone: dict[str, list[tuple[str, str]]] | None = None

    def _file_records(self) -> Iterator[tuple[str, str]]:
        """``(record id, path)`` of each record read from a file, the oldest record first."""
        for location, card_id in sorted(self._library.by_location.items(), key=lambda item: (item[1], item[0])):
            path = split_location(location)[0]
            if location != "-" and not is_url(path):
                yield card_id, path

    def _index(self) -> dict[tuple[int, int], str]:
        by_file: dict[tuple[int, int], str] = {}
        # the oldest record's name wins where two records already name one file
        for _, path in self._file_records():
            identity = self._library.places.identity(path)
            if identity is not None:
                by_file.setdefault(identity, path)
        return by_file

    def spelling(self, location: str) -> str:
        """``location``, or the library's name for the same file when it has a record under
        another, or the name an earlier input of this batch gave it."""
        identity = self._library.places.identity(location)
        if identity is None:
            return location
        if self._by_file is None:
            self._by_file = self._index()
        return self._by_file.setdefault(identity, location)

    def namesake(self, location: str) -> tuple[str, str] | None:
        """``(record id, location)`` of a record read by a relative name that ``location`` ends
        with and that is not found from the anchor, or None.

        A library written before its anchor was recorded, and run from another folder than its
        first, cannot tell such a record's file from this one: the record is found again by its
        text when the text is the same, but an amended file gets a second record. That is said,
        so the curator can run convert from the first folder.
        """
        if self._gone is None:
            self._gone = {}
            for card_id, path in self._file_records():
                if os.path.isabs(path) or os.pardir in path.split(os.sep) or self._library.places.is_file(path):
                    continue
                self._gone.setdefault(os.path.basename(path), []).append((card_id, path))
        absolute = os.path.abspath(location)
        for card_id, path in self._gone.get(os.path.basename(location), ()):
            if absolute.endswith(os.sep + path):
                return card_id, path
        return None


def _entry_index(library: Library) -> dict[str, list[str]]:
    """The entry locations of each file holding many incidents the library has records of."""
    index: dict[str, list[str]] = {}
    for location in library.by_location:
        path, key = split_location(location)
        if key is not None:
            index.setdefault(path, []).append(location)
    return index


def _known_entries(library: Library, locations: list[str], url: str | None) -> tuple[Stamp, ...] | None:
    """The stamps every entry of a file shares: the file is skipped only when all its entries'
    records (or a person's record's base or waiting suggestion) were made from its text by this
    pipeline."""
    common: set[Stamp] | None = None
    for location in locations:
        stamps = set(_known(library, location, url) or ())
        common = stamps if common is None else common & stamps
        if not common:
            return None
    return tuple(sorted(common, key=repr)) if common else None


def _card(outcome: Outcome) -> Card:
    """The card of an analysis (run in this process, or sent back as JSON)."""
    return outcome.card if outcome.card is not None else Card.model_validate_json(outcome.card_json or "")


def _finish_all(library: Library, task: Task, outcome: Outcome, fmt: RecordFormat, force: bool,
                interrupts: Interrupts, entries: dict[str, list[str]], renamed: Entry | None = None) -> list[FileResult]:
    """The results of one input: one, or one per entry of a file holding many incidents (each
    stored as an input of its own, located at ``path#entry-KEY``; the file's warnings go with
    the first)."""
    if outcome.kind == "unchanged" and task.location in entries:
        # a file of many incidents whose every entry is up to date: each entry is unchanged
        return [_finish(library, Task(location, url=task.url), outcome, fmt, force, interrupts)
                for location in entries[task.location]]
    if not outcome.entries:
        return [_finish(library, task, outcome, fmt, force, interrupts, renamed)]
    results = []
    whole = library.entries.get(library.by_location.get(task.location, ""))
    for index, (location, card_json, warnings) in enumerate(outcome.entries):
        shared = outcome.warnings if index == 0 else ()
        if index == 0 and whole is not None:
            # the file was read as one incident before (fewer dated entries, or an older pmparse):
            # that record may hold a person's work, so it is named, never removed
            shared = tuple(shared) + (
                f"{whole.id} was made from this whole file, which now reads as {len(outcome.entries)} "
                f"incidents with a record each; {whole.path.name} is left as it is: delete it once "
                "the entries' records replace it",)
        part = Outcome("card", card_json=card_json, warnings=tuple(shared) + tuple(warnings))
        results.append(_finish(library, Task(location, url=task.url), part, fmt, force, interrupts))
    return results


def _finish(library: Library, task: Task, outcome: Outcome, fmt: RecordFormat, force: bool,
            interrupts: Interrupts, renamed: Entry | None = None) -> FileResult:
    warnings = list(outcome.warnings)
    if outcome.kind == "failed" and outcome.error_kind == SKIPPED:
        return FileResult(task.location, "skipped", message=outcome.message)
    if outcome.kind == "failed":
        return FileResult(task.location, "failed", error_kind=outcome.error_kind, message=outcome.message,
                          warnings=warnings)
    if outcome.kind == "unchanged":
        entry = library.entries.get(library.by_location.get(task.location, ""))
        if entry is None:
            return FileResult(task.location, "unchanged", warnings=warnings)
        # a suggestion still waiting for review stays pending: the same input gives the same one
        # (one made from another location is not this source's)
        pending = library.state_stamp("pending", entry.id)
        waiting = pending is not None and pending[4] == task.location
        if waiting and outcome.sha256 is not None and pending[0] != outcome.sha256:
            # made from a text the source no longer holds (an amendment withdrawn): what pmparse
            # suggests for the text as it is, the record or its base already holds
            with interrupts.critical():
                library.drop_state("pending", entry.id)
            waiting = False
        if waiting:
            with interrupts.critical():
                waiting = still_waiting(library, entry.id)
        return FileResult(task.location, "pending" if waiting else "unchanged", record=str(entry.path),
                          warnings=warnings)
    # an analysis run in this process handed its card over: the same card its JSON would give
    card = _card(outcome)
    try:
        with interrupts.critical():
            status, path = store(library, card, fmt, force, renamed)
    except RecordError as exc:
        return FileResult(task.location, "failed", error_kind="record", message=str(exc), warnings=warnings)
    except OSError as exc:
        return FileResult(task.location, "failed", error_kind="record",
                          message=f"expected to write the record, found {exc.strerror or exc}", warnings=warnings)
    if status == "converted" and task.namesake is not None:
        card_id, named = task.namesake
        where, gone = library.places.anchor, library.places.gone_anchor  # gone: no folder to run from
        warnings.append(f"new record {Path(path).stem}, but {card_id} was read from {named!r}, a relative name "
                        f"not found from {'this folder' if library.places.anchor_is_here else 'the library anchor'} "
                        f"({where}{', which is gone' if gone else ''}); if that is this file, "
                        f"{'put that folder back, run convert from it' if gone else 'run convert from the folder it was first run in'} "
                        f"and delete {Path(path).name}")
    # the record the suggestion was stored against (its file is named by its id)
    broken = library.entries.get(Path(path).stem) if status == "pending" else None
    if broken is not None and broken.error is not None:
        reason = (broken.error.splitlines() or ["unreadable"])[0]
        warnings.append(f"{broken.path.name} is not a valid record ({reason}); the suggestion waits for "
                        "review beside it: repair the record (`pmparse validate` gives the line), then run "
                        "`pmparse review`")
    return FileResult(task.location, status, record=path, warnings=warnings)


def convert(
    inputs: Iterable[str],
    library_dir: str | Path,
    fmt: RecordFormat = "yaml",
    max_bytes: int = DEFAULT_MAX_BYTES,
    config: PipelineConfig = PipelineConfig(),
    force: bool = False,
    stdin: BinaryIO | None = None,
    on_result: Callable[[FileResult], None] | None = None,
    jobs: int = 1,
    errors_path: str | Path | None = None,
    keep_results: bool = True,
    url_base: str | None = None,
    timeout: float | None = DEFAULT_TIMEOUT,
    exclude: Iterable[str] = (),
    all_files: bool = False,
    fetch: FetchSettings | None = None,
    isolate: bool = False,
    organisation: str | None = None,
) -> ConvertReport:
    """Convert sources into library records.

    Ctrl-C stops the batch cleanly: inputs in flight are abandoned (nothing of theirs is
    written), every record written is complete, and the report says ``interrupted``.

    Args:
        inputs: Files, folders, globs and http(s) URLs; ``-`` reads standard input. Consumed lazily.
        library_dir: The library folder (created when missing).
        fmt: Record format for new records.
        max_bytes: Largest input accepted.
        config: What the pipeline is built from (each worker builds it once).
        force: Convert and rewrite suggestions even when the source did not change.
        stdin: Stream for ``-``.
        on_result: Called after each input, in input order (progress display).
        jobs: Worker processes; 1 converts in this process.
        errors_path: Write failures here as JSON lines (``input``, ``error``, ``message``); the
            file is replaced atomically when the batch ends or is interrupted.
        keep_results: Keep every result in the report; False keeps only counts (memory stays
            flat for any batch size: use ``on_result`` to see each result).
        url_base: Where the inputs are published: each record's ``source.url`` is this joined
            with the file's path under its folder input (a file input: its name). The URL is
            also evidence of the organisation (a known domain, or a forge account).
        timeout: Seconds the analysis of one input may take before the input fails as
            ``timeout`` (None: no limit). A worker process is stopped from outside; in this
            process (``jobs=1``) a timer signal interrupts the analysis, in the main thread of
            a POSIX system only, and only between two Python steps (``isolate`` makes it hard).
        exclude: Globs of files not to convert (matched against the path, the path under its
            folder input, and the file name); each is reported ``skipped``.
        all_files: Convert templates, readmes and index pages too (by default they are
            ``skipped`` as not incident reports: :func:`pmparse.batch.inputs.not_incident_reason`).
        fetch: Download limits of URL inputs (timeouts, redirects); the size cap is ``max_bytes``.
        isolate: Analyse in a worker process also with ``jobs=1`` (one input at a time), so that
            ``timeout`` stops an analysis stuck in native code too, and an input that exhausts
            memory costs the worker, not this process. The command line always isolates; it
            costs a worker's start-up (about a second).
        organisation: The publisher of every card of the batch (origin ``batch``). Without it, a
            ``.pmparse.yaml`` with ``organisation: NAME`` in a file's folder or above names it
            (origin ``setting``); else the publisher the library's reviewed cards of the same
            folder settled on is given to cards naming none or naming one a person corrected away
            there (origin ``reviewed``); and a folder's consensus, once its earlier cards in the
            batch form one, is offered to its later cards naming none (:mod:`pmparse.batch.publisher`).

    With ``jobs > 1`` workers are started with multiprocessing's ``forkserver`` method (``spawn``
    where there is none), so a script calling this needs the usual ``if __name__ == "__main__":``
    guard.

    Raises:
        UsageError: ``organisation`` is empty, the library path exists and is not a folder, another
            pmparse process is writing the library (:func:`pmparse.library.store.write_lock`), or the
            failures report cannot be written.
        PmparseError: the pipeline cannot be built (a model or rules file is broken).
    """
    if url_base is not None:
        check_url_base(url_base)  # a usage error before any input is read
    if organisation is not None and not organisation.strip():
        # an empty name named no publisher: the batch went on as if the option were not given
        raise UsageError(f"expected a publisher's name for the batch, found {organisation!r}", "--organisation")
    if organisation is not None:
        organisation = organisation.strip()  # a name pasted with its spaces went into every card so
    library_path = Path(library_dir)
    if library_path.exists() and not library_path.is_dir():
        raise UsageError("expected a library folder, found a file", str(library_path))
    check_new_library_folder(library_path)
    created = not library_path.exists()
    try:
        return _convert_locked(library_path, inputs, fmt, max_bytes, config, force, stdin, on_result, jobs,
                               errors_path, keep_results, url_base, timeout, exclude, all_files, fetch, isolate,
                               organisation)
    finally:
        if created:
            remove_if_unused(library_path)


def _noting_folders(inputs: Iterable[str], named: set[str], patterns: set[str]) -> Iterator[str]:
    """``inputs`` as they come, each folder added to ``named`` and each glob to ``patterns`` (absolute) first."""
    for item in inputs:
        if item != "-" and not is_url(item) and os.path.isdir(item):
            named.add(os.path.abspath(item))
        patterns.update(glob_named(item))
        yield item


def _convert_locked(library_path, inputs, fmt, max_bytes, config, force, stdin, on_result, jobs, errors_path,
                    keep_results, url_base, timeout, exclude, all_files, fetch, isolate, organisation) -> ConvertReport:
    with write_lock(library_path):  # held until the batch ends: one writer per library
        # a page or PDF shows where the sources moved: parsed under --timeout, as an input is
        library = Library.open(library_path, timed_extracted_sha256(timeout))
        refuse_unfinished_merge(library)  # before anything is written: see its docstring
        library.finish_writes()  # a killed run's last record and its base agree before anything is compared
        remove_temporaries(library.root)  # what a killed run left half written
        follow_renames(library)  # a record renamed by hand: its state first, before any is read or dropped
        drop_orphan_pending(library)  # suggestions for records a person deleted wait for nothing
        report = ConvertReport(keep_results=keep_results)
        entries = _entry_index(library)
        before, confirmed = library.location_shas(), set()  # confirmed: its record's text read here (SourcePlaces.pin)
        named: set[str] = set()  # the folders named as inputs: their settings files are the curator's choice
        namesakes, read, patterns = set(), {}, set()  # for gone_sources (Task.namesake, files read, globs)
        gone_records, deferred = GoneRecords(library), []  # new files that may be a gone file renamed and edited
        tasks = _tasks(library, _noting_folders(inputs, named, patterns), max_bytes, force, stdin, url_base, tuple(exclude),
                       all_files, fetch, entries)
        # a pool costs start-up time: only worth it for more than one input
        head = list(itertools.islice(tasks, 2))
        tasks = itertools.chain(head, tasks)
        errors = ErrorsFile(errors_path) if errors_path is not None else None
        runner: InProcess | WorkerPool | None = None
        finished = False
        try:
            with Interrupts() as interrupts:
                try:
                    started = time.perf_counter()
                    # a Ctrl-C while the workers start waits until they have: stopped halfway, a
                    # worker the pool had not yet counted outlived the batch and printed a traceback
                    with interrupts.critical():
                        if jobs > 1 and len(head) > 1:
                            runner = WorkerPool(jobs, config, max_bytes, timeout)
                        elif isolate and head:
                            runner = WorkerPool(1, config, max_bytes, timeout)
                        else:
                            runner = InProcess(config, max_bytes, timeout)
                    interrupts.check()
                    report.jobs, report.startup_seconds = runner.jobs, time.perf_counter() - started
                    publishers = BatchPublishers(organisation, None if organisation else publisher.ReviewedCards(library),
                                                 named, library.places.place)

                    def emit(task: Task, outcome: Outcome, pairing: tuple[Entry | None, str | None] | None = None) -> None:
                        renamed, note = pairing or (None, None)
                        if (pairing is None and outcome.kind == "card" and not outcome.entries
                                and (near := gone_records.near(task.location, task.read_from, partial(_card, outcome)))):
                            deferred.append((task, outcome, near))  # renamed and edited? told once the batch is read
                            return
                        outcome = replace(outcome, warnings=(*outcome.warnings, note)) if note else outcome
                        if task.namesake is not None:
                            namesakes.add(task.namesake[0])
                        if outcome.kind == "card":
                            read[task.location] = {location for location, _, _ in outcome.entries} or {task.location}
                        confirmed.update({task.location} if outcome.sha256 == (before.get(task.location) or 0) else ())
                        # the record and the count of it together: a Ctrl-C between the two left a
                        # written record out of the summary
                        with interrupts.critical():
                            results = _finish_all(library, task, outcome, fmt, force, interrupts, entries, renamed)
                            for result in results:
                                report.add(result)
                        publishers.count(outcome, results)
                        for result in results:
                            if errors is not None and result.status == "failed":
                                errors.add(result)
                            if on_result is not None:
                                on_result(result)
                        interrupts.check()

                    for task, outcome in runner.map(tasks):
                        emit(task, publishers.offer(task, publishers.state(task, outcome)))
                    # each new file close to a record whose file is gone from what was read: an
                    # amendment of that record when nothing else could be meant (batch.renamed)
                    gone = gone_sources(library.by_location, named, read, namesakes, patterns, library.places.path)
                    paired = pairs({task.location: near for task, _, near in deferred}, {i: at for i, at in gone},
                                   gone_records.kept)
                    for task, outcome, _ in deferred:
                        card_id, note = paired[task.location]
                        emit(task, outcome, (library.entries.get(card_id) if card_id else None, note))
                    finished = True
                except KeyboardInterrupt:
                    report.interrupted = True
                    report.signal = interrupts.signum or signal.SIGINT
                finally:
                    if runner is not None:
                        # an interruption or an error abandons the inputs in flight at once
                        runner.close(abort=not finished)
                    library.save_index()
                    library.places.pin(library.root, before, library.by_location, confirmed)  # where relative names are read from
        except BaseException:
            if errors is not None:
                errors.discard()
            raise
        if errors is not None:
            errors.commit()
        if finished:
            report.gone = gone_sources(library.by_location, named, read, namesakes, patterns, library.places.path)
        return report
