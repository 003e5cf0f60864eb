"""The date and time patterns are written for speed; they find what their plain forms find.

Each pattern of ``components/dates.py`` that opens with a digit is written with its leading
look-behind moved after the first character, so Python's ``re`` can skip to the characters a
match may start with. The plain forms below are the readable specification.
"""

from __future__ import annotations

import datetime as dt
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pmparse.nlp.extractors import clock, dates, durations, timeline

_M, _O, _TZ = dates._MONTH, dates._ORD, clock._TZ
PLAIN = {
    "_ISO": re.compile(r"(?<![\d-])(?P<y>(?:19|20)\d{2})-(?P<m>\d{1,2})-(?P<d>\d{1,2})(?![\d])"),
    "_SLASH_YMD": re.compile(r"(?<![\d/])(?P<y>(?:19|20)\d{2})/(?P<m>\d{1,2})/(?P<d>\d{1,2})(?![\d/])"),
    "_COMPACT": re.compile(r"(?<!\d)(?P<y>(?:19|20)\d{2})(?P<m>[01]\d)(?P<d>[0-3]\d)(?!\d)"),
    "_DMY": re.compile(r"(?<!\w)(?P<d>[0-3]?\d)" + _O + r"\.?\s+(?:of\s+)?" + _M
                       + r"\.?,?\s+(?P<y>(?:19|20)\d{2})(?!\d)", re.IGNORECASE),
    "_NUMERIC": re.compile(r"(?<![^\W_])(?<![/.-])(?P<a>[0-3]?\d)(?P<sep>[/-])(?P<b>[0-3]?\d)(?P=sep)"
                           r"(?P<y>(?:19|20)\d{2}|\d{2})(?![^\W_]|[/-])"),
    "_DOTTED": re.compile(r"(?<![\w.])(?P<d>[0-3]?\d)\.(?P<m>[01]?\d)\.(?P<y>(?:19|20)\d{2})(?![\w.])"),
    "_YEAR": re.compile(r"(?<!\d)(?P<y>(?:19|20)\d{2})(?!\d)"),
    "_CLOCK": re.compile(r"(?<![\d:.])(?P<h>[01]?\d|2[0-3]):(?P<mi>[0-5]\d)(?::[0-5]\d(?:\.\d+)?)?(?!\d|:\d)"
                         r"(?:\s?(?P<ap>[ap]\.?m\.?)(?!\w))?(?P<tz>" + _TZ + r")", re.IGNORECASE),
    "_MILITARY": re.compile(r"(?<![\d:.])(?P<h>[01]\d|2[0-3])(?P<mi>[0-5]\d)\s?(?P<tz>utc|gmt|z)\b", re.IGNORECASE),
    "_CLOCK_AMPM": re.compile(r"(?<![\d:.])(?P<h>1[0-2]|0?[1-9])\s?(?P<ap>[ap]\.?m\.?)(?!\w)(?P<tz>" + _TZ + r")",
                              re.IGNORECASE),
    "_HOUR_RANGE": re.compile(r"(?<![\w:.,/-])(?P<h1>1[0-2]|0?[1-9])(?::(?P<m1>[0-5]\d))?[ \t]?(?:-{1,2}|–|—|to)"
                              r"[ \t]?(?P<h>1[0-2]|0?[1-9])(?::(?P<mi>[0-5]\d))?[ \t]?(?P<ap>[ap]\.?m\.?)(?!\w)",
                              re.IGNORECASE),
}

# pieces that make dates, times and near misses, Unicode digits included
PIECES = ["0", "1", "2", "3", "4", "5", "9", ":", "-", "/", ".", ",", " ", "\n", "a", "x", "_", "\u0661",
          "2020", "1999", "19", "20", "12", "23", "24", "utc", "UTC", "pm", "am", "a.m.", "Jan", "march", "of",
          "th", "to", "\u2013", "T", "z"]


def _pattern(name: str):
    """The compiled pattern ``name`` from whichever extractor module defines it."""
    return next(getattr(m, name) for m in (dates, clock, timeline, durations) if hasattr(m, name))


def _found(pattern: re.Pattern, text: str, pos: int, endpos: int) -> list:
    return [(m.span(), m.groupdict()) for m in pattern.finditer(text, pos, endpos)]


