from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from pmparse.cli import main
from tests.helpers import REPO, SAMPLES


def test_convert_validate_and_summary(tmp_path):
    folder = tmp_path / "in"
    shutil.copytree(SAMPLES, folder)
    (folder / "bad.txt").write_bytes(b"\x00\x01")
    runner = CliRunner()
    result = runner.invoke(main, ["convert", str(folder), "-o", str(tmp_path / "lib"), "--rules-only",
                                  "--errors", str(tmp_path / "errors.jsonl")])
    assert result.exit_code == 1
    assert "3 converted, 0 updated, 0 unchanged, 0 pending review, 1 failed" in result.output
    assert f"failed: {folder / 'bad.txt'}: expected text, found binary data" in result.output
    errors = [json.loads(line) for line in (tmp_path / "errors.jsonl").read_text().splitlines()]
    assert errors == [{"input": str(folder / "bad.txt"), "error": "binary",
                       "message": "expected text, found binary data (NUL byte at offset 0)"}]
    result = runner.invoke(main, ["validate", str(tmp_path / "lib")])
    assert result.exit_code == 0 and "3 records checked, 0 invalid" in result.output


def test_convert_all_good_exits_zero_and_stdin(tmp_path):
    result = CliRunner().invoke(main, ["convert", "-", "-o", str(tmp_path / "lib"), "--rules-only"],
                                input=b"# Outage\n\n## Impact\n\nThe API was down for ten minutes.\n")
    assert result.exit_code == 0, result.output
    assert "1 converted" in result.output
    record = (tmp_path / "lib" / "IL-0001.yaml").read_text()
    assert "location: '-'" in record and "The API was down for ten minutes." in record


def test_each_text_piped_in_gets_its_own_record_and_a_repeat_is_unchanged(tmp_path):
    lib = str(tmp_path / "lib")
    first = b"# Outage\n\n## Impact\n\nThe payments API was down for ten minutes.\n"
    second = b"# Outage\n\n## Impact\n\nThe search cluster lost a shard for two hours.\n"
    runner = CliRunner()
    assert "1 converted" in runner.invoke(main, ["convert", "-", "-o", lib, "--rules-only"], input=first).output
    # standard input has no name: another text is another source, not an update of the first
    assert "1 converted" in runner.invoke(main, ["convert", "-", "-o", lib, "--rules-only"], input=second).output
    assert "1 unchanged" in runner.invoke(main, ["convert", "-", "-o", lib, "--rules-only"], input=first).output
    records = sorted((tmp_path / "lib").glob("IL-*.yaml"))
    assert [p.name for p in records] == ["IL-0001.yaml", "IL-0002.yaml"]
    assert "payments API" in records[0].read_text() and "search cluster" in records[1].read_text()


def test_validate_invalid_exits_one(tmp_path):
    (tmp_path / "IL-0001.yaml").write_text("id: IL-1\n")
    result = CliRunner().invoke(main, ["validate", str(tmp_path)])
    assert result.exit_code == 1
    assert "IL-0001.yaml:1: id: String should match pattern" in result.output
    assert "IL-0001.yaml: source: Field required" in result.output  # a field left out has no line


def test_usage_errors_exit_two(tmp_path):
    runner = CliRunner()
    assert runner.invoke(main, ["convert", "x.md"]).exit_code == 2  # no -o
    assert runner.invoke(main, ["validate", str(tmp_path / "missing")]).exit_code == 2
    (tmp_path / "file").write_text("x")
    assert runner.invoke(main, ["convert", "x.md", "-o", str(tmp_path / "file")]).exit_code == 2
    assert runner.invoke(main, ["convert", "x.md", "-o", str(tmp_path / "l"), "--model", str(tmp_path)]).exit_code == 2
    assert runner.invoke(main, ["convert", "x.md", "-o", str(tmp_path / "l"), "--timeout", "0"]).exit_code == 2


