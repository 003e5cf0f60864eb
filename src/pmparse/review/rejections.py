"""What a reviewer turned down, remembered per record so ``convert`` does not propose it again.

A rejection (``LIBRARY/.pmparse/rejected/IL-0001.json``) is keyed by the source's sha256, the model
that made the suggestion, the field and a hash of the suggested value (and of its words without
confidences); :func:`rejected_check` answers whether a new suggestion is one of them.
"""

from __future__ import annotations

from typing import Any, Callable, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pmparse.card.schema import Card
from pmparse.errors import RecordError
from pmparse.library.records import card_data
from pmparse.library.statefiles import regular_text, state_fits
from pmparse.library.store import Library
from pmparse.review.compare import is_items, item_key, value_hash, without_confidences
from pmparse.util import atomic_write


class Rejection(BaseModel):
    """A suggestion a person turned down (or replaced by an edit of their own)."""

    model_config = ConfigDict(extra="forbid")
    sha256: str = Field(description="sha256 of the source text the suggestion was made from.")
    model: str = Field(description="pmparse version and field model that made it, e.g. '0.1.0/rules'.")
    field: str = Field(description="The card field.")
    value_sha256: str = Field(description="sha256 of the suggested value in canonical JSON.")
    words_sha256: str | None = Field(
        default=None,
        description="sha256 of the value without its confidences (a text field's items: their words and evidence), "
                    "so the same words suggested again with another confidence (a retrained model) stay rejected. "
                    "Absent in memories written before it existed.")
    items_sha256: list[str] | None = Field(
        default=None,
        description="For a text field: sha256 of each item the turned-down value proposed that the record did not "
                    "hold (words, evidence and origin; pmparse.review.compare.item_key), so such an item is not "
                    "proposed again inside another value of the field. Absent in memories written before it existed.")
    decision: Literal["rejected", "edited"] = Field(description="Rejected, or replaced by the reviewer's edit.")
    by: str = Field(description="Reviewer.")
    at: str = Field(description="ISO 8601 time of the decision.")


class Rejections(BaseModel):
    """The rejection memory of one record (``LIBRARY/.pmparse/rejected/IL-0001.json``)."""

    model_config = ConfigDict(extra="forbid")
    version: Literal[1] = Field(default=1, description="Version of this file's format.")
    rejected: list[Rejection] = Field(default_factory=list, description="Rejected suggestions, oldest first.")


def model_version(card: Card) -> str:
    """What made a suggestion, as a rejection remembers it: pmparse version and field model."""
    return f"{card.pipeline.version}/{card.pipeline.model or 'rules'}"


def load_rejections(library: Library, card_id: str) -> Rejections:
    """The rejection memory of a record (empty when there is none).

    Raises:
        RecordError: the file exists but is not a valid rejection memory.
    """
    path = library.state_path("rejected", card_id)
    if not path.is_file():
        return Rejections()
    text = regular_text(path)
    try:
        if text is None:
            raise ValueError("a file that is not readable UTF-8 text")
        return Rejections.model_validate_json(text)
    except (ValueError, ValidationError) as exc:
        raise RecordError(f"expected a rejection memory (version, rejected), found: {exc}", str(path)) from exc


def model_family(version: str) -> str:
    """A :func:`model_version` without its library suffix: a library's own model
    (``pmparse-units-v3+lib.1a2b3c4d``, ``pmparse train --library``) is of the family of the model
    it was adapted from."""
    return version.split("+lib.", 1)[0]


def without_rejected_items(rejections: Rejections, suggestion: Card, record: Card) -> tuple[Card, set[str]]:
    """The suggestion less the items of its text fields a person turned down before, inside any
    value of the field (for this source and model family, as :func:`rejected_check`), and the
    fields that lost one; an item the record holds stays (by its words where the record reads
    another text than the suggestion)."""
    family = model_family(model_version(suggestion))
    turned_down: dict[str, set[str]] = {}
    for rejection in rejections.rejected:
        if (rejection.items_sha256 and rejection.sha256 == suggestion.source.sha256
                and model_family(rejection.model) == family):
            turned_down.setdefault(rejection.field, set()).update(rejection.items_sha256)
    if not turned_down:
        return suggestion, set()
    data, held = card_data(suggestion), card_data(record)
    # a record still on an older text holds its items at other offsets: an item it holds is told
    # by its words (a rejection made there remembered every suggested item, the record's own
    # ones too, so they were taken out and the merge read them as pmparse's drops)
    by_words = record.source.sha256 != suggestion.source.sha256
    changed: set[str] = set()
    for name, keys in turned_down.items():
        if not is_items(data.get(name)):
            continue
        kept_keys = {item["text"] if by_words else item_key(item) for item in held.get(name) or []}
        kept = [item for item in data[name] if item_key(item) not in keys
                or (item["text"] if by_words else item_key(item)) in kept_keys]
        if len(kept) != len(data[name]):
            data[name] = kept
            changed.add(name)
    return (Card.model_validate(data) if changed else suggestion), changed


