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

import glob
import itertools
import json
import multiprocessing
import os
import signal
import tempfile
import threading
import time
from collections import Counter, deque
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Callable, Iterable, Iterator, Literal

from pmparse.card.build import build_card
from pmparse.errors import InputError, PmparseError, RecordError, UsageError
from pmparse.ingest.read import DEFAULT_MAX_BYTES, ingest, ingest_bytes, is_url, join_url, read_bytes
from pmparse.nlp.pipeline import PipelineConfig, analyse, get, version_info
from pmparse.library.store import Library, RecordFormat, card_data, is_edited, write_lock
from pmparse.review.session import open_diff
from pmparse.card.schema import Card

#: File name endings a folder walk picks up (files without any ending are read as text too).
SUPPORTED_SUFFIXES = (".txt", ".md", ".markdown", ".erb", ".html", ".htm", ".rst")
#: Extension-less names a folder walk leaves alone: they are never postmortems.
_NOT_REPORTS = {"license", "licence", "copying", "notice", "authors", "codeowners", "makefile", "dockerfile"}

#: Longest a worker may spend on one input, in seconds, before it is stopped and the input fails
#: as ``timeout`` (a 20 MiB text takes a few minutes at this pipeline's speed).
DEFAULT_TIMEOUT = 600.0
#: Inputs sent to a worker at a time (fewer round trips; small enough to balance the load).
CHUNK_SIZE = 4
#: Chunks in flight per worker: enough to keep workers busy, few enough to bound memory.
CHUNKS_PER_WORKER = 4
#: Imported once by the fork server, so every worker starts with them: pmparse with its components
#: (the models need numpy only). A module that cannot be imported is skipped by multiprocessing.
FORKSERVER_PRELOAD = ["pmparse.batch.convert"]
#: A pipeline whose vocabulary grew past this many lexemes is rebuilt (spaCy keeps every new
#: token string for the life of the pipeline: about 0.5 KB each).
MAX_LEXEMES = 200_000


def _walk_picks(name: str) -> bool:
    if name.startswith("."):
        return False
    if "." not in name:
        return name.lower() not in _NOT_REPORTS
    return name.lower().endswith(SUPPORTED_SUFFIXES)


Status = Literal["converted", "updated", "unchanged", "pending", "failed"]


