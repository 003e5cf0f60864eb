"""The library's write lock: one process writes records and their state at a time."""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from pmparse.errors import UsageError, WriteError
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
        UsageError: another process holds the lock, or a link was put in its place.
        WriteError: the library folder cannot be written (read-only, no permission, disk full):
            a command that writes the library cannot run there (exit 1, as any file pmparse
            cannot write).
        UnsafePathError: ``.pmparse`` or its lock is a symbolic link.
    """
    if fcntl is None:
        yield
        return
    # a library from someone else may hold .pmparse or its lock as a link (a dangling one would
    # make O_CREAT create its target): refused, and O_NOFOLLOW closes the gap to the open
    lock = inside(Path(root), ".pmparse/lock")
    try:
        # the folder too: a new library under a read-only parent failed here with a traceback
        lock.parent.mkdir(parents=True, exist_ok=True)
        _write_gitignore(Path(root))
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EISDIR, errno.EEXIST):  # something in its place
            raise UsageError(f"expected a lock file pmparse can open, found {reason}", str(lock)) from exc
        # a read-only or someone else's library: say which folder and why, as a write that fails
        raise WriteError(f"expected a library folder pmparse can write (convert, review and train --library "
                         f"keep a lock and their state in .pmparse/), found {reason[:1].lower() + reason[1:]}",
                         str(root)) from exc
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


#: ``.pmparse/.gitignore``: what of pmparse's state belongs to one checkout. The lock is recreated by
#: any run; the scan cache holds stat keys (times, inode) of one checkout's files, wrong in every
#: other and a conflict at each pull where both curators converted; an intent is a write a killed
#: run left half done here. Bases, pending suggestions, rejections, draft decisions, the anchor
#: and the library's model are the curators' work and are shared (docs/record-format.md).
GITIGNORE = """# pmparse: files local to this checkout (see "Sharing a library through git" in
# docs/record-format.md); the rest of .pmparse/ is the curators' work: commit it
lock
index.json
intent/
.*.tmp
"""


def _write_gitignore(root: Path) -> None:
    """Write ``.pmparse/.gitignore`` once, when the library has none: a curator's own is kept.

    A library kept in git was committed with its lock and scan cache (``git add -A``), which
    every run rewrote: a changed file after each convert and a merge conflict at each pull.
    """
    path = inside(root, ".pmparse/.gitignore")
    if os.path.lexists(path):
        return
    try:
        fd, tmp = tempfile.mkstemp(prefix=".gitignore.", suffix=".tmp", dir=path.parent)
    except OSError:
        return  # a read-only library: the lock's own open says why, as before
    try:
        os.chmod(tmp, 0o644)
        # written whole before it takes the name: a write cut short (a full disk, a killed run) left
        # a part that every later run kept as a curator's own, the lock and scan cache unignored
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(GITIGNORE)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            # a hard link never replaces a file, nor follows a link put in its place
            os.link(tmp, path)
        except FileExistsError:
            pass
        except OSError:
            # a file system without hard links: a rename, unless a curator's own came meanwhile
            if not os.path.lexists(path):
                os.replace(tmp, path)
    except OSError:
        pass  # advice, not state: a full disk leaves none, and the next run writes it
    finally:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
