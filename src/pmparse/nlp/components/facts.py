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
from urllib.parse import urlsplit

from spacy.language import Language
from spacy.tokens import Doc

from pmparse.ingest.read import is_url
from pmparse.nlp.extractors import clock, dates, durations
from pmparse.nlp.lines import doc_text
from pmparse.rules.cues import load_cues
from pmparse.rules.headings import normalise_heading
from pmparse.rules.taxonomy import OrganisationsFile, load_organisations

_ORG_KEYS = ("organisation", "organization", "company", "org", "owner_org", "publisher")
_DATE_KEYS = ("incident_date", "date", "start", "started_at", "start_time", "started")
_TITLE_KEYS = ("title", "name")
#: Three numbers in a row, or a day number beside a month name: a value that means to name a day.
_WRITTEN_DAY = re.compile(r"\d{1,4}\s*[-/.]\s*\d{1,2}\s*[-/.]\s*\d{1,4}|\b[A-Za-z]{3,9}\.?\s+\d{1,2}\b|\b\d{1,2}\s+[A-Za-z]{3,9}\b")

Fact = dict[str, Any]

#: Headings whose section is the report's overview.
SUMMARY_HEADINGS = ("summary", "issue summary", "incident summary", "executive summary", "overview", "tl;dr", "tldr",
                    "what happened", "description", "incident description", "background", "introduction")
