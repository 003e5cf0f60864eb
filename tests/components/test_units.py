from __future__ import annotations

from pmparse.components.units import segment, split_sentences


def units(text: str, plain: bool = False, skip=()) -> list[tuple[str, str]]:
    return [(u.kind, text[u.start:u.end]) for u in segment(text, [], list(skip), plain_text=plain)]


def test_paragraph_sentences_and_abbreviations():
    text = "We rolled back, e.g. the API and web tier. It took 1.5 hours. Errors stopped!\n"
    assert units(text) == [
        ("sentence", "We rolled back, e.g. the API and web tier."),
        ("sentence", "It took 1.5 hours."),
        ("sentence", "Errors stopped!"),
    ]


def test_list_items_with_continuation_lines():
    text = "- First item spans\n  two lines here\n- Second item\n\n1. Numbered item text\n"
    assert units(text) == [
        ("list_item", "First item spans\n  two lines here"),
        ("list_item", "Second item"),
        ("list_item", "Numbered item text"),
    ]


def test_table_rows_skip_rules_and_pipes():
    text = "| Time | Event |\n| :--- | ----- |\n| 10:00 | Alert fired for api |\n"
    assert units(text) == [("table_row", "Time | Event"), ("table_row", "10:00 | Alert fired for api")]


def test_timeline_lines_start_units_in_plain_text():
    text = "13:31: A change is deployed\nto the service.\n14:55: The bug fix went out.\n"
    assert units(text, plain=True) == [
        ("timeline", "13:31: A change is deployed\nto the service."),
        ("timeline", "14:55: The bug fix went out."),
    ]


def test_heading_lines_are_skipped_but_inline_content_kept():
    text = "## Impact\n\nSite was down.\n- **Resolution**: We restarted it.\n"
    skip = [(0, 9), (text.index("**Resolution**"), text.index("We"))]
    assert units(text, skip=skip) == [("sentence", "Site was down."), ("list_item", "We restarted it.")]


def test_fragments_without_two_words_are_dropped():
    assert units("Page\n\n2\n\nOK\n\nA real sentence here.\n") == [("sentence", "A real sentence here.")]


def test_code_fences_are_not_units():
    assert units("```\nkubectl delete pod --all now\n```\nAfter that it worked fine.\n") == [
        ("sentence", "After that it worked fine.")]


def test_split_sentences_offsets():
    text = "One thing. Two things. Three."
    assert [text[s:e] for s, e in split_sentences(text, 0, len(text))] == ["One thing.", "Two things.", "Three."]
