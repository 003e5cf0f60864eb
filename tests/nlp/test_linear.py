"""The numpy run-time models predict what the scikit-learn estimators they were exported from do."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pmparse.errors import ModelError
from pmparse.nlp.linear import HashedNgrams, Sparse, TextClassifier, hstack
from pmparse.nlp.model_files import load_arrays, save_arrays
from pmparse.training.export import check_export, export_calibrated, export_features, export_logistic, export_softmax

TEXTS = [
    "The primary database ran out of disk space at 02:14 UTC.",
    "We rolled back deploy #4412; latency returned to normal.",
    "Ein Überlauf im Zähler (ÄÖÜ) brach die Verbindung ab.",
    "a b c",  # words shorter than every n
    "",
    "   \t\n  ",
    "x" * 300,
    "ééé 日本語のテキスト emoji 🙂 ok",
    "Failover to the replica took 14 minutes because orchestrator refused to promote it.",
]


def _sk_hashed(**options):
    from sklearn.feature_extraction.text import HashingVectorizer, TfidfTransformer
    from sklearn.pipeline import Pipeline

    return Pipeline([("hash", HashingVectorizer(alternate_sign=False, norm=None, **options)),
                     ("tfidf", TfidfTransformer(sublinear_tf=True))])


def _column_transformer():
    from sklearn.compose import ColumnTransformer
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import MaxAbsScaler

    return ColumnTransformer([
        ("words", _sk_hashed(ngram_range=(1, 2), n_features=2**10), 0),
        ("chars", _sk_hashed(analyzer="char_wb", ngram_range=(3, 5), n_features=2**10), 0),
        ("context", _sk_hashed(token_pattern=r"\S+", lowercase=False, n_features=2**6), 1),
        ("cues", Pipeline([("count", CountVectorizer(vocabulary=["f__a", "f__b", "w__a"], token_pattern=r"\S+",
                                                      lowercase=False)),
                           ("scale", MaxAbsScaler())]), 1),
    ])


def _rows(texts):
    return [(t, f"__kind_x f__a f__a w__a {t[:5]}") for t in texts]


def test_features_equal_scikit_learn_on_varied_text():
    rows = _rows(TEXTS)
    transformer = _column_transformer().fit(np.array(rows, dtype=object))
    expected = transformer.transform(np.array(rows, dtype=object)).toarray()
    found = export_features(transformer).transform(rows).dense()
    assert found.shape == expected.shape
    assert np.allclose(found, expected, atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(min_size=0, max_size=80), min_size=1, max_size=4))
def test_hashed_ngrams_equal_scikit_learn_on_random_text(texts):
    from sklearn.feature_extraction.text import HashingVectorizer

    for analyzer, ngrams in (("word", (1, 2)), ("char_wb", (3, 5))):
        sk = HashingVectorizer(analyzer=analyzer, ngram_range=ngrams, n_features=2**8, alternate_sign=False, norm=None)
        mine = HashedNgrams(analyzer, ngrams, 2**8)
        assert np.array_equal(mine.transform(texts).dense(), sk.transform(texts).toarray())


def test_softmax_calibrated_and_logistic_heads_equal_scikit_learn():
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.linear_model import LogisticRegression

    rows = _rows(TEXTS * 3)
    array = np.array(rows, dtype=object)
    transformer = _column_transformer().fit(array)
    x = transformer.transform(array)
    labels = np.array(["a", "b", "c"] * 9)
    multi = LogisticRegression(max_iter=500).fit(x, labels)
    exported = TextClassifier(export_features(transformer), export_softmax(multi))
    assert np.allclose(exported.predict_proba(rows), multi.predict_proba(x), atol=1e-6)

    binary = np.array([0, 1, 1] * 9)
    calibrated = {"k.one": CalibratedClassifierCV(LogisticRegression(solver="liblinear"), method="sigmoid", cv=3,
                                                  ensemble=False).fit(x, binary)}
    heads = export_calibrated(calibrated)
    mine = heads.predict_proba(export_features(transformer).transform(rows))
    assert np.allclose(mine[:, 0], calibrated["k.one"].predict_proba(x)[:, 1], atol=1e-9)

    dense = np.random.default_rng(0).normal(size=(20, 4))
    logistic = LogisticRegression().fit(dense, (dense[:, 0] > 0).astype(int))
    assert np.allclose(export_logistic(logistic).predict_proba(dense), logistic.predict_proba(dense)[:, 1])


def test_sparse_dot_and_hstack_keep_empty_rows_empty():
    a = Sparse(np.array([0, 2, 2, 3]), np.array([0, 2, 1]), np.array([1.0, 2.0, 3.0]), (3, 3))
    b = Sparse(np.array([0, 0, 1, 1]), np.array([0]), np.array([5.0]), (3, 1))
    both = hstack([a, b])
    assert both.shape == (3, 4)
    assert np.array_equal(both.dense(), np.hstack([a.dense(), b.dense()]))
    weights = np.arange(8, dtype=float).reshape(4, 2)
    assert np.allclose(both.dot(weights), both.dense() @ weights)
    assert np.array_equal(both.dot(weights)[1], [30.0, 35.0])  # only the second block's entry (column 3)


@pytest.mark.parametrize(("weight_type", "data_type"), [(np.float32, np.float64), (np.float64, np.float64),
                                                       (np.float32, np.float32)])
def test_sparse_dot_is_the_mixed_type_product_bit_for_bit(weight_type, data_type):
    """The dot product gathers, casts and multiplies in place: the same numbers, to the last bit,
    as multiplying the gathered weights by the data as numpy types them."""
    rng = np.random.default_rng(7)
    lengths = rng.integers(0, 40, size=60)
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    indices = rng.integers(0, 500, size=indptr[-1])
    matrix = Sparse(indptr, indices, rng.random(indptr[-1]).astype(data_type), (60, 500))
    weights = rng.normal(size=(500, 9)).astype(weight_type)
    products = weights[indices] * matrix.data[:, None]
    expected = np.zeros((60, 9))
    filled = np.flatnonzero(lengths > 0)
    expected[filled] = np.add.reduceat(products, indptr[filled], axis=0)
    assert np.array_equal(matrix.dot(weights), expected)
    assert not matrix.dot(weights)[lengths == 0].any()


def test_arrays_round_trip_and_a_changed_file_fails_its_digest(tmp_path):
    path = tmp_path / "w.npz"
    digest = save_arrays(path, {"a": np.arange(3.0), "b": np.ones((2, 2), dtype=np.float32)})
    loaded = load_arrays(path, digest)
    assert np.array_equal(loaded["a"], [0.0, 1.0, 2.0]) and loaded["b"].dtype == np.float32
    save_arrays(path, {"a": np.arange(4.0)})
    with pytest.raises(ModelError, match="sha256"):
        load_arrays(path, digest)
    with pytest.raises(ModelError, match="object"):
        save_arrays(path, {"bad": np.array([object()], dtype=object)})
    with pytest.raises(ModelError, match="found none"):
        load_arrays(tmp_path / "missing.npz")


def test_arrays_are_stored_uncompressed_and_written_the_same_way_twice(tmp_path):
    arrays = {"b": np.ones((2, 2), dtype=np.float32), "a": np.arange(3.0)}
    first = save_arrays(tmp_path / "1.npz", arrays)
    second = save_arrays(tmp_path / "2.npz", dict(reversed(list(arrays.items()))))
    assert first == second  # key order and time stamps do not change the bytes
    with zipfile.ZipFile(tmp_path / "1.npz") as archive:
        assert [i.filename for i in archive.infolist()] == ["a.npy", "b.npy"]
        assert {i.compress_type for i in archive.infolist()} == {zipfile.ZIP_STORED}


def test_check_export_names_the_difference():
    check_export(np.array([[0.5, 0.5]]), np.array([[0.5, 0.50001]]), "x")
    with pytest.raises(ModelError, match="difference"):
        check_export(np.array([[0.5, 0.5]]), np.array([[0.6, 0.4]]), "x")


def test_unknown_feature_kinds_are_refused():
    with pytest.raises(ModelError, match="analyzer"):
        HashedNgrams("char", (1, 2), 16)


def test_character_ngrams_stay_equal_across_batches_and_a_table_reset(patch_all, monkeypatch):
    """Words seen in one batch are gathered from the table in the next; a full table starts over."""
    from sklearn.feature_extraction.text import HashingVectorizer

    sk = HashingVectorizer(analyzer="char_wb", ngram_range=(3, 5), n_features=2**10, alternate_sign=False, norm=None)
    mine = HashedNgrams("char_wb", (3, 5), 2**10)
    batches = [TEXTS[:3], TEXTS[2:6], TEXTS, ["quokka quokka failover", ""], []]
    for batch in batches:
        assert np.array_equal(mine.transform(batch).dense(), sk.transform(batch).toarray() if batch else np.zeros((0, 2**10)))
    assert "quokka" in mine._ids
    patch_all("pmparse.nlp.gram_table.CACHE_LIMIT", 5)
    mine._texts.reset()  # texts read before come from the text cache, without the word table
    assert np.array_equal(mine.transform(TEXTS).dense(), sk.transform(TEXTS).toarray())
    assert "quokka" not in mine._ids  # started over: only this batch's words are kept


def test_blocks_of_one_ngram_range_share_the_hashes_and_keep_their_own_columns(monkeypatch):
    """A 2**14 block reading words a 2**16 block has hashed hashes none again, and both equal scikit-learn."""
    from sklearn.feature_extraction.text import HashingVectorizer

    from pmparse.nlp import gram_table

    monkeypatch.setattr(gram_table, "_TABLES", {})
    monkeypatch.setattr(gram_table, "_TEXTS", {})
    wide, narrow = HashedNgrams("char_wb", (3, 5), 2**16), HashedNgrams("char_wb", (3, 5), 2**14)
    assert wide._table is narrow._table
    assert HashedNgrams("char_wb", (2, 4), 2**14)._table is not wide._table
    wide.transform(TEXTS)
    hashed = []
    monkeypatch.setattr(gram_table, "gram_hashes", lambda grams: hashed.append(grams) or np.zeros(len(grams)))
    for block, n in ((narrow, 2**14), (wide, 2**16)):
        sk = HashingVectorizer(analyzer="char_wb", ngram_range=(3, 5), n_features=n, alternate_sign=False, norm=None)
        assert np.array_equal(block.transform(TEXTS).dense(), sk.transform(TEXTS).toarray())
    assert hashed == []


def test_blocks_reading_the_same_texts_hash_them_once(monkeypatch):
    """The tagger's unit blocks (word 1-2-grams, word 1-grams, characters) read texts the unit
    classifier's blocks read just before, into other widths: nothing is hashed again, and every
    block still equals scikit-learn (the word 1-grams come from the 1-2-grams' first part)."""
    from sklearn.feature_extraction.text import HashingVectorizer

    from pmparse.nlp import gram_table

    monkeypatch.setattr(gram_table, "_TABLES", {})
    monkeypatch.setattr(gram_table, "_TEXTS", {})
    first = [HashedNgrams("word", (1, 2), 2**16), HashedNgrams("char_wb", (3, 5), 2**16)]
    second = [(HashedNgrams("word", (1, 2), 2**14), {"analyzer": "word", "ngram_range": (1, 2)}),
              (HashedNgrams("word", (1, 1), 2**12), {"analyzer": "word", "ngram_range": (1, 1)}),
              (HashedNgrams("char_wb", (3, 5), 2**14), {"analyzer": "char_wb", "ngram_range": (3, 5)})]
    for block in first:
        block.transform(TEXTS)
    hashed = []
    monkeypatch.setattr(gram_table, "gram_hashes", lambda grams: hashed.append(grams) or np.zeros(len(grams)))
    for block, options in second:
        sk = HashingVectorizer(n_features=block.n_features, alternate_sign=False, norm=None, **options)
        assert np.array_equal(block.transform(TEXTS[::-1]).dense(), sk.transform(TEXTS[::-1]).toarray())
    assert hashed == []


def test_a_word_block_reading_longer_ngrams_than_the_cache_holds_hashes_them(monkeypatch):
    """A text cached with its 1-grams alone is read again for 1-2-grams, and a full cache starts over."""
    from sklearn.feature_extraction.text import HashingVectorizer

    from pmparse.nlp import gram_table

    monkeypatch.setattr(gram_table, "_TEXTS", {})
    HashedNgrams("word", (1, 1), 2**10).transform(TEXTS)
    sk = HashingVectorizer(analyzer="word", ngram_range=(1, 3), n_features=2**10, alternate_sign=False, norm=None)
    assert np.array_equal(HashedNgrams("word", (1, 3), 2**10).transform(TEXTS).dense(), sk.transform(TEXTS).toarray())
    cache = gram_table.TextCache(limit=10)
    cache.put("a", [np.zeros(6)])
    cache.put("b", [np.zeros(6)])
    assert cache.get("a") is None and cache.size == 6
    cache.put("b", [np.zeros(3)])
    assert cache.size == 3


def test_gram_hashes_give_every_modulus_its_columns():
    """abs(h) % n is scikit-learn's column also for the hash -2**31, and for every n."""
    from pmparse.nlp.gram_table import gram_hashes, word_grams

    assert word_grams("ab", (3, 5)) == [" ab", "ab ", " ab "]
    assert word_grams("abcd", (5, 5)) == [" abcd", "abcd "]
    hashes = gram_hashes(word_grams("failover", (3, 5)))
    assert hashes.dtype == np.int64 and (hashes >= 0).all() and hashes.max() <= 2**31
    wide = HashedNgrams("char_wb", (3, 5), 2**16).transform(["failover"]).indices
    assert sorted(set(hashes % 2**16)) == sorted(wide)


def test_hstack_places_each_block_after_the_earlier_ones():
    a = HashedNgrams("word", (1, 1), 8).transform(["x y", "", "z"])
    b = HashedNgrams("word", (1, 1), 4).transform(["", "p q q", "r"])
    stacked = hstack([a, b])
    assert stacked.shape == (3, 12)
    assert np.array_equal(stacked.dense(), np.hstack([a.dense(), b.dense()]))


def test_a_text_that_cannot_be_hashed_leaves_the_word_table_as_it_was():
    """A lone surrogate fails the batch; the next batches get the same columns a fresh block gives."""
    block = HashedNgrams("char_wb", (3, 5), 2**12)
    block.transform(["alpha beta"])
    with pytest.raises(UnicodeEncodeError):
        block.transform(["gamma \ud800 delta"])
    fresh = HashedNgrams("char_wb", (3, 5), 2**12)
    for batch in (["gamma delta"], ["alpha", "delta beta"]):
        assert np.array_equal(block.transform(batch).dense(), fresh.transform(batch).dense())


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["a", "ab", "abc", "_", "1", "é", "Ü", " ", "\n", "-", ".", "'", "x_y", "\u0661\u0662",
                                 "ǅ", "\u00b2", "\u200d"]), max_size=14))
