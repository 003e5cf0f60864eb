"""The library's write lock: one process writes records and their state at a time."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from pmparse.errors import UsageError

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
        UsageError: another process holds the lock.
    """
    if fcntl is None:
        yield
        return
    state = Path(root) / ".pmparse"
    state.mkdir(parents=True, exist_ok=True)
    fd = os.open(state / "lock", os.O_RDWR | os.O_CREAT, 0o644)
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
