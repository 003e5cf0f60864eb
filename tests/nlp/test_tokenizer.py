from __future__ import annotations

import spacy

from pmparse.nlp.pipeline import PipelineConfig, get
from pmparse.nlp.tokenizer import MAX_PUNCT_RUN, MAX_WORD, GuardedTokenizer, mask_runs, risky_runs


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


def test_risky_runs_are_long_punctuation_and_overlong_words():
    text = "a " + "=" * MAX_PUNCT_RUN + " b " + "=" * (MAX_PUNCT_RUN - 1) + " " + "w" * (MAX_WORD + 1) + " c"
    runs = risky_runs(text)
    assert [text[s:e] for s, e in runs] == ["=" * MAX_PUNCT_RUN, "w" * (MAX_WORD + 1)]
    masked = mask_runs(text, runs)
    assert len(masked) == len(text) and "=" * MAX_PUNCT_RUN not in masked


def test_a_huge_punctuation_run_is_one_token_and_the_text_is_kept():
    # spaCy alone needs minutes for this (quadratic affix stripping); the guard makes one token
    text = "Before.\n" + "=" * 200_000 + "\nAfter it, we didn't wait."
    doc = guarded()(text)
    assert doc.text == text
    assert [t.text for t in doc if "=" in t.text] == ["=" * 200_000]
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
