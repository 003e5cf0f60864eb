"""The tag model's input features: hashed word and character n-grams of its texts, and its cue counts."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from pmparse.nlp.tag_reading import cue_vocabulary
from pmparse.rules.taxonomy import Taxonomy

#: The hashed blocks: name, the row column they read (0 the focus, 1 the whole text), n-gram options.
HASHED = (("focus_words", 0, {"ngram_range": (1, 2)}),
          ("focus_chars", 0, {"analyzer": "char_wb", "ngram_range": (3, 5)}),
          ("whole_words", 1, {"ngram_range": (1, 1)}))
#: The block of cue counts and the row column holding its pseudo-words.
CUES, CUE_COLUMN = "cues", 2


class TagFeatures:
    """What a scikit-learn ``ColumnTransformer`` of hashed n-grams with TF-IDF weights and of
    scaled cue counts computes over ``(focus, whole, cues)`` rows, with the hashing apart.

    Hashing is stateless (no vocabulary: no corpus words are stored in the model), so a
    cross-validation hashes every row once (:func:`hash_rows`) and each fold fits its TF-IDF weights
    and cue scale on its own rows' counts instead of hashing their texts again: the same matrices,
    made from the same scikit-learn steps in the same order. Once fitted it exposes
    ``transformers_`` and ``output_indices_`` as a fitted ``ColumnTransformer`` does, for
    :func:`pmparse.training.export.export_features` and :func:`own_cue_mask`.

    Args:
        taxonomy: The taxonomy whose cue pseudo-words are counted.
        bits: Hashed columns per block, as a power of two.
    """

    def __init__(self, taxonomy: Taxonomy, bits: int):
        self.vocabulary = cue_vocabulary(taxonomy)
        self.bits = bits
        self.transformers_: list = []
        self.output_indices_: dict[str, slice] = {}

    def fit_transform(self, rows: np.ndarray, counts: Sequence | None = None):
        """Fit the weights on ``rows`` and return their features (``counts``: :func:`hash_rows` of ``rows``)."""
        from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer
        from sklearn.pipeline import Pipeline
        from sklearn.preprocessing import MaxAbsScaler

        counts = hash_rows(rows, self.bits) if counts is None else counts
        self.transformers_, blocks = [], []
        for (name, column, hasher), raw in zip(_hashers(self.bits), counts):
            tfidf = TfidfTransformer(sublinear_tf=True)
            blocks.append(tfidf.fit_transform(raw))
            self.transformers_.append((name, Pipeline([("hash", hasher), ("tfidf", tfidf)]), column))
        count = CountVectorizer(vocabulary=self.vocabulary, token_pattern=r"\S+", lowercase=False)
        scale = MaxAbsScaler()
        blocks.append(scale.fit_transform(count.fit_transform(rows[:, CUE_COLUMN])))
        self.transformers_.append((CUES, Pipeline([("count", count), ("scale", scale)]), CUE_COLUMN))
        return self._stack(blocks)

    def fit(self, rows: np.ndarray, counts: Sequence | None = None) -> TagFeatures:
        """Fit the weights on ``rows`` (``counts``: :func:`hash_rows` of ``rows``)."""
        self.fit_transform(rows, counts)
        return self

    def transform(self, rows: np.ndarray, counts: Sequence | None = None):
        """The features of ``rows`` with the fitted weights (``counts``: :func:`hash_rows` of ``rows``)."""
        counts = hash_rows(rows, self.bits) if counts is None else counts
        blocks = [pipe.named_steps["tfidf"].transform(raw) for (_, pipe, _), raw in zip(self.transformers_, counts)]
        _, cues, column = self.transformers_[-1]
        blocks.append(cues.transform(rows[:, column]))
        return self._stack(blocks)

    def _stack(self, blocks: list):
        from scipy import sparse

        start = 0
        for (name, _, _), block in zip(self.transformers_, blocks):
            self.output_indices_[name] = slice(start, start + block.shape[1])
            start += block.shape[1]
        # as a ColumnTransformer stacks sparse blocks
        return sparse.hstack(blocks).tocsr()


def _hashers(bits: int) -> list:
    from sklearn.feature_extraction.text import HashingVectorizer

    return [(name, column, HashingVectorizer(n_features=2**bits, alternate_sign=False, norm=None, **options))
            for name, column, options in HASHED]


def hash_rows(rows: np.ndarray, bits: int) -> list:
    """The raw hashed counts of ``rows``, one sparse matrix per hashed block (:data:`HASHED`), with
    ``2**bits`` columns each: what :class:`TagFeatures` weighs, made once for many fits."""
    return [hasher.transform(rows[:, column]) for _, column, hasher in _hashers(bits)]


def make_features(taxonomy: Taxonomy, bits: int) -> TagFeatures:
    """The unfitted feature transformer over ``(focus, whole, cues)`` rows."""
    return TagFeatures(taxonomy, bits)


def own_cue_mask(features: TagFeatures, taxonomy: Taxonomy, key: str, width: int) -> np.ndarray:
    """1 for every feature column except the cue counts of categories other than ``key``.

    A classifier that sees every category's cue counts learns from the small gold set that, say,
    a capacity cue speaks against a software bug; those weights do not carry to new documents.
    Each classifier keeps the text features and its own category's cue counts (focus and whole).
    """
    mask = np.ones(width)
    block = features.output_indices_.get(CUES)
    if block is None:
        return mask
    for j, word in enumerate(cue_vocabulary(taxonomy)):
        if word.split("__", 1)[1] != key:
            mask[block.start + j] = 0.0
    return mask
