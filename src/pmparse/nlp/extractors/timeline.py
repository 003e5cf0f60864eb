"""Reading a report's timeline: its dated entries and the outage's start and end among them."""

from __future__ import annotations

import datetime as _dt
import re

from pmparse.nlp.extractors.clock import MAY_OPEN, Moment, find_moments, span_minutes

# Key events lists: "Fault occurs 2020-04-15 07:15", "Resolved: 2020-04-15 15:09", "Repaired declared: ..."
_START_LABEL = re.compile(
    r"^[\s>*_|+-]*(?P<label>fault occur(?:s|red)|incident (?:start(?:ed|s)?|began)|outage (?:start(?:ed|s)?|began)|"
    r"impact (?:start(?:ed|s)?|began)|start of (?:the )?(?:incident|outage|impact)|problem (?:start(?:ed|s)?|began)|"
    r"issue (?:start(?:ed|s)?|began)|first detected|detected|began|started)(?:[ \t]+declared)?\**\s*[:|-]?\s*",
    re.IGNORECASE,
)

_END_LABEL = re.compile(
    r"^[\s>*_|+-]*(?P<label>repaired|restored|service restored|recovered|fully recovered|mitigated|"
    r"impact end(?:ed|s)?|outage end(?:ed|s)?|incident end(?:ed|s)?|end of (?:the )?(?:incident|outage|impact)|"
    r"resolved|fixed|all clear)(?:[ \t]+declared)?\**\s*[:|-]?\s*",
    re.IGNORECASE,
)

#: End labels that mean the service came back (preferred over "resolved", which may mean closed).
_RESTORED = ("repaired", "restored", "service restored", "recovered", "fully recovered", "mitigated", "impact end",
             "outage end", "end of")

#: Longest span a stated duration may have: longer ones are exposure windows, not outages.
MAX_MINUTES = 60 * 24 * 31


def window_follows(text: str, previous_end: int, last: Moment, first: Moment) -> bool:
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
    r"stable|stabili[sz]ed|all clear|closed|reopened|re-opened|went back|normal again|is up|are up|"
    r"working again|works again|incident (?:over|ended)|outage (?:over|ended)|"
    # present-tense timelines: "which fixes the issue", "error graphs return to normal", "normal
    # operation resumes", "the queue is back to a functional state", "the site is back online"
    r"fixes (?:the|it|this|that)|(?:return(?:s|ed)?|back) to (?:an? )?(?:normal|functional|working|healthy)|back online|"
    r"(?:normal|service|traffic|operations?)(?: \w+)? resum(?:es|ed))\b",
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
        if not MAY_OPEN.match(text, head, min(pos, head + 48)):
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
