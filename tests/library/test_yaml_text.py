"""The record YAML written as text gives PyYAML's emitter's bytes."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from pmparse.library import records, yaml_text
from pmparse.library.yaml_text import FlowList, NotCovered, dump_record

OPTIONS = {"sort_keys": False, "allow_unicode": True, "default_flow_style": False, "width": 100}


def pyyaml_text(data: object) -> str:
    """The text of PyYAML's pure-Python emitter (the one libyaml is held to as well)."""
    return yaml.dump(data, Dumper=records._Dumper, **OPTIONS)


# pieces of the strings each style treats its own way: indicators, quotes, whitespace around
# line breaks, control and special characters, characters beyond U+FFFF, and words that read
# back as numbers, booleans, null, dates or times when plain
_PIECES = ["a", "word", " ", "  ", "\n", "\n\n", "\t", "\r", "\x00", "\x07", "\x1f", "\x7f", "\x85", "\xa0",
           "é", "\u2028", "\u2029", "\ud800", "\ufeff", "\ufffe", "\U0001F525", "\U0010ffff", "#", " #", ":",
           ": ", "-", "- ", "?", ",", "[", "]", "{", "}", "&", "*", "!", "|", ">", "'", '"', "%", "@", "`",
           "\\", "---", "...", "yes", "No", "null", "~", "true", "1", "-2", "3.5", "1e3", ".inf", "0x1f",
           "0o17", "2026-12-06", "12:30", "<<", "="]
_WORDS = st.lists(st.sampled_from(_PIECES), max_size=10).map("".join)
_LONG = st.lists(st.sampled_from(_PIECES + ["lorem", "ipsum dolor", " sit amet,"] * 8), min_size=20,
                 max_size=90).map("".join)
_STRINGS = _WORDS | _LONG | st.text(max_size=30) | st.just("")
_SCALARS = (_STRINGS | st.integers(-10**6, 10**20) | st.floats(allow_nan=True) | st.booleans() | st.none())
_KEYS = st.sampled_from(["text", "evidence", "start", "end", "title", "confidence", "origin", "components.dns"])
_EVIDENCE = st.lists(st.fixed_dictionaries({"start": st.integers(0, 10**6), "end": st.integers(0, 10**6)}),
                     max_size=30).map(FlowList)
_ITEM = st.fixed_dictionaries({"text": _STRINGS, "evidence": _EVIDENCE, "confidence": st.floats(0, 1)})


def _values(inner):
    return (st.lists(inner, max_size=4) | st.lists(_SCALARS, max_size=12).map(FlowList)
            | st.dictionaries(_KEYS | _WORDS, inner, max_size=4) | st.lists(_ITEM, max_size=3) | _EVIDENCE)


_DATA = st.dictionaries(_KEYS | _WORDS, st.recursive(_SCALARS, _values, max_leaves=30), min_size=1, max_size=6)


@settings(max_examples=1500, deadline=None)
@given(_DATA)
def test_the_text_is_pyyamls(data):
    """Any record-shaped data: the same bytes as PyYAML's emitter, or handed back to PyYAML (a
    key that needs quotes)."""
    try:
        text = dump_record(data, 100)
    except NotCovered:
        assert any(not yaml_text._plain_key(key) for key in _keys(data))
        return
    assert text == pyyaml_text(data)


def _keys(data):
    if isinstance(data, dict):
        for key, value in data.items():
            yield key
            yield from _keys(value)
    elif isinstance(data, list):
        for item in data:
            yield from _keys(item)


@settings(max_examples=1000, deadline=None)
@given(_STRINGS, st.integers(0, 3), _STRINGS)
def test_each_string_is_styled_and_folded_as_pyyaml_does(text, depth, other):
    """One string at several depths (the width it folds at moves with the indent), as a block
    value, a list item, a flow-list item and a flow mapping's value."""
    def build(depth: int) -> dict:
        if not depth:
            return {"title": text, "components": FlowList([other, text]),
                    "more": [text, {"evidence": FlowList([{"x": text}])}]}
        return {"nested": build(depth - 1), "items": [build(depth - 1)]}

    data = build(depth)
    assert dump_record(data, 100) == pyyaml_text(data)


@pytest.mark.parametrize("text", ["a\n", "a\n\n", "\n", " lead\n\n"])
def test_a_literal_block_keeping_its_last_line_breaks_ends_the_document(text):
    for data in ({"a": 1, "last": text}, {"last": text, "b": 1}):
        assert dump_record(data, 100) == pyyaml_text(data)


def test_data_outside_a_records_shape_goes_to_pyyaml():
    shared = [1, 2.5, None, True, "x"]
    for data in ({"a": shared, "b": shared}, {"a": FlowList([shared, shared])}, {1: "a"}, {"a": (1, 2)},
                 {"a\nb": 1}, {"": 1}, {"k" * 130: 1}):
        with pytest.raises(NotCovered):
            dump_record(data, 100)  # type: ignore[arg-type]
        assert records._dump(data, width=100) == records._dump_pyyaml(data, width=100)
    assert "&id001" in records._dump({"a": shared, "b": shared}, width=100)


def test_a_record_is_written_by_the_text_writer():
    from tests.library.cards import AWKWARD, make_card

    from pmparse.card.schema import Evidence, Item

    card = make_card(title=AWKWARD[3], lessons=[Item(text=t, evidence=[Evidence(start=0, end=9)], confidence=0.5)
                                                for t in AWKWARD])
    data = records._flowed(records.card_data(card))
    assert records.dumps(card) == dump_record(data, 100) == pyyaml_text(data) == records._dump_pyyaml(data, width=100)
