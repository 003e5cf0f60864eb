"""Durations: labels, phrases, stated spans and timelines, on text written for these tests."""

from __future__ import annotations

import datetime as dt

import pytest

from pmparse.nlp.components.facts import find_incident_duration
from pmparse.nlp.extractors import clock, durations, timeline
from pmparse.nlp.extractors.dates import find_dates, non_overlapping

REF = dt.date(2022, 3, 4)


def _evidence(text: str, found) -> list[str]:
    return [text[s:e] for s, e in found[1]]



def test_a_numeric_date_in_markdown_emphasis_is_a_date():
    # "_4/21/23_" is the date in italics; letters or digits around it are still no date
    text = "## Timeline\n_4/21/23_\n\n*10/2/2031*\n\nx4/21/23 and 4/21/23b\n"
    assert [value for value, *_ in find_dates(text)] == ["2023-04-21", "2031-10-02"]

# --- parsing --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "minutes"), [("2.5 minutes", 3), ("1.5 hours", 90), ("90 secs", 2), ("0.4 minutes", 0)]
)
def test_half_a_minute_rounds_up(text, minutes):
    assert durations.parse_duration(text) == minutes


def test_a_clock_time_may_carry_a_list_colon():
    text = "20:39: the deploy starts"
    assert clock.find_times(text) == [(20 * 60 + 39, 0, 5)]
    assert clock.find_times("at 21:43:05 exactly") == [(21 * 60 + 43, 3, 11)]


# --- labels ---------------------------------------------------------------------------------


def test_a_label_inside_a_log_line_is_not_the_reports_field():
    text = "Build step done (duration: 04m 12s) on every runner.\nThe API was unavailable for 45 minutes.\n"
    minutes, evidence, _, how = durations.find_duration(text)
    assert (minutes, how) == (45, "phrase")
    assert text[evidence[0][0]:evidence[0][1]] == "45 minutes"


@pytest.mark.parametrize(
    ("text", "minutes", "value"),
    [
        ("Notes\n- **Time to recover**: 1h 5m\n", 65, "1h 5m"),
        ("Overview\nDuration\n: roughly 40 minutes\nImpact\n: uploads were rejected\n", 40, "roughly 40 minutes"),
        ("| Field | Value |\n| Duration | 2h |\n", 120, "2h |"),
    ],
)
def test_labels_at_the_start_of_a_line(text, minutes, value):
    found = durations.find_duration(text)
    assert found[0] == minutes and found[3] == "labelled"
    assert _evidence(text, found) == [value]


def test_a_label_written_in_a_sentence():
    text = "We rolled back the flag. Overall, the time to resolution was roughly 35 minutes, start to end."
    found = durations.find_duration(text)
    assert (found[0], found[3]) == (35, "labelled")
    assert _evidence(text, found) == ["35 minutes"]
    text = "The proxy restarted by itself; the total downtime was about 12 minutes."
    assert durations.find_duration(text)[:1] == (12,)


def test_one_label_with_several_values_means_several_incidents():
    text = ("# Two bad days\n\n### Monday\n**Duration:** 40 minutes\n\n### Thursday\n**Duration:** 25 minutes\n\n"
            "## Timeline\n09:00 Errors start\n09:40 Errors stop, service restored\n")
    assert durations.several_incidents(text)
    assert durations.find_duration(text, timelines=[(text.index("09:00"), len(text))], reference=REF) is None
    assert find_incident_duration(text, 0, "2022-03-04", [(text.index("09:00"), len(text))]) is None
    same = "**Duration:** 40 minutes\n\nRecap\n**Duration:** 40 minutes\n"
    assert not durations.several_incidents(same)
    assert durations.find_duration(same)[0] == 40


# --- phrases --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Resolvers cached the answer with a TTL of 5 minutes, so clients kept the stale address.",
        "The job archives every attachment over 250M to cold storage.",
        "The client gives up after a timeout of 45 seconds by default.",
    ],
)
def test_of_and_over_alone_do_not_state_a_length(text):
    assert durations.find_duration(text) is None


