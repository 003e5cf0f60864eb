"""The source text with each item's evidence marked: one ``<mark>`` per stretch, coloured by field.

Evidence stretches overlap (a root-cause item and the category it supports cite the same words),
and HTML elements must nest, so the text is cut at every start and end of a stretch and each piece
gets one mark: coloured by the first field in :data:`~pmparse.site.html.MARKED_FIELDS` order that
covers it, titled with every field that does. An empty anchor before the piece where a stretch
starts is what an item's evidence link points to.
"""

from __future__ import annotations

from dataclasses import dataclass

from pmparse.site.html import FIELD_LABELS, MARKED_FIELDS, esc

_RANK = {name: rank for rank, name in enumerate(MARKED_FIELDS)}


@dataclass(frozen=True)
class Span:
    """One evidence stretch to mark.

    Attributes:
        start: Offset of its first character in the source text.
        end: Offset one past its last character.
        field: The card field it is evidence of (``root_cause``, ``components``).
        anchor: The id its links point to (unique on the page).
        pending: True for the evidence of a suggestion still waiting for review.
    """

    start: int
    end: int
    field: str
    anchor: str
    pending: bool = False


def _rank(span: Span) -> tuple[int, int]:
    # a reviewed (or current) value's colour wins over a pending suggestion's
    return (int(span.pending), _RANK.get(span.field, len(_RANK)))


def usable(spans: list[Span], length: int) -> tuple[list[Span], list[Span]]:
    """``(inside, outside)``: the spans that fit a text of ``length`` characters, and the others."""
    fits = [0 <= s.start < s.end <= length for s in spans]
    return [s for s, ok in zip(spans, fits) if ok], [s for s, ok in zip(spans, fits) if not ok]


def highlight(text: str, spans: list[Span]) -> str:
    """``text`` as escaped HTML with every span marked (spans outside the text are left out)."""
    spans, _ = usable(spans, len(text))
    cuts = sorted({0, len(text)} | {s.start for s in spans} | {s.end for s in spans})
    starting: dict[int, list[Span]] = {}
    for span in spans:
        starting.setdefault(span.start, []).append(span)
    parts: list[str] = []
    active: list[Span] = []
    for left, right in zip(cuts, cuts[1:]):
        active = [s for s in active if s.end > left] + sorted(starting.get(left, []), key=lambda s: s.anchor)
        for span in sorted(starting.get(left, []), key=lambda s: s.anchor):
            parts.append(f'<span class="anchor" id="{esc(span.anchor)}"></span>')
        piece = esc(text[left:right])
        if not active:
            parts.append(piece)
            continue
        top = min(active, key=_rank)
        names = sorted({s.field for s in active}, key=lambda f: _RANK.get(f, len(_RANK)))
        title = ", ".join(FIELD_LABELS.get(f, f) for f in names)
        if any(s.pending for s in active) and not all(s.pending for s in active):
            title += " (and a pending suggestion)"
        elif all(s.pending for s in active):
            title += " (pending suggestion)"
        css = f"f-{top.field}" + (" pending" if top.pending else "")
        parts.append(f'<mark class="{esc(css)}" title="{esc(title)}">{piece}</mark>')
    return "".join(parts)
