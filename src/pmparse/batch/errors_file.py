"""The failures report of a batch (``convert --errors FILE``): JSON lines, put in place whole."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from pmparse.errors import UsageError, WriteError
from pmparse.util import temporary_prefix, write_errors


class ErrorsFile:
    """The failures report: JSON lines written to a temporary file, renamed into place at the end."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        with write_errors(self.path, "the failures report"):  # a name too long fails here, before the batch
            is_dir = self.path.is_dir()
        if is_dir:
            raise UsageError("expected a file for the failures report, found a folder", str(self.path))
        try:
            fd, self._tmp = tempfile.mkstemp(prefix=temporary_prefix(self.path), suffix=".tmp", dir=self.path.parent)
        except OSError as exc:
            raise UsageError(f"expected a writable folder for the failures report, found {exc.strerror}",
                             str(self.path)) from exc
        self._handle = os.fdopen(fd, "w", encoding="utf-8", newline="\n")

    def add(self, result) -> None:
        """Record a failure (a failed :class:`pmparse.batch.convert.FileResult`; not imported:
        convert imports this module)."""
        line = {"input": result.input, "error": result.error_kind, "message": result.message}
        with write_errors(self.path, "the failures report"):
            self._handle.write(json.dumps(line, ensure_ascii=False) + "\n")

    def commit(self) -> None:
        """Put the report in place (atomically: readers see the old one or the whole new one).

        Raises:
            WriteError: the disk is full, or the name is too long (its temporary file is removed).
        """
        try:
            with write_errors(self.path, "the failures report"):
                self._handle.flush()
                os.fsync(self._handle.fileno())
                self._handle.close()
                os.replace(self._tmp, self.path)
        except WriteError:
            self.discard()
            raise

    def discard(self) -> None:
        """Drop the report (the batch itself failed)."""
        try:
            self._handle.close()
        except OSError:
            pass  # what it could not flush is dropped with it
        try:
            os.unlink(self._tmp)
        except FileNotFoundError:
            pass
