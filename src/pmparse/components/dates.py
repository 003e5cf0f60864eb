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
_ISO = re.compile(r"(?<![\d-])(?P<y>(?:19|20)\d{2})-(?P<m>\d{1,2})-(?P<d>\d{1,2})(?![\d])")
_COMPACT = re.compile(r"(?<!\d)(?P<y>(?:19|20)\d{2})(?P<m>[01]\d)(?P<d>[0-3]\d)(?!\d)")
_DMY = re.compile(r"(?<!\w)(?P<d>[0-3]?\d)(?:st|nd|rd|th)?\.?\s+(?:of\s+)?" + _MONTH + r"\.?,?\s+(?P<y>(?:19|20)\d{2})(?!\d)", re.IGNORECASE)
_MDY = re.compile(r"(?<!\w)" + _MONTH + r"\.?\s+(?P<d>[0-3]?\d)(?:st|nd|rd|th)?,?\s+(?P<y>(?:19|20)\d{2})(?!\d)", re.IGNORECASE)
_YEAR = re.compile(r"(?<!\d)(?P<y>(?:19|20)\d{2})(?!\d)")

_NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30, "forty": 40,
    "forty-five": 45, "fifty": 50, "ninety": 90, "half an": 0.5, "a half": 0.5,
}
_WORDS = r"(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty(?:-five)?|fifty|ninety|half an)"
# a figure may touch its unit ("16m"); a number word needs a space ("two hours", never "and" = a + d)
_NUM = r"(?:\d{1,4}(?:[.,]\d{1,2})?\s?|\b" + _WORDS + r"\s)"
_UNIT = r"(?:h(?:ou)?rs?|h|min(?:ute)?s?|m|days?|d|secs?|seconds?)"
_AMOUNT = re.compile(r"(?P<n>" + _NUM + r")(?P<u>" + _UNIT + r")\b", re.IGNORECASE)
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


def _valid(year: int, month: int, day: int) -> str | None:
    try:
        return _dt.date(year, month, day).isoformat()
    except ValueError:
        return None


def _from_match(match: re.Match) -> str | None:
    groups = match.groupdict()
    year = int(groups["y"])
    if groups.get("mon"):
        month = _MONTHS[groups["mon"].lower()[:4].rstrip("t") if groups["mon"].lower().startswith("sept") else groups["mon"].lower()[:3]]
    else:
        month = int(groups["m"])
    return _valid(year, month, int(groups["d"]))


def find_dates(text: str, start: int = 0, end: int | None = None) -> list[tuple[str, int, int]]:
    """Full dates in ``text[start:end]``, in order of position.

    Returns:
        ``(iso_date, start, end)`` tuples.
    """
    end = len(text) if end is None else end
    found = []
    for pattern in (_ISO, _DMY, _MDY, _COMPACT):
        for match in pattern.finditer(text, start, end):
            value = _from_match(match)
            if value:
                found.append((value, match.start(), match.end()))
    found.sort(key=lambda item: item[1])
    return found


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


def find_duration(text: str, start: int = 0) -> tuple[int, list[tuple[int, int]], float] | None:
    """The incident's stated duration.

    A labelled value ("Time to repair: 6h 27m") wins over a phrase ("for about two hours").

    Returns:
        ``(minutes, evidence, confidence)`` or None when the text states none.
    """
    for match in _LABELLED.finditer(text, start):
        minutes = parse_duration(match.group("val"))
        if minutes is not None and minutes > 0:
            return minutes, [match.span("val")], 0.85
    for match in _PHRASE.finditer(text, start, min(len(text), start + 6000)):
        minutes = parse_duration(match.group("val"))
        if minutes is not None and 0 < minutes <= 60 * 24 * 14:
            return minutes, [match.span("val")], 0.5
    return None
