"""Dates and durations as reports write them: pure functions over strings.

Every pattern here is bounded (no nested quantifiers) so that adversarial input costs linear time.
"""

from __future__ import annotations

import datetime as _dt
import functools
import re

_MONTHS = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
    "oct": 10, "nov": 11, "dec": 12,
}
_MONTH = r"(?P<mon>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_WEEKDAY = r"(?:(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?\.?,?\s+)?"
_ORD = r"(?:st|nd|rd|th)?"
_ISO = re.compile(r"(?P<y>(?:19|20)(?<![\d-]\d\d)\d{2})-(?P<m>\d{1,2})-(?P<d>\d{1,2})(?![\d])")
_SLASH_YMD = re.compile(r"(?P<y>(?:19|20)(?<![\d/]\d\d)\d{2})/(?P<m>\d{1,2})/(?P<d>\d{1,2})(?![\d/])")
_COMPACT = re.compile(r"(?P<y>(?:19|20)(?<!\d\d\d)\d{2})(?P<m>[01]\d)(?P<d>[0-3]\d)(?!\d)")
_DMY = re.compile(r"(?P<d>\d(?<!\w\d)(?:(?<=[0-3])\d)?)" + _ORD + r"\.?\s+(?:of\s+)?" + _MONTH + r"\.?,?\s+(?P<y>(?:19|20)\d{2})(?!\d)", re.IGNORECASE)
_MDY = re.compile(r"(?<!\w)" + _MONTH + r"\.?\s+(?P<d>[0-3]?\d)" + _ORD + r",?\s+(?P<y>(?:19|20)\d{2})(?!\d)", re.IGNORECASE)
# 10/14/2022, 4/21/23, 06-10-2025: month first unless the first number cannot be a month
_NUMERIC = re.compile(r"(?P<a>\d(?<![\w/.-]\d)(?:(?<=[0-3])\d)?)(?P<sep>[/-])(?P<b>[0-3]?\d)(?P=sep)(?P<y>(?:19|20)\d{2}|\d{2})(?![\w/-])")
# 10.05.2016: day first (the European form); a four-digit year keeps version numbers out
_DOTTED = re.compile(r"(?P<d>\d(?<![\w.]\d)(?:(?<=[0-3])\d)?)\.(?P<m>[01]?\d)\.(?P<y>(?:19|20)\d{2})(?![\w.])")
# dates without a year: "November 24th", "10 Jan", "Monday 20. January"
_DM = re.compile(r"(?<!\w)" + _WEEKDAY + r"(?P<d>[0-3]?\d)" + _ORD + r"\.?\s+(?:of\s+)?" + _MONTH + r"\b\.?", re.IGNORECASE)
_MD = re.compile(r"(?<!\w)" + _WEEKDAY + _MONTH + r"\.?\s+(?P<d>[0-3]?\d)" + _ORD + r"\b(?!:\d)", re.IGNORECASE)
_YEAR = re.compile(r"(?P<y>(?:19|20)(?<!\d\d\d)\d{2})(?!\d)")
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
_UNITS = r"(?:h(?:ou)?rs?|h|min(?:ute)?s?|{m}|days?|d|secs?|seconds?)"
# in a sentence a lone "m" is minutes only in lower case ("512M" and "250M" are sizes) ...
_UNIT = _UNITS.format(m="(?-i:m)")
# ... but a value already known to be a length ("Time to repair: 0H 16M") reads "M" as minutes too;
# a unit ends where letters end, so "1h50m" reads as 1 h and 50 m
_AMOUNT = re.compile(r"(?P<n>" + _NUM + r")(?P<u>" + _UNITS.format(m="m") + r")(?![a-z])", re.IGNORECASE)
_LABEL_NAMES = (
    r"(?:time to (?:repair|recover(?:y)?|resolve|resolution|mitigat(?:e|ion))|duration|outage length|"
    r"(?:outage|incident|impact) (?:duration|length)|total downtime|downtime)"
)
# a field label starts its line ("- **Time to repair**: 6h 27m", "| Duration | 2h |", or a definition
# list's "Duration" with ": 2h" on the next line); a label inside a sentence or a parenthesis
# ("(duration: 04m 12s)" in a tool's log line) is not the report's field
_LABELLED = re.compile(
    r"^[ \t>*_|#+-]{0,8}(?:total )?(?P<label>" + _LABEL_NAMES + r")"
    r"[ \t]{0,3}\**\n?[ \t]{0,3}[:=|][ \t]{0,3}\**[ \t]{0,3}(?P<val>[^\n]{1,40})",
    re.IGNORECASE | re.MULTILINE,
)
_ABOUT = r"(?:about|approximately|approx\.?|around|roughly|nearly|almost|over|more than|just over|just under|~)"
_VALUE = r"(?P<val>" + _NUM + _UNIT + r"(?:[ \t]{0,3}(?:and|,)?[ \t]{0,3}" + _NUM + _UNIT + r")?)\b"
# the same measures written in a sentence: "the time to resolution was about 35 minutes"
_LABELLED_PROSE = re.compile(
    r"\b(?:time to (?:repair|recover(?:y)?|resolve|resolution|mitigat(?:e|ion))|(?:outage|incident|impact) duration|"
    r"total downtime|duration of the (?:outage|incident|impact|disruption))"
    r"(?: (?:was|is|of|:))? (?:" + _ABOUT + r" ?)?" + _VALUE,
    re.IGNORECASE,
)
# "for 2 hours", "lasted 45 minutes", "a period of 30 minutes"; a bare "of"/"over" states a timeout, a
# size or a retention ("a TTL of 5 minutes", "files over 250M") as often as an outage, so it needs a word
# saying it is a stretch of time
_PHRASE = re.compile(
    r"\b(?:for|lasted|lasting|during|(?:period|window|stretch|span|interval|duration|course) of)\s{1,3}"
    r"(?:" + _ABOUT + r"\s{0,3})?" + _VALUE,
    re.IGNORECASE,
)
# a sentence about what should or will be: "an alert should fire when jobs stop for an hour" ("could
# not log in for 2 hours" and "would fail for an hour" tell what happened)
_MODAL = re.compile(r"\b(?:should|will|shall|must|ought to|needs? to)\b|\w'll\b", re.IGNORECASE)
# what may stand between a phrase's length and the span that makes it exact: ", from", " (between"
_SPAN_AFTER_PHRASE = re.compile(r"[ \t]*(?:[,(][ \t]*)?(?:(?:from|between)[ \t]*)?$", re.IGNORECASE)
# "incident response for 24h in a row", "a 2-hour incident review": the responders' work, not the outage
_NOT_WORK = r"(?![\s-](?:response|responders?|review|report|call|channel|commander|management|manager|ticket)\b)"
# "operating normally for 90 minutes", "had been running for 10m", "has not recurred for 70 hours",
# "kept up incident response for 24h": a stretch of the service (or a process) working, of the
# failure staying away or of the responders' work, not of the outage
_NOT_OUTAGE_BEFORE = re.compile(
    # "not stable for 3 hours", "above normal for 2 hours", "slow response": the outage after all
    r"(?<!not )(?<!no )(?<!un)(?<!above )(?<!below )(?<!than )(?<!slow )(?<!poor )"
    r"\b(?:normally|normal|stably|stable|healthy|fine|running|been up|uptime|incident[ -]response|responders|"
    r"not (?:re-?occurred|recurred|happened again|occurred again|been seen again))[ \t]*$", re.IGNORECASE)
# "a 4-hour outage", "a roughly 30-minute CI outage", "a 4 hours outage": a length written before
# the word for the outage
# (the words between may name the service, never a preposition: "in the 30 minutes before the
# outage" times something else; nor is "a 2-hour incident review" an outage)
_ADJECTIVE_PHRASE = re.compile(
    r"\b(?:an?|the)\s{1,3}(?:" + _ABOUT + r"\s{0,3})?"
    r"(?P<val>(?:\d{1,3}(?:\.\d)?|" + _WORDS + r")[- ](?:hours?|hrs?|minutes?|mins?|days?))"
    r"(?:-long)?\s{1,3}"
    r"(?:(?!(?:before|after|since|following|prior|preceding|leading|until|into|of|from|to|without)\b)[\w/-]+\s{1,3}){0,2}?"
    r"(?:outage|downtime|disruption|degradation|interruption|incident)\b" + _NOT_WORK,
    re.IGNORECASE,
)
# a length given as the window between two events: "edits made in 14 hours between the rollout and
# the fix", "during the 40 minutes between the deploy and the rollback"
_WINDOW_PHRASE = re.compile(
    r"\b(?:in|during|for|over|within)\s{1,3}(?:the\s{1,3})?(?:" + _ABOUT + r"\s{0,3})?" + _VALUE + r"\s{1,3}between\b",
    re.IGNORECASE,
)
# an outage length in words that say so: "an outage of 2 hours", "2 hours of downtime"
_OUTAGE_PHRASE = re.compile(
    r"\b(?:outage|downtime|disruption|incident|degradation|unavailab\w+|impact)\b" + _NOT_WORK +
    r"[^.\n]{0,40}?"
    r"\b(?:for|of|lasted|lasting)\s{1,3}(?:" + _ABOUT + r"\s{0,3})?" + _VALUE,
    re.IGNORECASE,
)
# how long recovery took: "recovered in 15 minutes", "recovery took about 25 minutes", "fixed within 2 hours"
_RECOVERY_PHRASE = re.compile(
    r"\b(?:recover(?:y|ed|s)?|resolved|restored|fixed)\b[^.\n]{0,30}?\b(?:in|within|took|after)"
    r" (?:" + _ABOUT + r" ?)?" + _VALUE,
    re.IGNORECASE,
)
# a length followed by "before we noticed" or "until the failure was detected" is the time to
# detect, not the outage's length
_BEFORE_NOTICED = re.compile(
    r"[^.\n]{0,20}?\b(?:before|until) (?:\w+ ){0,3}(?:notic|detect|spott|discover|realiz|realis|report|alert)",
    re.IGNORECASE,
)
_SPAN_OPEN = re.compile(r"\b(?:between|from)\s+(?:about\s+|around\s+|approximately\s+|roughly\s+)?$", re.IGNORECASE)
_SPAN_JOIN = re.compile(
    r"^\s*(?:,\s*)?(?:and|to|until|till|through|-{1,2}|–|—)\s+(?:about\s+|around\s+|approximately\s+|roughly\s+)?$"
    r"|^\s*(?:-{1,2}>?|=>|→|–|—)\s*$",
    re.IGNORECASE,
)
# an hour range sharing its am/pm: "1-3pm", "11:30-1pm", "9 to 10:15 am" (both halves written with
# their own am/pm are two clock times joined by a dash, read by find_stated_spans directly)
_HOUR_RANGE = re.compile(
    r"(?P<h1>[0-9](?<![\w:.,/-]\d)(?:(?<=1)[0-2]?|(?<=0)[1-9]|(?<=[2-9])))(?::(?P<m1>[0-5]\d))?[ \t]?(?:-{1,2}|–|—|to)[ \t]?"
    r"(?P<h>1[0-2]|0?[1-9])(?::(?P<mi>[0-5]\d))?[ \t]?(?P<ap>[ap]\.?m\.?)(?!\w)",
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


@functools.lru_cache(maxsize=4)
def numeric_order(text: str) -> str:
    """``"dmy"`` when a numeric date of ``text`` can only be day-first (13/01/2020), else ``"mdy"``."""
    for match in _NUMERIC.finditer(text):
        first, second = int(match.group("a")), int(match.group("b"))
        if first > 12 >= second:
            return "dmy"
        if second > 12 >= first:
            return "mdy"
    return "mdy"


# every month name the date patterns read starts with one of these: a window without any holds
# no written-out date, and four patterns need not scan it
_MONTH_HINT = re.compile(r"jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec", re.IGNORECASE)
_NAMED = (_DMY, _MDY)


def find_dates(text: str, start: int = 0, end: int | None = None, order: str = "mdy",
               months: bool | None = None) -> list[tuple[str, int, int]]:
    """Full dates (with a year) in ``text[start:end]``, in order of position.

    Args:
        text: The text.
        start: Where to start looking.
        end: Where to stop looking.
        order: How to read ambiguous numeric dates such as 04/05/2020: ``"mdy"`` or ``"dmy"``.
        months: Whether ``text[start:end]`` may name a month (None: look).

    Returns:
        ``(iso_date, start, end)`` tuples; a stretch is reported once, by its longest reading.
    """
    end = len(text) if end is None else end
    if months is None:
        months = _MONTH_HINT.search(text, start, end) is not None
    found: list[tuple[str, int, int]] = []
    for pattern in (_ISO, _SLASH_YMD, _DMY, _MDY, _NUMERIC, _DOTTED, _COMPACT):
        if not months and pattern in _NAMED:
            continue
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
                       full: list[tuple[str, int, int]] | None = None,
                       months: bool | None = None) -> list[tuple[int, int, int, int]]:
    """Dates written without a year ("November 24th", "10 Jan") in ``text[start:end]``.

    Stretches that are part of a full date are left out.

    Args:
        text: The text.
        start: Where to start looking.
        end: Where to stop looking.
        full: The full dates of the same stretch, when the caller has them already.
        months: Whether ``text[start:end]`` may name a month (None: look).

    Returns:
        ``(month, day, start, end)`` tuples in order of position.
    """
    end = len(text) if end is None else end
    if months is None:
        months = _MONTH_HINT.search(text, start, end) is not None
    if not months:
        return []  # both patterns read a month name
    if full is None:
        full = find_dates(text, start, end, months=True)
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
    # half a minute rounds up ("4.5 minutes" is 5), as people round
    return int(total + 0.5)


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


_DIGIT = re.compile(r"\d")
# every moment starts with a digit, a weekday or a month name (see the patterns above): a line
# holding none of them in its first three characters opens no timeline entry
_MAY_OPEN = re.compile(r".{0,2}(?:\d|mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)",
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
    months = _MONTH_HINT.search(text, start, end) is not None
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


# --- durations ------------------------------------------------------------------------------


def _hour_ranges(text: str, start: int, end: int) -> list[tuple[int, int, int]]:
    """Hour ranges that share one am/pm ("1-3pm"): ``(minutes, start, end)`` in order of position."""
    found = []
    for match in _HOUR_RANGE.finditer(text, start, end):
        second = _clock_minutes(match)
        if second is None:
            continue
        first = int(match.group("h1")) % 12 * 60 + int(match.group("m1") or 0)
        if match.group("ap").lower().startswith("p"):
            first += 720
        if first >= second:
            # "11-1pm" starts in the morning
            first -= 720
        minutes = second - first
        if 0 < minutes <= 720:
            found.append((minutes, match.start(), match.end()))
    return found


def _in_entry(text: str, offset: int, opening: int | None = None) -> bool:
    """True when ``offset`` is inside a timeline entry: its line starts with another clock time, or
    with a range ending at ``opening`` that words follow ("07:10-07:25: we restart the workers"; a
    line holding a range alone is a list of windows)."""
    line = text.rfind("\n", 0, offset) + 1
    while line < offset and text[line] in " \t|*-#>_[":
        line += 1
    if line >= offset:
        if opening is None:
            return False
        stop = text.find("\n", opening)
        return bool(re.search(r"[a-z]", text[opening:stop if stop >= 0 else len(text)], re.IGNORECASE))
    moments = find_moments(text, line, min(offset, line + 30))
    return bool(moments) and moments[0].start <= line + 1 and moments[0].minutes is not None


def find_stated_spans(text: str, start: int = 0, end: int | None = None, reference: _dt.date | None = None,
                      order: str = "mdy") -> list[tuple[int, list[tuple[int, int]]]]:
    """Spans a text states from one moment to another, with their length in minutes.

    "between 13:19 UTC on 10 Jan and 05:30 UTC on 11 Jan", "from March 3, 9:15 AM UTC to March
    4, 1:40 PM UTC", "23:01 - 02:40 UTC", "10:05 -> 10:50", "1-3pm". A dash or an arrow alone joins
    two moments only when both carry a clock time; a word joins them across a wrapped line.

    Windows written one after the other ("between 08:10 and 08:25 and again between 08:40 and 09:00")
    make one span whose length is their sum. A span inside a timeline entry (a line that starts with
    another time), or a dash range opening its line ("07:10-07:25: workers restarted"), is the span
    of a step and is left out.

    Returns:
        ``(minutes, evidence)`` per span, in order of position; evidence holds the ``(start, end)``
        of every moment.
    """
    end = len(text) if end is None else end
    ranges = _hour_ranges(text, start, end)
    moments = find_moments(text, start, end, reference, order)
    # (minutes, evidence, first moment, last moment)
    found: list[tuple[int, list[tuple[int, int]], Moment | None, Moment | None]] = [
        (minutes, [(s, e)], None, None) for minutes, s, e in ranges if not _in_entry(text, s, e)
    ]
    for first, second in zip(moments, moments[1:]):
        if any(s <= first.start < e for _, s, e in ranges):
            continue
        between = text[first.end:second.start]
        if len(between) > 24 or between.count("\n") > 1 or not _SPAN_JOIN.match(between):
            continue
        opened = _SPAN_OPEN.search(text[max(0, first.start - 30):first.start])
        dash_only = not re.search(r"[a-z]", between, re.IGNORECASE)
        if dash_only and "\n" in between:
            # a dash at a line's end is a list's or a table's, not a range's
            continue
        if not opened and not (dash_only and first.minutes is not None and second.minutes is not None):
            continue
        if first.minutes is None or second.minutes is None:
            # a range of days ("26 March - 23 April") is a window, not a stated length in minutes
            continue
        minutes = span_minutes(first, second)
        if minutes is None or not 0 < minutes <= MAX_MINUTES:
            continue
        if not _in_entry(text, first.start, None if opened else second.end):
            found.append((minutes, [(first.start, first.end), (second.start, second.end)], first, second))
    found.sort(key=lambda f: f[1][0][0])
    spans: list[tuple[int, list[tuple[int, int]]]] = []
    last: Moment | None = None
    for minutes, evidence, first, second in found:
        if spans and last is not None and first is not None and _follows(text, spans[-1][1][-1][1], last, first):
            total = spans[-1][0] + minutes
            if total <= MAX_MINUTES:
                spans[-1] = (total, spans[-1][1] + evidence)
                last = second
                continue
        spans.append((minutes, evidence))
        last = second
    return spans


def _follows(text: str, previous_end: int, last: Moment, first: Moment) -> bool:
    """True when the window starting at ``first`` is written right after one ending at ``last`` and
    starts when (or after) it ended: a list of windows, not a restatement."""
    gap = text[previous_end:first.start]
    if len(gap) > 100 or "\n\n" in gap:
        return False
    if last.date == first.date and last.minutes == first.minutes:
        return True
    apart = span_minutes(last, first)
    return apart is not None and apart <= 720


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
    r"\b(?:resolved|recovered|recovers|recovery|restored|back to normal|back up|fixed|mitigated|operational|healthy|"
    r"stable|stabili[sz]ed|all clear|closed|reopened|re-opened|went back|returned to normal|normal again|is up|are up|"
    r"working again|works again|incident (?:over|ended)|outage (?:over|ended))\b",
    re.IGNORECASE,
)
# explicit marks some timelines carry: "OUTAGE BEGINS", "impact starts", "end of the outage"
_START_MARK = re.compile(
    r"\b(?:(?:outage|incident|impact) (?:begins|began|starts|started|start)|"
    r"start of (?:the )?(?:outage|incident|impact))\b",
    re.IGNORECASE,
)
_END_MARK = re.compile(
    r"\b(?:(?:outage|incident|impact) (?:ends|ended|end|stops|stopped|is over|over)(?! up)|"
    r"end of (?:the )?(?:outage|incident|impact))\b",
    re.IGNORECASE,
)
# an entry saying the service failed again: the recovery before it did not end the incident
_RELAPSE = re.compile(
    r"\b(?:fail(?:s|ed|ing)|(?:is|are|was|were|went|goes|going) down|broke|broken|crash(?:ed|es|ing)?|"
    r"stopped working|unavailable|unreachable)\b",
    re.IGNORECASE,
)
#: A timeline time this many minutes (or more) before the previous one starts the next day.
ROLLOVER = 180
#: How far past its time an entry's text is read (entries under a heading run on for lines).
ENTRY_TEXT = 400


class _Entry:
    """One timeline entry: its moment (dated) and what its text says."""

    __slots__ = ("moment", "recovered", "starts", "ends", "relapse")

    def __init__(self, moment: Moment, recovered: bool, starts: bool, ends: bool, relapse: bool) -> None:
        self.moment, self.recovered, self.starts, self.ends, self.relapse = moment, recovered, starts, ends, relapse


def _timeline_entries(text: str, start: int, end: int, reference: _dt.date | None, order: str) -> list[_Entry]:
    """The entries of a timeline section: lines that begin with a clock time (with or without a date).

    An entry's text runs from its time to the next entry (at most ENTRY_TEXT characters), so an
    entry written as a heading with paragraphs under it, or wrapped over lines, is read whole.
    Entries without a date take the last date seen (on an entry or on a line opening with a date
    alone) or the reference; a time more than ROLLOVER minutes earlier than the one before is read as
    the next day (a smaller step back is an entry written out of order). The reference is a guess
    made elsewhere in the text (a file name's date may be the day the report was written): the
    entries before the timeline's first written date are moved with it, by as many days as that
    date lies from the day the guess gave it.
    """
    heads: list[tuple[Moment, int]] = []
    pos = start
    day = reference
    guessed = reference is not None  # the entries so far are dated by the reference alone
    last_minutes: int | None = None
    for line in text[start:end].splitlines(keepends=True):
        line_start, pos = pos, pos + len(line)
        stripped = len(line) - len(line.lstrip(" \t|*-#>_"))
        head = line_start + stripped
        if not _MAY_OPEN.match(text, head, min(pos, head + 48)):
            continue
        moments = find_moments(text, head, min(pos, head + 48), reference, order)
        if not moments or moments[0].start > head + 2:
            continue
        moment = moments[0]
        if moment.minutes is None:
            if moment.date is not None:
                # a line opening with a date alone ("### 11 March", "2021-03-11:") starts that day's entries
                day, last_minutes, guessed = _dt.date.fromisoformat(moment.date), None, False
            continue
        if moment.date is not None:
            written = _dt.date.fromisoformat(moment.date)
            if guessed and day is not None:
                rolled = last_minutes is not None and moment.minutes < last_minutes - ROLLOVER
                heads = _redate(heads, written, day + _dt.timedelta(days=1) if rolled else day)
            guessed = False
            day = written
        elif day is None:
            continue
        else:
            if last_minutes is not None and moment.minutes < last_minutes - ROLLOVER:
                day = day + _dt.timedelta(days=1)
            moment = Moment(moment.start, moment.end, day.isoformat(), moment.minutes, True)
        last_minutes = moment.minutes
        heads.append((moment, line_start))
    entries = []
    for i, (moment, _) in enumerate(heads):
        stop = heads[i + 1][1] if i + 1 < len(heads) else end
        stop = min(stop, moment.end + ENTRY_TEXT)
        recovered = bool(_RECOVERY.search(text, moment.end, stop))
        entries.append(_Entry(moment, recovered, bool(_START_MARK.search(text, moment.end, stop)),
                              bool(_END_MARK.search(text, moment.end, stop)),
                              not recovered and bool(_RELAPSE.search(text, moment.end, stop))))
    return entries


def _redate(heads: list[tuple[Moment, int]], written: _dt.date, expected: _dt.date) -> list[tuple[Moment, int]]:
    """The entries dated by the reference alone, moved by ``written - expected`` days (the first
    written date against the day the reference gave that entry)."""
    if written == expected:
        return heads
    shift = written - expected
    return [(Moment(m.start, m.end, (_dt.date.fromisoformat(m.date) + shift).isoformat(), m.minutes, True), at)
            for m, at in heads]


def timeline_reading(text: str, start: int, end: int, reference: _dt.date | None = None,
                     order: str = "mdy") -> tuple[int, list[tuple[int, int]], bool] | None:
    """The span a timeline section ``text[start:end]`` states, and whether it marks both its ends.

    The start is the entry marked as the start of the outage ("OUTAGE BEGINS", "start of the
    incident"), else the first entry; the end is the last entry marked as its end ("OUTAGE ENDS"),
    else the last entry saying the service recovered ("resolved", "restored", "back to normal" ...).
    Without either, or when a later entry says the service failed again, the timeline states no
    duration.

    Returns:
        ``(minutes, [start_evidence, end_evidence], marked)`` or None; ``marked`` is True when
        both ends come from explicit marks.
    """
    entries = _timeline_entries(text, start, end, reference, order)
    if len(entries) < 2:
        return None
    marked_starts = [i for i, e in enumerate(entries) if e.starts]
    first_index = marked_starts[0] if marked_starts else 0
    later = entries[first_index + 1:]
    marked_ends = [e for e in later if e.ends]
    if marked_ends:
        last_entry = marked_ends[-1]
    else:
        recovered = [i for i, e in enumerate(later) if e.recovered]
        if not recovered or any(e.relapse for e in later[recovered[-1] + 1:]):
            # no recovery, or a failure after the last one: the timeline does not show the end
            return None
        last_entry = later[recovered[-1]]
    first, last = entries[first_index].moment, last_entry.moment
    minutes = span_minutes(first, last)
    if minutes is None or minutes > MAX_MINUTES:
        return None
    return minutes, [(first.start, first.end), (last.start, last.end)], bool(marked_starts and marked_ends)


def timeline_span(text: str, start: int, end: int, reference: _dt.date | None = None,
                  order: str = "mdy") -> tuple[int, list[tuple[int, int]]] | None:
    """From the first entry of a timeline section ``text[start:end]`` (or the one marked as the
    outage's start) to its last entry saying the service recovered (or the one marked as the end);
    see :func:`timeline_reading`.

    Returns:
        ``(minutes, [first_evidence, recovery_evidence])`` or None.
    """
    found = timeline_reading(text, start, end, reference, order)
    return None if found is None else (found[0], found[1])


def _labelled(text: str, start: int, end: int) -> tuple[int, list[tuple[int, int]]] | None:
    """The first labelled length ("Time to repair: 6h 27m", "time to resolution was 35 minutes")."""
    found: list[tuple[int, int, tuple[int, int]]] = []
    for pattern in (_LABELLED, _LABELLED_PROSE):
        for match in pattern.finditer(text, start, end):
            minutes = parse_duration(match.group("val"))
            if minutes is not None and 0 < minutes <= MAX_MINUTES:
                found.append((match.start(), minutes, match.span("val")))
                break
    if not found:
        return None
    _, minutes, evidence = min(found)
    return minutes, [evidence]


def several_incidents(text: str, start: int = 0, end: int | None = None) -> bool:
    """True when one length label comes back with other values ("Duration: 40 minutes" ...
    "Duration: 25 minutes"): the text reports several incidents, and states no single length."""
    end = len(text) if end is None else end
    values: dict[str, set[int]] = {}
    for match in _LABELLED.finditer(text, start, end):
        minutes = parse_duration(match.group("val"))
        if minutes is not None and 0 < minutes <= MAX_MINUTES:
            values.setdefault(" ".join(match.group("label").lower().split()), set()).add(minutes)
    return any(len(v) > 1 for v in values.values())


def _inside(at: int, regions: list[tuple[int, int]] | None) -> bool:
    return any(r_start <= at < r_end for r_start, r_end in regions or [])


def _opens_entry(text: str, at: int, timelines: list[tuple[int, int]] | None) -> bool:
    """True when offset ``at`` opens a line of a timeline section (only list, heading or table
    marks and a "~" before it)."""
    if not _inside(at, timelines):
        return False
    line_start = text.rfind("\n", 0, at) + 1
    return not text[line_start:at].strip(" \t|*-#>_~")


def _states_length(text: str, match: re.Match, plans: list[tuple[int, int]] | None,
                   asides: list[tuple[int, int]] | None, named: bool) -> bool:
    """False when a length phrase does not state the outage's length.

    That is when it is followed by "before we noticed" (time to detect); when it follows words of a
    service working, of the failure staying away or of the responders' work ("operating normally
    for 90 minutes", "running for 10m", "not recurred for 70 hours", "incident response for 24h");
    when its sentence says what should or will be ("an alert should fire when jobs stop for
    more than an hour"); when it stands in a section of action items (``plans``: "schedule a
    2-hour downtime window"); or, unless it names the outage (``named``), when it stands in an
    aside: a timeline, where a bare "for 45m" times one entry's event (a task waiting, one
    restart), or a section of lessons, where it times what went wrong around the outage ("the
    alerts were ignored for 3 days", "for 6 hours nothing was done").
    """
    if _BEFORE_NOTICED.match(text, match.end("val"), min(len(text), match.end("val") + 80)):
        return False
    if _NOT_OUTAGE_BEFORE.search(text, max(0, match.start() - 30), match.start()):
        return False
    sentence = max(text.rfind(".", 0, match.start()), text.rfind("\n", 0, match.start()), match.start() - 200)
    if _MODAL.search(text, sentence + 1, match.start()):
        return False
    return not _inside(match.start(), plans) and (named or not _inside(match.start(), asides))


def _refined_by(text: str, phrase: tuple[int, int], phrase_minutes: int, span_start: int, span_minutes: int) -> bool:
    """True when a span follows a phrase's length in the same sentence, joined by no more than a
    comma, a parenthesis, "from" or "between", and agrees with it within half (the phrase
    rounds the span, rather than timing something else)."""
    return (0 <= span_start - phrase[1] <= 40 and bool(_SPAN_AFTER_PHRASE.match(text, phrase[1], span_start))
            and abs(span_minutes - phrase_minutes) <= phrase_minutes / 2)


def find_duration(text: str, start: int = 0, end: int | None = None, reference: _dt.date | None = None,
                  order: str = "mdy", timelines: list[tuple[int, int]] | None = None,
                  plans: list[tuple[int, int]] | None = None, lessons: list[tuple[int, int]] | None = None
                  ) -> tuple[int, list[tuple[int, int]], float, str] | None:
    """The incident's stated duration, in minutes.

    In order of trust: labelled start and end events ("Fault occurs ... / Repaired ..."), a labelled
    value ("Time to repair: 6h 27m"), then whichever comes first of a stated span near the top
    ("between 13:19 UTC on 10 Jan and 05:30 UTC on 11 Jan") and a phrase ("for 1 hour and 50
    minutes", "a 4-hour outage"); a span the phrase's own sentence goes on to give wins over the
    rounded phrase. A timeline whose entries mark the outage's start and end ("OUTAGE BEGINS" ...
    "OUTAGE ENDS") wins over a phrase, which rounds. Failing all those, a timeline's start and end
    (:func:`timeline_reading`, a weaker reading with a lower confidence). A phrase followed by
    "before we noticed" is the time to detect and is left out, as are phrases about the service
    working ("operating normally for 90 minutes"), phrases in sentences about what should be,
    phrases in ``plans`` and, unless they name the outage, in a timeline or among ``lessons``
    (:func:`_states_length`). A text that gives one length label several values reports several
    incidents (:func:`several_incidents`) and states none.

    Args:
        text: The text.
        start: Where the body starts (front matter skipped).
        end: Where to stop looking.
        reference: The date yearless dates resolve against (the incident date when known).
        order: How to read ambiguous numeric dates.
        timelines: ``(start, end)`` of timeline sections.
        plans: ``(start, end)`` of sections of action items, whose length phrases state no
            outage's length.
        lessons: ``(start, end)`` of sections of lessons, whose length phrases count only when
            they name the outage.

    Returns:
        ``(minutes, evidence, confidence, how)`` or None when the text states none; ``how`` is
        ``key_events``, ``labelled``, ``span``, ``phrase``, ``timeline_marks`` or ``timeline``.
    """
    end = len(text) if end is None else end
    events = find_key_events(text, start, min(end, start + 4000), reference, order)
    if events is not None:
        return events[0], events[1], 0.85, "key_events"
    if several_incidents(text, start, end):
        return None
    labelled = _labelled(text, start, end)
    if labelled is not None:
        return labelled[0], labelled[1], 0.75, "labelled"
    # a span and a phrase both state it: the first one written (the summary's) wins
    found: list[tuple[int, int, list[tuple[int, int]], float, str]] = []
    head = min(end, start + 3000)
    # a range that opens a timeline entry ("18:29 - 18:30 switch flaps", "### 13:30-13:45") times
    # that event, not the incident (a sentence in a timeline saying "errors rose between 20:30 and
    # 21:45" still counts); the timeline's own reading below covers timelines
    spans = [(minutes, evidence) for minutes, evidence in find_stated_spans(text, start, head, reference, order)
             if not _opens_entry(text, evidence[0][0], timelines)]
    if spans:
        minutes, evidence = spans[0]
        found.append((evidence[0][0], minutes, evidence, 0.75, "span"))
    # a phrase that names the outage ("unavailability for about 10 minutes") counts in a timeline
    # or among lessons too
    asides = list(timelines or []) + list(lessons or [])
    for pattern, confidence, named in ((_OUTAGE_PHRASE, 0.6, True), (_ADJECTIVE_PHRASE, 0.6, True),
                                       (_PHRASE, 0.5, False), (_WINDOW_PHRASE, 0.5, False),
                                       (_RECOVERY_PHRASE, 0.5, False)):
        for match in pattern.finditer(text, start, min(end, start + 6000)):
            if not _states_length(text, match, plans, asides, named):
                continue
            minutes = parse_duration(match.group("val").replace("-", " "))
            if minutes is None or not 0 < minutes <= 60 * 24 * 14:
                continue
            found.append((match.start("val"), minutes, [match.span("val")], confidence, "phrase"))
            break
    if spans:
        # "for about 3 hours, from 15:30 to 18:10": the span the sentence goes on to give is exact
        found = [f for f in found
                 if f[4] != "phrase" or not _refined_by(text, f[2][0], f[1], spans[0][1][0][0], spans[0][0])]
    first = min(found, key=lambda f: f[0]) if found else None
    if first is not None and first[4] == "phrase" and first[0] >= head:
        # a phrase far down the text is weaker than a span near the top
        first = min(found, key=lambda f: -f[3])
    if first is not None and first[4] != "phrase":
        return first[1], first[2], first[3], first[4]
    readings = [timeline_reading(text, max(t_start, start), min(t_end, end), reference, order)
                for t_start, t_end in timelines or [] if t_start < end and t_end > start]
    for reading in readings:
        # a phrase rounds ("about 5 minutes"); a timeline marking the outage's start and end does not
        if reading is not None and reading[2]:
            return reading[0], reading[1], 0.8, "timeline_marks"
    if first is not None:
        return first[1], first[2], first[3], first[4]
    for reading in readings:
        # the weakest reading: from a timeline's first entry to its last saying the service recovered
        if reading is not None:
            return reading[0], reading[1], 0.5, "timeline"
    return None
