from __future__ import annotations

import json
from pathlib import Path

import pytest

from pmparse.errors import LabelError, PmparseError
from pmparse.training.spans import (
    SPANS_DIR,
    covered,
    development_paths,
    read_training_spans,
    relabel_root_cause,
    span_files,
)
from pmparse.util import sha256_text, text_sha256
from tests.helpers import write_jsonl

# written for these tests
REPORT = ("The upload page failed for an hour. A retry loop in the worker never gave up. "
          "We restarted the workers. Add a limit to the retries.")
CAUSE = (REPORT.index("A retry"), REPORT.index("We restarted") - 1)


@pytest.fixture()
def corpus(tmp_path) -> Path:
    root = tmp_path / "corpus"
    (root / "acme").mkdir(parents=True)
    (root / "acme" / "one.md").write_text(REPORT, encoding="utf-8")
    (root / "acme" / "two - a long title of the report.md").write_text("Nothing is said of the cause.", encoding="utf-8")
    (root / "acme" / "bad.md").write_bytes(b"\xff\xfe not text")
    return root


def _sha(root: Path, rel: str) -> str:
    return text_sha256((root / rel).read_bytes())


def _line(root: Path, path: str = "acme/one.md", spans=None, **changes) -> dict:
    named = next(root.glob(path), None)
    row = {"id": "train/" + path.rsplit(".", 1)[0], "path": path,
           "sha256": _sha(root, named.relative_to(root).as_posix()) if named else "2" * 64,
           "annotated": ["root_cause"], "spans": [{"field": "root_cause", "start": CAUSE[0], "end": CAUSE[1]}]
           if spans is None else spans, "annotator": "t1"}
    row.update(changes)
    return row



def test_a_valid_file_gives_spans_by_path_and_patterns_name_their_file(tmp_path, corpus):
    path = write_jsonl(tmp_path, "a.jsonl", _line(corpus), _line(corpus, "acme/two*.md", spans=[], annotator="t2"))
    read = read_training_spans(corpus, [path])
    assert read.spans == {"acme/one.md": [CAUSE], "acme/two - a long title of the report.md": []}
    assert read.annotators["acme/one.md"] == "t1" and read.skipped == []
    assert REPORT[slice(*CAUSE)].startswith("A retry loop") and REPORT[slice(*CAUSE)].endswith("gave up.")


def test_lines_that_cannot_train_are_skipped_with_a_reason(tmp_path, corpus):
    changed = _line(corpus, sha256="0" * 64)
    path = write_jsonl(tmp_path, "a.jsonl", changed, _line(corpus, "acme/one.md", annotator="t9"))
    gold = write_jsonl(tmp_path, "b.jsonl", _line(corpus))
    read = read_training_spans(corpus, [path])
    # the changed file's line is left out; the second line of the same document then trains
    assert read.annotators == {"acme/one.md": "t9"}
    assert len(read.skipped) == 1 and "different sha256" in read.skipped[0] and "a.jsonl line 1" in read.skipped[0]
    read = read_training_spans(corpus, [gold], exclude={"acme/one.md"})
    assert read.spans == {} and "never trains" in read.skipped[0]
    twice = write_jsonl(tmp_path, "c.jsonl", _line(corpus), _line(corpus, annotator="t2"))
    read = read_training_spans(corpus, [twice])
    assert read.annotators == {"acme/one.md": "t1"} and "second line" in read.skipped[0]
    missing = dict(_line(corpus), path="acme/gone.md")
    undecodable = dict(_line(corpus), path="acme/bad.md", sha256=_sha(corpus, "acme/bad.md"))
    nomatch = dict(_line(corpus), path="acme/none*.md")
    read = read_training_spans(corpus, [write_jsonl(tmp_path, "d.jsonl", missing, undecodable, nomatch)])
    assert read.spans == {} and len(read.skipped) == 3
    assert "acme/gone.md: expected the annotated file" in read.skipped[0]
    assert "acme/bad.md: expected the annotated file" in read.skipped[1]
    assert "found none or several" in read.skipped[2]


@pytest.mark.parametrize("row, message", [
    ("{not json", "expected JSON"),
    ({"id": "x", "path": "acme/one.md"}, "expected a root-cause span line"),
    ("extra", "Extra inputs"),
    ("trigger", "spans.0.field"),
    ("backwards", "start < end"),
    ("overlap", "do not overlap"),
    ("beyond", "inside the text"),
    ("sha", "sha256"),
])
def test_an_invalid_line_is_a_typed_error_naming_file_and_line(tmp_path, corpus, row, message):
    good = _line(corpus)
    rows = {
        "extra": dict(good, card={}),
        "trigger": dict(good, spans=[{"field": "trigger", "start": 0, "end": 5}]),
        "backwards": dict(good, spans=[{"field": "root_cause", "start": 9, "end": 5}]),
        "overlap": dict(good, spans=[{"field": "root_cause", "start": 0, "end": 10},
                                     {"field": "root_cause", "start": 5, "end": 12}]),
        "beyond": dict(good, spans=[{"field": "root_cause", "start": 0, "end": len(REPORT) + 1}]),
        "sha": dict(good, sha256="not hex"),
    }
    first = _line(corpus, "acme/two*.md", spans=[])  # another document: the second line is checked in full
    path = write_jsonl(tmp_path, "a.jsonl", first, rows.get(row, row) if isinstance(row, str) else row)
    with pytest.raises(LabelError, match="line 2") as caught:
        read_training_spans(corpus, [path], exclude=set())
    assert message in str(caught.value) and caught.value.path == str(path)
    assert isinstance(caught.value, PmparseError)


