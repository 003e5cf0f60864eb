"""Analysing inputs in worker processes (or in this one) with a per-input time limit and clean Ctrl-C."""

from __future__ import annotations

import dataclasses
import itertools
import multiprocessing
import os
import select
import signal
import threading
import time
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Literal

from pmparse.errors import InputError, PmparseError, UsageError
from pmparse.ingest.fetch import FetchSettings
from pmparse.logs import install_in_worker, worker_setting
from pmparse.ingest.read import extracted_sha256, ingest, ingest_bytes, read_bytes
from pmparse.batch.inputs import SKIPPED, not_incident_content
from pmparse.batch.suggest import suggest_cards
from pmparse.card.schema import Card
from pmparse.nlp.pipeline import PipelineConfig, get, version_info
from pmparse.nlp.tokenizer import long_lines

#: Longest a worker may spend on one input, in seconds, before it is stopped and the input fails
#: as ``timeout`` (a 20 MiB text takes a few minutes at this pipeline's speed).
DEFAULT_TIMEOUT = 600.0

#: Inputs sent to a worker at a time (fewer round trips; small enough to balance the load).
CHUNK_SIZE = 4

#: Chunks in flight per worker: enough to keep workers busy, few enough to bound memory.
CHUNKS_PER_WORKER = 4

#: Seconds the parent gives a chunk beyond its inputs' timeouts before stopping its worker (the
#: worker's own timer reports a timeout first; this is for a worker stuck in native code).
BACKSTOP_GRACE = 2.0

#: Imported once by the fork server, so every worker starts with them: pmparse with its components
#: (the models need numpy only). A module that cannot be imported is skipped by multiprocessing.
FORKSERVER_PRELOAD = ["pmparse.batch.convert"]