def test_the_default_token_pattern_reads_the_same_tokens_faster(parts):
    import re

    from pmparse.nlp.linear import _SAME_TOKENS

    text = "".join(parts)
    for plain, fast in _SAME_TOKENS.items():
        assert re.findall(fast, text) == re.findall(plain, text)
    block = HashedNgrams("word", (1, 2), 2**10)
    assert block.terms(text)[:len(re.findall(r"(?u)\b\w\w+\b", text.lower()))] == re.findall(r"(?u)\b\w\w+\b",
                                                                                            text.lower())


_FEATURE_TEXT = st.lists(st.sampled_from(["disk", "full", "Disk", "the", "a", "db-1", "x", "  ", "\n", "é", "outage",
                                          "lf_x", "p_lf_y", "__short", "rollback", "of", "ünï"]), max_size=25).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_FEATURE_TEXT, _FEATURE_TEXT, _FEATURE_TEXT), max_size=8))
def test_features_in_one_pass_equal_block_by_block_to_the_bit(rows):
    """The joined pass (one count, the weighting and each block's norm at once) gives the
    matrix of the blocks made one by one and joined: indices and values bit for bit, over
    blocks with and without idf, 1 + log and the l2 norm, and vocabulary counts."""
    from pmparse.nlp.linear import Features, VocabularyCounts

    rng = np.random.default_rng(7)
    features = Features([
        (0, HashedNgrams("word", (1, 2), 64, idf=rng.uniform(0.5, 3, 64), sublinear_tf=True, norm="l2")),
        (0, HashedNgrams("char_wb", (3, 5), 128, idf=rng.uniform(0.5, 3, 128), sublinear_tf=True, norm="l2")),
        (1, HashedNgrams("word", (1, 1), 32, lowercase=False, token_pattern=r"\S+")),
        (2, VocabularyCounts(["lf_x", "p_lf_y", "disk", "__short"], rng.uniform(1, 4, 4))),
        (1, HashedNgrams("word", (1, 1), 16, norm="l2")),
    ])
    joined, blocks = features.transform(rows), features.transform_blocks(rows)
    assert joined.shape == blocks.shape
    for name in ("indptr", "indices", "data"):
        assert np.array_equal(getattr(joined, name), getattr(blocks, name)), name


