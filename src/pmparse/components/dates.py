"""Dates and durations as reports write them: pure functions over strings.

Every pattern here is bounded (no nested quantifiers) so that adversarial input costs linear time.
"""

from __future__ import annotations

import datetime as _dt
import re

_MONTHS = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
    "oct": 10, "nov": 11, "dec": 12,
}
_MONTH = r"(?P<mon>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_WEEKDAY = r"(?:(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?\.?,?\s+)?"
_ORD = r"(?:st|nd|rd|th)?"
_ISO = re.compile(r"(?<![\d-])(?P<y>(?:19|20)\d{2})-(?P<m>\d{1,2})-(?P<d>\d{1,2})(?![\d])")
_SLASH_YMD = re.compile(r"(?<![\d/])(?P<y>(?:19|20)\d{2})/(?P<m>\d{1,2})/(?P<d>\d{1,2})(?![\d/])")
_COMPACT = re.compile(r"(?<!\d)(?P<y>(?:19|20)\d{2})(?P<m>[01]\d)(?P<d>[0-3]\d)(?!\d)")
_DMY = re.compile(r"(?<!\w)(?P<d>[0-3]?\d)" + _ORD + r"\.?\s+(?:of\s+)?" + _MONTH + r"\.?,?\s+(?P<y>(?:19|20)\d{2})(?!\d)", re.IGNORECASE)
_MDY = re.compile(r"(?<!\w)" + _MONTH + r"\.?\s+(?P<d>[0-3]?\d)" + _ORD + r",?\s+(?P<y>(?:19|20)\d{2})(?!\d)", re.IGNORECASE)
# 10/14/2022, 4/21/23, 06-10-2025: month first unless the first number cannot be a month
_NUMERIC = re.compile(r"(?<![\w/.-])(?P<a>[0-3]?\d)(?P<sep>[/-])(?P<b>[0-3]?\d)(?P=sep)(?P<y>(?:19|20)\d{2}|\d{2})(?![\w/-])")
# 10.05.2016: day first (the European form); a four-digit year keeps version numbers out
_DOTTED = re.compile(r"(?<![\w.])(?P<d>[0-3]?\d)\.(?P<m>[01]?\d)\.(?P<y>(?:19|20)\d{2})(?![\w.])")
# dates without a year: "November 24th", "10 Jan", "Monday 20. January"
_DM = re.compile(r"(?<!\w)" + _WEEKDAY + r"(?P<d>[0-3]?\d)" + _ORD + r"\.?\s+(?:of\s+)?" + _MONTH + r"\b\.?", re.IGNORECASE)
_MD = re.compile(r"(?<!\w)" + _WEEKDAY + _MONTH + r"\.?\s+(?P<d>[0-3]?\d)" + _ORD + r"\b(?!:\d)", re.IGNORECASE)
_YEAR = re.compile(r"(?<!\d)(?P<y>(?:19|20)\d{2})(?!\d)")
# 13:19, 4:11 AM, 2:08pm, 21:43:05, 1250 UTC; the hour may be followed by a time zone
_TZ = r"(?:\s?(?:utc|gmt|z|[cp][sd]?t|[ecmp][sd]t|bst|cest|cet|ist|jst|aest|aedt|pst|pdt|edt|est)\b(?:\s?[+-]\s?\d{1,2}(?::?\d{2})?)?)?"
_CLOCK = re.compile(
    r"(?<![\d:.])(?P<h>[01]?\d|2[0-3]):(?P<mi>[0-5]\d)(?::[0-5]\d(?:\.\d+)?)?(?![\d:])(?:\s?(?P<ap>[ap]\.?m\.?)(?!\w))?"
    + r"(?P<tz>" + _TZ + r")",
    re.IGNORECASE,
)
_MILITARY = re.compile(r"(?<![\d:.])(?P<h>[01]\d|2[0-3])(?P<mi>[0-5]\d)\s?(?P<tz>utc|gmt|z)\b", re.IGNORECASE)
_CLOCK_AMPM = re.compile(r"(?<![\d:.])(?P<h>1[0-2]|0?[1-9])\s?(?P<ap>[ap]\.?m\.?)(?!\w)(?P<tz>" + _TZ + r")", re.IGNORECASE)
# words that say a date is about the page, not the incident
_CHROME_BEFORE = re.compile(
    r"(?:last (?:edited|modified|updated)|updated|published|posted|written|authored|revised|reviewed|created|generated)"
    r"(?: on| at)?[\s:]*$",
    re.IGNORECASE,
)

_NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30, "forty": 40,
    "forty-five": 45, "fifty": 50, "ninety": 90, "half an": 0.5, "a half": 0.5,
}
_WORDS = r"(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty(?:-five)?|fifty|ninety|half an)"
# a figure may touch its unit ("16m"); a number word needs a space ("two hours", never "and" = a + d)
_NUM = r"(?:\d{1,4}(?:[.,]\d{1,2})?\s?|\b" + _WORDS + r"\s)"
_UNIT = r"(?:h(?:ou)?rs?|h|min(?:ute)?s?|m|days?|d|secs?|seconds?)"
# a unit ends where letters end, so "1h50m" reads as 1 h and 50 m
_AMOUNT = re.compile(r"(?P<n>" + _NUM + r")(?P<u>" + _UNIT + r")(?![a-z])", re.IGNORECASE)
_LABELLED = re.compile(
    r"(?:time to (?:repair|recover(?:y)?|resolve|resolution|mitigat(?:e|ion))|duration|outage length|total downtime|downtime)"
    r"\s*\**\s*[:=]\s*\**\s*(?P<val>[^\n]{1,40})",
    re.IGNORECASE,
)
_PHRASE = re.compile(
    r"\b(?:for|lasted|lasting|of|over|during)\s+(?:about|approximately|approx\.?|around|roughly|nearly|almost|over|more than|just over|just under|~)?\s*"
    r"(?P<val>" + _NUM + _UNIT + r"(?:\s*(?:and|,)?\s*" + _NUM + _UNIT + r")?)\b",
    re.IGNORECASE,
)


