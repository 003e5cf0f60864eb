"""The libraries' log records as the command line prints them: escaped, and only with -v."""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
import warnings

from pmparse.logs import command_logs, worker_setting

#: Hostile text a page could put into a library's message: a terminal title (OSC), a colour
#: (CSI), a C1 control, a right-to-left override and a line break faking a line of pmparse's own.
HOSTILE = "\x1b]0;owned\x07\x1b[31mred\x9b\u202eevil\nfailed: nothing"


def test_a_library_message_with_s_formatting_is_printed_escaped_with_verbose(capsys):
    with command_logs(verbose=True):
        # pdfminer's cmapdb writes its message with %s, not %r
        logging.getLogger("pdfminer.cmapdb").warning("%s%s", "bad cmap: ", HOSTILE)
    err = capsys.readouterr().err
    assert err == ("pdfminer.cmapdb: bad cmap: \\x1b]0;owned\\x07\\x1b[31mred\\x9b\\u202eevil\\x0afailed: "
                   "nothing\n")


def test_without_verbose_only_pmparse_own_records_are_shown(capsys):
    with command_logs():
        logging.getLogger("pdfminer.pdfinterp").warning("chatter %s", HOSTILE)
        logging.getLogger("trafilatura.core").error("chatter %s", HOSTILE)
        logging.getLogger("pmparse.nlp.components.tagger").warning("no category model at %s", HOSTILE)
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            warnings.warn(HOSTILE, UserWarning)  # a library's warnings.warn() is library chatter too
    err = capsys.readouterr().err
    assert "chatter" not in err and "UserWarning" not in err, err
    assert err.startswith("warning: no category model at \\x1b]0;owned\\x07") and err.count("\n") == 1
    assert "\x1b" not in err


def test_a_library_own_stream_handler_and_a_traceback_print_escaped_too():
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)  # as spaCy writes through its own handler
    handler.setFormatter(logging.Formatter("%(message)s"))
    library = logging.getLogger("some_library")
    library.addHandler(handler)
    library.propagate = False
    try:
        with command_logs():
            try:
                raise ValueError(HOSTILE)
            except ValueError:
                library.exception("parse failed on %s", HOSTILE)
    finally:
        library.removeHandler(handler)
        library.propagate = True
    written = stream.getvalue()
    assert "\x1b" not in written and "\u202e" not in written and "\x9b" not in written
    assert "parse failed on \\x1b]0;owned" in written and "ValueError: \\x1b]0;owned" in written


def test_a_library_console_handler_prints_nothing_of_its_own_while_a_command_runs(capsys):
    # spaCy adds a handler to the standard error of its logger when it is imported, which a
    # command does after it started; its records reach the root's handler too
    library = logging.getLogger("console_library")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("[raw] %(message)s"))
    library.addHandler(handler)
    try:
        with command_logs():
            library.warning("held back")
        assert capsys.readouterr().err == ""
        with command_logs(verbose=True):
            library.warning("shown once")
        assert capsys.readouterr().err == "console_library: shown once\n"
        assert library.handlers == [handler]  # the library's own, put back after the command
    finally:
        library.removeHandler(handler)


def test_a_message_ending_on_a_line_break_prints_no_escaped_break(capsys):
    with command_logs(verbose=True):
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            warnings.warn("chatter", UserWarning)  # a captured warning's text ends on a line break
        logging.getLogger("some_library").warning("two\nlines\n")
    err = capsys.readouterr().err
    assert err.endswith("some_library: two\\x0alines\n"), err
    assert "UserWarning: chatter\n" in err and err.count("\n") == 2  # without its source line
    with command_logs(verbose=True):
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            warnings.warn("first\nsecond", UserWarning)  # a message of two lines keeps both
    assert "UserWarning: first\\x0asecond\n" in capsys.readouterr().err


def test_the_logging_of_the_calling_program_is_put_back():
    factory, handlers = logging.getLogRecordFactory(), list(logging.getLogger().handlers)
    with command_logs():
        assert worker_setting() is False
    assert worker_setting() is None
    assert logging.getLogRecordFactory() is factory and logging.getLogger().handlers == handlers
    record = logging.getLogger("x").makeRecord("x", logging.WARNING, __file__, 1, "%s", (HOSTILE,), None)
    assert record.getMessage() == HOSTILE  # an API user's records are theirs, unescaped