def available_cores() -> int:
    """How many CPU cores this process may use (the default number of jobs)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


@dataclass
class FileResult:
    """What happened to one input.

    Attributes:
        input: The path as given (or found in a folder), ``-`` for stdin.
        status: ``converted`` (new record), ``updated`` (suggestion refreshed in place),
            ``unchanged`` (record already up to date, or the suggestion proposes nothing a person
            has not already kept or rejected), ``pending`` (record reviewed or edited by a
            person: the new suggestion waits for review), ``failed``.
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
        interrupted: True when Ctrl-C stopped the batch before its end; every record written
            is complete, and running the same command again continues.
        jobs: Worker processes used (1: in this process).
        keep_results: Whether ``results`` holds every result (False keeps memory flat).
        startup_seconds: Time spent building the pipeline or starting the workers.
    """

    results: list[FileResult] = field(default_factory=list)
    counts: Counter = field(default_factory=Counter)
    interrupted: bool = False
    jobs: int = 1
    keep_results: bool = True
    startup_seconds: float = 0.0

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


def expand_inputs(inputs: Iterable[str]) -> Iterator[tuple[str, str | None]]:
    """Files named by ``inputs``: files, folders (recursively, supported types) and globs.

    Yields:
        ``(path, problem)``; problem is None for a file to convert, or says why an input names
        nothing convertible (it is then reported as failed).
    """
    for path, problem, _ in expand_inputs_relative(inputs):
        yield path, problem


def expand_inputs_relative(inputs: Iterable[str]) -> Iterator[tuple[str, str | None, str]]:
    """As :func:`expand_inputs`, with each file's path relative to the folder it was found in.

    Yields:
        ``(path, problem, relative)``: ``relative`` is the path under a folder input, or the file
        name of a file input (what ``--url-base`` is joined with).
    """
    for item in inputs:
        if item == "-":
            yield item, None, item
            continue
        if os.path.isdir(item):
            found = False
            for root, dirs, files in os.walk(item):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    if not _walk_picks(name):
                        continue
                    found = True
                    path = os.path.join(root, name)
                    yield path, None, os.path.relpath(path, item)
            if not found:
                yield item, "expected a folder holding .txt, .md or .html files, found none", item
            continue
        if os.path.lexists(item):
            yield item, None, os.path.basename(item)
            continue
        matches = sorted(glob.glob(item, recursive=True))
        if matches:
            for match in matches:
                yield from expand_inputs_relative([match])
        else:
            yield item, "expected a file, folder or glob, found nothing at that path", item


def check_url_base(base: str) -> None:
    """Refuse a ``--url-base`` that is not an http(s) address.

    Raises:
        UsageError: it is not.
    """
    if not is_url(base):
        raise UsageError(f"expected --url-base to start with http:// or https://, found {base!r}")


def doc_warnings(doc) -> list[str]:
    """What the analysis found that a curator should know and the card cannot say (several
    incidents, a front matter date that is no calendar date)."""
    from pmparse.nlp.components.sectionizer import several_incidents_warning

    message = several_incidents_warning(doc)
    facts = doc.user_data.get("pmparse_facts", {})
    return ([message] if message else []) + [fact["warning"] for fact in facts.values() if fact.get("warning")]


def suggest(location: str, config: PipelineConfig = PipelineConfig(), max_bytes: int = DEFAULT_MAX_BYTES,
            stdin: BinaryIO | None = None, card_id: str = "IL-0000") -> tuple[Card, list[str]]:
    """Analyse one source into a suggested card (not yet in a library).

    Returns:
        ``(card, warnings)``.

    Raises:
        InputError: the source cannot be read as text.
    """
    source = ingest(location, max_bytes=max_bytes, stdin=stdin)
    nlp = get(config)
    doc = analyse(nlp, source)
    return build_card(doc, source, card_id, version_info(nlp)), list(source.warnings) + doc_warnings(doc)


def store(library: Library, card: Card, fmt: RecordFormat, force: bool = False) -> tuple[Status, str]:
    """Put a suggestion into the library without ever overwriting a person's work.

    Returns:
        ``(status, record_path)``.
    """
    entry = library.find(card.source.sha256, card.source.location)
    if entry is None:
        card = card.model_copy(update={"id": library.next_id()})
        return "converted", str(library.write(card, fmt))
    card = card.model_copy(update={"id": entry.id})
    moved = False
    last = library.read_state("base", entry.id) if entry.card is not None else None
    # a new public address is pmparse's to give only where the record still holds the one
    # pmparse gave it last (a person's own address, or none given this time, stays)
    new_url = (card.source.url is not None and last is not None and last.source.url != card.source.url
               and entry.url == last.source.url)
    new_name = entry.sha256 == card.source.sha256 and entry.location != card.source.location
    if entry.card is not None and (new_name or new_url) and is_edited(library, entry):
        # the same text under a new name (the old one is gone: see Library.find), or a new public
        # address (--url-base, also for an amended text): the record follows it, a person's edits
        # untouched
        relocate(library, entry, card, new_url, new_name)
        moved = True
    # nothing new when the suggestion equals what pmparse last wrote for this record (a record a
    # person's edit left invalid is not that: the suggestion waits beside it, see _finish); a
    # move may have given the base a new address
    base = last if entry.card is not None and not moved else library.read_state("base", entry.id)
    edited = is_edited(library, entry)  # read once: it reads the base
    behind = edited and entry.sha256 != card.source.sha256  # a person's record with a text to follow
    if (base is not None and card_data(base) == card_data(card) and not force and entry.error is None
            and not behind):
        waiting = _keep_pending_of_this_text(library, entry.id, card)
        if moved or edited:
            library.write_state("base", card, settled=True)  # read by this pipeline: nothing to decide
        return ("pending" if waiting else "updated" if moved else "unchanged"), str(entry.path)
    if edited:
        # a suggestion that proposes nothing open (only fields a person kept, or rejected before
        # for this source and model version) is not stored for review again; one made from an
        # amended text is, even with no field to decide: the review that reaches it moves the
        # record onto the new text, and until then the record says which text it was made from
        if entry.card is not None and not open_diff(library, entry, card).open:
            waiting = _keep_pending_of_this_text(library, entry.id, card)
            # the base takes the suggestion, as when a review settles one: its values are the
            # record's, the person's kept ones or ones rejected before, and its stamp tells the
            # next run that this source was read by this pipeline
            library.write_state("base", card, settled=True)
            return ("pending" if waiting else "updated" if moved else "unchanged"), str(entry.path)
        library.write_state("pending", card)
        return "pending", str(entry.path)
    library.drop_state("pending", entry.id)
    return "updated", str(library.write(card, fmt, entry.path))


def _keep_pending_of_this_text(library: Library, card_id: str, card: Card) -> bool:
    """Drop a waiting suggestion made from another text than ``card``'s (an amendment since
    withdrawn); keep one another pipeline made from the same text: it is still a person's to
    decide. Returns True when a suggestion still waits."""
    pending = library.state_stamp("pending", card_id)
    if pending is None:
        return False
    if pending[0] != card.source.sha256 or pending[4] != card.source.location:
        library.drop_state("pending", card_id)
        return False
    return True


def relocate(library: Library, entry, card: Card, new_url: bool = False, new_name: bool = True) -> None:
    """Give a person's record the name (``new_name``: same text) and, with ``new_url``, the
    public address of ``card``'s source; the rest of its source block stays (an amended text's
    sha256 is the suggestion's to bring, with its evidence).

    Only the record's ``source`` lines are rewritten; its fields, comments and review mark stay
    as they are. The offsets still hold: the text (sha256) is the same. A suggestion made from
    another name is dropped first, then the record is written, then the base's address: a failed
    write is done again by the next run.
    """
    from pmparse.review.compare import read_text, splice
    from pmparse.library.store import atomic_write, format_of, loads

    text = read_text(entry.path)
    fmt = format_of(entry.path)
    current = loads(text, fmt, str(entry.path))
    pending = library.read_state("pending", entry.id)
    if new_name and pending is not None and pending.source.location != card.source.location:
        # made from the old name's text, which is no longer this record's source
        library.drop_state("pending", entry.id)
    source = card.source if new_name else current.source
    source = source.model_copy(update={"url": card.source.url if new_url else current.source.url})
    moved = current.model_copy(update={"source": source})
    atomic_write(entry.path, splice(text, fmt, moved))
    library.add(moved, entry.path)
    base = library.read_state("base", entry.id)
    if new_url and base is not None:
        # after the record: the base says which address pmparse gave last (not settled: only
        # its address changed)
        library.write_state("base", base.model_copy(update={"source": base.source.model_copy(
            update={"url": card.source.url})}))


# --- one input: what a worker does ---------------------------------------------------------------


#: What made a card: ``(source sha256, pmparse version, model, pipeline fingerprint)``.
Stamp = tuple[str, "str | None", "str | None", "str | None"]


@dataclass(frozen=True)
class Task:
    """One input as sent to a worker (small: a path, never the text, except for stdin).

    Attributes:
        location: The path as given, ``-`` for stdin.
        known: ``(sha256, version, model, fingerprint)`` stamps of what pmparse last made from
            this location (the record; for a person's record also its base and a suggestion
            waiting for review): the input is skipped when its text and the pipeline match one.
            None to convert.
        raw: The bytes of standard input (read by the parent, which owns the stream).
        problem: ``(error_kind, message)`` when the input already failed before analysis.
        url: The source's public address (``--url-base``), or None.
    """

    location: str
    known: tuple[Stamp, ...] | None = None
    raw: bytes | None = None
    problem: tuple[str, str] | None = None
    url: str | None = None


@dataclass(frozen=True)
class Outcome:
    """What analysing one input gave: a card (as JSON), a skip, or a failure."""

    kind: Literal["card", "unchanged", "failed"]
    card_json: str | None = None
    warnings: tuple[str, ...] = ()
    error_kind: str | None = None
    message: str | None = None
    sha256: str | None = None


def _failed(kind: str, message: str, warnings: Iterable[str] = ()) -> Outcome:
    return Outcome("failed", warnings=tuple(warnings), error_kind=kind, message=message)


def analyse_task(task: Task, config: PipelineConfig, max_bytes: int) -> Outcome:
    """Ingest and analyse one input; every failure becomes a failed outcome, never an exception.

    An input whose text and pipeline match ``task.known`` is not analysed (``unchanged``).
    """
    if task.problem is not None:
        return _failed(*task.problem)
    warnings: list[str] = []
    try:
        if task.raw is not None:
            source = ingest_bytes(task.raw, task.location)
        else:
            source = ingest(task.location, max_bytes=max_bytes)
        if task.url is not None:
            source.url = task.url
        warnings = list(source.warnings)
        nlp = get(config)
        info = version_info(nlp)
        if task.known is not None and (source.sha256, info["version"], info["model"],
                                       info.get("fingerprint")) in task.known:
            return Outcome("unchanged", warnings=tuple(warnings), sha256=source.sha256)
        doc = analyse(nlp, source)
        card = build_card(doc, source, "IL-0000", info)
        warnings += doc_warnings(doc)
        if len(nlp.vocab) > MAX_LEXEMES:
            get.cache_clear()  # a fresh pipeline for the next input: memory stays bounded
        return Outcome("card", card_json=card.model_dump_json(), warnings=tuple(warnings))
    except InputError as exc:
        return _failed(exc.kind, exc.message, warnings)
    except PmparseError as exc:
        return _failed("error", str(exc), warnings)
    except RecursionError:
        return _failed("malformed", "expected text, found structure nested too deeply", warnings)
    except MemoryError:
        return _failed("too-large", "ran out of memory on this input; lower --max-bytes", warnings)
    except Exception as exc:  # a bug must cost one input, not the batch
        return _failed("internal", f"expected to convert this input, found an internal error "
                                   f"({type(exc).__name__}: {exc}); please report it", warnings)


_WORKER: dict = {}


def _init_worker(config: PipelineConfig, max_bytes: int) -> None:
    # Ctrl-C reaches the whole process group: the parent decides what to do, workers carry on
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _WORKER.update(config=config, max_bytes=max_bytes, error=None)
    try:
        get(config)
    except Exception as exc:  # reported by _probe_worker, so the batch stops with the reason
        _WORKER["error"] = exc


def _probe_worker() -> BaseException | None:
    return _WORKER.get("error")


def _run_chunk(tasks: list[Task]) -> list[Outcome]:
    return [analyse_task(task, _WORKER["config"], _WORKER["max_bytes"]) for task in tasks]


# --- many inputs: in this process or in a pool ---------------------------------------------------


def _context() -> multiprocessing.context.BaseContext:
    """A start method that is safe in a threaded parent: forkserver (spaCy preloaded), else spawn."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(FORKSERVER_PRELOAD)
        return context
    return multiprocessing.get_context("spawn")


