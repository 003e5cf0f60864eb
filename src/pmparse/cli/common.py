"""What every command of the CLI shares: its exit codes and how a usage error ends it."""

from __future__ import annotations

import sys

import click

from pmparse.errors import PmparseError

EXIT_OK, EXIT_SOME_FAILED, EXIT_USAGE = 0, 1, 2
#: 128 + SIGINT, as shells report a command stopped by Ctrl-C.
EXIT_INTERRUPTED = 130


def fail_usage(error: PmparseError) -> None:
    """Print ``error`` on standard error and exit with :data:`EXIT_USAGE`."""
    click.echo(f"pmparse: {error}", err=True)
    sys.exit(EXIT_USAGE)
