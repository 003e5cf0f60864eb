"""The linear models at run time: hashed n-gram features and logistic heads in plain numpy.

``pmparse train`` and ``pmparse train-categories`` fit scikit-learn estimators and export what
prediction needs (hashing settings, idf weights, coefficients, calibration) into this module's
classes; :mod:`pmparse.nlp.model_files` keeps them as a JSON spec plus an ``.npz`` of numeric
arrays read with ``allow_pickle=False``, so loading a model runs no code from the file.

Why not scikit-learn at run time: importing scikit-learn with skops took about 1.8 s in a fresh
process (more than the whole start-up budget of a convert run), and its per-call input checks
were a third of the pipeline's time when the tagger scored 17 small calibrated classifiers per
document. The features here reproduce scikit-learn's ``HashingVectorizer`` (MurmurHash3 through
the ``murmurhash`` package spaCy already depends on), ``TfidfTransformer``, ``CountVectorizer``
with a fixed vocabulary and ``MaxAbsScaler``: the same columns, and values equal to within a unit
in the last place. ``export_*`` checks that on the training rows, and the tests compare both on
corpus text.
"""

from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from pmparse.errors import ModelError
from pmparse.nlp import gram_table
from pmparse.nlp.gram_table import shared_table, shared_texts, word_grams


def _word_ngrams(tokens: list[str], n: int) -> list[str]:
    """The word ``n``-grams of ``tokens`` in order (scikit-learn's, joined by one space)."""
    if n == 1:
        return tokens
    if n == 2:
        return [a + " " + b for a, b in zip(tokens, tokens[1:])]
    return [" ".join(tokens[k:k + n]) for k in range(len(tokens) - n + 1)]


@dataclass
class Sparse:
    """A row-major sparse matrix (CSR layout) of hashed features.

    Attributes:
        indptr: Row ``i`` holds entries ``indptr[i]:indptr[i+1]``.
        indices: Column of each entry.
        data: Value of each entry.
        shape: ``(rows, columns)``.
    """

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    shape: tuple[int, int]

    def dot(self, weights: np.ndarray) -> np.ndarray:
        """``self @ weights`` for a dense ``(columns, k)`` matrix, as a dense ``(rows, k)`` array."""
        rows = self.shape[0]
        out = np.zeros((rows, weights.shape[1]), dtype=np.float64)
        if len(self.data) == 0:
            return out
        # float32 weights times float64 data multiply in float64, as after an explicit cast; take,
        # cast, then multiply in place is the same arithmetic in half the time of a mixed-type
        # product of a fancy-indexed gather (0.25 -> 0.12 s over the corpus's units)
        products = np.take(weights, self.indices, axis=0).astype(np.result_type(weights, self.data), copy=False)
        products *= self.data[:, None]
        filled = np.flatnonzero(np.diff(self.indptr) > 0)
        out[filled] = np.add.reduceat(products, self.indptr[filled], axis=0)
        return out

    def dense(self) -> np.ndarray:
        """The matrix as a dense array (for tests and small inputs)."""
        out = np.zeros(self.shape)
        for i in range(self.shape[0]):
            a, b = self.indptr[i], self.indptr[i + 1]
            np.add.at(out[i], self.indices[a:b], self.data[a:b])
        return out


def hstack(blocks: Sequence[Sparse]) -> Sparse:
    """Blocks with the same rows side by side (columns of block ``j`` shifted past the earlier ones)."""
    rows = blocks[0].shape[0]
    counts = [np.diff(block.indptr) for block in blocks]
    indptr = np.zeros(rows + 1, dtype=np.int64)
    np.cumsum(sum(counts), out=indptr[1:])
    indices = np.empty(indptr[-1], dtype=np.int64)
    data = np.empty(indptr[-1], dtype=np.float64)
    before = indptr[:-1].copy()  # where each row's entries of the current block go
    offset = 0
    for block, count in zip(blocks, counts):
        # entry k of the block (row r) lands at before[r] + (k - block.indptr[r])
        target = np.repeat(before - block.indptr[:-1], count) + np.arange(len(block.indices), dtype=np.int64)
        indices[target] = block.indices + offset
        data[target] = block.data
        before += count
        offset += block.shape[1]
    return Sparse(indptr, indices, data, (rows, offset))


