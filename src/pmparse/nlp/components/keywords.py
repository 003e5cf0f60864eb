"""Keyword baseline labeler: the naive reference that ``pmparse eval`` reports beside the pipeline.

Each unit goes to the first field whose keyword regexes it matches (``resources/keywords.yaml``).
Registered as ``pmparse_keyword_labeler``; it writes ``doc.spans["fields"]`` like the real labeler.
"""

from __future__ import annotations

import re
from importlib import resources

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from spacy.language import Language
from spacy.tokens import Doc

from pmparse.errors import RulesError
from pmparse.rules.headings import SAFE_LOADER, FieldOrNone


class KeywordRules(BaseModel):
    """The keyword table."""

    model_config = ConfigDict(extra="forbid")
    version: int = Field(ge=1, description="Bumped on every change.")
    fields: dict[FieldOrNone, list[str]] = Field(description="Field to regexes, in priority order.")


def load_keywords() -> list[tuple[str, re.Pattern]]:
    """The packaged keyword table as ``(field, compiled regex)`` pairs, in priority order."""
    raw = resources.files("pmparse.resources").joinpath("keywords.yaml").read_text(encoding="utf-8")
    try:
        rules = KeywordRules.model_validate(yaml.load(raw, Loader=SAFE_LOADER))
        return [(field, re.compile(regex, re.IGNORECASE)) for field, regexes in rules.fields.items() for regex in regexes]
    except (ValidationError, re.error) as exc:
        raise RulesError(f"invalid keyword rules: {exc}", "pmparse/resources/keywords.yaml") from exc


def keyword_field(text: str, table: list[tuple[str, re.Pattern]]) -> str | None:
    """The first field whose regex matches ``text``, or None."""
    for field, regex in table:
        if regex.search(text):
            return field
    return None


@Language.factory("pmparse_keyword_labeler", assigns=["doc.spans"])
def make_keyword_labeler(nlp: Language, name: str):
    """Create the keyword baseline labeler."""
    table = load_keywords()

    def keyword_labeler(doc: Doc) -> Doc:
        spans = []
        for unit in doc.spans.get("units", []):
            field = keyword_field(unit.text, table)
            if field is not None and field != "none":
                span = doc[unit.start : unit.end]
                span.label_ = field
                spans.append(span)
        doc.spans["fields"] = spans
        doc.spans["fields"].attrs["scores"] = [0.5] * len(spans)
        return doc

    return keyword_labeler
