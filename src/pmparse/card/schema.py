"""The card schema: what one library record holds.

A card is a draft (``status: suggested``) until a person reviews it. Every text item carries its
evidence as character offsets into the source text and a confidence; facts and tags carry theirs
in :attr:`Card.support`.
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

SCHEMA_VERSION = 1

#: The eight text fields of a card, in card order.
TEXT_FIELDS: tuple[str, ...] = (
    "symptoms",
    "trigger",
    "root_cause",
    "contributing_factors",
    "detection",
    "remediation",
    "action_items",
    "lessons",
)

#: The three tag fields of a card; values are taxonomy ids.
TAG_FIELDS: tuple[str, ...] = ("components", "root_cause_categories", "contributing_factor_categories")

#: Scalar facts of a card.
FACT_FIELDS: tuple[str, ...] = ("title", "organisation", "date", "duration_minutes")

_DATE = re.compile(r"^\d{4}(-\d{2}-\d{2})?$")
_SHA = re.compile(r"^[0-9a-f]{64}$")
_TAXON = re.compile(r"^[a-z][a-z0-9_]*$")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class Evidence(_Strict):
    """A stretch of the source text: ``text[start:end]``."""

    start: int = Field(ge=0, description="Offset of the first character, in Unicode code points.")
    end: int = Field(gt=0, description="Offset one past the last character.")
    sha256: str | None = Field(
        default=None,
        description="Set only when the stretch indexes an earlier version of the source: that text's "
                    "sha256. A value a person kept through a review after the source was amended, whose "
                    "words the new text no longer holds, keeps its old offsets marked this way. Absent: "
                    "the offsets index the card's source (source.sha256).",
    )

    @model_validator(mode="after")
    def _ordered(self) -> Evidence:
        if self.end <= self.start:
            raise ValueError(f"end ({self.end}) must be greater than start ({self.start})")
        if self.sha256 is not None and not _SHA.match(self.sha256):
            raise ValueError("sha256: expected 64 lowercase hex digits")
        return self

    @model_serializer(mode="wrap")
    def _drop_current(self, handler: SerializerFunctionWrapHandler) -> dict:
        # records written before the field existed, and every stretch of the current source, keep
        # the two-key form {start, end}
        data = handler(self)
        if data.get("sha256") is None:
            data.pop("sha256", None)
        return data

    @property
    def current(self) -> bool:
        """True when the stretch indexes the card's own source text."""
        return self.sha256 is None


class Item(_Strict):
    """One unit of a text field: a sentence or list item with its evidence."""

    text: str = Field(min_length=1, description="The unit's text, whitespace collapsed.")
    evidence: list[Evidence] = Field(
        description="Where the text stands in the source. Empty only for a person's own words "
                    "(origin: person) that the source does not hold.")
    confidence: float = Field(ge=0.0, le=1.0, description="How sure the pipeline is that the unit belongs here.")
    origin: Literal["person"] | None = Field(
        default=None,
        description="Set when a person wrote or changed the item in a review (`e`): the text is theirs, "
                    "the confidence 1.0, and the evidence only where the source spells their words. Absent: "
                    "the pipeline's item.")

    @model_validator(mode="after")
    def _anchored(self) -> Item:
        if not self.evidence and self.origin != "person":
            raise ValueError("evidence: expected at least one stretch (only a person's item may have none)")
        return self

    @model_serializer(mode="wrap")
    def _drop_pipeline_origin(self, handler: SerializerFunctionWrapHandler) -> dict:
        # the pipeline's items keep the three-key form {text, evidence, confidence}
        data = handler(self)
        if data.get("origin") is None:
            data.pop("origin", None)
        return data


class Support(_Strict):
    """Why the pipeline proposed a fact or a tag."""

    evidence: list[Evidence] = Field(default_factory=list, description="Source stretches behind it, if any.")
    confidence: float = Field(ge=0.0, le=1.0, description="How sure the pipeline is.")
    origin: str = Field(description="Which rule or model proposed it, e.g. 'front_matter', 'text', 'path'.")


class SourceEntry(_Strict):
    """The incident's place in a file holding many (an incident log, a status-page history)."""

    key: str = Field(min_length=1, description="Stable name of the entry in its file: the date of its heading and "
                                               "8 hex digits of the heading's words (the location ends in #entry-KEY).")
    heading: str = Field(description="The entry's heading, as written.")
    start: int = Field(ge=0, description="Offset of the entry's heading in the source text.")
    end: int = Field(gt=0, description="Offset where the entry ends (its evidence lies in between).")


class Source(_Strict):
    """Where the card's text came from."""

    location: str = Field(min_length=1, description="Path or URL of the source, or '-' for standard input.")
    url: str | None = Field(
        default=None,
        description="Public address of the source when known: the location when it is a URL, or "
                    "`convert --url-base` joined with the file's path under the converted folder.",
    )
    sha256: str = Field(description="sha256 of the source text (UTF-8) that offsets index.")
    format: Literal["txt", "md", "html", "pdf"] = Field(description="How the source was read.")
    extracted_text: str | None = Field(
        default=None,
        description="The text offsets index, when it is not the file itself (HTML or PDF extraction, a URL).",
    )
    entry: SourceEntry | None = Field(
        default=None,
        description="Set when the file holds many incidents and this card is one of them; offsets still index "
                    "the whole text.",
    )

    @model_serializer(mode="wrap")
    def _drop_no_entry(self, handler: SerializerFunctionWrapHandler) -> dict:
        # a record of a one-incident source keeps the source block it always had
        data = handler(self)
        if data.get("entry") is None:
            data.pop("entry", None)
        return data

    @field_validator("sha256")
    @classmethod
    def _hex(cls, value: str) -> str:
        if not _SHA.match(value):
            raise ValueError("expected 64 lowercase hex digits")
        return value


