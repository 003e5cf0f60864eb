"""A source written for these tests (a billing queue that stalled) and cards read from it: shared
by the tests of comparing (review), splicing (library) and rendering (cli) a card's changes."""

from __future__ import annotations

import os
from pathlib import Path

from pmparse.card.schema import Card, Evidence, Item, Pipeline, Source
from pmparse.library.places import SourcePlaces
from pmparse.util import sha256_text

#: Where the cards below are read from: their sources are named by absolute paths.
PLACES = SourcePlaces(os.getcwd())

# a source of our own: offsets below index it
TEXT = (
    "# Queue stall\n\n"
    "The billing queue stopped draining at noon. Invoices piled up for two hours.\n\n"
    "## Root cause\n\n"
    "- A retry loop held every worker on one poisoned message.\n"
    "- The dead-letter queue was switched off.\n"
)


def item(fragment: str, confidence: float = 0.9) -> Item:
    """An item of ``fragment``'s words, its evidence where :data:`TEXT` holds them."""
    start = TEXT.index(fragment)
    return Item(text=fragment, evidence=[Evidence(start=start, end=start + len(fragment))], confidence=confidence)


def make(tmp_path: Path, **fields) -> Card:
    """A card of :data:`TEXT` (written to ``tmp_path/queue.md``), ``fields`` set on it."""
    source = tmp_path / "queue.md"
    if not source.exists():
        source.write_text(TEXT, encoding="utf-8")
    data = dict(id="IL-0001", organisation="Billing",
                source=Source(location=str(source), sha256=sha256_text(TEXT), format="md"),
                pipeline=Pipeline(version="0.1.0"))
    data.update(fields)
    return Card(**data)
