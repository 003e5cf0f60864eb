"""Clock times and moments (a date with a time) in text, and the minutes between two of them."""

from __future__ import annotations

import datetime as _dt
import re

from pmparse.nlp.extractors.dates import (
    MONTH_HINT, active_index, find_dates, find_partial_dates, non_overlapping, resolve_year)

# 13:19, 4:11 AM, 2:08pm, 21:43:05, 1250 UTC; the hour may be followed by a time zone (or by the colon of
# a list entry, "20:39: deploy starts")
_TZ = r"(?:\s?(?:utc|gmt|z|[cp][sd]?t|[ecmp][sd]t|bst|cest|cet|ist|jst|aest|aedt|pst|pdt|edt|est)\b(?:\s?[+-]\s?\d{1,2}(?::?\d{2})?)?)?"

_CLOCK = re.compile(
    r"(?P<h>\d(?<![\d:.]\d)(?:(?<=[01])\d|(?<=2)[0-3])?):(?P<mi>[0-5]\d)(?::[0-5]\d(?:\.\d+)?)?(?!\d|:\d)(?:\s?(?P<ap>[ap]\.?m\.?)(?!\w))?"
    + r"(?P<tz>" + _TZ + r")",
    re.IGNORECASE,
)

_MILITARY = re.compile(r"(?P<h>[012](?<![\d:.]\d)(?:(?<=[01])\d|(?<=2)[0-3]))(?P<mi>[0-5]\d)\s?(?P<tz>utc|gmt|z)\b", re.IGNORECASE)

_CLOCK_AMPM = re.compile(r"(?P<h>[0-9](?<![\d:.]\d)(?:(?<=1)[0-2]?|(?<=0)[1-9]|(?<=[2-9])))\s?(?P<ap>[ap]\.?m\.?)(?!\w)(?P<tz>" + _TZ + r")", re.IGNORECASE)


class Moment:
    """A point in time as a report writes it: a date, a clock time, or both.

    Attributes:
        start: Offset where the expression starts.
        end: Offset where it ends.
        date: ISO date, or None when only a time is written.
        minutes: Minutes after midnight, or None when only a date is written.
        partial: True when the date was written without a year (resolved against a reference).
    """

    __slots__ = ("start", "end", "date", "minutes", "partial")

    def __init__(self, start: int, end: int, date: str | None, minutes: int | None, partial: bool = False) -> None:
        self.start, self.end, self.date, self.minutes, self.partial = start, end, date, minutes, partial

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Moment({self.start}, {self.end}, {self.date!r}, {self.minutes!r})"

    def value(self) -> _dt.datetime | None:
        """The moment as a naive datetime, when it has a date."""
        if self.date is None:
            return None
        day = _dt.datetime.fromisoformat(self.date)
        return day + _dt.timedelta(minutes=self.minutes or 0)


def clock_minutes(match: re.Match) -> int | None:
    """Minutes after midnight of a clock-time match (groups ``h``, ``mi``, ``ap``); None past 23 h."""
    hour, minute = int(match.group("h")), int(match.groupdict().get("mi") or 0)
    ampm = (match.groupdict().get("ap") or "").lower().replace(".", "")
    if ampm == "pm" and hour < 12:
        hour += 12
    elif ampm == "am" and hour == 12:
        hour = 0
    if hour > 23:
        return None
    return hour * 60 + minute


def find_times(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int, int]]:
    """Clock times in ``text[start:end]``: ``(minutes_after_midnight, start, end)`` in order."""
    end = len(text) if end is None else end
    index = active_index(text, end)
    if index is not None and index.times is None:
        # the whole indexed text once (see dates.ScanIndex): (start, match end, minutes, stop),
        # a match past 23 h kept with minutes None (a window's scan goes on after it)
        index.times = [index.listed([_time_item(match) for match in pattern.finditer(text, 0, index.limit)])
                       for pattern in _TIME_PATTERNS]
    found = []
    for k, pattern in enumerate(_TIME_PATTERNS):
        items = (index.window(index.times[k], pattern, start, end, _time_item) if index is not None
                 else map(_time_item, pattern.finditer(text, start, end)))
        found.extend((minutes, s, stop) for s, _, minutes, stop in items if minutes is not None)
    return non_overlapping(found)


