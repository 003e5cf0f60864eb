"""The tag model's features: what scikit-learn's column transformer makes, with the hashing done once."""

from __future__ import annotations

import numpy as np
import spacy

from pmparse.evaluation.gold_cards import Example
from pmparse.nlp.tag_reading import Matchers, cue_vocabulary, model_rows
from pmparse.rules.taxonomy import load_taxonomy
from pmparse.training.tags.features import hash_rows, make_features
from pmparse.training.tags.fit import fit
from pmparse.training.tags.inputs import TagSettings

_TEXTS = ["A code change introduced a bug that crashed the worker after the release.",
          "The disk filled up overnight and writes failed until space was freed.",
          "An expired certificate broke TLS for every client; renewal was manual.",
          "A configuration flag was set wrong in the settings file.", "Power was lost in one rack.",
          "Ünïcode wörds, numbers 42 and symbols -> still hashed."]


def _rows(taxonomy):
    pairs = [(text, f"{text} {other}") for text in _TEXTS for other in _TEXTS[:3]]
    return model_rows(Matchers(spacy.blank("en"), taxonomy), pairs)


def _column_transformer(taxonomy, bits):
    """The transformer the model was trained with before the hashing was set apart."""
    from sklearn.compose import ColumnTransformer
    from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer, TfidfTransformer
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import MaxAbsScaler

    def hashed(**kwargs):
        return Pipeline([("hash", HashingVectorizer(n_features=2**bits, alternate_sign=False, norm=None, **kwargs)),
                         ("tfidf", TfidfTransformer(sublinear_tf=True))])

    return ColumnTransformer([
        ("focus_words", hashed(ngram_range=(1, 2)), 0),
        ("focus_chars", hashed(analyzer="char_wb", ngram_range=(3, 5)), 0),
        ("whole_words", hashed(ngram_range=(1, 1)), 1),
        ("cues", Pipeline([("count", CountVectorizer(vocabulary=cue_vocabulary(taxonomy), token_pattern=r"\S+",
                                                      lowercase=False)),
                           ("scale", MaxAbsScaler())]), 2),
    ], sparse_threshold=1.0)


def _same(a, b):
    """Equal as stored: the same entries in the same order (a solver sums them in that order)."""
    a, b = a.tocsr(), b.tocsr()
    return (a.shape == b.shape and np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)
            and np.array_equal(a.data, b.data))


def test_the_features_are_the_column_transformers_to_the_bit_with_or_without_counts_made_before():
    taxonomy = load_taxonomy()
    rows = _rows(taxonomy)
    train, test = rows[::2], rows[1::2]
    expected = _column_transformer(taxonomy, 10).fit(train)
    mine = make_features(taxonomy, 10)
    assert _same(mine.fit_transform(train), expected.transform(train))
    assert _same(mine.transform(test), expected.transform(test))
    # the counts of every row made once, a fold's rows taken from them
    counts = hash_rows(rows, 10)
    fold = make_features(taxonomy, 10)
    assert _same(fold.fit_transform(train, [block[::2] for block in counts]), expected.transform(train))
    assert _same(fold.transform(test, [block[1::2] for block in counts]), expected.transform(test))
    assert {name: (s.start, s.stop) for name, s in fold.output_indices_.items()} == \
        {name: (s.start, s.stop) for name, s in expected.output_indices_.items() if name != "remainder"}
    # the counts made before are not changed by the weighting
    assert _same(counts[0], hash_rows(rows, 10)[0])


def test_a_model_fitted_from_counts_made_before_is_the_same_model():
    taxonomy = load_taxonomy()
    rows = _rows(taxonomy)
    examples = [Example(f"doc{i}", row[0], row[1], {"root_cause_categories.software_bug": int("bug" in row[0]),
                                                      "root_cause_categories.configuration_change":
                                                          int("flag" in row[0])})
                for i, row in enumerate(rows)]
    settings = TagSettings(hash_bits=10, min_positives=2)
    plain = fit(examples, rows, taxonomy, settings)
    counted = fit(examples, rows, taxonomy, settings, hashed=hash_rows(rows, 10))
    assert plain.keys == counted.keys and plain.keys
    assert plain.predict_rows(rows) == counted.predict_rows(rows)
