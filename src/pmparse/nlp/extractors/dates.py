"""Calendar dates as reports write them: pure functions over strings.

Every pattern here is bounded (no nested quantifiers) so that adversarial input costs linear time.
"""

from __future__ import annotations

import bisect
import datetime as _dt
import functools
import re

from pmparse.rules.cues import caseless_start

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
# (an underscore around it is Markdown emphasis, "_4/21/23_", not part of a word)
_NUMERIC = re.compile(r"(?P<a>\d(?<![^\W_]\d)(?<![/.-]\d)(?:(?<=[0-3])\d)?)(?P<sep>[/-])(?P<b>[0-3]?\d)(?P=sep)"
                      r"(?P<y>(?:19|20)\d{2}|\d{2})(?![^\W_]|[/-])")

# 10.05.2016: day first (the European form); a four-digit year keeps version numbers out
_DOTTED = re.compile(r"(?P<d>\d(?<![\w.]\d)(?:(?<=[0-3])\d)?)\.(?P<m>[01]?\d)\.(?P<y>(?:19|20)\d{2})(?![\w.])")

# dates without a year: "November 24th", "10 Jan", "Monday 20. January"
_DM = re.compile(r"(?<!\w)" + _WEEKDAY + r"(?P<d>[0-3]?\d)" + _ORD + r"\.?\s+(?:of\s+)?" + _MONTH + r"\b\.?", re.IGNORECASE)

_MD = re.compile(r"(?<!\w)" + _WEEKDAY + _MONTH + r"\.?\s+(?P<d>[0-3]?\d)" + _ORD + r"\b(?!:\d)", re.IGNORECASE)

_YEAR = re.compile(r"(?P<y>(?:19|20)(?<!\d\d\d)\d{2})(?!\d)")

# words that say a date is about the page, not the incident
_CHROME_BEFORE = re.compile(
    r"(?:last (?:edited|modified|updated)|updated|published|posted|written|authored|revised|reviewed|created|generated)"
    r"(?: on| at)?[\s:]*$",
    re.IGNORECASE,
)


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
# no written-out date, and four patterns need not scan it. Opening with a case-sensitive class of
# the first letters (``caseless_start``), re skips to candidates instead of trying every position
MONTH_HINT = re.compile(caseless_start(r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"), re.IGNORECASE)

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
        months = MONTH_HINT.search(text, start, end) is not None
    found: list[tuple[str, int, int]] = []
    for pattern in (_ISO, _SLASH_YMD, _DMY, _MDY, _NUMERIC, _DOTTED, _COMPACT):
        if not months and pattern in _NAMED:
            continue
        for match in pattern.finditer(text, start, end):
            value = _from_match(match, pattern, order)
            if value:
                found.append((value, match.start(), match.end()))
    return non_overlapping(found)


def non_overlapping(found: list[tuple], s: int = 1, e: int = 2) -> list[tuple]:
    """The matches of ``found`` that overlap no longer one, in text order; each tuple's start and
    end are at indexes ``s`` and ``e`` (longest kept first, ties to the earlier)."""
    kept: list[tuple] = []
    # the kept spans sorted by (start, end): being disjoint, their ends rise too, so the one kept
    # span an item can overlap first is the last that starts before the item ends (a check of
    # every kept span was quadratic: 16,000 clock times, a line of "12:00 ", took over 5 s)
    spans: list[tuple[int, int]] = []
    for item in sorted(found, key=lambda f: (-(f[e] - f[s]), f[s])):
        before = bisect.bisect_left(spans, (item[e],))
        if before and spans[before - 1][1] > item[s]:
            continue
        bisect.insort(spans, (item[s], item[e]))
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
        months = MONTH_HINT.search(text, start, end) is not None
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
    return non_overlapping(found, 2, 3)


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


_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
#: A day said relative to when a post was written: "yesterday", "last night", "on Tuesday",
#: "last Wednesday" (a weekday alone, "Mondays" or "every Monday" is no day; "On Tuesday,
#: December 13th" gives its date, read elsewhere).
_RELATIVE_DAY = re.compile(
    r"(?<![\w-])(?:(?P<yesterday>[Yy]esterday(?:['’]s)?|[Ll]ast\s+night)"
    r"|(?:[Oo]n|[Ll]ast|[Tt]his\s+past|[Ee]arly|[Ll]ate)\s+(?P<weekday>Monday|Tuesday|Wednesday|Thursday|Friday"
    r"|Saturday|Sunday)(?!s|\w)(?![,.]?\s{1,3}(?:the\s)?(?:\d|[A-Z][a-z]{2,8}\.?\s{1,3}\d)))")


def relative_day(text: str, start: int, end: int, written: _dt.date) -> tuple[_dt.date, tuple[int, int]] | None:
    """The first day ``text[start:end]`` names relative to ``written`` (the day a post was written):
    "yesterday" or "last night" is the day before, "on Tuesday" or "last Tuesday" the last Tuesday
    before it; with the phrase's offsets. None when the span names none."""
    match = _RELATIVE_DAY.search(text, start, end)
    if match is None:
        return None
    if match.group("yesterday"):
        return written - _dt.timedelta(days=1), match.span()
    back = (written.weekday() - _WEEKDAYS.index(match.group("weekday").lower())) % 7 or 7
    return written - _dt.timedelta(days=back), match.span()
