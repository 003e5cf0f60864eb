"""The cue table: hits over lowercased text equal the case-insensitive patterns it was written as."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pmparse.cues import lowercase_pattern, load_cues

UNITS = [
    "We will add an alert on queue depth (T123456).",
    "ROOT CAUSE: a Race Condition in the scheduler.",
    "Users reported 503s; the outage lasted an hour.",
    "We Restarted the primary and service was restored.",
    "Action Items",
    "Lessons Learned: In Hindsight the rollout should have been staged.",
    "After the Deploy of v2 the API returned errors.",
    "",
]


def _reference_hits(cues, text: str) -> list[str]:
    """What the table meant: every pattern on its own, case-insensitively, on folded text."""
    folded = " ".join(text.split())
    rules = cues.rules
    found = [name for name in rules.priority
             if any(re.search(p, folded, re.IGNORECASE) for p in rules.fields[name])]
    if any(re.search(p, folded, re.IGNORECASE) for p in rules.chrome):
        found.append("chrome")
    if any(re.search(p, folded, re.IGNORECASE) for p in rules.prompts):
        found.append("prompt")
    return found


@pytest.mark.parametrize("text", UNITS)
def test_hits_equal_the_patterns_one_by_one(text):
    cues = load_cues()
    assert cues.hits(text) == _reference_hits(cues, text)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(["we", "WILL", "Add", "root", "Cause", "outage", "T12345", "restarted", "after",
                                 "deploy", "Lessons", "learned", "503", ".", ",", "\n", "  ", "alert", "on"]),
                max_size=14))
def test_hits_equal_the_patterns_on_mixed_case_word_salad(words):
    cues = load_cues()
    text = " ".join(words)
    assert cues.hits(text) == _reference_hits(cues, text)


def test_lowercasing_keeps_escapes():
    assert lowercase_pattern(r"\bT\d{5}\S+[A-Z]") == r"\bt\d{5}\S+[a-z]"