def adds_nothing(record_value: Any, suggested_value: Any) -> bool:
    """True when every item of a suggested text field value is one the record holds already."""
    held = {item_key(item) for item in record_value or []}
    return is_items(suggested_value) and all(item_key(item) in held for item in suggested_value)


def words_hash(value: Any) -> str:
    """sha256 of a field value without its items' confidences (:attr:`Rejection.words_sha256`)."""
    return value_hash(without_confidences(value))


def rejected_check(rejections: Rejections, suggestion: Card) -> Callable[[str, Any], bool]:
    """``(field, value) -> bool``: was this value rejected for this source and model version?

    The same words at the same place count as the same value whatever their confidence: a person
    turned the reading down, not its number. A library's own model counts as the model it was adapted from: it learnt from these very
    rejections, and a curator who turned a value down is not asked about it again because the
    model that proposes it again was trained on the refusal."""
    family = model_family(model_version(suggestion))
    mine = [r for r in rejections.rejected if r.sha256 == suggestion.source.sha256 and model_family(r.model) == family]
    keys = {(r.field, r.value_sha256) for r in mine}
    words = {(r.field, r.words_sha256) for r in mine if r.words_sha256}
    return lambda name, value: (name, value_hash(value)) in keys or (name, words_hash(value)) in words


#: Why a memory would be too large, and what a curator can do: the decision is not made.
_TOO_MANY = ("too many rejections remembered for one record to add this decision; remove the oldest "
             "from the file (their suggestions may then be offered again) and decide it again")


def _rejection(suggestion: Card, name: str, decision: Literal["rejected", "edited"], by: str, at: str,
               items: list[str] | None) -> Rejection:
    value = card_data(suggestion)[name]
    return Rejection(sha256=suggestion.source.sha256, model=model_version(suggestion), field=name,
                     value_sha256=value_hash(value), words_sha256=words_hash(value),
                     items_sha256=items or None, decision=decision, by=by, at=at)


def memory_fits(library: Library, suggestion: Card, name: str | list[str], by: str, at: str,
                offered: Card | None = None) -> None:
    """Check, before a decision on ``name`` writes anything, that the record's memory with its
    rejection added (:func:`remember`) stays within the state files' read-back limit: one past it
    was written beside the decision, then refused or passed over by every later command, its
    rejections forgotten. The rejection is taken at its largest (every item of ``suggestion`` and
    of the suggestion ``offered`` to the person turned down), so the memory :func:`remember`
    writes is never larger than the one checked. Several names: one decision of them all (a title
    and the facts it restates), each adding its rejection, so all fit or none is written.

    Raises:
        RecordError: the memory would be larger (the file named, with its size), or the memory
            held is not a valid one; nothing is written.
    """
    memory = load_rejections(library, suggestion.id)
    for one in [name] if isinstance(name, str) else name:
        values = [card_data(card)[one] for card in (suggestion, offered) if card is not None]
        items = list(dict.fromkeys(item_key(item) for value in values if is_items(value) for item in value))
        memory.rejected.append(_rejection(suggestion, one, "rejected", by, at, items))
    state_fits(library.state_path("rejected", suggestion.id), memory.model_dump_json(indent=2) + "\n", _TOO_MANY)


def remember(library: Library, suggestion: Card, name: str, decision: Literal["rejected", "edited"],
             by: str, at: str, record_value: Any = None, items: list[str] | None = None) -> None:
    """Add a rejection to the record's memory (written atomically); ``record_value`` is the
    field's value in the record once decided (the items of the suggestion not in it are the ones
    turned down), or ``items`` names them (:func:`item_key`: an item-by-item decision, whose
    refused items are exactly the ones a person said no to). Its size is checked by
    :func:`memory_fits`, before the decision's other files are written.

    Raises:
        RecordError: the memory would be too large to read back (nothing is written).
    """
    memory = load_rejections(library, suggestion.id)
    value = card_data(suggestion)[name]
    if items is None and is_items(value) and value:
        held = {item_key(item) for item in record_value or []} if is_items(record_value) else set()
        items = [key for key in (item_key(item) for item in value) if key not in held]
    memory.rejected.append(_rejection(suggestion, name, decision, by, at, items))
    path = library.state_path("rejected", suggestion.id)
    atomic_write(path, state_fits(path, memory.model_dump_json(indent=2) + "\n", _TOO_MANY))
