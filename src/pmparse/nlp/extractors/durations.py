"""The outage's length: stated lengths, start and end times written together, and timelines."""

from __future__ import annotations

import datetime as _dt
import re

from pmparse.nlp.extractors.clock import Moment, clock_minutes, find_moments, span_minutes
from pmparse.nlp.extractors.timeline import MAX_MINUTES, window_follows, find_key_events, timeline_reading
from pmparse.rules.cues import caseless_word_start

#: The plain form of each pattern :func:`_word_start` compiled (the tests compare the two).
PLAIN: dict[str, str] = {}


def _word_start(name: str, pattern: str) -> re.Pattern:
    """``pattern`` under IGNORECASE, rewritten so that ``re`` skips to its first letters
    (:func:`~pmparse.rules.cues.caseless_word_start`: a leading ``\\b`` made it try every position)."""
    PLAIN[name] = pattern
    return re.compile(caseless_word_start(pattern), re.IGNORECASE)

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
_LABELLED_PROSE = _word_start(
    "_LABELLED_PROSE",
    r"\b(?:time to (?:repair|recover(?:y)?|resolve|resolution|mitigat(?:e|ion))|(?:outage|incident|impact) duration|"
    r"total downtime|duration of the (?:outage|incident|impact|disruption))"
    r"(?: (?:was|is|of|:))? (?:" + _ABOUT + r" ?)?" + _VALUE,
)