#: Hosts of code forges: the first path segment of a URL there names the owner.
_FORGES = ("github.com", "gitlab.com", "bitbucket.org", "codeberg.org")
_HOST = re.compile(r"(?<![\w.@-])((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.){1,6}[a-z]{2,12})(?![\w-])", re.IGNORECASE)
_FORGE_OWNER = re.compile(r"\b(?:github\.com|gitlab\.com|bitbucket\.org)/(?P<owner>[A-Za-z0-9][\w.-]{0,38})/", re.IGNORECASE)
_NAME = r"(?P<n>[A-Z][\w.&-]{1,30}(?:\s[A-Z][\w.&-]{1,30}){0,3})"
# self-references open with the letter Python's re skips to; \b follows it as a look-behind (the
# same meaning: the plain forms are in tests/components/test_fact_patterns.py), because a leading
# \b made the scan try every position of the text
_SELF = [
    re.compile(r"[AaHh](?<!\w.)(?:(?<=[Aa])t|(?<=[Hh])ere at)\s+" + _NAME + r",?\s+we\b"),
    re.compile(r"[Ww](?<!\w.)e\s+at\s+" + _NAME + r"\b"),
    re.compile(r"[Ww](?<!\w.)e,?\s+(?:the\s+)?" + _NAME + r"\s+team\b"),
]
_NOT_NAMES = {"The", "This", "That", "We", "Our", "It", "In", "On", "At", "A", "An", "As", "All", "Some", "Monday",
              "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "First", "Then", "Since"}
_SECOND_LEVEL = {"co", "com", "gov", "ac", "org", "net", "edu"}


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


#: The name of a printed wiki incident page, "Incident documentation/<date>-<name>".
_PAGE_NAME = re.compile(r"\W*incident\s+documentation\s*/", re.IGNORECASE)
#: Most words of a footer line taken for page chrome ("Privacy policy", "Terms of Use").
_FOOTER_WORDS = 4


def _footer_line(line: str, title: str) -> bool:
    """Whether an unmarked first line of a few words is page chrome (not a wiki page's name)."""
    if line.startswith(("#", "=")) or len(title.split()) > _FOOTER_WORDS or _PAGE_NAME.match(title):
        return False
    return load_cues().is_chrome(title)


#: A wiki print's page name on a line of its own, among the page chrome above the body.
_PAGE_NAME_LINE = re.compile(r"^[ \t]*(incident\s+documentation\s*/[^\n]{1,200}?)[ \t]*$", re.IGNORECASE | re.MULTILINE)
#: A line that is only an HTML comment (a spell-checker's word list above a catalogue entry).
_COMMENT_LINE = re.compile(r"[ \t]*<!--[\s\S]{0,2000}?-->[ \t]*(?:\r?\n|$)")
#: A heading that only labels the title written under it ("# Title:").
_TITLE_LABEL = re.compile(r"(?:title|subject)\s*:?", re.IGNORECASE)
#: A line labelled as the title ("Title: Queue stalled").
_TITLE_LABELLED = re.compile(r"(?:title|subject)\s*:\s*(?=\S)", re.IGNORECASE)
#: An unmarked line giving a report's metadata, not its title ("Owner: @someone").
_META_LINE = re.compile(r"(?:owner|authors?|written by|date|status|severity|reporter|reported by|editor|"
                        r"participants|incident commander|draft|last updated)\s*:", re.IGNORECASE)
_LINE = re.compile(r"\S[^\n]{0,200}")
_HEADING = re.compile(r"^(?:#{1,6}\s+|=+\s*)?(.+?)(?:\s*=+)?\s*$")
#: Lines looked at for a title below page chrome and comments.
_TITLE_LINES = 6


def document_title(text: str, body_start: int = 0, front: dict | None = None,
                   region: tuple[int, int] | None = None) -> tuple[str, list[tuple[int, int]]] | None:
    """The document's own title: front matter ``title``, a wiki print's page name, else its first
    line when that is a heading.

    HTML comments above the first line are skipped; a heading that only says "Title:" gives the
    line under it, a line "Title: X" gives X. A short unmarked first line that is page chrome (a
    printed wiki page opening with its footer, "Privacy policy") is no title, nor is a known
    section heading ("## Summary": the document starts with its first section), nor an unmarked
    line holding a link. A marked heading or a longer line that merely names such a page ("#
    Privacy policy page deploy broke sign-in") stays a title, and so does a wiki page's own name
    ("Incident documentation/20990101-Queue") wherever it stands among the chrome above the body.

    Returns:
        ``(title, evidence)`` or None. A front-matter title's evidence is its value in the front
        matter and, when the body's first heading repeats it, that heading too.
    """
    front = front or {}
    for key in _TITLE_KEYS:
        if front.get(key):
            value = str(front[key])
            evidence = _locate(text, value, region)
            first = _first_line(text, body_start)
            if first is not None and " ".join(first[0].split()) == " ".join(value.split()):
                evidence.append(first[1])
            return value, evidence
    page = _PAGE_NAME_LINE.search(text, body_start, min(len(text), body_start + 4000))
    if page is not None:
        return page.group(1), [page.span(1)]
    first = _first_line(text, body_start)
    return (first[0], [first[1]]) if first is not None else None


def _first_line(text: str, body_start: int) -> tuple[str, tuple[int, int]] | None:
    """The title the first line of the body states, with its offsets (see :func:`document_title`)."""
    from pmparse.rules.headings import load_headings

    position = body_start
    for _ in range(_TITLE_LINES):
        while True:
            match = _LINE.search(text, position)
            if match is None:
                return None
            comment = _COMMENT_LINE.match(text, match.start())
            if comment is None:
                break
            position = comment.end()
        line = match.group(0)
        if line.startswith(">") or re.fullmatch(r"([-*_=~+])\1{2,}\s*", line):
            # a note quoted above the report ("> Updated: ...") or a rule line is not its title
            position = match.end()
            continue
        if re.match(r"(?:[-*+|]|\d{1,3}[.)]|```)(?:\s|$)", line):
            return None  # a list, a table or code: the document opens with its body
        heading = _HEADING.match(line)
        marked = line.startswith(("#", "="))
        if not heading or not (marked or len(line) <= 120):
            return None
        title = heading.group(1)
        offset = match.start() + heading.start(1)
        if _TITLE_LABEL.fullmatch(title):
            position = match.end()
            continue
        label = _TITLE_LABELLED.match(title)
        if label is not None:
            title, offset = title[label.end():], offset + label.end()
        elif _footer_line(line, title) or load_headings().is_known(title) or (
                not marked and ("://" in title or _META_LINE.match(title))):
            return None
        return title, (offset, offset + len(title))
    return None


def _locate(text: str, value: str, region: tuple[int, int] | None) -> list[tuple[int, int]]:
    """Offsets of ``value`` inside ``region`` of the text, for evidence."""
    if region is None or not value:
        return []
    start = text.find(value, region[0], region[1])
    return [(start, start + len(value))] if start >= 0 else []


# --- organisation ---------------------------------------------------------------------------


class _Gazetteer:
    """Lookups over the organisation gazetteer."""

    def __init__(self, data: OrganisationsFile) -> None:
        self.entries = data.organisations
        self.by_domain = {d: e for e in self.entries for d in e.domains}
        self.by_alias = {a.lower(): e for e in self.entries for a in [e.name, *e.aliases]}
        alias_parts = []
        for entry in self.entries:
            for alias in sorted({entry.name, *entry.aliases, *entry.sites}, key=len, reverse=True):
                flags = "(?i:" if alias.islower() else "(?:"
                alias_parts.append((alias, entry, re.compile(r"(?<![\w.-])" + flags + re.escape(alias) + r")(?!\w)")))
        self.aliases = alias_parts

    def domain(self, host: str):
        host = host.lower().rstrip(".")
        parts = host.split(".")
        for i in range(len(parts) - 1):
            entry = self.by_domain.get(".".join(parts[i:]))
            if entry is not None:
                return entry
        return None


def clear_gazetteers() -> None:
    """Forget the compiled organisation gazetteers: their files are read again when next needed."""
    _GAZETTEERS.clear()


def _gazetteer(path: str | None = None) -> _Gazetteer:
    key = path or ""
    if key not in _GAZETTEERS:
        _GAZETTEERS[key] = _Gazetteer(load_organisations(path))
    return _GAZETTEERS[key]


_GAZETTEERS: dict[str, _Gazetteer] = {}


def name_from_host(host: str) -> str | None:
    """An organisation name guessed from a host: ``status.acme-corp.co.uk`` -> ``Acme-corp``."""
    parts = [p for p in host.lower().split(".") if p]
    if len(parts) < 2:
        return None
    label = parts[-2]
    if label in _SECOND_LEVEL and len(parts) >= 3:
        label = parts[-3]
    if not re.fullmatch(r"[a-z][a-z0-9-]{1,40}", label):
        return None
    return label[0].upper() + label[1:]


def find_organisation(text: str, body_start: int = 0, location: str = "", title: tuple[str, list] | None = None,
                      front: dict | None = None, front_region: tuple[int, int] | None = None,
                      gazetteer_path: str | None = None) -> Fact | None:
    """Who ran the failing service and wrote the report.

    Evidence in order of trust: front matter (``organisation``, ``company`` ...), the source URL
    when its host or forge account belongs to a gazetteer organisation, self-references ("At
    Acme, we", "we at Acme"), names, hosts and site names of known organisations in the title and
    text, and last a name guessed from an unknown URL host or forge account. A vendor many reports
    depend on (``provider`` in the gazetteer) is taken only from the first three. The folder a file
    sits in is not evidence.

    Args:
        text: The source text.
        body_start: Where the body starts (after front matter).
        location: The source's path or URL.
        title: ``(title, evidence)`` of the document, when known.
        front: Front matter values.
        front_region: Where the front matter stands in the text.
        gazetteer_path: A replacement organisation gazetteer.

    Returns:
        The fact, or None when nothing in the source names the organisation.
    """
    gaz = _gazetteer(gazetteer_path)
    front = front or {}
    for key in _ORG_KEYS:
        if front.get(key):
            value = str(front[key])
            entry = gaz.by_alias.get(value.lower())
            return {"value": entry.name if entry else value, "evidence": _locate(text, value, front_region),
                    "confidence": 0.95, "origin": "front_matter"}
    # the source URL: a known organisation's domain or forge account is strong evidence; a name
    # guessed from an unknown host or account is kept for when the text names nobody (a forge
    # account is often a project's, not the organisation's: jupyterhub for mybinder.org)
    guessed: Fact | None = None
    if is_url(location):
        parts = urlsplit(location)
        host = (parts.hostname or "").lower()
        if host in _FORGES or host.endswith(tuple("." + f for f in _FORGES)):
            owner = next((p for p in parts.path.split("/") if p), None)
            if owner:
                entry = gaz.by_alias.get(owner.lower())
                if entry is not None:
                    return {"value": entry.name, "evidence": [], "confidence": 0.8, "origin": "url"}
                guessed = {"value": owner, "evidence": [], "confidence": 0.45, "origin": "url"}
        else:
            entry = gaz.domain(host)
            if entry is not None:
                return {"value": entry.name, "evidence": [], "confidence": 0.9, "origin": "url"}
            name = name_from_host(host)
            if name:
                guessed = {"value": name, "evidence": [], "confidence": 0.5, "origin": "url"}
    # self-references: the text speaks as the organisation
    for pattern in _SELF:
        for match in pattern.finditer(text, body_start, min(len(text), body_start + 30000)):
            name = match.group("n").rstrip(".")
            if name.split()[0] in _NOT_NAMES:
                continue
            entry = gaz.by_alias.get(name.lower())
            return {"value": entry.name if entry else name, "evidence": [match.span("n")],
                    "confidence": 0.85 if entry else 0.7, "origin": "self_reference"}
    # mentions of known organisations: names, hosts, site names
    scores: dict[str, float] = {}
    evidence: dict[str, list[tuple[int, int]]] = {}
    title_spans = title[1] if title else []

    def add(entry, weight: float, span: tuple[int, int]) -> None:
        if entry.provider:
            return
        scores[entry.name] = scores.get(entry.name, 0.0) + weight
        evidence.setdefault(entry.name, []).append(span)

    limit = min(len(text), body_start + 60000)
    taken: list[tuple[int, int]] = []
    for match in _HOST.finditer(text, body_start, limit):
        entry = gaz.domain(match.group(1))
        if entry is not None:
            add(entry, 1.0, match.span(1))
            taken.append(match.span(1))
    # the owner of a repository the text links to (its issue tracker) is weaker evidence
    window = text[body_start:limit]
    folded = window.lower()
    # the forge pattern needs one of these hosts: most texts link to none, and the scan is not free
    linked = any(host in folded for host in ("github.com/", "gitlab.com/", "bitbucket.org/"))
    for match in _FORGE_OWNER.finditer(text, body_start, limit) if linked else ():
        entry = gaz.by_alias.get(match.group("owner").lower())
        if entry is not None:
            add(entry, 0.5, match.span("owner"))
            taken.append(match.span("owner"))
    for alias, entry, pattern in gaz.aliases:
        # a substring test first: most aliases are absent, and one regex scan per alias over the
        # text was a sixth of the pipeline's time (lowercase aliases match case-insensitively)
        if alias not in (folded if alias.islower() else window):
            continue
        for match in pattern.finditer(text, body_start, limit):
            span = match.span()
            if any(s <= span[0] < e for s, e in taken):
                continue
            taken.append(span)
            in_title = any(s <= span[0] < e for s, e in title_spans)
            add(entry, 2.0 if in_title else (1.5 if alias in entry.sites else 1.0), span)
    if not scores:
        return guessed
    best = max(scores, key=lambda name: (scores[name], -min(s for s, _ in evidence[name])))
    score = scores[best]
    others = sum(v for k, v in scores.items() if k != best)
    confidence = min(0.9, 0.55 + 0.08 * score) * (score / (score + others))
    return {"value": best, "evidence": sorted(evidence[best])[:3], "confidence": round(confidence, 3),
            "origin": "text"}


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
    for key in _DATE_KEYS:
        if front.get(key):
            written = str(front[key])
            found = dates.parse_date(written)
            if found:
                fact: Fact = {"value": found, "evidence": _locate(text, written, front_region), "confidence": 0.9,
                              "origin": "front_matter"}
                if len(found) == 4 and _WRITTEN_DAY.search(written):
                    # a day was written but is no calendar day (2020-02-30): the year is all that holds
                    fact["confidence"] = 0.6
                    fact["warning"] = (f"front matter {key}: {written!r} is not a calendar date; only its year "
                                       f"{found} is used")
                return fact
    order = dates.numeric_order(text[body_start:body_start + 20000])
    from_path = location_date(location)
    reference = from_path[1] if from_path else None
    candidates: list[tuple[_dt.date, tuple[int, int], float, str]] = []
    if title and title[0]:
        found = dates.find_dates(title[0], order=order)
        if found:
            day = _iso(found[0][0])
            if day:
                evidence = title[1] if title[1] else []
                if evidence and front_region and evidence[0][0] < front_region[1]:
                    origin = "front_matter"
                else:
                    origin = "text"
                return {"value": found[0][0], "evidence": evidence, "confidence": 0.85, "origin": origin}
    full = [(d, s, e) for d, s, e in dates.find_dates(text, body_start, min(len(text), body_start + 20000), order)
            if not dates.is_page_date(text, s)]
    if reference is None and full:
        reference = _iso(full[0][0])
    for start, end in timelines or []:
        # from the heading line on: it may carry the range ("Timeline (PST) 10/14/2022 - 11/03/2022")
        moments = [m for m in clock.find_moments(text, max(start - 120, body_start), min(end, start + 3000),
                                                 reference, order)
                   if m.date and not dates.is_page_date(text, m.start)]
        if moments:
            day = _iso(moments[0].date)
            if day:
                candidates.append((day, (moments[0].start, moments[0].end), 0.8, "timeline"))
    head = [m for m in clock.find_moments(text, body_start, min(len(text), body_start + 2500), reference, order)
            if m.date and not dates.is_page_date(text, m.start)]
    if head:
        first = head[0]
        day = _iso(first.date)
        if day:
            candidates.append((day, (first.start, first.end), 0.7 if not first.partial else 0.6, "text"))
    if from_path is not None:
        value, day = from_path
        before = [c for c in candidates if day - _dt.timedelta(days=400) <= c[0] <= day]
        if before:
            best = min(before, key=lambda c: (c[0], -c[2]))
            confidence = 0.9 if best[0] == day else max(best[2], 0.75)
            return {"value": best[0].isoformat(), "evidence": [best[1]], "confidence": confidence, "origin": best[3]}
        return {"value": value, "evidence": [], "confidence": 0.7, "origin": "path"}
    if candidates:
        best = min(candidates, key=lambda c: (-c[2], c[1][0]))
        return {"value": best[0].isoformat(), "evidence": [best[1]], "confidence": best[2] - 0.1, "origin": best[3]}
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


# --- the component --------------------------------------------------------------------------


#: Section labels whose length phrases state no outage's length ("schedule a 2-hour window").
PLANS = ("action_items",)
#: Section labels whose length phrases count only when they name the outage ("ignored for 3 days").
LESSONS = ("lessons",)


def extract_facts(doc: Doc, gazetteer_path: str | None = None) -> dict[str, Fact]:
    """All facts of ``doc``."""
    text = doc_text(doc)
    front = doc.user_data.get("pmparse_front_matter", {})
    region = doc.user_data.get("pmparse_front_matter_region")
    location = doc.user_data.get("pmparse_location", "")
    url = doc.user_data.get("pmparse_url") or location
    body = _body_start(doc)
    regions = section_regions(doc)
    timelines = [(s, e) for s, e, h in regions if "timeline" in h or h in ("key events", "chronology", "sequence of events")]
    title = document_title(text, body, front, region)
    facts: dict[str, Fact] = {}
    if title is not None:
        facts["source_title"] = {"value": title[0], "evidence": title[1], "confidence": 0.9,
                                 "origin": "front_matter" if front.get("title") or front.get("name") else "text"}
    org = find_organisation(text, body, url, title, front, region, gazetteer_path)
    if org is not None:
        facts["organisation"] = org
    date = find_incident_date(text, body, location, timelines, front, region, title)
    if date is not None:
        facts["date"] = date
    sections = doc.user_data.get("pmparse_sections", [])
    plans = [(s, e) for s, e, label, _ in sections if label in PLANS]
    lessons = [(s, e) for s, e, label, _ in sections if label in LESSONS]
    duration = find_incident_duration(text, body, date["value"] if date else None, timelines, plans, lessons)
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
    _gazetteer(organisations_path)  # read and compiled now: a broken file stops the build

    def facts(doc: Doc) -> Doc:
        doc.user_data["pmparse_facts"] = extract_facts(doc, organisations_path)
        return doc

    return facts
