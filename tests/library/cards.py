"""A record card for the library tests, written for them."""

from __future__ import annotations

from pmparse.card.schema import Card, Evidence, Item, Pipeline, Source

SHA = "a" * 64


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
