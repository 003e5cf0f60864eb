"""The cue table: hits over lowercased text equal the case-insensitive patterns it was written as."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pmparse.rules.cues import (
    caseless_start,
    caseless_word_start,
    load_cues,
    lowercase_pattern,
    without_captures,
    word_start_skip,
)

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


# --- without_captures ------------------------------------------------------------------------

CAPTURE_CASES = [
    (r"(a|b)c", r"(?:a|b)c"),
    (r"\(x\)(y)", r"\(x\)(?:y)"),  # escaped parentheses are characters
    (r"[(](z)", r"[(](?:z)"),  # so is one inside a class
    (r"[]()](q)", r"[]()](?:q)"),  # a ] right after [ opens no class end
    (r"(?:a)(?=b)(?<!c)(?P<n>d)(?i:e)", r"(?:a)(?=b)(?<!c)(?:d)(?i:e)"),
    (r"((x)|y)+\b", r"(?:(?:x)|y)+\b"),
]


@pytest.mark.parametrize(("pattern", "expected"), CAPTURE_CASES)
def test_without_captures_makes_every_group_non_capturing_and_nothing_else(pattern, expected):
    assert without_captures(pattern) == expected
    assert re.compile(without_captures(pattern)).groups == 0


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", "d", "e", "x", "y", "z", "q", "(", ")", "[", "]", "E", " ", "ab"]),
                max_size=12))
def test_without_captures_matches_where_the_pattern_matches(parts):
    text = "".join(parts)
    for pattern, _ in CAPTURE_CASES:
        plain, bare = re.compile(pattern), re.compile(without_captures(pattern))
        assert [m.span() for m in bare.finditer(text)] == [m.span() for m in plain.finditer(text)], pattern


def test_the_shared_cue_scan_holds_no_capturing_group():
    assert load_cues()._shared.groups == 0


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


# --- caseless_word_start ----------------------------------------------------------------------

CASELESS_CASES = [
    (r"\b(?:for|lasted|during)\s+\d", True),
    (r"\b(?:an?|the) (?:outage|incident)", True),
    (r"\b(?:(?:outage|incident) duration|total downtime|time to (?:repair|recover))", True),
    (r"\b(?:stretch|kind|in)\b", True),  # letters re matches beyond their two cases: ſ, K, İ and ı
    (r"\b(?:root )?cause", False),
    (r"\b(?:a|[bc])x", False),
    (r"\b(?:a|b)|c", False),  # two alternatives at the top: the class would not cover c
    (r"\b(?:a|b)?c", False),
    (r"\b(?:\d|a)x", False),
    (r"\bfor\s+an?", True),
    (r"\b\d+", False),
    (r"\ba?b", False),
    (r"(?:for|of)\b", False),
]

CASELESS_PIECES = ["for", "FOR", "lasted", "during", " ", "1", "an", "A", "the", "THE", "outage", "incident", " duration",
                   "total downtime", "time to ", "repair", "Recover", "stretch", "\u017ftretch", "kind", "\u212aind", "in",
                   "\u0130n", "\u0131n", "_", "x", "é", "-", "\n", "root ", "cause", "b", "c"]


@pytest.mark.parametrize(("pattern", "rewritten"), CASELESS_CASES)
def test_caseless_word_start_rewrites_only_what_it_can_be_sure_of(pattern, rewritten):
    assert (caseless_word_start(pattern) != pattern) is rewritten
    assert re.compile(caseless_word_start(pattern)).groups == re.compile(pattern).groups


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(CASELESS_PIECES), max_size=12), st.data())
def test_caseless_word_start_finds_what_the_pattern_finds(parts, data):
    text = "".join(parts)
    pos = data.draw(st.integers(0, len(text)))
    endpos = data.draw(st.integers(pos, len(text)))
    _assert_same_matches(CASELESS_CASES, caseless_word_start, text, pos, endpos)


def _assert_same_matches(cases, rewrite, text: str, pos: int, endpos: int) -> None:
    """Each case's pattern and its rewrite, both under IGNORECASE, match the same spans of ``text``."""
    for pattern, _ in cases:
        plain, fast = re.compile(pattern, re.IGNORECASE), re.compile(rewrite(pattern), re.IGNORECASE)
        assert [m.span() for m in fast.finditer(text, pos, endpos)] == \
            [m.span() for m in plain.finditer(text, pos, endpos)], pattern


START_CASES = [
    (r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)", True),  # the month hint of the date patterns
    (r"(?:stretch|kind|in)x", True),
    (r"(?:(?:outage|incident) duration|total)", True),
    (r"(?:a|[bc])x", False),
    (r"(?:a|b)|c", False),
    (r"(?:a|b)?c", False),
    (r"\b(?:for|an)", False),  # a boundary first: caseless_word_start's case
    (r"for", False),
]


@pytest.mark.parametrize(("pattern", "rewritten"), START_CASES)
def test_caseless_start_rewrites_only_what_it_can_be_sure_of(pattern, rewritten):
    assert (caseless_start(pattern) != pattern) is rewritten
    assert re.compile(caseless_start(pattern)).groups == re.compile(pattern).groups


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(CASELESS_PIECES + ["jan", "FEB", "Mar", "\u017fep", "SEP", "mAy", "dec", "oct", "Nov",
                                                   "jUL", "aug", "apr", "jun"]), max_size=12), st.data())
def test_caseless_start_finds_what_the_pattern_finds(parts, data):
    text = "".join(parts)
    pos = data.draw(st.integers(0, len(text)))
    endpos = data.draw(st.integers(pos, len(text)))
    _assert_same_matches(START_CASES, caseless_start, text, pos, endpos)


def test_the_case_variants_are_every_character_re_matches_to_a_letter():
    from pmparse.rules.cues import _CASE_VARIANTS

    for letter in "abcdefghijklmnopqrstuvwxyz":
        single = re.compile(letter, re.IGNORECASE)
        # every character whose lowercase or uppercase is ASCII, and the few re folds specially
        candidates = {chr(c) for c in range(0x250)} | {"\u0130", "\u0131", "\u017f", "\u212a", "\u1e9e", "\u2126"}
        found = {c for c in candidates if single.fullmatch(c)}
        assert found == set(letter + letter.upper() + _CASE_VARIANTS.get(letter, "")), letter


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