def _rows_from_columns(columns: Sequence[Sequence[int]], width: int) -> Sparse:
    """A Sparse matrix of counts from per-row column lists (a column listed twice counts 2)."""
    entries = np.fromiter((len(c) for c in columns), dtype=np.int64, count=len(columns))
    flat = np.fromiter(itertools.chain.from_iterable(columns), dtype=np.int64, count=int(entries.sum()))
    return _rows_from_flat(entries, flat, width)


def _rows_from_flat(entries: np.ndarray, flat: np.ndarray, width: int) -> Sparse:
    """A Sparse matrix of counts from the columns of every row, one after the other.

    Args:
        entries: How many of ``flat`` belong to each row.
        flat: Columns, row after row (a column listed twice in a row counts 2).
        width: Number of columns.
    """
    n = len(entries)
    rows = np.repeat(np.arange(n, dtype=np.int64), entries)
    # one sort for the whole batch: a key per (row, column) pair, counted
    keys, counts = np.unique(rows * width + flat, return_counts=True)
    key_rows = keys // width
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(key_rows, minlength=n), out=indptr[1:])
    return Sparse(indptr, keys - key_rows * width, counts.astype(np.float64), (n, width))


def _l2_normalise(matrix: Sparse) -> None:
    squares = matrix.data ** 2
    filled = np.flatnonzero(np.diff(matrix.indptr) > 0)
    norms = np.zeros(matrix.shape[0])
    if len(filled):
        norms[filled] = np.sqrt(np.add.reduceat(squares, matrix.indptr[filled]))
    per_entry = np.repeat(norms, np.diff(matrix.indptr))
    nonzero = per_entry > 0
    matrix.data[nonzero] /= per_entry[nonzero]


#: Token patterns and a faster one finding the same tokens. scikit-learn's default opens with \b,
#: so re tries every position; \w{2,} lets it skip to word characters, and it finds the same
#: runs: a run of two or more word characters matches whole from its start (so its end is a
#: boundary), a run of one never matches.
_SAME_TOKENS = {r"(?u)\b\w\w+\b": r"\w{2,}"}


