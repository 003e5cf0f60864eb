"""No raw control character from a page, a record or a file name reaches the terminal."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from pmparse.cli import main
from pmparse.util import shown
from pmparse.card.schema import Card
from pmparse.library.records import dumps
from pmparse.library.store import Library
from tests.helpers import text_card

#: What a hostile page would print: set the window title (OSC ... BEL), clear the screen (CSI 2J),
#: go back to the start of the line (CR) and reverse the text after it (U+202E), an 8-bit CSI (C1).
HOSTILE = "\x1b]0;pwned\x07\x1b[2J\rsafe\u202e\x9b1m"

#: Bytes no output may hold raw (colour codes are CSI ... m, which click adds itself when asked).
RAW = ("\x1b]", "\x1b[2J", "\r", "\x07", "\x9b", "\u202e")


def raw_in(output: str) -> list[str]:
    return [r for r in RAW if r in output]


def test_control_characters_are_shown_as_escapes_and_tab_and_newline_pass():
    assert shown(HOSTILE) == "\\x1b]0;pwned\\x07\\x1b[2J\\x0dsafe\\u202e\\x9b1m"
    assert shown("a\tb\nc \x7f") == "a\tb\nc \\x7f"


def hostile_pair(tmp_path):
    """A record and a suggestion for it whose title and evidence hold the hostile bytes."""
    text = f"The database failed. {HOSTILE} The disk was full."
    old = text_card("IL-0001", text, title="Database outage", root_cause=[(0, 20, 0.9)])
    new = text_card("IL-0001", text, title=f"Database outage {HOSTILE}", root_cause=[(21, len(text), 0.9)])
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a, b = tmp_path / "a" / "IL-0001.yaml", tmp_path / "b" / "IL-0001.yaml"
    a.write_text(dumps(old), encoding="utf-8")
    b.write_text(dumps(new), encoding="utf-8")
    return a, b


def test_diff_shows_a_hostile_title_and_evidence_escaped_in_colour_and_not(tmp_path):
    a, b = hostile_pair(tmp_path)
    runner = CliRunner()
    for option in ("--color", "--no-color"):
        result = runner.invoke(main, ["diff", str(a), str(b), option], color=True)
        assert result.exit_code == 1, result.output
        assert raw_in(result.output) == [] and "\\x1b]0;pwned\\x07" in result.output
        if option == "--no-color":
            assert "\x1b" not in result.output
    result = runner.invoke(main, ["diff", str(a), str(b), "--format", "json"], color=True)
    assert raw_in(result.output) == [] and "\\u001b]0;pwned" in result.output
    # the record keeps the text: only what is printed is escaped
    assert Library.read(b).title == f"Database outage {HOSTILE}"


def test_interactive_review_shows_the_suggestion_escaped(tmp_path):
    lib = pending_library(tmp_path)
    result = CliRunner().invoke(main, ["review", str(lib), "--color"], input="s\ns\ns\n", color=True)
    assert result.exit_code == 0, result.output
    assert "pwned" in result.output and raw_in(result.output) == []


def test_a_file_name_with_control_characters_is_escaped_in_its_failure_line(tmp_path):
    name = tmp_path / "report\x1b]0;pwned\x07\r.txt"
    name.write_bytes(b"\x00\x01")
    result = CliRunner().invoke(main, ["convert", str(name), "-o", str(tmp_path / "lib"), "--rules-only", "-j", "1"],
                                color=True)
    assert result.exit_code == 1, result.output
    assert "failed: " in result.output and "report\\x1b]0;pwned\\x07\\x0d.txt" in result.output
    assert raw_in(result.output) == []


def test_validate_warns_about_control_characters_and_the_record_stays_valid(tmp_path):
    text = f"The database failed. {HOSTILE}"
    (tmp_path / "IL-0001.yaml").write_text(dumps(text_card("IL-0001", text, title=f"Outage {HOSTILE}")),
                                           encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", str(tmp_path)], color=True)
    assert result.exit_code == 0, result.output
    assert "warning: IL-0001.yaml: title: holds control characters (U+0007 U+000D U+001B U+009B U+202E)" \
        in result.output
    assert "source.extracted_text: holds control characters" in result.output
    assert raw_in(result.output) == []


def disk_full(monkeypatch):
    """Every fsync fails as on a full disk (where a write's data is refused at the latest)."""
    import errno
    import os

    def fsync(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", fsync)


def one_line(result, words: str) -> None:
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert [line for line in result.output.splitlines() if line.startswith("pmparse: ")] == [
        line for line in result.output.splitlines() if words in line]


def no_temporaries(folder) -> None:
    assert [p.name for p in folder.rglob("*.tmp")] == []


def test_a_full_disk_ends_the_failures_report_with_one_line(tmp_path, monkeypatch):
    (tmp_path / "bad.txt").write_bytes(b"\x00\x01")
    disk_full(monkeypatch)
    result = CliRunner().invoke(main, ["convert", str(tmp_path / "bad.txt"), "-o", str(tmp_path / "lib"),
                                       "--rules-only", "-j", "1", "--errors", str(tmp_path / "errors.jsonl")])
    one_line(result, "expected to write the failures report, found no space left on device")
    assert not (tmp_path / "errors.jsonl").exists()
    no_temporaries(tmp_path)


def test_a_long_failures_report_name_is_written_and_a_too_long_one_is_one_line(tmp_path):
    (tmp_path / "bad.txt").write_bytes(b"\x00\x01")
    runner = CliRunner()
    for length, code in ((246, 1), (300, 1)):
        report = tmp_path / ("e" * length)
        result = runner.invoke(main, ["convert", str(tmp_path / "bad.txt"), "-o", str(tmp_path / "lib"),
                                      "--rules-only", "-j", "1", "--errors", str(report)])
        assert result.exit_code == code and "Traceback" not in result.output, result.output
        if length == 246:
            assert '"error": "binary"' in report.read_text(encoding="utf-8")
        else:
            one_line(result, "expected to write the failures report, found file name too long")
    no_temporaries(tmp_path)


def test_a_full_disk_in_review_site_and_export_is_one_line_and_exit_one(tmp_path, monkeypatch):
    lib = tmp_path / "lib"
    a, b = hostile_pair(tmp_path)
    library = Library(lib)
    library.write(Library.read(a), "yaml")
    library.write_state("pending", Library.read(b))
    before = (lib / "IL-0001.yaml").read_bytes()
    disk_full(monkeypatch)
    runner = CliRunner()
    one_line(runner.invoke(main, ["review", str(lib), "--accept-all"]),
             "expected to write the reviewed records, found no space left on device")
    assert (lib / "IL-0001.yaml").read_bytes() == before
    one_line(runner.invoke(main, ["site", str(lib), "-o", str(tmp_path / "site")]),
             "expected to write the site, found no space left on device")
    one_line(runner.invoke(main, ["export", str(lib), "-o", str(tmp_path / "cards.jsonl")]),
             "expected to write the export, found no space left on device")
    assert not (tmp_path / "cards.jsonl").exists()
    no_temporaries(tmp_path)


def test_an_export_name_too_long_is_one_line(tmp_path):
    lib = tmp_path / "lib"
    a, _ = hostile_pair(tmp_path)
    Library(lib).write(Library.read(a), "yaml")
    runner = CliRunner()
    result = runner.invoke(main, ["export", str(lib), "-o", str(tmp_path / ("x" * 250))])
    assert result.exit_code == 0 and (tmp_path / ("x" * 250)).is_file()  # long, but the system takes it
    one_line(runner.invoke(main, ["export", str(lib), "-o", str(tmp_path / ("x" * 300))]),
             "expected to write the export, found file name too long")


def pending_library(tmp_path):
    lib = tmp_path / "lib"
    a, b = hostile_pair(tmp_path)
    library = Library(lib)
    library.write(Library.read(a), "yaml")
    library.write_state("pending", Library.read(b))
    return lib


def test_ctrl_c_at_the_review_prompt_or_between_prompts_exits_130_with_the_summary(tmp_path, monkeypatch):
    import click

    from pmparse.cli import prompter

    lib = pending_library(tmp_path)

    def ctrl_c_at_prompt(*args, **kwargs):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise click.Abort() from None  # what click.prompt does with Ctrl-C

    monkeypatch.setattr(prompter.click, "prompt", ctrl_c_at_prompt)
    result = CliRunner().invoke(main, ["review", str(lib)])
    assert result.exit_code == 130, result.output
    assert "0 accepted (0 edited), 0 rejected, 0 skipped; 1 record(s) still pending" in result.output
    assert "interrupted: every decision made so far is kept" in result.output and "Aborted!" not in result.output

    def ctrl_c_while_showing(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(prompter, "render_change", ctrl_c_while_showing)
    result = CliRunner().invoke(main, ["review", str(lib)])
    assert result.exit_code == 130 and "1 record(s) still pending" in result.output, result.output


@pytest.mark.parametrize("options", [["--accept-all"], []])
def test_ctrl_c_between_the_review_summary_and_its_exit_exits_130(tmp_path, monkeypatch, options):
    import os
    import signal

    import click

    lib = pending_library(tmp_path)
    leave = click.Context.__exit__

    def ctrl_c_as_click_winds_down(self, exc_type, exc_value, tb):
        if self.parent is None and exc_type is SystemExit:
            # the summary is printed and the exit code chosen: the outermost context is closing
            os.kill(os.getpid(), signal.SIGINT)
        return leave(self, exc_type, exc_value, tb)

    monkeypatch.setattr(click.Context, "__exit__", ctrl_c_as_click_winds_down)
    result = CliRunner().invoke(main, ["review", str(lib), *options], input="q\n")
    assert result.exit_code == 130, result.output  # click said 'Aborted!' and exited 1
    assert "record(s) still pending" in result.output and "Aborted!" not in result.output
    assert result.output.rstrip().endswith("interrupted")
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_the_end_of_the_input_at_the_review_prompt_is_a_quit(tmp_path):
    result = CliRunner().invoke(main, ["review", str(pending_library(tmp_path))], input="")
    assert result.exit_code == 0 and "1 record(s) still pending" in result.output, result.output


def test_sigterm_during_review_keeps_the_decisions_and_exits_143(tmp_path, monkeypatch):
    import os
    import signal

    from pmparse.cli import prompter

    lib = pending_library(tmp_path)

    def terminated(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGTERM)  # as `kill` would, while the hunk is shown

    monkeypatch.setattr(prompter, "render_change", terminated)
    result = CliRunner().invoke(main, ["review", str(lib)])
    assert result.exit_code == 143 and "1 record(s) still pending" in result.output, result.output
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_ctrl_c_while_a_finished_review_ends_is_not_a_death_by_signal(tmp_path):
    import subprocess
    import sys

    from tests.helpers import REPO

    lib = pending_library(tmp_path)
    # a Ctrl-C that lands while the interpreter tears itself down, after Python has put the
    # default disposition back (it kills the process: exit -2, no summary code); the object's
    # __del__ sends it as the modules are cleared, deterministically
    child = ("import builtins, os, signal, sys\n"
             "class Late:\n"
             "    def __del__(self):\n"
             "        os.kill(os.getpid(), signal.SIGINT)\n"
             "builtins._late = Late()\n"
             "from pmparse.cli import run\n"
             f"sys.argv = ['pmparse', 'review', {str(lib)!r}, '--no-color']\n"
             "run()\n")
    done = subprocess.run([sys.executable, "-c", child], input="y\ny\n", capture_output=True, text=True,
                          timeout=120, env={**__import__("os").environ, "PYTHONPATH": str(REPO / "src")})
    assert done.returncode == 0, (done.returncode, done.stderr[-1000:])
    assert "2 accepted (0 edited), 0 rejected, 0 skipped; 0 record(s) still pending" in done.stderr


def test_a_ctrl_c_inside_code_run_by_exec_still_exits_130_under_python_m(tmp_path):
    import subprocess
    import sys

    from tests.helpers import REPO

    # Ctrl-C while a module imports often lands inside code a dataclass or named tuple runs with
    # exec(); after such a KeyboardInterrupt CPython's `python -m` killed the process with SIGINT
    # at its very end (-2), though the command had printed 'interrupted' and chosen 130
    (tmp_path / "interrupted_in_exec.py").write_text(
        "import sys\n"
        "from pmparse import cli\n"
        "@cli.main.command('stop')\n"
        "def stop():\n"
        "    exec('raise KeyboardInterrupt')\n"
        "sys.argv = ['pmparse', 'stop']\n"
        "cli.run()\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "interrupted_in_exec"], capture_output=True, text=True, timeout=120,
                          env={**__import__("os").environ, "PYTHONPATH": f"{tmp_path}:{REPO / 'src'}"})
    assert (done.returncode, done.stderr) == (130, "interrupted\n")


def test_only_a_stop_signal_s_code_leaves_the_teardown_early():
    from pmparse.cli.group import stopped_with

    assert [stopped_with(code) for code in (130, 143, 129, 0, 1, 2, 137, None, "x")] == [
        130, 143, 129, None, None, None, None, None, None]


def test_a_command_run_inside_another_program_leaves_its_exit_signal_handling_alone(tmp_path):
    import subprocess
    import sys

    from tests.helpers import REPO

    # the host calls the CLI in its own process, then its own exit handler starts a child: the
    # child must not inherit ignored stop signals from pmparse
    child = ("import atexit, subprocess, sys\n"
             "from click.testing import CliRunner\n"
             "from pmparse.cli import main\n"
             "def later():\n"
             "    out = subprocess.run(['grep', 'SigIgn', '/proc/self/status'], capture_output=True, text=True)\n"
             "    print(out.stdout.strip(), flush=True)\n"
             "atexit.register(later)\n"
             "assert CliRunner().invoke(main, ['validate', '--help']).exit_code == 0\n")
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=120,
                          env={**__import__("os").environ, "PYTHONPATH": str(REPO / "src")})
    ignored = int(done.stdout.split()[-1], 16)
    assert ignored & (1 << (2 - 1)) == 0 and ignored & (1 << (15 - 1)) == 0, done.stdout  # SIGINT, SIGTERM


def test_train_library_notes_show_a_hand_edited_source_escaped(tmp_path):
    # a record edited by hand (or a library shared by someone else) names its source: the note
    # that leaves it out of training prints that name
    lib = tmp_path / "lib"
    card = text_card("IL-0001", "The database failed.", title="Outage", root_cause=[(0, 20, 0.9)])
    data = card.model_dump(mode="json")
    data["status"] = "reviewed"
    data["source"]["location"] = f"/nowhere/{HOSTILE}.md"
    Library(lib).write(Card.model_validate(data), "yaml")
    result = CliRunner().invoke(main, ["train", "--library", str(lib)], color=True)
    assert result.exit_code == 1, result.output
    assert "left out: its source /nowhere/\\x1b]0;pwned" in result.output
    assert raw_in(result.output) == []


def test_a_line_break_in_a_file_name_cannot_fake_a_line_of_output(tmp_path):
    # a crawled folder names its files: one whose name holds a line break would print a line of
    # its choosing (a summary saying nothing failed) after the failure it is the subject of
    fake = "0 converted, 0 updated, 0 unchanged, 0 pending review, 0 failed"
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / f"report\n{fake}\n.txt").write_bytes(b"\x00\x01")
    result = CliRunner().invoke(main, ["convert", str(tmp_path / "in"), "-o", str(tmp_path / "lib"), "--rules-only",
                                       "-j", "1"], color=True)
    assert result.exit_code == 1, result.output
    assert fake not in result.output.splitlines()
    assert "report\\x0a0 converted" in result.output


def test_a_command_that_runs_pmparse_inside_it_still_holds_ctrl_c_at_its_end(monkeypatch):
    import os
    import signal

    import click

    # a program driving pmparse in its process (click's CliRunner) from inside a command: the inner
    # run ended, the outer command's end must still turn a late Ctrl-C into 130
    done = []

    @click.command("outer")
    def outer():
        assert CliRunner().invoke(main, ["--version"]).exit_code == 0
        done.append(True)

    monkeypatch.setitem(main.commands, "outer", outer)
    leave = click.Context.__exit__

    def ctrl_c_as_click_winds_down(self, exc_type, exc_value, tb):
        if done and self.parent is None and exc_type in (SystemExit, click.exceptions.Exit):
            os.kill(os.getpid(), signal.SIGINT)
        return leave(self, exc_type, exc_value, tb)

    monkeypatch.setattr(click.Context, "__exit__", ctrl_c_as_click_winds_down)
    result = CliRunner().invoke(main, ["outer"])
    assert result.exit_code == 130 and "Aborted!" not in result.output, result.output
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