#: A pipeline whose vocabulary grew past this many lexemes is rebuilt (spaCy keeps every new
#: token string for the life of the pipeline: about 0.5 KB each).
MAX_LEXEMES = 200_000



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
        fetch: Download limits when ``location`` is a URL (None: the defaults).
        check_content: Skip a text that is no incident report by what it holds (a directory
            listing, a page of links); False with ``--all-files``.
        namesake: ``(record id, location)`` of a record read by a relative name that this path
            ends with and that is not found from the folder convert runs in: maybe this file,
            named from elsewhere (said when the input gets a new record).
        read_from: Where the file is read from when that is not ``location`` (a location relative
            to the library's anchor, convert run from another folder); None to read ``location``.
    """

    location: str
    known: tuple[Stamp, ...] | None = None
    raw: bytes | None = None
    problem: tuple[str, str] | None = None
    url: str | None = None
    fetch: FetchSettings | None = None
    check_content: bool = True
    namesake: tuple[str, str] | None = None
    read_from: str | None = None

    @property
    def path(self) -> str:
        """The path the input is read from."""
        return self.read_from or self.location


@dataclass(frozen=True)
class Outcome:
    """What analysing one input gave: a card (as JSON), a skip, or a failure.

    A file holding many incidents gives one card per entry: ``entries`` holds each one's
    ``(location, card JSON, warnings)`` and ``card_json`` is None.
    """

    kind: Literal["card", "unchanged", "failed"]
    card_json: str | None = None
    warnings: tuple[str, ...] = ()
    error_kind: str | None = None
    message: str | None = None
    sha256: str | None = None
    entries: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    #: The card ``card_json`` was written from, for the process that analysed it (``jobs=1``): it
    #: stores this one instead of parsing and validating the JSON again. A worker drops it
    #: (:func:`_run_chunk`): between processes the JSON alone travels.
    card: Card | None = field(default=None, compare=False, repr=False)


def _failed(kind: str, message: str, warnings: Iterable[str] = ()) -> Outcome:
    return Outcome("failed", warnings=tuple(warnings), error_kind=kind, message=message)


def analyse_task(task: Task, config: PipelineConfig, max_bytes: int) -> Outcome:
    """Ingest and analyse one input; every failure becomes a failed outcome, never an exception.

    An input whose text and pipeline match ``task.known`` is not analysed (``unchanged``).
    A single card is kept beside its JSON (:attr:`Outcome.card`; a worker drops it).
    """
    if task.problem is not None:
        return _failed(*task.problem)
    warnings: list[str] = []
    try:
        if task.raw is not None:
            source = ingest_bytes(task.raw, task.location)
        elif task.read_from is not None:
            source = ingest_bytes(read_bytes(task.read_from, max_bytes), task.location)
        else:
            source = ingest(task.location, max_bytes=max_bytes, fetch_settings=task.fetch)
        if task.url is not None:
            source.url = task.url
        warnings = list(source.warnings)
        reason = not_incident_content(source.text, source.masked, source.front_matter.get("title")) \
            if task.check_content else None
        if reason is not None:
            return _failed(SKIPPED, reason)
        nlp = get(config)
        info = version_info(nlp)
        if task.known is not None and (source.sha256, info["version"], info["model"],
                                       info.get("fingerprint")) in task.known:
            return Outcome("unchanged", warnings=tuple(warnings), sha256=source.sha256)
        cards = suggest_cards(nlp, source, info)
        if len(nlp.vocab) > MAX_LEXEMES or long_lines(source.text):
            # a fresh pipeline for the next input: memory stays bounded (an overlong line's coarse
            # tokens are long strings the vocabulary would keep)
            get.cache_clear()
        if len(cards) == 1 and cards[0][0].source.entry is None:
            card, found = cards[0]
            return Outcome("card", card_json=card.model_dump_json(), warnings=tuple(found), card=card)
        return Outcome("card", warnings=tuple(warnings), entries=tuple(
            (card.source.location, card.model_dump_json(), tuple(found[len(warnings):])) for card, found in cards))
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


def _watch_parent(parent: int) -> None:
    """End this worker, and the fork server it came from, when the process that started the
    batch ends, however it ends (SIGKILL included).

    Workers are children of multiprocessing's fork server, not of the batch, so the kernel's
    parent-death signal would follow the fork server; and neither notices a killed batch by
    itself (both stayed alive, about 100 MB each, under PID 1). A daemon thread waits on a pidfd
    of the batch process (Linux 5.3+; elsewhere it checks once a second that the process exists).
    """
    server = os.getppid()

    def wait() -> None:
        try:
            fd = os.pidfd_open(parent)
        except (AttributeError, OSError):
            fd = None
        if fd is not None:
            select.select([fd], [], [])
        else:
            while True:
                try:
                    os.kill(parent, 0)
                except ProcessLookupError:
                    break
                except PermissionError:  # exists, another user's: cannot be ours after a pid reuse
                    break
                time.sleep(1.0)
        # the fork server too, when it is still ours (it serves only the batch that died)
        if server not in (1, parent) and os.getppid() == server:
            try:
                os.kill(server, signal.SIGKILL)
            except OSError:
                pass
        os._exit(1)

    threading.Thread(target=wait, name="pmparse-parent-watch", daemon=True).start()


def _init_worker(config: PipelineConfig, max_bytes: int, parent: int | None = None,
                 timeout: float | None = None, library_logs: bool | None = None) -> None:
    # the libraries' log records escaped (and held back without -v) as in the command that
    # started this worker: the fork server's fresh interpreter has none of its logging
    install_in_worker(library_logs)
    # Ctrl-C and a closed terminal reach the whole process group: the parent decides what to do,
    # workers carry on (SIGTERM stays: it is how the parent stops a worker)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
    if parent is not None:
        _watch_parent(parent)
    _WORKER.update(config=config, max_bytes=max_bytes, timeout=timeout, error=None)
    try:
        get(config)
    except Exception as exc:  # reported by _probe_worker, so the batch stops with the reason
        _WORKER["error"] = exc


def _probe_worker() -> BaseException | None:
    return _WORKER.get("error")


def _run_chunk(tasks: list[Task]) -> list[Outcome]:
    # each input on its own clock inside the worker: a loop in a parser (a PDF whose objects refer
    # to each other) fails as timeout after --timeout, without the parent stopping the worker and
    # running the chunk again (which took twice --timeout)
    outcomes = [timed_analysis(task, _WORKER["config"], _WORKER["max_bytes"], _WORKER.get("timeout"))
                for task in tasks]
    # the parent reads the JSON: the card object would only be pickled on the way
    return [dataclasses.replace(o, card=None) if o.card is not None else o for o in outcomes]


# The fork server listens on a socket named in a fresh folder under the temporary folder, and a
# socket's name holds at most 104-108 bytes (by platform). Python 3.11 then fails with a traceback
# under a long TMPDIR (3.13 moves the folder to /tmp itself); pmparse spawns its workers instead.
SOCKET_NAME_MAX = 100


def _forkserver_fits() -> bool:
    """Whether the fork server's socket name fits under this process's temporary folder."""
    import multiprocessing.util

    listener = os.path.join(multiprocessing.util.get_temp_dir(), "listener-12345678")
    return len(os.fsencode(listener)) <= SOCKET_NAME_MAX


def _context() -> multiprocessing.context.BaseContext:
    """A start method that is safe in a threaded parent: forkserver (spaCy preloaded), else spawn
    (also where the fork server's socket name would not fit: a long TMPDIR)."""
    if "forkserver" in multiprocessing.get_all_start_methods() and _forkserver_fits():
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


@contextmanager
def _time_limit(timeout: float | None) -> Iterator[None]:
    """Raise :class:`_InputTimeout` in the block after ``timeout`` seconds (a timer signal: between
    two Python steps); untimed without a timeout, off POSIX or outside the main thread."""
    if timeout is None or not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGALRM, _raise_timeout)
    try:
        try:
            signal.setitimer(signal.ITIMER_REAL, timeout)
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    finally:  # apart: a timer firing as it is stopped raises there, and the handler is still put back
        signal.signal(signal.SIGALRM, previous)


def timed_analysis(task: Task, config: PipelineConfig, max_bytes: int, timeout: float | None) -> Outcome:
    """:func:`analyse_task` stopped by a timer signal after ``timeout`` seconds (between two Python
    steps: one long call into native code finishes first); only in the main thread of a POSIX
    system, where such signals exist, else untimed."""
    try:
        with _time_limit(timeout):
            return analyse_task(task, config, max_bytes)
    except _InputTimeout:
        get.cache_clear()  # an interrupted pipeline is not reused
        return _failed("timeout", _timeout_message(timeout))


def timed_extracted_sha256(timeout: float | None) -> Callable[[str, bytes], str | None]:
    """:func:`pmparse.ingest.read.extracted_sha256` under the per-input time limit of
    :func:`timed_analysis`: a page or PDF read as evidence of a gone anchor's new folder
    (:meth:`pmparse.library.places.SourcePlaces.of_library`) is parsed in this process before the
    batch starts, where a parser that hangs stopped the whole batch. One that runs past
    ``timeout`` is no evidence; as an input it then fails alone as ``timeout``."""

    def extracted(location: str, raw: bytes) -> str | None:
        try:
            with _time_limit(timeout):
                return extracted_sha256(location, raw)
        except _InputTimeout:
            return None

    return extracted


class InProcess:
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
        for task in tasks:
            # stored in this process: the outcome keeps its card (no JSON round trip)
            yield task, timed_analysis(task, self.config, self.max_bytes, self.timeout)

    def close(self, abort: bool = False) -> None:
        pass


@contextmanager
def _hangup_blocked() -> Iterator[None]:
    """SIGHUP and SIGINT held back while worker processes start, so that they and
    multiprocessing's fork server and resource tracker (started with them) inherit them blocked:
    a closed terminal hangs up, and Ctrl-C interrupts, the whole process group. A resource tracker
    that died of SIGHUP was started again and printed tracebacks; a fork server or worker that
    Ctrl-C reached while importing (before it ignores SIGINT) printed a KeyboardInterrupt
    traceback or 'Fatal Python error'. Each keeps SIGINT blocked until it ignores it. This process
    gets a signal that came meanwhile when the block ends (SIGTERM is not blocked: it is how a
    worker is stopped)."""
    if not hasattr(signal, "SIGHUP") or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGHUP, signal.SIGINT})
    try:
        # the resource tracker is started first, as the fork server would: its start unblocks
        # SIGINT in this process when it is done (multiprocessing.resource_tracker), so SIGINT
        # is blocked again before the fork server and the workers start
        from multiprocessing import resource_tracker

        resource_tracker.ensure_running()
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