def test_max_bytes_above_what_a_record_may_hold_is_a_usage_error(tmp_path):
    # records are read back up to 128 MiB and hold their source's text: --max-bytes had no bound
    (tmp_path / "queue.md").write_text("# Queue\n\nThe queue stopped for an hour.\n", encoding="utf-8")
    runner = CliRunner()
    done = runner.invoke(main, ["convert", str(tmp_path / "queue.md"), "-o", str(tmp_path / "lib"),
                                "--max-bytes", str(32 * 1024 * 1024 + 1), "--rules-only"])
    assert done.exit_code == 2, done.output
    assert "--max-bytes" in done.output and "33554432" in done.output
    assert not (tmp_path / "lib").exists()
    done = runner.invoke(main, ["convert", str(tmp_path / "queue.md"), "-o", str(tmp_path / "lib"),
                                "--max-bytes", str(32 * 1024 * 1024), "--rules-only", "--jobs", "1"])
    assert done.exit_code == 0, done.output


def test_convert_passes_the_timeout_on(patch_all, tmp_path, monkeypatch):
    import pmparse.batch.convert as convert_module

    seen = {}
    real = convert_module.convert

    def spy(inputs, library, **options):
        seen["timeout"] = options["timeout"]
        return real(inputs, library, **options)

    patch_all(convert_module, "convert", spy)
    (tmp_path / "r.md").write_text("# Queue stalled\n\nThe queue stalled for 20 minutes.\n", encoding="utf-8")
    args = ["convert", str(tmp_path / "r.md"), "-o", str(tmp_path / "lib"), "--rules-only", "-j", "1"]
    assert CliRunner().invoke(main, args + ["--timeout", "2.5"]).exit_code == 0 and seen["timeout"] == 2.5
    assert CliRunner().invoke(main, args).exit_code == 0 and seen["timeout"] == convert_module.DEFAULT_TIMEOUT


def test_schema_and_help():
    runner = CliRunner()
    schema = json.loads(runner.invoke(main, ["schema"]).output)
    assert schema["title"] == "Card" and schema["additionalProperties"] is False
    for command in ("convert", "validate", "schema"):
        assert runner.invoke(main, [command, "--help"]).exit_code == 0


def test_the_command_list_shows_whole_descriptions():
    from pmparse.cli import main as group

    listing = CliRunner().invoke(main, ["--help"]).output
    for name, command in group.commands.items():
        first = command.get_short_help_str(limit=10_000)
        assert "..." not in first
        # wrapped over lines, every word of the first sentence is there
        assert " ".join(first.split()) in " ".join(listing.split()), name


def test_diff_says_when_nothing_is_pending(tmp_path):
    runner = CliRunner()
    runner.invoke(main, ["convert", str(SAMPLES), "-o", str(tmp_path / "lib"), "--rules-only"])
    result = runner.invoke(main, ["diff", str(tmp_path / "lib")])
    assert result.exit_code == 0 and result.output == "nothing pending: no suggestion waits for review\n"
    record = sorted((tmp_path / "lib").glob("IL-*.yaml"))[0]
    result = runner.invoke(main, ["diff", str(record), str(record)])
    assert result.exit_code == 0 and "no differences" in result.output
    # machine formats stay as they were: JSON of no differences, an empty patch
    assert runner.invoke(main, ["diff", str(tmp_path / "lib"), "--patch"]).output == ""


def test_convert_url_base_option(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "r.md").write_text("# Queue stalled\n\nThe queue stalled for 20 minutes.\n", encoding="utf-8")
    runner = CliRunner()
    result = runner.invoke(main, ["convert", str(folder), "-o", str(tmp_path / "lib"), "--rules-only", "-j", "1",
                                  "--url-base", "https://example.org/reports"])
    assert result.exit_code == 0, result.output
    record = next((tmp_path / "lib").glob("*.yaml")).read_text(encoding="utf-8")
    assert "url: https://example.org/reports/r.md" in record
    bad = runner.invoke(main, ["convert", str(folder), "-o", str(tmp_path / "lib2"), "--url-base", "example.org"])
    assert bad.exit_code == 2 and "url-base" in bad.output


def test_a_busy_library_is_a_usage_error(tmp_path):
    from pmparse.library.lock import write_lock

    (tmp_path / "r.md").write_text("# Queue stalled\n\nThe queue stalled for 20 minutes.\n", encoding="utf-8")
    with write_lock(tmp_path / "lib"):
        result = CliRunner().invoke(main, ["convert", str(tmp_path / "r.md"), "-o", str(tmp_path / "lib"),
                                           "--rules-only", "-j", "1"])
    assert result.exit_code == 2 and ".pmparse/lock" in result.output