_PHRASE = re.compile(
    r"\b(?:for|lasted|lasting|of|over|during)\s+(?:about|approximately|approx\.?|around|roughly|nearly|almost|over|more than|just over|just under|~)?\s*"
    r"(?P<val>" + _NUM + _UNIT + r"(?:\s*(?:and|,)?\s*" + _NUM + _UNIT + r")?)\b",
    re.IGNORECASE,
)
# an outage length in words that say so: "an outage of 2 hours", "2 hours of downtime"
_OUTAGE_PHRASE = re.compile(
    r"\b(?:outage|downtime|disruption|incident|degradation|unavailab\w+|impact)\b[^.\n]{0,40}?\b(?:for|of|lasted|lasting)\s+"
    r"(?:about|approximately|approx\.?|around|roughly|nearly|almost|over|more than|just over|just under|~)?\s*"
    r"(?P<val>" + _NUM + _UNIT + r"(?:\s*(?:and|,)?\s*" + _NUM + _UNIT + r")?)\b",
    re.IGNORECASE,
)
_SPAN_OPEN = re.compile(r"\b(?:between|from)\s+(?:about\s+|around\s+|approximately\s+|roughly\s+)?$", re.IGNORECASE)
_SPAN_JOIN = re.compile(
    r"^\s*(?:,\s*)?(?:and|to|until|till|through|-{1,2}|–|—)\s+(?:about\s+|around\s+|approximately\s+|roughly\s+)?$"
    r"|^\s*(?:-{1,2}|–|—)\s*$",
    re.IGNORECASE,
)
# Key events lists: "Fault occurs 2020-04-15 07:15", "Resolved: 2020-04-15 15:09"
_START_LABEL = re.compile(
    r"^[\s>*_|+-]*(?P<label>fault occur(?:s|red)|incident (?:start(?:ed|s)?|began)|outage (?:start(?:ed|s)?|began)|"
    r"impact (?:start(?:ed|s)?|began)|start of (?:the )?(?:incident|outage|impact)|problem (?:start(?:ed|s)?|began)|"
    r"issue (?:start(?:ed|s)?|began)|first detected|detected|began|started)\**\s*[:|-]?\s*",
    re.IGNORECASE,
)
_END_LABEL = re.compile(
    r"^[\s>*_|+-]*(?P<label>repaired|restored|service restored|recovered|fully recovered|mitigated|"
    r"impact end(?:ed|s)?|outage end(?:ed|s)?|incident end(?:ed|s)?|end of (?:the )?(?:incident|outage|impact)|"
    r"resolved|fixed|all clear)\**\s*[:|-]?\s*",
    re.IGNORECASE,
)
#: End labels that mean the service came back (preferred over "resolved", which may mean closed).
_RESTORED = ("repaired", "restored", "service restored", "recovered", "fully recovered", "mitigated", "impact end",
             "outage end", "end of")