@pytest.mark.parametrize("name", sorted(PLAIN))
def test_fast_pattern_finds_what_the_plain_one_does_on_dates_and_near_misses(name):
    texts = ["on 2021-03-09 at 23:45 UTC", "x2021-03-09", "12/31/2020 and 1/2/21", "20211231", "1250 UTC",
             "9am-11 am", "1-3pm", "10.05.2016", "v1.2.2016", "24:00 and 23:59:59", "4th of March 2021",
             "\u0661\u0662:30", "0am 00:61 012:30",
             "_4/21/23_", "x4/21/23", "4/21/23x"]
    for text in texts:
        assert _found(_pattern(name), text, 0, len(text)) == _found(PLAIN[name], text, 0, len(text)), text


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=14), st.data())
def test_fast_patterns_equal_plain_ones_on_random_text_and_windows(parts, data):
    text = "".join(parts)
    pos = data.draw(st.integers(0, len(text)))
    endpos = data.draw(st.integers(pos, len(text)))
    for name, plain in PLAIN.items():
        assert _found(_pattern(name), text, pos, endpos) == _found(plain, text, pos, endpos), name


TIMELINES = [
    "Timeline\n- 09:12 the queue stops draining\nworkers pile up behind it\n  10:05 workers restarted, recovered\n",
    "### 11 March\n23:50 alerts fire\n00:20 failover done, service restored\nMon 9 Mar 10:00 retro\n",
    "| 2021-03-09 14:02 | deploy |\n| 14:40 | rolled back, recovered |\nTue 10:05 note\nx 12:00 late\n",
]


@pytest.mark.parametrize("text", TIMELINES)
def test_the_entry_shortcut_skips_only_lines_that_open_no_entry(text, monkeypatch):
    def read():
        return [(e.moment.start, e.moment.date, e.moment.minutes, e.recovered)
                for e in timeline._timeline_entries(text, 0, len(text), dt.date(2021, 3, 1), "mdy")]

    fast = read()
    monkeypatch.setattr(timeline, "MAY_OPEN", re.compile(""))  # reads every line
    assert fast == read()
    assert fast  # each text has entries


def test_entry_shortcut_needs_a_digit_or_a_day_or_month_name_up_front():
    assert clock.MAY_OPEN.match("- xy 14:00", 2) is None
    assert clock.MAY_OPEN.match("- x 14:00", 2) is not None  # a moment may start two characters in
    assert clock.MAY_OPEN.match("workers pile up", 0) is None
    assert clock.MAY_OPEN.match("  Mar 3", 0) is not None
    assert clock.MAY_OPEN.match("(14:00)", 0) is not None


# --- the length phrases of durations.py (caseless_word_start): their plain forms are durations.PLAIN

LENGTH_PIECES = ["for", "FOR", "For", "lasted", "lasting", "during", "period of", "window of", "Stretch of",
                 "\u017ftretch of", "span of", "interval of", "course of", "in", "\u0130n", "\u0131n", "within", "over",
                 "an", "a", "the", "about", "2", "45", "1.5", " ", "  ", "\n", "-", "_", "x", "é", ".", ",", "hours",
                 "hour", "h", "m", "M", "min", "minutes", "days", "outage", "Outage", "downtime", "incident",
                 "impact", "of", "unavailable", "recovered", "resolved", "fixed", "took", "after", "between",
                 "time to repair", "Time To Resolution", "total downtime", "duration", "duration of the outage",
                 " was ", ":", "2-hour", "30-minute", "review", "k", "\u212a",
                 "period", "span", " a ", "total", "a total of", "totalling", "Totaling"]


def test_every_length_phrase_is_rewritten():
    assert sorted(durations.PLAIN) == ["_ADJECTIVE_PHRASE", "_LABELLED_PROSE", "_OUTAGE_PHRASE", "_PERIOD_PHRASE",
                                       "_PHRASE", "_RECOVERY_PHRASE", "_TOTAL_PHRASE", "_WINDOW_PHRASE"]
    for name, plain in durations.PLAIN.items():
        fast = getattr(durations, name)
        assert fast.pattern != plain and fast.flags & re.IGNORECASE, name
        assert fast.groupindex == re.compile(plain, re.IGNORECASE).groupindex, name


@pytest.mark.parametrize("text", [
    "the outage lasted 45 minutes", "For 2 hours nobody could log in", "a 30-minute outage of the API",
    "during the 40 minutes between the deploy and the rollback", "Time to resolution was about 35 minutes",
    "recovered within 2 hours", "xfor 2 hours", "_for 2 hours", "\u017ftretch of 5 minutes", "\u0130n 5 hours between",
    "an outage of 2 hours", "Total Downtime: 3h", "lasting 1.5 h", "a 2-hour incident review",
    "for a 2-hour period", "FOR AN 8-hour stretch", "xfor a 2-hour span",
    "for a total of 47 minutes", "TOTALLING 2 hours", "xtotaling 5 minutes",
])
def test_length_phrases_find_what_their_plain_forms_find(text):
    for name, plain in durations.PLAIN.items():
        assert _found(getattr(durations, name), text, 0, len(text)) == \
            _found(re.compile(plain, re.IGNORECASE), text, 0, len(text)), (name, text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(LENGTH_PIECES), min_size=1, max_size=14), st.data())
