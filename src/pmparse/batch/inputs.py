"""Which inputs a batch converts: files, folders, globs, standard input and URLs as given."""

from __future__ import annotations

import glob
import os
from typing import Iterable, Iterator

from pmparse.errors import UsageError
from pmparse.ingest.read import is_url

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