class _InputTimeout(BaseException):
    """Raised by the timer signal inside an analysis that ran past ``--timeout`` (jobs=1).

    A BaseException, so that :func:`analyse_task`'s net for component bugs does not catch it.
    """


def _raise_timeout(signum, frame) -> None:
    raise _InputTimeout


def _timeout_message(timeout: float) -> str:
    return (f"expected the analysis to end within {timeout:g} s, found it still running; the input was skipped "
            "(--timeout allows more)")


class _InProcess:
    """Analyses inputs one after the other in this process (``jobs=1``).

    With a timeout, a timer signal interrupts an analysis that runs past it (between two Python
    steps: one long call into native code finishes first); only in the main thread of a POSIX
    system, where such signals exist.
    """

    jobs = 1

    def __init__(self, config: PipelineConfig, max_bytes: int, timeout: float | None = None) -> None:
        self.config, self.max_bytes = config, max_bytes
        self.timeout = timeout
        get(config)  # a pipeline that cannot be built stops the batch before its first input

    def map(self, tasks: Iterator[Task]) -> Iterator[tuple[Task, Outcome]]:
        timed = (self.timeout is not None and hasattr(signal, "setitimer")
                 and threading.current_thread() is threading.main_thread())
        for task in tasks:
            if not timed:
                yield task, analyse_task(task, self.config, self.max_bytes)
                continue
            previous = signal.signal(signal.SIGALRM, _raise_timeout)
            try:
                try:
                    signal.setitimer(signal.ITIMER_REAL, self.timeout)
                    outcome = analyse_task(task, self.config, self.max_bytes)
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
            except _InputTimeout:
                get.cache_clear()  # an interrupted pipeline is not reused
                outcome = _failed("timeout", _timeout_message(self.timeout))
            finally:
                signal.signal(signal.SIGALRM, previous)
            yield task, outcome

    def close(self, abort: bool = False) -> None:
        pass


