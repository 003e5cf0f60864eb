"""Fixtures shared by the ``review`` tests: a library whose records wait on suggestions."""

from __future__ import annotations

import pytest

from pmparse.batch.convert import convert
from tests.helpers import CORE_DNS, INOTIFY
from tests.review.pending_records import HUMAN_LINES, MOVED, proposed, reconvert


@pytest.fixture()
def sources(corpus_root):
    """Two corpus reports."""
    return [str(corpus_root / CORE_DNS), str(corpus_root / INOTIFY)]


@pytest.fixture()
def library(sources, tmp_path, monkeypatch):
    """Two corpus records (IL-0001 edited by hand: a comment and the date; IL-0002 marked
    reviewed), both re-converted by another model so each has a pending suggestion."""
    lib = tmp_path / "lib"
    assert convert(sources, lib).counts["converted"] == 2
    record = lib / "IL-0001.yaml"
    text = record.read_text(encoding="utf-8")
    assert "\ndate: '2020-02-03'\n" in text
    record.write_text(text.replace("\ndate: '2020-02-03'\n", HUMAN_LINES), encoding="utf-8")
    (lib / "IL-0002.yaml").write_text((lib / "IL-0002.yaml").read_text(encoding="utf-8").replace(
        "status: suggested", "status: reviewed"), encoding="utf-8")
    return lib


@pytest.fixture()
def pending(library, sources, tmp_path, monkeypatch):
    """``library`` re-converted by another model: each record has a suggestion waiting."""
    assert reconvert(monkeypatch, tmp_path, sources, library) == ["pending", "pending"]
    assert MOVED <= set(proposed(library)) and MOVED <= set(proposed(library, "IL-0002"))
    return library
