"""Calendar dates as reports write them: pure functions over strings.

Every pattern here is bounded (no nested quantifiers) so that adversarial input costs linear time.
"""

from __future__ import annotations

import bisect
import datetime as _dt
import functools
import re
import threading

from pmparse.rules.cues import caseless_start, caseless_word_start, without_captures

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
    # casefold: IGNORECASE reads a long s as s ("\u017fept"), which lower() keeps (a KeyError)
    name = name.casefold()
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
#: The full-date patterns, in the order their matches are listed (equal spans keep the first).
_FULL = (_ISO, _SLASH_YMD, _DMY, _MDY, _NUMERIC, _DOTTED, _COMPACT)


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
    index = active_index(text, end)
    if index is not None:
        return index.dates(start, end, order)
    if months is None:
        months = MONTH_HINT.search(text, start, end) is not None
    found: list[tuple[str, int, int]] = []
    for pattern in _FULL:
        if not months and pattern in _NAMED:
            continue
        for match in pattern.finditer(text, start, end):
            value = _from_match(match, pattern, order)
            if value:
                found.append((value, match.start(), match.end()))
    return non_overlapping(found)


#: A day range ("3-5 March 2031", "3rd to 5th March 2031", "30 March - 2 April 2031", "March 3-5,
#: 2031", "March 30 – April 2, 2031"): the full-date patterns read its last day with the year
#: ("5 March 2031") or none ("March 3-5, 2031"); the range begins on its first day.
_RANGE_SEP = r"[ \t]*(?:-|–|—|to|until|through|thru)[ \t]+|[ \t]*(?:-|–|—)[ \t]*"
_FIRST_MONTH = _MONTH.replace("?P<mon>", "?P<mon1>")
_LAST_MONTH = _MONTH.replace("?P<mon>", "?P<mon2>")
_DAY_RANGE = re.compile(
    r"(?<![\w.:/-])(?P<d1>[0-3]?\d)" + _ORD + r"(?:[ \t]+" + _FIRST_MONTH + r"\.?)?(?:" + _RANGE_SEP + r")"
    r"(?P<d2>[0-3]?\d)" + _ORD + r"[ \t]+" + _LAST_MONTH + r"\.?,?[ \t]+(?P<y>(?:19|20)\d{2})(?!\d)"
    r"|(?<!\w)" + _FIRST_MONTH.replace("mon1", "mon3") + r"\.?[ \t]+(?P<d3>[0-3]?\d)" + _ORD + r"(?:" + _RANGE_SEP + r")"
    r"(?:" + _LAST_MONTH.replace("mon2", "mon4") + r"\.?[ \t]+)?(?P<d4>[0-3]?\d)" + _ORD + r",?[ \t]+(?P<y2>(?:19|20)\d{2})(?!\d)",
    re.IGNORECASE)


def range_start(text: str) -> tuple[str, int, int] | None:
    """The first day of the first day range ``text`` writes (:data:`_DAY_RANGE`, a title's "Outage
    3-5 March 2031": ``("2031-03-03", start, end)`` of the whole range), or None. A range whose
    days run backwards in one month ("9-5 March") is no range; one from December to January
    began in the year before the one written."""
    for match in _DAY_RANGE.finditer(text):
        if match.group("d1"):
            first, last = int(match.group("d1")), int(match.group("d2"))
            month_last = _month(match.group("mon2"))
            month_first = _month(match.group("mon1")) if match.group("mon1") else month_last
            year = _year(match.group("y"))
        else:
            first, last = int(match.group("d3")), int(match.group("d4"))
            month_first = _month(match.group("mon3"))
            month_last = _month(match.group("mon4")) if match.group("mon4") else month_first
            year = _year(match.group("y2"))
        # the year written is the last day's: a range over the new year ("30 December - 2 January
        # 2031") began the year before
        year_first = year - 1 if (month_first, month_last) == (12, 1) else year
        if (year_first, month_first, first) >= (year, month_last, last) or _valid(year, month_last, last) is None:
            continue
        value = _valid(year_first, month_first, first)
        if value:
            return value, match.start(), match.end()
    return None


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
    index = active_index(text, end)
    if index is not None:
        return index.partial_dates(start, end, index.dates(start, end) if full is None else full)
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


# --- one scan per document ------------------------------------------------------------------

# The three patterns opening with a look-behind (_MDY, _DM, _MD) made re try every position of
# a text: over the bench files they were two thirds of the index's scanning. For the index each
# has a capture-free twin opening with a case-sensitive class of its first characters (what
# ``caseless_word_start`` does for the cue patterns; tests hold each twin to its pattern), and
# each twin's match is read again by the pattern itself, at its start, for its groups.
_WEEKDAY_NAMED = _WEEKDAY[3:-2]  # the weekday group without its "?": a weekday then white space
_MDY_SKIP = re.compile(caseless_word_start("\\b" + without_captures(_MDY.pattern[len("(?<!\\w)"):])),
                       re.IGNORECASE)
