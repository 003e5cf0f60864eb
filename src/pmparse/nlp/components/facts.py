"""Facts: organisation, date and duration of the incident, each with evidence and confidence.

Writes ``doc.user_data["pmparse_facts"]``: a dict from fact name to
``{"value", "evidence": [(start, end)], "confidence", "origin"}``.

Every fact comes from what the source says: its front matter, its text, its file name (a date)
or its URL. The folder a file sits in is never evidence of who wrote it. The logic is in pure
functions over strings (:func:`find_organisation`, :func:`find_incident_date`,
:func:`find_incident_duration`) that tests call directly.
"""

from __future__ import annotations

import bisect
import datetime as _dt
import re
from typing import Any

from spacy.language import Language
from spacy.tokens import Doc

from pmparse.nlp.extractors import clock, dates, durations

# the organisation and title rules live in extractors; their names stay importable from here
from pmparse.nlp.extractors.gazetteer import GAZETTEERS, clear_gazetteers, load_gazetteer  # noqa: F401
from pmparse.nlp.extractors.organisation import (  # noqa: F401
    NAME_PATTERN,
    SELF_PATTERNS,
    find_organisation,
    name_from_host,
)
from pmparse.nlp.extractors.organisation_rank import candidates, choose, load_ranker, wanted
from pmparse.nlp.extractors.titles import document_title, locate  # noqa: F401
from pmparse.nlp.lines import doc_text
from pmparse.rules.headings import normalise_heading

_DATE_KEYS = ("incident_date", "date", "start", "started_at", "start_time", "started")
#: Front matter keys of a post's publication, which a date the text gives for the incident beats.
_PUBLISHED_KEYS = ("date",)
#: Most days a post is published after the incident it reports (an earlier text date is the incident's).
_PUBLISHED_LAG = 60
#: Most days a page named by its date (a wiki's "20150930-x") is written after the incident its summary dates.
_PAGE_LAG = 3
#: Three numbers in a row, or a day number beside a month name: a value that means to name a day.
_WRITTEN_DAY = re.compile(r"\d{1,4}\s*[-/.]\s*\d{1,2}\s*[-/.]\s*\d{1,4}|\b[A-Za-z]{3,9}\.?\s+\d{1,2}\b|\b\d{1,2}\s+[A-Za-z]{3,9}\b")

Fact = dict[str, Any]

#: Headings whose section is the report's overview.
SUMMARY_HEADINGS = ("summary", "issue summary", "incident summary", "executive summary", "overview", "tl;dr", "tldr",
                    "what happened", "description", "incident description", "background", "introduction")

# --- regions --------------------------------------------------------------------------------


def section_regions(doc: Doc) -> list[tuple[int, int, str]]:
    """Every section of ``doc`` as ``(start, end, normalised heading)``; the preamble's heading is ``""``."""
    # offsets, and the heading text sliced from the cached text (Span.text joins tokens each time)
    text = doc_text(doc)
    headings = sorted((h.start_char, h.end_char) for h in doc.spans["headings"]) if "headings" in doc.spans else []
    starts = [start for start, _ in headings]
    regions = []
    for start, end, label, _ in doc.user_data.get("pmparse_sections", []):
        if label == "preamble":
            regions.append((start, end, ""))
            continue
        # the last heading that starts before the section (a search per section was quadratic)
        i = bisect.bisect_left(starts, start) - 1
        regions.append((start, end, normalise_heading(text[headings[i][0]:headings[i][1]]) if i >= 0 else ""))
    return regions


def _body_start(doc: Doc) -> int:
    masked = doc.user_data.get("pmparse_masked", [])
    return max((end for start, end in masked if start == 0), default=0)




# --- date -----------------------------------------------------------------------------------


def _iso(value: str) -> _dt.date | None:
    try:
        return _dt.date.fromisoformat(value) if len(value) == 10 else None
    except ValueError:
        return None


