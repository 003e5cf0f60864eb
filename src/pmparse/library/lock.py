"""The library's write lock: one process writes records and their state at a time."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from pmparse.errors import UsageError
from pmparse.paths import inside

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no lock is taken
    fcntl = None  # type: ignore[assignment]


@contextlib.contextmanager
def write_lock(root: str | Path) -> Iterator[None]:
    """Hold a library's write lock (``.pmparse/lock``) while records and their state are written.

    Two processes writing one library (two converts, or a convert and a review) could each write
    a base the other's record does not match; the second one is refused at once instead of
    waiting on the first. The operating system drops the lock when its process dies, so a
    killed run leaves nothing to clean up. Where ``fcntl`` is missing (Windows) no lock is taken.

    Raises:
        UsageError: another process holds the lock, or it cannot be opened.
        UnsafePathError: ``.pmparse`` or its lock is a symbolic link.
    """
    if fcntl is None:
        yield
        return
    # a library from someone else may hold .pmparse or its lock as a link (a dangling one would
    # make O_CREAT create its target): refused, and O_NOFOLLOW closes the gap to the open
    lock = inside(Path(root), ".pmparse/lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except OSError as exc:
        raise UsageError(f"expected a lock file pmparse can open, found {exc.strerror or exc}", str(lock)) from exc
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise UsageError("expected no other pmparse process writing this library, found one holding "
                             ".pmparse/lock (a convert or review still running); run this when it ends",
                             str(root)) from None
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock
