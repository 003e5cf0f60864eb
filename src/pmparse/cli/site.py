"""``pmparse site`` and ``pmparse export``: the library published as a static site, or as rows."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from pmparse.cli.common import EXIT_OK, EXIT_SOME_FAILED
from pmparse.util import shown
from pmparse.cli.common import fail_usage as _fail_usage
from pmparse.errors import PmparseError


@click.command(name="site")
@click.argument("library", type=click.Path())
@click.option("-o", "--output", "out", required=True, type=click.Path(file_okay=False),
              help="Site folder: new, empty, or one pmparse site built before (updated in place).")
@click.option("--force", is_flag=True, help="Render every card page again, whatever the last build recorded.")
def site_command(library, out, force):
    """Write LIBRARY as a static web site: an index grouped by root cause, groupings, search, a page per card.

    The site works offline, from file:// or any static server; the same library gives the same
    bytes. A rebuild renders again only the cards whose record, pending suggestion or source
    changed, and writes only files whose bytes changed. Exit 1 when some records are invalid,
    each problem listed as 'pmparse validate' lists it (a record that cannot be read gets a page
    saying why; one whose evidence no longer says an item's words keeps its card page).
    """
    from pmparse.site.build import build_site

    try:
        report = build_site(library, out, force=force)
    except PmparseError as exc:
        _fail_usage(exc)
    for problem in report.invalid:
        click.echo(shown(f"invalid: {problem}", one_line=True), err=True)
    for rel in report.refused:
        click.echo(shown(f"warning: {out}: left alone, not a plain file inside the site: {rel}", one_line=True),
                   err=True)
    click.echo(shown(f"{report.cards} cards, {report.rendered} pages rendered; {len(report.written)} files written, "
               f"{report.unchanged} unchanged, {len(report.removed)} removed: {out}/index.html"))
    sys.exit(EXIT_SOME_FAILED if report.invalid else EXIT_OK)


@click.command(name="export")
@click.argument("library", type=click.Path())
@click.option("--format", "fmt", type=click.Choice(["jsonl", "csv"]), default="jsonl", show_default=True,
              help="JSON lines or CSV; one row per card, list fields joined (items by newline, tags by ';').")
@click.option("-o", "--output", default=None, type=click.Path(dir_okay=False),
              help="Write to this file (replaced atomically)  [default: standard output].")
def export_command(library, fmt, output):
    """Export every card of LIBRARY as one row, with its schema version. Exit 1 when records are invalid,
    each problem listed as 'pmparse validate' lists it (a record that cannot be read is left out; one
    whose evidence no longer says an item's words is exported, its words being sound)."""
    from pmparse.site.export import export_rows, format_rows
    from pmparse.util import atomic_write, write_errors

    try:
        rows, errors = export_rows(library)
        text = format_rows(rows, fmt)
        if output:
            with write_errors(output, "the export"):
                atomic_write(Path(output), text)
    except PmparseError as exc:
        _fail_usage(exc)
    if not output:
        # raw for a pipe or file; escaped on a terminal, where a record's control characters would act
        click.echo(shown(text) if sys.stdout.isatty() else text, nl=False)
    for error in errors:
        click.echo(shown(f"invalid: {error}", one_line=True), err=True)
    sys.exit(EXIT_SOME_FAILED if errors else EXIT_OK)
