"""The whole shared corpus converts into valid records whose offsets hold."""

from __future__ import annotations

import pytest

from pmparse.library.store import Library
from pmparse.library.validate import validate_library
from tests.helpers import assert_offsets, source_text


@pytest.mark.xdist_group("corpus_library")
def test_every_corpus_file_converts_and_validates(corpus_library):
    files, report, library = corpus_library
    assert len(files) > 500
    assert not report.failed, report.failed[:3]
    checked, problems = validate_library(library)
    assert not problems, problems[:5]
    items = 0
    cards = Library.open(library).entries.values()
    for entry in cards:
        items += assert_offsets(entry.card, source_text(entry.card))
    assert checked == len(list(cards)) and items > 3000
