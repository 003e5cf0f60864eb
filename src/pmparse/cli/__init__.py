"""The ``pmparse`` command line: parses arguments, calls one library function, formats its result.

Exit codes: 0 ok, 1 some inputs failed or differences found, 2 usage error, 130 interrupted by
Ctrl-C, 143 by SIGTERM, 129 by SIGHUP (``convert``: the records written so far are complete; run
the command again to continue; ``review``: every decision made so far is kept).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from pmparse import __version__
from pmparse.cli.common import EXIT_INTERRUPTED, EXIT_OK, EXIT_SOME_FAILED
from pmparse.cli.common import fail_usage as _fail_usage
from pmparse.cli.common import warn as _warn
from pmparse.cli.group import WholeHelpGroup, run_as_command
from pmparse.cli.resolve import resolve_command
from pmparse.cli.site import export_command, site_command
from pmparse.errors import PmparseError, UsageError
from pmparse.util import MAX_BYTES_LIMIT, shown


@click.group(cls=WholeHelpGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="pmparse")
@click.option("-v", "--verbose", is_flag=True,
              help="Also show the messages of the libraries that read PDF and HTML (pdfminer, trafilatura), "
                   "escaped; without it only pmparse's own lines, which name the input.")
def main(verbose) -> None:
    """Turn incident postmortems into structured, evidence-backed library cards."""
    from pmparse.logs import set_verbose

    set_verbose(verbose)


@main.command()
@click.argument("inputs", nargs=-1, required=True)
@click.option("-o", "--output", "library", required=True, type=click.Path(file_okay=False),
              help="Library folder for the records (created when missing; a folder holding other files and no "
                   ".pmparse/ is refused, and one made for inputs that all fail is removed again).")
@click.option("--format", "fmt", type=click.Choice(["yaml", "json"]), default="yaml", show_default=True,
              help="Format of new records.")
@click.option("--max-bytes", type=click.IntRange(min=1, max=MAX_BYTES_LIMIT), default=None,
              help=f"Largest input accepted, in bytes, at most {MAX_BYTES_LIMIT >> 20} MiB ({MAX_BYTES_LIMIT})  "
                   "[default: 20 MiB].")
@click.option("--model", "model_dir", type=click.Path(file_okay=False), default=None,
              help="Field model folder  [default: the bundled model].")
@click.option("--rules-only", is_flag=True, help="Use heading rules only, no field model.")
@click.option("--base-model", is_flag=True,
              help="Use the bundled field model even where the library has its own (pmparse train --library).")
@click.option("--taxonomy", "taxonomy_path", type=click.Path(dir_okay=False, exists=True), default=None,
              help="A taxonomy YAML that extends or replaces the packaged one.")
@click.option("--force", is_flag=True, help="Rewrite suggestions even when the source did not change.")
@click.option("--errors", "errors_path", type=click.Path(dir_okay=False), default=None,
              help="Write failures as JSON lines (input, error type, message) to this file (replaced atomically).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Worker processes (even 1 analyses outside the main process, so --timeout always holds)  "
                   "[default: all cores].")
@click.option("--progress/--no-progress", default=None, help="Progress bar  [default: on a terminal].")
@click.option("--url-base", default=None, metavar="URL",
              help="Where the inputs are published: records cite URL + the file's path under its folder "
                   "(also evidence of the organisation).")
@click.option("--organisation", default=None, metavar="NAME",
              help="The publisher of every report of this batch. Without it, a .pmparse.yaml file with "
                   "'organisation: NAME' in a report's folder (or above) names it, then the publisher the "
                   "library's reviewed cards of that folder name, and a publisher most of a folder's earlier "
                   "cards name is offered to its later cards that name none (lower confidence, with a warning).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None, metavar="SECONDS",
              help="Longest the analysis of one input may take; it then fails as 'timeout'  [default: 600].")
@click.option("--exclude", "exclude", multiple=True, metavar="GLOB",
              help="Do not convert files matching GLOB (path, path under the folder, or file name); repeatable.")
@click.option("--all-files", is_flag=True,
              help="Convert templates, READMEs and index pages too (skipped as not incident reports by default).")
@click.option("--fetch-timeout", type=click.FloatRange(min=0, min_open=True), default=None, metavar="SECONDS",
              help="Longest wait for a URL's server to answer (connect: 10 s, whole download: 120 s)  [default: 30].")
def convert(inputs, library, fmt, max_bytes, model_dir, rules_only, base_model, taxonomy_path, force, errors_path, jobs,
            progress, url_base, organisation, timeout, exclude, all_files, fetch_timeout):
    """Convert postmortems (files, folders, globs, http(s) URLs, or - for stdin) into draft records.

    Sources whose record is up to date are skipped (run the same command again to continue an
    interrupted batch; --force converts them again). Ctrl-C stops cleanly: every record written
    is complete, the summary is printed and the exit code is 130. A library with its own field
    model (pmparse train --library) is converted with it unless --model or --base-model says otherwise.
    """
    from pmparse.batch.convert import convert as run
    from pmparse.batch.inputs import expand_inputs
    from pmparse.batch.pool import DEFAULT_TIMEOUT
    from pmparse.util import available_cores
    from pmparse.ingest.fetch import FetchSettings
    from pmparse.ingest.read import DEFAULT_MAX_BYTES
    from pmparse.nlp.pipeline import pipeline_config

    try:
        config = pipeline_config(model_dir=model_dir, rules_only=rules_only, taxonomy_path=taxonomy_path,
                                 warn=_warn,
                                 library_dir=library, base_model=base_model)
    except PmparseError as exc:
        _fail_usage(exc)
    if model_dir is None and config.model_dir and Path(config.model_dir).parent.parent == Path(library):
        click.echo(shown(f"using the library's own field model ({config.model_dir}); --base-model ignores it",
                         one_line=True), err=True)
    show = sys.stderr.isatty() if progress is None else progress
    bar = None
    missed: list[str] = []  # records up to date that name another publisher than --organisation

    def on_result(result) -> None:
        if organisation and not force and result.status == "unchanged" and result.record:
            # an up-to-date source is not converted again: the option reached none of them, silently
            from pmparse.library.store import Library

            try:
                named = Library.read(Path(result.record)).organisation
            except PmparseError:
                named = None
            if named != organisation.strip():
                missed.append(result.record)
        # results are printed as they come: the report keeps only counts, so memory stays flat
        if bar is not None and sys.stderr.isatty() and (
                result.warnings or result.status in ("failed", "skipped")):
            # the bar's line has no line break: a message ran on from its end ("... 41/44
            # 00:00:03skipped: ..."); the line is cleared first and the bar drawn again below
            sys.stderr.write("\r\x1b[K")
        for warning in result.warnings:
            click.echo(shown(f"warning: {result.input}: {warning}", one_line=True), err=True)
        if result.status == "failed":
            click.echo(shown(f"failed: {result.input}: {result.message}", one_line=True), err=True)
        elif result.status == "skipped":
            click.echo(shown(f"skipped: {result.input}: {result.message}", one_line=True), err=True)
        if bar is not None:
            bar.update(1)

    options = dict(fmt=fmt, max_bytes=max_bytes or DEFAULT_MAX_BYTES, config=config, force=force,
                   stdin=sys.stdin.buffer, on_result=on_result, jobs=jobs or available_cores(),
                   errors_path=errors_path, keep_results=False, url_base=url_base,
                   timeout=timeout or DEFAULT_TIMEOUT, exclude=exclude, all_files=all_files,
                   fetch=FetchSettings(read_timeout=fetch_timeout) if fetch_timeout else None, isolate=True,
                   organisation=organisation)
    try:
        if show:
            # a counting pass over folders and globs, so the bar knows its length
            total = sum(1 for _ in expand_inputs(inputs))
            with click.progressbar(length=total, label="converting", file=sys.stderr, show_pos=True) as bar:
                report = run(inputs, library, **options)
        else:
            report = run(inputs, library, **options)
    except PmparseError as exc:
        _fail_usage(exc)
    counts = report.counts
    # the skipped count only when there is one: the summary of a batch of reports stays as it was
    skipped = f"{counts['skipped']} skipped, " if counts["skipped"] else ""
    click.echo(
        f"{counts['converted']} converted, {counts['updated']} updated, {counts['unchanged']} unchanged, "
        f"{counts['pending']} pending review, {skipped}{counts['failed']} failed"
    )
    if missed:
        click.echo(shown(f"note: {len(missed)} record(s) already up to date name another publisher than "
                         f"--organisation and were left as they are (add --force to give it to them): "
                         f"{', '.join(Path(m).name for m in missed[:5])}{' ...' if len(missed) > 5 else ''}",
                         one_line=True), err=True)
    if report.gone:
        # a record is never removed for its file: the curator decides, so they are told which
        shown_gone = ", ".join(f"{card_id} ({location})" for card_id, location in report.gone[:5])
        click.echo(shown(f"note: {len(report.gone)} record(s) whose source is gone from the folders converted "
                         f"(deleted, renamed and edited with no one file to take for it, or an entry its file no longer "
                         f"holds: such a source gets a new record) are kept as they are; "
                         f"move the file back, or delete the record: {shown_gone}"
                         f"{' ...' if len(report.gone) > 5 else ''}", one_line=True), err=True)
    if report.interrupted:
        click.echo(f"interrupted after {report.done} inputs: every record written is complete; "
                   "run the same command again to continue", err=True)
        # 128 + the signal, as a shell reports a command a signal stopped (130 for Ctrl-C)
        sys.exit(128 + report.signal if report.signal else EXIT_INTERRUPTED)
    sys.exit(EXIT_SOME_FAILED if counts["failed"] else EXIT_OK)


@main.command()
@click.argument("library", type=click.Path())
def validate(library):
    """Check every record of LIBRARY; print 'file:line: field: reason' for each problem (the line where known)."""
    from pmparse.library.validate import validate_library

    try:
        checked, problems = validate_library(library,
                                             warn=_warn)
    except PmparseError as exc:
        _fail_usage(exc)
    for problem in problems:
        click.echo(shown(problem, one_line=True))
    bad = len({p.file for p in problems})
    click.echo(f"{checked} records checked, {bad} invalid", err=True)
    sys.exit(EXIT_SOME_FAILED if problems else EXIT_OK)


@main.command(name="eval")
@click.option("--gold", "gold_files", multiple=True, type=click.Path(dir_okay=False, exists=True),
              help="Gold JSONL files  [default: eval/gold/*.jsonl].")
@click.option("--corpus", default=None, type=click.Path(file_okay=False),
              help="Corpus root  [default: $PMPARSE_CORPUS or ../shared/corpus].")
@click.option("--model", "model_dir", default=None, type=click.Path(file_okay=False),
              help="Field model folder  [default: the bundled model].")
@click.option("--rules-only", is_flag=True, help="Evaluate the pipeline without the field model.")
@click.option("--variant", "variants", multiple=True, type=click.Choice(["headed", "stripped"]),
              help="Gold variants to score  [default: both].")
@click.option("--report", "report_path", default=None, type=click.Path(dir_okay=False), help="Write the full report as JSON.")
@click.option("--plot", "plot_path", default=None, type=click.Path(dir_okay=False), help="Write a per-field F1 bar chart (PNG).")
@click.option("--rounds", default=1000, show_default=True, type=click.IntRange(min=10), help="Bootstrap rounds.")
@click.option("--agreement", is_flag=True, help="Report inter-annotator agreement of the second pass instead "
              "(--gold: another second pass, scored against the first-pass documents of the same ids).")
@click.option("--check-floors", is_flag=True, help="Exit 1 when a field falls below its floor in eval/baseline.json.")
@click.option("--update-floors", is_flag=True, help="Set eval/baseline.json floors to the current figures.")
@click.option("--allow-lower", is_flag=True, help="With --update-floors: allow floors to go down.")
def eval_command(gold_files, corpus, model_dir, rules_only, variants, report_path, plot_path, rounds, agreement,
                 check_floors, update_floors, allow_lower):
    """Measure extraction accuracy against the gold eval set (pipeline and two baselines)."""
    from pmparse.cli.evaluate import agreement_text, eval_text

    if gold_files and (check_floors or update_floors) and not agreement:
        # the floors are figures of the whole gold set: one file's figures checked against them
        # said nothing, and --update-floors wrote them over the project's
        _fail_usage(UsageError("expected the whole gold set for --check-floors and --update-floors, found --gold "
                               "(the floors in eval/baseline.json are figures of all its documents)"))
    try:
        if agreement:
            output, code = agreement_text(corpus, [Path(g) for g in gold_files] or None)
        else:
            from pmparse.nlp.pipeline import pipeline_config

            config = pipeline_config(model_dir=model_dir, rules_only=rules_only,
                                     warn=_warn)
            output, code = eval_text(
                [Path(g) for g in gold_files] or None, corpus, config.model_dir, list(variants) or ["headed", "stripped"],
                rounds, report_path, plot_path, check_floors, update_floors, allow_lower,
                progress=lambda message: click.echo(shown(f"eval: {message}", one_line=True), err=True))
    except PmparseError as exc:
        _fail_usage(exc)
    click.echo(shown(output))
    sys.exit(code)


@main.command(name="diff")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="Unified-diff style text, or JSON for tools.")
@click.option("--patch", is_flag=True,
              help="Print a patch taking every suggested change, for 'git apply' (paths from the top of the git "
                   "work tree holding the records, else from the records' folder).")
@click.option("--color/--no-color", default=None, help="Colour the text  [default: on a terminal].")
def diff_command(paths, fmt, patch, color):
    """Show what a suggestion would change, field by field.

    PATHS is a library folder (every pending suggestion against its record) or two record files
    A B (B read as a suggestion for A). Exit 1 when there are differences, 0 when none.
    """
    from pmparse.cli.render import nothing_pending, render_json, render_patch, render_text
    from pmparse.review.pending import diff_paths

    if patch and fmt == "json":
        _fail_usage(UsageError("expected --patch or --format json, found both"))
    try:
        report = diff_paths(paths)
    except PmparseError as exc:
        _fail_usage(exc)
    color = sys.stdout.isatty() if color is None else color
    if patch:
        # raw for git apply; escaped when it reaches a terminal, where its lines are read, not applied
        text = render_patch(report)
        click.echo(shown(text) if sys.stdout.isatty() else text, nl=False)
    elif fmt == "json":
        click.echo(render_json(report), nl=False)
    else:
        click.echo(render_text(report, color=color), nl=False, color=color)
        if not report.has_changes and not report.errors:
            click.echo(nothing_pending(report, library=len(paths) == 1))
    for error in report.errors:
        click.echo(shown(f"failed: {error}", one_line=True), err=True)
    sys.exit(EXIT_SOME_FAILED if report.has_changes or report.errors else EXIT_OK)


@main.command()
@click.argument("library", type=click.Path())
@click.option("--accept", "accept", multiple=True, metavar="FIELD",
              help="Accept this field's suggestion in every pending record (repeat, or comma-separate).")
@click.option("--reject", "reject", multiple=True, metavar="FIELD",
              help="Reject this field's suggestion (remembered for the same source and model).")
@click.option("--items", "items", multiple=True, metavar="FIELD:N[,N...]",
              help="Decide a list field item by item: take its item changes numbered N (as 'diff --format json' "
                   "numbers them), refuse the others (repeatable).")
@click.option("--accept-all", is_flag=True, help="Accept every suggested field not rejected.")
@click.option("--record", "records", multiple=True, metavar="ID", help="Only this record (repeatable).")
@click.option("--reviewer", default=None, help="Who reviews  [default: $USER, else the account name].")
@click.option("--color/--no-color", default=None, help="Colour the hunks  [default: on a terminal].")
@click.option("--order", type=click.Choice(["record", "uncertain"]), default="record", show_default=True,
              help="Record by record, or the least certain suggestions first, across records (what a review "
                   "teaches pmparse train --library most).")
@click.option("--drafts", is_flag=True,
              help="Review the drafts instead (records convert wrote that nobody touched): each field they "
                   "suggest, against nothing; y keeps it, n drops it (not proposed again). A draft is marked "
                   "reviewed once every field is decided.")
def review(library, accept, reject, items, accept_all, records, reviewer, color, order, drafts):
    """Review pending suggestions field by field, like 'git add -p'.

    Without --accept, --reject, --items or --accept-all, asks for each changed field: y accept,
    n reject, e edit in $EDITOR, i item by item (a list field adding or dropping several items:
    y or n for each, q leaves the field pending), s skip, q quit. Every decision is written at once.
    With --drafts the same questions walk the drafts: y keeps a field as the person's decision, n
    empties it and remembers the refusal, s leaves it a draft field.
    """
    from pmparse.cli.prompter import Prompter
    from pmparse.interrupts import Interrupts
    from pmparse.review.session import review as run

    interactive = not (accept or reject or items or accept_all)
    ask = Prompter(color=sys.stdout.isatty() if color is None else color) if interactive else None
    try:
        # SIGTERM and SIGHUP end a review as Ctrl-C does: the decisions made are kept, the summary shown
        with Interrupts() as interrupts:
            report = run(library, accept=accept, reject=reject, accept_all=accept_all, reviewer=reviewer,
                         records=records, ask=ask, order=order, items=items, drafts=drafts)
    except PmparseError as exc:
        _fail_usage(exc)
    if not interactive:
        for outcome in report.outcomes:
            taken = f" {','.join(map(str, sorted(outcome.items)))}" if outcome.action == "items" else ""
            click.echo(shown(f"{outcome.id}: {outcome.field}: {outcome.action}{taken}", one_line=True))
    for error in report.errors:
        click.echo(shown(f"failed: {error}", one_line=True), err=True)
    if not (report.outcomes or report.still_pending or report.errors or report.interrupted or records or drafts):
        _say_how_drafts_are_reviewed(library)
    click.echo(
        f"{report.count('accept') + report.count('edit')} accepted ({report.count('edit')} edited), "
        f"{report.count('reject')} rejected, "
        + (f"{report.count('items')} decided item by item, " if report.count("items") else "")
        + f"{report.count('skip')} skipped"
        + (f", {report.count('settled')} settled by the move to the new text" if report.count("settled") else "")
        + "; "
        + (f"{len(report.still_pending)} draft(s) with fields still open" if drafts
           else f"{len(report.still_pending)} record(s) still pending"), err=True)
    if report.interrupted:
        click.echo("interrupted: every decision made so far is kept; run the same command again to go on", err=True)
        sys.exit(128 + interrupts.signum if interrupts.signum else EXIT_INTERRUPTED)
    sys.exit(EXIT_SOME_FAILED if report.errors else EXIT_OK)


def _say_how_drafts_are_reviewed(library: str) -> None:
    """After a review that had nothing to ask: how the library's drafts are reviewed, if it has any.

    A curator's first ``review`` after ``convert`` asked nothing and said "0 accepted": review
    asks only about new suggestions for records a person reviewed or edited, which a fresh
    library has none of.
    """
    import shlex

    from pmparse.library.store import Library

    try:
        drafts = sum(1 for entry in Library.open(library).entries.values() if entry.status == "suggested")
    except PmparseError:
        return
    if drafts:
        # the folder as typed, quoted so the command can be copied, escaped as all printed text
        click.echo(shown(f"nothing pending: review asks about what convert suggests anew for records a person "
                         f"reviewed or edited; {drafts} record(s) here are drafts (status: suggested): review them "
                         f"field by field with `pmparse review {shlex.quote(str(library))} --drafts` (or correct "
                         "one in its file and set `status: reviewed`), and convert leaves them to you from then on",
                         one_line=True), err=True)


@main.command(name="train-categories")
@click.option("--corpus", default=None, type=click.Path(file_okay=False),
              help="Corpus root  [default: $PMPARSE_CORPUS or ../shared/corpus].")
@click.option("--gold", "gold_files", multiple=True, type=click.Path(dir_okay=False, exists=True),
              help="Gold JSONL files  [default: eval/gold/*.jsonl without the second pass].")
@click.option("-o", "--output", default=None, type=click.Path(file_okay=False),
              help="Model folder  [default: src/pmparse/models/categories].")
@click.option("--taxonomy", "taxonomy_path", type=click.Path(dir_okay=False, exists=True), default=None,
              help="A taxonomy YAML that extends or replaces the packaged one.")
@click.option("--labels", "label_files", multiple=True, type=click.Path(dir_okay=False, exists=True),
              help="Team category label files  [default: corpus/category_labels/*.jsonl].")
@click.option("--component-labels", "component_label_files", multiple=True,
              type=click.Path(dir_okay=False, exists=True),
              help="Team component label files  [default: corpus/component_labels/*.jsonl].")
@click.option("--seed", default=0, show_default=True, type=int, help="Seed of the cross-validation folds.")
@click.option("--no-eval", is_flag=True, help="Only train and save; skip the cross-validation.")
@click.option("--agreement", "second_pass", default=None, type=click.Path(dir_okay=False, exists=True),
              help="Instead of training: how a second, independent pass of labels (FILE) agrees with the team labels.")
@click.option("--component-agreement", "component_second_pass", default=None,
              type=click.Path(dir_okay=False, exists=True),
              help="Instead of training: how a second pass of component labels (FILE) agrees with the team's.")
@click.option("--check-floors", is_flag=True,
              help="Exit 1 when a cross-validated figure falls below eval/categories_floors.json; the model goes "
                   "to a temporary folder unless -o is given.")
@click.option("--update-floors", is_flag=True, help="Set eval/categories_floors.json to the current figures.")
@click.option("--allow-lower", is_flag=True, help="With --update-floors: let floors go down.")
@click.option("--no-spans", is_flag=True,
              help="Train without the rows of annotated root-cause spans (corpus/root_cause_spans, and those of "
                   "the annotated cards and the written postmortems).")
@click.option("--no-cards", is_flag=True,
              help="Train without the categories of the all-field annotations' cards (corpus/field_spans).")
@click.option("--written/--no-written", default=True, show_default=True,
              help="Also train on the root-cause categories of the postmortems the team wrote "
                   "(corpus/written/categories.jsonl).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Cross-validation folds fitted at once, in worker processes (default: the cores this process "
                   "may use). The figures are the same for any number.")
def train_categories_command(corpus, gold_files, output, taxonomy_path, label_files, component_label_files, seed,
                             no_eval, second_pass, component_second_pass, check_floors, update_floors, allow_lower,
                             no_spans, no_cards, written, jobs):
    """Train the tag model (categories and components) and print its cross-validated figures."""
    from pmparse.cli.train_categories import agreement_text, train_categories_text

    if second_pass is not None and component_second_pass is not None:
        _fail_usage(UsageError("expected one of --agreement and --component-agreement, found both"))
    if (second_pass is not None and component_label_files) or (component_second_pass is not None and label_files):
        # the other kind's first pass would be silently ignored
        _fail_usage(UsageError("expected --labels with --agreement and --component-labels with "
                               "--component-agreement, found them crossed"))
    if second_pass is not None or component_second_pass is not None:
        try:
            click.echo(shown(agreement_text(Path(second_pass or component_second_pass),
                                            [Path(f) for f in (component_label_files if component_second_pass
                                                               else label_files)] or None,
                                            taxonomy_path, components=component_second_pass is not None)))
        except PmparseError as exc:
            _fail_usage(exc)
        return
    try:
        text, notes, code = train_categories_text(
            output, corpus, [Path(g) for g in gold_files] or None, seed, taxonomy_path, not no_eval,
            [Path(f) for f in label_files] or None, check_floors, update_floors, allow_lower,
            warn=_warn,
            component_label_files=[Path(f) for f in component_label_files] or None, spans=not no_spans,
            cards=not no_cards, written=written, jobs=jobs)
    except PmparseError as exc:
        _fail_usage(exc)
    click.echo(shown(text))
    for note in notes:
        click.echo(shown(note, one_line=True), err=True)
    sys.exit(code)


@main.command(name="train")
@click.option("--seed", default=0, show_default=True, type=int, help="Training seed (same seed and corpus, same model).")
@click.option("--out", default=None, type=click.Path(file_okay=False), help="Model folder  [default: src/pmparse/models/fields].")
@click.option("--corpus", default=None, type=click.Path(file_okay=False),
              help="Corpus root  [default: $PMPARSE_CORPUS or ../shared/corpus].")
@click.option("--loso", is_flag=True, help="Leave one source out: train per fold and score held-out gold documents "
              "(pipeline, headings, keywords; headed and heading-stripped) instead of training the model.")
@click.option("--tune", "tune_settings", is_flag=True, help="With --loso: search the field labeler settings first.")
@click.option("--report", "report_path", default=None, type=click.Path(dir_okay=False),
              help="With --loso: write the full report as JSON.")
@click.option("--rounds", default=1000, show_default=True, type=click.IntRange(min=10), help="Bootstrap rounds.")
@click.option("--check-floors", is_flag=True, help="With --loso: exit 1 when a field falls below eval/loso_floors.json.")
@click.option("--update-floors", is_flag=True, help="With --loso: set eval/loso_floors.json to the current figures.")
@click.option("--allow-lower", is_flag=True, help="With --update-floors: allow floors to go down.")
@click.option("--dataset", default=None, type=click.Path(dir_okay=False),
              help="Also write the weakly labelled units as JSON lines (offsets, labels, weights; no text).")
@click.option("--write-boilerplate", "boilerplate", is_flag=True,
              help="Only rewrite the packaged boilerplate list (digests of lines that recur across the corpus).")
@click.option("--holdout", "holdout", multiple=True, type=click.Path(dir_okay=False, exists=True),
              help="Also keep the documents of this gold-shaped JSONL file out of training (a development set; "
                   "needs --out).")
@click.option("--dev", "dev", multiple=True, type=click.Path(dir_okay=False, exists=True),
              help="With --loso: score the documents of this development file instead of the gold set's (they are "
                   "kept out of training too).")
@click.option("--spans", is_flag=True,
              help="Also learn root cause from the team's spans (corpus/root_cause_spans); the shipped model does "
                   "not (see src/pmparse/models/fields/README.md).")
@click.option("--labels", type=click.Choice(["annotated", "weak", "both"]), default="annotated", show_default=True,
              help="Learn from the fields annotators marked (corpus/field_spans), the fields headings name, or both.")
@click.option("--calibrate/--no-calibrate", default=True, show_default=True,
              help="With --loso: calibrate confidences on the held-out units and choose the threshold on them.")
@click.option("--calibration", "calibration_path", default=None, type=click.Path(dir_okay=False, exists=True),
              help="Without --loso: give the model the calibration and threshold of this --loso --report file.")
@click.option("--written/--no-written", default=True, show_default=True,
              help="Also learn from the postmortems the team wrote, fields marked by their writers (corpus/written).")
@click.option("--written-weight", default=1.0, show_default=True, type=click.FloatRange(min=0.0, min_open=True),
              help="With --written: the weight of each written row (an annotated corpus row weighs 1).")
@click.option("--heading-model/--no-heading-model", default=True, show_default=True,
              help="Also learn what headings the table does not know mean, from the fields annotated under the "
                   "training documents' headings (with --loso: per fold, held-out sources left out).")
@click.option("--heading-context/--no-heading-context", default=False, show_default=True,
              help="The unit model also reads the words of each unit's nearest heading and its section's role "
                   "(trained with half of the documents' headings hidden).")
@click.option("--document-context/--no-document-context", default=False, show_default=True,
              help="The unit model also reads field cues of a wider window, causal connectives and the document's "
                   "voice (tense, person, lists).")
@click.option("--library", "library", default=None, type=click.Path(), metavar="DIRECTORY",
              help="Instead: adapt the field model to the records a person reviewed in this library, kept in its "
                   ".pmparse/model (convert into the library uses it; needs no corpus).")
def train_command(seed, out, corpus, loso, tune_settings, report_path, rounds, check_floors, update_floors, allow_lower,
                  dataset, boilerplate, holdout, dev, spans, labels, calibrate, calibration_path, written,
                  written_weight, heading_model, heading_context, document_context, library):
    """Train the field model from annotated content (gold documents excluded), or measure it with --loso.

    With --library LIB: learn from the curator instead. Accepted and edited items are examples of
    their field, rejected suggestions examples of what a unit is not, a card marked reviewed counts
    whole (the units it leaves out are no field); untouched drafts count for nothing. Exit 1 when
    the library holds too few reviewed items (the model convert uses is left as it was).
    """
    from pmparse.cli.train_fields import run_library_command, run_train_command

    if library is not None:
        ctx = click.get_current_context()
        # the options of corpus training mean nothing here: refused rather than silently ignored
        given = [option.opts[0] for option in ctx.command.params
                 if option.name not in ("library", "seed") and isinstance(option, click.Option)
                 and ctx.get_parameter_source(option.name) != click.core.ParameterSource.DEFAULT]
        if given:
            _fail_usage(UsageError(f"expected --library alone, found it with {', '.join(given)}"))
        try:
            output, code = run_library_command(library)
        except PmparseError as exc:
            _fail_usage(exc)
        # its notes name the sources of records a person may have edited by hand
        click.echo(shown(output))
        sys.exit(code)
    try:
        output, code = run_train_command(corpus, out, seed, loso, tune_settings, report_path, check_floors,
                                         update_floors, allow_lower, rounds,
                                         progress=lambda message: click.echo(shown(message, one_line=True), err=True),
                                         dataset=dataset,
                                         boilerplate=boilerplate, holdout=list(holdout), use_spans=spans,
                                         dev=list(dev),
                                         warn=_warn,
                                         labels=labels, calibrate=calibrate, calibration_path=calibration_path,
                                         written=written_weight if written else 0.0,
                                         heading_model=heading_model, heading_context=heading_context,
                                         document_context=document_context)
    except PmparseError as exc:
        _fail_usage(exc)
    click.echo(shown(output))
    sys.exit(code)


@main.command()
@click.option("--size", type=click.Choice(["full", "small"]), default="full", show_default=True,
              help="The whole corpus, or a sample of it (CI).")
@click.option("--corpus", default=None, type=click.Path(file_okay=False),
              help="Corpus root  [default: $PMPARSE_CORPUS or ../shared/corpus; the bundled samples without one].")
@click.option("--repeat", default=10, show_default=True, type=click.IntRange(min=2),
              help="Repeat the corpus this many times for the scaling run.")
@click.option("--json", "json_path", default=None, type=click.Path(dir_okay=False), help="Also write the figures as JSON.")
@click.option("--workdir", default=None, type=click.Path(file_okay=False),
              help="Keep copies and libraries here  [default: a temporary folder, removed].")
def bench(size, corpus, repeat, json_path, workdir):
    """Measure speed, scaling, memory and start-up; print the figures and the targets they meet.

    Reports only: it never fails on slow figures (exit 0), only when a measurement cannot run (2).
    """
    from pmparse.evaluation.bench import run_bench

    try:
        report = run_bench(size=size, corpus=corpus, repeat=repeat, workdir=workdir,
                           progress=lambda message: click.echo(shown(f"measuring: {message}", one_line=True), err=True))
    except PmparseError as exc:
        _fail_usage(exc)
    click.echo(shown(report.table()))  # before the file: the figures survive a --json that cannot be written
    if json_path:
        from pmparse.util import atomic_write, write_errors

        try:
            with write_errors(json_path, "the figures"):
                atomic_write(Path(json_path), report.to_json() + "\n")
        except PmparseError as exc:
            _fail_usage(exc)


@main.command()
def schema():
    """Print the JSON Schema of a card."""
    from pmparse.card.schema import json_schema

    click.echo(json.dumps(json_schema(), indent=2))


main.add_command(site_command)
main.add_command(export_command)
main.add_command(resolve_command)


if __name__ == "__main__":  # pragma: no cover
    main()


def run() -> None:
    """The ``pmparse`` command (started by :func:`pmparse._entry.main`, the console script's): :data:`main`, with
    the stop signals ignored while the finished process tears down (:func:`pmparse.cli.group.run_as_command`)."""
    run_as_command(main)