def location_date(location: str) -> tuple[str, _dt.date] | None:
    """The earliest full date in the source's file name (``20161202-20161201-x.txt`` -> 2016-12-01)."""
    name = re.split(r"[\\/]", location.rstrip("/\\"))[-1]
    found = [(_iso(value), value) for value, _, _ in dates.find_dates(name)]
    found = [(d, v) for d, v in found if d is not None]
    if not found:
        return None
    day, value = min(found)
    return value, day


def find_incident_date(text: str, body_start: int = 0, location: str = "",
                       timelines: list[tuple[int, int]] | None = None,
                       front: dict | None = None, front_region: tuple[int, int] | None = None,
                       title: tuple[str, list] | None = None) -> Fact | None:
    """The date the incident started.

    Front matter (``date``, ``incident_date`` ...) and a date in the title are taken as given. Else
    the candidates are the first date of each timeline, the first dates near the top of the body
    (dates of the page itself, "last edited on ...", are skipped) and a date in the file name. A
    file name often carries the publication date, so a text date up to a year before it wins.

    Args:
        text: The source text.
        body_start: Where the body starts.
        location: The source's path or URL.
        timelines: ``(start, end)`` of timeline sections.
        front: Front matter values.
        front_region: Where the front matter stands.
        title: ``(title, evidence)`` of the document.

    Returns:
        The fact, or None.
    """
    front = front or {}
    published: Fact | None = None
    for key in _DATE_KEYS:
        if front.get(key):
            written = str(front[key])
            found = dates.parse_date(written)
            if found:
                fact: Fact = {"value": found, "evidence": locate(text, written, front_region), "confidence": 0.9,
                              "origin": "front_matter"}
                if len(found) == 4 and _WRITTEN_DAY.search(written):
                    # a day was written but is no calendar day (2020-02-30): the year is all that holds
                    fact["confidence"] = 0.6
                    fact["warning"] = (f"front matter {key}: {written!r} is not a calendar date; only its year "
                                       f"{found} is used")
                if key not in _PUBLISHED_KEYS or _iso(found) is None or any(front.get(k) for k in _END_KEYS):
                    return fact
                # a post's `date` is when it was published (a status note's, beside its end, is the
                # incident's start): the text may say when the incident began
                published = fact
                break
    order = dates.numeric_order(text[body_start:body_start + 20000])
    from_path = location_date(location)
    reference = from_path[1] if from_path else None
    candidates: list[tuple[_dt.date, tuple[int, int], float, str]] = []
    title_dated = False
    if title and title[0] and published is None:
        found = dates.find_dates(title[0], order=order)
        ranged = dates.range_start(title[0])
        if ranged is not None and (not found or ranged[1] <= found[0][1] < ranged[2]):
            # "Outage 3-5 March 2031": the date read is the range's last day, the incident began on its first
            found = [ranged]
        if found:
            day = _iso(found[0][0])
            # a title repeating the file name's date as a slug is a page named when it was written (a
            # wiki's "Incident documentation/20150930-x"): the first date the text gives, a few days
            # before, is the incident's (below)
            # only a date written as a slug ("20150930-x"): "Incident on 2031-01-05" is the author's word
            slug = re.fullmatch(r"\d{8}", title[0][found[0][1]:found[0][2]]) is not None
            title_dated = bool(day) and slug and from_path is not None and from_path[1] == day
            if day and not title_dated:
                evidence = title[1] if title[1] else []
                if evidence and front_region and evidence[0][0] < front_region[1]:
                    origin = "front_matter"
                else:
                    origin = "text"
                titled = {"value": found[0][0], "evidence": evidence, "confidence": 0.85, "origin": origin}
                # the title names the day the log is filed under (when it was noticed); its own
                # timeline may show it began a few days before ("2031-07-21: Differ broken" whose
                # first entry is the 20th at 20:30)
                # "Incident on 2031-01-05" says which day it was: the author's word stands
                said_on = re.search(r"\b(?:on|of)\s+$", title[0][:found[0][1]], re.IGNORECASE) is not None
                after = max([body_start, *(e for _, e in evidence)])
                began = None if said_on else _timeline_start(text, after, timelines, day, order)
                if began is not None and day - _dt.timedelta(days=_TITLE_LAG) <= began[0] < day:
                    return {"value": began[0].isoformat(), "evidence": [began[1]], "confidence": 0.75,
                            "origin": "timeline"}
                return titled
    if reference is None:
        # the text's first date (not the page's) dates the yearless ones; a file name's date does
        # so when there is one, and then the text's 20,000 characters need no scan
        first = next((d for d, s, _ in dates.find_dates(text, body_start, min(len(text), body_start + 20000), order)
                      if not dates.is_page_date(text, s)), None)
        if first is not None:
            reference = _iso(first)
    for start, end in timelines or []:
        entry = _first_entry(text, start, end, body_start, reference, order)
        if entry is not None:
            candidates.append((*entry, 0.8, "timeline"))
    head = [m for m in clock.find_moments(text, body_start, min(len(text), body_start + 2500), reference, order)
            if m.date and not dates.is_page_date(text, m.start)]
    if head:
        first = head[0]
        day = _iso(first.date)
        if day:
            candidates.append((day, (first.start, first.end), 0.7 if not first.partial else 0.6, "text"))
    if published is not None:
        day = _iso(published["value"])
        window = [c for c in candidates if day - _dt.timedelta(days=_PUBLISHED_LAG) <= c[0] <= day]
        # the summary's first date says when it began (a timeline may open with the day-before
        # change); the publication day itself, said again, keeps the front matter's evidence
        window.sort(key=lambda c: (c[3] != "text", c[1][0]))
        if not window or window[0][0] == day:
            return _relative_to(published, text, body_start, title) or published
        best = window[0]
        return {"value": best[0].isoformat(), "evidence": [best[1]], "confidence": 0.75, "origin": best[3]}
    if from_path is not None and title_dated:
        value, day = from_path
        # the first date after the title (the title's own date is the page's)
        after = max((end for _, end in title[1]), default=body_start) if title and title[1] else body_start
        # a date in a page name ("Incident documentation/20150615") cites another report
        said = next((m for m in head if m.start >= after and text[m.start - 1:m.start] not in "/_-"), None)
        said_day = _iso(said.date) if said is not None else None
        if said_day is not None and day - _dt.timedelta(days=_PAGE_LAG) <= said_day < day:
            return {"value": said.date, "evidence": [(said.start, said.end)], "confidence": 0.75, "origin": "text"}
        return {"value": value, "evidence": title[1] if title and title[1] else [], "confidence": 0.85, "origin": "text"}
    if from_path is not None:
        value, day = from_path
        before = [c for c in candidates if day - _dt.timedelta(days=400) <= c[0] <= day]
        if before:
            best = min(before, key=lambda c: (c[0], -c[2]))
            confidence = 0.9 if best[0] == day else max(best[2], 0.75)
            return {"value": best[0].isoformat(), "evidence": [best[1]], "confidence": confidence, "origin": best[3]}
        path_fact = {"value": value, "evidence": [], "confidence": 0.7, "origin": "path"}
        return _relative_to(path_fact, text, body_start, title) or path_fact
    folder = location_year(location)
    if folder is not None:
        # a catalogue filed by year: the text's dates of that year, else the year alone
        candidates = [c for c in candidates if c[0].year == folder]
        if not candidates:
            return {"value": str(folder), "evidence": [], "confidence": 0.5, "origin": "path"}
    if candidates:
        best = min(candidates, key=lambda c: (-c[2], c[1][0]))
        return {"value": best[0].isoformat(), "evidence": [best[1]], "confidence": best[2] - 0.1, "origin": best[3]}
    return None