def test_length_phrases_equal_their_plain_forms_on_random_text_and_windows(parts, data):
    text = "".join(parts)
    pos = data.draw(st.integers(0, len(text)))
    endpos = data.draw(st.integers(pos, len(text)))
    for name, plain in durations.PLAIN.items():
        assert _found(getattr(durations, name), text, pos, endpos) == \
            _found(re.compile(plain, re.IGNORECASE), text, pos, endpos), name


# --- the one-scan index of the facts finders (dates.ScanIndex) and its pattern twins

TWIN_PIECES = PIECES + ["Mon", "monday", "Tues", "WEDNESDAY", "thurs", "Fri", "sat", "Sunday", "sept", "Sept.",
                        "June", "july", "dec", "\u017fat", "\u017fept", "st", "nd", ", ", ".", "of ", "\u0663"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(TWIN_PIECES), min_size=1, max_size=16), st.data())
def test_each_index_twin_finds_what_its_pattern_finds(parts, data):
    text = "".join(parts)
    endpos = data.draw(st.integers(0, len(text)))
    for pattern, twin in dates.SKIPPING.items():
        assert [m.span() for m in twin.finditer(text, 0, endpos)] == \
            [m.span() for m in pattern.finditer(text, 0, endpos)], pattern.pattern
        assert [(m.span(), m.groupdict()) for m in dates.scan(pattern, text, endpos)] == \
            _found(pattern, text, 0, endpos)


def test_index_twins_on_dates_written_out():
    text = ("Wednesday, March 3rd 2021; 4th of March 2021; Tue 5 Jan; x5 Jan; Mon. Jan 4; "
            "\u017fat 9 May; sept 31; 10 Dec.")
    for pattern, twin in dates.SKIPPING.items():
        assert [m.span() for m in twin.finditer(text)] == [m.span() for m in pattern.finditer(text)]
        assert [m.span() for m in pattern.finditer(text)], pattern.pattern  # each finds some


def _moments(text: str, start: int, end: int, reference, order: str) -> list:
    return [(m.start, m.end, m.date, m.minutes, m.partial) for m in clock.find_moments(text, start, end, reference,
                                                                                       order)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(TWIN_PIECES), min_size=1, max_size=20), st.sampled_from(["mdy", "dmy"]))
def test_the_index_reads_a_whole_text_as_its_own_scans_do(parts, order):
    text = "".join(parts)
    reference = dt.date(2021, 3, 1)
    alone = (_moments(text, 0, len(text), reference, order), dates.find_dates(text, 0, len(text), order),
             clock.find_times(text))
    with dates.scanned(text, len(text)) as index:
        assert index.covers(text, len(text))
        assert (_moments(text, 0, len(text), reference, order), dates.find_dates(text, 0, len(text), order),
                clock.find_times(text)) == alone


@pytest.mark.parametrize("text", TIMELINES)
def test_the_index_reads_timeline_lines_as_their_own_scans_do(text):
    def read():
        return [(e.moment.start, e.moment.date, e.moment.minutes, e.recovered)
                for e in timeline._timeline_entries(text, 0, len(text), dt.date(2021, 3, 1), "mdy")]

    alone = read()
    with dates.scanned(text, len(text)):
        assert read() == alone


def test_the_index_answers_only_for_its_text_and_within_its_limit():
    text = "On 2021-03-09 at 10:00 UTC the queue stopped. " * 3
    other = "".join(text)  # equal, but another object: a title or a file name is scanned alone
    with dates.scanned(text, 50) as index:
        assert index.covers(text, 50) and not index.covers(text, 51) and not index.covers(other, 10)
        assert dates.find_dates(text, 0, 120) == dates.find_dates(other, 0, 120)  # past the limit: alone
    with dates.scanned(text, len(text)) as index:
        # an answer from the index shows: a date it does not hold, well before the window's end
        index._full = [([27], [(27, 31, "1999-01-01", "1999-01-01")])] + [([], []) for _ in dates._FULL[1:]]
        assert text[72] == " "  # a window ending at white space reads the index to its end
        assert dates.find_dates(text, 26, 72) == [("1999-01-01", 27, 31)]
        assert dates.find_dates(other, 26, 72) == [("2021-03-09", 49, 59)]
    assert dates._active() == []


