"""Carry character offsets of a raw HTML page over to the text extracted from it.

Gold and training annotations of an HTML page index the page's markup (annotators read the file),
while the pipeline's evidence indexes the extracted text. To score or learn from such a page, each
annotated stretch is carried over word by word: every word of the extracted text is found in the
page's visible text (markup blanked out), in order, and a stretch becomes the extracted words
whose page position lies inside it.

Words the page spells differently (an accented letter written as an entity) are not found and are
left out; boilerplate the extractor dropped is skipped over, because the search only moves forward.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"\w+")
# comments, script and style bodies, then any tag: blanked (same length) so offsets keep
_MARKUP = re.compile(r"<!--.*?-->|<(script|style)\b.*?</\1\s*>|<[^>]*>", re.DOTALL | re.IGNORECASE)
#: How far past the last word found the next one is looked for (characters of the page).
WINDOW = 20_000


def visible(raw: str) -> str:
    """``raw`` with comments, scripts, styles and tags replaced by spaces (offsets unchanged)."""
    return _MARKUP.sub(lambda m: " " * (m.end() - m.start()), raw)


def word_anchors(raw: str, extracted: str, window: int = WINDOW) -> list[tuple[int, int, int]]:
    """``(extracted start, extracted end, raw start)`` of each extracted word found in the page, in order.

    Args:
        raw: The page as annotated.
        extracted: The text extracted from it.
        window: Characters of the page searched past the previous word found.
    """
    page = visible(raw)
    anchors = []
    position = 0
    for match in _WORD.finditer(extracted):
        word = match.group()
        pattern = re.compile(r"(?<!\w)" + re.escape(word) + r"(?!\w)")
        found = pattern.search(page, position, min(len(page), position + window + len(word)))
        if found is None:
            continue
        anchors.append((match.start(), match.end(), found.start()))
        position = found.end()
    return anchors


def project(anchors: list[tuple[int, int, int]], start: int, end: int) -> tuple[int, int] | None:
    """The extracted stretch whose words lie at page offsets ``start`` to ``end``; None when no word does."""
    inside = [(a, b) for a, b, at in anchors if start <= at < end]
    if not inside:
        return None
    return inside[0][0], inside[-1][1]


def project_spans(raw: str, extracted: str,
                  spans: dict[str, list[tuple[int, int]]]) -> dict[str, list[tuple[int, int]]]:
    """Stretches per field, given as page offsets, as offsets of the extracted text (empty ones dropped)."""
    anchors = word_anchors(raw, extracted)
    out: dict[str, list[tuple[int, int]]] = {}
    for name, stretches in spans.items():
        carried = [project(anchors, a, b) for a, b in stretches]
        out[name] = [s for s in carried if s is not None]
    return out