class _Pool:
    """Analyses inputs in worker processes, yielding outcomes in input order.

    At most ``jobs * CHUNKS_PER_WORKER`` chunks are in flight. When a worker dies (a crash in
    native code, the out-of-memory killer), which input killed it is unknown: the inputs in flight
    are then run again one at a time in a fresh single worker, the one that kills it again fails
    alone, and the batch goes on with a fresh pool. A chunk that takes longer than ``timeout``
    seconds per input is treated the same way: its workers are stopped, and the input that runs
    past ``timeout`` on its own fails as ``timeout``.
    """

    def __init__(self, jobs: int, config: PipelineConfig, max_bytes: int, timeout: float | None = None) -> None:
        self.jobs = jobs
        self.timeout = timeout
        self._args = (config, max_bytes)
        self._executor = self._start(jobs)

    def _start(self, workers: int) -> ProcessPoolExecutor:
        executor = ProcessPoolExecutor(workers, mp_context=_context(), initializer=_init_worker, initargs=self._args)
        try:
            error = executor.submit(_probe_worker).result()
        except BaseException as exc:  # Ctrl-C while the workers start too: none is left behind
            self._kill(executor)
            if not isinstance(exc, BrokenProcessPool):
                raise
            raise UsageError("expected worker processes to start, found they died (a script that converts with "
                             "jobs > 1 needs the `if __name__ == \"__main__\":` guard of multiprocessing)") from exc
        if error is not None:
            self._kill(executor)
            if isinstance(error, PmparseError):
                raise error
            raise UsageError(f"expected the pipeline to build, found {type(error).__name__}: {error}")
        return executor

    def map(self, tasks: Iterator[Task]) -> Iterator[tuple[Task, Outcome]]:
        chunks = iter(lambda: list(itertools.islice(tasks, CHUNK_SIZE)), [])
        window = self.jobs * CHUNKS_PER_WORKER
        in_flight: deque[tuple[list[Task], Future]] = deque()
        while True:
            while len(in_flight) < window:
                chunk = next(chunks, None)
                if chunk is None:
                    break
                in_flight.append((chunk, self._submit(chunk)))
            if not in_flight:
                return
            chunk, future = in_flight.popleft()
            try:
                # the chunks before this one are done, so it is running: its clock starts at most
                # now. One timeout for the whole chunk: a chunk of slow but sound inputs that runs
                # past it only costs a rerun one input at a time, each with its own timeout.
                outcomes = future.result(timeout=self.timeout)
            except (BrokenProcessPool, FutureTimeout):
                pending = [(chunk, future), *in_flight]
                in_flight.clear()
                yield from self._isolate(pending)
                continue
            yield from zip(chunk, outcomes)

    def _submit(self, chunk: list[Task]) -> Future:
        try:
            return self._executor.submit(_run_chunk, chunk)
        except BrokenProcessPool:
            future: Future = Future()
            future.set_exception(BrokenProcessPool("the pool broke before the chunk was sent"))
            return future

    def _isolate(self, pending: list[tuple[list[Task], Future]]) -> Iterator[tuple[Task, Outcome]]:
        """Stop the pool, keep what finished, and run every other input in flight one at a time."""
        finished = {}
        for index, (_, future) in enumerate(pending):
            if future.done() and not future.cancelled() and future.exception() is None:
                finished[index] = future.result()
        self._kill(self._executor)
        tasks = [(task, finished[i][j] if i in finished else None)
                 for i, (chunk, _) in enumerate(pending) for j, task in enumerate(chunk)]
        single = self._start(1)
        try:
            for task, done in tasks:
                if done is not None:
                    yield task, done
                    continue
                try:
                    outcome = single.submit(_run_chunk, [task]).result(timeout=self.timeout)[0]
                except BrokenProcessPool:
                    outcome = _failed("crashed", "expected the worker to survive this input, found it died "
                                                 "(a crash or out of memory); the input was skipped")
                    self._kill(single)
                    single = self._start(1)
                except FutureTimeout:
                    outcome = _failed("timeout", _timeout_message(self.timeout))
                    self._kill(single)
                    single = self._start(1)
                yield task, outcome
        finally:
            self._kill(single)
        self._executor = self._start(self.jobs)

    @staticmethod
    def _kill(executor: ProcessPoolExecutor) -> None:
        # ProcessPoolExecutor has no public way to stop running workers before Python 3.14
        for process in list((getattr(executor, "_processes", None) or {}).values()):
            if process.is_alive():
                process.terminate()
        executor.shutdown(wait=True, cancel_futures=True)

    def close(self, abort: bool = False) -> None:
        if abort:
            self._kill(self._executor)
        else:
            self._executor.shutdown(wait=True)


