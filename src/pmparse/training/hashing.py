"""The hashed n-gram features the field and heading models are trained on (no vocabulary is
stored, so a model loads fast and holds no corpus words)."""

from __future__ import annotations

import numpy as np


def hashed(**options):
    """A hashing vectorizer (``options`` pass on to it) followed by sublinear tf-idf."""
    from sklearn.feature_extraction.text import HashingVectorizer, TfidfTransformer
    from sklearn.pipeline import Pipeline

    return Pipeline([("hash", HashingVectorizer(alternate_sign=False, norm=None, dtype=np.float32, **options)),
                     ("tfidf", TfidfTransformer(sublinear_tf=True))])
