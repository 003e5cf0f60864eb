"""Splicing a record's new values into the text a person may have edited (pmparse.library.splice):
only the changed keys are rewritten, comments, layout and line ends elsewhere stay."""

from __future__ import annotations

from pmparse.library.records import card_data, dumps, loads
from pmparse.library.splice import splice, top_regions
from tests.queue_cards import item as _item, make


def test_splice_rewrites_only_the_changed_keys(tmp_path):
    record = make(tmp_path, symptoms=[_item("The billing queue stopped draining at noon.")])
    text = dumps(record).replace("organisation: Billing\n", "# checked by phone\norganisation: Billing   # ok\n")
    text = text.replace("trigger: []", "trigger:    []")
    new = record.model_copy(update={"root_cause": [_item("The dead-letter queue was switched off.")],
                                    "symptoms": []})
    out = splice(text, "yaml", new)
    assert card_data(loads(out, "yaml", "x")) == card_data(new)
    assert "# checked by phone\norganisation: Billing   # ok\n" in out and "trigger:    []" in out
    old_lines, new_lines = text.splitlines(), out.splitlines()
    assert old_lines[: old_lines.index("symptoms:")] == new_lines[: new_lines.index("symptoms: []")]
    # Windows line endings stay Windows line endings, also in the replaced lines
    crlf = text.replace("\n", "\r\n")
    out = splice(crlf, "yaml", new)
    assert "\r\n# checked by phone\r\n" in out and "\n" not in out.replace("\r\n", "")
    assert card_data(loads(out, "yaml", "x")) == card_data(new)
    # JSON records splice the same way
    js = dumps(record, "json").replace('"organisation": "Billing"', '"organisation":   "Billing"')
    out = splice(js, "json", new)
    assert '"organisation":   "Billing"' in out and card_data(loads(out, "json", "x")) == card_data(new)


def test_splice_rewrites_whole_record_when_a_changed_key_is_missing(tmp_path):
    record = make(tmp_path)
    text = dumps(record).replace("title: null\n", "")
    new = record.model_copy(update={"title": "Queue stall"})
    assert splice(text, "yaml", new) == dumps(new)
    assert top_regions("- not\n- a mapping\n") is None


def test_splice_moves_evidence_in_place_and_falls_back_per_field_for_other_layouts(tmp_path):
    from pmparse.library.records import dumps, loads

    record = make(tmp_path, symptoms=[_item("The billing queue stopped draining at noon."),
                                      _item("Invoices piled up for two hours.")])
    moved = record.model_copy(update={"symptoms": [
        item.model_copy(update={"evidence": [ev.model_copy(update={"start": ev.start + 5, "end": ev.end + 5})
                                             for ev in item.evidence], "confidence": 0.7})
        for item in record.symptoms]})
    canonical = dumps(record)
    assert "  evidence: [{start: " in canonical and "\norganisation: Billing\n" in canonical

    # pmparse's own layout: only the values change, a comment inside the field stays
    text = canonical.replace("  confidence: 0.9\n", "  confidence: 0.9  # checked by ann\n", 1)
    out = splice(text, "yaml", moved)
    assert loads(out, "yaml", "x") == moved and "  confidence: 0.7  # checked by ann\n" in out

    # evidence as a block sequence, CRLF line ends: the record still loads back to the new card,
    # and a comment outside the field stays
    first = record.symptoms[0].evidence[0]
    layouts = [
        canonical.replace(f"  evidence: [{{start: {first.start}, end: {first.end}}}]\n",
                          f"  evidence:\n  - {{start: {first.start}, end: {first.end}}}\n", 1),
        canonical.replace("\n", "\r\n"),
    ]
    for layout in layouts:
        text = layout.replace("organisation: Billing", "organisation: Billing  # from the team page")
        out = splice(text, "yaml", moved)
        assert loads(out, "yaml", "x") == moved
        assert "organisation: Billing  # from the team page" in out
    assert "\r\n" in out and "\n" not in out.replace("\r\n", "")
    # a confidence shared through an anchor is not patched (that would break the alias); the
    # record is rewritten whole, as before, and still loads back to the new card
    anchored = canonical.replace("  confidence: 0.9\n", "  confidence: &sure 0.9\n", 1).replace(
        "  confidence: 0.9\n", "  confidence: *sure\n", 1)
    assert "&sure" in anchored and "*sure" in anchored
    assert loads(splice(anchored, "yaml", moved), "yaml", "x") == moved
