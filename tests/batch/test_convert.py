"""``convert`` into a library: records made from the samples, ids kept across runs, a person's edit
never overwritten, JSON records, multi-incident files and logs, the parent storing what it
analysed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pmparse.batch.convert import convert
from pmparse.batch.publishing import BatchPublishers
from pmparse.card.schema import TEXT_FIELDS
from pmparse.library.records import source_text_of
from pmparse.library.store import Library
from pmparse.library.validate import validate_library
from pmparse.site.build import source_key
from pmparse.util import sha256_text
from tests.helpers import SAMPLES, assert_offsets, source_text


def test_samples_convert_with_valid_offsets(samples, tmp_path):
    report = convert([str(samples)], tmp_path / "lib")
    assert report.counts["converted"] == 3 and not report.failed
    library = Library.open(tmp_path / "lib")
    assert len(library.entries) == 3
    for entry in library.entries.values():
        assert assert_offsets(entry.card, source_text(entry.card)) > 3


def test_reconverting_the_same_source_keeps_its_id(samples, tmp_path):
    convert([str(samples)], tmp_path / "lib")
    report = convert([str(samples)], tmp_path / "lib")
    assert report.counts["unchanged"] == 3
    # an amended source (new sha256, same path) updates its record instead of minting an id
    md = samples / "gocardless-postgres-failover.md"
    md.write_text(md.read_text() + "\nAn amendment added later.\n")
    report = convert([str(md)], tmp_path / "lib")
    assert report.results[0].status == "updated"
    assert sorted(Library.open(tmp_path / "lib").entries) == ["IL-0001", "IL-0002", "IL-0003"]


def test_a_crlf_checkout_of_the_sources_leaves_every_record_as_it_was(samples, tmp_path):
    # two curators share sources and library through git, one with core.autocrlf: after a pull
    # each file has other line breaks, and every record read as amended (rewritten with other
    # offsets, or its person's items put up for review again), then back on the other machine
    convert([str(samples)], tmp_path / "lib")
    library = Library.open(tmp_path / "lib")
    before = {path.name: path.read_bytes() for path in (tmp_path / "lib").glob("IL-*")}
    for path in samples.iterdir():
        if path.suffix in (".md", ".txt"):
            path.write_bytes(path.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
    report = convert([str(samples)], tmp_path / "lib")
    assert report.counts["unchanged"] == 3, report.counts
    assert {path.name: path.read_bytes() for path in (tmp_path / "lib").glob("IL-*")} == before
    assert validate_library(tmp_path / "lib")[1] == []
    places = Library.open(tmp_path / "lib").places
    for entry in library.entries.values():
        if entry.card.source.extracted_text is None:
            assert source_text_of(entry.card, places) == source_text(entry.card)
            assert source_key(entry.card.source.location, places, entry.card.source.sha256) == "same"


def test_a_person_edit_is_never_overwritten(samples, tmp_path):
    convert([str(samples)], tmp_path / "lib", force=False)
    record = tmp_path / "lib" / "IL-0002.yaml"
    edited = record.read_text().replace("organisation: GoCardless", "organisation: GoCardless Ltd  # checked")
    record.write_text(edited)
    report = convert([str(samples)], tmp_path / "lib", force=True)
    statuses = {r.input.rsplit("/", 1)[-1]: r.status for r in report.results}
    # analysed again, but nothing is open: the edit is kept, and no empty suggestion waits for review
    assert statuses["gocardless-postgres-failover.md"] == "unchanged"
    assert record.read_text() == edited
    assert not (tmp_path / "lib" / ".pmparse" / "pending" / "IL-0002.json").exists()


def test_json_records(samples, tmp_path):
    convert([str(samples / "tencent-moe-slow-ranks.txt")], tmp_path / "lib", fmt="json")
    assert [p.name for p in (tmp_path / "lib").glob("IL-*")] == ["IL-0001.json"]


def test_samples_match_the_seed_cards(samples, tmp_path):
    """The team's own retellings of the three seed incidents fill the fields the seed cards fill."""
    convert([str(samples)], tmp_path / "lib")
    cards = {e.card.source.location.rsplit("/", 1)[-1]: e.card for e in Library.open(tmp_path / "lib").entries.values()}
    gocardless = cards["gocardless-postgres-failover.md"]
    assert gocardless.organisation == "GoCardless" and gocardless.date == "2017-10-10"
    assert gocardless.duration_minutes == 110
    filled = {name for name in TEXT_FIELDS if getattr(gocardless, name)}
    assert {"symptoms", "trigger", "root_cause", "detection", "remediation", "action_items", "lessons"} <= filled
    assert any("powered off" in item.text for item in gocardless.remediation)
    tencent = cards["tencent-moe-slow-ranks.txt"]
    assert any("replaced the affected nodes" in item.text for item in tencent.remediation)
    assert any("detector" in item.text for item in tencent.detection)
    alibaba = cards["alibaba-gpu-faults.html"]
    assert alibaba.source.extracted_text and alibaba.source.format == "html"
    assert len(alibaba.remediation) == 4 and len(alibaba.action_items) == 1
    assert any("faulty GPUs" in item.text for item in alibaba.root_cause)