#: Longest span a stated duration may have: longer ones are exposure windows, not outages.
MAX_MINUTES = 60 * 24 * 31


def _valid(year: int, month: int, day: int) -> str | None:
    try:
        return _dt.date(year, month, day).isoformat()
    except ValueError:
        return None


def _month(name: str) -> int:
    name = name.lower()
    return _MONTHS["sept" if name.startswith("sept") else name[:3]]


def _year(value: str) -> int:
    year = int(value)
    return year + 2000 if year < 100 else year


def _from_match(match: re.Match, pattern: re.Pattern | None = None, order: str = "mdy") -> str | None:
    groups = match.groupdict()
    year = _year(groups["y"])
    if groups.get("mon"):
        month, day = _month(groups["mon"]), int(groups["d"])
    elif pattern is _NUMERIC:
        first, second = int(groups["a"]), int(groups["b"])
        if first > 12 or (order == "dmy" and second <= 12):
            day, month = first, second
        else:
            month, day = first, second
    else:
        month, day = int(groups["m"]), int(groups["d"])
    return _valid(year, month, day)


def numeric_order(text: str) -> str:
    """``"dmy"`` when a numeric date of ``text`` can only be day-first (13/01/2020), else ``"mdy"``."""
    for match in _NUMERIC.finditer(text):
        first, second = int(match.group("a")), int(match.group("b"))
        if first > 12 >= second:
            return "dmy"
        if second > 12 >= first:
            return "mdy"
    return "mdy"


def find_dates(text: str, start: int = 0, end: int | None = None, order: str = "mdy") -> list[tuple[str, int, int]]:
    """Full dates (with a year) in ``text[start:end]``, in order of position.

    Args:
        text: The text.
        start: Where to start looking.
        end: Where to stop looking.
        order: How to read ambiguous numeric dates such as 04/05/2020: ``"mdy"`` or ``"dmy"``.

    Returns:
        ``(iso_date, start, end)`` tuples; a stretch is reported once, by its longest reading.
    """
    end = len(text) if end is None else end
    found: list[tuple[str, int, int]] = []
    for pattern in (_ISO, _SLASH_YMD, _DMY, _MDY, _NUMERIC, _DOTTED, _COMPACT):
        for match in pattern.finditer(text, start, end):
            value = _from_match(match, pattern, order)
            if value:
                found.append((value, match.start(), match.end()))
    return _non_overlapping(found)


def _non_overlapping(found: list[tuple], s: int = 1, e: int = 2) -> list[tuple]:
    # longest first, then keep those that do not overlap a kept one; (start, end) at indexes s, e
    kept: list[tuple] = []
    for item in sorted(found, key=lambda f: (-(f[e] - f[s]), f[s])):
        if all(item[e] <= k[s] or item[s] >= k[e] for k in kept):
            kept.append(item)
    return sorted(kept, key=lambda f: f[s])


