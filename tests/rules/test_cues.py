"""The cue table: hits over lowercased text equal the case-insensitive patterns it was written as."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pmparse.rules.cues import load_cues, lowercase_pattern, word_start_skip

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


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["was", "were", "caused", "by", "deployed", "a", "bug", "in", "we", "learned", "will",
                                 "be", "fixed", "after", "the", "upgrade", "noticed", "restarted", "outage", "lack",
                                 "of", "monitoring", "contributed", "root", "cause", "fortunately", "(", "-", ".",
                                 "T123456", "action", "items"]), max_size=16))
def test_cues_starting_at_the_same_word_all_fire(words):
    """Several cues often match from one position ("was caused by", "was deployed"): the shared
    scan asks every later pattern there, so none is lost."""
    cues = load_cues()
    text = " ".join(words)
    assert cues.hits(text) == _reference_hits(cues, text)


def test_lowercasing_keeps_escapes():
    assert lowercase_pattern(r"\bT\d{5}\S+[A-Z]") == r"\bt\d{5}\S+[a-z]"


# --- word_start_skip -------------------------------------------------------------------------

SKIP_CASES = [
    (r"\borchestrator\b", True),
    (r"\b(?:aws|gcp)(?:'s)? outage", True),
    (r"\b(?:an?|the) outage", True),
    (r"\b(a|b)c", True),
    (r"\b(?:root )?cause", False),  # the group may be skipped: its first letter is not sure
    (r"\b(?:a|[bc])x", False),
    (r"\ba?b", False),
    (r"\b\d+", False),
    (r"x\b", False),
    (r"\b(?:a|b)(?#c)?x", False),  # a comment before a quantifier: left alone
]


@pytest.mark.parametrize(("pattern", "rewritten"), SKIP_CASES)
def test_word_start_skip_rewrites_only_what_it_can_be_sure_of(pattern, rewritten):
    assert (word_start_skip(pattern) != pattern) is rewritten
    assert re.compile(word_start_skip(pattern)).groups == re.compile(pattern).groups


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["aws", "gcp", "'s", " outage", "an", "a", "the", "orchestrator", "x", "_", "é", "1",
                                 " ", "-", "\n", "root ", "cause", "b", "c", "ab", "bc"]), max_size=12),
       st.integers(0, 4))
def test_word_start_skip_finds_what_the_pattern_finds(parts, pos):
    text = "".join(parts)
    pos = min(pos, len(text))
    for pattern, _ in SKIP_CASES:
        plain, fast = re.compile(pattern), re.compile(word_start_skip(pattern))
        assert [m.span() for m in fast.finditer(text, pos)] == [m.span() for m in plain.finditer(text, pos)], pattern


@pytest.mark.parametrize("text", [
    "09:12 an alert for the payments queue depth comes in",
    "The storage alarm went off twice before anyone looked.",
    "Support escalated the ticket to the platform team at 11:00.",
    "A customer reports errors when uploading images.",
    "The synthetic check for the login page failed at noon.",
])
def test_detection_cue_reads_how_an_incident_was_noticed(text):
    assert "detection" in load_cues().hits(text)


def test_wiki_licence_footer_is_chrome():
    assert "chrome" in load_cues().hits("Text is available under a licence; further terms may apply.")