@pytest.mark.parametrize("change, found", [
    ({"token_pattern": r"(a|a)*(a|a)*b"}, "word pattern"),  # backtracks for ever over a unit of a's
    ({"token_pattern": r"(\w)(\w)"}, "word pattern"),  # groups: findall gave tuples, every input failed
    ({"ngram_range": [1, 100_000]}, "n-gram lengths"),
    ({"ngram_range": [0, 2]}, "n-gram lengths"),
    ({"n_features": 2**40}, "hashed columns"),
])
def test_a_model_spec_pmparse_never_trains_is_refused_before_it_is_compiled(change, found):
    # a model's meta.json may come with a library from someone else (fourth round of hostile inputs)
    spec = {"features": [{"kind": "hashed", "analyzer": "word", "ngram_range": [1, 2], "n_features": 16,
                          "lowercase": True, "token_pattern": r"(?u)\b\w\w+\b", "sublinear_tf": True,
                          "norm": "l2", "idf": False, "column": 0, **change}], "classes": ["a", "b"]}
    arrays = {"head.coef": np.zeros((2, 16)), "head.intercept": np.zeros(2)}
    ordinary = {"kind": "hashed", "analyzer": "word", "ngram_range": [1, 2], "n_features": 16, "lowercase": True,
                "token_pattern": r"(?u)\b\w\w+\b", "sublinear_tf": True, "norm": "l2", "idf": False, "column": 0}
    TextClassifier.from_arrays({**spec, "features": [ordinary]}, arrays)  # the same spec as pmparse trains it loads
    with pytest.raises(ModelError, match=found):
        TextClassifier.from_arrays(spec, arrays)