def _windows_alone_and_indexed(text: str, start: int, end: int, order: str = "mdy"):
    def read():
        return (dates.find_dates(text, start, end, order), dates.find_partial_dates(text, start, end),
                clock.find_times(text, start, end), _moments(text, start, end, dt.date(2021, 3, 1), order))

    alone = read()
    with dates.scanned(text, len(text)):
        return alone, read()


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(TWIN_PIECES + ["11:45 AM PDT", "September 22, 2021 ", "Wed ", "   "]),
                min_size=1, max_size=20), st.data(), st.sampled_from(["mdy", "dmy"]))
def test_the_index_reads_any_window_as_its_own_scans_do(parts, data, order):
    """Windows cut anywhere (the finders read a line's first 48 or 30 characters, 120 before a
    section): a match across the window's end or start changes what the window's scan finds."""
    text = "".join(parts)
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    alone, indexed = _windows_alone_and_indexed(text, start, end, order)
    assert indexed == alone


def test_a_time_cut_by_a_window_is_read_as_the_window_reads_it():
    # a timeline line's first 30 characters end inside its time zone: "11:45 AM" is the window's time
    line = "September 22, 2021 11:45 AM PDT: the queue backed up\n"
    alone, indexed = _windows_alone_and_indexed(line, 0, 30)
    assert alone[2] == [(705, 19, 27)] and indexed == alone
    # a weekday before the window's start: the window's own scan finds "5 March" after it
    text = "We met on Mon 5 March to plan."
    alone, indexed = _windows_alone_and_indexed(text, text.index("5"), len(text))
    assert alone[1] == [(3, 5, 14, 21)] and indexed == alone


def test_a_stated_span_on_a_dated_timeline_line_is_the_same_with_the_index():
    # the range sits in a line opening with a date and time that runs past the 30 characters read
    # to tell a timeline entry: with the index, the line's time was lost and the step's range
    # became the incident's length
    text = ("# Queue outage\n\n## Timeline\n\nSeptember 22, 2021 11:45 AM PDT: errors between 11:50 and "
            "12:40 while we restarted\nSeptember 22, 2021 12:45 PM PDT: resolved\n")
    reference = dt.date(2021, 9, 22)
    alone = durations.find_stated_spans(text, 0, len(text), reference)
    with dates.scanned(text, len(text)):
        assert durations.find_stated_spans(text, 0, len(text), reference) == alone == []


def test_each_thread_reads_its_own_index():
    """Two documents extracted at once in two threads: each thread's block pushes and pops its own
    index (one shared stack let one thread pop the other's index, its own left current)."""
    import threading

    first, second = "On 2021-03-09 at 10:00 UTC." * 2, "On 2021-04-01 at 11:00 UTC." * 2
    entered, left = threading.Event(), threading.Event()
    seen = {}

    def other():
        with dates.scanned(second, len(second)) as index:
            entered.set()
            left.wait(5)
            seen["own"] = dates.active_index(second, 10) is index
            seen["first"] = dates.active_index(first, 10)

    thread = threading.Thread(target=other)
    with dates.scanned(first, len(first)) as index:
        thread.start()
        entered.wait(5)
        assert dates.active_index(second, 10) is None
    left.set()
    thread.join(5)
    assert seen == {"own": True, "first": None} and dates.active_index(first, 10) is None


def test_a_month_written_with_a_long_s_is_read_not_a_key_error():
    # IGNORECASE reads "\u017fept" as "sept"; the month's lookup lowered it and raised KeyError
    for text in ("\u017fept 5, 2021", "5 \u017fept"):
        assert dates.find_partial_dates(text) or dates.find_dates(text)
    assert dates.find_dates("\u017fept 5, 2021") == [("2021-09-05", 0, 12)]


@pytest.mark.parametrize("text", [
    "Mon 5 March 2021, 11:45 AM PDT: x 10:00:05.123 UTC+05:30 on 2021-03-09\n",
    "Tue, 9 Mar 2021 04/05/21 1250Z 3pm 10.05.2016 20210309 March  5th, 2021\n",
])
def test_the_index_reads_every_window_of_a_line_as_its_own_scans_do(text):
    # every start and end, so each match is cut at each of its characters
    for start in range(len(text)):
        for end in range(start, len(text) + 1, 2 if start % 3 else 1):
            alone, indexed = _windows_alone_and_indexed(text, start, end)
            assert indexed == alone, (start, end, text[start:end])
