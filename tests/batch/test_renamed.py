"""Which gone record a new file is, renamed and edited (:mod:`pmparse.batch.renamed`)."""

from __future__ import annotations

from pmparse.batch.renamed import PAIR_SHARE, close, evidence_share, pairs
from pmparse.card.schema import Card

SENTENCES = [
    "The nightly backup of the ticket database stopped writing after the storage quota was reached.",
    "Nobody noticed for six days because the backup job reported success on an empty archive.",
    "An engineer restoring a test copy found the archives were empty and raised the alarm.",
    "We raised the quota and added a size check to the backup job before it reports success.",
]


def _card(texts: list[str], evidenced: bool = True) -> Card:
    text = "\n\n".join(texts)
    items = []
    for sentence in texts:
        start = text.index(sentence)
        items.append({"text": sentence, "evidence": [{"start": start, "end": start + len(sentence)}] if evidenced else [],
                      "confidence": 0.9 if evidenced else 1.0, **({} if evidenced else {"origin": "person"})})
    return Card.model_validate({
        "id": "IL-0001", "symptoms": items[:2], "remediation": items[2:],
        "source": {"location": "pm/a.md", "sha256": "0" * 64, "format": "md"},
        "pipeline": {"version": "0.1.0", "model": None, "fingerprint": "x"},
    })


def test_a_text_edited_in_a_few_words_is_close_and_another_is_not():
    card = _card(SENTENCES)
    edited = "\n\n".join(SENTENCES).replace("six days", "nine days").replace("raised the alarm", "told us")
    assert evidence_share(card, "\n\n".join(SENTENCES)) == 1.0
    assert PAIR_SHARE <= evidence_share(card, edited) < 1.0 and close(card, edited)
    # markup and line breaks are no edit
    marked = ["* **{}** {}".format(*s.split(" ", 1)) for s in SENTENCES]
    assert evidence_share(card, "\n".join(marked)) == 1.0
    assert not close(card, "The web servers ran out of memory after a deploy and were restarted by hand.")


def test_a_record_saying_too_little_or_only_a_person_s_words_is_close_to_nothing():
    assert evidence_share(_card(SENTENCES[:1]), SENTENCES[0]) is None
    assert evidence_share(_card(SENTENCES, evidenced=False), "\n".join(SENTENCES)) is None


def test_only_a_one_to_one_closeness_with_a_gone_record_pairs():
    gone = {"IL-0001": "pm/a.md", "IL-0002": "pm/b.md"}
    found = pairs({"pm/x.md": ["IL-0001"], "pm/y.md": ["IL-0002"], "pm/z.md": ["IL-0002"],
                   "pm/w.md": ["IL-0001", "IL-0002"], "pm/v.md": ["IL-0003"]}, {"IL-0001": "pm/a.md"})
    assert found["pm/v.md"] == (None, None)  # its record's file is not gone from what was read
    assert found["pm/y.md"] == (None, None)
    # IL-0001 is claimed by x and w: neither pairs
    assert found["pm/x.md"][0] is None and "as pm/w.md also is" in found["pm/x.md"][1]
    one = pairs({"pm/x.md": ["IL-0001"], "pm/y.md": ["IL-0002"], "pm/z.md": ["IL-0002"]}, gone)
    assert one["pm/x.md"][0] == "IL-0001" and "IL-0001 (pm/a.md) renamed and edited" in one["pm/x.md"][1]
    assert one["pm/y.md"][0] is None and one["pm/z.md"][0] is None
    both = pairs({"pm/w.md": ["IL-0001", "IL-0002"]}, gone)
    assert both["pm/w.md"][0] is None and "IL-0001 (pm/a.md), IL-0002 (pm/b.md)" in both["pm/w.md"][1]


def test_a_file_close_to_a_record_whose_file_is_here_too_pairs_with_none():
    found = pairs({"pm/b.md": ["IL-0001"], "pm/x.md": ["IL-0003"]}, {"IL-0001": "pm/a.md", "IL-0003": "pm/d.md"},
                  {"pm/b.md": ["IL-0002 (pm/c.md)"], "pm/x.md": []})
    assert found["pm/b.md"][0] is None and "but also to IL-0002 (pm/c.md), whose file is here" in found["pm/b.md"][1]
    assert found["pm/x.md"][0] == "IL-0003"
