"""Stop signals while the ``pmparse`` command starts: noted, not raised, until the command runs
(then it exits with its code, 130 for Ctrl-C, without a traceback).

A Ctrl-C that landed while ``pmparse.cli`` and click were being imported (before any handler of
the command was in place) printed a ``KeyboardInterrupt`` traceback and the process died of
SIGINT. This module imports nothing but :mod:`signal`, so the console script and ``python -m pmparse``
(:mod:`pmparse._entry`) are in charge from their first lines; the command hands the
signals back (:func:`hand_over`) when its group starts the command, whose own handling of Ctrl-C
(a summary, exit 130) then applies.
"""

import signal

#: Ctrl-C, ``kill`` and a closed terminal, the signals the command turns into exit 128 + the number.
_NAMES = ("SIGINT", "SIGTERM", "SIGHUP")
#: The dispositions :func:`hold` replaced, put back by :func:`hand_over`.
_held: dict = {}
#: The first stop signal that arrived while held, or None.
_noted: list = []


def _note(signum, frame) -> None:
    _noted.append(signum)


def hold() -> None:
    """Note the stop signals instead of acting on them, until :func:`hand_over`.

    Only a signal left to its default (Python's ``KeyboardInterrupt`` for Ctrl-C) is held: one
    the caller chose to ignore (a background job's SIGINT, ``nohup``'s SIGHUP) stays ignored.
    """
    for name in _NAMES:
        signum = getattr(signal, name, None)
        if signum is None or signum in _held:
            continue
        current = signal.getsignal(signum)
        if current is signal.default_int_handler or current is signal.SIG_DFL:
            _held[signum] = current
            signal.signal(signum, _note)


def hand_over() -> int | None:
    """Put back the dispositions :func:`hold` replaced (the command's own handlers then take over).

    Returns:
        The stop signal that arrived while they were held, or None (and None when nothing was
        held: the command run inside another program, click's CliRunner).
    """
    for signum, previous in _held.items():
        signal.signal(signum, previous)
    _held.clear()
    noted = _noted[0] if _noted else None
    _noted.clear()  # answered once: a command run inside the command is not stopped by it again
    return noted
