"""How firmly the training data holds each weight of the field model: the diagonal of its loss's
curvature, kept beside the model (``curvature.npz``) so ``pmparse train --library`` can adapt
the model without the corpus.

Adapting with a plain pull towards the shipped weights (``0.5 * |W - W0|^2``) lets a weight the
corpus saw on thirty thousand units move as freely as one it never saw: ten reviewed documents
then change how every sentence is read, and the model fits those ten and loses the rest. The
curvature says how much the training loss rises when a weight moves: for the multinomial logistic
loss, per label ``k`` and feature ``j``, ``sum_i s_i x_ij^2 p_ik (1 - p_ik)`` over the training rows
(``s_i`` the row's sample and class weight). With it the adaptation's regulariser is
``0.5 * sum (1 + C * H_kj) * (W_kj - W0_kj)^2``: a Laplace approximation of the training data's
loss, so adapting approximates training again on the corpus plus the library's rows.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

from pmparse.nlp.components.classifier import UnitModel
from pmparse.nlp.model_files import load_arrays, save_arrays
from pmparse.training.rows import training_rows

CURVATURE_FILE = "curvature.npz"


def curvature(model: UnitModel, examples) -> tuple[np.ndarray, np.ndarray]:
    """``(per label and feature, per label intercept)`` diagonal curvature of the training loss of
    ``model`` on the rows of ``examples`` (deduplicated and weighted as :func:`~pmparse.training.fields.fit` does)."""
    from scipy.sparse import csr_matrix

    rows, labels, weights = training_rows(examples)
    counts = Counter(labels)
    classes = model.labels
    # class_weight="balanced", as the model was fitted
    balance = {c: len(labels) / (len(classes) * counts[c]) for c in classes if counts[c]}
    s = np.array([w * balance.get(label, 1.0) for w, label in zip(weights, labels)])
    hessian = np.zeros((len(classes), model.estimator.features.width))
    intercept = np.zeros(len(classes))
    for start in range(0, len(rows), 2000):
        chunk = rows[start:start + 2000]
        x = model.estimator.features.transform(chunk)
        p = model.estimator.head.predict_proba(x)
        weight = s[start:start + 2000, None] * p * (1.0 - p)
        x2 = csr_matrix((x.data ** 2, x.indices, x.indptr), shape=x.shape)
        hessian += (x2.T @ weight).T
        intercept += weight.sum(axis=0)
    return hessian.astype(np.float32), intercept


def save_curvature(folder: Path, model: UnitModel, examples) -> None:
    """Write ``curvature.npz`` beside a model (numeric arrays only)."""
    hessian, intercept = curvature(model, examples)
    # half precision halves the file (2.4 MB); entries stay below 10 with tf-idf rows, where
    # float16 keeps three digits, more than a regulariser needs
    save_arrays(Path(folder) / CURVATURE_FILE, {"hessian": hessian.astype(np.float16), "intercept": intercept})


def load_curvature(folder: Path) -> tuple[np.ndarray, np.ndarray] | None:
    """The curvature kept beside a model, or None when it has none."""
    path = Path(folder) / CURVATURE_FILE
    if not path.is_file():
        return None
    arrays = load_arrays(path)
    return np.asarray(arrays["hessian"]), np.asarray(arrays["intercept"])