#: How many days before a title's date its timeline's first entry may say the incident began: the
#: evening before (a log filed under the day it was noticed); further back a timeline opens with
#: background (the change deployed days before), 4 of 7 such readings on the labelled cards wrong.
_TITLE_LAG = 1


def _first_entry(text: str, start: int, end: int, lower: int, reference, order: str
                 ) -> tuple[_dt.date, tuple[int, int]] | None:
    """The day and span of the first dated entry of the timeline at ``text[start:end]``, read from
    its heading line on (it may carry the range: "Timeline (PST) 10/14/2022 - 11/03/2022") and
    never before ``lower``."""
    moments = [m for m in clock.find_moments(text, max(start - 120, lower), min(end, start + 3000), reference, order)
               if m.date and not dates.is_page_date(text, m.start)]
    day = _iso(moments[0].date) if moments else None
    return (day, (moments[0].start, moments[0].end)) if day else None


def _timeline_start(text: str, after: int, timelines: list[tuple[int, int]] | None, reference: _dt.date,
                    order: str) -> tuple[_dt.date, tuple[int, int]] | None:
    """The day and span of the first dated entry of the document's first timeline that has one
    (never before ``after``: the title's own date is not an entry)."""
    return next((entry for start, end in timelines or []
                 if (entry := _first_entry(text, start, end, after, reference, order)) is not None), None)


