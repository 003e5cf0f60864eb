"""Stopping a long command cleanly: Ctrl-C, SIGTERM and SIGHUP become one KeyboardInterrupt the
command handles (a summary, exit 128 + the signal), never inside a section that must not be cut."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

#: The signals that stop a batch cleanly: Ctrl-C, ``kill`` (and a service manager stopping it),
#: and a closed terminal. Each ends the batch as Ctrl-C does, and the exit code is 128 + its number.
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


class Interrupts:
    """Turns Ctrl-C, SIGTERM and SIGHUP into KeyboardInterrupt, but never inside a critical section.

    A record and pmparse's memory of it (``.pmparse/base``) are two files; a signal between the
    two writes would make the record look edited by a person. Inside :meth:`critical` the signal
    is remembered and :meth:`check` raises it after the section. Without a handler SIGTERM and
    SIGHUP ended the process at once: no summary, temporary files and ``/tmp/pymp-*`` folders
    left behind. A signal someone chose to ignore (a background job's SIGINT, ``nohup``'s SIGHUP)
    stays ignored.

    Attributes:
        signum: The signal that stopped the batch, or None.
    """

    def __init__(self) -> None:
        self.pending = False
        self.signum: int | None = None
        self._depth = 0
        self._previous: dict[int, object] = {}

    def __enter__(self) -> Interrupts:
        if threading.current_thread() is threading.main_thread():
            for signum in STOP_SIGNALS:
                current = signal.getsignal(signum)
                if current is signal.default_int_handler or current is signal.SIG_DFL:
                    self._previous[signum] = current
                    signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc_info) -> None:
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)
        self._previous.clear()

    def _handle(self, signum, frame) -> None:
        self.signum = self.signum or signum
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

    def hold(self) -> None:
        """Install the handlers (as ``with``) inside a critical section that never ends: from now
        until :meth:`__exit__`, a stop signal is only noted (:attr:`pending`, :attr:`signum`)."""
        self.__enter__()
        self._depth += 1

    def check(self) -> None:
        """Raise the Ctrl-C that arrived during a critical section."""
        if self.pending:
            self.pending = False
            raise KeyboardInterrupt