# "for 2 hours", "lasted 45 minutes", "a period of 30 minutes"; a bare "of"/"over" states a timeout, a
# size or a retention ("a TTL of 5 minutes", "files over 250M") as often as an outage, so it needs a word
# saying it is a stretch of time
_PHRASE = _word_start(
    "_PHRASE",
    r"\b(?:for|lasted|lasting|during|(?:period|window|stretch|span|interval|duration|course) of)\s{1,3}"
    r"(?:" + _ABOUT + r"\s{0,3})?" + _VALUE,
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
_ADJECTIVE_PHRASE = _word_start(
    "_ADJECTIVE_PHRASE",
    r"\b(?:an?|the)\s{1,3}(?:" + _ABOUT + r"\s{0,3})?"
    r"(?P<val>(?:\d{1,3}(?:\.\d)?|" + _WORDS + r")[- ](?:hours?|hrs?|minutes?|mins?|days?))"
    r"(?:-long)?\s{1,3}"
    r"(?:(?!(?:before|after|since|following|prior|preceding|leading|until|into|of|from|to|without)\b)[\w/-]+\s{1,3}){0,2}?"
    r"(?:outage|downtime|disruption|degradation|interruption|incident)\b" + _NOT_WORK,
)

# a title's length of its outage, with or without its article ("Post Mortem: 2h Upload Outage",
# "30min outage during the upgrade", "A 90-minute disruption"): titles drop the article; the
# words between may name the service, as in a sentence; a bare "m" is minutes only in lower case
# (a title is short: compiled as written, without the word-start rewriting the body's patterns need)
_TITLE_LENGTH = re.compile(
    r"(?<![\w.,:/-])(?:(?:an?|the)\s{1,3})?(?:" + _ABOUT + r"\s{0,3})?"
    r"(?P<val>(?:\d{1,3}(?:\.\d)?|(?!an?\b)" + _WORDS + r")[ -]?(?:hours?|hrs?|h|minutes?|mins?|(?-i:m)|days?|d))"
    r"(?:-long)?\s{1,3}"
    r"(?:(?!(?:before|after|since|following|prior|preceding|leading|until|into|of|from|to|without)\b)[\w/.-]+\s{1,3}){0,3}?"
    r"(?:outage|downtime|disruption|degradation|interruption|incident)\b" + _NOT_WORK,
    re.IGNORECASE,
)


def title_length(title: str) -> tuple[int, tuple[int, int]] | None:
    """The outage's length a title names ("Post Mortem: 2h Upload Outage" gives 120), with its
    offsets in ``title``, or None. A title drops the article a sentence would need ("a 2-hour
    outage", :data:`_ADJECTIVE_PHRASE`); a length the title gives to something else ("24h incident
    review", "Outage after a 3h maintenance window") is no match."""
    match = _TITLE_LENGTH.search(title)
    if match is None:
        return None
    minutes = parse_duration(match.group("val").replace("-", " "))
    if minutes is None or not 0 < minutes <= 60 * 24 * 14:
        return None
    return minutes, match.span("val")


# a length given as the window between two events: "edits made in 14 hours between the rollout and
# the fix", "during the 40 minutes between the deploy and the rollback"
_WINDOW_PHRASE = _word_start(
    "_WINDOW_PHRASE",
    r"\b(?:in|during|for|over|within)\s{1,3}(?:the\s{1,3})?(?:" + _ABOUT + r"\s{0,3})?" + _VALUE + r"\s{1,3}between\b",
)

# "for a one-hour period", "for a 40 minute stretch": a length written as an adjective of a period
_PERIOD_PHRASE = _word_start(
    "_PERIOD_PHRASE",
    r"\bfor\s{1,3}an?\s{1,3}(?:" + _ABOUT + r"\s{0,3})?"
    r"(?P<val>(?:\d{1,3}(?:\.\d)?|" + _WORDS + r")[- ](?:hours?|hrs?|minutes?|mins?|days?))(?:-long)?\s{1,3}"
    r"(?:period|stretch|span)\b",
)

# the total of several windows: "for a total of 47 minutes", "totalling 2 hours" ...
_TOTAL_PHRASE = _word_start(
    "_TOTAL_PHRASE",
    r"\b(?:for\s{1,3}a\s{1,3}total\s{1,3}of|a\s{1,3}total\s{1,3}of|totall?ing)\s{1,3}(?:" + _ABOUT + r"\s{0,3})?" + _VALUE,
)

# ... or "52 minutes in total"
_IN_TOTAL = re.compile(r"(?<![\w.,])" + _VALUE + r"\s{1,3}in\s{1,3}total\b", re.IGNORECASE)

# a length rounded by its writer: "for about 30 minutes", "~1hr", "around 10 hours"
_ROUNDED = re.compile(_ABOUT + r"\s{0,3}$", re.IGNORECASE)

# an outage length in words that say so: "an outage of 2 hours", "2 hours of downtime"
_OUTAGE_PHRASE = _word_start(
    "_OUTAGE_PHRASE",
    r"\b(?:outage|downtime|disruption|incident|degradation|unavailab\w+|impact)\b" + _NOT_WORK +
    r"[^.\n]{0,40}?"
    r"\b(?:for|of|lasted|lasting)\s{1,3}(?:" + _ABOUT + r"\s{0,3})?" + _VALUE,
)

# how long recovery took: "recovered in 15 minutes", "recovery took about 25 minutes", "fixed within 2 hours"
_RECOVERY_PHRASE = _word_start(
    "_RECOVERY_PHRASE",
    r"\b(?:recover(?:y|ed|s)?|resolved|restored|fixed)\b[^.\n]{0,30}?\b(?:in|within|took|after)"
    r" (?:" + _ABOUT + r" ?)?" + _VALUE,
)

# a length followed by "before we noticed" or "until the failure was detected" is the time to
# detect, not the outage's length
_BEFORE_NOTICED = re.compile(
    r"[^.\n]{0,20}?\b(?:before|until) (?:\w+ ){0,3}(?:notic|detect|spott|discover|realiz|realis|report|alert)",
    re.IGNORECASE,
)

# a moment may stand in brackets ("Between [2031/06/06 18:55 UTC] and [2031/06/07 02:00 UTC]") or be
# rounded with a tilde ("between 19:07:32 and ~19:20")
_SPAN_OPEN = re.compile(r"\b(?:between|from)\s+(?:about\s+|around\s+|approximately\s+|roughly\s+|~\s?)?\[?$", re.IGNORECASE)

_SPAN_JOIN = re.compile(
    r"^\]?\s*(?:,\s*)?(?:and|to|until|till|through|-{1,2}|–|—)\s+(?:about\s+|around\s+|approximately\s+|roughly\s+|~\s?)?\[?$"
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


def _hour_ranges(text: str, start: int, end: int) -> list[tuple[int, int, int]]:
    """Hour ranges that share one am/pm ("1-3pm"): ``(minutes, start, end)`` in order of position."""
    found = []
    for match in _HOUR_RANGE.finditer(text, start, end):
        second = clock_minutes(match)
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
        if spans and last is not None and first is not None and window_follows(text, spans[-1][1][-1][1], last, first):
            total = spans[-1][0] + minutes
            if total <= MAX_MINUTES:
                spans[-1] = (total, spans[-1][1] + evidence)
                last = second
                continue
        spans.append((minutes, evidence))
        last = second
    return spans


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


def _total(text: str, start: int, end: int, plans: list[tuple[int, int]] | None,
           asides: list[tuple[int, int]] | None) -> tuple[int, list[tuple[int, int]]] | None:
    """The first stated total of several windows ("for a total of 47 minutes", "52 minutes in
    total") that states the outage's length (:func:`_states_length`): ``(minutes, [evidence])``."""
    found = []
    for pattern in (_TOTAL_PHRASE, _IN_TOTAL):
        for match in pattern.finditer(text, start, end):
            if not _states_length(text, match, plans, asides, False):
                continue
            minutes = parse_duration(match.group("val"))
            if minutes is not None and 0 < minutes <= MAX_MINUTES:
                found.append((match.start("val"), minutes, match.span("val")))
                break
    if not found:
        return None
    _, minutes, span = min(found)
    return minutes, [span]


def find_duration(text: str, start: int = 0, end: int | None = None, reference: _dt.date | None = None,
                  order: str = "mdy", timelines: list[tuple[int, int]] | None = None,
                  plans: list[tuple[int, int]] | None = None, lessons: list[tuple[int, int]] | None = None
                  ) -> tuple[int, list[tuple[int, int]], float, str] | None:
    """The incident's stated duration, in minutes.

    In order of trust: labelled start and end events ("Fault occurs ... / Repaired ..."), a labelled
    value ("Time to repair: 6h 27m"), then whichever comes first of a stated span near the top
    ("between 13:19 UTC on 10 Jan and 05:30 UTC on 11 Jan") and a phrase ("for 1 hour and 50
    minutes", "a 4-hour outage"); a span the phrase's own sentence goes on to give wins over the
    rounded phrase, and a total the span's own sentence goes on to give ("between 08:00 and 12:00,
    for a total of 38 minutes") wins over the span, the envelope of its windows. A timeline whose
    entries mark the outage's start and end ("OUTAGE BEGINS" ... "OUTAGE ENDS") wins over a phrase,
    which rounds. Failing all those, a timeline's start and end
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
    total = _total(text, start, min(end, start + 6000), plans, asides)
    if spans and total is not None:
        envelope, evidence = spans[0]
        between = text[evidence[-1][1]:total[1][0][0]]
        if len(between) <= 160 and not re.search(r"\.\s|\n\s*\n", between) and total[0] < envelope:
            # "in bursts between 08:00 and 12:00, for a total of 38 minutes": the span is the
            # windows' envelope, the total the sentence goes on to give is the outage's length
            return total[0], total[1], 0.75, "phrase"
    if total is not None:
        found.append((total[1][0][0], total[0], total[1], 0.6, "phrase"))
    for pattern, confidence, named in ((_OUTAGE_PHRASE, 0.6, True), (_ADJECTIVE_PHRASE, 0.6, True),
                                       (_PHRASE, 0.5, False), (_PERIOD_PHRASE, 0.5, False),
                                       (_WINDOW_PHRASE, 0.5, False),
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
        rounded = _ROUNDED.search(text, max(start, first[2][0][0] - 20), first[2][0][0]) is not None
        for reading in readings if rounded else ():
            # "slow for ~30 minutes" over a timeline running 07:30 to 08:08: the writer rounded what
            # the timeline times. A timeline shorter than the phrase starts late (at the first alert,
            # after the outage began), and one much longer times something else
            if reading is not None and first[1] <= reading[0] <= first[1] * 4 / 3:
                return reading[0], reading[1], 0.6, "timeline"
        return first[1], first[2], first[3], first[4]
    for reading in readings:
        # the weakest reading: from a timeline's first entry to its last saying the service recovered
        if reading is not None:
            return reading[0], reading[1], 0.5, "timeline"
    return None