#: How far into the body a day said relative to the post's ("yesterday", "on Tuesday") is looked for.
_RELATIVE_WINDOW = 1500


def _relative_to(written: Fact, text: str, body_start: int, title: tuple[str, list] | None) -> Fact | None:
    """The incident's day when a post dated by when it was written (its front matter or file name)
    says it relative to that day, in its title or its opening before any date ("On Yesterday's
    Outage", "on Tuesday we took down ..."): :func:`pmparse.nlp.extractors.dates.relative_day`."""
    day = _iso(written["value"])
    if day is None:
        return None
    spans = [(s, e) for s, e in (title[1] if title and title[1] else [])]
    spans.append((body_start, min(len(text), body_start + _RELATIVE_WINDOW)))
    for start, end in spans:
        found = dates.relative_day(text, start, end, day)
        if found is not None:
            return {"value": found[0].isoformat(), "evidence": [found[1]], "confidence": 0.7, "origin": "text"}
    return None


def location_year(location: str) -> int | None:
    """The year of a folder the source is filed under (``catalog/2019/x.md`` -> 2019), when its
    name is a year alone."""
    folders = re.split(r"[\\/]", location.rstrip("/\\"))[:-1]
    for name in reversed(folders):
        if re.fullmatch(r"(?:19[7-9]\d|20\d\d)", name):
            return int(name)
    return None


# --- duration -------------------------------------------------------------------------------


def find_incident_duration(text: str, body_start: int = 0, date: str | None = None,
                           timelines: list[tuple[int, int]] | None = None,
                           plans: list[tuple[int, int]] | None = None,
                           lessons: list[tuple[int, int]] | None = None) -> Fact | None:
    """How long the incident lasted, in minutes, from what the text states.

    Labelled start and end events ("Fault occurs 2020-04-15 07:15" ... "Repaired 2020-04-15
    07:45"), a labelled length ("Time to repair: 6h 27m"), a stated span ("between 13:19 UTC on 10
    Jan and 05:30 UTC on 11 Jan") or a phrase ("for 1 hour and 50 minutes"); a timeline marking the
    outage's start and end ("OUTAGE BEGINS" ... "OUTAGE ENDS") wins over a phrase. Failing those, a
    timeline's start and end: from its first entry to its last entry that says the service
    recovered (a weaker reading, with a lower confidence). A text reporting several incidents (one
    length label with several values) states none. See :func:`pmparse.nlp.extractors.durations.find_duration`.

    Args:
        text: The source text.
        body_start: Where the body starts.
        date: The incident date (ISO), for dates written without a year.
        timelines: ``(start, end)`` of timeline sections.
        plans: ``(start, end)`` of action-item sections, whose length phrases are not the outage's.
        lessons: ``(start, end)`` of lesson sections, whose length phrases count when they name
            the outage.

    Returns:
        The fact, or None.
    """
    reference = _iso(date) if date else None
    order = dates.numeric_order(text[body_start:body_start + 20000])
    found = durations.find_duration(text, body_start, None, reference, order, timelines, plans, lessons)
    if found is None:
        return None
    minutes, evidence, confidence, how = found
    return {"value": minutes, "evidence": evidence, "confidence": confidence, "origin": f"text:{how}"}


