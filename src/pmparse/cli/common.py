"""What every command of the CLI shares: its exit codes and how a usage error ends it."""

from __future__ import annotations

import re
import sys

import click

from pmparse.errors import PmparseError, WriteError
from pmparse.util import CONTROL_CHARACTERS

#: The control characters, line breaks and tabs included (a one-line message's).
LINE_CONTROL_CHARACTERS = re.compile(f"[\t\n{CONTROL_CHARACTERS.pattern[1:-1]}]")

EXIT_OK, EXIT_SOME_FAILED, EXIT_USAGE = 0, 1, 2
#: 128 + SIGINT, as shells report a command stopped by Ctrl-C.
EXIT_INTERRUPTED = 130


def shown(text: object, one_line: bool = False) -> str:
    """``text`` as it may reach a terminal: every control character written as an escape (``\\x1b``).

    The one place terminal output is made safe: source text, titles and file names come from
    pages and folders of other people, and a page must not be able to hide or fake what the
    reviewer is accepting. Records keep the text; only what is printed is escaped.

    Args:
        text: What is printed.
        one_line: Escape line breaks and tabs too (``\\x0a``): for a message that is one line by
            design (a failure, a warning, a problem), where a file name or a record's value
            holding a line break would otherwise print a line of its own choosing.
    """
    pattern = LINE_CONTROL_CHARACTERS if one_line else CONTROL_CHARACTERS
    return pattern.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100
                       else f"\\u{ord(m.group()):04x}", str(text))


def warn(message: str) -> None:
    """Print ``message`` as one ``warning:`` line on standard error (:func:`shown`, one line)."""
    click.echo(f"warning: {shown(message, one_line=True)}", err=True)


def fail_usage(error: PmparseError) -> None:
    """Print ``error`` on standard error and exit with :data:`EXIT_USAGE`, or :data:`EXIT_SOME_FAILED`
    for a file that could not be written (a full disk is no usage error)."""
    click.echo(f"pmparse: {shown(error)}", err=True)
    sys.exit(EXIT_SOME_FAILED if isinstance(error, WriteError) else EXIT_USAGE)
