"""Write docs/cli.md from the click commands, so the reference cannot drift from the code.

    python docs/cli_reference.py          # rewrite docs/cli.md
    python docs/cli_reference.py --check  # exit 1 when docs/cli.md is out of date
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from pmparse.cli import main

OUT = Path(__file__).resolve().parent / "cli.md"
HEAD = """# CLI reference

Generated from the click commands by `python docs/cli_reference.py`; do not edit by hand.

Exit codes of every command: 0 ok, 1 some inputs failed, a floor was missed or differences were
found, 2 usage error (a file that cannot be written, as on a full disk: 1); `convert` also exits
128 + the signal when stopped by Ctrl-C (130), SIGTERM (143) or SIGHUP (129): every record written
is complete, run it again to continue; `review` the same (every decision made is kept).
"""


def reference() -> str:
    """The markdown reference of ``pmparse`` and each of its commands."""
    parts = [HEAD]
    # the group's context settings (its help options: -h too) as a run of pmparse applies them, and
    # each command's context under it, as ``pmparse COMMAND --help`` makes it
    context = click.Context(main, info_name="pmparse", terminal_width=100, max_content_width=100,
                            **main.context_settings)
    parts.append(f"## pmparse\n\n```\n{main.get_help(context)}\n```\n")
    for name in sorted(main.list_commands(context)):
        command = main.get_command(context, name)
        sub = click.Context(command, info_name=name, parent=context, **command.context_settings)
        parts.append(f"## pmparse {name}\n\n```\n{command.get_help(sub)}\n```\n")
    return "\n".join(parts)


if __name__ == "__main__":
    text = reference()
    if "--check" in sys.argv[1:]:
        current = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
        sys.exit(0 if current == text else 1)
    OUT.write_text(text, encoding="utf-8")
