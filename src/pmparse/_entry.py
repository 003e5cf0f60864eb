"""The ``pmparse`` process's first code (the console script's, ``python -m pmparse``'s): the stop
signals are held (:mod:`pmparse.startup`) before the command line, click and every command, is
imported; a Ctrl-C then printed a ``KeyboardInterrupt`` traceback and the process died of SIGINT."""

from pmparse.startup import hold


def main() -> None:
    """The ``pmparse`` command (its console script, ``python -m pmparse``, ``python -m pmparse.cli``)."""
    hold()  # before anything else: the group hands the signals over as the command starts
    from pmparse.cli import run  # click and every command: seconds on a loaded machine

    run()
