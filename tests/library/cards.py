"""A record card for the library tests, written for them, and strings the YAML writers style
their own ways."""

from __future__ import annotations

from pmparse.card.schema import Card, Evidence, Item, Pipeline, Source

SHA = "a" * 64

# strings each emitter styles its own way: literal blocks, ones that must be quoted single or
# double, long enough to fold, with escapes and characters outside the basic plane
AWKWARD = [
    "line one\nline two with trailing space \nthird",
    "tab\tinside a line that is long enough to be folded by the emitter at the record width of a hundred",
    "\u0085 next-line and \ufeff byte-order mark in a long line of text that needs to be folded somewhere",
    "# looks like a comment: and a key: value pair in a line long enough to fold at one hundred columns",
    "'quoted' and \"double\" with \\ backslashes, long enough to need folding at the record width of 100",
    "emoji \U0001F525 and ünïcode and a very long run of words to be folded at the width that records use",
    "ends with spaces and is long enough to fold at the hundred-column width of records, really it is   ",
    "multi-line\n  indented second line\n\twith a tab\n\x07 and a bell, which no literal block may hold",
]


def make_card(card_id: str = "IL-0001", **extra) -> Card:
    """A valid card of a few fields and their evidence; ``extra`` adds fields."""
    return Card(
        id=card_id,
        organisation="Example Org",
        date="2024-03-03",
        duration_minutes=95,
        symptoms=[Item(text="Checkout failed for a third of users.", evidence=[Evidence(start=10, end=48)], confidence=0.9)],
        action_items=[Item(text="Add a canary stage: for config.", evidence=[Evidence(start=60, end=91)], confidence=0.55)],
        components=["load_balancer"],
        source=Source(location="reports/x.md", sha256=SHA, format="md"),
        pipeline=Pipeline(version="0.1.0"),
        **extra,
    )
