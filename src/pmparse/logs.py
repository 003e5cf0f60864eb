"""The log records of the libraries pmparse reads with, as they may reach a terminal.

pdfminer, trafilatura, spaCy and the ``warnings`` module write through Python's logging (or
their own stream handlers) with values taken from the page: an object of a PDF, a fragment of
HTML. A hostile page can put control characters (ESC, OSC, C1, bidirectional overrides) into
those messages, and pdfminer writes some of them with ``%s``. While the ``pmparse`` command
runs (and in its worker processes), every log record is escaped by :func:`pmparse.util.shown`
whatever handler prints it, and the libraries' records are shown only with ``pmparse -v``, once
each (a library's own handler to the standard error is taken off while the command runs):
pmparse's own lines name the input and the reason; a library's say neither.

A program that calls :func:`pmparse.extract` or :func:`pmparse.convert` keeps its own logging:
only the command line installs this.
"""

from __future__ import annotations

import logging
import sys
import types
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

from pmparse.util import shown

#: The records of these loggers are pmparse's own: always shown (warnings and above).
OWN_LOGGER = "pmparse"


class _Visibility(logging.Filter):
    """Lets pmparse's own records through, a library's only when verbose."""

    def __init__(self, verbose: bool) -> None:
        super().__init__()
        self.verbose = verbose

    def filter(self, record: logging.LogRecord) -> bool:
        return _own(record) or self.verbose


def _own(record: logging.LogRecord) -> bool:
    return record.name == OWN_LOGGER or record.name.startswith(OWN_LOGGER + ".")


