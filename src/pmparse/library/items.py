"""A text field's items as records hold them: what two values of one field say, apart from where
their evidence points and how confident the model was."""

from __future__ import annotations

from typing import Any

from pmparse.card.schema import TEXT_FIELDS


def same_words(name: str, record_value: Any, suggested_value: Any) -> bool:
    """True when a text field's items say the same words, in the same order, whatever their
    evidence and confidence (always False for facts and tags: their values are words only)."""
    return name in TEXT_FIELDS and ([item["text"] for item in record_value]
                                    == [item["text"] for item in suggested_value])