def find_partial_dates(text: str, start: int = 0, end: int | None = None,
                       full: list[tuple[str, int, int]] | None = None) -> list[tuple[int, int, int, int]]:
    """Dates written without a year ("November 24th", "10 Jan") in ``text[start:end]``.

    Stretches that are part of a full date are left out.

    Args:
        text: The text.
        start: Where to start looking.
        end: Where to stop looking.
        full: The full dates of the same stretch, when the caller has them already.

    Returns:
        ``(month, day, start, end)`` tuples in order of position.
    """
    end = len(text) if end is None else end
    if full is None:
        full = find_dates(text, start, end)
    found = []
    for pattern in (_DM, _MD):
        for match in pattern.finditer(text, start, end):
            day = int(match.group("d"))
            month = _month(match.group("mon"))
            if not 1 <= day <= 31 or any(match.start() < e and match.end() > s for _, s, e in full):
                continue
            found.append((month, day, match.start(), match.end()))
    return _non_overlapping(found, 2, 3)


def resolve_year(month: int, day: int, reference: _dt.date) -> str | None:
    """The ISO date of ``month``/``day`` in the year that puts it closest to ``reference``."""
    best: tuple[int, str] | None = None
    for year in (reference.year - 1, reference.year, reference.year + 1):
        value = _valid(year, month, day)
        if value:
            distance = abs((_dt.date.fromisoformat(value) - reference).days)
            if best is None or distance < best[0]:
                best = (distance, value)
    return best[1] if best else None


def is_page_date(text: str, start: int) -> bool:
    """True when the date at ``start`` is about the page (``last edited on``, ``published``), not an event."""
    return bool(_CHROME_BEFORE.search(text[max(0, start - 40):start]))


def parse_date(value: str) -> str | None:
    """An ISO date (or year) from a front-matter style value such as ``2020-02-12 11:45``."""
    found = find_dates(value)
    if found:
        return found[0][0]
    year = _YEAR.search(value)
    return year.group("y") if year else None


def _number(token: str) -> float | None:
    token = token.strip().lower().replace(",", ".")
    if token in _NUMBER_WORDS:
        return float(_NUMBER_WORDS[token])
    try:
        return float(token)
    except ValueError:
        return None


def parse_duration(value: str) -> int | None:
    """Minutes in a duration such as ``0h 16m``, ``1 hour and 50 minutes`` or ``5 days``."""
    total = 0.0
    seen = False
    for match in _AMOUNT.finditer(value):
        number = _number(match.group("n"))
        if number is None:
            continue
        unit = match.group("u").lower()
        if unit.startswith("d"):
            total += number * 1440
        elif unit.startswith("h"):
            total += number * 60
        elif unit.startswith("s"):
            total += number / 60
        else:
            total += number
        seen = True
    if not seen:
        return None
    return int(round(total))


# --- points in time ------------------------------------------------------------------------


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


def _clock_minutes(match: re.Match) -> int | None:
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
    found = []
    for pattern in (_CLOCK, _MILITARY, _CLOCK_AMPM):
        for match in pattern.finditer(text, start, end):
            minutes = _clock_minutes(match)
            if minutes is not None:
                stop = match.end()
                while stop > match.start() and text[stop - 1].isspace():
                    stop -= 1
                found.append((minutes, match.start(), stop))
    return _non_overlapping(found)


_GLUE = re.compile(r"^(?:\s{0,3}|\s*(?:on|at|,|T|\||-)\s*|\s*,\s*(?:at\s+)?|\s+on\s+the\s+)$", re.IGNORECASE)


def find_moments(text: str, start: int = 0, end: int | None = None, reference: _dt.date | None = None,
                 order: str = "mdy") -> list[Moment]:
    """Dates, times and date-times in ``text[start:end]``, in order of position.

    A date and a time a few characters apart ("13:19 UTC on 10 Jan", "2020-04-15 07:15") make one
    moment. A date without a year takes the year that puts it on or before ``reference``; without a
    reference it is left out.
    """
    end = len(text) if end is None else end
    full = find_dates(text, start, end, order)
    dates: list[tuple[str, int, int, bool]] = [(d, s, e, False) for d, s, e in full]
    if reference is not None:
        for month, day, s, e in find_partial_dates(text, start, end, full):
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


# --- durations ------------------------------------------------------------------------------


