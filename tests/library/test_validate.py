"""validate names the file, the line and the reason of every problem, and says when a suggestion
waits beside a record a person broke by hand (texts written for these tests)."""

from __future__ import annotations

import os

from pmparse.batch.convert import convert
from pmparse.library.validate import validate_library
from pmparse.nlp.pipeline import pipeline_config

_REPORT = ("# Queue outage on 2031-05-02\n\nThe job queue stopped for 40 minutes.\n\n## Root cause\n\n"
           "A lease timeout of zero handed every job back at once.\n")


def _library(tmp_path):
    source = tmp_path / "outage.md"
    source.write_text(_REPORT, encoding="utf-8")
    convert([str(source)], tmp_path / "lib", config=pipeline_config(rules_only=True), jobs=1)
    return source, tmp_path / "lib" / "IL-0001.yaml"


def test_a_field_of_the_wrong_type_written_by_hand_is_named_with_its_line(tmp_path):
    _, record = _library(tmp_path)
    lines = record.read_text(encoding="utf-8").splitlines()
    at = next(n for n, line in enumerate(lines) if line.startswith("duration_minutes:"))
    lines[at] = "duration_minutes: about forty minutes"
    record.write_text("\n".join(lines) + "\n", encoding="utf-8")
    checked, problems = validate_library(tmp_path / "lib")
    assert checked == 1 and len(problems) == 1
    assert problems[0].line == at + 1
    assert str(problems[0]).startswith(f"IL-0001.yaml:{at + 1}: duration_minutes: ")


def test_a_nested_field_of_the_wrong_type_is_named_with_the_line_of_the_value(tmp_path):
    _, record = _library(tmp_path)
    text = record.read_text(encoding="utf-8")
    lines = text.splitlines()
    at = next(n for n, line in enumerate(lines) if line.startswith("  confidence:"))
    lines[at] = "  confidence: very"
    record.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _, problems = validate_library(tmp_path / "lib")
    assert [p.line for p in problems] == [at + 1]


def test_a_record_of_the_wrong_shape_says_a_suggestion_waits_beside_it(tmp_path):
    source, record = _library(tmp_path)
    text = record.read_text(encoding="utf-8").replace("status: suggested", "status: reviewed", 1)
    lines = text.splitlines()
    at = next(n for n, line in enumerate(lines) if line.startswith("duration_minutes:"))
    lines[at] = "duration_minutes: [40]"
    record.write_text("\n".join(lines) + "\n", encoding="utf-8")
    source.write_text(_REPORT + "\n## Action items\n\n- Refuse a lease timeout of zero.\n", encoding="utf-8")
    report = convert([str(source)], tmp_path / "lib", config=pipeline_config(rules_only=True), jobs=1)
    assert report.counts["pending"] == 1
    _, problems = validate_library(tmp_path / "lib")
    assert problems and all("a suggestion waits for review in .pmparse/pending/IL-0001.json" in p.reason
                            for p in problems)


def _record_naming(folder, location):
    from pmparse.card.schema import Card
    from pmparse.library.records import dumps
    from tests.helpers import text_card

    data = text_card("IL-0001", "The database failed.", root_cause=[(0, 20, 0.9)]).model_dump(mode="json")
    data["source"]["location"], data["source"]["extracted_text"] = str(location), None
    (folder / "IL-0001.yaml").write_text(dumps(Card.model_validate(data)), encoding="utf-8")


def _release(fifo) -> bool:
    """Open ``fifo`` for writing and close it: a reader stuck opening it gets its end. Whether a
    reader held it open (one waiting for a writer: opening it without one fails)."""
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:  # ENXIO: no reader has it open
        return False
    return True