@pytest.mark.parametrize(
    ("text", "minutes", "value"),
    [
        ("Reports loaded slowly for a duration of about two hours.", 120, "two hours"),
        ("Within an interval of roughly four hours the cache served stale pages.", 240, "four hours"),
        ("Uploads were rejected during 10 minutes.", 10, "10 minutes"),
        ("After the failover the database recovered in 15 minutes.", 15, "15 minutes"),
        ("Recovery took about 25 minutes once the replica caught up.", 25, "25 minutes"),
        # a length written before the word for the outage
        ("Search had a roughly 4 hours outage after the index swap.", 240, "4 hours"),
        ("It was a 30-minute outage of the upload API.", 30, "30-minute"),
        ("Users saw a 2-hour login disruption on Monday.", 120, "2-hour"),
        # a window between two events
        ("Exports written in 6 hours between the upgrade and the revert were empty.", 360, "6 hours"),
    ],
)
def test_phrases_that_state_a_length(text, minutes, value):
    found = durations.find_duration(text)
    assert found[0] == minutes and found[3] == "phrase"
    assert _evidence(text, found) == [value]


def test_a_length_before_someone_noticed_is_the_time_to_detect():
    text = "Builds sat in the queue for two hours before anyone noticed."
    assert durations.find_duration(text) is None
    text = "The queue was stuck for two hours before it was detected. It was down for 3 hours in total."
    assert durations.find_duration(text)[0] == 180
    text = "One rack dropped off for about 15 minutes until the fault was detected. Pages failed for 2 hours."
    assert durations.find_duration(text)[0] == 120


@pytest.mark.parametrize(
    "text",
    [
        # a size, not minutes: a lone capital M
        "In each outage memory climbed to an average of 768M per worker and latency rose.",
        # the service working, or the failure staying away
        "By evening the queue had been operating normally for 90 minutes.",
        "The new proxy pod had been running for 10m already when it was checked.",
        "Since the fix the crash has not recurred for about 70 hours.",
        # the responders' work, not the outage
        "Thanks to three time zones the team kept up incident response for 24h in a row.",
    ],
)
def test_phrases_about_something_other_than_the_outage_state_no_length(text):
    assert durations.find_duration(text) is None


def test_a_lone_lower_case_m_is_still_minutes():
    assert durations.parse_duration("16m") == 16 and durations.parse_duration("0h 16m") == 16
    assert durations.find_duration("The cache was cold for 16m after the restart.")[0] == 16


def test_a_span_in_the_phrases_own_sentence_is_exact_and_wins():
    text = "Image uploads were unavailable for roughly 2 hours, from 09:10 to 11:05 UTC, on Monday.\n"
    found = durations.find_duration(text)
    assert (found[0], found[3]) == (115, "span")
    # a span in a later sentence does not refine the phrase
    text = "Image uploads were unavailable for roughly 2 hours. From 09:10 to 11:05 we cleaned up.\n"
    assert durations.find_duration(text)[:1] == (120,)


def test_a_bare_phrase_in_a_timeline_or_a_plan_is_not_the_outages_length():
    text = ("Summary\nUploads failed after a deploy.\n\nTimeline\n10:00 Deploy starts; one job waiting for 45m\n"
            "10:20 Uploads fail\n11:05 Rollback done, service restored\n\nAction items\n"
            "- Book a 3-hour maintenance downtime to move the queue\n")
    timeline = (text.index("10:00"), text.index("Action items"))
    plan = (text.index("- Book"), len(text))
    found = durations.find_duration(text, reference=REF, timelines=[timeline], plans=[plan])
    assert (found[0], found[3]) == (65, "timeline")
    assert durations.find_duration(text, reference=REF, timelines=[], plans=[plan])[:1] == (45,)
    assert durations.find_duration(text, reference=REF, timelines=[timeline], plans=[])[:1] == (180,)
    # a phrase that names the outage counts in a timeline
    named = "Timeline\n10:00 Deploy\n10:40 Impact over: an outage of 30 minutes\n"
    found = durations.find_duration(named, reference=REF, timelines=[(9, len(named))])
    assert (found[0], found[3]) == (30, "phrase")


def test_action_items_sections_are_the_plans_of_extract_facts():
    from pmparse.ingest.read import ingest_bytes
    from pmparse.nlp.components.facts import extract_facts
    from pmparse.nlp.pipeline import PipelineConfig, analyse, get

    text = ("# Upload outage\n\n## Summary\n\nUploads failed after a deploy.\n\n## Action items\n\n"
            "- Book a 3-hour maintenance downtime to move the queue.\n")
    doc = analyse(get(PipelineConfig(tagger=False)), ingest_bytes(text.encode(), "report.md"))
    assert "duration_minutes" not in extract_facts(doc)
    doc = analyse(get(PipelineConfig(tagger=False)),
                  ingest_bytes(text.replace("## Action items", "## Notes").encode(), "report.md"))
    assert extract_facts(doc)["duration_minutes"]["value"] == 180