def find_stated_spans(text: str, start: int = 0, end: int | None = None, reference: _dt.date | None = None,
                      order: str = "mdy") -> list[tuple[int, list[tuple[int, int]]]]:
    """Spans a text states from one moment to another, with their length in minutes.

    "between 13:19 UTC on 10 Jan and 05:30 UTC on 11 Jan", "from March 3, 9:15 AM UTC to March
    4, 1:40 PM UTC", "23:01 - 02:40 UTC". A dash alone joins two moments only when both
    carry a clock time.

    Returns:
        ``(minutes, [(start, end), (start, end)])`` per span, in order of position.
    """
    end = len(text) if end is None else end
    moments = find_moments(text, start, end, reference, order)
    spans = []
    for first, second in zip(moments, moments[1:]):
        between = text[first.end:second.start]
        if len(between) > 24 or "\n" in between or not _SPAN_JOIN.match(between):
            continue
        opened = _SPAN_OPEN.search(text[max(0, first.start - 30):first.start])
        dash_only = not re.search(r"[a-z]", between, re.IGNORECASE)
        if not opened and not (dash_only and first.minutes is not None and second.minutes is not None):
            continue
        if first.minutes is None or second.minutes is None:
            # a range of days ("26 March - 23 April") is a window, not a stated length in minutes
            continue
        minutes = span_minutes(first, second)
        if minutes is not None and 0 < minutes <= MAX_MINUTES:
            spans.append((minutes, [(first.start, first.end), (second.start, second.end)]))
    return spans


def find_key_events(text: str, start: int = 0, end: int | None = None, reference: _dt.date | None = None,
                    order: str = "mdy") -> tuple[int, list[tuple[int, int]]] | None:
    """The span between labelled start and end events ("Fault occurs ...", "Repaired ...").

    The start is the earliest of "fault occurs", "incident started" and the like, or "first
    detected" when none is given; the end is the latest "repaired"/"restored"/"recovered" line, or
    "resolved" when none is given.

    Returns:
        ``(minutes, [start_evidence, end_evidence])`` or None.
    """
    end = len(text) if end is None else end
    starts: list[tuple[int, Moment]] = []
    ends: list[tuple[int, Moment]] = []
    pos = start
    for line in text[start:end].splitlines(keepends=True):
        line_start, pos = pos, pos + len(line)
        for pattern, bucket in ((_START_LABEL, starts), (_END_LABEL, ends)):
            match = pattern.match(line)
            if not match:
                continue
            moments = find_moments(text, line_start + match.end(), pos, reference, order)
            moments = [m for m in moments if m.date and m.minutes is not None and m.start - line_start - match.end() <= 3]
            if moments:
                label = match.group("label").lower()
                rank = 0 if label in ("detected", "first detected", "began", "started") else 1
                if bucket is ends:
                    rank = 1 if any(label.startswith(r) for r in _RESTORED) else 0
                bucket.append((rank, moments[0]))
    if not starts or not ends:
        return None
    best_start = max(r for r, _ in starts)
    first = min((m for r, m in starts if r == best_start), key=lambda m: m.value())
    best_end = max(r for r, _ in ends)
    last = max((m for r, m in ends if r == best_end), key=lambda m: m.value())
    minutes = span_minutes(first, last)
    if minutes is None or minutes > MAX_MINUTES:
        return None
    return minutes, [(first.start, first.end), (last.start, last.end)]


_RECOVERY = re.compile(
    r"\b(?:resolved|recovered|recovery complete|restored|back to normal|back up|fixed|mitigated|operational|healthy|"
    r"stable|stabili[sz]ed|all clear|closed|reopened|re-opened|went back|returned to normal|normal again|is up|are up|"
    r"working again|works again|incident (?:over|ended)|outage (?:over|ended))\b",
    re.IGNORECASE,
)