def _opens_of(path, monkeypatch) -> list[str]:
    """How each open of ``path`` from now on was made: ``blocking`` or ``non-blocking``."""
    import builtins
    import io

    opens, target = [], os.fspath(path)
    real_os_open, real_open = os.open, io.open

    def os_open(file, flags, *args, **kwargs):
        if isinstance(file, (str, os.PathLike)) and os.fspath(file) == target:
            opens.append("non-blocking" if flags & os.O_NONBLOCK else "blocking")
        return real_os_open(file, flags, *args, **kwargs)

    def io_open(file, *args, **kwargs):
        if isinstance(file, (str, os.PathLike)) and os.fspath(file) == target:
            opens.append("blocking")  # open() has no non-blocking mode
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(os, "open", os_open)
    monkeypatch.setattr(io, "open", io_open)
    monkeypatch.setattr(builtins, "open", io_open)
    return opens


def test_a_record_naming_a_fifo_as_its_source_is_checked_without_reading_it(tmp_path, monkeypatch):
    # a hand-edited or shared record may name any path as its source: a FIFO blocked validate,
    # diff, review and site for ever, /dev/zero was read until the memory ran out (24 GB in 13 s)
    import threading

    source = tmp_path / "source.md"
    os.mkfifo(source)
    library = tmp_path / "lib"
    library.mkdir()
    _record_naming(library, source)
    opens = _opens_of(source, monkeypatch)
    outcome = {}
    worker = threading.Thread(target=lambda: outcome.update(result=validate_library(library)), daemon=True)
    worker.start()
    # no writer ever opens the FIFO: a blocking open would wait for ever. The join's deadline is a
    # hang guard only; then the FIFO is released (a reader stuck on it ends) and the facts decide
    worker.join(60)
    held = _release(source)
    worker.join(60)
    assert not held, "validate held the FIFO open, waiting for a writer"
    assert "blocking" not in opens, opens
    assert outcome["result"] == (1, [])


def _run_cli(*args):
    """The command line in a child process: the hole this guards crashed the process itself."""
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "pmparse", *map(str, args)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})


def test_a_record_nested_past_the_limit_is_invalid_not_a_crash(tmp_path):
    # fourth round of hostile inputs: a record edited by hand (or received with a shared library)
    # holding "[" 60,000 deep, or "- - - ..." made libyaml's loader end every command that read the
    # library with a segmentation fault (exit -11, no message)
    _, record = _library(tmp_path)
    text = record.read_text(encoding="utf-8")
    record.write_text(text.replace("lessons: []", "lessons: " + "[" * 60_000, 1), encoding="utf-8")
    (tmp_path / "lib" / "IL-0002.yaml").write_text(text.replace("IL-0001", "IL-0002").replace(
        "lessons: []", "lessons:\n  " + "- " * 60_000 + "x", 1), encoding="utf-8")
    done = _run_cli("validate", tmp_path / "lib")
    assert done.returncode == 1, (done.returncode, done.stderr[-500:])
    assert "IL-0001.yaml: (record): not readable as YAML: expected values nested at most 1000 levels deep" in done.stdout
    assert "IL-0002.yaml: (record): not readable as YAML: expected values nested at most 1000 levels deep" in done.stdout
    assert "Traceback" not in done.stderr


def test_a_json_record_nested_past_the_recursion_limit_is_invalid_not_a_traceback(tmp_path):
    # the YAML record's twin in a JSON library: json.loads raises RecursionError (no crash, but
    # no decode error either), which validate, and the scan every command opens the library with
    # (source_keys), let through as a traceback
    from pmparse.library.records import dumps, loads, source_keys
    from pmparse.library.store import Library

    _, record = _library(tmp_path)
    card = loads(record.read_text(encoding="utf-8"), "yaml", str(record))
    text = dumps(card, "json")
    assert '"lessons": []' in text
    deep = tmp_path / "lib" / "IL-0001.json"
    deep.write_text(text.replace('"lessons": []', '"lessons": ' + "[" * 100_000 + "]" * 100_000, 1), encoding="utf-8")
    record.unlink()
    checked, problems = validate_library(tmp_path / "lib")
    assert checked == 1 and len(problems) == 1
    assert "IL-0001.json: (record): " in str(problems[0]) and "nested too deep" in str(problems[0])
    assert source_keys(deep) == (card.source.sha256, card.source.location)
    library = Library.open(tmp_path / "lib")
    assert library.entries["IL-0001"].card is None
