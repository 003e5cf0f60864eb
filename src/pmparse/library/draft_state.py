"""A draft's decisions file (``LIBRARY/.pmparse/drafts/IL-0001.json``): its format, and which of
its decisions a record marked reviewed does not follow.

``review --drafts`` writes it (:mod:`pmparse.review.drafts`) and removes it when the draft is
finished; a reviewed record with such a file beside it is what a git merge (one curator finished
the draft, the other decided some of its fields) or a draft finished by hand leaves. ``resolve``
removes one the record follows and names one it does not; ``validate`` names the latter too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pmparse.card.schema import Card
from pmparse.library.records import card_data
from pmparse.library.statefiles import regular_text

#: The state folder of drafts partly decided (``LIBRARY/.pmparse/drafts/``).
DRAFTS = "drafts"

DraftDecision = Literal["kept", "dropped", "edited", "items"]


class DraftField(BaseModel):
    """One field of a draft a person decided."""

    model_config = ConfigDict(extra="forbid")
    decision: DraftDecision = Field(description="Kept as suggested, dropped, edited, or decided item by item.")
    by: str = Field(description="Reviewer.")
    at: str = Field(description="ISO 8601 time of the decision.")


class DraftState(BaseModel):
    """What a person decided of a draft whose other fields are still open (``.pmparse/drafts/IL-0001.json``)."""

    model_config = ConfigDict(extra="forbid")
    version: Literal[1] = Field(default=1, description="Version of this file's format.")
    sha256: str = Field(description="sha256 of the source text the draft was read from.")
    decided: dict[str, DraftField] = Field(default_factory=dict, description="Decided fields, by name.")


def read_draft_state(path: Path) -> DraftState | None:
    """The draft decisions in ``path``, or None when there are none (or the file is not read as
    draft decisions: missing, a link, not JSON, not of this format).

    Raises:
        StateFileError: the file is larger than pmparse reads back (named, with its size).
    """
    text = regular_text(path)
    if text is None:
        return None
    try:
        return DraftState.model_validate_json(text)
    except ValidationError:
        return None


def unfollowed(card: Card, made: Card, state: DraftState) -> list[tuple[str, DraftField]] | None:
    """The decisions of ``state`` the reviewed record ``card`` does not follow, in the file's
    order; ``made`` is the draft as pmparse made it (the record's base). An empty list: every
    decision is followed, the file is a finished draft's leftover. None when they cannot be
    compared: the record is not marked reviewed, or the decisions, the draft and the record are
    not all of one source text (a decision is asked only of the text it was made on).

    What can be told is limited to the record's value against the draft's: a field kept must
    still hold the draft's value, one dropped nothing, one edited or decided item by item another
    value than the draft's.
    """
    if card.status != "reviewed" or not state.sha256 == made.source.sha256 == card.source.sha256:
        return None
    record, draft = card_data(card), card_data(made)
    return [(name, field) for name, field in state.decided.items()
            if name in record and not follows(field.decision, record[name], draft[name])]


def follows(decision: str, value, drafted) -> bool:
    """Whether a record's field ``value`` is what a draft ``decision`` of it left (``drafted``:
    the draft's value)."""
    if decision == "kept":
        return value == drafted
    if decision == "dropped":
        return value in (None, [])
    return value != drafted  # edited, or decided item by item: the curator's own value


#: What a record holds that a decision does not leave, by decision.
_INSTEAD = {"kept": "no longer holds the draft's value", "dropped": "holds a value",
            "edited": "holds the draft's value", "items": "holds the draft's value"}


def disagreement(field: DraftField) -> str:
    """How a record disagrees with a decision it does not follow, in words
    (``kept by ann, but the record no longer holds the draft's value``)."""
    return f"{field.decision} by {field.by}, but the record {_INSTEAD[field.decision]}"
