"""What ``pmparse resolve`` did: one :class:`Resolution` per conflicted record, and the run's
:class:`ResolveReport`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Outcome = Literal["split", "same source", "untold", "refused"]


@dataclass
class Resolution:
    """What ``resolve`` did with one conflicted record.

    Attributes:
        card_id: The conflicted record's id.
        outcome: ``split`` (ours kept, theirs moved to ``new_id``), ``same source`` (a real edit
            conflict, left alone), ``untold`` (the markers alone cannot tell whether the sides are
            of one source, left alone) or ``refused`` (markers or sides that cannot be read, or a
            rejection memory or draft decisions whose merge would be too large to read back: left alone).
        new_id: The id theirs got, for ``split``.
        message: One line saying what was done, or why not.
    """

    card_id: str
    outcome: Outcome
    new_id: str | None = None
    message: str = ""


@dataclass
class ResolveReport:
    """Every conflicted record's :class:`Resolution`; the state files holding conflict markers
    whose record holds none (a base both sides changed: a person's to settle); one line for each
    rejection memory or draft decisions both sides added to whose record holds none (both sides'
    kept); and one line for each file left for a person with what to do (a draft field both sides
    decided differently or each gave a value of its own, draft decisions a record reviewed on the
    other side does not follow, the library's model, its anchor)."""

    records: list[Resolution] = field(default_factory=list)
    unsettled: list[str] = field(default_factory=list)
    merged: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