def test_train_categories_floor_options_without_their_partner_are_usage_errors():
    runner = CliRunner()
    result = runner.invoke(main, ["train-categories", "--allow-lower"])
    assert result.exit_code == 2 and "--update-floors" in result.output
    result = runner.invoke(main, ["train-categories", "--check-floors", "--no-eval"])
    assert result.exit_code == 2 and "--no-eval" in result.output


def test_train_holdout_needs_out_and_no_loso(tmp_path):
    from pmparse.nlp.pipeline import DEFAULT_MODEL_DIR

    held = tmp_path / "dev.jsonl"
    held.write_text("", encoding="utf-8")
    empty = tmp_path / "no-corpus"
    empty.mkdir()
    runner = CliRunner()
    result = runner.invoke(main, ["train", "--holdout", str(held), "--corpus", str(empty)])
    assert result.exit_code == 2 and "found no --out" in result.output
    result = runner.invoke(main, ["train", "--holdout", str(held), "--out", str(DEFAULT_MODEL_DIR),
                                  "--corpus", str(empty)])
    assert result.exit_code == 2 and f"found --out {DEFAULT_MODEL_DIR}" in result.output
    result = runner.invoke(main, ["train", "--loso", "--holdout", str(held), "--out", str(tmp_path / "m"),
                                  "--corpus", str(empty)])
    assert result.exit_code == 2 and "found --loso" in result.output


def test_the_cli_reference_in_docs_is_current():
    """docs/cli.md is generated from these commands (python docs/cli_reference.py --check)."""
    import subprocess
    import sys

    script = REPO / "docs" / "cli_reference.py"
    # a fresh interpreter: commands other tests ran leave click's formatting state behind
    done = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, "docs/cli.md is out of date: run python docs/cli_reference.py"
    assert "## pmparse convert" in (script.parent / "cli.md").read_text(encoding="utf-8")


def test_the_cli_reference_says_what_help_prints():
    """Each block of docs/cli.md is what ``pmparse [COMMAND] --help`` prints (README: "prints the
    same"), help options included: it once listed only --help where -h works too."""
    text = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    for args in [[]] + [[name] for name in sorted(main.commands)]:
        result = CliRunner().invoke(main, args + ["--help"], prog_name="pmparse", terminal_width=100,
                                    max_content_width=100)
        assert result.exit_code == 0
        assert f"```\n{result.output.rstrip()}\n```" in text, args
        assert "-h, --help" in result.output


def test_train_written_weight_must_be_above_zero():
    result = CliRunner().invoke(main, ["train", "--loso", "--written", "--written-weight", "0"])
    assert result.exit_code == 2 and "--written-weight" in result.output


def test_train_learns_from_the_written_postmortems_by_default_at_the_chosen_weight():
    from pmparse.training.fields import WRITTEN_WEIGHT

    params = {p.name: p for p in main.commands["train"].params}
    assert params["written"].default is True
    assert params["written_weight"].default == WRITTEN_WEIGHT


@pytest.mark.parametrize("case", ["missing", "file", "other folder"])
def test_every_command_that_reads_a_library_says_the_same_of_a_path_that_is_none(tmp_path, case):
    """A mistyped library path gets one message from every command: what a library is, and what
    was found there instead (they said 'found none', 'found neither' or 'found nothing at ...')."""
    path = tmp_path / "library"
    if case == "file":
        path.write_text("not a library\n", encoding="utf-8")
    elif case == "other folder":
        path.mkdir()
        (path / "notes.txt").write_text("not a record\n", encoding="utf-8")
    found = {"missing": "found nothing at that path", "file": "found a file",
             "other folder": "found a folder with neither"}[case]
    runner = CliRunner()
    for command in (["validate"], ["diff"], ["review", "--accept-all"], ["site", "-o", str(tmp_path / "site")],
                    ["export"], ["train", "--library"]):
        result = runner.invoke(main, [command[0], *command[1:], str(path)] if command[0] == "train"
                               else [command[0], str(path), *command[1:]])
        assert result.exit_code == 2, (command, result.output)
        assert f"{path}: expected a library folder (records IL-0001.yaml ... or .pmparse/), {found}" \
            in result.output, (command, result.output)


def test_a_url_base_that_does_not_parse_is_a_usage_error(tmp_path):
    (tmp_path / "a.md").write_text("# Outage\n\n## Root cause\n\nThe disk filled up.\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["convert", str(tmp_path / "a.md"), "-o", str(tmp_path / "lib"), "-j", "1",
                                       "--url-base", "https://[::1/"])
    assert result.exit_code == 2, result.output
    assert "--url-base" in result.output and "internal error" not in result.output


