"""How a card's changes are printed (pmparse.cli.render): words changed, evidence sentences and
confidences, and values that cannot break a hunk's lines."""

from __future__ import annotations

from pmparse.card.schema import Evidence, Item
from pmparse.cli.render import evidence_sentence, render_change
from pmparse.review.compare import compare
from tests.queue_cards import PLACES, TEXT, item as _item, make


def test_evidence_sentence_is_the_sentence_or_list_item_around_the_span():
    start = TEXT.index("two hours")
    assert evidence_sentence(TEXT, start, start + 9) == "Invoices piled up for two hours."
    start = TEXT.index("switched off")
    assert evidence_sentence(TEXT, start, start + 12) == "The dead-letter queue was switched off."
    start = TEXT.index("Billing".lower())
    assert evidence_sentence(TEXT, start, start + 7) == "The billing queue stopped draining at noon."


def test_changed_items_show_words_evidence_and_confidence(tmp_path):
    record = make(tmp_path, root_cause=[Item(text="A retry loop held a worker.", evidence=[Evidence(start=1, end=5)],
                                             confidence=0.4)])
    suggestion = make(tmp_path, root_cause=[_item("A retry loop held every worker on one poisoned message.", 0.82)])
    diff = compare(record, suggestion, places=PLACES)
    plain = render_change(diff, diff.changes[0])
    assert plain[0] == "@@ root_cause @@"
    # numbered as review --items takes them: the reworded item is change 1 (drop) and 2 (add)
    assert plain[1] == "-[1] A retry loop held [-a worker.-]"
    assert plain[2] == "+[2] A retry loop held {+every worker on one poisoned message.+}"
    line = TEXT[: TEXT.index("A retry")].count("\n") + 1
    assert plain[3] == (f"    evidence line {line}, confidence 0.82: "
                        "A retry loop held every worker on one poisoned message.")
    coloured = render_change(diff, diff.changes[0], color=True)
    assert "\x1b[" in coloured[1] and "[-" not in coloured[1]
    assert all("\x1b[" not in line for line in plain)


def test_a_line_break_in_a_records_value_cannot_print_a_hunk_line_of_its_own(tmp_path):
    # a record edited or shared by someone else holds an item whose words end in a line break and
    # a fake "+" line: the hunk shows it escaped, on the item's own line
    record = make(tmp_path, root_cause=[Item(text="A retry loop.\n+Accept me too", evidence=[Evidence(start=1, end=5)],
                                             confidence=0.4)])
    suggestion = make(tmp_path, root_cause=[_item("A retry loop held every worker on one poisoned message.", 0.82)])
    diff = compare(record, suggestion, places=PLACES)
    for color in (False, True):
        lines = render_change(diff, diff.changes[0], color=color)
        assert not any("\n" in line for line in lines)
        assert not any(line.lstrip("\x1b[0123456789;m").startswith("+Accept") for line in lines)
        assert any("\\x0a+Accept me too" in line for line in lines)
