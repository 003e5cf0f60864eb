"""Exporting fitted scikit-learn models to the numpy arrays the run-time models read, checked against the originals."""

from __future__ import annotations

from typing import Any

import numpy as np

from pmparse.errors import ModelError
from pmparse.nlp.linear import CalibratedBinaries, Features, HashedNgrams, Logistic, Softmax, VocabularyCounts


def export_features(transformer) -> Features:
    """Features equal to a fitted scikit-learn ``ColumnTransformer`` of the shapes pmparse trains.

    Each of its transformers is a ``Pipeline`` of ``HashingVectorizer`` and ``TfidfTransformer``
    or of ``CountVectorizer`` (fixed vocabulary) and ``MaxAbsScaler``.

    Raises:
        ModelError: a transformer of another shape.
    """
    blocks = []
    for name, pipe, column in transformer.transformers_:
        if name == "remainder":
            continue
        steps = [step for _, step in pipe.steps]
        first = steps[0]
        kind = type(first).__name__
        if kind == "HashingVectorizer":
            tfidf = steps[1] if len(steps) > 1 else None
            if first.alternate_sign or first.norm is not None or first.binary or first.stop_words or \
                    first.preprocessor or first.tokenizer or first.strip_accents:
                raise ModelError(f"expected a plain HashingVectorizer in {name!r}, found other options")
            idf = np.asarray(tfidf.idf_, dtype=np.float64) if tfidf is not None and tfidf.use_idf else None
            blocks.append((int(column), HashedNgrams(
                first.analyzer, first.ngram_range, first.n_features, first.lowercase, first.token_pattern, idf,
                bool(tfidf.sublinear_tf) if tfidf is not None else False, tfidf.norm if tfidf is not None else None)))
        elif kind == "CountVectorizer":
            scaler = steps[1] if len(steps) > 1 else None
            vocabulary = [w for w, _ in sorted(first.vocabulary_.items(), key=lambda kv: kv[1])]
            scale = np.asarray(scaler.scale_, dtype=np.float64) if scaler is not None else None
            blocks.append((int(column), VocabularyCounts(vocabulary, scale)))
        else:
            raise ModelError(f"expected hashing or vocabulary features in {name!r}, found {kind}")
    return Features(blocks)


def export_softmax(classifier) -> Softmax:
    """A :class:`Softmax` equal to a fitted multi-class scikit-learn ``LogisticRegression``."""
    return Softmax(classifier.coef_, classifier.intercept_, [str(c) for c in classifier.classes_])


def export_calibrated(classifiers: dict[str, Any]) -> CalibratedBinaries:
    """:class:`CalibratedBinaries` equal to fitted ``CalibratedClassifierCV(ensemble=False)`` per key.

    Raises:
        ModelError: a classifier that is not a single sigmoid-calibrated linear model.
    """
    keys = sorted(classifiers)
    coef, intercept, a, b = [], [], [], []
    for key in keys:
        calibrated = classifiers[key].calibrated_classifiers_
        if len(calibrated) != 1 or len(calibrated[0].calibrators) != 1:
            raise ModelError(f"expected one sigmoid-calibrated classifier for {key}, found {len(calibrated)}")
        inner = calibrated[0]
        estimator, calibrator = inner.estimator, inner.calibrators[0]
        coef.append(np.asarray(estimator.coef_, dtype=np.float64).reshape(-1))
        intercept.append(float(np.ravel(estimator.intercept_)[0]))
        a.append(float(calibrator.a_))
        b.append(float(calibrator.b_))
    width = len(coef[0]) if coef else 0
    return CalibratedBinaries(keys, np.array(coef).reshape(len(keys), width), np.array(intercept), np.array(a),
                              np.array(b))


def export_logistic(classifier) -> Logistic:
    """A :class:`Logistic` equal to a fitted binary scikit-learn ``LogisticRegression``."""
    return Logistic(classifier.coef_[0], float(classifier.intercept_[0]))


def check_export(expected: np.ndarray, found: np.ndarray, what: str, tolerance: float = 1e-4) -> None:
    """Raise when exported predictions differ from scikit-learn's on the same rows.

    Raises:
        ModelError: the largest difference exceeds ``tolerance``.
    """
    if expected.shape != found.shape:
        raise ModelError(f"expected exported {what} predictions of shape {expected.shape}, found {found.shape}")
    worst = float(np.max(np.abs(expected - found))) if expected.size else 0.0
    if worst > tolerance:
        raise ModelError(f"expected exported {what} to predict as scikit-learn does, found a difference of {worst:.2e}")
