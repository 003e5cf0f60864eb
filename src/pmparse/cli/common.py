"""What every command of the CLI shares: its exit codes and how a usage error ends it."""

from __future__ import annotations

import sys

import click

from pmparse.errors import PmparseError, WriteError
from pmparse.util import shown

EXIT_OK, EXIT_SOME_FAILED, EXIT_USAGE = 0, 1, 2
#: 128 + SIGINT, as shells report a command stopped by Ctrl-C.
EXIT_INTERRUPTED = 130


def warn(message: str) -> None:
    """Print ``message`` as one ``warning:`` line on standard error (:func:`shown`, one line)."""
    click.echo(f"warning: {shown(message, one_line=True)}", err=True)


def fail_usage(error: PmparseError) -> None:
    """Print ``error`` on standard error and exit with :data:`EXIT_USAGE`, or :data:`EXIT_SOME_FAILED`
    for a file that could not be written (a full disk is no usage error)."""
    click.echo(f"pmparse: {shown(error)}", err=True)
    sys.exit(EXIT_SOME_FAILED if isinstance(error, WriteError) else EXIT_USAGE)