class _LineFormat(logging.Formatter):
    """pmparse's own records as its other lines (``warning: ...``), a library's as ``logger: ...``."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        who = record.levelname.lower() if _own(record) else record.name
        return f"{who}: {record.message}"


class _StderrLines(logging.Handler):
    """Writes each record as one line to the standard error there is now (a test's, the terminal)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            stream = sys.stderr
            stream.write(self.format(record) + "\n")
            stream.flush()
        except Exception:  # a log line must never end the command
            self.handleError(record)

    def handleError(self, record: logging.LogRecord) -> None:
        """One escaped line for a record whose message cannot be made (``"%d" % "x"``, an argument
        whose ``str`` fails): logging's own report prints the error's text and the arguments raw,
        and the error of a library's object may carry the page's text."""
        if not logging.raiseExceptions:
            return
        error = sys.exc_info()[1]
        try:
            who = record.levelname.lower() if _own(record) else record.name
            try:
                reason = f"{type(error).__name__}: {error}"
            except Exception:  # the error's own text cannot be made either
                reason = type(error).__name__
            sys.stderr.write(shown(f"{who}: a log message that could not be written ({reason}): "
                                   f"{record.msg!r}", one_line=True) + "\n")
            sys.stderr.flush()
        except Exception:  # nowhere left to say it
            pass


def _escaping_factory(previous, detached: list):
    """A log record factory whose records print only escaped text, whatever formats them.

    The message, the traceback and the stack are escaped where the record is made, so a
    library's own stream handler prints them escaped too. A library's own handler to the
    standard error on a logger whose records also reach the root's handler (spaCy adds one when
    it is imported, after the command started) is taken off when its first record is made, into
    ``detached``: else each of its records printed twice, once not held back without ``-v``.
    """
    formatter = logging.Formatter()

    def make(*args, **kwargs) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        _detach_console_handlers(record.name, detached)
        raw_message = record.getMessage

        def get_message(self) -> str:
            # one line: a message cannot print a line of its own choosing (a fake 'failed:');
            # the line break a message ends on is no line of its own, and a captured warning's
            # last line is the library's source line that called warn(), nothing of the input
            message = raw_message().rstrip("\r\n")
            if self.name == "py.warnings":
                head, brk, last = message.rpartition("\n")
                if brk and last.startswith("  "):
                    message = head
            return shown(message, one_line=True)

        record.getMessage = types.MethodType(get_message, record)
        if record.exc_info and not record.exc_text:
            # a Formatter uses exc_text as it is once set: the traceback is escaped here, once
            record.exc_text = shown(formatter.formatException(record.exc_info))
        if record.stack_info:
            record.stack_info = shown(record.stack_info)
        return record

    make.pmparse_escapes = True
    return make


def _detach_console_handlers(name: str, detached: list) -> None:
    """Take a library's own standard-error handlers off the loggers from ``name`` up to the root,
    where the records also propagate to the root (whose handler prints them once, by the rules
    of :class:`LibraryLogs`); each ``(logger, index, handler)`` taken off goes into ``detached``.

    Only when every logger of the chain propagates: a record stopped on its way (a library's
    logger with ``propagate = False``) never reaches the root's handler, so the handlers below
    that logger may be all that prints it to the console."""
    chain = []
    logger: logging.Logger | None = logging.getLogger(name)
    while logger is not None and logger.parent is not None:
        if not logger.propagate:
            return  # its records never reach the root: its own handlers are all that prints them
        chain.append(logger)
        logger = logger.parent
    for logger in chain:
        for index, handler in reversed(list(enumerate(logger.handlers))):
            if _console(handler):
                logger.removeHandler(handler)
                detached.append((logger, index, handler))


def _console(handler: logging.Handler) -> bool:
    """Whether ``handler`` writes to the standard error (a library's console handler)."""
    if type(handler) is not logging.StreamHandler:
        return False  # a file, a socket, one of the calling program's own kinds: left alone
    stream = handler.stream
    return stream is sys.stderr or stream is sys.__stderr__ or getattr(stream, "name", None) == "<stderr>"


class LibraryLogs:
    """The command line's logging while it runs: records escaped, libraries' shown only when verbose.

    Attributes:
        verbose: Show the libraries' records (``pmparse -v``).
    """

    def __init__(self, verbose: bool = False) -> None:
        self._visibility = _Visibility(verbose)
        self._handler = _StderrLines(logging.WARNING)
        self._handler.setFormatter(_LineFormat())
        self._handler.addFilter(self._visibility)
        self._undo: list = []

    @property
    def verbose(self) -> bool:
        return self._visibility.verbose

    @verbose.setter
    def verbose(self, value: bool) -> None:
        self._visibility.verbose = value

    def install(self) -> None:
        """Route every record through :func:`shown` and the root logger's one handler."""
        previous = logging.getLogRecordFactory()
        if not getattr(previous, "pmparse_escapes", False):
            detached: list = []
            logging.setLogRecordFactory(_escaping_factory(previous, detached))
            self._undo.append(lambda: logging.setLogRecordFactory(previous))
            # the last taken off first, each at its index among the handlers it was taken from
            self._undo.append(lambda: [_put_back(logger, index, handler)
                                       for logger, index, handler in reversed(detached)])
        root = logging.getLogger()
        # a command run inside a command (click's CliRunner in a program that is one): the inner
        # one's handler stands in for the outer one's while it runs, else every record printed twice
        for index, outer in reversed(list(enumerate(root.handlers))):
            if isinstance(outer, _StderrLines):
                root.removeHandler(outer)
                self._undo.append(lambda index=index, outer=outer: _put_back(root, index, outer))
        # with a handler on the root, logging's last resort (which printed pdfminer's warnings
        # as they were) is not used
        root.addHandler(self._handler)
        self._undo.append(lambda: root.removeHandler(self._handler))
        level = root.level
        root.setLevel(logging.WARNING)
        self._undo.append(lambda: root.setLevel(level))
        # a library's warnings.warn() printed its text raw through warnings.showwarning (left
        # alone where the calling program captures warnings itself)
        if getattr(warnings.showwarning, "__module__", None) != "logging":
            logging.captureWarnings(True)
            self._undo.append(lambda: logging.captureWarnings(False))

    def uninstall(self) -> None:
        """Put back the logging there was before :meth:`install`."""
        while self._undo:
            self._undo.pop()()


def _put_back(logger: logging.Logger, index: int, handler: logging.Handler) -> None:
    """``handler`` on ``logger`` again, where it was among its handlers."""
    if handler not in logger.handlers:
        logger.handlers.insert(min(index, len(logger.handlers)), handler)


#: The command line's logging while a command runs in this process (None: not the command line).
_CURRENT: LibraryLogs | None = None


@contextmanager
def command_logs(verbose: bool = False) -> Iterator[LibraryLogs]:
    """The command line's logging for the length of one command, put back after it (so a program
    that runs the command in its process, click's CliRunner, keeps its own)."""
    global _CURRENT
    logs, outer = LibraryLogs(verbose), _CURRENT
    logs.install()
    _CURRENT = logs
    try:
        yield logs
    finally:
        _CURRENT = outer
        logs.uninstall()


def set_verbose(verbose: bool) -> None:
    """Show the libraries' records for the rest of the command (``pmparse -v``)."""
    if _CURRENT is not None:
        _CURRENT.verbose = verbose


def worker_setting() -> bool | None:
    """What a worker process of this command installs: verbose or not, None outside the command line."""
    return None if _CURRENT is None else _CURRENT.verbose


def install_in_worker(verbose: bool | None) -> None:
    """A worker's logging for its life, as the command that started it has it (None: left alone).

    The fork server starts workers from a fresh interpreter, which has none of the parent's logging.
    """
    if verbose is not None:
        LibraryLogs(verbose).install()
