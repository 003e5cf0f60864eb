"""Postmortems the team wrote itself, with their fields marked by their writers (issue 21).

A marked-up source (``corpus/written/*.md``) holds several made-up postmortems, each opened by a
line ``=== written: <slug> ===``. Inside a document a field's stretch is wrapped in short tags,
``{rc}The pool size was read per process.{/rc}``; tags of different fields may nest (a sentence
that is both trigger and root cause), a tag never crosses a document. :func:`parse_source` turns a
source into plain texts and character offsets; :func:`build_rows` makes lines of the gold shape
(:class:`~pmparse.evaluation.gold.GoldDoc`, inline ``text`` because the team wrote it, source
``written``). These lines are training text only: never gold, never held out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from pmparse.card.schema import TEXT_FIELDS
from pmparse.errors import GoldError
from pmparse.util import sha256_text

SOURCE = "written"

#: Tag of each field in the markup.
TAGS = {"sy": "symptoms", "tr": "trigger", "rc": "root_cause", "cf": "contributing_factors",
        "de": "detection", "re": "remediation", "ai": "action_items", "le": "lessons"}

_SEPARATOR = re.compile(r"^=== written: ([a-z0-9][a-z0-9-]*) ===[ \t]*$", re.MULTILINE)
_TAG = re.compile(r"\{(/?)([a-z]{2})\}")


@dataclass
class WrittenDoc:
    """One written postmortem: its plain text and its fields' stretches."""

    slug: str
    text: str
    spans: list[tuple[str, int, int]] = field(default_factory=list)


def parse_document(marked: str, where: str) -> WrittenDoc:
    """Plain text and stretches of one marked-up document (``where`` names it in errors).

    Raises:
        GoldError: an unknown tag, a closing tag that closes nothing open, a field opened twice,
            a tag left open, or an empty stretch.
    """
    out: list[str] = []
    length = 0
    cursor = 0
    open_at: dict[str, int] = {}
    spans: list[tuple[str, int, int]] = []
    for match in _TAG.finditer(marked):
        closing, tag = match.group(1) == "/", match.group(2)
        if tag not in TAGS:
            raise GoldError(f"expected a field tag ({', '.join(TAGS)}), found {{{match.group(0)[1:-1]}}}", where)
        piece = marked[cursor:match.start()]
        out.append(piece)
        length += len(piece)
        cursor = match.end()
        name = TAGS[tag]
        if not closing:
            if name in open_at:
                raise GoldError(f"expected {{/{tag}}} before another {{{tag}}}, found it opened twice", where)
            open_at[name] = length
            continue
        if name not in open_at:
            raise GoldError(f"expected an open {{{tag}}} before {{/{tag}}}, found none", where)
        start = open_at.pop(name)
        text_so_far = "".join(out)
        # the stretch never starts or ends on whitespace, as an annotator's quote would not
        end = length
        while start < end and text_so_far[start].isspace():
            start += 1
        while end > start and text_so_far[end - 1].isspace():
            end -= 1
        if end <= start:
            raise GoldError(f"expected words inside {{{tag}}}...{{/{tag}}}, found an empty stretch", where)
        spans.append((name, start, end))
    if open_at:
        raise GoldError(f"expected every tag closed, found {sorted(open_at)} left open", where)
    out.append(marked[cursor:])
    text = "".join(out)
    return WrittenDoc("", text, sorted(spans, key=lambda s: (s[1], s[2], s[0])))


def parse_source(marked: str, where: str) -> list[WrittenDoc]:
    """The documents of one marked-up source file (text before the first separator is ignored).

    Raises:
        GoldError: no separator, a slug used twice, or a document :func:`parse_document` refuses.
    """
    heads = list(_SEPARATOR.finditer(marked))
    if not heads:
        raise GoldError("expected documents opened by '=== written: <slug> ===' lines, found none", where)
    docs, seen = [], set()
    for i, head in enumerate(heads):
        slug = head.group(1)
        if slug in seen:
            raise GoldError(f"expected each slug once, found {slug!r} twice", where)
        seen.add(slug)
        body = marked[head.end():heads[i + 1].start() if i + 1 < len(heads) else len(marked)]
        doc = parse_document(body.strip("\n") + "\n", f"{where}#{slug}")
        doc.slug = slug
        docs.append(doc)
    return docs


def build_rows(folder: Path, annotator: str = "w1") -> list[dict]:
    """Gold-shaped lines of every document of ``folder``'s ``*.md`` sources, sorted by file.

    Ids are ``written/<file stem>/<slug>``; all eight fields are annotated (a field a document
    does not state has no spans).
    """
    rows = []
    for path in sorted(Path(folder).glob("*.md")):
        if path.name.lower() == "readme.md":
            continue
        for doc in parse_source(path.read_text(encoding="utf-8"), str(path)):
            rows.append({"id": f"{SOURCE}/{path.stem}/{doc.slug}", "text": doc.text, "sha256": sha256_text(doc.text),
                         "annotated": list(TEXT_FIELDS),
                         "spans": [{"field": name, "start": start, "end": end} for name, start, end in doc.spans],
                         "annotator": annotator})
    return rows