def _samples_with_date_line(tmp_path, line: str):
    """The samples converted into a library whose IL-0002 has ``line`` as typed for its date:
    ``(inputs, library, record, line index)``."""
    folder = tmp_path / "in"
    shutil.copytree(SAMPLES, folder)
    lib = tmp_path / "lib"
    assert CliRunner().invoke(main, ["convert", str(folder), "-o", str(lib), "--rules-only"]).exit_code == 0
    record = lib / "IL-0002.yaml"
    lines = record.read_text().splitlines(keepends=True)
    number = next(i for i, text in enumerate(lines) if text.startswith("date:"))
    lines[number] = line
    record.write_text("".join(lines))
    return folder, lib, record, number


@pytest.mark.parametrize("date", ["2018-13-01", "2019-02-29"])
def test_a_hand_edited_date_that_is_no_calendar_date_is_named_not_a_traceback(tmp_path, date):
    # YAML reads an unquoted 2018-13-01 as a timestamp and PyYAML raises ValueError, not a YAML
    # error: every command that reads the library stopped with a traceback
    folder, lib, record, number = _samples_with_date_line(tmp_path, f"date: {date}\n")
    runner = CliRunner()
    result = runner.invoke(main, ["validate", str(lib)])
    assert result.exit_code == 1
    assert f"IL-0002.yaml:{number + 1}:" in result.output and "calendar date" in result.output, result.output
    for args in (["diff", str(lib)], ["export", str(lib)], ["site", str(lib), "-o", str(tmp_path / "site")],
                 ["review", str(lib), "--accept-all"], ["train", "--library", str(lib)],
                 ["convert", str(folder), "-o", str(lib), "--rules-only"]):
        result = runner.invoke(main, args)
        assert not isinstance(result.exception, ValueError), (args, result.output)
        assert result.exit_code in (0, 1), (args, result.output)
    # the record is still known by its source: no second record of the sample
    assert len(list(lib.glob("IL-*.yaml"))) == 3