def test_convert_shows_pdfminer_messages_only_with_verbose_and_escaped(tmp_path):
    from tests.helpers import REPO
    from tests.ingest.documents import LINE, raw_pdf

    # operands that are no numbers: pdfminer warns, naming them, from the worker process
    pdf = tmp_path / "odd.pdf"
    pdf.write_bytes(raw_pdf(b"1 0 0 1 0 (\x1b]0;owned\x07) cm\n" + LINE))
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}

    def run(*options: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "pmparse", *options, "convert", str(pdf), "-o",
                               str(tmp_path / f"lib{len(options)}"), "--jobs", "1", "--no-progress"],
                              capture_output=True, text=True, timeout=300, env=env)

    quiet, verbose = run(), run("-v")
    assert quiet.returncode == 0 and verbose.returncode == 0, (quiet.stderr, verbose.stderr)
    assert quiet.stderr == "", quiet.stderr
    assert "pdfminer.pdfinterp: Cannot concatenate matrix" in verbose.stderr, verbose.stderr
    assert "\x1b" not in verbose.stderr


def test_a_command_run_inside_a_command_prints_each_record_once(capsys):
    # click's CliRunner inside a command (a test host, a program driving pmparse): the inner
    # command's handler replaces the outer one while it runs, not prints beside it
    with command_logs(verbose=False):
        with command_logs(verbose=True):
            logging.getLogger("pdfminer.pdfpage").warning("inner %s", HOSTILE)
            logging.getLogger("pmparse.batch").warning("own inner")
        logging.getLogger("pdfminer.pdfpage").warning("outer chatter")
        logging.getLogger("pmparse.batch").warning("own outer")
    err = capsys.readouterr().err
    assert err.count("pdfminer.pdfpage: inner \\x1b]0;owned") == 1, err
    assert err.count("warning: own inner\n") == 1 and err.count("warning: own outer\n") == 1, err
    assert "outer chatter" not in err  # the outer command's own setting is back


def test_a_message_that_cannot_be_formatted_prints_no_raw_control_characters(capsys, monkeypatch):
    # pytest's own capture handler re-raises such an error: the command's handler alone here
    monkeypatch.setattr(logging.getLogger(), "handlers", [])

    class PageValue:
        """A library's object whose text cannot be made, with the page's words in the error."""

        def __str__(self) -> str:
            raise ValueError(HOSTILE)

    with command_logs(verbose=True):
        logging.getLogger("pdfminer.psparser").warning("bad token %s", PageValue())
        logging.getLogger("pmparse.ingest").warning("%d pages", "not a number")
    err = capsys.readouterr().err
    assert not set(err) & set("\x1b\x07\x9b\u202e"), err
    assert "--- Logging error ---" not in err
    assert err.count("\n") == 2, err  # one line each, naming the logger
    assert err.startswith("pdfminer.psparser: ") and "\nwarning: " in err


def test_a_console_handler_under_a_logger_that_stops_propagating_keeps_printing(capsys):
    # a library whose top logger does not propagate (its file handler is all it keeps): the
    # records of its module logger never reach the root's handler, so that logger's own console
    # handler is all that prints them to the console while the command runs
    top, module = logging.getLogger("stopping_library"), logging.getLogger("stopping_library.module")
    kept = logging.FileHandler(os.devnull)
    console = logging.StreamHandler(sys.stderr)
    console.setFormatter(logging.Formatter("[own] %(message)s"))
    top.addHandler(kept)
    top.propagate = False
    module.addHandler(console)
    try:
        with command_logs():
            module.warning("still printed")
        assert capsys.readouterr().err == "[own] still printed\n"
        assert module.handlers == [console]
    finally:
        top.removeHandler(kept)
        kept.close()
        top.propagate = True
        module.removeHandler(console)


def test_console_handlers_are_put_back_in_their_order(capsys):
    # one handler shared by two loggers, and a logger with two console handlers and a file one
    first, second = logging.getLogger("order_library.a"), logging.getLogger("order_library.b")
    shared, other = logging.StreamHandler(sys.stderr), logging.StreamHandler(sys.stderr)
    kept = logging.FileHandler(os.devnull)
    first.handlers[:] = [shared, kept, other]
    second.handlers[:] = [shared]
    try:
        with command_logs():
            first.warning("one")
            second.warning("two")
            assert first.handlers == [kept] and second.handlers == []
        capsys.readouterr()
        assert first.handlers == [shared, kept, other] and second.handlers == [shared]
    finally:
        first.handlers[:] = []
        second.handlers[:] = []
        kept.close()
