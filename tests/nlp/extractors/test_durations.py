"""Durations: the forms issue 23's development set showed the readers missing (texts written here)."""

from __future__ import annotations

import datetime as dt

import pytest

from pmparse.nlp.extractors import durations, timeline

REF = dt.date(2031, 6, 6)


@pytest.mark.parametrize(
    ("text", "minutes", "ends"),
    [
        # present-tense recoveries, as timelines copied from a chat log write them
        ("10:02 Logins start failing\n10:05 Team paged\n10:11 Error graphs return to normal\n", 9, ["10:02", "10:11"]),
        ("07:40 Queue stops draining\n07:52 Workers restarted, normal operation resumes\n", 12, ["07:40", "07:52"]),
        ("11:00 Bot banned by the chat service\n15:30 New bot deployed; the queue is back to a functional state\n",
         270, ["11:00", "15:30"]),
        ("18:10 Mail relay stopped\n20:35 Relay restarted, which fixes the issue\n", 145, ["18:10", "20:35"]),
        ("03:00 Mirror unreachable\n03:45 Mirror back online\n", 45, ["03:00", "03:45"]),
    ],
)
def test_present_tense_recoveries_end_a_timeline(text, minutes, ends):
    found, evidence = timeline.timeline_span(text, 0, len(text), REF)
    assert found == minutes
    assert [text[s:e] for s, e in evidence] == ends


def test_a_plural_fixes_is_not_a_recovery():
    # "Fixes ... are deployed" names the change, not the service coming back
    text = "09:00 Builds fail\n09:30 Fixes to the runner are deployed\n"
    assert timeline.timeline_span(text, 0, len(text), REF) is None


def test_a_key_event_label_may_say_declared():
    text = ("- Key events\n  - First detected: 2031-06-06 12:10\n  - Incident declared: 2031-06-06 13:00\n"
            "  - Repaired declared: 2031-06-06 14:40\n  - Resolved: 2031-06-06 16:00\n")
    minutes, evidence = timeline.find_key_events(text)
    assert minutes == 150
    assert [text[s:e] for s, e in evidence] == ["2031-06-06 12:10", "2031-06-06 14:40"]


def test_moments_in_brackets_make_a_span():
    text = "Summary\nBetween [2031/06/06 18:55 UTC] and [2031/06/07 02:00 UTC] outbound mail was not delivered.\n"
    minutes, evidence, _, how = durations.find_duration(text)
    assert (minutes, how) == (425, "span")
    assert [text[s:e] for s, e in evidence] == ["2031/06/06 18:55 UTC", "2031/06/07 02:00 UTC"]


def test_a_tilde_may_round_a_spans_end():
    text = "Summary\nPages failed between 2031-06-19 19:07:32 and ~19:20, when the cache host came back.\n"
    minutes, evidence, _, how = durations.find_duration(text)
    assert (minutes, how) == (13, "span")
    assert [text[s:e] for s, e in evidence] == ["2031-06-19 19:07:32", "19:20"]


@pytest.mark.parametrize(("text", "minutes"), [
    ("The scoring service went down for a one hour period during a deploy.", 60),
    ("Uploads were refused for a 40-minute stretch on Tuesday.", 40),
])
def test_a_length_written_as_a_period(text, minutes):
    assert durations.find_duration(text)[0] == minutes


def _with_timeline(summary: str) -> tuple[str, list[tuple[int, int]]]:
    text = f"Summary\n{summary}\nTimeline\n07:30 Queries slow down\n07:41 First alert\n08:08 Node restarted, back to normal\n"
    start = text.index("07:30")
    return text, [(start, len(text))]


def test_a_rounded_phrase_gives_way_to_the_timeline_it_rounds():
    text, timelines = _with_timeline("Queries were slow for ~30 minutes.")
    minutes, evidence, confidence, how = durations.find_duration(text, timelines=timelines, reference=REF)
    assert (minutes, how) == (38, "timeline")
    assert [text[s:e] for s, e in evidence] == ["07:30", "08:08"]


@pytest.mark.parametrize("summary", [
    # not rounded: the writer's figure stands
    "Queries were slow for 30 minutes.",
    # the timeline is shorter than the rounded figure: it starts after the outage did
    "Queries were slow for about 45 minutes.",
    # far longer than the phrase: the timeline times something else
    "Queries were slow for about 20 minutes.",
])
def test_the_phrase_stands_otherwise(summary):
    text, timelines = _with_timeline(summary)
    assert durations.find_duration(text, timelines=timelines, reference=REF)[3] == "phrase"


@pytest.mark.parametrize(("text", "minutes", "spelt"), [
    # windows inside an envelope: the total the sentence gives is the outage, not the envelope
    ("Summary\nSign-ins failed in four short bursts between 08:00 and 12:00 UTC, for a total of 38 minutes.\n",
     38, "38 minutes"),
    ("Summary\nBetween 14:10 and 17:40 UTC the mirror dropped out again and again, 52 minutes in total.\n",
     52, "52 minutes"),
    # a total alone is a stated length too
    ("Summary\nThe feed stalled twice during the morning for a total of 25 minutes.\n", 25, "25 minutes"),
])
def test_a_stated_total_beats_the_envelope_of_its_windows(text, minutes, spelt):
    found, evidence, _, _ = durations.find_duration(text)
    assert found == minutes
    assert [text[s:e] for s, e in evidence] == [spelt]


def test_a_total_larger_than_the_span_does_not_replace_it():
    # "a total of 9 hours" of engineers' effort inside a 40-minute outage is not its length
    text = "Summary\nThe API failed between 10:00 and 10:40 UTC; engineers spent a total of 9 hours on the review.\n"
    assert durations.find_duration(text)[0] == 40


@pytest.mark.parametrize("title, minutes, spelt", [
    ("Post Mortem: 2h Zorbq Upload Outage", 120, "2h"),
    ("2031-04-03, 30min outage during the node pool upgrade", 30, "30min"),
    ("45 minute downtime of the zorbq registry", 45, "45 minute"),
    ("Three-hour outage of the build queue", 180, "Three-hour"),
    ("A 90-minute disruption of uploads", 90, "90-minute"),
])
def test_a_title_naming_the_outages_length_without_an_article_states_it(title, minutes, spelt):
    found = durations.title_length(title)
    assert found is not None and found[0] == minutes
    assert title[found[1][0]:found[1][1]] == spelt


@pytest.mark.parametrize("title", [
    "24h incident review of the zorbq queue",   # the responders' work
    "Zorbq 2.1 outage", "512M heap outage", "Outage after a 3h maintenance window",
    "30min before the outage: what we missed", "Outage on 2031-04-03", "2 days of degraded uploads",
])
def test_a_title_length_that_is_no_outages_is_not_read(title):
    assert durations.title_length(title) is None