def test_a_settings_file_with_no_calendar_date_is_named_not_a_traceback(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.md").write_text("# Outage\n\n## Impact\n\nThe API was down for ten minutes.\n")
    (folder / ".pmparse.yaml").write_text("organisation: Acme\nreviewed: 2018-02-30\n")
    result = CliRunner().invoke(main, ["convert", str(folder), "-o", str(tmp_path / "lib"), "--rules-only"])
    assert not isinstance(result.exception, ValueError), result.output
    assert result.exit_code in (1, 2) and ".pmparse.yaml" in result.output and "line 2" in result.output, result.output


def test_an_edit_with_no_calendar_date_is_a_record_error():
    from pmparse.cli.prompter import parse_edit
    from pmparse.errors import RecordError

    with pytest.raises(RecordError, match="calendar date"):
        parse_edit("date: 2018-04-31\n", "date")


def test_diff_of_one_record_file_says_it_takes_a_library_or_two_files(tmp_path):
    record = tmp_path / "IL-0001.yaml"
    record.write_text("schema_version: 1\n")
    result = CliRunner().invoke(main, ["diff", str(record)])
    assert result.exit_code == 2
    assert "two record files" in result.output and str(record) in result.output, result.output


def test_a_review_with_nothing_to_ask_says_how_the_drafts_are_reviewed(tmp_path):
    folder = tmp_path / "in"
    shutil.copytree(SAMPLES, folder)
    runner = CliRunner()
    lib = str(tmp_path / "lib")
    assert runner.invoke(main, ["convert", str(folder), "-o", lib, "--rules-only"]).exit_code == 0
    for args in ([], ["--accept-all"]):
        result = runner.invoke(main, ["review", lib] + args, input="")
        assert result.exit_code == 0
        assert "3 record(s) here are drafts (status: suggested)" in result.stderr, result.output
        assert "set `status: reviewed`" in result.stderr
    # once every draft is a person's, nothing more is said
    for path in (tmp_path / "lib").glob("IL-*.yaml"):
        path.write_text(path.read_text().replace("status: suggested", "status: reviewed", 1))
    result = runner.invoke(main, ["review", lib])
    assert result.exit_code == 0 and "drafts" not in result.output


@pytest.mark.parametrize("written, read", [("2017-10-11", "2017-10-11"), ("2017", "2017")])
def test_a_date_typed_unquoted_in_a_record_is_that_date(tmp_path, written, read):
    # YAML reads date: 2017-10-11 as a date and date: 2017 as a number; validate said 'Input should
    # be a valid string' of a date a curator typed the natural way
    folder, lib, record, _ = _samples_with_date_line(tmp_path, f"date: {written}  # checked with the team\n")
    runner = CliRunner()
    result = runner.invoke(main, ["validate", str(lib)])
    assert result.exit_code == 0, result.output
    result = runner.invoke(main, ["export", str(lib)])
    rows = {row["id"]: row for row in map(json.loads, result.output.splitlines())}
    assert rows["IL-0002"]["date"] == read
    # the person's date is kept by a later convert, comment and all
    result = runner.invoke(main, ["convert", str(folder), "-o", str(lib), "--rules-only", "--force"])
    assert result.exit_code == 0, result.output
    assert f"date: {written}  # checked with the team\n" in record.read_text()


def test_a_date_and_time_in_a_record_is_still_refused(tmp_path):
    import datetime

    from pydantic import ValidationError

    from pmparse.card.schema import Card
    from pmparse.library.records import card_data

    folder = tmp_path / "in"
    shutil.copytree(SAMPLES, folder)
    assert CliRunner().invoke(main, ["convert", str(folder), "-o", str(tmp_path / "lib"), "--rules-only"]).exit_code == 0
    data = card_data(Card.model_validate_json(json.dumps(
        __import__("yaml").safe_load((tmp_path / "lib" / "IL-0002.yaml").read_text()))))
    for value in (datetime.datetime(2017, 10, 11, 9, 0), 17, True):
        with pytest.raises(ValidationError) as caught:
            Card.model_validate({**data, "date": value})
        assert [error["loc"] for error in caught.value.errors()] == [("date",)], value
    assert Card.model_validate({**data, "date": datetime.date(2017, 10, 11)}).date == "2017-10-11"


def test_messages_during_the_progress_bar_start_on_a_line_of_their_own(tmp_path):
    import os
    import sys

    pexpect = pytest.importorskip("pexpect")
    folder = tmp_path / "in"
    shutil.copytree(SAMPLES, folder)
    (folder / "README.md").write_text("# Our reports\n\nOne file per incident.\n")
    child = pexpect.spawn(sys.executable, ["-m", "pmparse", "convert", str(folder), "-o", str(tmp_path / "lib"),
                                           "-j", "1", "--rules-only"],
                          env=dict(os.environ, PYTHONPATH=str(REPO / "src"), TERM="xterm"), encoding="utf-8",
                          timeout=120, dimensions=(40, 200))
    child.expect(pexpect.EOF)
    output = child.before
    assert "converting" in output  # a terminal gets the bar
    line = next(line for line in output.split("\n") if "skipped:" in line)
    # what the terminal shows of that line: the text after its last carriage return, the clear
    # sequence dropped; it was the bar with the message run on from its end
    shown_text = line.rstrip("\r").rsplit("\r", 1)[-1].replace("\x1b[K", "")
    assert shown_text.startswith("skipped: "), repr(line)


def test_a_misspelt_key_in_a_record_is_named_with_the_field_meant(tmp_path):
    folder = tmp_path / "in"
    shutil.copytree(SAMPLES, folder)
    runner = CliRunner()
    lib = tmp_path / "lib"
    assert runner.invoke(main, ["convert", str(folder), "-o", str(lib), "--rules-only"]).exit_code == 0
    record = lib / "IL-0002.yaml"
    text = record.read_text()
    record.write_text(text.replace("\ntitle:", "\ntitel:", 1).replace("  evidence:", "  evidense:", 1))
    result = runner.invoke(main, ["validate", str(lib)])
    assert result.exit_code == 1
    assert "IL-0002.yaml:4: titel: not a card field (did you mean title?)" in result.output, result.output
    assert ": not a key this value has" in result.output and "Extra inputs" not in result.output
    # convert names it the same way where it parks the suggestion beside the record
    result = runner.invoke(main, ["convert", str(folder), "-o", str(lib), "--rules-only", "--force"])
    assert "titel: not a card field (did you mean title?)" in result.output, result.output
