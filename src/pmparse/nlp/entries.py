"""Files holding many incidents: an incident log or a status-page history split into its entries.

An entry is a dated heading ("### Incident on 2023-01-05 - Builds fail", "## March 3, 2024:
API errors") and everything up to the next heading of its level or above. A file is split when at
least :data:`MIN_ENTRIES` headings of one level carry a date and none of them sits in a timeline
(a postmortem whose timeline has dated sub-headings is one incident). Each entry becomes its own
record; its evidence offsets index the whole file, and its key (the heading's date and a digest of
the heading's words) stays the same when the file grows, so new entries at the top leave every
older record's id alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pmparse.ingest.read import Ingested
from pmparse.nlp.extractors import dates
from pmparse.nlp.lines import Mask, code_fence_regions, shared_lines
from pmparse.util import sha256_text

#: Fewest dated headings of one level that make a file a log of incidents.
MIN_ENTRIES = 3

#: A markdown heading line; its closing ``#``s are stripped in Python (a lazy group before them is quadratic).
_ATX = re.compile(r"^(#{1,6})[ \t]+(\S[^\n]*)")
_TIMELINE = re.compile(r"\b(timeline|key events|chronology|sequence of events|updates?)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Entry:
    """One incident of a many-incident file.

    Attributes:
        key: Stable name of the entry within the file: its date and 8 hex digits of its heading.
        heading: The heading as written, markup stripped.
        date: The heading's date (ISO).
        start: Offset of the heading line in the file's text.
        end: Offset where the entry ends (the next heading of its level or above, or the end).
    """

    key: str
    heading: str
    date: str
    start: int
    end: int


def _headings(text: str, masked: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
    """``(offset, level, text)`` of every ATX heading outside code fences and masked regions."""
    lines = shared_lines(text)
    mask = Mask(list(masked) + code_fence_regions(list(lines)))
    found = []
    for line in lines:
        if mask.overlaps(line.start, max(line.end, line.start + 1)):
            continue
        match = _ATX.match(text[line.start:line.end])
        if match:
            found.append((line.start, len(match.group(1)), match.group(2).rstrip(" \t#\r").strip(" *_")))
    return found


def split_entries(text: str, masked: list[tuple[int, int]] = ()) -> list[Entry]:
    """The incident entries of ``text``, in file order; empty when it is not a many-incident file."""
    headings = _headings(text, list(masked))
    dated: dict[int, list[tuple[int, int, str, str]]] = {}
    parent_timeline = False
    for index, (offset, level, words) in enumerate(headings):
        found = dates.find_dates(words)
        if not found:
            continue
        # the nearest heading above at a higher level: a timeline's dated steps are not incidents
        parent = next((h for h in reversed(headings[:index]) if h[1] < level), None)
        parent_timeline = parent is not None and _TIMELINE.search(parent[2]) is not None
        if not parent_timeline:
            dated.setdefault(level, []).append((offset, level, words, found[0][0]))
    if not dated:
        return []
    level, chosen = max(dated.items(), key=lambda item: (len(item[1]), -item[0]))
    if len(chosen) < MIN_ENTRIES or _days_of_one_incident(chosen):
        return []
    chosen = _without_repeats(text, headings, chosen, level)
    if len(chosen) < MIN_ENTRIES:
        return []
    entries: list[Entry] = []
    seen: dict[str, int] = {}
    # keys are given from the bottom up: a repeated heading keeps its number when entries are added at the top
    for offset, _, words, day in reversed(chosen):
        end = next((h[0] for h in headings if h[0] > offset and h[1] <= level), len(text))
        base = f"{day}-{sha256_text(' '.join(words.lower().split()))[:8]}"
        seen[base] = seen.get(base, 0) + 1
        key = base if seen[base] == 1 else f"{base}-{seen[base]}"
        entries.append(Entry(key, words, day, offset, end))
    return entries[::-1]


#: Longest a day-by-day log of one incident runs, in days from its first heading to its last.
DAY_LOG_SPAN = 7
#: Words of a heading that say no more than which day it is ("Saturday", "Day 2", "Update").
_DAY_WORDS = re.compile(r"(?:mon|tues|wednes|thurs|fri|satur|sun)day|day|update[sd]?|morning|afternoon|evening|night|"
                        r"utc|gmt|[ap]m|continued|cont|part|and|to|the|of|on|at", re.IGNORECASE)


def _days_of_one_incident(chosen: list[tuple[int, int, str, str]]) -> bool:
    """Whether dated headings are the days of one incident's log ("Saturday 2031-01-15",
    "Sunday 2031-01-16", ...): days in a row, a week at most, and headings saying nothing but
    the day. A log of incidents names each one ("Incident on 2031-01-15 - Builds queued")."""
    import datetime as _dt

    try:
        days = sorted(_dt.date.fromisoformat(day[:10]) for _, _, _, day in chosen)
    except ValueError:
        return False
    if (days[-1] - days[0]).days > DAY_LOG_SPAN or any((b - a).days > 2 for a, b in zip(days, days[1:])):
        return False
    for _, _, words, _ in chosen:
        rest = words
        for value, start, end in sorted(dates.find_dates(words), key=lambda d: -d[1]):
            rest = rest[:start] + " " + rest[end:]
        other = [w for w in re.findall(r"[^\W\d_]+", rest) if not _DAY_WORDS.fullmatch(w)]
        # month names written out ("January 15") are part of the date
        other = [w for w in other if len(dates.parse_date(f"{w} 1 2000") or "") != 10]
        if len(other) > 1:
            return False
    return True


def _without_repeats(text: str, headings: list[tuple[int, int, str]], chosen: list[tuple[int, int, str, str]],
                     level: int) -> list[tuple[int, int, str, str]]:
    """The dated headings without those whose heading and text repeat an earlier one's word for
    word (a report that gives each incident twice): one card per incident, never a duplicate."""
    kept, seen = [], set()
    for offset, lvl, words, day in chosen:
        end = next((h[0] for h in headings if h[0] > offset and h[1] <= level), len(text))
        body = " ".join(text[offset:end].split()).casefold()
        if body in seen:
            continue
        seen.add(body)
        kept.append((offset, lvl, words, day))
    return kept


def entry_source(source: Ingested, entry: Entry) -> Ingested:
    """The part of ``source`` one entry covers, as a source of its own (offsets from the entry's start).

    Its front matter is the file's (a log's title and owner are every entry's), but nothing of it
    is in the entry's text, so no region is masked for it.
    """
    text = source.text[entry.start:entry.end]
    masked = [(max(s, entry.start) - entry.start, min(e, entry.end) - entry.start)
              for s, e in source.masked if s < entry.end and e > entry.start and s >= entry.start]
    return Ingested(location=source.location, text=text, format=source.format, sha256=sha256_text(text),
                    extracted=source.extracted, front_matter={k: v for k, v in source.front_matter.items()
                                                              if k not in ("title", "date")},
                    masked=masked, meta={}, warnings=[], url=source.url)
