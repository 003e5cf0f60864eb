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

A line longer than :data:`MAX_LINE` (no postmortem has one: the corpus's longest is under 2,000
characters; a crawl brings in megabytes of minified data or text without a line break) is not
tokenized word by word: it becomes tokens of about :data:`COARSE_CHARS` characters each, cut at a
space, so the Doc holds a few thousand tokens for such a line instead of millions (spaCy keeps
about 130 bytes per token: a 20 MB line of short words took 1.3 GB as words). Such tokens hold
spaces; the phrase matchers of the tagger find nothing inside them, the regexes that read units
and facts see the text as it is. ``doc.user_data["pmparse_coarse"]`` is True for such a Doc.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
from spacy.attrs import IDX, LENGTH, LOWER, NORM, SPACY
from spacy.tokenizer import Tokenizer
from spacy.tokens import Doc
from spacy.vocab import Vocab

#: Runs of this many punctuation or symbol characters are not given to spaCy's affix rules.
MAX_PUNCT_RUN = 8
#: Strings without white space longer than this are not given to spaCy's affix rules.
MAX_WORD = 256

#: Lines longer than this are cut into coarse tokens (see the module docstring).
MAX_LINE = 10_000
#: About how long a coarse token is.
COARSE_CHARS = 200

#: The lexeme attributes pmparse reads: ``LOWER`` (the tagger's phrase matcher) and ``NORM`` (the
#: guard keeps spaCy's norms). Every stage reads the text by character offsets, none a token flag.
LEXEME_ATTRS = frozenset({LOWER, NORM})


def lean_lexemes(vocab: Vocab) -> None:
    """Make ``vocab`` compute only :data:`LEXEME_ATTRS` for a word it meets the first time.

    spaCy computes some twenty attributes for each new word (shape, prefix, suffix, ``like_url``,
    ``is_stop`` ...), values no stage reads: a cold tokenizer over the bench files took 2.4-2.8 s
    with them, 2.0-2.3 s without (process time, three fresh vocabularies each). The others keep spaCy's defaults (0 or False) on new words; a stage that comes to read
    one adds it to :data:`LEXEME_ATTRS`.
    """
    vocab.lex_attr_getters = {attr: getter for attr, getter in vocab.lex_attr_getters.items() if attr in LEXEME_ATTRS}


# the look-behind starts the long-word test at word starts only (a fifth faster on ordinary text)
_RISKY = re.compile(r"(?<!\S)\S{%d,}|[^\w\s]{%d,}" % (MAX_WORD + 1, MAX_PUNCT_RUN))
# _RISKY's second half alone: re skips to its characters, where _RISKY tries every word start
_PUNCT_RUN = re.compile(r"[^\w\s]{%d,}" % MAX_PUNCT_RUN)


def risky_runs(text: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` runs of ``text`` the guard keeps from spaCy's affix rules, in order."""
    # without a string of more than MAX_WORD non-spaces _RISKY's first half never matches, and
    # its runs are those of the second half alone (str.split finds such strings in C)
    if all(len(word) <= MAX_WORD for word in text.split()):
        return [match.span() for match in _PUNCT_RUN.finditer(text)]
    return [match.span() for match in _RISKY.finditer(text)]


def long_lines(text: str, limit: int = MAX_LINE) -> list[tuple[int, int]]:
    """The ``(start, end)`` of every line of ``text`` longer than ``limit`` (the line break left out)."""
    out = []
    start = 0
    size = len(text)
    while start < size:
        end = text.find("\n", start)
        if end < 0:
            end = size
        if end - start > limit:
            out.append((start, end))
        start = end + 1
    return out


def coarse_words(text: str, start: int, end: int, size: int = COARSE_CHARS) -> tuple[list[str], list[bool]]:
    """``text[start:end]`` as Doc words of at most ``size`` characters and their trailing spaces.

    Each word ends before the last space of its window (that space becomes its trailing space),
    or at the window's end when the window holds no space; the words and spaces spell the text.
    """
    words: list[str] = []
    spaces: list[bool] = []
    while start < end:
        stop = min(end, start + size)
        cut = text.rfind(" ", start + 1, stop + 1) if stop < end else -1
        if cut > start:
            words.append(text[start:cut])
            spaces.append(True)
            start = cut + 1
        else:
            words.append(text[start:stop])
            spaces.append(False)
            start = stop
    return words, spaces


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
        lines = long_lines(text)
        if lines:
            return self._coarse(text, lines)
        return self._guarded(text)

    def _coarse(self, text: str, lines: list[tuple[int, int]]) -> Doc:
        """A Doc whose overlong lines are coarse tokens, the text between them tokenized as usual."""
        words: list[str] = []
        spaces: list[bool] = []
        norms: list[int | None] = []  # spaCy's norm of a token read as usual; None: its own
        cursor = 0
        for start, end in [*lines, (len(text), len(text))]:
            if start > cursor:
                # lines around a long one end or start with its line break: spaCy reads them alone
                # as it would in place (a line break is a token of its own)
                part = self._guarded(text[cursor:start])
                words.extend(token.text for token in part)
                spaces.extend(bool(token.whitespace_) for token in part)
                norms.extend(part.to_array([NORM]).reshape(-1).tolist())
            more, gaps = coarse_words(text, start, end)
            words.extend(more)
            spaces.extend(gaps)
            norms.extend([None] * len(more))
            cursor = end
        doc = Doc(self.vocab, words=words, spaces=spaces)
        own = doc.to_array([NORM]).reshape(-1).tolist()
        kept = [o if n is None else n for n, o in zip(norms, own)]
        doc.from_array([NORM], np.array(kept, dtype=np.uint64).reshape(-1, 1))
        doc.user_data["pmparse_coarse"] = True
        return doc

    def _guarded(self, text: str) -> Doc:
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
