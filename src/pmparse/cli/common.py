"""What every command of the CLI shares: its exit codes and how a usage error ends it."""

from __future__ import annotations

import sys

import click

from pmparse.errors import PmparseError, WriteError
from pmparse.util import CONTROL_CHARACTERS

EXIT_OK, EXIT_SOME_FAILED, EXIT_USAGE = 0, 1, 2
#: 128 + SIGINT, as shells report a command stopped by Ctrl-C.
EXIT_INTERRUPTED = 130


def shown(text: object) -> str:
    """``text`` as it may reach a terminal: every control character written as an escape (``\\x1b``).

    The one place terminal output is made safe: source text, titles and file names come from
    pages and folders of other people, and a page must not be able to hide or fake what the
    reviewer is accepting. Records keep the text; only what is printed is escaped.
    """
    return CONTROL_CHARACTERS.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100
                        else f"\\u{ord(m.group()):04x}", str(text))


def fail_usage(error: PmparseError) -> None:
    """Print ``error`` on standard error and exit with :data:`EXIT_USAGE`, or :data:`EXIT_SOME_FAILED`
    for a file that could not be written (a full disk is no usage error)."""
    click.echo(f"pmparse: {shown(error)}", err=True)
    sys.exit(EXIT_SOME_FAILED if isinstance(error, WriteError) else EXIT_USAGE)
