"""A guard for tests that put a FIFO where pmparse might read: code that opens one to read waits
for a writer for ever, so a regression hung the whole suite instead of failing its test."""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

#: How long a guarded block may wait before its FIFOs are released. A bound on a hang, far above
#: any run of the block (never a measure of speed: nothing asserts how fast it ran).
HANG_BOUND = 60.0


def release(fifo: str | os.PathLike) -> bool:
    """Open ``fifo`` for writing and close it: a reader stuck opening it gets its end of file.

    Returns:
        Whether a reader held it open (opening it without one fails at once).
    """
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:  # ENXIO: no reader has it open; gone: nobody can be waiting on it
        return False
    return True


@contextmanager
def fifo_guard(*fifos: str | os.PathLike, bound: float = HANG_BOUND) -> Iterator[None]:
    """Fail the test, rather than hang, when the block waits on one of ``fifos`` past ``bound`` seconds.

    Past the bound, a watcher releases every FIFO a reader holds (:func:`release`), again and again
    until the block ends, so the stuck read ends (in this process or in a worker process it
    started); the block then fails with an ``AssertionError`` naming the FIFOs, whatever it did
    with the empty text it was given.

    Args:
        fifos: The FIFOs the test made.
        bound: Seconds the block may run before a reader holding a FIFO counts as stuck.

    Raises:
        AssertionError: a reader held one of the FIFOs past the bound.
    """
    stop = threading.Event()
    stuck: list[str] = []

    def watch() -> None:
        if stop.wait(bound):
            return
        while not stop.is_set():
            for fifo in fifos:
                if release(fifo) and str(fifo) not in stuck:
                    stuck.append(str(fifo))
            stop.wait(0.2)

    watcher = threading.Thread(target=watch, name="fifo-guard", daemon=True)
    watcher.start()
    failure: BaseException | None = None
    try:
        yield
    except BaseException as exc:  # noqa: BLE001 - a release may make the block fail first
        failure = exc
    finally:
        stop.set()
        watcher.join()
    if stuck:
        names = ", ".join(Path(name).name for name in stuck)
        raise AssertionError(f"waited on the FIFO {names} for more than {bound:g} s "
                             "(opened to read, blocking, where no writer ever comes); released to end the test") from failure
    if failure is not None:
        raise failure
