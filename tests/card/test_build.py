"""Card assembly from an analysed text (fixture texts written for these tests)."""

from __future__ import annotations

import spacy
from spacy.tokens import SpanGroup

import pmparse
from pmparse.card.build import field_items

REPEATED = """# Queue backlog at Zorbo on 4 May 2025

## Detection

- PagerDuty alert: queue depth above limit on worker-3
- PagerDuty alert: queue depth above limit on worker-3
- PagerDuty alert: Queue depth  above limit on worker-3
- A customer wrote to support at 10:12.

## Action items

- Raise the queue depth limit for the worker pool.
- Raise the queue depth limit for the worker pool.
"""


def test_a_unit_repeating_an_items_words_is_not_the_fields_item_again():
    card = pmparse.extract(REPEATED)
    alert = "PagerDuty alert: queue depth above limit on worker-3"
    # pasted three times (case and spacing aside), one item at its first place
    assert [item.text for item in card.detection] == [alert, "A customer wrote to support at 10:12."]
    first = REPEATED.index(alert)
    assert [(e.start, e.end) for e in card.detection[0].evidence] == [(first, first + len(alert))]
    assert len(card.action_items) == 1


def test_the_item_of_repeated_units_takes_their_highest_confidence():
    doc = spacy.blank("en")("Disk full on db-1 . Restarted it . disk full on  db-1 .")
    group = SpanGroup(doc, name="fields", spans=[doc.char_span(0, 17, "detection"), doc.char_span(20, 32, "remediation"),
                                                 doc.char_span(35, 53, "detection")])
    group.attrs["scores"] = [0.55, 0.8, 0.9]
    doc.spans["fields"] = group
    items = field_items(doc)
    assert [(i.text, i.confidence, [(e.start, e.end) for e in i.evidence]) for i in items["detection"]] == [
        ("Disk full on db-1", 0.9, [(0, 17)])]
    assert [i.text for i in items["remediation"]] == ["Restarted it"]
