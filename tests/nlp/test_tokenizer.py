from __future__ import annotations

import spacy
from hypothesis import given, settings
from hypothesis import strategies as st

from pmparse.nlp.pipeline import PipelineConfig, get
from pmparse.nlp.tokenizer import (
    _RISKY,
    COARSE_CHARS,
    MAX_LINE,
    MAX_PUNCT_RUN,
    MAX_WORD,
    GuardedTokenizer,
    coarse_words,
    lean_lexemes,
    mask_runs,
    risky_runs,
)


def guarded() -> GuardedTokenizer:
    nlp = spacy.blank("en")
    nlp.max_length = 10**9
    return GuardedTokenizer(nlp.tokenizer)


def test_the_pipeline_tokenizes_through_the_guard():
    assert isinstance(get(PipelineConfig()).tokenizer, GuardedTokenizer)


def test_ordinary_text_is_tokenized_by_spacy_unchanged():
    tokenizer = guarded()
    text = "We didn't restart the (primary) DB at 10:42 UTC -- see https://example.org/a?b=c.\n\n- Item one."
    assert risky_runs(text) == []
    assert [(t.text, t.whitespace_, t.norm_) for t in tokenizer(text)] == [
        (t.text, t.whitespace_, t.norm_) for t in tokenizer.tokenizer(text)]


def test_lean_lexemes_keep_the_attributes_the_stages_read():
    """Words new to a lean vocabulary get spaCy's lower case and norms (the tagger's phrase matcher
    reads LOWER), and the shape nobody reads is no longer worked out."""
    text = "Zorbqflux DIDN'T restart the Plinkr-API at 10:42 -- see https://example.org/Q."
    full = spacy.blank("en")
    lean = spacy.blank("en")
    lean_lexemes(lean.vocab)
    wanted = [(t.text, t.whitespace_, t.lower_, t.norm_) for t in full.make_doc(text)]
    assert [(t.text, t.whitespace_, t.lower_, t.norm_) for t in lean.make_doc(text)] == wanted
    assert full.vocab["Zorbqflux"].shape_ == "Xxxxx"
    assert lean.vocab["Zorbqflux"].shape_ == ""


def test_the_pipeline_vocabulary_is_lean():
    nlp = get(PipelineConfig())
    assert nlp.vocab["Qwrtzplox"].lower_ == "qwrtzplox"
    assert nlp.vocab["Qwrtzplox"].shape_ == ""


def test_risky_runs_are_long_punctuation_and_overlong_words():
    text = "a " + "=" * MAX_PUNCT_RUN + " b " + "=" * (MAX_PUNCT_RUN - 1) + " " + "w" * (MAX_WORD + 1) + " c"
    runs = risky_runs(text)
    assert [text[s:e] for s, e in runs] == ["=" * MAX_PUNCT_RUN, "w" * (MAX_WORD + 1)]
    masked = mask_runs(text, runs)
    assert len(masked) == len(text) and "=" * MAX_PUNCT_RUN not in masked


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["a", "=", "-", "*", ")", " ", "\n", "\t", "é", "_", "=" * MAX_PUNCT_RUN,
                                 "w" * MAX_WORD, "=" * (MAX_WORD - 3), "x.y"]), max_size=12))
def test_risky_runs_are_every_match_of_the_one_pattern(parts):
    # without an overlong word risky_runs scans for punctuation runs alone: the same runs
    text = "".join(parts)
    assert risky_runs(text) == [match.span() for match in _RISKY.finditer(text)]


def test_a_huge_punctuation_run_is_one_token_and_the_text_is_kept():
    # spaCy alone needs minutes for this (quadratic affix stripping); the guard makes one token
    text = "Before.\n" + "=" * 2_000 + "\nAfter it, we didn't wait."
    doc = guarded()(text)
    assert doc.text == text
    assert [t.text for t in doc if "=" in t.text] == ["=" * 2_000]
    # tokens outside the run keep spaCy's norms ("n't" -> "not")
    assert [t.norm_ for t in doc if t.text == "n't"] == ["not"]


def test_runs_inside_words_and_between_spaces_keep_offsets():
    text = "x" + "*" * 30 + "y  " + "(" * 12 + ")  " + "a:b" * 200 + "\t"
    doc = guarded()(text)
    assert doc.text == text
    assert "".join(t.text_with_ws for t in doc) == text


def test_serialisation_is_the_guarded_tokenizers():
    tokenizer = guarded()
    data = tokenizer.to_bytes()
    assert guarded().from_bytes(data).to_bytes() == data


def test_an_overlong_line_becomes_few_coarse_tokens_and_the_text_is_kept():
    # a crawl's megabyte line of short words would be millions of tokens (about 130 bytes each)
    line = "the disk filled up and writes failed " * 30_000
    text = "Before we didn't wait.\n" + line + "\n" + "=" * 50_000 + "\nAfter\tit, we didn't wait.\n"
    doc = guarded()(text)
    assert doc.text == text and doc.user_data["pmparse_coarse"] is True
    assert "".join(t.text_with_ws for t in doc) == text
    assert len(doc) < 2 * len(text) / COARSE_CHARS
    assert max(len(t.text) for t in doc) <= COARSE_CHARS
    # the short lines around them are tokenized as usual, norms included
    assert [t.norm_ for t in doc if t.text == "n't"] == ["not", "not"]
    tail = guarded().tokenizer("\nAfter\tit, we didn't wait.\n")
    assert [t.text for t in doc][-len(tail):] == [t.text for t in tail]
    # a line at the limit is read word by word
    assert "pmparse_coarse" not in guarded()("w " * (MAX_LINE // 2)).user_data


def test_coarse_words_spell_the_text_with_and_without_spaces():
    for text in ["a b  c   " * 500, "x" * 1_234, "ab cd\tef " * 77 + "z" * 450, " lead", "trail "]:
        words, spaces = coarse_words(text, 0, len(text), size=50)
        assert "".join(w + (" " if s else "") for w, s in zip(words, spaces)) == text
        assert all(0 < len(w) <= 50 for w in words)