def test_among_lessons_only_a_phrase_naming_the_outage_is_read():
    from pmparse.ingest.read import ingest_bytes
    from pmparse.nlp.components.facts import extract_facts
    from pmparse.nlp.pipeline import PipelineConfig, analyse, get

    text = ("# Upload outage\n\n## Summary\n\nUploads failed after a deploy.\n\n## Lessons learned\n\n"
            "The disk warnings had been ignored for 3 days before it.\n")
    doc = analyse(get(PipelineConfig(tagger=False)), ingest_bytes(text.encode(), "report.md"))
    assert "duration_minutes" not in extract_facts(doc)
    named = text.replace("The disk warnings", "The upload outage of 50 minutes came after warnings")
    doc = analyse(get(PipelineConfig(tagger=False)), ingest_bytes(named.encode(), "report.md"))
    assert extract_facts(doc)["duration_minutes"]["value"] == 50


@pytest.mark.parametrize(
    ("text", "minutes"),
    [
        # a value known to be a length reads a capital M as minutes
        ("Time to repair: 0H 16M\n", 16),
        ("Duration: 2H 16M\n", 136),
        # the failure going on, not the service working
        ("The primary did not come back for 40 minutes.", 40),
        ("The cluster was not stable for 3 hours.", 180),
        ("Customers saw slow response for 45 minutes.", 45),
        ("Error rates stayed above normal for 2 hours.", 120),
        ("Users could not log in for 2 hours.", 120),
        ("## Incident response\n\nFor about 45 minutes the API returned errors.", 45),
        # number words and short units before the word for the outage
        ("It was a two-hour outage of the upload API.", 120),
        ("We had a 2 hr outage of search.", 120),
        # a span joined to its phrase but timing something else keeps the phrase
        ("The API returned errors for 12 minutes during a maintenance window from 02:00 to 06:00 UTC.", 12),
    ],
)
def test_lengths_the_exclusions_leave_alone(text, minutes):
    assert durations.find_duration(text)[0] == minutes


@pytest.mark.parametrize(
    "text",
    [
        "Deploys in the 30 minutes before the outage were rolled back.",
        "Logs from the 2 hours after the incident show nothing.",
        "The team held a 2-hour incident review the next day.",
        "An alert should fire when the export job stops for more than an hour.",
    ],
)
def test_lengths_of_something_else_near_the_outage_are_not_read(text):
    assert durations.find_duration(text) is None


# --- stated spans ---------------------------------------------------------------------------


def test_an_arrow_joins_two_moments():
    text = "Impact window: 2022-03-04 10:05 -> 2022-03-04 10:50 UTC"
    (minutes, evidence), = durations.find_stated_spans(text)
    assert minutes == 45
    assert [text[s:e] for s, e in evidence] == ["2022-03-04 10:05", "2022-03-04 10:50 UTC"]


def test_a_span_wrapped_over_two_lines():
    text = "Uploads failed between 09:12\nand 09:58 UTC for most users."
    (minutes, evidence), = durations.find_stated_spans(text)
    assert minutes == 46
    assert [text[s:e] for s, e in evidence] == ["09:12", "09:58 UTC"]
    # a dash ending a line belongs to a list or a table, not to a range
    assert durations.find_stated_spans("Checks ran at 10:00 -\n11:00 the next batch") == []


@pytest.mark.parametrize(
    ("text", "minutes", "value"),
    [
        ("Deploys paused on Friday 1-3pm", 120, "1-3pm"),
        ("Slow builds from 11-1pm today", 120, "11-1pm"),
        ("Maintenance ran 2:00-3:30pm and went long.", 90, "2:00-3:30pm"),
        ("Errors from 9 to 10:15 am on the east cluster", 75, "9 to 10:15 am"),
    ],
)
def test_an_hour_range_sharing_its_am_pm(text, minutes, value):
    (found_minutes, evidence), = durations.find_stated_spans(text)
    assert found_minutes == minutes
    assert [text[s:e] for s, e in evidence] == [value]