def test_a_file_of_several_incidents_converts_with_a_warning_saying_so(tmp_path):
    from click.testing import CliRunner

    from pmparse.cli import main

    log = tmp_path / "in" / "incident-log.md"
    log.parent.mkdir()
    log.write_text("# Incident log\n\n"
                   "## Incident on 2024-03-02 - Queue stalled\n\n- **Impact**: Jobs waited an hour.\n"
                   "- **Resolution**: We restarted the consumers.\n\n"
                   "## Incident on 2024-01-15 - Certificates expired\n\n- **Impact**: Sign-in failed.\n"
                   "- **Resolution**: We renewed them.\n", encoding="utf-8")
    shutil.copy(SAMPLES / "gocardless-postgres-failover.md", log.parent / "single.md")
    report = convert([str(log.parent)], tmp_path / "lib")
    warned = {r.input.rsplit("/", 1)[-1]: r.warnings for r in report.results}
    assert report.counts["converted"] == 2 and warned["single.md"] == []
    assert len(warned["incident-log.md"]) == 1
    assert "found 2 incident sections" in warned["incident-log.md"][0]
    assert "'Incident on 2024-03-02 - Queue stalled'" in warned["incident-log.md"][0]
    result = CliRunner().invoke(main, ["convert", str(log), "-o", str(tmp_path / "lib2")])
    assert result.exit_code == 0 and "split the file for a card per incident" in result.output
    from pmparse.batch.suggest import suggest

    card, warnings = suggest(str(log))
    assert card.organisation is None and len(warnings) == 1 and "found 2 incident sections" in warnings[0]
    assert suggest(str(log.parent / "single.md"))[1] == []


def test_a_zola_post_gets_its_title_and_date_from_toml_front_matter(tmp_path):
    from tests.ingest.documents import ZOLA_POST

    post = tmp_path / "forum.md"
    post.write_text(ZOLA_POST, encoding="utf-8")
    report = convert([str(post)], tmp_path / "lib")
    card = Library.read(Path(report.results[0].record))
    assert card.date == "2022-11-08"
    assert card.support["date"].origin == "front_matter"
    evidence = card.support["date"].evidence[0]
    assert ZOLA_POST[evidence.start:evidence.end] == "2022-11-08"  # the date line of the +++ block


def test_a_log_of_many_incidents_becomes_one_record_per_entry_with_stable_ids(tmp_path):
    from click.testing import CliRunner

    from pmparse.cli import main
    from tests.nlp.incident_logs import LOG, NEW

    log = tmp_path / "incident-log.md"
    log.write_text(LOG, encoding="utf-8")
    library = tmp_path / "lib"
    report = convert([str(log)], library)
    assert [r.status for r in report.results] == ["converted"] * 3
    cards = {Library.read(Path(r.record)).source.entry.key: Library.read(Path(r.record)) for r in report.results}
    for key, card in cards.items():
        assert card.source.location == f"{log}#entry-{key}" and card.source.sha256 == sha256_text(LOG)
        assert assert_offsets(card, LOG) > 0  # offsets index the whole file
        entry = card.source.entry
        assert all(entry.start <= ev.start < ev.end <= entry.end for _, ev in card.evidence_spans())
    assert sorted(c.date for c in cards.values()) == ["2023-02-01", "2023-06-14", "2023-11-02"]
    assert [r.status for r in convert([str(log)], library).results] == ["unchanged"] * 3

    # a person edits the oldest entry's record; the log then grows at the top
    oldest = next(c for c in cards.values() if c.date == "2023-02-01")
    path = library / f"{oldest.id}.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("status: suggested", "status: reviewed"), encoding="utf-8")
    grown = LOG.replace("## 2023\n\n", "## 2024\n\n" + NEW + "\n## 2023\n\n")
    log.write_text(grown, encoding="utf-8")
    report = convert([str(log)], library)
    statuses = {r.input.rsplit("#entry-", 1)[1]: (r.status, Path(r.record).stem) for r in report.results}
    assert len(statuses) == 4
    for key, card in cards.items():
        assert statuses[key][1] == card.id  # every older entry keeps its id
        assert statuses[key][0] == ("pending" if card.id == oldest.id else "updated")
    assert sorted(s for s, _ in statuses.values()).count("converted") == 1
    for record in library.glob("IL-*.yaml"):
        card = Library.read(record)
        if card.id != oldest.id:
            assert assert_offsets(card, grown) > 0
    diff = CliRunner().invoke(main, ["diff", str(library)])
    assert diff.exit_code == 1 and f"diff {oldest.id} ({log}#entry-" in diff.output

    # the log moved: each entry whose record holds the file's text finds its own record (the
    # person's record still holds the text before the growth, as for any moved and amended file)
    moved = tmp_path / "moved-log.md"
    log.rename(moved)
    again = {r.input.rsplit("#entry-", 1)[1]: Path(r.record).stem for r in convert([str(moved)], library).results}
    assert {key: again[key] for key in statuses if statuses[key][1] != oldest.id} == {
        key: record for key, (_, record) in statuses.items() if record != oldest.id}


