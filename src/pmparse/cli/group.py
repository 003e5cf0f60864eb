"""How a ``pmparse`` command starts and ends: the group that shows whole help lines, runs each
command with the libraries' log lines escaped (:mod:`pmparse.logs`), and turns a stop signal into
the documented exit code however late it comes, up to the interpreter's teardown."""

from __future__ import annotations

import sys
from typing import Callable

import click

from pmparse.cli.common import EXIT_INTERRUPTED

#: Whether this process is the `pmparse` command itself (:func:`quiet_teardown` registered).
_TEARDOWN_QUIET = False
#: The exit code a stop signal made the command choose (128 + its number), kept for the teardown.
_STOPPED_WITH: int | None = None


def quiet_teardown() -> None:
    """Ignore Ctrl-C, SIGTERM and SIGHUP once the interpreter ends, after the command chose its exit code.

    While Python tears itself down it puts the default disposition back, so a Ctrl-C in that
    window (a review that has just written its last record and printed its summary) killed the
    process: exit -2, no code of ours. An ignored signal stays ignored through the teardown.
    A command a stop signal ended then leaves at once with the code it chose: under ``python -m``
    CPython kills itself with SIGINT after the teardown when a KeyboardInterrupt once left code run
    by ``exec`` (a dataclass or named tuple being made while a module imports; 3 Ctrl-Cs in 40 at
    a batch's start-up), whatever the command made of that interrupt. The exit handlers registered
    after this one (multiprocessing's, the temporary folders') have run by then.
    Registered only by :func:`run_as_command`, the ``pmparse`` command's own entry point: a program
    that calls the command in its process (click's CliRunner, ``main(standalone_mode=False)``) keeps
    its own signal handling in its own exit handlers and the children they start.
    """
    global _TEARDOWN_QUIET
    if _TEARDOWN_QUIET:
        return
    import atexit
    import os
    import signal

    from pmparse.interrupts import STOP_SIGNALS

    def ignore() -> None:
        for signum in STOP_SIGNALS:
            signal.signal(signum, signal.SIG_IGN)
        if _STOPPED_WITH is not None:
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except (OSError, ValueError):  # a closed pipe or stream: nothing more can be said
                    pass
            os._exit(_STOPPED_WITH)

    atexit.register(ignore)
    _TEARDOWN_QUIET = True


def stopped_with(code: object) -> int | None:
    """``code`` when it is the exit code of a stop signal (128 + the signal's number), else None."""
    from pmparse.interrupts import STOP_SIGNALS

    return code if isinstance(code, int) and code - 128 in STOP_SIGNALS else None


class WholeHelpGroup(click.Group):
    """A group whose command list shows each command's whole first sentence, wrapped, where
    click cuts it to the width left beside the longest command name, and whose commands run with
    the libraries' log records escaped and held back unless ``-v`` (:mod:`pmparse.logs`)."""

    def main(self, *args, **kwargs):
        from pmparse.interrupts import Interrupts
        from pmparse.logs import command_logs

        # held once the command has chosen its exit code (see invoke); a run inside a command (click's
        # CliRunner in it) puts back the outer run's, which its command's end still needs
        outer = getattr(self, "_ending", None)
        self._ending = ending = Interrupts()
        try:
            with command_logs():
                return super().main(*args, **kwargs)
        except SystemExit:
            from pmparse.startup import hand_over

            # the command line ended before a command started (--help, --version, a usage error),
            # where invoke hands the entry's held signals over: one noted meanwhile is this run's
            held = hand_over()
            if held is not None:
                click.echo("interrupted", err=True)
                sys.exit(128 + held)
            if ending.pending:
                # Ctrl-C after the command's summary, while click wound down its contexts: it
                # said 'Aborted!' and exited 1, the code of failed inputs; now the documented 130
                click.echo("interrupted", err=True)
                sys.exit(128 + ending.signum if ending.signum else EXIT_INTERRUPTED)
            raise
        finally:
            self._ending = outer
            if not _TEARDOWN_QUIET:
                # the pmparse command itself (run) keeps them held until its teardown ignores
                # them: nothing of its own is left to do once main returns
                ending.__exit__(None, None, None)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, command.get_short_help_str(limit=10_000)) for name in self.list_commands(ctx)
                if (command := self.get_command(ctx, name)) is not None and not command.hidden]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def invoke(self, ctx: click.Context):
        from pmparse.startup import hand_over

        try:
            # the entry (pmparse._entry) held the stop signals while the command line imported:
            # one that came then ends the command before it starts, one from now on is its own
            held = hand_over()
            if held is not None:
                click.echo("interrupted", err=True)
                sys.exit(128 + held)
            return super().invoke(ctx)
        except KeyboardInterrupt:
            # Ctrl-C before a command's own handling of it is in place (while it imports its
            # pipeline): the documented 130, where click would say 'Aborted!' and exit 1, the code
            # of failed inputs
            click.echo("interrupted", err=True)
            sys.exit(EXIT_INTERRUPTED)
        except RuntimeError as exc:
            # the same Ctrl-C landing in a class's __set_name__ (a cached_property of a module the
            # command imports): Python 3.11 wraps it in a RuntimeError
            if not isinstance(exc.__cause__, KeyboardInterrupt):
                raise
            click.echo("interrupted", err=True)
            sys.exit(EXIT_INTERRUPTED)
        finally:
            ending = getattr(self, "_ending", None)
            if ending is not None:
                # the command has chosen its exit code (and printed its summary): a stop signal from
                # here until main returns is noted, not raised inside click's own teardown
                ending.hold()


def run_as_command(command: Callable[[], None]) -> None:
    """Run ``command`` (the click group) as the ``pmparse`` process: the stop signals ignored in
    its teardown (:func:`quiet_teardown`), and the code a stop signal chose kept to the end."""
    global _STOPPED_WITH
    quiet_teardown()
    try:
        command()
    except SystemExit as exc:
        _STOPPED_WITH = stopped_with(exc.code)
        raise
