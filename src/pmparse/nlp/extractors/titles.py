"""The document's own title: front matter, a wiki print's page name, or its first heading.

Pure functions over strings; :mod:`pmparse.nlp.components.facts` calls them.
"""

from __future__ import annotations

import re

from pmparse.rules.cues import load_cues

_TITLE_KEYS = ("title", "name")


#: The name of a printed wiki incident page, "Incident documentation/<date>-<name>".
PAGE_NAME = re.compile(r"\W*incident\s+documentation\s*/", re.IGNORECASE)
#: Most words of a footer line taken for page chrome ("Privacy policy", "Terms of Use").
_FOOTER_WORDS = 4


def _footer_line(line: str, title: str) -> bool:
    """Whether an unmarked first line of a few words is page chrome (not a wiki page's name)."""
    if line.startswith(("#", "=")) or len(title.split()) > _FOOTER_WORDS or PAGE_NAME.match(title):
        return False
    return load_cues().is_chrome(title)


#: A wiki print's page name on a line of its own, among the page chrome above the body.
PAGE_NAME_LINE = re.compile(r"^[ \t]*(incident\s+documentation\s*/[^\n]{1,200}?)[ \t]*$", re.IGNORECASE | re.MULTILINE)
#: A line that is only an HTML comment (a spell-checker's word list above a catalogue entry).
_COMMENT_LINE = re.compile(r"[ \t]*<!--[\s\S]{0,2000}?-->[ \t]*(?:\r?\n|$)")
#: A heading that only labels the title written under it ("# Title:").
_TITLE_LABEL = re.compile(r"(?:title|subject)\s*:?", re.IGNORECASE)
#: A line labelled as the title ("Title: Queue stalled").
_TITLE_LABELLED = re.compile(r"(?:title|subject)\s*:\s*(?=\S)", re.IGNORECASE)
#: A line giving a report's metadata, not its title ("Owner: @someone", "## Owner: @someone").
_META_LINE = re.compile(r"(?:owner|authors?|written by|date|status|severity|reporter|reported by|editor|"
                        r"participants|incident commander|draft|last updated)\s*:", re.IGNORECASE)
_LINE = re.compile(r"\S[^\n]{0,200}")
_HEADING = re.compile(r"^(?:#{1,6}\s+|=+\s*)?(.+?)(?:\s*=+)?\s*$")
#: Shortest unmarked line taken for the first line of a hard-wrapped paragraph when the next line
#: goes on with the sentence (titles are shorter; wrapped prose fills 60-100 columns).
_WRAPPED = 60
#: The next line continuing the sentence: no blank line, a lower-case word that is no byline nor
#: a metadata label ("owner: ...", "organisation: ...").
_WRAP_GOES_ON = re.compile(r"\r?\n[ \t]*(?!(?:by|posted|written|published|updated|last)\b|[a-z_-]+[ \t]*:)[a-z]")
#: An unmarked line that reads as a sentence of the body, not a title: it opens like a sentence
#: ("Upon ...", "At `2031-04-20 19:48` this ...", "We ..."), ends like one, or is long.
_SENTENCE_OPENER = re.compile(r"(?:upon|at|on|in|during|after|before|when|while|whilst|we|our|this|these|there|it|"
                              r"today|yesterday|earlier|recently|as|because|due|since|following|around|about|"
                              r"shortly|starting|beginning|from|between|several|some|all|several|one|a|an|the)\b",
                              re.IGNORECASE)
#: Most words of an unmarked title (a heading may be longer).
_UNMARKED_WORDS = 14
#: Most words of an unmarked title standing alone above a blank line, without a stop at its end.
_UNMARKED_WORDS_ALONE = 20
#: A blank line right under a line.
_ALONE = re.compile(r"[ \t]*\n[ \t]*(?:\n|$)")
#: Lines looked at for a title below page chrome and comments.
_TITLE_LINES = 6
# in capitals only a template's own words come before the field's name: any capital words did,
# and a real title in capitals about a name ("EXPIRED DOMAIN NAME") was taken for a field
_FIELD_WORDS = (r"(?:INSERT|ENTER|ADD|PUT|YOUR|THE|SHORT|ISSUE|INCIDENT|EVENT|OUTAGE|PROBLEM|POST-?MORTEM|REPORT"
                r"|DOCUMENT|PAGE|TITLE|NAME)")
#: A template's title field left unfilled: words in capitals naming the field ("ISSUE NAME",
#: "INCIDENT TITLE"), a bracketed field ("[Incident name]", "<title>"), a template variable
#: ("{{ title }}") or a to-do mark ("TBD"). It names no incident, so it is no author's title.
PLACEHOLDER = re.compile(r"[\[<(]?\s*(?:" + _FIELD_WORDS + r"\s+){0,3}(?:NAME|TITLE|HERE)\s*[\]>)]?"
                         r"|\[[^\]\n]{0,40}\b(?i:name|title|here)\s*\]|<[^>\n]{0,40}\b(?i:name|title|here)\s*>"
                         r"|\{\{[^}\n]{1,40}\}\}|(?i:tbd|todo|tba|placeholder|untitled)\W*")


