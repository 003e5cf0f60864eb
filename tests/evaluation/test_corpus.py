"""The whole shared corpus converts into valid records whose offsets hold."""

from __future__ import annotations

from pmparse.batch.convert import convert
from pmparse.evaluation.corpus import incident_files
from pmparse.library.store import Library
from pmparse.library.validate import validate_library
from tests.helpers import assert_offsets, source_text


def test_every_corpus_file_converts_and_validates(corpus_root, tmp_path):
    files = incident_files(corpus_root, include_extra=True)
    assert len(files) > 500
    report = convert([str(corpus_root / rel) for _, rel in files], tmp_path / "lib")
    assert not report.failed, report.failed[:3]
    checked, problems = validate_library(tmp_path / "lib")
    assert not problems, problems[:5]
    items = 0
    cards = Library.open(tmp_path / "lib").entries.values()
    for entry in cards:
        items += assert_offsets(entry.card, source_text(entry.card))
    assert checked == len(list(cards)) and items > 3000