class Pipeline(_Strict):
    """Which pmparse produced the suggestion."""

    version: str = Field(description="pmparse version.")
    model: str | None = Field(default=None, description="Name and version of the field model, or None for rules.")
    fingerprint: str | None = Field(
        default=None,
        description="16 hex digits of the sha256 of what shaped the suggestion besides the source text: "
                    "the pmparse version, the packaged rules, a --taxonomy or heading file, the field and "
                    "tag models. A new one makes `convert` analyse an up-to-date source again.",
    )


class ReviewMark(_Strict):
    """Who reviewed the card and when."""

    by: str = Field(min_length=1, description="Reviewer's name.")
    at: str = Field(description="ISO 8601 time of the review.")


class Card(_Strict):
    """One incident of the library, as stored in ``LIBRARY/IL-0001.yaml``."""

    schema_version: Literal[1] = Field(default=SCHEMA_VERSION, description="Version of this schema.")
    id: str = Field(pattern=r"^IL-\d{4}$", description="Library id, 'IL-' and four digits.")
    status: Literal["suggested", "reviewed"] = Field(default="suggested", description="Draft or reviewed.")
    title: str | None = Field(default=None, max_length=160, description="One line: who, what failed, how long, why.")
    organisation: str | None = Field(default=None, description="Who ran the failing service.")
    date: str | None = Field(default=None, description="Incident start: ISO date, or the year alone.")
    duration_minutes: int | None = Field(default=None, ge=0, description="Length of the incident in minutes.")
    symptoms: list[Item] = Field(default_factory=list, description="What users or systems experienced.")
    trigger: list[Item] = Field(default_factory=list, description="The event that set the failure off.")
    root_cause: list[Item] = Field(default_factory=list, description="The defect that made the trigger harmful.")
    contributing_factors: list[Item] = Field(default_factory=list, description="What made it worse or longer.")
    detection: list[Item] = Field(default_factory=list, description="How and when it was noticed.")
    remediation: list[Item] = Field(default_factory=list, description="What was done to end it.")
    action_items: list[Item] = Field(default_factory=list, description="Follow-up work.")
    lessons: list[Item] = Field(default_factory=list, description="Takeaways.")
    components: list[str] = Field(default_factory=list, description="Taxonomy ids of components involved.")
    root_cause_categories: list[str] = Field(default_factory=list, description="Taxonomy ids of root-cause categories.")
    contributing_factor_categories: list[str] = Field(
        default_factory=list, description="Taxonomy ids of contributing-factor categories."
    )
    support: dict[str, Support] = Field(
        default_factory=dict,
        description="Evidence and confidence of facts and tags, keyed 'organisation' or 'components.dns'.",
    )
    source: Source = Field(description="The source text.")
    pipeline: Pipeline = Field(description="What produced the suggestion.")
    reviewed: ReviewMark | None = Field(default=None, description="Set when a person reviewed the card.")

    @field_validator("date", mode="before")
    @classmethod
    def _date_as_written(cls, value: object) -> object:
        # a person who types date: 2018-06-19 (or date: 2018) unquoted in a record gets a YAML date
        # (or number), not text: it is the same date, so it is read as the text it stands for
        if isinstance(value, _dt.date) and not isinstance(value, _dt.datetime):
            return value.isoformat()
        if isinstance(value, int) and not isinstance(value, bool) and 1000 <= value <= 9999:
            return str(value)
        return value

    @field_validator("date")
    @classmethod
    def _date(cls, value: str | None) -> str | None:
        if value is None:
            return value
        if not _DATE.match(value):
            raise ValueError("expected YYYY-MM-DD or YYYY")
        if len(value) == 10:
            _dt.date.fromisoformat(value)
        return value

    @field_validator("components", "root_cause_categories", "contributing_factor_categories")
    @classmethod
    def _taxa(cls, values: list[str]) -> list[str]:
        for value in values:
            if not _TAXON.match(value):
                raise ValueError(f"expected a taxonomy id (lower_snake_case), found {value!r}")
        if len(set(values)) != len(values):
            raise ValueError("taxonomy ids must not repeat")
        return values

    def text(self) -> str | None:
        """The text evidence offsets index, when the card itself holds it (HTML sources)."""
        return self.source.extracted_text

    def evidence_spans(self) -> list[tuple[str, Evidence]]:
        """Every (field, evidence) pair of the card's text items and supports."""
        pairs: list[tuple[str, Evidence]] = []
        for name in TEXT_FIELDS:
            for item in getattr(self, name):
                pairs.extend((name, ev) for ev in item.evidence)
        for key, sup in self.support.items():
            pairs.extend((key, ev) for ev in sup.evidence)
        return pairs


def json_schema() -> dict:
    """The JSON Schema of a card, as ``pmparse schema`` prints it."""
    return Card.model_json_schema()