def test_covered_needs_half_of_a_unit():
    units = [(0, 10), (10, 20), (20, 30), (30, 30)]
    assert covered(units, [(5, 15)]) == [True, True, False, False]
    assert covered(units, [(4, 9), (24, 30)]) == [True, False, True, False]
    assert covered(units, [(6, 15)]) == [False, True, False, False]
    assert covered(units, []) == [False] * 4


def test_relabel_puts_annotated_units_at_full_weight_and_drops_unannotated_root_causes():
    labels = [("symptoms", 0.6), ("root_cause", 1.0), ("lessons", 0.3), None, ("root_cause", 0.6)]
    offsets = [(0, 10), (10, 20), (20, 30), (30, 40), (40, 50)]
    assert relabel_root_cause(labels, offsets, [(20, 40)]) == [
        ("symptoms", 0.6), None, ("root_cause", 1.0), ("root_cause", 1.0), None]
    # a document that states no cause keeps no root-cause label
    assert relabel_root_cause(labels, offsets, []) == [("symptoms", 0.6), None, ("lessons", 0.3), None, None]


def test_offsets_index_the_file_read_as_text_with_its_line_breaks_as_newlines(tmp_path, corpus):
    # as ingest reads it: an annotation of a CRLF file indexes the same text as on a system
    # that checked the file out with LF line breaks
    raw = "First line.\r\nThe cause was a full disk.\r\n"
    (corpus / "acme" / "crlf.md").write_bytes(raw.encode("utf-8"))
    text = raw.replace("\r\n", "\n")
    span = (text.index("The cause"), text.index("disk.") + len("disk."))
    line = _line(corpus, "acme/crlf.md", spans=[{"field": "root_cause", "start": span[0], "end": span[1]}])
    assert line["sha256"] == sha256_text(text)
    path = write_jsonl(tmp_path, "a.jsonl", line)
    assert read_training_spans(corpus, [path]).spans == {"acme/crlf.md": [span]}


def test_gold_and_development_documents_never_train(tmp_path, corpus):
    dev = tmp_path / "dev"
    dev.mkdir()
    write_jsonl(dev, "root_cause.jsonl", {"id": "dev/acme/two", "path": "acme/two*.md"})
    path = write_jsonl(tmp_path, "a.jsonl", _line(corpus), _line(corpus, "acme/two*.md", spans=[]))
    read = read_training_spans(corpus, [path], dev_folder=dev)
    assert list(read.spans) == ["acme/one.md"] and "acme/two - a long title of the report.md: a gold" in read.skipped[0]
    # a gold text filed under another name is known by its sha256
    read = read_training_spans(corpus, [path], exclude_shas={_sha(corpus, "acme/one.md")}, dev_folder=tmp_path / "none")
    assert list(read.spans) == ["acme/two - a long title of the report.md"] and "never trains" in read.skipped[0]


@pytest.mark.parametrize("bad", ["../outside.md", "/etc/hostname", "acme/../acme/one.md", "./acme/one.md"])
def test_a_path_outside_the_corpus_is_a_typed_error(tmp_path, corpus, bad):
    path = write_jsonl(tmp_path, "a.jsonl", dict(_line(corpus), path=bad))
    with pytest.raises(LabelError, match="line 1: expected a plain path"):
        read_training_spans(corpus, [path])


def test_the_shipped_span_files_are_valid_and_every_line_can_train(corpus_root):
    from pmparse.training.fields import gold_paths, gold_shas

    files = span_files()
    assert files and all(f.parent == SPANS_DIR for f in files)
    lines = [json.loads(line) for f in files for line in f.read_text(encoding="utf-8").splitlines()]
    assert all(set(row) == {"id", "path", "sha256", "annotated", "spans", "annotator"} for row in lines)
    read = read_training_spans(corpus_root, exclude=gold_paths(root=corpus_root), exclude_shas=gold_shas())
    # no line is a gold or development document, a changed file or a second reading
    assert read.skipped == [] and len(read.spans) == len(lines) == len({row["id"] for row in lines})
    assert not set(read.spans) & development_paths(corpus_root)
