"""How the tag model's rows are split: the calibration folds, and scikit-learn's grouped folds made fast."""

from __future__ import annotations

import numpy as np
import pytest

from pmparse.evaluation.gold_cards import Example
from pmparse.training.tags.folds import calibration_folds, stratified_group_folds


def test_calibration_folds_keep_a_documents_rows_together():
    examples = [Example(f"doc{i // 2}", "focus", "whole", {}) for i in range(24)]  # two rows per document
    y = np.array([1 if (i // 2) % 3 == 0 else 0 for i in range(24)])
    splits = calibration_folds(examples, y, seed=0)
    assert len(splits) == 3
    tested = sorted(int(i) for _, test in splits for i in test)
    assert tested == list(range(24))  # every row is held out exactly once
    for train, test in splits:
        assert not {examples[i].group for i in train} & {examples[i].group for i in test}
        assert set(y[train].tolist()) == {0, 1} and y[test].sum() > 0
    # too few documents for grouped folds: shuffled stratified folds instead
    alone = [Example("one", "focus", "whole", {}) for _ in range(6)]
    splits = calibration_folds(alone, np.array([1, 0, 1, 0, 1, 0]), seed=0)
    assert len(splits) == 3 and all(set(np.array([1, 0, 1, 0, 1, 0])[train].tolist()) == {0, 1} for train, _ in splits)


def _sklearn_folds(y, groups, n, seed):
    from sklearn.model_selection import StratifiedGroupKFold

    return list(StratifiedGroupKFold(n, shuffle=True, random_state=seed).split(np.zeros(len(y)), y, groups))


@pytest.mark.parametrize("seed", range(6))
def test_grouped_folds_are_scikit_learns_to_the_index(seed):
    """Random groups and labels of the tag model's shape (few positives, documents of one to three
    rows) and of others (three classes, big groups, folds tied at the start): the same folds."""
    rng = np.random.default_rng(seed)
    compared = 0
    for _ in range(150):
        n = int(rng.integers(6, 160))
        groups = [f"doc{int(g)}" for g in rng.integers(0, int(rng.integers(3, n + 1)), n)]
        k = int(rng.integers(2, 6))
        y = rng.integers(0, int(rng.integers(2, 4)), n) if rng.random() < 0.5 else (rng.random(n) < 0.15).astype(int)
        if len(set(groups)) < k or np.bincount(y).min() < k or len(np.unique(y)) < 2:
            continue
        split_seed = int(rng.integers(0, 1000))
        expected = _sklearn_folds(y, groups, k, split_seed)
        found = stratified_group_folds(y, groups, k, split_seed)
        assert len(found) == k
        for (train, test), (want_train, want_test) in zip(found, expected):
            assert np.array_equal(test, want_test) and np.array_equal(train, want_train)
        compared += 1
    assert compared > 50


def test_grouped_folds_keep_groups_whole_and_cover_every_row():
    y = np.array([1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0])
    groups = ["a", "a", "b", "c", "c", "d", "e", "e", "f", "g", "h", "h"]
    splits = stratified_group_folds(y, groups, 3, seed=4)
    assert sorted(int(i) for _, test in splits for i in test) == list(range(12))
    for train, test in splits:
        assert not {groups[i] for i in train} & {groups[i] for i in test}
        assert sorted(train.tolist() + test.tolist()) == list(range(12))