def title_duration(text: str, title: tuple[str, list[tuple[int, int]]] | None) -> Fact | None:
    """The length the document's title gives its outage ("Post Mortem: 2h Upload Outage"), read only
    when the body states none: the writer rounds a title, and the body's own length is exact.

    Args:
        text: The source text.
        title: ``(title, evidence)`` as :func:`~pmparse.nlp.extractors.titles.document_title` gives it.

    Returns:
        The fact, or None.
    """
    found = durations.title_length(title[0]) if title is not None else None
    if found is None:
        return None
    minutes, (start, end) = found
    # the evidence is the length where the title's text stands in the source, else the whole title
    where = next(((s, e) for s, e in title[1] if text[s:e] == title[0]), None)
    evidence = [(where[0] + start, where[0] + end)] if where is not None else list(title[1][:1])
    return {"value": minutes, "evidence": evidence, "confidence": 0.5, "origin": "text:title"}


#: Front matter keys of the incident's end (a status page's ``resolvedWhen``), and of its start.
_END_KEYS = ("resolvedwhen", "resolved_when", "resolved_at", "end", "ended_at", "end_time", "resolved_time")
_START_KEYS = ("start", "started_at", "start_time", "date")


def front_matter_duration(text: str, front: dict, region: tuple[int, int] | None) -> Fact | None:
    """The incident's length from front matter that states its start and end times (a status
    note's ``date`` and ``resolvedWhen``): both must carry a time of day."""
    end_key = next((k for k in _END_KEYS if front.get(k)), None)
    start_key = next((k for k in _START_KEYS if front.get(k)), None)
    if end_key is None or start_key is None:
        return None
    start, end = _moment(str(front[start_key])), _moment(str(front[end_key]))
    if start is None or end is None or end < start:
        return None
    minutes = int((end - start).total_seconds() // 60)
    evidence = locate(text, str(front[start_key]), region) + locate(text, str(front[end_key]), region)
    return {"value": minutes, "evidence": evidence, "confidence": 0.8, "origin": "front_matter"}


_MOMENT = re.compile(r"(\d{4}-\d{2}-\d{2})[T ](\d{1,2}:\d{2}(?::\d{2})?)(?:\.\d{1,9})?[ \t]?(Z|[+-]\d{2}:?\d{2})?")


def _moment(value: str) -> _dt.datetime | None:
    """A date with a time of day (``2031-05-30T08:13:00-00:00``, ``2031-05-30 08:13``), in UTC when zoned."""
    match = _MOMENT.fullmatch(value.strip())
    if match is None:
        return None
    zone = match.group(3) or ""
    zone = "+00:00" if zone in ("Z", "-00:00", "-0000") else (zone[:3] + ":" + zone[-2:] if zone else "")
    clock_text = match.group(2) if match.group(2).count(":") == 2 else match.group(2) + ":00"
    try:
        moment = _dt.datetime.fromisoformat(f"{match.group(1)}T{clock_text.zfill(8)}{zone}")
    except ValueError:
        return None
    return moment.astimezone(_dt.timezone.utc).replace(tzinfo=None) if moment.tzinfo else moment


#: A line opening with a clock time, a date and time, or a list marker before one: a timeline entry.
_ENTRY_LINE = re.compile(r"^[ \t]*(?:[-*+][ \t]+)?(?:\*\*)?~?(?:\d{4}-\d{2}-\d{2}[ T]?)?\d{1,2}:\d{2}\b", re.MULTILINE)
#: Fewest timeline entries, each within a few lines of the previous, that make a block.
_BLOCK_ENTRIES = 3
_BLOCK_GAP = 400


def timeline_blocks(text: str, body_start: int = 0) -> list[tuple[int, int]]:
    """Stretches of the text that read as a timeline without a heading saying so (a printed page
    whose headings are plain lines): runs of lines opening with a clock time.

    Returns:
        ``(start, end)`` of the longest such run, or nothing.
    """
    runs: list[list[int]] = []
    for match in _ENTRY_LINE.finditer(text, body_start):
        if runs and match.start() - runs[-1][-1] <= _BLOCK_GAP:
            runs[-1].append(match.start())
        else:
            runs.append([match.start()])
    runs = [run for run in runs if len(run) >= _BLOCK_ENTRIES]
    if not runs:
        return []
    best = max(runs, key=len)
    end = text.find("\n", best[-1])
    return [(best[0], end if end >= 0 else len(text))]


# --- the component --------------------------------------------------------------------------


#: Section labels whose length phrases state no outage's length ("schedule a 2-hour window").
PLANS = ("action_items",)
#: Section labels whose length phrases count only when they name the outage ("ignored for 3 days").
LESSONS = ("lessons",)


#: How far past the body's start the date and time finders read the document from one scan
#: (:class:`~pmparse.nlp.extractors.dates.ScanIndex`): the head's 20,000 characters and the
#: timelines near them; a window beyond is scanned alone.
SCAN_LIMIT = 30000


def extract_facts(doc: Doc, gazetteer_path: str | None = None) -> dict[str, Fact]:
    """All facts of ``doc``; the dates and times of its windows come from one scan of the text
    (:func:`~pmparse.nlp.extractors.dates.scanned`)."""
    text = doc_text(doc)
    with dates.scanned(text, _body_start(doc) + SCAN_LIMIT):
        return _extract_facts(doc, text, gazetteer_path)


def _extract_facts(doc: Doc, text: str, gazetteer_path: str | None) -> dict[str, Fact]:
    front = doc.user_data.get("pmparse_front_matter", {})
    region = doc.user_data.get("pmparse_front_matter_region")
    location = doc.user_data.get("pmparse_location", "")
    url = doc.user_data.get("pmparse_url") or location
    body = _body_start(doc)
    regions = section_regions(doc)
    timelines = [(s, e) for s, e, h in regions if "timeline" in h or h in ("key events", "chronology", "sequence of events")]
    if not timelines:
        timelines = timeline_blocks(text, body)
    title = document_title(text, body, front, region)
    facts: dict[str, Fact] = {}
    if title is not None:
        facts["source_title"] = {"value": title[0], "evidence": title[1], "confidence": 0.9,
                                 "origin": "front_matter" if front.get("title") or front.get("name") else "text"}
    ranker = load_ranker()
    if wanted(ranker):
        # every name the document offers, ranked; kept on the doc for the evaluation's held-out ranking
        cands = candidates(text, body, url, title, front, region, gazetteer_path, doc.user_data.get("pmparse_meta"))
        doc.user_data["pmparse_org_candidates"] = cands
        org = choose(cands, ranker)
    else:
        # no ranker shipped: the rules' choice, without listing the candidates
        org = find_organisation(text, body, url, title, front, region, gazetteer_path, doc.user_data.get("pmparse_meta"))
    if org is not None:
        facts["organisation"] = org
    date = find_incident_date(text, body, location, timelines, front, region, title)
    if date is not None:
        facts["date"] = date
    sections = doc.user_data.get("pmparse_sections", [])
    plans = [(s, e) for s, e, label, _ in sections if label in PLANS]
    lessons = [(s, e) for s, e, label, _ in sections if label in LESSONS]
    duration = front_matter_duration(text, front, region) or find_incident_duration(
        text, body, date["value"] if date else None, timelines, plans, lessons) or title_duration(text, title)
    if duration is not None:
        facts["duration_minutes"] = duration
    return facts


@Language.factory("pmparse_facts", default_config={"organisations_path": None}, assigns=["doc.user_data"])
def make_facts(nlp: Language, name: str, organisations_path: str | None):
    """Create the facts component.

    Args:
        nlp: The pipeline.
        name: Component name.
        organisations_path: A replacement organisation gazetteer; the packaged one when None.

    Raises:
        RulesError: the gazetteer is unreadable or invalid (at build, not at the first document).
    """
    load_gazetteer(organisations_path)  # read and compiled now: a broken file stops the build

    def facts(doc: Doc) -> Doc:
        doc.user_data["pmparse_facts"] = extract_facts(doc, organisations_path)
        return doc

    return facts