class WorkerPool:
    """Analyses inputs in worker processes, yielding outcomes in input order.

    At most ``jobs * CHUNKS_PER_WORKER`` chunks are in flight. When a worker dies (a crash in
    native code, the out-of-memory killer), which input killed it is unknown: the inputs in flight
    are then run again one at a time in a fresh single worker, the one that kills it again fails
    alone, and the batch goes on with a fresh pool. Each input is timed in its worker and fails as
    ``timeout`` there; a chunk that still runs past its inputs' timeouts (a worker stuck in native
    code) is treated as a dead worker: its workers are stopped, and the input that runs past
    ``timeout`` on its own fails as ``timeout``.
    """

    def __init__(self, jobs: int, config: PipelineConfig, max_bytes: int, timeout: float | None = None) -> None:
        self.jobs = jobs
        self.timeout = timeout
        self._args = (config, max_bytes, os.getpid(), timeout, worker_setting())
        self._executor = self._start(jobs)

    def _start(self, workers: int) -> ProcessPoolExecutor:
        executor = None
        try:
            with _hangup_blocked():
                executor = self._start_blocked(workers)
        except BaseException:
            # a Ctrl-C that came while the workers started lands as the block ends: the pool is
            # not handed back, so it is stopped here (a worker still starting would otherwise
            # find the pool's semaphores gone once this process ended, and print a traceback)
            if executor is not None:
                self._kill(executor)
            raise
        return executor

    def _start_blocked(self, workers: int) -> ProcessPoolExecutor:
        executor = ProcessPoolExecutor(workers, mp_context=_context(), initializer=_init_worker, initargs=self._args)
        try:
            # a probe per worker: the pool starts its workers as work is submitted, so all of them
            # start here, where signals are held back, rather than at the batch's first inputs
            probes = [executor.submit(_probe_worker) for _ in range(workers)]
            error = next((e for e in (probe.result() for probe in probes) if e is not None), None)
        except BaseException as exc:  # Ctrl-C while the workers start too: none is left behind
            self._kill(executor)
            if not isinstance(exc, BrokenProcessPool):
                raise
            raise UsageError("expected worker processes to start, found they died (a script that converts in "
                             "worker processes, jobs > 1 or isolate=True, needs the `if __name__ == \"__main__\":` guard of multiprocessing)") from exc
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
                outcomes = future.result(timeout=self._backstop(len(chunk)))
            except (BrokenProcessPool, FutureTimeout):
                pending = [(chunk, future), *in_flight]
                in_flight.clear()
                yield from self._isolate(pending)
                continue
            yield from zip(chunk, outcomes)

    def _backstop(self, inputs: int) -> float | None:
        """How long the parent waits for a chunk: each input is timed inside its worker
        (:func:`timed_analysis`), so this only catches a worker stuck in native code, which the
        timer signal cannot interrupt."""
        if self.timeout is None:
            return None
        return self.timeout * inputs + BACKSTOP_GRACE

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
                    outcome = single.submit(_run_chunk, [task]).result(timeout=self._backstop(1))[0]
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
