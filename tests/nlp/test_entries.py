"""Splitting a file of many incidents into entries (texts written for these tests)."""

from __future__ import annotations

from pmparse.ingest.read import ingest_bytes
from pmparse.nlp.entries import entry_source, split_entries
from tests.nlp.incident_logs import ENTRY, LOG, NEW


def test_dated_headings_of_one_level_are_the_entries():
    entries = split_entries(LOG)
    assert [e.date for e in entries] == ["2023-11-02", "2023-06-14", "2023-02-01"]
    assert entries[0].heading == "Incident on 2023-11-02 10:15 - Builds queued"
    assert LOG[entries[0].start:].startswith("### Incident on 2023-11-02")
    assert LOG[entries[-1].end:].startswith("## About this log")  # a higher heading ends the last entry
    assert entries[0].end == entries[1].start


def test_keys_stay_when_entries_are_added_at_the_top():
    before = split_entries(LOG)
    grown = LOG.replace("## 2023\n\n", "## 2024\n\n" + NEW + "\n## 2023\n\n")
    after = split_entries(grown)
    assert len(after) == 4 and [e.key for e in after[1:]] == [e.key for e in before]
    assert after[0].key.startswith("2024-01-09-")


def test_a_repeated_heading_gets_a_numbered_key_counted_from_the_bottom():
    twice = LOG.replace("Dashboards blank", "Builds queued").replace("2023-06-14", "2023-11-02 10:15")
    keys = [e.key for e in split_entries(twice)]
    assert keys[0] == keys[1] + "-2" and len(set(keys)) == 3


def test_a_postmortem_with_dated_timeline_steps_is_one_incident():
    report = ("# Outage\n\n## Summary\n\nThe API failed.\n\n## Timeline\n\n"
              "### 2023-04-01 10:00\n\nAlert.\n\n### 2023-04-01 10:20\n\nRollback.\n\n"
              "### 2023-04-01 11:00\n\nRecovered.\n\n## Action items\n\n- Alert sooner.\n")
    assert split_entries(report) == []


def test_two_dated_headings_are_not_a_log_and_code_blocks_are_not_read():
    two = "# Notes\n\n## 2023-01-01 one\n\nText.\n\n## 2023-02-01 two\n\nText.\n"
    assert split_entries(two) == []
    fenced = two + "\n```\n## 2023-03-01 three\n```\n"
    assert split_entries(fenced) == []


def test_an_entry_source_is_the_entry_text_alone():
    source = ingest_bytes(LOG.encode(), "log.md")
    entry = split_entries(source.text, source.masked)[1]
    part = entry_source(source, entry)
    assert part.text == LOG[entry.start:entry.end] and part.location == "log.md"
    assert "title" not in part.front_matter  # the log's title is no entry's


def test_a_day_by_day_log_of_one_incident_is_one_card():
    log = "# Storage cluster outage\n\n" + "\n".join(
        f"## {weekday}, January {day} 2031\n\nWe kept restoring volumes; {note}.\n"
        for weekday, day, note in [("Saturday", 15, "the first shelf failed"), ("Sunday", 16, "restores ran"),
                                   ("Monday", 17, "service came back at noon")])
    assert split_entries(log) == []
    # a log of incidents names each one, even within a week
    incidents = log.replace("## Saturday,", "## Disk shelf lost:").replace("## Sunday,", "## Mail queue stalled:")
    assert len(split_entries(incidents)) == 3


def test_an_entry_given_twice_word_for_word_is_one_card():
    twice = LOG.replace("## About this log", ENTRY.format(day="2023-06-14", what="Dashboards blank", minutes=25,
                                                          cause="proxy setting") + "\n## About this log")
    entries = split_entries(twice)
    assert [e.date for e in entries] == ["2023-11-02", "2023-06-14", "2023-02-01"]