_MONTH_DAY = without_captures(_MONTH + r"\.?\s+(?P<d>[0-3]?\d)" + _ORD + r"\b(?!:\d)")
_MD_SKIP = re.compile(caseless_word_start("\\b(?:" + _WEEKDAY_NAMED + _MONTH_DAY + "|" + _MONTH_DAY + ")"),
                      re.IGNORECASE)
# _DM opens with a weekday or a digit: the class holds both, and each branch checks its first
# character looking back ([0-3]?\d: a first digit 0-3 may take a second; any digit may stand alone)
_DM_SKIP = re.compile(
    # every character IGNORECASE takes for a weekday's first letter (long s too), and any digit
    "(?-i:[\\dFMSTWfmstw\u017f])(?<!\\w.)"
    "(?:(?:(?<=m)on|(?<=t)ues?|(?<=w)ed(?:nes)?|(?<=t)hu(?:rs)?|(?<=f)ri|(?<=s)at(?:ur)?|(?<=s)un)"
    "(?:day)?\\.?,?\\s+[0-3]?\\d|(?<=[0-3])\\d?|(?<=\\d))"
    + _ORD + r"\.?\s+(?:of\s+)?" + without_captures(_MONTH) + r"\b\.?",
    re.IGNORECASE,
)
#: Each pattern's twin for the index (see above).
SKIPPING = {_MDY: _MDY_SKIP, _MD: _MD_SKIP, _DM: _DM_SKIP}


def scan(pattern: re.Pattern, text: str, end: int, start: int = 0) -> list[re.Match]:
    """``pattern.finditer(text, start, end)``, through its twin in :data:`SKIPPING` where it has one
    (each twin match read again by ``pattern`` at its start; should the two ever differ, the
    pattern's own scan is returned)."""
    twin = SKIPPING.get(pattern)
    if twin is None:
        return list(pattern.finditer(text, start, end))
    found = []
    for match in twin.finditer(text, start, end):
        again = pattern.match(text, match.start(), end)
        if again is None or again.end() != match.end():
            return list(pattern.finditer(text, start, end))
        found.append(again)
    return found


#: The patterns that read a month's name (a stretch without MONTH_HINT holds no match of them).
_NEED_MONTH = frozenset({_DMY, _MDY, _DM, _MD})

#: The index :func:`scanned` made current in this thread (innermost last); the finders above read
#: from it. Per thread: two threads extracting at once each push and pop their own index (one
#: shared list popped another's, and a read between another's test and pop raised IndexError).
_LOCAL = threading.local()

#: Every date and time pattern reads a digit: a stretch without one holds no match.
_DIGIT = re.compile(r"\d")

#: How far before a window's end a match of the index is taken as the window's own scan's, in
#: characters other than white space and digits. A scan stopping at the window's end reads the
#: text as if it ended there: it may find a shorter match where the document goes on ("11:45 AM"
#: of "11:45 AM PDT"), or one the document's next characters rule out ("5 March" of "5 Marchx").
#: Such a match ends within the two characters a pattern looks ahead, and holds fewer other
#: characters than this besides its blanks and digits (a weekday, "of" and a month's name:
#: "Wednesday., 3rd. of September.", 26).
EDGE = 32


def _active() -> list:
    stack = getattr(_LOCAL, "stack", None)
    if stack is None:
        stack = _LOCAL.stack = []
    return stack


