"""Values that are never an organisation: weekdays, months, roles, heading words, file names, and
tools a team works in unless the source says it is theirs (``resources/not_organisations.yaml``).

Every organisation rule and the candidate ranker ask :func:`refused` before offering a value: a
card naming "Monday", "Security" or the team's chat tool as its publisher is worse than a card
naming none.
"""

from __future__ import annotations

import functools
import re

from pmparse.rules.taxonomy import load_not_organisations

#: Origins that state the publisher outright: a tool's name is its publisher only from these.
STATED = ("front_matter", "url", "self_reference", "setting", "batch")
#: A value shaped like a file name: a file extension (a "/", a "\\", an "_" or a leading
#: "20150527-" marks one too: no publisher writes its name so).
_FILE_NAME = re.compile(r"\S+\.(?:md|markdown|txt|html?|qmd|erb|rst|ya?ml|json|log|pdf|py)", re.IGNORECASE)
_FILE_MARK = re.compile(r"[/\\_]|^\d{6,}-")
# the look-behind starts a match only at a run of white space's first character: linear time
_TEAM = re.compile(r"(?<!\s)\s+(?:team|teams|group|crew|rotation)$", re.IGNORECASE)


@functools.lru_cache(maxsize=1)
def _words() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    data = load_not_organisations()
    calendar = frozenset(w.casefold().rstrip(".") for w in [*data.weekdays, *data.months])
    common = frozenset(w.casefold() for w in [*data.roles, *data.heading_words]) | calendar
    tools = frozenset(w.casefold() for w in data.tools)
    return calendar, common, tools


def refused(value: str | None, origin: str = "text") -> str | None:
    """Why ``value`` cannot be an organisation, or None when it can.

    Args:
        value: The candidate name.
        origin: The rule that found it; a tool's name is accepted only from :data:`STATED` origins.

    Returns:
        A short reason ("weekday or month", "role or heading word", "file name", "tool"), or None.
    """
    if value is None:
        return None
    name = " ".join(str(value).split())
    folded = name.casefold().strip(" .,:;!?'\"`*_()[]")
    if not folded or not re.search(r"[^\W\d_]", folded):
        return "no letters"
    calendar, common, tools = _words()
    first = folded.split()[0].rstrip(".,")
    if first in calendar:
        return "weekday or month"
    if folded in common or _TEAM.sub("", folded) in common:
        return "role or heading word"
    if _FILE_NAME.fullmatch(name) or _FILE_MARK.search(name):
        return "file name"
    if folded in tools and origin not in STATED:
        return "tool"
    return None