_TIME_PATTERNS = (_CLOCK, _MILITARY, _CLOCK_AMPM)


def _time_item(match: re.Match) -> tuple[int, int, int | None, int]:
    """``(start, end, minutes, stop)`` of a clock-time match; ``stop`` leaves out white space it ended on."""
    stop = match.end()
    while stop > match.start() and match.string[stop - 1].isspace():
        stop -= 1
    return match.start(), match.end(), clock_minutes(match), stop


_GLUE = re.compile(r"^(?:\s{0,3}|\s*(?:on|at|,|T|\||-)\s*|\s*,\s*(?:at\s+)?|\s+on\s+the\s+)$", re.IGNORECASE)

_DIGIT = re.compile(r"\d")

# every moment starts with a digit, a weekday or a month name (see the patterns above): a line
# holding none of them in its first three characters opens no timeline entry
MAY_OPEN = re.compile(r".{0,2}(?:\d|mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)",
                       re.IGNORECASE | re.DOTALL)


def find_moments(text: str, start: int = 0, end: int | None = None, reference: _dt.date | None = None,
                 order: str = "mdy") -> list[Moment]:
    """Dates, times and date-times in ``text[start:end]``, in order of position.

    A date and a time a few characters apart ("13:19 UTC on 10 Jan", "2020-04-15 07:15") make one
    moment. A date without a year takes the year that puts it on or before ``reference``; without a
    reference it is left out.
    """
    end = len(text) if end is None else end
    if not _DIGIT.search(text, start, end):
        # every date and time form has a digit; most timeline lines searched have none
        return []
    months = MONTH_HINT.search(text, start, end) is not None
    full = find_dates(text, start, end, order, months)
    dates: list[tuple[str, int, int, bool]] = [(d, s, e, False) for d, s, e in full]
    if reference is not None:
        for month, day, s, e in find_partial_dates(text, start, end, full, months):
            value = resolve_year(month, day, reference)
            if value:
                dates.append((value, s, e, True))
    dates.sort(key=lambda item: item[1])
    times = find_times(text, start, end)
    # a time inside a date stretch (none expected) or a date that is really a time are dropped
    times = [t for t in times if not any(t[1] < d[2] and t[2] > d[1] for d in dates)]
    moments: list[Moment] = []
    used: set[int] = set()
    for date, ds, de, partial in dates:
        best = None
        for i, (minutes, ts, te) in enumerate(times):
            if i in used:
                continue
            gap = text[de:ts] if ts >= de else text[te:ds]
            if (ts >= de and ts - de <= 12 or te <= ds and ds - te <= 12) and _GLUE.match(gap):
                best = i
                break
        if best is None:
            moments.append(Moment(ds, de, date, None, partial))
        else:
            used.add(best)
            minutes, ts, te = times[best]
            moments.append(Moment(min(ds, ts), max(de, te), date, minutes, partial))
    for i, (minutes, ts, te) in enumerate(times):
        if i not in used:
            moments.append(Moment(ts, te, None, minutes))
    moments.sort(key=lambda m: m.start)
    return moments


def span_minutes(first: Moment, second: Moment) -> int | None:
    """Minutes from ``first`` to ``second``; a time without a date shares the other's date.

    A second time earlier than the first on the same (or an unstated) date is read as the next day.
    Returns None when the two cannot be compared or the span is not positive.
    """
    if first.minutes is None and second.minutes is None:
        if first.date and second.date:
            days = (_dt.date.fromisoformat(second.date) - _dt.date.fromisoformat(first.date)).days
            return days * 1440 if days > 0 else None
        return None
    date_a = first.date or second.date
    date_b = second.date or first.date
    if date_a is None or date_b is None:
        delta = (second.minutes or 0) - (first.minutes or 0)
        if delta <= 0:
            delta += 1440
        return delta
    a = _dt.datetime.fromisoformat(date_a) + _dt.timedelta(minutes=first.minutes or 0)
    b = _dt.datetime.fromisoformat(date_b) + _dt.timedelta(minutes=second.minutes or 0)
    delta = int((b - a).total_seconds() // 60)
    if delta <= 0 and second.date is None:
        delta += 1440
    return delta if delta > 0 else None