class ScanIndex:
    """The matches of every date and time pattern in ``text[:limit]``, found in one scan each.

    The facts finders ask for the dates and times of many windows of one document: its head,
    each timeline, each line of a timeline (about 5,800 windows of 48 characters over the bench
    files), each a dozen pattern scans and their Python around them. Made current by
    :func:`scanned`, the index answers :func:`find_dates`, :func:`find_partial_dates` and
    :func:`~pmparse.nlp.extractors.clock.find_times` for a window ending within ``limit`` with
    what the window's own scans find: the index's matches inside the window, but where a window's
    edge could change what a scan finds, a scan of the window itself (:meth:`window`).
    Each list is built when first asked for.
    """

    def __init__(self, text: str, limit: int) -> None:
        self.text, self.limit = text, min(len(text), limit)
        self._full: list[tuple[list[int], list[tuple]]] | None = None
        self._partial: list[tuple[list[int], list[tuple]]] | None = None
        self.times: list[tuple[list[int], list[tuple]]] | None = None
        self._edges: dict[tuple[int, int], int] = {}

    def covers(self, text: str, end: int) -> bool:
        """True when the index holds ``text`` up to ``end``."""
        return text is self.text and end <= self.limit

    def _edge(self, start: int, end: int) -> int:
        """Where the :data:`EDGE` characters before ``end`` start, white space and digits not
        counted (a match may hold any run of them: "March", twenty blanks and "1"); ``start`` at
        the most (a window of digits and blanks alone is read by its own scan whole)."""
        line = self._edges.get((start, end))
        if line is None:
            text, line, count = self.text, end, 0
            while line > start and count < EDGE:
                line -= 1
                if not (text[line].isspace() or text[line].isdigit()):
                    count += 1
            self._edges[start, end] = line
        return line

    @staticmethod
    def listed(items: list[tuple]) -> tuple[list[int], list[tuple]]:
        return [item[0] for item in items], items

    def window(self, listed: tuple[list[int], list[tuple]], pattern: re.Pattern, start: int, end: int,
               read) -> list[tuple]:
        """The items (``(start, end, ...)``, in text order, one per match: ``read(match)``) that
        ``pattern.finditer(text, start, end)`` gives, from ``listed``, the index's items of
        ``pattern``, where that is sure.

        A window ending at white space (or at the text's end) reads as the text does: no pattern's
        match ends on white space, and no look-ahead tells white space from the end. The index's
        matches are taken to the window's end there, up to :data:`EDGE` characters before it
        elsewhere; from a match crossing that line on (or from the line), the window is scanned
        (when a digit is left to read, and a month's name for a pattern that needs one). A match of the index across the
        window's start (a weekday before "5 March") leaves the window to its own scan, which may
        find a match inside it.
        """
        text = self.text
        starts, items = listed
        k = bisect.bisect_left(starts, start)
        if k and items[k - 1][1] > start:
            return [read(match) for match in scan(pattern, text, end, start)]
        whole = end >= self.limit or text[end].isspace() or (end > start and text[end - 1].isspace())
        line = end if whole else self._edge(start, end)
        found, resume = [], start
        for item in items[k:]:
            if item[1] > line:
                if whole and item[0] >= end:
                    return found  # the next match starts past the window: its scan finds no more
                # the window's scan differs from the text's from this match on, or from a match
                # the text's next characters rule out, which ends at the edge, EDGE at most long
                resume = max(resume, item[0] if whole else min(item[0], line))
                break
            found.append(item)
            resume = item[1]
        else:
            if whole:
                return found
            resume = max(resume, line)
        if _DIGIT.search(text, resume, end) and (pattern not in _NEED_MONTH or MONTH_HINT.search(text, resume, end)):
            found.extend(read(match) for match in scan(pattern, text, end, resume))
        return found

    def dates(self, start: int, end: int, order: str = "mdy") -> list[tuple[str, int, int]]:
        """:func:`find_dates` of ``text[start:end]``."""
        if self._full is None:
            self._full = [self.listed([_full_item(match, pattern) for match in scan(pattern, self.text, self.limit)])
                          for pattern in _FULL]
        column = 2 if order == "mdy" else 3
        found = [(item[column], item[0], item[1])
                 for pattern, listed in zip(_FULL, self._full)
                 for item in self.window(listed, pattern, start, end, functools.partial(_full_item, pattern=pattern))
                 if item[column]]
        return non_overlapping(found)

    def partial_dates(self, start: int, end: int, full: list[tuple[str, int, int]]) -> list[tuple[int, int, int, int]]:
        """:func:`find_partial_dates` of ``text[start:end]`` whose full dates are ``full``."""
        if self._partial is None:
            self._partial = [self.listed([_partial_item(match) for match in scan(pattern, self.text, self.limit)])
                             for pattern in _PARTIAL]
        found = []
        for pattern, listed in zip(_PARTIAL, self._partial):
            for s, e, month, day in self.window(listed, pattern, start, end, _partial_item):
                if not 1 <= day <= 31 or any(s < fe and e > fs for _, fs, fe in full):
                    continue
                found.append((month, day, s, e))
        return non_overlapping(found, 2, 3)


_PARTIAL = (_DM, _MD)


def _full_item(match: re.Match, pattern: re.Pattern) -> tuple[int, int, str | None, str | None]:
    """``(start, end, mdy reading, dmy reading)`` of a full-date match (readings None when invalid:
    the match is kept, a window's scan going on after it)."""
    mdy = _from_match(match, pattern, "mdy")
    dmy = mdy if pattern is not _NUMERIC else _from_match(match, pattern, "dmy")
    return match.start(), match.end(), mdy, dmy


def _partial_item(match: re.Match) -> tuple[int, int, int, int]:
    return match.start(), match.end(), _month(match.group("mon")), int(match.group("d"))


def active_index(text: str, end: int) -> ScanIndex | None:
    """The current :class:`ScanIndex` when it holds ``text`` up to ``end``, else None."""
    stack = _active()
    index = stack[-1] if stack else None
    return index if index is not None and index.covers(text, end) else None


class scanned:
    """Within this block, the date and time finders read ``text[:limit]`` from one
    :class:`ScanIndex` (see there); ``with scanned(text, limit): ...``."""

    def __init__(self, text: str, limit: int) -> None:
        self.index = ScanIndex(text, limit)

    def __enter__(self) -> ScanIndex:
        _active().append(self.index)
        return self.index

    def __exit__(self, *exc) -> None:
        stack = _active()
        if stack and stack[-1] is self.index:
            stack.pop()
        else:  # left out of order (a generator closed late): take this one out, not another
            stack.remove(self.index)