def test_windows_written_together_add_up():
    text = "Checkout failed between 08:10 and 08:25 and again between 08:40 and 09:00 on the same day."
    (minutes, evidence), = durations.find_stated_spans(text)
    assert minutes == 15 + 20
    assert [text[s:e] for s, e in evidence] == ["08:10", "08:25", "08:40", "09:00"]
    listed = ("Dropped messages during two windows:\n2022-03-04 10:00 -> 2022-03-04 10:30 UTC\n"
              "2022-03-04 12:00 -> 2022-03-04 13:00 UTC\n")
    assert durations.find_stated_spans(listed)[0][0] == 90


def test_a_window_inside_another_is_not_added():
    text = "Between 10:00 and 11:00 the API was slow (from 10:15 to 10:45 it was fully down)."
    spans = durations.find_stated_spans(text)
    assert [minutes for minutes, _ in spans] == [60, 30]


def test_spans_of_timeline_steps_are_left_out():
    text = ("Timeline\n14:02 Alerts fire for the web tier\n14:10 We drain traffic between 14:12 and 14:20\n"
            "13:40-13:55: engineers restart the pods\n")
    assert durations.find_stated_spans(text) == []
    alone = "Impact\n13:40-13:55 UTC\n"
    assert durations.find_stated_spans(alone)[0][0] == 15


# --- timelines ------------------------------------------------------------------------------


def test_an_entry_under_a_heading_is_read_whole():
    text = ("### 09:00\n\nPayments start failing for card users.\n\n"
            "### 09:40\n\nA rollback finishes and payments are back to normal.\n")
    minutes, evidence = timeline.timeline_span(text, 0, len(text), REF)
    assert minutes == 40
    assert [text[s:e] for s, e in evidence] == ["09:00", "09:40"]


def test_marks_of_the_outage_start_and_end():
    text = ("10:01 Deploy begins\n10:07 Error rate climbs.\nOUTAGE BEGINS\n10:30 Rollback started\n"
            "10:41 Error rate flat - OUTAGE ENDS\n11:30 Follow-up ticket filed, all healthy\n")
    minutes, evidence, marked = timeline.timeline_reading(text, 0, len(text), REF)
    assert (minutes, marked) == (34, True)
    assert [text[s:e] for s, e in evidence] == ["10:07", "10:41"]
    # the marks win over a rounded phrase of the summary
    summary = "The site was down for about half an hour.\n\n"
    whole = summary + text
    found = durations.find_duration(whole, reference=REF, timelines=[(len(summary), len(whole))])
    assert (found[0], found[3]) == (34, "timeline_marks")
    # a stated span of the summary is as exact as the marks and is written first
    span = "Errors between 10:07 and 10:40.\n\n"
    whole = span + text
    found = durations.find_duration(whole, reference=REF, timelines=[(len(span), len(whole))])
    assert (found[0], found[3]) == (33, "span")


def test_a_failure_after_the_last_recovery_leaves_the_end_open():
    text = "08:00 Writes fail\n08:20 Writes recovered\n09:05 Writes failed again\n09:30 Team paged\n"
    assert timeline.timeline_span(text, 0, len(text), REF) is None
    healed = text + "10:10 Writes recovered for good\n"
    assert timeline.timeline_span(healed, 0, len(healed), REF)[0] == 130


@pytest.mark.parametrize(
    ("text", "minutes", "ends"),
    [
        # a date line starts the day's entries
        ("March 3\n23:10 Jobs stall\nMarch 4\n01:25 Jobs are back to normal\n", 135, ["23:10", "01:25"]),
        # a small step back is an entry written out of order
        ("14:00 Disk fills up\n14:20 Alerts fire\n14:12 First error seen in the logs\n14:45 Service restored\n",
         45, ["14:00", "14:45"]),
        # an entry in the present tense says the service recovered
        ("09:00 Checkout starts to fail\n09:20 Cache nodes restarted\n09:35 Checkout recovers\n", 35,
         ["09:00", "09:35"]),
        # entries before the first written date move with it: the reference (say, a file name's
        # date) is two days after the day the timeline writes
        ("21:50 Replica lag grows\nMarch 2 22:05 Primary restarts\n22:30 Writes are restored\n", 40,
         ["21:50", "22:30"]),
        # past midnight: the entries before it belong to the day before the written date
        ("23:50 Replica lag grows\nMarch 3 00:05 Primary restarts\n00:30 Writes are restored\n", 40,
         ["23:50", "00:30"]),
        # a reference that agrees with the written date changes nothing
        ("21:50 Replica lag grows\nMarch 4 22:05 Primary restarts\n22:30 Writes are restored\n", 40,
         ["21:50", "22:30"]),
    ],
)
def test_timeline_spans(text, minutes, ends):
    found, evidence = timeline.timeline_span(text, 0, len(text), REF)
    assert found == minutes
    assert [text[s:e] for s, e in evidence] == ends