class HashedNgrams:
    """Hashed word or character n-gram counts, optionally tf-idf weighted and l2-normalised.

    Equal to scikit-learn's ``HashingVectorizer(alternate_sign=False, norm=None)`` followed by
    ``TfidfTransformer`` (when ``idf`` is given) for the options kept here.

    Args:
        analyzer: ``word`` or ``char_wb``.
        ngram_range: Smallest and largest n.
        n_features: Number of hashed columns.
        lowercase: Lowercase the text first.
        token_pattern: Word pattern (``word`` analyzer).
        idf: Inverse document frequency per column; None for raw counts.
        sublinear_tf: Replace a count ``c`` by ``1 + log(c)``.
        norm: ``l2`` or None.
    """

    def __init__(self, analyzer: str, ngram_range: tuple[int, int], n_features: int, lowercase: bool = True,
                 token_pattern: str = r"(?u)\b\w\w+\b", idf: np.ndarray | None = None, sublinear_tf: bool = False,
                 norm: str | None = None) -> None:
        if analyzer not in ("word", "char_wb"):
            raise ModelError(f"expected a word or char_wb analyzer, found {analyzer!r}")
        self.analyzer = analyzer
        self.ngram_range = (int(ngram_range[0]), int(ngram_range[1]))
        self.n_features = int(n_features)
        self.lowercase = lowercase
        self.token_pattern = token_pattern
        self.idf = None if idf is None else np.asarray(idf, dtype=np.float64)
        self.sublinear_tf = sublinear_tf
        self.norm = norm
        self._token = re.compile(_SAME_TOKENS.get(token_pattern, token_pattern))
        self._table = shared_table(self.ngram_range)
        # blocks whose n-grams of a text are the same share the text's hashes (word blocks of
        # other lengths too: a text's 1-grams are the first part of its 1-2-grams)
        self._texts = shared_texts(("char_wb", self.ngram_range, lowercase) if analyzer == "char_wb"
                                   else ("word", lowercase, token_pattern))

    def terms(self, text: str) -> list[str]:
        """The n-grams of ``text``, in scikit-learn's order and with its repeats."""
        low, high = self.ngram_range
        if self.analyzer == "word":
            tokens = self._tokens(text)
            return [gram for n in range(low, high + 1) for gram in _word_ngrams(tokens, n)]
        grams = []
        for word in (text.lower() if self.lowercase else text).split():
            grams.extend(word_grams(word, self.ngram_range))
        return grams

    def _tokens(self, text: str) -> list[str]:
        """The words of ``text`` (lowercased first when the block lowercases)."""
        if self.lowercase:
            text = text.lower()
        # r"\S+" finds what str.split() does (both split on str.isspace()), faster
        return text.split() if self.token_pattern == r"\S+" else self._token.findall(text)

    def _hash_texts(self, texts: Sequence[str]) -> tuple[list[int], np.ndarray]:
        """Hashes of the n-grams of ``texts``, text after text: ``(sizes, hashes)``.

        ``sizes`` holds one count per text for character n-grams, and for word n-grams one per
        text and n from 1 to the block's largest (all the batch's n-grams are hashed in one pass).
        A word's character n-gram hashes depend on the word alone: they come from the process's
        table for this ``ngram_range`` (:mod:`pmparse.nlp.gram_table`), which every block reading
        the same n-grams shares, so a word is hashed once however many models read it.
        """
        if self.analyzer == "char_wb":
            words_of = [(t.lower() if self.lowercase else t).split() for t in texts]
            entries, hashes = self._table.gather(words_of)
            return entries.tolist(), hashes
        high = self.ngram_range[1]
        grams: list[str] = []
        sizes: list[int] = []
        for text in texts:
            tokens = self._tokens(text)
            for n in range(1, high + 1):
                more = _word_ngrams(tokens, n)
                grams.extend(more)
                sizes.append(len(more))
        return sizes, gram_table.gram_hashes(grams)

    def _columns(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Columns of the n-grams of ``texts``: ``(entries per text, columns)``.

        A text another block read with the same n-grams comes from the shared text cache
        (:class:`~pmparse.nlp.gram_table.TextCache`; used only where two blocks of the process
        read alike). Only each row's multiset of columns counts: :func:`_rows_from_flat` sorts
        them, so the order the arrays are joined in changes no value.
        """
        low, high = self.ngram_range
        per_text = 1 if self.analyzer == "char_wb" else high  # arrays a text's hashes come in
        first = 0 if self.analyzer == "char_wb" else low - 1  # the first of them this block reads
        cache = self._texts if self._texts.readers > 1 else None
        found = [cache.get(t) for t in texts] if cache is not None else [None] * len(texts)
        missing = [i for i, f in enumerate(found) if f is None or len(f) < per_text]
        if missing:
            sizes, hashes = self._hash_texts([texts[i] for i in missing] if len(missing) < len(texts) else texts)
            if len(missing) == len(texts) and first == 0:
                # every text new: the batch's hashes are already in text order
                if cache is not None:
                    self._keep(cache, texts, sizes, hashes, per_text)
                entries = np.array(sizes, dtype=np.int64).reshape(len(texts), per_text).sum(axis=1)
                return entries, hashes % self.n_features
            kept = self._keep(cache, [texts[i] for i in missing], sizes, hashes, per_text)
            for i, arrays in zip(missing, kept):
                found[i] = arrays
        chosen = [f[first:per_text] for f in found]
        entries = np.fromiter((sum(map(len, c)) for c in chosen), dtype=np.int64, count=len(texts))
        parts = [a for c in chosen for a in c]
        hashes = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
        return entries, hashes % self.n_features

    @staticmethod
    def _keep(cache, texts: Sequence[str], sizes: list[int], hashes: np.ndarray,
              per_text: int) -> list[list[np.ndarray]]:
        """Each text's arrays (``per_text`` of them) cut from ``hashes``, put in ``cache`` when given."""
        bounds = list(itertools.accumulate(sizes, initial=0))
        arrays = [hashes[a:b] for a, b in zip(bounds, bounds[1:])]
        out = [arrays[k * per_text:(k + 1) * per_text] for k in range(len(texts))]
        if cache is not None:
            for text, value in zip(texts, out):
                cache.put(text, value)
        return out

    @property
    def _ids(self) -> dict[str, int]:
        """The words whose n-gram hashes the shared table holds."""
        return self._table.ids

    def transform(self, texts: Sequence[str]) -> Sparse:
        """Feature rows of ``texts``."""
        entries, columns = self._columns(texts)
        matrix = _rows_from_flat(entries, columns, self.n_features)
        if self.sublinear_tf:
            matrix.data = np.log(matrix.data) + 1.0
        if self.idf is not None:
            matrix.data = matrix.data * np.take(self.idf, matrix.indices)
        if self.norm == "l2":
            _l2_normalise(matrix)
        return matrix

    def spec(self) -> dict[str, Any]:
        """Settings as JSON (the idf vector is an array, saved apart)."""
        return {"kind": "hashed", "analyzer": self.analyzer, "ngram_range": list(self.ngram_range),
                "n_features": self.n_features, "lowercase": self.lowercase, "token_pattern": self.token_pattern,
                "sublinear_tf": self.sublinear_tf, "norm": self.norm, "idf": self.idf is not None}


class VocabularyCounts:
    """Counts of a fixed vocabulary of white-space separated words, divided by a per-word scale.

    Equal to scikit-learn's ``CountVectorizer(vocabulary=..., token_pattern=r"\\S+",
    lowercase=False)`` followed by a fitted ``MaxAbsScaler``.
    """

    def __init__(self, vocabulary: Sequence[str], scale: np.ndarray | None = None) -> None:
        self.vocabulary = list(vocabulary)
        self.index = {word: i for i, word in enumerate(self.vocabulary)}
        self.scale = np.ones(len(self.vocabulary)) if scale is None else np.asarray(scale, dtype=np.float64)

    def transform(self, texts: Sequence[str]) -> Sparse:
        """Feature rows of ``texts``."""
        columns = [[self.index[w] for w in t.split() if w in self.index] for t in texts]
        matrix = _rows_from_columns(columns, len(self.vocabulary))
        matrix.data = matrix.data / np.take(self.scale, matrix.indices)
        return matrix

    def _columns(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Columns of the known words of ``texts``: ``(entries per text, columns)``."""
        columns = [[self.index[w] for w in t.split() if w in self.index] for t in texts]
        entries = np.fromiter((len(c) for c in columns), dtype=np.int64, count=len(columns))
        return entries, np.fromiter(itertools.chain.from_iterable(columns), dtype=np.int64, count=int(entries.sum()))

    def spec(self) -> dict[str, Any]:
        """Settings as JSON (the scale is an array, saved apart)."""
        return {"kind": "vocabulary", "vocabulary": self.vocabulary}


class Features:
    """Feature blocks over the columns of a table of texts, side by side.

    Args:
        blocks: ``(column, transformer)`` pairs in output order.
    """

    def __init__(self, blocks: Sequence[tuple[int, HashedNgrams | VocabularyCounts]]) -> None:
        self.blocks = list(blocks)

    def transform(self, rows: Sequence[Sequence[str]]) -> Sparse:
        """Feature rows of ``rows`` (each a sequence of texts, one per column).

        The blocks' matrices side by side, made in one pass: every block's columns are counted
        in one sort (shifted past the earlier blocks'), and the weighting (``1 + log``, idf, the
        scale of vocabulary counts) and each block's l2 norm per row are applied to the joined
        entries at once. Per block this was a sort, four or five array steps and their join
        (:meth:`transform_blocks`, kept as the reference): numpy's cost per call, paid three or
        four times per matrix, was most of it. The values are the same to the bit: each entry
        is weighted by the same operations (a block without idf or scale is multiplied and
        divided by 1.0), and each row's norm sums the same entries in the same order.
        """
        rows = [list(r) for r in rows]
        if not rows or not self.blocks:
            return self.transform_blocks(rows)
        n = len(rows)
        entries, flats = [], []
        for (column, block), offset in zip(self.blocks, self._offsets[:-1]):
            count, flat = block._columns([r[column] for r in rows])
            entries.append(count)
            flats.append(flat + offset if offset else flat)
        width = self._offsets[-1]
        row_of = np.repeat(np.tile(np.arange(n, dtype=np.int64), len(self.blocks)), np.concatenate(entries))
        keys, counts = np.unique(row_of * width + np.concatenate(flats), return_counts=True)
        key_rows = keys // width
        indices = keys - key_rows * width
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(key_rows, minlength=n), out=indptr[1:])
        data = counts.astype(np.float64)
        if len(data):
            sublinear, weight, scale, normed, block_of = self._weighting
            if sublinear is not None:
                logged = sublinear[indices]
                data[logged] = np.log(data[logged]) + 1.0
            if weight is not None:
                data = data * np.take(weight, indices)
            if scale is not None:
                data = data / np.take(scale, indices)
            if normed is not None:
                # a segment is one row's entries of one block: the rows l2-normalised per block
                segment = key_rows * len(self.blocks) + np.take(block_of, indices)
                starts = np.flatnonzero(np.concatenate(([True], segment[1:] != segment[:-1])))
                norms = np.sqrt(np.add.reduceat(data ** 2, starts))
                per_entry = np.repeat(norms, np.diff(np.append(starts, len(data))))
                divide = (per_entry > 0) & np.take(normed, indices)
                data[divide] /= per_entry[divide]
        return Sparse(indptr, indices, data, (n, width))

    def transform_blocks(self, rows: Sequence[Sequence[str]]) -> Sparse:
        """:meth:`transform` block by block, each block's matrix made alone and then joined."""
        rows = [list(r) for r in rows]
        return hstack([block.transform([r[column] for r in rows]) for column, block in self.blocks])

    @functools.cached_property
    def _offsets(self) -> list[int]:
        """Where each block's columns start, and the width last."""
        return list(itertools.accumulate((_block_width(b) for _, b in self.blocks), initial=0))

    @functools.cached_property
    def _weighting(self) -> tuple:
        """Per joined column: ``1 + log`` or not, the idf weight, the vocabulary scale, l2 or not,
        and the block; None for a step no block takes."""
        parts: dict[str, list[np.ndarray]] = {"sublinear": [], "weight": [], "scale": [], "normed": [], "block": []}
        for b, (_, block) in enumerate(self.blocks):
            size = _block_width(block)
            hashed = isinstance(block, HashedNgrams)
            parts["sublinear"].append(np.full(size, hashed and block.sublinear_tf))
            parts["weight"].append(block.idf if hashed and block.idf is not None else np.ones(size))
            parts["scale"].append(np.ones(size) if hashed else block.scale)
            parts["normed"].append(np.full(size, hashed and block.norm == "l2"))
            parts["block"].append(np.full(size, b, dtype=np.int64))
        joined = {k: np.concatenate(v) for k, v in parts.items()}
        any_hashed = [b for _, b in self.blocks if isinstance(b, HashedNgrams)]
        return (joined["sublinear"] if joined["sublinear"].any() else None,
                joined["weight"] if any(b.idf is not None for b in any_hashed) else None,
                joined["scale"] if len(any_hashed) < len(self.blocks) else None,
                joined["normed"] if joined["normed"].any() else None,
                joined["block"])

    @property
    def width(self) -> int:
        """Number of feature columns."""
        return sum(b.n_features if isinstance(b, HashedNgrams) else len(b.vocabulary) for _, b in self.blocks)


def _block_width(block: HashedNgrams | VocabularyCounts) -> int:
    return block.n_features if isinstance(block, HashedNgrams) else len(block.vocabulary)


class Softmax:
    """A multinomial logistic regression: ``softmax(x @ coef.T + intercept)``.

    Args:
        coef: ``(classes, features)`` weights.
        intercept: ``(classes,)`` biases.
        classes: Class labels in column order.
    """

    def __init__(self, coef: np.ndarray, intercept: np.ndarray, classes: Sequence[str]) -> None:
        self.coef_t = np.ascontiguousarray(np.asarray(coef, dtype=np.float32).T)
        self.intercept = np.asarray(intercept, dtype=np.float64)
        self.classes = [str(c) for c in classes]

    def predict_proba(self, x: Sparse) -> np.ndarray:
        """Class probabilities, one row per input row."""
        scores = x.dot(self.coef_t) + self.intercept
        scores -= scores.max(axis=1, keepdims=True)
        np.exp(scores, out=scores)
        return scores / scores.sum(axis=1, keepdims=True)


class CalibratedBinaries:
    """One-vs-rest binary logistic regressions with sigmoid (Platt) calibration, scored together.

    The probability of key ``k`` is ``1 / (1 + exp(a_k * f_k + b_k))`` where ``f_k`` is the
    regression's decision value (scikit-learn's ``CalibratedClassifierCV(method="sigmoid",
    ensemble=False)``).
    """

    def __init__(self, keys: Sequence[str], coef: np.ndarray, intercept: np.ndarray, a: np.ndarray,
                 b: np.ndarray) -> None:
        self.keys = [str(k) for k in keys]
        self.coef_t = np.ascontiguousarray(np.asarray(coef, dtype=np.float64).T)
        self.intercept = np.asarray(intercept, dtype=np.float64)
        self.a = np.asarray(a, dtype=np.float64)
        self.b = np.asarray(b, dtype=np.float64)

    def predict_proba(self, x: Sparse) -> np.ndarray:
        """``(rows, keys)`` probabilities."""
        if not self.keys:
            return np.zeros((x.shape[0], 0))
        decision = x.dot(self.coef_t) + self.intercept
        return 1.0 / (1.0 + np.exp(self.a * decision + self.b))


class Logistic:
    """A binary logistic regression over dense rows: ``1 / (1 + exp(-(x @ coef + intercept)))``."""

    def __init__(self, coef: np.ndarray, intercept: float) -> None:
        self.coef = np.asarray(coef, dtype=np.float64).reshape(-1)
        self.intercept = float(intercept)

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        """Probability of the positive class per row."""
        return 1.0 / (1.0 + np.exp(-(np.asarray(x, dtype=np.float64) @ self.coef + self.intercept)))


def features_to_arrays(features: Features, prefix: str) -> tuple[list[dict], dict[str, np.ndarray]]:
    """JSON spec and named arrays of ``features``."""
    specs, arrays = [], {}
    for i, (column, block) in enumerate(features.blocks):
        spec = {**block.spec(), "column": column}
        if isinstance(block, HashedNgrams) and block.idf is not None:
            arrays[f"{prefix}.{i}.idf"] = block.idf
        if isinstance(block, VocabularyCounts):
            arrays[f"{prefix}.{i}.scale"] = block.scale
        specs.append(spec)
    return specs, arrays


def features_from_arrays(specs: list[dict], arrays, prefix: str) -> Features:
    """The inverse of :func:`features_to_arrays`.

    Raises:
        ModelError: a spec names an unknown kind or an array is missing.
    """
    blocks = []
    for i, spec in enumerate(specs):
        kind = spec.get("kind")
        if kind == "hashed":
            _check_hashed(spec, i)
            idf = _array(arrays, f"{prefix}.{i}.idf") if spec.get("idf") else None
            if idf is not None and len(idf) != int(spec["n_features"]):
                raise ModelError(f"expected {spec['n_features']} idf weights for block {i}, found {len(idf)}")
            block = HashedNgrams(spec["analyzer"], tuple(spec["ngram_range"]), spec["n_features"], spec["lowercase"],
                                 spec["token_pattern"], idf, spec["sublinear_tf"], spec["norm"])
        elif kind == "vocabulary":
            block = VocabularyCounts(spec["vocabulary"], _array(arrays, f"{prefix}.{i}.scale"))
        else:
            raise ModelError(f"expected a feature block of kind hashed or vocabulary, found {kind!r}")
        blocks.append((int(spec["column"]), block))
    return Features(blocks)


#: The word patterns a hashed block may name: those pmparse trains with. A model's ``meta.json``
#: may come with a library from someone else, and its pattern is compiled and run over every
#: unit: ``(a|a)*(a|a)*b`` backtracks for ever, a pattern with groups failed every input.
TOKEN_PATTERNS = (r"(?u)\b\w\w+\b", r"\S+")

#: The longest n-gram and the most hashed columns a block may have (pmparse trains 5 and 2**16):
#: n-grams of up to 100,000 words multiply a unit's terms by its length.
MAX_NGRAM = 8
MAX_HASHED = 2**22


def _check_hashed(spec: dict, i: int) -> None:
    """Refuse a hashed block's settings pmparse never trains, before anything is compiled or allocated.

    Raises:
        ModelError: an unknown word pattern, n-gram lengths outside 1 to :data:`MAX_NGRAM`, or
            more than :data:`MAX_HASHED` columns.
    """
    pattern, ngrams, width = spec.get("token_pattern"), spec.get("ngram_range"), spec.get("n_features")
    if pattern not in TOKEN_PATTERNS:
        raise ModelError(f"expected the word pattern of block {i} among {list(TOKEN_PATTERNS)}, found {pattern!r}")
    if not (isinstance(ngrams, list | tuple) and len(ngrams) == 2 and all(type(n) is int for n in ngrams)
            and 1 <= ngrams[0] <= ngrams[1] <= MAX_NGRAM):
        raise ModelError(f"expected n-gram lengths [low, high] within 1-{MAX_NGRAM} for block {i}, found {ngrams!r}")
    if not (type(width) is int and 1 <= width <= MAX_HASHED):
        raise ModelError(f"expected 1 to {MAX_HASHED} hashed columns for block {i}, found {width!r}")


def _array(arrays, key: str) -> np.ndarray:
    if key not in arrays:
        raise ModelError(f"expected an array named {key!r} in the weights, found none")
    return arrays[key]


class TextClassifier:
    """Features and a softmax head: class probabilities for rows of texts.

    Args:
        features: The feature blocks.
        head: The classifier over them.
    """

    def __init__(self, features: Features, head: Softmax) -> None:
        if features.width != head.coef_t.shape[0]:
            raise ModelError(f"expected a head over {features.width} features, found {head.coef_t.shape[0]}")
        self.features = features
        self.head = head

    def predict_proba(self, rows: Sequence[Sequence[str]]) -> np.ndarray:
        """``(rows, classes)`` probabilities."""
        if len(rows) == 0:
            return np.zeros((0, len(self.head.classes)))
        return self.head.predict_proba(self.features.transform(rows))

    def to_arrays(self) -> tuple[dict, dict[str, np.ndarray]]:
        """JSON spec and arrays for :func:`save_arrays`."""
        specs, arrays = features_to_arrays(self.features, "features")
        arrays["head.coef"] = np.ascontiguousarray(self.head.coef_t.T)
        arrays["head.intercept"] = self.head.intercept
        return {"features": specs, "classes": self.head.classes}, arrays

    @classmethod
    def from_arrays(cls, spec: dict, arrays) -> TextClassifier:
        """The inverse of :meth:`to_arrays`.

        Raises:
            ModelError: the spec or arrays do not fit together.
        """
        try:
            features = features_from_arrays(spec["features"], arrays, "features")
            head = Softmax(_array(arrays, "head.coef"), _array(arrays, "head.intercept"), spec["classes"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(f"expected a text classifier spec, found {exc!r}") from exc
        return cls(features, head)
