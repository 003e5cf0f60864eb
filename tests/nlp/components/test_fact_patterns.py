"""The organisation patterns are written for speed; they find what their plain forms find.

As in ``test_date_patterns``: the plain forms below are the readable specification.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pmparse.nlp.components import facts
from pmparse.nlp.extractors import organisation

NAME_PATTERN = facts.NAME_PATTERN
PLAIN = {
    "at_acme_we": (re.compile(r"\b(?:[Aa]t|[Hh]ere at)\s+" + NAME_PATTERN + r",?\s+we\b"), facts.SELF_PATTERNS[0]),
    "we_at_acme": (re.compile(r"\b[Ww]e\s+at\s+" + NAME_PATTERN + r"\b"), facts.SELF_PATTERNS[1]),
    "we_the_acme_team": (re.compile(r"\b[Ww]e,?\s+(?:the\s+)?" + NAME_PATTERN + r"\s+team\b"), facts.SELF_PATTERNS[2]),
    "acme_engineering_blog": (re.compile(r"(?<![\w.])" + NAME_PATTERN + r"\s+(?:[Ee]ngineering|[Tt]ech|[Dd]eveloper|"
                                         r"[Ii]nfrastructure)\s+[Bb]log\b"), organisation.OWNER_LINES[0]),
}
PIECES = ["a", "b", "Z", "9", "-", ".", "@", " ", "\n", "_", "\u0130", "\u0131", "\u017f", "\u212a", "é", "com", "io",
          "status", "example", "At", "at", "Here at", "We", "we", "the", "Acme", "Acme Corp", "team", ",", "x" * 62,
          "Engineering", "engineering", "Tech", "Blog", "blog", "Ab.cd"]


def _found(pattern: re.Pattern, text: str, pos: int = 0) -> list:
    return [(m.span(), m.groups()) for m in pattern.finditer(text, pos)]


@pytest.mark.parametrize("name", sorted(PLAIN))
def test_fast_pattern_finds_what_the_plain_one_does_on_examples(name):
    plain, fast = PLAIN[name]
    for text in ["see status.example.com and a@b.io", "x.status.example.com.", "At Acme, we fixed it", "what we at Acme do",
                 "We, the Acme Corp team", "That we the Acme team", "abc.DEF.\u212aom", "-foo.bar", "Here at Zed we",
                 "The Acme Engineering Blog", "x.Acme engineering blog", "xAcme Tech blog", "Zorbq Developer Blog"]:
        assert _found(fast, text) == _found(plain, text), text


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=14), st.integers(0, 5))
def test_fast_patterns_equal_plain_ones_on_random_text(parts, pos):
    text = "".join(parts)
    pos = min(pos, len(text))
    for name, (plain, fast) in PLAIN.items():
        assert _found(fast, text, pos) == _found(plain, text, pos), name