def test_incident_duration_reports_how_it_was_read():
    text = "Intro.\n\n## Timeline\n10:07 Errors climb - OUTAGE BEGINS\n10:41 OUTAGE ENDS\n"
    start = text.index("10:07")
    fact = find_incident_duration(text, 0, "2022-03-04", [(start, len(text))])
    assert fact["value"] == 34
    assert fact["origin"] == "text:timeline_marks"
    assert [text[s:e] for s, e in fact["evidence"]] == ["10:07", "10:41"]


def test_a_range_opening_a_timeline_entry_times_that_event_not_the_incident():
    summary = "A switch lost one of its links.\n\n"
    timeline = ("13:00 - 13:01 \nswitch flaps\n13:05 Cache errors climb\nOUTAGE BEGINS\n"
                "13:40 Link disabled, errors stop\nOUTAGE ENDS\n")
    text = summary + timeline
    found = durations.find_duration(text, reference=REF, timelines=[(len(summary), len(text))])
    assert (found[0], found[3]) == (35, "timeline_marks")
    # a sentence inside the timeline stating the window still counts
    said = summary + "Errors rose between 13:05 and 13:40.\n" + timeline
    found = durations.find_duration(said, reference=REF, timelines=[(len(summary), len(said))])
    assert (found[0], found[3]) == (35, "span")


class _Offset(int):
    """A match's start or end that counts how often the overlap check compares it: the work of
    :func:`non_overlapping`, the same on every machine (a comparison made per kept match shows
    as a count four times larger at four times the matches, on top of the rest)."""

    compared = 0

    def __lt__(self, other):
        _Offset.compared += 1
        return int.__lt__(self, other)

    def __le__(self, other):
        _Offset.compared += 1
        return int.__le__(self, other)

    def __gt__(self, other):
        _Offset.compared += 1
        return int.__gt__(self, other)

    def __ge__(self, other):
        _Offset.compared += 1
        return int.__ge__(self, other)


def _overlap_comparisons(monkeypatch, text: str) -> tuple[int, int]:
    """How many matches ``find_times`` and ``find_dates`` hand the overlap check for ``text``, and
    how many comparisons of their offsets the check makes."""
    from pmparse.nlp.extractors import dates as dates_module

    real, seen = dates_module.non_overlapping, []

    def counted(found, s=1, e=2):
        seen.append(len(found))
        return real([tuple(_Offset(v) if i in (s, e) else v for i, v in enumerate(f)) for f in found], s, e)

    with monkeypatch.context() as patch:
        patch.setattr(dates_module, "non_overlapping", counted)
        patch.setattr(clock, "non_overlapping", counted)
        _Offset.compared = 0
        assert clock.find_times(text) + find_dates(text)
    return sum(seen), _Offset.compared


@pytest.mark.parametrize("unit", ["12:00 ", "2020-01-02 ", "at 10:00 "])
def test_a_long_run_of_times_or_dates_is_resolved_in_linear_time(unit, monkeypatch):
    # the overlap check compared each match with every one kept: 16,000 clock times on one line
    # of "12:00 " took over 5 s, and each doubling four times as long. Its comparisons are counted
    # at n and 4n matches: n log n grows about 4.5 times, a comparison per kept match 16 times
    n = 4_000 // len(unit)
    matches, work = _overlap_comparisons(monkeypatch, unit * n)
    matches_4n, work_4n = _overlap_comparisons(monkeypatch, unit * (4 * n))
    assert matches >= n and matches_4n >= 4 * n
    assert work_4n < 6 * work, (work, work_4n)


def test_non_overlapping_keeps_the_longest_then_the_earliest():
    found = [("a", 0, 5), ("b", 3, 4), ("c", 5, 5), ("d", 4, 9), ("e", 5, 7), ("f", 9, 9), ("g", 7, 9)]
    # equal starts stay in the order they were kept (longest first)
    assert non_overlapping(found) == [("a", 0, 5), ("e", 5, 7), ("c", 5, 5), ("g", 7, 9), ("f", 9, 9)]
