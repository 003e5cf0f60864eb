"""How the tag model's rows are split: the folds of its calibration and of its cross-validations."""

from __future__ import annotations

import math

import numpy as np

from pmparse.evaluation.corpus import source_of
from pmparse.evaluation.gold_cards import Example
from pmparse.training.tags.inputs import TagSettings


def stratified_group_folds(y: np.ndarray, groups: list, n_splits: int,
                           seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The ``(train, test)`` index arrays of scikit-learn's ``StratifiedGroupKFold(n_splits,
    shuffle=True, random_state=seed)``, the same to the index, in a fraction of its time.

    scikit-learn deals each group to the fold that keeps the class shares most even, trying the
    folds one at a time with a dozen small numpy calls each; the tag model asks for these folds
    for every category of every fit (hundreds of thousands of groups dealt in one floor check,
    a fifth of its time). Here the same arithmetic is written out for Python floats, in the same
    order (so equal to the bit, and so the same choice where two folds tie), and the tie rule is
    scikit-learn's ``np.isclose`` written out for two floats.

    Args:
        y: Class of each row.
        groups: Group of each row; rows of one group land in one fold.
        n_splits: Folds (at most the number of groups).
        seed: Seed of the shuffle of the groups (a ``RandomState``, as scikit-learn seeds it).
    """
    rng = np.random.RandomState(seed)
    _, y_inv, y_cnt = np.unique(np.asarray(y), return_inverse=True, return_counts=True)
    _, groups_inv, groups_cnt = np.unique(np.asarray(groups), return_inverse=True, return_counts=True)
    per_group = np.zeros((len(groups_cnt), len(y_cnt)))
    np.add.at(per_group, (groups_inv.reshape(-1), y_inv.reshape(-1)), 1)
    perm = np.arange(len(groups_cnt))
    rng.shuffle(perm)
    per_group = per_group[perm]
    inverse = np.empty_like(perm)
    inverse[perm] = np.arange(perm.size)
    groups_inv = inverse[groups_inv.reshape(-1)]
    totals = [float(c) for c in y_cnt]
    per_fold = [[0.0] * len(totals) for _ in range(n_splits)]
    fold_of = np.empty(len(groups_cnt), dtype=int)
    rows = per_group.tolist()
    for group in np.argsort(-np.std(per_group, axis=1), kind="stable").tolist():
        counts = rows[group]
        best, low, fewest = 0, math.inf, math.inf
        for i in range(n_splits):
            value = _spread(per_fold, i, counts, totals)
            size = sum(per_fold[i])  # whole numbers: exact in any order
            if value < low or (_isclose(value, low) and size < fewest):
                best, low, fewest = i, value, size
        per_fold[best] = [a + b for a, b in zip(per_fold[best], counts)]
        fold_of[group] = best
    row_fold = fold_of[groups_inv]
    return [(np.flatnonzero(row_fold != i), np.flatnonzero(row_fold == i)) for i in range(n_splits)]


def _spread(per_fold: list[list[float]], fold: int, counts: list[float], totals: list[float]) -> float:
    """scikit-learn's measure of a proposed deal: the mean over classes of the standard deviation
    over folds of each fold's share of the class, with ``counts`` added to ``fold``. Written out
    as ``np.mean(np.std(shares, axis=0))`` computes it (sum left to right, divide, subtract the
    mean, square, sum, divide, square root), so the float is the same to the bit."""
    k = len(per_fold)
    spreads = 0.0
    for c, total in enumerate(totals):
        column = [(row[c] + counts[c] if i == fold else row[c]) / total for i, row in enumerate(per_fold)]
        mean = 0.0
        for value in column:
            mean += value
        mean /= k
        square = 0.0
        for value in column:
            square += (value - mean) * (value - mean)
        spreads += math.sqrt(square / k)
    return spreads / len(totals)


def _isclose(a: float, b: float) -> bool:
    """``np.isclose(a, b)`` with its default tolerances, for two Python floats."""
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= 1e-08 + 1e-05 * abs(b)


def calibration_folds(examples: list[Example], y: np.ndarray, seed: int,
                      folds: int = 3) -> list[tuple[np.ndarray, np.ndarray]]:
    """Internal folds of a category's calibration: shuffled, stratified and grouped by document.

    The rows of one document (its gold row, its annotated-spans row) share the whole text: split
    across folds, one would score the other as if it had seen it, and the sigmoid fitted on
    those scores would be fitted to a leak. Plain (unshuffled) folds are worse still: the rows are
    ordered by source, so each fold would hold out mostly one source. Falls back to shuffled
    stratified folds when grouping leaves a training fold with one class.
    """
    from sklearn.model_selection import StratifiedKFold

    n = max(2, int(min(folds, y.sum(), len(y) - y.sum())))
    groups = [ex.group for ex in examples]
    if len(set(groups)) >= n:
        splits = stratified_group_folds(y, groups, n, seed)
        if all(len(set(y[train].tolist())) == 2 and len(test) for train, test in splits):
            return splits
    return list(StratifiedKFold(n, shuffle=True, random_state=seed).split(np.zeros(len(y)), y))


def gold_folds(gold: list[dict], settings: TagSettings) -> dict[int, int]:
    """Fold of each gold document: a seeded shuffle of documents dealt into ``settings.folds`` folds."""
    rng = np.random.default_rng(settings.seed)
    order = rng.permutation(len(gold))
    return {int(doc): k % settings.folds for k, doc in enumerate(order)}


def source_folds(gold: list[dict]) -> dict[str, int]:
    """Fold of each gold source (the first component of a corpus path), in name order."""
    return {name: k for k, name in enumerate(sorted({source_of(row["path"]) for row in gold}))}


def row_folds(examples: list[Example], gold: list[dict], doc_folds: dict[int, int] | None = None) -> dict[str, int]:
    """Fold of every row group a cross-validation holds out (groups not in the map train in every fold).

    Args:
        examples: Every training row.
        gold: The gold documents.
        doc_folds: Gold document index -> fold for document-grouped folds; None to hold out
            whole sources: then every row of a gold source (its other dfds Stats rows, its team
            labels) leaves training with it, since sharing the held-out source's template and
            wording is what a source-held-out figure must not see. icco rows have no source
            among the gold ones and train in every fold.
    """
    if doc_folds is not None:
        return {row["path"]: doc_folds[i] for i, row in enumerate(gold)}
    sources = source_folds(gold)
    return {ex.group: sources[source_of(ex.group)] for ex in examples if source_of(ex.group) in sources}
