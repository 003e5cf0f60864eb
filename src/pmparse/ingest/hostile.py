"""Warnings about hostile or suspicious structure that ingest reads safely but would otherwise pass
over in silence: YAML aliases, merge keys and tags in front matter, a front matter block that is
never closed, and HTML that hides text, declares entities or redirects elsewhere.

Nothing here changes what is read: :mod:`pmparse.ingest.read` already reads only top-level scalars
of front matter (never expanding an alias, never building a tag) and only the main text of a page.
The warnings tell a curator why a card may hold less, or other words, than the file seems to say.
"""

from __future__ import annotations

import re

import yaml

#: A front matter opening whose next line reads like a YAML key: a block, not a thematic break.
_UNCLOSED = re.compile(r"\A\ufeff?---[ \t]*\r?\n(?:[ \t]*#[^\n]*\n)*[ \t]*[A-Za-z_][\w-]*[ \t]*:")
_ENTITY = re.compile(r"<!ENTITY\s", re.I)
_REFRESH = re.compile(r"<meta\b[^>]*http-equiv\s*=\s*[\"']?refresh", re.I)
_HIDDEN = re.compile(r"\bhidden\b|display\s*:\s*none|visibility\s*:\s*hidden", re.I)
#: Words a hidden element must hold before its text counts as planted (a lone icon label does not).
_HIDDEN_WORDS = 3
_HIDDEN_XPATH = ('//*[@hidden or @aria-hidden="true" or contains(translate(@style, " ", ""), "display:none") '
                 'or contains(translate(@style, " ", ""), "visibility:hidden")]')


#: YAML's own tags, whose values :func:`pmparse.ingest.read.parse_front_matter` reads (a list's
#: ``!!seq``, the block's ``!!map``).
_STANDARD_TAGS = frozenset({"str", "int", "float", "bool", "null", "timestamp", "seq", "map"})
_STANDARD_PREFIX = "tag:yaml.org,2002:"


def _read_tag(handle: str | None, suffix: str) -> bool:
    """Whether a tag is one whose value is read: YAML's own, as ``!!str`` or written out
    (``!<tag:yaml.org,2002:str>``), or the non-specific ``!`` (a plain string).

    Those were said to be ignored while their values were read.
    """
    if handle is None and suffix == "!":
        return True
    if handle == "!!":
        return suffix in _STANDARD_TAGS
    return handle is None and suffix.startswith(_STANDARD_PREFIX) and suffix[len(_STANDARD_PREFIX):] in _STANDARD_TAGS