# --- the batch -----------------------------------------------------------------------------------


class _Interrupts:
    """Turns Ctrl-C into KeyboardInterrupt, but never inside a critical section.

    A record and pmparse's memory of it (``.pmparse/base``) are two files; Ctrl-C between the two
    writes would make the record look edited by a person. Inside :meth:`critical` the signal is
    remembered and :meth:`check` raises it after the section.
    """

    def __init__(self) -> None:
        self.pending = False
        self._depth = 0
        self._previous = None

    def __enter__(self) -> _Interrupts:
        if threading.current_thread() is threading.main_thread():
            current = signal.getsignal(signal.SIGINT)
            if current is signal.default_int_handler:
                self._previous = current
                signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc_info) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)

    def _handle(self, signum, frame) -> None:
        if self._depth:
            self.pending = True
        else:
            raise KeyboardInterrupt

    @contextmanager
    def critical(self) -> Iterator[None]:
        """A section Ctrl-C does not interrupt."""
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1

    def check(self) -> None:
        """Raise the Ctrl-C that arrived during a critical section."""
        if self.pending:
            self.pending = False
            raise KeyboardInterrupt


class _ErrorsFile:
    """The failures report: JSON lines written to a temporary file, renamed into place at the end."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if self.path.is_dir():
            raise UsageError("expected a file for the failures report, found a folder", str(self.path))
        try:
            fd, self._tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent)
        except OSError as exc:
            raise UsageError(f"expected a writable folder for the failures report, found {exc.strerror}",
                             str(self.path)) from exc
        self._handle = os.fdopen(fd, "w", encoding="utf-8", newline="\n")

    def add(self, result: FileResult) -> None:
        """Record a failure."""
        line = {"input": result.input, "error": result.error_kind, "message": result.message}
        self._handle.write(json.dumps(line, ensure_ascii=False) + "\n")

    def commit(self) -> None:
        """Put the report in place (atomically: readers see the old one or the whole new one)."""
        self._handle.flush()
        os.fsync(self._handle.fileno())
        self._handle.close()
        os.replace(self._tmp, self.path)

    def discard(self) -> None:
        """Drop the report (the batch itself failed)."""
        self._handle.close()
        try:
            os.unlink(self._tmp)
        except FileNotFoundError:
            pass


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
           stdin: BinaryIO | None, url_base: str | None = None) -> Iterator[Task]:
    for location, problem, relative in expand_inputs_relative(inputs):
        url = join_url(url_base, relative) if url_base and location != "-" and problem is None else None
        shown = _display(location)
        if problem is not None:
            yield Task(shown, problem=("missing", problem))
        elif shown != location:
            yield Task(shown, problem=("unreadable", "expected a file name in UTF-8, found undecodable bytes "
                                                     "(rename the file)"))
        elif location == "-":
            try:
                raw = read_bytes(location, max_bytes, stdin)
            except InputError as exc:
                yield Task(location, problem=(exc.kind, exc.message))
                continue
            yield Task(location, known=None if force else _known(library, location), raw=raw)
        else:
            # one spelling per path: "./pm/a.md" and "pm//a.md" are "pm/a.md" and find its record
            # (an absolute path or a link to it is another spelling still: see README, "Limits")
            location = os.path.normpath(location)
            yield Task(location, known=None if force else _known(library, location, url), url=url)


def _finish(library: Library, task: Task, outcome: Outcome, fmt: RecordFormat, force: bool,
            interrupts: _Interrupts) -> FileResult:
    warnings = list(outcome.warnings)
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
        return FileResult(task.location, "pending" if waiting else "unchanged", record=str(entry.path),
                          warnings=warnings)
    card = Card.model_validate_json(outcome.card_json or "")
    try:
        with interrupts.critical():
            status, path = store(library, card, fmt, force)
    except RecordError as exc:
        return FileResult(task.location, "failed", error_kind="record", message=str(exc), warnings=warnings)
    except OSError as exc:
        return FileResult(task.location, "failed", error_kind="record",
                          message=f"expected to write the record, found {exc.strerror or exc}", warnings=warnings)
    # the record the suggestion was stored against (its file is named by its id)
    broken = library.entries.get(Path(path).stem) if status == "pending" else None
    if broken is not None and broken.error is not None:
        reason = (broken.error.splitlines() or ["unreadable"])[0]
        warnings.append(f"{broken.path.name} is not a valid record ({reason}); the suggestion waits for "
                        "review beside it: fix the record or run `pmparse review`")
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
) -> ConvertReport:
    """Convert sources into library records.

    Ctrl-C stops the batch cleanly: inputs in flight are abandoned (nothing of theirs is
    written), every record written is complete, and the report says ``interrupted``.

    Args:
        inputs: Files, folders and globs; ``-`` reads standard input. Consumed lazily.
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
            a POSIX system only.

    With ``jobs > 1`` workers are started with multiprocessing's ``forkserver`` method (``spawn``
    where there is none), so a script calling this needs the usual ``if __name__ == "__main__":``
    guard.

    Raises:
        UsageError: the library path exists and is not a folder, another pmparse process is
            writing the library (:func:`pmparse.library.store.write_lock`), or the failures report cannot
            be written.
        PmparseError: the pipeline cannot be built (a model or rules file is broken).
    """
    if url_base is not None:
        check_url_base(url_base)  # a usage error before any input is read
    library_path = Path(library_dir)
    if library_path.exists() and not library_path.is_dir():
        raise UsageError("expected a library folder, found a file", str(library_path))
    with write_lock(library_path):  # held until the batch ends: one writer per library
        library = Library.open(library_path)
        report = ConvertReport(keep_results=keep_results)
        tasks = _tasks(library, inputs, max_bytes, force, stdin, url_base)
        # a pool costs start-up time: only worth it for more than one input
        head = list(itertools.islice(tasks, 2))
        tasks = itertools.chain(head, tasks)
        errors = _ErrorsFile(errors_path) if errors_path is not None else None
        runner: _InProcess | _Pool | None = None
        finished = False
        try:
            with _Interrupts() as interrupts:
                try:
                    started = time.perf_counter()
                    runner = (_Pool(jobs, config, max_bytes, timeout) if jobs > 1 and len(head) > 1
                              else _InProcess(config, max_bytes, timeout))
                    report.jobs, report.startup_seconds = runner.jobs, time.perf_counter() - started
                    for task, outcome in runner.map(tasks):
                        # the record and the count of it together: a Ctrl-C between the two left a
                        # written record out of the summary
                        with interrupts.critical():
                            result = _finish(library, task, outcome, fmt, force, interrupts)
                            report.add(result)
                        if errors is not None and result.status == "failed":
                            errors.add(result)
                        if on_result is not None:
                            on_result(result)
                        interrupts.check()
                    finished = True
                except KeyboardInterrupt:
                    report.interrupted = True
                finally:
                    if runner is not None:
                        # an interruption or an error abandons the inputs in flight at once
                        runner.close(abort=not finished)
                    library.save_index()
        except BaseException:
            if errors is not None:
                errors.discard()
            raise
        if errors is not None:
            errors.commit()
        return report
