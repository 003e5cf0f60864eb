from __future__ import annotations

import os

from pmparse.card.schema import Evidence
from pmparse.site.view import Anchors, field_values, field_views, filled, search_words, summary, year_of
from tests.helpers import text_card

TEXT = "The RAID controller lost three disks. Failover never happened. We promoted the replica by hand."


def card(**extra):
    fields = dict(title="Shop outage", organisation="Example Shop", date="2021-06-02",
                  root_cause=[(0, 37, 0.8)], remediation=[(63, 96, 0.6)], root_cause_categories=["hardware_failure"],
                  support={"root_cause_categories.hardware_failure": {"evidence": [{"start": 4, "end": 19}],
                                                                      "confidence": 0.7, "origin": "model:x"},
                           "organisation": {"evidence": [], "confidence": 0.5, "origin": "path"}})
    fields.update(extra)
    return text_card("IL-0007", TEXT, **fields)


def test_summary_is_the_row_of_the_index():
    c = card()
    row = summary(c, {"root_cause_categories.hardware_failure": "Hardware failure"}, pending=True)
    assert row["id"] == "IL-0007" and row["year"] == "2021" and row["status"] == "suggested" and row["pending"]
    assert row["filled"] == filled(c) == 6  # title, organisation, date, root cause, remediation, one tag field
    assert row["root_cause_categories"] == ["hardware_failure"] and row["error"] is None
    assert year_of(card(date=None)) is None


def test_search_words_are_distinct_sorted_lower_case_words_with_tag_names():
    words = search_words(card(), {"root_cause_categories.hardware_failure": "Hardware failure"}).split()
    assert words == sorted(set(words))
    assert {"raid", "replica", "example", "shop", "hardware", "failure", "il", "0007", "2021"} <= set(words)
    assert "failover" not in words  # the sentence no field holds is not searched


def test_each_value_links_to_its_marked_evidence_with_its_confidence():
    c = card()
    anchors = Anchors(len(TEXT), c.source.sha256)
    names = {"root_cause_categories.hardware_failure": "Hardware failure"}
    [item] = field_values(c, "root_cause", names, anchors)
    assert item.text == TEXT[:37] and item.confidence == 0.8
    assert [(link.anchor, link.start, link.end) for link in item.links] == [("ev-root_cause-1-1", 0, 37)]
    [tag] = field_values(c, "root_cause_categories", names, anchors)
    assert tag.text == "Hardware failure" and tag.confidence == 0.7 and tag.detail == "hardware_failure; from model:x"
    assert tag.links[0].anchor == "ev-root_cause_categories-hardware_failure-1"
    [org] = field_values(c, "organisation", names, anchors)
    assert org.text == "Example Shop" and org.links == [] and org.detail == "from path"
    assert [s.anchor for s in anchors.spans] == ["ev-root_cause-1-1", "ev-root_cause_categories-hardware_failure-1"]
    assert field_values(c, "trigger", names, anchors) == []


def test_evidence_that_cannot_be_marked_says_why():
    c = card()
    old = Anchors(len(TEXT), c.source.sha256)
    link = old.link(Evidence(start=0, end=5, sha256="0" * 64), "root_cause", "a")
    assert link.anchor is None and link.note == "in another version of the source text"
    assert Anchors(None, c.source.sha256).link(Evidence(start=0, end=5), "root_cause", "a").note == \
        "the source text cannot be read"
    assert old.link(Evidence(start=0, end=500), "root_cause", "a").note == "outside the source text"
    assert old.spans == []


def test_a_pending_field_is_shown_beside_the_records_value():
    from pmparse.library.places import SourcePlaces
    from pmparse.review.compare import compare

    record = card(status="reviewed")
    suggestion = card(remediation=[(38, 62, 0.4)])
    diff = compare(record, suggestion, places=SourcePlaces(os.getcwd()))
    anchors = Anchors(len(TEXT), record.source.sha256)
    views = {v.name: v for v in field_views(record, {}, anchors, suggestion, diff.changes)}
    assert views["remediation"].kind == "change"
    assert [s.text for s in views["remediation"].values] == [TEXT[63:96]]
    assert [s.text for s in views["remediation"].pending] == [TEXT[38:62]]
    assert views["root_cause"].pending is None
    assert {s.anchor for s in anchors.spans if s.pending} == {"p-remediation-1-1"}
