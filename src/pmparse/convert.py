"""Batch conversion: sources in, library records out.

Each source is ingested, analysed and assembled into a card on its own; a bad source becomes a
failed result naming the file and the reason, and the batch goes on. Records are written
atomically, so an interrupted batch leaves every record either old or new.
"""

from __future__ import annotations

import glob
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Callable, Iterable, Iterator, Literal

from .card import build_card
from .errors import InputError, PmparseError, RecordError, UsageError
from .ingest import DEFAULT_MAX_BYTES, ingest
from .pipeline import PipelineConfig, analyse, get, version_info
from .record import Library, RecordFormat, card_data, is_edited
from .review import open_diff
from .schema import Card

#: File name endings a folder walk picks up (files without any ending are read as text too).
SUPPORTED_SUFFIXES = (".txt", ".md", ".markdown", ".erb", ".html", ".htm", ".rst")
#: Extension-less names a folder walk leaves alone: they are never postmortems.
_NOT_REPORTS = {"license", "licence", "copying", "notice", "authors", "codeowners", "makefile", "dockerfile"}


def _walk_picks(name: str) -> bool:
    if name.startswith("."):
        return False
    if "." not in name:
        return name.lower() not in _NOT_REPORTS
    return name.lower().endswith(SUPPORTED_SUFFIXES)

Status = Literal["converted", "updated", "unchanged", "pending", "failed"]


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
    """Results of one batch, in input order."""

    results: list[FileResult] = field(default_factory=list)

    @property
    def counts(self) -> Counter:
        """How many inputs ended in each status."""
        return Counter(result.status for result in self.results)

    @property
    def failed(self) -> list[FileResult]:
        """The inputs that failed."""
        return [result for result in self.results if result.status == "failed"]


def expand_inputs(inputs: Iterable[str]) -> Iterator[tuple[str, str | None]]:
    """Files named by ``inputs``: files, folders (recursively, supported types) and globs.

    Yields:
        ``(path, problem)``; problem is None for a file to convert, or says why an input names
        nothing convertible (it is then reported as failed).
    """
    for item in inputs:
        if item == "-":
            yield item, None
            continue
        if os.path.isdir(item):
            found = False
            for root, dirs, files in os.walk(item):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    if not _walk_picks(name):
                        continue
                    found = True
                    yield os.path.join(root, name), None
            if not found:
                yield item, "expected a folder holding .txt, .md or .html files, found none"
            continue
        if os.path.lexists(item):
            yield item, None
            continue
        matches = sorted(glob.glob(item, recursive=True))
        if matches:
            for match in matches:
                yield from expand_inputs([match])
        else:
            yield item, "expected a file, folder or glob, found nothing at that path"


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
    return build_card(doc, source, card_id, version_info(nlp)), list(source.warnings)


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
    # nothing new when the suggestion equals what pmparse last wrote for this record
    base = library.read_state("base", entry.id)
    if base is not None and card_data(base) == card_data(card) and not force:
        return "unchanged", str(entry.path)
    if is_edited(library, entry):
        # a suggestion that proposes nothing open (only fields a person kept, or rejected before
        # for this source and model version) is not stored for review again
        if entry.card is not None and not force and not open_diff(library, entry, card).changes:
            library.drop_state("pending", entry.id)
            return "unchanged", str(entry.path)
        library.write_state("pending", card)
        return "pending", str(entry.path)
    library.drop_state("pending", entry.id)
    return "updated", str(library.write(card, fmt, entry.path))


def convert(
    inputs: Iterable[str],
    library_dir: str | Path,
    fmt: RecordFormat = "yaml",
    max_bytes: int = DEFAULT_MAX_BYTES,
    config: PipelineConfig = PipelineConfig(),
    force: bool = False,
    stdin: BinaryIO | None = None,
    on_result: Callable[[FileResult], None] | None = None,
) -> ConvertReport:
    """Convert sources into library records.

    Args:
        inputs: Files, folders and globs; ``-`` reads standard input.
        library_dir: The library folder (created when missing).
        fmt: Record format for new records.
        max_bytes: Largest input accepted.
        config: What the pipeline is built from.
        force: Rewrite suggestions even when they did not change.
        stdin: Stream for ``-``.
        on_result: Called after each input (progress display).

    Raises:
        UsageError: the library path exists and is not a folder.
    """
    library_path = Path(library_dir)
    if library_path.exists() and not library_path.is_dir():
        raise UsageError("expected a library folder, found a file", str(library_path))
    library = Library.open(library_path)
    report = ConvertReport()
    for location, problem in expand_inputs(inputs):
        if problem is not None:
            result = FileResult(location, "failed", error_kind="missing", message=problem)
        else:
            result = convert_one(library, location, fmt, max_bytes, config, force, stdin)
        report.results.append(result)
        if on_result is not None:
            on_result(result)
    return report


def convert_one(library: Library, location: str, fmt: RecordFormat, max_bytes: int, config: PipelineConfig,
                force: bool, stdin: BinaryIO | None = None) -> FileResult:
    """Convert one source; every failure becomes a failed result, never an exception."""
    try:
        card, warnings = suggest(location, config, max_bytes, stdin)
        status, path = store(library, card, fmt, force)
        return FileResult(location, status, record=path, warnings=warnings)
    except InputError as exc:
        return FileResult(location, "failed", error_kind=exc.kind, message=exc.message)
    except RecordError as exc:
        return FileResult(location, "failed", error_kind="record", message=str(exc))
    except PmparseError as exc:
        return FileResult(location, "failed", error_kind="error", message=str(exc))
    except RecursionError:
        return FileResult(location, "failed", error_kind="malformed", message="expected text, found structure nested too deeply")
    except MemoryError:
        return FileResult(location, "failed", error_kind="too-large", message="ran out of memory on this input; lower --max-bytes")