def is_placeholder(title: str) -> bool:
    """Whether ``title`` is a template's unfilled title field ("ISSUE NAME", "[Incident title]")."""
    return PLACEHOLDER.fullmatch(" ".join(title.replace("*", " ").replace("_", " ").split())) is not None


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
    ("Incident documentation/20990101-Queue") wherever it stands among the chrome above the body,
    with the line it wrapped onto when the print cut it (:func:`page_name`). A template's unfilled
    title field ("# ISSUE NAME", "title: [Incident name]") is no title (:func:`is_placeholder`).

    Returns:
        ``(title, evidence)`` or None. A front-matter title's evidence is its value in the front
        matter and, when the body's first heading repeats it, that heading too.
    """
    front = front or {}
    for key in _TITLE_KEYS:
        if front.get(key) and not is_placeholder(str(front[key])):
            value = str(front[key])
            evidence = locate(text, value, region)
            first = first_line(text, body_start)
            if first is not None and " ".join(first[0].split()) == " ".join(value.split()):
                evidence.append(first[1])
            return value, evidence
    page = PAGE_NAME_LINE.search(text, body_start, min(len(text), body_start + 4000))
    if page is not None:
        return page_name(text, page)
    first = first_line(text, body_start)
    return (first[0], [first[1]]) if first is not None else None


#: A page name cut where the printed page wrapped it: it stops on a hyphen or slash inside a word
#: ("20990101-Queue-"), on a word no name ends on ("... and") or inside a parenthesis.
_NAME_CUT = re.compile(r"(?:[-/]|\b(?i:and|or|of|the|a|an|for|in|on|to|with|from|by|at))$")
#: The rest of a wrapped page name: the next line, short and not blank.
_NAME_REST = re.compile(r"\r?\n[ \t]*(\S[^\n]{0,79}?)[ \t]*(?:\r?\n|$)")


def page_name(text: str, page: re.Match) -> tuple[str, list[tuple[int, int]]]:
    """A wiki print's page name (:data:`PAGE_NAME_LINE`'s match), with the line it wrapped onto
    when the name is cut (:data:`_NAME_CUT`, or a parenthesis left open): a name ending on
    "20990101-" or "(Queue and" is half a title. A name cut after a hyphen goes on without a
    space ("20990101-" and "QueueStall" are "20990101-QueueStall")."""
    name, (start, end) = page.group(1), page.span(1)
    if not (_NAME_CUT.search(name) or name.count("(") > name.count(")")):
        return name, [(start, end)]
    rest = _NAME_REST.match(text, end)
    if rest is None:
        return name, [(start, end)]
    glue = "" if name.endswith(("-", "/")) else " "
    return name + glue + rest.group(1), [(start, rest.end(1))]


def first_line(text: str, body_start: int) -> tuple[str, tuple[int, int]] | None:
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
        elif _footer_line(line, title) or load_headings().is_known(title) or _META_LINE.match(title) or (
                not marked and "://" in title) or is_placeholder(title):
            # a metadata line is no title even marked as a heading: a template's "## Owner: @x"
            return None
        elif not marked and len(line) >= _WRAPPED and _WRAP_GOES_ON.match(text, match.end()):
            # the first line of a paragraph hard-wrapped mid-sentence ("... for most of the\nworking
            # day"): the document opens with its body
            return None
        elif not marked and _reads_as_sentence(title, _ALONE.match(text, match.end()) is not None):
            return None
        return title, (offset, offset + len(title))
    return None


def _reads_as_sentence(line: str, alone: bool = False) -> bool:
    """Whether an unmarked first line is a sentence of the body: it opens with a lower-case word,
    a clock time in code or a sentence opener followed by a clause, ends with a full stop after
    several words, or is longer than a title. A line standing alone (a blank line under it) and
    ending without a stop may be a longer title ("Summary of the Zorbq Queue Service Event in the
    Western (WEST-2) Region", 16 words)."""
    words = line.split()
    if not words or words[0][0].islower() or "`" in line:
        return True
    longest = _UNMARKED_WORDS_ALONE if alone and not line.rstrip().endswith((".", ",", ";", ":")) else _UNMARKED_WORDS
    if len(words) > longest or (len(words) >= 6 and line.rstrip().endswith((".", ",", ";"))):
        return True
    # "On 2031-03-02 the queue stalled": an opener, then a clause of five words or more
    return _SENTENCE_OPENER.match(line) is not None and len(words) >= 6 and re.search(
        r"\b(?:was|were|is|are|had|has|have|did|saw|noticed|occur+ed|happened|began|started|encounter\w*|"
        r"this|we|our|it)\b", " ".join(words[1:]), re.IGNORECASE) is not None


def locate(text: str, value: str, region: tuple[int, int] | None) -> list[tuple[int, int]]:
    """Offsets of ``value`` inside ``region`` of the text, for evidence."""
    if region is None or not value:
        return []
    start = text.find(value, region[0], region[1])
    return [(start, start + len(value))] if start >= 0 else []
