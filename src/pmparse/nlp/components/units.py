"""Units: the sentences, list items, table rows and timeline entries a card field is made of.

spaCy's sentencizer ignores blank lines and markdown structure (it glues a heading onto the next
sentence), so the text is first split into blocks (paragraphs, list items, table rows, timeline
lines) and only paragraphs are split into sentences.

Writes ``doc.spans["units"]``, label: ``sentence``, ``list_item``, ``table_row`` or ``timeline``.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from spacy.language import Language
from spacy.tokens import Doc

from pmparse.nlp.boilerplate import MAX_CHARS as BOILERPLATE_CHARS
from pmparse.nlp.boilerplate import digest
from pmparse.nlp.boilerplate import load as load_boilerplate
from pmparse.nlp.components.item_content import no_content, short_action
from pmparse.nlp.lines import Mask, code_fence_regions, doc_text, navigation_regions, shared_lines
from pmparse.rules.cues import load_cues

_LIST = re.compile(r"^([ \t]*)(?:[-*+•]|\d{1,3}[.)])[ \t]+")
_TABLE = re.compile(r"^[ \t]*\|")
# every optional pipe carries its own trailing blanks, so no two blank runs touch (linear time)
_TABLE_RULE = re.compile(r"^[ \t]*(?:\|[ \t]*)?:?-{2,}:?[ \t]*(?:\|[ \t]*:?-{2,}:?[ \t]*)*(?:\|[ \t]*)?$")
#: A kramdown attribute list on a line of its own ("{: .table.table-striped }"): markup, not words.
_ATTRIBUTES = re.compile(r"^[ \t]*\{:[^}\n]*\}[ \t]*$")
#: A note saying which time zone a timeline uses ("All times in UTC.", "Times are in PDT, and
#: approximate", "All events are documented in [UTC](https://...) time."): it says how to read
#: other lines, not what happened.
_TIME_NOTE = re.compile(r"\(?(?i:all\s+)?(?i:times?|timestamps?|events)(?:\s+(?i:are|shown|listed|given|reported|documented|below))*"
                        r"\s+(?:(?i:in|as)\s+)?\[?(?:[A-Z]{2,5}|UTC\s*[+-]\s*\d{1,2}(?::?\d{2})?)(?:\]\([^)\s]{1,300}\))?(?:\s+(?i:time))?"
                        r"(?:\s*[,;]?\s*(?i:and\s+)?(?i:approximate|approx\.|roughly))?[.:]?\)?")
_HRULE = re.compile(r"^[ \t]{0,3}([-*_])([ \t]*\1){2,}[ \t]*$")
_TIMESTAMP = re.compile(
    r"^[ \t]*(?:\*\*)?(?:\d{4}-\d{2}-\d{2}[ T]?)?\d{1,2}:\d{2}(?::\d{2})?\b|^[ \t]*(?:\*\*)?\d{4}-\d{2}-\d{2}\b"
)
# A sentence ends at . ! or ? (closing quotes/brackets allowed) followed by white space and a
# capital, digit or opening mark. Abbreviations are checked separately.
_BOUNDARY = re.compile(r"[.!?][\"')\]*_]*\s+(?=[A-Z0-9\"'(\[*_`])")
_ABBREV = re.compile(r"(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|Mr|Mrs|Ms|Dr|St|No|Fig|al|Inc|Ltd|Co|U\.S|a\.m|p\.m)|\b[A-Z])\.$")
#: A month's abbreviation before a day ("Sept. 18th", "Nov. 3"): a date, not a sentence's end.
_MONTH_ABBREV = re.compile(r"\b(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.$")
_MARKER = re.compile(r"(?:[-*+•]|\d{1,3}[.)])[ \t]+|[|>]")
#: A bracketed label ("[Final message]", "[Update - 2031-03-29 15:50 UTC]"): a status note's
#: update marker, no part of the words under it; one in capitals ("[FIRST OUTAGE BEGINS]") is a
#: log's event.
_LABEL = r"\[(?![A-Z\d\W_]{1,42}\])[A-Za-z][\w :.,/+-]{0,40}\]"
#: A bracketed label on a line of its own, over its words.
_LABEL_LINE = re.compile(_LABEL + r"[ \t]*\n")
_WORD = re.compile(r"[^\W\d_]{2,}")
#: A unit is split into sentences only above this length when it is a list item.
LONG_ITEM = 400
#: Longest unit (and so longest card item): a longer sentence is cut at white space into pieces
#: of at most this many characters. The corpus's longest item has 6,479 characters (a wiki page's
#: glued list), the next 1,452; a crawl's line of megabytes without a sentence end would
#: otherwise become one multi-megabyte item.
MAX_UNIT_CHARS = 8000
#: Longest line the chrome patterns may mask (footers and menu entries are short).
_CHROME_CHARS = 120
_LINK_LINE = re.compile(r"^\W*(https?://\S+|www\.\S+)\W*$")
#: Most words of a chrome line ("Text is available under the", "Server admin log (Prod)").
_CHROME_WORDS = 5
_LAST_EDITED = re.compile(r"^\W*this page was last edited on\b", re.I)


#: An HTML comment (bounded, so an unclosed "<!--" costs linear time): invisible in the rendered page.
_COMMENT = re.compile(r"<!--.{0,20000}?-->", re.DOTALL)
#: An HTML element's tag ("<div class=...>", "</details>", "<img ... />"); not an address in angle
#: brackets ("<https://...>"), nor a chat log's nick ("<alertbot>") or an aside ("<more alerts>").
_TAG = (r"</?(?i:a|img|div|span|p|br|hr|details|summary|figure|figcaption|picture|source|video|audio|iframe|center|"
        r"section|article|aside|header|footer|main|nav|small|sup|sub|b|i|em|strong|u|font|blockquote|object|embed)"
        r"(?:\s[^<>\n]*)?/?>")
#: A line of markup alone: tags (an image, a wrapper, a disclosure widget's label or an HTML
#: heading between its tags: a heading is no item), a Markdown image or a linked image, or a link reference definition ("[12]: https://..."):
#: layout, not the report's words.
_MARKUP_LINE = re.compile(
    r"[ \t]*(?:(?:" + _TAG + r"|<summary>[^<>\n]{0,200}</summary>|<(h[1-6])\b[^<>\n]*>[^<>\n]{0,200}</\1>|\[?!\[[^\]\n]*\]\([^)\n]*\)(?:\]\([^)\n]*\))?)[ \t]*)+"
    # a link reference definition as CommonMark reads one: a destination without blanks (or in
    # angle brackets) and a title in quotes or brackets; "[Infra]: add disk alerts" is an item
    r"|[ \t]{0,3}\[[^\]\n]{1,80}\]:[ \t]*(?:<[^<>\n]*>|[^\s<][^\s]*)"
    r"(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)))?[ \t]*")


def markup_regions(text: str, lines) -> list[tuple[int, int]]:
    """Lines that are markup alone, which a rendered page never shows as words (no card item holds
    them, :func:`item_bounds`): those inside an
    HTML comment or made of comments (a spell checker's note, a template's prompt written over
    several lines), of tags ("<div ...>", "<img ... />"), of an image ("![graph](a.png)") or of a
    link reference definition ("[issue-12]: https://..."). A comment or a tag inside a sentence's
    line leaves the line alone: the line has words."""
    comments = [m.span() for m in _COMMENT.finditer(text)] if "<!--" in text else []
    out = []
    c = 0
    for line in lines:
        if line.blank:
            continue
        while c < len(comments) and comments[c][1] <= line.start:
            c += 1
        if c < len(comments) and comments[c][0] < line.end:
            # what the line holds outside the comments it overlaps
            rest, at, k = [], line.start, c
            while k < len(comments) and comments[k][0] < line.end:
                rest.append(text[at:max(at, comments[k][0])])
                at = max(at, comments[k][1])
                k += 1
            rest.append(text[at:line.end] if at < line.end else "")
            if not "".join(rest).strip():
                out.append((line.start, line.end))
                continue
        if ("<" in line.text or "[" in line.text) and _MARKUP_LINE.fullmatch(line.text):
            out.append((line.start, line.end))
    return out


@dataclass(frozen=True)
class Unit:
    """A unit of text: ``text[start:end]``."""

    start: int
    end: int
    kind: str


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Narrow ``[start, end)`` past white space, bullet markers, table pipes and quote marks.

    Done with plain string stripping, not a regex with nested repeats, so a long run of white
    space costs linear time.
    """
    for _ in range(8):
        while start < end and text[start].isspace():
            start += 1
        marker = _MARKER.match(text, start, end)
        if not marker:
            break
        start = marker.end()
    while end > start and (text[end - 1].isspace() or text[end - 1] == "|"):
        end -= 1
    return start, end