def timeline_span(text: str, start: int, end: int, reference: _dt.date | None = None,
                  order: str = "mdy") -> tuple[int, list[tuple[int, int]]] | None:
    """From the first entry of a timeline section ``text[start:end]`` to its last entry saying the
    service recovered ("resolved", "restored", "back to normal" ...).

    Only lines that begin with a clock time (with or without a date) are entries; entries without
    a date take the reference date, and times that go backwards are read as the next day. Without
    an entry that says the service recovered, the timeline states no duration.

    Returns:
        ``(minutes, [first_evidence, recovery_evidence])`` or None.
    """
    entries: list[tuple[Moment, bool]] = []
    pos = start
    day = reference
    last_minutes: int | None = None
    for line in text[start:end].splitlines(keepends=True):
        line_start, pos = pos, pos + len(line)
        stripped = len(line) - len(line.lstrip(" \t|*-#>_"))
        head = line_start + stripped
        moments = find_moments(text, head, min(pos, head + 48), reference, order)
        if not moments or moments[0].start > head + 2 or moments[0].minutes is None:
            continue
        moment = moments[0]
        if moment.date is not None:
            day = _dt.date.fromisoformat(moment.date)
        elif day is None:
            continue
        else:
            if last_minutes is not None and moment.minutes < last_minutes and moments[0].date is None:
                day = day + _dt.timedelta(days=1)
            moment = Moment(moment.start, moment.end, day.isoformat(), moment.minutes, True)
        last_minutes = moment.minutes
        entries.append((moment, bool(_RECOVERY.search(text, moment.end, pos))))
    if len(entries) < 2:
        return None
    first = entries[0][0]
    recovered = [m for m, ok in entries[1:] if ok]
    if not recovered:
        return None
    last = recovered[-1]
    minutes = span_minutes(first, last)
    if minutes is None or minutes > MAX_MINUTES:
        return None
    return minutes, [(first.start, first.end), (last.start, last.end)]


def find_duration(text: str, start: int = 0, end: int | None = None, reference: _dt.date | None = None,
                  order: str = "mdy") -> tuple[int, list[tuple[int, int]], float, str] | None:
    """The incident's stated duration, in minutes.

    In order of trust: labelled start and end events ("Fault occurs ... / Repaired ..."), a labelled
    value ("Time to repair: 6h 27m"), then whichever comes first of a stated span near the top
    ("between 13:19 UTC on 10 Jan and 05:30 UTC on 11 Jan") and a phrase ("for 1 hour and 50
    minutes").

    Args:
        text: The text.
        start: Where the body starts (front matter skipped).
        end: Where to stop looking.
        reference: The date yearless dates resolve against (the incident date when known).
        order: How to read ambiguous numeric dates.

    Returns:
        ``(minutes, evidence, confidence, how)`` or None when the text states none; ``how`` is
        ``key_events``, ``span``, ``labelled`` or ``phrase``.
    """
    end = len(text) if end is None else end
    events = find_key_events(text, start, min(end, start + 4000), reference, order)
    if events is not None:
        return events[0], events[1], 0.85, "key_events"
    for match in _LABELLED.finditer(text, start, end):
        minutes = parse_duration(match.group("val"))
        if minutes is not None and 0 < minutes <= MAX_MINUTES:
            return minutes, [match.span("val")], 0.75, "labelled"
    # a span and a phrase both state it: the first one written (the summary's) wins
    found: list[tuple[int, int, list[tuple[int, int]], float, str]] = []
    head = min(end, start + 3000)
    spans = find_stated_spans(text, start, head, reference, order)
    if spans:
        minutes, evidence = spans[0]
        found.append((evidence[0][0], minutes, evidence, 0.75, "span"))
    for pattern, confidence in ((_OUTAGE_PHRASE, 0.6), (_PHRASE, 0.5)):
        for match in pattern.finditer(text, start, min(end, start + 6000)):
            minutes = parse_duration(match.group("val"))
            if minutes is not None and 0 < minutes <= 60 * 24 * 14:
                found.append((match.start("val"), minutes, [match.span("val")], confidence, "phrase"))
                break
    if not found:
        return None
    first = min(found, key=lambda f: f[0])
    if first[4] == "phrase" and first[0] >= head:
        # a phrase far down the text is weaker than a span near the top
        first = min(found, key=lambda f: -f[3])
    return first[1], first[2], first[3], first[4]
