"""Hashed n-grams computed once per process and shared by feature blocks.

The unit classifier and the tagger both read character 3-5-grams (``char_wb``) of the same words,
into 65,536 and 16,384 columns. A column is ``abs(murmurhash(gram)) % n_features``, so what depends
on the word alone is ``abs(murmurhash(gram))``: a :class:`GramTable` keeps that for every distinct
word it has seen, and each block takes its own modulus of the gathered values. Before, each block
kept a table of its own columns and hashed every new word again.

The same holds for whole texts: the tagger reads each field unit of a document (word 1-2-grams,
word 1-grams, character 3-5-grams) right after the unit classifier read the same unit with the
same n-grams. A :class:`TextCache` keeps the hashes of the last texts read (a bounded number of
hashes, then it starts over), so the second reader takes its columns from them instead of
tokenising and hashing the unit again: one hashing pass per unit, shared.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from murmurhash import hash as _murmur

#: Most distinct words a table keeps (then it starts over).
CACHE_LIMIT = 500_000
#: Most hashes a :class:`TextCache` holds (8 bytes each; then it starts over). A document's units
#: hold a few tens of thousands; the cache only has to span one document's readers.
TEXT_CACHE_LIMIT = 250_000


def word_grams(word: str, ngram_range: tuple[int, int]) -> list[str]:
    """Character n-grams of one word padded with spaces, as scikit-learn's ``char_wb`` makes them."""
    low, high = ngram_range
    padded = f" {word} "
    size = len(padded)
    grams: list[str] = []
    for n in range(low, high + 1):
        if size <= n:
            # a word no longer than n gives itself once, and no longer n-grams
            grams.append(padded)
            break
        grams.extend(padded[i:i + n] for i in range(size - n + 1))
    return grams


def gram_hashes(grams: Sequence[str]) -> np.ndarray:
    """``abs(murmurhash(g))`` of every gram, as int64.

    scikit-learn maps ``-2**31`` to ``(2**31 - 1 - (n - 1)) % n``, which is ``2**31 % n``, the same
    as ``abs(h) % n``: taking ``% n`` of these values gives its columns for every ``n``.
    """
    return np.abs(np.fromiter(map(_murmur, grams), dtype=np.int64, count=len(grams)))


