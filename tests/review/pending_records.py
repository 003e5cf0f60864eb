"""Records with a pending suggestion, as the ``review`` tests make them: two corpus records, one
edited by hand, re-converted by another model (fixtures in ``conftest.py``); a small report of our
own, one whose title says how long the outage lasted, and another sentence of a record's source
to suggest."""

from __future__ import annotations

from pmparse.review.pending import pending_diffs
from tests.helpers import convert_with_other_model, source_text

HUMAN_LINES = "\n# confirmed with the on-call notes\ndate: '2020-02-04'   # was 02-03\n"
#: What the other heading table moves, whatever else follows from it (titles, tags).
MOVED = {"root_cause", "remediation", "action_items", "lessons"}

SMALL = "# Queue stalled\n\nThe queue stalled for 20 minutes.\n\nRoot cause: a full disk on the broker.\n"

# the author's title says how long it lasted, as a title pmparse built from the facts would
OUTAGE = """# Queue outage lasting {end} minutes

## Summary

On 3 March 2024 between 09:00 and 09:{end} UTC the job queue stopped handing out work.

## Root cause

A configuration push lowered the worker limit of the pool to zero.

## Action items

- Validate worker limits before a push reaches production.
"""


def reconvert(monkeypatch, tmp_path, sources, lib) -> list[str]:
    """The statuses of converting ``sources`` into ``lib`` again with the other heading table."""
    return [r.status for r in convert_with_other_model(monkeypatch, tmp_path, sources, lib).results]


def proposed(lib, card_id: str = "IL-0001") -> list[str]:
    """The fields still proposed for a record, in review order."""
    for diff in pending_diffs(lib).diffs:
        if diff.id == card_id:
            return [c.field for c in diff.changes]
    return []


def another_sentence(card, items: list[dict]) -> dict:
    """An item (as JSON) for a line of ``card``'s source text that none of ``items`` says."""
    text = source_text(card)
    sentence = next(line for line in text.splitlines()
                    if len(line.split()) > 5 and all(line.strip() != i["text"] for i in items))
    start = text.index(sentence)
    return {"text": sentence.strip(), "evidence": [{"start": start, "end": start + len(sentence)}], "confidence": 0.6}
