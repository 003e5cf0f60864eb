"""Sectionizer: headings and the sections they open, mapped to card fields.

Recognises markdown (ATX and setext) headings, wiki ``== x ==`` headings, bold lines, bold bullet
labels (``- **Impact**: ...``), inline labels at line start (``Root cause: ...``), upper-case
heading lines, question headings and, in plain text, lines that are exactly a known heading.

A heading the table does not know may still be read by the heading model
(:mod:`pmparse.nlp.heading_model`, config ``heading_model_dir``): when it names a field with
enough confidence, the heading maps to that field as a *learned* heading; the table wins wherever
it knows a heading, and a learned heading never overrides an enclosing section the table mapped
to a field.

Writes ``doc.spans["headings"]`` (label: the field, ``none`` or ``unknown``) and
``doc.spans["sections"]`` (the body of each heading, label: the field it feeds, ``none``,
``unknown`` or ``preamble``); section scores are in ``doc.spans["sections"].attrs["scores"]``.
A text that holds several incidents, each under its own heading with its own field headings (an
incident log, a report on recurring outages), has those headings' extents in
``doc.user_data["pmparse_incidents"]`` (see :func:`incident_sections`).
``doc.user_data["pmparse_learned_sections"]`` holds the extents of sections whose field came from
the heading model (measurement tells them from the table's).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from spacy.language import Language
from spacy.tokens import Doc

from pmparse.nlp.components.item_content import work_on_reference
from pmparse.nlp.heading_model import HeadingModel, has_heading_model
from pmparse.nlp.lines import Line, Mask, code_fence_regions, doc_text, navigation_regions, shared_lines
from pmparse.rules.headings import HeadingTable, load_headings

# the heading text is everything up to the last character that is not a closing "#" or space; written
# greedy (not ".+?" before "[ \t#]*$") so a long line of "# # #" costs linear time
_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*[^ \t#]|[ \t#])[ \t#]*$")
_WIKI = re.compile(r"^ {0,3}(={1,6})[ \t]*([^=].*?)[ \t]*\1[ \t]*$")
# AsciiDoc section titles ("== Root cause"): a word after the marks, which no equation opens
_ADOC = re.compile(r"^(={1,6})[ \t]+([^\W\d].*?)[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
# reStructuredText's other adornments, as long as the title at least (as rst requires): not ~ or
# ` (markdown code fences), * or + (markdown rules), . or : (an ellipsis line, a pandoc div)
_RST_UNDERLINE = re.compile(r"^(\^{3,}|\"{3,}|'{3,})[ \t]*$")
_BOLD_LINE = re.compile(r"^ {0,3}(\*\*|__)([^*_\n]{1,120}?)[ \t]*:?[ \t]*\1[ \t]*:?[ \t]*$")
_BOLD_LABEL = re.compile(r"^([ \t]*(?:[-*+][ \t]+)?)(\*\*|__)([^*_\n]{1,80}?)[ \t]*:?[ \t]*\2[ \t]*:?[ \t]*")
_INLINE_LABEL = re.compile(r"^([ \t]*(?:[-*+][ \t]+)?)([A-Za-z][A-Za-z0-9 /&'’-]{1,48}?)[ \t]*:[ \t]*")
_UPPER = re.compile(r"^[ \t]*([A-Z][A-Z0-9 &/,'’()-]{2,60}?)[ \t]*:?[ \t]*$")
_QUESTION = re.compile(r"^[ \t]*((?:how|what|why|where|when|who|did|was|were|is)\b[^\n]{3,90}\?)[ \t]*$", re.IGNORECASE)
_PLAIN = re.compile(r"^[ \t]*([A-Z][A-Za-z0-9 /&'’-]{2,60}?)[ \t]*[:?]?[ \t]*$")
_LIST = re.compile(r"^[ \t]*(?:[-*+•]|\d{1,3}[.)])[ \t]+")

#: Heading levels below markdown's six: bold lines and bold bullet labels, then inline labels.
BOLD_LEVEL = 7
INLINE_LEVEL = 8


@dataclass(frozen=True)
class Heading:
    """A heading found in the text.

    Attributes:
        start: Offset of the heading line (or label) start.
        end: Offset where the heading text ends (the label's colon included).
        body_start: Where the heading's content starts (same line for inline labels).
        level: 1-6 markdown levels, 7 bold labels, 8 inline labels.
        text: The heading as written, markup stripped.
        field: The card field it maps to, None when it maps to no field.
        known: Whether the heading table knows it.
        confidence: How sure the mapping is.
        scoped_to_paragraph: True for an inline label whose content shares its line: its section
            ends at the next blank line.
        learned: True when the table does not know the heading and the field is the heading
            model's (``known`` stays False).
    """

    start: int
    end: int
    body_start: int
    level: int
    text: str
    field: str | None
    known: bool
    confidence: float
    scoped_to_paragraph: bool = False
    learned: bool = False


@dataclass(frozen=True)
class Section:
    """The body of a heading (or the preamble before the first one)."""

    start: int
    end: int
    label: str
    confidence: float
    heading: Heading | None
    learned: bool = False


def _learned(model: HeadingModel | None, start: int, end: int, body_start: int, level: int, text: str,
             scoped: bool = False) -> Heading | None:
    """The heading the model maps to a field, or None (no model, or it names no field surely enough)."""
    found = model.field(text) if model is not None else None
    if found is None:
        return None
    return Heading(start, end, body_start, level, text.strip(), found[0], False, found[1], scoped, learned=True)


def _make(table: HeadingTable, start: int, end: int, body_start: int, level: int, text: str,
          exact_only: bool = False, scoped: bool = False, model: HeadingModel | None = None) -> Heading | None:
    found = table.lookup(text)
    if found is None:
        return (_learned(model, start, end, body_start, level, text, scoped)
                or Heading(start, end, body_start, level, text.strip(), None, False, 0.0, scoped))
    if exact_only and not table.is_known(text):
        return None
    field, confidence = found
    return Heading(start, end, body_start, level, text.strip(), field, True, confidence, scoped)


def classify_line(line: Line, next_line: Line | None, table: HeadingTable, plain_text: bool,
                  model: HeadingModel | None = None) -> Heading | None:
    """The heading a line opens, if any.

    Args:
        line: The line.
        next_line: The following line (for setext underlines).
        table: Heading synonyms.
        plain_text: True for plain text sources, where a line that is exactly a known heading
            counts as one.
        model: The heading model, asked about markdown, wiki, setext and bold-line headings and
            question lines the table does not know.
    """
    text = line.text
    if not text.strip() or len(text) > 300:
        return None
    m = _ATX.match(text)
    if m:
        return _make(table, line.start, line.end, line.end, len(m.group(1)), m.group(2), model=model)
    m = _WIKI.match(text) or _ADOC.match(text)
    if m:
        return _make(table, line.start, line.end, line.end, len(m.group(1)), m.group(2), model=model)
    underline = next_line is not None and (_SETEXT.match(next_line.text) or (
        _RST_UNDERLINE.match(next_line.text) and len(next_line.text.strip()) >= len(text.strip())))
    if underline and not _LIST.match(text) and len(text.strip()) <= 120:
        level = 1 if next_line.text.strip().startswith("=") else 2
        return _make(table, line.start, next_line.end, next_line.end, level, text, model=model)
    m = _BOLD_LINE.match(text)
    if m:
        return _make(table, line.start, line.end, line.end, BOLD_LEVEL, m.group(2), model=model)
    m = _BOLD_LABEL.match(text)
    if m:
        label = m.group(3)
        heading = table.lookup(label)
        if heading is None or work_on_reference(text):
            return None
        field, confidence = heading
        rest = line.start + m.end()
        scoped = rest < line.end and not m.group(1).strip()
        return Heading(line.start + len(m.group(1)), rest, rest, BOLD_LEVEL, label.strip(), field, True, confidence, scoped)
    m = _INLINE_LABEL.match(text)
    # "- Fix: PR #4521" is an item whose verb is its work, not a heading over a bare reference
    if m and len(m.group(2).split()) <= 6 and table.is_known(m.group(2)) and not work_on_reference(text):
        field, confidence = table.lookup(m.group(2))  # type: ignore[misc]
        rest = line.start + m.end()
        return Heading(line.start + len(m.group(1)), rest, rest, INLINE_LEVEL, m.group(2).strip(), field, True,
                       confidence * 0.95, rest < line.end)
    m = _QUESTION.match(text)
    if m and not _LIST.match(text):
        heading = table.lookup(m.group(1))
        if heading is not None:
            field, confidence = heading
            return Heading(line.start, line.end, line.end, 3, m.group(1).strip(), field, True, confidence)
        # a question on a line of its own ("Why did this happen?") opens a section when the model reads a field in it
        return _learned(model, line.start, line.end, line.end, 3, m.group(1))
    m = _UPPER.match(text)
    if m and re.search(r"[A-Z]{3}", m.group(1)) and table.lookup(m.group(1)) is not None:
        return _make(table, line.start, line.end, line.end, 2, m.group(1))
    if plain_text:
        m = _PLAIN.match(text)
        if m and len(m.group(1).split()) <= 6 and table.is_known(m.group(1)):
            return _make(table, line.start, line.end, line.end, 2, m.group(1))
    return None


def find_headings(text: str, masked: list[tuple[int, int]], table: HeadingTable, plain_text: bool = False,
                  model: HeadingModel | None = None) -> list[Heading]:
    """Every heading of ``text`` outside masked regions and code blocks, in order (``model``: see
    :func:`classify_line`)."""
    lines = shared_lines(text)
    regions = list(masked) + code_fence_regions(lines)
    if plain_text:
        regions += navigation_regions(lines, is_heading=lambda line: classify_line(line, None, table, True) is not None)
    mask = Mask(regions)
    headings = []
    skip_until = -1
    for i, line in enumerate(lines):
        if line.start < skip_until or mask.overlaps(line.start, max(line.end, line.start + 1)):
            continue
        nxt = lines[i + 1] if i + 1 < len(lines) else None
        if nxt is not None and mask.overlaps(nxt.start, max(nxt.end, nxt.start + 1)):
            nxt = None
        heading = classify_line(line, nxt, table, plain_text, model)
        if heading is not None:
            headings.append(heading)
            skip_until = heading.body_start if heading.body_start > line.end else -1
    items = _labelled_items(text, headings)
    return [heading for i, heading in enumerate(headings) if i not in items] if items else headings


#: Fields whose sections are lists of items, each of which a writer may open with a word of its
#: kind ("- Fix: restart the consumers" among action items, "- **Detection delay**: ..." among
#: what went poorly, "- Monitoring: no alert ..." among contributing factors).
ITEM_FIELDS = frozenset({"action_items", "lessons", "contributing_factors", "remediation"})
_BULLET = re.compile(r"[ \t]*[-*+][ \t]+")


def _labelled_items(text: str, headings: list[Heading]) -> set[int]:
    """Indexes of the headings that are a bullet's label before the bullet's own words, inside a
    section the table maps to a field of :data:`ITEM_FIELDS`: the label names the item's kind,
    not a section of its own, so the bullet (and the bullets after it) stay items of the list they
    are in. A label alone on its line ("Status:" over its lines), a label outside such a list (a
    summary's "- Root cause: ...") and a list the heading model read stay as they were."""
    labels = [i for i, heading in enumerate(headings)
              if heading.level >= BOLD_LEVEL and heading.field is not None and _bullet_label(text, heading)]
    if not labels:
        return set()  # most documents: the caller builds the sections once
    sections = build_sections(text, headings)[-len(headings):]
    parents = _parents(headings)
    found: set[int] = set()
    for i in labels:
        heading = headings[i]
        parent = parents[i]
        while parent in found:
            parent = parents[parent]
        if parent < 0:
            continue
        section = sections[parent]
        if section.label in ITEM_FIELDS and not section.learned and section.start <= heading.start < section.end:
            found.add(i)
    return found


def _bullet_label(text: str, heading: Heading) -> bool:
    """Whether ``heading`` labels a bullet ("- Fix:", "* **Detection delay**:") and words follow it
    on its line."""
    line_start = text.rfind("\n", 0, heading.start) + 1
    line_end = text.find("\n", heading.body_start)
    line_end = len(text) if line_end < 0 else line_end
    return bool(_BULLET.fullmatch(text, line_start, heading.start)) and bool(text[heading.body_start:line_end].strip())


def _paragraph_end(text: str, start: int, limit: int) -> int:
    blank = re.compile(r"\n[ \t]*\r?\n")
    m = blank.search(text, start, limit)
    return m.start() + 1 if m else limit


def build_sections(text: str, headings: list[Heading]) -> list[Section]:
    """Sections of the text: the preamble, then the body of each heading.

    A heading's body runs to the next heading of the same or a higher level. A heading the table
    does not know, or that maps to no field, passes on the field of its enclosing section, so a
    ``### 09:14`` entry under "Timeline" stays unlabelled and a ``### Process`` list under
    "Action items" stays an action item. An inline label that maps to no field ("Status:") inside
    a field's section is a property of the item under it (a task's status in a list of action
    items), not a section of its own: it passes on the enclosing field too. A learned heading
    (the heading model's field) labels its section unless an enclosing section feeds a field the
    table gave it: the table's reading of the larger section wins.
    """
    sections: list[Section] = []
    first = headings[0].start if headings else len(text)
    if re.search(r"\w", text[:first]):
        sections.append(Section(0, first, "preamble", 0.0, None))
    ends = _section_ends(headings, len(text))
    stack: list[tuple[Heading, int, str, float, bool]] = []
    for i, heading in enumerate(headings):
        end = ends[i]
        if heading.scoped_to_paragraph:
            end = min(end, _paragraph_end(text, heading.body_start, end))
        # the enclosing sections are those still open at this heading and of a higher level
        stack = [entry for entry in stack if entry[1] > heading.start and entry[0].level < heading.level]
        learned = False
        if heading.known and (heading.field is not None or heading.level < INLINE_LEVEL or not _in_field(stack)):
            label, confidence = heading.field or "none", heading.confidence
        elif heading.learned and heading.field is not None and not _in_table_field(stack):
            label, confidence, learned = heading.field, heading.confidence, True
        elif stack:
            label, confidence, learned = stack[-1][2], stack[-1][3] * 0.9, stack[-1][4]
        else:
            label, confidence = "unknown", 0.0
        sections.append(Section(heading.body_start, max(end, heading.body_start), label, confidence, heading, learned))
        stack.append((heading, end, label, confidence, learned))
    return sections


def _in_table_field(stack: list[tuple[Heading, int, str, float, bool]]) -> bool:
    """True when the innermost open section feeds a card field the table gave it: a learned
    section's own learned subsections still read their headings."""
    return _in_field(stack) and not stack[-1][4]


def _in_field(stack: list[tuple[Heading, int, str, float, bool]]) -> bool:
    """True when the innermost open section feeds a card field."""
    return bool(stack) and stack[-1][2] not in ("none", "unknown", "preamble")


def _section_ends(headings: list[Heading], limit: int) -> list[int]:
    """For each heading, where the next heading of the same or a higher level starts (linear time)."""
    ends = [limit] * len(headings)
    waiting: list[int] = []
    for i in range(len(headings) - 1, -1, -1):
        while waiting and headings[waiting[-1]].level > headings[i].level:
            waiting.pop()
        ends[i] = headings[waiting[-1]].start if waiting else limit
        waiting.append(i)
    return ends


#: Field headings under an incident heading that make it read as an incident of its own.
INCIDENT_FIELDS = 2
#: A year: what an incident heading of a log carries ("Incident on 2023-07-25", "October 21, 2025").
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")


def _parents(headings: list[Heading]) -> list[int]:
    """Index of each heading's enclosing heading (the last one before it of a lower level), -1 at top."""
    parents, stack = [], []
    for i, heading in enumerate(headings):
        while stack and headings[stack[-1]].level >= heading.level:
            stack.pop()
        parents.append(stack[-1] if stack else -1)
        stack.append(i)
    return parents


def incident_sections(headings: list[Heading], limit: int) -> list[tuple[int, int]]:
    """Extents of the headings under which a text holds several incidents, or ``[]``.

    An incident heading is a markdown heading (levels 1-6) that maps to no field, names a year,
    and whose section holds deeper headings of at least :data:`INCIDENT_FIELDS` fields ("Incident
    on 2023-07-25" over "Impact", "Resolution", "Review actions"), among siblings (the headings of
    its level under the same parent) none of which is a known heading. A text holds several incidents
    when two or more headings of one level are incident headings and at least two fields recur
    under two or more of them. One report's sections per region or per phase are not incidents (no
    year, or a "Summary" beside them), nor is a timeline whose entries are headings over prose. Of
    the levels that qualify, the one with the most incident headings wins. Linear time: the
    sections of one level do not overlap, so each heading is scanned once per level.

    Args:
        headings: The text's headings in order (:func:`find_headings`).
        limit: The text's length (where the last section ends).
    """
    ends = _section_ends(headings, limit)
    parents = _parents(headings)
    best: list[tuple[int, int]] = []
    for level in range(1, 7):
        # a parent with a known heading ("Summary", "Root cause") among its children at this level
        # holds the parts of one report
        one_report = {parents[i] for i, h in enumerate(headings) if h.level == level and h.known}
        blocks, seen = [], {}
        for i, heading in enumerate(headings):
            # a known heading (every field heading) is never one: its parent is in one_report
            if heading.level != level or parents[i] in one_report or not _YEAR.search(heading.text):
                continue
            fields = set()
            j = i + 1
            while j < len(headings) and headings[j].start < ends[i]:  # the headings inside: all deeper
                # the table's fields only: a learned heading does not make a report an incident log
                if headings[j].field is not None and headings[j].known:
                    fields.add(headings[j].field)
                j += 1
            if len(fields) >= INCIDENT_FIELDS:
                blocks.append((heading.start, ends[i]))
                for name in fields:
                    seen[name] = seen.get(name, 0) + 1
        if len(blocks) >= 2 and sum(count >= 2 for count in seen.values()) >= 2 and len(blocks) > len(best):
            best = blocks
    return best


def sectionize(doc: Doc, table: HeadingTable, model: HeadingModel | None = None) -> None:
    """Find headings and sections of ``doc`` and store them in ``doc.spans``.

    Reads ``doc.user_data["pmparse_masked"]`` (regions that are not prose) and
    ``doc.user_data["pmparse_format"]`` (``txt`` enables plain-line headings); ``model``: the
    heading model for headings the table does not know.
    """
    text = doc_text(doc)
    masked = doc.user_data.get("pmparse_masked", [])
    plain = doc.user_data.get("pmparse_format", "md") in ("txt", "pdf")  # a PDF's text is plain text
    headings = find_headings(text, masked, table, plain_text=plain, model=model)
    sections = build_sections(text, headings)
    heading_spans, section_spans, scores = [], [], []
    for heading in headings:
        span = doc.char_span(heading.start, heading.end, label="none" if heading.known and heading.field is None
                             else (heading.field or "unknown"), alignment_mode="expand")
        if span is not None:
            heading_spans.append(span)
    for section in sections:
        if section.end <= section.start:
            continue
        span = doc.char_span(section.start, section.end, label=section.label, alignment_mode="contract")
        if span is None or len(span) == 0:
            continue
        section_spans.append(span)
        scores.append(section.confidence)
    doc.spans["headings"] = heading_spans
    doc.spans["sections"] = section_spans
    doc.spans["sections"].attrs["scores"] = scores
    doc.user_data["pmparse_sections"] = [(s.start, s.end, s.label, s.confidence) for s in sections]
    doc.user_data["pmparse_learned_sections"] = [(s.start, s.end) for s in sections if s.learned]
    doc.user_data["pmparse_incidents"] = incident_sections(headings, len(text))


def table_sections(doc: Doc, table: HeadingTable) -> list[tuple[int, int, str, float]]:
    """The sections of ``doc`` as the heading table alone reads them (no heading model), as
    ``(start, end, label, confidence)``: what tells a heading the table knows from one it does not,
    whatever a heading model made of it."""
    text = doc_text(doc)
    plain = doc.user_data.get("pmparse_format", "md") in ("txt", "pdf")
    headings = find_headings(text, doc.user_data.get("pmparse_masked", []), table, plain_text=plain)
    return [(s.start, s.end, s.label, s.confidence) for s in build_sections(text, headings)]


def several_incidents_warning(doc: Doc) -> str | None:
    """What to tell a curator when ``doc`` holds several incidents (its card draws on all of them)."""
    blocks = doc.user_data.get("pmparse_incidents") or []
    if len(blocks) < 2:
        return None
    text = doc_text(doc)
    first = text[blocks[0][0]:blocks[0][1]].split("\n", 1)[0].strip(" \t#=*_")[:60]
    return (f"expected one incident, found {len(blocks)} incident sections with their own field headings (the "
            f"first: {first!r}); the card draws on all of them: split the file for a card per incident")


@Language.factory(
    "pmparse_sectionizer",
    default_config={"headings_path": None, "heading_model_dir": None, "heading_min_confidence": None},
    assigns=["doc.spans", "doc.user_data"],
)
def make_sectionizer(nlp: Language, name: str, headings_path: str | None, heading_model_dir: str | None,
                     heading_min_confidence: float | None):
    """Create the sectionizer component.

    Args:
        nlp: The pipeline.
        name: Component name.
        headings_path: A heading synonym table to use instead of the packaged one.
        heading_model_dir: A folder holding a heading model (:mod:`pmparse.nlp.heading_model`;
            the field model's folder), or None for the table alone.
        heading_min_confidence: Replaces the heading model's own threshold when given.
    """
    from pathlib import Path

    table = load_headings(Path(headings_path) if headings_path else None)
    model = (HeadingModel.load(Path(heading_model_dir), heading_min_confidence)
             if heading_model_dir and has_heading_model(heading_model_dir) else None)
    return Sectionizer(table, model)


class Sectionizer:
    """The spaCy component: :func:`sectionize` with a heading table and an optional heading model.

    ``heading_model`` may be replaced on a built pipeline (leave-one-source-out gives each fold
    the heading model trained without the held-out sources).
    """

    def __init__(self, table: HeadingTable, heading_model: HeadingModel | None = None) -> None:
        self.table = table
        self.heading_model = heading_model

    def __call__(self, doc: Doc) -> Doc:
        sectionize(doc, self.table, self.heading_model)
        return doc

    def to_disk(self, path, exclude=tuple()) -> None:
        """Write the heading model (if any) into ``path``; the table is package data."""
        if self.heading_model is not None:
            self.heading_model.save(path)

    def from_disk(self, path, exclude=tuple()) -> Sectionizer:
        """Read a heading model written by :meth:`to_disk`, when ``path`` holds one."""
        if has_heading_model(path):
            self.heading_model = HeadingModel.load(path)
        return self