def test_a_file_that_grows_into_a_log_names_its_whole_file_record_and_keeps_it(tmp_path):
    from pmparse.nlp.entries import split_entries
    from tests.nlp.incident_logs import LOG

    log = tmp_path / "incident-log.md"
    # the log's first two dated entries alone are one incident report
    cut = [e.start for e in split_entries(LOG)][2]
    log.write_text(LOG[:cut], encoding="utf-8")
    library = tmp_path / "lib"
    first = convert([str(log)], library)
    assert [r.status for r in first.results] == ["converted"]
    whole = Path(first.results[0].record)
    log.write_text(LOG, encoding="utf-8")
    report = convert([str(log)], library)
    assert [r.status for r in report.results] == ["converted"] * 3
    assert whole.stem not in {Path(r.record).stem for r in report.results}
    named = [w for r in report.results for w in r.warnings if whole.stem in w]
    assert len(named) == 1 and "3 incidents" in named[0] and whole.name in named[0]
    assert whole.exists()  # never removed: it may hold a person's work
    # once the whole-file record is gone, the warning is too
    whole.unlink()
    assert not [w for r in convert([str(log)], library, force=True).results for w in r.warnings if whole.stem in w]


def test_an_unchanged_log_is_skipped_without_running_the_pipeline(tmp_path, patch_all):
    import pmparse.nlp.pipeline as pipeline_module
    from tests.nlp.incident_logs import LOG

    log = tmp_path / "incident-log.md"
    log.write_text(LOG, encoding="utf-8")
    first = convert([str(log)], tmp_path / "lib")
    calls = []
    real = pipeline_module.analyse
    patch_all(pipeline_module, "analyse", lambda nlp, source: calls.append(source.location) or real(nlp, source))
    again = convert([str(log)], tmp_path / "lib")
    assert calls == []
    assert sorted((r.input, r.status, r.record) for r in again.results) == sorted(
        (r.input, "unchanged", r.record) for r in first.results)
    log.write_text(LOG.replace("rolled back", "reverted"), encoding="utf-8")
    convert([str(log)], tmp_path / "lib")
    assert len(calls) == 3  # a changed text is read again, entry by entry


def test_a_megabyte_line_gives_bounded_items_with_valid_evidence(tmp_path):
    from pmparse.card.build import MAX_ITEMS
    from pmparse.nlp.components.units import MAX_UNIT_CHARS
    from pmparse.nlp.pipeline import pipeline_config

    folder = tmp_path / "in"
    folder.mkdir()
    # one line, no sentence end: it was one megabyte-long item; and a file whose every line is a root cause
    (folder / "line.md").write_text("Root cause: " + "the pool of workers ran dry and " * 32_000, encoding="utf-8")
    # (each line its own words: a field lists the same words once)
    lines = "".join(f"Root cause: disk {i} filled up. The writes failed.\n" for i in range(3_000))
    (folder / "lines.md").write_text(lines, encoding="utf-8")
    report = convert([str(folder)], tmp_path / "lib", config=pipeline_config())
    assert report.counts["converted"] == 2
    warnings = {r.input.rsplit("/", 1)[1]: r.warnings for r in report.results}
    assert any("read in pieces" in w for w in warnings["line.md"])
    assert any(f"than the {MAX_ITEMS} a field keeps" in w for w in warnings["lines.md"])
    for entry in Library.open(tmp_path / "lib").entries.values():
        card = entry.card
        assert assert_offsets(card, source_text(card)) > 0
        for name in TEXT_FIELDS:
            items = getattr(card, name)
            assert len(items) <= MAX_ITEMS and all(len(i.text) <= MAX_UNIT_CHARS for i in items)
        assert entry.path.stat().st_size < 2_000_000


