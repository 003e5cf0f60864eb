"""Fixtures shared by the ``review`` tests: a library whose records wait on suggestions, and a
reviewed record whose amended source changes the duration its title says."""

from __future__ import annotations

import pytest

from pmparse.batch.convert import convert
from pmparse.library.store import Library
from pmparse.nlp.pipeline import pipeline_config
from pmparse.review.pending import pending_diffs
from tests.helpers import CORE_DNS, INOTIFY
from tests.review.pending_records import HUMAN_LINES, MOVED, OUTAGE, proposed, reconvert


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


@pytest.fixture()
def longer_outage(tmp_path):
    """A reviewed record of a 31-minute outage whose amended source now says 41 minutes."""
    source = tmp_path / "outage.md"
    source.write_text(OUTAGE.format(end="31"), encoding="utf-8")
    lib = tmp_path / "lib"
    config = pipeline_config()
    convert([str(source)], lib, config=config)
    record = lib / "IL-0001.yaml"
    record.write_text(record.read_text(encoding="utf-8").replace("status: suggested", "status: reviewed"),
                      encoding="utf-8")
    assert Library.read(record).duration_minutes == 31 and "lasting 31 minutes" in Library.read(record).title
    source.write_text(OUTAGE.format(end="41"), encoding="utf-8")
    assert convert([str(source)], lib, config=config).results[0].status == "pending"
    diff = pending_diffs(lib).diffs[0]
    title = next(c for c in diff.changes if c.field == "title")
    assert title.linked == ["duration_minutes"]
    return lib
