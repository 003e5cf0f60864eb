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


def _long_memory(library: Path) -> int:
    """Give the record a rejection memory far larger than its base and record (rejections of older
    texts of the source): its size, before any decision."""
    from pmparse.review.rejections import Rejection, Rejections

    older = [Rejection(sha256=f"{n:064x}", model="0.1.0/rules", field="trigger", value_sha256=f"{n + 1:064x}",
                       decision="rejected", by="earlier", at="2031-01-01T00:00:00+00:00") for n in range(600)]
    path = library / ".pmparse" / "rejected" / "IL-0001.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(Rejections(rejected=older).model_dump_json(indent=2) + "\n", encoding="utf-8")
    return path.stat().st_size


@pytest.mark.parametrize("how", [{"reject": ["action_items"]}, {"items": ["action_items:1,2,3"]}, "edit"])
def test_a_decision_whose_rejection_memory_would_be_too_large_writes_nothing(pending, monkeypatch, how):
    # the memory is read back up to 128 MiB too (made small here): one grown past it by a review
    # was written beside the decision, and later refused, the rejections in it forgotten
    memory = _long_memory(pending)
    assert memory > (pending / ".pmparse" / "pending" / "IL-0001.json").stat().st_size + 20_000
    monkeypatch.setattr(statefiles, "STATE_READ_LIMIT", memory + 100)  # room for the base, not one more rejection
    before = _files(pending)
    if how == "edit":
        from pmparse.library.records import card_data
        from pmparse.review.decisions import Decision

        items = card_data(Library.open(pending).read_state("pending", "IL-0001"))["action_items"]
        value = [{**items[0], "text": "Our own words for the first check."}, *items[1:3]]
        report = review(pending, reviewer="tester",
                        ask=lambda diff, change, position, total: Decision("edit", value)
                        if change.field == "action_items" else Decision("skip"))
    else:
        report = review(pending, reviewer="tester", **how)
    assert len(report.errors) == 1, report.errors
    assert "rejected/IL-0001.json" in report.errors[0] and "expected a state file of at most" in report.errors[0]
    assert {name: data for name, data in _files(pending).items() if before.get(name) != data} == {}
    assert report.still_pending == ["IL-0001"]


def test_a_draft_field_dropped_whose_memory_would_be_too_large_leaves_the_draft_as_it_was(tmp_path, monkeypatch):
    from pmparse.batch.convert import convert

    source = tmp_path / "reports" / "search.md"
    source.parent.mkdir(parents=True)
    source.write_text(_REPORT + _ADDED, encoding="utf-8")
    library = tmp_path / "lib"
    assert convert([str(source)], library, jobs=1).counts["converted"] == 1
    memory = _long_memory(library)
    monkeypatch.setattr(statefiles, "STATE_READ_LIMIT", memory + 100)
    before = _files(library)
    report = review(library, reviewer="tester", drafts=True, reject=["action_items"])
    assert len(report.errors) == 1 and "rejected/IL-0001.json" in report.errors[0], report.errors
    assert {name: data for name, data in _files(library).items() if before.get(name) != data} == {}


def test_a_title_rejected_with_the_fact_it_restates_writes_both_rejections_or_neither(longer_outage, monkeypatch):
    """The title and the duration it restates are one decision: with room in the memory for one
    rejection only, the title's was written (its base advanced) and the duration's refused, so the
    duration was offered alone again, to be taken under a title that says another one."""
    from pmparse.review.rejections import load_rejections

    library = longer_outage
    memory = _long_memory(library)
    monkeypatch.setattr(statefiles, "STATE_READ_LIMIT", memory + memory // 600 * 3 // 2)  # one more, not two
    before = _files(library)
    report = review(library, reviewer="tester", reject=["title"])
    assert len(report.errors) == 1 and "rejected/IL-0001.json" in report.errors[0], report.errors
    assert {name: data for name, data in _files(library).items() if before.get(name) != data} == {}
    assert len(load_rejections(Library.open(library), "IL-0001").rejected) == 600
    assert report.still_pending == ["IL-0001"]


def test_a_draft_title_dropped_with_the_fact_it_restates_writes_both_rejections_or_neither(tmp_path, monkeypatch):
    """The same through ``review --drafts``: the title was dropped from the draft, the duration kept."""
    from pmparse.batch.convert import convert
    from pmparse.nlp.pipeline import pipeline_config
    from tests.review.pending_records import OUTAGE

    source = tmp_path / "outage.md"
    source.write_text(OUTAGE.format(end="31"), encoding="utf-8")
    library = tmp_path / "lib"
    assert convert([str(source)], library, config=pipeline_config()).counts["converted"] == 1
    memory = _long_memory(library)
    monkeypatch.setattr(statefiles, "STATE_READ_LIMIT", memory + memory // 600 * 3 // 2)  # one more, not two
    before = _files(library)
    report = review(library, reviewer="tester", drafts=True, reject=["title"])
    assert [(o.field, o.action) for o in report.outcomes] == [], report.outcomes
    assert len(report.errors) == 1 and "rejected/IL-0001.json" in report.errors[0], report.errors
    assert {name: data for name, data in _files(library).items() if before.get(name) != data} == {}
