"""Batch conversion beside a person's records: renamed and amended sources, new public addresses,
failed writes redone, and a person's record read once per pipeline.

Every fixture text here is written for these tests (no corpus sentences).
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import pmparse.nlp.pipeline as pipeline_module
from pmparse.batch.convert import convert
from pmparse.cli import main
from pmparse.library.store import Library
from pmparse.library.validate import validate_library
from pmparse.nlp.pipeline import PipelineConfig
from pmparse.review.session import review
from tests.batch.reports import REPORT, write_reports


@pytest.mark.parametrize("edited", [False, True])
def test_a_renamed_source_keeps_its_record_and_its_new_name(tmp_path, edited):
    write_reports(tmp_path / "in", 2)
    lib = tmp_path / "lib"
    convert([str(tmp_path / "in")], lib)
    record = lib / "IL-0001.yaml"
    if edited:
        record.write_text(record.read_text(encoding="utf-8").replace("status: suggested", "status: reviewed")
                          + "# checked by hand\n", encoding="utf-8")
    before = Library.read(record)
    old, new = tmp_path / "in" / "report-0000.md", tmp_path / "in" / "report-0009.md"
    old.rename(new)
    results = convert([str(tmp_path / "in")], lib).results
    assert [(Path(r.input).name, r.status, Path(r.record).name) for r in results] == [
        ("report-0001.md", "unchanged", "IL-0002.yaml"), ("report-0009.md", "updated", "IL-0001.yaml")]
    card = Library.read(record)
    assert card.source.location == str(new) and card.source.sha256 == before.source.sha256
    assert [i.text for i in card.symptoms] == [i.text for i in before.symptoms]
    if edited:
        # a person's record: only its source lines changed, the review mark and comment stay
        assert card.status == "reviewed" and record.read_text(encoding="utf-8").endswith("# checked by hand\n")
    # the next run finds both up to date; a new file under the old name is a new source
    assert convert([str(tmp_path / "in")], lib).counts["unchanged"] == 2
    old.write_text(REPORT.format(n=77, m=7), encoding="utf-8")
    results = {Path(r.input).name: (r.status, Path(r.record).name) for r in convert([str(tmp_path / "in")], lib).results}
    assert results["report-0000.md"] == ("converted", "IL-0003.yaml")
    assert not list((lib / ".pmparse" / "pending").glob("*.json"))


def test_a_renamed_person_record_drops_a_suggestion_made_from_its_old_name(tmp_path):
    write_reports(tmp_path / "in", 1)
    lib = tmp_path / "lib"
    convert([str(tmp_path / "in")], lib)
    record = lib / "IL-0001.yaml"
    record.write_text(record.read_text(encoding="utf-8").replace("status: suggested", "status: reviewed"),
                      encoding="utf-8")
    source = tmp_path / "in" / "report-0000.md"
    text = source.read_text(encoding="utf-8")
    source.write_text(text + "\nAn amendment added later.\n", encoding="utf-8")
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"]
    # the amendment is withdrawn and the file renamed: the record follows the text it was made from
    source.unlink()
    (tmp_path / "in" / "renamed.md").write_text(text, encoding="utf-8")
    results = convert([str(tmp_path / "in")], lib).results
    assert [(r.status, Path(r.record).name) for r in results] == [("updated", "IL-0001.yaml")]
    assert Library.read(record).source.location == str(tmp_path / "in" / "renamed.md")
    assert not (lib / ".pmparse" / "pending" / "IL-0001.json").exists()


def test_a_person_record_is_read_once_per_pipeline_not_on_every_run(patch_all, tmp_path, monkeypatch):
    write_reports(tmp_path / "in", 2)
    lib = tmp_path / "lib"
    convert([str(tmp_path / "in")], lib)
    record = lib / "IL-0001.yaml"
    # a reviewed record from before pipeline fingerprints existed
    text = record.read_text(encoding="utf-8").replace("status: suggested", "status: reviewed")
    record.write_text(re.sub(r"\n  fingerprint: \w+", "", text), encoding="utf-8")
    base = lib / ".pmparse" / "base" / "IL-0001.json"
    data = json.loads(base.read_text(encoding="utf-8"))
    del data["pipeline"]["fingerprint"]
    base.write_text(json.dumps(data), encoding="utf-8")
    assert Library.read(record).pipeline.fingerprint is None
    calls = []
    real = pipeline_module.analyse
    patch_all(pipeline_module, "analyse", lambda nlp, source: calls.append(source.location) or real(nlp, source))
    # read again once (nothing to propose: the record stays as the person left it) ...
    first = convert([str(tmp_path / "in")], lib)
    assert calls == [str(tmp_path / "in" / "report-0000.md")] and first.counts["unchanged"] == 2
    assert record.read_text(encoding="utf-8") == re.sub(r"\n  fingerprint: \w+", "", text)
    # ... then skipped like any up-to-date source
    calls.clear()
    assert convert([str(tmp_path / "in")], lib).counts["unchanged"] == 2 and calls == []
    # a suggestion waiting for review is not made again either
    source = tmp_path / "in" / "report-0000.md"
    source.write_text(source.read_text(encoding="utf-8") + "\nAn amendment added later.\n", encoding="utf-8")
    assert [r.status for r in convert([str(tmp_path / "in")], lib).results] == ["pending", "unchanged"]
    calls.clear()
    assert [r.status for r in convert([str(tmp_path / "in")], lib).results] == ["pending", "unchanged"]
    assert calls == []


def _counting(patch_all) -> list[str]:
    calls: list[str] = []
    real = pipeline_module.analyse
    patch_all(pipeline_module, "analyse", lambda nlp, source: calls.append(source.location) or real(nlp, source))
    return calls


def _reviewed(lib: Path, card_id: str = "IL-0001") -> Path:
    record = lib / f"{card_id}.yaml"
    record.write_text(record.read_text(encoding="utf-8").replace("status: suggested", "status: reviewed"),
                      encoding="utf-8")
    return record


def _one_reviewed_report(tmp_path: Path, url_base: str | None = None) -> tuple[Path, Path]:
    """A library of one converted report whose record a person marked reviewed: (library, source)."""
    write_reports(tmp_path / "in", 1)
    lib = tmp_path / "lib"
    convert([str(tmp_path / "in")], lib, url_base=url_base)
    _reviewed(lib)
    return lib, tmp_path / "in" / "report-0000.md"


def _url_after(lib: Path, folder: Path, url_base: str | None, **options) -> str | None:
    """The address IL-0001 holds after converting ``folder`` with ``url_base``."""
    convert([str(folder)], lib, url_base=url_base, **options)
    return Library.read(lib / "IL-0001.yaml").source.url


def test_an_amended_source_of_a_person_record_is_read_once(patch_all, tmp_path, monkeypatch):
    lib, source = _one_reviewed_report(tmp_path)
    calls = _counting(patch_all)
    # an amendment that proposes something: pending once, then skipped while it waits
    source.write_text(source.read_text(encoding="utf-8") + "\n## Detection\n\nA customer told support.\n",
                      encoding="utf-8")
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"] and len(calls) == 1
    pending = (lib / ".pmparse" / "pending" / "IL-0001.json").read_bytes()
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"] and len(calls) == 1
    assert (lib / ".pmparse" / "pending" / "IL-0001.json").read_bytes() == pending
    # an amendment that changes no field: read once; it waits for a review only to move the
    # record onto the new text, then the record is up to date
    review(lib, reject=proposed_fields(lib), reviewer="ann")
    source.write_text(source.read_text(encoding="utf-8") + "\n\n\n", encoding="utf-8")
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"] and len(calls) == 2
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"] and len(calls) == 2
    assert proposed_fields(lib) == []
    review(lib, accept_all=True, reviewer="ann")
    assert Library.read(lib / "IL-0001.yaml").source.sha256 == hashlib.sha256(source.read_bytes()).hexdigest()
    assert [r.status for r in convert([str(source)], lib).results] == ["unchanged"] and len(calls) == 2
    # the stamps survive a new process (the index keeps them)
    assert convert([str(source)], lib).counts["unchanged"] == 1 and len(calls) == 2


def test_an_amendment_that_moves_no_words_is_followed_once_and_a_later_rename_keeps_one_record(tmp_path):
    lib, source = _one_reviewed_report(tmp_path)
    before = Library.read(lib / "IL-0001.yaml")
    text = source.read_text(encoding="utf-8")
    # a note at the top moves every offset and changes no field's words
    source.write_text("> Edited on the next day: a typo in the timeline.\n\n" + text, encoding="utf-8")
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"]
    assert proposed_fields(lib) == []
    shown = CliRunner().invoke(main, ["diff", str(lib)])
    assert shown.exit_code == 1 and "the source text changed" in shown.output
    assert "same words, found elsewhere in the new text" in shown.output
    report = review(lib, reject=["date"], reviewer="ann")  # nothing is asked: the record follows
    assert report.count("settled") > 0 and report.count("reject") == 0
    after = Library.read(lib / "IL-0001.yaml")
    assert after.source.sha256 == hashlib.sha256(source.read_bytes()).hexdigest() != before.source.sha256
    assert after.status == "reviewed" and validate_library(lib) == (1, [])
    filled = [name for name in ("symptoms", "trigger", "root_cause", "detection", "remediation", "action_items",
                                "lessons") if getattr(before, name)]
    assert len(filled) >= 2
    for name in filled:
        old, new = getattr(before, name), getattr(after, name)
        assert [i.text for i in old] == [i.text for i in new]
        assert [i.evidence[0].start for i in new] != [i.evidence[0].start for i in old]
    assert CliRunner().invoke(main, ["diff", str(lib)]).exit_code == 0
    # renamed later: the record follows the name, no second record
    source.rename(source.with_name("renamed.md"))
    assert [r.status for r in convert([str(source.parent)], lib).results] == ["updated"]
    assert sorted(p.name for p in lib.glob("IL-*.yaml")) == ["IL-0001.yaml"]
    assert Library.read(lib / "IL-0001.yaml").source.location.endswith("renamed.md")


def proposed_fields(lib: Path) -> list[str]:
    from pmparse.review.pending import pending_diffs

    return [c.field for d in pending_diffs(lib).diffs for c in d.changes]


def test_a_new_public_address_reaches_a_person_record_once(patch_all, tmp_path, monkeypatch):
    write_reports(tmp_path / "in", 1)
    lib = tmp_path / "lib"
    convert([str(tmp_path / "in")], lib)
    record = _reviewed(lib)
    calls = _counting(patch_all)
    results = convert([str(tmp_path / "in")], lib, url_base="https://example.org/pm/").results
    assert len(calls) == 1 and Library.read(record).source.url == "https://example.org/pm/report-0000.md"
    assert Library.read(record).status == "reviewed"
    # whatever the new address changed is for review; the address itself is the record's now
    before = [r.status for r in results]
    again = convert([str(tmp_path / "in")], lib, url_base="https://example.org/pm/").results
    assert [r.status for r in again] in (["unchanged"], ["pending"]) and len(calls) == 1, before


def test_a_failed_write_while_a_record_follows_its_moved_file_is_redone(tmp_path, monkeypatch):
    write_reports(tmp_path / "in", 1)
    lib = tmp_path / "lib"
    convert([str(tmp_path / "in")], lib)
    record = _reviewed(lib)
    source = tmp_path / "in" / "report-0000.md"
    text = source.read_text(encoding="utf-8")
    source.write_text(text + "\n## Detection\n\nA customer told support.\n", encoding="utf-8")
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"]
    # the amendment withdrawn, the file renamed, and the disk full while the base is written
    source.unlink()
    renamed = tmp_path / "in" / "renamed.md"
    renamed.write_text(text, encoding="utf-8")
    real = Library.write_state

    def full(self, kind, card, settled=False, **options):
        if kind == "base":
            raise OSError(28, "No space left on device")
        return real(self, kind, card, settled, **options)

    monkeypatch.setattr(Library, "write_state", full)
    assert [r.status for r in convert([str(renamed)], lib).results] == ["failed"]
    # the suggestion made from the old name is gone; the base was not settled
    assert not (lib / ".pmparse" / "pending" / "IL-0001.json").exists()
    monkeypatch.setattr(Library, "write_state", real)
    assert [r.status for r in convert([str(renamed)], lib).results] in (["updated"], ["unchanged"])
    assert Library.read(record).source.location == str(renamed)
    assert [r.status for r in convert([str(renamed)], lib).results] == ["unchanged"]
    assert sorted(p.name for p in lib.glob("IL-*")) == ["IL-0001.yaml"]


def test_a_failed_write_of_a_new_public_address_is_redone(patch_all, tmp_path, monkeypatch):
    lib, _ = _one_reviewed_report(tmp_path, "https://old.example.org/pm/")
    record = lib / "IL-0001.yaml"
    from pmparse.library import store as record_module

    original = record_module.atomic_write

    def full(path, text):
        if Path(path).name == "IL-0001.yaml":
            raise OSError(28, "No space left on device")
        return original(path, text)

    patch_all(record_module, "atomic_write", full)
    assert [r.status for r in convert([str(tmp_path / "in")], lib, url_base="https://new.example.org/pm/").results] \
        == ["failed"]
    patch_all(record_module, "atomic_write", original)
    assert Library.read(record).source.url == "https://old.example.org/pm/report-0000.md"
    assert _url_after(lib, tmp_path / "in", "https://new.example.org/pm/") == "https://new.example.org/pm/report-0000.md"


def test_a_person_address_is_not_replaced_by_pmparse(tmp_path):
    lib, _ = _one_reviewed_report(tmp_path, "https://pm.example.org/")
    record = lib / "IL-0001.yaml"
    # no --url-base this time: the address pmparse gave stays
    convert([str(tmp_path / "in")], lib, force=True)
    assert Library.read(record).source.url == "https://pm.example.org/report-0000.md"
    # a person corrects the address: pmparse's old one does not come back
    own = "https://wiki.example.org/incidents/queue"
    record.write_text(record.read_text(encoding="utf-8").replace("https://pm.example.org/report-0000.md", own),
                      encoding="utf-8")
    convert([str(tmp_path / "in")], lib, url_base="https://pm.example.org/", force=True)
    assert Library.read(record).source.url == own


def test_a_suggestion_partly_reviewed_is_made_again_when_its_file_is_deleted(tmp_path, monkeypatch):
    lib, source = _one_reviewed_report(tmp_path)
    source.write_text(source.read_text(encoding="utf-8") + "\n## Detection\n\nA customer told support.\n\n"
                      "## Lessons learned\n\nWatch the queue depth.\n", encoding="utf-8")
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"]
    fields = proposed_fields(lib)
    assert "detection" in fields and len(fields) > 1
    review(lib, reject=["detection"], reviewer="ann")
    (lib / ".pmparse" / "pending" / "IL-0001.json").unlink()
    # the fields never decided are proposed again; the rejected one is not
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"]
    assert proposed_fields(lib) == [name for name in fields if name != "detection"]


def test_a_base_whose_write_was_cut_short_is_not_taken_for_up_to_date(tmp_path):
    write_reports(tmp_path / "in", 1)
    lib = tmp_path / "lib"
    convert([str(tmp_path / "in")], lib)
    library = Library.open(lib)
    assert library.state_stamp("base", "IL-0001")[6] is False  # written by pmparse's record write
    intent = lib / ".pmparse" / "intent" / "IL-0001.json"
    intent.parent.mkdir(parents=True, exist_ok=True)
    intent.write_text((lib / ".pmparse" / "base" / "IL-0001.json").read_text(encoding="utf-8"), encoding="utf-8")
    assert Library.open(lib).state_stamp("base", "IL-0001") is None


def test_a_malformed_index_is_only_a_slower_scan(tmp_path):
    lib, source = _one_reviewed_report(tmp_path)
    source.write_text(source.read_text(encoding="utf-8") + "\n## Detection\n\nA customer told support.\n",
                      encoding="utf-8")
    convert([str(source)], lib)
    index = lib / ".pmparse" / "index.json"
    data = json.loads(index.read_text(encoding="utf-8"))
    assert data["states"]
    for row in data["states"].values():
        row[0][0] = None
    index.write_text(json.dumps(data), encoding="utf-8")
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"]
    data["states"] = {"base/IL-0001": [[1, 2], "x"]}
    index.write_text(json.dumps(data), encoding="utf-8")
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"]


def _amend(source: Path) -> None:
    source.write_text(source.read_text(encoding="utf-8") + "\n## Detection\n\nA customer told support.\n\n"
                      "## Lessons learned\n\nWatch the queue depth.\n", encoding="utf-8")


def test_a_suggestion_partly_accepted_is_made_again_when_its_file_is_deleted(tmp_path):
    lib, source = _one_reviewed_report(tmp_path)
    _amend(source)
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"]
    fields = proposed_fields(lib)
    review(lib, accept=["detection"], reviewer="ann")
    (lib / ".pmparse" / "pending" / "IL-0001.json").unlink()
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"]
    assert proposed_fields(lib) == [name for name in fields if name != "detection"]


def test_a_review_that_settles_a_suggestion_is_remembered_across_runs(patch_all, tmp_path, monkeypatch):
    lib, source = _one_reviewed_report(tmp_path)
    _amend(source)
    convert([str(source)], lib)
    review(lib, reject=proposed_fields(lib), reviewer="ann")
    calls = _counting(patch_all)
    assert convert([str(source)], lib).counts["unchanged"] == 1 and calls == []


def test_a_base_write_cut_short_does_not_make_a_person_record_read_on_every_run(patch_all, tmp_path, monkeypatch):
    lib, source = _one_reviewed_report(tmp_path)
    intent = lib / ".pmparse" / "intent" / "IL-0001.json"
    intent.parent.mkdir(parents=True, exist_ok=True)
    intent.write_text((lib / ".pmparse" / "base" / "IL-0001.json").read_text(encoding="utf-8"), encoding="utf-8")
    calls = _counting(patch_all)
    convert([str(source)], lib)
    assert len(calls) == 1 and not intent.exists()  # read once; the settled base replaces the intent
    convert([str(source)], lib)
    assert len(calls) == 1


def test_an_address_pmparse_gave_follows_the_next_one_while_a_suggestion_waits(tmp_path):
    lib, _ = _one_reviewed_report(tmp_path, "https://one.example.org/")
    record = lib / "IL-0001.yaml"
    # the same text read with another heading table, at a new address: a suggestion waits (action
    # items filed as remediation), the address moves
    from tests.helpers import other_headings

    assert [r.status for r in convert([str(tmp_path / "in")], lib, url_base="https://two.example.org/",
                                      config=PipelineConfig(headings_path=other_headings(tmp_path))).results] \
        == ["pending"]
    assert Library.read(record).source.url == "https://two.example.org/report-0000.md"
    assert _url_after(lib, tmp_path / "in", "https://three.example.org/") == "https://three.example.org/report-0000.md"


def test_accepting_a_field_keeps_a_person_address(tmp_path):
    lib, _ = _one_reviewed_report(tmp_path, "https://pm.example.org/")
    record = lib / "IL-0001.yaml"
    own = "https://wiki.example.org/incidents/queue"
    record.write_text(record.read_text(encoding="utf-8").replace("https://pm.example.org/report-0000.md", own),
                      encoding="utf-8")
    _amend(tmp_path / "in" / "report-0000.md")
    convert([str(tmp_path / "in")], lib, url_base="https://pm.example.org/")
    review(lib, accept=["detection"], reviewer="ann")
    assert Library.read(record).source.url == own
    # without --url-base pmparse offers no address, and the record keeps its own
    convert([str(tmp_path / "in")], lib, force=True)
    review(lib, accept_all=True, reviewer="ann")
    assert Library.read(record).source.url == own


def test_malformed_record_rows_of_the_index_are_parsed_again(tmp_path):
    lib, source = _one_reviewed_report(tmp_path)
    Library.open(lib)  # the index now holds the reviewed record's row
    index = lib / ".pmparse" / "index.json"
    data = json.loads(index.read_text(encoding="utf-8"))
    for name, (key, summary) in data["records"].items():
        summary[2], summary[3] = ["x"], 5
    data["states"]["base/\u0000"] = [[1, 2, 3, 4], ["a", None, None, None, "x", None, True], "d"]
    data["written_ns"] = time.time_ns() + 10**10  # rows this old are trusted without a second look
    index.write_text(json.dumps(data), encoding="utf-8")
    assert Library.open(lib).entries["IL-0001"].location == str(source)
    assert convert([str(source)], lib).counts["unchanged"] == 1


def test_a_suggestion_for_an_amendment_withdrawn_is_dropped(tmp_path):
    lib, source = _one_reviewed_report(tmp_path)
    original = source.read_text(encoding="utf-8")
    _amend(source)
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"]
    source.write_text(original, encoding="utf-8")
    assert [r.status for r in convert([str(source)], lib).results] == ["unchanged"]
    assert not (lib / ".pmparse" / "pending" / "IL-0001.json").exists()
    assert proposed_fields(lib) == []


def test_a_new_address_reaches_a_person_record_with_an_amended_text_waiting(tmp_path):
    lib, _ = _one_reviewed_report(tmp_path, "https://a.example.org/")
    record = lib / "IL-0001.yaml"
    _amend(tmp_path / "in" / "report-0000.md")
    assert [r.status for r in convert([str(tmp_path / "in")], lib, url_base="https://a.example.org/").results] \
        == ["pending"]
    before = Library.read(record)
    assert [r.status for r in convert([str(tmp_path / "in")], lib, url_base="https://b.example.org/").results] \
        == ["pending"]
    after = Library.read(record)
    # the address moved; the text the record's evidence indexes did not
    assert after.source.url == "https://b.example.org/report-0000.md"
    assert after.source.sha256 == before.source.sha256 and after.root_cause == before.root_cause
    review(lib, reject=proposed_fields(lib), reviewer="ann")
    assert Library.read(record).source.url == "https://b.example.org/report-0000.md"
    assert convert([str(tmp_path / "in")], lib, url_base="https://b.example.org/").counts["unchanged"] == 1


def test_a_suggestion_another_pipeline_made_from_the_same_text_stays(tmp_path):
    from tests.helpers import other_headings

    lib, source = _one_reviewed_report(tmp_path)
    other = PipelineConfig(headings_path=other_headings(tmp_path))
    assert [r.status for r in convert([str(source)], lib, config=other).results] == ["pending"]
    # a routine run with the usual pipeline leaves it for the person, forced or not
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"]
    assert [r.status for r in convert([str(source)], lib, force=True).results] == ["pending"]
    assert Library(lib).read_state("pending", "IL-0001").source.sha256 == Library.read(lib / "IL-0001.yaml").source.sha256
    assert proposed_fields(lib)


def test_a_settled_base_of_a_text_the_record_never_moved_onto_is_not_up_to_date(tmp_path):
    # a library written before records followed their amended sources: the base was settled on
    # the new text while the person's record stayed on the old one, and nothing waits for review
    lib, source = _one_reviewed_report(tmp_path)
    source.write_text("> Edited on the next day.\n\n" + source.read_text(encoding="utf-8"), encoding="utf-8")
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"]
    library = Library(lib)
    library.write_state("base", library.read_state("pending", "IL-0001"), settled=True)
    library.drop_state("pending", "IL-0001")
    library.save_index()
    old_sha = Library.read(lib / "IL-0001.yaml").source.sha256
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"]
    review(lib, accept_all=True, reviewer="ann")
    assert Library.read(lib / "IL-0001.yaml").source.sha256 != old_sha
    assert [r.status for r in convert([str(source)], lib).results] == ["unchanged"]
