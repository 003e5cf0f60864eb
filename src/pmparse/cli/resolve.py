"""``pmparse resolve``: records two curators gave one id, kept apart after a git merge."""

from __future__ import annotations

import sys

import click

from pmparse.cli.common import EXIT_OK, EXIT_SOME_FAILED, EXIT_USAGE
from pmparse.cli.common import fail_usage as _fail_usage
from pmparse.errors import PmparseError
from pmparse.util import shown


@click.command(name="resolve")
@click.argument("library", type=click.Path())
def resolve_command(library):
    """Settle what a git merge left in LIBRARY when two curators gave their new records one id.

    For each record holding git's conflict markers whose two sides are records of different
    sources, the first side (ours) keeps the id and the other becomes a new record under the next
    free id, each with its own base, pending suggestion, rejections and draft decisions; so too for
    an id kept as IL-0017.yaml on one side and IL-0017.json on the other (ours keeps it, else the
    file pmparse reads). Two sides of one source are a real edit conflict: left for a person (exit
    1). A rejection memory or draft decisions both sides added to under a record without markers
    keep every decision (a draft whose every field is then decided is marked reviewed); a draft
    field decided differently or edited on both sides, a draft's decisions its record reviewed on
    the other side does not follow, a record deleted on one side and edited on the other, the
    library's model (.pmparse/model/) and its anchor are named with what to do (exit 1); decisions a reviewed record all follows are the finished draft's
    leftover and are removed (unless the merge's side that finished the draft held one of their
    fields otherwise, which git merged silently: named, exit 1). Markers or sides that cannot be read, and a merged state file
    larger than pmparse reads back, are left as they are (exit 2).
    """
    from pmparse.merge.resolve import resolve_library

    try:
        report = resolve_library(library)
    except PmparseError as exc:
        _fail_usage(exc)
    for resolution in report.records:
        if resolution.outcome == "refused":
            click.echo(shown(f"error: {resolution.message}", one_line=True), err=True)
        else:
            click.echo(shown(resolution.message, one_line=True))
    for line in report.merged:
        click.echo(shown(line, one_line=True))
    for name in report.unsettled:
        click.echo(shown(f"note: {name} holds conflict markers but its record does not: keep one side of each "
                         "conflict, or both edits, by hand", one_line=True), err=True)
    for note in report.notes:
        click.echo(shown(f"note: {note}", one_line=True), err=True)
    split = sum(r.outcome == "split" for r in report.records)
    if not report.records and not report.unsettled and not report.merged and not report.notes:
        click.echo("no record holds conflict markers", err=True)
    else:
        # a file named in a note is as much a person's to settle as a record left: exit 1 says so
        left = len(report.records) - split + len(report.unsettled) + len(report.notes)
        click.echo(f"{split} split, {left} left for a person", err=True)
    if any(r.outcome == "refused" for r in report.records):
        sys.exit(EXIT_USAGE)
    left = split < len(report.records) or report.unsettled or report.notes
    sys.exit(EXIT_SOME_FAILED if left else EXIT_OK)