def test_with_one_job_the_parent_stores_the_card_it_analysed(samples, tmp_path, monkeypatch):
    """In one process the card goes to the store as analysed (no JSON round trip), the same card its
    JSON gives; records written from either are the same bytes, and a card a publisher changed is
    parsed from its new JSON."""
    from pmparse.batch import convert as convert_module
    from pmparse.batch import pool as pool_module
    from pmparse.batch.pool import Outcome
    from pmparse.card.schema import Card
    from pmparse.library.records import dumps
    from pmparse.nlp.pipeline import PipelineConfig

    stored, analysed = [], []
    real_store = convert_module.store
    monkeypatch.setattr(convert_module, "store", lambda library, card, *a, **k: stored.append(card)
                        or real_store(library, card, *a, **k))
    real_analysis = pool_module.timed_analysis

    def timed_analysis(*args, **kwargs):
        outcome = real_analysis(*args, **kwargs)
        analysed.append(outcome.card)
        return outcome

    monkeypatch.setattr(pool_module, "timed_analysis", timed_analysis)
    report = convert([str(samples)], tmp_path / "lib", jobs=1)
    assert report.counts["converted"] == 3 and len(stored) == 3
    assert all(card is kept for card, kept in zip(stored, analysed))
    for card in stored:
        parsed = Card.model_validate_json(card.model_dump_json())
        assert parsed == card and dumps(parsed) == dumps(card) and dumps(parsed, "json") == dumps(card, "json")
    # a publisher's change gives new JSON: the card kept beside the old one is dropped
    card = stored[0]
    outcome = Outcome("card", card_json=card.model_dump_json(), card=card)
    publishers = BatchPublishers("Zorbq Labs")
    changed = publishers.state(convert_module.Task(card.source.location), outcome)
    assert changed.card is None and Card.model_validate_json(changed.card_json).organisation == "Zorbq Labs"
    unchanged = BatchPublishers(None)._map(outcome, lambda text: text)
    assert unchanged.card is card
    # a worker's outcome travels as JSON alone
    monkeypatch.setitem(pool_module._WORKER, "config", PipelineConfig())
    monkeypatch.setitem(pool_module._WORKER, "max_bytes", 10**6)
    [sent] = pool_module._run_chunk([convert_module.Task(str(samples / sorted(p.name for p in samples.iterdir())[0]))])
    assert sent.kind == "card" and sent.card is None and sent.card_json


def test_a_folder_holding_other_files_is_not_taken_for_a_library(tmp_path):
    # `-o docs` or `-o .` by mistake: records and .pmparse/ written among someone's files
    from pmparse.errors import UsageError
    from pmparse.nlp.pipeline import pipeline_config

    report = tmp_path / "outage.md"
    report.write_text("# Queue outage\n\n## Root cause\n\nA lease timeout of zero.\n", encoding="utf-8")
    other = tmp_path / "notes"
    other.mkdir()
    (other / "plans.md").write_text("# Plans\n", encoding="utf-8")
    (other / ".git").mkdir()
    with pytest.raises(UsageError) as info:
        convert([str(report)], other, config=pipeline_config(rules_only=True), jobs=1)
    assert "plans.md" in str(info.value) and ".pmparse" in str(info.value)
    assert sorted(p.name for p in other.iterdir()) == [".git", "plans.md"]  # nothing written
    # a folder holding only hidden files (a fresh git repository) is a new library; so is one a
    # curator marked as a library by creating .pmparse/ in it
    fresh = tmp_path / "fresh"
    (fresh / ".git").mkdir(parents=True)
    assert convert([str(report)], fresh, config=pipeline_config(rules_only=True), jobs=1).counts["converted"] == 1
    (other / ".pmparse").mkdir()
    assert convert([str(report)], other, config=pipeline_config(rules_only=True), jobs=1).counts["converted"] == 1