class GramTable:
    """The n-gram hashes of every distinct word seen, gathered by word without a Python step per n-gram.

    Each word's hashes are at ``_starts[id]``, ``_lengths[id]`` of them, in ``_hashes`` (uint32:
    ``abs`` of a 32-bit hash is at most ``2**31``).
    """

    def __init__(self, ngram_range: tuple[int, int]) -> None:
        self.ngram_range = (int(ngram_range[0]), int(ngram_range[1]))
        self.reset()

    def reset(self) -> None:
        """Forget every word."""
        self.ids: dict[str, int] = {}
        self._words = 0  # rows of _starts and _lengths in use (their capacity grows by doubling)
        self._hashes = np.zeros(0, dtype=np.uint32)
        self._filled = 0
        self._starts = np.zeros(0, dtype=np.int64)
        self._lengths = np.zeros(0, dtype=np.int64)

    def gather(self, words_of: Sequence[Sequence[str]]) -> tuple[np.ndarray, np.ndarray]:
        """Hashes of the n-grams of each text's words: ``(entries per text, hashes as int64)``.

        New words join ``ids`` only once their hashes are in the table, so a text that fails halfway
        (a lone surrogate cannot be hashed) leaves the table as it was.
        """
        if len(self.ids) > CACHE_LIMIT:
            self.reset()
        ids = self.ids
        new: dict[str, int] = {}
        new_hashes: list[np.ndarray] = []
        word_ids: list[int] = []
        per_text: list[int] = []
        for words in words_of:
            per_text.append(len(words))
            found = list(map(ids.get, words))
            if None in found:
                for i, word in enumerate(words):
                    if found[i] is None:
                        known = new.get(word)
                        if known is None:
                            new_hashes.append(gram_hashes(word_grams(word, self.ngram_range)))
                            known = new[word] = len(ids) + len(new)
                        found[i] = known
            word_ids.extend(found)
        if new_hashes:
            self._append(new_hashes)
            ids.update(new)
        wid = np.array(word_ids, dtype=np.int64)
        # np.take: the same elements as fancy indexing, several times faster on long index arrays
        lengths = np.take(self._lengths, wid)
        starts = np.take(self._starts, wid)
        total = int(lengths.sum())
        # position k of the output is entry (k - first entry of its word) of that word's hashes
        firsts = np.cumsum(lengths) - lengths
        index = np.repeat(starts - firsts, lengths) + np.arange(total, dtype=np.int64)
        hashes = np.take(self._hashes, index).astype(np.int64)
        text_of_word = np.repeat(np.arange(len(words_of), dtype=np.int64), per_text)
        entries = np.bincount(text_of_word, weights=lengths, minlength=len(words_of)).astype(np.int64)
        return entries, hashes

    def _append(self, hashes: list[np.ndarray]) -> None:
        """Add the hashes of new words (ids ``_words`` onwards) to the table.

        Every array is made before any is kept, so a failure (memory) leaves the table as it was.
        Arrays grow by doubling: words arrive a document at a time, and copying on every one
        would be quadratic.
        """
        lengths = np.array([len(h) for h in hashes], dtype=np.int64)
        flat = np.concatenate(hashes).astype(np.uint32)
        need, words = self._filled + len(flat), self._words + len(hashes)
        table, starts, sizes = self._hashes, self._starts, self._lengths
        if need > len(table):
            table = np.zeros(max(need, 2 * len(table), 4096), dtype=np.uint32)
            table[:self._filled] = self._hashes[:self._filled]
        if words > len(starts):
            capacity = max(words, 2 * len(starts), 1024)
            starts, sizes = np.zeros(capacity, dtype=np.int64), np.zeros(capacity, dtype=np.int64)
            starts[:self._words] = self._starts[:self._words]
            sizes[:self._words] = self._lengths[:self._words]
        table[self._filled:need] = flat
        starts[self._words:words] = self._filled + np.cumsum(lengths) - lengths
        sizes[self._words:words] = lengths
        self._hashes, self._starts, self._lengths = table, starts, sizes
        self._filled, self._words = need, words


class TextCache:
    """The n-gram hashes of the texts read last, by text: what a second block reading the same
    text with the same n-grams takes instead of hashing it again.

    A value is a list of int64 arrays (one per n-gram length for word n-grams, one for character
    n-grams); their hashes count against ``limit``, and a text that would pass it empties the cache
    first (the texts worth keeping are those of the document being read).
    """

    def __init__(self, limit: int | None = None) -> None:
        self.limit = limit
        self.readers = 0  # the blocks that read through this cache (one alone never hits it)
        self.reset()

    def reset(self) -> None:
        """Forget every text."""
        self.held: dict[str, list[np.ndarray]] = {}
        self.size = 0

    def get(self, text: str) -> list[np.ndarray] | None:
        """The hashes kept for ``text``, or None."""
        return self.held.get(text)

    def put(self, text: str, hashes: list[np.ndarray]) -> None:
        """Keep ``hashes`` for ``text``."""
        size = sum(len(h) for h in hashes)
        limit = TEXT_CACHE_LIMIT if self.limit is None else self.limit
        old = self.held.get(text)
        if old is not None:
            self.size -= sum(len(h) for h in old)
        if self.size + size > limit:
            self.reset()
        self.held[text] = hashes
        self.size += size


_TABLES: dict[tuple[int, int], GramTable] = {}
_TEXTS: dict[tuple, TextCache] = {}


def shared_table(ngram_range: tuple[int, int]) -> GramTable:
    """The process's table for ``ngram_range``, shared by every block that reads those n-grams."""
    key = (int(ngram_range[0]), int(ngram_range[1]))
    table = _TABLES.get(key)
    if table is None:
        table = _TABLES[key] = GramTable(key)
    return table


def shared_texts(key: tuple) -> TextCache:
    """The process's text cache for blocks that read texts alike (``key``: analyzer and the
    settings that decide its n-grams, the n-gram lengths aside for word n-grams)."""
    cache = _TEXTS.get(key)
    if cache is None:
        cache = _TEXTS[key] = TextCache()
    cache.readers += 1
    return cache
