"""A guard around spaCy's tokenizer against input that costs it more than linear time.

spaCy's rule-based tokenizer strips prefixes and suffixes one character at a time and copies the
rest of the string each time, so a long run of punctuation (``=====``, ``*****``, ``)))))``) or a
very long string without white space costs time quadratic in its length. Measured with
``spacy.blank("en")`` (spaCy 3.8): 2,000 ``=`` take 1.4 s, 20,000 take three minutes; a crawl
brings in such lines (separators, minified data, base64).

:class:`GuardedTokenizer` never hands such runs to spaCy's affix rules: a run of
:data:`MAX_PUNCT_RUN` or more punctuation characters, and a string of more than :data:`MAX_WORD`
characters without white space, are replaced by letters of the same length before spaCy
tokenizes (letters cost linear time), and the tokens are then given back their real text. Text
without such runs (most documents) goes straight to spaCy. The Doc's text is always the input
exactly, so character offsets are unchanged; a guarded run is one token, or part of one.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
from spacy.attrs import IDX, LENGTH, NORM, SPACY
from spacy.tokenizer import Tokenizer
from spacy.tokens import Doc

#: Runs of this many punctuation or symbol characters are not given to spaCy's affix rules.
MAX_PUNCT_RUN = 8
#: Strings without white space longer than this are not given to spaCy's affix rules.
MAX_WORD = 256

# the look-behind starts the long-word test at word starts only (a fifth faster on ordinary text)
_RISKY = re.compile(r"(?<!\S)\S{%d,}|[^\w\s]{%d,}" % (MAX_WORD + 1, MAX_PUNCT_RUN))


def risky_runs(text: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` runs of ``text`` the guard keeps from spaCy's affix rules, in order."""
    return [match.span() for match in _RISKY.finditer(text)]


def mask_runs(text: str, runs: list[tuple[int, int]]) -> str:
    """``text`` with each run replaced by as many ``x`` (same length, so offsets hold)."""
    pieces = []
    cursor = 0
    for start, end in runs:
        pieces.append(text[cursor:start])
        pieces.append("x" * (end - start))
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces)


class GuardedTokenizer:
    """spaCy's tokenizer, kept linear in time on long punctuation runs and overlong words.

    Args:
        tokenizer: The tokenizer to guard (``nlp.tokenizer`` of ``spacy.blank("en")``).
    """

    def __init__(self, tokenizer: Tokenizer) -> None:
        self.tokenizer = tokenizer
        self.vocab = tokenizer.vocab

    def __call__(self, text: str) -> Doc:
        runs = risky_runs(text)
        if not runs:
            return self.tokenizer(text)
        draft = self.tokenizer(mask_runs(text, runs))
        # token attributes as arrays: a Python Token object per token was most of the guard's cost
        idx, length, space, norm = draft.to_array([IDX, LENGTH, SPACY, NORM]).T
        words = [text[i : i + n] for i, n in zip(idx.tolist(), length.tolist())]
        doc = Doc(self.vocab, words=words, spaces=space.astype(bool).tolist())
        # keep the norms spaCy's exceptions set ("n't" -> "not") on the tokens the mask did not
        # touch; a masked token keeps the norm of its own text
        starts = np.array([start for start, _ in runs])
        ends = np.array([end for _, end in runs])
        k = np.searchsorted(starts, idx + length, side="left")  # runs starting before the token ends
        touched = (k > 0) & (ends[np.maximum(k - 1, 0)] > idx)
        own = doc.to_array([NORM]).reshape(-1)
        doc.from_array([NORM], np.where(touched, own, norm).astype(np.uint64).reshape(-1, 1))
        return doc

    def pipe(self, texts, batch_size: int = 1000):
        """Tokenize a stream of texts."""
        for text in texts:
            yield self(text)

    # serialisation is the guarded tokenizer's: the guard itself has no state
    def to_bytes(self, **kwargs: Any) -> bytes:
        """Serialise the guarded tokenizer."""
        return self.tokenizer.to_bytes(**kwargs)

    def from_bytes(self, data: bytes, **kwargs: Any) -> GuardedTokenizer:
        """Load the guarded tokenizer's settings."""
        self.tokenizer.from_bytes(data, **kwargs)
        return self

    def to_disk(self, path, **kwargs: Any) -> None:
        """Save the guarded tokenizer."""
        self.tokenizer.to_disk(path, **kwargs)

    def from_disk(self, path, **kwargs: Any) -> GuardedTokenizer:
        """Load the guarded tokenizer."""
        self.tokenizer.from_disk(path, **kwargs)
        return self