def cap_length(text: str, start: int, end: int, limit: int = MAX_UNIT_CHARS) -> list[tuple[int, int]]:
    """``text[start:end]`` cut into pieces of at most ``limit`` characters, at the last white space
    of each window when there is one (else at the limit), the white space left out of the pieces.

    Linear time: each window is searched backwards once.
    """
    pieces = []
    while end - start > limit:
        cut = start + limit
        space = cut
        while space > start and not text[space].isspace():
            space -= 1
        if space > start:
            cut = space
        piece_end = cut
        while piece_end > start and text[piece_end - 1].isspace():
            piece_end -= 1
        if piece_end > start:
            pieces.append((start, piece_end))
        start = cut
        while start < end and text[start].isspace():
            start += 1
    if end > start:
        pieces.append((start, end))
    return pieces


def split_sentences(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Sentence boundaries inside ``text[start:end]``, as offsets."""
    pieces = []
    cursor = start
    for match in _BOUNDARY.finditer(text, start, end):
        stop = match.start() + 1
        if _ABBREV.search(text, max(cursor, stop - 8), stop):
            continue
        if match.end() < end and text[match.end()].isdigit() and _MONTH_ABBREV.search(text, max(cursor, stop - 6), stop):
            continue
        # "1.5", version numbers and times are not boundaries: white space is required after the
        # mark, which the pattern already demands.
        close = match.end() - len(match.group(0)) + len(match.group(0).rstrip())
        pieces.append((cursor, close))
        cursor = match.end()
    pieces.append((cursor, end))
    return pieces


def boilerplate_regions(lines, boilerplate: tuple[frozenset[str], int]) -> list[tuple[int, int]]:
    """The lines whose digest is in ``boilerplate`` (digests, least words; see :mod:`pmparse.nlp.boilerplate`)."""
    digests, min_words = boilerplate
    if not digests:
        return []
    # listed lines are short: a long line is prose, and not worth a digest
    return [(line.start, line.end) for line in lines
            if len(line.text) <= BOILERPLATE_CHARS and digest(line.text, min_words) in digests]


def chrome_regions(lines) -> list[tuple[int, int]]:
    """Lines of a few words that the cue table's chrome patterns match (a menu entry, a footer
    label), and a footer's "last edited" line.

    Only for plain text (printed pages), where such a line is the page's, not the report's; a
    long line that names a privacy policy is a report's sentence and is kept, and so is a link
    alone on its line.
    """
    cues = load_cues()
    out = []
    for line in lines:
        text = line.text.strip()
        # a link alone on a line, or a line that opens in lower case, is in a printed page the
        # tail of the sentence above it; a chrome phrase in a line of many words is the report's
        # own sentence ("... logged it in the server admin log"), unless it is the footer's
        if (not text or len(line.text) > _CHROME_CHARS or text[0].islower() or _LINK_LINE.match(text)
                or (len(_WORD.findall(text)) > _CHROME_WORDS and not _LAST_EDITED.match(text))):
            continue
        if cues.is_chrome(text):
            out.append((line.start, line.end))
    return out


#: Words a sentence does not end on: an item's line ending on one was wrapped mid-sentence.
_OPEN_END = re.compile(r"(?:,|\b(?:the|a|an|of|to|and|or|in|on|at|by|for|with|from|that|which|who|is|are|was|"
                       r"were|be|been|has|have|had|its|their|our|your|this|these|those|into|onto|than|as))\s*$",
                       re.IGNORECASE)


def _lazy_continuation(item: str, line: str) -> bool:
    """Whether ``line``, not indented under a list item, still continues the item's sentence (a
    hard-wrapped item whose continuation lines were not indented, which Markdown reads as part of
    the item): the item's text stops on a comma or a word no sentence ends on ("send the"), or the
    line opens in lower case or with a parenthesis ("private keys and ...", "(PATs) to ...")."""
    opening = line.lstrip()
    return bool(_OPEN_END.search(item)) or ((opening[:1].islower() or opening[:1] == "(") and not _LIST.match(line))


def segment(text: str, masked: list[tuple[int, int]], skip: list[tuple[int, int]], plain_text: bool = False,
            boilerplate: tuple[frozenset[str], int] | None = None) -> list[Unit]:
    """Split ``text`` into units.

    Args:
        text: The source text.
        masked: Regions that are not prose (front matter, template tags).
        skip: Regions that are structure, not content (heading lines and labels).
        plain_text: True for plain text: also drop navigation runs and chrome lines of printed pages.
        boilerplate: Digests of boilerplate lines and their least words: such lines are masked.
    """
    lines = shared_lines(text)
    regions = list(masked) + code_fence_regions(lines)
    if plain_text:
        regions += navigation_regions(lines) + chrome_regions(lines)
    if boilerplate is not None:
        regions += boilerplate_regions(lines, boilerplate)
    mask = Mask(regions)
    skip_mask = Mask(skip)
    units: list[Unit] = []
    block: list[int] = []  # [start, end] of the current block
    kind = "paragraph"
    indent = 0
    piped = False  # inside a table whose lines do not open with a pipe ("Time | State", "--- | ---")

    def flush() -> None:
        nonlocal block
        if not block:
            return
        start, end = block
        block = []
        if kind in ("paragraph", "timeline") or (kind == "list_item" and end - start > LONG_ITEM):
            spans = split_sentences(text, start, end)
            label = "sentence" if kind == "paragraph" else kind
        else:
            spans = [(start, end)]
            label = kind
        for s, e in spans:
            s, e = _trim(text, s, e)
            for s, e in cap_length(text, s, e) if e - s > MAX_UNIT_CHARS else [(s, e)]:
                # one word is no unit, unless it is work tagged or done in a reference ("[P1] Cleanup")
                if e > s and (len(_WORD.findall(text, s, e)) >= 2 or short_action(text, s, e, "action_items")):
                    units.append(Unit(s, e, label))

    for line in lines:
        start, end = line.start, line.end
        if line.blank or mask.overlaps(start, max(end, start + 1)) or _HRULE.match(line.text) or (
                _ATTRIBUTES.match(line.text)):
            flush()
            piped = False
            continue
        if skip_mask.overlaps(start, end):
            # a heading line; an inline label keeps the rest of its line as content
            flush()
            rest = skip_mask.end_of(start, end)
            if rest is None or rest >= end:
                continue
            start = rest
            block = [start, end]
            kind = "list_item" if _LIST.match(line.text) else "paragraph"
            indent = len(line.text) - len(line.text.lstrip())
            continue
        if "|" in line.text and not _TABLE.match(line.text) and _TABLE_RULE.match(line.text):
            # the rule of a table written without outer pipes: the line above is its header row
            if block and kind == "paragraph" and "|" in text[block[0]:block[1]] and (
                    "\n" not in text[block[0]:block[1]].rstrip("\n")):
                kind = "table_row"
            flush()
            piped = True
            continue
        if piped and "|" in line.text and not _TIMESTAMP.match(line.text):
            flush()
            block, kind = [start, end], "table_row"
            flush()
            continue
        if _TABLE.match(line.text):
            flush()
            if not _TABLE_RULE.match(line.text):
                block, kind = [start, end], "table_row"
                flush()
            continue
        item = _LIST.match(line.text)
        if item:
            flush()
            block, kind, indent = [start, end], "list_item", len(item.group(1))
            continue
        if _TIMESTAMP.match(line.text):
            flush()
            block, kind = [start, end], "timeline"
            continue
        if block and kind == "list_item":
            line_indent = len(line.text) - len(line.text.lstrip())
            if line_indent <= indent and not plain_text and not _lazy_continuation(text[block[0]:block[1]], line.text):
                flush()
                block, kind = [start, end], "paragraph"
                continue
        if block:
            block[1] = end
        else:
            block, kind = [start, end], "paragraph"
    flush()
    return units


#: Words a letter closes with, alone or before its signature ("Much love,", "Cheers, the Acme team!").
_CLOSING = r"(?:(?:much\s+|with\s+)?love|cheers|(?:many\s+)?thanks|thank\s+you|(?:best|kind|warm|warmest)(?:\s+regards)?|regards|sincerely|yours(?:\s+truly)?|all\s+the\s+best)"
#: The writers signing a post: "the Acme team", "Jo and the Acme team", "— The Acme Team" (the
#: team's name written as a name: "the on-call engineer paged the Acme team" is a sentence).
_SIGNATURE = r"(?:(?:[A-Z][\w'-]+(?:\s*,\s*|\s+and\s+)){0,3}(?i:the)\s+(?:[A-Z0-9][\w.&'-]*\s+){1,4}(?i:team))"
#: Who apologises in a post's closing words: the writers' team ("All of us on the Zorbq team",
#: "the zorbq.example team") or "we".
_APOLOGISER = r"(?:(?:all\s+of\s+us\s+(?:on|at|in)\s+)?the\s+(?:[\w.&'-]{1,40}\s+){1,4}team|we)"
#: An invitation to ask: "If you have any questions, please don't hesitate to contact ...", "...,
#: feel free to drop by our channel" (a request that goes on with "and" or "but" says more).
_ASK_US = (r"if\s+you\s+have\s+(?:any\s+)?(?:further\s+|more\s+|other\s+)?questions?(?:\s+or\s+(?:concerns?|comments?|feedback))?"
           r",?\s+(?:please\s+)?(?:(?:do\s+not|don't|don\u2019t)\s+hesitate\s+to\s+|feel\s+free\s+to\s+)?"
           r"(?:contact|reach\s+out|get\s+in\s+touch|e-?mail|write|drop\s+by|ask|talk|join|come)\b"
           r"(?:(?!\s(?:and|but|so)\s)[^;!?\n]){0,150}")
#: The writers' care for what was affected: "We take the security of our users very seriously", "We
#: did, do and will continue to take ...", "The Zorbq team takes ... seriously, and apologises ...".
_SERIOUSLY = (_APOLOGISER + r"(?:\s+[\w,]{1,12}){0,6}?\s+takes?\s+[^,;:.!?]{1,80}?\s+(?:(?:very|really|extremely)\s+)?seriously"
              r"(?:,?\s+and\s+(?:we\s+(?:are|'re|\u2019re)\s+(?:(?:really|very|truly|so)\s+)?sorry|(?:sincerely\s+)?"
              r"apologi[sz]es?)\s+for\b[^,;:.!?]{0,80})?")
#: A unit that only closes the post, signs it, thanks its readers, apologises for the incident
#: ("Again, our apologies for the outage.", "We're sorry for the trouble.": the apology's object
#: is the incident the card already tells; one that goes on, "..., we should have ...", says more),
#: only attributes the quotation below it ("From the original article [1]:", "According to the
#: researchers:"),
#: names people by their handles alone ("@jdoe, @asmith": a participants list) or is a bracketed
#: label ("[Final message]", "[Update - 2031-03-29 15:50 UTC]": a status note's update marker; one
#: in capitals, "[FIRST OUTAGE BEGINS]", is a log's event). An apology that goes on with "and",
#: "but" or "as" ("... and will keep the window short") says more.
_SAYS_NOTHING = re.compile(
    r"[\W_]*(?:"
    r"(?i:" + _CLOSING + r")[,!.]?(?:\s+" + _SIGNATURE + r")?"
    # every alternative opens on a letter, "@" or "[": the leading run of marks ("— ", "**") is
    # the first group's alone, so a run of blanks is tried once per position (linear time)
    r"|" + _SIGNATURE + r""
    r"|(?i:thanks?(?:\s+you)?\s+(?:for\s+(?:using|reading|your\s+(?:patience|understanding|support))|again)\b[^,;:.!?]{0,60})"
    r"|(?i:(?:(?:again|once\s+again|first(?:\s+up)?|finally),?\s+)?(?:"
    r"(?:we(?:'re|\u2019re|\s+are)|i(?:'m|\u2019m|\s+am))\s+(?:(?:very|truly|so|deeply|really|sincerely|extremely)\s+)*sorry\s+(?:for|about)\b"
    r"|(?:our|my)\s+(?:(?:sincere|sincerest|deepest|humble)\s+)?apologies(?:\s+for\b)?"
    r"|we\s+(?:(?:sincerely|deeply|truly)\s+)?apologi[sz]e(?:\s+(?:in\s+advance\s+)?for\b)?"
    r"|" + _APOLOGISER + r"\s+(?:(?:would|'d|\u2019d)\s+like\s+to\s+|wants?\s+to\s+)?(?:(?:sincerely|deeply|truly)\s+)?"
    r"apologi[sz]es?\s+for\b)"
    r"(?:(?!\s(?:and|but|as)\s)[^,;:.!?]){0,120})"
    r"|(?i:" + _ASK_US + r")"
    r"|(?i:we(?:'ll|\u2019ll|\s+will)\s+(?:continue\s+to\s+)?keep\s+(?:you|everyone|our\s+users)\s+"
    r"(?:posted|updated|informed)(?:\s+(?:when|as|on|about)\b(?:(?!\s(?:and|but)\s)[^,;:.!?]){0,80})?)"
    r"|(?i:" + _SERIOUSLY + r")"
    # a status note that the incident is over ("Incident resolved.", "The outage is now over."):
    # no step of the fix, no symptom
    r"|(?i:(?:the\s+)?(?:incident|issue|problem|outage)\s+(?:(?:now|appears\s+to\s+be|seems\s+to\s+be|is|was|has\s+been)\s+){0,3}"
    r"(?:(?:fully|completely|finally)\s+)?(?:resolved|closed|over|fixed|mitigated))"
    r"|(?i:from|according\s+to|statement\s+from|quoting|as\s+reported\s+by|in\s+the\s+words\s+of)\s"
    # the attribution is a name, without a clause after a comma: "From now on, every deploy
    # needs two approvals:" and "According to the runbook, restart the worker first:" say what to do
    r"(?:\[[^\]\n]{0,80}\]\([^)\s]{0,300}\)|[^.!?:,\n]){1,100}:"
    r"|@[\w-]+(?:\s*(?:,|and)\s*@[\w-]+)*"
    r"|" + _LABEL +
    r")[\W_]*")


#: A word of the language standing alone: three letters or more, not part of an identifier
#: ("zx1c36py3de", "v8.1.0") or an address.
_PLAIN_WORD = re.compile(r"(?<![\w.-])[^\W\d_]{3,}(?![\w-])")


#: A checklist line ("- [ ] ...", "* [x] ...", "1. [X] ..."): its box opens the line's words.
_CHECKBOX_LINE = re.compile(r"[ \t]*(?:[-*+][ \t]+|\d{1,3}[.)][ \t]+)?\[[ xX]\][ \t]")
#: A checklist line stating the write-up's own state: its parts "above" are (filled, linked ...),
#: the report's title or text is tidied or filled in. A work item that only points at the report
#: ("Fix the bug described above", "Send this report to the billing team") is not one.
_WRITE_UP = re.compile(r"(?i)\babove[ \t]+(?:is|are|was|were|has|have)\b"
                       r"|\b(?:report|write-?up)(?:'s|\u2019s)?\b[^.\n]{0,40}?\b(?:is|are)[ \t]+"
                       r"(?:cleaned|tidied|filled|written|reviewed|complete|done|finished)\b")
#: Most lines of a checklist read around a unit.
_CHECKLIST_LINES = 40


def closing_checklist(text: str, start: int) -> bool:
    """Whether the line holding ``start`` is a checkbox of a checklist that ticks off the write-up
    (a template's last list: "the outage is over", "every part above is written", "the report's
    title is tidied"): most of its lines state the report's own state. Such a list checks the
    report, not the incident; a checklist of work ("[ ] write an incident report") keeps its
    items."""
    line_start = text.rfind("\n", 0, start) + 1
    if not _CHECKBOX_LINE.match(text, line_start):
        return False
    lines = []
    at = line_start
    while len(lines) < _CHECKLIST_LINES and at > 0:  # the lines above, while they are checkboxes
        above = text.rfind("\n", 0, at - 1) + 1
        if not _CHECKBOX_LINE.match(text, above):
            break
        lines.append((above, at - 1))
        at = above
    at = line_start
    while len(lines) < 2 * _CHECKLIST_LINES and at < len(text):  # the line itself and those below
        stop = text.find("\n", at)
        stop = len(text) if stop < 0 else stop
        if not _CHECKBOX_LINE.match(text, at):
            break
        lines.append((at, stop))
        at = stop + 1
    # the template's list is about the write-up through and through; one such line among work
    # items is a follow-up like the others
    return 2 * sum(_WRITE_UP.search(text, a, b) is not None for a, b in lines) > len(lines)


def says_nothing(text: str, start: int, end: int) -> bool:
    """Whether the unit (or the item :func:`item_bounds` leaves of it) ``text[start:end]`` says
    nothing of the incident: it holds fewer than two words; it only tells how to read the others,
    as a table's header row (the line under it is the table's rule: "Time | Event" over
    "--- | ---") or a note giving the time zone ("All times in UTC."); it closes, signs or
    apologises for the post, or names people or a label alone (``_SAYS_NOTHING``); it only leads
    into a list, is a length, a date or a heading alone, apologises after a clause of feeling or
    speaks of the write-up itself (:func:`~pmparse.nlp.components.item_content.no_content`); or it is a
    table row of data without a word (a wallet address, an amount and a time). Such a unit stays
    a unit, since the unit model reads each unit beside its neighbours, but is never an item of a
    field."""
    if len(_WORD.findall(text, start, end)) < 2 or _TIME_NOTE.fullmatch(text, start, end):
        return True
    if end - start <= 200 and (_SAYS_NOTHING.fullmatch(text, start, end) or no_content(text, start, end)):
        return True
    if text.startswith("[", start) and closing_checklist(text, start):
        return True
    if text.find("|", start, end) >= 0 and not _PLAIN_WORD.search(text, start, end):
        # a table row of data alone (an address, an amount, a time): no cell says what happened
        return True
    newline = text.find("\n", end)
    if newline < 0 or text.find("|", start, end) < 0:
        return False
    after = text.find("\n", newline + 1)
    rule = text[newline + 1:after if after >= 0 else len(text)]
    return "|" in rule and _TABLE_RULE.match(rule) is not None


#: A month's name in a date cell ("March 18 | 16:00 | ...", "18 Mar | ...").
_CELL_MONTH = (r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sept?(?:ember)?|"
               r"Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?")
#: A table row's time cell and the pipe after it ("11:02 | ", "2031-04-20   11:02 UTC | ",
#: "**4:05 PM** | ", "2031-04-20 16:10:16+01:00 | ", a date cell "2031-04-20 | " or "March 18 | "): when a row of a timeline table is a card's item,
#: the cell is the table's layout, not the item's words (annotators mark the event's words only).
# matched where a unit's words start (no blank first); each blank run is followed by a mark of its
# own (a digit, a letter, the pipe), so no two runs compete for the same blanks (linear time)
_TIME_CELL = re.compile(r"(?:\*\*)?(?:(?:\d{4}-\d{2}-\d{2}|" + _CELL_MONTH + r"[ \t]+\d{1,2}(?:st|nd|rd|th)?|\d{1,2}(?:st|nd|rd|th)?[ \t]+"
                        + _CELL_MONTH + r")(?:(?:[ \t]+|T)(?=\d))?)?(?:\d{1,2}:\d{2}(?::\d{2})?"
                        r"(?:[ \t]*[AaPp]\.?[Mm]\.?|[+-]\d{2}:?\d{2}|Z)?)?(?:[ \t]+[A-Z]{2,5})?(?:\*\*)?[ \t]*\|[ \t]*")
#: Most time cells opening a row ("2031-04-20 | 11:02 | ...": a date column, then a time column).
_TIME_CELLS = 2


def after_time_cell(text: str, start: int, end: int) -> int:
    """Where a unit's words start past a table's time cells ("11:02 | The queue stalled" and
    "2031-04-20 | 11:02 | The queue stalled" give the offset of "The"), or ``start`` when it opens
    with none. The unit keeps the cells, since the unit model read rows with them; only the card's
    item leaves them out."""
    words = start
    for _ in range(_TIME_CELLS):
        at = words
        while at < end and text[at] in " \t":
            at += 1
        cell = _TIME_CELL.match(text, at, end)
        if cell is None or not any(ch.isdigit() for ch in text[at:cell.end()]) or not _WORD.search(text, cell.end(), end):
            break
        words = cell.end()
    return words


def item_bounds(text: str, start: int, end: int, markup: list[tuple[int, int]] = ()) -> tuple[int, int]:
    """The part of the unit ``text[start:end]`` that is a card's item: without the markup lines
    (``markup``, sorted and apart, as :func:`markup_regions` gives them) it opens or ends with
    ("<!-- spellcheck: ... -->" above a sentence, a closing "</div>" under it), a bracketed label on
    a line of its own above its words ("[Final message]") and a table's time cells
    (:func:`after_time_cell`). The unit keeps them, since the unit model read units with them
    (cutting them out of the units moved other units' fields); only the item leaves them out.
    ``(start, start)`` when nothing is left."""
    starts = [s for s, _ in markup]

    def holding(at: int) -> tuple[int, int] | None:
        k = bisect.bisect_right(starts, at) - 1
        return markup[k] if k >= 0 and markup[k][0] <= at < markup[k][1] else None

    while start < end:
        while start < end and text[start].isspace():
            start += 1
        region = holding(start) if start < end else None
        label = _LABEL_LINE.match(text, start, end) if region is None else None
        if region is None and label is None:
            break
        start = min(region[1], end) if region is not None else label.end()
    while end > start:
        while end > start and text[end - 1].isspace():
            end -= 1
        region = holding(end - 1) if end > start else None
        if region is None:
            break
        end = max(region[0], start)
    if end <= start:
        return start, start
    for mark in ("**", "__"):
        # a bold over several sentences leaves its opening marks on the first item and its closing
        # ones on the last: an odd count at an edge is the other item's half
        if text.count(mark, start, end) % 2:
            if text.startswith(mark, start):
                start += len(mark)
                while start < end and text[start].isspace():
                    start += 1
            elif text.endswith(mark, start, end):
                end -= len(mark)
                while end > start and text[end - 1].isspace():
                    end -= 1
    return (after_time_cell(text, start, end), end) if end > start else (start, start)


def assign_units(doc: Doc, boilerplate: tuple[frozenset[str], int] | None = None) -> None:
    """Split ``doc`` into units and store them in ``doc.spans["units"]``.

    Reads the masked regions and the headings the sectionizer found; ``boilerplate`` lines
    (:func:`pmparse.nlp.boilerplate.load`) are masked too.
    """
    masked = doc.user_data.get("pmparse_masked", [])
    plain = doc.user_data.get("pmparse_format", "md") in ("txt", "pdf")  # a PDF's text is plain text
    skip = [(span.start_char, span.end_char) for span in doc.spans.get("headings", [])]
    spans = []
    for unit in segment(doc_text(doc), masked, skip, plain_text=plain, boilerplate=boilerplate):
        span = doc.char_span(unit.start, unit.end, label=unit.kind, alignment_mode="contract")
        if span is None or len(span) == 0:
            span = doc.char_span(unit.start, unit.end, label=unit.kind, alignment_mode="expand")
        if span is not None and len(span) > 0:
            spans.append(span)
    doc.spans["units"] = spans


@Language.factory("pmparse_units", assigns=["doc.spans"])
def make_units(nlp: Language, name: str):
    """Create the unit splitter component (it masks the packaged boilerplate lines).

    Raises:
        RulesError: the packaged boilerplate list is unreadable or invalid (when the pipeline is built).
    """
    boilerplate = load_boilerplate()

    def units(doc: Doc) -> Doc:
        assign_units(doc, boilerplate)
        return doc

    return units
