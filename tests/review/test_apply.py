"""Writing a reviewer's decisions: a record and its base are written both or neither.

A decision rewrote the record, then advanced its base; a base pushed past the 128 MiB a state
file may be (made small here) failed after the record was written, so the record held the
decision and the base did not: the next ``convert`` read the accepted field as the person's edit.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pmparse.library import statefiles
from pmparse.library.store import Library
from pmparse.review.session import review
from tests.helpers import reviewed_with_pending

# written for these tests: a short report, then the long list its team added later
_REPORT = ("# Search index outage\n\nSummary: Search returned empty pages for an hour.\n\n"
           "Root cause: A schema change dropped the index's field mapping during a deploy.\n")
_ADDED = "\nAction items:\n\n" + "".join(
    f"- Add check number {n} for mapping drift to the deploy pipeline of the search cluster.\n" for n in range(40))


def _files(library: Path) -> dict[str, bytes]:
    return {p.relative_to(library).as_posix(): p.read_bytes() for p in sorted(library.rglob("*"))
            if p.is_file() and not p.name.startswith("index")}


@pytest.fixture()
def pending(tmp_path) -> Path:
    """A library whose reviewed record waits on a suggestion adding forty action items."""
    library = tmp_path / "lib"
    reviewed_with_pending(tmp_path / "reports" / "search.md", library, _REPORT, _ADDED)
    return library


def _limit_between_base_and_suggestion(library: Path, monkeypatch) -> None:
    base = (library / ".pmparse" / "base" / "IL-0001.json").stat().st_size
    suggestion = (library / ".pmparse" / "pending" / "IL-0001.json").stat().st_size
    assert suggestion > base + 2000  # the action items make the base grow past the limit set
    monkeypatch.setattr(statefiles, "STATE_READ_LIMIT", base + 1000)


@pytest.mark.parametrize("how", [{"accept": ["action_items"]}, {"items": ["action_items:1,2,3"]}])
def test_a_decision_whose_base_would_be_too_large_writes_neither_the_record_nor_the_base(pending, monkeypatch, how):
    _limit_between_base_and_suggestion(pending, monkeypatch)
    before = _files(pending)
    report = review(pending, reviewer="tester", **how)
    assert len(report.errors) == 1, report.errors
    assert "base/IL-0001.json" in report.errors[0] and "expected a state file of at most" in report.errors[0]
    after = _files(pending)
    assert {name: data for name, data in after.items() if before.get(name) != data} == {}
    assert report.still_pending == ["IL-0001"]
    assert Library.open(pending).read_state("pending", "IL-0001") is not None


def test_with_room_for_the_base_the_same_decision_writes_both(pending):
    report = review(pending, reviewer="tester", accept=["action_items"])
    assert report.errors == []
    library = Library.open(pending)
    record = library.entries["IL-0001"].card
    base = library.read_state("base", "IL-0001")
    assert len(record.action_items) == 40 and [i.text for i in base.action_items] == [i.text for i in record.action_items]


def test_a_decision_whose_record_would_be_too_large_to_read_back_writes_nothing(pending, monkeypatch):
    # the record itself is read back up to 128 MiB too (made small here): one grown past it by a
    # review was written, and every later command refused it
    record = pending / "IL-0001.yaml"
    monkeypatch.setattr(statefiles, "RECORD_READ_LIMIT", record.stat().st_size + 1000)
    before = _files(pending)
    report = review(pending, reviewer="tester", accept=["action_items"])
    assert len(report.errors) == 1 and "IL-0001.yaml" in report.errors[0], report.errors
    assert "expected a record of at most" in report.errors[0]
    assert {name: data for name, data in _files(pending).items() if before.get(name) != data} == {}
