"""reStructuredText field lists and AsciiDoc header attributes read as front matter."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from pmparse.cli import main
from pmparse.ingest.markup_header import MAX_HEADER_LINES, MAX_LINE, dialect_of, parse_markup_header
from pmparse.ingest.read import MAX_FRONT_MATTER, ingest_bytes
from pmparse.library.store import Library

BODY = ("Summary\n-------\n\nThe build queue stopped taking jobs for an hour on a Saturday after a disk filled up,\n"
        "and nobody was paged because the alert went to a retired channel.\n")

RST = """.. _queue-outage:

Queue outage in the build farm
==============================

:Date: 2024-03-02
:Author: Ana Example
:organization: Example Builds
:tags: queue, ci

""" + BODY

ADOC = """= Queue outage in the build farm
Ana Example <ana@example.org>; Bo Example
v1.2, 2024-03-02: first report
:organization: Example Builds
:keywords: queue, \\
  ci
// written after the review

== Summary

The build queue stopped taking jobs for an hour on a Saturday after a disk filled up.
"""


def test_the_dialect_comes_from_the_name_only():
    assert dialect_of("notes/outage.rst") == "rst" and dialect_of("https://example.org/a.ADOC?x=1") == "adoc"
    assert dialect_of("outage.asciidoc") == "adoc" and dialect_of("outage.md") is None and dialect_of("-") is None


def test_an_rst_docinfo_under_the_title_is_front_matter_with_its_region():
    source = ingest_bytes(RST.encode(), "reports/queue.rst")
    assert source.front_matter == {"title": "Queue outage in the build farm", "date": "2024-03-02",
                                   "author": "Ana Example", "organization": "Example Builds", "tags": "queue, ci"}
    start, end = source.masked[0]
    assert start == 0 and source.text[:end].endswith(":tags: queue, ci\n") and source.text[end:] == "\n" + BODY
    assert source.warnings == []


def test_an_rst_field_list_above_the_title_leaves_the_title_to_the_body():
    text = ":orphan:\n:date: 2024-03-02\n:incident date: 2024-03-01\n\nQueue outage\n============\n\n" + BODY
    source = ingest_bytes(text.encode(), "queue.rst")
    assert source.front_matter == {"date": "2024-03-02", "incident_date": "2024-03-01"}
    assert source.masked == [(0, text.index("\n\nQueue") + 1)]


def test_rst_overlined_title_subtitle_and_fields_over_lines():
    text = ("==============\n Queue outage \n==============\n\nBuild farm\n----------\n\n"
            ":authors: Ana Example,\n    Bo Example\n\n:date: 2024-03-02\n\n" + BODY)
    values, region, warnings = parse_markup_header(text, "rst", MAX_FRONT_MATTER)
    assert values == {"title": "Queue outage", "subtitle": "Build farm", "authors": "Ana Example, Bo Example",
                      "date": "2024-03-02"}
    assert text[region[1]:] == "\n" + BODY and warnings == []


@pytest.mark.parametrize("text", [
    "Queue outage\n============\n\n" + BODY,  # a title alone is a heading, read as before
    BODY,
    "Queue outage\n============\nThe date: 2024-03-02 is in prose.\n",
])
def test_rst_without_fields_has_no_front_matter(text):
    source = ingest_bytes(text.encode(), "queue.rst")
    assert source.front_matter == {} and source.masked == [] and source.warnings == []


def test_a_date_field_line_in_markdown_is_prose():
    source = ingest_bytes(RST.encode(), "queue.md")
    assert source.front_matter == {} and source.masked == []


def test_yaml_front_matter_of_an_rst_file_wins():
    text = "---\ntitle: Queue outage\n---\n:date: 2024-03-02\n\n" + BODY
    source = ingest_bytes(text.encode(), "queue.rst")
    assert source.front_matter == {"title": "Queue outage"} and source.masked == [(0, text.index(":date:"))]


def test_an_asciidoc_header_is_front_matter_with_its_region():
    source = ingest_bytes(ADOC.encode(), "queue.adoc")
    assert source.front_matter == {
        "title": "Queue outage in the build farm", "author": "Ana Example", "authors": "Ana Example, Bo Example",
        "email": "ana@example.org", "revnumber": "1.2", "revdate": "2024-03-02", "revremark": "first report",
        "date": "2024-03-02", "organization": "Example Builds", "keywords": "queue, ci"}
    start, end = source.masked[0]
    assert start == 0 and source.text[end:].startswith("\n== Summary") and source.warnings == []
    for key in ("title", "revdate", "organization", "author"):
        assert source.text.find(source.front_matter[key], 0, end) >= 0  # evidence can point into the header


def test_asciidoc_attributes_without_a_title_and_a_revision_line_without_an_author():
    text = ":revdate: 2024-03-02\n:author: Ana Example\n:toc!:\n\n== Summary\n\nThe queue stopped.\n"
    source = ingest_bytes(text.encode(), "queue.asciidoc")
    assert source.front_matter == {"revdate": "2024-03-02", "date": "2024-03-02", "author": "Ana Example"}
    assert source.text[source.masked[0][1]:] == "\n== Summary\n\nThe queue stopped.\n"
    values, _, _ = parse_markup_header("= Queue outage\n2024-03-02\n\nBody.\n", "adoc", MAX_FRONT_MATTER)
    assert values == {"title": "Queue outage", "revdate": "2024-03-02", "date": "2024-03-02"}


def test_crlf_and_a_byte_order_mark_read_as_the_lf_text():
    text = "\ufeff" + RST.replace("\n", "\r\n")
    source = ingest_bytes(text.encode(), "queue.rst")
    assert source.front_matter["date"] == "2024-03-02"
    assert source.text == "\ufeff" + RST and source.text[source.masked[0][1]:].startswith("\nSummary")


@pytest.mark.parametrize("name, text, warning, kept", [
    ("queue.rst", "Queue outage\n============\n\n:date: someday\n\nBody.\n",
     "field :date: on line 4 is 'someday', which names no year", {"date": "someday"}),
    ("queue.adoc", "= Queue outage\nAna Example\n:revdate: {docdate}\n:organization: Example Builds\n\nBody.\n",
     "attribute :revdate: on line 3 refers to another attribute", {"organization": "Example Builds"}),
    ("queue.adoc", "= Queue outage\nThe queue stopped, and nobody was paged.\n\nBody.\n",
     "line 2, under the AsciiDoc title, is neither an author line", None),
    ("queue.rst", ":date: 2024-03-02\n:summary: " + "long " * 1000 + "\n\nBody.\n",
     "line 2 of the field list is longer than 2000 characters", {"date": "2024-03-02"}),
])
def test_odd_values_are_warnings_not_failures(name, text, warning, kept):
    source = ingest_bytes(text.encode(), name)
    assert any(warning in w for w in source.warnings), source.warnings
    if kept is None:
        assert source.front_matter == {} and source.masked == []
    else:
        assert kept.items() <= source.front_matter.items()


class _Watched(str):
    """A text that counts the characters read of it: those its searches pass over and those its
    slices copy out (every read of the header reader goes through these)."""

    read = 0

    def find(self, sub, start=0, end=None):
        end = len(self) if end is None else min(end, len(self))
        found = str.find(self, sub, start, end)
        _Watched.read += (found + len(sub) if found >= 0 else end) - start
        return found

    def __getitem__(self, key):
        part = str.__getitem__(self, key)
        _Watched.read += len(part)
        return part

    def startswith(self, prefix, *args):
        _Watched.read += len(prefix) if isinstance(prefix, str) else max(map(len, prefix))
        return str.startswith(self, prefix, *args)


def _characters_read(text: str, dialect: str) -> int:
    _Watched.read = 0
    values, region, _ = parse_markup_header(_Watched(text), dialect, MAX_FRONT_MATTER)
    assert region is None or region[1] <= MAX_FRONT_MATTER + 1
    assert len(values) <= MAX_HEADER_LINES
    return _Watched.read


#: Hostile headers ``k`` times over (k = 1,000: the sizes once timed here).
HOSTILE = {
    "long line": lambda k: ":date: 2024-03-02 " + "x" * (5_000 * k),
    "many attributes": lambda k: "= T\n" + ":a: b\n" * (100 * k),
    "long field": lambda k: ":a:\n" + "  more\n" * (200 * k),  # a field going on over many lines
    "long underline": lambda k: "T\n" + "=" * (3_000 * k) + "\n:date: 2024\n",
    "blank explicit lines": lambda k: "..\n" + " \n" * (500 * k),
    "many lists": lambda k: ("Title\n=====\n\n" + ":x: y\n\n") * (50 * k),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_headers_are_read_in_bounded_time(name):
    # at most MAX_HEADER_LINES lines, MAX_LINE characters of a line and the caller's limit are
    # looked at: a header grown four times is read no further (counted, not timed; the patterns
    # see cut lines only, and tests/test_regex_safety.py holds each linear on such a line)
    text = HOSTILE[name](1_000)
    for dialect in ("rst", "adoc"):
        read, read_4 = _characters_read(text, dialect), _characters_read(HOSTILE[name](4_000), dialect)
        assert read_4 == read, (dialect, read, read_4)
        assert read < len(text) // 10


def test_a_header_without_a_line_break_is_searched_to_its_end_once():
    # each question for a line past the last one searched the rest of the text again: a line of
    # megabytes with no break was read more than twice over the header's limit
    read = _characters_read(HOSTILE["long line"](1_000), "rst")
    assert read <= MAX_FRONT_MATTER + 8 * MAX_LINE, read


def test_convert_takes_the_cards_date_and_organisation_from_the_header(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "queue.rst").write_text(RST, encoding="utf-8")
    (folder / "queue.adoc").write_text(ADOC, encoding="utf-8")
    result = CliRunner().invoke(main, ["convert", str(folder), "-o", str(tmp_path / "lib"), "--rules-only", "-j", "1"])
    assert result.exit_code == 0, result.output
    cards = {Path(card.source.location).name: card
             for card in map(Library.read, sorted((tmp_path / "lib").glob("IL-*.yaml")))}
    for name, text in (("queue.rst", RST), ("queue.adoc", ADOC)):
        card = cards[name]
        assert card.date == "2024-03-02" and card.organisation == "Example Builds"
        header_end = text.index("\n\n", text.index("Example Builds")) + 1
        for field, written in (("date", "2024-03-02"), ("organisation", "Example Builds")):
            support = card.support[field]
            assert support.origin == "front_matter"
            assert [text[e.start:e.end] for e in support.evidence] == [written]
            assert all(e.end <= header_end for e in support.evidence)  # in the header, not the body


@pytest.mark.parametrize("name, text", [("queue.rst", ":a: b\n" * 1000), ("queue.adoc", "= T\n" + ":a: b\n" * 1000)])
def test_a_header_past_the_line_limit_is_read_up_to_it_with_a_warning(name, text):
    source = ingest_bytes((text + "\nBody.\n").encode(), name)
    assert source.masked == [(0, text.index(":a:") + 6 * (MAX_HEADER_LINES - text.count("= T")))]
    assert any(f"runs past {MAX_HEADER_LINES} lines" in w for w in source.warnings), source.warnings