def front_matter_warnings(block: str) -> list[str]:
    """Warnings about a front matter block that parsed (``---`` lines included).

    Aliases and merge keys are never expanded and tags never built (only top-level scalars are
    read), so a value given that way is ignored: the warning says so.
    """
    anchors = aliases = merges = 0
    tags: set[str] = set()
    try:
        for token in yaml.scan(block, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
            if isinstance(token, yaml.AnchorToken):
                anchors += 1
            elif isinstance(token, yaml.AliasToken):
                aliases += 1
            elif isinstance(token, yaml.TagToken):
                handle, suffix = token.value
                if not _read_tag(handle, suffix or ""):
                    tags.add((handle or "") + (suffix or ""))
            elif isinstance(token, yaml.ScalarToken) and token.value == "<<" and token.plain:
                merges += 1
    except yaml.YAMLError:
        return []  # read.parse_front_matter already warned
    out = []
    if aliases or merges:
        parts = [f"{aliases} alias(es)"] * bool(aliases) + [f"{merges} merge key(s)"] * bool(merges)
        out.append(f"front matter uses {' and '.join(parts)} (of {anchors} anchor(s)): not expanded, so the values "
                   "they stand for are ignored")
    if tags:
        shown = ", ".join(sorted(tags)[:3]) + (" ..." if len(tags) > 3 else "")
        out.append(f"front matter holds YAML tags pmparse never builds ({shown}): their values are ignored")
    return out


def unclosed_front_matter(text: str) -> str | None:
    """A warning when ``text`` opens a front matter block that no ``---`` line closes."""
    if _UNCLOSED.match(text):
        return "front matter opens on line 1 but no '---' line closes it: it is read as text"
    return None


def html_warnings(raw: str, extracted: str) -> list[str]:
    """Warnings about an HTML page whose main text was extracted as ``extracted``."""
    out = []
    if _ENTITY.search(raw):
        out.append("HTML declares its own entities (<!ENTITY>): they are not expanded")
    if _REFRESH.search(raw):
        out.append("HTML redirects elsewhere (meta refresh): its text may be a stub of the page it points to")
    if _HIDDEN.search(raw):
        hidden = _hidden_read(raw, " ".join(extracted.split()))
        if hidden:
            out.append(f"HTML hides {hidden} element(s) (hidden, display:none) whose text was read as the page's: "
                       "a reader of the page never sees those words; check the card")
    return out


def _hidden_read(raw: str, extracted: str) -> int:
    """How many hidden elements of ``raw`` hold a text that ``extracted`` (white space folded) says."""
    from lxml import etree
    from lxml import html as lxml_html  # trafilatura's own parser: installed with it

    try:
        tree = lxml_html.fromstring(raw.encode("utf-8"))
        elements = tree.xpath(_HIDDEN_XPATH)
    except (ValueError, etree.LxmlError):
        return 0
    count = 0
    for element in elements:
        words = " ".join(element.text_content().split())
        if len(words.split()) >= _HIDDEN_WORDS and words in extracted:
            count += 1
    return count


#: Elements whose content no reader sees as the page's text (counted out on both sides).
_UNSEEN = ("script", "style", "template", "noscript")
_UNSEEN_OPEN = re.compile(r"<(script|style|template|noscript)\b|<!--", re.I)
_TAG = re.compile(r"<[^>]*>")
_ENTITY_REF = re.compile(r"&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_WHITE = re.compile(r"\s+")

#: The parser kept less than this share of the visible text: it dropped part of the page.
_KEPT_SHARE = 0.5
#: ... and at least this many characters of it, so a tiny page's stray markup never counts.
_LOST_CHARS = 200


def visible_size(raw: str) -> int:
    """Characters of a page's visible text (white space aside), measured without an HTML parser:
    markup, comments, scripts and styles left out, an entity counted as the one character it is.

    A scan by hand, not a regular expression over whole elements: an unclosed ``<script>`` swallows
    the rest of the page as a browser's would, and the scan stays linear in the page's length.
    """
    lower = raw.lower()
    pieces, pos = [], 0
    while True:
        match = _UNSEEN_OPEN.search(raw, pos)
        if match is None:
            pieces.append(raw[pos:])
            break
        pieces.append(raw[pos:match.start()])
        closer = "-->" if match.group() == "<!--" else f"</{match.group(1).lower()}"
        end = lower.find(closer, match.end())
        if end < 0:
            break
        pos = end + len(closer)
        if closer != "-->":
            pos = lower.find(">", pos) + 1 or len(raw)  # past the end tag's closing bracket
    text = _ENTITY_REF.sub("x", _TAG.sub(" ", "".join(pieces)))
    return len(_WHITE.sub("", text))


def lost_html_text(raw: str) -> str | None:
    """Why the HTML parser (libxml2, under lxml and trafilatura) dropped much of a page's visible
    text, or None when it kept it.

    libxml2 stops at elements nested deeper than 255 levels and drops a text node over 10 MB
    (both lifted only by its "huge" option, which would let a hostile page use unbounded memory);
    what it drops never reaches the extractor, which then finds a near-empty page. The text the
    parser kept is compared with the visible text counted without it (:func:`visible_size`).
    """
    from lxml import etree
    from lxml import html as lxml_html

    # bytes, with the encoding named: lxml refuses a str that opens with an XML declaration, and
    # a page's own charset meta tag must not re-read text already decoded
    parser = lxml_html.HTMLParser(encoding="utf-8")
    try:
        tree = lxml_html.document_fromstring(raw.encode("utf-8", "replace"), parser=parser)
    except (ValueError, etree.LxmlError):
        return None  # the extraction reports markup that does not parse
    limits = " ".join(e.message for e in parser.error_log if e.type_name == "ERR_RESOURCE_LIMIT")
    etree.strip_elements(tree, *_UNSEEN, with_tail=False)
    kept = len(_WHITE.sub("", tree.text_content()))
    visible = visible_size(raw)
    if visible - kept < _LOST_CHARS or kept >= visible * _KEPT_SHARE:
        return None
    if "depth" in limits:
        reason = "elements nested deeper than the parser's limit of 255 levels"
    elif limits:
        reason = "a text node larger than the parser's limit of 10 MB"
    else:
        reason = "markup the parser could not read"
    return (f"expected HTML whose visible text the parser reads, found {visible:,} characters of visible text "
            f"of which it kept {kept:,}: {reason} (the rest would be lost without a word)")
