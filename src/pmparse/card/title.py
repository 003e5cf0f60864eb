"""Card titles: one line saying who, what failed, for how long and why.

The title is built only from the card's own facts and tags, so it never claims more than the
card: no duration unless the card has one, no cause unless it has a root-cause category, and
"cause not disclosed" only when the card says so (the ``unknown`` category).
"""

from __future__ import annotations

from typing import Mapping

from pmparse.card.schema import Card

MAX_LENGTH = 160
UNKNOWN = "unknown"


def format_minutes(minutes: int) -> str:
    """A duration in words: ``110`` -> ``"1 hour 50 minutes"``, ``2880`` -> ``"2 days"``."""
    days, rest = divmod(int(minutes), 1440)
    hours, mins = divmod(rest, 60)
    parts = []
    for value, unit in ((days, "day"), (hours, "hour"), (mins, "minute")):
        if value:
            parts.append(f"{value} {unit}{'s' if value != 1 else ''}")
    if days:
        # "3 days 4 hours 12 minutes" says more than a title needs
        parts = parts[:2]
    return " ".join(parts) if parts else "under a minute"


#: The facts a built title may say: who, when (a title without components) and how long.
RESTATED_FACTS = ("organisation", "date", "duration_minutes")


def restates(title: str | None, name: str, value: object) -> bool:
    """True when ``title`` says the fact ``name`` with ``value`` the way :func:`make_title` does
    (``"lasting 31 minutes"``, ``"incident of 2024-03-03"``, the organisation opening it)."""
    if not title or value in (None, ""):
        return False
    if name == "duration_minutes":
        return f"lasting {format_minutes(int(value))}" in title  # type: ignore[call-overload]
    if name == "date":
        return f" of {value}" in title
    if name == "organisation":
        return title == value or title.startswith(f"{value} ")
    return False


def shorten(text: str, max_length: int = MAX_LENGTH) -> str:
    """``text`` cut at a word boundary to at most ``max_length`` characters, marked with an ellipsis."""
    if len(text) <= max_length:
        return text
    cut = text[:max_length - 1].rsplit(" ", 1)[0].rstrip(" ,;:-")
    return cut + "…"


def _join(words: list[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def by_confidence(card: Card, group: str, ids: list[str]) -> list[str]:
    """``ids`` of a tag group (``components``, ``root_cause_categories``...), most confident first;
    ties keep the card's order."""
    def confidence(taxon: str) -> float:
        support = card.support.get(f"{group}.{taxon}")
        return support.confidence if support else 0.0

    return sorted(ids, key=lambda t: -confidence(t))


def make_title(card: Card, names: Mapping[str, str] | None = None, phrases: Mapping[str, str] | None = None,
               max_length: int = MAX_LENGTH) -> str | None:
    """The card's title, e.g. "GoCardless Database and Database failover manager incident lasting
    1 hour 50 minutes, caused by a hardware failure".

    Args:
        card: The card (facts and tags already set).
        names: Display names keyed ``group.id`` (the taxonomy's); the id when missing.
        phrases: How a title says a root-cause category, keyed ``group.id`` ("a hardware failure").
        max_length: Longest title; components beyond the first are dropped to fit, then the cause,
            then the words past the limit (marked with an ellipsis).

    Returns:
        The title, or None when the card has nothing to say (no organisation, component, duration
        or root-cause category).
    """
    names = names or {}
    phrases = phrases or {}
    who = card.organisation
    components = [names.get(f"components.{c}", c.replace("_", " ")) for c in by_confidence(card, "components", card.components)]
    causes = by_confidence(card, "root_cause_categories", [c for c in card.root_cause_categories if c != UNKNOWN])
    why_words = [phrases.get(f"root_cause_categories.{c}", names.get(f"root_cause_categories.{c}", c.replace("_", " ")).lower())
                 for c in causes]
    undisclosed = not causes and UNKNOWN in card.root_cause_categories
    how_long = format_minutes(card.duration_minutes) if card.duration_minutes else None
    if not (who or components or how_long or why_words or undisclosed):
        return None

    def build(n_components: int, n_causes: int) -> str:
        what = _join(components[:n_components])
        head = " ".join(part for part in (who, what, "incident") if part)
        if not who and not what and card.date:
            head += f" of {card.date}"
        elif who and not what and not how_long and not why_words and card.date:
            head += f" of {card.date}"
        # an organisation keeps its own spelling ("mybinder.org"); a component name starts the line
        text = head if who else head[0].upper() + head[1:]
        if how_long:
            text += f" lasting {how_long}"
        if why_words[:n_causes]:
            text += (", caused by " if how_long else " caused by ") + _join(why_words[:n_causes])
        elif undisclosed:
            text += ", cause not disclosed"
        return text

    # the most confident cause only: the card lists the others
    for n_components in range(min(3, len(components)), -1, -1):
        for n_causes in range(min(1, len(why_words)), 0 if why_words else -1, -1):
            title = build(n_components, n_causes)
            if len(title) <= max_length:
                return title
    # nothing fits: the cause clause goes first (cut inside it, the title would end on "," or "caused
    # by"), then the line is cut at a word with an ellipsis, never on dangling punctuation
    title = build(0, 0)
    return title if len(title) <= max_length else shorten(title, max_length)
